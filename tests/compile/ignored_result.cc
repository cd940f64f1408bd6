// Compiled by two ctest cases (see CMakeLists.txt), never linked: with
// FLOE_IGNORE_RESULT defined it ignores a Status and a Result, which must not
// compile under -Werror=unused-result (Result is [[nodiscard]],
// src/floe/util/status.h); without it, the same file compiles, so the failure
// is the ignored result and nothing else.
#include "floe/util/status.h"

namespace {

floe::Status Commit() { return floe::CommitFailed("lost the race"); }
floe::Result<int> Rows() { return 3; }

}  // namespace

int Use() {
#ifdef FLOE_IGNORE_RESULT
  Commit();
  Rows();
  return 0;
#else
  // Ignoring on purpose, with (void), compiles.
  (void)Commit();
  return Rows().value_or(0);
#endif
}
