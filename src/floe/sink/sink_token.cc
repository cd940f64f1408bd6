// Exactly-once tokens: finding a sink's newest commit in a table's history,
// and registering a sink on a table before its first commit.
#include "floe/sink/sink_token.h"

#include <charconv>

#include "floe/catalog/commit_retry.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/sink/sink_options.h"
#include "floe/sink/sink_retention.h"
#include "floe/util/strings.h"

namespace floe::sink {

std::string SinkPropertyKey(std::string_view sink_id) { return "floe.sink." + std::string(sink_id); }

namespace {

Result<int64_t> SummaryNumber(const iceberg::Snapshot& s, std::string_view key) {
  auto it = s.summary.find(std::string(key));
  int64_t n = -1;
  if (it != s.summary.end()) {
    const std::string& t = it->second;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    if (ec != std::errc() || p != t.data() + t.size()) n = -1;
  }
  if (n < 0) {
    return Corrupt("snapshot {} carries a sink token with a missing or damaged '{}'", s.snapshot_id, key);
  }
  return n;
}

}  // namespace

Result<std::optional<SinkToken>> FindSinkToken(const iceberg::TableMetadata& metadata, std::string_view sink_id,
                                               std::string_view branch) {
  const iceberg::Snapshot* head = nullptr;
  if (branch.empty() || branch == iceberg::kMainBranch) {
    head = metadata.CurrentSnapshot();
  } else {
    auto ref = metadata.SnapshotByRef(branch);
    if (ref) head = *ref;  // a branch not made yet has no token
  }
  const auto reg = metadata.properties.find(SinkPropertyKey(sink_id));
  const bool registered = reg != metadata.properties.end();
  int64_t registered_ms = 0;  // unreadable: assume the sink may have committed anywhere
  if (registered) {
    const std::string& t = reg->second;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), registered_ms);
    if (ec != std::errc() || p != t.data() + t.size()) registered_ms = 0;
  }
  for (const iceberg::Snapshot* s = head; s != nullptr;) {
    auto it = s->summary.find(std::string(kSummarySinkId));
    if (it != s->summary.end() && it->second == sink_id) {
      SinkToken t;
      FLOE_ASSIGN_OR_RETURN(t.commit_number, SummaryNumber(*s, kSummaryCommitNumber));
      FLOE_ASSIGN_OR_RETURN(t.position, SummaryNumber(*s, kSummaryInputPosition));
      t.snapshot_id = s->snapshot_id;
      t.timestamp_ms = s->timestamp_ms;
      if (auto sp = s->summary.find(std::string(kSummarySourcePosition)); sp != s->summary.end()) {
        t.source_position = sp->second;
      }
      if (auto in = s->summary.find(std::string(kSummaryInput)); in != s->summary.end()) t.input = in->second;
      return t;
    }
    if (!s->parent_snapshot_id) break;
    const iceberg::Snapshot* parent = metadata.SnapshotById(*s->parent_snapshot_id);
    // The expired part could hold the token only if the sink was registered
    // before `s` (everything expired is older than `s`).
    if (parent == nullptr && registered && s->timestamp_ms >= registered_ms) {
      // `floe expire --release-sink` records the newest token of a sink whose
      // walk it cuts, for exactly this gap.
      FLOE_ASSIGN_OR_RETURN(auto recorded, RecordedSinkToken(metadata, sink_id, branch, s->snapshot_id));
      if (recorded) return recorded;
      return InvalidArgument(
          "sink '{}' has committed to this table before, but its newest commit is not in the snapshot history: "
          "the history before snapshot {} has been expired (by another engine, or by floe expire --snapshot-id), "
          "and no record of the sink's position is kept (floe expire keeps the snapshots a registered sink "
          "needs, or records its position when given --release-sink). floe stops rather than commit the same "
          "changes twice. Which changes of the input are in the table is not known, so a new sink_id on the "
          "whole input would add them a second time. To continue exactly: if the table has identifier fields, "
          "write the whole input again with a new sink_id and upsert=true (every change then replaces its "
          "key's row, so the changes already in the table are applied again to the same effect); otherwise "
          "drop the table (floe drop-table --purge) and write the whole input again with a new sink_id",
          sink_id, s->snapshot_id);
    }
    s = parent;
  }
  return std::optional<SinkToken>();
}

Status RegisterSink(table::Table* table, std::string_view sink_id) {
  const std::string key = SinkPropertyKey(sink_id);
  if (table->metadata().properties.contains(key)) return Ok();
  FLOE_ASSIGN_OR_RETURN(auto policy, table->CommitRetryPolicy());
  return catalog::RunWithRetries(policy, [&](int attempt) -> Status {
    if (attempt > 0) FLOE_RETURN_IF_ERROR(table->Refresh());
    if (table->metadata().properties.contains(key)) return Ok();
    FLOE_ASSIGN_OR_RETURN(auto next, iceberg::UpdateProperties(table->metadata(),
                                                               {{key, std::to_string(iceberg::NowMillis())}}, {}));
    FLOE_ASSIGN_OR_RETURN(auto committed, table->catalog()->CommitTable(table->loaded(), std::move(next)));
    table->Reset(std::move(committed));
    return Ok();
  });
}

}  // namespace floe::sink
