/// \file
/// A FileIO decorator that fails chosen operations with an I/O error, for
/// tests that prove a failed write or commit leaves no debris: wrap the
/// FileIO a catalog or table uses, arm a fault ("the 2nd rename of a
/// manifest list"), run the operation, and look at what is left. Operations
/// pass through to the wrapped FileIO untouched until a fault fires; a fault
/// fires before the operation reaches the wrapped FileIO, so nothing of it
/// happens (a failed rename publishes nothing, a failed delete removes
/// nothing). PublishIfAbsent runs FileIO's own create / write / commit
/// sequence on this decorator, so each of its steps can fail.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "floe/io/file_io.h"

namespace floe::io {

/// The kinds of operation a fault can hit.
enum class FaultOp : uint8_t {
  kCreate,  ///< NewOutput, CreateFolders
  kWrite,   ///< OutputFile::Write
  kRename,  ///< OutputFile::Commit (the atomic publication)
  kDelete,  ///< Delete, DeletePrefix, RemoveFolderIfEmpty
  kList,    ///< ListFiles, ListFolder
  kRead,    ///< NewInput
};

std::string_view FaultOpName(FaultOp op);

class FaultInjectingFileIO final : public FileIO {
 public:
  explicit FaultInjectingFileIO(FileIOPtr inner);

  /// Fails the `n`th (1-based, counted from this call) `op` whose location
  /// contains `match` (every location when empty).
  void FailNth(FaultOp op, int64_t n, std::string match = {});
  /// Fails every such operation from the `n`th on (a device that stays broken).
  void FailFrom(FaultOp op, int64_t n, std::string match = {});
  /// Forgets every armed fault.
  void Clear();
  /// Operations of `op` seen since construction (failed ones included).
  int64_t Count(FaultOp op) const;
  /// The faults that fired, as "<op> <location>", in order.
  std::vector<std::string> Fired() const;

  std::string_view name() const override { return "fault-injecting"; }
  Result<std::unique_ptr<InputFile>> NewInput(std::string_view location) override;
  Result<std::unique_ptr<OutputFile>> NewOutput(std::string_view location,
                                                const OutputOptions& options = {}) override;
  Status Delete(std::string_view location) override;
  Result<bool> Exists(std::string_view location) override { return inner_->Exists(location); }
  Result<FileInfo> Stat(std::string_view location) override { return inner_->Stat(location); }
  Status ListFiles(std::string_view location,
                   const std::function<Status(const FileInfo&)>& visit) override;
  Result<std::vector<FileInfo>> ListFolder(std::string_view location) override;
  Status CreateFolders(std::string_view location, std::vector<std::string>* created) override;
  Result<bool> RemoveFolderIfEmpty(std::string_view location) override;
  Status DeletePrefix(std::string_view location) override;
  void ReleaseFolders(std::string_view location, std::set<std::string>* created) override {
    inner_->ReleaseFolders(location, created);
  }
  Result<std::string> Canonical(std::string_view location) override { return inner_->Canonical(location); }
  Result<std::string> Resolve(std::string_view location) override { return inner_->Resolve(location); }
  Result<std::string> LocalPath(std::string_view location) override { return inner_->LocalPath(location); }

  /// Ok, or the injected error when an armed fault matches this operation
  /// (counts the operation either way). Used by the outputs it hands out.
  Status Check(FaultOp op, std::string_view location);

 private:
  struct Rule {
    FaultOp op;
    int64_t n;
    std::string match;
    bool sticky;
    int64_t seen = 0;
  };
  FileIOPtr inner_;
  mutable std::mutex mu_;
  std::vector<Rule> rules_;
  int64_t counts_[6] = {};
  std::vector<std::string> fired_;
};

}  // namespace floe::io
