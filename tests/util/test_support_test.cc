// The test support library (tests/testing) itself: the Result assertions and
// matchers print the error's kind and message when they fail, hex round-trips,
// and the two-process race reports a process that failed.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "testing/files.h"
#include "testing/hex.h"
#include "testing/matchers.h"
#include "testing/race.h"

namespace floe {
namespace test_support_test {

using test::HasErrorMessage;
using test::IsError;
using test::IsOk;
using ::testing::Not;

Result<int> Five() { return 5; }
Result<int> MissingTable() { return NotFound("table db.t does not exist"); }
Status DiskFull() { return IoError("disk full writing {}", "a.parquet"); }
Status Fine() { return Ok(); }

TEST(TestSupportAssertions, ExpectOkPrintsTheExpressionKindAndMessage) {
  EXPECT_NONFATAL_FAILURE(EXPECT_OK(MissingTable()),
                          "MissingTable() failed: not found: table db.t does not exist");
  EXPECT_NONFATAL_FAILURE(EXPECT_OK(DiskFull()) << "while closing",
                          "I/O error: disk full writing a.parquet (retryable)\nwhile closing");
}

TEST(TestSupportAssertions, AssertOkFailsFatallyWithTheError) {
  EXPECT_FATAL_FAILURE(ASSERT_OK(DiskFull()),
                       "DiskFull() failed: I/O error: disk full writing a.parquet");
}

void AssignMissing() {
  ASSERT_OK_AND_ASSIGN(int v, MissingTable());
  (void)v;
  ADD_FAILURE() << "not reached";
}

TEST(TestSupportAssertions, AssertOkAndAssignGivesTheValueOrTheError) {
  ASSERT_OK_AND_ASSIGN(int v, Five());
  EXPECT_EQ(v, 5);
  ASSERT_OK(Fine());
  EXPECT_OK(Five());
  EXPECT_FATAL_FAILURE(AssignMissing(),
                       "MissingTable() failed: not found: table db.t does not exist");
}

TEST(TestSupportMatchers, MatchOnSuccessKindAndMessage) {
  EXPECT_THAT(Five(), IsOk());
  EXPECT_THAT(Fine(), IsOk());
  EXPECT_THAT(MissingTable(), Not(IsOk()));
  EXPECT_THAT(MissingTable(), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(MissingTable(), Not(IsError(ErrorKind::kIo)));
  EXPECT_THAT(Five(), Not(IsError(ErrorKind::kNotFound)));
  EXPECT_THAT(DiskFull(), HasErrorMessage("a.parquet"));
  EXPECT_THAT(DiskFull(), Not(HasErrorMessage("b.parquet")));
  EXPECT_THAT(Fine(), Not(HasErrorMessage("")));
}

TEST(TestSupportMatchers, FailuresShowTheError) {
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(MissingTable(), IsOk()),
                          "which is an error: not found: table db.t does not exist");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(DiskFull(), IsError(ErrorKind::kCorrupt)),
                          "Expected: is an error of kind \"corrupt file\"");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(DiskFull(), IsError(ErrorKind::kCorrupt)),
                          "which is an error of another kind: I/O error: disk full");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(Five(), HasErrorMessage("x")), "which is OK");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(MissingTable(), HasErrorMessage("db.u")),
                          "Expected: is an error whose message contains \"db.u\"");
}

TEST(TestSupportMatchers, ResultsPrintAsValueOrError) {
  EXPECT_EQ(::testing::PrintToString(Five()), "OK (5)");
  EXPECT_EQ(::testing::PrintToString(Fine()), "OK");
  EXPECT_EQ(::testing::PrintToString(MissingTable()),
            "error (not found: table db.t does not exist)");
}

TEST(TestSupportHex, RoundTrips) {
  EXPECT_EQ(test::Hex(std::string("\x01\xab\xff\x00", 4)), "01abff00");
  EXPECT_EQ(test::Unhex("01abff00"), std::string("\x01\xab\xff\x00", 4));
  EXPECT_EQ(test::Unhex("01ABFF"), "\x01\xab\xff");
  EXPECT_NONFATAL_FAILURE(test::Unhex("0g"), "not a hex digit at offset 1 of \"0g\"");
}

TEST(TestSupportFiles, QuotesForTheShellAndKeepsFilesWhole) {
  EXPECT_EQ(test::ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(test::ShellConcurrently({"a", "b x"}), "{ ( a ) & ( b x ) & wait; }");
  auto dir = test::FreshTestDir("floe_test_support_");
  std::string bytes("a\0b\n", 4);
  ASSERT_TRUE(test::WriteFile(dir / "f", bytes));
  EXPECT_EQ(test::ReadFile(dir / "f"), bytes);
  EXPECT_EQ(test::ReadFile(dir / "missing"), "");
  test::RemoveTestDirIfPassed(dir);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(TestSupportRace, BothProcessesRunAndAFailureIsNamed) {
  auto dir = test::FreshTestDir("floe_test_support_race_");
  EXPECT_TRUE(test::RaceTwoProcesses([&](int who) -> Status {
    if (!test::WriteFile(dir / std::to_string(who), "x")) return IoError("cannot write");
    return Ok();
  }));
  EXPECT_TRUE(std::filesystem::exists(dir / "1"));
  EXPECT_TRUE(std::filesystem::exists(dir / "2"));
  auto r = test::RaceTwoProcesses([](int who) -> Status {
    if (who == 2) return Internal("process two fails");
    return Ok();
  });
  ASSERT_FALSE(r);
  EXPECT_EQ(std::string(r.message()), "process 2 exited with 1 (its error is on stderr); ");
  test::RemoveTestDirIfPassed(dir);
}

}  // namespace test_support_test
}  // namespace floe
