// The change sink's semantics as a reference model, a generator of random CDC
// streams, and the commands that drive `floe write` (merge-on-read, sink_id)
// and read the table back (floe scan, shared/interop/verify_table.mjs): shared
// by cdc_property_test.cc and cdc_crash_test.cc.
//
// The table is a sequential fold, one commit window at a time: a key's
// changes ordered by (sequence number, arrival); a change at or below the
// key's last committed sequence number is late (dead-letter output, or
// dropped past allowed_lateness_seconds); the rest are folded in order into
// the key's one row — INSERT and UPDATE_AFTER set it to their image, DELETE
// and UPDATE_BEFORE remove it (with upsert UPDATE_BEFORE rows are ignored,
// but counted as applied). So a key never has two rows, whatever the arrival
// order. Apart from the rows, the model predicts which windows publish a
// snapshot (the token moves only then): a window publishes when it writes a
// row or a delete. With deletes by position (delete_kind position, the
// default) the sink writes a delete exactly for a key live in the table (its
// key index knows); with equality deletes, for a key unless the key is new to
// it (its first change in the window an INSERT, without upsert, and the key
// neither in the table when the sink opened it nor applied by the sink since).
//
// "Committed" is what the sink can know: a relaunch with the same sink_id
// skips the input up to its token's position and remembers the sequence
// numbers of those skipped lines; within one process, each committed window
// adds its keys. A window that publishes nothing (every change cancelled, or
// nothing but late rows) leaves the token where it was, so a relaunch reads
// those lines again.
#pragma once

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_util.h"

namespace cdc_test {

namespace fs = std::filesystem;
using floe_cli_test::Node;
using floe_cli_test::RunIn;
using floe_cli_test::FloeRun;
using floe_cli_test::RunResult;
using floe_cli_test::Shell;

enum class Kind : uint8_t { kInsert, kUpdateBefore, kUpdateAfter, kDelete };

/// The change sink's order of one key's changes (change_sink.h): sequence
/// number, then class (before-images and deletes first), then arrival.
inline std::pair<int64_t, int> OrderOf(int64_t seq, Kind kind) {
  return {seq, kind == Kind::kUpdateBefore || kind == Kind::kDelete ? 0 : 1};
}

/// A row of the table: id BIGINT, region STRING, ts TIMESTAMP, name STRING, n BIGINT.
struct Row {
  std::optional<int64_t> id;
  std::optional<std::string> region;
  std::optional<std::string> ts;  ///< "2024-01-0DTHH:00:00"
  std::optional<std::string> name;
  std::optional<int64_t> n;
};

/// The input schema: the table's columns and the two control columns.
inline constexpr const char* kInputSchema =
    "id BIGINT, region STRING, ts TIMESTAMP, name STRING, n BIGINT, op STRING, seq BIGINT";

inline std::string JsonStr(const std::optional<std::string>& s) {
  return s ? "\"" + *s + "\"" : "null";
}
inline std::string JsonNum(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : "null";
}

/// The row as `floe scan` and verify_table print it (canonical JSON, schema order).
inline std::string CanonicalRow(const Row& r) {
  return "{\"id\":" + JsonNum(r.id) + ",\"region\":" + JsonStr(r.region) +
         ",\"ts\":" + (r.ts ? "\"" + *r.ts + ".000000\"" : std::string("null")) +
         ",\"name\":" + JsonStr(r.name) + ",\"n\":" + JsonNum(r.n) + "}";
}

/// One input line.
struct Change {
  Row row;
  Kind kind = Kind::kInsert;
  int64_t seq = 0;
  /// An invalid line (goes to the error output): no sequence number, or a
  /// change type the sink does not know.
  enum Flaw : uint8_t { kValid, kNoSeq, kBadOp } flaw = kValid;
};

/// How one seed writes its table.
struct Options {
  bool composite_key = false;  ///< key (id, region) instead of (id)
  enum Partition : uint8_t { kNone, kBucket, kIdentityRegion, kDayTs } partition = kNone;
  bool upsert = false;
  bool error_output = false;    ///< error_handling output (and invalid lines in the stream)
  bool lateness_zero = false;   ///< allowed_lateness_seconds=0: late changes may be dropped
  bool flink_spelling = false;  ///< +I -U +U -D instead of INSERT ...
  bool hash = false;            ///< distribution_mode=hash
  int num_shards = 16;
  int shards_per_partition = 1;
  bool equality_deletes = false;  ///< delete_kind=equality (default: deletes by position)
  bool format_v3 = false;  ///< format-version=3: deletes by position are deletion vectors

