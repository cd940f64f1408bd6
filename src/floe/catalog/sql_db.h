/// \file
/// The small database interface under the SQL catalog (sql_catalog.cc): one
/// connection, statements with `?` placeholders and text parameters, rows of
/// nullable text, transactions. One implementation per driver (SQLite through
/// libsqlite3, PostgreSQL through libpq), so the JdbcCatalog logic is written
/// once. Internal to the catalog module and its tests.
///
/// Errors say what a caller may conclude about a write:
///   kAlreadyExists  a unique or primary key constraint refused it (SQLSTATE
///                   23505, SQLITE_CONSTRAINT): nothing was written;
///   kCommitFailed   a serialization conflict (SQLSTATE 40001/40P01/55P03):
///                   nothing was written, a retry may succeed; or (not
///                   retryable) the SQLite file stayed locked by another
///                   connection for the whole busy timeout (SQLITE_BUSY): the
///                   message names the lock and its holders when /proc/locks
///                   tells them;
///   kIo             the connection was lost or the storage failed while the
///                   statement ran: a write may or may not have happened;
///   kInvalidArgument / kNotFound  the statement was refused (bad SQL, a
///                   missing table): nothing was written.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/util/status.h"

namespace floe::catalog::sql {

/// A value bound to a placeholder or read from a column: text or NULL.
using Value = std::optional<std::string>;
using Row = std::vector<Value>;

enum class Dialect { kSqlite, kPostgres };

class Db {
 public:
  virtual ~Db() = default;
  virtual Dialect dialect() const = 0;
  /// What the connection reaches, for messages ("sqlite /p/cat.db").
  virtual const std::string& description() const = 0;

  /// Runs a statement that returns rows. Placeholders are `?`, numbered in
  /// order; every parameter is bound as text (or NULL).
  virtual Result<std::vector<Row>> Query(std::string_view sql,
                                         const std::vector<Value>& params = {}) = 0;
  /// Runs a statement that returns no rows; the number of rows it changed.
  virtual Result<int64_t> Execute(std::string_view sql, const std::vector<Value>& params = {}) = 0;

  /// Starts a transaction. `for_write`: one that reads and then writes, so it
  /// takes the write lock up front (SQLite BEGIN IMMEDIATE, waiting up to the
  /// busy timeout) instead of failing on the upgrade.
  virtual Status Begin(bool for_write) = 0;
  virtual Status Commit() = 0;
  /// Best effort: a transaction whose connection is gone is already over.
  virtual void Rollback() = 0;

  /// Whether a table of that name exists (in the current schema).
  virtual Result<bool> TableExists(std::string_view table) = 0;
  /// The table's column names, in order; empty when it does not exist.
  virtual Result<std::vector<std::string>> Columns(std::string_view table) = 0;
};

/// Opens (creating if missing) the SQLite database file `path`; a path that
/// starts with `file:` is an SQLite URI. Waits up to `busy_timeout_ms` for
/// another process's lock before giving up with kCommitFailed.
Result<std::unique_ptr<Db>> OpenSqlite(const std::string& path, int busy_timeout_ms = 60000);

/// libpq connection keywords and values (host, port, dbname, user, ...).
struct PostgresParams {
  std::vector<std::pair<std::string, std::string>> keywords;
  /// The URI without its password, for messages.
  std::string description;
};

/// Parses `jdbc:postgresql://HOST[:PORT]/DB[?k=v&...]` (the `jdbc:` prefix
/// optional) into libpq keywords. JDBC parameters with a libpq equivalent
/// (user, password, sslmode, connectTimeout, ApplicationName, currentSchema,
/// options) are translated; any other parameter is an error naming it.
Result<PostgresParams> ParsePostgresUri(std::string_view uri);

/// Connects to PostgreSQL.
Result<std::unique_ptr<Db>> OpenPostgres(const PostgresParams& params);

/// Rolls back on scope exit unless Commit() was called through it.
class Transaction {
 public:
  explicit Transaction(Db* db) : db_(db) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction() {
    if (open_) db_->Rollback();
  }
  Status Begin(bool for_write) {
    FLOE_RETURN_IF_ERROR(db_->Begin(for_write));
    open_ = true;
    return Ok();
  }
  /// A failed COMMIT rolls back (SQLite keeps the transaction open when
  /// COMMIT is refused as busy), so nothing is left half-done either way.
  Status Commit() {
    open_ = false;
    Status st = db_->Commit();
    if (!st) db_->Rollback();
    return st;
  }
  void Rollback() {
    if (open_) db_->Rollback();
    open_ = false;
  }

 private:
  Db* db_;
  bool open_ = false;
};

}  // namespace floe::catalog::sql
