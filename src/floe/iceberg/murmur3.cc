#include "floe/iceberg/murmur3.h"

#include <cstring>

namespace floe::iceberg {
namespace {

constexpr uint32_t kC1 = 0xcc9e2d51;
constexpr uint32_t kC2 = 0x1b873593;

inline uint32_t Rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

inline uint32_t MixK(uint32_t k) {
  k *= kC1;
  k = Rotl(k, 15);
  return k * kC2;
}

inline uint32_t MixH(uint32_t h, uint32_t k) {
  h ^= MixK(k);
  h = Rotl(h, 13);
  return h * 5 + 0xe6546b64;
}

inline uint32_t Finalize(uint32_t h, uint32_t len) {
  h ^= len;
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return h;
}

inline uint32_t LoadLe32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

}  // namespace

uint32_t Murmur3X86_32(const void* data, size_t len, uint32_t seed) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t h = seed;
  size_t blocks = len / 4;
  for (size_t i = 0; i < blocks; ++i) h = MixH(h, LoadLe32(p + 4 * i));
  const uint8_t* tail = p + 4 * blocks;
  uint32_t k = 0;
  switch (len & 3) {
    case 3: k ^= static_cast<uint32_t>(tail[2]) << 16; [[fallthrough]];
    case 2: k ^= static_cast<uint32_t>(tail[1]) << 8; [[fallthrough]];
    case 1:
      k ^= tail[0];
      h ^= MixK(k);
  }
  return Finalize(h, static_cast<uint32_t>(len));
}

int32_t HashLong(int64_t value) {
  // Two 4-byte blocks of the little-endian long, no tail: the loop unrolled.
  auto u = static_cast<uint64_t>(value);
  uint32_t h = MixH(0, static_cast<uint32_t>(u));
  h = MixH(h, static_cast<uint32_t>(u >> 32));
  return static_cast<int32_t>(Finalize(h, 8));
}

int32_t HashBytes(std::string_view bytes) {
  return static_cast<int32_t>(Murmur3X86_32(bytes.data(), bytes.size(), 0));
}

int MinimalBigEndian(int128_t v, uint8_t* out) {
  uint8_t full[16];
  auto u = static_cast<unsigned __int128>(v);
  for (int i = 15; i >= 0; --i) {
    full[i] = static_cast<uint8_t>(u);
    u >>= 8;
  }
  // Drop leading bytes that only repeat the sign of the next byte.
  int start = 0;
  while (start < 15) {
    uint8_t b = full[start];
    bool next_negative = (full[start + 1] & 0x80) != 0;
    if ((b == 0x00 && !next_negative) || (b == 0xFF && next_negative)) {
      ++start;
    } else {
      break;
    }
  }
  int n = 16 - start;
  std::memcpy(out, full + start, n);
  return n;
}

int32_t HashDecimal(int128_t unscaled) {
  uint8_t buf[16];
  int n = MinimalBigEndian(unscaled, buf);
  return static_cast<int32_t>(Murmur3X86_32(buf, n, 0));
}

}  // namespace floe::iceberg
