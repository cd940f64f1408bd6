#include "floe/iceberg/partition_spec.h"

#include <set>

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
