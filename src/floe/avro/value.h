/// \file
/// avro::Value: a small tagged tree holding one Avro datum. Manifests and
/// manifest lists are small, so the generic tree may allocate; the bulk data
/// paths of floe never go through it.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/avro/schema.h"

namespace floe::avro {

/// One Avro datum. Unions are not wrapped: a value of a `["null","long"]`
/// field is either Null or Long, and the encoder picks the branch that matches
/// the value's kind. Records keep their schema node so fields can be found by
/// name.
class Value {
 public:
  enum class Kind : uint8_t {
    kNull,
    kBoolean,
    kInt,
    kLong,
    kFloat,
    kDouble,
    kBytes,
    kString,
    kFixed,
    kEnum,
    kRecord,
    kArray,
    kMap,
  };

  Value() = default;

  /// Factories, one per kind.
  static Value Null() { return Value(); }
  static Value Boolean(bool v);
  static Value Int(int32_t v);
  static Value Long(int64_t v);
  static Value Float(float v);
  static Value Double(double v);
  static Value Bytes(std::string bytes);
  static Value String(std::string text);
  static Value Fixed(std::string bytes);
  /// An enum symbol by index; `symbol` is its name (used for resolution).
  static Value Enum(int32_t index, std::string symbol);
  /// A record; `schema` (may be null) names the fields, `fields` are in its order.
  static Value Record(NodePtr schema, std::vector<Value> fields);
  static Value Array(std::vector<Value> items);
  /// A map; entries keep their order.
  static Value Map(std::vector<std::pair<std::string, Value>> entries);

  /// The datum's kind (never kUnion: unions are unwrapped).
  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }

  /// Typed accessors, each meaningful for its own kind only.
  bool boolean() const { return i_ != 0; }
  int32_t int_value() const { return static_cast<int32_t>(i_); }
  int64_t long_value() const { return i_; }
  /// A float keeps its exact bits (a signalling NaN's too: a float -> double
  /// -> float round trip would set its quiet bit).
  float float_value() const {
    return kind_ == Kind::kFloat ? std::bit_cast<float>(static_cast<uint32_t>(i_)) : static_cast<float>(d_);
  }
  /// The value as a double (a float widened, for the promotion to double).
  double double_value() const { return d_; }
  /// Bytes, string and fixed contents; the symbol of an enum.
  const std::string& bytes() const { return bytes_; }
  int32_t enum_index() const { return static_cast<int32_t>(i_); }

  /// Record fields, array items or map values.
  const std::vector<Value>& children() const { return children_; }
  std::vector<Value>& mutable_children() { return children_; }
  /// Map keys, parallel to children().
  const std::vector<std::string>& keys() const { return keys_; }
  /// The record's schema node (null when built without one).
  const NodePtr& record_schema() const { return schema_; }

  /// A record field by name, or nullptr (also when the record has no schema).
  const Value* field(std::string_view name) const;

  /// An integer of any integral kind (int, long, enum index, boolean).
  int64_t AsInt64() const { return i_; }

  /// The kind's name, for error messages.
  static std::string_view KindName(Kind kind);

  bool operator==(const Value& other) const;

  /// JSON text in the form `avro_dump.mjs` (avsc) prints: longs exact, doubles
  /// as JavaScript prints them, bytes/fixed as lower-case hex, enums as their
  /// symbol, maps as objects, unions unwrapped.
  std::string ToJson() const;

 private:
  Kind kind_ = Kind::kNull;
  int64_t i_ = 0;
  double d_ = 0;
  std::string bytes_;
  std::vector<Value> children_;
  std::vector<std::string> keys_;
  NodePtr schema_;
};

/// Formats a double as JavaScript's `String(x)` does (shortest round trip;
/// exponent form below 1e-6 and from 1e21).
std::string FormatDoubleJs(double x);

}  // namespace floe::avro
