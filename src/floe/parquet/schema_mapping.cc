// Iceberg -> Parquet schema mapping, the shared leaf annotation table and its reverse.
#include "floe/parquet/schema_mapping.h"

#include <fmt/format.h>

#include "floe/parquet/schema_mapping_internal.h"

namespace floe::parquet {

std::string LeafColumn::DottedPath() const {
  std::string out;
  for (const auto& p : path) {
    if (!out.empty()) out += '.';
    out += p;
  }
  return out;
}

std::string SanitizeName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    if (alpha || (digit && i > 0)) {
      out += static_cast<char>(c);
    } else if (digit) {
      out += '_';
      out += static_cast<char>(c);
    } else {
      out += fmt::format("_x{:X}", c);
    }
  }
  return out;
}

PhysicalType PhysicalTypeFor(const Type& type) {
  switch (type.id) {
    case TypeId::kBoolean: return PhysicalType::kBoolean;
    case TypeId::kInt:
    case TypeId::kDate: return PhysicalType::kInt32;
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: return PhysicalType::kInt64;
    case TypeId::kFloat: return PhysicalType::kFloat;
    case TypeId::kDouble: return PhysicalType::kDouble;
    case TypeId::kDecimal:
      if (type.precision <= 9) return PhysicalType::kInt32;
      if (type.precision <= 18) return PhysicalType::kInt64;
      return PhysicalType::kFixedLenByteArray;
    case TypeId::kString:
    case TypeId::kBinary: return PhysicalType::kByteArray;
    case TypeId::kUuid:
    case TypeId::kFixed: return PhysicalType::kFixedLenByteArray;
    default: return PhysicalType::kByteArray;
  }
}

LeafAnnotation AnnotationFor(const Type& t) {
  using K = LeafAnnotation::Kind;
  LeafAnnotation a;
  switch (t.id) {
    case TypeId::kString: a.kind = K::kString; break;
    case TypeId::kDate: a.kind = K::kDate; break;
    case TypeId::kTime: a.kind = K::kTime; break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      a.kind = K::kTimestamp;
      a.utc = t.id == TypeId::kTimestampTz || t.id == TypeId::kTimestampTzNs;
      a.unit = t.id == TypeId::kTimestampNs || t.id == TypeId::kTimestampTzNs
                   ? LeafAnnotation::Unit::kNanos
                   : LeafAnnotation::Unit::kMicros;
      break;
    case TypeId::kDecimal:
      a.kind = K::kDecimal;
      a.precision = t.precision;
      a.scale = t.scale;
      break;
    case TypeId::kUuid: a.kind = K::kUuid; break;
    default: break;
  }
  return a;
}

Result<TypePtr> IcebergTypeFor(PhysicalType p, int32_t len, const LeafAnnotation& a) {
  using K = LeafAnnotation::Kind;
  using U = LeafAnnotation::Unit;
  auto unsupported = [&]() -> Result<TypePtr> {
    return Unsupported("Parquet physical type {} with annotation {} has no Iceberg type",
                       static_cast<int>(p), static_cast<int>(a.kind));
  };
  if (a.kind == K::kDecimal) {
    if (a.precision < 1 || a.precision > 38 || a.scale < 0 || a.scale > a.precision) {
      return Unsupported("Parquet DECIMAL({}, {}) has no Iceberg type", a.precision, a.scale);
    }
    if (p == PhysicalType::kInt32 || p == PhysicalType::kInt64 || p == PhysicalType::kByteArray ||
        p == PhysicalType::kFixedLenByteArray) {
      return DecimalType(a.precision, a.scale);
    }
    return unsupported();
  }
  switch (p) {
    case PhysicalType::kBoolean: return a.kind == K::kNone ? BooleanType() : unsupported();
    case PhysicalType::kInt32:
      if (a.kind == K::kNone) return IntType();
      if (a.kind == K::kDate) return DateType();
      if (a.kind == K::kInteger) {
        if (a.is_signed || a.bit_width < 32) return IntType();
        return LongType();
      }
      return unsupported();
    case PhysicalType::kInt64:
      if (a.kind == K::kNone) return LongType();
      if (a.kind == K::kInteger && a.is_signed) return LongType();
      if (a.kind == K::kTime && a.unit == U::kMicros) return TimeType();
      if (a.kind == K::kTimestamp) {
        if (a.unit == U::kNanos) {
          return Primitive(a.utc ? TypeId::kTimestampTzNs : TypeId::kTimestampNs);
        }
        return a.utc ? TimestampTzType() : TimestampType();
      }
      return unsupported();
    case PhysicalType::kInt96: return TimestampType();
    case PhysicalType::kFloat: return a.kind == K::kNone ? FloatType() : unsupported();
    case PhysicalType::kDouble: return a.kind == K::kNone ? DoubleType() : unsupported();
    case PhysicalType::kByteArray:
      if (a.kind == K::kString || a.kind == K::kEnum || a.kind == K::kJson) return StringType();
      if (a.kind == K::kNone) return BinaryType();
      return unsupported();
    case PhysicalType::kFixedLenByteArray:
      if (a.kind == K::kUuid && len == 16) return UuidType();
      if (a.kind == K::kNone && len > 0) return FixedType(len);
      return unsupported();
  }
  return unsupported();
}

