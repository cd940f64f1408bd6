#include "floe/io/file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace floe {
namespace {

namespace fs = std::filesystem;

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("floe_io_test_{}", ::getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(FileTest, CommitPublishesAndAbortLeavesNothing) {
  std::string path = (dir_ / "a.bin").string();
  {
    auto out = OpenLocalOutput(path);
    ASSERT_TRUE(out);
    ASSERT_TRUE((*out)->Write("hello", 5));
    EXPECT_EQ((*out)->Tell(), 5);
    EXPECT_FALSE(fs::exists(path));  // not visible before commit
    ASSERT_TRUE((*out)->Commit());
  }
  EXPECT_EQ(*ReadLocalFile(path), "hello");
  {
    auto out = OpenLocalOutput((dir_ / "b.bin").string());
    ASSERT_TRUE((*out)->Write("x", 1));
    // destroyed without commit
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(FileTest, CommitNeverReplacesWithoutOverwrite) {
  std::string path = (dir_ / "v1.json").string();
  ASSERT_TRUE(WriteLocalFile(path, "one", false));
  auto out = OpenLocalOutput(path + ".x");
  ASSERT_TRUE(out);
  auto again = OpenLocalOutput(path);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().kind, ErrorKind::kAlreadyExists);
  EXPECT_EQ(*ReadLocalFile(path), "one");
}

TEST_F(FileTest, ReadsPastTheEndAreCorruptNotCrashes) {
  std::string path = (dir_ / "c.bin").string();
  ASSERT_TRUE(WriteLocalFile(path, "abc"));
  auto in = OpenLocalInput(path);
  ASSERT_TRUE(in);
  uint8_t buf[8];
  EXPECT_TRUE((*in)->ReadAt(1, 2, buf));
  auto st = (*in)->ReadAt(2, 5, buf);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kCorrupt);
  EXPECT_EQ(OpenLocalInput((dir_ / "missing").string()).error().kind, ErrorKind::kNotFound);
}

}  // namespace
}  // namespace floe
