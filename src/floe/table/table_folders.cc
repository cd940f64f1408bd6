#include "floe/config/options.h"
#include "floe/table/table_folders.h"

#include <filesystem>

#include "floe/io/location.h"

namespace floe::table {

namespace fs = std::filesystem;

namespace {

// Whether `path` is strictly below `dir` (both absolute and normalized).
bool IsBelow(std::string_view path, std::string_view dir) {
  if (dir == "/") return path.size() > 1 && path.starts_with("/");
  return path.size() > dir.size() + 1 && path.starts_with(dir) && path[dir.size()] == '/';
}

// `p` with symbolic links resolved as far as it exists (the rest lexically).
std::string Resolved(const std::string& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(p, ec);
  return ec ? p : AbsolutePath(r.string());
}

}  // namespace

TableFolders TableFolders::Of(const Table& table) {
  TableFolders out;
  const auto& md = table.metadata();
  std::vector<std::string> locations = {md.location};
  for (std::string_view key : {config::keys::kWriteDataPath.name, config::keys::kWriteMetadataPath.name}) {
    if (auto it = md.properties.find(std::string(key)); it != md.properties.end() && !it->second.empty()) {
      locations.push_back(it->second);
    }
  }
  for (const auto& loc : locations) {
    if (loc.empty()) continue;
    auto local = NormalizedLocalPath(table, loc);
    if (!local || *local == "/") continue;  // never the whole file system
    out.folders_.push_back(*local);
    out.resolved_.push_back(Resolved(*local));
  }
  return out;
}

bool TableFolders::Contains(std::string_view local_path) const {
  std::string path = AbsolutePath(local_path);
  bool lexical = false;
  for (const auto& f : folders_) lexical |= IsBelow(path, f);
  if (!lexical) return false;
  // The file itself may be a symbolic link (removing it removes the link);
  // its parent folders must resolve inside the table.
  std::string parent = Resolved(fs::path(path).parent_path().string());
  for (const auto& f : resolved_) {
    if (parent == f || IsBelow(parent, f)) return true;
  }
  return false;
}

Result<std::string> NormalizedLocalPath(const Table& table, std::string_view location) {
  FLOE_ASSIGN_OR_RETURN(std::string local, table.LocalPath(location));
  return AbsolutePath(local);
}

}  // namespace floe::table
