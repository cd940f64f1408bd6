// The first-minute papercuts of issue 28, each as a new user hit it:
// - a codec level out of range was an error only after the whole input was
//   read (the first file opened then): now the write refuses it up front;
// - keep / drop could not name nested fields (`drop=meta.src`);
// - maps could not be given with --set (`error_handling='{output: e.jsonl}'`);
// - a table location that holds another table's metadata (two catalogs
//   sharing a warehouse folder) is refused, not written into (the refusal
//   is the last stop's; this is its test for the README's case);
// - a streaming write printed its whole accounting every second, idle or
//   not: now after the commits that changed it, and --progress keeps a live
//   line on stderr.
// The commands run in-process (floe::cli::Run); standard input is a pipe the
// test holds open where the point is that floe does not wait for it.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_util.h"
#include "floe/cli/run.h"

namespace papercuts_cli_test {

namespace fs = std::filesystem;
using namespace floe_cli_test;  // NOLINT: test helpers

class PapercutsCli : public testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("floe_papercuts_"); }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  // `floe args` in-process with standard input a pipe that stays open (no
  // writer ever closes it) until the command returns or `limit` passes;
  // `*waited` says whether the limit was reached (the command was still
  // waiting for its input).
  RunResult FloeWithOpenStdin(const std::string& args, std::chrono::seconds limit, bool* waited) {
    RunResult r;
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return r;
    std::atomic<bool> done{false};
    *waited = false;
    std::thread watchdog([&] {
      const auto until = std::chrono::steady_clock::now() + limit;
      while (!done && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      if (!done) {
        *waited = true;
        ::close(fds[1]);  // end the input: the command can finish
        fds[1] = -1;
      }
    });
    r = FloeIn(dir_, ShellWords(args), fds[0]);
    done = true;
    watchdog.join();
    ::close(fds[0]);
    if (fds[1] >= 0) ::close(fds[1]);
    return r;
  }

  fs::path dir_;
};

TEST_F(PapercutsCli, ACodecLevelOutOfRangeIsRefusedBeforeTheInputIsRead) {
  struct Case {
    std::string set, needle;
  };
  for (const Case& c : std::vector<Case>{
           {"--set compression-codec=gzip --set compression-level=15", "level 15 is out of range for gzip (1..9)"},
           {"--set compression-codec=brotli --set compression-level=12", "level 12 is out of range for brotli"},
           {"--set write.parquet.compression-codec=gzip --set write.parquet.compression-level=10",
            "level 10 is out of range for gzip"},
           // The change sink's path (merge-on-read) resolves its writer options too.
           {"--set compression-codec=gzip --set compression-level=15 --set mode=merge-on-read "
            "--set equality_columns=id --set sequence_number_column=seq",
            "level 15 is out of range for gzip"},
       }) {
    SCOPED_TRACE(c.set);
    bool waited = false;
    RunResult r = FloeWithOpenStdin("write --table db.t --schema 'id BIGINT, seq BIGINT' --input - " + c.set,
                                    std::chrono::seconds(60), &waited);
    EXPECT_FALSE(waited) << "floe waited for its input before refusing the level";
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("compression-level"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "warehouse/db/t/data")) << "nothing written";
  }
  // A level in range is taken (and snappy, which has no levels, ignores one,
  // as Iceberg's writers do).
  WriteFile(dir_ / "in.jsonl", "{\"id\":1}\n");
  for (std::string set : {"--set compression-codec=gzip --set compression-level=9",
                          "--set compression-codec=zstd --set compression-level=-5",
                          "--set compression-codec=snappy --set compression-level=7"}) {
    RunResult r = FloeRun(dir_, "write --table db.ok --schema 'id BIGINT' --input in.jsonl " + set);
    EXPECT_EQ(r.rc, 0) << set << ": " << r.err;
  }
}

