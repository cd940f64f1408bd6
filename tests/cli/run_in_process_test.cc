// floe::cli::Run (cli/run.h): the `floe` command in-process, with its own
// standard input, output and error — the same exit codes and output as the
// process, and nothing written to the test process's own descriptors.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "cli/cli_util.h"

namespace floe_cli_test {
namespace run_in_process_test {

class RunInProcess : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("floe_run_in_process_"); }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }
  fs::path dir_;
};

TEST_F(RunInProcess, ExitCodesAndOutputAreTheCommands) {
  RunResult version = FloeIn(dir_, {"--version"});
  EXPECT_EQ(version.rc, 0);
  EXPECT_EQ(version.out, "floe 0.1.0\n");
  RunResult bad = FloeIn(dir_, {"scan", "--bogus"});
  EXPECT_EQ(bad.rc, 2);
  EXPECT_TRUE(bad.err.starts_with("floe: ")) << bad.err;
  EXPECT_NE(bad.err.find("--bogus"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.out, "");
  RunResult missing = FloeIn(dir_, {"scan", "--table", "db.nope"});
  EXPECT_EQ(missing.rc, 1);
  EXPECT_NE(missing.err.find("db.nope"), std::string::npos) << missing.err;
  // The same as the process gives.
  RunResult process = RunIn(dir_, Shell(FLOE_BIN) + " scan --table db.nope");
  EXPECT_EQ(process.rc, missing.rc);
  EXPECT_EQ(process.err, missing.err);
}

TEST_F(RunInProcess, StandardInputIsTheCallersDescriptor) {
  WriteFile(dir_ / "rows.jsonl",
            "{\"id\":1,\"name\":\"a\",\"seq\":1}\n{\"id\":2,\"name\":\"b\",\"seq\":2}\n");
  const int in = ::open((dir_ / "rows.jsonl").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(in, 0);
  const int out = ::memfd_create("out", MFD_CLOEXEC), err = ::memfd_create("err", MFD_CLOEXEC);
  std::error_code ec;
  const fs::path before = fs::current_path();
  fs::current_path(dir_);
  // Through the change sink (merge-on-read reads standard input as a stream).
  const int mor = floe::cli::Run({"floe", "write", "--table", "db.t", "--schema", "id BIGINT, name STRING, seq BIGINT",
                                  "--set", "mode=merge-on-read", "--set", "upsert=true", "--set",
                                  "sequence_number_column=seq", "--set", "equality_columns=id", "-i", "-",
                                  "--no-progress"},
                                 floe::cli::Io{in, out, err});
  fs::current_path(before, ec);
  char buf[4096];
  ::lseek(err, 0, SEEK_SET);
  const ssize_t n = ::read(err, buf, sizeof buf);
  EXPECT_EQ(mor, 0) << std::string(buf, static_cast<size_t>(std::max<ssize_t>(n, 0)));
  ::lseek(out, 0, SEEK_SET);
  const ssize_t m = ::read(out, buf, sizeof buf);
  EXPECT_NE(std::string(buf, static_cast<size_t>(std::max<ssize_t>(m, 0))).find("\"applied\":2"), std::string::npos);
  for (int fd : {in, out, err}) ::close(fd);
  RunResult scan = FloeIn(dir_, {"scan", "--table", "db.t"});
  ASSERT_EQ(scan.rc, 0) << scan.err;
  EXPECT_EQ(scan.out, "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n");
}

}  // namespace run_in_process_test
}  // namespace floe_cli_test
