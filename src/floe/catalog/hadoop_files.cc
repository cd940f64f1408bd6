#include "floe/catalog/hadoop_files.h"

#include <nlohmann/json.hpp>

#include <charconv>

namespace floe::catalog {

Status ValidateName(std::string_view name, std::string_view what) {
  if (name.empty()) return InvalidArgument("{} name is empty", what);
  if (name == "." || name == "..") return InvalidArgument("{} name '{}' is not allowed", what, name);
  if (name.find("..") != std::string_view::npos) {
    return InvalidArgument("{} name '{}' contains '..'", what, name);
  }
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (c == '/' || c == '\\') {
      return InvalidArgument("{} name '{}' contains '{}'", what, name, c);
    }
    if (u < 0x20 || u == 0x7f) {
      return InvalidArgument("{} name contains the control character 0x{:02x}", what, u);
    }
  }
  return Ok();
}

std::optional<int64_t> ParseVersionFileName(std::string_view name) {
  if (!name.starts_with("v")) return std::nullopt;
  std::string_view rest = name.substr(1);
  std::string_view digits;
  if (rest.ends_with(".gz.metadata.json")) {
    digits = rest.substr(0, rest.size() - std::string_view(".gz.metadata.json").size());
  } else if (rest.ends_with(".metadata.json")) {
    digits = rest.substr(0, rest.size() - std::string_view(".metadata.json").size());
  } else {
    return std::nullopt;
  }
  int64_t v = 0;
  if (digits.empty() || digits.size() > 18) return std::nullopt;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || p != digits.data() + digits.size() || v < 0) return std::nullopt;
  return v;
}

MetadataDir::MetadataDir(std::string table_dir, io::FileIOPtr io)
    : table_dir_(std::move(table_dir)), dir_(table_dir_ + "/metadata"), io_(std::move(io)) {}

std::string MetadataDir::VersionPath(int64_t version) const {
  return fmt::format("{}/v{}.metadata.json", dir_, version);
}

Result<std::string> MetadataDir::ExistingVersionPath(int64_t version) const {
  std::string plain = VersionPath(version);
  FLOE_ASSIGN_OR_RETURN(bool plain_exists, io_->Exists(plain));
  if (plain_exists) return plain;
  std::string gz = fmt::format("{}/v{}.gz.metadata.json", dir_, version);
  FLOE_ASSIGN_OR_RETURN(bool gz_exists, io_->Exists(gz));
  if (gz_exists) return gz;
  return NotFound("metadata version {} does not exist in {}", version, dir_);
}

bool MetadataDir::HintIsBehind(int64_t version) const {
  auto hint = io::ReadFile(*io_, dir_ + "/version-hint.text");
  if (!hint) return true;
  std::string_view h = *hint;
  while (!h.empty() && (h.back() == '\n' || h.back() == '\r' || h.back() == ' ')) h.remove_suffix(1);
  int64_t v = 0;
  auto [p, e] = std::from_chars(h.data(), h.data() + h.size(), v);
  return e != std::errc() || p != h.data() + h.size() || v < version;
}

Result<std::optional<int64_t>> MetadataDir::CurrentVersion() const {
  auto folder = io_->Stat(dir_);
  if (!folder && folder.error().kind == ErrorKind::kNotFound) return std::optional<int64_t>{};
  if (!folder) return Fail(folder.error());
  if (folder->kind == io::EntryKind::kFile) return std::optional<int64_t>{};
  auto exists = [&](int64_t v) { return ExistingVersionPath(v).has_value(); };
  std::optional<int64_t> start;
  if (auto hint = io::ReadFile(*io_, dir_ + "/version-hint.text")) {
    std::string_view h = *hint;
    while (!h.empty() && (h.back() == '\n' || h.back() == '\r' || h.back() == ' ')) h.remove_suffix(1);
    int64_t v = 0;
    auto [p, e] = std::from_chars(h.data(), h.data() + h.size(), v);
    if (e == std::errc() && p == h.data() + h.size() && v >= 0 && exists(v)) start = v;
  }
  if (!start) {
    // No usable hint: the highest version present.
    auto entries = io_->ListFolder(dir_);
    if (!entries && entries.error().kind == ErrorKind::kNotFound) return std::optional<int64_t>{};
    if (!entries) return Fail(entries.error());
    for (const auto& entry : *entries) {
      std::string_view name = entry.location;
      name.remove_prefix(name.rfind('/') == std::string_view::npos ? 0 : name.rfind('/') + 1);
      if (auto v = ParseVersionFileName(name)) {
        if (!start || *v > *start) start = v;
      }
    }
    if (!start) return std::optional<int64_t>{};
  }
  int64_t v = *start;
  while (exists(v + 1)) ++v;  // the hint may lag behind a writer that crashed before updating it
  return std::optional<int64_t>{v};
}

std::optional<std::string> CutOffMetadata(std::string_view text) {
  if (text.empty()) return std::string("empty (0 bytes)");
  if (nlohmann::json::accept(text)) return std::nullopt;
  return fmt::format("not JSON ({} bytes)", text.size());
}

Status MetadataDir::Publish(int64_t version, std::string_view json, bool sync) const {
  const std::string target = VersionPath(version);
  Status st = io_->PublishIfAbsent(target, json, sync);
  if (st) {
    // What the store holds is what counts (a store may acknowledge a write
    // it did not keep whole): the hint may name this version only when it
    // holds floe's bytes.
    auto stored = io::ReadFile(*io_, target);
    if (!stored) {
      return CommitStateUnknown(
          "commit state unknown: metadata version {} of {} was published, but it cannot be read "
          "back to check what the store holds ({}); version-hint.text is left as it was (load the "
          "table to see whether the commit landed)",
          version, table_dir_, stored.error().message);
    }
    if (*stored != json) {
      return CommitStateUnknown(
          "commit state unknown: metadata version {} of {} was published, but the store holds {} "
          "bytes there that are not the {} floe sent; version-hint.text is left as it was (load the "
          "table to see what is current)",
          version, table_dir_, stored->size(), json.size());
    }
    return Ok();
  }
  switch (st.error().kind) {
    case ErrorKind::kAlreadyExists:
      return CommitFailed("metadata version {} of {} was committed by another writer", version,
                          table_dir_);
    case ErrorKind::kCommitStateUnknown:
      // Locally the file may have been linked before a later step (folder
      // fsync) failed; on object storage the conditional PUT may have landed
      // with its answer lost. The CLI prints only the message: it says so.
      return CommitStateUnknown(
          "commit state unknown: metadata version {} of {} may or may not have been published "
          "(its files are kept; load the table to see whether the commit landed): {}",
          version, table_dir_, st.error().message);
    default:
      return st;
  }
}

Status MetadataDir::WriteHint(int64_t version) const {
  // Committers racing each write their own version, so the last rename could
  // leave an older number behind a newer version (and DuckDB reads the hint
  // verbatim). After each write, if a newer version exists already, write that
  // one instead: a version published after this check is followed by its own
  // publisher's hint write, so the last hint written names the newest version.
  int64_t v = version;
  for (int round = 0; round < 1000; ++round) {
    FLOE_RETURN_IF_ERROR(io::WriteFile(*io_, dir_ + "/version-hint.text", fmt::format("{}", v), /*overwrite=*/true));
    int64_t newest = v;
    while (ExistingVersionPath(newest + 1)) ++newest;
    if (newest == v) return Ok();
    v = newest;
  }
  return Ok();  // best effort: readers probe past a stale hint
}

}  // namespace floe::catalog
