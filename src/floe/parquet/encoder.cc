// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and BYTE_STREAM_SPLIT (Encodings.md).
#include "floe/parquet/encoder.h"

#include <algorithm>
#include <vector>

#include "floe/parquet/rle_encoder.h"

namespace floe::parquet {

namespace {
constexpr int kBlockSize = 128;
constexpr int kMiniBlocks = 4;
constexpr int kMiniBlockSize = kBlockSize / kMiniBlocks;
}  // namespace

void EncodeDeltaBinaryPacked(const int64_t* values, size_t n, bool int32, Buffer* out) {
  PutUVarint(kBlockSize, out);
  PutUVarint(kMiniBlocks, out);
  PutUVarint(n, out);
  PutZigZag(n > 0 ? values[0] : 0, out);
  if (n <= 1) return;
  uint64_t deltas[kBlockSize];
  size_t i = 1;
  while (i < n) {
    size_t count = std::min<size_t>(kBlockSize, n - i);
    int64_t min_delta = 0;
    for (size_t k = 0; k < count; ++k) {
      int64_t d;
      if (int32) {
        d = static_cast<int32_t>(static_cast<uint32_t>(values[i + k]) -
                                 static_cast<uint32_t>(values[i + k - 1]));
      } else {
        d = static_cast<int64_t>(static_cast<uint64_t>(values[i + k]) -
                                 static_cast<uint64_t>(values[i + k - 1]));
      }
      deltas[k] = static_cast<uint64_t>(d);
      if (k == 0 || d < min_delta) min_delta = d;
    }
    PutZigZag(min_delta, out);
    // Subtract the minimum (wrapping in the column's width) and pad with zeros.
    for (size_t k = 0; k < static_cast<size_t>(kBlockSize); ++k) {
      if (k < count) {
        uint64_t v = deltas[k] - static_cast<uint64_t>(min_delta);
        deltas[k] = int32 ? static_cast<uint32_t>(v) : v;
      } else {
        deltas[k] = 0;
      }
    }
    int widths[kMiniBlocks];
    int used = static_cast<int>((count + kMiniBlockSize - 1) / kMiniBlockSize);
    for (int m = 0; m < kMiniBlocks; ++m) {
      uint64_t max = 0;
      if (m < used) {
        for (int k = 0; k < kMiniBlockSize; ++k) max |= deltas[m * kMiniBlockSize + k];
      }
      widths[m] = BitWidth(max);
      uint8_t w = static_cast<uint8_t>(widths[m]);
      out->Append(&w, 1);
    }
    for (int m = 0; m < used; ++m) {
      BitPackAppend(deltas + m * kMiniBlockSize, kMiniBlockSize, widths[m], out);
    }
    i += count;
  }
}

void EncodeDeltaLengthByteArray(const int64_t* lengths, size_t n, const uint8_t* bytes,
                                size_t bytes_size, Buffer* out) {
  EncodeDeltaBinaryPacked(lengths, n, true, out);
  out->Append(bytes, bytes_size);
}

void EncodeByteStreamSplit(const uint8_t* values, size_t n, int width, Buffer* out) {
  size_t start = out->size();
  out->Resize(start + n * width);
  uint8_t* dst = out->data() + start;
  for (int b = 0; b < width; ++b) {
    uint8_t* stream = dst + static_cast<size_t>(b) * n;
    const uint8_t* src = values + b;
    for (size_t i = 0; i < n; ++i) stream[i] = src[i * width];
  }
}

}  // namespace floe::parquet
