// Test support for the Kafka source: librdkafka's mock cluster (the
// kafka_mock tool, tests/tools/kafka_mock.c) on loopback, and kcat producing.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "cli/cli_util.h"

namespace floe_cli_test {

/// A mock cluster: started with its topics ("name:partitions"), stopped when
/// destroyed (its standard input closes). Command() sends a fault command and
/// waits for its answer.
class KafkaMock {
 public:
  explicit KafkaMock(const std::vector<std::string>& topics, int brokers = 1) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
      ADD_FAILURE() << "pipe";
      return;
    }
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      std::vector<std::string> args = {std::string(FLOE_BINARY_DIR) + "/kafka_mock", "--brokers",
                                       std::to_string(brokers)};
      for (const auto& t : topics) args.push_back(t);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    to_ = ::fdopen(in[1], "w");
    from_ = ::fdopen(out[0], "r");
    bootstrap_ = Line();
    EXPECT_FALSE(bootstrap_.empty()) << "kafka_mock did not start";
  }
  ~KafkaMock() {
    if (to_ != nullptr) std::fclose(to_);
    if (from_ != nullptr) std::fclose(from_);
    if (pid_ > 0) {
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  const std::string& bootstrap() const { return bootstrap_; }
  /// `down 1`, `up 1`, `errors 1 6 20`, `topic t 3`: true when answered ok.
  bool Command(const std::string& cmd) {
    std::fprintf(to_, "%s\n", cmd.c_str());
    std::fflush(to_);
    const std::string answer = Line();
    EXPECT_EQ(answer, "ok") << cmd;
    return answer == "ok";
  }

 private:
  std::string Line() {
    char buf[4096];
    if (from_ == nullptr || std::fgets(buf, sizeof(buf), from_) == nullptr) return {};
    std::string s(buf);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
  }
  pid_t pid_ = -1;
  FILE* to_ = nullptr;
  FILE* from_ = nullptr;
  std::string bootstrap_;
};

/// Produces the lines of `file` into `topic` with kcat (`KEY:VALUE` lines
/// when `keyed`; a key picks the partition); asserts kcat succeeded.
inline void Produce(const fs::path& dir, const std::string& bootstrap, const std::string& topic,
                    const std::string& file, bool keyed, int partition = -1) {
  std::string cmd = "kcat -P -b " + bootstrap + " -t " + topic + (keyed ? " -K'|'" : "") +
                    (partition >= 0 ? " -p " + std::to_string(partition) : "") + " -X log_level=0 -X queue.buffering.max.messages=10000000 -l " + Shell(file);
  RunResult r = RunIn(dir, cmd);
  ASSERT_EQ(r.rc, 0) << cmd << ": " << r.err;
}

}  // namespace floe_cli_test
