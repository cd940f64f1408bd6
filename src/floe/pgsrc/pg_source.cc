// PostgreSQL as a source (pg_source.h): snapshot, then logical replication.
#include "floe/pgsrc/pg_source.h"

#include <libpq-fe.h>
#include <poll.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <unordered_map>
#include <unordered_set>
#include <memory>
#include <mutex>
#include <thread>

#include "floe/catalog/identifier.h"
#include "floe/config/options.h"
#include "floe/iceberg/table_updates.h"
#include "floe/pgsrc/pg_value.h"
#include "floe/sink/projection.h"
#include "floe/table/table.h"
#include "floe/types/column_ops.h"

namespace floe::pgsrc {
namespace {

using Clock = std::chrono::steady_clock;

struct ConnDeleter {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using Conn = std::unique_ptr<PGconn, ConnDeleter>;
struct ResDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Res = std::unique_ptr<PGresult, ResDeleter>;

std::string ConnError(PGconn* c) {
  std::string m = PQerrorMessage(c);
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return m;
}

Result<Conn> Connect(const std::string& conninfo, bool replication) {
  std::string info = conninfo;
  if (info.starts_with("jdbc:")) info = info.substr(5);
  // Text forms floe parses: ISO dates, UTC, floats that round-trip, hex bytea.
  const char* keys[] = {"dbname", "replication", "options", "application_name", nullptr};
  const char* vals[] = {info.c_str(), replication ? "database" : nullptr,
                        "-c datestyle=ISO -c timezone=UTC -c extra_float_digits=3 -c bytea_output=hex "
                        "-c intervalstyle=postgres",
                        "floe", nullptr};
  if (!replication) {
    keys[1] = "options";
    vals[1] = vals[2];
    keys[2] = "application_name";
    vals[2] = "floe";
    keys[3] = nullptr;
    vals[3] = nullptr;
  }
  Conn c(PQconnectdbParams(keys, vals, 1));
  if (!c || PQstatus(c.get()) != CONNECTION_OK) {
    return IoError("PostgreSQL: cannot connect ({}): {}", replication ? "replication" : "query",
                   c ? ConnError(c.get()) : "out of memory");
  }
  return c;
}

Result<Res> Exec(PGconn* c, const std::string& sql, ExecStatusType expect = PGRES_TUPLES_OK) {
  Res r(PQexec(c, sql.c_str()));
  const ExecStatusType st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (st != expect && !(expect == PGRES_TUPLES_OK && st == PGRES_COMMAND_OK)) {
    std::string m = r ? PQresultErrorMessage(r.get()) : ConnError(c);
    while (!m.empty() && m.back() == '\n') m.pop_back();
    return IoError("PostgreSQL: {}: {}", sql.substr(0, 200), m);
  }
  return r;
}

std::string Literal(PGconn* c, std::string_view s) {
  char* q = PQescapeLiteral(c, s.data(), s.size());
  std::string out = q ? q : "''";
  PQfreemem(q);
  return out;
}
std::string Ident(PGconn* c, std::string_view s) {
  char* q = PQescapeIdentifier(c, s.data(), s.size());
  std::string out = q ? q : "\"\"";
  PQfreemem(q);
  return out;
}

// Big-endian reads of a pgoutput message.
struct Reader {
  const char* p;
  const char* end;
  bool ok = true;
  bool Has(size_t n) {
    if (static_cast<size_t>(end - p) < n) ok = false;
    return ok;
  }
  uint8_t U8() { return Has(1) ? static_cast<uint8_t>(*p++) : 0; }
  uint16_t U16() { return static_cast<uint16_t>((uint16_t(U8()) << 8) | U8()); }
  uint32_t U32() { return (uint32_t(U16()) << 16) | U16(); }
  uint64_t U64() { return (uint64_t(U32()) << 32) | U32(); }
  std::string_view Str() {
    const void* z = std::memchr(p, 0, static_cast<size_t>(end - p));
    if (!z) {
      ok = false;
      return {};
    }
    std::string_view s(p, static_cast<size_t>(static_cast<const char*>(z) - p));
    p = static_cast<const char*>(z) + 1;
    return s;
  }
  std::string_view Bytes(size_t n) {
    if (!Has(n)) return {};
    std::string_view s(p, n);
    p += n;
    return s;
  }
};

void PutU64(std::string* out, uint64_t v) {
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>((v >> (i * 8)) & 0xff));
}

// One value of a tuple: 'n' null, 'u' unchanged TOAST, 't' text.
struct TupleValue {
  char kind = 'n';
  std::string_view text;
};

Result<std::vector<TupleValue>> ReadTuple(Reader& r) {
  const uint16_t n = r.U16();
  std::vector<TupleValue> out(n);
  for (uint16_t i = 0; i < n && r.ok; ++i) {
    out[i].kind = static_cast<char>(r.U8());
    if (out[i].kind == 't') {
      const uint32_t len = r.U32();
      out[i].text = r.Bytes(len);
    } else if (out[i].kind != 'n' && out[i].kind != 'u') {
      return Corrupt("pgoutput: tuple value of kind '{}' (proto_version 1 sends n, u, t)", out[i].kind);
    }
  }
  if (!r.ok) return Corrupt("pgoutput: a tuple is cut short");
  return out;
}

// One replicated table.
struct Table {
  std::string schema_name, name;  // PostgreSQL
  std::string iceberg;            // NS.TABLE
  uint32_t relid = 0;
  bool identity_full = false;
  std::vector<PgColumn> columns;
  SchemaPtr schema;
  std::unique_ptr<sink::ChangeSink> sink;
  std::optional<int64_t> stored;  // the position its newest token covers
  int64_t skip_upto = 0;          // transactions at or before this position are in the table already
  bool needs_snapshot = false;
  Batch batch;                    // rows not yet handed to the sink
  bool relation_checked = false;
  int chunk_column = -1;          // the primary key's first column: the snapshot's chunks are its ranges
  // For unchanged TOAST values: the key (KeyText) of each row of `batch`
  // -> its last row there (-1: deleted); the hashes of the keys of rows
  // handed to the sink since the last commit.
  std::unordered_map<std::string, int64_t> batch_rows;
  std::unordered_set<uint64_t> window_keys;

  std::string qualified() const { return schema_name + "." + name; }
};

class PgSource;

// The Iceberg schema of a table's PostgreSQL columns (ids 1..n, then list
// elements); the primary key's columns are the identifier fields.
SchemaPtr SchemaOf(const std::vector<PgColumn>& columns) {
  std::vector<NestedField> fields;
  std::vector<int32_t> key_ids;
  int32_t next_id = static_cast<int32_t>(columns.size()) + 1;
  for (size_t i = 0; i < columns.size(); ++i) {
    const int32_t id = static_cast<int32_t>(i) + 1;
    if (columns[i].key) key_ids.push_back(id);
    fields.push_back({id, columns[i].name, columns[i].key, IcebergTypeOf(columns[i], &next_id), ""});
  }
  return std::make_shared<Schema>(std::move(fields), 0, key_ids);
}

}  // namespace

Result<uint64_t> ParseLsn(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 >= text.size()) {
    return InvalidArgument("'{}' is not an LSN (X/Y in hex)", text);
  }
  uint64_t hi = 0, lo = 0;
  auto hex = [](std::string_view s, uint64_t* v) {
    if (s.size() > 8) return false;
    for (char c : s) {
      int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
              : (c >= 'A' && c <= 'F')                   ? c - 'A' + 10
              : (c >= 'a' && c <= 'f')                   ? c - 'a' + 10
                                                         : -1;
      if (d < 0) return false;
      *v = *v * 16 + static_cast<uint64_t>(d);
    }
    return true;
  };
  if (!hex(text.substr(0, slash), &hi) || !hex(text.substr(slash + 1), &lo)) {
    return InvalidArgument("'{}' is not an LSN (X/Y in hex)", text);
  }
  return (hi << 32) | lo;
}

std::string FormatLsn(uint64_t lsn) { return fmt::format("{:X}/{:X}", lsn >> 32, lsn & 0xffffffffu); }

Result<PgSourceConfig> PgSourceConfig::FromMap(const std::map<std::string, std::string>& block,
                                              std::string_view origin) {
  PgSourceConfig c;
  static const char* kKeys[] = {"type",      "connection",          "tables",
                                "publication", "slot",              "startup",
                                "namespace", "snapshot_chunk_size", "snapshot_connections",
                                "truncate",  "heartbeat_interval_ms"};
  for (const auto& [k, v] : block) {
    if (std::find(std::begin(kKeys), std::end(kKeys), k) == std::end(kKeys)) {
      return InvalidArgument("{}: source key '{}' is unknown (valid keys: type, connection, tables, publication, "
                             "slot, startup, namespace, snapshot_chunk_size, snapshot_connections, truncate, "
                             "heartbeat_interval_ms)",
                             origin, k);
    }
  }
  auto get = [&](const char* k) {
    auto it = block.find(k);
    return it == block.end() ? std::string() : it->second;
  };
  if (get("type") != "postgres") {
    return InvalidArgument("{}: source type '{}' is not known (the source types are postgres and kafka)", origin,
                           get("type"));
  }
  c.connection = get("connection");
  if (c.connection.empty()) return InvalidArgument("{}: source: give 'connection' (a libpq connection string)", origin);
  for (auto& t : sink::SplitTopLevelCommas(get("tables"))) {
    if (!t.empty()) c.tables.push_back(t);
  }
  if (c.tables.empty()) {
    if (get("publication").empty()) {
      return InvalidArgument("{}: source: give 'tables' (PostgreSQL tables to replicate) or 'publication' (an existing "
                             "publication: its tables are replicated)",
                             origin);
    }
    c.tables_from_publication = true;
  }
  c.slot = get("slot");
  if (c.slot.empty()) return InvalidArgument("{}: source: give 'slot' (the replication slot's name)", origin);
  for (char ch : c.slot) {
    if (!(std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '_')) {
      return InvalidArgument("{}: source slot '{}': a slot name has lower-case letters, digits and _ only", origin,
                             c.slot);
    }
  }
  c.publication = get("publication");
  if (c.publication.empty()) c.publication = "floe_" + c.slot;
  if (!get("startup").empty()) c.startup = get("startup");
  if (c.startup != "initial" && c.startup != "latest-offset" && c.startup != "snapshot") {
    return InvalidArgument("{}: source startup '{}': valid values are initial, latest-offset, snapshot", origin,
                           c.startup);
  }
  c.iceberg_namespace = get("namespace");
  if (!get("truncate").empty()) c.truncate = get("truncate");
  if (c.truncate != "apply" && c.truncate != "refuse") {
    return InvalidArgument("{}: source truncate '{}': valid values are apply, refuse", origin, c.truncate);
  }
  auto number = [&](const char* key, int64_t lo, int64_t hi, auto* out) -> Status {
    const std::string v = get(key);
    if (v.empty()) return Ok();
    int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size() || n < lo || n > hi) {
      return InvalidArgument("{}: source {} '{}': give a whole number from {} to {}", origin, key, v, lo, hi);
    }
    *out = static_cast<std::remove_pointer_t<decltype(out)>>(n);
    return Ok();
  };
  FLOE_RETURN_IF_ERROR(number("snapshot_chunk_size", 1, int64_t{1} << 40, &c.snapshot_chunk_size));
  FLOE_RETURN_IF_ERROR(number("snapshot_connections", 1, 64, &c.snapshot_connections));
  FLOE_RETURN_IF_ERROR(number("heartbeat_interval_ms", 0, int64_t{24} * 3600 * 1000, &c.heartbeat_interval_ms));
  return c;
}

