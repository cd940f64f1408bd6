/// \file
/// Avro binary encoding (Avro spec 1.11: Binary Encoding): zigzag varints,
/// little-endian floats, length-prefixed bytes and strings, unions by branch
/// index, blocked arrays and maps (negative block counts carry a byte size),
/// fixed. Low-level Encoder/Decoder for fast paths, generic Value encoding and
/// decoding, and schema resolution (Avro spec: Schema Resolution) by Iceberg
/// field id.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "floe/avro/schema.h"
#include "floe/avro/value.h"
#include "floe/util/buffer.h"
#include "floe/util/status.h"

namespace floe::avro {

/// Zigzag mapping of a signed long (0->0, -1->1, 1->2, ...).
constexpr uint64_t ZigZag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
constexpr int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

/// Appends Avro primitives to a Buffer.
class Encoder {
 public:
  explicit Encoder(Buffer* out) : out_(out) {}

  /// A zigzag varint of at most 10 bytes (also used for int).
  void WriteLong(int64_t v) {
    uint8_t buf[10];
    size_t n = 0;
    uint64_t z = ZigZag(v);
    while (z >= 0x80) {
      buf[n++] = static_cast<uint8_t>(z | 0x80);
      z >>= 7;
    }
    buf[n++] = static_cast<uint8_t>(z);
    out_->Append(buf, n);
  }
  /// An int: the same zigzag varint as a long.
  void WriteInt(int32_t v) { WriteLong(v); }
  /// One byte, 0 or 1.
  void WriteBoolean(bool v) { out_->Push<uint8_t>(v ? 1 : 0); }
  /// 4 bytes little-endian IEEE 754.
  void WriteFloat(float v) { out_->Push(v); }    // x86-64: little-endian
  /// 8 bytes little-endian IEEE 754.
  void WriteDouble(double v) { out_->Push(v); }
  /// A long length, then the bytes.
  void WriteBytes(std::string_view v) {
    WriteLong(static_cast<int64_t>(v.size()));
    out_->Append(v.data(), v.size());
  }
  /// UTF-8 text, encoded as bytes.
  void WriteString(std::string_view v) { WriteBytes(v); }
  /// The bytes alone; the schema fixes the size.
  void WriteFixed(std::string_view v) { out_->Append(v.data(), v.size()); }

  /// The buffer appended to.
  Buffer* buffer() { return out_; }

