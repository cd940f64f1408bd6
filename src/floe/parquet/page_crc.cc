// PageCrc (page_crc_internal.h): CRC-32 by carry-less multiplication folding.
//
// The CRC of a message M (reflected, zero start, no final inversion) depends only
// on M(x) mod P(x), P = x^32 + 0x04C11DB7. Folding keeps that residue while
// shrinking M: a 128-bit block X = h(x)·x^64 + l(x) that lies F bits before a
// later block Y is replaced by h·(x^(F+64) mod P) + l·(x^F mod P), a value of
// under 128 bits at Y's place, XORed into Y. The whole input thus folds down to
// one block, whose CRC (16 bytes, by zlib) is the input's.
//
// Bit order: bytes are read little-endian, and in Parquet's (gzip's) reflected
// CRC bit i of a 128-bit block is the coefficient of x^(127-i). A carry-less
// product of a reflected 64-bit half with a constant K = reflect32(k) << 1 is
// then the reflected product h·k·x^32 (or l·k·x^32) at the block's place, so the
// constants are k = x^(F+32) mod P for the high-order half (block bits 0..63) and
// x^(F-32) mod P for the low-order half (bits 64..127). They are computed below
// at compile time from P.
#include "floe/parquet/page_crc_internal.h"

#include <zlib.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace floe::parquet {

namespace {

/// x^n mod P, P = x^32 + 0x04C11DB7 (normal bit order: bit d = coefficient of x^d).
constexpr uint64_t XPowModP(int n) {
  uint64_t r = 1;
  for (int i = 0; i < n; ++i) {
    r <<= 1;
    if (r & (uint64_t{1} << 32)) r ^= 0x104C11DB7ull;
  }
  return r;
}

/// The folding constant for a residue k of degree < 32: reflected in 32 bits,
/// shifted left by one (see the file comment).
constexpr uint64_t Reflect32Shl1(uint64_t k) {
  uint64_t r = 0;
  for (int i = 0; i < 32; ++i) {
    if (k & (uint64_t{1} << i)) r |= uint64_t{1} << (31 - i);
  }
  return r << 1;
}

/// Constants to fold a block forward by `bits` bits: {high half, low half}.
struct FoldConstants {
  uint64_t hi, lo;
};
constexpr FoldConstants Fold(int bits) {
  return {Reflect32Shl1(XPowModP(bits + 32)), Reflect32Shl1(XPowModP(bits - 32))};
}

constexpr FoldConstants kFold512 = Fold(512);  // four blocks ahead (the 64-byte loop)
constexpr FoldConstants kFold384 = Fold(384);
constexpr FoldConstants kFold256 = Fold(256);
constexpr FoldConstants kFold128 = Fold(128);  // one block ahead

uint32_t ZlibCrc(uint32_t crc, const uint8_t* data, size_t size) {
  return static_cast<uint32_t>(crc32_z(crc, data, size));
}

#if defined(__x86_64__)

__attribute__((target("pclmul,sse4.1"))) inline __m128i FoldBlock(__m128i x, FoldConstants k,
                                                                  __m128i into) {
  const __m128i kv = _mm_set_epi64x(static_cast<int64_t>(k.lo), static_cast<int64_t>(k.hi));
  const __m128i a = _mm_clmulepi64_si128(x, kv, 0x00);  // high-order half x k.hi
  const __m128i b = _mm_clmulepi64_si128(x, kv, 0x11);  // low-order half x k.lo
  return _mm_xor_si128(_mm_xor_si128(a, b), into);
}

/// zlib-compatible CRC-32 of size >= 64 bytes, continuing from `crc`.
__attribute__((target("pclmul,sse4.1"))) uint32_t ClmulCrc(uint32_t crc, const uint8_t* p,
                                                           size_t size) {
  auto load = [](const uint8_t* q) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q)); };
  // zlib's running value is the inverted register; the register XORs into the
  // first four bytes of the message.
  __m128i x0 = _mm_xor_si128(load(p), _mm_cvtsi32_si128(static_cast<int>(~crc)));
  __m128i x1 = load(p + 16), x2 = load(p + 32), x3 = load(p + 48);
  p += 64;
  size -= 64;
  while (size >= 64) {
    x0 = FoldBlock(x0, kFold512, load(p));
    x1 = FoldBlock(x1, kFold512, load(p + 16));
    x2 = FoldBlock(x2, kFold512, load(p + 32));
    x3 = FoldBlock(x3, kFold512, load(p + 48));
    p += 64;
    size -= 64;
  }
  __m128i x = FoldBlock(x0, kFold384, x3);
  x = FoldBlock(x1, kFold256, x);
  x = FoldBlock(x2, kFold128, x);
  while (size >= 16) {
    x = FoldBlock(x, kFold128, load(p));
    p += 16;
    size -= 16;
  }
  alignas(16) uint8_t block[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(block), x);
  // The block's CRC from a zero register (zlib: start value ~0), then the tail.
  return ZlibCrc(ZlibCrc(0xFFFFFFFFu, block, 16), p, size);
}

bool HasClmul() {
  static const bool has = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return has;
}

#endif

}  // namespace

uint32_t PageCrc(const uint8_t* data, size_t size) {
#if defined(__x86_64__)
  if (size >= 64 && HasClmul()) return ClmulCrc(0, data, size);
#endif
  return ZlibCrc(0, data, size);
}

}  // namespace floe::parquet
