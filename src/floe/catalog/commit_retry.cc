#include "floe/catalog/commit_retry.h"

#include "floe/config/options.h"

#include <algorithm>
#include <chrono>
#include <charconv>
#include <random>
#include <thread>

namespace floe::catalog {
namespace {

// Why RunWithRetries stopped after `attempts` attempts that each lost a race
// (kCommitFailed: another writer changed the table first), in words that read
// right for one attempt and for many.
std::string GiveUpReason(const RetryPolicy& policy, int attempts, int64_t elapsed_ms) {
  std::string why =
      attempts > policy.num_retries
          ? fmt::format("{} is {}", config::keys::kCommitNumRetries.name, policy.num_retries)
          : fmt::format("{} ({} ms) had passed after {} ms", config::keys::kCommitTotalTimeoutMs.name,
                        policy.total_timeout_ms, elapsed_ms);
  if (attempts == 1) return fmt::format("the commit was not retried: {}", why);
  return fmt::format(
      "the commit was tried {} times ({} retries), each time another writer had changed "
      "the table first; stopped because {}",
      attempts, attempts - 1, why);
}

}  // namespace

Result<RetryPolicy> RetryPolicy::FromProperties(const std::map<std::string, std::string>& props) {
  return From(config::Resolver(props));
}

Result<RetryPolicy> RetryPolicy::From(const config::Resolver& r) {
  namespace k = config::keys;
  RetryPolicy p;
  FLOE_ASSIGN_OR_RETURN(p.num_retries, r.Value(k::kCommitNumRetries));
  FLOE_ASSIGN_OR_RETURN(p.min_wait_ms, r.Value(k::kCommitMinWaitMs));
  FLOE_ASSIGN_OR_RETURN(p.max_wait_ms, r.Value(k::kCommitMaxWaitMs));
  FLOE_ASSIGN_OR_RETURN(p.total_timeout_ms, r.Value(k::kCommitTotalTimeoutMs));
  if (p.max_wait_ms < p.min_wait_ms) {
    return InvalidArgument("{} ({}) is below {} ({})", k::kCommitMaxWaitMs.name, p.max_wait_ms,
                           k::kCommitMinWaitMs.name, p.min_wait_ms);
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
    // A kCommitFailed that says a retry cannot help (the catalog database
    // stayed locked, an added file is gone) ends the loop as it is.
    if (st || st.error().kind != ErrorKind::kCommitFailed || !st.error().retryable) return st;
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
