#include "floe/table/table_folders.h"

#include "floe/catalog/table_locations.h"
#include "floe/config/options.h"

namespace floe::table {

namespace {

// Whether `path` is strictly below `dir` (both canonical).
bool IsBelow(std::string_view path, std::string_view dir) {
  if (dir == "/") return path.size() > 1 && path.starts_with("/");
  return path.size() > dir.size() + 1 && path.starts_with(dir) && path[dir.size()] == '/';
}

}  // namespace

TableFolders TableFolders::Of(const Table& table) {
  TableFolders out;
  out.io_ = table.io();
  const auto& md = table.metadata();
  std::vector<std::string> locations = {md.location};
  for (std::string_view key : {config::keys::kWriteDataPath.name, config::keys::kWriteMetadataPath.name}) {
    if (auto it = md.properties.find(std::string(key)); it != md.properties.end() && !it->second.empty()) {
      locations.push_back(it->second);
    }
  }
  for (const auto& loc : locations) {
    if (loc.empty()) continue;
    auto canonical = out.io_->Canonical(loc);
    if (!canonical || *canonical == "/") continue;  // never the whole file system
    auto resolved = out.io_->Resolve(loc);
    out.folders_.push_back(*canonical);
    out.resolved_.push_back(resolved ? *resolved : *canonical);
  }
  return out;
}

Status TableFolders::ExcludeNestedTables() {
  if (!io_) return Ok();
  for (const auto& f : folders_) {
    FLOE_ASSIGN_OR_RETURN(auto below, catalog::TableFoldersBelow(*io_, f));
    for (const auto& b : below) {
      auto canonical = io_->Canonical(b);
      if (canonical) nested_.push_back(*canonical);
    }
  }
  return Ok();
}

bool TableFolders::Contains(std::string_view location) const {
  if (!io_) return false;
  auto path = io_->Canonical(location);
  if (!path) return false;
  bool lexical = false;
  for (const auto& f : folders_) lexical |= IsBelow(*path, f);
  if (!lexical) return false;
  for (const auto& n : nested_) {
    if (IsBelow(*path, n)) return false;  // another table's file
  }
  // The file itself may be a symbolic link (removing it removes the link);
  // its parent folders must resolve inside the table. The parent is taken
  // from the location as written, so that the FileIO resolves a location of
  // its own spelling; a last component of `.` or `..` names a folder.
  std::string_view loc = location;
  while (loc.size() > 1 && loc.back() == '/') loc.remove_suffix(1);
  const size_t slash = loc.rfind('/');
  if (slash == std::string_view::npos) return false;
  // No `.` or `..` component at all: the file is deleted by the location as
  // written, and the system resolves `link/..` through the link, not
  // lexically as the comparison above did. Writers never write such names.
  for (size_t i = 0; i <= loc.size();) {
    size_t j = loc.find('/', i);
    if (j == std::string_view::npos) j = loc.size();
    const std::string_view part = loc.substr(i, j - i);
    if (part == "." || part == "..") return false;
    i = j + 1;
  }
  const std::string_view last = loc.substr(slash + 1);
  if (last.empty()) return false;
  auto parent = io_->Resolve(slash == 0 ? loc.substr(0, 1) : loc.substr(0, slash));
  if (!parent) return false;
  for (const auto& f : resolved_) {
    if (*parent == f || IsBelow(*parent, f)) return true;
  }
  return false;
}

}  // namespace floe::table
