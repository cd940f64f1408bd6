// Chunked sequential input (see byte_stream.h).
#include "floe/format/byte_stream.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace floe::format {

Result<std::unique_ptr<ByteStream>> ByteStream::Open(const std::string& path, size_t chunk_bytes,
                                                     size_t max_unit, int stdin_fd) {
  std::unique_ptr<ByteStream> s(new ByteStream());
  s->set_max_unit(max_unit);
  if (path == "-") {
    s->fd_ = stdin_fd;
    s->name_ = "<stdin>";
  } else {
    s->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (s->fd_ < 0) {
      int e = errno;
      if (e == ENOENT) return NotFound("input file '{}' does not exist", path);
      return IoError("cannot open input file '{}': {}", path, std::strerror(e));
    }
    s->own_fd_ = true;
    s->name_ = path;
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(s->fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  }
  FLOE_RETURN_IF_ERROR(s->Grow(std::max<size_t>(chunk_bytes, 4096)));
  return s;
}

std::unique_ptr<ByteStream> ByteStream::FromString(std::string data, std::string name) {
  std::unique_ptr<ByteStream> s(new ByteStream());
  s->from_memory_ = true;
  s->name_ = std::move(name);
  s->memory_ = std::move(data);
  (void)s->Grow(std::max<size_t>(s->memory_.size(), 4096));
  return s;
}

ByteStream::~ByteStream() {
  if (own_fd_ && fd_ >= 0) ::close(fd_);
}

Status ByteStream::Grow(size_t min_capacity) {
  if (min_capacity > kMaxUnit + (size_t{4} << 20)) {
    return InvalidArgument("{}: a line or record is longer than {} bytes", name_, kMaxUnit);
  }
  size_t cap = std::max(min_capacity, capacity_ * 2);
  std::unique_ptr<char[]> grown(new char[cap + kPadding]);
  size_t n = end_ - begin_;
  if (n) std::memcpy(grown.get(), buf_.get() + begin_, n);
  std::memset(grown.get() + n, 0, kPadding);
  buf_ = std::move(grown);
  capacity_ = cap;
  begin_ = 0;
  end_ = n;
  return Ok();
}

Result<bool> ByteStream::Fill() {
  if (eof_) return false;
  // Compact.
  if (begin_ > 0) {
    size_t n = end_ - begin_;
    if (n) std::memmove(buf_.get(), buf_.get() + begin_, n);
    begin_ = 0;
    end_ = n;
  }
  if (end_ == capacity_) {
    // The buffer is full of one unfinished line or record.
    if (end_ >= max_unit_) {
      unit_too_long_ = true;
      return InvalidArgument("{}: a line or record is longer than {} bytes", name_, max_unit_);
    }
    FLOE_RETURN_IF_ERROR(Grow(capacity_ * 2));
  }
  size_t got = 0;
  if (from_memory_) {
    got = std::min(capacity_ - end_, memory_.size() - memory_pos_);
    std::memcpy(buf_.get() + end_, memory_.data() + memory_pos_, got);
    memory_pos_ += got;
  } else {
    while (end_ + got < capacity_) {
      char* at = buf_.get() + end_ + got;
      ssize_t r = ::read(fd_, at, capacity_ - end_ - got);
      if (r < 0) {
        if (errno == EINTR) continue;
        if (got > 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        return IoError("cannot read '{}': {}", name_, std::strerror(errno));
      }
      if (r == 0) break;  // end of input (reported by the next Fill when got > 0)
      got += static_cast<size_t>(r);
      if (std::memchr(at, '\n', static_cast<size_t>(r)) != nullptr) break;
    }
  }
  end_ += got;
  std::memset(buf_.get() + end_, 0, kPadding);
  if (got == 0) {
    eof_ = true;
    return false;
  }
  return true;
}

}  // namespace floe::format
