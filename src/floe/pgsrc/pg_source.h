/// \file
/// PostgreSQL as a source: a consistent snapshot of some tables, then their
/// changes by logical replication (`pgoutput`, proto_version 1), into one
/// Iceberg table each (merge-on-read, the primary key as identifier fields),
/// exactly once by LSN. `floe write --config` with a `source:` block runs it.
///
/// How it stays exact:
///   - The slot is created with an exported snapshot (CREATE_REPLICATION_SLOT
///     ... LOGICAL pgoutput (SNAPSHOT 'export')); every table is read under
///     that snapshot (SET TRANSACTION SNAPSHOT, COPY ... TO STDOUT (FORMAT
///     binary): pg_value.h's AppendPgBinary) before
///     START_REPLICATION. A transaction whose commit record lies before the
///     slot's consistent point C is in the snapshot, one at or after it is
///     streamed: snapshot rows get position C, a streamed transaction the
///     position commit_lsn + 1, and a table skips what is at or before its
///     snapshot's position.
///   - A table's snapshot is committed whole, in one Iceberg commit: the
///     first Read reads every snapshot before returning, and a stop during it
///     is an error with nothing committed (the next run starts over: a slot
///     that no commit of this sink covers is dropped and created again).
///   - Rows of a transaction are handed to the sinks as they arrive, and Read
///     returns only at transaction boundaries, so a commit (one Iceberg
///     snapshot per table) never splits a PostgreSQL transaction.
///   - Each commit stores its position in the snapshot summary
///     (`floe.source-position`: {"source":"postgres","system":..,"database":..,
///     "slot":..,"lsn":"X/Y","position":N}, and `floe.input-position`); the
///     slot's confirmed flush position is advanced (a standby status update)
///     only after every table's commit. A relaunch streams from the slot's
///     confirmed position; each table skips what its own token covers.
///   - A slot that is gone or invalidated while a table holds commits from it
///     is an error naming both: never a silent new snapshot. A table of the
///     source that holds no commit of the sink while the slot exists (a kill
///     between two tables' commits, or a table added to the source) gets its
///     own snapshot, under a TEMPORARY slot's exported snapshot, and skips the
///     streamed transactions before that slot's consistent point.
///
///   - The snapshot reads each table in chunks (ranges of its primary key's
///     first column) on `snapshot_connections` connections that all imported
///     the exported snapshot; its rows go to the sink as new keys
///     (ChangeSink::WriteInserts: straight to data files), and the loop
///     commits them as soon as they are read (Source::commit_due).
///   - A changed column list (a Relation message) or a TRUNCATE commits the
///     window first (the transactions before the one that holds it; refused
///     when rows of that transaction already reached a sink), then evolves
///     the Iceberg schema (added columns, Iceberg's type promotions; a
///     dropped column stays, null) or empties the table, and opens a new
///     sink for the table.
///
///   - An unchanged TOASTed value ('u'): with REPLICA IDENTITY FULL the old
///     row carries it; with DEFAULT it comes from the key's newest row — in
///     the transaction's own rows, or read back from the Iceberg table
///     through the sink's key index (ChangeSink::ReadCommitted; the window
///     is committed first when an earlier transaction of it changed the
///     key). Never a placeholder.
///
///   - `startup: snapshot` reads the snapshot only: under a TEMPORARY slot's
///     exported snapshot (the slot is gone when its connection closes, also
///     when floe is killed: nothing pins WAL afterwards), committed with that
///     slot's consistent point, and the run ends. No publication is made and
///     the slot named `slot` is neither created nor touched (it only names
///     the input in the commits). A table that holds a commit of the sink
///     already is not read again.
///   - The heartbeat (`heartbeat_interval_ms`): every interval a standby
///     status update asks the server for a keepalive; when every transaction
///     received so far is committed (none is open, none handed over since
///     the last commit), the slot's confirmed position moves to the WAL end
///     the last keepalive reported: everything before it was decoded and is
///     either committed or of no table of the source, so a relaunch (which
///     streams from there, each table skipping what its token covers) misses
///     nothing. An idle source's slot so keeps up with the WAL of other
///     tables and databases between two commits.
///
/// Not done (refused by name): a type change Iceberg does not allow as a
/// promotion; a schema change, TRUNCATE or unchanged TOAST value in a
/// transaction so large that its rows reached a sink before it.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/pgsrc/pg_value.h"
#include "floe/sink/change_sink.h"
#include "floe/sink/streaming_job.h"
#include "floe/sink/write_config.h"
#include "floe/util/status.h"

