/// \file
/// Files: sequential output that appears atomically, and random-access input.
/// The local file system implementation is here; object stores plug in behind
/// the same interfaces.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/util/buffer.h"
#include "floe/util/status.h"

namespace floe {

/// A file being written. Bytes become visible under the final path only on
/// Commit(); Abort() (or destruction without Commit) removes everything, so a
/// failed write leaves no debris.
class OutputFile {
 public:
  virtual ~OutputFile() = default;
  virtual Status Write(const void* data, size_t size) = 0;
  /// Bytes written so far.
  virtual int64_t Tell() const = 0;
  /// Flushes, syncs and publishes the file under its final path. Fails with
  /// kAlreadyExists when `overwrite` was false and the path exists.
  virtual Status Commit() = 0;
  virtual void Abort() = 0;
  virtual const std::string& path() const = 0;
};

/// A file being read, by offset.
class InputFile {
 public:
  virtual ~InputFile() = default;
  virtual int64_t Size() const = 0;
  /// Reads exactly `size` bytes at `offset`; fails with kCorrupt when the file
  /// is shorter (a truncated file), kIo on a read error.
  virtual Status ReadAt(int64_t offset, size_t size, uint8_t* out) const = 0;
  virtual const std::string& path() const = 0;

  /// Reads `size` bytes at `offset` into `out` (resized).
  Status ReadAt(int64_t offset, size_t size, Buffer* out) const {
    out->Resize(size);
    return ReadAt(offset, size, out->data());
  }
};

/// Opens a local file for writing. The data goes to a hidden temporary file
/// in the same folder until Commit(), which renames it into place (without
/// replacing an existing file unless `overwrite`). `sync` fsyncs the file and
/// its folder on commit. kNotFound when the folder does not exist.
Result<std::unique_ptr<OutputFile>> OpenLocalOutput(std::string path, bool overwrite = false,
                                                    bool sync = false);

/// Opens a local file for reading. Only regular files (or symlinks to one): a
/// folder, FIFO, device or socket is kInvalidArgument, found without blocking.
Result<std::unique_ptr<InputFile>> OpenLocalInput(std::string path);

/// An in-memory input (tests, fuzzing, small files already read).
std::unique_ptr<InputFile> MemoryInput(std::string data, std::string name = "<memory>");

/// Creates the local folder `dir` and its missing parents, one level at a
/// time, and appends to `created` (outermost first) each folder this call
/// made itself: a folder that appeared meanwhile (another writer) is not
/// counted, so that only this call's folders are ever removed again.
Status CreateLocalFolders(const std::string& dir, std::vector<std::string>* created);

/// Removes each of `dirs` that is empty now, innermost (longest path) first;
/// a folder that holds anything, or is gone, is left alone. Returns the
/// folders removed.
std::vector<std::string> RemoveEmptyLocalFolders(std::vector<std::string> dirs);

/// Reads a whole local file.
Result<std::string> ReadLocalFile(const std::string& path);
/// Writes a whole local file atomically (temporary file + rename).
Status WriteLocalFile(const std::string& path, std::string_view data, bool overwrite = true);

}  // namespace floe
