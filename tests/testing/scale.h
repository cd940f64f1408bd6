/// \file
/// Test support: how much work the slow property, crash and load tests do.
/// The release run of ./scripts/test keeps their full counts; the sanitizer
/// runs (ASan + UBSan and TSan make floe 2-15x slower) set FLOE_TEST_SCALE
/// below 1 so a cold ./scripts/test stays inside its time budget while every
/// code path still runs under the sanitizer.
#pragma once

#include <cstdint>

namespace floe::test {

/// $FLOE_TEST_SCALE as a factor in (0, 1]: unset, empty or not a number
/// gives 1 (full counts); values above 1 are taken as 1 (a test's own
/// variable, e.g. FLOE_CDC_TRIALS, asks for more).
double TestScale();

/// `full` scaled by TestScale(), rounded up, at least `min_count` (and never
/// more than `full`): the number of trials, seeds or commits to run.
int64_t Scaled(int64_t full, int64_t min_count = 1);

/// True when this binary was built with AddressSanitizer (the `asan`
/// preset), which changes memory use: tests that assert a peak RSS skip.
bool BuiltWithAddressSanitizer();

/// True when this binary was built with ThreadSanitizer (the `tsan` preset).
bool BuiltWithThreadSanitizer();

}  // namespace floe::test
