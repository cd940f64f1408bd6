/// \file
/// Decimal text of integers for the hot printers (floe scan's JSON and CSV
/// rows, timestamps): two digits at a time from a table, the length known
/// before the first digit is written. The same text as std::to_chars.
#pragma once

#include <cstdint>
#include <cstring>

namespace floe {

/// "00" to "99" one after another: a number below 100 is two bytes copied.
inline constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/// Two digits "00".."99" of `v` < 100 at `p`; returns the end.
inline char* PutTwoDigits(char* p, uint64_t v) {
  std::memcpy(p, kDigitPairs + 2 * v, 2);
  return p + 2;
}

/// The number of decimal digits of `v` (1 for 0).
inline int DecimalLength(uint64_t v) {
  static constexpr uint64_t kPow10[] = {1ULL,
                                        10ULL,
                                        100ULL,
                                        1000ULL,
                                        10000ULL,
                                        100000ULL,
                                        1000000ULL,
                                        10000000ULL,
                                        100000000ULL,
                                        1000000000ULL,
                                        10000000000ULL,
                                        100000000000ULL,
                                        1000000000000ULL,
                                        10000000000000ULL,
                                        100000000000000ULL,
                                        1000000000000000ULL,
                                        10000000000000000ULL,
                                        100000000000000000ULL,
                                        1000000000000000000ULL,
                                        10000000000000000000ULL};
  // bits * log10(2) (1233 / 4096) is floor(log10(v)) or one more. (v | 1:
  // 0 has one digit, and an even v is below a power of ten iff v + 1 is.)
  const uint64_t w = v | 1;
  const int bits = 64 - __builtin_clzll(w);
  const int t = (bits * 1233) >> 12;
  return t + 1 - (w < kPow10[t] ? 1 : 0);
}

/// The decimal text of `v` at `p` (room for 20 bytes); returns the end.
inline char* PutUint64(char* p, uint64_t v) {
  char* const end = p + DecimalLength(v);
  char* q = end;
  while (v >= 100) {
    const uint64_t low = v % 100;
    v /= 100;
    q = PutTwoDigits(q - 2, low) - 2;
  }
  if (v >= 10) {
    PutTwoDigits(q - 2, v);
  } else {
    q[-1] = static_cast<char>('0' + v);
  }
  return end;
}

/// The decimal text of `v` at `p`, '-' first when negative (room for 20 bytes).
inline char* PutInt64(char* p, int64_t v) {
  if (v < 0) {
    *p++ = '-';
    return PutUint64(p, 0 - static_cast<uint64_t>(v));
  }
  return PutUint64(p, static_cast<uint64_t>(v));
}

}  // namespace floe
