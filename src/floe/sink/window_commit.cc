// One snapshot per window (window_commit.h).
#include "floe/sink/window_commit.h"

#include "floe/sink/sink_options.h"
#include "floe/sink/sink_token.h"
#include "floe/table/append_files.h"
#include "floe/table/overwrite_files.h"
#include "floe/table/row_delta.h"

namespace floe::sink {

namespace {

// The parts every operation shares: files, summary, token, branch, check.
template <typename Op>
Result<table::CommitResult> Publish(Op& op, const WindowCommit& c) {
  if (c.data) {
    for (const auto& f : *c.data) op.AddDataFile(f);
  }
  for (const auto* props : c.summary) {
    for (const auto& [key, value] : *props) op.Set(key, value);
  }
  if (c.token) {
    const WindowToken& t = *c.token;
    op.Set(std::string(kSummarySinkId), t.sink_id);
    op.Set(std::string(kSummaryCommitNumber), std::to_string(t.commit_number));
    op.Set(std::string(kSummaryInputPosition), std::to_string(t.position));
    if (!t.source_position.empty()) op.Set(std::string(kSummarySourcePosition), t.source_position);
  }
  if (!c.branch.empty()) op.ToBranch(c.branch);
  if (c.token) {
    // The token check, inside every attempt: a copy of this sink (a zombie,
    // a second launch) may have committed this number meanwhile; then this
    // commit must not land, and its files are not needed.
    op.SetAttemptCheck([&c](const table::SnapshotAttempt& attempt) -> Status {
      const WindowToken& t = *c.token;
      FLOE_ASSIGN_OR_RETURN(auto token, FindSinkToken(attempt.metadata, t.sink_id, c.branch));
      if (token && token->commit_number >= t.commit_number) {
        return AlreadyExists("sink '{}' commit {} is already in the table (snapshot {}): another process with the "
                             "same sink_id is writing it",
                             t.sink_id, token->commit_number, token->snapshot_id);
      }
      return Ok();
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
      committed = Publish(op, c);
      break;
    }
    case WindowOperation::kOverwritePartitions: {
      table::OverwriteFiles op(table, table::OverwriteMode::kPartitions);
      committed = Publish(op, c);
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
      committed = Publish(op, c);
      break;
    }
  }
  if (committed || committed.error().kind != ErrorKind::kCommitStateUnknown || !c.token) return committed;
  // Settle an unknown outcome by the token: present means the commit landed.
  Error unknown = committed.error();
  if (Status st = table->Refresh(); !st) return std::unexpected<Error>(std::move(unknown));  // still unknown
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
