#include "floe/io/file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "testing/files.h"
#include "testing/matchers.h"

namespace floe {
namespace file_test {

namespace fs = std::filesystem;

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::FreshTestDir("floe_io_test_"); }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }
  fs::path dir_;
};

TEST_F(FileTest, CommitPublishesAndAbortLeavesNothing) {
  std::string path = (dir_ / "a.bin").string();
  {
    auto out = OpenLocalOutput(path);
    ASSERT_OK(out);
    ASSERT_OK((*out)->Write("hello", 5));
    EXPECT_EQ((*out)->Tell(), 5);
    EXPECT_FALSE(fs::exists(path));  // not visible before commit
    ASSERT_OK((*out)->Commit());
  }
  EXPECT_EQ(*ReadLocalFile(path), "hello");
  {
    auto out = OpenLocalOutput((dir_ / "b.bin").string());
    ASSERT_OK((*out)->Write("x", 1));
    // destroyed without commit
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(FileTest, CommitNeverReplacesWithoutOverwrite) {
  std::string path = (dir_ / "v1.json").string();
  ASSERT_OK(WriteLocalFile(path, "one", false));
  auto out = OpenLocalOutput(path + ".x");
  ASSERT_OK(out);
  auto again = OpenLocalOutput(path);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().kind, ErrorKind::kAlreadyExists);
  EXPECT_EQ(*ReadLocalFile(path), "one");
}

TEST_F(FileTest, ReadsPastTheEndAreCorruptNotCrashes) {
  std::string path = (dir_ / "c.bin").string();
  ASSERT_OK(WriteLocalFile(path, "abc"));
  auto in = OpenLocalInput(path);
  ASSERT_OK(in);
  uint8_t buf[8];
  EXPECT_OK((*in)->ReadAt(1, 2, buf));
  auto st = (*in)->ReadAt(2, 5, buf);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kCorrupt);
  EXPECT_EQ(OpenLocalInput((dir_ / "missing").string()).error().kind, ErrorKind::kNotFound);
}

TEST_F(FileTest, CreateFoldersReportsOnlyTheFoldersItMade) {
  fs::create_directories(dir_ / "a");
  std::vector<std::string> made;
  ASSERT_OK(CreateLocalFolders((dir_ / "a/b/c").string(), &made));
  EXPECT_EQ(made, (std::vector<std::string>{(dir_ / "a/b").string(), (dir_ / "a/b/c").string()}));
  made.clear();
  ASSERT_OK(CreateLocalFolders((dir_ / "a/b/c/").string(), &made));  // all there already
  EXPECT_TRUE(made.empty());
  // A file in the way is an error naming it.
  ASSERT_OK(WriteLocalFile((dir_ / "f").string(), "x"));
  auto st = CreateLocalFolders((dir_ / "f/g").string(), &made);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("f/g"), std::string::npos) << st.error().message;
  EXPECT_TRUE(made.empty());
}

TEST_F(FileTest, RemoveEmptyFoldersKeepsFoldersWithContent) {
  std::vector<std::string> made;
  ASSERT_OK(CreateLocalFolders((dir_ / "x/y/z").string(), &made));
  ASSERT_OK(CreateLocalFolders((dir_ / "x/w").string(), &made));
  ASSERT_OK(WriteLocalFile((dir_ / "x/w/keep").string(), "k"));
  // x/y/z and x/y go (innermost first, whatever the order given); x/w holds a
  // file, so x/w and x stay.
  auto removed = RemoveEmptyLocalFolders(made);
  EXPECT_EQ(removed, (std::vector<std::string>{(dir_ / "x/y/z").string(), (dir_ / "x/y").string()}));
  EXPECT_TRUE(fs::exists(dir_ / "x/w/keep"));
  EXPECT_FALSE(fs::exists(dir_ / "x/y"));
  EXPECT_TRUE(RemoveEmptyLocalFolders({(dir_ / "gone").string()}).empty());
}

TEST_F(FileTest, OpenInAMissingFolderIsNotFound) {
  auto out = OpenLocalOutput((dir_ / "no/such/file").string());
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().kind, ErrorKind::kNotFound);
  EXPECT_NE(out.error().message.find("no/such"), std::string::npos) << out.error().message;
}

}  // namespace file_test
}  // namespace floe
