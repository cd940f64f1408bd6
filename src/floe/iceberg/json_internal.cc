#include "floe/iceberg/json_internal.h"

#include <limits>

#include "floe/util/nesting.h"

namespace floe::iceberg::json_internal {

Result<Json> Parse(std::string_view text, std::string_view what) {
  // Before parsing: nlohmann copies and compares nested values recursively,
  // and so do the walks of what it parsed (issue 7, deep input).
  if (auto at = JsonNestingBeyond(text)) {
    return Corrupt("{}: JSON nested deeper than {} levels (at byte {})", what, kMaxJsonDepth, *at);
  }
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Corrupt("{}: not valid JSON", what);
  return j;
}

Result<std::string> Dump(const Json& j, int indent) {
  try {
    return j.dump(indent);
  } catch (const std::exception& e) {
    return InvalidArgument("cannot serialize JSON: {}", e.what());
  }
}

const Json* Find(const Json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(std::string(key));
  return it == obj.end() ? nullptr : &*it;
}

std::string_view KindName(const Json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "boolean";
  if (j.is_number_integer()) return "integer";
  if (j.is_number_float()) return "decimal number";
  if (j.is_string()) return "string";
  if (j.is_array()) return "array";
  if (j.is_object()) return "object";
  return "value";
}

Result<int64_t> AsLong(const Json& j, std::string_view ctx) {
  if (j.is_number_unsigned()) {
    auto u = j.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Corrupt("{}: {} does not fit a long (a 64-bit signed integer: at most {})", ctx, u,
                     std::numeric_limits<int64_t>::max());
    }
    return static_cast<int64_t>(u);
  }
  if (j.is_number_integer()) return j.get<int64_t>();
  return Corrupt("{}: must be a JSON integer, got {}", ctx, KindName(j));
}

Result<int64_t> AsSnapshotId(const Json& j, std::string_view ctx) { return AsLong(j, ctx); }

Result<int32_t> AsInt(const Json& j, std::string_view ctx) {
  FLOE_ASSIGN_OR_RETURN(int64_t v, AsLong(j, ctx));
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return Corrupt("{}: {} does not fit an int", ctx, v);
  }
  return static_cast<int32_t>(v);
}

namespace {
std::string Where(std::string_view ctx, std::string_view key) {
  return ctx.empty() ? fmt::format("'{}'", key) : fmt::format("{}: '{}'", ctx, key);
}
}  // namespace

Result<int64_t> GetLong(const Json& obj, std::string_view key, std::string_view ctx) {
  const Json* j = Find(obj, key);
  if (!j) return Corrupt("{} is required but missing", Where(ctx, key));
  return AsLong(*j, Where(ctx, key));
}

Result<int32_t> GetInt(const Json& obj, std::string_view key, std::string_view ctx) {
  const Json* j = Find(obj, key);
  if (!j) return Corrupt("{} is required but missing", Where(ctx, key));
  return AsInt(*j, Where(ctx, key));
}

Result<bool> GetBool(const Json& obj, std::string_view key, std::string_view ctx) {
  const Json* j = Find(obj, key);
  if (!j) return Corrupt("{} is required but missing", Where(ctx, key));
  if (!j->is_boolean()) return Corrupt("{} must be a boolean, got {}", Where(ctx, key), KindName(*j));
  return j->get<bool>();
}

Result<std::string> GetString(const Json& obj, std::string_view key, std::string_view ctx) {
  const Json* j = Find(obj, key);
  if (!j) return Corrupt("{} is required but missing", Where(ctx, key));
  if (!j->is_string()) return Corrupt("{} must be a string, got {}", Where(ctx, key), KindName(*j));
  return j->get<std::string>();
}

Result<std::optional<int64_t>> GetOptionalLong(const Json& obj, std::string_view key,
                                               std::string_view ctx) {
  const Json* j = Find(obj, key);
  if (!j || j->is_null()) return std::optional<int64_t>();
  FLOE_ASSIGN_OR_RETURN(int64_t v, AsLong(*j, Where(ctx, key)));
  return std::optional<int64_t>(v);
}

Result<int64_t> GetSnapshotId(const Json& obj, std::string_view key, std::string_view ctx) {
  const Json* j = Find(obj, key);
  if (!j) return Corrupt("{} is required but missing", Where(ctx, key));
  return AsSnapshotId(*j, Where(ctx, key));
}

Result<std::optional<int64_t>> GetOptionalSnapshotId(const Json& obj, std::string_view key,
                                                     std::string_view ctx) {
  const Json* j = Find(obj, key);
  if (!j || j->is_null()) return std::optional<int64_t>();
  FLOE_ASSIGN_OR_RETURN(int64_t v, AsSnapshotId(*j, Where(ctx, key)));
  return std::optional<int64_t>(v);
}

Result<std::optional<int32_t>> GetOptionalInt(const Json& obj, std::string_view key,
                                              std::string_view ctx) {
  const Json* j = Find(obj, key);
  if (!j || j->is_null()) return std::optional<int32_t>();
  FLOE_ASSIGN_OR_RETURN(int32_t v, AsInt(*j, Where(ctx, key)));
  return std::optional<int32_t>(v);
}

Result<std::optional<std::string>> GetOptionalString(const Json& obj, std::string_view key,
                                                     std::string_view ctx) {
  const Json* j = Find(obj, key);
  if (!j || j->is_null()) return std::optional<std::string>();
  if (!j->is_string()) return Corrupt("{} must be a string, got {}", Where(ctx, key), KindName(*j));
  return std::optional<std::string>(j->get<std::string>());
}

Result<std::map<std::string, std::string>> GetStringMap(const Json& obj, std::string_view key,
                                                        std::string_view ctx) {
  std::map<std::string, std::string> out;
  const Json* j = Find(obj, key);
  if (!j || j->is_null()) return out;
  if (!j->is_object()) return Corrupt("{} must be an object, got {}", Where(ctx, key), KindName(*j));
  for (auto it = j->begin(); it != j->end(); ++it) {
    if (!it->is_string()) {
      return Corrupt("{}: value of '{}' must be a string, got {}", Where(ctx, key), it.key(),
                     KindName(*it));
    }
    out.emplace(it.key(), it->get<std::string>());
  }
  return out;
}

}  // namespace floe::iceberg::json_internal
