// Iceberg <-> Avro schema mapping (Iceberg spec: Appendix A; PITFALLS 39-45).
#include "floe/avro/iceberg_schema.h"

#include "floe/types/names.h"

#include <set>

namespace floe::avro {
namespace {


/// Decodes one UTF-8 code point; invalid bytes come out as themselves.


class ToAvro {
 public:
  Result<NodePtr> Record(const Type& type, std::string name) {
    if (type.id != TypeId::kStruct) return InvalidArgument("iceberg->avro: {} is not a struct", type.ToString());
    FLOE_RETURN_IF_ERROR(Claim(name));
    std::vector<Field> fields;
    for (const auto& f : type.fields) {
      FLOE_ASSIGN_OR_RETURN(Field field, MakeFieldFor(f));
      fields.push_back(std::move(field));
    }
    return MakeRecord(std::move(name), std::move(fields));
  }

 private:
  Status Claim(const std::string& name) {
    if (!used_.insert(name).second) return InvalidArgument("iceberg->avro: record name {} used twice", name);
    return Ok();
  }
  std::string Unique(std::string base, int32_t id) {
    std::string name = base;
    for (int k = 0; used_.contains(name); ++k) {
      name = k == 0 ? fmt::format("{}_{}", base, id) : fmt::format("{}_{}_{}", base, id, k);
    }
    used_.insert(name);
    return name;
  }

  Result<Field> MakeFieldFor(const NestedField& f) {
    if (!f.type) return InvalidArgument("iceberg->avro: field {} has no type", f.name);
    auto t = Convert(*f.type, f.id);
    if (!t) return Fail(std::move(t).error().WithContext(fmt::format("field {} (id {})", f.name, f.id)));
    std::string name = SanitizeName(f.name);
    Field field = MakeField(name, f.required ? *t : MakeOptional(*t), f.id);
    if (!f.required) field.default_json = "null";
    if (name != f.name) field.attributes.SetString("iceberg-field-name", f.name);
    field.doc = f.doc;
    return field;
  }

  Result<NodePtr> Convert(const Type& type, int32_t id) {
    switch (type.id) {
      case TypeId::kBoolean: return MakePrimitive(AvroType::kBoolean);
      case TypeId::kInt: return MakePrimitive(AvroType::kInt);
      case TypeId::kLong: return MakePrimitive(AvroType::kLong);
      case TypeId::kFloat: return MakePrimitive(AvroType::kFloat);
      case TypeId::kDouble: return MakePrimitive(AvroType::kDouble);
      case TypeId::kString: return MakePrimitive(AvroType::kString);
      case TypeId::kBinary: return MakePrimitive(AvroType::kBytes);
      case TypeId::kDate: {
        auto n = MakePrimitive(AvroType::kInt);
        n->logical_type = "date";
        return n;
      }
      case TypeId::kTime: {
        auto n = MakePrimitive(AvroType::kLong);
        n->logical_type = "time-micros";
        return n;
      }
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
      case TypeId::kTimestampNs:
      case TypeId::kTimestampTzNs: {
        auto n = MakePrimitive(AvroType::kLong);
        bool ns = IsNanosTimestamp(type.id);
        n->logical_type = ns ? "timestamp-nanos" : "timestamp-micros";
        n->attributes.SetBool("adjust-to-utc", IsZonedTimestamp(type.id));
        return n;
      }
      case TypeId::kUuid: {
        auto n = MakeFixed(Unique("uuid_fixed", id), 16);
        n->logical_type = "uuid";
        return n;
      }
      case TypeId::kFixed: {
        if (type.length < 0) return InvalidArgument("iceberg->avro: fixed[{}]", type.length);
        return MakeFixed(Unique(fmt::format("fixed_{}", type.length), id), type.length);
      }
      case TypeId::kDecimal: {
        if (type.precision < 1 || type.precision > 38 || type.scale < 0 || type.scale > type.precision) {
          return InvalidArgument("iceberg->avro: invalid {}", type.ToString());
        }
        auto n = MakeFixed(Unique(fmt::format("decimal_{}_{}", type.precision, type.scale), id),
                           DecimalRequiredBytes(type.precision));
        n->logical_type = "decimal";
        n->precision = type.precision;
        n->scale = type.scale;
        return n;
      }
      case TypeId::kStruct: return Record(type, fmt::format("r{}", id));
      case TypeId::kList: {
        if (type.fields.size() != 1) return InvalidArgument("iceberg->avro: list without an element");
        const NestedField& e = type.element();
        FLOE_ASSIGN_OR_RETURN(NodePtr items, Convert(*e.type, e.id));
        auto n = MakeArray(e.required ? items : MakeOptional(items));
        n->attributes.SetInt("element-id", e.id);
        return n;
      }
      case TypeId::kMap: {
        if (type.fields.size() != 2) return InvalidArgument("iceberg->avro: map without key and value");
        const NestedField& k = type.key();
        const NestedField& v = type.value();
        FLOE_ASSIGN_OR_RETURN(NodePtr value, Convert(*v.type, v.id));
        if (!v.required) value = MakeOptional(value);
        if (k.type->id == TypeId::kString) {
          auto n = MakeMap(value);
          n->attributes.SetInt("key-id", k.id);
          n->attributes.SetInt("value-id", v.id);
          return n;
        }
        // Iceberg spec App. A: maps with non-string keys are arrays of key/value records.
        FLOE_ASSIGN_OR_RETURN(NodePtr key, Convert(*k.type, k.id));
        Field kf = MakeField("key", key, k.id);
        Field vf = MakeField("value", value, v.id);
        if (!v.required) vf.default_json = "null";
        std::string name = fmt::format("k{}_v{}", k.id, v.id);
        FLOE_RETURN_IF_ERROR(Claim(name));
        auto n = MakeArray(MakeRecord(name, {std::move(kf), std::move(vf)}));
        n->logical_type = "map";
        return n;
      }
    }
    return InvalidArgument("iceberg->avro: unsupported type {}", type.ToString());
  }

