#include "floe/util/uuid.h"

#include <unistd.h>

#include <random>

#include <fmt/format.h>

namespace floe {

namespace {
// Reseeded after fork(): a child must not repeat its parent's sequence
// (file names, snapshot ids and table uuids would collide).
std::mt19937_64& Rng() {
  thread_local std::mt19937_64 rng;
  thread_local pid_t seeded_for = 0;
  pid_t pid = ::getpid();
  if (seeded_for != pid) {
    std::random_device rd;
    rng.seed((static_cast<uint64_t>(rd()) << 32) ^ rd() ^ static_cast<uint64_t>(pid));
    seeded_for = pid;
  }
  return rng;
}
}  // namespace

std::string RandomUuid() {
  uint64_t hi = Rng()(), lo = Rng()();
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xffff, hi & 0xffff,
                     lo >> 48, lo & 0xffffffffffffULL);
}

uint64_t RandomU64() { return Rng()(); }

int64_t RandomPositiveId() {
  int64_t v = 0;
  while (v == 0) v = static_cast<int64_t>(Rng()() & 0x7fffffffffffffffULL);
  return v;
}

}  // namespace floe
