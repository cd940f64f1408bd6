// The commit ledger (commit_ledger.h). Its text sits in a fixed static buffer
// so that a signal handler can write it out: NoteCommitted appends under a
// mutex and then publishes the new length (release), the handler reads the
// length (acquire) and the bytes before it, which no later append changes.

#include "floe/plugin/commit_ledger.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "floe/plugin/plugin_internal.h"

namespace floe::plugin {

namespace {

constexpr size_t kLedgerBytes = 2048;
char g_text[kLedgerBytes];
std::atomic<size_t> g_length{0};
std::atomic<int64_t> g_count{0};
std::atomic<int64_t> g_spelled{0};  ///< entries whose text is in g_text
std::mutex g_mu;

}  // namespace

void NoteCommitted(std::string_view what) {
  std::lock_guard lock(g_mu);
  const size_t at = g_length.load(std::memory_order_relaxed);
  const std::string_view sep = at == 0 ? "" : "; ";
  if (at + sep.size() + what.size() <= kLedgerBytes) {
    std::memcpy(g_text + at, sep.data(), sep.size());
    std::memcpy(g_text + at + sep.size(), what.data(), what.size());
    g_spelled.fetch_add(1, std::memory_order_relaxed);
    g_length.store(at + sep.size() + what.size(), std::memory_order_release);
  }
  g_count.fetch_add(1, std::memory_order_release);
}

int64_t CommittedCount() { return g_count.load(std::memory_order_acquire); }

std::string CommittedSoFar() {
  internal::LedgerView v = internal::Ledger();
  std::string out(v.text, v.length);
  if (v.count > v.spelled) out += fmt::format(" and {} more", v.count - v.spelled);
  return out;
}

namespace internal {

LedgerView Ledger() {
  LedgerView v;
  v.count = g_count.load(std::memory_order_acquire);
  v.spelled = g_spelled.load(std::memory_order_acquire);
  v.length = g_length.load(std::memory_order_acquire);
  v.text = g_text;
  return v;
}

}  // namespace internal

}  // namespace floe::plugin
