// Split-block Bloom filters (BloomFilter.md): sizing, insertion, lookup.
#include "floe/parquet/bloom_filter.h"

#include <cmath>

#include <xxhash.h>

namespace floe::parquet {

namespace {
constexpr uint32_t kSalt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                               0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};
}  // namespace

uint64_t BloomHash(const void* data, size_t size) { return XXH64(data, size, 0); }

size_t BloomFilterBytes(uint64_t ndv, double fpp, size_t max_bytes) {
  size_t cap = 32;
  while (cap * 2 <= max_bytes) cap *= 2;
  if (max_bytes < 32) cap = 32;
  // Bits per the split-block formula: m = -8 n / ln(1 - p^(1/8)).
  double bits = -8.0 * static_cast<double>(std::max<uint64_t>(ndv, 1)) /
                std::log(1.0 - std::pow(fpp, 1.0 / 8.0));
  size_t bytes = 32;
  while (bytes < cap && static_cast<double>(bytes) * 8.0 < bits) bytes *= 2;
  return bytes;
}

BloomFilter::BloomFilter(size_t num_bytes) : words_(num_bytes / 4, 0) {}

void BloomFilter::InsertHash(uint64_t hash) {
  uint64_t num_blocks = words_.size() / 8;
  uint64_t block = ((hash >> 32) * num_blocks) >> 32;
  uint32_t key = static_cast<uint32_t>(hash);
  uint32_t* w = words_.data() + block * 8;
  for (int i = 0; i < 8; ++i) w[i] |= 1U << ((key * kSalt[i]) >> 27);
}

bool BloomFilter::MightContainHash(uint64_t hash) const {
  uint64_t num_blocks = words_.size() / 8;
  uint64_t block = ((hash >> 32) * num_blocks) >> 32;
  uint32_t key = static_cast<uint32_t>(hash);
  const uint32_t* w = words_.data() + block * 8;
  for (int i = 0; i < 8; ++i) {
    if ((w[i] & (1U << ((key * kSalt[i]) >> 27))) == 0) return false;
  }
  return true;
}

}  // namespace floe::parquet