namespace {

class Mapper {
 public:
  Result<ParquetSchema> Run(const Schema& schema) {
    SchemaNode root;
    root.name = "schema";
    root.role = NodeRole::kRoot;
    root.num_children = schema.num_fields();
    out_.nodes.push_back(std::move(root));
    for (int i = 0; i < schema.num_fields(); ++i) {
      top_ = i;
      FLOE_RETURN_IF_ERROR(AddField(schema.fields()[i], 0, 0));
    }
    return std::move(out_);
  }

 private:
  // Adds the node of `field` and its subtree. `step_child` is the child index the
  // parent step descends through to reach this field.
  Status AddField(const NestedField& field, int16_t def, int16_t rep, int step_child = 0) {
    if (!field.type) return InvalidArgument("field '{}' (id {}) has no type", field.name, field.id);
    const Type& t = *field.type;
    SchemaNode node;
    node.name = SanitizeName(field.name);
    node.role = NodeRole::kField;
    node.repetition = field.required ? Repetition::kRequired : Repetition::kOptional;
    node.field_id = field.id;
    node.type = field.type;
    if (!field.required) ++def;
    path_.push_back(node.name);
    iceberg_path_.push_back(field.name);
    PathStep step;
    step.optional = !field.required;
    // The parent's step remembers which child leads here.
    if (!steps_.empty()) steps_.back().child = step_child;

    if (t.id == TypeId::kStruct) {
      node.num_children = static_cast<int32_t>(t.fields.size());
      if (t.fields.empty()) {
        return InvalidArgument("struct field '{}' (id {}) has no fields: Parquet needs at least one",
                               field.name, field.id);
      }
      out_.nodes.push_back(std::move(node));
      step.kind = PathStep::Kind::kStruct;
      steps_.push_back(step);
      for (size_t i = 0; i < t.fields.size(); ++i) {
        FLOE_RETURN_IF_ERROR(AddField(t.fields[i], def, rep, static_cast<int>(i)));
      }
      steps_.pop_back();
    } else if (t.id == TypeId::kList || t.id == TypeId::kMap) {
      bool is_list = t.id == TypeId::kList;
      node.num_children = 1;
      out_.nodes.push_back(std::move(node));
      SchemaNode wrapper;
      wrapper.name = is_list ? "list" : "key_value";
      wrapper.role = is_list ? NodeRole::kListWrapper : NodeRole::kKeyValueWrapper;
      wrapper.repetition = Repetition::kRepeated;
      wrapper.num_children = is_list ? 1 : 2;
      out_.nodes.push_back(std::move(wrapper));
      path_.push_back(is_list ? "list" : "key_value");
      ++def;
      ++rep;
      step.kind = is_list ? PathStep::Kind::kList : PathStep::Kind::kMap;
      step.rep_level = rep;
      steps_.push_back(step);
      if (is_list) {
        NestedField elem = t.element();
        elem.name = "element";
        FLOE_RETURN_IF_ERROR(AddField(elem, def, rep, 0));
      } else {
        NestedField key = t.key();
        key.name = "key";
        key.required = true;
        NestedField value = t.value();
        value.name = "value";
        FLOE_RETURN_IF_ERROR(AddField(key, def, rep, 0));
        FLOE_RETURN_IF_ERROR(AddField(value, def, rep, 1));
      }
      steps_.pop_back();
      path_.pop_back();
    } else {
      if (t.id == TypeId::kDecimal && (t.precision < 1 || t.precision > 38 || t.scale < 0 ||
                                       t.scale > t.precision)) {
        return InvalidArgument("field '{}' (id {}): {} cannot be written to Parquet", field.name,
                               field.id, t.ToString());
      }
      if (t.id == TypeId::kFixed && t.length <= 0) {
        return InvalidArgument("field '{}' (id {}): fixed length must be positive", field.name,
                               field.id);
      }
      node.physical = PhysicalTypeFor(t);
      if (node.physical == PhysicalType::kFixedLenByteArray) {
        node.type_length = t.id == TypeId::kUuid    ? 16
                           : t.id == TypeId::kFixed ? t.length
                                                    : DecimalRequiredBytes(t.precision);
      }
      LeafColumn leaf;
      leaf.path = path_;
      leaf.iceberg_path = iceberg_path_;
      leaf.field_id = field.id;
      leaf.type = field.type;
      leaf.physical = node.physical;
      leaf.type_length = node.type_length;
      leaf.max_def = def;
      leaf.max_rep = rep;
      leaf.top_level_index = top_;
      leaf.node_index = static_cast<int>(out_.nodes.size());
      leaf.steps = steps_;
      step.kind = PathStep::Kind::kPrimitive;
      leaf.steps.push_back(step);
      out_.nodes.push_back(std::move(node));
      out_.leaves.push_back(std::move(leaf));
    }
    path_.pop_back();
    iceberg_path_.pop_back();
    return Ok();
  }

