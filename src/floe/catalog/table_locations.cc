// Location checks of new tables and namespaces (table_locations.h).
#include "floe/catalog/table_locations.h"

#include "floe/io/location.h"

namespace floe::catalog {

namespace {

bool IsMetadataName(std::string_view name) {
  return name.ends_with(".metadata.json") || name == "version-hint.text";
}

std::string_view LastComponent(std::string_view location) {
  auto slash = location.rfind('/');
  return slash == std::string_view::npos ? location : location.substr(slash + 1);
}

// A location split into its root (`s3://bucket`, `file://`, `file:`, or
// nothing for a plain path) and its path (`/a/b`), trailing slashes removed.
struct SplitLocation {
  std::string root;
  std::string path;
};

SplitLocation Split(std::string_view location) {
  SplitLocation out;
  if (auto scheme = location.find("://"); scheme != std::string_view::npos) {
    auto slash = location.find('/', scheme + 3);
    out.root = std::string(location.substr(0, slash));
    if (slash != std::string_view::npos) out.path = std::string(location.substr(slash));
  } else if (location.starts_with("file:")) {
    out.root = "file:";
    out.path = std::string(location.substr(5));
  } else {
    out.path = AbsolutePath(location);
  }
  while (out.path.size() > 1 && out.path.back() == '/') out.path.pop_back();
  if (out.path == "/") out.path.clear();
  return out;
}

// The folders above `location`, innermost first, up to the root.
std::vector<std::string> FoldersAbove(std::string_view location) {
  SplitLocation s = Split(location);
  std::vector<std::string> out;
  std::string path = s.path;
  while (!path.empty()) {
    auto slash = path.rfind('/');
    path.resize(slash == std::string::npos ? 0 : slash);
    out.push_back(s.root + (path.empty() ? "/" : path));
  }
  return out;
}

std::string Joined(std::string_view folder, std::string_view name) {
  std::string out(folder);
  if (!out.ends_with("/")) out += "/";
  return out + std::string(name);
}

}  // namespace

Result<bool> HoldsTableMetadata(io::FileIO& io, std::string_view folder) {
  auto entries = io.ListFolder(Joined(folder, "metadata"));
  if (!entries) {
    if (entries.error().kind == ErrorKind::kNotFound) return false;
    return Fail(entries.error().WithContext(fmt::format("cannot look for table metadata in {}", folder)));
  }
  for (const auto& e : *entries) {
    if (e.kind == io::EntryKind::kFile && IsMetadataName(LastComponent(e.location))) return true;
  }
  return false;
}

std::optional<std::string> NestedTableFolderOf(std::string_view rel) {
  auto slash = rel.rfind('/');
  if (slash == std::string_view::npos || !IsMetadataName(rel.substr(slash + 1))) return std::nullopt;
  std::string_view dir = rel.substr(0, slash);  // ".../metadata"
  if (LastComponent(dir) != "metadata") return std::nullopt;
  if (dir.size() == std::string_view("metadata").size()) return std::nullopt;  // the listed folder's own
  return std::string(dir.substr(0, dir.size() - std::string_view("/metadata").size()));
}

Result<std::vector<std::string>> TableFoldersBelow(io::FileIO& io, std::string_view folder, bool first_only) {
  std::string listed(folder);
  while (listed.size() > 1 && listed.back() == '/') listed.pop_back();
  std::vector<std::string> out;
  bool stopped = false;
  Status st = io.ListFiles(listed, [&](const io::FileInfo& f) -> Status {
    std::string_view rel = f.location;
    if (!rel.starts_with(listed)) return Ok();
    rel.remove_prefix(listed.size());
    while (rel.starts_with("/")) rel.remove_prefix(1);
    auto nested = NestedTableFolderOf(rel);
    if (!nested) return Ok();
    std::string found = Joined(listed, *nested);
    for (const auto& o : out) {
      if (o == found) return Ok();
    }
    out.push_back(std::move(found));
    if (first_only) {
      stopped = true;
      return AlreadyExists("stop");  // ends the listing
    }
    return Ok();
  });
  if (!st && !stopped && st.error().kind != ErrorKind::kNotFound) return Fail(st.error());
  // A table inside a nested table is that table's business.
  std::vector<std::string> outermost;
  for (const auto& f : out) {
    bool inside = false;
    for (const auto& g : out) inside |= f.size() > g.size() && f.starts_with(g) && f[g.size()] == '/';
    if (!inside) outermost.push_back(f);
  }
  return outermost;
}

// Whether the folder `above` a new location holds a table. A folder this
// FileIO cannot reach or read (outside a --map mapping, above the bucket, a
// parent without permission) cannot be checked and is passed over.
bool AboveHoldsTable(io::FileIO& io, const std::string& above) {
  auto table = HoldsTableMetadata(io, above);
  return table && *table;
}

Status CheckNewTableLocation(io::FileIO& io, std::string_view location, const TableIdentifier& id) {
  for (const std::string& above : FoldersAbove(location)) {
    if (AboveHoldsTable(io, above)) {
      return InvalidArgument(
          "cannot create table {} at {}: it lies inside the folder {} of another table (its metadata is in "
          "{}/metadata); a table inside a table would have its files taken for the outer table's (orphan "
          "removal, purge and drop delete by folder). Use another namespace or location",
          id.ToString(), location, above, above);
    }
  }
  auto here = HoldsTableMetadata(io, location);
  // A location this FileIO cannot reach (a REST client's, kept by the
  // server) is the catalog's to check.
  if (!here && here.error().kind == ErrorKind::kUnsupported) return Ok();
  if (!here) return Fail(here.error());
  if (*here) {
    return InvalidArgument(
        "cannot create table {} at {}: the folder already holds another table's metadata ({}/metadata); "
        "register that table instead (register-table), or use another location",
        id.ToString(), location, location);
  }
  FLOE_ASSIGN_OR_RETURN(auto below, TableFoldersBelow(io, location, /*first_only=*/true));
  if (!below.empty()) {
    return InvalidArgument(
        "cannot create table {} at {}: the folder holds another table at {}; a table around a table would "
        "take the inner table's files for its own. Use another name or location",
        id.ToString(), location, below.front());
  }
  return Ok();
}

Status CheckNewNamespaceLocation(io::FileIO& io, std::string_view location, const Namespace& ns) {
  std::vector<std::string> folders = FoldersAbove(location);
  folders.insert(folders.begin(), std::string(location));
  for (const std::string& f : folders) {
    if (AboveHoldsTable(io, f)) {
      return InvalidArgument(
          "cannot create namespace {} at {}: {} is the folder of a table (its metadata is in {}/metadata); "
          "tables made in the namespace would lie inside that table's folder",
          ns.ToString(), location, f, f);
    }
  }
  return Ok();
}

}  // namespace floe::catalog