namespace {

// The replication stream and the tables; a Source of the streaming loop.
class PgSource final : public sink::Source {
 public:
  PgSource(PgSourceConfig cfg, std::vector<std::unique_ptr<Table>>* tables) : cfg_(std::move(cfg)), tables_(*tables) {}

  std::string name() const override { return "postgres:" + cfg_.slot; }
  bool bounded() const override { return false; }
  Status Open(SchemaPtr, sink::SourceOutput) override { return Ok(); }
  Result<std::string> Describe(int64_t) override { return Internal("pgsrc: Describe is per table"); }
  Status Resume(std::string_view, std::string_view, int64_t) override { return Ok(); }
  bool commit_due() override { return std::exchange(commit_now_, false); }

  // What a change of a table's layout or a TRUNCATE needs: the catalog, a
  // commit of the window (every transaction handed over), a sink for a
  // table (its schema bound), and where notes go.
  void SetHooks(catalog::Catalog* catalog, std::function<Status()> commit, std::function<Status(Table*)> open_sink,
                std::function<Status(const std::string&)> note) {
    catalog_ = catalog;
    commit_ = std::move(commit);
    open_sink_ = std::move(open_sink);
    note_ = std::move(note);
  }
  // Makes the Iceberg table take the PostgreSQL table's columns as they are
  // now (added, widened; dropped ones stay, null), or refuses naming the
  // column; sets the sink's input schema.
  Status BindTable(Table* t);

  // Connections, identity, publication, the tables' catalog entries. Before the sinks open.
  Status Connect();
  // After the sinks opened (the tokens are known): the slot, the snapshots' plan.
  Status Prepare();
  Result<sink::SourceState> Read(sink::SourceClock::time_point deadline, const sink::Cancellation* cancel) override;

  // After every table committed the window: advance the slot.
  Status Committed();
  int64_t handed() const { return handed_pos_; }
  std::string DescribePosition(int64_t position) const {
    nlohmann::ordered_json j;
    j["source"] = "postgres";
    j["system"] = system_id_;
    j["database"] = database_;
    j["slot"] = cfg_.slot;
    j["lsn"] = FormatLsn(static_cast<uint64_t>(position));
    j["position"] = position;
    return j.dump();
  }
  Status CheckStored(Table* t, std::string_view stored, int64_t position) {
    nlohmann::json j = nlohmann::json::parse(stored, nullptr, false);
    auto str = [&](const char* k) {
      return j.is_object() && j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string();
    };
    if (str("source") != "postgres" || str("system") != system_id_ || str("database") != database_ ||
        str("slot") != cfg_.slot) {
      return InvalidArgument(
          "table {} holds commits of this sink from another input ({}), not from PostgreSQL system {} database {} "
          "slot {}: give another sink_id or table",
          t->iceberg, stored.empty() ? "no source position" : std::string(stored), system_id_, database_, cfg_.slot);
    }
    t->stored = position;
    return Ok();
  }

 private:
  Status LoadTable(Table* t);
  Status ChangeLayout(Table* t, std::vector<PgColumn> columns);
  Status Truncate(Table* t);
  Status Note(const std::string& line) { return note_ ? note_(line) : Ok(); }
  Status EnsurePublication();
  Status Snapshot(const std::vector<Table*>& tables, const std::string& snapshot, int64_t position,
                  const sink::Cancellation* cancel);
  Status StartReplication();
  Status HandleMessage(const char* data, size_t len);
  Status HandleChange(char kind, Reader& r);
  // `old`: the whole old row (REPLICA IDENTITY FULL); `old_key`: the old
  // key of an update that moved it (where unchanged TOAST values are found).
  Status AddRow(Table* t, RowKind kind, const std::vector<TupleValue>& values, const std::vector<TupleValue>* old,
                const std::vector<TupleValue>* old_key = nullptr);
  Status Flush(Table* t);
  // `reply`: ask the server for a keepalive (its WAL end) at once.
  Status SendStatus(bool reply);
  Status Heartbeat();
  bool HeartbeatDue(Clock::time_point now) const {
    return streaming_ && cfg_.heartbeat_interval_ms > 0 &&
           now - last_status_ >= std::chrono::milliseconds(cfg_.heartbeat_interval_ms);
  }
  Table* ByRelid(uint32_t relid) {
    for (auto& t : tables_) {
      if (t->relid == relid) return t.get();
    }
    return nullptr;
  }

