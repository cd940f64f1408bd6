// Crash points: FLOE_CRASH_AT=name[:N] kills the process at that point.
#include "floe/util/crash_point.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>

namespace floe {

namespace {

struct Target {
  std::string name;
  long nth = 1;
  bool set = false;
};

const Target& TargetFromEnv() {
  static const Target t = [] {
    Target out;
    const char* v = std::getenv("FLOE_CRASH_AT");
    if (v == nullptr || *v == '\0') return out;
    std::string s(v);
    const size_t colon = s.rfind(':');
    if (colon != std::string::npos) {
      out.nth = std::strtol(s.c_str() + colon + 1, nullptr, 10);
      if (out.nth < 1) out.nth = 1;
      s.resize(colon);
    }
    out.name = s;
    out.set = true;
    return out;
  }();
  return t;
}

std::atomic<long> g_hits{0};

}  // namespace

void CrashPoint(std::string_view name) {
  const Target& t = TargetFromEnv();
  if (!t.set || name != t.name) return;
  if (g_hits.fetch_add(1) + 1 < t.nth) return;
  ::kill(::getpid(), SIGKILL);
  ::_exit(137);
}

}  // namespace floe
