// DeletionVectorWriter: merges each data file's new deletes with its live
// ones and writes one Puffin file of deletion-vector-v1 blobs per commit.
#include "floe/table/deletion_vector_writer.h"

#include <algorithm>

#include "floe/config/options.h"
#include "floe/iceberg/deletion_vector.h"
#include "floe/iceberg/puffin.h"
#include "floe/iceberg/reserved_ids.h"
#include "floe/table/delete_writer.h"
#include "floe/table/row_delta.h"
#include "floe/table/scan.h"
#include "floe/table/table_internal.h"
#include "floe/table/table_reader.h"

namespace floe::table {

using iceberg::DataFile;
using iceberg::DataFileContent;

// The `_pos` metadata column (Iceberg spec: Reserved Field IDs): the field a
// deletion vector's positions are of, listed as the blob's `fields`.
constexpr int32_t kRowPositionFieldId = 2147483645;

void DeletionVectorUpdate::AddTo(RowDelta* delta) const {
  for (const auto& v : added) delta->AddDeleteFile(v.file, v.spec_id);
  for (const auto& f : removed) delta->RemoveDeleteFile(f);
  delta->ValidateDataFilesExist(base_snapshot_id);
}

DeletionVectorWriter::DeletionVectorWriter(Table* table, std::shared_ptr<OutputFileFactory> factory,
                                           std::string branch)
    : table_(table), factory_(std::move(factory)), branch_(std::move(branch)) {}

DeletionVectorWriter::~DeletionVectorWriter() = default;

Status DeletionVectorWriter::Delete(std::string_view data_file_path, std::span<const int64_t> positions) {
  if (done_) return InvalidArgument("deletion vector writer: Delete after Write");
  for (int64_t p : positions) {
    if (p < 0) return InvalidArgument("deletion vector for {}: position {} is negative", data_file_path, p);
  }
  auto it = deletes_.find(data_file_path);
  if (it == deletes_.end()) it = deletes_.emplace(std::string(data_file_path), std::vector<int64_t>{}).first;
  it->second.insert(it->second.end(), positions.begin(), positions.end());
  return Ok();
}

void DeletionVectorWriter::AddedDataFile(const DataFile& file, int32_t spec_id) {
  added_files_[file.file_path] = Added{file, spec_id};
}

void DeletionVectorWriter::Abort() {
  if (factory_) {
    for (const auto& location : written_) factory_->Remove(location);
  }
  written_.clear();
}

Result<std::vector<int64_t>> DeletionVectorWriter::MergedPositions(const ScanPlan& plan,
                                                                   const FileScanTask& t) const {
  const std::string& path = t.data_file.file_path;
  std::vector<int64_t> positions = deletes_.find(path)->second;
  auto existing = DeletedPositions(plan, t, *table_->io());
  if (!existing) return Fail(existing.error().WithContext(fmt::format("merging the deletes of {}", path)));
  positions.insert(positions.end(), existing->begin(), existing->end());
  return positions;
}

Result<DeletionVectorUpdate> DeletionVectorWriter::Write() {
  if (done_) return InvalidArgument("deletion vector writer: Write called twice");
  done_ = true;
  DeletionVectorUpdate out;
  const iceberg::TableMetadata& md = table_->metadata();
  const std::string table_name = table_->id().ToString();
  const bool v2_files = md.format_version < 3;
  if (v2_files && !position_files_on_v2_) {
    return InvalidArgument("table {} is format version {}: deletion vectors need format version 3 (raise it "
                           "with the table property format-version=3)",
                           table_name, md.format_version);
  }
  if (deletes_.empty()) return out;

  // The head the vectors are merged against; a new branch starts from main.
  const iceberg::Snapshot* head = nullptr;
  if (auto it = md.refs.find(branch_); it != md.refs.end()) {
    head = md.SnapshotById(it->second.snapshot_id);
  } else {
    head = md.CurrentSnapshot();
  }
  // The named data files as live in the head, and the position deletes
  // (files and vectors) that may apply to them.
  std::map<std::string, FileScanTask> tasks;
  std::vector<DeleteFileTaskPtr> deletes;
  if (head) {
    out.base_snapshot_id = head->snapshot_id;
    FLOE_ASSIGN_OR_RETURN(auto manifests, internal::ReadManifests(*table_, *head));
    for (const auto& m : manifests) {
      FLOE_ASSIGN_OR_RETURN(auto entries, internal::ReadEntries(*table_, m, false));
      for (auto& e : entries) {
        if (!e.is_live()) continue;
        const DataFile& f = e.data_file;
        if (f.content == DataFileContent::kData) {
          if (deletes_.contains(f.file_path) && !added_files_.contains(f.file_path)) {
            FileScanTask t;
            t.data_file = f;
            t.data_sequence_number = e.sequence_number.value_or(0);
            t.spec_id = m.partition_spec_id;
            tasks.emplace(f.file_path, std::move(t));
          }
        } else if (f.content == DataFileContent::kPositionDeletes &&
                   (!f.referenced_data_file || deletes_.contains(*f.referenced_data_file))) {
          auto d = std::make_shared<DeleteFileTask>();
          d->file = f;
          d->data_sequence_number = e.sequence_number.value_or(0);
          d->spec_id = m.partition_spec_id;
          deletes.push_back(std::move(d));
        }
      }
    }
  }
  for (const auto& [path, a] : added_files_) {
    if (!deletes_.contains(path)) continue;
    FileScanTask t;
    t.data_file = a.file;
    t.spec_id = a.spec_id;
    t.data_sequence_number = INT64_MAX;  // newer than every delete: none applies
    tasks.emplace(path, std::move(t));
  }
  for (const auto& [path, positions] : deletes_) {
    if (!tasks.contains(path)) {
      return NotFound("table {}: data file {} is not live on branch '{}' (nor added by this commit): its rows "
                      "cannot be deleted by position",
                      table_name, path, branch_);
    }
  }
  std::vector<FileScanTask> files;
  for (auto& [path, t] : tasks) files.push_back(std::move(t));
  FLOE_RETURN_IF_ERROR(AttachDeletes(md, deletes, &files));
  FLOE_ASSIGN_OR_RETURN(ScanPlan plan, PlanShape(std::make_shared<const iceberg::TableMetadata>(md), ScanOptions{}));

  FLOE_ASSIGN_OR_RETURN(auto options, DataWriterOptions::Resolve(md, config::Resolver(md.properties)));
  if (!factory_) factory_ = std::make_shared<OutputFileFactory>(table_->io(), options.data_location);
  if (v2_files) return WritePositionFiles(md, plan, files, options, std::move(out));
  FLOE_ASSIGN_OR_RETURN(auto nf, factory_->Open("", "deletes", "puffin"));
  written_.push_back(nf.location);
  auto fail = [&](Error e) -> Result<DeletionVectorUpdate> {
    Abort();
    return Fail(std::move(e));
  };
  auto puffin = iceberg::PuffinWriter::Open(std::move(nf.output), {{"created-by", "floe"}});
  if (!puffin) return fail(puffin.error());
  for (const FileScanTask& t : files) {
    const std::string& path = t.data_file.file_path;
    auto merged = MergedPositions(plan, t);
    if (!merged) return fail(merged.error());
    std::vector<int64_t>& positions = *merged;
    int64_t cardinality = 0;
    auto blob = iceberg::EncodeDeletionVectorBlob(positions, &cardinality);
    if (!blob) return fail(blob.error().WithContext(fmt::format("data file {}", path)));
    iceberg::PuffinBlobMetadata bm;
    bm.type = std::string(iceberg::kDeletionVectorBlobType);
    bm.fields = {kRowPositionFieldId};
    bm.properties = {{"referenced-data-file", path}, {"cardinality", std::to_string(cardinality)}};
    auto written = (*puffin)->Add(std::move(bm), std::span<const uint8_t>(
                                                     reinterpret_cast<const uint8_t*>(blob->data()), blob->size()));
    if (!written) return fail(written.error());
    DataFile dv;
    dv.content = DataFileContent::kPositionDeletes;
    dv.file_path = nf.location;
    dv.file_format = iceberg::FileFormat::kPuffin;
    dv.partition = t.data_file.partition;
    dv.record_count = cardinality;
    dv.referenced_data_file = path;
    dv.content_offset = written->offset;
    dv.content_size_in_bytes = written->length;
    out.added.push_back({std::move(dv), t.spec_id});
    for (const auto& d : t.deletes) {
      if (iceberg::IsDeletionVector(d->file)) out.removed.push_back(d->file);
    }
  }
  auto size = (*puffin)->Close();
  if (!size) return fail(size.error());
  for (auto& v : out.added) v.file.file_size_in_bytes = *size;
  out.puffin_location = nf.location;
  return out;
}

// Format version 2 (position_files_on_v2): each data file's merged positions
// go to a Parquet position delete file of its own, and the live file-scoped
// position delete files of that data file (merged into it) are removed.
Result<DeletionVectorUpdate> DeletionVectorWriter::WritePositionFiles(const iceberg::TableMetadata& md,
                                                                      const ScanPlan& plan,
                                                                      const std::vector<FileScanTask>& files,
                                                                      const DataWriterOptions& options,
                                                                      DeletionVectorUpdate out) {
  auto fail = [&](Error e) -> Result<DeletionVectorUpdate> {
    Abort();
    return Fail(std::move(e));
  };
  for (const FileScanTask& t : files) {
    const std::string& path = t.data_file.file_path;
    auto merged = MergedPositions(plan, t);
    if (!merged) return fail(merged.error());
    std::vector<int64_t>& positions = *merged;
    const iceberg::PartitionSpec* spec = md.SpecById(t.spec_id);
    if (!spec) return fail(Corrupt("data file {} names unknown spec {}", path, t.spec_id).error());
    auto writer = PositionDeleteWriter::Make(factory_, options, *spec, md.CurrentSchema());
    if (!writer) return fail(writer.error());
    if (Status st = (*writer)->Delete(path, positions, t.data_file.partition); !st) {
      (*writer)->Abort();
      return fail(std::move(st).error());
    }
    auto closed = (*writer)->Close();
    if (!closed) return fail(closed.error().WithContext(fmt::format("the position deletes of {}", path)));
    for (auto& f : *closed) {
      written_.push_back(f.file_path);
      if (f.referenced_data_file != path) {
        return fail(Internal("the position delete file written for {} references {}", path,
                             f.referenced_data_file.value_or("several data files"))
                        .error());
      }
      out.added.push_back({std::move(f), t.spec_id});
    }
    for (const auto& d : t.deletes) {
      if (d->file.content == DataFileContent::kPositionDeletes && !iceberg::IsDeletionVector(d->file) &&
          d->file.referenced_data_file == path) {
        out.removed.push_back(d->file);
      }
    }
  }
  return out;
}

}  // namespace floe::table
