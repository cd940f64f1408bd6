// The SQL catalog (Iceberg's JdbcCatalog layout) over the database interface
// of sql_db.h. What must match JdbcCatalog, so that Java and PyIceberg read
// and write the same catalog:
//  - the tables: iceberg_tables(catalog_name, table_namespace, table_name,
//    metadata_location, previous_metadata_location[, iceberg_type]) and
//    iceberg_namespace_properties(catalog_name, namespace, property_key,
//    property_value), with JdbcUtil's column types and primary keys;
//  - a namespace is stored as its levels joined by '.'; it exists when a row
//    of either table names it or a namespace below it (JdbcUtil's
//    namespaceExists); CreateNamespace writes the reserved property
//    `exists`=`true`, which is never returned;
//  - iceberg_type 'TABLE' or NULL is a table, 'VIEW' a view (schema V1);
//  - a commit is one conditional UPDATE of metadata_location (the row's old
//    value in the WHERE clause): one row changed is a win, none a lost race;
//  - metadata files are <location>/metadata/<5-digit version>-<uuid>.metadata.json,
//    the version one more than the current file's (BaseMetastoreTableOperations).

#include "floe/catalog/sql_catalog.h"

#include "floe/catalog/catalog_file_io.h"

#include <algorithm>
#include <mutex>
#include <set>
#include <sstream>

#include "floe/catalog/hadoop_files.h"
#include "floe/catalog/metadata_cache.h"
#include "floe/catalog/sql_db.h"
#include "floe/catalog/table_locations.h"
#include "floe/config/options.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/io/file_io.h"
#include "floe/io/location.h"
#include "floe/util/crash_point.h"
#include "floe/util/uuid.h"

