#include "testing/race.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace floe::test {

::testing::AssertionResult RaceTwoProcesses(const std::function<Status(int who)>& body) {
  return RaceProcesses(2, body);
}

::testing::AssertionResult RaceProcesses(int count, const std::function<Status(int who)>& body) {
  std::vector<pid_t> pids(static_cast<size_t>(count), -1);
  for (int who = 1; who <= count; ++who) {
    // Flush first, or both children would write the parent's buffered output again.
    std::fflush(nullptr);
    pid_t pid = ::fork();
    if (pid == 0) {
      Status st = body(who);
      if (!st) {
        std::fprintf(stderr, "process %d: %s\n", who, st.error().ToString().c_str());
        std::fflush(stderr);
        ::_exit(1);
      }
      ::_exit(0);
    }
    pids[who - 1] = pid;
  }
  std::string failures;
  for (int who = 1; who <= count; ++who) {
    if (pids[who - 1] < 0) {
      failures += "process " + std::to_string(who) + " could not be forked; ";
      continue;
    }
    int status = 0;
    if (::waitpid(pids[who - 1], &status, 0) < 0) {
      failures += "process " + std::to_string(who) + " could not be waited for; ";
    } else if (!WIFEXITED(status)) {
      failures += "process " + std::to_string(who) + " was killed by signal " +
                  std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : -1) + "; ";
    } else if (WEXITSTATUS(status) != 0) {
      failures += "process " + std::to_string(who) + " exited with " +
                  std::to_string(WEXITSTATUS(status)) + " (its error is on stderr); ";
    }
  }
  if (failures.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << failures;
}

}  // namespace floe::test
