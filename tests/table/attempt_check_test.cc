// The check inside every commit attempt (SnapshotProducer::SetAttemptCheck,
// RowDelta::Check): it sees the head each attempt builds on (the new head
// after a lost race); its error ends the commit at once — no retry, even for
// an error of kind kCommitFailed — comes back unchanged, and leaves none of
// the commit's metadata files behind. Two processes committing the same
// tokens with a check that looks for the token in the history: each token
// lands exactly once, the other process gets the check's error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "floe/io/file.h"
#include "floe/table/append_files.h"
#include "floe/table/row_delta.h"
#include "floe/table/table.h"
#include "floe/table/table_internal.h"
#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/race.h"

namespace floe::table {
namespace attempt_check_test {

namespace fs = std::filesystem;
using iceberg::DataFile;

constexpr const char* kTokenKey = "test.token";

class AttemptCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_attempt_check_");
    catalog_ = std::move(*catalog::OpenHadoopCatalog("t", dir_.string()));
    ASSERT_OK(catalog_->CreateNamespace(*catalog::ParseNamespace("db"), {}));
  }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  Table Create(const std::string& name) {
    catalog::TableDefinition def;
    def.schema = Schema({{1, "id", true, LongType(), {}}});
    def.properties = {{"commit.retry.num-retries", "100000"},
                      {"commit.retry.min-wait-ms", "0"},
                      {"commit.retry.max-wait-ms", "2"}};
    auto t = catalog_->CreateTable(*catalog::ParseTableIdentifier("db." + name), def);
    EXPECT_OK(t);
    return Table(catalog_.get(), std::move(*t));
  }

  // A stand-in data file on disk (its bytes are not read here).
  static DataFile File(const Table& t, const std::string& name) {
    std::string local = *t.LocalPath(t.metadata().location) + "/data/" + name;
    fs::create_directories(fs::path(local).parent_path());
    EXPECT_OK(WriteLocalFile(local, "x"));
    DataFile f;
    f.file_path = FileUri(local);
    f.record_count = 1;
    f.file_size_in_bytes = 1;
    return f;
  }

  static std::set<std::string> MetadataFiles(const Table& t) {
    std::set<std::string> out;
    for (const auto& e :
         fs::directory_iterator(*t.LocalPath(t.metadata().location) + "/metadata")) {
      out.insert(e.path().filename().string());
    }
    return out;
  }

  fs::path dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
};

// Whether `token` is in the summary of `attempt.parent` or an ancestor.
bool TokenInHistory(const SnapshotAttempt& attempt, const std::string& token) {
  if (!attempt.parent) return false;
  for (const auto* s : attempt.metadata.Ancestors(attempt.parent->snapshot_id)) {
    auto it = s->summary.find(kTokenKey);
    if (it != s->summary.end() && it->second == token) return true;
  }
  return false;
}

TEST_F(AttemptCheckTest, CheckFailingOnTheRetryEndsTheCommitAsItSaid) {
  Table t = Create("retry");
  ASSERT_OK_AND_ASSIGN(CommitResult first, AppendFiles(&t).AddDataFile(File(t, "a")).Commit());
  Table stale(catalog_.get(), t.loaded());
  // Meanwhile another writer (a zombie of the same sink) commits the token.
  ASSERT_OK_AND_ASSIGN(CommitResult zombie,
                       AppendFiles(&t).AddDataFile(File(t, "b")).Set(kTokenKey, "7").Commit());
  const std::set<std::string> before = MetadataFiles(t);

  std::vector<std::pair<int, int64_t>> seen;  // (attempt, parent snapshot id)
  auto c = RowDelta(&stale)
               .AddDataFile(File(t, "c"))
               .Set(kTokenKey, "7")
               .Check([&](const SnapshotAttempt& a) -> Status {
                 seen.emplace_back(a.attempt, a.parent ? a.parent->snapshot_id : -1);
                 EXPECT_EQ(a.branch, "main");
                 if (TokenInHistory(a, "7")) return AlreadyExists("token 7 is committed already");
                 return Ok();
               })
               .Commit();
  // The first attempt built on the stale head, lost the swap; the retry saw
  // the zombie's snapshot and the check stopped it.
  EXPECT_EQ(seen, (std::vector<std::pair<int, int64_t>>{{0, first.snapshot_id},
                                                        {1, zombie.snapshot_id}}));
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().kind, ErrorKind::kAlreadyExists);
  EXPECT_EQ(c.error().message, "token 7 is committed already");
  EXPECT_FALSE(c.error().retryable);
  // Neither the first attempt's manifest list nor the added manifest remain.
  EXPECT_EQ(MetadataFiles(t), before);
  ASSERT_OK(t.Refresh());
  EXPECT_EQ(t.metadata().snapshots.size(), 2u);
}

