// The SQL session: catalogs, names, DDL, SHOW / DESCRIBE, SET (session.h).
// Messages follow Flink's catalog exceptions (DatabaseNotExistException,
// TableAlreadyExistException, ...) and its SQL client.
#include "floe/sqlengine/session.h"

#include <algorithm>

#include <fmt/format.h>

#include "floe/catalog/serialized_catalog.h"
#include "floe/config/duration.h"
#include "floe/config/options.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/plugin/plugin_registry.h"
#include "floe/sink/write_config.h"
#include "floe/sql/parser.h"
#include "floe/sql/printer.h"
#include "floe/sql/sql_types.h"
#include "floe/sqlengine/builtin_connectors.h"
#include "floe/sqlengine/session_internal.h"

namespace floe::sqlengine {

namespace {

constexpr std::string_view kDefaultCatalog = "default_catalog";
constexpr std::string_view kDefaultDatabase = "default_database";
/// Iceberg's FlinkCatalogFactory: the database USE CATALOG selects.
constexpr std::string_view kIcebergDefaultDatabase = "default";

StatementResult Ok_() { return StatementResult{}; }

StatementResult Rows(std::vector<std::string> columns,
                     std::vector<std::vector<std::optional<std::string>>> rows) {
  StatementResult r;
  r.kind = StatementResult::Kind::kRows;
  r.table.columns = std::move(columns);
  for (size_t i = 0; i < r.table.columns.size(); ++i)
    r.table.types.push_back(MakeType(sql::TypeName::kString));
  r.table.rows = std::move(rows);
  return r;
}

// The SET keys floe acts on (besides the registry's connector.iceberg.*).
struct SessionKey {
  std::string_view key;
  std::vector<std::string_view> values;  ///< empty: any boolean / duration
  std::string_view kind;                 ///< "enum", "bool", "duration"
};

const std::vector<SessionKey>& SessionKeys() {
  static const std::vector<SessionKey> keys = {
      {"execution.runtime-mode", {"batch", "streaming"}, "enum"},
      {"table.dml-sync", {"true"}, "enum"},
      {"sql-client.verbose", {}, "bool"},
      {"sql-client.execution.result-mode", {"tableau"}, "enum"},
      {"execution.checkpointing.interval", {}, "duration"},
  };
  return keys;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string TablePath::Quoted() const {
  return sql::QuoteIdentifier(catalog) + "." + sql::QuoteIdentifier(database) + "." +
         sql::QuoteIdentifier(table);
}

Error Classed(std::string_view cls, Error e) {
  if (e.message.starts_with("floe.")) return e;
  e.message = fmt::format("{}: {}", cls, e.message);
  return e;
}

Error Validation(std::string message) {
  return Error{ErrorKind::kInvalidArgument, "floe.ValidationException: " + std::move(message),
               false};
}

Error NotSupportedYet(std::string_view what) {
  return Error{ErrorKind::kUnsupported,
               fmt::format("floe.UnsupportedException: {} is not supported yet", what), false};
}

// ---------------------------------------------------------------- Session

Session::Session(SessionOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Session::~Session() = default;

const std::string& Session::current_catalog() const { return impl_->current_catalog; }
const std::string& Session::current_database() const { return impl_->current_database; }
const std::map<std::string, std::string>& Session::options() const { return impl_->options; }
bool Session::verbose() const {
  auto it = impl_->options.find("sql-client.verbose");
  return it != impl_->options.end() && ToLower(it->second) == "true";
}

Result<StatementResult> Session::ExecuteSql(std::string_view text, sql::Pos start) {
  auto parsed = sql::ParseStatement(text, start);
  if (!parsed) {
    const char* cls = parsed.error().kind == ErrorKind::kUnsupported ? "floe.UnsupportedException"
                                                                     : "floe.ParseException";
    return Fail(Classed(cls, parsed.error()));
  }
  return Execute(*parsed);
}

Result<StatementResult> Session::Execute(const sql::Statement& statement) {
  impl_->stopped = false;
  return impl_->Execute(statement);
}

void Session::SetInterrupt(const sink::Cancellation* interrupt) { impl_->interrupt = interrupt; }
bool Session::stopped() const { return impl_->stopped; }
void Session::SetStreamingRows(std::function<void(const ResultTable&)> on_rows) {
  impl_->streaming_rows = std::move(on_rows);
}

Session::Impl::Impl(SessionOptions o) : session_options(std::move(o)) {
  RegisterBuiltinConnectors();
  CatalogEntry mem;
  mem.name = std::string(kDefaultCatalog);
  mem.default_database = std::string(kDefaultDatabase);
  mem.databases[mem.default_database] = MemoryDatabase{};
  catalogs.emplace(mem.name, std::move(mem));
  current_catalog = std::string(kDefaultCatalog);
  current_database = std::string(kDefaultDatabase);
  if (!session_options.print_out) {
    session_options.print_out = [](std::string_view s) {
      std::fwrite(s.data(), 1, s.size(), stdout);
    };
  }
  if (!session_options.print_err) {
    session_options.print_err = [](std::string_view s) {
      std::fwrite(s.data(), 1, s.size(), stderr);
    };
  }
}

EngineContext Session::Impl::Context() {
  EngineContext ctx;
  ctx.session = &options;
  ctx.print_out = session_options.print_out;
  ctx.print_err = session_options.print_err;
  ctx.warn = [this](std::string w) { warnings.push_back(std::move(w)); };
  auto it = options.find("execution.runtime-mode");
  ctx.streaming = it != options.end() && ToLower(it->second) == "streaming";
  return ctx;
}

Result<StatementResult> Session::Impl::Execute(const sql::Statement& st) {
  warnings.clear();
  Result<StatementResult> r = std::visit(
      [&](const auto& node) -> Result<StatementResult> {
        using T = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<T, sql::CreateCatalog>)
          return CreateCatalog(node);
        else if constexpr (std::is_same_v<T, sql::UseCatalog>)
          return UseCatalog(node);
        else if constexpr (std::is_same_v<T, sql::UseDatabase>)
          return UseDatabase(node);
        else if constexpr (std::is_same_v<T, sql::CreateDatabase>)
          return CreateDatabase(node);
        else if constexpr (std::is_same_v<T, sql::DropDatabase>)
          return DropDatabase(node);
        else if constexpr (std::is_same_v<T, sql::Show>)
          return Show(node);
        else if constexpr (std::is_same_v<T, sql::ShowCreateTable>)
          return ShowCreateTable(node);
        else if constexpr (std::is_same_v<T, sql::Describe>)
          return Describe(node);
        else if constexpr (std::is_same_v<T, sql::Set>)
          return SetOption(node);
        else if constexpr (std::is_same_v<T, sql::Reset>)
          return ResetOption(node);
        else if constexpr (std::is_same_v<T, sql::CreateTable>)
          return CreateTable(node);
        else if constexpr (std::is_same_v<T, sql::DropTable>)
          return DropTable(node);
        else if constexpr (std::is_same_v<T, sql::AlterTableSet>)
          return AlterTableSet(node);
        else if constexpr (std::is_same_v<T, sql::AlterTableReset>)
          return AlterTableReset(node);
        else if constexpr (std::is_same_v<T, sql::AddJar>)
          return AddJar(node);
        else if constexpr (std::is_same_v<T, sql::RemoveJar>)
          return RemoveJar(node);
        else if constexpr (std::is_same_v<T, sql::Insert>)
          return Insert(node);
        else if constexpr (std::is_same_v<T, sql::StatementSet>)
          return StatementSet(node);
        else
          return Query(node);
      },
      st.node);
  if (!r) {
    // Whatever was not classed on its way up failed while running.
    const char* cls = r.error().kind == ErrorKind::kUnsupported ? "floe.UnsupportedException"
                                                                : "floe.TableException";
    return Fail(Classed(cls, r.error()));
  }
  r->warnings.insert(r->warnings.begin(), warnings.begin(), warnings.end());
  warnings.clear();
  return r;
}

// ------------------------------------------------------------------ names

Result<TablePath> Session::Impl::Resolve(const sql::Identifier& id) const {
  TablePath p;
  const auto& parts = id.parts;
  if (parts.size() == 1) {
    p = {current_catalog, current_database, parts[0]};
  } else if (parts.size() == 2) {
    p = {current_catalog, parts[0], parts[1]};
  } else if (parts.size() == 3) {
    p = {parts[0], parts[1], parts[2]};
  } else {
    return Fail(
        Validation(fmt::format("Table identifier '{}' has more than 3 parts", id.ToString())));
  }
  return p;
}

Result<CatalogEntry*> Session::Impl::FindCatalog(const std::string& name) {
  auto it = catalogs.find(name);
  if (it == catalogs.end())
    return Fail(Validation(fmt::format("A catalog with name [{}] does not exist.", name)));
  return &it->second;
}

Result<TableHandle> Session::Impl::MemoryHandle(const TablePath& path, const sql::CreateTable& def,
                                                bool temporary) const {
  TableHandle h;
  h.catalog = path.catalog;
  h.database = path.database;
  h.name = path.table;
  h.temporary = temporary;
  for (const auto& p : def.options) h.options[p.key] = p.value;
  h.partition_keys = def.partitioned_by;
  if (!def.watermarks.empty())
    return Fail(NotSupportedYet(fmt::format("WATERMARK (table {})", path.Full())));
  for (const sql::ColumnDef& c : def.columns) {
    if (c.computed) {
      return Fail(NotSupportedYet(fmt::format("Computed column '{}' (table {}, line {}, column {})",
                                              c.name, path.Full(), c.pos.line, c.pos.column)));
    }
    if (c.metadata) {
      return Fail(NotSupportedYet(fmt::format("Metadata column '{}' (table {}, line {}, column {})",
                                              c.name, path.Full(), c.pos.line, c.pos.column)));
    }
  }
  auto schema = sql::ToIcebergSchema(def);
  if (!schema) return Fail(Classed("floe.ValidationException", schema.error()));
  std::vector<std::string> pk;
  if (def.primary_key) pk = def.primary_key->columns;
  for (const sql::ColumnDef& c : def.columns) {
    if (c.primary_key) pk.push_back(c.name);
  }
  h.primary_key = pk;
  for (size_t i = 0; i < def.columns.size(); ++i) {
    const sql::ColumnDef& c = def.columns[i];
    ColumnInfo info;
    info.name = c.name;
    info.type = *c.type;
    info.type.pos = {};
    if (std::find(pk.begin(), pk.end(), c.name) != pk.end()) info.type.nullable = false;
    info.physical = schema->fields()[i].type;
    h.schema.columns.push_back(std::move(info));
  }
  for (const std::string& k : def.partitioned_by) {
    bool found = false;
    for (const auto& c : h.schema.columns) found = found || c.name == k;
    if (!found) {
      return Fail(Validation(fmt::format(
          "Partition column '{}' not defined in the table schema. Available columns: [{}]", k, [&] {
            std::string s;
            for (const auto& c : h.schema.columns) s += (s.empty() ? "'" : ", '") + c.name + "'";
            return s;
          }())));
    }
  }
  return h;
}

Result<std::optional<TableHandle>> Session::Impl::Lookup(const TablePath& path) {
  if (auto it = temporary.find(path.Full()); it != temporary.end()) {
    FLOE_ASSIGN_OR_RETURN(TableHandle h, MemoryHandle(path, it->second.def, true));
    return std::optional<TableHandle>(std::move(h));
  }
  auto cat = catalogs.find(path.catalog);
  if (cat == catalogs.end()) return std::optional<TableHandle>();
  CatalogEntry& c = cat->second;
  if (!c.iceberg) {
    auto db = c.databases.find(path.database);
    if (db == c.databases.end()) return std::optional<TableHandle>();
    auto t = db->second.tables.find(path.table);
    if (t == db->second.tables.end()) return std::optional<TableHandle>();
    FLOE_ASSIGN_OR_RETURN(TableHandle h, MemoryHandle(path, t->second.def, false));
    return std::optional<TableHandle>(std::move(h));
  }
  catalog::TableIdentifier id{catalog::Namespace{{path.database}}, path.table};
  auto loaded = c.iceberg->LoadTable(id);
  if (!loaded) {
    if (loaded.error().kind == ErrorKind::kNotFound) return std::optional<TableHandle>();
    return Fail(loaded.error());
  }
  TableHandle h;
  h.catalog = path.catalog;
  h.database = path.database;
  h.name = path.table;
  h.iceberg = c.iceberg.get();
  SchemaPtr schema = loaded->metadata.CurrentSchema();
  for (const NestedField& f : schema->fields()) {
    h.schema.columns.push_back(ColumnInfo{f.name, LogicalOf(*f.type, !f.required), f.type});
  }
  for (int32_t fid : schema->identifier_field_ids()) {
    if (const NestedField* f = schema->FindField(fid)) h.primary_key.push_back(f->name);
  }
  if (const iceberg::PartitionSpec* spec = loaded->metadata.DefaultSpec()) {
    for (const auto& pf : spec->fields()) {
      if (pf.transform.kind() != iceberg::TransformKind::kIdentity)
        continue;  // Flink shows identity partitions only
      if (const NestedField* f = schema->FindField(pf.source_id))
        h.partition_keys.push_back(f->name);
    }
  }
  h.options = loaded->metadata.properties;
  h.loaded = std::move(*loaded);
  return std::optional<TableHandle>(std::move(h));
}

Result<TableHandle> Session::Impl::LoadTableHandle(const sql::Identifier& id) {
  FLOE_ASSIGN_OR_RETURN(TablePath path, Resolve(id));
  FLOE_ASSIGN_OR_RETURN(auto h, Lookup(path));
  if (!h) {
    return Fail(Validation(
        fmt::format("SQL validation failed. From line {}, column {} to line {}, column {}: "
                    "Object '{}' not found",
                    id.pos.line, id.pos.column, id.pos.line,
                    id.pos.column + static_cast<int>(id.ToString().size()) - 1, path.table)));
  }
  return std::move(*h);
}

Result<sql::CreateTable> Session::Impl::DefinitionOf(const TableHandle& h) const {
  sql::Identifier name;
  name.parts = {h.catalog, h.database, h.name};
  if (!h.iceberg) {
    auto it = temporary.find(TablePath{h.catalog, h.database, h.name}.Full());
    const sql::CreateTable* def = nullptr;
    if (it != temporary.end()) {
      def = &it->second.def;
    } else {
      def = &catalogs.at(h.catalog).databases.at(h.database).tables.at(h.name).def;
    }
    sql::CreateTable out = *def;
    out.name = name;
    out.if_not_exists = false;
    out.like.reset();
    return out;
  }
  sql::CreateTable out = sql::FromIcebergSchema(*h.loaded->metadata.CurrentSchema(), name);
  out.partitioned_by = h.partition_keys;
  for (const auto& [k, v] : h.options) out.options.push_back(sql::Property{k, v, {}});
  return out;
}

// ---------------------------------------------------------------- catalogs

Result<StatementResult> Session::Impl::CreateCatalog(const sql::CreateCatalog& s) {
  const std::string name = s.name.ToString();
  if (catalogs.contains(name))
    return Fail(Validation(fmt::format("Catalog {} already exists.", name)));
  std::map<std::string, std::string> opts;
  for (const auto& p : s.options) opts[p.key] = p.value;
  auto type = opts.find("type");
  if (type == opts.end()) {
    return Fail(Validation(
        "Catalog options do not contain an option key 'type' for discovering a catalog."));
  }
  if (type->second != "iceberg") {
    return Fail(
        Validation(fmt::format("Could not find any factory for identifier '{}' that implements "
                               "'CatalogFactory' in floe.\n\nAvailable "
                               "factory identifiers are:\n\niceberg",
                               type->second)));
  }
  opts.erase(type);
  std::string default_db(kIcebergDefaultDatabase);
  if (auto it = opts.find("default-database"); it != opts.end()) {
    default_db = it->second;
    opts.erase(it);
  }
  // Iceberg's FlinkCatalogFactory makes a missing catalog-type 'hive'
  // (floe's command line defaults to hadoop; SQL follows Iceberg).
  const std::string catalog_type(config::keys::kCatalogType.name);
  if (!opts.contains(catalog_type) && !opts.contains(std::string(config::keys::kCatalogImpl.name))) {
    opts[catalog_type] = "hive";
  }
  if (Status st = catalog::CheckCatalogOptions(name, opts); !st)
    return Fail(Classed("floe.ValidationException", st.error()));
  auto cat = catalog::OpenCatalog(name, opts);
  if (!cat) return Fail(Classed("floe.ValidationException", cat.error()));
  CatalogEntry e;
  e.name = name;
  // A statement set's INSERTs run side by side and may share the catalog.
  e.iceberg = std::make_unique<catalog::SerializedCatalog>(std::move(*cat));
  e.default_database = default_db;
  catalogs.emplace(name, std::move(e));
  return Ok_();
}

Result<StatementResult> Session::Impl::UseCatalog(const sql::UseCatalog& s) {
  FLOE_ASSIGN_OR_RETURN(CatalogEntry * c, FindCatalog(s.name.ToString()));
  current_catalog = c->name;
  current_database = c->default_database;
  return Ok_();
}

Result<StatementResult> Session::Impl::UseDatabase(const sql::UseDatabase& s) {
  std::string cat = current_catalog, db;
  if (s.name.parts.size() == 2) {
    cat = s.name.parts[0];
    db = s.name.parts[1];
  } else if (s.name.parts.size() == 1) {
    db = s.name.parts[0];
  } else {
    return Fail(Validation(
        fmt::format("Database identifier '{}' has more than 2 parts", s.name.ToString())));
  }
  FLOE_ASSIGN_OR_RETURN(CatalogEntry * c, FindCatalog(cat));
  bool exists = false;
  if (c->iceberg) {
    FLOE_ASSIGN_OR_RETURN(exists, c->iceberg->NamespaceExists(catalog::Namespace{{db}}));
  } else {
    exists = c->databases.contains(db);
  }
  if (!exists) {
    return Fail(Validation(
        fmt::format("A database with name [{}] does not exist in the catalog: [{}].", db, cat)));
  }
  current_catalog = cat;
  current_database = db;
  return Ok_();
}

Result<StatementResult> Session::Impl::CreateDatabase(const sql::CreateDatabase& s) {
  std::string cat = current_catalog, db = s.name.parts.back();
  if (s.name.parts.size() == 2) cat = s.name.parts[0];
  if (s.name.parts.size() > 2)
    return Fail(Validation(
        fmt::format("Database identifier '{}' has more than 2 parts", s.name.ToString())));
  FLOE_ASSIGN_OR_RETURN(CatalogEntry * c, FindCatalog(cat));
  std::map<std::string, std::string> props;
  for (const auto& p : s.options) props[p.key] = p.value;
  if (s.comment) props["comment"] = *s.comment;
  if (c->iceberg) {
    const catalog::Namespace ns{{db}};
    FLOE_ASSIGN_OR_RETURN(bool exists, c->iceberg->NamespaceExists(ns));
    if (exists) {
      if (s.if_not_exists) return Ok_();
      return Fail(Validation(fmt::format("Database {} already exists in Catalog {}.", db, cat)));
    }
    FLOE_RETURN_IF_ERROR(c->iceberg->CreateNamespace(ns, props));
    return Ok_();
  }
  if (c->databases.contains(db)) {
    if (s.if_not_exists) return Ok_();
    return Fail(Validation(fmt::format("Database {} already exists in Catalog {}.", db, cat)));
  }
  MemoryDatabase d;
  d.comment = s.comment;
  d.properties = props;
  c->databases[db] = std::move(d);
  return Ok_();
}

Result<StatementResult> Session::Impl::DropDatabase(const sql::DropDatabase& s) {
  std::string cat = current_catalog, db = s.name.parts.back();
  if (s.name.parts.size() == 2) cat = s.name.parts[0];
  FLOE_ASSIGN_OR_RETURN(CatalogEntry * c, FindCatalog(cat));
  if (cat == current_catalog && db == current_database) {
    return Fail(Validation("Cannot drop a database which is currently in use."));
  }
  if (c->iceberg) {
    const catalog::Namespace ns{{db}};
    FLOE_ASSIGN_OR_RETURN(bool exists, c->iceberg->NamespaceExists(ns));
    if (!exists) {
      if (s.if_exists) return Ok_();
      return Fail(Validation(fmt::format("Database {} does not exist in Catalog {}.", db, cat)));
    }
    FLOE_ASSIGN_OR_RETURN(auto tables, c->iceberg->ListTables(ns));
    if (!tables.empty()) {
      if (s.cascade)
        return Fail(NotSupportedYet("DROP DATABASE ... CASCADE of a database with tables"));
      return Fail(Validation(fmt::format("Database {} in catalog {} is not empty.", db, cat)));
    }
    FLOE_RETURN_IF_ERROR(c->iceberg->DropNamespace(ns));
    return Ok_();
  }
  auto it = c->databases.find(db);
  if (it == c->databases.end()) {
    if (s.if_exists) return Ok_();
    return Fail(Validation(fmt::format("Database {} does not exist in Catalog {}.", db, cat)));
  }
  if (!it->second.tables.empty() && !s.cascade) {
    return Fail(Validation(fmt::format("Database {} in catalog {} is not empty.", db, cat)));
  }
  c->databases.erase(it);
  return Ok_();
}

Result<StatementResult> Session::Impl::Show(const sql::Show& s) {
  std::vector<std::vector<std::optional<std::string>>> rows;
  switch (s.kind) {
    case sql::ShowKind::kCatalogs:
      for (const auto& [name, c] : catalogs) rows.push_back({name});
      return Rows({"catalog name"}, std::move(rows));
    case sql::ShowKind::kCurrentCatalog: return Rows({"current catalog name"}, {{current_catalog}});
    case sql::ShowKind::kCurrentDatabase:
      return Rows({"current database name"}, {{current_database}});
    case sql::ShowKind::kJars:
      for (const auto& j : jars) rows.push_back({j});
      return Rows({"jars"}, std::move(rows));
    case sql::ShowKind::kDatabases: {
      FLOE_ASSIGN_OR_RETURN(CatalogEntry * c, FindCatalog(current_catalog));
      std::vector<std::string> names;
      if (c->iceberg) {
        FLOE_ASSIGN_OR_RETURN(auto nss, c->iceberg->ListNamespaces(catalog::Namespace{}));
        for (const auto& ns : nss) names.push_back(ns.ToString());
      } else {
        for (const auto& [name, d] : c->databases) names.push_back(name);
      }
      std::sort(names.begin(), names.end());
      for (auto& n : names) rows.push_back({std::move(n)});
      return Rows({"database name"}, std::move(rows));
    }
    case sql::ShowKind::kTables: {
      std::string cat = current_catalog, db = current_database;
      if (s.from) {
        if (s.from->parts.size() == 2) {
          cat = s.from->parts[0];
          db = s.from->parts[1];
        } else {
          db = s.from->parts.back();
        }
      }
      FLOE_ASSIGN_OR_RETURN(CatalogEntry * c, FindCatalog(cat));
      std::vector<std::string> names;
      if (c->iceberg) {
        const catalog::Namespace ns{{db}};
        FLOE_ASSIGN_OR_RETURN(bool exists, c->iceberg->NamespaceExists(ns));
        if (!exists)
          return Fail(
              Validation(fmt::format("Database {} does not exist in Catalog {}.", db, cat)));
        FLOE_ASSIGN_OR_RETURN(auto ids, c->iceberg->ListTables(ns));
        for (const auto& id : ids) names.push_back(id.name);
      } else {
        auto it = c->databases.find(db);
        if (it == c->databases.end())
          return Fail(
              Validation(fmt::format("Database {} does not exist in Catalog {}.", db, cat)));
        for (const auto& [name, t] : it->second.tables) names.push_back(name);
      }
      // SHOW TABLES lists the temporary tables of the database too.
      const std::string prefix = cat + "." + db + ".";
      for (const auto& [full, t] : temporary) {
        if (full.starts_with(prefix) && full.find('.', prefix.size()) == std::string::npos) {
          names.push_back(full.substr(prefix.size()));
        }
      }
      std::sort(names.begin(), names.end());
      names.erase(std::unique(names.begin(), names.end()), names.end());
      for (auto& n : names) rows.push_back({std::move(n)});
      return Rows({"table name"}, std::move(rows));
    }
  }
  return Internal("unknown SHOW");
}

Result<StatementResult> Session::Impl::Describe(const sql::Describe& s) {
  FLOE_ASSIGN_OR_RETURN(TablePath path, Resolve(s.name));
  FLOE_ASSIGN_OR_RETURN(auto h, Lookup(path));
  if (!h) {
    return Fail(Validation(
        fmt::format("Tables or views with the identifier '{}' doesn't exist.", path.Full())));
  }
  std::string key;
  if (!h->primary_key.empty()) {
    key = "PRI(";
    for (size_t i = 0; i < h->primary_key.size(); ++i) key += (i ? ", " : "") + h->primary_key[i];
    key += ")";
  }
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (const ColumnInfo& c : h->schema.columns) {
    const bool is_key =
        std::find(h->primary_key.begin(), h->primary_key.end(), c.name) != h->primary_key.end();
    sql::DataType t = c.type;
    t.nullable = true;
    rows.push_back(
        {c.name, TypeSummary(t), c.type.nullable ? "TRUE" : "FALSE", is_key ? key : "", "", ""});
  }
  return Rows({"name", "type", "null", "key", "extras", "watermark"}, std::move(rows));
}

Result<StatementResult> Session::Impl::ShowCreateTable(const sql::ShowCreateTable& s) {
  FLOE_ASSIGN_OR_RETURN(TablePath path, Resolve(s.name));
  FLOE_ASSIGN_OR_RETURN(auto h, Lookup(path));
  if (!h) {
    return Fail(Validation(
        fmt::format("Could not execute SHOW CREATE TABLE. Table with identifier {} does not exist.",
                    path.Quoted())));
  }
  FLOE_ASSIGN_OR_RETURN(sql::CreateTable def, DefinitionOf(*h));
  return Rows({"result"}, {{sql::ShowCreateTableText(def)}});
}

// ---------------------------------------------------------------- JARs

// ADD JAR loads a plugin library (include/floe/plugin.h) and registers its
// classes for 'connector.class-name' (floe's "jars" are shared libraries).
Result<StatementResult> Session::Impl::AddJar(const sql::AddJar& s) {
  auto loaded = plugin::LoadPlugin(s.path);
  if (!loaded) return Fail(Classed("floe.PluginException", loaded.error()));
  if (std::find(jars.begin(), jars.end(), s.path) == jars.end()) jars.push_back(s.path);
  return Ok_();
}

Result<StatementResult> Session::Impl::RemoveJar(const sql::RemoveJar& s) {
  auto it = std::find(jars.begin(), jars.end(), s.path);
  if (it == jars.end()) {
    return Fail(Validation(fmt::format("The specified jar {} is not added by ADD JAR.", s.path)));
  }
  if (Status st = plugin::UnloadPlugin(s.path); !st)
    return Fail(Classed("floe.PluginException", st.error()));
  jars.erase(it);
  return Ok_();
}

// ---------------------------------------------------------------- SET

Result<StatementResult> Session::Impl::SetOption(const sql::Set& s) {
  if (!s.property) {
    std::vector<std::vector<std::optional<std::string>>> rows;
    for (const auto& [k, v] : options) rows.push_back({k, v});
    return Rows({"key", "value"}, std::move(rows));
  }
  const std::string& key = s.property->key;
  const std::string& value = s.property->value;
  if (key.starts_with("connector.iceberg.")) {
    const config::OptionDef* def = config::FindOption(key, uint32_t(config::Scope::kRead));
    if (!def) {
      return Fail(Validation(fmt::format(
          "SET '{}': not a read option of the Iceberg connector (see `floe options`)", key)));
    }
    if (Status st = config::CheckValue(*def, key, value); !st)
      return Fail(Classed("floe.ValidationException", st.error()));
    options[key] = value;
    return Ok_();
  }
  for (const SessionKey& k : SessionKeys()) {
    if (k.key != key) continue;
    if (k.kind == "bool" && ToLower(value) != "true" && ToLower(value) != "false") {
      return Fail(Validation(fmt::format("Could not parse value '{}' for key '{}'.", value, key)));
    }
    if (k.kind == "enum") {
      bool ok = false;
      for (auto v : k.values) ok = ok || ToLower(value) == v;
      if (!ok) {
        std::string list;
        for (auto v : k.values) list += (list.empty() ? "" : ", ") + std::string(v);
        if (key == "sql-client.execution.result-mode") {
          return Fail(NotSupportedYet(
              fmt::format("SET '{}' = '{}' (floe prints results as tableau)", key, value)));
        }
        if (key == "table.dml-sync") {
          return Fail(NotSupportedYet(
              fmt::format("SET '{}' = '{}' (floe runs every INSERT to its end)", key, value)));
        }
        return Fail(Validation(fmt::format(
            "Could not parse value '{}' for key '{}'. Expected one of: [{}]", value, key, list)));
      }
    }
    if (k.kind == "duration") {
      if (std::string why = config::ValidateDuration(value); !why.empty()) {
        return Fail(Validation(
            fmt::format("Could not parse value '{}' for key '{}': {}", value, key, why)));
      }
    }
    options[key] = value;
    return Ok_();
  }
  std::string list;
  for (const SessionKey& k : SessionKeys()) list += "\n" + std::string(k.key);
  return Fail(
      NotSupportedYet(fmt::format("SET '{}'; the session options floe acts on are:{}\nand the "
                                  "Iceberg read options as connector.iceberg.<option>",
                                  key, list)));
}

Result<StatementResult> Session::Impl::ResetOption(const sql::Reset& s) {
  if (!s.key) {
    options.clear();
  } else {
    options.erase(*s.key);
  }
  return Ok_();
}

// ---------------------------------------------------------------- tables

namespace {

// Iceberg table properties from WITH options: known keys checked through the
// registry, unknown ones kept with a warning (Iceberg's catalog keeps them).
Status CheckTableProperties(const std::map<std::string, std::string>& props,
                            std::vector<std::string>* warnings, const std::string& table) {
  for (const auto& [key, value] : props) {
    const config::OptionDef* def = config::FindOption(key, uint32_t(config::Scope::kTable));
    if (!def) {
      warnings->push_back(
          fmt::format("table {}: '{}' is not an Iceberg table property floe knows; kept as a table "
                      "property (as Iceberg's Flink "
                      "catalog keeps unknown options)",
                      table, key));
      continue;
    }
    FLOE_RETURN_IF_ERROR(config::CheckValue(*def, key, value));
    FLOE_RETURN_IF_ERROR(config::CheckSupport(*def, key, value, config::Use::kNewTable));
  }
  return Ok();
}

// CREATE TABLE ... LIKE: the merged definition (Flink docs: CREATE TABLE, LIKE;
// default INCLUDING ALL OVERWRITING OPTIONS).
Result<sql::CreateTable> MergeLike(const sql::CreateTable& s, const sql::CreateTable& base) {
  using sql::LikeFeature;
  using sql::LikeStrategy;
  LikeStrategy constraints = LikeStrategy::kIncluding, partitions = LikeStrategy::kIncluding,
               opts = LikeStrategy::kOverwriting;
  for (const sql::LikeOption& o : s.like->options) {
    switch (o.feature) {
      case LikeFeature::kAll:
        constraints = partitions = o.strategy;
        opts = o.strategy == LikeStrategy::kIncluding ? LikeStrategy::kIncluding : o.strategy;
        break;
      case LikeFeature::kConstraints: constraints = o.strategy; break;
      case LikeFeature::kPartitions: partitions = o.strategy; break;
      case LikeFeature::kOptions: opts = o.strategy; break;
      default: break;  // GENERATED / WATERMARKS: floe tables have neither
    }
  }
  sql::CreateTable out = s;
  out.like.reset();
  out.columns = base.columns;
  for (auto& c : out.columns) {
    if (constraints == LikeStrategy::kExcluding) c.primary_key = false;
  }
  for (const sql::ColumnDef& c : s.columns) {
    for (const sql::ColumnDef& b : base.columns) {
      if (b.name == c.name) {
        return Fail(Validation(
            fmt::format("A column named '{}' already exists in the base table.", c.name)));
      }
    }
    out.columns.push_back(c);
  }
  const bool base_pk =
      base.primary_key.has_value() || std::any_of(base.columns.begin(), base.columns.end(),
                                                  [](const auto& c) { return c.primary_key; });
  if (constraints != LikeStrategy::kExcluding && base_pk) {
    if (s.primary_key) {
      return Fail(
          Validation("The base table already has a primary key. You might want to specify "
                     "EXCLUDING CONSTRAINTS."));
    }
    out.primary_key = base.primary_key;
  }
  if (partitions != LikeStrategy::kExcluding && !base.partitioned_by.empty()) {
    if (!s.partitioned_by.empty()) {
      return Fail(
          Validation("The base table already has partitions defined. You might want to specify "
                     "EXCLUDING PARTITIONS."));
    }
    out.partitioned_by = base.partitioned_by;
  }
  out.options.clear();
  if (opts != LikeStrategy::kExcluding) {
    for (const auto& p : base.options) out.options.push_back(p);
  }
  for (const auto& p : s.options) {
    auto it = std::find_if(out.options.begin(), out.options.end(),
                           [&](const auto& q) { return q.key == p.key; });
    if (it != out.options.end()) {
      if (opts == LikeStrategy::kIncluding) {
        return Fail(Validation(fmt::format(
            "There already exists an option ['{}' -> '{}']  in the base table. You might "
            "want to specify EXCLUDING OPTIONS or OVERWRITING OPTIONS.",
            it->key, it->value)));
      }
      it->value = p.value;
    } else {
      out.options.push_back(p);
    }
  }
  return out;
}

}  // namespace

Result<StatementResult> Session::Impl::CreateTable(const sql::CreateTable& s_in) {
  FLOE_ASSIGN_OR_RETURN(TablePath path, Resolve(s_in.name));
  sql::CreateTable s = s_in;
  if (s.like) {
    FLOE_ASSIGN_OR_RETURN(TableHandle base, LoadTableHandle(s.like->source));
    FLOE_ASSIGN_OR_RETURN(sql::CreateTable base_def, DefinitionOf(base));
    FLOE_ASSIGN_OR_RETURN(s, MergeLike(s, base_def));
  }
  s.name.parts = {path.catalog, path.database, path.table};
  FLOE_ASSIGN_OR_RETURN(CatalogEntry * c, FindCatalog(path.catalog));
  if (s.temporary) {
    if (temporary.contains(path.Full())) {
      if (s.if_not_exists) return Ok_();
      return Fail(Validation(fmt::format("Temporary table '{}' already exists", path.Quoted())));
    }
    // The definition must make sense now (types, key, partitions); options are checked on use.
    FLOE_RETURN_IF_ERROR(MemoryHandle(path, s, true));
    temporary[path.Full()] = MemoryTable{s};
    return Ok_();
  }
  if (!c->iceberg) {
    auto db = c->databases.find(path.database);
    if (db == c->databases.end()) {
      return Fail(Validation(fmt::format(
          "Could not execute CreateTable in path {}\nDatabase {} does not exist in Catalog {}.",
          path.Quoted(), path.database, path.catalog)));
    }
    if (db->second.tables.contains(path.table)) {
      if (s.if_not_exists) return Ok_();
      return Fail(
          Validation(fmt::format("Could not execute CreateTable in path {}\nTable (or view) {}.{} "
                                 "already exists in Catalog {}.",
                                 path.Quoted(), path.database, path.table, path.catalog)));
    }
    FLOE_RETURN_IF_ERROR(MemoryHandle(path, s, false));
    db->second.tables[path.table] = MemoryTable{s};
    return Ok_();
  }
  // An Iceberg table: physical columns, PK -> identifier fields, identity
  // partitions, WITH -> table properties (Iceberg's FlinkCatalog.createTable).
  std::map<std::string, std::string> props;
  for (const auto& p : s.options) props[p.key] = p.value;
  if (auto it = props.find("connector"); it != props.end()) {
    if (it->second != "iceberg") {
      return Fail(
          Validation(fmt::format("Cannot create the table with 'connector'='{}' table property in "
                                 "an iceberg catalog, Please create table "
                                 "with 'connector'='{}' property in a non-iceberg catalog or "
                                 "create table without 'connector'='{}' related "
                                 "properties in an iceberg table.",
                                 it->second, it->second, it->second)));
    }
    props.erase(it);
  }
  catalog::TableDefinition def;
  if (auto it = props.find("location"); it != props.end()) {
    def.location = it->second;
    props.erase(it);
  }
  auto schema = sql::ToIcebergSchema(s);
  if (!schema)
    return Fail(Classed(schema.error().kind == ErrorKind::kUnsupported ? "floe.UnsupportedException"
                                                                       : "floe.ValidationException",
                        schema.error()));
  if (Status st = schema->Validate(); !st)
    return Fail(Classed("floe.ValidationException", st.error()));
  def.schema = std::move(*schema);
  auto spec = sink::ParsePartitionFields(s.partitioned_by, def.schema);
  if (!spec) return Fail(Classed("floe.ValidationException", spec.error()));
  def.spec = std::move(*spec);
  if (Status st = CheckTableProperties(props, &warnings, path.Full()); !st) {
    return Fail(Classed("floe.ValidationException", st.error()));
  }
  def.properties = std::move(props);
  const catalog::TableIdentifier id{catalog::Namespace{{path.database}}, path.table};
  FLOE_ASSIGN_OR_RETURN(bool ns_exists, c->iceberg->NamespaceExists(id.ns));
  if (!ns_exists) {
    return Fail(Validation(fmt::format(
        "Could not execute CreateTable in path {}\nDatabase {} does not exist in Catalog {}.",
        path.Quoted(), path.database, path.catalog)));
  }
  auto created = c->iceberg->CreateTable(id, def);
  if (!created) {
    if (created.error().kind == ErrorKind::kAlreadyExists) {
      if (s.if_not_exists) return Ok_();
      return Fail(
          Validation(fmt::format("Could not execute CreateTable in path {}\nTable (or view) {}.{} "
                                 "already exists in Catalog {}.",
                                 path.Quoted(), path.database, path.table, path.catalog)));
    }
    return Fail(created.error());
  }
  return Ok_();
}

Result<StatementResult> Session::Impl::DropTable(const sql::DropTable& s) {
  FLOE_ASSIGN_OR_RETURN(TablePath path, Resolve(s.name));
  if (s.temporary) {
    if (temporary.erase(path.Full()) == 0 && !s.if_exists) {
      return Fail(Validation(
          fmt::format("Temporary table with identifier '{}' does not exist.", path.Quoted())));
    }
    return Ok_();
  }
  if (temporary.contains(path.Full())) {
    return Fail(
        Validation(fmt::format("Temporary table with identifier '{}' exists. Drop it first before "
                               "removing the permanent table.",
                               path.Quoted())));
  }
  auto missing = [&]() -> Result<StatementResult> {
    if (s.if_exists) return Ok_();
    return Fail(Validation(fmt::format("Table with identifier '{}' does not exist.", path.Full())));
  };
  auto cat = catalogs.find(path.catalog);
  if (cat == catalogs.end()) return missing();
  if (!cat->second.iceberg) {
    auto db = cat->second.databases.find(path.database);
    if (db == cat->second.databases.end() || db->second.tables.erase(path.table) == 0)
      return missing();
    return Ok_();
  }
  const catalog::TableIdentifier id{catalog::Namespace{{path.database}}, path.table};
  FLOE_ASSIGN_OR_RETURN(bool exists, cat->second.iceberg->TableExists(id));
  if (!exists) return missing();
  // Iceberg's FlinkCatalog.dropTable calls Catalog.dropTable(id), which purges.
  FLOE_RETURN_IF_ERROR(cat->second.iceberg->DropTable(id, true));
  return Ok_();
}

Result<StatementResult> Session::Impl::AlterTableSet(const sql::AlterTableSet& s) {
  FLOE_ASSIGN_OR_RETURN(TablePath path, Resolve(s.name));
  FLOE_ASSIGN_OR_RETURN(TableHandle h, LoadTableHandle(s.name));
  std::map<std::string, std::string> set;
  for (const auto& p : s.options) set[p.key] = p.value;
  if (h.temporary)
    return Fail(Validation(fmt::format("Temporary table '{}' can't be altered.", path.Quoted())));
  if (!h.iceberg) {
    auto& def = catalogs.at(path.catalog).databases.at(path.database).tables.at(path.table).def;
    for (const auto& [k, v] : set) {
      auto it = std::find_if(def.options.begin(), def.options.end(),
                             [&](const auto& p) { return p.key == k; });
      if (it != def.options.end()) {
        it->value = v;
      } else {
        def.options.push_back(sql::Property{k, v, {}});
      }
    }
    return Ok_();
  }
  if (Status st = CheckTableProperties(set, &warnings, path.Full()); !st)
    return Fail(Classed("floe.ValidationException", st.error()));
  FLOE_ASSIGN_OR_RETURN(auto next, iceberg::UpdateProperties(h.loaded->metadata, set, {}));
  FLOE_RETURN_IF_ERROR(h.iceberg->CommitTable(*h.loaded, std::move(next)));
  return Ok_();
}

Result<StatementResult> Session::Impl::AlterTableReset(const sql::AlterTableReset& s) {
  FLOE_ASSIGN_OR_RETURN(TablePath path, Resolve(s.name));
  FLOE_ASSIGN_OR_RETURN(TableHandle h, LoadTableHandle(s.name));
  if (h.temporary)
    return Fail(Validation(fmt::format("Temporary table '{}' can't be altered.", path.Quoted())));
  for (const std::string& k : s.keys) {
    if (k == "connector")
      return Fail(Validation("ALTER TABLE RESET does not support changing 'connector'"));
  }
  if (!h.iceberg) {
    auto& def = catalogs.at(path.catalog).databases.at(path.database).tables.at(path.table).def;
    std::erase_if(def.options, [&](const auto& p) {
      return std::find(s.keys.begin(), s.keys.end(), p.key) != s.keys.end();
    });
    return Ok_();
  }
  FLOE_ASSIGN_OR_RETURN(auto next, iceberg::UpdateProperties(h.loaded->metadata, {}, s.keys));
  FLOE_RETURN_IF_ERROR(h.iceberg->CommitTable(*h.loaded, std::move(next)));
  return Ok_();
}

}  // namespace floe::sqlengine
