// The PostgreSQL driver of the SQL catalog's database interface (sql_db.h),
// through libpq. Statements go out with PQexecParams (every parameter as
// text, `?` rewritten to `$n`); errors are classified by SQLSTATE
// (PostgreSQL: Appendix A, Error Codes) and by the connection's state, so
// that a connection lost in the middle of a write is told apart from a
// statement the server refused.

#include <libpq-fe.h>

#include <cctype>
#include <map>

#include "floe/catalog/sql_db.h"

namespace floe::catalog::sql {

namespace {

// `?` placeholders as `$1, $2, ...`, outside quoted literals.
std::string NumberPlaceholders(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 8);
  int n = 0;
  bool quoted = false;
  for (char c : sql) {
    if (c == '\'') quoted = !quoted;
    if (c == '?' && !quoted) {
      out += fmt::format("${}", ++n);
    } else {
      out += c;
    }
  }
  return out;
}

class PostgresDb final : public Db {
 public:
  PostgresDb(PGconn* conn, std::string description)
      : conn_(conn), description_(std::move(description)) {}
  ~PostgresDb() override { PQfinish(conn_); }

  Dialect dialect() const override { return Dialect::kPostgres; }
  const std::string& description() const override { return description_; }

  Result<std::vector<Row>> Query(std::string_view sql, const std::vector<Value>& params) override {
    std::vector<Row> rows;
    FLOE_RETURN_IF_ERROR(Run(sql, params, &rows, nullptr));
    return rows;
  }

  Result<int64_t> Execute(std::string_view sql, const std::vector<Value>& params) override {
    int64_t changed = 0;
    FLOE_RETURN_IF_ERROR(Run(sql, params, nullptr, &changed));
    return changed;
  }

  Status Begin(bool for_write) override { return Run("BEGIN", {}, nullptr, nullptr); }
  Status Commit() override { return Run("COMMIT", {}, nullptr, nullptr); }
  void Rollback() override {
    if (PQstatus(conn_) == CONNECTION_OK && PQtransactionStatus(conn_) != PQTRANS_IDLE) {
      (void)Run("ROLLBACK", {}, nullptr, nullptr);
    }
  }

  Result<bool> TableExists(std::string_view table) override {
    FLOE_ASSIGN_OR_RETURN(auto rows,
                          Query("SELECT 1 FROM information_schema.tables WHERE table_schema = "
                                "current_schema() AND table_name = ?",
                                {std::string(table)}));
    return !rows.empty();
  }

  Result<std::vector<std::string>> Columns(std::string_view table) override {
    FLOE_ASSIGN_OR_RETURN(auto rows,
                          Query("SELECT column_name FROM information_schema.columns WHERE "
                                "table_schema = current_schema() AND table_name = ? "
                                "ORDER BY ordinal_position",
                                {std::string(table)}));
    std::vector<std::string> out;
    for (auto& r : rows) out.push_back(r[0].value_or(""));
    return out;
  }

 private:
  // A connection that broke before this statement is reset once, so a
  // long-lived catalog survives a server restart between operations. Never
  // inside a transaction: its earlier statements are gone with the old
  // connection.
  Status EnsureConnected() {
    if (PQstatus(conn_) == CONNECTION_OK) return Ok();
    if (in_transaction_)
      return IoError("{}: the connection was lost inside a transaction", description_);
    PQreset(conn_);
    if (PQstatus(conn_) != CONNECTION_OK) {
      return IoError("{}: cannot reconnect: {}", description_, PQerrorMessage(conn_));
    }
    return Ok();
  }

