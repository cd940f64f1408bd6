/// \file
/// A catalog whose calls run one at a time: for one catalog shared by
/// threads (the INSERTs of a SQL statement set run side by side), since a
/// catalog's own state — a SQLite or PostgreSQL connection, a REST client's
/// session — is not made for concurrent calls. The FileIO is shared as is
/// (file systems and the S3 client take concurrent calls).
#pragma once

#include <memory>
#include <mutex>

#include "floe/catalog/forwarding_catalog.h"

namespace floe::catalog {

class SerializedCatalog : public ForwardingCatalog {
 public:
  explicit SerializedCatalog(std::unique_ptr<Catalog> inner) : ForwardingCatalog(std::move(inner)) {}

  Status CreateNamespace(const Namespace& ns, const std::map<std::string, std::string>& p) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::CreateNamespace(ns, p);
  }
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::ListNamespaces(parent);
  }
  Result<bool> NamespaceExists(const Namespace& ns) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::NamespaceExists(ns);
  }
  Status DropNamespace(const Namespace& ns) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::DropNamespace(ns);
  }
  Result<std::map<std::string, std::string>> LoadNamespaceProperties(const Namespace& ns) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::LoadNamespaceProperties(ns);
  }
  Result<NamespacePropertyChanges> UpdateNamespaceProperties(const Namespace& ns,
                                                             const std::map<std::string, std::string>& set,
                                                             const std::vector<std::string>& remove) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::UpdateNamespaceProperties(ns, set, remove);
  }
  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::ListTables(ns);
  }
  Result<bool> TableExists(const TableIdentifier& id) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::TableExists(id);
  }
  Result<LoadedTable> LoadTable(const TableIdentifier& id) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::LoadTable(id);
  }
  Result<LoadedTable> RefreshTable(const TableIdentifier& id) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::RefreshTable(id);
  }
  Result<LoadedTable> CreateTable(const TableIdentifier& id, const TableDefinition& def) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::CreateTable(id, def);
  }
  Result<LoadedTable> CommitTable(const LoadedTable& base, iceberg::TableMetadata updated) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::CommitTable(base, std::move(updated));
  }
  Status DropTable(const TableIdentifier& id, bool purge) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::DropTable(id, purge);
  }
  Result<bool> DropIfUnchanged(const LoadedTable& created) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::DropIfUnchanged(created);
  }
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::RenameTable(from, to);
  }
  Result<LoadedTable> RegisterTable(const TableIdentifier& id, const std::string& metadata_location) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::RegisterTable(id, metadata_location);
  }
  Status CheckLocation(const LoadedTable& table) override {
    std::lock_guard lock(mu_);
    return ForwardingCatalog::CheckLocation(table);
  }
  void SetFileIO(io::FileIOPtr io) override {
    std::lock_guard lock(mu_);
    ForwardingCatalog::SetFileIO(std::move(io));
  }

 private:
  std::mutex mu_;
};

}  // namespace floe::catalog
