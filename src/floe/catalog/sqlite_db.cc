// The SQLite driver of the SQL catalog's database interface (sql_db.h),
// through libsqlite3. Several processes share one catalog file: SQLite locks
// the whole file, so every connection waits for a busy lock (busy timeout)
// and read-then-write transactions take the write lock first (BEGIN
// IMMEDIATE), which is what keeps concurrent writers from failing with
// SQLITE_BUSY on a lock upgrade (SQLite: "File Locking And Concurrency").
// A catalog file floe creates is put in WAL mode (UseWalIfNew).

#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>

#include "floe/catalog/sql_db.h"

namespace floe::catalog::sql {

namespace {

// The processes that hold a POSIX lock on `path` or on its WAL index
// (`<path>-shm`, where a WAL-mode writer holds its lock), as /proc/locks
// lists them: "process 1234 (sqlite3)" items, writers first; empty when
// none is known (no /proc, or the lock went meanwhile). Linux only; a
// best-effort hint for the message of a lock that outlasted the timeout.
// The file of an SQLite path or `file:` URI (without its query).
std::string DatabaseFile(const std::string& path) {
  std::string file = path;
  if (file.starts_with("file:")) {
    file = file.substr(5);
    if (auto q = file.find('?'); q != std::string::npos) file.resize(q);
  }
  return file;
}

std::string LockHolders(const std::string& file) {
  std::set<std::string> ids;  // "MAJ:MIN:INODE" as /proc/locks spells it
  for (const std::string& f : {file, file + "-shm"}) {
    struct stat st{};
    if (::stat(f.c_str(), &st) != 0) continue;
    ids.insert(fmt::format("{:02x}:{:02x}:{}", major(st.st_dev), minor(st.st_dev), st.st_ino));
  }
  std::ifstream locks("/proc/locks");
  if (ids.empty() || !locks) return "";
  std::set<long> writers, readers;
  for (std::string line; std::getline(locks, line);) {
    // "1: POSIX  ADVISORY  WRITE 1234 08:01:5678 120 120"; waiters have "->".
    std::istringstream in(line);
    std::string n, cls, mode, type, id;
    long pid = 0;
    if (!(in >> n >> cls) || cls == "->") continue;
    if (!(in >> mode >> type >> pid >> id) || pid <= 0 || !ids.contains(id)) continue;
    (type == "WRITE" ? writers : readers).insert(pid);
  }
  auto describe = [](long pid) {
    std::string comm;
    std::ifstream in(fmt::format("/proc/{}/comm", pid));
    std::getline(in, comm);
    std::string who = fmt::format("process {}", pid);
    if (!comm.empty()) who += fmt::format(" ({})", comm);
    if (pid == static_cast<long>(::getpid())) who += " (this process, another connection)";
    return who;
  };
  std::string out;
  for (long pid : writers) out += (out.empty() ? "" : ", ") + describe(pid) + " holds a write lock";
  for (long pid : readers) {
    if (!writers.contains(pid)) out += (out.empty() ? "" : ", ") + describe(pid) + " holds a read lock";
  }
  return out;
}

class SqliteDb final : public Db {
 public:
  SqliteDb(sqlite3* db, std::string path, int busy_timeout_ms)
      : db_(db),
        path_(DatabaseFile(path)),
        description_("sqlite " + path),
        busy_timeout_ms_(busy_timeout_ms) {}
  ~SqliteDb() override { sqlite3_close_v2(db_); }

  Dialect dialect() const override { return Dialect::kSqlite; }
  const std::string& description() const override { return description_; }

  Result<std::vector<Row>> Query(std::string_view sql, const std::vector<Value>& params) override {
    std::vector<Row> rows;
    FLOE_RETURN_IF_ERROR(Run(sql, params, &rows));
    return rows;
  }

  Result<int64_t> Execute(std::string_view sql, const std::vector<Value>& params) override {
    FLOE_RETURN_IF_ERROR(Run(sql, params, nullptr));
    return static_cast<int64_t>(sqlite3_changes64(db_));
  }

  Status Begin(bool for_write) override {
    return Run(for_write ? "BEGIN IMMEDIATE" : "BEGIN", {}, nullptr);
  }
  Status Commit() override { return Run("COMMIT", {}, nullptr); }
  void Rollback() override {
    // Fails harmlessly when SQLite already rolled the transaction back.
    if (!sqlite3_get_autocommit(db_)) (void)Run("ROLLBACK", {}, nullptr);
  }

  Result<bool> TableExists(std::string_view table) override {
    FLOE_ASSIGN_OR_RETURN(auto rows,
                          Query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?",
                                {std::string(table)}));
    return !rows.empty();
  }

  Result<std::vector<std::string>> Columns(std::string_view table) override {
    // pragma_table_info as a table-valued function takes the name as a parameter.
    FLOE_ASSIGN_OR_RETURN(auto rows, Query("SELECT name FROM pragma_table_info(?) ORDER BY cid",
                                           {std::string(table)}));
    std::vector<std::string> out;
    for (auto& r : rows) out.push_back(r[0].value_or(""));
    return out;
  }

