// The sink adapter drives the test sink plugin (tests/plugin/plugins/test_sink.cc),
// which logs every call: the life cycle, the retract flags with and without
// FLOE_SINK_WANTS_UPDATE_BEFORE, failures named by class and call, and a
// crash that ends the process with a message instead of silence.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

// ASan and TSan put a SEGV handler of their own before floe's.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FLOE_TEST_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FLOE_TEST_SANITIZER 1
#endif
#endif
#ifdef FLOE_TEST_SANITIZER
#include <sanitizer/common_interface_defs.h>
#endif

#include "floe/plugin/commit_ledger.h"
#include "floe/plugin/plugin_sink.h"
#include "plugin_test_util.h"
#include "testing/matchers.h"

namespace floe::plugin {
namespace sink_test {

using floe::test::HasErrorMessage;
using floe::test::IsError;
using test::IdNameBatch;
using test::Lines;
using test::PluginFile;
using ::testing::AllOf;
using ::testing::ElementsAre;

class PluginSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(LoadPlugin(PluginFile("floe_test_sink")));
    dir_ = floe::test::FreshTestDir("plugin_sink");
    log_ = (dir_ / "calls.log").string();
  }
  void TearDown() override { floe::test::RemoveTestDirIfPassed(dir_); }

  SinkSpec Spec(const std::string& cls, const std::string& extra = "") {
    SinkSpec s;
    s.class_name = cls;
    s.parameter = "log=" + log_ + (extra.empty() ? "" : " " + extra);
    s.schema = test::IdNameSchema();
    s.options = {{"format", "x"}};
    return s;
  }

  std::filesystem::path dir_;
  std::string log_;
};

TEST_F(PluginSinkTest, LifeCycleInOrder) {
  {
    ASSERT_OK_AND_ASSIGN(auto sink, PluginSink::Open(Spec("test.RecordingSink")));
    ASSERT_OK(sink->Write(IdNameBatch({{1, "a"}, {2, ""}})));
    ASSERT_OK(sink->Flush(true));
    ASSERT_OK_AND_ASSIGN(std::string blob, sink->PrepareCommit(7));
    EXPECT_EQ(blob, "blob-7");
    ASSERT_OK(sink->Commit(7, blob));
    ASSERT_OK(sink->Close());
  }
  EXPECT_THAT(
      Lines(log_),
      ElementsAre("create test.RecordingSink subtask=0 parallelism=1 columns=2 format=x",
                  "open log=" + log_ + " (NUL-terminated: yes)", "invoke true id=1 name=\"a\"",
                  "invoke true id=2 name=null", "flush end_of_input=true", "prepare_commit 7",
                  "commit 7 blob-7", "close", "destroy"));
}

TEST_F(PluginSinkTest, UpsertStreamDropsUpdateBefore) {
  {
    ASSERT_OK_AND_ASSIGN(auto sink, PluginSink::Open(Spec("test.RecordingSink")));
    ASSERT_OK(sink->Write(IdNameBatch({{1, "a", RowKind::kInsert},
                                       {1, "a", RowKind::kUpdateBefore},
                                       {1, "b", RowKind::kUpdateAfter},
                                       {1, "b", RowKind::kDelete}})));
    ASSERT_OK(sink->Close());
  }
  auto lines = Lines(log_);
  std::vector<std::string> invokes;
  for (const auto& l : lines) {
    if (l.starts_with("invoke")) invokes.push_back(l);
  }
  EXPECT_THAT(invokes, ElementsAre("invoke true id=1 name=\"a\"", "invoke true id=1 name=\"b\"",
                                   "invoke false id=1 name=\"b\""));
}

TEST_F(PluginSinkTest, RetractStreamPassesUpdateBeforeAsFalse) {
  {
    ASSERT_OK_AND_ASSIGN(auto sink, PluginSink::Open(Spec("test.RetractSink")));
    ASSERT_OK(sink->Write(IdNameBatch({{1, "a", RowKind::kInsert},
                                       {1, "a", RowKind::kUpdateBefore},
                                       {1, "b", RowKind::kUpdateAfter},
                                       {1, "b", RowKind::kDelete}})));
    ASSERT_OK(sink->Close());
  }
  std::vector<std::string> invokes;
  for (const auto& l : Lines(log_)) {
    if (l.starts_with("invoke")) invokes.push_back(l);
  }
  EXPECT_THAT(invokes, ElementsAre("invoke true id=1 name=\"a\"", "invoke false id=1 name=\"a\"",
                                   "invoke true id=1 name=\"b\"", "invoke false id=1 name=\"b\""));
}

TEST_F(PluginSinkTest, AppendOnlyClassRefusesRetractions) {
  ASSERT_OK_AND_ASSIGN(auto sink, PluginSink::Open(Spec("test.AppendSink")));
  EXPECT_THAT(sink->Write(IdNameBatch({{1, "a"}, {1, "a", RowKind::kDelete}})),
              HasErrorMessage(
                  "floe.PluginException: test.AppendSink: row 1 of the batch is -D, but the class "
                  "accepts inserts only"));
}