namespace floe::catalog {

namespace {

using sql::Transaction;
using sql::Value;

constexpr std::string_view kTables = "iceberg_tables";
constexpr std::string_view kProperties = "iceberg_namespace_properties";
// The reserved namespace property that makes an empty namespace exist.
constexpr std::string_view kExistsProperty = "exists";

// JdbcUtil's DDL facts (Iceberg 1.5+): the V0 table, the column V1 adds,
// and the properties table. Column names, types and keys are the contract.
constexpr std::string_view kCreateTablesV0 =
    "CREATE TABLE IF NOT EXISTS iceberg_tables(catalog_name VARCHAR(255) NOT NULL, table_namespace "
    "VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000), "
    "previous_metadata_location VARCHAR(1000), PRIMARY KEY (catalog_name, table_namespace, "
    "table_name))";
constexpr std::string_view kAddRecordType =
    "ALTER TABLE iceberg_tables ADD COLUMN iceberg_type VARCHAR(5)";
constexpr std::string_view kCreateProperties =
    "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties(catalog_name VARCHAR(255) NOT NULL, "
    "namespace "
    "VARCHAR(255) NOT NULL, property_key VARCHAR(255), property_value VARCHAR(1000), PRIMARY KEY "
    "(catalog_name, namespace, property_key))";

std::string JoinLevels(const Namespace& ns) {
  std::string out;
  for (const auto& l : ns.levels) out += (out.empty() ? "" : ".") + l;
  return out;
}

Namespace SplitLevels(std::string_view text) {
  Namespace ns;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    ns.levels.emplace_back(text.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return ns;
}

// Characters (UTF-8 code points), as SQL's substr counts them in both
// SQLite and PostgreSQL.
size_t CodePoints(std::string_view s) {
  return static_cast<size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// The version in a metastore metadata file name `<version>-<uuid>...`; -1
// when the name has none (BaseMetastoreTableOperations.parseVersion).
int64_t ParseMetastoreVersion(std::string_view location) {
  auto slash = location.rfind('/');
  std::string_view name = slash == std::string_view::npos ? location : location.substr(slash + 1);
  auto dash = name.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash > 9) return -1;
  int64_t v = 0;
  for (char c : name.substr(0, dash)) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

// A local path as a file: URI (PITFALLS 98); other locations as given.
std::string AsUri(std::string_view location) {
  if (io::SchemeOf(location) != "file" || location.starts_with("file:"))
    return std::string(location);
  return FileUri(AbsolutePath(location));
}

std::string StripTrailingSlash(std::string s) {
  while (s.size() > 1 && s.ends_with("/") && !s.ends_with("//")) s.pop_back();
  return s;
}

class SqlCatalog final : public Catalog {
 public:
  SqlCatalog(std::string name, std::string warehouse, std::unique_ptr<sql::Db> db,
             bool has_record_type, io::FileIOPtr io)
      : name_(std::move(name)), warehouse_(std::move(warehouse)), db_(std::move(db)) {
    io_ = std::move(io);
    // Views (iceberg_type 'VIEW') are invisible to every table call; NULL
    // is a table written before the column existed.
    if (has_record_type) table_filter_ = " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)";
    has_record_type_ = has_record_type;
  }

  const std::string& name() const override { return name_; }

  Status CreateNamespace(const Namespace& ns,
                         const std::map<std::string, std::string>& props) override {
    std::lock_guard lock(mu_);
    if (ns.empty()) return InvalidArgument("cannot create the empty namespace");
    FLOE_RETURN_IF_ERROR(CheckNamespace(ns));
    if (props.contains(std::string(kExistsProperty))) {
      return InvalidArgument("namespace {}: property '{}' is reserved by the JdbcCatalog layout",
                             ns.ToString(), kExistsProperty);
    }
    Transaction tx(db_.get());
    FLOE_RETURN_IF_ERROR(Wrap(tx.Begin(true)));
    FLOE_ASSIGN_OR_RETURN(bool exists, ExistsLocked(ns));
    if (exists) return AlreadyExists("namespace {} already exists", ns.ToString());
    {
      auto loc = props.find("location");
      FLOE_RETURN_IF_ERROR(CheckNewNamespaceLocation(
          *io_, loc != props.end() ? StripTrailingSlash(AsUri(loc->second)) : NamespaceLocation(ns), ns));
    }
    std::map<std::string, std::string> rows = props;
    rows[std::string(kExistsProperty)] = "true";
    for (const auto& [k, v] : rows) {
      FLOE_RETURN_IF_ERROR(
          Wrap(db_->Execute("INSERT INTO iceberg_namespace_properties (catalog_name, namespace, "
                            "property_key, property_value) "
                            "VALUES (?, ?, ?, ?)",
                            {name_, JoinLevels(ns), k, v})));
    }
    return Wrap(tx.Commit());
  }

  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override {
    std::lock_guard lock(mu_);
    if (!parent.empty()) {
      FLOE_ASSIGN_OR_RETURN(bool exists, ExistsLocked(parent));
      if (!exists) return NotFound("namespace {} does not exist", parent.ToString());
    }
    std::set<Namespace> out;
    for (auto [table, column] :
         {std::pair{kTables, "table_namespace"}, std::pair{kProperties, "namespace"}}) {
      std::string sql =
          fmt::format("SELECT DISTINCT {} FROM {} WHERE catalog_name = ?", column, table);
      std::vector<Value> params{name_};
      if (!parent.empty()) {
        const std::string prefix = JoinLevels(parent) + ".";
        sql += fmt::format(" AND substr({}, 1, {}) = ?", column, CodePoints(prefix));
        params.push_back(prefix);
      }
      FLOE_ASSIGN_OR_RETURN(auto rows, Wrap(db_->Query(sql, params)));
      for (const auto& r : rows) {
        if (!r[0]) continue;
        Namespace ns = SplitLevels(*r[0]);
        if (ns.levels.size() <= parent.levels.size()) continue;
        if (!std::equal(parent.levels.begin(), parent.levels.end(), ns.levels.begin())) continue;
        ns.levels.resize(parent.levels.size() + 1);
        // An empty level (a row written as "" or "a..b") has no floe name.
        if (ns.levels.back().empty()) continue;
        out.insert(std::move(ns));
      }
    }
    return std::vector<Namespace>(out.begin(), out.end());
  }

  Result<bool> NamespaceExists(const Namespace& ns) override {
    std::lock_guard lock(mu_);
    return ExistsLocked(ns);
  }

  Status DropNamespace(const Namespace& ns) override {
    std::lock_guard lock(mu_);
    if (ns.empty()) return NotFound("namespace {} does not exist", ns.ToString());
    Transaction tx(db_.get());
    FLOE_RETURN_IF_ERROR(Wrap(tx.Begin(true)));
    FLOE_ASSIGN_OR_RETURN(bool exists, ExistsLocked(ns));
    if (!exists) return NotFound("namespace {} does not exist", ns.ToString());
    // Tables and views in it, or any namespace below it, keep it.
    FLOE_ASSIGN_OR_RETURN(
        auto in_it,
        Wrap(db_->Query("SELECT table_name FROM iceberg_tables WHERE catalog_name = ? AND "
                        "table_namespace = ? LIMIT 1",
                        {name_, JoinLevels(ns)})));
    if (!in_it.empty()) {
      return InvalidArgument("namespace {} is not empty: it holds {}", ns.ToString(),
                             in_it[0][0].value_or(""));
    }
    FLOE_ASSIGN_OR_RETURN(auto children, ListNamespaces(ns));
    if (!children.empty()) {
      return InvalidArgument("namespace {} is not empty: it holds namespace {}", ns.ToString(),
                             children[0].ToString());
    }
    FLOE_RETURN_IF_ERROR(Wrap(db_->Execute(
        "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ?",
        {name_, JoinLevels(ns)})));
    return Wrap(tx.Commit());
  }

  Result<std::map<std::string, std::string>> LoadNamespaceProperties(const Namespace& ns) override {
    std::lock_guard lock(mu_);
    FLOE_ASSIGN_OR_RETURN(bool exists, ExistsLocked(ns));
    if (!exists) return NotFound("namespace {} does not exist", ns.ToString());
    FLOE_ASSIGN_OR_RETURN(auto props, PropertiesLocked(ns));
    props.erase(std::string(kExistsProperty));
    // As JdbcCatalog: a namespace without its own location reports the
    // default one, where its tables go.
    if (!props.contains("location")) props["location"] = NamespaceLocation(ns);
    return props;
  }

  Result<NamespacePropertyChanges> UpdateNamespaceProperties(
      const Namespace& ns, const std::map<std::string, std::string>& set,
      const std::vector<std::string>& remove) override {
    std::lock_guard lock(mu_);
    for (const auto& k : remove) {
      if (set.contains(k))
        return InvalidArgument("namespace {}: property '{}' is both set and removed", ns.ToString(),
                               k);
    }
    if (set.contains(std::string(kExistsProperty)) ||
        std::find(remove.begin(), remove.end(), kExistsProperty) != remove.end()) {
      return InvalidArgument("namespace {}: property '{}' is reserved by the JdbcCatalog layout",
                             ns.ToString(), kExistsProperty);
    }
    Transaction tx(db_.get());
    FLOE_RETURN_IF_ERROR(Wrap(tx.Begin(true)));
    FLOE_ASSIGN_OR_RETURN(bool exists, ExistsLocked(ns));
    if (!exists) return NotFound("namespace {} does not exist", ns.ToString());
    FLOE_ASSIGN_OR_RETURN(auto current, PropertiesLocked(ns));
    NamespacePropertyChanges changes;
    const std::string level_text = JoinLevels(ns);
    for (const auto& [k, v] : set) {
      if (current.contains(k)) {
        FLOE_RETURN_IF_ERROR(
            Wrap(db_->Execute("UPDATE iceberg_namespace_properties SET property_value = ? WHERE "
                              "catalog_name = ? AND namespace = ? "
                              "AND property_key = ?",
                              {v, name_, level_text, k})));
      } else {
        FLOE_RETURN_IF_ERROR(
            Wrap(db_->Execute("INSERT INTO iceberg_namespace_properties (catalog_name, namespace, "
                              "property_key, property_value) "
                              "VALUES (?, ?, ?, ?)",
                              {name_, level_text, k, v})));
      }
      changes.updated.push_back(k);
    }
    for (const auto& k : remove) {
      if (!current.contains(k)) {
        changes.missing.push_back(k);
        continue;
      }
      FLOE_RETURN_IF_ERROR(
          Wrap(db_->Execute("DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND "
                            "namespace = ? AND property_key = ?",
                            {name_, level_text, k})));
      changes.removed.push_back(k);
    }
    FLOE_RETURN_IF_ERROR(Wrap(tx.Commit()));
    return changes;
  }

  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override {
    std::lock_guard lock(mu_);
    FLOE_ASSIGN_OR_RETURN(bool exists, ExistsLocked(ns));
    if (!exists) return NotFound("namespace {} does not exist", ns.ToString());
    FLOE_ASSIGN_OR_RETURN(
        auto rows, Wrap(db_->Query("SELECT table_name FROM iceberg_tables WHERE catalog_name = ? "
                                   "AND table_namespace = ?" +
                                       table_filter_,
                                   {name_, JoinLevels(ns)})));
    std::vector<TableIdentifier> out;
    for (const auto& r : rows) {
      if (r[0]) out.push_back(TableIdentifier{ns, *r[0]});
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  Result<bool> TableExists(const TableIdentifier& id) override {
    std::lock_guard lock(mu_);
    FLOE_ASSIGN_OR_RETURN(auto location, CurrentLocation(id));
    return location.has_value();
  }

  Result<LoadedTable> LoadTable(const TableIdentifier& id) override {
    std::lock_guard lock(mu_);
    FLOE_ASSIGN_OR_RETURN(auto location, CurrentLocation(id));
    if (!location) return NotFound("table {} does not exist", id.ToString());
    if (!*location)
      return Corrupt("table {}: the catalog row has no metadata_location", id.ToString());
    return LoadAt(id, **location);
  }

  Result<LoadedTable> CreateTable(const TableIdentifier& id, const TableDefinition& def) override {
    std::lock_guard lock(mu_);
    FLOE_RETURN_IF_ERROR(CheckIdentifier(id));
    FLOE_ASSIGN_OR_RETURN(bool ns_exists, ExistsLocked(id.ns));
    if (!ns_exists) return NotFound("namespace {} does not exist", id.ns.ToString());
    FLOE_ASSIGN_OR_RETURN(auto existing, AnyRow(id));
    if (existing) return AlreadyExists("{} {} already exists", *existing, id.ToString());
    iceberg::NewTableOptions o;
    o.location = def.location.empty() ? TableLocation(id) : StripTrailingSlash(AsUri(def.location));
    FLOE_RETURN_IF_ERROR(CheckNewTableLocation(*io_, o.location, id));
    o.schema = def.schema;
    o.spec = def.spec;
    o.sort_order = def.sort_order;
    o.properties = def.properties;
    // A reserved property, recorded as the metadata's format-version.
    FLOE_ASSIGN_OR_RETURN(auto format_version, config::Resolver(o.properties).Value(config::keys::kFormatVersion));
    o.format_version = static_cast<int32_t>(format_version);
    o.properties.erase(std::string(config::keys::kFormatVersion.name));
    o.now_ms = iceberg::NowMillis();
    FLOE_ASSIGN_OR_RETURN(auto metadata, iceberg::NewTableMetadata(o));
    FLOE_ASSIGN_OR_RETURN(std::string path, WriteMetadata(metadata, 0));

    Transaction tx(db_.get());
    Status st = Wrap(tx.Begin(true));
    if (st) {
      auto ns_still = ExistsLocked(id.ns);
      if (!ns_still)
        st = Fail(ns_still.error());
      else if (!*ns_still)
        st = NotFound("namespace {} does not exist (dropped meanwhile)", id.ns.ToString());
    }
    if (st) st = InsertRow(id, path);
    if (st) st = Wrap(tx.Commit());
    if (!st)
      return FailedWrite(st.error(), path, fmt::format("table {} already exists", id.ToString()));
    return LoadedTable{id, path, std::move(metadata)};
  }

  Result<LoadedTable> CommitTable(const LoadedTable& base,
                                  iceberg::TableMetadata updated) override {
    std::lock_guard lock(mu_);
    FLOE_RETURN_IF_ERROR(CheckLocation(base));
    FLOE_ASSIGN_OR_RETURN(
        const int32_t keep_versions,
        config::Resolver(updated.properties).Value(config::keys::kMetadataPreviousVersionsMax));
    iceberg::AddMetadataLogEntry(&updated, base.metadata_location, base.metadata.last_updated_ms,
                                 static_cast<size_t>(keep_versions));
    updated.last_updated_ms = std::max(updated.last_updated_ms, iceberg::NowMillis());
    const int64_t version = ParseMetastoreVersion(base.metadata_location) + 1;
    // Crash points of the commit (crash trials, tests/cli/catalog_crash_cli_test.cc):
    // before the metadata file, after it, after the UPDATE inside the
    // transaction (the database must roll it back), after the COMMIT.
    CrashPoint("catalog.before-metadata");
    FLOE_ASSIGN_OR_RETURN(std::string path, WriteMetadata(updated, version));

    CrashPoint("catalog.before-publish");
    Transaction tx(db_.get());
    if (Status st = Wrap(tx.Begin(true)); !st) return FailedWrite(st.error(), path, "");
    auto changed =
        Wrap(db_->Execute("UPDATE iceberg_tables SET metadata_location = ?, "
                          "previous_metadata_location = ? WHERE catalog_name = ? "
                          "AND table_namespace = ? AND table_name = ? AND metadata_location = ?" +
                              table_filter_,
                          {path, base.metadata_location, name_, JoinLevels(base.id.ns),
                           base.id.name, base.metadata_location}));
    if (!changed) return FailedWrite(changed.error(), path, "");
    if (*changed == 0) {
      tx.Rollback();
      (void)io_->Delete(path);
      return CommitFailed("table {}: {}", base.id.ToString(), WhyStale(base));
    }
    CrashPoint("catalog.updated");
    if (Status st = Wrap(tx.Commit()); !st) return FailedWrite(st.error(), path, "");
    CrashPoint("catalog.published");
    return LoadedTable{base.id, path, std::move(updated)};
  }

  // The row only: purge (deleting the files the metadata references) is the
  // table layer's job, as for the hadoop catalog.
  Status DropTable(const TableIdentifier& id, bool purge) override {
    std::lock_guard lock(mu_);
    FLOE_ASSIGN_OR_RETURN(int64_t n,
                          Wrap(db_->Execute("DELETE FROM iceberg_tables WHERE catalog_name = ? AND "
                                            "table_namespace = ? AND table_name = ?" +
                                                table_filter_,
                                            {name_, JoinLevels(id.ns), id.name})));
    if (n == 0) return NotFound("table {} does not exist", id.ToString());
    return Ok();
  }

  // One conditional DELETE: the row goes only while it still points at the
  // created version, so a writer that committed meanwhile keeps its table.
  Result<bool> DropIfUnchanged(const LoadedTable& created) override {
    std::lock_guard lock(mu_);
    FLOE_ASSIGN_OR_RETURN(
        int64_t n,
        Wrap(db_->Execute(
            "DELETE FROM iceberg_tables WHERE catalog_name = ? AND table_namespace "
            "= ? AND table_name = ? AND metadata_location = ?" +
                table_filter_,
            {name_, JoinLevels(created.id.ns), created.id.name, created.metadata_location})));
    if (n == 0) return false;
    // Nothing points at the created version now; a writer that loaded it
    // fails its commit (the row is gone). Best effort: leftovers are orphans.
    (void)io_->Delete(created.metadata_location);
    (void)io_->RemoveFolderIfEmpty(created.metadata.location + "/metadata");
    (void)io_->RemoveFolderIfEmpty(created.metadata.location);
    return true;
  }

  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override {
    std::lock_guard lock(mu_);
    FLOE_RETURN_IF_ERROR(CheckIdentifier(to));
    Transaction tx(db_.get());
    FLOE_RETURN_IF_ERROR(Wrap(tx.Begin(true)));
    FLOE_ASSIGN_OR_RETURN(auto source, CurrentLocation(from));
    if (!source) return NotFound("table {} does not exist", from.ToString());
    if (from == to) return Ok();
    FLOE_ASSIGN_OR_RETURN(bool ns_exists, ExistsLocked(to.ns));
    if (!ns_exists) return NotFound("namespace {} does not exist", to.ns.ToString());
    FLOE_ASSIGN_OR_RETURN(auto existing, AnyRow(to));
    if (existing)
      return AlreadyExists("cannot rename {} to {}: {} {} already exists", from.ToString(),
                           to.ToString(), *existing, to.ToString());
    auto n = Wrap(db_->Execute(
        "UPDATE iceberg_tables SET table_namespace = ?, table_name = ? WHERE catalog_name = ? "
        "AND table_namespace = ? AND table_name = ?" +
            table_filter_,
        {JoinLevels(to.ns), to.name, name_, JoinLevels(from.ns), from.name}));
    if (!n && n.error().kind == ErrorKind::kAlreadyExists) {
      return AlreadyExists("cannot rename {} to {}: table {} already exists", from.ToString(),
                           to.ToString(), to.ToString());
    }
    if (!n) return Fail(n.error());
    if (*n == 0) return NotFound("table {} does not exist", from.ToString());
    return Wrap(tx.Commit());
  }

  Result<LoadedTable> RegisterTable(const TableIdentifier& id,
                                    const std::string& metadata_location) override {
    std::lock_guard lock(mu_);
    FLOE_RETURN_IF_ERROR(CheckIdentifier(id));
    const std::string location = AsUri(metadata_location);
    // The file must be table metadata: a row pointing at anything else would
    // break every reader of the catalog.
    FLOE_ASSIGN_OR_RETURN(LoadedTable loaded, LoadAt(id, location));
    Transaction tx(db_.get());
    FLOE_RETURN_IF_ERROR(Wrap(tx.Begin(true)));
    FLOE_ASSIGN_OR_RETURN(bool ns_exists, ExistsLocked(id.ns));
    if (!ns_exists) return NotFound("namespace {} does not exist", id.ns.ToString());
    FLOE_ASSIGN_OR_RETURN(auto existing, AnyRow(id));
    if (existing) return AlreadyExists("{} {} already exists", *existing, id.ToString());
    if (Status st = InsertRow(id, location); !st) {
      if (st.error().kind == ErrorKind::kAlreadyExists)
        return AlreadyExists("table {} already exists", id.ToString());
      return Fail(st.error());
    }
    FLOE_RETURN_IF_ERROR(Wrap(tx.Commit()));
    return loaded;
  }

  std::string WarehouseLocation() const override { return warehouse_; }

 private:
  // Database errors carry the database's own words; prefix the catalog.
  template <typename T>
  Result<T> Wrap(Result<T> r) const {
    if (r) return r;
    return Fail(r.error().WithContext(fmt::format("sql catalog {}", name_)));
  }

  // A write that did not go through: remove the metadata file it wrote,
  // unless the outcome is unknown (kIo: the connection was lost while the
  // statement ran), where the file may be the table's current version.
  std::unexpected<Error> FailedWrite(const Error& e, const std::string& path,
                                     const std::string& duplicate) {
    if (e.kind == ErrorKind::kIo) {
      return CommitStateUnknown(
          "{}; the catalog may or may not point at {} now: it is kept (reload the table to see "
          "which)",
          e.message, path);
    }
    (void)io_->Delete(path);
    if (e.kind == ErrorKind::kAlreadyExists && !duplicate.empty())
      return AlreadyExists("{}", duplicate);
    return Fail(e);
  }

  // Why a commit based on `base` matched no row.
  std::string WhyStale(const LoadedTable& base) {
    auto now = CurrentLocation(base.id);
    if (!now)
      return fmt::format("the commit lost a race (and the table could not be reloaded: {})",
                         now.error().message);
    if (!*now) return "the table no longer exists (dropped or renamed since it was loaded)";
    return fmt::format("the table changed: {} is current, the commit was based on {}",
                       (*now)->value_or("(null)"), base.metadata_location);
  }

  Status CheckNamespace(const Namespace& ns) const {
    for (const auto& l : ns.levels) {
      FLOE_RETURN_IF_ERROR(ValidateName(l, "namespace"));
      // Levels are joined by '.' in the table_namespace column.
      if (l.find('.') != std::string::npos) {
        return InvalidArgument(
            "namespace level '{}' contains '.', which the JdbcCatalog layout uses between levels",
            l);
      }
    }
    return Ok();
  }
  Status CheckIdentifier(const TableIdentifier& id) const {
    if (id.ns.empty()) return InvalidArgument("table {}: a table needs a namespace", id.name);
    FLOE_RETURN_IF_ERROR(CheckNamespace(id.ns));
    return ValidateName(id.name, "table");
  }

  Result<bool> ExistsLocked(const Namespace& ns) {
    if (ns.empty()) return true;
    const std::string text = JoinLevels(ns);
    const std::string prefix = text + ".";
    for (auto [table, column] :
         {std::pair{kTables, "table_namespace"}, std::pair{kProperties, "namespace"}}) {
      FLOE_ASSIGN_OR_RETURN(
          auto rows, Wrap(db_->Query(fmt::format("SELECT 1 FROM {0} WHERE catalog_name = ? AND "
                                                 "({1} = ? OR substr({1}, 1, {2}) = ?) LIMIT 1",
                                                 table, column, CodePoints(prefix)),
                                     {name_, text, prefix})));
      if (!rows.empty()) return true;
    }
    return false;
  }

  Result<std::map<std::string, std::string>> PropertiesLocked(const Namespace& ns) {
    FLOE_ASSIGN_OR_RETURN(auto rows,
                          Wrap(db_->Query("SELECT property_key, property_value FROM "
                                          "iceberg_namespace_properties WHERE catalog_name = ? AND "
                                          "namespace = ?",
                                          {name_, JoinLevels(ns)})));
    std::map<std::string, std::string> out;
    for (const auto& r : rows) {
      if (r[0]) out[*r[0]] = r[1].value_or("");
    }
    return out;
  }

  // The table's metadata_location: nullopt when there is no such table, an
  // empty Value when the row has NULL.
  Result<std::optional<Value>> CurrentLocation(const TableIdentifier& id) {
    FLOE_ASSIGN_OR_RETURN(
        auto rows, Wrap(db_->Query("SELECT metadata_location FROM iceberg_tables WHERE "
                                   "catalog_name = ? AND table_namespace = ? AND table_name = ?" +
                                       table_filter_,
                                   {name_, JoinLevels(id.ns), id.name})));
    if (rows.empty()) return std::optional<Value>();
    return std::optional<Value>(rows[0][0]);
  }

  // "table" or "view" when a row of either kind holds the name.
  Result<std::optional<std::string>> AnyRow(const TableIdentifier& id) {
    std::string sql =
        std::string("SELECT ") + (has_record_type_ ? "iceberg_type" : "NULL") +
        " FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?";
    FLOE_ASSIGN_OR_RETURN(auto rows, Wrap(db_->Query(sql, {name_, JoinLevels(id.ns), id.name})));
    if (rows.empty()) return std::optional<std::string>();
    return std::optional<std::string>(rows[0][0] == Value("VIEW") ? "view" : "table");
  }

  Status InsertRow(const TableIdentifier& id, const std::string& metadata_location) {
    const std::string sql =
        has_record_type_
            ? "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
              "metadata_location, "
              "previous_metadata_location, iceberg_type) VALUES (?, ?, ?, ?, NULL, 'TABLE')"
            : "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
              "metadata_location, "
              "previous_metadata_location) VALUES (?, ?, ?, ?, NULL)";
    FLOE_RETURN_IF_ERROR(
        Wrap(db_->Execute(sql, {name_, JoinLevels(id.ns), id.name, metadata_location})));
    return Ok();
  }

  std::string NamespaceLocation(const Namespace& ns) const {
    std::string p = warehouse_;
    for (const auto& l : ns.levels) p += "/" + l;
    return p;
  }
  std::string TableLocation(const TableIdentifier& id) const {
    return NamespaceLocation(id.ns) + "/" + id.name;
  }

  // Writes the metadata as `<location>/metadata/<version>-<uuid>.metadata.json`
  // (never over an existing file) and returns its location.
  Result<std::string> WriteMetadata(const iceberg::TableMetadata& metadata, int64_t version) {
    FLOE_ASSIGN_OR_RETURN(std::string json, iceberg::TableMetadataToJson(metadata));
    const std::string path =
        fmt::format("{}/metadata/{:05d}-{}.metadata.json", StripTrailingSlash(metadata.location),
                    version, RandomUuid());
    io::OutputOptions o;
    o.overwrite = false;
    o.create_parents = true;
    // Durable before the UPDATE points the catalog at it (as the hadoop
    // catalog's publish): after a power loss the row must not name a file
    // that never reached the disk.
    o.sync = true;
    auto out = io_->NewOutput(path, o);
    if (!out)
      return Fail(out.error().WithContext(fmt::format("cannot write table metadata {}", path)));
    FLOE_RETURN_IF_ERROR((*out)->Write(json.data(), json.size()));
    FLOE_RETURN_IF_ERROR((*out)->Commit());
    RememberMetadataFile(path, json, metadata);
    return path;
  }

  Result<LoadedTable> LoadAt(const TableIdentifier& id, const std::string& location) {
    if (location.ends_with(".gz.metadata.json")) {
      return Unsupported("table {}: {} is gzip-compressed metadata, which floe does not read yet",
                         id.ToString(), location);
    }
    auto text = io::ReadFile(*io_, location);
    if (!text) return Fail(text.error().WithContext(fmt::format("table {}", id.ToString())));
    auto md = ParseMetadataFile(location, *text);
    if (!md) return Fail(md.error().WithContext(location));
    return LoadedTable{id, location, std::move(*md)};
  }

  std::string name_;
  std::string warehouse_;
  std::unique_ptr<sql::Db> db_;
  bool has_record_type_ = false;
  std::string table_filter_;
  // One connection: one operation at a time (recursive: operations reuse
  // each other's locked helpers).
  std::recursive_mutex mu_;
};

// The database behind `uri`.
Result<std::unique_ptr<sql::Db>> OpenDatabase(const std::string& catalog, const std::string& uri,
                                              const config::Resolver& props) {
  constexpr std::string_view kSqlite = "jdbc:sqlite:";
  if (uri.starts_with(kSqlite)) {
    std::string path = uri.substr(kSqlite.size());
    std::string_view bare = path;
    if (bare.starts_with("file:")) bare.remove_prefix(5);
    if (bare.empty() || bare.starts_with(":memory:") ||
        path.find("mode=memory") != std::string::npos) {
      return InvalidArgument(
          "sql catalog {}: uri {}: an in-memory SQLite database is not supported (its tables would "
          "vanish with "
          "the process while their files stay): use jdbc:sqlite:file:PATH",
          catalog, uri);
    }
    if (props.IsSet(config::keys::kJdbcUser) || props.IsSet(config::keys::kJdbcPassword)) {
      return InvalidArgument(
          "sql catalog {}: jdbc.user and jdbc.password do not apply to SQLite ({})", catalog, uri);
    }
    FLOE_ASSIGN_OR_RETURN(const int64_t busy_ms, props.Value(config::keys::kJdbcBusyTimeout));
    return sql::OpenSqlite(path, static_cast<int>(busy_ms));
  }
  if (uri.starts_with("jdbc:postgresql:")) {
    if (props.IsSet(config::keys::kJdbcBusyTimeout)) {
      return InvalidArgument(
          "sql catalog {}: jdbc.busy_timeout applies to SQLite only (PostgreSQL waits for row locks "
          "itself; use the uri's options, e.g. lock_timeout)",
          catalog);
    }
    FLOE_ASSIGN_OR_RETURN(auto params, sql::ParsePostgresUri(uri));
    FLOE_ASSIGN_OR_RETURN(auto user, props.Get(config::keys::kJdbcUser));
    FLOE_ASSIGN_OR_RETURN(auto password, props.Get(config::keys::kJdbcPassword));
    if (user) params.keywords.emplace_back("user", *user);
    if (password) params.keywords.emplace_back("password", *password);
    return sql::OpenPostgres(params);
  }
  return InvalidArgument(
      "sql catalog {}: uri '{}' is not a supported JDBC URI (jdbc:sqlite:file:PATH or "
      "jdbc:postgresql://HOST[:PORT]/DATABASE)",
      catalog, uri);
}

// Creates what is missing of the catalog tables (when allowed) and tells
// whether iceberg_tables has the iceberg_type column.
Result<bool> PrepareTables(sql::Db* db, const std::string& catalog, bool init, bool v1,
                           bool v1_explicit) {
  FLOE_ASSIGN_OR_RETURN(bool have_tables, db->TableExists(kTables));
  FLOE_ASSIGN_OR_RETURN(bool have_props, db->TableExists(kProperties));
  std::vector<std::string> columns;
  if (have_tables) {
    FLOE_ASSIGN_OR_RETURN(columns, db->Columns(kTables));
  }
  auto has_type = [&] {
    return std::find(columns.begin(), columns.end(), "iceberg_type") != columns.end();
  };
  const bool migrate = have_tables && !has_type() && v1_explicit;
  if (have_tables && have_props && !migrate) {
    // JdbcCatalog's columns, as one text (the first name alone, quoted, would read
    // as the Beam option of that name to the registry's literal check).
    std::istringstream names(
        "catalog_name table_namespace table_name metadata_location previous_metadata_location");
    for (std::string c; names >> c;) {
      if (std::find(columns.begin(), columns.end(), c) == columns.end()) {
        return InvalidArgument(
            "sql catalog {}: {} has a table iceberg_tables without column {}: not a JdbcCatalog "
            "catalog",
            catalog, db->description(), c);
      }
    }
    return has_type();
  }
  if (!init && (!have_tables || !have_props)) {
    return NotFound(
        "sql catalog {}: {} has no table {} and jdbc.init-catalog-tables is false: create "
        "JdbcCatalog's tables "
        "first, or let floe create them (jdbc.init-catalog-tables=true)",
        catalog, db->description(), have_tables ? kProperties : kTables);
  }
  // Several processes may open a new catalog at once: create under the
  // write lock (SQLite) or an advisory lock (PostgreSQL), then look again.
  Transaction tx(db);
  FLOE_RETURN_IF_ERROR(tx.Begin(true));
  if (db->dialect() == sql::Dialect::kPostgres) {
    FLOE_RETURN_IF_ERROR(
        db->Query("SELECT pg_advisory_xact_lock(7295401)"));  // any fixed key: "floe sql catalog"
  }
  FLOE_ASSIGN_OR_RETURN(have_tables, db->TableExists(kTables));
  if (!have_tables) {
    FLOE_RETURN_IF_ERROR(db->Execute(kCreateTablesV0));
    columns.clear();
    if (v1) FLOE_RETURN_IF_ERROR(db->Execute(kAddRecordType));
    if (v1) columns.push_back("iceberg_type");
  } else {
    FLOE_ASSIGN_OR_RETURN(columns, db->Columns(kTables));
    if (!has_type() && v1_explicit) {
      FLOE_RETURN_IF_ERROR(db->Execute(kAddRecordType));
      columns.push_back("iceberg_type");
    }
  }
  FLOE_RETURN_IF_ERROR(db->Execute(kCreateProperties));
  FLOE_RETURN_IF_ERROR(tx.Commit());
  return has_type();
}

}  // namespace

Result<std::unique_ptr<Catalog>> OpenSqlCatalog(const std::string& name,
                                                const std::map<std::string, std::string>& options) {
  const config::Resolver props(options);
  FLOE_ASSIGN_OR_RETURN(auto uri, props.Get(config::keys::kUri));
  if (!uri || uri->empty()) {
    return InvalidArgument(
        "sql catalog {}: uri is required (jdbc:sqlite:file:PATH or "
        "jdbc:postgresql://HOST:PORT/DATABASE)",
        name);
  }
  if (!props.IsSet(config::keys::kWarehouse)) {
    return InvalidArgument(
        "sql catalog {}: warehouse is required (the root of new tables' locations)", name);
  }
  FLOE_ASSIGN_OR_RETURN(std::string warehouse_opt, props.Value(config::keys::kWarehouse));
  if (warehouse_opt.empty()) return InvalidArgument("sql catalog {}: warehouse is empty", name);
  const std::string warehouse = StripTrailingSlash(AsUri(warehouse_opt));
  FLOE_ASSIGN_OR_RETURN(std::string version, props.Value(config::keys::kJdbcSchemaVersion));
  FLOE_ASSIGN_OR_RETURN(bool init, props.Value(config::keys::kJdbcInitCatalogTables));
  auto io = OpenCatalogFileIO(warehouse, options);
  if (!io)
    return Fail(
        io.error().WithContext(fmt::format("sql catalog {}: warehouse {}", name, warehouse)));

  FLOE_ASSIGN_OR_RETURN(auto db, OpenDatabase(name, *uri, props));
  auto has_type = PrepareTables(db.get(), name, init, version == "V1",
                                version == "V1" && props.IsSet(config::keys::kJdbcSchemaVersion));
  if (!has_type) return Fail(has_type.error().WithContext(fmt::format("sql catalog {}", name)));
  return std::unique_ptr<Catalog>(
      new SqlCatalog(name, warehouse, std::move(db), *has_type, std::move(*io)));
}


}  // namespace floe::catalog
