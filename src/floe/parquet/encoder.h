/// \file
/// Value encoders that work on whole pages of values (Parquet Encodings.md):
/// DELTA_BINARY_PACKED (int32/int64), DELTA_LENGTH_BYTE_ARRAY and BYTE_STREAM_SPLIT.
/// PLAIN and RLE_DICTIONARY are done inline by the column writers (column_writer.cc),
/// the hybrid RLE lives in rle_encoder.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "floe/util/buffer.h"

namespace floe::parquet {

/// DELTA_BINARY_PACKED with blocks of 128 values in 4 miniblocks of 32 (PITFALLS 17).
/// For INT32 columns pass `int32 = true`: deltas then wrap in 32 bits, as readers
/// decode them.
void EncodeDeltaBinaryPacked(const int64_t* values, size_t n, bool int32, Buffer* out);

/// DELTA_LENGTH_BYTE_ARRAY: the lengths DELTA_BINARY_PACKED (as INT32), then the bytes.
void EncodeDeltaLengthByteArray(const int64_t* lengths, size_t n, const uint8_t* bytes,
                                size_t bytes_size, Buffer* out);

/// BYTE_STREAM_SPLIT: `n` values of `width` bytes, given back to back, scattered into
/// `width` streams of `n` bytes.
void EncodeByteStreamSplit(const uint8_t* values, size_t n, int width, Buffer* out);

}  // namespace floe::parquet