  PgSourceConfig cfg_;
  std::vector<std::unique_ptr<Table>>& tables_;
  catalog::Catalog* catalog_ = nullptr;
  std::function<Status()> commit_;
  std::function<Status(Table*)> open_sink_;
  std::function<Status(const std::string&)> note_;
  bool txn_flushed_ = false;   // rows of the open transaction reached a sink
  std::map<uint32_t, std::pair<uint32_t, bool>> type_info_;  // type oid -> (element oid, is array)
  Conn query_, repl_;
  std::string system_id_, database_;
  std::string slot_snapshot_;  // the exported snapshot of a slot created now
  int64_t slot_point_ = 0;
  bool streaming_ = false;
  bool commit_now_ = false;    // a snapshot was read: the loop commits it at once
  bool in_txn_ = false;
  int64_t txn_pos_ = 0;        // commit_lsn + 1 of the open transaction
  int64_t change_lsn_ = 0;     // the LSN of the message being handled
  int64_t handed_pos_ = 0;     // position of the last transaction handed to the sinks
  uint64_t handed_end_ = 0;    // its end LSN
  uint64_t confirmed_ = 0;     // flushed to the slot
  uint64_t idle_end_ = 0;      // a keepalive's WAL end while nothing is pending
  int64_t handed_txns_ = 0;    // transactions handed to the sinks (their Commit message read) ...
  int64_t committed_txns_ = 0; // ... and how many of them were when the last commit ended
  bool snapshot_done_ = false; // startup snapshot: read (the next Read ends the run)
  Clock::time_point last_status_ = Clock::now();
};

// A table's columns from the catalog (attnum order); `chunk_column`: the
// index of its primary key's first column (else unchanged).
Result<std::vector<PgColumn>> ReadColumns(PGconn* c, uint32_t relid, int* chunk_column) {
  FLOE_ASSIGN_OR_RETURN(
      Res cols,
      Exec(c, fmt::format("SELECT a.attname, a.atttypid, a.atttypmod, a.attnotnull, "
                          "CASE WHEN t.typcategory = 'A' THEN t.typelem ELSE 0 END, "
                          "COALESCE(a.attnum = ANY(i.indkey), false), COALESCE(i.indkey[0] = a.attnum, false) "
                          "FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
                          "LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary "
                          "WHERE a.attrelid = {} AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
                          relid)));
  std::vector<PgColumn> out;
  const int n = PQntuples(cols.get());
  for (int i = 0; i < n; ++i) {
    PgColumn col;
    col.name = PQgetvalue(cols.get(), i, 0);
    col.type_oid = static_cast<uint32_t>(std::stoul(PQgetvalue(cols.get(), i, 1)));
    col.typmod = std::stoi(PQgetvalue(cols.get(), i, 2));
    col.not_null = std::string(PQgetvalue(cols.get(), i, 3)) == "t";
    col.elem_oid = static_cast<uint32_t>(std::stoul(PQgetvalue(cols.get(), i, 4)));
    col.key = std::string(PQgetvalue(cols.get(), i, 5)) == "t";
    if (std::string(PQgetvalue(cols.get(), i, 6)) == "t" && chunk_column) *chunk_column = i;
    out.push_back(std::move(col));
  }
  return out;
}

Status PgSource::Connect() {
  FLOE_ASSIGN_OR_RETURN(query_, pgsrc::Connect(cfg_.connection, false));
  FLOE_ASSIGN_OR_RETURN(repl_, pgsrc::Connect(cfg_.connection, true));
  FLOE_ASSIGN_OR_RETURN(Res id, Exec(repl_.get(), "IDENTIFY_SYSTEM"));
  if (PQntuples(id.get()) != 1 || PQnfields(id.get()) < 4) return Corrupt("PostgreSQL: IDENTIFY_SYSTEM answered no row");
  system_id_ = PQgetvalue(id.get(), 0, 0);
  database_ = PQgetvalue(id.get(), 0, 3);
  {
    FLOE_ASSIGN_OR_RETURN(Res wl, Exec(query_.get(), "SHOW wal_level"));
    if (std::string(PQgetvalue(wl.get(), 0, 0)) != "logical") {
      return InvalidArgument("PostgreSQL: wal_level is {}, logical replication needs wal_level = logical",
                             PQgetvalue(wl.get(), 0, 0));
    }
  }
  for (auto& t : tables_) FLOE_RETURN_IF_ERROR(LoadTable(t.get()));
  if (cfg_.startup == "snapshot") return Ok();  // nothing is streamed: no publication
  return EnsurePublication();
}

Status PgSource::LoadTable(Table* t) {
  PGconn* c = query_.get();
  const std::string given = t->name;
  FLOE_ASSIGN_OR_RETURN(Res r, Exec(c, "SELECT c.oid, n.nspname, c.relname, c.relreplident, c.relkind FROM pg_class c "
                                       "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass(" +
                                           Literal(c, given) + ")"));
  if (PQntuples(r.get()) != 1) return NotFound("PostgreSQL table {} does not exist", given);
  if (std::string(PQgetvalue(r.get(), 0, 4)) != "r") {
    return InvalidArgument("PostgreSQL relation {} is not a plain table (relkind {})", given, PQgetvalue(r.get(), 0, 4));
  }
  t->relid = static_cast<uint32_t>(std::stoul(PQgetvalue(r.get(), 0, 0)));
  t->schema_name = PQgetvalue(r.get(), 0, 1);
  t->name = PQgetvalue(r.get(), 0, 2);
  const std::string ident = PQgetvalue(r.get(), 0, 3);
  t->identity_full = ident == "f";
  if (ident == "n") return InvalidArgument("PostgreSQL table {} has REPLICA IDENTITY NOTHING: its updates and deletes "
                                           "cannot be replicated (use DEFAULT or FULL)", t->qualified());
  if (ident == "i") return Unsupported("PostgreSQL table {} has REPLICA IDENTITY USING INDEX: not supported yet (use "
                                       "DEFAULT or FULL)", t->qualified());
  FLOE_ASSIGN_OR_RETURN(t->columns, ReadColumns(c, t->relid, &t->chunk_column));
  if (std::none_of(t->columns.begin(), t->columns.end(), [](const PgColumn& col) { return col.key; })) {
    return InvalidArgument("PostgreSQL table {} has no primary key: floe needs one (it becomes the Iceberg table's "
                           "identifier fields); add one (ALTER TABLE ... ADD PRIMARY KEY)",
                           t->qualified());
  }
  t->schema = SchemaOf(t->columns);
  t->batch = Batch(t->schema);
  return Ok();
}

// How a column's Iceberg type in the table (`have`) takes values of the
// type its PostgreSQL column maps to now (`want`).
enum class Fit { kSame, kWiden, kNo };
Fit FitType(const Type& have, const Type& want) {
  if (sink::SameShape(have, want)) return Fit::kSame;
  const bool decimals = have.id == TypeId::kDecimal && want.id == TypeId::kDecimal && have.scale == want.scale;
  // Iceberg's promotions: int to long, float to double, a wider decimal precision.
  if ((have.id == TypeId::kInt && want.id == TypeId::kLong) ||
      (have.id == TypeId::kFloat && want.id == TypeId::kDouble) || (decimals && want.precision > have.precision)) {
    return Fit::kWiden;
  }
  // The other way (a relation older than a widening, or a column narrowed
  // in PostgreSQL): its values are read into the table's wider type.
  if ((have.id == TypeId::kLong && want.id == TypeId::kInt) ||
      (have.id == TypeId::kDouble && want.id == TypeId::kFloat) || (decimals && want.precision < have.precision)) {
    return Fit::kSame;
  }
  return Fit::kNo;
}

Status PgSource::BindTable(Table* t) {
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::ParseTableIdentifier(t->iceberg));
  FLOE_ASSIGN_OR_RETURN(bool exists, catalog_->TableExists(id));
  if (!exists) {
    t->schema = SchemaOf(t->columns);  // the sink creates the table from it
    return Ok();
  }
  FLOE_ASSIGN_OR_RETURN(catalog::LoadedTable loaded, catalog_->LoadTable(id));
  const SchemaPtr current = loaded.metadata.CurrentSchema();
  if (!current) return Corrupt("Iceberg table {} has no current schema", t->iceberg);
  std::vector<NestedField> fields = current->fields();
  int32_t next_id = std::max(loaded.metadata.last_column_id, current->HighestFieldId()) + 1;
  bool changed = false;
  std::vector<NestedField> input;
  std::vector<int32_t> input_keys;
  std::vector<std::string> notes;
  for (const PgColumn& col : t->columns) {
    const int idx = current->IndexOf(col.name);
    if (idx < 0) {  // added: a new optional column (ids: the column, then a list's element)
      if (!cfg_.evolve_schema) {
        return Unsupported("PostgreSQL table {} has column {}, which the Iceberg table {} does not: floe adds no "
                           "column to a table declared in floe sql (add it to the Iceberg table, ALTER TABLE ... "
                           "ADD, and relaunch)",
                           t->qualified(), col.name, t->iceberg);
      }
      const int32_t field_id = next_id++;
      TypePtr type = IcebergTypeOf(col, &next_id);
      fields.push_back({field_id, col.name, false, type, ""});
      input.push_back(fields.back());
      changed = true;
      notes.push_back("column " + col.name + " added");
      continue;
    }
    int32_t scratch = 1 << 30;
    TypePtr want = IcebergTypeOf(col, &scratch);
    NestedField& f = fields[static_cast<size_t>(idx)];
    switch (FitType(*f.type, *want)) {
      case Fit::kSame: break;
      case Fit::kWiden:
        if (!cfg_.evolve_schema) {
          return Unsupported("PostgreSQL table {} column {} maps to {} now; the Iceberg table {} holds it as {}: "
                             "floe does not widen a column of a table declared in floe sql (widen it there, ALTER "
                             "TABLE ... MODIFY, and relaunch)",
                             t->qualified(), col.name, want->ToString(), t->iceberg, f.type->ToString());
        }
        notes.push_back(fmt::format("column {} widened from {} to {}", col.name, f.type->ToString(), want->ToString()));
        f.type = want;
        changed = true;
        break;
      case Fit::kNo:
        return Unsupported("PostgreSQL table {} column {}: its type changed and maps to {} now; the Iceberg table {} "
                           "holds it as {}, and Iceberg's type promotions (int to long, float to double, a wider "
                           "decimal precision) do not turn one into the other: floe stops here (give the column "
                           "its earlier type back, or replicate into a new table)",
                           t->qualified(), col.name, want->ToString(), t->iceberg, f.type->ToString());
    }
    input.push_back(f);
    if (col.key) input_keys.push_back(f.id);
  }
  for (const NestedField& f : current->fields()) {
    const bool present = std::any_of(t->columns.begin(), t->columns.end(),
                                     [&](const PgColumn& col) { return col.name == f.name; });
    if (present) continue;
    const auto& ids = current->identifier_field_ids();
    if (std::find(ids.begin(), ids.end(), f.id) != ids.end()) {
      return Unsupported("PostgreSQL table {}: column {} of the Iceberg table's key ({}) is gone (dropped or "
                         "renamed): floe stops here",
                         t->qualified(), f.name, t->iceberg);
    }
    // Dropped (or renamed: seen as a drop and an add): the Iceberg column stays, null from here on.
  }
  if (input_keys.empty()) input_keys = current->identifier_field_ids();
  if (changed) {
    int32_t schema_id = 0;
    FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata updated,
                          iceberg::WithNewCurrentSchema(loaded.metadata, fields, &schema_id));
    FLOE_ASSIGN_OR_RETURN(catalog::LoadedTable committed, catalog_->CommitTable(loaded, std::move(updated)));
    (void)committed;
    for (const std::string& note : notes) {
      FLOE_RETURN_IF_ERROR(Note(fmt::format("PostgreSQL table {}: {}; Iceberg table {} evolved (schema {})",
                                            t->qualified(), note, t->iceberg, schema_id)));
    }
  }
  t->schema = std::make_shared<Schema>(std::move(input), 0, input_keys);
  return Ok();
}

Status PgSource::EnsurePublication() {
  PGconn* c = query_.get();
  FLOE_ASSIGN_OR_RETURN(Res p, Exec(c, "SELECT pubinsert AND pubupdate AND pubdelete FROM pg_publication WHERE "
                                       "pubname = " + Literal(c, cfg_.publication)));
  if (PQntuples(p.get()) == 0) {
    std::string list;
    for (auto& t : tables_) list += (list.empty() ? "" : ", ") + Ident(c, t->schema_name) + "." + Ident(c, t->name);
    FLOE_ASSIGN_OR_RETURN(Res created, Exec(c, "CREATE PUBLICATION " + Ident(c, cfg_.publication) + " FOR TABLE " + list,
                                            PGRES_COMMAND_OK));
    return Ok();
  }
  if (std::string(PQgetvalue(p.get(), 0, 0)) != "t") {
    return InvalidArgument("publication {} does not publish inserts, updates and deletes", cfg_.publication);
  }
  for (auto& t : tables_) {
    FLOE_ASSIGN_OR_RETURN(Res in, Exec(c, "SELECT 1 FROM pg_publication_tables WHERE pubname = " +
                                              Literal(c, cfg_.publication) + " AND schemaname = " +
                                              Literal(c, t->schema_name) + " AND tablename = " + Literal(c, t->name)));
    if (PQntuples(in.get()) == 0) {
      return InvalidArgument("publication {} does not include table {}: add it (ALTER PUBLICATION ... ADD TABLE)",
                             cfg_.publication, t->qualified());
    }
  }
  return Ok();
}

