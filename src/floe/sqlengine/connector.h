/// \file
/// Tables as the engine reads and writes them: a resolved table
/// (TableHandle), the row sources and sinks the connectors open for it, and
/// the registry of connectors by their `connector` identifier (STYLE habit
/// 6: registries, not if-chains). Built in: `iceberg` (tables of an Iceberg
/// catalog), `filesystem`, `datagen`, `print`, `blackhole`, `kafka`,
/// `upsert-kafka`, `postgres-cdc`; the plugin module adds `user-defined`.
///
/// Options are checked when a table is first used, as Flink's FactoryUtil
/// does (a CREATE TABLE with a bad option succeeds; the SELECT fails), with
/// Flink's texts: `Unsupported options found for 'datagen'.` followed by the
/// unsupported and the supported keys, `One or more required options are
/// missing.`, `Could not find any factory for identifier 'kafka' ...`.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/expr/expression.h"
#include "floe/sqlengine/engine_types.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::sqlengine {

/// A table resolved by name: where it lives, its columns and options.
struct TableHandle {
  std::string catalog;
  std::string database;
  std::string name;
  RelSchema schema;
  std::vector<std::string> primary_key;
  std::vector<std::string> partition_keys;
  /// Connector tables: the WITH options. Iceberg tables: the table properties.
  std::map<std::string, std::string> options;
  bool temporary = false;
  /// Set for tables of an Iceberg catalog (not owned; the session's).
  catalog::Catalog* iceberg = nullptr;
  std::optional<catalog::LoadedTable> loaded;

  /// `c.db.t`, as Flink names tables in messages.
  std::string FullName() const { return catalog + "." + database + "." + name; }
  /// The connector identifier (`iceberg` for Iceberg catalog tables).
  std::string Connector() const;
};

/// Produces batches of rows (of the schema the source was opened with).
class RowSource {
 public:
  virtual ~RowSource() = default;
  /// The next batch into `out` (replaced); false at the end.
  [[nodiscard]] virtual Result<bool> Next(Batch* out) = 0;
  /// Next, waiting for a batch no longer than until `deadline`: an empty
  /// batch (no rows) when none came by then. A source that cannot wait
  /// less than its own pace (the default) blocks as Next does.
  [[nodiscard]] virtual Result<bool> NextUntil(Batch* out, std::chrono::steady_clock::time_point deadline) {
    (void)deadline;
    return Next(out);
  }
  /// Whether the rows never end by themselves (a streaming read, datagen
  /// without a bound): stopping such a job (a signal) commits what it read,
  /// where stopping a bounded one publishes nothing.
  virtual bool unbounded() const { return false; }
};

/// Consumes batches of a table's rows (its full physical schema, in order).
class RowSink {
 public:
  virtual ~RowSink() = default;
  /// Rows with their kinds (Batch::row_kinds; empty = all inserts).
  [[nodiscard]] virtual Status Write(Batch&& batch) = 0;
  /// End of input: everything but the final commit (files closed, a plugin
  /// flushed, prepared, committed and closed).
  [[nodiscard]] virtual Status Finish() = 0;
  /// Whether Commit publishes something a failure elsewhere must prevent
  /// (an Iceberg snapshot): such sinks commit after every other sink of the
  /// statement set finished.
  virtual bool deferred_commit() const { return false; }
  /// Publishes what Finish prepared.
  [[nodiscard]] virtual Status Commit() { return Ok(); }
  /// Gives the write up (nothing published). Safe after any failure.
  virtual void Abort() {}
  /// Whether the sink publishes at checkpoints of a streaming job
  /// (`execution.checkpointing.interval`), and the checkpoint itself.
  virtual bool checkpoints() const { return false; }
  [[nodiscard]] virtual Status Checkpoint() { return Ok(); }
};

/// Session settings a source or sink may need.
struct EngineContext {
  /// The session's `connector.iceberg.*` and other SET options.
  const std::map<std::string, std::string>* session = nullptr;
  /// Where the print connector writes (the SQL client's standard output).
  std::function<void(std::string_view)> print_out;
  std::function<void(std::string_view)> print_err;
  /// Warnings (options ignored, ...): the SQL client prints them as [WARNING].
  std::function<void(std::string)> warn;
  /// Streaming runtime mode.
  bool streaming = false;
};

/// What a query asks of a source.
struct ReadRequest {
  std::map<std::string, std::string> hints;  ///< /*+ OPTIONS(...) */
  /// Columns to produce, as indices into the table's columns, in this order.
  std::vector<int> columns;
  /// A filter over the table's columns that the source may use to skip data
  /// (the engine still evaluates WHERE itself); null = none.
  expr::ExprPtr filter;
  /// Rows the query needs at most (-1: all); only a hint.
  int64_t limit = -1;
};

/// What an INSERT asks of a sink.
struct WriteRequest {
  std::map<std::string, std::string> hints;
  bool overwrite = false;
  /// The rows carry update and delete kinds (a changelog query).
  bool changelog = false;
  /// PARTITION (k = 'v') of INSERT ... PARTITION: the static partition values.
  std::map<std::string, std::string> static_partition;
};

/// A connector: validates a table's options and opens its sources and sinks.
class Connector {
 public:
  virtual ~Connector() = default;
  virtual std::string identifier() const = 0;
  /// Flink's option checks for this connector (see the file comment).
  [[nodiscard]] virtual Status Validate(const TableHandle& table, bool for_sink) const = 0;
  [[nodiscard]] virtual Result<std::unique_ptr<RowSource>> OpenSource(
      const TableHandle& table, const ReadRequest& request, const EngineContext& context) const;
  [[nodiscard]] virtual Result<std::unique_ptr<RowSink>> OpenSink(
      const TableHandle& table, const WriteRequest& request, const EngineContext& context) const;
  /// Whether the source of this table emits update and delete rows.
  virtual bool ChangelogSource(const TableHandle& table, const ReadRequest& request,
                               const EngineContext& context) const {
    return false;
  }
};

/// Registers a connector by its identifier (a later one replaces the earlier).
void RegisterConnector(std::shared_ptr<const Connector> connector);
/// The connector of an identifier; Flink's "Could not find any factory" error otherwise.
Result<std::shared_ptr<const Connector>> FindConnector(const std::string& identifier);
/// The connector of a table (`connector` option, or iceberg): the same errors,
/// and Flink's text when a connector table has no `connector` option.
Result<std::shared_ptr<const Connector>> ConnectorOf(const TableHandle& table);

/// Flink's FactoryUtil checks: required keys present, no keys outside
/// `required` + `optional` (a key in `optional` ending in '#' is a prefix:
/// `fields.#` accepts `fields.<anything>`; the supported list shows
/// `expand_prefix` expanded keys instead when given).
Status CheckConnectorOptions(const std::string& identifier,
                             const std::map<std::string, std::string>& options,
                             const std::set<std::string>& required,
                             const std::set<std::string>& optional);

/// Reads a non-negative integer option; an error naming the key otherwise.
Result<int64_t> LongOption(const std::map<std::string, std::string>& options,
                           const std::string& key, int64_t default_value);

}  // namespace floe::sqlengine
