#include "floe/iceberg/partition_spec.h"

#include <iterator>
#include <set>

#include "floe/iceberg/temporal.h"

#include "floe/iceberg/spec_json_internal.h"

namespace floe::iceberg {

namespace ji = json_internal;

namespace {

void Walk(const std::vector<NestedField>& fields, const std::string& path, bool in_collection,
          std::map<int32_t, IndexedField>* out) {
  for (const auto& f : fields) {
    std::string p = path.empty() ? f.name : path + "." + f.name;
    (*out)[f.id] = IndexedField{&f, p, in_collection};
    if (f.type && f.type->is_nested()) {
      Walk(f.type->fields, p, in_collection || f.type->id != TypeId::kStruct, out);
    }
  }
}

}  // namespace

std::map<int32_t, IndexedField> IndexFields(const Schema& schema) {
  std::map<int32_t, IndexedField> out;
  Walk(schema.fields(), "", false, &out);
  return out;
}

bool PartitionSpec::is_unpartitioned() const {
  for (const auto& f : fields_) {
    if (f.transform.kind() != TransformKind::kVoid) return false;
  }
  return true;
}

int32_t PartitionSpec::LastAssignedFieldId() const {
  int32_t last = kUnpartitionedLastPartitionId;
  for (const auto& f : fields_) last = std::max(last, f.field_id);
  return last;
}

Result<TypePtr> PartitionSpec::PartitionType(const Schema& schema) const {
  std::vector<NestedField> out;
  for (const auto& f : fields_) {
    const NestedField* source = schema.FindField(f.source_id);
    if (!source) {
      return InvalidArgument("partition spec {}: field '{}' has source id {} which is not in schema {}",
                             spec_id_, f.name, f.source_id, schema.schema_id());
    }
    auto type = f.transform.ResultType(source->type);
    if (!type) {
      return Fail(std::move(type).error().WithContext(
          fmt::format("partition spec {}: field '{}'", spec_id_, f.name)));
    }
    out.push_back(NestedField{f.field_id, f.name, false, *type, {}});
  }
  return StructType(std::move(out));
}

Status PartitionSpec::Validate(const Schema& schema) const {
  auto index = IndexFields(schema);
  std::set<std::string> names;
  std::set<int32_t> ids;
  std::set<std::pair<int32_t, std::string>> source_transforms;
  std::set<int32_t> time_sources;
  for (const auto& f : fields_) {
    std::string ctx = fmt::format("partition spec {}: field '{}'", spec_id_, f.name);
    if (f.name.empty()) return InvalidArgument("partition spec {}: a field has an empty name", spec_id_);
    if (!names.insert(f.name).second) return InvalidArgument("{}: the name is used twice", ctx);
    if (!ids.insert(f.field_id).second) {
      return InvalidArgument("{}: partition field id {} is used twice", ctx, f.field_id);
    }
    if (f.field_id < kFirstPartitionFieldId) {
      return InvalidArgument("{}: partition field id {} is below {}", ctx, f.field_id,
                             kFirstPartitionFieldId);
    }
    if (f.transform.is_unknown()) {
      return Unsupported("{}: transform '{}' is unknown: cannot write with this spec", ctx,
                         f.transform.ToString());
    }
    auto it = index.find(f.source_id);
    if (it == index.end()) {
      return InvalidArgument("{}: source id {} is not in the schema", ctx, f.source_id);
    }
    const IndexedField& source = it->second;
    if (source.field->type->is_nested()) {
      return InvalidArgument("{}: source column '{}' is {}, not a primitive type", ctx, source.path,
                             source.field->type->ToString());
    }
    if (source.in_collection) {
      return InvalidArgument("{}: source column '{}' is inside a list or map", ctx, source.path);
    }
    if (!f.transform.CanTransform(*source.field->type)) {
      return InvalidArgument("{}: transform {} cannot be applied to column '{}' of type {}", ctx,
                             f.transform.ToString(), source.path, source.field->type->ToString());
    }
    // A partition name may only equal a column name for identity of that column.
    for (const auto& [id, other] : index) {
      if (other.path == f.name &&
          !(f.transform.kind() == TransformKind::kIdentity && id == f.source_id)) {
        return InvalidArgument(
            "{}: the name clashes with schema column '{}' (allowed only for identity of that column)",
            ctx, other.path);
      }
    }
    if (f.transform.kind() != TransformKind::kVoid &&
        !source_transforms.insert({f.source_id, f.transform.ToString()}).second) {
      return InvalidArgument("{}: column '{}' already has a {} partition", ctx, source.path,
                             f.transform.ToString());
    }
    if (f.transform.is_time() && !time_sources.insert(f.source_id).second) {
      return InvalidArgument("{}: column '{}' already has a time partition (year/month/day/hour)",
                             ctx, source.path);
    }
  }
  return Ok();
}

bool PartitionSpec::CompatibleWith(const PartitionSpec& other) const {
  if (fields_.size() != other.fields_.size()) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    const auto& a = fields_[i];
    const auto& b = other.fields_[i];
    if (a.source_id != b.source_id || !(a.transform == b.transform) || a.name != b.name) return false;
  }
  return true;
}

