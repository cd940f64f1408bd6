// The catalog configurations the CLI-level catalog proofs run against
// (catalog_concurrency_cli_test.cc, catalog_crash_cli_test.cc), and the
// checks they share. Each configuration starts what its catalog needs for a
// fresh, empty catalog in a test's folder and returns the `--catalog` options
// that reach it; proving another catalog is one more entry in
// CatalogConfigs() (see the REST placeholder there).
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "cli/cli_util.h"
#include "testing/postgres.h"

namespace floe_cli_test {

/// A catalog ready for `floe` commands.
struct StartedCatalog {
  /// The `--catalog KEY=VALUE` options (quoted, with a leading space), to
  /// append to a `floe` command line.
  std::string args;
  /// Keeps alive what the configuration launched (a server process): the
  /// deleter stops it when the last copy goes. Empty when nothing runs.
  std::shared_ptr<void> keep_alive;
};

struct CatalogConfig {
  /// A gtest-safe name (letters, digits, '_').
  std::string name;
  /// Starts a fresh, empty catalog whose files live under `dir`.
  std::function<floe::Result<StartedCatalog>(const fs::path& dir)> start;
  /// The crash points (FLOE_CRASH_AT, util/crash_point.h) a `floe write`
  /// process passes on each commit attempt with this catalog, in order.
  std::vector<std::string> crash_points;
};

/// Crash points of a commit, in the order a writer passes them: the table
/// layer's (table/snapshot_producer.cc) around the catalog's own
/// (catalog/hadoop_catalog.cc, catalog/sql_catalog.cc). A REST client would
/// pass only the table layer's: the catalog's run in the server.
inline const std::vector<std::string> kHadoopCommitPoints = {
    "commit.manifests-written", "commit.list-written", "catalog.before-publish",
    "catalog.published", "commit.swapped"};
inline const std::vector<std::string> kSqlCommitPoints = {"commit.manifests-written",
                                                          "commit.list-written",
                                                          "catalog.before-metadata",
                                                          "catalog.before-publish",
                                                          "catalog.updated",
                                                          "catalog.published",
                                                          "commit.swapped"};
/// The points after which a killed write has landed: the new metadata is
/// published (hadoop: the version file linked; SQL: the UPDATE committed).
inline bool AfterPublish(const std::string& point) {
  return point == "catalog.published" || point == "commit.swapped";
}

/// " --catalog 'k=v'" for each option, in order.
inline std::string CatalogArgs(const std::vector<std::pair<std::string, std::string>>& options) {
  std::string out;
  for (const auto& [k, v] : options) out += " --catalog " + Shell(k + "=" + v);
  return out;
}

/// Starts `floe serve <catalog args> --listen 127.0.0.1:0` in `dir` and
/// returns its base URL; `*keep_alive` then also stops it (SIGTERM, then
/// reaped) when the last copy goes.
inline floe::Result<std::string> StartServe(const fs::path& dir, const std::string& catalog_args,
                                            std::shared_ptr<void>* keep_alive) {
  static int servers = 0;
  const fs::path out = dir / ("serve" + std::to_string(++servers) + ".out");
  const std::string cmd = "exec " + Shell(FLOE_BIN) + " serve --listen 127.0.0.1:0" + catalog_args + " >" +
                          Shell(out.string()) + " 2>&1";
  pid_t pid = ::fork();
  if (pid < 0) return floe::IoError("fork failed");
  if (pid == 0) {
    ::setpgid(0, 0);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::shared_ptr<void> previous = *keep_alive;
  *keep_alive = std::shared_ptr<void>(new int(0), [pid, previous](void* p) {
    ::kill(pid, SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
    delete static_cast<int*>(p);
  });
  const std::string marker = "listening on ";
  for (int i = 0; i < 400; ++i) {
    const std::string text = ReadFile(out);
    if (size_t at = text.find(marker); at != std::string::npos) {
      size_t end = text.find('\n', at);
      if (end != std::string::npos) return text.substr(at + marker.size(), end - at - marker.size());
    }
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      return floe::IoError("floe serve exited before listening: {}", text);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return floe::IoError("floe serve printed no address in 10 s: {}", ReadFile(out));
}

/// Every catalog configuration the proofs run against.
inline std::vector<CatalogConfig> CatalogConfigs() {
  std::vector<CatalogConfig> out = {
      {"hadoop",
       [](const fs::path& dir) -> floe::Result<StartedCatalog> {
         return StartedCatalog{CatalogArgs({{"warehouse", (dir / "wh").string()}}), nullptr};
       },
       kHadoopCommitPoints},
      // A catalog file floe creates (its journal mode is floe's choice).
      {"sqlite",
       [](const fs::path& dir) -> floe::Result<StartedCatalog> {
         return StartedCatalog{
             CatalogArgs({{"catalog-type", "sql"},
                          {"uri", "jdbc:sqlite:file:" + (dir / "catalog.db").string()},
                          {"warehouse", (dir / "wh").string()}}),
             nullptr};
       },
       kSqlCommitPoints},
      // A catalog file that existed before floe opened it, in SQLite's default
      // rollback-journal mode (as Java's JdbcCatalog or PyIceberg create it).
      {"sqlite_rollback_journal",
       [](const fs::path& dir) -> floe::Result<StartedCatalog> {
         const fs::path db = dir / "catalog.db";
         RunResult r =
             RunIn(dir, "sqlite3 " + Shell(db.string()) +
                            " 'PRAGMA journal_mode=DELETE; CREATE TABLE created_elsewhere(x)'");
         if (r.rc != 0) return floe::IoError("sqlite3 could not create {}: {}", db.string(), r.err);
         return StartedCatalog{CatalogArgs({{"catalog-type", "sql"},
                                            {"uri", "jdbc:sqlite:file:" + db.string()},
                                            {"warehouse", (dir / "wh").string()}}),
                               nullptr};
       },
       kSqlCommitPoints},
      {"postgres",
       [](const fs::path& dir) -> floe::Result<StartedCatalog> {
         FLOE_ASSIGN_OR_RETURN(std::string uri, floe::test::FreshPostgresDatabase());
         return StartedCatalog{CatalogArgs({{"catalog-type", "sql"},
                                            {"uri", uri},
                                            {"jdbc.user", "postgres"},
                                            {"warehouse", (dir / "wh").string()}}),
                               nullptr};
       },
       kSqlCommitPoints},
  };
  // REST over each of the above: floe's REST client and `floe serve` over
  // that catalog. A writer passes only the table layer's crash points (the
  // catalog's own run in the server); commit.swapped is after the publish.
  const size_t direct = out.size();
  for (size_t i = 0; i < direct; ++i) {
    CatalogConfig backend = out[i];
    if (backend.name == "sqlite_rollback_journal") continue;  // the server's side is the sqlite entry's
    out.push_back(CatalogConfig{
        "rest_over_" + backend.name,
        [backend](const fs::path& dir) -> floe::Result<StartedCatalog> {
          FLOE_ASSIGN_OR_RETURN(StartedCatalog inner, backend.start(dir));
          FLOE_ASSIGN_OR_RETURN(std::string uri, StartServe(dir, inner.args, &inner.keep_alive));
          return StartedCatalog{CatalogArgs({{"catalog-type", "rest"}, {"uri", uri}}), inner.keep_alive};
        },
        {"commit.manifests-written", "commit.list-written", "commit.swapped"}});
  }
  return out;
}

/// One `floe snapshots` line per snapshot, with the commit attempt that won
/// (floe names a manifest list snap-<snapshot id>-<attempt>-<uuid>.avro, and
/// a commit that lost a race writes a new list with the next attempt number:
/// the attempt in the winning list's name is how many attempts the commit took).
struct SnapshotChain {
  std::vector<nlohmann::json> by_sequence;  ///< ordered by sequence number 1..N
  int attempts = 0;                         ///< summed over the commits
  int max_attempts = 0;                     ///< of one commit
  int retries() const { return attempts - static_cast<int>(by_sequence.size()); }
};

/// The attempt number in a manifest list's name (0 when it has none).
inline int AttemptOf(const std::string& manifest_list) {
  const std::string name = fs::path(manifest_list).filename().string();
  if (!name.starts_with("snap-")) return 0;
  const size_t a = name.find('-', 5);
  if (a == std::string::npos) return 0;
  const size_t b = name.find('-', a + 1);
  if (b == std::string::npos) return 0;
  try {
    return std::stoi(name.substr(a + 1, b - a - 1));
  } catch (...) {
    return 0;
  }
}

/// Parses `floe snapshots` output and checks it is one line of parents with no
/// gap: sequence numbers 1..N, each snapshot's parent the one before it, the
/// first without a parent, snapshot ids distinct, every summary an append.
inline SnapshotChain CheckSnapshotChain(const std::string& listing, const std::string& what) {
  SnapshotChain chain;
  std::map<int64_t, nlohmann::json> by_seq;
  std::istringstream in(listing);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) {
      ADD_FAILURE() << what << ": floe snapshots printed a line that is not JSON: " << line;
      continue;
    }
    const int64_t seq = j.at("sequence-number").get<int64_t>();
    if (by_seq.contains(seq)) ADD_FAILURE() << what << ": sequence number " << seq << " twice";
    by_seq[seq] = j;
  }
  std::set<int64_t> ids;
  int64_t expected_seq = 1;
  const nlohmann::json* prev = nullptr;
  for (auto& [seq, s] : by_seq) {
    EXPECT_EQ(seq, expected_seq) << what << ": the chain has a gap before sequence number " << seq;
    expected_seq = seq + 1;
    EXPECT_TRUE(ids.insert(s.at("snapshot-id").get<int64_t>()).second) << what << ": " << s.dump();
    if (prev == nullptr) {
      EXPECT_TRUE(s.at("parent-snapshot-id").is_null())
          << what << ": the first snapshot has a parent: " << s.dump();
    } else {
      EXPECT_EQ(s.at("parent-snapshot-id"), prev->at("snapshot-id"))
          << what << ": snapshot of sequence number " << seq
          << " is not the child of the one before";
    }
    EXPECT_EQ(s.at("operation"), "append") << what << ": " << s.dump();
    const int attempt = AttemptOf(s.at("manifest-list").get<std::string>());
    EXPECT_GE(attempt, 1) << what << ": no attempt number in " << s.at("manifest-list");
    chain.attempts += attempt;
    chain.max_attempts = std::max(chain.max_attempts, attempt);
    chain.by_sequence.push_back(s);
    prev = &s;
  }
  return chain;
}

}  // namespace floe_cli_test
