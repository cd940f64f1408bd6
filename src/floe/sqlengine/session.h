/// \file
/// A SQL session, as Flink's SQL client holds one: catalogs by name
/// (`default_catalog`, in memory, holds connector tables; CREATE CATALOG ...
/// WITH ('type'='iceberg', ...) opens an Iceberg catalog through
/// catalog::OpenCatalog), the current catalog and database, TEMPORARY
/// tables, and the SET options. Execute runs one parsed statement to its end
/// (INSERTs included: floe runs every job synchronously, as Flink with
/// `table.dml-sync` = true).
///
/// Errors come back framed for the client with an exception class, as
/// Flink's messages carry one: `floe.ParseException: Encountered ...` for
/// syntax, `floe.ValidationException: ...` for names, types and options
/// found before anything runs, `floe.TableException: ...` for failures while
/// a job runs, `floe.PluginException: <class>: ...` from user-defined sinks,
/// and `floe.UnsupportedException: ...` for valid Flink SQL that floe does
/// not do yet (named, never silently accepted).
///
/// Option precedence (Flink's): a statement's /*+ OPTIONS(...) */ hint, then
/// the session's SET `connector.iceberg.*` keys, then the table's properties,
/// then the option's default.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/sink/source.h"
#include "floe/sql/ast.h"
#include "floe/sqlengine/connector.h"
#include "floe/sqlengine/result.h"
#include "floe/util/status.h"

namespace floe::sqlengine {

/// Where a session sends the print connector's rows.
struct SessionOptions {
  std::function<void(std::string_view)> print_out;
  std::function<void(std::string_view)> print_err;
};

class Session {
 public:
  explicit Session(SessionOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Parses and runs one statement whose text starts at `start` in its file
  /// (for error positions).
  Result<StatementResult> ExecuteSql(std::string_view text, sql::Pos start = {});
  /// Runs one parsed statement.
  Result<StatementResult> Execute(const sql::Statement& statement);

  /// A stop from outside for the jobs this session runs (`floe sql` passes
  /// the one SIGINT / SIGTERM cancel; null: none). An INSERT whose sources
  /// are all unbounded then commits what it read and ends (stopped() is
  /// set); any other is given up with nothing committed (an error).
  void SetInterrupt(const sink::Cancellation* interrupt);
  /// Whether the last statement was an INSERT ended by the interrupt (after
  /// committing what it read).
  bool stopped() const;

  /// Receives the rows of a streaming SELECT (a changelog result: an Iceberg
  /// streaming read, or `execution.runtime-mode` streaming) as they are read:
  /// `on_rows` is called once with the columns and no rows before the first
  /// read, then with each batch's rows. The statement's result then holds no
  /// rows, only their count (ResultTable::streamed_rows). Null: results hold
  /// their rows (the default).
  void SetStreamingRows(std::function<void(const ResultTable& rows)> on_rows);

  const std::string& current_catalog() const;
  const std::string& current_database() const;
  /// The SET options.
  const std::map<std::string, std::string>& options() const;
  /// Whether `sql-client.verbose` is on.
  bool verbose() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::sqlengine
