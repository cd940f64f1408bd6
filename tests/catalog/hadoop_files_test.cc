#include "floe/catalog/commit_retry.h"
#include "floe/catalog/hadoop_files.h"
#include "floe/io/file.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/race.h"

namespace floe::catalog {
namespace hadoop_files_test {

namespace fs = std::filesystem;

class HadoopFilesTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::FreshTestDir("floe_catalog_test_"); }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }
  fs::path dir_;
};

TEST(ValidateName, RejectsTraversalAndControlCharacters) {
  EXPECT_OK(ValidateName("events_2024", "table"));
  EXPECT_OK(ValidateName("a.b", "table"));
  for (std::string bad : std::vector<std::string>{"", ".", "..", "a/b", "a\\b", "x..y", std::string("a\0b", 3), "a\nb",
                          "tab\there"}) {
    auto st = ValidateName(bad, "table");
    ASSERT_FALSE(st) << bad;
    EXPECT_EQ(st.error().kind, ErrorKind::kInvalidArgument);
    EXPECT_NE(st.error().message.find("table name"), std::string::npos) << st.error().message;
  }
}

TEST(ParseVersionFileName, AcceptsPlainAndGzip) {
  EXPECT_EQ(ParseVersionFileName("v12.metadata.json"), 12);
  EXPECT_EQ(ParseVersionFileName("v3.gz.metadata.json"), 3);
  EXPECT_FALSE(ParseVersionFileName("00001-abc.metadata.json"));
  EXPECT_FALSE(ParseVersionFileName("v.metadata.json"));
  EXPECT_FALSE(ParseVersionFileName(".v1.metadata.json.1.tmp"));
}

TEST_F(HadoopFilesTest, PublishNeverReplacesAndHintMayLag) {
  MetadataDir md((dir_ / "t").string());
  EXPECT_EQ(*md.CurrentVersion(), std::nullopt);
  ASSERT_OK(md.Publish(1, "{\"v\":1}"));
  ASSERT_OK(md.WriteHint(1));
  EXPECT_EQ(*ReadLocalFile(md.dir() + "/version-hint.text"), "1");
  auto again = md.Publish(1, "{\"v\":\"other\"}");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().kind, ErrorKind::kCommitFailed);
  EXPECT_TRUE(again.error().retryable);
  EXPECT_EQ(*ReadLocalFile(md.VersionPath(1)), "{\"v\":1}");
  // A writer that died before updating the hint: readers still find v2.
  ASSERT_OK(md.Publish(2, "{}"));
  EXPECT_EQ(**md.CurrentVersion(), 2);
  // No hint at all: the highest version wins.
  fs::remove(md.dir() + "/version-hint.text");
  EXPECT_EQ(**md.CurrentVersion(), 2);
  // No temporary files are left behind.
  for (const auto& e : fs::directory_iterator(md.dir())) {
    EXPECT_FALSE(e.path().filename().string().starts_with(".")) << e.path();
  }
}

