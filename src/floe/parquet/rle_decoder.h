/// \file
/// Decoders for Parquet's bit-level encodings: the RLE / bit-packing hybrid
/// (levels, dictionary indices, RLE booleans), the deprecated BIT_PACKED level
/// encoding, and ULEB128 / zigzag varints.
/// Spec: parquet-format Encodings.md ("Run Length Encoding / Bit-Packing
/// Hybrid", "Bit-packed (Deprecated)").
/// Header-only so the per-value loops inline into their callers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace floe::parquet {

/// Reads a ULEB128 varint from [*p, end); false when it runs past `end` or is
/// longer than 10 bytes.
inline bool ReadUleb128(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  uint64_t v = 0;
  int shift = 0;
  const uint8_t* q = *p;
  while (q < end && shift < 64) {
    uint8_t b = *q++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *p = q;
      *out = v;
      return true;
    }
    shift += 7;
  }
  return false;
}

/// Reads a zigzag-encoded varint.
inline bool ReadZigZag(const uint8_t** p, const uint8_t* end, int64_t* out) {
  uint64_t u = 0;
  if (!ReadUleb128(p, end, &u)) return false;
  *out = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  return true;
}

/// Loads up to 8 little-endian bytes at `p`, never reading at or past `end`.
inline uint64_t LoadLe64(const uint8_t* p, const uint8_t* end) {
  uint64_t v = 0;
  if (end - p >= 8) {
    std::memcpy(&v, p, 8);
  } else if (end > p) {
    std::memcpy(&v, p, static_cast<size_t>(end - p));
  }
  return v;
}

/// Extracts the `width`-bit value (width <= 64) that starts `bit` bits after
/// `base`, LSB-first packing as Parquet uses for bit-packed runs.
inline uint64_t ExtractBits(const uint8_t* base, const uint8_t* end, uint64_t bit, int width) {
  const uint8_t* p = base + (bit >> 3);
  int shift = static_cast<int>(bit & 7);
  uint64_t lo = LoadLe64(p, end) >> shift;
  if (shift + width > 64) {
    uint64_t hi = p + 8 < end ? p[8] : 0;
    lo |= hi << (64 - shift);
  }
  return width == 64 ? lo : lo & ((uint64_t{1} << width) - 1);
}

/// Decoder of the RLE / bit-packing hybrid with a fixed bit width (0..32).
/// GetBatch returns how many values it produced; fewer than asked means the
/// data ended (the caller decides whether that is corruption). Bit-packed runs
/// whose bytes are cut short at the end of the data ("tails") yield the values
/// whose bits are present.
class RleBitPackedDecoder {
 public:
  RleBitPackedDecoder() = default;
  RleBitPackedDecoder(const uint8_t* data, size_t size, int bit_width) {
    Reset(data, size, bit_width);
  }

  void Reset(const uint8_t* data, size_t size, int bit_width) {
    p_ = data;
    end_ = data + size;
    bit_width_ = bit_width;
    rle_left_ = 0;
    packed_left_ = 0;
    cut_short_ = false;
  }

  int bit_width() const { return bit_width_; }

  /// Decodes up to n values into out; returns the count decoded.
  template <typename T>
  int64_t GetBatch(T* out, int64_t n) {
    int64_t done = 0;
    while (done < n) {
      if (rle_left_ > 0) {
        int64_t k = std::min<int64_t>(rle_left_, n - done);
        T v = static_cast<T>(rle_value_);
        for (int64_t i = 0; i < k; ++i) out[done + i] = v;
        rle_left_ -= k;
        done += k;
      } else if (packed_left_ > 0) {
        int64_t k = std::min<int64_t>(packed_left_, n - done);
        if (bit_width_ == 0) {
          for (int64_t i = 0; i < k; ++i) out[done + i] = 0;
        } else {
          const int w = bit_width_;
          const uint64_t mask = (uint64_t{1} << w) - 1;
          uint64_t bit = packed_bit_;
          for (int64_t i = 0; i < k; ++i, bit += w) {
            const uint8_t* q = packed_base_ + (bit >> 3);
            uint64_t v;
            if (packed_end_ - q >= 8) {
              std::memcpy(&v, q, 8);
            } else {
              v = LoadLe64(q, packed_end_);
            }
            // w <= 32 and shift <= 7 keep the value inside the 64-bit load.
            out[done + i] = static_cast<T>((v >> (bit & 7)) & mask);
          }
          packed_bit_ = bit;
        }
        packed_left_ -= k;
        done += k;
      } else if (!NextRun()) {
        break;
      }
    }
    return done;
  }