TEST_F(PapercutsCli, KeepAndDropNameNestedFields) {
  WriteFile(dir_ / "in.jsonl",
            "{\"id\":1,\"meta\":{\"src\":\"web\",\"at\":5},\"v\":\"a\"}\n"
            "{\"id\":2,\"meta\":{\"src\":\"app\",\"at\":6},\"v\":\"b\"}\n");
  const std::string schema = " --schema 'id BIGINT, meta STRUCT<src STRING, at BIGINT>, v STRING' --input in.jsonl";
  RunResult r = FloeRun(dir_, "write --table db.dropped --set drop=meta.src" + schema);
  ASSERT_EQ(r.rc, 0) << r.err;
  r = FloeRun(dir_, "scan --table db.dropped");
  EXPECT_EQ(r.out, "{\"id\":1,\"meta\":{\"at\":5},\"v\":\"a\"}\n{\"id\":2,\"meta\":{\"at\":6},\"v\":\"b\"}\n");
  r = FloeRun(dir_, "write --table db.kept --set keep=id,meta.src" + schema);
  ASSERT_EQ(r.rc, 0) << r.err;
  r = FloeRun(dir_, "scan --table db.kept");
  EXPECT_EQ(r.out, "{\"id\":1,\"meta\":{\"src\":\"web\"}}\n{\"id\":2,\"meta\":{\"src\":\"app\"}}\n");
  r = FloeRun(dir_, "write --table db.bad --set drop=meta.none" + schema);
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("drop: no field 'meta.none'"), std::string::npos) << r.err;
}

TEST_F(PapercutsCli, SetTakesMapsInYamlFlowForm) {
  WriteFile(dir_ / "in.jsonl", "{\"id\":1,\"seq\":1}\n{\"id\":\"not a number\",\"seq\":2}\n{\"id\":3,\"seq\":3}\n");
  RunResult r = FloeRun(dir_,
                        "write --table db.t --schema 'id BIGINT, seq BIGINT' --input in.jsonl --set mode=merge-on-read "
                        "--set equality_columns=id --set sequence_number_column=seq "
                        "--set 'error_handling={output: e.jsonl}' --set 'snapshot_properties={pipeline: demo}'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(ReadFile(dir_ / "e.jsonl").find("\"position\":2"), std::string::npos) << ReadFile(dir_ / "e.jsonl");
  r = FloeRun(dir_, "snapshots --table db.t");
  EXPECT_NE(r.out.find("\"pipeline\":\"demo\""), std::string::npos) << r.out;
}

// Two catalogs sharing a warehouse folder (the README's examples did): a
// hadoop write of db.t where a SQL-catalog table db.t keeps its files is
// refused, naming the folder, and writes nothing there; the SQL table reads
// as before.
TEST_F(PapercutsCli, ATableIsNotCreatedWhereAnotherTablesMetadataIs) {
  WriteFile(dir_ / "in.jsonl", "{\"id\":1}\n");
  const std::string sql = " --catalog catalog-type=sql --catalog uri=jdbc:sqlite:file:./catalog.db"
                          " --catalog warehouse=./warehouse";
  ASSERT_EQ(FloeRun(dir_, "write --table db.t --schema 'id BIGINT' --input in.jsonl" + sql).rc, 0);
  const auto before = fs::directory_iterator(dir_ / "warehouse/db/t/metadata");
  size_t files = std::distance(before, fs::directory_iterator());
  RunResult r = FloeRun(dir_, "write --table db.t --schema 'id BIGINT' --input in.jsonl --catalog warehouse=./warehouse");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("already holds another table's metadata"), std::string::npos) << r.err;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "warehouse/db/t/metadata"), fs::directory_iterator()),
            static_cast<std::ptrdiff_t>(files));
  EXPECT_FALSE(fs::exists(dir_ / "warehouse/db/t/metadata/version-hint.text"));
  EXPECT_EQ(FloeRun(dir_, "scan --table db.t" + sql).out, "{\"id\":1}\n");
}

