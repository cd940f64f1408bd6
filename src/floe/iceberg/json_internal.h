/// \file
/// Internal: nlohmann-json helpers shared by the iceberg module's JSON code
/// (schemas, specs, sort orders, table metadata, single values). Readers return
/// kCorrupt errors that name the JSON field and its context; longs are read only
/// from bare JSON integers (PITFALLS 47), so ids above 2^53 stay exact.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "floe/types/column_vector.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::iceberg {

struct Value;

/// Key order is kept as written, so our files list fields in the spec's order.
using Json = nlohmann::ordered_json;

namespace json_internal {

/// Parses JSON text; kCorrupt naming `what` on a syntax error.
Result<Json> Parse(std::string_view text, std::string_view what);
/// Serializes; kInvalidArgument if a string is not valid UTF-8.
Result<std::string> Dump(const Json& j, int indent = -1);

const Json* Find(const Json& obj, std::string_view key);
std::string_view KindName(const Json& j);

Result<int64_t> GetLong(const Json& obj, std::string_view key, std::string_view ctx);
Result<int32_t> GetInt(const Json& obj, std::string_view key, std::string_view ctx);
Result<bool> GetBool(const Json& obj, std::string_view key, std::string_view ctx);
Result<std::string> GetString(const Json& obj, std::string_view key, std::string_view ctx);
Result<std::optional<int64_t>> GetOptionalLong(const Json& obj, std::string_view key,
                                               std::string_view ctx);
Result<std::optional<int32_t>> GetOptionalInt(const Json& obj, std::string_view key,
                                              std::string_view ctx);
Result<std::optional<std::string>> GetOptionalString(const Json& obj, std::string_view key,
                                                     std::string_view ctx);
/// A JSON object of string values (properties, snapshot summary).
Result<std::map<std::string, std::string>> GetStringMap(const Json& obj, std::string_view key,
                                                        std::string_view ctx);
Result<int64_t> AsLong(const Json& j, std::string_view ctx);
/// A snapshot id: a long, as the spec says. An id in [2^63, 2^64) (some
/// hand-made tables) is refused naming the field and the value, as Java's
/// JsonUtil refuses it: read as the long with the same bits it became a
/// negative id that every file written by the spec's readers contradicts,
/// and failed later on the manifest list with a message about Avro.
Result<int64_t> AsSnapshotId(const Json& j, std::string_view ctx);
Result<int64_t> GetSnapshotId(const Json& obj, std::string_view key, std::string_view ctx);
Result<std::optional<int64_t>> GetOptionalSnapshotId(const Json& obj, std::string_view key,
                                                     std::string_view ctx);
Result<int32_t> AsInt(const Json& j, std::string_view ctx);

}  // namespace json_internal

/// Schema and type JSON (Appendix C) as nlohmann values; see schema_json.h.
struct FieldDefault;
Json TypeToJsonValue(const Type& type);
Result<TypePtr> TypeFromJsonValue(const Json& j, std::string_view ctx,
                                  std::map<int32_t, FieldDefault>* defaults);

/// JSON single-value form (Appendix D) as nlohmann values; see value.h.
Result<Json> ValueToJsonValue(const Type& type, const Value& value);
Result<Value> ValueFromJsonValue(const Type& type, const Json& j, std::string_view ctx);

Result<Json> ColumnValueToJsonValue(const ColumnVector& column, int64_t row);
Status AppendJsonValue(ColumnVector* column, const Json& j, std::string_view ctx);

}  // namespace floe::iceberg
