// Flink SQL types <-> Iceberg types (rules and sources in sql_types.h).
#include "floe/sql/sql_types.h"

#include <algorithm>

#include <fmt/format.h>

#include "floe/sql/printer.h"

namespace floe::sql {

int32_t EffectivePrecision(const DataType& t) {
  switch (t.name) {
    case TypeName::kString:
    case TypeName::kBytes: return kMaxVarLength;
    case TypeName::kDecimal: return t.precision.value_or(10);
    case TypeName::kTime: return t.precision.value_or(0);
    case TypeName::kTimestamp:
    case TypeName::kTimestampLtz: return t.precision.value_or(6);
    default: return t.precision.value_or(1);
  }
}

namespace {

/// A type with its nested ids not yet assigned: the shape FlinkTypeToType
/// builds, numbered afterwards in assignFreshIds order.
struct Shape {
  TypeId id = TypeId::kBoolean;
  int32_t precision = 0, scale = 0, length = 0;
  struct Field {
    std::string name;
    bool required = false;
    std::string doc;
    Shape* type = nullptr;
  };
  std::vector<Field> fields;  // struct fields; list: [element]; map: [key, value]
};

class Mapper {
 public:
  Result<Shape*> Map(const DataType& t) {
    Shape* s = New();
    switch (t.name) {
      case TypeName::kBoolean: s->id = TypeId::kBoolean; break;
      // FlinkTypeToType: TINYINT and SMALLINT widen to int.
      case TypeName::kTinyInt:
      case TypeName::kSmallInt:
      case TypeName::kInt: s->id = TypeId::kInt; break;
      case TypeName::kBigInt: s->id = TypeId::kLong; break;
      case TypeName::kFloat: s->id = TypeId::kFloat; break;
      case TypeName::kDouble: s->id = TypeId::kDouble; break;
      case TypeName::kDecimal:
        s->id = TypeId::kDecimal;
        s->precision = EffectivePrecision(t);
        s->scale = t.scale.value_or(0);
        break;
      // FlinkTypeToType: CHAR and VARCHAR of any length -> string.
      case TypeName::kChar:
      case TypeName::kVarChar:
      case TypeName::kString: s->id = TypeId::kString; break;
      // FlinkTypeToType: BINARY(n) -> fixed[n], VARBINARY -> binary.
      case TypeName::kBinary:
        s->id = TypeId::kFixed;
        s->length = EffectivePrecision(t);
        break;
      case TypeName::kVarBinary:
      case TypeName::kBytes: s->id = TypeId::kBinary; break;
      case TypeName::kDate: s->id = TypeId::kDate; break;
      case TypeName::kTime: s->id = TypeId::kTime; break;
      // FlinkTypeToType: TimestampType -> timestamp without zone,
      // LocalZonedTimestampType -> with zone, both microseconds.
      case TypeName::kTimestamp: s->id = TypeId::kTimestamp; break;
      case TypeName::kTimestampLtz: s->id = TypeId::kTimestampTz; break;
      case TypeName::kArray: {
        s->id = TypeId::kList;
        FLOE_ASSIGN_OR_RETURN(Shape * e, Map(t.elements.at(0)));
        s->fields.push_back({"element", !t.elements[0].nullable, "", e});
        break;
      }
      case TypeName::kMap: {
        s->id = TypeId::kMap;
        FLOE_ASSIGN_OR_RETURN(Shape * k, Map(t.elements.at(0)));
        FLOE_ASSIGN_OR_RETURN(Shape * v, Map(t.elements.at(1)));
        // Iceberg map keys are always required (FlinkTypeToType: "keys in map
        // are not allowed to be null").
        s->fields.push_back({"key", true, "", k});
        s->fields.push_back({"value", !t.elements[1].nullable, "", v});
        break;
      }
      case TypeName::kRow: {
        s->id = TypeId::kStruct;
        for (const RowField& f : t.fields) {
          FLOE_ASSIGN_OR_RETURN(Shape * ft, Map(f.type));
          s->fields.push_back({f.name, !f.type.nullable, f.description.value_or(""), ft});
        }
        break;
      }
      case TypeName::kMultiset:
        return Unsupported(
            "At {}: {} cannot be stored in an Iceberg table (Iceberg would store it as MAP<{}, "
            "INT> "
            "and read it back as a MAP); declare the column as a MAP or ARRAY",
            PosText(t.pos), TypeToSql(t), TypeToSql(t.elements.at(0)));
    }
    return s;
  }

