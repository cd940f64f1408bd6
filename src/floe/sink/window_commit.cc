// One snapshot per window (window_commit.h).
#include "floe/sink/window_commit.h"

#include "floe/sink/sink_options.h"
#include "floe/sink/sink_token.h"
#include "floe/table/append_files.h"
#include "floe/table/overwrite_files.h"
#include "floe/table/row_delta.h"
#include "floe/sink/key_index.h"
#include "floe/table/scan.h"

#include <xxhash.h>

#include <algorithm>
#include <unordered_set>

namespace floe::sink {

namespace {

// The parts every operation shares: files, summary, token, branch, check.
// Deletes by position were resolved against `read_snapshot`: in an attempt
// on another head, the data files they refer to must still be live (Java's
// RowDelta.validateDataFilesExist), and no data file added since may hold a
// key the window changed.
Status ValidateConcurrentWrites(const table::SnapshotAttempt& attempt, const WindowCommit& c,
                                const table::Table& table) {
  if (!c.referenced) return Ok();
  const std::optional<int64_t> head =
      attempt.parent ? std::optional<int64_t>(attempt.parent->snapshot_id) : std::nullopt;
  if (head == c.read_snapshot) return Ok();  // nothing committed since the deletes were resolved
  // The snapshots committed since.
  std::unordered_set<int64_t> since;
  if (attempt.parent) {
    for (const iceberg::Snapshot* s : attempt.metadata.Ancestors(attempt.parent->snapshot_id)) {
      if (c.read_snapshot && s->snapshot_id == *c.read_snapshot) break;
      since.insert(s->snapshot_id);
    }
  }
  std::unordered_set<std::string> live;
  std::vector<std::pair<iceberg::ManifestEntry, int32_t>> added;  ///< data files added since, with their spec
  if (attempt.parent) {
    table::FileManifestSource source(attempt.metadata, table.io());
    FLOE_ASSIGN_OR_RETURN(auto manifests, source.ReadManifestList(*attempt.parent));
    for (const auto& m : manifests) {
      if (m.content != iceberg::ManifestContent::kData) continue;
      FLOE_ASSIGN_OR_RETURN(auto entries, source.ReadManifest(m));
      for (const auto& e : entries) {
        if (!e.is_live()) continue;
        live.insert(e.data_file.file_path);
        if (e.status == iceberg::ManifestEntryStatus::kAdded && e.snapshot_id && since.contains(*e.snapshot_id)) {
          added.emplace_back(e, m.partition_spec_id);
        }
      }
    }
  }
  for (const std::string& path : *c.referenced) {
    if (!live.contains(path)) {
      return CommitFailed(
          "data file {} was removed by another writer (compaction, overwrite) after this sink read it; the "
          "window's position deletes refer to it and cannot be committed (Java's "
          "RowDelta.validateDataFilesExist): restart the sink, which re-reads the table",
          path);
    }
  }
  if (!c.keys || c.keys->empty() || !c.eq_ids) return Ok();
  for (const auto& [e, spec_id] : added) {
    FLOE_ASSIGN_OR_RETURN(auto keys, ReadFileKeys(table, e.data_file, spec_id, *c.eq_ids));
    for (const std::string& key : keys) {
      if (key.empty()) continue;
      const uint64_t hash = XXH3_64bits(key.data(), key.size());
      if (std::binary_search(c.keys->begin(), c.keys->end(), hash)) {
        return CommitFailed(
            "another writer committed rows of keys this window changes (data file {}, snapshot {}) after this "
            "sink read the table; the window's deletes by position would leave two rows of a key: restart the "
            "sink, which re-reads the table",
            e.data_file.file_path, *e.snapshot_id);
      }
    }
  }
  return Ok();
}

template <typename Op>
Result<table::CommitResult> Publish(Op& op, const WindowCommit& c, const table::Table& table) {
  if (c.data) {
    for (const auto& f : *c.data) op.AddDataFile(f);
  }
  for (const auto* props : c.summary) {
    for (const auto& [key, value] : *props) op.Set(key, value);
  }
  if (c.token && c.token->shared) {
    const WindowToken& t = *c.token;
    op.SetAttemptSummary([&t, &c](const table::SnapshotAttempt& attempt) -> Result<std::map<std::string, std::string>> {
      FLOE_ASSIGN_OR_RETURN(auto newest, FindSinkToken(attempt.metadata, t.sink_id, c.branch));
      const int64_t number = newest ? newest->commit_number + 1 : 1;
      FLOE_ASSIGN_OR_RETURN(std::string position, t.shared(newest ? std::string_view(newest->source_position)
                                                                  : std::string_view()));
      if (t.shared_number != nullptr) *t.shared_number = number;
      if (t.shared_snapshot != nullptr) *t.shared_snapshot = attempt.snapshot_id;
      std::map<std::string, std::string> props;
      props[std::string(kSummarySinkId)] = t.sink_id;
      props[std::string(kSummaryCommitNumber)] = std::to_string(number);
      props[std::string(kSummaryInputPosition)] = std::to_string(t.position);
      props[std::string(kSummarySourcePosition)] = std::move(position);
      return props;
    });
  } else if (c.token) {
    const WindowToken& t = *c.token;
    op.Set(std::string(kSummarySinkId), t.sink_id);
    op.Set(std::string(kSummaryCommitNumber), std::to_string(t.commit_number));
    op.Set(std::string(kSummaryInputPosition), std::to_string(t.position));
    if (!t.source_position.empty()) op.Set(std::string(kSummarySourcePosition), t.source_position);
  }
  if (!c.branch.empty()) op.ToBranch(c.branch);
  if (c.token || c.referenced) {
    // The token check, inside every attempt: a copy of this sink (a zombie,
    // a second launch) may have committed this number meanwhile; then this
    // commit must not land, and its files are not needed.
    op.SetAttemptCheck([&c, &table](const table::SnapshotAttempt& attempt) -> Status {
      // The token first: a copy of this sink that committed the window is
      // the more precise reason (its rows are the ones the check would see).
      if (c.token && !c.token->shared) {
        const WindowToken& t = *c.token;
        FLOE_ASSIGN_OR_RETURN(auto token, FindSinkToken(attempt.metadata, t.sink_id, c.branch));
        if (token && token->commit_number >= t.commit_number) {
          return AlreadyExists("sink '{}' commit {} is already in the table (snapshot {}): another process with the "
                               "same sink_id is writing it",
                               t.sink_id, token->commit_number, token->snapshot_id);
        }
      }
      return ValidateConcurrentWrites(attempt, c, table);
    });
  }
  return op.Commit();
}

}  // namespace

Result<table::CommitResult> CommitWindow(table::Table* table, const WindowCommit& c) {
  Result<table::CommitResult> committed;
  switch (c.operation) {
    case WindowOperation::kAppend: {
      table::AppendFiles op(table);
      committed = Publish(op, c, *table);
      break;
    }
    case WindowOperation::kOverwritePartitions: {
      table::OverwriteFiles op(table, table::OverwriteMode::kPartitions);
      committed = Publish(op, c, *table);
      break;
    }
    case WindowOperation::kRowDelta: {
      table::RowDelta op(table);
      if (c.deletes) {
        for (const auto& f : *c.deletes) {
          if (c.delete_spec_id) {
            op.AddDeleteFile(f, *c.delete_spec_id);
          } else {
            op.AddDeleteFile(f);
          }
        }
      }
      if (c.position_deletes) {
        for (const auto& [f, spec_id] : *c.position_deletes) op.AddDeleteFile(f, spec_id);
      }
      if (c.vectors) c.vectors->AddTo(&op);
      committed = Publish(op, c, *table);
      break;
    }
  }
  if (committed || committed.error().kind != ErrorKind::kCommitStateUnknown || !c.token) return committed;
  // Settle an unknown outcome by the token: present means the commit landed.
  Error unknown = committed.error();
  if (Status st = table->Refresh(); !st) return std::unexpected<Error>(std::move(unknown));  // still unknown
  if (c.token->shared) {
    // Shared: the number may have been taken by another process; the
    // attempt's snapshot tells.
    if (c.token->shared_snapshot != nullptr && *c.token->shared_snapshot != 0 &&
        table->metadata().SnapshotById(*c.token->shared_snapshot) != nullptr) {
      table::CommitResult settled;
      settled.snapshot_id = *c.token->shared_snapshot;
      return settled;
    }
    return CommitFailed("a commit of sink '{}' did not land (its outcome was unknown: {}; the table has no snapshot "
                        "of it)",
                        c.token->sink_id, unknown.message);
  }
  auto token = FindSinkToken(table->metadata(), c.token->sink_id, c.branch);
  if (!token) return std::unexpected<Error>(std::move(unknown));
  if (*token && (*token)->commit_number == c.token->commit_number) {
    table::CommitResult settled;
    settled.snapshot_id = (*token)->snapshot_id;
    return settled;
  }
  return CommitFailed("commit {} of sink '{}' did not land (its outcome was unknown: {}; the table has no token for "
                      "it)",
                      c.token->commit_number, c.token->sink_id, unknown.message);
}

}  // namespace floe::sink
