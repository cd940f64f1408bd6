// SnapshotProducer: manifests of the added files, then per attempt the
// manifest list, the summary and the metadata swap.
#include "floe/table/snapshot_producer.h"

#include "floe/util/crash_point.h"

#include <algorithm>
#include <optional>
#include <set>

#include "floe/catalog/commit_retry.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/table/table_internal.h"
#include "floe/util/uuid.h"

namespace floe::table {

using iceberg::DataFile;
using iceberg::DataFileContent;
using iceberg::ManifestContent;
using iceberg::ManifestFile;

Result<std::vector<ManifestFile>> SnapshotProducer::ParentManifests(
    const SnapshotAttempt&, std::vector<ManifestFile> parent, SnapshotSummaryBuilder*,
    internal::WrittenFiles*) {
  return parent;
}

Status SnapshotProducer::ValidateFiles(const iceberg::TableMetadata& metadata) const {
  const int32_t version = metadata.format_version;
  auto check_delete = [&](const DataFile& f) -> Status {
    if (f.content == DataFileContent::kData) {
      return InvalidArgument("{} is a data file, not a delete file", f.file_path);
    }
    const bool vector = f.file_format == iceberg::FileFormat::kPuffin;
    if (vector && (f.content != DataFileContent::kPositionDeletes || !f.content_offset ||
                   !f.content_size_in_bytes || !f.referenced_data_file)) {
      return InvalidArgument("deletion vector {} needs content 1 (position deletes), content_offset, "
                             "content_size_in_bytes and referenced_data_file",
                             f.file_path);
    }
    if (vector && version < 3) {
      return InvalidArgument("table {} is format version {}: deletion vector {} needs format version 3 (raise it "
                             "with the table property format-version=3)",
                             table_->id().ToString(), version, f.file_path);
    }
    if (!vector && f.content == DataFileContent::kPositionDeletes && version >= 3) {
      return InvalidArgument("table {} is format version {}: position delete file {} cannot be added (a v3 "
                             "table takes deletion vectors; Iceberg spec: Deletion Vectors)",
                             table_->id().ToString(), version, f.file_path);
    }
    return Ok();
  };
  for (const auto& f : delete_files_) FLOE_RETURN_IF_ERROR(check_delete(f));
  for (const auto& d : spec_deletes_) FLOE_RETURN_IF_ERROR(check_delete(d.file));
  auto check_data = [&](const DataFile& f) -> Status {
    if (f.content != DataFileContent::kData)
      return InvalidArgument("{} is a delete file", f.file_path);
    return f.Validate();
  };
  for (const auto& f : data_files_) FLOE_RETURN_IF_ERROR(check_data(f));
  for (const auto& d : spec_data_) FLOE_RETURN_IF_ERROR(check_data(d.file));
  return Ok();
}

Result<std::vector<SnapshotProducer::SpecFiles>> SnapshotProducer::GroupBySpec(
    const iceberg::TableMetadata& metadata, const iceberg::PartitionSpec& default_spec) const {
  std::vector<SpecFiles> groups(1);
  groups[0].spec = default_spec;
  for (const auto& f : data_files_) groups[0].data.push_back(&f);
  for (const auto& f : delete_files_) groups[0].deletes.push_back(&f);
  // Deletes of other specs, one group per spec in spec id order; those that
  // name the default spec join its group.
  std::map<int32_t, std::vector<const DataFile*>> others;
  std::map<int32_t, std::vector<const DataFile*>> other_data;
  for (const auto& d : spec_data_) {
    if (d.spec_id == default_spec.spec_id()) {
      groups[0].data.push_back(&d.file);
      continue;
    }
    if (!metadata.SpecById(d.spec_id)) {
      return InvalidArgument("data file {} is of partition spec {}, which table {} does not define",
                             d.file.file_path, d.spec_id, table_->id().ToString());
    }
    other_data[d.spec_id].push_back(&d.file);
  }
  for (const auto& d : spec_deletes_) {
    if (d.spec_id == default_spec.spec_id()) {
      groups[0].deletes.push_back(&d.file);
      continue;
    }
    if (!metadata.SpecById(d.spec_id)) {
      return InvalidArgument(
          "delete file {} is of partition spec {}, which table {} does not define",
          d.file.file_path, d.spec_id, table_->id().ToString());
    }
    others[d.spec_id].push_back(&d.file);
  }
  std::set<int32_t> spec_ids;
  for (const auto& [spec_id, files] : others) spec_ids.insert(spec_id);
  for (const auto& [spec_id, files] : other_data) spec_ids.insert(spec_id);
  for (int32_t spec_id : spec_ids) {
    SpecFiles g;
    g.spec = *metadata.SpecById(spec_id);
    if (auto it = other_data.find(spec_id); it != other_data.end()) g.data = std::move(it->second);
    if (auto it = others.find(spec_id); it != others.end()) g.deletes = std::move(it->second);
    groups.push_back(std::move(g));
  }
  return groups;
}

Result<std::vector<ManifestFile>> SnapshotProducer::WriteAddedManifests(
    const Schema& schema, const std::vector<SpecFiles>& groups,
    internal::WrittenFiles* written) const {
  std::vector<ManifestFile> manifests;
  // A manifest holds either data or deletes (PITFALLS 63), of one spec. Its
  // entries leave snapshot id and sequence number to inheritance, so every
  // attempt lists the same file (Iceberg spec: Sequence Number Inheritance;
  // PITFALLS 73).
  auto write = [&](const std::vector<const DataFile*>& files, const iceberg::PartitionSpec& spec,
                   ManifestContent content) -> Status {
    if (files.empty()) return Ok();
    const std::string location = internal::MetadataFile(
        *table_, fmt::format("{}-m{}.avro", RandomUuid(), manifests.size()));
    FLOE_ASSIGN_OR_RETURN(auto out, table_->io()->NewOutput(location));
    written->locations.push_back(location);
    iceberg::ManifestWriteOptions options;
    options.format_version = table_->metadata().format_version;
    FLOE_ASSIGN_OR_RETURN(auto w, iceberg::ManifestWriter::Open(std::move(out), schema, spec, content,
                                                                iceberg::kUnassigned, options));
    for (const DataFile* f : files) {
      if (content == ManifestContent::kData && added_data_sequence_number_ && table_->metadata().format_version >= 2) {
        // ADDED, snapshot id and file sequence number inherited, the data
        // sequence number explicit (a rewrite's: SetAddedDataSequenceNumber).
        iceberg::ManifestEntry e;
        e.status = iceberg::ManifestEntryStatus::kAdded;
        e.sequence_number = *added_data_sequence_number_;
        e.data_file = *f;
        FLOE_RETURN_IF_ERROR(w->Add(e));
      } else {
        FLOE_RETURN_IF_ERROR(w->AddFile(*f));
      }
    }
    FLOE_ASSIGN_OR_RETURN(auto mf, w->Close());
    mf.manifest_path = location;
    manifests.push_back(std::move(mf));
    return Ok();
  };
  for (const auto& g : groups) {
    FLOE_RETURN_IF_ERROR(write(g.data, g.spec, ManifestContent::kData));
    FLOE_RETURN_IF_ERROR(write(g.deletes, g.spec, ManifestContent::kDeletes));
  }
  return manifests;
}

Result<CommitResult> SnapshotProducer::Commit() {
  const auto& md0 = table_->metadata();
  FLOE_RETURN_IF_ERROR(ValidateFiles(md0));
  FLOE_ASSIGN_OR_RETURN(auto policy, table_->CommitRetryPolicy());
  SchemaPtr schema = md0.CurrentSchema();
  if (!schema || !md0.DefaultSpec()) {
    return Corrupt("table {} has no current schema or default spec", table_->id().ToString());
  }
  // A copy: a retry reloads the table, which replaces the metadata md0 refers to.
  const iceberg::PartitionSpec spec = *md0.DefaultSpec();

  // Copies of the specs, for the same reason.
  FLOE_ASSIGN_OR_RETURN(const std::vector<SpecFiles> groups, GroupBySpec(md0, spec));

  internal::WrittenFiles added_files(table_->io());  // shared by all attempts
  auto added = WriteAddedManifests(*schema, groups, &added_files);
  if (!added) {
    added_files.RemoveAll();
    return Fail(std::move(added).error());
  }
  CrashPoint("commit.manifests-written");
  CommitResult result;
  bool unknown = false;
  std::optional<Error> check_error;
  Status outcome = catalog::RunWithRetries(policy, [&](int attempt) {
    return Attempt(attempt, spec, groups, *added, &unknown, &check_error, &result);
  });
  if (check_error) {
    // The check failed before the attempt wrote anything or swapped metadata:
    // no attempt of this commit can have landed (an unknown outcome is never
    // retried), so its manifests are removed.
    added_files.RemoveAll();
    return Fail(std::move(*check_error));
  }
  if (!outcome) {
    if (!unknown) added_files.RemoveAll();
    return Fail(std::move(outcome).error());
  }
  return result;
}

Status SnapshotProducer::CheckAddedFilesExist(const std::vector<ManifestFile>& added_manifests,
                                              const std::vector<std::string>& attempt_files) const {
  io::FileIO& io = *table_->io();
  auto check = [&](const std::string& location, std::string_view what) -> Status {
    auto exists = io.Exists(location);
    if (exists && *exists) return Ok();
    Error e = CommitFailed(
                  "table {}: the commit was not published: {} {} {}; nothing was committed (was it "
                  "removed meanwhile, e.g. by remove-orphans with a window shorter than the write?)",
                  table_->id().ToString(), what, location,
                  exists ? "does not exist" : fmt::format("cannot be checked ({})", exists.error().message))
                  .error();
    e.retryable = false;  // the same file would be missing again
    return Fail(std::move(e));
  };
  for (const auto& f : data_files_) FLOE_RETURN_IF_ERROR(check(f.file_path, "data file"));
  for (const auto& d : spec_data_) FLOE_RETURN_IF_ERROR(check(d.file.file_path, "data file"));
  for (const auto& f : delete_files_) FLOE_RETURN_IF_ERROR(check(f.file_path, "delete file"));
  for (const auto& d : spec_deletes_) FLOE_RETURN_IF_ERROR(check(d.file.file_path, "delete file"));
  for (const auto& m : added_manifests) FLOE_RETURN_IF_ERROR(check(m.manifest_path, "manifest"));
  for (const auto& f : attempt_files) FLOE_RETURN_IF_ERROR(check(f, "manifest or manifest list"));
  return Ok();
}

Status SnapshotProducer::Attempt(int attempt, const iceberg::PartitionSpec& spec,
                                 const std::vector<SpecFiles>& groups,
                                 const std::vector<ManifestFile>& added_manifests, bool* unknown,
                                 std::optional<Error>* check_error, CommitResult* result) {
  internal::WrittenFiles written(table_->io());  // this attempt's list and rewritten manifests
  auto fail = [&](Error e) -> Status {
    if (e.kind == ErrorKind::kCommitStateUnknown) {
      *unknown = true;
    } else {
      written.RemoveAll();
    }
    return Fail(std::move(e));
  };
  if (attempt > 0) {
    if (Status st = table_->Refresh(); !st) return fail(st.error());
  }
  const auto& base = table_->loaded();
  const auto& md = base.metadata;
  // The head of the target branch; a new branch starts from main's head.
  const iceberg::Snapshot* head = nullptr;
  if (auto it = md.refs.find(branch_); it != md.refs.end()) {
    head = md.SnapshotById(it->second.snapshot_id);
  } else {
    head = md.CurrentSnapshot();
  }
  SnapshotAttempt ctx{.metadata = md,
                      .spec = spec,
                      .snapshot_id = iceberg::NewSnapshotId(),
                      .sequence_number = md.last_sequence_number + 1,
                      .attempt = attempt,
                      .parent = head,
                      .branch = branch_};
  if (check_) {
    if (Status st = check_(ctx); !st) {
      // Kept aside and replaced by an error RunWithRetries does not retry:
      // the check's own error may be of any kind, kCommitFailed included.
      *check_error = st.error();
      return Internal("the attempt check failed");
    }
  }
  std::map<std::string, std::string> attempt_properties;
  if (attempt_summary_) {
    auto made = attempt_summary_(ctx);
    if (!made) {
      *check_error = made.error();
      return Internal("the attempt summary failed");
    }
    attempt_properties = std::move(*made);
  }

  std::vector<ManifestFile> parent;
  if (head) {
    auto r = internal::ReadManifests(*table_, *head);
    if (!r) return fail(r.error());
    parent = std::move(*r);
  }
  SnapshotSummaryBuilder summary;
  auto carried = ParentManifests(ctx, std::move(parent), &summary, &written);
  if (!carried) return fail(carried.error());

  // Manifest list: this commit's manifests first, then the carried ones.
  const std::string list_location = internal::MetadataFile(
      *table_, fmt::format("snap-{}-{}-{}.avro", ctx.snapshot_id, attempt + 1, RandomUuid()));
  auto list_out = table_->io()->NewOutput(list_location);
  if (!list_out) return fail(list_out.error());
  written.locations.push_back(list_location);
  std::optional<int64_t> parent_id;
  if (head) parent_id = head->snapshot_id;
  // Format v3: the list assigns row ids from the table's next-row-id
  // (Iceberg spec: Snapshot Row IDs, First Row ID Assignment).
  iceberg::ManifestWriteOptions list_options;
  list_options.format_version = md.format_version;
  if (md.format_version >= 3) list_options.first_row_id = md.next_row_id.value_or(0);
  auto lw = iceberg::ManifestListWriter::Open(std::move(*list_out), ctx.snapshot_id, parent_id,
                                              ctx.sequence_number, list_options);
  if (!lw) return fail(lw.error());
  for (const auto& m : added_manifests) {
    if (auto r = (*lw)->Add(m); !r) return fail(r.error());
  }
  for (const auto& m : *carried) {
    if (auto r = (*lw)->Add(m); !r) return fail(r.error());
  }
  if (auto r = (*lw)->Close(); !r) return fail(r.error());
  CrashPoint("commit.list-written");

  // Summary (Iceberg spec Appendix F; values are strings).
  auto totals = TotalsOf(*table_, head);
  if (!totals) return fail(totals.error());
  for (const auto& g : groups) {
    for (const DataFile* f : g.data) summary.AddedFile(g.spec.spec_id(), *f);
    for (const DataFile* f : g.deletes) summary.AddedFile(g.spec.spec_id(), *f);
  }
  std::map<std::string, std::string> properties;
  if (attempt_properties.empty()) {
    properties = summary.Build(properties_, *totals);
  } else {
    std::map<std::string, std::string> merged = properties_;
    for (auto& [k, v] : attempt_properties) merged[k] = std::move(v);
    properties = summary.Build(merged, *totals);
  }

  const iceberg::SnapshotOperation op = Operation();
  iceberg::Snapshot snap;
  snap.snapshot_id = ctx.snapshot_id;
  snap.parent_snapshot_id = parent_id;
  snap.sequence_number = ctx.sequence_number;
  snap.timestamp_ms = std::max(iceberg::NowMillis(), md.last_updated_ms);
  snap.manifest_list = list_location;
  snap.operation = op;
  snap.summary = properties;
  snap.schema_id = md.current_schema_id;
  if (md.format_version >= 3) {
    snap.first_row_id = list_options.first_row_id;
    snap.added_rows = *(*lw)->next_row_id() - *list_options.first_row_id;
  }
  iceberg::TableMetadata next = md;
  if (Status st = iceberg::AddSnapshot(&next, snap, iceberg::NowMillis(), branch_); !st)
    return fail(st.error());
  // Every file the snapshot adds must still be there when it is published:
  // an orphan removal with a short window (or a hand) may have deleted the
  // files of this commit while it was in flight, and a snapshot naming them
  // would leave the table unreadable. One existence check per new file (a
  // stat locally, a HEAD request on S3), just before the swap. A missing file
  // fails the commit as known-failed, without a retry (a retry would publish
  // the same missing file).
  if (Status st = CheckAddedFilesExist(added_manifests, written.locations); !st) return fail(st.error());
  auto committed = table_->catalog()->CommitTable(base, std::move(next));
  if (!committed) return fail(committed.error());
  // Only once the swap happened: a kill here must find the commit landed
  // (a lost race passes no "swapped" point).
  CrashPoint("commit.swapped");
  table_->Reset(std::move(*committed));
  result->snapshot_id = ctx.snapshot_id;
  result->sequence_number = ctx.sequence_number;
  result->metadata_location = table_->loaded().metadata_location;
  result->attempts = attempt + 1;
  result->operation = std::string(iceberg::SnapshotOperationName(op));
  result->summary = std::move(properties);
  return Ok();
}

}  // namespace floe::table
