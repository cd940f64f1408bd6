/// \file
/// FileIO: the one door through which the table and catalog layers reach
/// storage. Every operation takes a *location* as Iceberg metadata stores it
/// (`file:/abs/path`, a plain path, later `s3://bucket/key`), never a local
/// path worked out by the caller, so that object storage (floe issue 10)
/// plugs in as one more implementation. The shape follows Iceberg's Java
/// `FileIO` (newInputFile / newOutputFile / deleteFile) with its
/// `SupportsPrefixOperations` (listPrefix / deletePrefix), plus what the
/// local file system needs and object stores do not: folders (made for a
/// write, removed again when the write fails, listed by the hadoop catalog)
/// and an atomic "publish if absent" for metadata versions (a link(2) of a
/// synced temporary file here; a conditional write on object stores).
///
/// A registry picks the implementation by scheme (OpenFileIO): `file:` and
/// plain paths are the local file system, the embedded default; every other
/// scheme is refused until someone registers it. Prefix mappings (`--map
/// PREFIX=DIR`) are a decorator (MappedFileIO), and tests wrap any FileIO in
/// a fault injector (fault_file_io.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "floe/io/file.h"
#include "floe/io/location.h"
#include "floe/util/status.h"

namespace floe::io {

/// What a listing entry is. Symbolic links and other special files are
/// kOther: never followed, never taken for a file of the table.
enum class EntryKind : uint8_t { kFile, kFolder, kOther };

/// One entry of a listing or a Stat.
struct FileInfo {
  /// The entry's location, spelled as the listed location plus the relative
  /// path below it (so `file:/t` lists `file:/t/data/a.parquet`).
  std::string location;
  EntryKind kind = EntryKind::kFile;
  int64_t size = 0;
  /// Last modification, epoch milliseconds (of a link itself, not its target).
  int64_t modified_ms = 0;
};

/// How NewOutput opens a file.
struct OutputOptions {
  /// Replace an existing file on Commit; otherwise kAlreadyExists (at open
  /// or at commit, whichever sees it first) and nothing is replaced.
  bool overwrite = false;
  /// Make the file (and its folder entry) durable before Commit returns.
  bool sync = false;
  /// Create the missing parent folders first (storage without folders
  /// ignores this). The folders this call made itself are added to
  /// `created_folders` when given, for ReleaseFolders; a folder another
  /// writer made meanwhile is not counted. If another writer removes a fresh
  /// folder before the file is opened, it is made again.
  bool create_parents = false;
  std::vector<std::string>* created_folders = nullptr;
};

/// Storage, addressed by location. Implementations are thread-safe.
/// Errors name the location; kNotFound when a location is absent,
/// kUnsupported when this FileIO cannot reach it (another scheme).
class FileIO {
 public:
  virtual ~FileIO() = default;

  /// A short name for messages and tests ("local", "mapped", ...).
  virtual std::string_view name() const = 0;

  /// Opens a file for reading. kNotFound when absent.
  virtual Result<std::unique_ptr<InputFile>> NewInput(std::string_view location) = 0;

  /// Opens a file for writing: nothing is visible under `location` until the
  /// output's Commit(), and Abort() (or destruction without Commit) leaves
  /// nothing behind (see OutputFile).
  virtual Result<std::unique_ptr<OutputFile>> NewOutput(std::string_view location,
                                                        const OutputOptions& options = {}) = 0;

  /// Publishes `data` at `location` atomically unless something is there:
  /// kAlreadyExists when it is (nothing published: another writer won),
  /// kCommitStateUnknown when the data may have been published but the
  /// outcome cannot be told (never remove anything then), any other error
  /// when nothing was published. Parent folders are created, and removed
  /// again when nothing was published. The default writes through NewOutput
  /// without overwrite (a link(2) of a synced temporary file locally).
  virtual Status PublishIfAbsent(std::string_view location, std::string_view data, bool sync);

  /// Deletes one file. Ok when it is gone, also when it was never there; a
  /// folder is not a file (kInvalidArgument).
  virtual Status Delete(std::string_view location) = 0;

  /// Whether a file or folder is at `location` (a symbolic link counts when
  /// its target exists).
  virtual Result<bool> Exists(std::string_view location) = 0;

  /// The entry at `location` itself (a symbolic link is kOther). kNotFound
  /// when nothing is there.
  virtual Result<FileInfo> Stat(std::string_view location) = 0;