TEST_F(PluginSinkTest, FailureInOpenNamesClassAndCall) {
  auto sink = PluginSink::Open(Spec("test.RecordingSink", "fail=open"));
  EXPECT_THAT(sink, HasErrorMessage(
                        "floe.PluginException: test.RecordingSink: open: asked to fail in open"));
  // A failed open is not closed, but destroyed.
  auto lines = Lines(log_);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "destroy");
  EXPECT_THAT(lines, ::testing::Not(::testing::Contains("close")));
}

TEST_F(PluginSinkTest, FailureInInvokeMidStream) {
  ASSERT_OK_AND_ASSIGN(auto sink, PluginSink::Open(Spec("test.RecordingSink", "fail=invoke:3")));
  auto st = sink->Write(IdNameBatch({{1, "a"}, {2, "b"}, {3, "c"}, {4, "d"}}));
  EXPECT_THAT(st,
              AllOf(IsError(ErrorKind::kIo),
                    HasErrorMessage(
                        "floe.PluginException: test.RecordingSink: invoke: asked to fail in invoke "
                        "at call 3 (row 2 of the batch, +I)")));
  // Row 4 never reached the plugin, and nothing but abort / close is allowed now.
  EXPECT_THAT(Lines(log_), ::testing::Not(::testing::Contains("invoke true id=4 name=\"d\"")));
  EXPECT_THAT(sink->PrepareCommit(1),
              HasErrorMessage("test.RecordingSink: prepare_commit: an earlier call failed"));
  ASSERT_OK(sink->Abort(1));
  ASSERT_OK(sink->Close());
}

TEST_F(PluginSinkTest, FailureInCloseIsReported) {
  ASSERT_OK_AND_ASSIGN(auto sink, PluginSink::Open(Spec("test.RecordingSink", "fail=close")));
  EXPECT_THAT(
      sink->Close(),
      HasErrorMessage("floe.PluginException: test.RecordingSink: close: asked to fail in close"));
}

TEST_F(PluginSinkTest, UnknownClass) {
  EXPECT_THAT(PluginSink::Open(Spec("com.example.Nope")),
              HasErrorMessage("Could not find any factory for identifier 'com.example.Nope'"));
}

TEST_F(PluginSinkTest, UnloadWaitsForLiveInstances) {
  ASSERT_OK_AND_ASSIGN(auto sink, PluginSink::Open(Spec("test.RecordingSink")));
  ASSERT_OK(UnloadPlugin(PluginFile("floe_test_sink")));
  EXPECT_THAT(FindSinkClass("test.RecordingSink"), IsError(ErrorKind::kNotFound));
  // The library is still mapped: the instance works to the end.
  ASSERT_OK(sink->Write(IdNameBatch({{5, "e"}})));
  ASSERT_OK(sink->Close());
  sink.reset();
  // Loading it again works (a fresh dlopen).
  ASSERT_OK(LoadPlugin(PluginFile("floe_test_sink")));
  ASSERT_OK(FindSinkClass("test.RecordingSink"));
}

// A crash inside a plugin call ends the process with a message naming the
// class, the call and the signal (gtest runs it in a child). The guard's message says what the process had committed (commit_ledger.h)
// and its exit code whether a rerun is safe: 70 nothing was, 71 something
// was (or the crash was inside a commit). Each death test runs in a fresh
// process (the "threadsafe" style re-executes the test binary), so commits
// noted by earlier tests of this process are not in its ledger.
class PluginGuardDeathTest : public PluginSinkTest {
 protected:
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    PluginSinkTest::SetUp();
  }
};

using PluginSinkDeathTest = PluginGuardDeathTest;

TEST_F(PluginSinkDeathTest, CrashInCloseIsNamed) {
  EXPECT_EXIT(
      {
        auto sink = PluginSink::Open(Spec("test.RecordingSink", "crash=close"));
        if (sink) (void)(*sink)->Close();
        std::exit(0);
      },
      ::testing::ExitedWithCode(70),
      "floe.PluginException: plugin class test.RecordingSink crashed in close \\(SIGSEGV\\)");
}

TEST_F(PluginSinkDeathTest, AbortInInvokeIsNamed) {
  EXPECT_EXIT(
      {
        auto sink = PluginSink::Open(Spec("test.RecordingSink", "abort=invoke"));
        if (sink) (void)(*sink)->Write(IdNameBatch({{1, "a"}}));
        std::exit(0);
      },
      ::testing::ExitedWithCode(70),
      "plugin class test.RecordingSink crashed in invoke \\(SIGABRT\\)");
}

