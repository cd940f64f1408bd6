#include "testing/small_disk.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace floe::test {

namespace fs = std::filesystem;

namespace {
constexpr const char* kFiller = ".filler";
}  // namespace

Result<std::unique_ptr<SmallDisk>> SmallDisk::Mount(int64_t bytes) {
  std::unique_ptr<SmallDisk> d(new SmallDisk());
  std::string tmpl = "/tmp/floe_small_disk_XXXXXX";
  if (!::mkdtemp(tmpl.data())) return IoError("cannot make {}: {}", tmpl, std::strerror(errno));
  const std::string options = "size=" + std::to_string(bytes);
  if (::mount("tmpfs", tmpl.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0) {
    const int e = errno;
    ::rmdir(tmpl.c_str());
    return IoError("cannot mount a tmpfs of {} bytes on {} for a full-disk test: {} (the test needs root)",
                   bytes, tmpl, std::strerror(e));
  }
  d->dir_ = tmpl;
  return d;
}

SmallDisk::~SmallDisk() {
  if (dir_.empty()) return;
  // Whatever is still open on it (a server that did not stop): detach lazily.
  if (::umount2(dir_.c_str(), 0) != 0) ::umount2(dir_.c_str(), MNT_DETACH);
  ::rmdir(dir_.c_str());
}

Status SmallDisk::Fill() {
  const fs::path filler = dir_ / kFiller;
  int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return IoError("cannot open {}: {}", filler.string(), std::strerror(errno));
  std::vector<char> block(64 << 10, 'f');
  size_t size = block.size();
  while (size > 0) {
    ssize_t n = ::write(fd, block.data(), size);
    if (n < 0 && errno == ENOSPC) {
      size /= 2;  // the last blocks, down to a byte
      continue;
    }
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      return IoError("cannot fill {}: {}", filler.string(), std::strerror(e));
    }
  }
  ::close(fd);
  return Ok();
}

void SmallDisk::Free() {
  std::error_code ec;
  fs::remove(dir_ / kFiller, ec);
}

}  // namespace floe::test