// A check error of the kind a lost race has is still final: not retried.
TEST_F(AttemptCheckTest, CheckErrorOfAnyKindIsNotRetried) {
  Table t = Create("kinds");
  ASSERT_OK(AppendFiles(&t).AddDataFile(File(t, "a")).Commit());
  const std::set<std::string> before = MetadataFiles(t);
  for (ErrorKind kind :
       {ErrorKind::kCommitFailed, ErrorKind::kCommitStateUnknown, ErrorKind::kIo}) {
    int calls = 0;
    auto c = RowDelta(&t)
                 .AddDataFile(File(t, "b"))
                 .Check([&](const SnapshotAttempt&) -> Status {
                   ++calls;
                   return Fail(Error{kind, "the check says no", /*retryable=*/true});
                 })
                 .Commit();
    EXPECT_EQ(calls, 1) << ErrorKindName(kind);
    ASSERT_FALSE(c.has_value());
    EXPECT_EQ(c.error().kind, kind);
    EXPECT_EQ(c.error().message, "the check says no");
    EXPECT_TRUE(c.error().retryable);
    EXPECT_EQ(MetadataFiles(t), before) << ErrorKindName(kind);
  }
  EXPECT_EQ(t.metadata().snapshots.size(), 1u);
}

// A passing check runs once per attempt and the commit lands.
TEST_F(AttemptCheckTest, PassingCheckRunsOnEveryAttempt) {
  Table t = Create("pass");
  ASSERT_OK(AppendFiles(&t).AddDataFile(File(t, "a")).Commit());
  Table stale(catalog_.get(), t.loaded());
  ASSERT_OK(AppendFiles(&t).AddDataFile(File(t, "b")).Commit());
  std::vector<int> attempts;
  ASSERT_OK_AND_ASSIGN(CommitResult c, RowDelta(&stale)
                                           .AddDataFile(File(t, "c"))
                                           .Check([&](const SnapshotAttempt& a) -> Status {
                                             attempts.push_back(a.attempt);
                                             return Ok();
                                           })
                                           .Commit());
  EXPECT_EQ(c.attempts, 2);
  EXPECT_EQ(attempts, (std::vector<int>{0, 1}));
}

// Two processes commit tokens 0..n-1 in order, each guarded by a check that
// looks for its token in the history the attempt builds on.
TEST_F(AttemptCheckTest, RacingWritersCommitEachTokenOnce) {
  Table t = Create("race");
  const int kTokens = 40;
  auto child = [&](int who) -> Status {
    FLOE_ASSIGN_OR_RETURN(auto cat, catalog::OpenHadoopCatalog("c", dir_.string()));
    FLOE_ASSIGN_OR_RETURN(auto loaded, cat->LoadTable(t.id()));
    Table mine(cat.get(), std::move(loaded));
    for (int i = 0; i < kTokens; ++i) {
      const std::string token = std::to_string(i);
      auto c = RowDelta(&mine)
                   .AddDataFile(File(mine, fmt::format("{}-{}", who, i)))
                   .Set(kTokenKey, token)
                   .Check([&](const SnapshotAttempt& a) -> Status {
                     if (TokenInHistory(a, token))
                       return AlreadyExists("token {} is committed", token);
                     return Ok();
                   })
                   .Commit();
      if (!c && c.error().kind != ErrorKind::kAlreadyExists) return Fail(c.error());
      // Either way the next token builds on a table that has this one.
      if (!c) FLOE_RETURN_IF_ERROR(mine.Refresh());
    }
    return Ok();
  };
  ASSERT_TRUE(test::RaceTwoProcesses(child));
  ASSERT_OK(t.Refresh());
  std::map<std::string, int> count;
  for (const auto* s : t.metadata().Ancestors(*t.metadata().current_snapshot_id)) {
    ++count[s->summary.at(kTokenKey)];
  }
  ASSERT_EQ(count.size(), static_cast<size_t>(kTokens));
  for (const auto& [token, n] : count) EXPECT_EQ(n, 1) << "token " << token;
  EXPECT_EQ(t.metadata().snapshots.size(), static_cast<size_t>(kTokens));

  // Every manifest and manifest list in metadata/ is referenced: the checks
  // that stopped a commit left nothing.
  std::set<std::string> referenced;
  for (const auto& s : t.metadata().snapshots) {
    referenced.insert(fs::path(s.manifest_list).filename().string());
    ASSERT_OK_AND_ASSIGN(auto manifests, internal::ReadManifests(t, s));
    for (const auto& m : manifests)
      referenced.insert(fs::path(m.manifest_path).filename().string());
  }
  for (const auto& name : MetadataFiles(t)) {
    if (name.ends_with(".avro")) {
      EXPECT_TRUE(referenced.contains(name)) << name;
    }
  }
}

}  // namespace attempt_check_test
}  // namespace floe::table