// A streaming write (standard input held open, a commit every second) prints
// its accounting line after a commit that changed it, nothing while the
// stream is idle (two heartbeat commits pass, each a new metadata version),
// and nothing more at the end when nothing changed since. --progress adds a
// live line on stderr (carriage returns, one newline at the end); without it
// (stderr is not a terminal here) stderr has no such line.
TEST_F(PapercutsCli, AStreamingWritePrintsOnCommitsNotWhileIdle) {
  for (const bool progress : {false, true}) {
    SCOPED_TRACE(progress ? "--progress" : "no --progress");
    const fs::path wh = dir_ / (progress ? "wh_progress" : "wh");
    int in[2];
    ASSERT_EQ(::pipe2(in, O_CLOEXEC), 0);
    const int out = ::memfd_create("floe-out", MFD_CLOEXEC);
    const int err = ::memfd_create("floe-err", MFD_CLOEXEC);
    ASSERT_GE(out, 0);
    ASSERT_GE(err, 0);
    std::vector<std::string> argv = {"floe", "write", "--catalog", "warehouse=" + wh.string(), "--table", "db.t",
                                     "--schema", "id BIGINT, seq BIGINT", "-i", "-", "--set", "mode=merge-on-read",
                                     "--set", "equality_columns=id", "--set", "sequence_number_column=seq", "--set",
                                     "sink_id=idle", "--set", "triggering_frequency_seconds=1", "--set",
                                     "token_heartbeat_seconds=1"};
    if (progress) argv.push_back("--progress");
    std::atomic<int> rc{-1};
    std::thread job([&] { rc = floe::cli::Run(argv, floe::cli::Io{in[0], out, err}); });
    // What the command has written so far (pread: the command's offset stays).
    auto text = [](int fd) {
      std::string s;
      char buf[1 << 16];
      for (ssize_t n; (n = ::pread(fd, buf, sizeof buf, static_cast<off_t>(s.size()))) > 0;) {
        s.append(buf, static_cast<size_t>(n));
      }
      return s;
    };
    auto lines = [&] {
      const std::string s = text(out);
      return std::count(s.begin(), s.end(), '\n');
    };
    auto versions = [&] {
      std::error_code ec;
      int n = 0;
      for (const auto& e : fs::directory_iterator(wh / "db/t/metadata", ec)) {
        n += e.path().string().ends_with(".metadata.json") ? 1 : 0;
      }
      return n;
    };
    // Polls for an event (at most 60 s).
    auto wait_for = [](const std::function<bool()>& event) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (!event()) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      return true;
    };
    auto send = [&](const std::string& s) { return ::write(in[1], s.data(), s.size()) == static_cast<ssize_t>(s.size()); };

    ASSERT_TRUE(send("{\"id\":1,\"seq\":1}\n{\"id\":2,\"seq\":2}\n"));
    EXPECT_TRUE(wait_for([&] { return text(out).find("\"applied\":2") != std::string::npos; })) << text(err);
    EXPECT_EQ(lines(), 1) << text(out);
    const int v = versions();
    EXPECT_TRUE(wait_for([&] { return versions() >= v + 2; })) << "no heartbeat commits";
    EXPECT_EQ(lines(), 1) << "an idle stream printed:\n" << text(out);
    ASSERT_TRUE(send("{\"id\":3,\"seq\":3}\n"));
    EXPECT_TRUE(wait_for([&] { return text(out).find("\"applied\":3") != std::string::npos; })) << text(err);
    EXPECT_EQ(lines(), 2) << text(out);
    ::close(in[1]);  // the end of the input: the job commits (nothing new) and returns
    job.join();
    ::close(in[0]);
    EXPECT_EQ(rc, 0) << text(err);
    EXPECT_EQ(lines(), 2) << "the end printed an unchanged accounting again:\n" << text(out);
    const std::string e = text(err);
    if (progress) {
      EXPECT_NE(e.find("\rfloe: read 2 applied 2"), std::string::npos) << e;
      EXPECT_NE(e.find("\rfloe: read 3 applied 3"), std::string::npos) << e;
      EXPECT_TRUE(e.ends_with("\n")) << "the live line ends with a newline at the end of the run";
      EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 1) << e;
    } else {
      EXPECT_EQ(e.find("\rfloe:"), std::string::npos) << e;
    }
    ::close(out);
    ::close(err);
  }
}

}  // namespace papercuts_cli_test
