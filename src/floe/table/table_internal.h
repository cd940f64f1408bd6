/// \file
/// Helpers shared by table.cc (refs, expiry, live entries) and the snapshot
/// producer and its operations (snapshot_producer.cc, manifest_filter.cc,
/// snapshot_summary.cc): reading a snapshot's manifests and entries, naming
/// new metadata files, partition tuple keys, and the files one commit attempt
/// wrote. Not part of the public API.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "floe/iceberg/manifest.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::table::internal {

/// A byte key for a partition tuple of spec `spec_id` (value kinds and
/// bytes), for set lookups: equal tuples of one spec give equal keys, and a
/// null is a value of its own.
std::string PartitionKey(int32_t spec_id, const iceberg::Values& values);

/// The integer property `key` of `m`, or `fallback` when it is missing or
/// not an integer.
int64_t ParseLongOr(const std::map<std::string, std::string>& m, const std::string& key,
                    int64_t fallback);

/// The manifests of a snapshot: its manifest list, or (format v1 without a
/// list) its `manifests` described one by one.
Result<std::vector<iceberg::ManifestFile>> ReadManifests(const Table& table,
                                                         const iceberg::Snapshot& snapshot);

/// Every entry of one manifest (inheritance applied); column statistics only
/// when `with_stats`.
Result<std::vector<iceberg::ManifestEntry>> ReadEntries(const Table& table,
                                                        const iceberg::ManifestFile& m,
                                                        bool with_stats);

/// `<location>/metadata/<name>` of the table: the location stored in
/// metadata and written through the table's FileIO.
std::string MetadataFile(const Table& table, const std::string& name);

/// The locations of the files one commit attempt (or all attempts) wrote:
/// they are removed when the commit is known to have failed, and kept when
/// it landed or its outcome is unknown (Iceberg spec: Commit Conflict
/// Resolution; PITFALLS 94).
struct WrittenFiles {
  explicit WrittenFiles(io::FileIOPtr io) : io_(std::move(io)) {}
  std::vector<std::string> locations;
  /// Removes every recorded file (a missing one is fine) and forgets them.
  void RemoveAll();

 private:
  io::FileIOPtr io_;
};

}  // namespace floe::table::internal
