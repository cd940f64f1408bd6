/// \file
/// The session's state, shared by its DDL half (session.cc) and its query
/// half (query.cc): catalogs, temporary tables, options, name resolution.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/sql/ast.h"
#include "floe/sqlengine/connector.h"
#include "floe/sqlengine/result.h"
#include "floe/sqlengine/session.h"

namespace floe::sqlengine {

/// A table held by the session (default_catalog tables, TEMPORARY tables):
/// its CREATE TABLE, with the name made a full path.
struct MemoryTable {
  sql::CreateTable def;
};

struct MemoryDatabase {
  std::map<std::string, MemoryTable> tables;
  std::map<std::string, std::string> properties;
  std::optional<std::string> comment;
};

/// A catalog of the session: in memory (default_catalog), or Iceberg.
struct CatalogEntry {
  std::string name;
  std::unique_ptr<catalog::Catalog> iceberg;
  std::map<std::string, MemoryDatabase> databases;  ///< in-memory catalogs
  std::string default_database;
};

/// A table path: catalog, database, table.
struct TablePath {
  std::string catalog, database, table;
  std::string Full() const { return catalog + "." + database + "." + table; }
  /// `c`.`db`.`t`
  std::string Quoted() const;
};

/// Statement errors carry the exception class Flink's client would print.
Error Classed(std::string_view cls, Error e);
/// A validation error (`floe.ValidationException`) from a message.
Error Validation(std::string message);
/// A "not supported yet" error naming the construct (`floe.UnsupportedException`).
Error NotSupportedYet(std::string_view what);

class Session::Impl {
 public:
  explicit Impl(SessionOptions options);

  Result<StatementResult> Execute(const sql::Statement& st);

  // ---- names (session.cc)
  Result<TablePath> Resolve(const sql::Identifier& id) const;
  Result<CatalogEntry*> FindCatalog(const std::string& name);
  /// The table at a path: TEMPORARY first, then the catalog. nullopt when none.
  Result<std::optional<TableHandle>> Lookup(const TablePath& path);
  /// Lookup, or Flink's "not found" error in `missing_text` form.
  Result<TableHandle> LoadTableHandle(const sql::Identifier& id);
  /// The handle of a CREATE TABLE held in memory.
  Result<TableHandle> MemoryHandle(const TablePath& path, const sql::CreateTable& def,
                                   bool temporary) const;
  Result<sql::CreateTable> DefinitionOf(const TableHandle& handle) const;
  EngineContext Context();

  // ---- statements (session.cc)
  Result<StatementResult> CreateCatalog(const sql::CreateCatalog& s);
  Result<StatementResult> UseCatalog(const sql::UseCatalog& s);
  Result<StatementResult> UseDatabase(const sql::UseDatabase& s);
  Result<StatementResult> CreateDatabase(const sql::CreateDatabase& s);
  Result<StatementResult> DropDatabase(const sql::DropDatabase& s);
  Result<StatementResult> Show(const sql::Show& s);
  Result<StatementResult> ShowCreateTable(const sql::ShowCreateTable& s);
  Result<StatementResult> Describe(const sql::Describe& s);
  Result<StatementResult> SetOption(const sql::Set& s);
  Result<StatementResult> ResetOption(const sql::Reset& s);
  Result<StatementResult> CreateTable(const sql::CreateTable& s);
  Result<StatementResult> DropTable(const sql::DropTable& s);
  Result<StatementResult> AlterTableSet(const sql::AlterTableSet& s);
  Result<StatementResult> AlterTableReset(const sql::AlterTableReset& s);
  Result<StatementResult> AddJar(const sql::AddJar& s);
  Result<StatementResult> RemoveJar(const sql::RemoveJar& s);

  // ---- queries (query.cc)
  Result<StatementResult> Query(const sql::Query& q);
  Result<StatementResult> Insert(const sql::Insert& s);
  Result<StatementResult> StatementSet(const sql::StatementSet& s);

  SessionOptions session_options;
  std::map<std::string, CatalogEntry> catalogs;
  std::map<std::string, MemoryTable> temporary;  ///< by TablePath::Full()
  std::string current_catalog;
  std::string current_database;
  std::map<std::string, std::string> options;
  /// Session::SetInterrupt's stop (not owned), and whether it ended the last
  /// INSERT (after committing what it read).
  const sink::Cancellation* interrupt = nullptr;
  bool stopped = false;
  std::function<void(const ResultTable&)> streaming_rows;
  std::vector<std::string> jars;
  std::vector<std::string> warnings;  ///< of the statement running
};

}  // namespace floe::sqlengine
