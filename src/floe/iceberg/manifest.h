/// \file
/// The manifest model (Iceberg spec: Manifests, Manifest Entry Fields, Data
/// File Fields, Manifest Lists, Sequence Number Inheritance): typed structs for
/// manifest entries, data/delete files and manifest-list entries, with the
/// inheritance rules (PITFALLS 69-74) as functions. The Avro encoding lives
/// elsewhere; this is what it encodes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/iceberg/value.h"
#include "floe/util/status.h"

namespace floe::iceberg {

/// manifest_entry.status (field 0).
enum class ManifestEntryStatus : int32_t { kExisting = 0, kAdded = 1, kDeleted = 2 };

/// data_file.content (field 134).
enum class DataFileContent : int32_t { kData = 0, kPositionDeletes = 1, kEqualityDeletes = 2 };

/// manifest_file.content (field 517) and the manifest's `content` metadata.
enum class ManifestContent : int32_t { kData = 0, kDeletes = 1 };

/// data_file.file_format (field 101).
enum class FileFormat : uint8_t { kAvro, kOrc, kParquet, kPuffin };

/// Uppercase, as Java writes it ("PARQUET"; PITFALLS 68).
std::string_view FileFormatName(FileFormat f);
/// Case-insensitive.
Result<FileFormat> ParseFileFormat(std::string_view text);
/// "data" / "deletes" (manifest metadata `content`).
std::string_view ManifestContentName(ManifestContent c);
Result<ManifestContent> ParseManifestContent(std::string_view text);

/// A data or delete file (manifest entry field 2, `data_file`). Map fields are
/// keyed by column field id; bounds hold Appendix D binary single values.
struct DataFile {
  DataFileContent content = DataFileContent::kData;
  std::string file_path;
  FileFormat file_format = FileFormat::kParquet;
  /// One value per field of the manifest's partition spec, in spec order,
  /// typed by the partition type (PartitionSpec::PartitionType).
  Values partition;
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  std::map<int32_t, int64_t> column_sizes;
  std::map<int32_t, int64_t> value_counts;
  std::map<int32_t, int64_t> null_value_counts;
  std::map<int32_t, int64_t> nan_value_counts;
  std::map<int32_t, std::string> lower_bounds;
  std::map<int32_t, std::string> upper_bounds;
  std::optional<std::string> key_metadata;
  std::vector<int64_t> split_offsets;
  std::vector<int32_t> equality_ids;
  std::optional<int32_t> sort_order_id;
  std::optional<std::string> referenced_data_file;
  // v3 fields, kept when read.
  std::optional<int64_t> first_row_id;
  std::optional<int64_t> content_offset;
  std::optional<int64_t> content_size_in_bytes;

  /// The content rules: record_count and size >= 0; equality deletes need
  /// equality_ids, others must not have them; position deletes have no
  /// sort_order_id; split offsets ascending; nan counts not above value counts.
  Status Validate() const;

  bool operator==(const DataFile&) const = default;
};

/// A manifest entry (manifest_entry). Null snapshot id / sequence numbers are
/// inherited from the manifest list when read (see InheritFromManifest).
struct ManifestEntry {
  ManifestEntryStatus status = ManifestEntryStatus::kAdded;
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> sequence_number;       ///< data sequence number
  std::optional<int64_t> file_sequence_number;
  DataFile data_file;

  bool is_live() const { return status != ManifestEntryStatus::kDeleted; }
  bool operator==(const ManifestEntry&) const = default;
};

/// A partition field summary in a manifest-list entry (field 508).
struct PartitionFieldSummary {
  bool contains_null = false;
  std::optional<bool> contains_nan;
  std::optional<std::string> lower_bound;  ///< binary single value of the partition type
  std::optional<std::string> upper_bound;
  bool operator==(const PartitionFieldSummary&) const = default;
};

/// A manifest-list entry (manifest_file).
struct ManifestFile {
  std::string manifest_path;
  int64_t manifest_length = 0;
  int32_t partition_spec_id = 0;
  ManifestContent content = ManifestContent::kData;
  int64_t sequence_number = 0;
  int64_t min_sequence_number = 0;
  int64_t added_snapshot_id = 0;
  int32_t added_files_count = 0;
  int32_t existing_files_count = 0;
  int32_t deleted_files_count = 0;
  int64_t added_rows_count = 0;
  int64_t existing_rows_count = 0;
  int64_t deleted_rows_count = 0;
  std::vector<PartitionFieldSummary> partitions;
  std::optional<std::string> key_metadata;
  std::optional<int64_t> first_row_id;  ///< v3, kept when read