  std::unexpected<Error> StatementError(const PGresult* res, std::string_view sql) const {
    const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
    std::string text = res ? PQresultErrorMessage(res) : "";
    if (text.empty()) text = PQerrorMessage(conn_);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    const std::string msg = fmt::format("{}: {} (in: {})", description_, text, sql);
    const std::string_view code = state ? state : "";
    // A connection that is gone, or a server shutting it down (57P01
    // admin_shutdown, pg_terminate_backend): the statement may have run.
    if (PQstatus(conn_) != CONNECTION_OK || code.starts_with("08") || code.starts_with("57P")) {
      return IoError("{}", msg);
    }
    if (code == "23505") return AlreadyExists("{}", msg);
    if (code == "40001" || code == "40P01" || code == "55P03") return CommitFailed("{}", msg);
    if (code == "42P01") return NotFound("{}", msg);
    return InvalidArgument("{}", msg);
  }

  Status Run(std::string_view sql, const std::vector<Value>& params, std::vector<Row>* rows,
             int64_t* changed) {
    FLOE_RETURN_IF_ERROR(EnsureConnected());
    const std::string text = NumberPlaceholders(sql);
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
    PGresult* res = PQexecParams(conn_, text.c_str(), static_cast<int>(params.size()), nullptr,
                                 values.data(), nullptr, nullptr, 0);
    struct Clear {
      PGresult* r;
      ~Clear() { PQclear(r); }
    } clear{res};
    const ExecStatusType status = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      in_transaction_ =
          PQstatus(conn_) == CONNECTION_OK && PQtransactionStatus(conn_) != PQTRANS_IDLE;
      return StatementError(res, sql);
    }
    in_transaction_ = PQtransactionStatus(conn_) != PQTRANS_IDLE;
    if (changed) {
      const char* n = PQcmdTuples(res);
      *changed = (n && *n) ? std::stoll(n) : 0;
    }
    if (rows) {
      const int nrows = PQntuples(res);
      const int ncols = PQnfields(res);
      for (int r = 0; r < nrows; ++r) {
        Row row;
        for (int c = 0; c < ncols; ++c) {
          if (PQgetisnull(res, r, c)) {
            row.emplace_back(std::nullopt);
          } else {
            row.emplace_back(
                std::string(PQgetvalue(res, r, c), static_cast<size_t>(PQgetlength(res, r, c))));
          }
        }
        rows->push_back(std::move(row));
      }
    }
    return Ok();
  }

  PGconn* conn_;
  std::string description_;
  bool in_transaction_ = false;
};

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> PercentDecode(std::string_view s, std::string_view uri) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    const int hi = i + 2 < s.size() ? HexDigit(s[i + 1]) : -1;
    const int lo = i + 2 < s.size() ? HexDigit(s[i + 2]) : -1;
    if (hi < 0 || lo < 0) return InvalidArgument("uri {}: bad percent escape in '{}'", uri, s);
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

}  // namespace

