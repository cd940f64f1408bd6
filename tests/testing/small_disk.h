/// \file
/// Test support: a small tmpfs of its own (SERVICES.md, Faults: a full disk
/// gives ENOSPC), mounted on a fresh folder and unmounted at destruction, for
/// the tests of a full store (the S3 test server keeps its objects on it,
/// S3ServerOptions::parent_dir). Mounting needs root, as the CI machines run
/// the tests; without it Mount fails naming why (the tests fail, never skip).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

#include "floe/util/status.h"

namespace floe::test {

class SmallDisk {
 public:
  /// Mounts a tmpfs of `bytes` on a fresh folder under /tmp.
  static Result<std::unique_ptr<SmallDisk>> Mount(int64_t bytes);
  ~SmallDisk();
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;

  const std::filesystem::path& dir() const { return dir_; }

  /// Takes every free byte with a filler file of its own: the disk is full
  /// from now on (until Free).
  Status Fill();
  /// Removes the filler file.
  void Free();

 private:
  SmallDisk() = default;
  std::filesystem::path dir_;
};

}  // namespace floe::test