  std::string Describe() const {
    static const char* parts[] = {"none", "bucket(id, 4)", "identity(region)", "day(ts)"};
    std::ostringstream o;
    o << "key=" << (composite_key ? "(id, region)" : "(id)") << " partition=" << parts[partition]
      << " upsert=" << upsert << " error_output=" << error_output
      << " lateness_zero=" << lateness_zero << " flink_spelling=" << flink_spelling
      << " hash=" << hash;
    if (hash) o << " num_shards=" << num_shards << " shards_per_partition=" << shards_per_partition;
    if (equality_deletes) o << " delete_kind=equality";
    if (format_v3) o << " format-version=3";
    return o.str();
  }
};

inline std::string KindName(Kind k, bool flink) {
  static const char* names[] = {"INSERT", "UPDATE_BEFORE", "UPDATE_AFTER", "DELETE"};
  static const char* flink_names[] = {"+I", "-U", "+U", "-D"};
  return (flink ? flink_names : names)[static_cast<int>(k)];
}

/// The JSONL line of a change.
inline std::string InputLine(const Change& c, bool flink) {
  const Row& r = c.row;
  std::string s =
      "{\"id\":" + JsonNum(r.id) + ",\"region\":" + JsonStr(r.region) + ",\"ts\":" + JsonStr(r.ts) +
      ",\"name\":" + JsonStr(r.name) + ",\"n\":" + JsonNum(r.n) + ",\"op\":\"" +
      (c.flaw == Change::kBadOp ? std::string("MERGE") : KindName(c.kind, flink)) + "\"";
  if (c.flaw != Change::kNoSeq) s += ",\"seq\":" + std::to_string(c.seq);
  return s + "}\n";
}

inline std::string InputText(const std::vector<Change>& lines, size_t count, bool flink) {
  std::string out;
  for (size_t i = 0; i < count && i < lines.size(); ++i) out += InputLine(lines[i], flink);
  return out;
}

// ------------------------------------------------------------------- model

/// One sink_id over one input file: the token position and the sequence
/// numbers the sink knows to be committed.
struct Lineage {
  int64_t committed_position = 0;
  std::set<int64_t> late_positions;   ///< every late line seen (dead-letter output or dropped)
  std::set<int64_t> error_positions;  ///< every invalid line seen
};

/// What one `floe write` run must report.
struct RunExpect {
  int64_t read = 0, applied = 0, errors = 0, late = 0, skipped = 0;
  int64_t published = 0;                ///< windows that produced a snapshot
  std::vector<int64_t> published_ends;  ///< their input positions (the tokens)
};

class Model {
 public:
  Model(bool upsert, bool composite) : upsert_(upsert), composite_(composite) {}

  /// The sink's delete_kind: position (the default) or equality.
  bool position_deletes = true;

  std::string KeyOf(const Row& r) const {
    return JsonNum(r.id) + (composite_ ? "|" + JsonStr(r.region) : std::string());
  }

