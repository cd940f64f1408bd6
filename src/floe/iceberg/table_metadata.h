/// \file
/// Table metadata (Iceberg spec: Table Metadata, Snapshots, Snapshot
/// References, Appendix C "Table Metadata and Snapshots", Appendix E/F): the
/// typed model, reading v1/v2/v3 JSON with validation, writing v2 JSON
/// (PITFALLS 46-56), a spec check for written metadata, and lookups (snapshot by
/// id, by ref, as of a time, ancestors, schema/spec/sort order by id).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema_json.h"
#include "floe/iceberg/sort_order.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::iceberg {

/// Snapshot operations (Iceberg spec: Snapshots; PITFALLS 81).
enum class SnapshotOperation : uint8_t { kAppend, kReplace, kOverwrite, kDelete };
std::string_view SnapshotOperationName(SnapshotOperation op);
Result<SnapshotOperation> ParseSnapshotOperation(std::string_view text);

/// A snapshot. v1 snapshots may carry `manifests` instead of a manifest list.
struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;  ///< 0 for v1 snapshots (Appendix E)
  int64_t timestamp_ms = 0;
  std::string manifest_list;           ///< empty for v1 snapshots with `manifests`
  std::vector<std::string> manifests;  ///< v1 only
  /// `operation` of the summary (absent only in old v1 metadata).
  std::optional<SnapshotOperation> operation;
  /// The rest of the summary; values are strings (Appendix F).
  std::map<std::string, std::string> summary;
  std::optional<int32_t> schema_id;
  // v3 row lineage, read and kept but not used.
  std::optional<int64_t> first_row_id;
  std::optional<int64_t> added_rows;
  std::optional<std::string> key_id;

  bool operator==(const Snapshot&) const = default;
};

enum class SnapshotRefType : uint8_t { kBranch, kTag };

/// A named reference (Iceberg spec: Snapshot References).
struct SnapshotRef {
  int64_t snapshot_id = 0;
  SnapshotRefType type = SnapshotRefType::kBranch;
  std::optional<int32_t> min_snapshots_to_keep;  ///< branches only
  std::optional<int64_t> max_snapshot_age_ms;    ///< branches only
  std::optional<int64_t> max_ref_age_ms;

  bool is_branch() const { return type == SnapshotRefType::kBranch; }
  bool operator==(const SnapshotRef&) const = default;
};

/// `snapshot-log` entry.
struct SnapshotLogEntry {
  int64_t timestamp_ms = 0;
  int64_t snapshot_id = 0;
  bool operator==(const SnapshotLogEntry&) const = default;
};

/// `metadata-log` entry.
struct MetadataLogEntry {
  int64_t timestamp_ms = 0;
  std::string metadata_file;
  bool operator==(const MetadataLogEntry&) const = default;
};

/// The name of the main branch.
inline constexpr std::string_view kMainBranch = "main";

/// One table metadata file.
struct TableMetadata {
  int32_t format_version = 2;
  std::string table_uuid;
  std::string location;
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  int32_t last_column_id = 0;
  std::vector<SchemaPtr> schemas;
  int32_t current_schema_id = 0;
  /// v3 field defaults (raw JSON text) by schema id.
  std::map<int32_t, FieldDefaults> field_defaults;
  std::vector<PartitionSpec> specs;
  int32_t default_spec_id = 0;
  int32_t last_partition_id = kUnpartitionedLastPartitionId;
  std::vector<SortOrder> sort_orders;
  int32_t default_sort_order_id = 0;
  std::map<std::string, std::string> properties;
  /// Absent for an empty table (Java's -1 is read as absent).
  std::optional<int64_t> current_snapshot_id;
  std::vector<Snapshot> snapshots;
  std::map<std::string, SnapshotRef> refs;
  std::vector<SnapshotLogEntry> snapshot_log;
  std::vector<MetadataLogEntry> metadata_log;
  /// `statistics` and `partition-statistics` entries, kept opaque (JSON text).
  std::vector<std::string> statistics;
  std::vector<std::string> partition_statistics;
  /// v3 row lineage, kept but not used.
  std::optional<int64_t> next_row_id;

  // Lookups. Each returns nullptr or kNotFound naming what is missing.
  const Snapshot* SnapshotById(int64_t id) const;
  const Snapshot* CurrentSnapshot() const;
  Result<const Snapshot*> SnapshotByRef(std::string_view ref_name) const;
  /// The snapshot that was current at `timestamp_ms`: the last snapshot-log
  /// entry at or before it (Appendix F). kNotFound when there is none.
  Result<const Snapshot*> SnapshotAsOf(int64_t timestamp_ms) const;
  /// The snapshot and its ancestors, newest first, until a parent is missing
  /// (expired) or absent.
  std::vector<const Snapshot*> Ancestors(int64_t snapshot_id) const;
  SchemaPtr SchemaById(int32_t schema_id) const;
  SchemaPtr CurrentSchema() const;
  const PartitionSpec* SpecById(int32_t spec_id) const;
  const PartitionSpec* DefaultSpec() const;
  const SortOrder* SortOrderById(int32_t order_id) const;

