/// \file
/// Crash points for crash-safety trials: named places in the write and
/// commit path where a test can make the process die as `kill -9` would
/// (SIGKILL: no destructors, no flushing). `FLOE_CRASH_AT=name` kills the
/// process the first time `name` is reached, `FLOE_CRASH_AT=name:N` the N-th
/// time. Unset (always, outside tests), a crash point costs one branch.
#pragma once

#include <string_view>

namespace floe {

/// Dies here when FLOE_CRASH_AT names this point (see the file comment).
void CrashPoint(std::string_view name);

}  // namespace floe