Status PgSource::Prepare() {
  PGconn* c = query_.get();
  if (cfg_.startup == "snapshot") {
    // The slot is not touched: the snapshot comes from a temporary one (Read).
    for (auto& t : tables_) t->needs_snapshot = !t->stored;
    return Ok();
  }
  FLOE_ASSIGN_OR_RETURN(Res s, Exec(c, "SELECT plugin, database, wal_status, confirmed_flush_lsn FROM "
                                       "pg_replication_slots WHERE slot_name = " + Literal(c, cfg_.slot)));
  const Table* with_token = nullptr;
  for (auto& t : tables_) {
    if (t->stored && !with_token) with_token = t.get();
  }
  bool create = true;
  if (PQntuples(s.get()) == 1) {
    const std::string plugin = PQgetvalue(s.get(), 0, 0), db = PQgetvalue(s.get(), 0, 1),
                      wal = PQgetvalue(s.get(), 0, 2);
    if (plugin != "pgoutput" || db != database_) {
      return InvalidArgument("replication slot {} belongs to plugin {} in database {}, not pgoutput in {}", cfg_.slot,
                             plugin, db, database_);
    }
    if (with_token) {
      if (wal == "lost") {
        return InvalidArgument(
            "replication slot {} was invalidated (wal_status lost): table {} holds changes up to LSN {} from it and "
            "the changes since are gone; floe will not take a new snapshot silently: drop the Iceberg tables (or "
            "use another sink_id and slot) to start over",
            cfg_.slot, with_token->iceberg, FormatLsn(static_cast<uint64_t>(*with_token->stored)));
      }
      create = false;
    } else if (cfg_.startup == "latest-offset") {
      create = false;  // no snapshot to take again: the changes since the slot's position are still wanted
    } else {
      // No commit of this sink stands on it (a run stopped before its first commit): start over.
      FLOE_ASSIGN_OR_RETURN(Res d, Exec(repl_.get(), "DROP_REPLICATION_SLOT " + Ident(c, cfg_.slot) + " WAIT",
                                        PGRES_COMMAND_OK));
    }
  } else if (with_token) {
    return InvalidArgument(
        "replication slot {} does not exist (dropped?), but table {} holds changes up to LSN {} from it: the "
        "changes since are lost to floe, which will not take a new snapshot silently; drop the Iceberg tables (or "
        "use another sink_id and slot) to start over",
        cfg_.slot, with_token->iceberg, FormatLsn(static_cast<uint64_t>(*with_token->stored)));
  }
  const bool snapshot = cfg_.startup == "initial";
  if (create) {
    FLOE_ASSIGN_OR_RETURN(Res r, Exec(repl_.get(), "CREATE_REPLICATION_SLOT " + Ident(c, cfg_.slot) +
                                                       " LOGICAL pgoutput (SNAPSHOT '" +
                                                       (snapshot ? "export" : "nothing") + "')"));
    FLOE_ASSIGN_OR_RETURN(uint64_t point, ParseLsn(PQgetvalue(r.get(), 0, 1)));
    slot_point_ = static_cast<int64_t>(point);
    if (snapshot) slot_snapshot_ = PQgetvalue(r.get(), 0, 2);
    handed_pos_ = slot_point_;  // every table is complete up to the slot's consistent point
  } else {
    // A killed run's walsender may linger a moment: wait until the slot is free.
    const auto until = Clock::now() + std::chrono::seconds(30);
    for (;;) {
      FLOE_ASSIGN_OR_RETURN(Res a, Exec(c, "SELECT active_pid FROM pg_replication_slots WHERE slot_name = " +
                                               Literal(c, cfg_.slot) + " AND active"));
      if (PQntuples(a.get()) == 0) break;
      if (Clock::now() > until) {
        return IoError("replication slot {} is in use by PostgreSQL process {} (another floe on the same slot?)",
                       cfg_.slot, PQgetvalue(a.get(), 0, 0));
      }
      ::poll(nullptr, 0, 50);
    }
  }
  for (auto& t : tables_) {
    if (t->stored) {
      t->skip_upto = *t->stored;
    } else if (snapshot) {
      t->needs_snapshot = true;
    } else if (create) {
      t->skip_upto = slot_point_;
    }
  }
  return Ok();
}

// Where the values of unchanged TOAST columns come from when the old row
// does not carry them: a stored row, `from` (its column for table column i:
// column_of[i], or -1); with `as_null`, they are nulls (a key row to look up).
struct Unchanged {
  const Batch* from = nullptr;
  std::vector<int> column_of;
  bool as_null = false;
};

// One row into `b` (the table's schema): its values, or an unchanged TOAST
// value from `old` (REPLICA IDENTITY FULL) or `unchanged`. Touches nothing
// but `b`: the snapshot's workers call it on their own batches.
Status AppendRow(const Table& t, Batch* b, RowKind kind, int64_t pos, int64_t seq,
                 const std::vector<TupleValue>& values, const std::vector<TupleValue>* old,
                 const Unchanged* unchanged = nullptr) {
  if (values.size() != t.columns.size()) {
    return Unsupported("PostgreSQL table {}: a row of {} columns, the table had {} (schema changes are not "
                       "replicated yet)",
                       t.qualified(), values.size(), t.columns.size());
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const TupleValue* v = &values[i];
    if (v->kind == 'u') {
      if (old && i < old->size() && (*old)[i].kind != 'u') {
        v = &(*old)[i];  // REPLICA IDENTITY FULL: the old row holds the value
      } else if (unchanged && unchanged->as_null) {
        b->columns[i].AppendNull();
        continue;
      } else if (unchanged && unchanged->from && unchanged->column_of[i] >= 0) {
        const int64_t first[] = {0};
        AppendRows(unchanged->from->columns[static_cast<size_t>(unchanged->column_of[i])], first, &b->columns[i]);
        continue;
      } else {
        return Unsupported(
            "PostgreSQL table {} column {}: an UPDATE left this TOASTed value unchanged and pgoutput did not send "
            "it, and the stored row it should come from was not found; floe will not write a placeholder",
            t.qualified(), t.columns[i].name);
      }
    }
    ColumnVector& col = b->columns[i];
    if (v->kind == 'n') {
      col.AppendNull();
      continue;
    }
    if (Status st = AppendPgText(&col, *t.schema->fields()[i].type, t.columns[i].type_oid, v->text); !st) {
      return InvalidArgument("PostgreSQL table {} column {}: {}", t.qualified(), t.columns[i].name,
                             st.error().message);
    }
  }
  ++b->num_rows;
  b->row_kinds.push_back(kind);
  b->sequence_numbers.push_back(seq);
  b->positions.push_back(pos);
  return Ok();
}

// A row's key as text (its key columns' values), for the TOAST look-ups.
std::string KeyText(const Table& t, const std::vector<TupleValue>& values) {
  std::string k;
  for (size_t i = 0; i < t.columns.size() && i < values.size(); ++i) {
    if (!t.columns[i].key) continue;
    k += values[i].kind;
    k += values[i].text;
    k += '\0';
  }
  return k;
}

// The snapshot's chunks of `t`: predicates on its primary key's first
// column that together select every row once (Flink CDC's incremental
// snapshot splits; `snapshot_chunk_size` rows each, about). An integer
// column is split evenly between its minimum and maximum (the row estimate
// gives the number of chunks); another type by walking the key in order
// (`... ORDER BY k OFFSET size - 1 LIMIT 1` gives each chunk's last value).
// Read on `c`, under the snapshot.
Result<std::vector<std::string>> PlanChunks(PGconn* c, const Table& t, int64_t chunk_size) {
  if (t.chunk_column < 0 || chunk_size <= 0) return std::vector<std::string>{""};
  const PgColumn& key = t.columns[static_cast<size_t>(t.chunk_column)];
  const std::string k = Ident(c, key.name), rel = Ident(c, t.schema_name) + "." + Ident(c, t.name);
  std::vector<std::string> chunks;
  if (key.type_oid == 20 || key.type_oid == 21 || key.type_oid == 23) {  // int8, int2, int4
    FLOE_ASSIGN_OR_RETURN(Res r, Exec(c, fmt::format("SELECT min({0}), max({0}), (SELECT reltuples::bigint FROM "
                                                     "pg_class WHERE oid = {1}) FROM {2}",
                                                     k, t.relid, rel)));
    if (PQgetisnull(r.get(), 0, 0)) return std::vector<std::string>{""};  // empty
    const __int128 lo = std::stoll(PQgetvalue(r.get(), 0, 0)), hi = std::stoll(PQgetvalue(r.get(), 0, 1));
    const __int128 span = hi - lo + 1;
    __int128 rows = PQgetisnull(r.get(), 0, 2) ? -1 : std::stoll(PQgetvalue(r.get(), 0, 2));
    if (rows <= 0) rows = span;  // never analyzed: assume dense
    const __int128 n = std::clamp<__int128>((std::min(rows, span) + chunk_size - 1) / chunk_size, 1, 1 << 16);
    const __int128 step = (span + n - 1) / n;
    auto bound = [&](__int128 i) { return fmt::format("{}", static_cast<int64_t>(lo + i * step)); };
    for (__int128 i = 0; i < n; ++i) {
      std::string where;
      if (i > 0) where = k + " >= " + bound(i);
      if (i + 1 < n && lo + (i + 1) * step <= hi) {
        where += (where.empty() ? "" : " AND ") + k + " < " + bound(i + 1);
      } else {
        chunks.push_back(where);
        break;
      }
      chunks.push_back(where);
    }
    return chunks;
  }
  std::optional<std::string> prev;
  for (;;) {
    const std::string after = prev ? " WHERE " + k + " > " + Literal(c, *prev) : "";
    FLOE_ASSIGN_OR_RETURN(Res r, Exec(c, fmt::format("SELECT {0}::text FROM {1}{2} ORDER BY {0} OFFSET {3} LIMIT 1",
                                                     k, rel, after, chunk_size - 1)));
    if (PQntuples(r.get()) == 0) {
      chunks.push_back(prev ? k + " > " + Literal(c, *prev) : "");
      return chunks;
    }
    const std::string last = PQgetvalue(r.get(), 0, 0);
    chunks.push_back((prev ? k + " > " + Literal(c, *prev) + " AND " : "") + k + " <= " + Literal(c, last));
    prev = last;
  }
}

// What the snapshot's workers share with the thread that writes their batches.
struct SnapshotQueue {
  std::mutex mu;
  std::condition_variable changed;
  std::deque<Batch> ready;
  size_t capacity = 4;
  size_t next_chunk = 0;
  int running = 0;
  bool stop = false;
  std::optional<Error> error;

  void Fail(Error e) {
    std::lock_guard lock(mu);
    if (!error) error = std::move(e);
    stop = true;
    changed.notify_all();
  }
  // False when the snapshot stops.
  bool Push(Batch&& b) {
    std::unique_lock lock(mu);
    changed.wait(lock, [&] { return stop || ready.size() < capacity; });
    if (stop) return false;
    ready.push_back(std::move(b));
    changed.notify_all();
    return true;
  }
  std::optional<size_t> NextChunk(size_t chunks) {
    std::lock_guard lock(mu);
    if (stop || next_chunk >= chunks) return std::nullopt;
    return next_chunk++;
  }
};

// How the snapshot decodes a column of its binary COPY: the common forms
// inline, the other binary forms through AppendPgBinary, and the columns
// selected as text through AppendPgText.
enum class CopyDecode : uint8_t { kText, kBinary, kInt32, kInt64, kBytes };

