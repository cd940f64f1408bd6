// ByteStream from a pipe (issue 23, item 6): a pipe gives at most 64 KiB a
// read, and the decoders scan their unfinished line again after each Fill,
// so a Fill that returned after one read made a long line cost time
// quadratic in its length (200 MB from a pipe: 67 s, against 1.9 s for
// 100 MB from a file). Fill now reads on until a line end or a full buffer:
// the Fill calls a line needs grow with the logarithm of its length.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <thread>

#include "floe/format/byte_stream.h"
#include "testing/matchers.h"

namespace floe::format {
namespace byte_stream_test {

// Writes `text` into the pipe in 64 KiB writes from another thread.
class PipeWriter {
 public:
  explicit PipeWriter(std::string text) : text_(std::move(text)) {
    EXPECT_EQ(::pipe(fds_), 0);
    thread_ = std::thread([this] {
      for (size_t at = 0; at < text_.size();) {
        const ssize_t n = ::write(fds_[1], text_.data() + at, std::min<size_t>(65536, text_.size() - at));
        if (n <= 0) break;
        at += static_cast<size_t>(n);
      }
      ::close(fds_[1]);
    });
  }
  ~PipeWriter() {
    // What the reader left: drained, so that the writer ends.
    char buf[65536];
    while (::read(fds_[0], buf, sizeof buf) > 0) {
    }
    thread_.join();
    ::close(fds_[0]);
  }
  int read_fd() const { return fds_[0]; }

 private:
  std::string text_;
  int fds_[2] = {-1, -1};
  std::thread thread_;
};

TEST(ByteStreamPipe, ALongLineNeedsFewFills) {
  const size_t n = size_t{24} << 20;
  PipeWriter w(std::string(n, 'x') + "\nnext\n");
  ASSERT_OK_AND_ASSIGN(auto in, ByteStream::Open("-", size_t{1} << 20, ByteStream::kMaxUnit, w.read_fd()));
  int fills = 0;
  while (true) {
    const size_t b = in->begin(), e = in->end();
    if (b < e && std::memchr(in->data() + b, '\n', e - b) != nullptr) break;
    ASSERT_OK_AND_ASSIGN(bool more, in->Fill());
    ASSERT_TRUE(more);
    ++fills;
  }
  // 1 MiB doubling to 32 MiB: about 6 Fills (one read a Fill: 384 or more).
  EXPECT_LE(fills, 10);
  EXPECT_EQ(in->end() - in->begin() >= n + 1, true);
}

TEST(ByteStreamPipe, AReadWithALineEndReturnsAtOnce) {
  // A line end in what was read: Fill does not wait for more (a stream that
  // pauses after a line must not hold that line back).
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], "a\nb", 3), 3);
  ASSERT_OK_AND_ASSIGN(auto in, ByteStream::Open("-", 4096, ByteStream::kMaxUnit, fds[0]));
  ASSERT_OK_AND_ASSIGN(bool more, in->Fill());  // returns with the pipe still open
  EXPECT_TRUE(more);
  EXPECT_EQ(std::string(in->data() + in->begin(), in->end() - in->begin()), "a\nb");
  ::close(fds[1]);
  ::close(fds[0]);
}

TEST(ByteStreamPipe, ALineOverTheLimitIsFlagged) {
  PipeWriter w(std::string(size_t{3} << 20, 'y'));
  ASSERT_OK_AND_ASSIGN(auto in, ByteStream::Open("-", 4096, size_t{1} << 20, w.read_fd()));
  Result<bool> r = true;
  while (r && *r) r = in->Fill();
  ASSERT_FALSE(r);
  EXPECT_TRUE(in->unit_too_long());
  EXPECT_EQ(in->max_unit(), size_t{1} << 20);
}

}  // namespace byte_stream_test
}  // namespace floe::format