  ParquetSchema out_;
  std::vector<std::string> path_;
  std::vector<std::string> iceberg_path_;
  std::vector<PathStep> steps_;
  int top_ = 0;
};

format::TimeUnit Unit(bool nanos) {
  format::TimeUnit u;
  if (nanos) {
    u.__set_NANOS(format::NanoSeconds());
  } else {
    u.__set_MICROS(format::MicroSeconds());
  }
  return u;
}

// Sets LogicalType and, where one exists, ConvertedType (PITFALLS 6-9).
void Annotate(const Type& t, format::SchemaElement* e) {
  using K = LeafAnnotation::Kind;
  format::LogicalType lt;
  if (t.id == TypeId::kList) {
    lt.__set_LIST(format::ListType());
    e->__set_converted_type(format::ConvertedType::LIST);
    e->__set_logicalType(lt);
    return;
  }
  if (t.id == TypeId::kMap) {
    lt.__set_MAP(format::MapType());
    e->__set_converted_type(format::ConvertedType::MAP);
    e->__set_logicalType(lt);
    return;
  }
  const LeafAnnotation a = AnnotationFor(t);
  const bool nanos = a.unit == LeafAnnotation::Unit::kNanos;
  switch (a.kind) {
    case K::kString:
      lt.__set_STRING(format::StringType());
      e->__set_converted_type(format::ConvertedType::UTF8);
      break;
    case K::kDate:
      lt.__set_DATE(format::DateType());
      e->__set_converted_type(format::ConvertedType::DATE);
      break;
    case K::kTime: {
      format::TimeType tt;
      tt.__set_isAdjustedToUTC(a.utc);
      tt.__set_unit(Unit(nanos));
      lt.__set_TIME(tt);
      e->__set_converted_type(format::ConvertedType::TIME_MICROS);
      break;
    }
    case K::kTimestamp: {
      format::TimestampType tt;
      tt.__set_isAdjustedToUTC(a.utc);
      tt.__set_unit(Unit(nanos));
      lt.__set_TIMESTAMP(tt);
      if (!nanos) e->__set_converted_type(format::ConvertedType::TIMESTAMP_MICROS);
      break;
    }
    case K::kDecimal: {
      format::DecimalType dt;
      dt.__set_precision(a.precision);
      dt.__set_scale(a.scale);
      lt.__set_DECIMAL(dt);
      e->__set_converted_type(format::ConvertedType::DECIMAL);
      e->__set_precision(a.precision);
      e->__set_scale(a.scale);
      break;
    }
    case K::kUuid: lt.__set_UUID(format::UUIDType()); break;
    default: return;
  }
  e->__set_logicalType(lt);
}

}  // namespace

Result<ParquetSchema> MapSchema(const Schema& schema) { return Mapper().Run(schema); }

std::vector<format::SchemaElement> ToSchemaElements(const ParquetSchema& schema) {
  std::vector<format::SchemaElement> out;
  out.reserve(schema.nodes.size());
  for (const SchemaNode& n : schema.nodes) {
    format::SchemaElement e;
    e.__set_name(n.name);
    if (n.role != NodeRole::kRoot) {
      e.__set_repetition_type(static_cast<format::FieldRepetitionType::type>(n.repetition));
    }
    if (n.field_id) e.__set_field_id(*n.field_id);
    if (n.is_leaf()) {
      e.__set_type(static_cast<format::Type::type>(n.physical));
      if (n.physical == PhysicalType::kFixedLenByteArray) e.__set_type_length(n.type_length);
      Annotate(*n.type, &e);
    } else {
      e.__set_num_children(n.num_children);
      if (n.type) Annotate(*n.type, &e);
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace floe::parquet