TEST_F(PluginGuardDeathTest, ExitInInvokeFailsInsteadOfEndingWithZero) {
  EXPECT_EXIT(
      {
        auto sink = PluginSink::Open(Spec("test.RecordingSink", "exit=invoke"));
        if (sink) (void)(*sink)->Write(IdNameBatch({{1, "a"}}));
        std::_Exit(3);  // not reached when the guard works
      },
      ::testing::ExitedWithCode(70),
      "floe.PluginException: plugin class test.RecordingSink ended the process in invoke \\(exit\\(0\\)\\): "
      "the statement failed; nothing was committed \\(exit 70\\)");
}

TEST_F(PluginGuardDeathTest, ExitInCloseAfterItsCommitSaysTheCommitLanded) {
  EXPECT_EXIT(
      {
        auto sink = PluginSink::Open(Spec("test.RecordingSink", "exit=close"));
        if (!sink) std::_Exit(3);
        if (!(*sink)->Write(IdNameBatch({{1, "a"}})) || !(*sink)->Flush(true)) std::_Exit(4);
        auto blob = (*sink)->PrepareCommit(1);
        if (!blob || !(*sink)->Commit(1, *blob)) std::_Exit(5);
        (void)(*sink)->Close();
        std::_Exit(6);
      },
      ::testing::ExitedWithCode(71),
      "plugin class test.RecordingSink ended the process in close \\(exit\\(0\\)\\): the statement failed; "
      "this process had committed before: plugin sink test.RecordingSink checkpoint 1; nothing after it was "
      "committed \\(exit 71");
}

TEST_F(PluginGuardDeathTest, CrashInDestroyAfterAnIcebergCommitSaysItLanded) {
  EXPECT_EXIT(
      {
        auto sink = PluginSink::Open(Spec("test.RecordingSink", "crash=destroy"));
        if (!sink) std::_Exit(3);
        if (!(*sink)->Close()) std::_Exit(4);
        // What the SQL engine's Iceberg sink notes when its snapshot lands.
        NoteCommitted("Iceberg table c.db.t snapshot 42");
        sink->reset();
        std::_Exit(5);
      },
      ::testing::ExitedWithCode(71),
      "plugin class test.RecordingSink crashed in destroy \\(SIGSEGV\\); this process had committed before: "
      "Iceberg table c.db.t snapshot 42; nothing after it was committed");
}

TEST_F(PluginGuardDeathTest, CrashInsideCommitLeavesItsOutcomeUnknown) {
  EXPECT_EXIT(
      {
        auto sink = PluginSink::Open(Spec("test.RecordingSink", "crash=commit"));
        if (!sink) std::_Exit(3);
        (void)(*sink)->Commit(1, "blob");
        std::_Exit(4);
      },
      ::testing::ExitedWithCode(71),
      "plugin class test.RecordingSink crashed in commit \\(SIGSEGV\\); whether that commit landed is unknown; "
      "nothing else was committed");
}

TEST(CommitLedger, ListsTheCommitsAndCountsThoseBeyondItsText) {
  const int64_t before = CommittedCount();
  NoteCommitted("Iceberg table a.b snapshot 1");
  EXPECT_EQ(CommittedCount(), before + 1);
  EXPECT_THAT(CommittedSoFar(), ::testing::HasSubstr("Iceberg table a.b snapshot 1"));
  const std::string big(3000, 'x');  // beyond the ledger's text: counted only
  NoteCommitted(big);
  EXPECT_EQ(CommittedCount(), before + 2);
  EXPECT_THAT(CommittedSoFar(), ::testing::HasSubstr("and 1 more"));
}

#ifdef FLOE_TEST_SANITIZER
constexpr bool kUnderSanitizer = true;
#else
constexpr bool kUnderSanitizer = false;
#endif

TEST_F(PluginSinkDeathTest, CrashOutsidePluginsIsNotBlamedOnThem) {
  // The handlers are installed; a crash in floe's own code keeps the action
  // of the handler that was there before (no plugin message, not exit 70):
  // the default (killed by the signal), or under ASan / TSan the
  // sanitizer's SEGV report and exit.
  auto died_of_the_crash = [](int status) {
    if (WIFSIGNALED(status)) return WTERMSIG(status) == SIGSEGV;
    return kUnderSanitizer && WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
           WEXITSTATUS(status) != 70;
  };
  EXPECT_EXIT(
      {
        auto sink = PluginSink::Open(Spec("test.RecordingSink"));
#ifdef FLOE_TEST_SANITIZER
        // This crash is the test's: its report goes to the child's stderr,
        // not to the log folder where scripts/test counts every report.
        __sanitizer_set_report_path("stderr");
#endif
        volatile int* p = nullptr;
        *p = 1;
      },
      died_of_the_crash, ::testing::Not(::testing::HasSubstr("PluginException")));
}

}  // namespace sink_test
}  // namespace floe::plugin
