#include "floe/table/scan_static.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "floe/util/codec.h"
#include "floe/util/strings.h"

namespace floe::table {

namespace {

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The version of a metadata file name: `v<N>[.gz].metadata.json` or
// `<N>-<uuid>[.gz].metadata.json`; nullopt otherwise.
std::optional<int64_t> VersionOf(std::string_view name) {
  constexpr std::string_view kSuffix = ".metadata.json";
  if (!name.ends_with(kSuffix)) return std::nullopt;
  std::string_view stem = name.substr(0, name.size() - kSuffix.size());
  if (stem.ends_with(".gz")) stem.remove_suffix(3);
  std::string_view digits;
  if (stem.starts_with("v") && AllDigits(stem.substr(1))) {
    digits = stem.substr(1);
  } else {
    size_t dash = stem.find('-');
    if (dash == std::string_view::npos || !AllDigits(stem.substr(0, dash))) return std::nullopt;
    digits = stem.substr(0, dash);
  }
  if (digits.size() > 18) return std::nullopt;
  return std::stoll(std::string(digits));
}

std::string NameOf(std::string_view location) {
  auto slash = location.rfind('/');
  return std::string(slash == std::string_view::npos ? location : location.substr(slash + 1));
}

std::string Trim(const std::string& s) { return std::string(TrimSpace(s)); }

}  // namespace

Result<std::string> FindMetadataFile(std::string_view path_in, io::FileIOPtr files) {
  std::string path(path_in);
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  auto entry = files->Stat(path);
  if (entry && entry->kind == io::EntryKind::kFile) return path;
  // A folder (or a link to one): its metadata/ folder, or the folder itself.
  auto listed = files->ListFolder(path);
  if (!listed) {
    if (listed.error().kind != ErrorKind::kNotFound) return Fail(listed.error());
    if (entry && entry->kind == io::EntryKind::kOther && files->NewInput(path)) return path;  // a link to a file
    return NotFound("table metadata: {} is neither a file nor a folder", path_in);
  }
  std::string dir = path;
  for (const auto& e : *listed) {
    if (e.kind == io::EntryKind::kFolder && NameOf(e.location) == "metadata") dir = path + "/metadata";
  }
  if (dir != path) {
    FLOE_ASSIGN_OR_RETURN(*listed, files->ListFolder(dir));
  }

  std::vector<std::pair<int64_t, std::string>> versions;
  std::vector<std::string> unnumbered;
  std::set<std::string> regular;
  for (const auto& e : *listed) {
    if (e.kind != io::EntryKind::kFile) continue;
    std::string name = NameOf(e.location);
    regular.insert(name);
    if (!name.ends_with(".metadata.json") || name.starts_with(".")) continue;
    if (auto v = VersionOf(name)) {
      versions.emplace_back(*v, name);
    } else {
      unnumbered.push_back(name);
    }
  }

  // version-hint.text: a version number or a file name.
  if (auto hint = io::ReadFile(*files, dir + "/version-hint.text")) {
    std::string h = Trim(*hint);
    if (AllDigits(h) && h.size() <= 18) {
      int64_t n = std::stoll(h);
      for (const auto& [v, name] : versions) {
        if (v == n) return dir + "/" + name;
      }
    } else if (!h.empty() && regular.contains(h)) {
      return dir + "/" + h;
    }
    // A stale or odd hint: fall back to listing.
  }
  if (!versions.empty()) {
    auto best = std::max_element(versions.begin(), versions.end());
    return dir + "/" + best->second;
  }
  if (unnumbered.size() == 1) return dir + "/" + unnumbered[0];
  if (unnumbered.empty()) return NotFound("table metadata: no *.metadata.json file in {}", dir);
  return NotFound(
      "table metadata: {} holds several metadata files without version numbers and no usable "
      "version-hint.text; pass the metadata file itself",
      dir);
}

Result<iceberg::TableMetadata> ReadMetadataFile(const std::string& path, io::FileIOPtr files) {
  FLOE_ASSIGN_OR_RETURN(std::string bytes, io::ReadFile(*files, path));
  if (bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == 0x1f && static_cast<uint8_t>(bytes[1]) == 0x8b) {
    Buffer out;
    auto st = DecompressAppend(Codec::kGzip, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &out,
                               size_t{1} << 30);
    if (!st) return Fail(st.error().WithContext(fmt::format("gzip metadata {}", path)));
    bytes.assign(reinterpret_cast<const char*>(out.data()), out.size());
  }
  auto md = iceberg::TableMetadataFromJson(bytes);
  if (!md) return Fail(md.error().WithContext(fmt::format("table metadata {}", path)));
  return md;
}

Result<StaticTable> OpenStaticTable(std::string_view path,
                                    const std::vector<std::pair<std::string, std::string>>& mappings,
                                    io::FileIOPtr files) {
  StaticTable t;
  FLOE_ASSIGN_OR_RETURN(t.metadata_path, FindMetadataFile(path, files));
  t.metadata_path = AbsolutePath(t.metadata_path);
  FLOE_ASSIGN_OR_RETURN(auto md, ReadMetadataFile(t.metadata_path, files));
  std::string dir = t.metadata_path.substr(0, t.metadata_path.rfind('/'));
  if (dir.empty()) dir = "/";
  t.table_dir = NameOf(dir) == "metadata" ? dir.substr(0, std::max<size_t>(1, dir.rfind('/'))) : dir;
  for (const auto& [prefix, local] : mappings) t.mapper.AddMapping(prefix, AbsolutePath(local));
  if (!md.location.empty()) t.mapper.AddTableLocation(md.location, t.table_dir);
  t.io = io::MappedFileIO(t.mapper, std::move(files));
  t.metadata = std::make_shared<const iceberg::TableMetadata>(std::move(md));
  return t;
}

}  // namespace floe::table
