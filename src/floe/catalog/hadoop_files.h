/// \file
/// The file-system side of Iceberg's HadoopCatalog layout (Iceberg spec: File
/// System Tables): `<warehouse>/<ns...>/<table>/metadata/v<N>.metadata.json`
/// plus `version-hint.text`, data under `data/`. Versions are published
/// without ever replacing an existing file (FileIO::PublishIfAbsent: a link(2)
/// of a synced temporary file locally), so two processes racing for v<N+1>
/// cannot both win. Every file operation goes through the catalog's FileIO.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/util/status.h"

namespace floe::catalog {

/// Checks one namespace or table name: non-empty, no `..`, `/`, `\`, NUL or
/// control characters, not `.`; `what` ("namespace", "table") names it in errors.
Status ValidateName(std::string_view name, std::string_view what);

/// The metadata folder of one file-system table.
class MetadataDir {
 public:
  /// `table_dir` is a location `io` understands (a local path for the
  /// hadoop catalog).
  explicit MetadataDir(std::string table_dir, io::FileIOPtr io = io::LocalFileIO());

  const std::string& table_dir() const { return table_dir_; }
  const std::string& dir() const { return dir_; }
  /// `<dir>/v<N>.metadata.json`.
  std::string VersionPath(int64_t version) const;

  /// The newest version: starts from `version-hint.text` (which may lag
  /// behind a crashed writer) and probes forward; without a usable hint, the
  /// highest v<N> in the folder. nullopt when the folder holds no version.
  /// Also finds gzip metadata (`v<N>.gz.metadata.json`).
  Result<std::optional<int64_t>> CurrentVersion() const;
  /// The path of an existing version's metadata file (plain or gzip name).
  Result<std::string> ExistingVersionPath(int64_t version) const;

  /// Publishes `json` as version `version`, then reads the version back:
  /// published means the store holds exactly `json`. kCommitFailed when that
  /// version exists already (another writer won: reload and retry);
  /// kCommitStateUnknown when the publish's outcome is unknown (the file
  /// was published but could not be made durable; the store's answers were
  /// lost; the store kept a cut-off copy; what it holds cannot be read back
  /// or is not `json`); any other error means nothing was published. Only a
  /// published version may be named by WriteHint.
  Status Publish(int64_t version, std::string_view json, bool sync = true) const;

  /// Points `version-hint.text` at `version` (digits only, no newline), or
  /// at a newer version that a concurrent writer published meanwhile, so the
  /// hint never moves back once every writer is done. Best effort by design:
  /// readers probe past a stale hint.
  Status WriteHint(int64_t version) const;
  /// Whether `version-hint.text` is missing, unreadable or names a version
  /// below `version`.
  bool HintIsBehind(int64_t version) const;

 private:
  std::string table_dir_;
  std::string dir_;
  io::FileIOPtr io_;
};

/// Why the bytes `text` of a metadata version cannot be a version anyone
/// published: "empty (0 bytes)" or "not JSON (N bytes)", what a store whose
/// writes are not atomic keeps of a publish it cut off (a stall, a full
/// disk); nullopt for a JSON document (whether it is valid metadata is the
/// parser's to say). A metadata file is one JSON object, and no cut-off
/// prefix of one is JSON.
std::optional<std::string> CutOffMetadata(std::string_view text);

/// Parses `v<N>.metadata.json` / `v<N>.gz.metadata.json`; nullopt otherwise.
std::optional<int64_t> ParseVersionFileName(std::string_view file_name);

}  // namespace floe::catalog