  bool has_added_files() const { return added_files_count > 0; }
  bool has_existing_files() const { return existing_files_count > 0; }
  bool operator==(const ManifestFile&) const = default;
};

/// A new entry for a file added by the snapshot being committed: status
/// ADDED with null snapshot id and sequence numbers, so they are inherited
/// and the manifest can be reused when a commit is retried (PITFALLS 70, 73).
ManifestEntry AddedEntry(DataFile file);

/// An entry carried into a new manifest as EXISTING (or marked DELETED by
/// `deleting_snapshot_id`): the entry must already have been read with
/// InheritFromManifest so its sequence numbers are explicit (PITFALLS 71, 74).
Result<ManifestEntry> ExistingEntry(const ManifestEntry& read_entry);
Result<ManifestEntry> DeletedEntry(const ManifestEntry& read_entry, int64_t deleting_snapshot_id);

/// Applies the read-time inheritance rules of the spec to an entry read from
/// `manifest` (Sequence Number Inheritance):
///  - a null snapshot_id takes manifest.added_snapshot_id;
///  - for ADDED entries, null sequence_number / file_sequence_number take
///    manifest.sequence_number;
///  - EXISTING and DELETED entries must carry both explicitly (kCorrupt
///    naming the file otherwise), except in v1 manifests where every missing
///    sequence number reads as 0 (`manifest_format_version` 1).
Status InheritFromManifest(const ManifestFile& manifest, int32_t manifest_format_version,
                           ManifestEntry* entry);

/// The counts and min_sequence_number of a manifest-list entry computed from
/// a manifest's entries: file and row counts by status, and the lowest data
/// sequence number of live entries (PITFALLS 66, 72). Entries with a null
/// sequence number count as `manifest_sequence_number`.
struct ManifestCounts {
  int32_t added_files = 0;
  int32_t existing_files = 0;
  int32_t deleted_files = 0;
  int64_t added_rows = 0;
  int64_t existing_rows = 0;
  int64_t deleted_rows = 0;
  int64_t min_sequence_number = 0;
};
/// kInvalidArgument naming the count when the record counts of the entries
/// add up past a long (or the files past an int).
Result<ManifestCounts> CountEntries(const std::vector<ManifestEntry>& entries,
                                    int64_t manifest_sequence_number);

/// Adds one entry of `status` with `record_count` rows to `counts`;
/// kInvalidArgument naming the count when a sum would overflow (counts are
/// left unchanged then).
Status AddToCounts(ManifestEntryStatus status, int64_t record_count, ManifestCounts* counts);

/// Fills the counts and min_sequence_number of `manifest` from its entries
/// (the errors of CountEntries, naming the manifest).
Status SetCounts(const std::vector<ManifestEntry>& entries, ManifestFile* manifest);

/// Accumulates the partition field summaries (field 507) of a manifest-list
/// entry from the partition tuples of its entries (Java adds every entry,
/// whatever its status): contains_null, contains_nan, and lower/upper bounds
/// over non-null, non-NaN values as binary single values of the partition
/// result type (PITFALLS 65).
class PartitionSummaryBuilder {
 public:
  /// `partition_type` is PartitionSpec::PartitionType (a struct).
  explicit PartitionSummaryBuilder(TypePtr partition_type);
  /// Adds one partition tuple; kInvalidArgument if it does not fit the type.
  Status Add(const Values& partition);
  /// One summary per partition field.
  Result<std::vector<PartitionFieldSummary>> Finish() const;

 private:
  struct FieldState {
    bool contains_null = false;
    bool contains_nan = false;
    Value lower;
    Value upper;
  };
  TypePtr type_;
  std::vector<FieldState> fields_;
};

/// Checks a manifest's entries against its manifest-list entry: counts match,
/// content kind matches (data vs delete files; PITFALLS 63), each path live at
/// most once (PITFALLS 99).
Status ValidateManifest(const ManifestFile& manifest, const std::vector<ManifestEntry>& entries);

}  // namespace floe::iceberg