PartitionSpecBuilder::PartitionSpecBuilder(const Schema& schema, int32_t last_partition_id)
    : schema_(schema), next_id_(last_partition_id + 1) {}

PartitionSpecBuilder& PartitionSpecBuilder::Add(std::string_view source_name,
                                                const Transform& transform, std::string_view name) {
  if (error_) return *this;
  const IndexedField* found = nullptr;
  auto index = IndexFields(schema_);
  for (const auto& [id, f] : index) {
    if (f.path == source_name) {
      found = &f;
      break;
    }
  }
  if (!found) {
    error_ = InvalidArgument("partition: column '{}' is not in the schema", source_name).error();
    return *this;
  }
  PartitionField field;
  field.source_id = found->field->id;
  field.field_id = next_id_++;
  field.transform = transform;
  field.name = name.empty() ? transform.DefaultPartitionName(source_name) : std::string(name);
  fields_.push_back(std::move(field));
  return *this;
}

Result<PartitionSpec> PartitionSpecBuilder::Build(int32_t spec_id) const {
  if (error_) return Fail(*error_);
  PartitionSpec spec(spec_id, fields_);
  FLOE_RETURN_IF_ERROR(spec.Validate(schema_));
  return spec;
}

namespace {

// Indices from the top-level struct down to the field with `id`, through
// structs only.
bool FindStructPath(const std::vector<NestedField>& fields, int32_t id, std::vector<size_t>* path) {
  for (size_t i = 0; i < fields.size(); ++i) {
    path->push_back(i);
    if (fields[i].id == id) return true;
    if (fields[i].type->id == TypeId::kStruct && FindStructPath(fields[i].type->fields, id, path)) {
      return true;
    }
    path->pop_back();
  }
  return false;
}

}  // namespace

Result<std::vector<ColumnVector>> PartitionColumns(const PartitionSpec& spec, const Batch& batch) {
  if (!batch.schema) return InvalidArgument("partition spec {}: the batch has no schema", spec.spec_id());
  std::vector<ColumnVector> out;
  out.reserve(spec.fields().size());
  for (const auto& f : spec.fields()) {
    std::vector<size_t> path;
    if (!FindStructPath(batch.schema->fields(), f.source_id, &path)) {
      return InvalidArgument(
          "partition field '{}': source id {} is not a column of the batch (or is inside a list or map)",
          f.name, f.source_id);
    }
    if (path[0] >= batch.columns.size()) {
      return InvalidArgument("partition field '{}': the batch has no column {}", f.name, path[0]);
    }
    // Walk down, AND-ing the validity of enclosing structs.
    const ColumnVector* column = &batch.columns[path[0]];
    std::vector<uint8_t> parents;
    for (size_t depth = 1; depth < path.size(); ++depth) {
      if (column->has_nulls()) {
        if (parents.empty()) {
          parents = column->validity;
        } else {
          for (size_t i = 0; i < parents.size(); ++i) parents[i] &= column->validity[i];
        }
      }
      column = &column->children[path[depth]];
    }
    Result<ColumnVector> applied;
    if (parents.empty()) {
      applied = f.transform.Apply(*column);
    } else {
      ColumnVector masked = *column;
      if (masked.validity.empty()) {
        masked.validity = std::move(parents);
      } else {
        for (size_t i = 0; i < parents.size(); ++i) masked.validity[i] &= parents[i];
      }
      applied = f.transform.Apply(masked);
    }
    if (!applied) return Fail(std::move(applied).error().WithContext("partition field '" + f.name + "'"));
    out.push_back(std::move(*applied));
  }
  return out;
}

