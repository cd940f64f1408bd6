// RewritePositionDeletes: the live position deletes per data file, written
// again as fewer files (v2) or one vector per data file (v3).
#include "floe/table/rewrite_position_deletes.h"

#include <set>

#include "floe/config/options.h"
#include "floe/iceberg/deletion_vector.h"
#include "floe/table/delete_writer.h"
#include "floe/table/deletion_vector_writer.h"
#include "floe/table/rewrite_files.h"
#include "floe/table/scan.h"
#include "floe/table/table_internal.h"
#include "floe/table/table_reader.h"

namespace floe::table {

namespace k = config::keys;

Result<RewritePositionDeletesOptions> RewritePositionDeletesOptions::Resolve(
    const iceberg::TableMetadata& metadata, const std::map<std::string, std::string>& options) {
  FLOE_RETURN_IF_ERROR(config::CheckOptions(options, uint32_t(config::Scope::kRewrite), "--set"));
  for (const auto& [key, value] : options) {
    if (key != k::kTargetFileSizeBytes.name && key != k::kMinInputFiles.name && key != k::kRewriteAll.name) {
      return InvalidArgument("--set {}: rewrite-position-delete-files takes {}, {} and {}", key,
                             k::kTargetFileSizeBytes.name, k::kMinInputFiles.name, k::kRewriteAll.name);
    }
  }
  const config::Resolver r({&options, &metadata.properties});
  RewritePositionDeletesOptions o;
  FLOE_ASSIGN_OR_RETURN(o.writer, DataWriterOptions::Resolve(metadata, r));
  FLOE_ASSIGN_OR_RETURN(o.min_input_files, r.Value(k::kMinInputFiles));
  FLOE_ASSIGN_OR_RETURN(o.rewrite_all, r.Value(k::kRewriteAll));
  return o;
}

Result<RewritePositionDeletesResult> RewritePositionDeletes(Table* table,
                                                            const RewritePositionDeletesOptions& o) {
  RewritePositionDeletesResult result;
  auto md = std::make_shared<const iceberg::TableMetadata>(table->metadata());
  if (md->format_version < 2) {
    return Unsupported("table {} is format version {}: floe commits to format versions 2 and 3 (raise it with the "
                       "table property format-version=2)",
                       table->id().ToString(), md->format_version);
  }
  const iceberg::Snapshot* start = md->CurrentSnapshot();
  if (!start) return result;
  result.starting_snapshot_id = start->snapshot_id;
  const bool v3 = md->format_version >= 3;

  // Every live position delete file and vector.
  std::map<std::string, std::pair<iceberg::DataFile, int32_t>> deletes;  // by DeleteFileKey
  {
    FLOE_ASSIGN_OR_RETURN(auto manifests, internal::ReadManifests(*table, *start));
    for (const auto& m : manifests) {
      FLOE_ASSIGN_OR_RETURN(auto entries, internal::ReadEntries(*table, m, false));
      for (auto& e : entries) {
        if (!e.is_live()) continue;
        if (e.data_file.content == iceberg::DataFileContent::kPositionDeletes) {
          deletes.emplace(DeleteFileKey(e.data_file), std::make_pair(e.data_file, m.partition_spec_id));
        }
      }
    }
  }
  // Which delete files are replaced: v2, all of them past min-input-files;
  // v3, the position delete files (not vectors) and the vectors of the data
  // files those name or may name.
  std::set<std::string> replaced;
  if (!v3) {
    if (!o.rewrite_all && static_cast<int64_t>(deletes.size()) < o.min_input_files) return result;
    for (const auto& [key, f] : deletes) replaced.insert(key);
  } else {
    for (const auto& [key, f] : deletes) {
      if (!iceberg::IsDeletionVector(f.first) || o.rewrite_all) replaced.insert(key);
    }
    if (replaced.empty()) return result;
  }

  // The positions each live data file loses to the replaced files, through
  // the planner's attachment (sequence numbers, partitions, paths).
  ScanOptions so;
  so.snapshot_id = start->snapshot_id;
  FileManifestSource source(*md, table->io());
  FLOE_ASSIGN_OR_RETURN(ScanPlan plan, PlanScan(md, so, &source));
  FLOE_ASSIGN_OR_RETURN(ScanPlan shape, PlanShape(md, ScanOptions{}));
  struct Target {
    const FileScanTask* task;
    std::vector<int64_t> positions;
  };
  std::vector<Target> targets;
  for (const auto& task : plan.files) {
    bool touched = false;
    for (const auto& d : task.deletes) {
      if (d->file.content == iceberg::DataFileContent::kPositionDeletes && replaced.contains(DeleteFileKey(d->file))) {
        touched = true;
      }
    }
    if (!touched) continue;
    // v3: the file's vector is merged too (one vector per data file).
    for (const auto& d : task.deletes) {
      if (d->file.content == iceberg::DataFileContent::kPositionDeletes) replaced.insert(DeleteFileKey(d->file));
    }
    FileScanTask only_positions = task;
    std::erase_if(only_positions.deletes,
                  [](const DeleteFileTaskPtr& d) { return d->file.content != iceberg::DataFileContent::kPositionDeletes; });
    FLOE_ASSIGN_OR_RETURN(auto positions, DeletedPositions(shape, only_positions, *table->io()));
    if (!positions.empty()) targets.push_back(Target{&task, std::move(positions)});
  }
  // A replaced file that reaches no live data file is dropped as a whole
  // (dangling); one that reaches some keeps only their positions.
  if (replaced.empty()) return result;

  RewriteFiles rewrite(table, start->snapshot_id, start->sequence_number);
  for (const auto& key : replaced) {
    const iceberg::DataFile& f = deletes.at(key).first;
    rewrite.DeleteDeleteFile(f);
    ++result.rewritten_delete_files_count;
    result.rewritten_bytes_count += iceberg::IsDeletionVector(f) && f.content_size_in_bytes
                                        ? *f.content_size_in_bytes
                                        : f.file_size_in_bytes;
  }
  auto factory = std::make_shared<OutputFileFactory>(table->io(), o.writer.data_location);
  std::vector<std::string> written;
  std::unique_ptr<DeletionVectorWriter> dv;
  auto abort = [&] {
    if (dv) dv->Abort();
    for (const auto& w : written) factory->Remove(w);
  };
  if (v3) {
    dv = std::make_unique<DeletionVectorWriter>(table, factory);
    for (const auto& t : targets) FLOE_RETURN_IF_ERROR(dv->Delete(t.task->data_file.file_path, t.positions));
    if (dv->data_files() > 0) {
      FLOE_ASSIGN_OR_RETURN(DeletionVectorUpdate u, dv->Write());
      for (const auto& v : u.added) {
        rewrite.AddDeleteFile(v.file, v.spec_id, {});
        ++result.added_delete_files_count;
        result.added_bytes_count += v.file.content_size_in_bytes.value_or(0);
      }
      // The vectors it merged with are among the replaced ones.
      for (const auto& old : u.removed) {
        if (!replaced.contains(DeleteFileKey(old))) {
          abort();
          Error e = CommitFailed("table {}: deletion vector {} was committed since snapshot {} the rewrite read; "
                                 "nothing is committed (run the rewrite again)",
                                 table->id().ToString(), DeleteFileKey(old), start->snapshot_id)
                        .error();
          e.retryable = false;
          return Fail(std::move(e));
        }
      }
    }
  } else {
    std::map<int32_t, std::vector<const Target*>> by_spec;
    for (const auto& t : targets) by_spec[t.task->spec_id].push_back(&t);
    for (const auto& [spec_id, list] : by_spec) {
      const iceberg::PartitionSpec* spec = md->SpecById(spec_id);
      if (!spec) return Corrupt("data files name unknown spec {}", spec_id);
      FLOE_ASSIGN_OR_RETURN(auto w, PositionDeleteWriter::Make(factory, o.writer, *spec, shape.table_schema));
      for (const Target* t : list) {
        if (Status st = w->Delete(t->task->data_file.file_path, t->positions, t->task->data_file.partition); !st) {
          w->Abort();
          abort();
          return Fail(std::move(st).error());
        }
      }
      auto files = w->Close();
      if (!files) {
        abort();
        return Fail(std::move(files).error());
      }
      for (auto& f : *files) {
        written.push_back(f.file_path);
        std::vector<std::string> named;
        for (const Target* t : list) {
          if (t->task->data_file.partition == f.partition) named.push_back(t->task->data_file.file_path);
        }
        result.added_bytes_count += f.file_size_in_bytes;
        ++result.added_delete_files_count;
        rewrite.AddDeleteFile(std::move(f), spec_id, named);
      }
    }
  }
  auto committed = rewrite.Commit();
  if (!committed) {
    if (committed.error().kind != ErrorKind::kCommitStateUnknown) abort();
    return Fail(std::move(committed).error());
  }
  result.snapshot_id = committed->snapshot_id;
  return result;
}

}  // namespace floe::table