CopyDecode CopyDecodeOf(const PgColumn& col, const Type& type) {
  if (!HasPgBinaryForm(col)) return CopyDecode::kText;
  switch (col.type_oid) {
    case 23: return CopyDecode::kInt32;                 // int4
    case 20: return CopyDecode::kInt64;                 // int8
    case 17: case 19: case 25: case 114: case 1042: case 1043:  // bytea, name, text, json, bpchar, varchar
      return type.id == TypeId::kString || type.id == TypeId::kBinary ? CopyDecode::kBytes : CopyDecode::kBinary;
    default: return CopyDecode::kBinary;
  }
}

// One row of a binary COPY into `b` (the table's schema): fields[i] is
// column i's bytes (data() null: a null). Touches nothing but `b`.
Status AppendCopyRow(const Table& t, Batch* b, const std::vector<CopyDecode>& decode,
                     const std::vector<std::string_view>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    ColumnVector& col = b->columns[i];
    const std::string_view v = fields[i];
    if (v.data() == nullptr) {
      col.AppendNull();
      continue;
    }
    const auto* u = reinterpret_cast<const uint8_t*>(v.data());
    switch (decode[i]) {
      case CopyDecode::kInt32:
        if (v.size() != 4) break;
        col.Append<int32_t>(static_cast<int32_t>((uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) |
                                                 (uint32_t{u[2]} << 8) | uint32_t{u[3]}));
        continue;
      case CopyDecode::kInt64: {
        if (v.size() != 8) break;
        uint64_t x = 0;
        for (int k = 0; k < 8; ++k) x = (x << 8) | u[k];
        col.Append<int64_t>(static_cast<int64_t>(x));
        continue;
      }
      case CopyDecode::kBytes:
        col.AppendBytes(v);
        continue;
      default:
        break;
    }
    const Type& type = *t.schema->fields()[i].type;
    Status st = decode[i] == CopyDecode::kText ? AppendPgText(&col, type, t.columns[i].type_oid, v)
                                               : AppendPgBinary(&col, type, t.columns[i].type_oid, v);
    if (!st) {
      return Fail(Error{st.error().kind,
                        fmt::format("PostgreSQL table {} column {}: {}", t.qualified(), t.columns[i].name,
                                    st.error().message),
                        false});
    }
  }
  ++b->num_rows;  // row kinds, sequence numbers and positions: FinishSnapshotBatch
  return Ok();
}

// A snapshot batch's rows are inserts, each at the snapshot's position.
void FinishSnapshotBatch(Batch* b, int64_t position) {
  const auto n = static_cast<size_t>(b->num_rows);
  b->row_kinds.assign(n, RowKind::kInsert);
  b->sequence_numbers.assign(n, position);
  b->positions.assign(n, position);
}

// PostgreSQL's binary COPY stream (COPY ... TO STDOUT (FORMAT binary)):
// the signature, flags and header extension, then per row a field count
// (int16) and per field a length (int32, -1: null) and its bytes, then a
// count of -1. Fed the CopyData messages as they come (a row may span them;
// PostgreSQL sends one per row and the header with the first), it hands
// every whole row to `row`.
class BinaryCopyParser {
 public:
  BinaryCopyParser(std::string table, size_t columns) : table_(std::move(table)), fields_(columns) {}

  template <typename OnRow>
  Status Feed(std::string_view message, OnRow&& row) {
    std::string_view data = message;
    if (!carry_.empty()) {
      carry_.append(message);
      data = carry_;
    }
    size_t p = 0;
    Status st = Ok();
    if (!header_) {
      static constexpr char kSignature[] = "PGCOPY\n\377\r\n";  // and a zero byte: 11 bytes
      if (data.size() < 19) return Keep(data, 0);
      if (data.substr(0, 11) != std::string_view(kSignature, 11)) return Bad("no PGCOPY signature");
      const uint32_t flags = Get32(data, 11);
      if (flags & 0xffff0000u) return Bad(fmt::format("header flags {:#x}", flags));
      const uint32_t ext = Get32(data, 15);
      if (ext > (1u << 20)) return Bad("a header extension of over 1 MiB");
      if (data.size() < 19 + size_t{ext}) return Keep(data, 0);
      p = 19 + ext;
      header_ = true;
    }
    while (p < data.size()) {
      if (ended_) return Bad("bytes after the end of the rows");
      if (data.size() - p < 2) break;
      const int16_t n = static_cast<int16_t>(Get16(data, p));
      if (n == -1) {
        ended_ = true;
        p += 2;
        continue;
      }
      if (n < 0 || static_cast<size_t>(n) != fields_.size()) {
        return Bad(fmt::format("a row of {} fields, the table has {} columns", n, fields_.size()));
      }
      size_t q = p + 2;
      bool whole = true;
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (data.size() - q < 4) {
          whole = false;
          break;
        }
        const int32_t len = static_cast<int32_t>(Get32(data, q));
        q += 4;
        if (len == -1) {
          fields_[i] = std::string_view();  // data() null: a null (an empty value points into data)
          continue;
        }
        if (len < 0) return Bad(fmt::format("a field length of {}", len));
        if (data.size() - q < static_cast<size_t>(len)) {
          whole = false;
          break;
        }
        fields_[i] = std::string_view(data.data() + q, static_cast<size_t>(len));
        q += static_cast<size_t>(len);
      }
      if (!whole) break;
      st = row(fields_);
      if (!st) return st;
      p = q;
    }
    return Keep(data, p);
  }
  // After the last message: the rows ended with their trailer.
  Status Finish() const {
    if (!header_ || !ended_ || !carry_.empty()) return Bad("the rows end without their trailer");
    return Ok();
  }

 private:
  static uint16_t Get16(std::string_view d, size_t at) {
    return static_cast<uint16_t>((static_cast<uint8_t>(d[at]) << 8) | static_cast<uint8_t>(d[at + 1]));
  }
  static uint32_t Get32(std::string_view d, size_t at) {
    return (uint32_t{static_cast<uint8_t>(d[at])} << 24) | (uint32_t{static_cast<uint8_t>(d[at + 1])} << 16) |
           (uint32_t{static_cast<uint8_t>(d[at + 2])} << 8) | uint32_t{static_cast<uint8_t>(d[at + 3])};
  }
  // Keeps data[from..] for the next message (a row cut between two).
  Status Keep(std::string_view data, size_t from) {
    if (from >= data.size()) {
      carry_.clear();
    } else if (data.data() == carry_.data()) {
      carry_.erase(0, from);
    } else {
      carry_.assign(data.substr(from));
    }
    if (carry_.size() > (size_t{1} << 30)) return Bad("a row of over 1 GiB");
    return Ok();
  }
  Status Bad(std::string_view what) const {
    return Corrupt("PostgreSQL: the binary COPY of {} is damaged: {}", table_, what);
  }

  std::string table_;
  std::vector<std::string_view> fields_;
  std::string carry_;
  bool header_ = false;
  bool ended_ = false;
};

// One connection's share of a table's snapshot: COPY of chunk after chunk
// in binary format (the columns with a binary form floe reads as they are,
// the others as their text: HasPgBinaryForm), rows decoded into batches of
// the table's schema.
void SnapshotWorker(PGconn* c, const Table& t, const std::vector<std::string>& chunks, int64_t position,
                    SnapshotQueue* q) {
  std::string cols;
  std::vector<CopyDecode> decode;
  for (size_t i = 0; i < t.columns.size(); ++i) {
    decode.push_back(CopyDecodeOf(t.columns[i], *t.schema->fields()[i].type));
    const std::string id = Ident(c, t.columns[i].name);
    cols += (cols.empty() ? "" : ", ") + (decode.back() != CopyDecode::kText ? id : id + "::text AS " + id);
  }
  const std::string from = Ident(c, t.schema_name) + "." + Ident(c, t.name);
  Batch b(t.schema);
  constexpr int64_t kBatchRows = 8192;
  while (auto chunk = q->NextChunk(chunks.size())) {
    const std::string& where = chunks[*chunk];
    const std::string sql = "COPY (SELECT " + cols + " FROM " + from + (where.empty() ? "" : " WHERE " + where) +
                            ") TO STDOUT (FORMAT binary)";
    auto copy = Exec(c, sql, PGRES_COPY_OUT);
    if (!copy) return q->Fail(std::move(copy).error());
    BinaryCopyParser parser(t.qualified(), t.columns.size());
    bool stopped = false;
    auto on_row = [&](const std::vector<std::string_view>& fields) -> Status {
      FLOE_RETURN_IF_ERROR(AppendCopyRow(t, &b, decode, fields));
      if (b.num_rows >= kBatchRows) {
        FinishSnapshotBatch(&b, position);
        // The next batch starts with this one's capacity (not grown again from nothing).
        std::vector<std::pair<size_t, size_t>> sizes;
        for (const ColumnVector& col : b.columns) sizes.emplace_back(col.values.size(), col.offsets.size());
        if (!q->Push(std::move(b))) {
          stopped = true;
          return Internal("the snapshot stopped");
        }
        b = Batch(t.schema);
        for (size_t i = 0; i < sizes.size(); ++i) {
          b.columns[i].values.Reserve(sizes[i].first);
          b.columns[i].offsets.reserve(sizes[i].second);
        }
      }
      return Ok();
    };
    for (;;) {
      char* buf = nullptr;
      const int n = PQgetCopyData(c, &buf, 0);
      if (n == -1) break;
      if (n < 0) return q->Fail(IoError("PostgreSQL: COPY of {} failed: {}", t.qualified(), ConnError(c)).error());
      Status st = parser.Feed(std::string_view(buf, static_cast<size_t>(n)), on_row);
      PQfreemem(buf);
      if (stopped) return;
      if (!st) return q->Fail(std::move(st).error());
    }
    Res done(PQgetResult(c));
    if (!done || PQresultStatus(done.get()) != PGRES_COMMAND_OK) {
      return q->Fail(IoError("PostgreSQL: COPY of {} failed: {}", t.qualified(), ConnError(c)).error());
    }
    while (Res more{PQgetResult(c)}) {
    }
    if (Status st = parser.Finish(); !st) return q->Fail(std::move(st).error());
  }
  if (b.num_rows > 0) {
    FinishSnapshotBatch(&b, position);
    (void)q->Push(std::move(b));
  }
}