 private:
  Buffer* out_;
};

/// Reads Avro primitives from a byte range. Every read checks the bytes
/// available and fails with kCorrupt (naming `what`) instead of overrunning.
class Decoder {
 public:
  Decoder(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  explicit Decoder(std::string_view s)
      : Decoder(reinterpret_cast<const uint8_t*>(s.data()), s.size()) {}

  /// Bytes not read yet.
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  /// The next byte to read.
  const uint8_t* position() const { return p_; }

  /// A zigzag varint; kCorrupt when truncated or longer than 10 bytes.
  Result<int64_t> ReadLong() {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (p_ == end_) return Corrupt("avro: truncated varint");
      uint8_t b = *p_++;
      if (shift == 63 && (b & 0x7e)) return Corrupt("avro: varint overflows 64 bits");
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return UnZigZag(v);
    }
    return Corrupt("avro: varint longer than 10 bytes");
  }
  /// A varint that must fit 32 bits.
  Result<int32_t> ReadInt() {
    FLOE_ASSIGN_OR_RETURN(int64_t v, ReadLong());
    if (v < INT32_MIN || v > INT32_MAX) return Corrupt("avro: int value {} out of range", v);
    return static_cast<int32_t>(v);
  }
  /// One byte that must be 0 or 1.
  Result<bool> ReadBoolean() {
    if (p_ == end_) return Corrupt("avro: truncated boolean");
    uint8_t b = *p_++;
    if (b > 1) return Corrupt("avro: boolean byte {} is not 0 or 1", b);
    return b == 1;
  }
  /// 4 bytes little-endian.
  Result<float> ReadFloat() {
    if (remaining() < 4) return Corrupt("avro: truncated float");
    float v;
    std::memcpy(&v, p_, 4);
    p_ += 4;
    return v;
  }
  /// 8 bytes little-endian.
  Result<double> ReadDouble() {
    if (remaining() < 8) return Corrupt("avro: truncated double");
    double v;
    std::memcpy(&v, p_, 8);
    p_ += 8;
    return v;
  }
  /// A length-prefixed byte string, as a view into the input.
  Result<std::string_view> ReadBytes() {
    FLOE_ASSIGN_OR_RETURN(int64_t n, ReadLong());
    if (n < 0) return Corrupt("avro: negative length {}", n);
    if (static_cast<uint64_t>(n) > remaining()) {
      return Corrupt("avro: length {} exceeds the {} bytes left", n, remaining());
    }
    std::string_view v(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
    p_ += n;
    return v;
  }
  /// `n` bytes, as a view into the input.
  Result<std::string_view> ReadFixed(size_t n) {
    if (n > remaining()) return Corrupt("avro: fixed of {} bytes exceeds the {} bytes left", n, remaining());
    std::string_view v(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return v;
  }
  /// Skips `n` bytes.
  Status Skip(size_t n) {
    if (n > remaining()) return Corrupt("avro: skip of {} bytes exceeds the {} bytes left", n, remaining());
    p_ += n;
    return Ok();
  }
  /// The item count of the next array/map block (0 = end). A negative count
  /// is followed by the block's byte size, which is read and checked.
  Result<int64_t> ReadBlockCount() {
    FLOE_ASSIGN_OR_RETURN(int64_t n, ReadLong());
    if (n < 0) {
      if (n == INT64_MIN) return Corrupt("avro: block count out of range");
      n = -n;
      FLOE_ASSIGN_OR_RETURN(int64_t bytes, ReadLong());
      if (bytes < 0 || static_cast<uint64_t>(bytes) > remaining()) {
        return Corrupt("avro: block byte size {} exceeds the {} bytes left", bytes, remaining());
      }
    }
    return n;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

/// Encodes `value` as `schema` (the writer's). Unions take the first branch
/// that accepts the value's kind (exact kind first, then int->long,
/// float->double, bytes/string). kInvalidArgument names the path of a value
/// that does not fit.
Status EncodeValue(const Node& schema, const Value& value, Encoder* encoder);

/// Decodes one datum written with `schema`.
Result<Value> DecodeValue(const NodePtr& schema, Decoder* decoder);

/// Lowest number of bytes one datum of `schema` takes (0 for null and empty
/// records); readers use it to bound item counts by the bytes left.
size_t MinEncodedSize(const Node& schema);

/// Resolves values decoded with a writer schema to a reader schema (Avro
/// spec: Schema Resolution, adapted to Iceberg): record fields are matched by
/// `field-id` when both sides have one and by name (or alias) otherwise;
/// writer fields the reader lacks are dropped; reader fields the writer lacks
/// take their default, or null when optional; int->long/float/double,
/// long->float/double, float->double and string<->bytes promote; enums match
/// by symbol; record names are not compared (Iceberg readers don't either).
class Resolver {
 public:
  /// Checks that every value of `writer` can be read as `reader`.
  static Result<Resolver> Make(NodePtr reader, NodePtr writer);

  /// Converts a value decoded with the writer schema.
  Result<Value> Resolve(Value value) const;

  const NodePtr& reader() const { return reader_; }

 private:
  struct RecordPlan {
    std::vector<int> writer_index;  ///< per reader field: writer field index or -1
    std::vector<Value> defaults;    ///< per reader field, when writer_index is -1
  };
  Status Check(const NodePtr& reader, const NodePtr& writer, const std::string& path, int depth);
  Result<Value> ResolveAs(Value value, const NodePtr& reader, int depth) const;

  NodePtr reader_;
  NodePtr writer_;
  std::map<std::pair<const Node*, const Node*>, RecordPlan> plans_;
};

/// Converts a JSON default (Avro spec: field default values) to a Value of
/// `schema` (a union default takes the first branch).
Result<Value> DefaultValue(const NodePtr& schema, std::string_view json);

}  // namespace floe::avro
