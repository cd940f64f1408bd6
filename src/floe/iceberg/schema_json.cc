#include "floe/iceberg/schema_json.h"

#include <cctype>

#include "floe/iceberg/json_internal.h"
#include "floe/iceberg/schema_json_internal.h"
#include "floe/util/nesting.h"
#include "floe/util/strings.h"

namespace floe::iceberg {

namespace ji = json_internal;

namespace {

Result<std::vector<NestedField>> FieldsFromJson(const Json& arr, const std::string& path,
                                                FieldDefaults* defaults, int depth);

std::string Join(const std::string& path, std::string_view name) {
  return path.empty() ? std::string(name) : path + "." + std::string(name);
}

// A long path shortened for a message: its start and its end.
std::string ShortPath(const std::string& path) {
  if (path.size() <= 120) return path;
  return path.substr(0, 50) + "..." + path.substr(path.size() - 50);
}

// `depth` counts nested types from the schema down; past kMaxTypeDepth the
// schema is refused before this recursion (and every later walk of the
// parsed Schema: validation, printing, projection, name mapping) can exhaust
// the stack.
Result<TypePtr> TypeAt(const Json& j, std::string path, FieldDefaults* defaults, int depth) {
  if (depth > kMaxTypeDepth) {
    return Corrupt("field '{}': types nested deeper than {} levels", ShortPath(path), kMaxTypeDepth);
  }
  if (j.is_string()) {
    const std::string& name = j.get_ref<const std::string&>();
    std::string lower = ToLower(name);
    if (lower == "unknown" || lower == "variant" || lower.starts_with("geometry") ||
        lower.starts_with("geography")) {
      return Unsupported("field '{}': type '{}' is not supported by floe", path, name);
    }
    auto t = ParsePrimitiveType(name);
    if (!t) return Corrupt("field '{}': {}", path, t.error().message);
    return t;
  }
  if (!j.is_object()) {
    return Corrupt("field '{}': a type must be a string or an object, got {}", path, ji::KindName(j));
  }
  FLOE_ASSIGN_OR_RETURN(std::string kind, ji::GetString(j, "type", "field '" + path + "'"));
  if (kind == "struct") {
    const Json* fields = ji::Find(j, "fields");
    if (!fields || !fields->is_array()) {
      return Corrupt("field '{}': struct type needs a 'fields' array", path);
    }
    FLOE_ASSIGN_OR_RETURN(auto children, FieldsFromJson(*fields, path, defaults, depth + 1));
    return StructType(std::move(children));
  }
  std::string where = "field '" + path + "'";
  if (kind == "list") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, ji::GetInt(j, "element-id", where));
    FLOE_ASSIGN_OR_RETURN(bool required, ji::GetBool(j, "element-required", where));
    const Json* element = ji::Find(j, "element");
    if (!element) return Corrupt("{}: list type needs 'element'", where);
    FLOE_ASSIGN_OR_RETURN(TypePtr et, TypeAt(*element, Join(path, "element"), defaults, depth + 1));
    return ListType(id, required, std::move(et));
  }
  if (kind == "map") {
    FLOE_ASSIGN_OR_RETURN(int32_t key_id, ji::GetInt(j, "key-id", where));
    FLOE_ASSIGN_OR_RETURN(int32_t value_id, ji::GetInt(j, "value-id", where));
    FLOE_ASSIGN_OR_RETURN(bool value_required, ji::GetBool(j, "value-required", where));
    const Json* key = ji::Find(j, "key");
    const Json* value = ji::Find(j, "value");
    if (!key || !value) return Corrupt("{}: map type needs 'key' and 'value'", where);
    FLOE_ASSIGN_OR_RETURN(TypePtr kt, TypeAt(*key, Join(path, "key"), defaults, depth + 1));
    FLOE_ASSIGN_OR_RETURN(TypePtr vt, TypeAt(*value, Join(path, "value"), defaults, depth + 1));
    return MapType(key_id, std::move(kt), value_id, value_required, std::move(vt));
  }
  return Corrupt("{}: unknown nested type '{}' (struct, list or map)", where, kind);
}