Values PartitionTupleAt(const std::vector<ColumnVector>& columns, int64_t row) {
  Values out;
  out.reserve(columns.size());
  for (const auto& c : columns) out.push_back(ValueAt(c, row));
  return out;
}

namespace {

// java.time's LocalDateTime.toString (and Instant's, with 'Z').
std::string JavaTimestamp(int64_t value, int64_t per_second, bool zone) {
  int64_t per_day = per_second * 86400;
  int64_t days = FloorDiv(value, per_day);
  int64_t nanos = FloorMod(value, per_day) * (1'000'000'000 / per_second);
  return FormatDate(static_cast<int32_t>(days)) + "T" + civil::FormatJavaLocalTime(nanos) +
         (zone ? "Z" : "");
}

std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16 | static_cast<uint8_t>(bytes[i + 1]) << 8 |
                 static_cast<uint8_t>(bytes[i + 2]);
    for (int k = 18; k >= 0; k -= 6) out.push_back(kAlphabet[(n >> k) & 63]);
  }
  if (i < bytes.size()) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

// BigDecimal.toString: plain unless the adjusted exponent is below -6.
std::string JavaDecimal(int128_t unscaled, int32_t scale) {
  std::string plain = DecimalToString(unscaled, scale);
  std::string digits = DecimalToString(unscaled < 0 ? -unscaled : unscaled, 0);
  int64_t adjusted = static_cast<int64_t>(digits.size()) - 1 - scale;
  if (scale <= 0 || adjusted >= -6) return plain;
  std::string mantissa = digits.substr(0, 1);
  if (digits.size() > 1) mantissa += "." + digits.substr(1);
  return fmt::format("{}{}E{}", unscaled < 0 ? "-" : "", mantissa, adjusted);
}

// java.net.URLEncoder.encode(s, UTF_8).
std::string UrlEncode(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
        c == '-' || c == '*' || c == '_') {
      out.push_back(static_cast<char>(c));
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      fmt::format_to(std::back_inserter(out), "%{:02X}", c);
    }
  }
  return out;
}

}  // namespace