 private:
  std::unexpected<Error> SqlError(int rc, std::string_view sql) const {
    const std::string msg = fmt::format("{}: {} (in: {})", description_, sqlite3_errmsg(db_), sql);
    switch (rc & 0xff) {
      case SQLITE_CONSTRAINT: return AlreadyExists("{}", msg);
      case SQLITE_BUSY:
      case SQLITE_LOCKED: {
        // Not a lost race: the catalog database itself was locked for the
        // whole busy timeout. Nothing was written; not retryable (a retry
        // would wait the timeout again), so a commit fails once, saying so.
        const std::string holders = LockHolders(path_);
        Error e = CommitFailed(
                      "the SQLite catalog database {} is locked: {}; floe waited jdbc.busy_timeout = {} ms "
                      "for the lock and wrote nothing ({}). Finish or stop that process (an open "
                      "transaction in a sqlite3 shell, another engine's writer), or raise the "
                      "catalog property jdbc.busy_timeout",
                      path_,
                      holders.empty() ? "another connection held the lock (which process is not known)"
                                      : holders,
                      busy_timeout_ms_, msg)
                      .error();
        e.retryable = false;
        return Fail(std::move(e));
      }
      case SQLITE_IOERR:
      case SQLITE_FULL:
      case SQLITE_CANTOPEN:
      case SQLITE_NOMEM:
      case SQLITE_PROTOCOL: return IoError("{}", msg);
      case SQLITE_CORRUPT:
      case SQLITE_NOTADB: return Corrupt("{}", msg);
      default: return InvalidArgument("{}", msg);
    }
  }

  Status Run(std::string_view sql, const std::vector<Value>& params, std::vector<Row>* rows) {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
    if (rc != SQLITE_OK) return SqlError(rc, sql);
    struct Finalize {
      sqlite3_stmt* s;
      ~Finalize() { sqlite3_finalize(s); }
    } finalize{stmt};
    if (sqlite3_bind_parameter_count(stmt) != static_cast<int>(params.size())) {
      return Internal("{}: {} parameters for {} placeholders in: {}", description_, params.size(),
                      sqlite3_bind_parameter_count(stmt), sql);
    }
    for (size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i) + 1;
      rc = params[i] ? sqlite3_bind_text64(stmt, at, params[i]->data(), params[i]->size(),
                                           SQLITE_TRANSIENT, SQLITE_UTF8)
                     : sqlite3_bind_null(stmt, at);
      if (rc != SQLITE_OK) return SqlError(rc, sql);
    }
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      if (!rows) continue;
      Row row;
      const int n = sqlite3_column_count(stmt);
      for (int c = 0; c < n; ++c) {
        if (sqlite3_column_type(stmt, c) == SQLITE_NULL) {
          row.emplace_back(std::nullopt);
        } else {
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
          row.emplace_back(std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt, c))));
        }
      }
      rows->push_back(std::move(row));
    }
    if (rc != SQLITE_DONE) return SqlError(rc, sql);
    return Ok();
  }

  sqlite3* db_;
  std::string path_;  ///< the database file (not the URI)
  std::string description_;
  int busy_timeout_ms_ = 0;
};

// A database file floe creates (no page yet) goes into WAL mode. A commit
// then costs one fsync of the log (synchronous stays FULL: a commit floe
// reported survives a power cut) instead of the rollback journal's several,
// and readers no longer wait for a writer. The mode is stored in the file, so
// every client (Java's sqlite-jdbc, Python's sqlite3 under PyIceberg, the
// sqlite3 shell) follows it; its cost is that all of them must run on the
// same host (the log index is shared memory), which a local catalog file
// implies, and may not sit on a network file system (where SQLite's locks
// are unreliable in either mode). A file that has pages keeps the mode its
// creator chose. Best effort: when the switch fails (a busy file, a file
// system without shared memory), the catalog works on in rollback mode.
void UseWalIfNew(sqlite3* db) {
  sqlite3_stmt* stmt = nullptr;
  bool empty = false;
  if (sqlite3_prepare_v2(db, "PRAGMA page_count", -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW) {
    empty = sqlite3_column_int64(stmt, 0) == 0;
  }
  sqlite3_finalize(stmt);
  // Two processes creating the file at once both switch; the second finds WAL already.
  if (empty) (void)sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
}

}  // namespace

Result<std::unique_ptr<Db>> OpenSqlite(const std::string& path, int busy_timeout_ms) {
  sqlite3* db = nullptr;
  const int flags =
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return IoError("cannot open the SQLite catalog database {}: {}", path, msg);
  }
  sqlite3_busy_timeout(db, busy_timeout_ms);
  sqlite3_extended_result_codes(db, 1);
  UseWalIfNew(db);
  return std::unique_ptr<Db>(new SqliteDb(db, path, busy_timeout_ms));
}

}  // namespace floe::catalog::sql