Result<std::vector<NestedField>> FieldsFromJson(const Json& arr, const std::string& path,
                                                FieldDefaults* defaults, int depth) {
  std::vector<NestedField> out;
  out.reserve(arr.size());
  for (size_t i = 0; i < arr.size(); ++i) {
    const Json& f = arr[i];
    std::string where = fmt::format("{}fields[{}]", path.empty() ? "" : path + ".", i);
    if (!f.is_object()) return Corrupt("schema {}: must be an object", where);
    NestedField field;
    FLOE_ASSIGN_OR_RETURN(field.name, ji::GetString(f, "name", "schema " + where));
    std::string full = Join(path, field.name);
    std::string fctx = "field '" + full + "'";
    FLOE_ASSIGN_OR_RETURN(field.id, ji::GetInt(f, "id", fctx));
    FLOE_ASSIGN_OR_RETURN(field.required, ji::GetBool(f, "required", fctx));
    FLOE_ASSIGN_OR_RETURN(std::optional<std::string> doc, ji::GetOptionalString(f, "doc", fctx));
    field.doc = doc.value_or("");
    const Json* type = ji::Find(f, "type");
    if (!type) return Corrupt("{}: 'type' is required but missing", fctx);
    FLOE_ASSIGN_OR_RETURN(field.type, TypeAt(*type, full, defaults, depth));
    const Json* initial = ji::Find(f, "initial-default");
    const Json* write = ji::Find(f, "write-default");
    // Defaults must be values of the field's type (Appendix D JSON); a struct's
    // default is null or an empty object (Iceberg spec: Default values).
    for (const auto& [key, d] : {std::pair{"initial-default", initial}, std::pair{"write-default", write}}) {
      if (!d) continue;
      if (field.type->id == TypeId::kStruct && !d->is_null() && !(d->is_object() && d->empty())) {
        return Corrupt("{}: '{}' of a struct must be null or {{}}", fctx, key);
      }
      ColumnVector probe(field.type);
      if (auto st = AppendJsonValue(&probe, *d, fctx + " " + key); !st) {
        return Corrupt("{}", st.error().message);
      }
    }
    if (defaults && (initial || write)) {
      FieldDefault d;
      if (initial) {
        FLOE_ASSIGN_OR_RETURN(std::string text, ji::Dump(*initial));
        d.initial_default = std::move(text);
      }
      if (write) {
        FLOE_ASSIGN_OR_RETURN(std::string text, ji::Dump(*write));
        d.write_default = std::move(text);
      }
      (*defaults)[field.id] = std::move(d);
    }
    out.push_back(std::move(field));
  }
  return out;
}

Json FieldsToJson(const std::vector<NestedField>& fields, const FieldDefaults* defaults);

}  // namespace

Result<TypePtr> TypeFromJsonValue(const Json& j, std::string_view ctx, FieldDefaults* defaults) {
  return TypeAt(j, std::string(ctx), defaults, 1);
}

Json TypeToJsonValue(const Type& type) { return TypeToJsonValue(type, nullptr); }

Json TypeToJsonValue(const Type& type, const FieldDefaults* defaults) {
  switch (type.id) {
    case TypeId::kStruct: {
      Json j = Json::object();
      j["type"] = "struct";
      j["fields"] = FieldsToJson(type.fields, defaults);
      return j;
    }
    case TypeId::kList: {
      Json j = Json::object();
      j["type"] = "list";
      j["element-id"] = type.element().id;
      j["element"] = TypeToJsonValue(*type.element().type, defaults);
      j["element-required"] = type.element().required;
      return j;
    }
    case TypeId::kMap: {
      Json j = Json::object();
      j["type"] = "map";
      j["key-id"] = type.key().id;
      j["key"] = TypeToJsonValue(*type.key().type, defaults);
      j["value-id"] = type.value().id;
      j["value"] = TypeToJsonValue(*type.value().type, defaults);
      j["value-required"] = type.value().required;
      return j;
    }
    case TypeId::kDecimal: return fmt::format("decimal({}, {})", type.precision, type.scale);
    default: return type.ToString();
  }
}

