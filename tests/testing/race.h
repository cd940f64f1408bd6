/// \file
/// Test support: the two-process race. Commit safety is about processes that
/// share nothing but the file system, so the tests fork two children that
/// run the same body at the same time and check what both left behind.
#pragma once

#include <gtest/gtest.h>

#include <functional>

#include "floe/util/status.h"

namespace floe::test {

/// Runs `body(1)` and `body(2)` in two forked processes at once and waits for
/// both. A child whose body fails prints "process <who>: <error>" to stderr
/// and exits 1; the result names every child that did not exit 0. The
/// children leave with _exit, so they never run the parent's test teardown.
::testing::AssertionResult RaceTwoProcesses(const std::function<Status(int who)>& body);

/// The same with `count` processes, `body(1)` .. `body(count)` (many writers
/// sharing one catalog).
::testing::AssertionResult RaceProcesses(int count, const std::function<Status(int who)>& body);

}  // namespace floe::test
