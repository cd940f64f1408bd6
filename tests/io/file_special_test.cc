// OpenLocalInput refuses what is not a regular file (a FIFO, a device) with an
// error naming the path, without blocking: open(2) of a FIFO for reading waits
// for a writer, so a FIFO put in place of a data file, manifest or manifest list
// hung every reader before.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>

#include "floe/io/file.h"

namespace floe {
namespace file_special_test {

namespace fs = std::filesystem;

class SpecialFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("floe_io_special_{}", ::getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

void ExpectRefused(const Result<std::unique_ptr<InputFile>>& r, const std::string& path) {
  ASSERT_FALSE(r) << path << " opened as a file";
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidArgument) << r.error().ToString();
  EXPECT_NE(r.error().message.find(path), std::string::npos) << r.error().ToString();
  EXPECT_NE(r.error().message.find("not a regular file"), std::string::npos)
      << r.error().ToString();
}

TEST_F(SpecialFileTest, FifoWithAWriterIsRefused) {
  // A writer holds the FIFO open, so even a blocking open returns at once: what
  // is checked here is that a FIFO is never read as a (0-byte) file.
  const std::string path = (dir_ / "data.parquet").string();
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
  int w = ::open(path.c_str(), O_RDWR | O_NONBLOCK);
  ASSERT_GE(w, 0);
  auto r = OpenLocalInput(path);
  ::close(w);
  ExpectRefused(r, path);
  if (!r) {
    EXPECT_NE(r.error().message.find("FIFO"), std::string::npos) << r.error().ToString();
  }
}

TEST_F(SpecialFileTest, FifoWithoutAWriterIsRefusedWithoutBlocking) {
  const std::string path = (dir_ / "manifest-list.avro").string();
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
  auto pending = std::async(std::launch::async, [&] { return OpenLocalInput(path); });
  if (pending.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    // Blocked in open(2): release it by becoming the writer, then fail.
    int w = ::open(path.c_str(), O_WRONLY);
    ADD_FAILURE() << "OpenLocalInput blocked on a FIFO without a writer";
    pending.wait();
    if (w >= 0) ::close(w);
    return;
  }
  ExpectRefused(pending.get(), path);
}

TEST_F(SpecialFileTest, CharacterDeviceIsRefused) {
  ExpectRefused(OpenLocalInput("/dev/null"), "/dev/null");
}

TEST_F(SpecialFileTest, RegularFilesAndSymlinksToThemStillOpen) {
  const std::string path = (dir_ / "a.bin").string();
  ASSERT_TRUE(WriteLocalFile(path, "hello"));
  auto r = OpenLocalInput(path);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ((*r)->Size(), 5);
  fs::create_symlink(path, dir_ / "link.bin");
  auto l = ReadLocalFile((dir_ / "link.bin").string());
  ASSERT_TRUE(l) << l.error().ToString();
  EXPECT_EQ(*l, "hello");
}

}  // namespace file_special_test
}  // namespace floe
