#include "testing/scale.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace floe::test {

double TestScale() {
  const char* v = std::getenv("FLOE_TEST_SCALE");
  if (v == nullptr || *v == '\0') return 1.0;
  char* end = nullptr;
  const double s = std::strtod(v, &end);
  // A typo must not silently run nothing: anything that is not a positive
  // number runs the full counts.
  if (end == v || *end != '\0' || !(s > 0)) return 1.0;
  return std::min(s, 1.0);
}

int64_t Scaled(int64_t full, int64_t min_count) {
  const auto n = static_cast<int64_t>(std::ceil(static_cast<double>(full) * TestScale()));
  return std::min(full, std::max(n, min_count));
}

// gcc defines __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__; clang answers
// __has_feature.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FLOE_TEST_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define FLOE_TEST_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FLOE_TEST_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define FLOE_TEST_TSAN 1
#endif

bool BuiltWithAddressSanitizer() {
#ifdef FLOE_TEST_ASAN
  return true;
#else
  return false;
#endif
}

bool BuiltWithThreadSanitizer() {
#ifdef FLOE_TEST_TSAN
  return true;
#else
  return false;
#endif
}

}  // namespace floe::test
