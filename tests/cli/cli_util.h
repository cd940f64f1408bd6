// Helpers shared by the tests that drive the built `floe` command: running a
// command line in a test's folder; files, quoting, test folders and where
// shared/interop lives come from the test support library (testing/files.h).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "testing/files.h"
#include "testing/oracle.h"

namespace floe_cli_test {

namespace fs = std::filesystem;

struct RunResult {
  int rc = -1;
  std::string out, err;
};

using floe::test::FreshTestDir;
using floe::test::ReadFile;
using floe::test::RemoveTestDirIfPassed;
using floe::test::SharedDir;
using floe::test::WriteFile;

/// Single-quotes `s` for /bin/sh (the CLI tests' short name for ShellQuote).
inline std::string Shell(const std::string& s) { return floe::test::ShellQuote(s); }

/// Runs a /bin/sh command line in `dir`, stdout and stderr captured apart
/// (through files in `dir`, removed afterwards).
inline RunResult RunIn(const fs::path& dir, const std::string& cmd) {
  fs::path out = dir / ".stdout", err = dir / ".stderr";
  std::string full = "cd " + Shell(dir.string()) + " && " + cmd + " >" + Shell(out.string()) +
                     " 2>" + Shell(err.string());
  int status = std::system(full.c_str());
  RunResult r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadFile(out);
  r.err = ReadFile(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

/// `text` split at white space (arguments written as one string, no quoting).
inline std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

/// An interop reader of shared/interop (`verify_table.mjs`, ...) run from
/// `dir` with `args` (no shell), through the test process's one
/// oracle_server.mjs (testing/oracle.h): the same status and output as
/// `cd dir && node script args...`, without a node start per check.
inline RunResult Node(const fs::path& dir, const std::string& script, const std::vector<std::string>& args) {
  floe::test::OracleResult o = floe::test::Oracle(script, args, dir.string());
  RunResult r;
  r.rc = o.code;
  r.out = std::move(o.out);
  r.err = o.code == 0 ? std::move(o.err) : o.command + ": " + o.err;
  return r;
}

}  // namespace floe_cli_test
