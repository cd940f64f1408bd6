/// \file
/// Unsigned LEB128 varints (7 bits a byte, low bits first), as the change
/// sink's row codec and spill files write lengths.
#pragma once

#include <cstddef>
#include <cstdint>

namespace floe {

/// Bytes PutVarint writes for `v`.
inline size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

/// Writes `v` at `p` (room for VarintSize(v) bytes); returns the end.
inline char* PutVarint(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>(static_cast<uint8_t>(v) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

}  // namespace floe
