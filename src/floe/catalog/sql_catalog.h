/// \file
/// The SQL catalog: Iceberg's JdbcCatalog on SQLite (embedded, a catalog
/// file several processes may share) or PostgreSQL, with exactly
/// JdbcCatalog's tables, columns, namespace encoding and commit statement, so
/// that Java's JdbcCatalog and PyIceberg's SqlCatalog see the same namespaces
/// and tables as floe.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "floe/catalog/catalog.h"

namespace floe::catalog {

/// Opens the SQL catalog `name` (the catalog_name column of its rows) from
/// catalog options:
///  - `uri`: `jdbc:sqlite:file:PATH`, `jdbc:sqlite:PATH` (created if missing;
///    in-memory databases are refused: their tables would vanish with the
///    process) or `jdbc:postgresql://HOST[:PORT]/DB[?params]` with
///    `jdbc.user` / `jdbc.password`;
///  - `warehouse` (required): the root of new tables' default locations,
///    `<warehouse>/<namespace levels>/<table>`; its scheme picks the FileIO;
///  - `jdbc.schema-version` (V1: the iceberg_type column, views invisible to
///    table calls; V0: without it) for catalog tables floe creates; existing
///    tables without the column are used as V0 unless V1 is set explicitly,
///    which adds the column (as JdbcCatalog does);
///  - `jdbc.init-catalog-tables` (false: missing tables are an error).
/// kInvalidArgument names a missing or malformed option, kIo an unreachable
/// database.
Result<std::unique_ptr<Catalog>> OpenSqlCatalog(const std::string& name,
                                                const std::map<std::string, std::string>& options);

}  // namespace floe::catalog
