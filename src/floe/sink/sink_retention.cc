// What expiry keeps for registered sinks, and the records of released ones.
#include "floe/sink/sink_retention.h"

#include <charconv>
#include <nlohmann/json.hpp>

#include "floe/sink/sink_options.h"

namespace floe::sink {

namespace {

constexpr std::string_view kSinkPrefix = "floe.sink.";

std::string BranchName(std::string_view branch) {
  return branch.empty() ? std::string(iceberg::kMainBranch) : std::string(branch);
}

int64_t RegisteredMs(const std::string& text) {
  int64_t ms = 0;  // unreadable: assume the sink may have committed anywhere
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
  return ec == std::errc() && p == text.data() + text.size() ? ms : 0;
}

// The ids of the registered sinks.
std::map<std::string, int64_t> RegisteredSinks(const iceberg::TableMetadata& md) {
  std::map<std::string, int64_t> out;
  for (const auto& [k, v] : md.properties) {
    if (k.starts_with(kSinkPrefix) && k.size() > kSinkPrefix.size()) out[k.substr(kSinkPrefix.size())] = RegisteredMs(v);
  }
  return out;
}

const iceberg::Snapshot* Head(const iceberg::TableMetadata& md, const std::string& branch) {
  auto it = md.refs.find(branch);
  return it == md.refs.end() ? nullptr : md.SnapshotById(it->second.snapshot_id);
}

// The walk FindSinkToken makes from `head`: the snapshots it visits, down to
// the token (included) or to where it ends.
std::vector<const iceberg::Snapshot*> Walk(const iceberg::TableMetadata& md, const iceberg::Snapshot* head,
                                           std::optional<int64_t> token_id, int64_t registered_ms) {
  std::vector<const iceberg::Snapshot*> out;
  for (const iceberg::Snapshot* s = head; s != nullptr;) {
    out.push_back(s);
    if (token_id && s->snapshot_id == *token_id) break;
    // No token: once past a snapshot older than the registration, nothing
    // older can make the walk fail.
    if (!token_id && s->timestamp_ms < registered_ms) break;
    if (!s->parent_snapshot_id) break;
    s = md.SnapshotById(*s->parent_snapshot_id);
  }
  return out;
}

}  // namespace

std::string SinkTokenRecordKey(std::string_view sink_id) { return "floe.sink-token." + std::string(sink_id); }

std::map<std::string, std::set<int64_t>> SnapshotsSinksNeed(const iceberg::TableMetadata& md,
                                                            const std::set<std::string>& released) {
  std::map<std::string, std::set<int64_t>> out;
  for (const auto& [id, registered_ms] : RegisteredSinks(md)) {
    if (released.contains(id)) continue;
    for (const auto& [branch, ref] : md.refs) {
      if (!ref.is_branch()) continue;
      auto token = FindSinkToken(md, id, branch);
      if (!token) continue;  // the walk fails already: nothing expiry could keep mends it
      std::optional<int64_t> token_id;
      if (*token) token_id = (*token)->snapshot_id;
      for (const auto* s : Walk(md, Head(md, branch), token_id, registered_ms)) {
        out["sink " + id].insert(s->snapshot_id);
      }
    }
  }
  return out;
}

Result<std::map<std::string, std::string>> ReleasedSinkRecords(const iceberg::TableMetadata& md,
                                                               const std::set<std::string>& released,
                                                               const std::set<int64_t>& expiring) {
  const auto registered = RegisteredSinks(md);
  std::map<std::string, std::string> out;
  for (const auto& id : released) {
    if (!registered.contains(id)) {
      return NotFound("sink '{}' is not registered on this table (no table property {}{})", id, kSinkPrefix, id);
    }
    nlohmann::ordered_json record = nlohmann::ordered_json::object();
    if (auto it = md.properties.find(SinkTokenRecordKey(id)); it != md.properties.end()) {
      auto old = nlohmann::ordered_json::parse(it->second, nullptr, false);
      if (old.is_object()) record = std::move(old);
    }
    bool changed = false;
    for (const auto& [branch, ref] : md.refs) {
      if (!ref.is_branch()) continue;
      auto token = FindSinkToken(md, id, branch);
      if (!token || !*token) continue;  // no token to keep (or the walk fails already)
      // The first snapshot of the walk whose parent expires: where the walk
      // will stop after the expiry.
      const auto walk = Walk(md, Head(md, branch), (*token)->snapshot_id, registered.at(id));
      std::optional<int64_t> gap;
      for (const auto* s : walk) {
        if (expiring.contains(s->snapshot_id)) break;  // only the head can be first; heads never expire
        if (s->parent_snapshot_id && expiring.contains(*s->parent_snapshot_id) &&
            s->snapshot_id != (*token)->snapshot_id) {
          gap = s->snapshot_id;
          break;
        }
      }
      if (!gap) continue;  // the walk still reaches the token
      nlohmann::ordered_json t;
      t["commit-number"] = (*token)->commit_number;
      t["input-position"] = (*token)->position;
      t["snapshot-id"] = (*token)->snapshot_id;
      t["timestamp-ms"] = (*token)->timestamp_ms;
      t["source-position"] = (*token)->source_position;
      t["input"] = (*token)->input;
      t["gap-snapshot-id"] = *gap;
      record[branch] = std::move(t);
      changed = true;
    }
    if (changed) out[SinkTokenRecordKey(id)] = record.dump();
  }
  return out;
}

Result<std::optional<SinkToken>> RecordedSinkToken(const iceberg::TableMetadata& md, std::string_view sink_id,
                                                   std::string_view branch, int64_t gap_snapshot_id) {
  auto it = md.properties.find(SinkTokenRecordKey(sink_id));
  if (it == md.properties.end()) return std::optional<SinkToken>();
  auto j = nlohmann::json::parse(it->second, nullptr, false);
  auto damaged = [&] {
    return Corrupt("table property {} is damaged (not a token record): {}", it->first, it->second.substr(0, 200));
  };
  if (!j.is_object()) return damaged();
  auto b = j.find(BranchName(branch));
  if (b == j.end()) return std::optional<SinkToken>();
  const auto& t = *b;
  auto integer = [&](const char* key) -> std::optional<int64_t> {
    auto f = t.find(key);
    if (f == t.end() || !f->is_number_integer()) return std::nullopt;
    return f->get<int64_t>();
  };
  auto text = [&](const char* key) -> std::optional<std::string> {
    auto f = t.find(key);
    if (f == t.end() || !f->is_string()) return std::nullopt;
    return f->get<std::string>();
  };
  if (!t.is_object()) return damaged();
  auto commit = integer("commit-number"), position = integer("input-position"), snapshot = integer("snapshot-id"),
       ts = integer("timestamp-ms"), gap = integer("gap-snapshot-id");
  auto source = text("source-position"), input = text("input");
  if (!commit || !position || !snapshot || !ts || !gap || !source || !input) return damaged();
  if (*gap != gap_snapshot_id) return std::optional<SinkToken>();  // cut elsewhere since: not this record's gap
  SinkToken out;
  out.commit_number = *commit;
  out.position = *position;
  out.snapshot_id = *snapshot;
  out.timestamp_ms = *ts;
  out.source_position = *source;
  out.input = *input;
  return std::optional<SinkToken>(std::move(out));
}

}  // namespace floe::sink
