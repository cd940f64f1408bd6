/// \file
/// Flink CDC's `postgres-cdc` connector, as a source of `floe sql`, over the
/// PostgreSQL source of `floe write` (pgsrc/pg_source.h). Flink CDC's option
/// names:
///
///   hostname, port (5432), username, password, database-name, schema-name and
///   table-name (regular expressions matched against whole names: exactly one
///   PostgreSQL table), slot.name (required), decoding.plugin.name (pgoutput,
///   floe's default too; decoderbufs and wal2json are refused by name),
///   scan.startup.mode (initial, the default | latest-offset | snapshot),
///   scan.incremental.snapshot.enabled (true: the chunked snapshot on two
///   connections; false: one COPY of the whole table),
///   scan.incremental.snapshot.chunk.size (the source's snapshot_chunk_size,
///   default 8096), heartbeat.interval.ms (a Flink duration, default 30s; 0:
///   none; the source's heartbeat_interval_ms), connect.timeout (libpq's
///   connect_timeout, default 30s), changelog-mode (all, the default | upsert:
///   the Iceberg table applies the changes by its key either way, so both
///   end with the same rows), debezium.publication.name (the publication,
///   default floe_<slot.name>).
///
/// Refused by name as not supported yet: other debezium.* properties (floe
/// runs no Debezium), scan.snapshot.fetch.size (the snapshot is a COPY),
/// connect.max-retries, connection.pool.size, chunk-meta.group.size,
/// scan.newly-added-table.enabled, the chunk-key options and the other
/// incremental-snapshot tuning keys, startup modes other than the three;
/// metadata columns (every connector's); unknown keys get Flink's
/// "Unsupported options found" text.
///
/// The table needs a PRIMARY KEY (Flink CDC's incremental snapshot does),
/// equal to the PostgreSQL table's; its columns must be every column of the
/// PostgreSQL table (by name, any order; a subset is refused: the source
/// reads whole rows), each with the Flink type its PostgreSQL type maps to
/// (pgsrc/pg_value.h). Only `INSERT INTO <iceberg table> SELECT * FROM <it>`
/// (or the Iceberg table's columns in order) runs: pgsrc::RunPostgresWrite
/// into the Iceberg table, whose columns and PRIMARY KEY must be the
/// table's; floe never adds columns to it (a column added in PostgreSQL
/// later stops the job, naming it). A SELECT, an INSERT into another
/// connector or into the table are refused as not supported yet.
#pragma once

#include <memory>
#include <string>

#include "floe/pgsrc/pg_source.h"
#include "floe/sqlengine/connector.h"

namespace floe::sqlengine {

std::shared_ptr<const Connector> MakePostgresCdcConnector();

/// Whether `table` is a table of the `postgres-cdc` connector.
bool IsPostgresCdcTable(const TableHandle& table);

/// A postgres-cdc table's source: the source's settings and the patterns.
struct PostgresCdcSource {
  pgsrc::PgSourceConfig config;  ///< all but `tables`
  std::string schema_regex, table_regex;
};

/// The table's options, checked (no connection made).
Result<PostgresCdcSource> PostgresCdcSourceOf(const TableHandle& table);

/// Connects: finds the one PostgreSQL table the patterns match and checks
/// the Flink table's columns and PRIMARY KEY against it; sets
/// `source->config.tables`.
Status ResolvePostgresCdcTable(const TableHandle& table, PostgresCdcSource* source);

}  // namespace floe::sqlengine
