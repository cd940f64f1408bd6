/// \file
/// Manifests and manifest lists as Avro files (Iceberg spec: Manifests,
/// Manifest Entry Fields, Data File Fields, Manifest Lists, Sequence Number
/// Inheritance, Appendix A "Avro", Appendix E; PITFALLS 57-74, 100-103).
///
/// Writing (format v2 and v3; ManifestWriteOptions::format_version):
///  - ManifestWriter writes one manifest for one partition spec and one content
///    (data | deletes). The Avro schema follows the spec's field tables with
///    Java's record names (`manifest_entry`, `r2`, `r102`, `k117_v118`, ...), and
///    the header carries `schema`, `schema-id`, `partition-spec` (fields array),
///    `partition-spec-id`, `format-version` "2" and `content`.
///  - ManifestListWriter writes one snapshot's manifest list (`manifest_file`
///    records, `r508` partition summaries) with the header keys `snapshot-id`,
///    `parent-snapshot-id` ("null" when there is no parent, as Java writes it),
///    `sequence-number` and `format-version` "2".
///
/// A v3 manifest's data_file adds `first_row_id` (142), `content_offset`
/// (144) and `content_size_in_bytes` (145) around `referenced_data_file`; a v3
/// manifest list adds `first_row_id` (520), which the list writer assigns to
/// every data manifest that has none, from the snapshot's `first-row-id`,
/// each taking added_rows_count + existing_rows_count ids (Iceberg spec: First
/// Row ID Assignment, Row Lineage for Upgraded Tables).
///
/// The retry convention (PITFALLS 70-73): a manifest written for the snapshot
/// being committed does not know that snapshot's sequence number, which is
/// only fixed when the manifest list is written (a retried commit gets a new
/// one). So ADDED entries are written with null snapshot id and sequence
/// numbers, and ManifestWriter::Close returns a ManifestFile whose
/// `sequence_number`, and `added_snapshot_id` / `min_sequence_number` when they
/// depend on it, are kUnassigned (-1). ManifestListWriter::Add replaces every
/// kUnassigned value with the list's snapshot id and sequence number, leaving
/// the ManifestFile returned by Close untouched, so the same manifest can be
/// listed again by the next attempt.
///
/// Reading (format v1, v2 and the v2 subset of v3): fields are found by Avro
/// `field-id` (by name when a writer left ids out), so manifests of Java,
/// Spark, Trino, PyIceberg and floe read alike; partition tuples are typed by
/// the manifest's partition spec; sequence numbers are inherited from the
/// manifest list (InheritFromManifest) and v1 values default as Appendix E says.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/iceberg/manifest.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file.h"
#include "floe/types/type.h"
#include "floe/util/codec.h"
#include "floe/util/status.h"

namespace floe::avro {
class ContainerWriter;
}

namespace floe::iceberg {

/// Marks a snapshot id or sequence number that the manifest list writer fills
/// in (snapshot ids and sequence numbers are never negative).
inline constexpr int64_t kUnassigned = -1;

/// Options of the manifest and manifest-list writers.
struct ManifestWriteOptions {
  /// Avro block codec: kDeflateRaw (default; icebird reads only null and
  /// deflate), kUncompressed, kSnappy or kZstd.
  Codec codec = Codec::kDeflateRaw;
  int level = 0;  ///< codec level, 0 = the codec's default
  /// The Avro sync marker; random when not given (tests fix it).
  std::optional<std::array<uint8_t, 16>> sync_marker;
  /// The table format version the file is written for: 2 or 3.
  int32_t format_version = 2;
  /// Manifest lists of format v3 only: the snapshot's `first-row-id` (the
  /// table's `next-row-id`), the first id assigned to data manifests.
  std::optional<int64_t> first_row_id;
};

/// Writes one v2 or v3 manifest. Entries are validated as they are added (file
/// rules, content kind, partition tuple against the spec's partition type,
/// explicit sequence numbers for EXISTING/DELETED). Not thread-safe.
class ManifestWriter {
 public:
  /// Opens a manifest for files of `spec` (whose sources must be in
  /// `schema`, the table schema written into the header). `snapshot_id` is
  /// the snapshot that adds the manifest, or kUnassigned to let the manifest
  /// list writer fill it in.
  static Result<std::unique_ptr<ManifestWriter>> Open(std::unique_ptr<OutputFile> file,
                                                      const Schema& schema,
                                                      const PartitionSpec& spec,
                                                      ManifestContent content,
                                                      int64_t snapshot_id = kUnassigned,
                                                      const ManifestWriteOptions& options = {});

  ManifestWriter(const ManifestWriter&) = delete;
  ManifestWriter& operator=(const ManifestWriter&) = delete;
  ~ManifestWriter();

  /// Appends an entry as given. ADDED entries normally come from AddedEntry
  /// (null snapshot id and sequence numbers); EXISTING and DELETED entries
  /// need an explicit snapshot id and both sequence numbers (ExistingEntry,
  /// DeletedEntry). kInvalidArgument names the file and the rule broken.
  Status Add(const ManifestEntry& entry);
  /// Appends `file` as a new ADDED entry (AddedEntry).
  Status AddFile(DataFile file);

