/// \file
/// The caching catalog (Iceberg's CachingCatalog, selected by the catalog
/// options `cache-enabled` and `cache.expiration-interval-ms`): loaded tables
/// are kept by identifier, so a process that loads a table again (a
/// streaming sink, a server answering the same table) skips the catalog
/// round trip and the metadata file read.
///
/// What stays correct: a commit through the cache replaces its entry with
/// the committed version; a commit that fails (kCommitFailed,
/// kCommitStateUnknown, anything) evicts it, so the retry that follows loads
/// the current version; drop, rename and register evict. A commit made by
/// another process is seen when the entry expires, or at the latest by the
/// next commit here, which fails against the stale base and reloads. An
/// entry expires when it has not been used for the interval (as Iceberg's
/// expire-after-access); -1 keeps entries until they are evicted.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "floe/catalog/forwarding_catalog.h"

namespace floe::catalog {

/// Milliseconds on a monotonic clock; tests pass their own.
using CacheClock = std::function<int64_t()>;

/// Wraps `inner`. `expiration_ms` is -1 (never) or > 0.
std::unique_ptr<Catalog> NewCachingCatalog(std::unique_ptr<Catalog> inner, int64_t expiration_ms,
                                           CacheClock clock = {});

/// Counters of a caching catalog (nullptr for any other catalog).
struct CacheStats {
  int64_t hits = 0;
  int64_t misses = 0;
};
const CacheStats* CacheStatsOf(const Catalog& catalog);

}  // namespace floe::catalog
