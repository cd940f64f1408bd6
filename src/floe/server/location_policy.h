/// \file
/// Where `floe serve` lets its clients put tables: a client-given location
/// (create-table `location`, register-table `metadata-location` and the
/// table location in that file, a commit's set-location) must be the
/// backend's warehouse or under it, or under one of the prefixes the operator
/// allows (`--allow-location-prefix`). Without this rule any client could make
/// the server read or write any path it can reach.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/util/status.h"

namespace floe::server {

class LocationPolicy {
 public:
  /// `warehouse` (empty: the backend has none the server writes to) and the
  /// operator's prefixes (local paths, `file:` URIs or `scheme://` locations).
  /// kInvalidArgument naming a prefix that is not a location.
  static Result<LocationPolicy> Make(const std::string& warehouse,
                                     const std::vector<std::string>& prefixes);

  /// Ok when `location` is under an allowed root; else kInvalidArgument
  /// naming the location and the roots. Local paths are compared after
  /// `.`/`..` and symbolic links are resolved (a link inside the warehouse
  /// to a folder outside it is outside); object-store locations compare as
  /// written, `.` and `..` segments refused; s3, s3a and s3n are one scheme.
  Status Check(std::string_view location) const;

  /// The roots as given ("the warehouse X and the allowed prefixes Y, Z").
  std::string Describe() const;

 private:
  std::vector<std::string> roots_;  ///< comparable forms
  std::string warehouse_;
  std::vector<std::string> prefixes_;
};

}  // namespace floe::server