  /// One process reading `lines` (positions 1..n) as a sink whose token is at
  /// lineage->committed_position, committing at each of `window_ends`
  /// (positions, increasing; the last is lines.size()).
  /// `history`, when given, receives the table's rows after each window that
  /// publishes a snapshot.
  RunExpect Run(const std::vector<Change>& lines, const std::vector<int64_t>& window_ends,
                Lineage* lineage, std::vector<std::vector<std::string>>* history = nullptr) {
    RunExpect e;
    e.read = static_cast<int64_t>(lines.size());
    const int64_t token = lineage->committed_position;
    // What the relaunch remembers: the sequence numbers of the skipped lines.
    std::map<std::string, std::pair<int64_t, int>> committed_seq;  ///< (sequence number, class)
    for (size_t i = 0; i < lines.size(); ++i) {
      const Change& c = lines[i];
      const int64_t pos = static_cast<int64_t>(i) + 1;
      if (c.flaw != Change::kValid) {
        ++e.errors;
        lineage->error_positions.insert(pos);
        continue;
      }
      if (pos <= token) {
        ++e.skipped;
        auto [it, fresh] = committed_seq.emplace(KeyOf(c.row), OrderOf(c.seq, c.kind));
        if (!fresh) it->second = std::max(it->second, OrderOf(c.seq, c.kind));
      }
    }
    // The keys the table holds as the sink opens it (it reads them).
    std::set<std::string> in_table;
    for (const auto& [key, rows] : rows_) {
      if (!rows.empty()) in_table.insert(key);
    }
    int64_t begin = token;
    for (int64_t end : window_ends) {
      if (end <= begin) continue;
      // The window's changes, per key, in (sequence number, arrival) order.
      std::map<std::string, std::vector<const Change*>> groups;
      std::map<const Change*, int64_t> position;
      for (int64_t pos = begin + 1; pos <= end; ++pos) {
        const Change& c = lines[static_cast<size_t>(pos - 1)];
        if (c.flaw != Change::kValid) continue;
        groups[KeyOf(c.row)].push_back(&c);
        position[&c] = pos;
      }
      bool publishes = false;
      std::map<std::string, std::pair<int64_t, int>> window_seq;
      for (auto& [key, group] : groups) {
        std::stable_sort(group.begin(), group.end(), [](const Change* a, const Change* b) {
          return OrderOf(a->seq, a->kind) < OrderOf(b->seq, b->kind);
        });
        auto cs = committed_seq.find(key);
        std::vector<const Change*> kept;
        for (const Change* c : group) {
          if (cs != committed_seq.end() && OrderOf(c->seq, c->kind) <= cs->second) {
            ++e.late;
            lineage->late_positions.insert(position[c]);
            continue;
          }
          ++e.applied;
          auto [it, fresh] = window_seq.emplace(key, OrderOf(c->seq, c->kind));
          if (!fresh) it->second = std::max(it->second, OrderOf(c->seq, c->kind));
          if (upsert_ && c->kind == Kind::kUpdateBefore) continue;
          kept.push_back(c);
        }
        if (kept.empty()) continue;
        // The fold: the key's row after its last change.
        const Change* l = kept.back();
        const bool add = l->kind == Kind::kInsert || l->kind == Kind::kUpdateAfter;
        auto row_it = rows_.find(key);
        const bool live_before = row_it != rows_.end() && !row_it->second.empty();
        rows_[key] = add ? std::vector<Row>{l->row} : std::vector<Row>{};
        // Whether the sink writes something for the key (see the file comment).
        const bool known = in_table.contains(key) || cs != committed_seq.end();
        const bool del = position_deletes ? live_before
                                          : upsert_ || kept.front()->kind != Kind::kInsert || known;
        if (del || add) publishes = true;
      }
      for (const auto& [key, seq] : window_seq) {
        auto [it, fresh] = committed_seq.emplace(key, seq);
        if (!fresh) it->second = std::max(it->second, seq);
      }
      if (publishes) {
        ++e.published;
        e.published_ends.push_back(end);
        if (history) history->push_back(Rows());
        lineage->committed_position = end;
      }
      begin = end;
    }
    return e;
  }