Result<PostgresParams> ParsePostgresUri(std::string_view uri) {
  std::string_view rest = uri;
  if (rest.starts_with("jdbc:")) rest.remove_prefix(5);
  constexpr std::string_view kScheme = "postgresql://";
  if (!rest.starts_with(kScheme)) {
    return InvalidArgument("uri {}: expected jdbc:postgresql://HOST[:PORT]/DATABASE[?PARAMS]", uri);
  }
  rest.remove_prefix(kScheme.size());
  std::string_view query;
  if (auto q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  auto slash = rest.find('/');
  std::string_view hostport = rest.substr(0, slash);
  std::string_view db =
      slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  if (hostport.find('@') != std::string_view::npos) {
    return InvalidArgument(
        "uri {}: user info in the host part is not JDBC syntax: use jdbc.user and jdbc.password",
        uri);
  }
  std::string host;
  std::string port;
  if (hostport.starts_with("[")) {  // [IPv6]
    auto close = hostport.find(']');
    if (close == std::string_view::npos)
      return InvalidArgument("uri {}: unclosed '[' in the host", uri);
    host = std::string(hostport.substr(1, close - 1));
    std::string_view after = hostport.substr(close + 1);
    if (after.starts_with(":"))
      port = std::string(after.substr(1));
    else if (!after.empty())
      return InvalidArgument("uri {}: unexpected '{}' after the host", uri, after);
  } else {
    auto colon = hostport.rfind(':');
    host = std::string(hostport.substr(0, colon));
    if (colon != std::string_view::npos) port = std::string(hostport.substr(colon + 1));
  }
  if (host.empty()) host = "localhost";
  if (!port.empty() &&
      (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
       std::stoi(port) == 0 || std::stoi(port) > 65535)) {
    return InvalidArgument("uri {}: port '{}' is not a number from 1 to 65535", uri, port);
  }
  if (db.empty())
    return InvalidArgument("uri {}: no database name (jdbc:postgresql://HOST:PORT/DATABASE)", uri);
  FLOE_ASSIGN_OR_RETURN(std::string dbname, PercentDecode(db, uri));

  PostgresParams out;
  out.keywords.emplace_back("host", host);
  if (!port.empty()) out.keywords.emplace_back("port", port);
  out.keywords.emplace_back("dbname", dbname);
  // JDBC driver parameter names (pgjdbc) and their libpq keywords.
  static const std::map<std::string, std::string, std::less<>> kParams = {
      {"user", "user"},
      {"password", "password"},
      {"sslmode", "sslmode"},
      {"sslrootcert", "sslrootcert"},
      {"sslcert", "sslcert"},
      {"sslkey", "sslkey"},
      {"connectTimeout", "connect_timeout"},
      {"ApplicationName", "application_name"},
      {"applicationName", "application_name"},
      {"options", "options"},
      {"currentSchema", ""},  // becomes options=-c search_path=...
  };
  std::string options;
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view kv = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (kv.empty()) continue;
    auto eq = kv.find('=');
    std::string_view key = kv.substr(0, eq);
    FLOE_ASSIGN_OR_RETURN(
        std::string value,
        PercentDecode(eq == std::string_view::npos ? "" : kv.substr(eq + 1), uri));
    auto it = kParams.find(key);
    if (it == kParams.end()) {
      std::string valid;
      for (const auto& [k, v] : kParams) valid += (valid.empty() ? "" : ", ") + k;
      return InvalidArgument("uri {}: unsupported connection parameter '{}' (supported: {})", uri,
                             key, valid);
    }
    if (key == "currentSchema") {
      options += (options.empty() ? "" : " ") + std::string("-c search_path=") + value;
    } else if (key == "options") {
      options += (options.empty() ? "" : " ") + value;
    } else {
      out.keywords.emplace_back(it->second, value);
    }
  }
  if (!options.empty()) out.keywords.emplace_back("options", options);
  out.description =
      fmt::format("postgresql://{}{}/{}", host, port.empty() ? "" : ":" + port, dbname);
  return out;
}

Result<std::unique_ptr<Db>> OpenPostgres(const PostgresParams& params) {
  std::vector<const char*> keys;
  std::vector<const char*> values;
  bool has_timeout = false;
  for (const auto& [k, v] : params.keywords) {
    keys.push_back(k.c_str());
    values.push_back(v.c_str());
    has_timeout |= k == "connect_timeout";
  }
  // A catalog that cannot be reached fails in bounded time (libpq's default
  // is to wait forever).
  if (!has_timeout) {
    keys.push_back("connect_timeout");
    values.push_back("10");
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  PGconn* conn = PQconnectdbParams(keys.data(), values.data(), 0);
  if (!conn) return IoError("{}: cannot allocate a connection", params.description);
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string msg = PQerrorMessage(conn);
    while (!msg.empty() && std::isspace(static_cast<unsigned char>(msg.back()))) msg.pop_back();
    PQfinish(conn);
    return IoError("cannot connect to the PostgreSQL catalog database {}: {}", params.description,
                   msg);
  }
  // Messages and identifiers in UTF-8 whatever the server's default.
  PQsetClientEncoding(conn, "UTF8");
  return std::unique_ptr<Db>(new PostgresDb(conn, params.description));
}

}  // namespace floe::catalog::sql
