// Bounded memory (issue 8): 20,000,000 changes over 1,000,000 keys streamed
// into a merge-on-read write with sorter_memory_mb=32 spill to disk, and the
// process's peak RSS stays within the budget plus the stated overhead:
//   ~70 MB fixed (binary and libraries, decode batches, writers, merge
//   buffers) + 48 bytes per distinct key committed (the lateness tracker)
// = about 32 + 70 + 48 = 150 MB here; the test allows 160 MB.
// The changes come from bench/cdc_data.mjs through a pipe (no 2 GB file);
// the peak is floe's own (wait4 on its pid, not the generator's).
// FLOE_CDC_MEMORY_CHANGES / FLOE_CDC_MEMORY_KEYS change the size; FLOE_TEST_SCALE
// shrinks it, and under ASan or TSan (their own memory) the peak is not checked.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_util.h"
#include "testing/scale.h"

namespace floe_cli_test {
namespace cdc_memory_test {

int64_t EnvOr(const char* name, int64_t dflt) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoll(v) : dflt;
}

TEST(CdcMemory, TwentyMillionChangesSpillWithinTheBudget) {
  // FLOE_TEST_SCALE (testing/scale.h) shrinks the stream under the
  // sanitizers, but never the keys: the sorter keeps one change per key, so
  // it is a million keys that cannot fit in 32 MB (100,000 keys spill
  // nothing), and two changes per key at least.
  const int64_t keys = EnvOr("FLOE_CDC_MEMORY_KEYS", 1000000);
  const int64_t changes =
      EnvOr("FLOE_CDC_MEMORY_CHANGES", floe::test::Scaled(20000000, 2 * keys));
  const fs::path dir = FreshTestDir("floe_cdc_memory_");
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  const std::string gen = std::string(FLOE_SOURCE_DIR) + "/bench/cdc_data.mjs";
  const pid_t gen_pid = ::fork();
  ASSERT_GE(gen_pid, 0);
  if (gen_pid == 0) {
    ::dup2(pipefd[1], 1);
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    ::execlp("node", "node", gen.c_str(), "--changes", std::to_string(changes).c_str(), "--keys",
             std::to_string(keys).c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const std::string out_path = (dir / "out.json").string();
  const std::string warehouse = "warehouse=" + (dir / "wh").string();
  const pid_t floe_pid = ::fork();
  ASSERT_GE(floe_pid, 0);
  if (floe_pid == 0) {
    ::dup2(pipefd[0], 0);
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    if (!std::freopen(out_path.c_str(), "w", stdout)) ::_exit(126);
    ::execl(FLOE_BIN, FLOE_BIN, "write", "--no-progress", "--catalog", warehouse.c_str(), "--table", "b.mem", "-i",
            "-", "--schema", "id BIGINT, region STRING, name STRING, amount DOUBLE, op STRING, seq BIGINT", "--set",
            "mode=merge-on-read", "--set", "upsert=true", "--set", "change_type_column=op", "--set",
            "sequence_number_column=seq", "--set", "equality_columns=id", "--set", "sorter_memory_mb=32",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(pipefd[0]);
  ::close(pipefd[1]);
  int status = 0;
  struct rusage usage {};
  ASSERT_EQ(::wait4(floe_pid, &status, 0, &usage), floe_pid);
  int gen_status = 0;
  ::waitpid(gen_pid, &gen_status, 0);
  ASSERT_TRUE(WIFEXITED(gen_status) && WEXITSTATUS(gen_status) == 0) << "the generator failed";
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ReadFile(dir / "out.json");
  const auto acc = nlohmann::json::parse(ReadFile(dir / "out.json"));
  EXPECT_EQ(acc["read"].get<int64_t>(), changes);
  EXPECT_EQ(acc["applied"].get<int64_t>(), changes);
  EXPECT_GT(acc["destinations"][0]["spilled_runs"].get<int64_t>(), 0) << "32 MB must not hold the window";
  const int64_t peak_mb = usage.ru_maxrss / 1024;
  std::printf("[ memory   ] %lld changes over %lld keys, sorter_memory_mb=32: peak RSS %lld MB, %lld runs spilled\n",
              static_cast<long long>(changes), static_cast<long long>(keys), static_cast<long long>(peak_mb),
              static_cast<long long>(acc["destinations"][0]["spilled_runs"].get<int64_t>()));
  const int64_t limit_mb = 32 + 70 + (48 * keys + (1 << 20) - 1) / (1 << 20) + 10;
  // The sanitizers' shadow memory, quarantine and per-thread state are not
  // floe's: under them the spill is still checked (above), the peak is not.
  if (floe::test::BuiltWithAddressSanitizer() || floe::test::BuiltWithThreadSanitizer()) {
    std::printf("[ memory   ] built with a sanitizer: peak RSS not checked\n");
  } else {
    EXPECT_LE(peak_mb, std::min<int64_t>(limit_mb, 160));
  }
  RemoveTestDirIfPassed(dir);
}

}  // namespace cdc_memory_test
}  // namespace floe_cli_test