std::string PartitionHumanString(const Transform& transform, const Type& type, const Value& value) {
  if (value.is_null() || !value.Matches(type)) return "null";
  switch (transform.kind()) {
    case TransformKind::kYear:
      return fmt::format("{:04}", 1970 + static_cast<int64_t>(value.as_int()));
    case TransformKind::kMonth: {
      int64_t months = value.as_int();
      return fmt::format("{:04}-{:02}", 1970 + FloorDiv(months, 12), FloorMod(months, 12) + 1);
    }
    case TransformKind::kDay: return FormatDate(value.as_int());
    case TransformKind::kHour: {
      int64_t hours = value.as_int();
      return fmt::format("{}-{:02}", FormatDate(static_cast<int32_t>(FloorDiv(hours, 24))),
                         FloorMod(hours, 24));
    }
    default: break;
  }
  switch (type.id) {
    case TypeId::kBoolean: return value.as_bool() ? "true" : "false";
    case TypeId::kInt: return std::to_string(value.as_int());
    case TypeId::kDate: return FormatDate(value.as_int());
    case TypeId::kTime: return civil::FormatJavaLocalTime(value.as_long() * 1000);
    case TypeId::kTimestamp: return JavaTimestamp(value.as_long(), 1'000'000, false);
    case TypeId::kTimestampTz: return JavaTimestamp(value.as_long(), 1'000'000, true);
    case TypeId::kTimestampNs: return JavaTimestamp(value.as_long(), 1'000'000'000, false);
    case TypeId::kTimestampTzNs: return JavaTimestamp(value.as_long(), 1'000'000'000, true);
    case TypeId::kDecimal: return JavaDecimal(value.as_decimal(), type.scale);
    case TypeId::kString: return value.as_bytes();
    case TypeId::kUuid: return FormatUuid(value.as_bytes());
    case TypeId::kFixed:
    case TypeId::kBinary: return Base64(value.as_bytes());
    case TypeId::kFloat:
    case TypeId::kDouble: return ValueToString(type, value);
    default: return std::to_string(value.as_long());
  }
}

Result<std::string> PartitionPath(const PartitionSpec& spec, const Type& partition_type,
                                  const Values& partition) {
  if (partition.size() != spec.fields().size() || partition_type.fields.size() != partition.size()) {
    return InvalidArgument("partition spec {}: {} values for {} fields", spec.spec_id(),
                           partition.size(), spec.fields().size());
  }
  std::string out;
  for (size_t i = 0; i < partition.size(); ++i) {
    const auto& f = spec.fields()[i];
    if (!partition[i].Matches(*partition_type.fields[i].type)) {
      return InvalidArgument("partition field '{}': value does not have the form of {}", f.name,
                             partition_type.fields[i].type->ToString());
    }
    if (i) out.push_back('/');
    out += UrlEncode(f.name) + "=" +
           UrlEncode(PartitionHumanString(f.transform, *partition_type.fields[i].type, partition[i]));
  }
  return out;
}

Json PartitionFieldsToJsonValue(const PartitionSpec& spec) {
  Json arr = Json::array();
  for (const auto& f : spec.fields()) {
    Json j = Json::object();
    j["name"] = f.name;
    j["transform"] = f.transform.ToString();
    j["source-id"] = f.source_id;
    j["field-id"] = f.field_id;
    arr.push_back(std::move(j));
  }
  return arr;
}

Json PartitionSpecToJsonValue(const PartitionSpec& spec) {
  Json j = Json::object();
  j["spec-id"] = spec.spec_id();
  j["fields"] = PartitionFieldsToJsonValue(spec);
  return j;
}

Result<PartitionSpec> PartitionFieldsFromJsonValue(const Json& arr, int32_t spec_id,
                                                   std::string_view ctx) {
  if (!arr.is_array()) return Corrupt("{}: partition fields must be an array", ctx);
  std::vector<PartitionField> fields;
  int32_t next_id = kFirstPartitionFieldId;
  for (size_t i = 0; i < arr.size(); ++i) {
    const Json& f = arr[i];
    std::string where = fmt::format("{}: fields[{}]", ctx, i);
    if (!f.is_object()) return Corrupt("{} must be an object", where);
    PartitionField field;
    FLOE_ASSIGN_OR_RETURN(field.name, ji::GetString(f, "name", where));
    where = fmt::format("{}: field '{}'", ctx, field.name);
    if (ji::Find(f, "source-id")) {
      FLOE_ASSIGN_OR_RETURN(field.source_id, ji::GetInt(f, "source-id", where));
    } else if (ji::Find(f, "source-ids")) {
      return Unsupported("{}: multi-argument transforms ('source-ids') are not supported", where);
    } else {
      return Corrupt("{}: 'source-id' is required but missing", where);
    }
    FLOE_ASSIGN_OR_RETURN(std::optional<int32_t> id, ji::GetOptionalInt(f, "field-id", where));
    field.field_id = id.value_or(next_id);
    next_id = field.field_id + 1;
    FLOE_ASSIGN_OR_RETURN(std::string transform, ji::GetString(f, "transform", where));
    auto t = Transform::Parse(transform, /*allow_unknown=*/true);
    if (!t) return Corrupt("{}: {}", where, t.error().message);
    field.transform = *t;
    fields.push_back(std::move(field));
  }
  return PartitionSpec(spec_id, std::move(fields));
}

Result<PartitionSpec> PartitionSpecFromJsonValue(const Json& j) {
  if (!j.is_object()) return Corrupt("partition spec must be an object, got {}", ji::KindName(j));
  FLOE_ASSIGN_OR_RETURN(int32_t spec_id, ji::GetInt(j, "spec-id", "partition spec"));
  const Json* fields = ji::Find(j, "fields");
  if (!fields) return Corrupt("partition spec {}: 'fields' is required but missing", spec_id);
  return PartitionFieldsFromJsonValue(*fields, spec_id, fmt::format("partition spec {}", spec_id));
}

Result<std::string> PartitionSpecToJson(const PartitionSpec& spec) {
  return ji::Dump(PartitionSpecToJsonValue(spec));
}

Result<PartitionSpec> PartitionSpecFromJson(std::string_view json) {
  FLOE_ASSIGN_OR_RETURN(Json j, ji::Parse(json, "partition spec JSON"));
  return PartitionSpecFromJsonValue(j);
}

Result<std::string> PartitionFieldsToJson(const PartitionSpec& spec) {
  return ji::Dump(PartitionFieldsToJsonValue(spec));
}

Result<PartitionSpec> PartitionFieldsFromJson(std::string_view json, int32_t spec_id) {
  FLOE_ASSIGN_OR_RETURN(Json j, ji::Parse(json, "partition fields JSON"));
  return PartitionFieldsFromJsonValue(j, spec_id, fmt::format("partition spec {}", spec_id));
}

}  // namespace floe::iceberg
