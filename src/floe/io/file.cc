#include "floe/io/file.h"

#include "floe/util/uuid.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

namespace floe {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

std::string DirName(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string TempNameFor(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  std::string dir = DirName(path);
  std::string base = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  return fmt::format("{}/.{}.{}-{:x}-{:x}.tmp", dir, base, ::getpid(), RandomU64() & 0xffffffff, counter++);
}

Status SyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return IoError("cannot open folder {}: {}", dir, ErrnoText(errno));
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return IoError("fsync of folder {} failed: {}", dir, ErrnoText(err));
  return Ok();
}

class LocalOutputFile final : public OutputFile {
 public:
  LocalOutputFile(std::string path, std::string tmp, int fd, bool overwrite, bool sync)
      : path_(std::move(path)), tmp_(std::move(tmp)), fd_(fd), overwrite_(overwrite), sync_(sync) {
    buf_.Reserve(kBufferSize);
  }
  ~LocalOutputFile() override { Abort(); }

  Status Write(const void* data, size_t size) override {
    if (fd_ < 0) return Internal("write to closed file {}", path_);
    if (buf_.size() + size > kBufferSize) {
      FLOE_RETURN_IF_ERROR(Flush());
      if (size >= kBufferSize) {
        FLOE_RETURN_IF_ERROR(WriteAll(static_cast<const uint8_t*>(data), size));
        written_ += static_cast<int64_t>(size);
        return Ok();
      }
    }
    buf_.Append(data, size);
    written_ += static_cast<int64_t>(size);
    return Ok();
  }

  int64_t Tell() const override { return written_; }

  Status Commit() override {
    if (fd_ < 0) return Internal("commit of closed file {}", path_);
    Status st = Flush();
    if (st && sync_ && ::fsync(fd_) != 0) st = IoError("fsync {} failed: {}", tmp_, ErrnoText(errno));
    if (st && ::close(fd_) != 0) st = IoError("close {} failed: {}", tmp_, ErrnoText(errno));
    fd_ = -1;
    if (!st) {
      ::unlink(tmp_.c_str());
      return st;
    }
    if (overwrite_) {
      if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
        int err = errno;
        ::unlink(tmp_.c_str());
        return IoError("cannot rename {} to {}: {}", tmp_, path_, ErrnoText(err));
      }
    } else {
      // link() never replaces an existing file: publication without overwrite.
      if (::link(tmp_.c_str(), path_.c_str()) != 0) {
        int err = errno;
        ::unlink(tmp_.c_str());
        if (err == EEXIST) return AlreadyExists("{} already exists", path_);
        return IoError("cannot publish {}: {}", path_, ErrnoText(err));
      }
      ::unlink(tmp_.c_str());
    }
    committed_ = true;
    if (sync_) FLOE_RETURN_IF_ERROR(SyncDir(DirName(path_)));
    return Ok();
  }

  void Abort() override {
    if (fd_ >= 0) {
      ::close(fd_);
      fd_ = -1;
    }
    if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());
    tmp_.clear();
  }

  const std::string& path() const override { return path_; }

 private:
  static constexpr size_t kBufferSize = 1 << 20;

  Status WriteAll(const uint8_t* p, size_t n) {
    while (n > 0) {
      ssize_t w = ::write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        return IoError("write to {} failed: {}", path_, ErrnoText(errno));
      }
      p += w;
      n -= static_cast<size_t>(w);
    }
    return Ok();
  }
  Status Flush() {
    if (buf_.empty()) return Ok();
    Status st = WriteAll(buf_.data(), buf_.size());
    buf_.Clear();
    return st;
  }

  std::string path_, tmp_;
  int fd_;
  bool overwrite_, sync_;
  bool committed_ = false;
  int64_t written_ = 0;
  Buffer buf_;
};

class LocalInputFile final : public InputFile {
 public:
  LocalInputFile(std::string path, int fd, int64_t size) : path_(std::move(path)), fd_(fd), size_(size) {}
  ~LocalInputFile() override { ::close(fd_); }
  int64_t Size() const override { return size_; }
  Status ReadAt(int64_t offset, size_t size, uint8_t* out) const override {
    if (offset < 0 || static_cast<uint64_t>(offset) + size > static_cast<uint64_t>(size_)) {
      return Corrupt("{}: read of {} bytes at offset {} is past the end of the file ({} bytes)",
                     path_, size, offset, size_);
    }
    size_t done = 0;
    while (done < size) {
      ssize_t r = ::pread(fd_, out + done, size - done, offset + static_cast<int64_t>(done));
      if (r < 0) {
        if (errno == EINTR) continue;
        return IoError("read of {} failed: {}", path_, ErrnoText(errno));
      }
      if (r == 0) return Corrupt("{}: unexpected end of file", path_);
      done += static_cast<size_t>(r);
    }
    return Ok();
  }
  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  int fd_;
  int64_t size_;
};