  /// Numbers a shape's nested fields as TypeUtil.assignFreshIds does.
  static TypePtr Build(const Shape& s, int32_t* next_id) {
    auto fields = [&]() {
      std::vector<int32_t> ids;
      for (size_t i = 0; i < s.fields.size(); ++i) ids.push_back((*next_id)++);
      std::vector<NestedField> out;
      for (size_t i = 0; i < s.fields.size(); ++i) {
        const Shape::Field& f = s.fields[i];
        out.push_back(NestedField{ids[i], f.name, f.required, Build(*f.type, next_id), f.doc});
      }
      return out;
    };
    switch (s.id) {
      case TypeId::kStruct: return StructType(fields());
      case TypeId::kList: {
        auto f = fields();
        return ListType(f[0].id, f[0].required, f[0].type);
      }
      case TypeId::kMap: {
        auto f = fields();
        return MapType(f[0].id, f[0].type, f[1].id, f[1].required, f[1].type);
      }
      case TypeId::kDecimal: return DecimalType(s.precision, s.scale);
      case TypeId::kFixed: return FixedType(s.length);
      default: return Primitive(s.id);
    }
  }

 private:
  Shape* New() {
    pool_.push_back(std::make_unique<Shape>());
    return pool_.back().get();
  }
  std::vector<std::unique_ptr<Shape>> pool_;
};

}  // namespace

Result<TypePtr> ToIcebergType(const DataType& type, int32_t* next_id) {
  Mapper m;
  FLOE_ASSIGN_OR_RETURN(Shape * s, m.Map(type));
  return Mapper::Build(*s, next_id);
}

Result<Schema> ToIcebergSchema(const CreateTable& table) {
  if (!table.watermarks.empty()) {
    return Unsupported("At {}: a WATERMARK is not supported in an Iceberg table",
                       PosText(table.watermarks[0].pos));
  }
  std::optional<PrimaryKey> pk = table.primary_key;
  for (const ColumnDef& c : table.columns) {
    if (c.computed) {
      return Unsupported("At {}: computed column '{}' is not supported in an Iceberg table",
                         PosText(c.pos), c.name);
    }
    if (c.metadata) {
      return Unsupported("At {}: metadata column '{}' is not supported in an Iceberg table",
                         PosText(c.pos), c.name);
    }
    if (c.primary_key) {
      if (pk) {
        return InvalidArgument("At {}: Duplicate primary key definition", PosText(c.pos));
      }
      pk = PrimaryKey{std::nullopt, {c.name}, c.pos};
    }
  }
  std::string pk_name;
  if (pk) {
    pk_name = pk->name.value_or("PK");
    if (!pk->name) {
      for (const std::string& c : pk->columns) pk_name += "_" + c;
    }
    for (const std::string& col : pk->columns) {
      if (std::count(pk->columns.begin(), pk->columns.end(), col) > 1) {
        return InvalidArgument(
            "At {}: Invalid primary key '{}'. A primary key must not contain duplicate columns. "
            "Found: [{}]",
            PosText(pk->pos), pk_name, col);
      }
      bool found = std::any_of(table.columns.begin(), table.columns.end(),
                               [&](const ColumnDef& c) { return c.name == col; });
      if (!found) {
        return InvalidArgument("At {}: Invalid primary key '{}'. Column '{}' does not exist.",
                               PosText(pk->pos), pk_name, col);
      }
    }
  }
  // Top-level ids 1..n first (FlinkTypeToType's root), then nested ids.
  Mapper m;
  std::vector<Shape*> shapes;
  for (const ColumnDef& c : table.columns) {
    FLOE_ASSIGN_OR_RETURN(Shape * s, m.Map(*c.type));
    shapes.push_back(s);
  }
  int32_t next_id = static_cast<int32_t>(table.columns.size()) + 1;
  std::vector<NestedField> fields;
  std::vector<int32_t> identifier_ids;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const ColumnDef& c = table.columns[i];
    bool in_key =
        pk && std::find(pk->columns.begin(), pk->columns.end(), c.name) != pk->columns.end();
    int32_t id = static_cast<int32_t>(i) + 1;
    fields.push_back(NestedField{id, c.name, !c.type->nullable || in_key,
                                 Mapper::Build(*shapes[i], &next_id), c.comment.value_or("")});
  }
  if (pk) {
    for (const std::string& col : pk->columns) {
      for (const NestedField& f : fields) {
        if (f.name == col) identifier_ids.push_back(f.id);
      }
    }
  }
  Schema schema(std::move(fields), 0, std::move(identifier_ids));
  FLOE_RETURN_IF_ERROR(schema.Validate());
  return schema;
}

