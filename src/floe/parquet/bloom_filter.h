/// \file
/// Split-block Bloom filters (Parquet BloomFilter.md; PITFALLS 29): 32-byte blocks of
/// eight 32-bit words, one bit set per word, block chosen by the upper 32 bits of the
/// XXH64 (seed 0) of the value's PLAIN bytes (byte arrays without their length).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "floe/util/buffer.h"

namespace floe::parquet {

/// XXH64 with seed 0 of `size` bytes: the hash Parquet bloom filters use.
uint64_t BloomHash(const void* data, size_t size);

/// Bytes a filter needs for `ndv` distinct values at false-positive rate `fpp`: a power
/// of two between 32 bytes and `max_bytes` (rounded down to a power of two).
size_t BloomFilterBytes(uint64_t ndv, double fpp, size_t max_bytes);

/// A split-block Bloom filter of a fixed size.
class BloomFilter {
 public:
  /// `num_bytes` must be a power of two >= 32.
  explicit BloomFilter(size_t num_bytes);
  void InsertHash(uint64_t hash);
  bool MightContainHash(uint64_t hash) const;
  size_t num_bytes() const { return words_.size() * 4; }
  /// The bitset, little-endian words, as stored after the BloomFilterHeader.
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(words_.data()); }

 private:
  std::vector<uint32_t> words_;
};

}  // namespace floe::parquet