  std::set<std::string> used_;
};

// A field's type with its optionality unwrapped.
struct Unwrapped {
  const Node* node = nullptr;
  bool optional = false;
};

Result<Unwrapped> Unwrap(const Node& n, const std::string& path) {
  if (n.type != AvroType::kUnion) return Unwrapped{&n, false};
  auto b = n.OptionalBranch();
  if (!b) {
    return Unsupported("avro->iceberg at {}: only [\"null\", T] unions map to Iceberg types ({} branches)", path,
                       n.branches.size());
  }
  return Unwrapped{n.branches[*b].get(), true};
}

Result<int32_t> RequiredId(const Attributes& attrs, std::string_view key, const std::string& path) {
  auto id = attrs.GetInt(key);
  if (!id) return InvalidArgument("avro->iceberg at {}: missing integer \"{}\"", path, key);
  if (*id < 0 || *id > INT32_MAX) return InvalidArgument("avro->iceberg at {}: {} {} out of range", path, key, *id);
  return static_cast<int32_t>(*id);
}

Result<TypePtr> FromAvro(const Node& n, const std::string& path, int depth);

Result<std::vector<NestedField>> FromRecord(const Node& n, const std::string& path, int depth) {
  std::vector<NestedField> fields;
  for (const auto& f : n.fields) {
    std::string fpath = path + "." + f.name;
    auto id = f.field_id();
    if (!id) return InvalidArgument("avro->iceberg at {}: field without an integer \"field-id\"", fpath);
    FLOE_ASSIGN_OR_RETURN(Unwrapped u, Unwrap(*f.type, fpath));
    FLOE_ASSIGN_OR_RETURN(TypePtr t, FromAvro(*u.node, fpath, depth + 1));
    NestedField nf;
    nf.id = *id;
    nf.name = f.attributes.GetString("iceberg-field-name").value_or(f.name);
    nf.required = !u.optional;
    nf.type = std::move(t);
    nf.doc = f.doc;
    fields.push_back(std::move(nf));
  }
  return fields;
}

Result<TypePtr> FromAvro(const Node& n, const std::string& path, int depth) {
  if (depth > 200) return InvalidArgument("avro->iceberg at {}: nested too deeply", path);
  const std::string& lt = n.logical_type;
  switch (n.type) {
    case AvroType::kBoolean: return BooleanType();
    case AvroType::kInt: return lt == "date" ? DateType() : IntType();
    case AvroType::kLong: {
      if (lt == "time-micros") return TimeType();
      if (lt == "timestamp-micros" || lt == "timestamp-nanos") {
        bool utc = n.attributes.GetBool("adjust-to-utc").value_or(false);
        if (lt == "timestamp-nanos") return Primitive(utc ? TypeId::kTimestampTzNs : TypeId::kTimestampNs);
        return utc ? TimestampTzType() : TimestampType();
      }
      return LongType();
    }
    case AvroType::kFloat: return FloatType();
    case AvroType::kDouble: return DoubleType();
    case AvroType::kString: return lt == "uuid" ? UuidType() : StringType();
    case AvroType::kEnum: return StringType();
    case AvroType::kBytes:
    case AvroType::kFixed:
      if (lt == "decimal") {
        // Iceberg decimals hold at most 38 digits; a fixed must be wide enough for them.
        if (n.precision < 1 || n.precision > 38 || n.scale < 0 || n.scale > n.precision ||
            (n.type == AvroType::kFixed && n.size < DecimalRequiredBytes(n.precision))) {
          return InvalidArgument("avro->iceberg at {}: decimal({}, {}) in {} is not an Iceberg decimal", path,
                                 n.precision, n.scale, AvroTypeName(n.type));
        }
        return DecimalType(n.precision, n.scale);
      }
      if (n.type == AvroType::kBytes) return BinaryType();
      if (lt == "uuid" && n.size == 16) return UuidType();
      return FixedType(n.size);
    case AvroType::kRecord: {
      FLOE_ASSIGN_OR_RETURN(auto fields, FromRecord(n, path, depth));
      return StructType(std::move(fields));
    }
    case AvroType::kArray: {
      const Node& items = *n.items;
      if (lt == "map" && items.type == AvroType::kRecord && items.fields.size() == 2 &&
          items.fields[0].name == "key" && items.fields[1].name == "value") {
        auto kid = items.fields[0].field_id();
        auto vid = items.fields[1].field_id();
        if (!kid || !vid) return InvalidArgument("avro->iceberg at {}: map record without key/value field ids", path);
        FLOE_ASSIGN_OR_RETURN(Unwrapped k, Unwrap(*items.fields[0].type, path + ".key"));
        FLOE_ASSIGN_OR_RETURN(Unwrapped v, Unwrap(*items.fields[1].type, path + ".value"));
        if (k.optional) return InvalidArgument("avro->iceberg at {}: map keys cannot be optional", path);
        FLOE_ASSIGN_OR_RETURN(TypePtr kt, FromAvro(*k.node, path + ".key", depth + 1));
        FLOE_ASSIGN_OR_RETURN(TypePtr vt, FromAvro(*v.node, path + ".value", depth + 1));
        return MapType(*kid, kt, *vid, !v.optional, vt);
      }
      FLOE_ASSIGN_OR_RETURN(int32_t eid, RequiredId(n.attributes, "element-id", path));
      FLOE_ASSIGN_OR_RETURN(Unwrapped e, Unwrap(items, path + ".element"));
      FLOE_ASSIGN_OR_RETURN(TypePtr et, FromAvro(*e.node, path + ".element", depth + 1));
      return ListType(eid, !e.optional, et);
    }
    case AvroType::kMap: {
      FLOE_ASSIGN_OR_RETURN(int32_t kid, RequiredId(n.attributes, "key-id", path));
      FLOE_ASSIGN_OR_RETURN(int32_t vid, RequiredId(n.attributes, "value-id", path));
      FLOE_ASSIGN_OR_RETURN(Unwrapped v, Unwrap(*n.items, path + ".value"));
      FLOE_ASSIGN_OR_RETURN(TypePtr vt, FromAvro(*v.node, path + ".value", depth + 1));
      return MapType(kid, StringType(), vid, !v.optional, vt);
    }
    case AvroType::kUnion: return Unsupported("avro->iceberg at {}: nested union", path);
    case AvroType::kNull: return Unsupported("avro->iceberg at {}: a null type has no Iceberg type", path);
  }
  return Unsupported("avro->iceberg at {}: unknown type", path);
}

}  // namespace


Result<AvroSchema> StructToAvroSchema(const Type& struct_type, std::string_view record_name) {
  if (!IsValidName(record_name)) return InvalidArgument("iceberg->avro: invalid record name \"{}\"", record_name);
  ToAvro conv;
  FLOE_ASSIGN_OR_RETURN(NodePtr root, conv.Record(struct_type, std::string(record_name)));
  AvroSchema schema(std::move(root));
  FLOE_RETURN_IF_ERROR(schema.Validate());
  return schema;
}

Result<AvroSchema> ToAvroSchema(const Schema& schema, std::string_view record_name) {
  return StructToAvroSchema(*schema.AsStruct(), record_name);
}

Result<Schema> FromAvroSchema(const AvroSchema& schema, int32_t schema_id) {
  if (!schema.root() || schema.root()->type != AvroType::kRecord) {
    return InvalidArgument("avro->iceberg: the schema is not a record");
  }
  FLOE_ASSIGN_OR_RETURN(auto fields, FromRecord(*schema.root(), "$", 0));
  return Schema(std::move(fields), schema_id);
}

Result<TypePtr> FromAvroType(const Node& node) { return FromAvro(node, "$", 0); }

}  // namespace floe::avro
