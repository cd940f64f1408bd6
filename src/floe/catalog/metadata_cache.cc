#include "floe/catalog/metadata_cache.h"

#include <xxhash.h>

#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace floe::catalog {

namespace {

// Enough for the tables a process (a server) commits to at once; each entry
// is one parsed metadata file.
constexpr size_t kEntries = 64;

struct Cache {
  using Key = std::pair<std::string, uint64_t>;  // location, XXH3 of the bytes
  std::mutex mu;
  std::list<Key> lru;  // most recent first
  std::map<Key, std::pair<std::shared_ptr<const iceberg::TableMetadata>, std::list<Key>::iterator>> entries;
};

Cache& TheCache() {
  static Cache* c = new Cache;
  return *c;
}

void Insert(Cache& c, Cache::Key key, std::shared_ptr<const iceberg::TableMetadata> metadata) {
  std::lock_guard lock(c.mu);
  if (c.entries.contains(key)) return;
  c.lru.push_front(key);
  c.entries.emplace(std::move(key), std::make_pair(std::move(metadata), c.lru.begin()));
  while (c.entries.size() > kEntries) {
    c.entries.erase(c.lru.back());
    c.lru.pop_back();
  }
}

}  // namespace

void RememberMetadataFile(const std::string& location, std::string_view text, const iceberg::TableMetadata& metadata) {
  Insert(TheCache(), Cache::Key{location, XXH3_64bits(text.data(), text.size())},
         std::make_shared<const iceberg::TableMetadata>(metadata));
}

Result<iceberg::TableMetadata> ParseMetadataFile(const std::string& location, std::string_view text) {
  Cache& c = TheCache();
  Cache::Key key{location, XXH3_64bits(text.data(), text.size())};
  {
    std::lock_guard lock(c.mu);
    if (auto it = c.entries.find(key); it != c.entries.end()) {
      c.lru.splice(c.lru.begin(), c.lru, it->second.second);
      return *it->second.first;
    }
  }
  auto parsed = iceberg::TableMetadataFromJson(text);
  if (!parsed) return parsed;
  Insert(c, std::move(key), std::make_shared<const iceberg::TableMetadata>(*parsed));
  return parsed;
}

}  // namespace floe::catalog
