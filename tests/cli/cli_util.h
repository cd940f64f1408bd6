// Helpers shared by the tests that drive the built `floe` command: file
// contents, shell quoting, and where shared/interop lives.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace floe_cli_test {

namespace fs = std::filesystem;

struct RunResult {
  int rc = -1;
  std::string out, err;
};

inline std::string ReadFile(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline void WriteFile(const fs::path& p, const std::string& data) {
  std::ofstream f(p, std::ios::binary);
  f << data;
}

/// Single-quotes `s` for /bin/sh.
inline std::string Shell(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

/// A fresh folder for the running test: `<tmp>/<prefix><pid>_<test name>`.
/// The pid keeps two checkouts running the same tests at once (helpers, the
/// integrator) out of each other's folders.
inline fs::path FreshTestDir(const std::string& prefix) {
  fs::path dir = fs::path(testing::TempDir()) /
                 (prefix + std::to_string(::getpid()) + "_" +
                  testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// Removes a test's folder unless the test failed (kept for a look).
inline void RemoveTestDirIfPassed(const fs::path& dir) {
  if (!testing::Test::HasFailure()) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
}

/// Runs a /bin/sh command line in `dir`, stdout and stderr captured apart
/// (through files in `dir`, removed afterwards).
inline RunResult RunIn(const fs::path& dir, const std::string& cmd) {
  fs::path out = dir / ".stdout", err = dir / ".stderr";
  std::string full =
      "cd " + Shell(dir.string()) + " && " + cmd + " >" + Shell(out.string()) + " 2>" + Shell(err.string());
  int status = std::system(full.c_str());
  RunResult r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadFile(out);
  r.err = ReadFile(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

/// FLOE_SHARED, else ../shared beside the source tree (../../shared from a worktree).
inline std::string SharedDir() {
  const char* env = std::getenv("FLOE_SHARED");
  if (env && *env) return env;
  for (const char* c : {FLOE_SOURCE_DIR "/../shared", FLOE_SOURCE_DIR "/../../shared"}) {
    if (fs::exists(fs::path(c) / "interop")) return c;
  }
  return FLOE_SOURCE_DIR "/../shared";
}

}  // namespace floe_cli_test
