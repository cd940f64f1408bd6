#include "floe/catalog/commit_retry.h"

#include <algorithm>
#include <chrono>
#include <charconv>
#include <random>
#include <thread>

namespace floe::catalog {
namespace {

Result<int64_t> ReadNonNegative(const std::map<std::string, std::string>& props,
                                const std::string& key, int64_t fallback) {
  auto it = props.find(key);
  if (it == props.end()) return fallback;
  int64_t v = 0;
  const std::string& s = it->second;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0) {
    return InvalidArgument("table property {}: '{}' is not a non-negative integer", key, s);
  }
  return v;
}

// Why RunWithRetries stopped after `attempts` attempts that each lost a race
// (kCommitFailed: another writer changed the table first), in words that read
// right for one attempt and for many.
std::string GiveUpReason(const RetryPolicy& policy, int attempts, int64_t elapsed_ms) {
  std::string why =
      attempts > policy.num_retries
          ? fmt::format("commit.retry.num-retries is {}", policy.num_retries)
          : fmt::format("commit.retry.total-timeout-ms ({} ms) had passed after {} ms",
                        policy.total_timeout_ms, elapsed_ms);
  if (attempts == 1) return fmt::format("the commit was not retried: {}", why);
  return fmt::format(
      "the commit was tried {} times ({} retries), each time another writer had changed "
      "the table first; stopped because {}",
      attempts, attempts - 1, why);
}

}  // namespace

Result<RetryPolicy> RetryPolicy::FromProperties(const std::map<std::string, std::string>& props) {
  RetryPolicy p;
  FLOE_ASSIGN_OR_RETURN(int64_t n, ReadNonNegative(props, "commit.retry.num-retries", p.num_retries));
  if (n > 1000000) return InvalidArgument("table property commit.retry.num-retries: {} is too large", n);
  p.num_retries = static_cast<int>(n);
  FLOE_ASSIGN_OR_RETURN(p.min_wait_ms, ReadNonNegative(props, "commit.retry.min-wait-ms", p.min_wait_ms));
  FLOE_ASSIGN_OR_RETURN(p.max_wait_ms, ReadNonNegative(props, "commit.retry.max-wait-ms", p.max_wait_ms));
  FLOE_ASSIGN_OR_RETURN(p.total_timeout_ms,
                        ReadNonNegative(props, "commit.retry.total-timeout-ms", p.total_timeout_ms));
  if (p.max_wait_ms < p.min_wait_ms) {
    return InvalidArgument("commit.retry.max-wait-ms ({}) is below commit.retry.min-wait-ms ({})",
                           p.max_wait_ms, p.min_wait_ms);
  }
  return p;
}

int64_t RetryPolicy::WaitMs(int attempt) const {
  int shift = std::clamp(attempt - 1, 0, 40);
  long double base = static_cast<long double>(min_wait_ms) * static_cast<long double>(1ULL << shift);
  int64_t wait = static_cast<int64_t>(std::min<long double>(base, static_cast<long double>(max_wait_ms)));
  thread_local std::mt19937_64 rng(std::random_device{}());
  int64_t jitter = wait > 0 ? static_cast<int64_t>(rng() % static_cast<uint64_t>(wait / 10 + 1)) : 0;
  return std::min(wait + jitter, max_wait_ms);
}

Status RunWithRetries(const RetryPolicy& policy, const std::function<Status(int)>& attempt) {
  auto start = std::chrono::steady_clock::now();
  for (int n = 0;; ++n) {
    Status st = attempt(n);
    if (st || st.error().kind != ErrorKind::kCommitFailed) return st;
    auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - start)
                       .count();
    if (n >= policy.num_retries || elapsed >= policy.total_timeout_ms) {
      Error e = std::move(st).error();
      e.message = fmt::format("{} ({})", e.message, GiveUpReason(policy, n + 1, elapsed));
      return Fail(std::move(e));
    }
    int64_t wait = std::min<int64_t>(policy.WaitMs(n + 1),
                                     std::max<int64_t>(0, policy.total_timeout_ms - elapsed));
    std::this_thread::sleep_for(std::chrono::milliseconds(wait));
  }
}

}  // namespace floe::catalog
