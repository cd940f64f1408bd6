// PostgreSQL as a source (pg_source.h): snapshot, then logical replication.
#include "floe/pgsrc/pg_source.h"

#include <libpq-fe.h>
#include <poll.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <memory>

#include "floe/config/options.h"
#include "floe/pgsrc/pg_value.h"

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

  std::string qualified() const { return schema_name + "." + name; }
};

class PgSource;

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
  static const char* kKeys[] = {"type", "connection", "tables", "publication", "slot", "startup", "namespace"};
  for (const auto& [k, v] : block) {
    if (std::find(std::begin(kKeys), std::end(kKeys), k) == std::end(kKeys)) {
      return InvalidArgument("{}: source key '{}' is unknown (valid keys: type, connection, tables, publication, "
                             "slot, startup, namespace)",
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
  if (c.tables.empty()) return InvalidArgument("{}: source: give 'tables' (PostgreSQL tables to replicate)", origin);
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
  if (c.startup != "initial" && c.startup != "latest-offset") {
    return InvalidArgument("{}: source startup '{}': valid values are initial, latest-offset", origin, c.startup);
  }
  c.iceberg_namespace = get("namespace");
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
  Status EnsurePublication();
  Status Snapshot(const std::vector<Table*>& tables, const std::string& snapshot, int64_t position,
                  const sink::Cancellation* cancel);
  Status StartReplication();
  Status HandleMessage(const char* data, size_t len);
  Status HandleChange(char kind, Reader& r);
  Status AddRow(Table* t, RowKind kind, const std::vector<TupleValue>& values, const std::vector<TupleValue>* old);
  Status Flush(Table* t);
  Status SendStatus(bool reply);
  Table* ByRelid(uint32_t relid) {
    for (auto& t : tables_) {
      if (t->relid == relid) return t.get();
    }
    return nullptr;
  }

  PgSourceConfig cfg_;
  std::vector<std::unique_ptr<Table>>& tables_;
  Conn query_, repl_;
  std::string system_id_, database_;
  std::string slot_snapshot_;  // the exported snapshot of a slot created now
  int64_t slot_point_ = 0;
  bool streaming_ = false;
  bool in_txn_ = false;
  int64_t txn_pos_ = 0;        // commit_lsn + 1 of the open transaction
  int64_t handed_pos_ = 0;     // position of the last transaction handed to the sinks
  uint64_t handed_end_ = 0;    // its end LSN
  uint64_t confirmed_ = 0;     // flushed to the slot
  uint64_t idle_end_ = 0;      // a keepalive's WAL end while nothing is pending
  Clock::time_point last_status_ = Clock::now();
};

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
  FLOE_ASSIGN_OR_RETURN(
      Res cols,
      Exec(c, fmt::format("SELECT a.attname, a.atttypid, a.atttypmod, a.attnotnull, "
                          "CASE WHEN t.typcategory = 'A' THEN t.typelem ELSE 0 END, "
                          "COALESCE(a.attnum = ANY(i.indkey), false) "
                          "FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
                          "LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary "
                          "WHERE a.attrelid = {} AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
                          t->relid)));
  std::vector<NestedField> fields;
  std::vector<int32_t> key_ids;
  const int n = PQntuples(cols.get());
  int32_t next_id = n + 1;
  for (int i = 0; i < n; ++i) {
    PgColumn col;
    col.name = PQgetvalue(cols.get(), i, 0);
    col.type_oid = static_cast<uint32_t>(std::stoul(PQgetvalue(cols.get(), i, 1)));
    col.typmod = std::stoi(PQgetvalue(cols.get(), i, 2));
    col.not_null = std::string(PQgetvalue(cols.get(), i, 3)) == "t";
    col.elem_oid = static_cast<uint32_t>(std::stoul(PQgetvalue(cols.get(), i, 4)));
    col.key = std::string(PQgetvalue(cols.get(), i, 5)) == "t";
    TypePtr type = IcebergTypeOf(col, &next_id);
    if (col.key) key_ids.push_back(i + 1);
    fields.push_back({i + 1, col.name, col.key, type, ""});
    t->columns.push_back(std::move(col));
  }
  if (key_ids.empty()) {
    return InvalidArgument("PostgreSQL table {} has no primary key: floe needs one (it becomes the Iceberg table's "
                           "identifier fields); add one (ALTER TABLE ... ADD PRIMARY KEY)",
                           t->qualified());
  }
  t->schema = std::make_shared<Schema>(std::move(fields), 0, key_ids);
  t->batch = Batch(t->schema);
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

Status PgSource::Snapshot(const std::vector<Table*>& tables, const std::string& snapshot, int64_t position,
                          const sink::Cancellation* cancel) {
  FLOE_ASSIGN_OR_RETURN(Conn c, pgsrc::Connect(cfg_.connection, false));
  FLOE_ASSIGN_OR_RETURN(Res b, Exec(c.get(), "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", PGRES_COMMAND_OK));
  FLOE_ASSIGN_OR_RETURN(Res s, Exec(c.get(), "SET TRANSACTION SNAPSHOT " + Literal(c.get(), snapshot), PGRES_COMMAND_OK));
  for (Table* t : tables) {
    std::string cols;
    for (const auto& col : t->columns) cols += (cols.empty() ? "" : ", ") + Ident(c.get(), col.name);
    const std::string sql = "COPY (SELECT " + cols + " FROM " + Ident(c.get(), t->schema_name) + "." +
                            Ident(c.get(), t->name) + ") TO STDOUT";
    FLOE_ASSIGN_OR_RETURN(Res copy, Exec(c.get(), sql, PGRES_COPY_OUT));
    txn_pos_ = position;
    std::vector<TupleValue> values(t->columns.size());
    std::vector<std::string> texts(t->columns.size());
    for (;;) {
      char* buf = nullptr;
      const int n = PQgetCopyData(c.get(), &buf, 0);
      if (n == -1) break;
      if (n < 0) return IoError("PostgreSQL: COPY of {} failed: {}", t->qualified(), ConnError(c.get()));
      std::string_view line(buf, static_cast<size_t>(n));
      if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
      size_t start = 0;
      Status st = Ok();
      for (size_t i = 0; i < values.size(); ++i) {
        size_t tab = line.find('\t', start);
        if (tab == std::string_view::npos) tab = line.size();
        if (i + 1 == values.size() ? tab != line.size() : tab == line.size()) {
          st = Corrupt("PostgreSQL: a COPY row of {} has not {} fields", t->qualified(), values.size());
          break;
        }
        const bool present = UnescapeCopyField(line.substr(start, tab - start), &texts[i]);
        values[i].kind = present ? 't' : 'n';
        values[i].text = texts[i];
        start = tab + 1;
      }
      if (st) st = AddRow(t, RowKind::kInsert, values, nullptr);
      PQfreemem(buf);
      FLOE_RETURN_IF_ERROR(st);
      if (cancel && cancel->cancelled()) {
        return Fail(Error{ErrorKind::kCommitFailed,
                          fmt::format("stopped during the snapshot of {}: nothing was committed (a snapshot is "
                                      "committed whole; the next run takes it again)",
                                      t->qualified()),
                          false});
      }
    }
    Res done(PQgetResult(c.get()));
    if (!done || PQresultStatus(done.get()) != PGRES_COMMAND_OK) {
      return IoError("PostgreSQL: COPY of {} failed: {}", t->qualified(), ConnError(c.get()));
    }
    while (Res more{PQgetResult(c.get())}) {
    }
    FLOE_RETURN_IF_ERROR(Flush(t));
    t->skip_upto = position;
    t->needs_snapshot = false;
  }
  FLOE_ASSIGN_OR_RETURN(Res e, Exec(c.get(), "COMMIT", PGRES_COMMAND_OK));
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
      if (now - last_status_ > std::chrono::seconds(10)) FLOE_RETURN_IF_ERROR(SendStatus(false));
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
    pollfd fds[2] = {{PQsocket(c), POLLIN, 0}, {cancel ? cancel->wake_fd() : -1, POLLIN, 0}};
    (void)::poll(fds, fds[1].fd >= 0 ? 2 : 1, timeout_ms);  // a signal or time-out: the loop decides
    if (PQconsumeInput(c) == 0) return IoError("PostgreSQL: replication: {}", ConnError(c));
    if (Clock::now() - last_status_ > std::chrono::seconds(10)) FLOE_RETURN_IF_ERROR(SendStatus(false));
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
  (void)r.U64();  // start
  (void)r.U64();  // WAL end
  (void)r.U64();  // time
  if (!r.ok) return Corrupt("replication: XLogData header cut short");
  const char msg = static_cast<char>(r.U8());
  switch (msg) {
    case 'B': {
      const uint64_t final_lsn = r.U64();
      in_txn_ = true;
      txn_pos_ = static_cast<int64_t>(final_lsn) + 1;
      return Ok();
    }
    case 'C': {
      (void)r.U8();
      (void)r.U64();  // commit LSN
      const uint64_t end = r.U64();
      for (auto& t : tables_) FLOE_RETURN_IF_ERROR(Flush(t.get()));
      in_txn_ = false;
      handed_pos_ = std::max(handed_pos_, txn_pos_);
      handed_end_ = std::max(handed_end_, end);
      return Ok();
    }
    case 'O':
    case 'Y':
      return Ok();  // origin, type: nothing to do (types are known by OID from the catalog)
    case 'R': {
      const uint32_t relid = r.U32();
      const std::string_view ns = r.Str(), rel = r.Str();
      (void)r.U8();
      const uint16_t ncols = r.U16();
      Table* t = ByRelid(relid);
      if (!t) return Ok();
      std::vector<std::pair<std::string, uint32_t>> cols;
      for (uint16_t i = 0; i < ncols && r.ok; ++i) {
        (void)r.U8();
        std::string name(r.Str());
        const uint32_t oid = r.U32();
        (void)r.U32();
        cols.emplace_back(std::move(name), oid);
      }
      if (!r.ok) return Corrupt("pgoutput: a Relation message is cut short");
      for (size_t i = 0; i < std::max(cols.size(), t->columns.size()); ++i) {
        if (i >= cols.size()) {
          return Unsupported("PostgreSQL table {}.{}: column {} was dropped; schema changes are not replicated yet",
                             ns, rel, t->columns[i].name);
        }
        if (i >= t->columns.size() || cols[i].first != t->columns[i].name) {
          return Unsupported("PostgreSQL table {}.{}: column {} was added or renamed; schema changes are not "
                             "replicated yet",
                             ns, rel, cols[i].first);
        }
        if (cols[i].second != t->columns[i].type_oid) {
          return Unsupported("PostgreSQL table {}.{}: column {} changed its type; schema changes are not replicated yet",
                             ns, rel, cols[i].first);
        }
      }
      return Ok();
    }
    case 'I':
    case 'U':
    case 'D':
      return HandleChange(msg, r);
    case 'T': {
      const uint32_t n = r.U32();
      (void)r.U8();
      for (uint32_t i = 0; i < n && r.ok; ++i) {
        Table* t = ByRelid(r.U32());
        if (t && txn_pos_ > t->skip_upto) {
          return Unsupported("PostgreSQL table {} was truncated (transaction at LSN {}): floe does not apply TRUNCATE "
                             "yet; the replication stops here",
                             t->qualified(), FormatLsn(static_cast<uint64_t>(txn_pos_ - 1)));
        }
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
  if (part == 'K' || part == 'O') {
    FLOE_ASSIGN_OR_RETURN(auto o, ReadTuple(r));
    old = std::move(o);
    part = static_cast<char>(r.U8());
  }
  if (part != 'N') return Corrupt("pgoutput: Update without a new tuple");
  FLOE_ASSIGN_OR_RETURN(auto row, ReadTuple(r));
  if (skip) return Ok();
  // An old key (the key changed, or REPLICA IDENTITY FULL): the old row goes first.
  if (old) FLOE_RETURN_IF_ERROR(AddRow(t, RowKind::kDelete, *old, nullptr));
  return AddRow(t, RowKind::kUpdateAfter, row, old ? &*old : nullptr);
}

Status PgSource::AddRow(Table* t, RowKind kind, const std::vector<TupleValue>& values,
                        const std::vector<TupleValue>* old) {
  if (values.size() != t->columns.size()) {
    return Unsupported("PostgreSQL table {}: a row of {} columns, the table had {} (schema changes are not "
                       "replicated yet)",
                       t->qualified(), values.size(), t->columns.size());
  }
  Batch& b = t->batch;
  for (size_t i = 0; i < values.size(); ++i) {
    const TupleValue* v = &values[i];
    if (v->kind == 'u') {
      if (old && i < old->size() && (*old)[i].kind != 'u') {
        v = &(*old)[i];  // REPLICA IDENTITY FULL: the old row holds the value
      } else {
        return Unsupported(
            "PostgreSQL table {} column {}: an UPDATE left this TOASTed value unchanged and pgoutput did not send "
            "it; floe does not read it back from the table yet and will not write a placeholder: set REPLICA "
            "IDENTITY FULL on the table (then the old row carries it)",
            t->qualified(), t->columns[i].name);
      }
    }
    ColumnVector& col = b.columns[i];
    if (v->kind == 'n') {
      col.AppendNull();
      continue;
    }
    if (Status st = AppendPgText(&col, *t->schema->fields()[i].type, t->columns[i].type_oid, v->text); !st) {
      return InvalidArgument("PostgreSQL table {} column {}: {}", t->qualified(), t->columns[i].name,
                             st.error().message);
    }
  }
  ++b.num_rows;
  b.row_kinds.push_back(kind);
  b.sequence_numbers.push_back(txn_pos_);
  b.positions.push_back(txn_pos_);
  if (b.num_rows >= 8192) return Flush(t);
  return Ok();
}

Status PgSource::Flush(Table* t) {
  if (t->batch.num_rows == 0) return Ok();
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

Status PgSource::Committed() {
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
  std::vector<std::unique_ptr<Table>> tables;
  for (const std::string& name : source.tables) {
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

  // One change sink per table: merge-on-read on the primary key, the rows' kinds from the stream.
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
    sink::ChangeSinkOptions copt = sink_options;
    copt.changes_in_batch = true;
    copt.summary["floe.input"] = src.name();
    Table* raw = t.get();
    PgSource* s = &src;
    copt.resume = [s, raw](std::string_view stored, std::string_view, int64_t position) {
      return s->CheckStored(raw, stored, position);
    };
    copt.describe_position = [s](int64_t position) -> Result<std::string> { return s->DescribePosition(position); };
    FLOE_ASSIGN_OR_RETURN(t->sink, sink::ChangeSink::Open(cfg, catalog, t->schema, std::move(copt)));
  }
  FLOE_RETURN_IF_ERROR(src.Prepare());

  sink::LoopOptions lo;
  lo.cancel = options.cancel;
  lo.on_progress = options.on_progress;
  const auto& so = tables.front()->sink->options();
  lo.trigger = std::chrono::seconds(so.triggering_frequency_seconds.value_or(10));
  if (so.token_heartbeat_seconds) lo.heartbeat = std::chrono::seconds(*so.token_heartbeat_seconds);
  PgTarget target(&src, &tables, options);
  return sink::RunStreamingLoop(src, target, lo);
}

}  // namespace floe::pgsrc
