/// \file
/// The RLE / bit-packing hybrid encoding (Parquet Encodings.md "Run Length Encoding /
/// Bit-Packing Hybrid"; PITFALLS 14-15) used for definition/repetition levels,
/// dictionary indices and RLE booleans, and the LSB-first bit packing it shares with
/// DELTA_BINARY_PACKED.
#pragma once

#include <cstddef>
#include <cstdint>

#include "floe/util/buffer.h"

namespace floe::parquet {

/// Number of bits needed to hold `max_value` (0 for 0).
inline int BitWidth(uint64_t max_value) {
  return max_value == 0 ? 0 : 64 - __builtin_clzll(max_value);
}

/// Appends `count` values of `bit_width` bits (0..64) packed LSB-first; the last byte
/// is zero-padded.
void BitPackAppend(const uint64_t* values, size_t count, int bit_width, Buffer* out);
/// The same for 32-bit values (bit_width 0..32).
void BitPackAppend(const uint32_t* values, size_t count, int bit_width, Buffer* out);

/// Streaming hybrid encoder: RLE runs for 8+ equal values (aligned on groups of 8),
/// bit-packed groups of 8 otherwise (at most 63 groups per run, so headers are one
/// byte). Writes no length prefix; callers add one where the format wants it.
class RleBitPackedEncoder {
 public:
  /// Values must fit in `bit_width` bits (0..32). Output is appended to `out`.
  RleBitPackedEncoder(int bit_width, Buffer* out) : bit_width_(bit_width), out_(out) {}

  /// Adds one value.
  void Put(uint32_t value) {
    if (value == current_ && repeat_count_ > 0) {
      ++repeat_count_;
      if (repeat_count_ > 8) return;  // the RLE run goes on; nothing to buffer
    } else {
      if (repeat_count_ >= 8) FlushRepeatedRun();
      repeat_count_ = 1;
      current_ = value;
    }
    buffered_[num_buffered_++] = value;
    if (num_buffered_ == 8) FlushBuffered(false);
  }
  /// Adds `count` copies of `value` (fast for long runs).
  void PutRepeated(uint32_t value, size_t count);
  /// Ends the stream (pads the last bit-packed group with zeros).
  void Finish();

 private:
  void FlushBuffered(bool done);
  void FlushLiteralRun(bool close);
  void FlushRepeatedRun();

  int bit_width_;
  Buffer* out_;
  uint32_t buffered_[8] = {};
  int num_buffered_ = 0;
  uint32_t current_ = 0;
  int64_t repeat_count_ = 0;
  int literal_count_ = 0;           // values in the open bit-packed run
  int64_t literal_header_pos_ = -1;  // where its header byte goes
};

/// Encodes `n` values with the hybrid encoding, appending to `out`.
template <typename T>
void EncodeRleBitPacked(const T* values, size_t n, int bit_width, Buffer* out) {
  RleBitPackedEncoder enc(bit_width, out);
  size_t i = 0;
  while (i < n) {
    // Long runs skip the per-value path.
    size_t j = i + 1;
    while (j < n && values[j] == values[i]) ++j;
    if (j - i >= 16) {
      enc.PutRepeated(static_cast<uint32_t>(values[i]), j - i);
    } else {
      for (size_t k = i; k < j; ++k) enc.Put(static_cast<uint32_t>(values[k]));
    }
    i = j;
  }
  enc.Finish();
}

/// Appends an unsigned LEB128 varint.
inline void PutUVarint(uint64_t v, Buffer* out) {
  uint8_t buf[10];
  int n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<uint8_t>(v);
  out->Append(buf, n);
}
/// Appends a zigzag varint.
inline void PutZigZag(int64_t v, Buffer* out) {
  PutUVarint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63), out);
}

}  // namespace floe::parquet