  /// The table's rows, canonical and sorted.
  std::vector<std::string> Rows() const {
    std::vector<std::string> out;
    for (const auto& [key, rows] : rows_) {
      for (const Row& r : rows) out.push_back(CanonicalRow(r));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  bool upsert_, composite_;
  std::map<std::string, std::vector<Row>> rows_;
};

// --------------------------------------------------------------- generator

/// Random CDC streams: a small key space (keys collide), INSERT / UPDATE
/// pairs (sometimes sharing a sequence number) / lone updates / deletes,
/// deletes and updates of absent keys, re-inserts, nulls in the non-key
/// columns, regions and days that change between updates (keys move
/// partition), and an arrival order shuffled against the sequence numbers.
class Generator {
 public:
  Generator(uint64_t seed, const Options& o, int keys) : rng_(seed), o_(o), keys_(keys) {}

  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  /// `count` changes in sequence order, then shuffled. `shuffle` false gives
  /// a stream whose table does not depend on where the windows fall: every
  /// key's changes in sequence order (no late changes), no invalid lines.
  /// An update pair may share a sequence number and be split by
  /// a window: its after-image orders after the committed before-image
  /// (AnUpdatePairSplitByAWindowKeepsItsAfterImage).
  std::vector<Change> Stream(int count, bool shuffle = true) {
    std::vector<Change> out;
    shuffle_ = shuffle;
    while (static_cast<int>(out.size()) < count) Step(&out, shuffle);
    if (shuffle) {
      // Neighbours swap, and now and then a change straggles far behind.
      for (size_t i = 0; i + 1 < out.size(); ++i) {
        if (Chance(0.3))
          std::swap(out[i], out[std::min(out.size() - 1, i + static_cast<size_t>(Uniform(1, 4)))]);
      }
      for (size_t i = 0; i + 1 < out.size(); ++i) {
        if (Chance(0.04)) {
          const size_t to = std::min(out.size() - 1, i + static_cast<size_t>(Uniform(5, 30)));
          std::rotate(out.begin() + static_cast<std::ptrdiff_t>(i),
                      out.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                      out.begin() + static_cast<std::ptrdiff_t>(to) + 1);
        }
      }
    }
    return out;
  }

  int64_t last_seq() const { return seq_; }

 private:
  static constexpr const char* kRegions[] = {"eu", "us", "ap"};

  struct KeyState {
    bool live = false;
    Row row;
  };

  std::string Name() {
    static const char* names[] = {"ann", "bob", "cy", "dee", "eve", "fox", "gus", "hal"};
    return std::string(names[Uniform(0, 7)]) + std::to_string(Uniform(0, 99));
  }
  std::string Ts() {
    return "2024-01-0" + std::to_string(Uniform(1, 4)) + "T" + (Uniform(0, 1) ? "0" : "1") +
           std::to_string(Uniform(0, 9)) + ":00:00";
  }
  // A new image of `key`'s row: key columns kept, the rest random (nulls too).
  Row Image(const Row& key) {
    Row r;
    r.id = key.id;
    if (o_.composite_key) {
      r.region = key.region;
    } else if (!Chance(0.1)) {
      r.region = kRegions[Uniform(0, 2)];
    }
    if (!Chance(0.1)) r.ts = Ts();
    if (!Chance(0.2)) r.name = Name();
    if (!Chance(0.3)) r.n = Uniform(-5, 1000);
    return r;
  }
  // A delete's image: the old row, or only the key columns.
  Row DeleteImage(const KeyState& s, const Row& key) {
    if (s.live && Chance(0.6)) return s.row;
    Row r;
    r.id = key.id;
    if (o_.composite_key) r.region = key.region;
    return r;
  }

  void Step(std::vector<Change>* out, bool anomalies) {
    Row key;
    key.id = Uniform(1, keys_);
    if (o_.composite_key) key.region = kRegions[Uniform(0, 1)];
    KeyState& s = state_[CanonicalRow(key)];
    auto emit = [&](Kind kind, Row row, int64_t seq) {
      Change c;
      c.kind = kind;
      c.row = std::move(row);
      c.seq = seq;
      out->push_back(std::move(c));
    };
    if (anomalies && o_.error_output && Chance(0.05)) {
      Change c;
      c.kind = Kind::kInsert;
      c.row = Image(key);
      c.seq = seq_ + 1;
      c.flaw = Chance(0.5) ? Change::kNoSeq : Change::kBadOp;
      out->push_back(std::move(c));
      return;
    }
    seq_ += Uniform(1, 3);
    const int r = Uniform(0, 99);
    if (!s.live) {
      if (r < 75) {
        s.row = Image(key);
        emit(Kind::kInsert, s.row, seq_);
        s.live = true;
      } else if (r < 85) {
        emit(Kind::kDelete, DeleteImage(s, key), seq_);  // a delete of an absent key
      } else if (r < 95) {
        s.row = Image(key);
        emit(Kind::kUpdateAfter, s.row, seq_);  // an update of an absent key
        s.live = true;
      } else {
        emit(Kind::kUpdateBefore, DeleteImage(s, key), seq_);  // a lone UPDATE_BEFORE
      }
      return;
    }
    if (r < 35) {
      // An update pair; half the time both halves share the sequence number.
      emit(Kind::kUpdateBefore, s.row, seq_);
      if (Chance(0.5)) seq_ += 1;
      s.row = Image(key);
      emit(Kind::kUpdateAfter, s.row, seq_);
    } else if (r < 60) {
      s.row = Image(key);
      emit(Kind::kUpdateAfter, s.row, seq_);
    } else if (r < 85) {
      emit(Kind::kDelete, DeleteImage(s, key), seq_);
      s.live = false;
    } else if (r < 90) {
      // An INSERT of a live key: it replaces the key's row (a key never has
      // two rows, with or without upsert).
      s.row = Image(key);
      emit(Kind::kInsert, s.row, seq_);
    } else if (r < 95) {
      emit(Kind::kUpdateBefore, s.row, seq_);  // a lone UPDATE_BEFORE removes the row
      s.live = false;
    } else {
      s.row = Image(key);
      emit(Kind::kUpdateAfter, s.row, seq_);
    }
  }

  std::mt19937_64 rng_;
  Options o_;
  int keys_;
  int64_t seq_ = 0;
  bool shuffle_ = true;
  std::map<std::string, KeyState> state_;
};

// ----------------------------------------------------------------- commands

/// The `floe write` arguments (after `write`) for `o`, sink `sink_id`, input `input`.
inline std::string WriteArgs(const Options& o, const std::string& sink_id, const std::string& input,
                             const std::string& extra = "") {
  static const char* parts[] = {"", "bucket(id, 4)", "identity(region)", "day(ts)"};
  std::string a =
      "--catalog warehouse=./wh --table db.t --schema " + Shell(kInputSchema) +
      " --set mode=merge-on-read --set change_type_column=op --set sequence_number_column=seq";
  a += o.composite_key ? " --set equality_columns=id,region" : " --set equality_columns=id";
  a += " --set sink_id=" + sink_id;
  a += " --set error_handling=dead_letter:dead_" + sink_id + ".jsonl";
  if (o.error_output) a += ",output:errors_" + sink_id + ".jsonl";
  if (o.partition != Options::kNone)
    a += " --set " + Shell(std::string("partition_fields=") + parts[o.partition]);
  if (o.upsert) a += " --set upsert=true";
  if (o.equality_deletes) a += " --set delete_kind=equality";
  if (o.format_v3) a += " --set format-version=3";
  if (o.lateness_zero) a += " --set allowed_lateness_seconds=0";
  if (o.hash) {
    a += " --set distribution_mode=hash --set num_shards=" + std::to_string(o.num_shards) +
         " --set shards_per_partition=" + std::to_string(o.shards_per_partition);
  }
  return a + extra + " --no-progress -i " + input;
}

// The plain command of the tests below: table db.t keyed by id, changes in
// columns op and seq, late changes to dead.jsonl, invalid rows to errors.jsonl.
inline std::string SmallWrite(const std::string& extra, const std::string& input) {
  return Shell(FLOE_BIN) + " write --catalog warehouse=./wh --table db.t --schema " +
         Shell("id BIGINT, name STRING, op STRING, seq BIGINT") +
         " --set mode=merge-on-read --set change_type_column=op --set sequence_number_column=seq"
         " --set equality_columns=id --set "
         "error_handling=dead_letter:dead.jsonl,output:errors.jsonl" +
         extra + " --no-progress -i " + input;
}

inline std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

/// The table's rows by `floe scan` (sorted), of the current snapshot or of
/// `snapshot_id`; nullopt (and a test failure) when the scan fails.
inline std::optional<std::vector<std::string>> ScanRows(const fs::path& dir,
                                                        std::optional<int64_t> snapshot_id = {}) {
  std::vector<std::string> args = {"scan", "--catalog", "warehouse=./wh", "--table", "db.t"};
  if (snapshot_id) {
    args.push_back("--set");
    args.push_back("snapshot-id=" + std::to_string(*snapshot_id));
  }
  RunResult r = floe_cli_test::FloeIn(dir, args);  // read back in-process: no process start
  if (r.rc != 0) {
    ADD_FAILURE() << "floe scan failed: " << r.err;
    return std::nullopt;
  }
  return SortedLines(r.out);
}

/// The table's rows by the spec-only reader (sorted). `target` is the table
/// folder (resolved through version-hint.text) or a metadata file.
inline std::optional<std::vector<std::string>> VerifyRows(const fs::path& dir,
                                                          std::optional<int64_t> snapshot_id = {},
                                                          const std::string& target = "wh/db/t") {
  // --deletion-vectors: read format v3 deletion vectors by the spec (without
  // it a snapshot with one is refused).
  std::vector<std::string> args = {target, "--deletion-vectors"};
  if (snapshot_id) {
    args.push_back("--snapshot-id");
    args.push_back(std::to_string(*snapshot_id));
  }
  RunResult r = floe_cli_test::Node(dir, "verify_table.mjs", args);
  if (r.rc != 0) {
    ADD_FAILURE() << "verify_table failed: " << r.err;
    return std::nullopt;
  }
  return SortedLines(r.out);
}

/// A snapshot as `floe snapshots` lists it, with its exactly-once token.
struct SnapshotInfo {
  int64_t id = 0;
  std::string sink_id;        ///< floe.sink-id ("" without)
  int64_t commit_number = 0;  ///< floe.commit-number
  int64_t position = 0;       ///< floe.input-position
  std::string operation;
};

/// The table's snapshots, oldest first (none before the table exists).
inline std::vector<SnapshotInfo> Snapshots(const fs::path& dir) {
  std::vector<SnapshotInfo> out;
  if (!fs::exists(dir / "wh" / "db" / "t" / "metadata")) return out;
  RunResult r = floe_cli_test::FloeIn(dir, {"snapshots", "--catalog", "warehouse=./wh", "--table", "db.t"});
  if (r.rc != 0) {
    // Before the first commit there is no table yet (the sink creates it).
    if (r.err.find("does not exist") == std::string::npos) ADD_FAILURE() << "floe snapshots failed: " << r.err;
    return out;
  }
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) {
      ADD_FAILURE() << "floe snapshots: not JSON: " << line;
      continue;
    }
    SnapshotInfo s;
    s.id = j.value("snapshot-id", int64_t{0});
    s.operation = j.value("operation", std::string());
    const auto& sum = j["summary"];
    s.sink_id = sum.value("floe.sink-id", std::string());
    s.commit_number = std::stoll(sum.value("floe.commit-number", std::string("0")));
    s.position = std::stoll(sum.value("floe.input-position", std::string("0")));
    out.push_back(std::move(s));
  }
  return out;
}

/// Runs `cmd` in `dir` with its standard input fed `chunks`, pausing
/// `pause_ms` between them (a streaming write sees them arrive over time),
/// or, given `between`, calling it between chunks instead (e.g. to wait for
/// a commit).
inline RunResult RunStreaming(const fs::path& dir, const std::string& cmd,
                              const std::vector<std::string>& chunks, int pause_ms,
                              const std::function<void()>& between = {}) {
  ::signal(SIGPIPE, SIG_IGN);  // a writer that exits early must fail the test, not kill it
  const fs::path out = dir / ".stdout", err = dir / ".stderr";
  const std::string full = "cd " + Shell(dir.string()) + " && " + cmd + " >" + Shell(out.string()) +
                           " 2>" + Shell(err.string());
  FILE* p = ::popen(full.c_str(), "w");
  RunResult r;
  if (p == nullptr) {
    ADD_FAILURE() << "popen failed: " << cmd;
    return r;
  }
  for (size_t i = 0; i < chunks.size(); ++i) {
    std::fwrite(chunks[i].data(), 1, chunks[i].size(), p);
    std::fflush(p);
    if (i + 1 == chunks.size()) break;
    if (between) {
      between();
    } else {
      ::usleep(static_cast<useconds_t>(pause_ms) * 1000);
    }
  }
  const int status = ::pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = floe_cli_test::ReadFile(out);
  r.err = floe_cli_test::ReadFile(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

/// The positions of a reject log's entries (error or dead-letter output).
inline std::set<int64_t> LogPositions(const fs::path& file) {
  std::set<int64_t> out;
  std::istringstream in(floe_cli_test::ReadFile(file));
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.contains("position")) {
      ADD_FAILURE() << file << ": not an entry: " << line;
      continue;
    }
    out.insert(j["position"].get<int64_t>());
  }
  return out;
}

inline std::string SetText(const std::set<int64_t>& s) {
  std::string out;
  for (int64_t v : s) out += (out.empty() ? "" : ",") + std::to_string(v);
  return "{" + out + "}";
}

/// The accounting line (the last JSON line of stdout) and its identity:
/// read = applied + errors + dead_letter + dropped + skipped, in total and per
/// destination. Returns the parsed object (null on failure).
inline nlohmann::json Accounting(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  if (lines.empty()) {
    ADD_FAILURE() << "no accounting line on stdout";
    return nullptr;
  }
  auto j = nlohmann::json::parse(lines.back(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    ADD_FAILURE() << "the accounting line is not JSON: " << lines.back();
    return nullptr;
  }
  auto identity = [&](const nlohmann::json& o, const std::string& what) {
    const int64_t read = o.value("read", int64_t{-1});
    const int64_t sum = o.value("applied", int64_t{0}) + o.value("errors", int64_t{0}) +
                        o.value("dead_letter", int64_t{0}) + o.value("dropped", int64_t{0}) +
                        o.value("skipped", int64_t{0});
    EXPECT_EQ(read, sum) << what << ": read != applied + errors + dead_letter + dropped + skipped: "
                         << o.dump();
  };
  identity(j, "total");
  if (j.contains("destinations")) {
    for (const auto& d : j["destinations"]) {
      // A destination's errors are the rows that reached it; the total adds unrouted rows.
      identity(d, "destination " + d.value("table", std::string("?")));
    }
  }
  return j;
}

}  // namespace cdc_test
