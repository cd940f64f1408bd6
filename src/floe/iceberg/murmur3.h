/// \file
/// 32-bit Murmur3 (x86 variant) and the Iceberg hashing rules built on it
/// (Iceberg spec: Bucket Transform Details, Appendix B). Written here from the
/// algorithm's description; the bucket transform is its only user.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "floe/types/type.h"

namespace floe::iceberg {

/// Murmur3 x86 32-bit hash of `len` bytes with `seed`.
uint32_t Murmur3X86_32(const void* data, size_t len, uint32_t seed = 0);

/// Appendix B `hashLong`: the hash of the 8-byte little-endian value. int, long,
/// date, time and the timestamps all hash this way (int and date widened first).
int32_t HashLong(int64_t value);

/// Appendix B `hashBytes`: strings (UTF-8), binary, fixed and uuid (16 BE bytes).
int32_t HashBytes(std::string_view bytes);

/// Appendix B decimal: the minimum-length big-endian two's complement bytes of
/// the unscaled value (the scale does not take part).
int32_t HashDecimal(int128_t unscaled);

/// Writes the minimum-length big-endian two's complement form of `v` into
/// `out` (at least 16 bytes) and returns the number of bytes (1..16).
int MinimalBigEndian(int128_t v, uint8_t* out);

}  // namespace floe::iceberg