  /// Cross-field rules shared by read and write: current schema/spec/order
  /// exist, ids unique, current snapshot and refs name existing snapshots,
  /// refs.main matches current-snapshot-id, tag-only fields on branches, and
  /// for v2+ snapshot sequence numbers <= last-sequence-number.
  Status Validate() const;

  bool operator==(const TableMetadata& other) const;
};

/// Parses a metadata JSON file of format version 1, 2 or 3 (gzip-compressed
/// files, `*.gz.metadata.json`, are recognized by their magic bytes). v1 fields
/// (`schema`, `partition-spec`, snapshot `manifests`) are converted; missing v1
/// values default as in Appendix E. Errors are kCorrupt naming the field;
/// kUnsupported for format versions above 3 or unsupported types.
Result<TableMetadata> TableMetadataFromJson(std::string_view json);

/// Writes format version 2 or 3 JSON (v3 with next-row-id and the snapshots'
/// first-row-id / added-rows). Checks
/// ValidateForWrite first. Files are indented for people (`indent` 2);
/// -1 is compact (the REST server's answers).
Result<std::string> TableMetadataToJson(const TableMetadata& metadata, int indent = 2);

/// Everything a v2 writer must satisfy (PITFALLS 46-56): Validate() plus
/// format version 2, a uuid, an absolute location, last-column-id >= highest
/// field id, ids <= 2147483447, specs valid against the current schema when
/// they are the default, partition ids <= last-partition-id, snapshots with
/// positive ids, a manifest list and an operation, logs ascending and not
/// after last-updated-ms.
Status ValidateForWrite(const TableMetadata& metadata);

/// A spec check of metadata JSON text as written by any writer (used by the
/// tests on our own output): required v2 fields present with the right JSON
/// kinds, longs as bare integers, no v1-only fields, `current-snapshot-id`
/// omitted or equal to refs.main.
Status CheckV2MetadataJson(std::string_view json);

// ---------------------------------------------------------------------------
// Building metadata for commits.

/// A random (version 4) uuid in canonical text.
std::string NewUuid();
/// A positive snapshot id from a random uuid, as Java makes them
/// ((most ^ least significant bits) & Long.MAX_VALUE; Appendix F).
int64_t NewSnapshotId();

/// What a new table is made from. Field ids of `schema`, and the source ids of
/// `spec` and `sort_order` that refer to them, may be any: the table gets fresh
/// ids as Java assigns them (each struct's fields first, then their children,
/// from 1), partition field ids from 1000, spec id 0, and sort order id 1 (0 if
/// unsorted).
struct NewTableOptions {
  std::string location;
  Schema schema;
  PartitionSpec spec;
  SortOrder sort_order;
  std::map<std::string, std::string> properties;
  int64_t now_ms = 0;
  std::string table_uuid;  ///< empty: a new random uuid
  /// 2 or 3 (a v3 table starts with next-row-id 0).
  int32_t format_version = 2;
};

/// The first metadata of a v2 or v3 table (no snapshots, last-sequence-number 0;
/// PITFALLS 69). Validated with ValidateForWrite.
Result<TableMetadata> NewTableMetadata(const NewTableOptions& options);

/// Adds a committed snapshot and moves `branch` to it: the snapshot's
/// sequence number must be last-sequence-number + 1 (which becomes the new
/// last), its parent the branch's head (a new branch may start from any
/// existing snapshot), its id new. For `main`,
/// current-snapshot-id and the snapshot-log follow (PITFALLS 54, 56, 69).
/// last-updated-ms becomes max(now_ms, snapshot timestamp). In a format
/// version 3 table the snapshot's first-row-id must be the table's
/// next-row-id, which then moves by its added-rows.
Status AddSnapshot(TableMetadata* metadata, Snapshot snapshot, int64_t now_ms,
                   std::string_view branch = kMainBranch);

/// Records the metadata file being replaced in the metadata-log, keeping at
/// most `max_entries` (Java: write.metadata.previous-versions-max, default 100).
void AddMetadataLogEntry(TableMetadata* metadata, std::string previous_metadata_file,
                         int64_t previous_last_updated_ms, size_t max_entries = 100);

}  // namespace floe::iceberg
