/// \file
/// Commit retries: Iceberg's `commit.retry.*` table properties and the loop
/// that re-applies a commit after it lost a race. Only kCommitFailed is
/// retried; kCommitStateUnknown never is (its files must not be deleted and
/// the commit must not be applied twice).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "floe/config/options.h"
#include "floe/util/status.h"

namespace floe::catalog {

/// Iceberg table properties `commit.retry.num-retries`,
/// `commit.retry.min-wait-ms`, `commit.retry.max-wait-ms` and
/// `commit.retry.total-timeout-ms`, with the registry's defaults.
struct RetryPolicy {
  int num_retries = config::DefaultOf(config::keys::kCommitNumRetries);
  int64_t min_wait_ms = config::DefaultOf(config::keys::kCommitMinWaitMs);
  int64_t max_wait_ms = config::DefaultOf(config::keys::kCommitMaxWaitMs);
  int64_t total_timeout_ms = config::DefaultOf(config::keys::kCommitTotalTimeoutMs);

  /// Reads the four properties; a malformed or negative value is an error
  /// naming the property.
  static Result<RetryPolicy> FromProperties(const std::map<std::string, std::string>& props);
  /// The same through a resolver: the first layer that sets a property wins
  /// (a write's options, then the table's properties).
  static Result<RetryPolicy> From(const config::Resolver& resolver);

  /// The wait before retry number `attempt` (1-based): min_wait * 2^(attempt-1),
  /// capped at max_wait, with up to 10% random jitter.
  int64_t WaitMs(int attempt) const;
};

/// Runs `attempt(n)` (n = 0 for the first try) until it succeeds, fails with
/// an error other than a retryable kCommitFailed (one that is not retryable,
/// such as a catalog database locked past its busy timeout, is returned as
/// it is), or the policy's retries or total time
/// are used up (then the last kCommitFailed error is returned, with the
/// number of attempts in its message).
Status RunWithRetries(const RetryPolicy& policy, const std::function<Status(int)>& attempt);

}  // namespace floe::catalog
