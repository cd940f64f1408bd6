#include "floe/table/scan_static.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <system_error>

#include "floe/io/file.h"
#include "floe/util/codec.h"
#include "floe/util/strings.h"

namespace floe::table {

namespace fs = std::filesystem;

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

std::string Trim(const std::string& s) { return std::string(TrimSpace(s)); }

}  // namespace

Result<std::string> FindMetadataFile(std::string_view path_in) {
  std::error_code ec;
  fs::path path(path_in);
  if (fs::is_regular_file(path, ec)) return path.string();
  if (!fs::is_directory(path, ec)) return NotFound("table metadata: {} is neither a file nor a folder", path_in);
  fs::path dir = fs::is_directory(path / "metadata", ec) ? path / "metadata" : path;

  std::vector<std::pair<int64_t, std::string>> versions;
  std::vector<std::string> unnumbered;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec)) continue;
    std::string name = e.path().filename().string();
    if (!name.ends_with(".metadata.json") || name.starts_with(".")) continue;
    if (auto v = VersionOf(name)) {
      versions.emplace_back(*v, name);
    } else {
      unnumbered.push_back(name);
    }
  }
  if (ec) return IoError("table metadata: cannot list {}: {}", dir.string(), ec.message());

  // version-hint.text: a version number or a file name.
  if (auto hint = ReadLocalFile((dir / "version-hint.text").string())) {
    std::string h = Trim(*hint);
    if (AllDigits(h) && h.size() <= 18) {
      int64_t n = std::stoll(h);
      for (const auto& [v, name] : versions) {
        if (v == n) return (dir / name).string();
      }
    } else if (!h.empty() && fs::is_regular_file(dir / h, ec)) {
      return (dir / h).string();
    }
    // A stale or odd hint: fall back to listing.
  }
  if (!versions.empty()) {
    auto best = std::max_element(versions.begin(), versions.end());
    return (dir / best->second).string();
  }
  if (unnumbered.size() == 1) return (dir / unnumbered[0]).string();
  if (unnumbered.empty()) return NotFound("table metadata: no *.metadata.json file in {}", dir.string());
  return NotFound(
      "table metadata: {} holds several metadata files without version numbers and no usable "
      "version-hint.text; pass the metadata file itself",
      dir.string());
}

Result<iceberg::TableMetadata> ReadMetadataFile(const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(std::string bytes, ReadLocalFile(path));
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
                                    const std::vector<std::pair<std::string, std::string>>& mappings) {
  StaticTable t;
  FLOE_ASSIGN_OR_RETURN(t.metadata_path, FindMetadataFile(path));
  t.metadata_path = AbsolutePath(t.metadata_path);
  FLOE_ASSIGN_OR_RETURN(auto md, ReadMetadataFile(t.metadata_path));
  fs::path dir = fs::path(t.metadata_path).parent_path();
  t.table_dir = dir.filename() == "metadata" ? dir.parent_path().string() : dir.string();
  for (const auto& [prefix, local] : mappings) t.mapper.AddMapping(prefix, AbsolutePath(local));
  if (!md.location.empty()) t.mapper.AddTableLocation(md.location, t.table_dir);
  t.metadata = std::make_shared<const iceberg::TableMetadata>(std::move(md));
  return t;
}

}  // namespace floe::table