Status PgSource::Snapshot(const std::vector<Table*>& tables, const std::string& snapshot, int64_t position,
                          const sink::Cancellation* cancel) {
  // Every connection imports the exported snapshot: they all see the same rows.
  std::vector<Conn> conns;
  for (int i = 0; i < std::max(1, cfg_.snapshot_connections); ++i) {
    FLOE_ASSIGN_OR_RETURN(Conn c, pgsrc::Connect(cfg_.connection, false));
    FLOE_ASSIGN_OR_RETURN(Res b, Exec(c.get(), "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", PGRES_COMMAND_OK));
    FLOE_ASSIGN_OR_RETURN(Res s,
                          Exec(c.get(), "SET TRANSACTION SNAPSHOT " + Literal(c.get(), snapshot), PGRES_COMMAND_OK));
    conns.push_back(std::move(c));
  }
  for (Table* t : tables) {
    FLOE_ASSIGN_OR_RETURN(std::vector<std::string> chunks, PlanChunks(conns[0].get(), *t, cfg_.snapshot_chunk_size));
    txn_pos_ = position;
    SnapshotQueue q;
    const size_t workers = std::min(conns.size(), chunks.size());
    q.capacity = 2 * workers + 2;
    q.running = static_cast<int>(workers);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < workers; ++i) {
      threads.emplace_back([&, c = conns[i].get()] {
        SnapshotWorker(c, *t, chunks, position, &q);
        std::lock_guard lock(q.mu);
        --q.running;
        q.changed.notify_all();
      });
    }
    // This thread writes the batches (the sink is not shared between threads).
    Status st = Ok();
    for (;;) {
      std::optional<Batch> b;
      {
        std::unique_lock lock(q.mu);
        q.changed.wait_for(lock, std::chrono::milliseconds(100),
                           [&] { return !q.ready.empty() || q.running == 0 || q.stop; });
        if (q.error) break;
        if (!q.ready.empty()) {
          b.emplace(std::move(q.ready.front()));
          q.ready.pop_front();
          q.changed.notify_all();
        } else if (q.running == 0) {
          break;
        }
      }
      if (cancel && cancel->cancelled()) {
        st = Fail(Error{ErrorKind::kCommitFailed,
                        fmt::format("stopped during the snapshot of {}: nothing was committed (a snapshot is "
                                    "committed whole; the next run takes it again)",
                                    t->qualified()),
                        false});
        break;
      }
      if (b) {
        st = t->sink->WriteInserts(std::move(*b));
        if (!st) break;
      }
    }
    {
      std::lock_guard lock(q.mu);
      q.stop = true;
      q.changed.notify_all();
    }
    for (auto& th : threads) th.join();
    if (q.error) return std::unexpected<Error>(std::move(*q.error));
    FLOE_RETURN_IF_ERROR(st);
    t->skip_upto = position;
    t->needs_snapshot = false;
  }
  commit_now_ = true;  // the snapshot is committed before any change is streamed into the window
  return Ok();
}

Status PgSource::StartReplication() {
  const std::string sql = "START_REPLICATION SLOT " + Ident(repl_.get(), cfg_.slot) +
                          " LOGICAL 0/0 (proto_version '1', publication_names " +
                          Literal(repl_.get(), Ident(repl_.get(), cfg_.publication)) + ")";
  FLOE_ASSIGN_OR_RETURN(Res r, Exec(repl_.get(), sql, PGRES_COPY_BOTH));
  streaming_ = true;
  return Ok();
}

Result<sink::SourceState> PgSource::Read(sink::SourceClock::time_point deadline, const sink::Cancellation* cancel) {
  if (cfg_.startup == "snapshot") {
    if (snapshot_done_) return sink::SourceState::kEnd;
    std::vector<Table*> todo;
    for (auto& t : tables_) {
      if (t->needs_snapshot) todo.push_back(t.get());
    }
    snapshot_done_ = true;
    if (todo.empty()) return sink::SourceState::kEnd;  // every table holds a commit of this sink already
    // A temporary slot gives the exported snapshot and its consistent point;
    // it is dropped when this connection closes (at the end of this block,
    // or by the server when floe dies).
    FLOE_ASSIGN_OR_RETURN(Conn tmp, pgsrc::Connect(cfg_.connection, true));
    FLOE_ASSIGN_OR_RETURN(Res r, Exec(tmp.get(), "CREATE_REPLICATION_SLOT " + Ident(tmp.get(), cfg_.slot + "_snap") +
                                                     " TEMPORARY LOGICAL pgoutput (SNAPSHOT 'export')"));
    FLOE_ASSIGN_OR_RETURN(uint64_t point, ParseLsn(PQgetvalue(r.get(), 0, 1)));
    handed_pos_ = static_cast<int64_t>(point);  // the commit covers the snapshot
    FLOE_RETURN_IF_ERROR(Snapshot(todo, PQgetvalue(r.get(), 0, 2), static_cast<int64_t>(point), cancel));
    return sink::SourceState::kEnd;
  }
  if (!streaming_) {
    std::vector<Table*> from_slot, later;
    for (auto& t : tables_) {
      if (t->needs_snapshot) (slot_snapshot_.empty() ? later : from_slot).push_back(t.get());
    }
    if (!from_slot.empty()) FLOE_RETURN_IF_ERROR(Snapshot(from_slot, slot_snapshot_, slot_point_, cancel));
    if (!later.empty()) {
      // The slot existed: these tables' snapshot comes from a temporary slot of their own.
      FLOE_ASSIGN_OR_RETURN(Conn tmp, pgsrc::Connect(cfg_.connection, true));
      FLOE_ASSIGN_OR_RETURN(Res r, Exec(tmp.get(), "CREATE_REPLICATION_SLOT " +
                                                       Ident(tmp.get(), cfg_.slot + "_snap") +
                                                       " TEMPORARY LOGICAL pgoutput (SNAPSHOT 'export')"));
      FLOE_ASSIGN_OR_RETURN(uint64_t point, ParseLsn(PQgetvalue(r.get(), 0, 1)));
      FLOE_RETURN_IF_ERROR(Snapshot(later, PQgetvalue(r.get(), 0, 2), static_cast<int64_t>(point), cancel));
    }
    FLOE_RETURN_IF_ERROR(StartReplication());
    return sink::SourceState::kMore;
  }
  PGconn* c = repl_.get();
  for (;;) {
    const auto now = Clock::now();
    if (!in_txn_ && ((cancel && cancel->cancelled()) || now >= deadline)) {
      if (HeartbeatDue(now)) FLOE_RETURN_IF_ERROR(Heartbeat());
      return sink::SourceState::kIdle;
    }
    char* buf = nullptr;
    const int n = PQgetCopyData(c, &buf, 1);
    if (n > 0) {
      Status st = HandleMessage(buf, static_cast<size_t>(n));
      PQfreemem(buf);
      FLOE_RETURN_IF_ERROR(st);
      continue;
    }
    if (n == -1) {
      Res r(PQgetResult(c));
      return IoError("PostgreSQL: the replication stream ended: {}",
                     r ? PQresultErrorMessage(r.get()) : ConnError(c));
    }
    if (n < -1) return IoError("PostgreSQL: replication: {}", ConnError(c));
    // Nothing buffered: wait for the socket, the cancellation or the deadline.
    int timeout_ms = 1000;
    if (!in_txn_ && deadline != sink::SourceClock::time_point::max()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
      timeout_ms = static_cast<int>(std::clamp<int64_t>(left, 0, 1000));
    }
    if (cfg_.heartbeat_interval_ms > 0) {
      const auto next = last_status_ + std::chrono::milliseconds(cfg_.heartbeat_interval_ms);
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count();
      timeout_ms = static_cast<int>(std::clamp<int64_t>(left, 0, timeout_ms));
    }
    pollfd fds[2] = {{PQsocket(c), POLLIN, 0}, {cancel ? cancel->wake_fd() : -1, POLLIN, 0}};
    (void)::poll(fds, fds[1].fd >= 0 ? 2 : 1, timeout_ms);  // a signal or time-out: the loop decides
    if (PQconsumeInput(c) == 0) return IoError("PostgreSQL: replication: {}", ConnError(c));
    if (HeartbeatDue(Clock::now())) FLOE_RETURN_IF_ERROR(Heartbeat());
  }
}

Status PgSource::HandleMessage(const char* data, size_t len) {
  Reader r{data, data + len};
  const char kind = static_cast<char>(r.U8());
  if (kind == 'k') {  // keepalive: WAL end, time, reply requested
    const uint64_t wal_end = r.U64();
    (void)r.U64();
    const bool reply = r.U8() != 0;
    if (!in_txn_) idle_end_ = std::max(idle_end_, wal_end);
    if (reply) return SendStatus(false);
    return Ok();
  }
  if (kind != 'w') return Corrupt("replication: unknown CopyData message '{}'", kind);
  // A change's own LSN: its rows' sequence number. Changes of one
  // transaction get increasing ones (their order, whatever their kinds);
  // changes of one row in two transactions too (the second waited for the
  // first's row lock, so its WAL record comes later).
  change_lsn_ = static_cast<int64_t>(r.U64());
  (void)r.U64();  // WAL end
  (void)r.U64();  // time
  if (!r.ok) return Corrupt("replication: XLogData header cut short");
  const char msg = static_cast<char>(r.U8());
  switch (msg) {
    case 'B': {
      const uint64_t final_lsn = r.U64();
      in_txn_ = true;
      txn_flushed_ = false;
      txn_pos_ = static_cast<int64_t>(final_lsn) + 1;
      return Ok();
    }
    case 'C': {
      (void)r.U8();
      (void)r.U64();  // commit LSN
      const uint64_t end = r.U64();
      for (auto& t : tables_) FLOE_RETURN_IF_ERROR(Flush(t.get()));
      in_txn_ = false;
      ++handed_txns_;
      handed_pos_ = std::max(handed_pos_, txn_pos_);
      handed_end_ = std::max(handed_end_, end);
      return Ok();
    }
    case 'O':
    case 'Y':
      return Ok();  // origin, type: nothing to do (types are known by OID from the catalog)
    case 'R': {
      const uint32_t relid = r.U32();
      (void)r.Str();  // namespace
      (void)r.Str();  // relation name
      (void)r.U8();   // replica identity
      const uint16_t ncols = r.U16();
      Table* t = ByRelid(relid);
      if (!t) return Ok();
      std::vector<PgColumn> cols;
      bool same = ncols == t->columns.size();
      for (uint16_t i = 0; i < ncols && r.ok; ++i) {
        (void)r.U8();  // flags (1: part of the key)
        PgColumn col;
        col.name = std::string(r.Str());
        col.type_oid = r.U32();
        col.typmod = static_cast<int32_t>(r.U32());
        same = same && col.name == t->columns[i].name && col.type_oid == t->columns[i].type_oid &&
               col.typmod == t->columns[i].typmod;
        cols.push_back(std::move(col));
      }
      if (!r.ok) return Corrupt("pgoutput: a Relation message is cut short");
      if (same) return Ok();
      return ChangeLayout(t, std::move(cols));
    }
    case 'I':
    case 'U':
    case 'D':
      return HandleChange(msg, r);
    case 'T': {
      const uint32_t n = r.U32();
      (void)r.U8();  // options: CASCADE, RESTART IDENTITY
      std::vector<uint32_t> relids;
      for (uint32_t i = 0; i < n && r.ok; ++i) relids.push_back(r.U32());
      if (!r.ok) return Corrupt("pgoutput: a Truncate message is cut short");
      for (uint32_t relid : relids) {
        Table* t = ByRelid(relid);
        if (t && txn_pos_ > t->skip_upto) FLOE_RETURN_IF_ERROR(Truncate(t));
      }
      return Ok();
    }
    case 'M':
      return Ok();
    default:
      return Corrupt("pgoutput: unknown message '{}'", msg);
  }
}

