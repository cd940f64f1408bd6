/// \file
/// Changes to table metadata, each producing the next TableMetadata value
/// (Iceberg spec: Table Metadata, Snapshots, Snapshot References; the REST
/// spec's table updates name the same operations). The catalog writes the
/// result as a new metadata version; nothing here touches files.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/sort_order.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::iceberg {

/// Milliseconds since the epoch, now.
int64_t NowMillis();

/// The metadata of a new, empty v2 table: fresh uuid, the schema (ids as
/// given; last-column-id = the highest), spec and sort order (ids 0 / 1 when
/// sorted), properties (`format-version` is taken out: only 2 is written).
Result<TableMetadata> NewTableMetadata(std::string location, const Schema& schema,
                                       const PartitionSpec& spec, const SortOrder& order,
                                       std::map<std::string, std::string> properties);

/// Adds `snapshot` (its sequence number must be last-sequence-number + 1, its
/// parent the current head of `branch`) and points `branch` at it; for `main`
/// also sets current-snapshot-id and appends to the snapshot log.
Result<TableMetadata> AddSnapshot(const TableMetadata& base, Snapshot snapshot,
                                  std::string_view branch = kMainBranch);

/// Creates or moves a branch or tag to an existing snapshot. Moving `main`
/// changes the current snapshot. A tag cannot be replaced by a branch of the
/// same name or the reverse.
Result<TableMetadata> SetRef(const TableMetadata& base, const std::string& name, SnapshotRef ref);
/// Removes a branch or tag (never `main`).
Result<TableMetadata> RemoveRef(const TableMetadata& base, const std::string& name);

/// Removes snapshots by id (and snapshot-log entries that name them); refs
/// that point at a removed snapshot are an error.
Result<TableMetadata> RemoveSnapshots(const TableMetadata& base, const std::vector<int64_t>& ids);

/// Sets and removes table properties.
Result<TableMetadata> UpdateProperties(const TableMetadata& base,
                                       const std::map<std::string, std::string>& set,
                                       const std::vector<std::string>& remove);

/// Records that `previous_metadata_file` was replaced, keeping at most
/// `write.metadata.previous-versions-max` entries; stamps last-updated-ms.
TableMetadata WithMetadataLog(TableMetadata next, const std::string& previous_metadata_file,
                              int64_t previous_last_updated_ms);

}  // namespace floe::iceberg
