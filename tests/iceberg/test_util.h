// Helpers for the iceberg tests: running a command; the shared folder (the
// golden tables and the interop readers) and whole files come from
// testing/files.h.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "testing/files.h"

namespace floe::iceberg::testing {

/// The shared folder (testing/files.h), as a path.
inline std::filesystem::path SharedDir() { return floe::test::SharedDir(); }

using floe::test::ReadFile;
using floe::test::WriteFile;

/// Runs a shell command; returns its exit status and stdout (stderr goes to `err`).
inline int Run(const std::string& command, std::string* out, std::string* err) {
  auto err_path = std::filesystem::temp_directory_path() /
                  ("floe_iceberg_test_err_" + std::to_string(::getpid()));
  std::string full = command + " 2>" + err_path.string();
  FILE* f = ::popen(full.c_str(), "r");
  if (!f) return -1;
  char buf[4096];
  out->clear();
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  int status = ::pclose(f);
  *err = ReadFile(err_path);
  std::filesystem::remove(err_path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace floe::iceberg::testing
