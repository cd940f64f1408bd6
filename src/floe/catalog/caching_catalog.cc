#include "floe/catalog/caching_catalog.h"

#include <chrono>
#include <map>
#include <mutex>

namespace floe::catalog {

namespace {

int64_t SteadyMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class CachingCatalog final : public ForwardingCatalog {
 public:
  CachingCatalog(std::unique_ptr<Catalog> inner, int64_t expiration_ms, CacheClock clock)
      : ForwardingCatalog(std::move(inner)), expiration_ms_(expiration_ms), clock_(std::move(clock)) {
    if (!clock_) clock_ = SteadyMillis;
  }

  const CacheStats& stats() const { return stats_; }

  Result<LoadedTable> LoadTable(const TableIdentifier& id) override {
    {
      std::lock_guard lock(mu_);
      const int64_t now = clock_();
      if (auto it = entries_.find(id); it != entries_.end()) {
        if (expiration_ms_ < 0 || now - it->second.last_access_ms < expiration_ms_) {
          it->second.last_access_ms = now;
          ++stats_.hits;
          return it->second.table;
        }
        entries_.erase(it);
      }
      ++stats_.misses;
    }
    auto loaded = inner()->LoadTable(id);
    if (loaded) Put(*loaded);
    return loaded;
  }

  Result<LoadedTable> RefreshTable(const TableIdentifier& id) override {
    Evict(id);
    auto loaded = inner()->RefreshTable(id);
    if (loaded) Put(*loaded);
    return loaded;
  }

  Result<LoadedTable> CreateTable(const TableIdentifier& id, const TableDefinition& def) override {
    Evict(id);
    auto created = inner()->CreateTable(id, def);
    if (created) Put(*created);
    return created;
  }

  Result<LoadedTable> CommitTable(const LoadedTable& base, iceberg::TableMetadata updated) override {
    auto committed = inner()->CommitTable(base, std::move(updated));
    if (committed) {
      Put(*committed);
    } else {
      Evict(base.id);  // the retry, or the next caller, loads the current version
    }
    return committed;
  }

  Status DropTable(const TableIdentifier& id, bool purge) override {
    Evict(id);
    return inner()->DropTable(id, purge);
  }

  Result<bool> DropIfUnchanged(const LoadedTable& created) override {
    Evict(created.id);
    return inner()->DropIfUnchanged(created);
  }

  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override {
    Evict(from);
    Evict(to);
    return inner()->RenameTable(from, to);
  }

  Result<LoadedTable> RegisterTable(const TableIdentifier& id, const std::string& metadata_location) override {
    Evict(id);
    return inner()->RegisterTable(id, metadata_location);
  }

  Status DropNamespace(const Namespace& ns) override {
    // A namespace with tables cannot be dropped; entries of tables dropped
    // by others are removed here too, so a dropped name never loads from the cache.
    {
      std::lock_guard lock(mu_);
      std::erase_if(entries_, [&](const auto& e) { return e.first.ns == ns; });
    }
    return inner()->DropNamespace(ns);
  }

 private:
  struct Entry {
    LoadedTable table;
    int64_t last_access_ms = 0;
  };

  void Put(const LoadedTable& table) {
    std::lock_guard lock(mu_);
    entries_[table.id] = Entry{table, clock_()};
  }
  void Evict(const TableIdentifier& id) {
    std::lock_guard lock(mu_);
    entries_.erase(id);
  }

  const int64_t expiration_ms_;
  CacheClock clock_;
  std::mutex mu_;
  std::map<TableIdentifier, Entry> entries_;
  CacheStats stats_;
};

}  // namespace

std::unique_ptr<Catalog> NewCachingCatalog(std::unique_ptr<Catalog> inner, int64_t expiration_ms, CacheClock clock) {
  return std::make_unique<CachingCatalog>(std::move(inner), expiration_ms, std::move(clock));
}

const CacheStats* CacheStatsOf(const Catalog& catalog) {
  auto* c = dynamic_cast<const CachingCatalog*>(&catalog);
  return c ? &c->stats() : nullptr;
}

}  // namespace floe::catalog
