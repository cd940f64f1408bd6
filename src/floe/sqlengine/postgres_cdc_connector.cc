// Flink CDC's `postgres-cdc` connector over the PostgreSQL source of
// `floe write` (see postgres_cdc_connector.h).
#include "floe/sqlengine/postgres_cdc_connector.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "floe/config/duration.h"
#include "floe/pgsrc/pg_value.h"

namespace floe::sqlengine {

namespace {

constexpr const char* kPostgresCdc = "postgres-cdc";

// Flink CDC's option names (its PostgresSourceOptions / JdbcSourceOptions).
constexpr const char* kHostname = "hostname";
constexpr const char* kPort = "port";
constexpr const char* kUsername = "username";
constexpr const char* kPassword = "password";
constexpr const char* kDatabase = "database-name";
constexpr const char* kSchema = "schema-name";
constexpr const char* kTable = "table-name";
constexpr const char* kSlot = "slot.name";
constexpr const char* kPlugin = "decoding.plugin.name";
constexpr const char* kChangelogMode = "changelog-mode";
constexpr const char* kHeartbeat = "heartbeat.interval.ms";
constexpr const char* kPgStartupMode = "scan.startup.mode";
constexpr const char* kIncremental = "scan.incremental.snapshot.enabled";
constexpr const char* kChunkSize = "scan.incremental.snapshot.chunk.size";
constexpr const char* kConnectTimeout = "connect.timeout";
constexpr const char* kDebeziumPrefix = "debezium.";
constexpr const char* kPublication = "debezium.publication.name";

// Flink CDC options floe does not implement: refused by name.
constexpr const char* kNotYet[] = {"scan.snapshot.fetch.size",
                                   "connect.max-retries",
                                   "connection.pool.size",
                                   "chunk-meta.group.size",
                                   "scan.newly-added-table.enabled",
                                   "chunk-key.even-distribution.factor.upper-bound",
                                   "chunk-key.even-distribution.factor.lower-bound",
                                   "scan.incremental.snapshot.chunk.key-column",
                                   "scan.incremental.close-idle-reader.enabled",
                                   "scan.incremental.snapshot.backfill.skip",
                                   "scan.lsn-commit.checkpoints-num-delay",
                                   "scan.include-partitioned-tables.enabled",
                                   "scan.read-changelog-as-append-only.enabled",
                                   "scan.startup.specific-offset.file",
                                   "scan.startup.specific-offset.pos",
                                   "scan.startup.timestamp-millis"};

Error PgNotYet(std::string_view what) {
  return Error{ErrorKind::kUnsupported, fmt::format("floe.UnsupportedException: {} is not supported yet", what),
               false};
}

std::string PgOption(const TableHandle& t, const char* key, std::string fallback = {}) {
  auto it = t.options.find(key);
  return it == t.options.end() ? fallback : it->second;
}

std::string PgLower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// A libpq keyword value: quoted, ' and \ escaped.
std::string Quoted(const std::string& v) {
  std::string out = "'";
  for (char c : v) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string Names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

class PostgresCdcConnector final : public Connector {
 public:
  std::string identifier() const override { return kPostgresCdc; }

  Status Validate(const TableHandle& table, bool for_sink) const override {
    std::set<std::string> optional = {kPort, kPlugin, kChangelogMode, kHeartbeat, kPgStartupMode, kIncremental,
                                      kChunkSize, kConnectTimeout, "debezium.#"};
    for (const char* k : kNotYet) optional.insert(k);
    FLOE_RETURN_IF_ERROR(CheckConnectorOptions(
        identifier(), table.options,
        {"connector", kHostname, kUsername, kPassword, kDatabase, kSchema, kTable, kSlot}, optional));
    if (for_sink) {
      return Fail(PgNotYet(fmt::format("Writing to a '{}' table (INSERT INTO {}): the {} connector is a source only",
                                     identifier(), table.FullName(), identifier())));
    }
    auto source = PostgresCdcSourceOf(table);
    if (!source) return Fail(std::move(source).error());
    return Ok();
  }

  Result<std::unique_ptr<RowSource>> OpenSource(const TableHandle& table, const ReadRequest&,
                                                const EngineContext&) const override {
    FLOE_RETURN_IF_ERROR(Validate(table, false));
    return Fail(PgNotYet(fmt::format("Reading the '{}' table {} other than by INSERT INTO <an Iceberg table> SELECT * "
                                   "FROM {} (a SELECT, a query with WHERE or expressions, an INSERT into another "
                                   "connector)",
                                   identifier(), table.FullName(), table.FullName())));
  }

  Result<std::unique_ptr<RowSink>> OpenSink(const TableHandle& table, const WriteRequest&,
                                            const EngineContext&) const override {
    FLOE_RETURN_IF_ERROR(Validate(table, true));
    return Internal("unreachable");
  }

  bool ChangelogSource(const TableHandle&, const ReadRequest&, const EngineContext&) const override { return true; }
};

}  // namespace

bool IsPostgresCdcTable(const TableHandle& table) { return !table.iceberg && table.Connector() == kPostgresCdc; }

Result<PostgresCdcSource> PostgresCdcSourceOf(const TableHandle& table) {
  const std::string where = fmt::format("table {} ('connector' = '{}')", table.FullName(), kPostgresCdc);
  for (const char* key : kNotYet) {
    if (table.options.contains(key)) return Fail(PgNotYet(fmt::format("Option '{}' ({})", key, where)));
  }
  for (const auto& [k, v] : table.options) {
    if (k.starts_with(kDebeziumPrefix) && k != kPublication) {
      return Fail(PgNotYet(fmt::format("Option '{}' ({}): floe runs no Debezium; of the debezium.* properties it "
                                     "takes {} only",
                                     k, where, kPublication)));
    }
  }
  if (table.primary_key.empty()) {
    return InvalidArgument("The {} table {} needs a PRIMARY KEY (... NOT ENFORCED), the PostgreSQL table's: the "
                           "snapshot is read in chunks of it and the changes are applied by it",
                           kPostgresCdc, table.FullName());
  }
  PostgresCdcSource s;
  pgsrc::PgSourceConfig& c = s.config;
  // The connection.
  FLOE_ASSIGN_OR_RETURN(int64_t port, LongOption(table.options, kPort, 5432));
  if (port < 1 || port > 65535) return InvalidArgument("Option '{}': {} is not a port ({})", kPort, port, where);
  const std::string timeout = PgOption(table, kConnectTimeout, "30s");
  auto t = config::ParseDuration(timeout);
  if (!t) return InvalidArgument("Option '{}': '{}' is not a duration ({})", kConnectTimeout, timeout, where);
  const int64_t timeout_s = std::max<int64_t>(1, (std::chrono::duration_cast<std::chrono::milliseconds>(*t).count() + 999) / 1000);
  c.connection = fmt::format("host={} port={} user={} password={} dbname={} connect_timeout={}",
                             Quoted(PgOption(table, kHostname)), port, Quoted(PgOption(table, kUsername)),
                             Quoted(PgOption(table, kPassword)), Quoted(PgOption(table, kDatabase)), timeout_s);
  s.schema_regex = PgOption(table, kSchema);
  s.table_regex = PgOption(table, kTable);
  if (s.schema_regex.empty() || s.table_regex.empty()) {
    return InvalidArgument("Options '{}' and '{}' must name the PostgreSQL table ({})", kSchema, kTable, where);
  }
  // The slot and the stream.
  c.slot = PgOption(table, kSlot);
  if (c.slot.empty()) return InvalidArgument("Option '{}' is empty ({})", kSlot, where);
  for (char ch : c.slot) {
    if (!(std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '_')) {
      return InvalidArgument("Option '{}' = '{}' ({}): a replication slot's name has lower-case letters, digits and "
                             "_ only",
                             kSlot, c.slot, where);
    }
  }
  c.publication = PgOption(table, kPublication, "floe_" + c.slot);
  const std::string plugin = PgLower(PgOption(table, kPlugin, "pgoutput"));
  if (plugin == "decoderbufs" || plugin.starts_with("wal2json")) {
    return Fail(PgNotYet(fmt::format("'{}' = '{}' ({}): floe decodes pgoutput only", kPlugin, plugin, where)));
  }
  if (plugin != "pgoutput") {
    return InvalidArgument("Invalid value for option '{}': '{}' ({}); expected pgoutput (or decoderbufs, wal2json, "
                           "which floe does not support yet)",
                           kPlugin, plugin, where);
  }
  const std::string startup = PgLower(PgOption(table, kPgStartupMode, "initial"));
  if (startup == "initial" || startup == "latest-offset" || startup == "snapshot") {
    c.startup = startup;
  } else if (startup == "committed-offset" || startup == "earliest-offset" || startup == "specific-offset" ||
             startup == "timestamp") {
    return Fail(PgNotYet(fmt::format("'{}' = '{}' ({})", kPgStartupMode, startup, where)));
  } else {
    return InvalidArgument("Invalid value for option '{}': '{}' ({}); expected initial, latest-offset or snapshot",
                           kPgStartupMode, startup, where);
  }
  const std::string mode = PgLower(PgOption(table, kChangelogMode, "all"));
  if (mode != "all" && mode != "upsert") {
    return InvalidArgument("Invalid value for option '{}': '{}' ({}); expected all or upsert", kChangelogMode, mode,
                           where);
  }
  const std::string heartbeat = PgOption(table, kHeartbeat, "30s");
  auto hb = config::ParseDuration(heartbeat);
  if (!hb) return InvalidArgument("Option '{}': '{}' is not a duration ({})", kHeartbeat, heartbeat, where);
  c.heartbeat_interval_ms = std::chrono::duration_cast<std::chrono::milliseconds>(*hb).count();
  // The snapshot.
  const std::string incremental = PgLower(PgOption(table, kIncremental, "true"));
  if (incremental != "true" && incremental != "false") {
    return InvalidArgument("Invalid value for option '{}': '{}' ({}); expected true or false", kIncremental,
                           incremental, where);
  }
  FLOE_ASSIGN_OR_RETURN(c.snapshot_chunk_size, LongOption(table.options, kChunkSize, 8096));
  if (c.snapshot_chunk_size < 1) {
    return InvalidArgument("Option '{}': {} (give a whole number of rows, 1 or more) ({})", kChunkSize,
                           c.snapshot_chunk_size, where);
  }
  if (incremental == "false") {
    if (table.options.contains(kChunkSize)) {
      return InvalidArgument("Option '{}' needs '{}' = 'true' ({})", kChunkSize, kIncremental, where);
    }
    c.snapshot_chunk_size = 0;  // one COPY of the whole table ...
    c.snapshot_connections = 1;  // ... on one connection
  }
  c.evolve_schema = false;  // the Iceberg table is the user's
  return s;
}

Status ResolvePostgresCdcTable(const TableHandle& table, PostgresCdcSource* source) {
  FLOE_ASSIGN_OR_RETURN(std::vector<pgsrc::PgTableInfo> found,
                        pgsrc::FindPgTables(source->config.connection, source->schema_regex, source->table_regex));
  if (found.empty()) {
    return InvalidArgument("The {} table {}: no PostgreSQL table matches '{}' = '{}' and '{}' = '{}' in database {}",
                           kPostgresCdc, table.FullName(), kSchema, source->schema_regex, kTable, source->table_regex,
                           PgOption(table, kDatabase));
  }
  if (found.size() > 1) {
    std::vector<std::string> names;
    for (const auto& t : found) names.push_back(t.schema_name + "." + t.name);
    return Fail(PgNotYet(fmt::format("Reading several PostgreSQL tables into one table ({} matches {}: '{}' = '{}', "
                                   "'{}' = '{}')",
                                   table.FullName(), Names(names), kSchema, source->schema_regex, kTable,
                                   source->table_regex)));
  }
  const pgsrc::PgTableInfo& pg = found.front();
  const std::string qualified = pg.schema_name + "." + pg.name;
  // The primary key: the PostgreSQL table's.
  std::vector<std::string> pg_key;
  for (const auto& col : pg.columns) {
    if (col.key) pg_key.push_back(col.name);
  }
  std::vector<std::string> flink_key = table.primary_key, sorted_pg = pg_key;
  std::sort(flink_key.begin(), flink_key.end());
  std::sort(sorted_pg.begin(), sorted_pg.end());
  if (flink_key != sorted_pg) {
    return InvalidArgument("The PRIMARY KEY of {} ({}) is not the primary key of PostgreSQL table {} ({})",
                           table.FullName(), Names(table.primary_key), qualified,
                           pg_key.empty() ? std::string("none") : Names(pg_key));
  }
  // The columns: every PostgreSQL column, by name, typed as it maps.
  for (const ColumnInfo& info : table.schema.columns) {
    auto it = std::find_if(pg.columns.begin(), pg.columns.end(),
                           [&](const pgsrc::PgColumn& c) { return c.name == info.name; });
    if (it == pg.columns.end()) {
      std::vector<std::string> names;
      for (const auto& c : pg.columns) names.push_back(c.name);
      return InvalidArgument("Column '{}' of {} is not a column of PostgreSQL table {} (its columns: {})", info.name,
                             table.FullName(), qualified, Names(names));
    }
    int32_t scratch = 1 << 20;
    TypePtr want = pgsrc::IcebergTypeOf(*it, &scratch);
    if (!SameShape(*want, *info.physical)) {
      return InvalidArgument("Column '{}' of {} is {}, but PostgreSQL table {} column {} maps to {} (Iceberg {}): "
                             "declare it so",
                             info.name, table.FullName(), TypeSummary(info.type), qualified, it->name,
                             TypeSummary(LogicalOf(*want, true)), want->ToString());
    }
  }
  std::vector<std::string> missing;
  for (const auto& c : pg.columns) {
    if (std::none_of(table.schema.columns.begin(), table.schema.columns.end(),
                     [&](const ColumnInfo& info) { return info.name == c.name; })) {
      missing.push_back(c.name);
    }
  }
  if (!missing.empty()) {
    return Fail(PgNotYet(fmt::format("A {} table declaring some of the PostgreSQL table's columns ({} lacks {} of {}: "
                                   "the source reads whole rows; declare every column)",
                                   kPostgresCdc, table.FullName(), Names(missing), qualified)));
  }
  // Quoted: the source looks the name up with to_regclass.
  auto ident = [](const std::string& n) {
    std::string out = "\"";
    for (char ch : n) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return out + "\"";
  };
  source->config.tables = {ident(pg.schema_name) + "." + ident(pg.name)};
  return Ok();
}

std::shared_ptr<const Connector> MakePostgresCdcConnector() { return std::make_shared<PostgresCdcConnector>(); }

}  // namespace floe::sqlengine
