// Helpers for the iceberg tests: locating ../shared (the golden tables and the
// interop readers), reading files, running a command.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace floe::iceberg::testing {

/// The shared folder: $FLOE_SHARED, else ../shared next to the source tree
/// (main checkout) or two levels up (a helper worktree under wt/).
inline std::filesystem::path SharedDir() {
  if (const char* env = std::getenv("FLOE_SHARED"); env && *env) return env;
  for (const char* rel : {"/../shared", "/../../shared"}) {
    std::filesystem::path p = std::string(FLOE_SOURCE_DIR) + rel;
    if (std::filesystem::exists(p / "interop" / "README.md")) return std::filesystem::canonical(p);
  }
  return std::string(FLOE_SOURCE_DIR) + "/../shared";
}

inline std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFile(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

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
