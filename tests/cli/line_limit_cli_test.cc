// The line limit of the text inputs (issue 23, item 6): `--max-line-bytes`
// (default 256 MiB, at most 1 GiB) bounds one input line (CSV: record) for
// files and standard input alike, on the plain write path and the change
// sink's; a longer line is an error naming its line number and the limit,
// whether the decoder found the line whole or was still reading it (a line
// longer than the input buffer: it used to say "a line or record is longer
// than N bytes" without the line). Standard input is a pipe fed by a thread,
// the command run in-process (floe::cli::Run with that descriptor).

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "cli/cli_util.h"
#include "floe/cli/run.h"

namespace line_limit_cli_test {

namespace fs = std::filesystem;
using namespace floe_cli_test;  // NOLINT: test helpers

class LineLimitCli : public testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("floe_line_limit_"); }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  // `floe args` in-process with `input` on a pipe as standard input.
  RunResult FloeWithStdin(const std::string& args, const std::string& input) {
    RunResult r;
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return r;
    std::thread writer([&] {
      for (size_t at = 0; at < input.size();) {
        const ssize_t n = ::write(fds[1], input.data() + at, std::min<size_t>(65536, input.size() - at));
        if (n <= 0) break;
        at += static_cast<size_t>(n);
      }
      ::close(fds[1]);
    });
    r = FloeIn(dir_, ShellWords(args), fds[0]);
    // What floe left unread: drained, so that the writer ends.
    char buf[65536];
    while (::read(fds[0], buf, sizeof buf) > 0) {
    }
    writer.join();
    ::close(fds[0]);
    return r;
  }

  fs::path dir_;
};

TEST_F(LineLimitCli, ALineOverTheLimitNamesItsLineForFilesAndStandardInput) {
  const std::string jsonl = "{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"" + std::string(5000, 'x') + "\"}\n";
  const std::string csv = "id,s\n1,a\n2," + std::string(5000, 'x') + "\n";
  WriteFile(dir_ / "in.jsonl", jsonl);
  WriteFile(dir_ / "in.csv", csv);
  const std::string schema = " --schema 'id BIGINT, s STRING' --max-line-bytes 1000";
  struct Case {
    std::string args;  ///< after `write --table ns.t`
    std::string stdin_text;
    std::string needle;
  };
  const std::string line2 = "line 2: the line is longer than 1000 bytes (max_line_bytes)";
  const std::string csv_line3 = "line 3: the record is longer than 1000 bytes (max_line_bytes)";
  const std::vector<Case> cases = {
      {"--input in.jsonl", "", "in.jsonl: " + line2},
      {"--input -", jsonl, "<stdin>: " + line2},
      {"--input in.jsonl --set sink_id=a", "", "in.jsonl: " + line2},
      {"--input - --set sink_id=b", jsonl, "<stdin>: " + line2},
      {"--input in.csv", "", "in.csv: " + csv_line3},
      {"--input - --input-format csv", csv, "<stdin>: " + csv_line3},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const std::string args = "write --table ns.t" + schema + " " + c.args;
    RunResult r = c.stdin_text.empty() ? FloeIn(dir_, ShellWords(args)) : FloeWithStdin(args, c.stdin_text);
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
  }
  // Nothing was committed by any of them.
  RunResult s = FloeIn(dir_, ShellWords("snapshots --table ns.t"));
  EXPECT_EQ(s.out.find("snapshot-id"), std::string::npos) << s.out;
}

TEST_F(LineLimitCli, ALineLongerThanTheInputBufferNamesItsLineToo) {
  // 9 MB: longer than the 4 MiB the input buffer starts with, refused while
  // it is still being read (limit 1 MiB), from a file and from a pipe.
  const std::string big = "{\"id\":1}\n{\"id\":2}\n{\"id\":3,\"s\":\"" + std::string(9 << 20, 'y') + "\"}\n";
  WriteFile(dir_ / "big.jsonl", big);
  const std::string args = "write --table ns.t --schema 'id BIGINT, s STRING' --max-line-bytes 1048576 --input ";
  for (bool from_stdin : {false, true}) {
    SCOPED_TRACE(from_stdin ? "stdin" : "file");
    RunResult r = from_stdin ? FloeWithStdin(args + "-", big) : FloeIn(dir_, ShellWords(args + "big.jsonl"));
    EXPECT_EQ(r.rc, 1) << r.err;
    EXPECT_NE(r.err.find("line 3: the line is longer than 1048576 bytes (max_line_bytes)"), std::string::npos)
        << r.err;
  }
}

TEST_F(LineLimitCli, ALongLineWithinTheLimitIsReadFromAPipe) {
  // 20 MB in one line, under the default limit, from a pipe.
  const std::string text = "{\"id\":1,\"s\":\"" + std::string(20 << 20, 'z') + "\"}\n{\"id\":2,\"s\":\"b\"}\n";
  RunResult r = FloeWithStdin("write --table ns.t --schema 'id BIGINT, s STRING' --input -", text);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("\"rows\":2"), std::string::npos) << r.out;
}

TEST_F(LineLimitCli, ALimitOutOfRangeIsRefusedNamingTheOption) {
  WriteFile(dir_ / "in.jsonl", "{\"id\":1}\n");
  for (const char* v : {"0", "1073741825", "-5"}) {
    RunResult r = FloeIn(dir_, ShellWords(std::string("write --table ns.t --schema 'id BIGINT' --input in.jsonl "
                                                      "--max-line-bytes ") +
                                          v));
    EXPECT_EQ(r.rc, 2) << v;
    EXPECT_NE(r.err.find("--max-line-bytes"), std::string::npos) << r.err;
  }
  RunResult h = FloeIn(dir_, {"write", "--help"});
  EXPECT_NE(h.out.find("--max-line-bytes"), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("default 256 MiB"), std::string::npos) << h.out;
}

}  // namespace line_limit_cli_test
