#include "floe/table/streaming_scan.h"

#include <algorithm>
#include <set>
#include <thread>
#include <unordered_map>

#include "floe/config/options.h"

namespace floe::table {

using iceberg::ManifestEntry;
using iceberg::ManifestFile;
using iceberg::Snapshot;
using iceberg::TableMetadata;

// ------------------------------------------------------------ manifest cache

// Manifests are immutable and a snapshot lists most of its parent's again:
// entries read for one snapshot are kept for the next. What the last
// manifest list read no longer names is dropped.
class StreamingScan::ManifestCache {
 public:
  struct Entries {
    std::shared_ptr<const std::vector<ManifestEntry>> live, with_deleted;
  };
  std::unordered_map<std::string, Entries> by_path;

  void Retain(const std::vector<ManifestFile>& listed) {
    std::set<std::string> keep;
    for (const auto& m : listed) keep.insert(m.manifest_path);
    std::erase_if(by_path, [&](const auto& kv) { return !keep.contains(kv.first); });
  }
};

namespace {

// A ManifestSource over another, through the cache.
class CachingSource : public ManifestSource {
 public:
  CachingSource(
      ManifestSource* inner, std::function<void(const std::vector<ManifestFile>&)> on_list,
      std::function<std::shared_ptr<const std::vector<ManifestEntry>>*(const std::string&, bool)>
          slot)
      : inner_(inner), on_list_(std::move(on_list)), slot_(std::move(slot)) {}

  Result<std::vector<ManifestFile>> ReadManifestList(const Snapshot& snapshot) override {
    FLOE_ASSIGN_OR_RETURN(auto list, inner_->ReadManifestList(snapshot));
    on_list_(list);
    return list;
  }
  Result<std::vector<ManifestEntry>> ReadManifest(const ManifestFile& manifest) override {
    return Read(manifest, false);
  }
  Result<std::vector<ManifestEntry>> ReadManifestWithDeleted(
      const ManifestFile& manifest) override {
    return Read(manifest, true);
  }

 private:
  Result<std::vector<ManifestEntry>> Read(const ManifestFile& manifest, bool with_deleted) {
    auto* slot = slot_(manifest.manifest_path, with_deleted);
    if (!*slot) {
      auto entries =
          with_deleted ? inner_->ReadManifestWithDeleted(manifest) : inner_->ReadManifest(manifest);
      if (!entries) return Fail(entries.error());
      *slot = std::make_shared<const std::vector<ManifestEntry>>(std::move(*entries));
    }
    return **slot;
  }

