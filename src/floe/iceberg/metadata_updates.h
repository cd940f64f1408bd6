/// \file
/// Changes to table metadata, each producing the next TableMetadata value
/// (new tables, snapshots and the metadata log are in table_metadata.h)
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

/// Creates or moves a branch or tag to an existing snapshot. Moving `main`
/// changes the current snapshot. A tag cannot be replaced by a branch of the
/// same name or the reverse.
Result<TableMetadata> SetRef(const TableMetadata& base, const std::string& name, SnapshotRef ref);
/// Removes a branch or tag (never `main`).
Result<TableMetadata> RemoveRef(const TableMetadata& base, const std::string& name);

/// Removes snapshots by id (and snapshot-log entries that name them); refs
/// that point at a removed snapshot are an error.
Result<TableMetadata> RemoveSnapshots(const TableMetadata& base, const std::vector<int64_t>& ids);

/// Adds `spec` as a new partition spec of the table, under the next free
/// spec id (one above the highest; `spec`'s own id is ignored), without
/// making it the default (Iceberg spec: Table Metadata `partition-specs`;
/// the REST spec's add-spec update). Its field ids must be above the base's
/// last-partition-id (PartitionSpecBuilder from it assigns them so), which
/// then follows. The spec must be valid against the current schema. The new
/// spec is the last of the result's `specs`.
Result<TableMetadata> AddPartitionSpec(const TableMetadata& base, const PartitionSpec& spec);

/// The id of a spec of the table with no fields or only void ones (for
/// which equality deletes are global: Iceberg spec, Scan Planning): the
/// default spec when it is one, else the lowest such id; nullopt when there
/// is none.
std::optional<int32_t> UnpartitionedSpecId(const TableMetadata& metadata);

/// Sets and removes table properties.
Result<TableMetadata> UpdateProperties(const TableMetadata& base,
                                       const std::map<std::string, std::string>& set,
                                       const std::vector<std::string>& remove);

}  // namespace floe::iceberg