namespace {

Json FieldsToJson(const std::vector<NestedField>& fields, const FieldDefaults* defaults) {
  Json arr = Json::array();
  for (const auto& f : fields) {
    Json j = Json::object();
    j["id"] = f.id;
    j["name"] = f.name;
    j["required"] = f.required;
    j["type"] = TypeToJsonValue(*f.type, defaults);
    if (!f.doc.empty()) j["doc"] = f.doc;
    if (defaults) {
      auto it = defaults->find(f.id);
      if (it != defaults->end()) {
        // Raw text written back as parsed JSON; it was produced by Dump.
        if (it->second.initial_default) {
          j["initial-default"] = Json::parse(*it->second.initial_default, nullptr, false);
        }
        if (it->second.write_default) {
          j["write-default"] = Json::parse(*it->second.write_default, nullptr, false);
        }
      }
    }
    arr.push_back(std::move(j));
  }
  return arr;
}

}  // namespace

Result<Schema> SchemaFromJsonValue(const Json& j, FieldDefaults* defaults) {
  if (!j.is_object()) return Corrupt("schema must be a JSON object, got {}", ji::KindName(j));
  FLOE_ASSIGN_OR_RETURN(std::optional<int32_t> schema_id, ji::GetOptionalInt(j, "schema-id", "schema"));
  std::string ctx = fmt::format("schema {}", schema_id.value_or(0));
  FLOE_ASSIGN_OR_RETURN(std::string kind, ji::GetString(j, "type", ctx));
  if (kind != "struct") return Corrupt("{}: 'type' must be \"struct\", got \"{}\"", ctx, kind);
  const Json* fields = ji::Find(j, "fields");
  if (!fields || !fields->is_array()) return Corrupt("{}: 'fields' must be an array", ctx);
  FLOE_ASSIGN_OR_RETURN(auto parsed, FieldsFromJson(*fields, "", defaults, 1));
  std::vector<int32_t> identifiers;
  if (const Json* ids = ji::Find(j, "identifier-field-ids"); ids && !ids->is_null()) {
    if (!ids->is_array()) return Corrupt("{}: 'identifier-field-ids' must be an array", ctx);
    for (const auto& id : *ids) {
      FLOE_ASSIGN_OR_RETURN(int32_t v, ji::AsInt(id, ctx + ": identifier-field-ids"));
      identifiers.push_back(v);
    }
  }
  Schema schema(std::move(parsed), schema_id.value_or(0), std::move(identifiers));
  if (auto st = schema.Validate(); !st) {
    return Corrupt("{}: {}", ctx, st.error().message);
  }
  return schema;
}

Json SchemaToJsonValue(const Schema& schema, const FieldDefaults* defaults) {
  Json j = Json::object();
  j["type"] = "struct";
  j["schema-id"] = schema.schema_id();
  if (!schema.identifier_field_ids().empty()) j["identifier-field-ids"] = schema.identifier_field_ids();
  j["fields"] = FieldsToJson(schema.fields(), defaults);
  return j;
}

Result<Schema> SchemaFromJson(std::string_view json, FieldDefaults* defaults) {
  FLOE_ASSIGN_OR_RETURN(Json j, ji::Parse(json, "schema JSON"));
  return SchemaFromJsonValue(j, defaults);
}

Result<std::string> SchemaToJson(const Schema& schema, const FieldDefaults* defaults) {
  return ji::Dump(SchemaToJsonValue(schema, defaults));
}

Result<TypePtr> TypeFromJson(std::string_view json) {
  FLOE_ASSIGN_OR_RETURN(Json j, ji::Parse(json, "type JSON"));
  return TypeFromJsonValue(j, "<type>", nullptr);
}

std::string TypeToJson(const Type& type) {
  auto text = ji::Dump(TypeToJsonValue(type));
  return text ? *text : std::string();
}

}  // namespace floe::iceberg
