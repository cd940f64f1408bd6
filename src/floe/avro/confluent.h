/// \file
/// Confluent's Schema Registry wire format of a Kafka message value, and the
/// translation of its Avro datum into the JSON text floe's row decoders read.
///
/// Wire format (Confluent docs: Schema Registry, "Wire format"): byte 0 is the
/// magic byte 0x00, bytes 1-4 the id of the writer's schema in the registry
/// (big-endian), then one datum in Avro binary encoding (Avro spec 1.11:
/// Binary Encoding) written with that schema, and nothing after it.
///
/// Why JSON: the value rules of floe's decoders (JSONL: unknown keys, missing
/// columns, range and type checks; Debezium: the envelope, op, sequence and
/// Debezium's value encodings) live once, in format/. A datum is written as
/// the JSON those decoders already read, so the `avro-confluent` formats keep
/// exactly the rules of `json` and `debezium-json`:
///
///   JsonDialect::kRow      the record as one JSON object in the JSONL forms
///                          (jsonl_reader.h): date -> "2024-01-31", time-millis
///                          / time-micros -> "10:15:30.250", timestamp-* and
///                          local-timestamp-* -> "2024-01-31T10:15:30.250"
///                          (no zone: UTC for the tz columns), decimal ->
///                          "12.50" (exact), uuid -> its text, bytes / fixed ->
///                          hex, enum -> its symbol, map -> an object, NaN and
///                          the infinities -> "NaN" / "Infinity" / "-Infinity".
///   JsonDialect::kConnect  Kafka Connect's JSON converter forms (ints for
///                          Connect's dates and times, base64 for bytes and
///                          decimals): the payload of a Debezium event; and
///                          the writer schema translated once into the Connect
///                          JSON schema Confluent's AvroConverter made it from
///                          (`connect.name` / `connect.version` /
///                          `connect.parameters` / `connect.type` give the
///                          name, version, parameters and int8 / int16; Avro's
///                          own logical types without them map to Connect's
///                          Date, Time, Timestamp, Decimal and Debezium's
///                          MicroTime, MicroTimestamp, NanoTimestamp, Uuid).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "floe/avro/schema.h"
#include "floe/util/status.h"

namespace floe::avro {

/// The first byte of a Confluent-framed value.
inline constexpr uint8_t kConfluentMagic = 0x00;
/// Magic byte and schema id.
inline constexpr size_t kConfluentHeaderBytes = 5;

/// A framed value split into its parts.
struct ConfluentFrame {
  int32_t schema_id = 0;
  std::string_view body;  ///< the Avro datum (a view into the value)
};

/// Splits `value`: kCorrupt when it is shorter than the header ("5 bytes of
/// header expected, found 3") or its first byte is not the magic byte.
Result<ConfluentFrame> ParseConfluentFrame(std::string_view value);

/// The 5-byte header of schema `schema_id`.
std::string ConfluentHeader(int32_t schema_id);

/// The JSON forms a datum is written in (see the file comment).
enum class JsonDialect : uint8_t { kRow, kConnect };

/// One writer schema, parsed and checked once, that writes its data as JSON.
class DatumToJson {
 public:
  /// Parses `schema_json` (an Avro schema). kInvalidArgument when it is not
  /// a valid Avro schema, its root is not a record, or (kConnect) it has what
  /// Kafka Connect's schemas cannot hold (a union of several non-null types, a
  /// recursive record).
  static Result<std::shared_ptr<const DatumToJson>> Make(std::string_view schema_json, JsonDialect dialect);

  /// Decodes the whole of `body` (one datum of the schema) and appends it to
  /// `out` as one line of JSON (no newline). kCorrupt when the body is
  /// truncated, has an invalid union branch, enum index, length or boolean,
  /// or bytes follow the datum; kInvalidArgument for a value the JSON forms
  /// cannot hold (a time of day out of range, a timestamp beyond the year
  /// range, a decimal of more than 1024 bytes). On an error `out` is left as
  /// it was.
  Status Append(std::string_view body, std::string* out) const;

  /// kConnect: the Connect JSON schema of the record (one line).
  const std::string& connect_schema() const { return connect_schema_; }
  const AvroSchema& schema() const { return schema_; }
  JsonDialect dialect() const { return dialect_; }

 private:
  DatumToJson() = default;
  AvroSchema schema_;
  JsonDialect dialect_ = JsonDialect::kRow;
  std::string connect_schema_;
};

}  // namespace floe::avro