  ManifestSource* inner_;
  std::function<void(const std::vector<ManifestFile>&)> on_list_;
  std::function<std::shared_ptr<const std::vector<ManifestEntry>>*(const std::string&, bool)> slot_;
};

}  // namespace

// ------------------------------------------------------------ branch history

Result<const Snapshot*> BranchHead(const TableMetadata& metadata, const std::string& branch) {
  auto it = metadata.refs.find(branch);
  if (it == metadata.refs.end()) {
    if (branch == iceberg::kMainBranch) return metadata.CurrentSnapshot();
    return NotFound("read option {}: the table has no branch named '{}'",
                    config::keys::kBranch.name, branch);
  }
  if (!it->second.is_branch()) {
    return InvalidArgument(
        "read option {}: '{}' is a tag, not a branch (a streaming read follows a branch)",
        config::keys::kBranch.name, branch);
  }
  const Snapshot* s = metadata.SnapshotById(it->second.snapshot_id);
  if (!s)
    return Corrupt("branch '{}' points at snapshot {}, which is not in the table", branch,
                   it->second.snapshot_id);
  return s;
}

Result<std::vector<const Snapshot*>> SnapshotsAfter(const TableMetadata& metadata,
                                                    const std::string& branch,
                                                    const StreamPosition& position) {
  FLOE_ASSIGN_OR_RETURN(const Snapshot* head, BranchHead(metadata, branch));
  std::vector<const Snapshot*> out;
  if (!head) {
    if (!position.after_snapshot_id) return out;
    return InvalidArgument(
        "streaming read: snapshot {} (the read's position) is no longer an ancestor of branch "
        "'{}', which has "
        "no snapshots now (rolled back or expired)",
        *position.after_snapshot_id, branch);
  }
  bool found = false;
  for (const Snapshot* s : metadata.Ancestors(head->snapshot_id)) {
    if (position.after_snapshot_id && s->snapshot_id == *position.after_snapshot_id) {
      found = true;
      break;
    }
    out.push_back(s);
  }
  // The position may itself have expired once read: its child names it.
  if (!found) found = !out.empty() && out.back()->parent_snapshot_id == position.after_snapshot_id;
  if (!found) {
    if (!position.after_snapshot_id) {
      return InvalidArgument(
          "streaming read: the first snapshots of branch '{}' expired before they were read (its "
          "oldest "
          "snapshot {} has parent {}, which is gone)",
          branch, out.back()->snapshot_id, *out.back()->parent_snapshot_id);
    }
    return InvalidArgument(
        "streaming read: snapshot {} (the read's position) is no longer an ancestor of branch '{}' "
        "head {} "
        "(rolled back, or expired before the snapshots after it were read)",
        *position.after_snapshot_id, branch, head->snapshot_id);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

// ------------------------------------------------------------------- driver

StreamingScan::StreamingScan(MetadataLoader load, io::FileIOPtr files, ScanOptions options)
    : load_(std::move(load)),
      files_(std::move(files)),
      options_(std::move(options)),
      cache_(std::make_unique<ManifestCache>()) {}

StreamingScan::~StreamingScan() = default;

Result<std::unique_ptr<StreamingScan>> StreamingScan::Make(MetadataLoader load, io::FileIOPtr files,
                                                           ScanOptions options,
                                                           std::optional<StreamPosition> resume) {
  if (!options.streaming) {
    return InvalidArgument("StreamingScan needs read option '{}=true'",
                           config::keys::kStreaming.name);
  }
  FLOE_RETURN_IF_ERROR(options.Validate());
  if (!load || !files) return InvalidArgument("StreamingScan: no metadata loader or FileIO");
  std::unique_ptr<StreamingScan> scan(
      new StreamingScan(std::move(load), std::move(files), std::move(options)));
  FLOE_RETURN_IF_ERROR(scan->Start(resume));
  return scan;
}

Status StreamingScan::Start(std::optional<StreamPosition> resume) {
  namespace k = config::keys;
  branch_ = options_.branch.value_or(std::string(iceberg::kMainBranch));
  FLOE_ASSIGN_OR_RETURN(auto metadata, load_());
  table_uuid_ = metadata->table_uuid;
  FLOE_ASSIGN_OR_RETURN(shape_, PlanShape(metadata, options_));
  if (resume) {
    position_ = *resume;
    // Checked now, so that a stale checkpoint fails before anything is read.
    FLOE_RETURN_IF_ERROR(SnapshotsAfter(*metadata, branch_, position_));
    return Ok();
  }
  FLOE_ASSIGN_OR_RETURN(const Snapshot* head, BranchHead(*metadata, branch_));
  // An inclusive start at snapshot s is the position just before it.
  auto before = [](const Snapshot* s) { return StreamPosition{s->parent_snapshot_id}; };
  using S = StartingStrategy;
  switch (options_.starting_strategy) {
    case S::kTableScanThenIncremental:
      if (head) {
        has_position_ = false;
        queue_.push_back({head->snapshot_id, true, metadata});
      }
      return Ok();
    case S::kIncrementalFromLatestSnapshot:
      if (head) position_ = before(head);
      return Ok();
    case S::kIncrementalFromEarliestSnapshot:
      if (head) position_ = before(metadata->Ancestors(head->snapshot_id).back());
      return Ok();
    case S::kIncrementalFromSnapshotId:
    case S::kIncrementalFromSnapshotTimestamp: {
      const bool by_id = options_.starting_strategy == S::kIncrementalFromSnapshotId;
      const Snapshot* start = nullptr;
      if (head) {
        for (const Snapshot* s : metadata->Ancestors(head->snapshot_id)) {
          if (by_id ? s->snapshot_id == *options_.start_snapshot_id
                    : s->timestamp_ms >= *options_.start_snapshot_timestamp) {
            start = s;  // by timestamp: the oldest ancestor at or after it
            if (by_id) break;
          }
        }
      }
      if (!start && by_id) {
        return NotFound(
            "read option {}: snapshot {} is not an ancestor of branch '{}'{}",
            k::kStartSnapshotId.name, *options_.start_snapshot_id, branch_,
            metadata->SnapshotById(*options_.start_snapshot_id) ? "" : " (not in the table)");
      }
      if (!start) {
        return NotFound(
            "read option {}: branch '{}' has no snapshot committed at or after {} (epoch ms)",
            k::kStartSnapshotTimestamp.name, branch_, *options_.start_snapshot_timestamp);
      }
      position_ = before(start);
      return Ok();
    }
  }
  return Internal("unknown starting strategy");
}

std::optional<StreamPosition> StreamingScan::position() const {
  if (!has_position_) return std::nullopt;
  return position_;
}

Status StreamingScan::Failure(Error error) {
  ++failures_;
  last_failure_ = error;
  const int32_t max = options_.max_allowed_planning_failures;
  if (max >= 0 && failures_ > max) {
    return Fail(error.WithContext(fmt::format(
        "streaming read: planning failed {} time{} in a row ({}={})", failures_,
        failures_ == 1 ? "" : "s", config::keys::kMaxAllowedPlanningFailures.name, max)));
  }
  return Ok();
}

Result<int> StreamingScan::Discover() {
  auto metadata = load_();
  if (!metadata) {
    FLOE_RETURN_IF_ERROR(Failure(metadata.error().WithContext("loading the table metadata")));
    return 0;
  }
  // After the last snapshot queued, else after the position.
  StreamPosition from = position_;
  if (!queue_.empty()) from.after_snapshot_id = queue_.back().snapshot_id;
  FLOE_ASSIGN_OR_RETURN(auto snapshots, SnapshotsAfter(**metadata, branch_, from));
  failures_ = 0;
  const size_t n =
      std::min(snapshots.size(), static_cast<size_t>(options_.max_planning_snapshot_count));
  for (size_t i = 0; i < n; ++i) queue_.push_back({snapshots[i]->snapshot_id, false, *metadata});
  return static_cast<int>(n);
}

Result<std::optional<EmittedSnapshot>> StreamingScan::EmitNext(
    const std::function<Status(Batch&&)>& emit) {
  if (queue_.empty()) return std::optional<EmittedSnapshot>();
  const Queued& q = queue_.front();
  const Snapshot* snapshot = q.metadata->SnapshotById(q.snapshot_id);
  if (!snapshot) return Internal("queued snapshot {} is not in its metadata", q.snapshot_id);
  ScanPlan shape = shape_;
  shape.metadata = q.metadata;  // specs and schemas added since the start
  FileManifestSource files(*q.metadata, files_);
  CachingSource source(
      &files, [this](const std::vector<ManifestFile>& list) { cache_->Retain(list); },
      [this](const std::string& path, bool with_deleted) {
        auto& e = cache_->by_path[path];
        return with_deleted ? &e.with_deleted : &e.live;
      });
  auto plan = q.table_scan ? PlanSnapshotAsInserts(shape, *snapshot, &source)
                           : PlanChangelog(shape, *snapshot, &source);
  if (!plan) {
    FLOE_RETURN_IF_ERROR(
        Failure(plan.error().WithContext(fmt::format("planning snapshot {}", q.snapshot_id))));
    return std::optional<EmittedSnapshot>();
  }
  failures_ = 0;
  EmittedSnapshot out;
  out.snapshot_id = q.snapshot_id;
  out.table_scan = q.table_scan;
  auto counts = ReadChangelog(*plan, *files_, 65536, emit);
  if (!counts)
    return Fail(counts.error().WithContext(fmt::format("reading snapshot {}", q.snapshot_id)));
  out.counts = *counts;
  position_.after_snapshot_id = q.snapshot_id;
  has_position_ = true;
  queue_.pop_front();
  return std::optional<EmittedSnapshot>(out);
}

Status StreamingScan::Run(const std::function<Status(Batch&&)>& emit,
                          const std::function<Result<bool>(const EmittedSnapshot&)>& on_snapshot) {
  while (true) {
    if (queue_.empty()) FLOE_RETURN_IF_ERROR(Discover());
    while (!queue_.empty()) {
      FLOE_ASSIGN_OR_RETURN(auto done, EmitNext(emit));
      if (!done) break;  // a tolerated planning failure: retry after the interval
      FLOE_ASSIGN_OR_RETURN(bool go_on, on_snapshot(*done));
      if (!go_on) return Ok();
    }
    // Flink's monitor: one discovery per interval. A discovery cut short by
    // max-planning-snapshot-count waits its turn too (that is the option's point).
    if (sleep_for_) {
      sleep_for_(options_.monitor_interval);
    } else {
      std::this_thread::sleep_for(options_.monitor_interval);
    }
  }
}

}  // namespace floe::table