Status PgSource::HandleChange(char kind, Reader& r) {
  Table* t = ByRelid(r.U32());
  if (!t) return Ok();  // another table of the publication
  const bool skip = txn_pos_ <= t->skip_upto;
  char part = static_cast<char>(r.U8());
  if (kind == 'I') {
    if (part != 'N') return Corrupt("pgoutput: Insert without a new tuple");
    FLOE_ASSIGN_OR_RETURN(auto row, ReadTuple(r));
    return skip ? Ok() : AddRow(t, RowKind::kInsert, row, nullptr);
  }
  if (kind == 'D') {
    if (part != 'K' && part != 'O') return Corrupt("pgoutput: Delete without a key or old tuple");
    FLOE_ASSIGN_OR_RETURN(auto old, ReadTuple(r));
    return skip ? Ok() : AddRow(t, RowKind::kDelete, old, nullptr);
  }
  std::optional<std::vector<TupleValue>> old;
  const bool old_full = part == 'O';  // REPLICA IDENTITY FULL: the whole old row ('K': its key only)
  if (part == 'K' || part == 'O') {
    FLOE_ASSIGN_OR_RETURN(auto o, ReadTuple(r));
    old = std::move(o);
    part = static_cast<char>(r.U8());
  }
  if (part != 'N') return Corrupt("pgoutput: Update without a new tuple");
  FLOE_ASSIGN_OR_RETURN(auto row, ReadTuple(r));
  if (skip) return Ok();
  const std::vector<TupleValue>* full = old && old_full ? &*old : nullptr;
  if (old && KeyText(*t, *old) != KeyText(*t, row)) {
    // The key moved: the new row first (an unchanged TOAST value comes from
    // the old key's row), then the old key's delete (another key: the order
    // does not matter to the sink).
    FLOE_RETURN_IF_ERROR(AddRow(t, RowKind::kUpdateAfter, row, full, &*old));
    return AddRow(t, RowKind::kDelete, *old, nullptr);
  }
  // REPLICA IDENTITY FULL: the old row goes first.
  if (old) FLOE_RETURN_IF_ERROR(AddRow(t, RowKind::kDelete, *old, nullptr));
  return AddRow(t, RowKind::kUpdateAfter, row, full);
}

Status PgSource::AddRow(Table* t, RowKind kind, const std::vector<TupleValue>& values,
                        const std::vector<TupleValue>* old, const std::vector<TupleValue>* old_key) {
  std::optional<Unchanged> unchanged;
  bool missing = false;
  for (size_t i = 0; i < values.size(); ++i) {
    missing = missing || (values[i].kind == 'u' && !(old && i < old->size() && (*old)[i].kind != 'u'));
  }
  std::optional<Batch> stored;
  if (missing) {
    // An unchanged TOAST value the old row does not carry (REPLICA IDENTITY
    // DEFAULT): the key's newest row holds it — in this transaction's rows,
    // or, committed first when an earlier transaction of the window changed
    // the key, in the Iceberg table (the sink's key index finds it).
    const std::vector<TupleValue>& key_values = old ? *old : old_key ? *old_key : values;
    const std::string key = KeyText(*t, key_values);
    unchanged.emplace();
    unchanged->column_of.assign(values.size(), -1);
    auto in_batch = t->batch_rows.find(key);
    if (in_batch != t->batch_rows.end() && in_batch->second >= 0) {
      const int64_t one[] = {in_batch->second};
      stored = Take(t->batch, one);
      for (size_t i = 0; i < values.size(); ++i) unchanged->column_of[i] = static_cast<int>(i);
    } else {
      const uint64_t hash = std::hash<std::string>()(key);
      if (t->window_keys.contains(hash)) {
        if (txn_flushed_) {
          return Unsupported("PostgreSQL table {}: an UPDATE left a TOASTed value unchanged in a transaction (at LSN "
                             "{}) so large that its rows reached the sink before it; floe reads the value back "
                             "only from committed rows",
                             t->qualified(), FormatLsn(static_cast<uint64_t>(txn_pos_ - 1)));
        }
        FLOE_RETURN_IF_ERROR(commit_());  // the transactions before this one
      }
      Batch key_row(t->schema);
      Unchanged as_null;
      as_null.as_null = true;
      FLOE_RETURN_IF_ERROR(
          AppendRow(*t, &key_row, RowKind::kInsert, txn_pos_, change_lsn_, key_values, nullptr, &as_null));
      std::vector<std::string> cols;
      for (size_t i = 0; i < values.size(); ++i) {
        if (values[i].kind == 'u') cols.push_back(t->schema->fields()[i].name);
      }
      auto got = t->sink->ReadCommitted(key_row, 0, cols);
      if (!got) {
        return Fail(got.error().WithContext(fmt::format("PostgreSQL table {}: reading back an unchanged TOAST value",
                                                        t->qualified())));
      }
      if (!*got) {
        return Unsupported("PostgreSQL table {} column {}: an UPDATE left this TOASTed value unchanged (pgoutput did "
                           "not send it) and the Iceberg table {} holds no row of its key to take it from; floe "
                           "will not write a placeholder",
                           t->qualified(), cols.empty() ? std::string("?") : cols.front(), t->iceberg);
      }
      stored = std::move(**got);
      for (size_t i = 0; i < values.size(); ++i) unchanged->column_of[i] = stored->schema->IndexOf(t->columns[i].name);
    }
    unchanged->from = &*stored;
  }
  FLOE_RETURN_IF_ERROR(
      AppendRow(*t, &t->batch, kind, txn_pos_, change_lsn_, values, old, unchanged ? &*unchanged : nullptr));
  t->batch_rows[KeyText(*t, values)] = kind == RowKind::kDelete ? -1 : t->batch.num_rows - 1;
  if (t->batch.num_rows >= 8192) return Flush(t);
  return Ok();
}

// A table's columns changed (a Relation message that differs): the window
// is committed (every transaction before this one: none of this one has
// reached a sink), the Iceberg table evolves, and a new sink takes the rows
// from here on.
Status PgSource::ChangeLayout(Table* t, std::vector<PgColumn> columns) {
  PGconn* c = query_.get();
  for (PgColumn& col : columns) {
    for (const PgColumn& old : t->columns) {
      if (old.name == col.name) col.key = old.key;
    }
    auto it = type_info_.find(col.type_oid);
    if (it == type_info_.end()) {
      FLOE_ASSIGN_OR_RETURN(Res ty, Exec(c, fmt::format("SELECT typelem, typcategory = 'A' FROM pg_type WHERE oid = {}",
                                                        col.type_oid)));
      std::pair<uint32_t, bool> info{0, false};
      if (PQntuples(ty.get()) == 1) {
        info = {static_cast<uint32_t>(std::stoul(PQgetvalue(ty.get(), 0, 0))),
                std::string(PQgetvalue(ty.get(), 0, 1)) == "t"};
      }
      it = type_info_.emplace(col.type_oid, info).first;
    }
    col.elem_oid = it->second.second ? it->second.first : 0;
  }
  if (t->batch.num_rows > 0 || txn_flushed_) {
    return Unsupported("PostgreSQL table {}: its columns changed inside a transaction (at LSN {}) that wrote rows "
                       "before the change; floe applies a schema change only between the rows of two transactions",
                       t->qualified(), FormatLsn(static_cast<uint64_t>(txn_pos_ - 1)));
  }
  FLOE_RETURN_IF_ERROR(commit_());
  t->sink.reset();
  t->columns = std::move(columns);
  FLOE_RETURN_IF_ERROR(BindTable(t));
  FLOE_RETURN_IF_ERROR(open_sink_(t));
  t->batch = Batch(t->schema);
  return Ok();
}

// TRUNCATE of a replicated table: the window is committed (the transactions
// before this one), then a snapshot that removes every file of the Iceberg
// table; the rest of the transaction follows in the next window.
Status PgSource::Truncate(Table* t) {
  const std::string lsn = FormatLsn(static_cast<uint64_t>(txn_pos_ - 1));
  if (cfg_.truncate == "refuse") {
    return Unsupported("PostgreSQL table {} was truncated (transaction at LSN {}) and the source's option "
                       "'truncate: refuse' stops the replication here",
                       t->qualified(), lsn);
  }
  if (t->batch.num_rows > 0 || txn_flushed_) {
    return Unsupported("PostgreSQL table {} was truncated (transaction at LSN {}) after that transaction wrote "
                       "rows: floe applies a TRUNCATE only before the rows of its transaction",
                       t->qualified(), lsn);
  }
  FLOE_RETURN_IF_ERROR(commit_());
  t->sink.reset();
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::ParseTableIdentifier(t->iceberg));
  FLOE_ASSIGN_OR_RETURN(bool exists, catalog_->TableExists(id));
  if (exists) {
    FLOE_ASSIGN_OR_RETURN(catalog::LoadedTable loaded, catalog_->LoadTable(id));
    if (loaded.metadata.current_snapshot_id) {
      table::Table table(catalog_, std::move(loaded));
      table::SnapshotUpdate update(&table);
      update.OverwriteAll().Set("floe.truncate", lsn);
      FLOE_ASSIGN_OR_RETURN(table::CommitResult done, update.Commit());
      FLOE_RETURN_IF_ERROR(Note(fmt::format("PostgreSQL table {} truncated at LSN {}: Iceberg table {} emptied "
                                            "(snapshot {})",
                                            t->qualified(), lsn, t->iceberg, done.snapshot_id)));
    }
  }
  return open_sink_(t);
}