TEST(RetryPolicy, ReadsPropertiesAndRejectsBadValues) {
  auto p = RetryPolicy::FromProperties({{"commit.retry.num-retries", "7"},
                                        {"commit.retry.min-wait-ms", "5"}});
  ASSERT_OK(p);
  EXPECT_EQ(p->num_retries, 7);
  EXPECT_EQ(p->min_wait_ms, 5);
  EXPECT_EQ(p->max_wait_ms, 60000);
  auto bad = RetryPolicy::FromProperties({{"commit.retry.max-wait-ms", "soon"}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("commit.retry.max-wait-ms"), std::string::npos);
  EXPECT_LE(p->WaitMs(30), p->max_wait_ms);
}

TEST(RunWithRetries, RetriesOnlyCommitFailed) {
  RetryPolicy p;
  p.min_wait_ms = 0;
  p.max_wait_ms = 0;
  int calls = 0;
  auto st = RunWithRetries(p, [&](int) -> Status {
    ++calls;
    return calls < 3 ? Status(CommitFailed("race")) : Ok();
  });
  EXPECT_OK(st);
  EXPECT_EQ(calls, 3);
  calls = 0;
  st = RunWithRetries(p, [&](int) -> Status {
    ++calls;
    return CommitStateUnknown("timeout");
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(st.error().kind, ErrorKind::kCommitStateUnknown);
  calls = 0;
  st = RunWithRetries(p, [&](int) -> Status {
    ++calls;
    return CommitFailed("race");
  });
  EXPECT_EQ(calls, p.num_retries + 1);
  EXPECT_NE(st.error().message.find("tried 5 times"), std::string::npos);
}

// Two processes race 200 commits each for the same table: every commit lands
// exactly once and the versions have no gaps.
TEST_F(HadoopFilesTest, TwoProcessesCommitWithoutLossOrGaps) {
  const std::string table = (dir_ / "race").string();
  const int kCommits = 200;
  auto child = [&](int who) -> Status {
    MetadataDir md(table);
    RetryPolicy p;
    p.num_retries = 100000;
    p.min_wait_ms = 0;
    p.max_wait_ms = 2;
    for (int i = 0; i < kCommits; ++i) {
      FLOE_RETURN_IF_ERROR(RunWithRetries(p, [&](int) -> Status {
        auto cur = md.CurrentVersion();
        if (!cur) return Fail(cur.error());
        int64_t next = cur->value_or(0) + 1;
        FLOE_RETURN_IF_ERROR(md.Publish(next, fmt::format("{} {}", who, i), /*sync=*/false));
        // The hint is only a hint (readers fall back to listing versions);
        // the test checks the last one written after the race.
        (void)md.WriteHint(next);
        return Ok();
      }));
    }
    return Ok();
  };
  ASSERT_TRUE(test::RaceTwoProcesses(child));
  MetadataDir md(table);
  ASSERT_EQ(**md.CurrentVersion(), 2 * kCommits);
  std::set<std::string> seen;
  for (int v = 1; v <= 2 * kCommits; ++v) {
    auto text = ReadLocalFile(md.VersionPath(v));
    ASSERT_TRUE(text) << "gap at version " << v;
    EXPECT_TRUE(seen.insert(*text).second) << "commit twice: " << *text;
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(2 * kCommits));
  // Whichever writer renamed its hint last, the hint names the newest version.
  EXPECT_EQ(*ReadLocalFile(md.dir() + "/version-hint.text"), std::to_string(2 * kCommits));
}

TEST_F(HadoopFilesTest, AStaleHintWriteNamesTheNewestVersion) {
  // A writer that published v1 writes its hint after another writer already
  // published v2 and v3 (and wrote hint 3): the hint must not go back to 1.
  MetadataDir md((dir_ / "t").string());
  ASSERT_OK(md.Publish(1, "{}"));
  ASSERT_OK(md.Publish(2, "{}"));
  ASSERT_OK(md.Publish(3, "{}"));
  ASSERT_OK(md.WriteHint(1));
  EXPECT_EQ(*ReadLocalFile(md.dir() + "/version-hint.text"), "3");
  ASSERT_OK(md.WriteHint(3));
  EXPECT_EQ(*ReadLocalFile(md.dir() + "/version-hint.text"), "3");
}

}  // namespace hadoop_files_test
}  // namespace floe::catalog

#include "floe/catalog/identifier.h"

namespace floe::catalog {
namespace hadoop_files_test {

TEST(Identifier, ParsesNamespacesAndTables) {
  auto id = ParseTableIdentifier("a.b.events");
  ASSERT_OK(id);
  EXPECT_EQ(id->ns.levels, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(id->name, "events");
  EXPECT_EQ(id->ToString(), "a.b.events");
  EXPECT_FALSE(ParseTableIdentifier("events"));
  EXPECT_FALSE(ParseTableIdentifier("db..t"));
  EXPECT_FALSE(ParseTableIdentifier("db.t\x01"));
  EXPECT_TRUE(ParseNamespace("")->empty());
}

}  // namespace hadoop_files_test
}  // namespace floe::catalog
