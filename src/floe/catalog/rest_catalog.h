/// \file
/// The Iceberg REST catalog client (`catalog-type=rest`;
/// `../shared/specs/rest-catalog-open-api.yaml`): the config handshake,
/// namespaces, tables and commits as CommitTableRequests (DiffMetadata),
/// bearer tokens and the OAuth2 client-credentials exchange. Errors name the
/// method, route and HTTP status with the server's ErrorModel message; a
/// commit whose outcome cannot be known (5xx, a time-out or a lost
/// connection after the request went out) is kCommitStateUnknown and never
/// retried. Secrets (token, credential) never appear in an error.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "floe/catalog/catalog.h"

namespace floe::catalog {

/// Opens a REST catalog from catalog options (`uri` required; `warehouse`,
/// `token`, `credential`, `oauth2-server-uri`, `scope`,
/// `token-refresh-enabled`, `header.*`, `rest-page-size`,
/// `rest.client.*-timeout-ms`, `prefix`). Calls `GET /v1/config` first and
/// merges its defaults and overrides around the given options (REST spec:
/// getConfig).
Result<std::unique_ptr<Catalog>> OpenRestCatalog(const std::string& name,
                                                 const std::map<std::string, std::string>& options);

/// The catalog properties after the config handshake (defaults < given
/// options < overrides); nullptr when `catalog` is not a REST catalog.
const std::map<std::string, std::string>* RestCatalogProperties(const Catalog& catalog);

/// The `config` of the table's last LoadTableResult (FileIO properties the
/// server hands out per table); empty when none or not a REST catalog.
std::map<std::string, std::string> RestTableConfig(const Catalog& catalog,
                                                   const TableIdentifier& id);

}  // namespace floe::catalog