Status PgSource::Flush(Table* t) {
  if (t->batch.num_rows == 0) return Ok();
  if (in_txn_) txn_flushed_ = true;
  for (const auto& [key, row] : t->batch_rows) t->window_keys.insert(std::hash<std::string>()(key));
  t->batch_rows.clear();
  Batch out = std::move(t->batch);
  t->batch = Batch(t->schema);
  return t->sink->Write(std::move(out));
}

Status PgSource::SendStatus(bool reply) {
  std::string msg = "r";
  const uint64_t pos = confirmed_;
  PutU64(&msg, pos);  // written
  PutU64(&msg, pos);  // flushed
  PutU64(&msg, pos);  // applied
  const auto since2000 = std::chrono::system_clock::now().time_since_epoch() - std::chrono::seconds(946684800);
  PutU64(&msg, static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(since2000).count()));
  msg.push_back(reply ? 1 : 0);
  if (PQputCopyData(repl_.get(), msg.data(), static_cast<int>(msg.size())) != 1 || PQflush(repl_.get()) != 0) {
    return IoError("PostgreSQL: replication: cannot send the standby status: {}", ConnError(repl_.get()));
  }
  last_status_ = Clock::now();
  return Ok();
}

// Every transaction received so far committed (none open, none handed
// since the last commit): the slot may move to the WAL end the server last
// reported (pg_source.h, the heartbeat). Asks for the next report.
Status PgSource::Heartbeat() {
  if (!in_txn_ && handed_txns_ == committed_txns_) confirmed_ = std::max({confirmed_, handed_end_, idle_end_});
  return SendStatus(true);
}

Status PgSource::Committed() {
  for (auto& t : tables_) t->window_keys.clear();
  committed_txns_ = handed_txns_;
  confirmed_ = std::max(confirmed_, handed_end_);
  // Nothing pending and the server went past: the WAL between holds nothing of ours.
  if (!in_txn_) confirmed_ = std::max(confirmed_, idle_end_);
  if (!streaming_) return Ok();
  return SendStatus(false);
}

// Every table's sink as the loop's target; the slot advances after all committed.
class PgTarget final : public sink::JobTarget {
 public:
  PgTarget(PgSource* src, std::vector<std::unique_ptr<Table>>* tables, const PgWriteOptions& o)
      : src_(src), tables_(*tables), o_(o) {}
  Status Commit(int64_t) override {
    const int64_t pos = src_->handed();
    bool any = false;
    for (auto& t : tables_) {
      any = any || t->sink->pending_rows() > 0;
      FLOE_RETURN_IF_ERROR(t->sink->Commit(pos));
    }
    FLOE_RETURN_IF_ERROR(src_->Committed());
    if (any && o_.on_commit) {
      nlohmann::ordered_json j;
      j["lsn"] = FormatLsn(static_cast<uint64_t>(std::max<int64_t>(pos, 1) - 1));
      j["tables"] = nlohmann::json::array();
      for (auto& t : tables_) j["tables"].push_back(nlohmann::ordered_json::parse(t->sink->StatsJson()));
      FLOE_RETURN_IF_ERROR(o_.on_commit(j.dump()));
    }
    return Ok();
  }
  Status Heartbeat() override {
    for (auto& t : tables_) FLOE_RETURN_IF_ERROR(t->sink->Heartbeat());
    return Ok();
  }
  int64_t pending_rows() const override {
    int64_t n = 0;
    for (auto& t : tables_) n += t->sink->pending_rows();
    return n;
  }
  sink::JobProgress Progress() const override {
    sink::JobProgress p;
    for (auto& t : tables_) {
      const sink::SinkStats st = t->sink->stats();
      p.read += st.read;
      p.applied += st.applied;
      p.errors += st.errors;
    }
    return p;
  }

 private:
  PgSource* src_;
  std::vector<std::unique_ptr<Table>>& tables_;
  const PgWriteOptions& o_;
};

}  // namespace

Status RunPostgresWrite(const sink::WriteConfig& config, catalog::Catalog* catalog, const PgSourceConfig& source,
                        sink::ChangeSinkOptions sink_options, const PgWriteOptions& options) {
  std::vector<std::string> names = source.tables;
  if (source.tables_from_publication) {
    // The tables of an existing publication, as they are when the run starts.
    FLOE_ASSIGN_OR_RETURN(Conn c, pgsrc::Connect(source.connection, false));
    FLOE_ASSIGN_OR_RETURN(Res p, Exec(c.get(), "SELECT 1 FROM pg_publication WHERE pubname = " +
                                                   Literal(c.get(), source.publication)));
    if (PQntuples(p.get()) == 0) {
      return InvalidArgument("source: publication {} does not exist (give 'tables' too, and floe creates it)",
                      source.publication);
    }
    FLOE_ASSIGN_OR_RETURN(Res r, Exec(c.get(), "SELECT format('%I.%I', schemaname, tablename) FROM "
                                               "pg_publication_tables WHERE pubname = " +
                                                   Literal(c.get(), source.publication) + " ORDER BY 1"));
    for (int i = 0; i < PQntuples(r.get()); ++i) names.emplace_back(PQgetvalue(r.get(), i, 0));
    if (names.empty()) return InvalidArgument("source: publication {} has no tables", source.publication);
  }
  std::vector<std::unique_ptr<Table>> tables;
  for (const std::string& name : names) {
    auto t = std::make_unique<Table>();
    t->name = name;
    tables.push_back(std::move(t));
  }
  if (tables.size() > 1 && source.iceberg_namespace.empty()) {
    return InvalidArgument("source: {} tables need 'namespace' (the Iceberg namespace of their tables)", tables.size());
  }
  if (source.iceberg_namespace.empty() && config.table.empty()) {
    return InvalidArgument("source: give the Iceberg table (`table:`) or the namespace of the tables (`namespace:`)");
  }
  PgSource src(source, &tables);
  FLOE_RETURN_IF_ERROR(src.Connect());
  PgTarget target(&src, &tables, options);

  // One change sink per table: merge-on-read on the primary key, the rows' kinds from the stream.
  std::map<Table*, sink::WriteConfig> configs;
  for (auto& t : tables) {
    sink::WriteConfig cfg = config;
    cfg.table.clear();
    t->iceberg = source.iceberg_namespace.empty() ? config.table : source.iceberg_namespace + "." + t->name;
    FLOE_RETURN_IF_ERROR(cfg.SetTable(t->iceberg, "source"));
    auto mode = cfg.sink_options.find("mode");
    if (mode != cfg.sink_options.end() && mode->second != "merge-on-read") {
      return InvalidArgument("a PostgreSQL source writes with mode merge-on-read (mode is {})", mode->second);
    }
    cfg.sink_options["mode"] = "merge-on-read";
    const std::string sink_id_key(config::keys::kBeamSinkId.name);
    if (!cfg.sink_options.contains(sink_id_key)) cfg.sink_options[sink_id_key] = "pg-" + source.slot;
    configs.emplace(t.get(), std::move(cfg));
  }
  PgSource* s = &src;
  auto open_sink = [&, s](Table* raw) -> Status {
    sink::ChangeSinkOptions copt = sink_options;
    copt.changes_in_batch = true;
    copt.summary["floe.input"] = s->name();
    copt.resume = [s, raw](std::string_view stored, std::string_view, int64_t position) {
      return s->CheckStored(raw, stored, position);
    };
    copt.describe_position = [s](int64_t position) -> Result<std::string> { return s->DescribePosition(position); };
    FLOE_ASSIGN_OR_RETURN(raw->sink, sink::ChangeSink::Open(configs.at(raw), catalog, raw->schema, std::move(copt)));
    return Ok();
  };
  src.SetHooks(catalog, [&target] { return target.Commit(0); }, open_sink, options.on_note);
  for (auto& t : tables) {
    FLOE_RETURN_IF_ERROR(src.BindTable(t.get()));
    FLOE_RETURN_IF_ERROR(open_sink(t.get()));
    t->batch = Batch(t->schema);
  }
  FLOE_RETURN_IF_ERROR(src.Prepare());

  sink::LoopOptions lo;
  lo.cancel = options.cancel;
  lo.on_progress = options.on_progress;
  const auto& so = tables.front()->sink->options();
  lo.trigger = std::chrono::seconds(so.triggering_frequency_seconds.value_or(10));
  if (so.token_heartbeat_seconds) lo.heartbeat = std::chrono::seconds(*so.token_heartbeat_seconds);
  return sink::RunStreamingLoop(src, target, lo);
}

Result<std::vector<PgTableInfo>> FindPgTables(const std::string& connection, const std::string& schema_regex,
                                              const std::string& table_regex) {
  FLOE_ASSIGN_OR_RETURN(Conn c, pgsrc::Connect(connection, false));
  auto whole = [&](const std::string& re) { return Literal(c.get(), "^(?:" + re + ")$"); };
  FLOE_ASSIGN_OR_RETURN(Res r, Exec(c.get(), "SELECT c.oid, n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON "
                                             "n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname NOT IN "
                                             "('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%' "
                                             "AND n.nspname ~ " + whole(schema_regex) + " AND c.relname ~ " +
                                             whole(table_regex) + " ORDER BY 2, 3"));
  std::vector<PgTableInfo> out;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    PgTableInfo t;
    t.schema_name = PQgetvalue(r.get(), i, 1);
    t.name = PQgetvalue(r.get(), i, 2);
    FLOE_ASSIGN_OR_RETURN(t.columns,
                          ReadColumns(c.get(), static_cast<uint32_t>(std::stoul(PQgetvalue(r.get(), i, 0))), nullptr));
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace floe::pgsrc
