// The helpers of table_internal.h.
#include "floe/table/table_internal.h"

#include <charconv>
#include <type_traits>
#include <variant>

#include "floe/iceberg/manifest_io.h"

namespace floe::table::internal {

std::string PartitionKey(int32_t spec_id, const iceberg::Values& values) {
  std::string key = std::to_string(spec_id) + ":";
  for (const auto& v : values) {
    key.push_back(static_cast<char>('0' + v.v.index()));
    std::visit(
        [&](const auto& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, std::string>) {
            uint64_t n = x.size();
            key.append(reinterpret_cast<const char*>(&n), sizeof n);
            key.append(x);
          } else if constexpr (!std::is_same_v<X, std::monostate>) {
            key.append(reinterpret_cast<const char*>(&x), sizeof x);
          }
        },
        v.v);
  }
  return key;
}

int64_t ParseLongOr(const std::map<std::string, std::string>& m, const std::string& key,
                    int64_t fallback) {
  auto it = m.find(key);
  if (it == m.end()) return fallback;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  return ec == std::errc() && p == it->second.data() + it->second.size() ? v : fallback;
}

Result<std::vector<iceberg::ManifestFile>> ReadManifests(const Table& table,
                                                         const iceberg::Snapshot& snapshot) {
  if (!snapshot.manifest_list.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto in, table.io()->NewInput(snapshot.manifest_list));
    return iceberg::ReadManifestList(*in);
  }
  std::vector<iceberg::ManifestFile> out;
  for (const auto& m : snapshot.manifests) {
    FLOE_ASSIGN_OR_RETURN(auto in, table.io()->NewInput(m));
    FLOE_ASSIGN_OR_RETURN(auto mf,
                          iceberg::DescribeV1Manifest(*in, table.metadata(), snapshot.snapshot_id));
    mf.manifest_path = m;
    out.push_back(std::move(mf));
  }
  return out;
}

Result<std::vector<iceberg::ManifestEntry>> ReadEntries(const Table& table,
                                                        const iceberg::ManifestFile& m,
                                                        bool with_stats) {
  FLOE_ASSIGN_OR_RETURN(auto in, table.io()->NewInput(m.manifest_path));
  iceberg::ManifestReadOptions o;
  o.include_column_stats = with_stats;
  return iceberg::ReadManifest(*in, m, table.metadata(), o);
}

std::string MetadataFile(const Table& table, const std::string& name) {
  return table.metadata().location + "/metadata/" + name;
}

void WrittenFiles::RemoveAll() {
  for (const auto& location : locations) (void)io_->Delete(location);  // already gone is fine
  locations.clear();
}

}  // namespace floe::table::internal
