// RewriteDataFiles: bin-pack planning, the group rewrites, the deletes the
// rewrite makes useless, and the validated commits.
#include "floe/table/rewrite_data_files.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "floe/config/options.h"
#include "floe/iceberg/deletion_vector.h"
#include "floe/table/rewrite_files.h"
#include "floe/table/scan.h"
#include "floe/table/table_internal.h"
#include "floe/table/table_reader.h"
#include "floe/util/crash_point.h"

namespace floe::table {

namespace {

namespace k = config::keys;

// One file group: data files of one spec and partition, rewritten together.
struct FileGroup {
  int32_t spec_id = 0;
  iceberg::Values partition;
  std::vector<const FileScanTask*> tasks;
  int64_t bytes = 0;
};

// A live file of the starting snapshot with what the delete rules need.
struct LiveFile {
  iceberg::DataFile file;
  int32_t spec_id = 0;
  int64_t sequence_number = 0;
  std::string partition_key;  // internal::PartitionKey(spec_id, partition)
};

bool Candidate(const RewriteDataFilesOptions& o, const FileScanTask& t) {
  if (o.rewrite_all) return true;
  const int64_t size = t.data_file.file_size_in_bytes;
  if (size < o.min_file_size_bytes || size > o.max_file_size_bytes) return true;
  return static_cast<int64_t>(t.deletes.size()) >= o.delete_file_threshold;
}

bool ShouldRewrite(const RewriteDataFilesOptions& o, const FileGroup& g) {
  if (o.rewrite_all) return true;
  if (static_cast<int64_t>(g.tasks.size()) >= o.min_input_files) return true;
  if (g.tasks.size() > 1 && g.bytes > o.target_file_size_bytes) return true;
  if (g.bytes > o.max_file_group_size_bytes) return true;
  for (const FileScanTask* t : g.tasks) {
    if (t->data_file.file_size_in_bytes > o.max_file_size_bytes) return true;  // split
    if (static_cast<int64_t>(t->deletes.size()) >= o.delete_file_threshold) return true;
  }
  return false;
}

// The groups of the candidates: per spec and partition, bin-packed (largest
// first, first fit) under max-file-group-size-bytes.
std::vector<FileGroup> PlanGroups(const RewriteDataFilesOptions& o, const std::vector<FileScanTask>& tasks) {
  std::map<std::string, std::vector<const FileScanTask*>> by_partition;
  for (const auto& t : tasks) {
    if (Candidate(o, t)) by_partition[internal::PartitionKey(t.spec_id, t.data_file.partition)].push_back(&t);
  }
  std::vector<FileGroup> groups;
  for (auto& [key, files] : by_partition) {
    std::stable_sort(files.begin(), files.end(), [](const FileScanTask* a, const FileScanTask* b) {
      return a->data_file.file_size_in_bytes > b->data_file.file_size_in_bytes;
    });
    std::vector<FileGroup> bins;
    for (const FileScanTask* t : files) {
      FileGroup* fit = nullptr;
      for (auto& b : bins) {
        if (b.bytes + t->data_file.file_size_in_bytes <= o.max_file_group_size_bytes) {
          fit = &b;
          break;
        }
      }
      if (!fit) {
        bins.emplace_back();
        fit = &bins.back();
        fit->spec_id = t->spec_id;
        fit->partition = t->data_file.partition;
      }
      fit->tasks.push_back(t);
      fit->bytes += t->data_file.file_size_in_bytes;
    }
    for (auto& b : bins) {
      if (ShouldRewrite(o, b)) groups.push_back(std::move(b));
    }
  }
  return groups;
}

// The rewritten files of one group (or the error that stopped it).
struct GroupOutput {
  std::unique_ptr<PartitionedWriter> writer;
  std::vector<iceberg::DataFile> files;
};

Result<GroupOutput> RewriteGroup(Table* table, const ScanPlan& shape, const FileGroup& group,
                                 const RewriteDataFilesOptions& o, int64_t group_index, DeleteCache* cache,
                                 const std::string& operation_id) {
  const iceberg::TableMetadata& md = *shape.metadata;
  const iceberg::PartitionSpec* spec = md.SpecById(group.spec_id);
  if (!spec) return Corrupt("data files of table {} name unknown spec {}", table->id().ToString(), group.spec_id);
  auto factory = std::make_shared<OutputFileFactory>(table->io(), o.writer.data_location,
                                                     static_cast<int32_t>(group_index), group_index, operation_id);
  ContentFileOptions content;
  content.content = iceberg::DataFileContent::kData;
  content.sort_order_id = o.writer.sort_order_id;
  FLOE_ASSIGN_OR_RETURN(auto settings, FileSettings::Make(shape.table_schema, o.writer, std::move(content)));
  GroupOutput out;
  FLOE_ASSIGN_OR_RETURN(out.writer, PartitionedWriter::Make(factory, settings, *spec, shape.table_schema));
  for (const FileScanTask* t : group.tasks) {
    const int64_t size = t->data_file.file_size_in_bytes;
    FileRange range{.file = 0, .start = 0, .length = size, .weight = size};
    Status st = ReadFileRange(
        shape, *t, range, *table->io(), 65536,
        [&](Batch&& b) { return out.writer->WriteToPartition(group.partition, b); }, cache);
    if (!st) {
      out.writer->Abort();
      return Fail(std::move(st).error());
    }
  }
  auto files = out.writer->Close();
  if (!files) {
    out.writer->Abort();
    return Fail(std::move(files).error());
  }
  out.files = std::move(*files);
  return out;
}

// Every live file of `snapshot`, with spec ids and data sequence numbers.
Result<std::vector<LiveFile>> ReadLiveFiles(const Table& table, const iceberg::Snapshot& snapshot) {
  std::vector<LiveFile> out;
  FLOE_ASSIGN_OR_RETURN(auto manifests, internal::ReadManifests(table, snapshot));
  for (const auto& m : manifests) {
    FLOE_ASSIGN_OR_RETURN(auto entries, internal::ReadEntries(table, m, false));
    for (auto& e : entries) {
      if (!e.is_live()) continue;
      LiveFile f;
      f.spec_id = m.partition_spec_id;
      f.sequence_number = e.sequence_number.value_or(0);
      f.partition_key = internal::PartitionKey(m.partition_spec_id, e.data_file.partition);
      f.file = std::move(e.data_file);
      out.push_back(std::move(f));
    }
  }
  return out;
}

// The live delete files of the starting snapshot that no remaining data file
// needs once the data files in `removed` (paths) are gone, and not dropped
// already (`dropped`: DeleteFileKey).
std::vector<const LiveFile*> UselessDeletes(const iceberg::TableMetadata& md, const std::vector<LiveFile>& live,
                                            const std::set<std::string>& removed,
                                            const std::set<std::string>& dropped) {
  // The remaining data files: per partition key, the lowest sequence number;
  // the lowest of all (for global equality deletes).
  std::map<std::string, int64_t> min_seq;
  std::optional<int64_t> global_min;
  for (const auto& f : live) {
    if (f.file.content != iceberg::DataFileContent::kData || removed.contains(f.file.file_path)) continue;
    auto [it, fresh] = min_seq.emplace(f.partition_key, f.sequence_number);
    if (!fresh) it->second = std::min(it->second, f.sequence_number);
    global_min = global_min ? std::min(*global_min, f.sequence_number) : f.sequence_number;
  }
  std::vector<const LiveFile*> out;
  for (const auto& f : live) {
    const iceberg::DataFile& d = f.file;
    if (d.content == iceberg::DataFileContent::kData || dropped.contains(DeleteFileKey(d))) continue;
    bool useless = false;
    if (d.content == iceberg::DataFileContent::kPositionDeletes) {
      if (d.referenced_data_file) {
        useless = removed.contains(*d.referenced_data_file);
      } else {
        // Applies to the data files of its partition with a sequence number
        // at most its own: none of them remains.
        auto it = min_seq.find(f.partition_key);
        useless = it == min_seq.end() || it->second > f.sequence_number;
      }
    } else {
      // Applies to the data files of its partition (every partition for an
      // unpartitioned spec) with a lower sequence number: none remains.
      const iceberg::PartitionSpec* spec = md.SpecById(f.spec_id);
      std::optional<int64_t> lowest;
      if (spec && spec->is_unpartitioned()) {
        lowest = global_min;
      } else if (auto it = min_seq.find(f.partition_key); it != min_seq.end()) {
        lowest = it->second;
      }
      useless = !lowest || *lowest >= f.sequence_number;
    }
    if (useless) out.push_back(&f);
  }
  return out;
}

}  // namespace

Result<RewriteDataFilesOptions> RewriteDataFilesOptions::Resolve(
    const iceberg::TableMetadata& metadata, const std::map<std::string, std::string>& options) {
  FLOE_RETURN_IF_ERROR(config::CheckOptions(options, uint32_t(config::Scope::kRewrite), "--set"));
  const config::Resolver r({&options, &metadata.properties});
  RewriteDataFilesOptions o;
  FLOE_ASSIGN_OR_RETURN(o.writer, DataWriterOptions::Resolve(metadata, r));
  o.target_file_size_bytes = o.writer.target_file_size_bytes;
  FLOE_ASSIGN_OR_RETURN(auto min_size, r.Get(k::kMinFileSizeBytes));
  FLOE_ASSIGN_OR_RETURN(auto max_size, r.Get(k::kMaxFileSizeBytes));
  o.min_file_size_bytes = min_size ? *min_size : static_cast<int64_t>(o.target_file_size_bytes * 0.75);
  o.max_file_size_bytes = max_size ? *max_size : static_cast<int64_t>(o.target_file_size_bytes * 1.8);
  if (o.min_file_size_bytes > o.target_file_size_bytes) {
    return InvalidArgument("{} {} is above the target file size {} ({})", k::kMinFileSizeBytes.name,
                           o.min_file_size_bytes, o.target_file_size_bytes, k::kTargetFileSizeBytes.name);
  }
  if (o.max_file_size_bytes < o.target_file_size_bytes) {
    return InvalidArgument("{} {} is below the target file size {} ({})", k::kMaxFileSizeBytes.name,
                           o.max_file_size_bytes, o.target_file_size_bytes, k::kTargetFileSizeBytes.name);
  }
  FLOE_ASSIGN_OR_RETURN(o.min_input_files, r.Value(k::kMinInputFiles));
  FLOE_ASSIGN_OR_RETURN(o.delete_file_threshold, r.Value(k::kDeleteFileThreshold));
  FLOE_ASSIGN_OR_RETURN(o.rewrite_all, r.Value(k::kRewriteAll));
  FLOE_ASSIGN_OR_RETURN(o.partial_progress, r.Value(k::kPartialProgressEnabled));
  FLOE_ASSIGN_OR_RETURN(o.partial_progress_max_commits, r.Value(k::kPartialProgressMaxCommits));
  FLOE_ASSIGN_OR_RETURN(o.max_concurrent_file_group_rewrites, r.Value(k::kMaxConcurrentFileGroupRewrites));
  FLOE_ASSIGN_OR_RETURN(o.max_file_group_size_bytes, r.Value(k::kMaxFileGroupSizeBytes));
  // Only true is accepted (CheckOptions refuses false): the rewritten files
  // always keep the starting snapshot's sequence number.
  FLOE_ASSIGN_OR_RETURN(const bool starting_sequence, r.Value(k::kUseStartingSequenceNumber));
  if (!starting_sequence) return Unsupported("{}=false is not implemented", k::kUseStartingSequenceNumber.name);
  if (r.IsSet(k::kPartialProgressMaxCommits) && !o.partial_progress) {
    return InvalidArgument("{} needs {}=true", k::kPartialProgressMaxCommits.name, k::kPartialProgressEnabled.name);
  }
  return o;
}

Result<RewriteDataFilesResult> RewriteDataFiles(Table* table, const RewriteDataFilesOptions& o) {
  RewriteDataFilesResult result;
  auto md = std::make_shared<const iceberg::TableMetadata>(table->metadata());
  if (md->format_version < 2) {
    return Unsupported("table {} is format version {}: floe commits to format versions 2 and 3 (raise it with the "
                       "table property format-version=2)",
                       table->id().ToString(), md->format_version);
  }
  const iceberg::Snapshot* start = md->CurrentSnapshot();
  if (!start) return result;  // an empty table: nothing to rewrite
  result.starting_snapshot_id = start->snapshot_id;

  // The files of the starting snapshot that may hold rows of the filter,
  // each with the deletes that apply to it.
  ScanOptions so;
  so.snapshot_id = start->snapshot_id;
  so.filter_text = o.where;
  FileManifestSource source(*md, table->io());
  FLOE_ASSIGN_OR_RETURN(ScanPlan plan, PlanScan(md, so, &source));
  // Rows are read whole (the filter selects files, not rows), in the current
  // schema.
  FLOE_ASSIGN_OR_RETURN(ScanPlan shape, PlanShape(md, ScanOptions{}));
  std::vector<FileGroup> groups = PlanGroups(o, plan.files);
  result.file_groups = static_cast<int64_t>(groups.size());
  if (groups.empty()) return result;
  FLOE_ASSIGN_OR_RETURN(std::vector<LiveFile> live, ReadLiveFiles(*table, *start));

  // Groups per commit.
  const size_t commits = o.partial_progress
                             ? std::min(groups.size(), static_cast<size_t>(o.partial_progress_max_commits))
                             : 1;
  const size_t per_commit = (groups.size() + commits - 1) / commits;
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const std::string operation_id = RandomUuid();
  std::shared_ptr<DeleteCache> cache = MakeDeleteCache();
  std::set<std::string> removed;  // data files committed as removed
  std::set<std::string> dropped;  // delete files committed as removed
  RewriteDataFilesOptions wo = o;
  for (size_t first = 0; first < groups.size(); first += per_commit) {
    const size_t last = std::min(groups.size(), first + per_commit);
    // Rewrite the commit's groups, several at once.
    const size_t n = last - first;
    const int threads = static_cast<int>(std::min<size_t>(
        n, static_cast<size_t>(std::min(o.max_concurrent_file_group_rewrites, cores))));
    wo.writer.parquet.parallelism = std::max(1, std::min(o.writer.parquet.parallelism, cores / threads));
    std::vector<std::optional<Result<GroupOutput>>> outputs(n);
    std::atomic<size_t> next{0};
    auto work = [&] {
      while (true) {
        const size_t i = next.fetch_add(1);
        if (i >= n) break;
        outputs[i] = RewriteGroup(table, shape, groups[first + i], wo, static_cast<int64_t>(first + i),
                                  cache.get(), operation_id);
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    auto abort_all = [&] {
      for (auto& out : outputs) {
        if (out && *out) (**out).writer->Abort();
      }
    };
    std::optional<Error> failed;
    for (auto& out : outputs) {
      if (!*out && !failed) failed = out->error();
    }
    int64_t group_files = 0;
    for (size_t i = first; i < last; ++i) group_files += static_cast<int64_t>(groups[i].tasks.size());
    auto fail_commit = [&](Error e) -> Status {
      result.failed_data_files_count += group_files;
      if (!o.partial_progress) return Fail(std::move(e));
      result.errors.push_back(e.message);
      return Ok();
    };
    if (failed) {
      abort_all();
      FLOE_RETURN_IF_ERROR(fail_commit(std::move(*failed)));
      continue;
    }
    // The commit: the groups' files out, their rows in, and the deletes
    // only they needed.
    RewriteFiles rewrite(table, start->snapshot_id, start->sequence_number);
    std::set<std::string> now_removed = removed;
    int64_t added = 0, bytes = 0, files = 0;
    for (size_t i = first; i < last; ++i) {
      for (const FileScanTask* t : groups[i].tasks) {
        rewrite.DeleteDataFile(t->data_file, t->spec_id);
        now_removed.insert(t->data_file.file_path);
        bytes += t->data_file.file_size_in_bytes;
        ++files;
      }
      for (auto& f : (**outputs[i - first]).files) {
        rewrite.AddDataFile(f, groups[i].spec_id);
        ++added;
      }
    }
    std::vector<const LiveFile*> useless = UselessDeletes(*md, live, now_removed, dropped);
    for (const LiveFile* d : useless) rewrite.DeleteDeleteFile(d->file);
    CrashPoint("rewrite.files-written");
    auto committed = rewrite.Commit();
    if (!committed) {
      // A known failure leaves nothing behind; an unknown outcome keeps the
      // files (the commit may have landed).
      if (committed.error().kind != ErrorKind::kCommitStateUnknown) abort_all();
      FLOE_RETURN_IF_ERROR(fail_commit(std::move(committed).error()));
      continue;
    }
    removed = std::move(now_removed);
    for (const LiveFile* d : useless) dropped.insert(DeleteFileKey(d->file));
    result.snapshot_ids.push_back(committed->snapshot_id);
    result.rewritten_data_files_count += files;
    result.rewritten_bytes_count += bytes;
    result.added_data_files_count += added;
    result.removed_delete_files_count += static_cast<int64_t>(useless.size());
  }
  return result;
}

}  // namespace floe::table