  /// True when the data is exactly whole runs and no run is left unread: every
  /// byte belongs to a run that GetBatch/Skip has started (the current run may
  /// still hold values), and no bit-packed run was cut short.
  bool ConsumedExactly() const { return p_ >= end_ && !cut_short_; }

  /// Skips up to n values; returns the count skipped.
  int64_t Skip(int64_t n) {
    int64_t done = 0;
    while (done < n) {
      if (rle_left_ > 0) {
        int64_t k = std::min<int64_t>(rle_left_, n - done);
        rle_left_ -= k;
        done += k;
      } else if (packed_left_ > 0) {
        int64_t k = std::min<int64_t>(packed_left_, n - done);
        packed_bit_ += static_cast<uint64_t>(k) * bit_width_;
        packed_left_ -= k;
        done += k;
      } else if (!NextRun()) {
        break;
      }
    }
    return done;
  }

 private:
  bool NextRun() {
    if (p_ >= end_) return false;
    uint64_t header = 0;
    if (!ReadUleb128(&p_, end_, &header)) {
      p_ = end_;
      return false;
    }
    uint64_t count = header >> 1;
    if (header & 1) {
      // Bit-packed: count groups of 8 values, count * bit_width bytes.
      uint64_t groups = std::min<uint64_t>(count, uint64_t{1} << 40);
      uint64_t bytes_avail = static_cast<uint64_t>(end_ - p_);
      uint64_t bytes = bit_width_ == 0 ? 0 : groups * static_cast<uint64_t>(bit_width_);
      uint64_t values = groups * 8;
      if (bit_width_ > 0 && bytes > bytes_avail) {
        // A tail cut short: keep only the values whose bits are present.
        values = bytes_avail * 8 / static_cast<uint64_t>(bit_width_);
        bytes = bytes_avail;
        cut_short_ = true;
      }
      packed_base_ = p_;
      packed_end_ = p_ + bytes;
      packed_bit_ = 0;
      packed_left_ = static_cast<int64_t>(std::min<uint64_t>(values, uint64_t{1} << 62));
      p_ += bytes;
      return true;
    }
    // RLE run: count repeats of a value stored in ceil(bit_width / 8) bytes.
    int nbytes = (bit_width_ + 7) / 8;
    if (end_ - p_ < nbytes) {
      p_ = end_;
      return false;
    }
    uint64_t v = 0;
    for (int i = 0; i < nbytes; ++i) v |= static_cast<uint64_t>(p_[i]) << (8 * i);
    p_ += nbytes;
    rle_value_ = v;
    rle_left_ = static_cast<int64_t>(std::min<uint64_t>(count, uint64_t{1} << 62));
    return true;
  }

  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  int bit_width_ = 0;
  int64_t rle_left_ = 0;
  uint64_t rle_value_ = 0;
  int64_t packed_left_ = 0;
  const uint8_t* packed_base_ = nullptr;
  const uint8_t* packed_end_ = nullptr;
  uint64_t packed_bit_ = 0;
  bool cut_short_ = false;
};

/// Decoder of the deprecated BIT_PACKED level encoding: values packed from the
/// most significant bit of each byte, no run headers.
class LegacyBitPackedDecoder {
 public:
  void Reset(const uint8_t* data, size_t size, int bit_width) {
    data_ = data;
    size_ = size;
    bit_width_ = bit_width;
    bit_ = 0;
  }
  template <typename T>
  int64_t GetBatch(T* out, int64_t n) {
    const uint64_t total_bits = static_cast<uint64_t>(size_) * 8;
    int64_t i = 0;
    for (; i < n; ++i) {
      if (bit_width_ == 0) {
        out[i] = 0;
        continue;
      }
      if (bit_ + bit_width_ > total_bits) break;
      uint32_t v = 0;
      for (int b = 0; b < bit_width_; ++b, ++bit_) {
        v = (v << 1) | ((data_[bit_ >> 3] >> (7 - (bit_ & 7))) & 1);
      }
      out[i] = static_cast<T>(v);
    }
    return i;
  }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  int bit_width_ = 0;
  uint64_t bit_ = 0;
};

/// Number of bits needed to store values 0..max_value.
inline int BitWidthFor(uint64_t max_value) {
  int w = 0;
  while (max_value) {
    ++w;
    max_value >>= 1;
  }
  return w;
}

}  // namespace floe::parquet
