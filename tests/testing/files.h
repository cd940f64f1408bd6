/// \file
/// Test support: where the shared folder is, whole-file reads and writes, a
/// fresh folder per test, and single-quoting for /bin/sh. One home for what the
/// module tests used to copy into each file.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace floe::test {

/// The shared folder (golden tables, the independent readers under
/// interop/): $FLOE_SHARED if set, else ../shared beside the source tree (the
/// main checkout) or ../../shared (a worktree one level deeper), the first
/// that holds interop/. Without either, ../shared, so a missing folder is
/// named in the failure of the test that needs it.
std::string SharedDir();

/// The whole file as bytes; "" when it cannot be read (tests compare the
/// text, so a missing file shows as an empty one in the failure).
std::string ReadFile(const std::filesystem::path& path);

/// Replaces `path` with `data`; returns false when it cannot be written.
bool WriteFile(const std::filesystem::path& path, std::string_view data);

/// `s` single-quoted for /bin/sh (a quote inside becomes '\'').
std::string ShellQuote(std::string_view s);

/// One /bin/sh command that runs `commands` at the same time (each in a
/// subshell, in the background) and waits for all of them: the way the CLI
/// tests start racing processes.
std::string ShellConcurrently(const std::vector<std::string>& commands);

/// A fresh, empty folder for the running test:
/// `<gtest temp dir>/<prefix><pid>_<test name>`. The pid keeps two checkouts
/// running the same tests at once out of each other's folders; the test
/// name keeps tests of one run apart.
std::filesystem::path FreshTestDir(std::string_view prefix);

/// Removes a test's folder unless the test failed (kept for a look).
void RemoveTestDirIfPassed(const std::filesystem::path& dir);

}  // namespace floe::test