class MemoryInputFile final : public InputFile {
 public:
  MemoryInputFile(std::string data, std::string name) : data_(std::move(data)), name_(std::move(name)) {}
  int64_t Size() const override { return static_cast<int64_t>(data_.size()); }
  Status ReadAt(int64_t offset, size_t size, uint8_t* out) const override {
    if (offset < 0 || static_cast<uint64_t>(offset) + size > data_.size()) {
      return Corrupt("{}: read of {} bytes at offset {} is past the end ({} bytes)", name_, size,
                     offset, data_.size());
    }
    if (size) std::memcpy(out, data_.data() + offset, size);
    return Ok();
  }
  const std::string& path() const override { return name_; }

 private:
  std::string data_;
  std::string name_;
};

}  // namespace

Result<std::unique_ptr<OutputFile>> OpenLocalOutput(std::string path, bool overwrite, bool sync) {
  if (!overwrite && ::access(path.c_str(), F_OK) == 0) {
    return AlreadyExists("{} already exists", path);
  }
  std::string tmp = TempNameFor(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return NotFound("cannot create {}: its folder {} does not exist", path, DirName(path));
    return IoError("cannot create {}: {}", path, ErrnoText(err));
  }
  return std::make_unique<LocalOutputFile>(std::move(path), std::move(tmp), fd, overwrite, sync);
}

Result<std::unique_ptr<InputFile>> OpenLocalInput(std::string path) {
  // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer, forever
  // when there is none; a FIFO or device put in place of a table file must be an
  // error, not a hang. (On regular files the flag changes nothing.)
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return NotFound("file {} does not exist", path);
    return IoError("cannot open {}: {}", path, ErrnoText(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return IoError("cannot stat {}: {}", path, ErrnoText(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return InvalidArgument("{} is a folder, not a file", path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    const char* kind = S_ISFIFO(st.st_mode)   ? "FIFO"
                       : S_ISCHR(st.st_mode)  ? "character device"
                       : S_ISBLK(st.st_mode)  ? "block device"
                       : S_ISSOCK(st.st_mode) ? "socket"
                                              : "special file";
    return InvalidArgument("{} is a {}, not a regular file", path, kind);
  }
  return std::make_unique<LocalInputFile>(std::move(path), fd, static_cast<int64_t>(st.st_size));
}

std::unique_ptr<InputFile> MemoryInput(std::string data, std::string name) {
  return std::make_unique<MemoryInputFile>(std::move(data), std::move(name));
}

Status CreateLocalFolders(const std::string& dir, std::vector<std::string>* created) {
  if (dir.empty()) return InvalidArgument("cannot create a folder with an empty name");
  // The missing folders, innermost first, up to the first one that exists.
  std::vector<std::string> missing;
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  struct stat st {};
  while (::stat(d.c_str(), &st) != 0) {
    if (errno != ENOENT) return IoError("cannot create folder {}: cannot stat {}: {}", dir, d, ErrnoText(errno));
    missing.push_back(d);
    std::string parent = DirName(d);
    if (parent == d) break;
    d = std::move(parent);
  }
  if (missing.empty() && !S_ISDIR(st.st_mode)) {
    return IoError("cannot create folder {}: {} is not a folder", dir, d);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0755) == 0) {
      if (created) created->push_back(*it);
      continue;
    }
    int err = errno;
    if (err == EEXIST && ::stat(it->c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;  // made by another writer
    return IoError("cannot create folder {}: {}", *it, ErrnoText(err));
  }
  return Ok();
}

std::vector<std::string> RemoveEmptyLocalFolders(std::vector<std::string> dirs) {
  std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  });
  std::vector<std::string> removed;
  for (const auto& d : dirs) {
    if (::rmdir(d.c_str()) == 0) removed.push_back(d);  // ENOTEMPTY/ENOENT: leave it
  }
  return removed;
}

Result<std::string> ReadLocalFile(const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(auto in, OpenLocalInput(path));
  std::string out(static_cast<size_t>(in->Size()), '\0');
  FLOE_RETURN_IF_ERROR(in->ReadAt(0, out.size(), reinterpret_cast<uint8_t*>(out.data())));
  return out;
}

Status WriteLocalFile(const std::string& path, std::string_view data, bool overwrite) {
  FLOE_ASSIGN_OR_RETURN(auto out, OpenLocalOutput(path, overwrite));
  FLOE_RETURN_IF_ERROR(out->Write(data.data(), data.size()));
  return out->Commit();
}

}  // namespace floe