  /// Every file below the folder `location`, recursively, in no particular
  /// order (Iceberg's listPrefix, with the location taken as a folder: `t`
  /// never lists `t2`). Only regular files are reported; folders reached
  /// through symbolic links are not entered. A missing folder lists nothing.
  /// `visit` may stop the listing by returning an error.
  virtual Status ListFiles(std::string_view location,
                           const std::function<Status(const FileInfo&)>& visit) = 0;

  /// The direct children of the folder `location` (files, folders and
  /// others), sorted by location. kNotFound when the folder does not exist.
  virtual Result<std::vector<FileInfo>> ListFolder(std::string_view location) = 0;

  /// Makes the folder `location` and its missing parents; appends the ones
  /// this call made (outermost first) to `created` when given.
  virtual Status CreateFolders(std::string_view location, std::vector<std::string>* created) = 0;

  /// Removes the folder `location` if it is empty: true when it is gone
  /// (removed now, or absent), false when it holds something.
  virtual Result<bool> RemoveFolderIfEmpty(std::string_view location) = 0;

  /// Removes the folder `location` and everything below it (Iceberg's
  /// deletePrefix; symbolic links are removed, not followed). A missing
  /// folder is fine.
  virtual Status DeletePrefix(std::string_view location) = 0;

  /// Removes the folders above the file `location` that are in `created`
  /// (as NewOutput / CreateFolders reported them) and are empty now,
  /// innermost first, erasing them from `created`. Stops at the first
  /// folder that holds something, or that exists and is not in `created`:
  /// a folder this writer did not make is never removed. A folder already
  /// gone is passed over.
  virtual void ReleaseFolders(std::string_view location, std::set<std::string>* created) = 0;

  /// The form of `location` that is equal for every spelling of the same
  /// file (`file:/p`, `file:///p`, `/p`, `/a/../p`, a mapped prefix), for
  /// comparing and for containment (a folder's canonical form is a prefix of
  /// its files'). Lexical: the storage is not consulted. For the local file
  /// system it is the absolute, normalized path.
  virtual Result<std::string> Canonical(std::string_view location) = 0;

  /// The canonical form with symbolic links resolved as far as the location
  /// exists (the rest lexically): where the bytes really are. Storage
  /// without links returns Canonical().
  virtual Result<std::string> Resolve(std::string_view location) { return Canonical(location); }

  /// The local file system path of `location`, when this FileIO keeps it on
  /// this machine (tools and tests); kUnsupported otherwise.
  virtual Result<std::string> LocalPath(std::string_view location) = 0;
};

using FileIOPtr = std::shared_ptr<FileIO>;

/// Reads a whole file.
Result<std::string> ReadFile(FileIO& io, std::string_view location);
/// Writes a whole file atomically (temporary file + publication).
Status WriteFile(FileIO& io, std::string_view location, std::string_view data,
                 bool overwrite = true);

/// The local file system, the embedded default: `file:` URIs (`file:/p`,
/// `file:///p`, `file://localhost/p`) and plain paths. Outputs are the
/// atomic local outputs of floe/io/file.h (hidden temporary file, then a
/// rename or, without overwrite, a link).
FileIOPtr LocalFileIO();

/// Prefix mappings as a decorator: a location under a mapped prefix is
/// handed to `inner` as the mapped local path (`s3://b/t/x` under
/// `s3://b/t=/data/t` is `/data/t/x`); `file:` URIs become plain paths; any
/// other location goes to `inner` unchanged. Errors of a mapped location
/// name both the location and the path.
FileIOPtr MappedFileIO(LocationMapper mapper, FileIOPtr inner);

/// The scheme of a location, lower case: "file" for `file:` URIs and for
/// plain paths (absolute or relative), "s3" for `s3://b/k`.
std::string SchemeOf(std::string_view location);

/// The local path of a `file:` URI or plain path; kUnsupported naming the
/// scheme for any other location.
Result<std::string> LocalPathOfUri(std::string_view location);

/// Makes a FileIO for one scheme from catalog properties.
using FileIOFactory =
    std::function<Result<FileIOPtr>(const std::map<std::string, std::string>& properties)>;

/// Registers the FileIO of a scheme (`s3`, `gs`, ...). A later registration
/// of the same scheme replaces the earlier one; "file" can be replaced too.
void RegisterFileIO(const std::string& scheme, FileIOFactory factory);

/// The FileIO for `location` (a warehouse or table location), picked by its
/// scheme. `file:` and plain paths are local; an unregistered scheme is
/// kUnsupported naming it and the registered ones (S3 is floe/s3).
Result<FileIOPtr> OpenFileIO(std::string_view location,
                             const std::map<std::string, std::string>& properties = {});

}  // namespace floe::io
