// The location rule of `floe serve` (see location_policy.h).
#include "floe/server/location_policy.h"

#include <cctype>
#include <filesystem>
#include <system_error>

#include "floe/io/file_io.h"
#include "floe/io/location.h"

namespace floe::server {

namespace {

/// A location as text that compares by prefix on '/' boundaries: local ones
/// as "file:" + an absolute, resolved path; others as "scheme://rest".
Result<std::string> Comparable(std::string_view location) {
  if (location.empty()) return InvalidArgument("the location is empty");
  std::string scheme = io::SchemeOf(location);
  if (scheme == "file") {
    FLOE_ASSIGN_OR_RETURN(std::string path, io::LocalPathOfUri(location));
    std::string abs = AbsolutePath(path);
    std::error_code ec;
    // Symbolic links resolved for the part that exists (a new table's folder
    // does not yet); what does not exist is kept as normalized.
    std::filesystem::path resolved = std::filesystem::weakly_canonical(abs, ec);
    std::string out = ec ? abs : resolved.lexically_normal().string();
    while (out.size() > 1 && out.back() == '/') out.pop_back();
    return "file:" + out;
  }
  if (scheme == "s3a" || scheme == "s3n") scheme = "s3";
  std::string_view rest = location.substr(location.find(':') + 1);
  std::string out = scheme + ":";
  out += rest;
  for (size_t start = 0; start <= rest.size();) {
    size_t slash = rest.find('/', start);
    std::string_view seg = rest.substr(start, slash == rest.npos ? rest.npos : slash - start);
    if (seg == "." || seg == "..") {
      return InvalidArgument("location '{}' has a '{}' segment", location, seg);
    }
    if (slash == rest.npos) break;
    start = slash + 1;
  }
  while (!out.empty() && out.back() == '/') out.pop_back();
  return out;
}

bool Under(const std::string& location, const std::string& root) {
  if (location == root) return true;
  if (!location.starts_with(root)) return false;
  // "file:/" (the root folder) ends in '/' already.
  return root.back() == '/' || location[root.size()] == '/';
}

}  // namespace

Result<LocationPolicy> LocationPolicy::Make(const std::string& warehouse,
                                            const std::vector<std::string>& prefixes) {
  LocationPolicy p;
  p.warehouse_ = warehouse;
  p.prefixes_ = prefixes;
  if (!warehouse.empty()) {
    auto c = Comparable(warehouse);
    if (!c) return InvalidArgument("the warehouse {}: {}", warehouse, c.error().message);
    p.roots_.push_back(*c);
  }
  for (const auto& prefix : prefixes) {
    auto c = Comparable(prefix);
    if (!c) return InvalidArgument("--allow-location-prefix '{}': {}", prefix, c.error().message);
    p.roots_.push_back(*c);
  }
  return p;
}

Status LocationPolicy::Check(std::string_view location) const {
  auto c = Comparable(location);
  if (!c) return InvalidArgument("location '{}' is not accepted: {}", location, c.error().message);
  for (const auto& root : roots_) {
    if (Under(*c, root)) return Ok();
  }
  return InvalidArgument("location '{}' is outside {}", location, Describe());
}

std::string LocationPolicy::Describe() const {
  std::string out;
  if (!warehouse_.empty()) out = fmt::format("the warehouse {}", warehouse_);
  if (!prefixes_.empty()) {
    if (!out.empty()) out += " and ";
    out += prefixes_.size() == 1 ? "the allowed prefix " : "the allowed prefixes ";
    for (size_t i = 0; i < prefixes_.size(); ++i) out += (i ? ", " : "") + prefixes_[i];
  }
  if (out.empty()) out = "every allowed location (the backend has no warehouse and no prefix is allowed)";
  return out + " (floe serve --allow-location-prefix allows more)";
}

}  // namespace floe::server
