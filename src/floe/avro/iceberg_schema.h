/// \file
/// The Iceberg <-> Avro schema mapping (Iceberg spec: Appendix A, Avro), as
/// Iceberg Java writes it so that every Iceberg reader accepts floe's
/// manifests:
/// - every field carries `field-id`; arrays `element-id`; maps `key-id` and
///   `value-id`;
/// - an optional field is `["null", T]` with `"default": null`;
/// - nested records are named `r<fieldId>` (the top-level name is the
///   caller's, e.g. `manifest_entry`, `manifest_file`);
/// - a map whose key is not a string is an array with `"logicalType":"map"`
///   of records `k<keyId>_v<valueId>` with fields `key` and `value`;
/// - decimal(P,S) is `fixed` of the minimum byte width with logicalType
///   decimal; uuid is `fixed(16)` with logicalType uuid; date is int/date;
///   time is long/time-micros; timestamp(tz) is long/timestamp-micros with
///   `adjust-to-utc`;
/// - a name that is not a valid Avro name is sanitized (leading digit d ->
///   `_d`, other characters -> `_x` + upper-case hex) and the original is kept
///   in `iceberg-field-name`.
/// Record and fixed names are all distinct, because icebird cannot resolve
/// Avro name references.
#pragma once

#include <string>
#include <string_view>

#include "floe/avro/schema.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::avro {


/// An Iceberg schema as an Avro record schema named `record_name`.
Result<AvroSchema> ToAvroSchema(const Schema& schema, std::string_view record_name);

/// An Iceberg struct type (e.g. a partition type) as an Avro record named
/// `record_name`.
Result<AvroSchema> StructToAvroSchema(const Type& struct_type, std::string_view record_name);

/// An Avro record schema with Iceberg ids as an Iceberg schema. Every field
/// needs `field-id`, every array `element-id` (or a `logicalType: map` record
/// with key/value field ids), every map `key-id` and `value-id`;
/// kInvalidArgument names the path of a node that lacks them.
Result<Schema> FromAvroSchema(const AvroSchema& schema, int32_t schema_id = 0);

/// One Avro type (not a union) as an Iceberg type.
Result<TypePtr> FromAvroType(const Node& node);

}  // namespace floe::avro
