#include "floe/iceberg/manifest.h"
#include "floe/util/strings.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>

namespace floe::iceberg {

std::string_view FileFormatName(FileFormat f) {
  switch (f) {
    case FileFormat::kAvro: return "AVRO";
    case FileFormat::kOrc: return "ORC";
    case FileFormat::kParquet: return "PARQUET";
    case FileFormat::kPuffin: return "PUFFIN";
  }
  return "PARQUET";
}

Result<FileFormat> ParseFileFormat(std::string_view text) {
  std::string t = ToLower(text);
  if (t == "parquet") return FileFormat::kParquet;
  if (t == "avro") return FileFormat::kAvro;
  if (t == "orc") return FileFormat::kOrc;
  if (t == "puffin") return FileFormat::kPuffin;
  return InvalidArgument("file format '{}' is not avro, orc, parquet or puffin", text);
}

std::string_view ManifestContentName(ManifestContent c) {
  return c == ManifestContent::kData ? "data" : "deletes";
}

Result<ManifestContent> ParseManifestContent(std::string_view text) {
  if (text == "data") return ManifestContent::kData;
  if (text == "deletes") return ManifestContent::kDeletes;
  return InvalidArgument("manifest content '{}' is not \"data\" or \"deletes\"", text);
}

Status DataFile::Validate() const {
  if (file_path.empty()) return InvalidArgument("data file: file_path is empty");
  const std::string& f = file_path;
  if (record_count < 0) return InvalidArgument("data file {}: record_count {} is negative", f, record_count);
  if (file_size_in_bytes < 0) {
    return InvalidArgument("data file {}: file_size_in_bytes {} is negative", f, file_size_in_bytes);
  }
  if (content == DataFileContent::kEqualityDeletes && equality_ids.empty()) {
    return InvalidArgument("equality delete file {}: equality_ids are required", f);
  }
  if (content != DataFileContent::kEqualityDeletes && !equality_ids.empty()) {
    return InvalidArgument("file {}: equality_ids are only for equality delete files", f);
  }
  if (content == DataFileContent::kPositionDeletes && sort_order_id) {
    return InvalidArgument("position delete file {}: sort_order_id must be null", f);
  }
  if (content == DataFileContent::kData && referenced_data_file) {
    return InvalidArgument("data file {}: referenced_data_file is only for delete files", f);
  }
  if (!std::is_sorted(split_offsets.begin(), split_offsets.end())) {
    return InvalidArgument("file {}: split_offsets must be ascending", f);
  }
  for (const auto& [id, nans] : nan_value_counts) {
    auto it = value_counts.find(id);
    if (it != value_counts.end() && nans > it->second) {
      return InvalidArgument("file {}: column {} has more NaN values ({}) than values ({})", f, id,
                             nans, it->second);
    }
  }
  for (const auto& [id, nulls] : null_value_counts) {
    auto it = value_counts.find(id);
    if (it != value_counts.end() && nulls > it->second) {
      return InvalidArgument("file {}: column {} has more nulls ({}) than values ({})", f, id, nulls,
                             it->second);
    }
  }
  return Ok();
}

ManifestEntry AddedEntry(DataFile file) {
  ManifestEntry e;
  e.status = ManifestEntryStatus::kAdded;
  e.data_file = std::move(file);
  return e;
}

namespace {
Status NeedExplicit(const ManifestEntry& e, std::string_view what) {
  if (!e.snapshot_id || !e.sequence_number || !e.file_sequence_number) {
    return InvalidArgument(
        "{} entry for {}: snapshot id and sequence numbers must be explicit (read the entry with "
        "InheritFromManifest first)",
        what, e.data_file.file_path);
  }
  if (e.status == ManifestEntryStatus::kDeleted) {
    return InvalidArgument("{} entry for {}: the entry is DELETED and no longer live", what,
                           e.data_file.file_path);
  }
  return Ok();
}
}  // namespace

Result<ManifestEntry> ExistingEntry(const ManifestEntry& read_entry) {
  FLOE_RETURN_IF_ERROR(NeedExplicit(read_entry, "EXISTING"));
  ManifestEntry e = read_entry;
  e.status = ManifestEntryStatus::kExisting;
  return e;
}

Result<ManifestEntry> DeletedEntry(const ManifestEntry& read_entry, int64_t deleting_snapshot_id) {
  FLOE_RETURN_IF_ERROR(NeedExplicit(read_entry, "DELETED"));
  ManifestEntry e = read_entry;
  e.status = ManifestEntryStatus::kDeleted;
  e.snapshot_id = deleting_snapshot_id;
  return e;
}

Status InheritFromManifest(const ManifestFile& manifest, int32_t manifest_format_version,
                           ManifestEntry* entry) {
  if (!entry->snapshot_id) entry->snapshot_id = manifest.added_snapshot_id;
  if (manifest_format_version == 1) {
    // v1 manifests have no sequence numbers: they read as 0 (Appendix E).
    if (!entry->sequence_number) entry->sequence_number = 0;
    if (!entry->file_sequence_number) entry->file_sequence_number = 0;
    return Ok();
  }
  if (entry->status == ManifestEntryStatus::kAdded) {
    if (!entry->sequence_number) entry->sequence_number = manifest.sequence_number;
    if (!entry->file_sequence_number) entry->file_sequence_number = manifest.sequence_number;
    return Ok();
  }
  if (!entry->sequence_number || !entry->file_sequence_number) {
    return Corrupt(
        "manifest {}: {} entry for {} has a null {}: only ADDED entries inherit sequence numbers",
        manifest.manifest_path,
        entry->status == ManifestEntryStatus::kExisting ? "EXISTING" : "DELETED",
        entry->data_file.file_path,
        !entry->sequence_number ? "sequence_number" : "file_sequence_number");
  }
  return Ok();
}

Status AddToCounts(ManifestEntryStatus status, int64_t record_count, ManifestCounts* counts) {
  int32_t* files = &counts->added_files;
  int64_t* rows = &counts->added_rows;
  std::string_view what = "added";
  if (status == ManifestEntryStatus::kExisting) {
    files = &counts->existing_files, rows = &counts->existing_rows, what = "existing";
  } else if (status == ManifestEntryStatus::kDeleted) {
    files = &counts->deleted_files, rows = &counts->deleted_rows, what = "deleted";
  }
  // Hostile or absurd record counts must not wrap into negative totals.
  int64_t new_rows;
  int32_t new_files;
  if (__builtin_add_overflow(*rows, record_count, &new_rows) ||
      __builtin_add_overflow(*files, int32_t{1}, &new_files)) {
    return InvalidArgument(
        "the {} rows count {} plus a file of {} records overflows (the {} files count is {})", what,
        *rows, record_count, what, *files);
  }
  *rows = new_rows;
  *files = new_files;
  return Ok();
}

Result<ManifestCounts> CountEntries(const std::vector<ManifestEntry>& entries,
                                    int64_t manifest_sequence_number) {
  ManifestCounts c;
  int64_t min_seq = std::numeric_limits<int64_t>::max();
  for (const auto& e : entries) {
    if (auto st = AddToCounts(e.status, e.data_file.record_count, &c); !st) {
      return Fail(
          std::move(st).error().WithContext(fmt::format("entry for {}", e.data_file.file_path)));
    }
    if (e.is_live()) min_seq = std::min(min_seq, e.sequence_number.value_or(manifest_sequence_number));
  }
  // A manifest with no live entries: its own sequence number is the lowest.
  c.min_sequence_number = min_seq == std::numeric_limits<int64_t>::max() ? manifest_sequence_number : min_seq;
  return c;
}

Status SetCounts(const std::vector<ManifestEntry>& entries, ManifestFile* m) {
  auto counted = CountEntries(entries, m->sequence_number);
  if (!counted)
    return Fail(
        std::move(counted).error().WithContext(fmt::format("manifest {}", m->manifest_path)));
  const ManifestCounts& c = *counted;
  m->added_files_count = c.added_files;
  m->existing_files_count = c.existing_files;
  m->deleted_files_count = c.deleted_files;
  m->added_rows_count = c.added_rows;
  m->existing_rows_count = c.existing_rows;
  m->deleted_rows_count = c.deleted_rows;
  m->min_sequence_number = c.min_sequence_number;
  return Ok();
}

PartitionSummaryBuilder::PartitionSummaryBuilder(TypePtr partition_type)
    : type_(std::move(partition_type)), fields_(type_ ? type_->fields.size() : 0) {}

Status PartitionSummaryBuilder::Add(const Values& partition) {
  if (partition.size() != fields_.size()) {
    return InvalidArgument("partition tuple has {} values but the partition type has {} fields",
                           partition.size(), fields_.size());
  }
  for (size_t i = 0; i < partition.size(); ++i) {
    const NestedField& field = type_->fields[i];
    const Value& v = partition[i];
    if (!v.Matches(*field.type)) {
      return InvalidArgument("partition field '{}': value does not have the form of {}", field.name,
                             field.type->ToString());
    }
    FieldState& st = fields_[i];
    if (v.is_null()) {
      st.contains_null = true;
      continue;
    }
    bool nan = (field.type->id == TypeId::kFloat && v.as_float() != v.as_float()) ||
               (field.type->id == TypeId::kDouble && v.as_double() != v.as_double());
    if (nan) {
      st.contains_nan = true;
      continue;
    }
    if (st.lower.is_null() || CompareValues(*field.type, v, st.lower) < 0) st.lower = v;
    if (st.upper.is_null() || CompareValues(*field.type, v, st.upper) > 0) st.upper = v;
  }
  return Ok();
}

Result<std::vector<PartitionFieldSummary>> PartitionSummaryBuilder::Finish() const {
  std::vector<PartitionFieldSummary> out;
  for (size_t i = 0; i < fields_.size(); ++i) {
    const FieldState& st = fields_[i];
    PartitionFieldSummary s;
    s.contains_null = st.contains_null;
    s.contains_nan = st.contains_nan;
    if (!st.lower.is_null()) {
      FLOE_ASSIGN_OR_RETURN(std::string lower, ToBinary(*type_->fields[i].type, st.lower));
      FLOE_ASSIGN_OR_RETURN(std::string upper, ToBinary(*type_->fields[i].type, st.upper));
      s.lower_bound = std::move(lower);
      s.upper_bound = std::move(upper);
    }
    out.push_back(std::move(s));
  }
  return out;
}

Status ValidateManifest(const ManifestFile& m, const std::vector<ManifestEntry>& entries) {
  const std::string& p = m.manifest_path;
  auto counted = CountEntries(entries, m.sequence_number);
  if (!counted) return Fail(std::move(counted).error().WithContext(fmt::format("manifest {}", p)));
  const ManifestCounts& c = *counted;
  if (c.added_files != m.added_files_count || c.existing_files != m.existing_files_count ||
      c.deleted_files != m.deleted_files_count) {
    return Corrupt(
        "manifest {}: file counts added/existing/deleted {}/{}/{} in the list but {}/{}/{} in the "
        "entries",
        p, m.added_files_count, m.existing_files_count, m.deleted_files_count, c.added_files,
        c.existing_files, c.deleted_files);
  }
  if (c.added_rows != m.added_rows_count || c.existing_rows != m.existing_rows_count ||
      c.deleted_rows != m.deleted_rows_count) {
    return Corrupt(
        "manifest {}: row counts added/existing/deleted {}/{}/{} in the list but {}/{}/{} in the "
        "entries",
        p, m.added_rows_count, m.existing_rows_count, m.deleted_rows_count, c.added_rows,
        c.existing_rows, c.deleted_rows);
  }
  // A file is live once; the deletion vectors of one Puffin file share its
  // path and differ by content_offset (Iceberg spec: Deletion Vectors).
  std::set<std::pair<std::string_view, int64_t>> live;
  for (const auto& e : entries) {
    bool is_delete = e.data_file.content != DataFileContent::kData;
    if (is_delete != (m.content == ManifestContent::kDeletes)) {
      return Corrupt("manifest {} holds {} but lists {} file {}", p, ManifestContentName(m.content),
                     is_delete ? "delete" : "data", e.data_file.file_path);
    }
    if (e.is_live() &&
        !live.insert({e.data_file.file_path, e.data_file.content_offset.value_or(-1)}).second) {
      return Corrupt("manifest {}: file {} is live twice", p, e.data_file.file_path);
    }
    FLOE_RETURN_IF_ERROR(e.data_file.Validate());
  }
  return Ok();
}

}  // namespace floe::iceberg