  /// Writes the last block and publishes the file. Returns its manifest-list
  /// entry: path, exact length, spec id, content, counts, partition summaries,
  /// added_snapshot_id (kUnassigned unless given to Open), sequence_number
  /// kUnassigned, and min_sequence_number = the lowest explicit data sequence
  /// number of live entries, or kUnassigned when no live entry has one.
  Result<ManifestFile> Close();

  /// Entries added so far.
  int64_t entry_count() const;

 private:
  struct State;
  explicit ManifestWriter(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// Writes one v2 or v3 manifest list. Not thread-safe.
class ManifestListWriter {
 public:
  /// `sequence_number` is the snapshot's; `parent_snapshot_id` empty for the
  /// first snapshot of a table.
  static Result<std::unique_ptr<ManifestListWriter>> Open(std::unique_ptr<OutputFile> file,
                                                          int64_t snapshot_id,
                                                          std::optional<int64_t> parent_snapshot_id,
                                                          int64_t sequence_number,
                                                          const ManifestWriteOptions& options = {});

  ManifestListWriter(const ManifestListWriter&) = delete;
  ManifestListWriter& operator=(const ManifestListWriter&) = delete;
  ~ManifestListWriter();

  /// Appends a manifest. kUnassigned `sequence_number` becomes this list's
  /// sequence number, kUnassigned `added_snapshot_id` this snapshot's id, and
  /// a kUnassigned `min_sequence_number` this sequence number too (otherwise
  /// the lower of the two when the manifest is new). Returns the entry as
  /// written. kInvalidArgument for a manifest whose sequence number is above
  /// the list's, negative counts or lengths, or an empty path.
  Result<ManifestFile> Add(const ManifestFile& manifest);

  /// Writes the last block and publishes the file; returns its exact length.
  Result<int64_t> Close();

  /// v3: the first row id not assigned yet (the table's next `next-row-id`);
  /// the snapshot's `added-rows` is this minus its `first-row-id`. Empty for v2.
  std::optional<int64_t> next_row_id() const;

 private:
  struct State;
  explicit ManifestListWriter(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// The header of a manifest list, as far as it was written.
struct ManifestListInfo {
  int32_t format_version = 1;  ///< `format-version`, else 1 without sequence numbers
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> parent_snapshot_id;
  std::optional<int64_t> sequence_number;
};

/// Reads a manifest list of format v1 or v2 (v3 lists read their v2 fields
/// plus first_row_id). v1 lists read content 0 and sequence numbers 0
/// (Appendix E); missing v1 counts read 0. kCorrupt names the file, the
/// record and the field.
Result<std::vector<ManifestFile>> ReadManifestList(const InputFile& file,
                                                   ManifestListInfo* info = nullptr);

/// What ReadManifest converts.
struct ManifestReadOptions {
  /// Column metrics: column_sizes, value_counts, null_value_counts,
  /// nan_value_counts, lower_bounds and upper_bounds (Flink
  /// `include-column-stats`). Without them an entry holds what scan planning
  /// needs: content, path, format, partition, counts, size, key metadata,
  /// split offsets, equality ids, sort order, referenced file. (Avro has no
  /// random access inside a record, so the metrics are still decoded; what
  /// is saved is their conversion and the memory they would take.)
  bool include_column_stats = true;
  /// Drop DELETED entries (a scan never reads them; PITFALLS 74).
  bool skip_deleted = false;
};

/// The header of a manifest, resolved against the table.
struct ManifestInfo {
  int32_t format_version = 1;
  ManifestContent content = ManifestContent::kData;
  PartitionSpec spec;
  TypePtr partition_type;  ///< struct, one optional field per spec field
};

/// Reads the entries of one manifest, listed in a manifest list as
/// `list_entry`, of a table described by `metadata`:
///  - the spec is the table's spec `list_entry.partition_spec_id`, else the
///    header's `partition-spec`; partition values are typed by its partition
///    type (source types from the current schema, then the header's
///    `schema`, then the table's other schemas) and matched by field id;
///  - the format version is the header's `format-version`, else 1 when the
///    entries have no sequence_number field, else the table's;
///  - snapshot ids and sequence numbers are inherited (InheritFromManifest);
///    v1 defaults apply (content data, sequence numbers 0).
/// kCorrupt names the file, the entry index and the field; a delete file in
/// a data manifest (or the reverse) is kCorrupt.
Result<std::vector<ManifestEntry>> ReadManifest(const InputFile& file, const ManifestFile& list_entry,
                                                const TableMetadata& metadata,
                                                const ManifestReadOptions& options = {},
                                                ManifestInfo* info = nullptr);

/// ReadManifest with only the fields scan planning needs (no column metrics)
/// and without DELETED entries.
Result<std::vector<ManifestEntry>> ReadManifestForPlanning(const InputFile& file,
                                                           const ManifestFile& list_entry,
                                                           const TableMetadata& metadata);

/// A manifest-list entry for a manifest of a v1 snapshot that lists its
/// manifests directly (snapshot `manifests`, no manifest list): path and
/// length of the file, spec id from the header (else the table's default),
/// content data, sequence numbers 0, `snapshot_id` as added_snapshot_id, and
/// counts from the entries.
Result<ManifestFile> DescribeV1Manifest(const InputFile& file, const TableMetadata& metadata,
                                        int64_t snapshot_id);

}  // namespace floe::iceberg
