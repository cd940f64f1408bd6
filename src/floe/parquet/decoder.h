/// \file
/// Value decoders of the Parquet reader: one per (encoding, physical type),
/// turning the value section of a data page (or a dictionary page) into
/// physical values. Encodings: PLAIN, PLAIN_DICTIONARY / RLE_DICTIONARY, RLE
/// (booleans), DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY,
/// BYTE_STREAM_SPLIT. Spec: parquet-format Encodings.md.
///
/// A decoder is set to one page's bytes, then asked for values in batches;
/// each call is one virtual call for many values, and the loops inside are
/// templated per physical width. Every count and length is checked against
/// the bytes present: bad data gives kCorrupt, never a read out of bounds.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "floe/util/buffer.h"
#include "floe/parquet/physical_type.h"
#include "floe/util/status.h"

namespace floe::parquet {

/// Parquet encodings (parquet.thrift: Encoding), same numbering.
enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};

/// The format's name of an encoding ("RLE_DICTIONARY"), or "ENCODING(<n>)".
std::string EncodingName(int32_t encoding);
/// The format's name of a physical type ("INT32").
std::string PhysicalTypeName(PhysicalType type);

/// Bytes per decoded value: BOOLEAN 1 (one byte per value), INT32/FLOAT 4,
/// INT64/DOUBLE 8, INT96 12, FIXED_LEN_BYTE_ARRAY its length; BYTE_ARRAY 0.
int PhysicalWidth(PhysicalType type, int32_t type_length);

/// Decoded values of one physical type. Fixed-width types: `count` values of
/// PhysicalWidth bytes each in `values`. BYTE_ARRAY: `offsets` (count + 1
/// entries, starting at 0) into the bytes in `values`.
struct PhysicalValues {
  Buffer values;
  std::vector<int64_t> offsets{0};
  int64_t count = 0;

  void Clear() {
    values.Clear();
    offsets.assign(1, 0);
    count = 0;
  }
};

/// Decodes the values of one page in one encoding.
class ValueDecoder {
 public:
  virtual ~ValueDecoder() = default;
  /// Points the decoder at a page's value bytes, which hold at most
  /// `num_values` values (the page's non-null values).
  virtual Status SetData(const uint8_t* data, size_t size, int64_t num_values) = 0;
  /// Appends the next n values to `out`; kCorrupt when the page holds fewer.
  virtual Status Decode(int64_t n, PhysicalValues* out) = 0;
};

/// A decoder for `encoding` of `type`. Dictionary encodings need the decoded
/// dictionary (kept alive by the caller while the decoder is used). An
/// encoding that does not apply to the type is kCorrupt; an unknown one
/// kUnsupported.
Result<std::unique_ptr<ValueDecoder>> MakeValueDecoder(Encoding encoding, PhysicalType type,
                                                       int32_t type_length,
                                                       const PhysicalValues* dictionary = nullptr);

/// Decodes a whole DELTA_BINARY_PACKED stream of at most `max_values` values
/// into out (exposed for tests and for DELTA_*_BYTE_ARRAY). `consumed` gets
/// the number of bytes the stream used.
Status DecodeDeltaBinaryPacked(const uint8_t* data, size_t size, int64_t max_values,
                               std::vector<int64_t>* out, size_t* consumed);

}  // namespace floe::parquet