namespace floe::pgsrc {

/// The `source:` block of `floe write --config` (type: postgres).
struct PgSourceConfig {
  /// libpq connection string or URI (`postgresql://user@host:port/db`; a
  /// `jdbc:` prefix is dropped).
  std::string connection;
  /// `schema.table` or `table` (schema public).
  std::vector<std::string> tables;
  /// Reused when it exists, else created FOR TABLE the tables. Default
  /// `floe_<slot>`.
  std::string publication;
  /// No `tables`, a `publication`: the tables are the publication's (it
  /// must exist), read when the run starts.
  bool tables_from_publication = false;
  std::string slot;
  /// `initial`: snapshot, then stream; `latest-offset`: stream only (no
  /// snapshot); `snapshot`: the snapshot only, then the run ends (see above).
  std::string startup = "initial";
  /// Iceberg namespace of the tables (`NS.<pg table name>`); with one table
  /// the write's `table` may name it instead.
  std::string iceberg_namespace;
  /// The snapshot reads a table in chunks of about this many rows (ranges
  /// of its primary key's first column; Flink CDC's
  /// `scan.incremental.snapshot.chunk.size`, whose default this is) ...
  int64_t snapshot_chunk_size = 8096;
  /// ... on this many connections at once, each under the slot's exported
  /// snapshot.
  int snapshot_connections = 2;
  /// A TRUNCATE of a replicated table: `apply` empties the Iceberg table;
  /// `refuse` stops the replication with an error naming the table.
  std::string truncate = "apply";
  /// Every this many milliseconds a standby status update (the heartbeat,
  /// see above; Flink CDC's `heartbeat.interval.ms`); 0: only after commits
  /// and when the server asks.
  int64_t heartbeat_interval_ms = 10000;
  /// Whether the Iceberg table takes the PostgreSQL table's added and
  /// widened columns. false (floe sql: the user declared the table): such a
  /// change stops the replication with an error naming the column.
  bool evolve_schema = true;

  /// Reads the block; unknown keys and bad values are errors naming them.
  static Result<PgSourceConfig> FromMap(const std::map<std::string, std::string>& block, std::string_view origin);
};

struct PgWriteOptions {
  const sink::Cancellation* cancel = nullptr;
  /// After every commit: one JSON line (the LSN and each table's stats).
  std::function<Status(const std::string& json)> on_commit;
  std::function<void(const sink::JobProgress&)> on_progress;
  /// A line about the tables (a schema evolved, a table truncated).
  std::function<Status(const std::string& line)> on_note;
};

/// Replicates until cancelled (or an error). `config` gives the catalog,
/// the write options (`triggering_frequency_seconds`, default 10, `sink_id`,
/// default `pg-<slot>`) and, with one table, the Iceberg table.
Status RunPostgresWrite(const sink::WriteConfig& config, catalog::Catalog* catalog, const PgSourceConfig& source,
                        sink::ChangeSinkOptions sink_options, const PgWriteOptions& options);

/// A PostgreSQL table as its catalog describes it.
struct PgTableInfo {
  std::string schema_name, name;
  std::vector<PgColumn> columns;  ///< in attnum order; `key`: part of the primary key
};

/// The plain tables (not in pg_catalog / information_schema) whose schema
/// and name each match a regular expression whole (PostgreSQL's `~`,
/// anchored), with their columns; sorted by schema and name.
Result<std::vector<PgTableInfo>> FindPgTables(const std::string& connection, const std::string& schema_regex,
                                              const std::string& table_regex);

/// "X/Y" to a number, and back.
Result<uint64_t> ParseLsn(std::string_view text);
std::string FormatLsn(uint64_t lsn);

}  // namespace floe::pgsrc