DataType FromIcebergType(const Type& type, bool required) {
  DataType d;
  d.nullable = !required;
  switch (type.id) {
    case TypeId::kBoolean: d.name = TypeName::kBoolean; break;
    case TypeId::kInt: d.name = TypeName::kInt; break;
    case TypeId::kLong: d.name = TypeName::kBigInt; break;
    case TypeId::kFloat: d.name = TypeName::kFloat; break;
    case TypeId::kDouble: d.name = TypeName::kDouble; break;
    case TypeId::kDecimal:
      d.name = TypeName::kDecimal;
      d.precision = type.precision;
      d.scale = type.scale;
      break;
    case TypeId::kDate: d.name = TypeName::kDate; break;
    // TypeToFlinkType: new TimeType(), Flink's default precision 0.
    case TypeId::kTime:
      d.name = TypeName::kTime;
      d.precision = 0;
      break;
    case TypeId::kTimestamp:
      d.name = TypeName::kTimestamp;
      d.precision = 6;
      break;
    case TypeId::kTimestampTz:
      d.name = TypeName::kTimestampLtz;
      d.precision = 6;
      break;
    case TypeId::kTimestampNs:
      d.name = TypeName::kTimestamp;
      d.precision = 9;
      break;
    case TypeId::kTimestampTzNs:
      d.name = TypeName::kTimestampLtz;
      d.precision = 9;
      break;
    // TypeToFlinkType: new VarCharType(VarCharType.MAX_LENGTH).
    case TypeId::kString:
      d.name = TypeName::kVarChar;
      d.precision = kMaxVarLength;
      break;
    // TypeToFlinkType: "UUID length is 16" -> BinaryType(16).
    case TypeId::kUuid:
      d.name = TypeName::kBinary;
      d.precision = 16;
      break;
    case TypeId::kFixed:
      d.name = TypeName::kBinary;
      d.precision = type.length;
      break;
    case TypeId::kBinary:
      d.name = TypeName::kVarBinary;
      d.precision = kMaxVarLength;
      break;
    case TypeId::kList:
      d.name = TypeName::kArray;
      d.elements.push_back(FromIcebergType(*type.element().type, type.element().required));
      break;
    case TypeId::kMap:
      d.name = TypeName::kMap;
      // Keys in map are not allowed to be null (TypeToFlinkType).
      d.elements.push_back(FromIcebergType(*type.key().type, true));
      d.elements.push_back(FromIcebergType(*type.value().type, type.value().required));
      break;
    case TypeId::kStruct:
      d.name = TypeName::kRow;
      for (const NestedField& f : type.fields) {
        RowField rf;
        rf.name = f.name;
        rf.type = FromIcebergType(*f.type, f.required);
        if (!f.doc.empty()) rf.description = f.doc;
        d.fields.push_back(std::move(rf));
      }
      break;
  }
  return d;
}

CreateTable FromIcebergSchema(const Schema& schema, Identifier name) {
  CreateTable t;
  t.name = std::move(name);
  for (const NestedField& f : schema.fields()) {
    ColumnDef c;
    c.name = f.name;
    c.type = FromIcebergType(*f.type, f.required);
    if (!f.doc.empty()) c.comment = f.doc;
    t.columns.push_back(std::move(c));
  }
  if (!schema.identifier_field_ids().empty()) {
    PrimaryKey pk;
    for (int32_t id : schema.identifier_field_ids()) {
      for (const NestedField& f : schema.fields()) {
        if (f.id == id) pk.columns.push_back(f.name);
      }
    }
    t.primary_key = std::move(pk);
  }
  return t;
}

}  // namespace floe::sql
