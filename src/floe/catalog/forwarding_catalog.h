/// \file
/// A catalog that forwards every call to another one: the base of wrappers
/// that change a few calls (the caching catalog, fault injection in tests).
#pragma once

#include <memory>

#include "floe/catalog/catalog.h"

namespace floe::catalog {

class ForwardingCatalog : public Catalog {
 public:
  /// Forwards to `inner`, which must outlive this catalog.
  explicit ForwardingCatalog(Catalog* inner) : inner_(inner) { io_ = inner->io(); }
  /// Forwards to `inner` and owns it.
  explicit ForwardingCatalog(std::unique_ptr<Catalog> inner) : owned_(std::move(inner)), inner_(owned_.get()) {
    io_ = inner_->io();
  }

  Catalog* inner() const { return inner_; }

  const std::string& name() const override { return inner_->name(); }
  Status CreateNamespace(const Namespace& ns, const std::map<std::string, std::string>& p) override {
    return inner_->CreateNamespace(ns, p);
  }
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override {
    return inner_->ListNamespaces(parent);
  }
  Result<bool> NamespaceExists(const Namespace& ns) override { return inner_->NamespaceExists(ns); }
  Status DropNamespace(const Namespace& ns) override { return inner_->DropNamespace(ns); }
  Result<std::map<std::string, std::string>> LoadNamespaceProperties(const Namespace& ns) override {
    return inner_->LoadNamespaceProperties(ns);
  }
  Result<NamespacePropertyChanges> UpdateNamespaceProperties(const Namespace& ns,
                                                             const std::map<std::string, std::string>& set,
                                                             const std::vector<std::string>& remove) override {
    return inner_->UpdateNamespaceProperties(ns, set, remove);
  }
  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override { return inner_->ListTables(ns); }
  Result<bool> TableExists(const TableIdentifier& id) override { return inner_->TableExists(id); }
  Result<LoadedTable> LoadTable(const TableIdentifier& id) override { return inner_->LoadTable(id); }
  Result<LoadedTable> RefreshTable(const TableIdentifier& id) override { return inner_->RefreshTable(id); }
  Result<LoadedTable> CreateTable(const TableIdentifier& id, const TableDefinition& def) override {
    return inner_->CreateTable(id, def);
  }
  Result<LoadedTable> CommitTable(const LoadedTable& base, iceberg::TableMetadata updated) override {
    return inner_->CommitTable(base, std::move(updated));
  }
  Status DropTable(const TableIdentifier& id, bool purge) override { return inner_->DropTable(id, purge); }
  Result<bool> DropIfUnchanged(const LoadedTable& created) override { return inner_->DropIfUnchanged(created); }
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override {
    return inner_->RenameTable(from, to);
  }
  Result<LoadedTable> RegisterTable(const TableIdentifier& id, const std::string& metadata_location) override {
    return inner_->RegisterTable(id, metadata_location);
  }
  Status CheckLocation(const LoadedTable& table) override { return inner_->CheckLocation(table); }
  std::string WarehouseLocation() const override { return inner_->WarehouseLocation(); }
  void SetFileIO(io::FileIOPtr io) override {
    inner_->SetFileIO(io);
    io_ = std::move(io);
  }

 private:
  std::unique_ptr<Catalog> owned_;
  Catalog* inner_;
};

}  // namespace floe::catalog
