#include "testing/files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace floe::test {

namespace fs = std::filesystem;

std::string SharedDir() {
  if (const char* env = std::getenv("FLOE_SHARED"); env && *env) return env;
  for (const char* rel : {"/../shared", "/../../shared"}) {
    fs::path p = std::string(FLOE_SOURCE_DIR) + rel;
    std::error_code ec;
    if (fs::is_directory(p / "interop", ec)) return fs::canonical(p, ec).string();
  }
  return std::string(FLOE_SOURCE_DIR) + "/../shared";
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool WriteFile(const fs::path& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  return static_cast<bool>(out);
}

std::string ShellQuote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string ShellConcurrently(const std::vector<std::string>& commands) {
  std::string out = "{ ";
  for (const auto& c : commands) out += "( " + c + " ) & ";
  return out + "wait; }";
}

fs::path FreshTestDir(std::string_view prefix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(prefix) + std::to_string(::getpid());
  if (info) name += std::string("_") + info->name();
  fs::path dir = fs::path(::testing::TempDir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void RemoveTestDirIfPassed(const fs::path& dir) {
  if (!::testing::Test::HasFailure()) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
}

}  // namespace floe::test
