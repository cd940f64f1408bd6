// Flink type rules of the engine (see engine_types.h for the sources).
#include "floe/sqlengine/engine_types.h"

#include <algorithm>

#include <fmt/format.h>

#include "floe/sql/printer.h"
#include "floe/sql/sql_types.h"

namespace floe::sqlengine {

using sql::DataType;
using sql::TypeName;

SchemaPtr RelSchema::Physical() const {
  std::vector<NestedField> fields;
  fields.reserve(columns.size());
  int32_t id = 1;
  for (const ColumnInfo& c : columns) {
    fields.push_back(NestedField{id++, c.name, !c.type.nullable, c.physical, ""});
  }
  return std::make_shared<Schema>(std::move(fields));
}

std::string RelSchema::Summary() const {
  std::string out = "[";
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i) out += ", ";
    out += columns[i].name + ": " + TypeSummary(columns[i].type);
  }
  return out + "]";
}

DataType MakeType(TypeName name, bool nullable, std::optional<int32_t> precision,
                  std::optional<int32_t> scale) {
  DataType t;
  t.name = name;
  t.nullable = nullable;
  t.precision = precision;
  t.scale = scale;
  return t;
}

Result<TypePtr> PhysicalOf(const DataType& type) {
  int32_t next_id = 1;
  return sql::ToIcebergType(type, &next_id);
}

DataType LogicalOf(const Type& type, bool nullable) {
  return sql::FromIcebergType(type, !nullable);
}

std::string TypeSummary(const DataType& type) {
  return sql::TypeToSql(type, sql::TypeStyle::kSummary);
}

bool IsIntegral(TypeName n) {
  return n == TypeName::kTinyInt || n == TypeName::kSmallInt || n == TypeName::kInt ||
         n == TypeName::kBigInt;
}
bool IsNumeric(TypeName n) {
  return IsIntegral(n) || n == TypeName::kDecimal || n == TypeName::kFloat ||
         n == TypeName::kDouble;
}
bool IsCharacter(TypeName n) {
  return n == TypeName::kChar || n == TypeName::kVarChar || n == TypeName::kString;
}
bool IsBinaryString(TypeName n) {
  return n == TypeName::kBinary || n == TypeName::kVarBinary || n == TypeName::kBytes;
}
bool IsTemporal(TypeName n) {
  return n == TypeName::kDate || n == TypeName::kTime || n == TypeName::kTimestamp ||
         n == TypeName::kTimestampLtz;
}

int32_t IntegralDigits(TypeName n) {
  switch (n) {
    case TypeName::kTinyInt: return 3;
    case TypeName::kSmallInt: return 5;
    case TypeName::kInt: return 10;
    default: return 19;
  }
}

namespace {

// The numeric family order of Calcite's leastRestrictive / Flink's implicit casts.
int NumericRank(TypeName n) {
  switch (n) {
    case TypeName::kTinyInt: return 1;
    case TypeName::kSmallInt: return 2;
    case TypeName::kInt: return 3;
    case TypeName::kBigInt: return 4;
    case TypeName::kDecimal: return 5;
    case TypeName::kFloat: return 6;
    case TypeName::kDouble: return 7;
    default: return 0;
  }
}

// An integral type seen as the decimal that holds it.
DataType AsDecimal(const DataType& t) {
  if (t.name == TypeName::kDecimal) return t;
  return MakeType(TypeName::kDecimal, t.nullable, IntegralDigits(t.name), 0);
}

// The character/binary string length a type holds.
int32_t StringLength(const DataType& t) { return sql::EffectivePrecision(t); }

}  // namespace

std::optional<DataType> CommonType(const DataType& a, const DataType& b) {
  const bool nullable = a.nullable || b.nullable;
  DataType out;
  if (IsNumeric(a.name) && IsNumeric(b.name)) {
    const int ra = NumericRank(a.name), rb = NumericRank(b.name);
    if (a.name == TypeName::kDecimal || b.name == TypeName::kDecimal) {
      if (std::max(ra, rb) > 5) {
        out = MakeType(std::max(ra, rb) == 7 ? TypeName::kDouble : TypeName::kFloat);
      } else {
        // Calcite: integer digits and scale of the wider of each.
        DataType da = AsDecimal(a), db = AsDecimal(b);
        int32_t sa = da.scale.value_or(0), sb = db.scale.value_or(0);
        int32_t pa = sql::EffectivePrecision(da), pb = sql::EffectivePrecision(db);
        int32_t scale = std::max(sa, sb);
        int32_t digits = std::max(pa - sa, pb - sb);
        int32_t precision = std::min(38, digits + scale);
        out = MakeType(TypeName::kDecimal, true, precision, std::min(scale, precision));
      }
    } else {
      out = ra >= rb ? a : b;
    }
  } else if (IsCharacter(a.name) && IsCharacter(b.name)) {
    if (a.name == TypeName::kChar && b.name == TypeName::kChar) {
      out = MakeType(TypeName::kChar, true, std::max(StringLength(a), StringLength(b)));
    } else {
      const int32_t len = std::max(StringLength(a), StringLength(b));
      out = len == sql::kMaxVarLength ? MakeType(TypeName::kString)
                                      : MakeType(TypeName::kVarChar, true, len);
    }
  } else if (IsBinaryString(a.name) && IsBinaryString(b.name)) {
    if (a.name == TypeName::kBinary && b.name == TypeName::kBinary &&
        StringLength(a) == StringLength(b)) {
      out = a;
    } else {
      const int32_t len = std::max(StringLength(a), StringLength(b));
      out = len == sql::kMaxVarLength ? MakeType(TypeName::kBytes)
                                      : MakeType(TypeName::kVarBinary, true, len);
    }
  } else if ((a.name == TypeName::kTimestamp || a.name == TypeName::kTimestampLtz) &&
             (b.name == TypeName::kTimestamp || b.name == TypeName::kTimestampLtz)) {
    out = a.name == b.name ? a : MakeType(TypeName::kTimestampLtz);
    out.precision = std::max(sql::EffectivePrecision(a), sql::EffectivePrecision(b));
  } else if (a.name == b.name && a.elements.empty() && a.fields.empty()) {
    out = a;
    if (a.name == TypeName::kTime)
      out.precision = std::max(sql::EffectivePrecision(a), sql::EffectivePrecision(b));
  } else if (a == b) {
    out = a;
  } else {
    DataType x = a, y = b;
    x.nullable = y.nullable = true;
    sql::ClearPositions(x);
    sql::ClearPositions(y);
    if (!(x == y)) return std::nullopt;
    out = x;
  }
  out.nullable = nullable;
  out.pos = {};
  return out;
}

bool ImplicitCastAllowed(const DataType& from, const DataType& to) {
  if (IsNumeric(from.name) && IsNumeric(to.name)) {
    const int rf = NumericRank(from.name), rt = NumericRank(to.name);
    return rf <= rt;
  }
  if (IsCharacter(from.name) && IsCharacter(to.name)) return true;
  if (IsBinaryString(from.name) && IsBinaryString(to.name)) return true;
  if ((from.name == TypeName::kTimestamp || from.name == TypeName::kTimestampLtz) &&
      (to.name == TypeName::kTimestamp || to.name == TypeName::kTimestampLtz)) {
    return true;
  }
  if (from.name != to.name) return false;
  if (from.name == TypeName::kArray || from.name == TypeName::kMultiset) {
    return ImplicitCastAllowed(from.elements[0], to.elements[0]);
  }
  if (from.name == TypeName::kMap) {
    return ImplicitCastAllowed(from.elements[0], to.elements[0]) &&
           ImplicitCastAllowed(from.elements[1], to.elements[1]);
  }
  if (from.name == TypeName::kRow) {
    if (from.fields.size() != to.fields.size()) return false;
    for (size_t i = 0; i < from.fields.size(); ++i) {
      if (!ImplicitCastAllowed(from.fields[i].type, to.fields[i].type)) return false;
    }
  }
  return true;
}

bool ExplicitCastAllowed(const DataType& from, const DataType& to) {
  if (ImplicitCastAllowed(from, to)) return true;
  const TypeName f = from.name, t = to.name;
  auto primitive = [](TypeName n) {
    return n != TypeName::kArray && n != TypeName::kMap && n != TypeName::kMultiset &&
           n != TypeName::kRow;
  };
  // Every type casts to a character string, every primitive from one
  // (Flink's CAST rules).
  if (IsCharacter(t)) return true;
  if (IsCharacter(f) && primitive(t)) return true;
  if (IsNumeric(f) && IsNumeric(t)) return true;
  if (f == TypeName::kBoolean && IsNumeric(t)) return true;
  if (IsNumeric(f) && t == TypeName::kBoolean) return true;
  if (IsTemporal(f) && IsTemporal(t)) {
    // DATE <-> TIME has no meaning.
    return !((f == TypeName::kDate && t == TypeName::kTime) ||
             (f == TypeName::kTime && t == TypeName::kDate));
  }
  return false;
}

bool SameShape(const Type& a, const Type& b) {
  if (a.id != b.id || a.precision != b.precision || a.scale != b.scale || a.length != b.length ||
      a.fields.size() != b.fields.size()) {
    return false;
  }
  for (size_t i = 0; i < a.fields.size(); ++i) {
    if (!SameShape(*a.fields[i].type, *b.fields[i].type)) return false;
  }
  return true;
}

void Retype(ColumnVector* col, const TypePtr& type) {
  col->type = type;
  for (size_t i = 0; i < col->children.size() && i < type->fields.size(); ++i) {
    Retype(&col->children[i], type->fields[i].type);
  }
}

bool SameLogical(const DataType& a, const DataType& b) {
  if (IsCharacter(a.name) && IsCharacter(b.name)) return true;
  if ((a.name == TypeName::kVarBinary || a.name == TypeName::kBytes) &&
      (b.name == TypeName::kVarBinary || b.name == TypeName::kBytes)) {
    return true;
  }
  if (a.name != b.name) {
    // TINYINT, SMALLINT and INT share their physical form, but Flink keeps them apart.
    return false;
  }
  switch (a.name) {
    case TypeName::kDecimal:
      return sql::EffectivePrecision(a) == sql::EffectivePrecision(b) &&
             a.scale.value_or(0) == b.scale.value_or(0);
    case TypeName::kBinary: return sql::EffectivePrecision(a) == sql::EffectivePrecision(b);
    case TypeName::kArray:
    case TypeName::kMultiset: return SameLogical(a.elements[0], b.elements[0]);
    case TypeName::kMap:
      return SameLogical(a.elements[0], b.elements[0]) && SameLogical(a.elements[1], b.elements[1]);
    case TypeName::kRow:
      if (a.fields.size() != b.fields.size()) return false;
      for (size_t i = 0; i < a.fields.size(); ++i) {
        if (!SameLogical(a.fields[i].type, b.fields[i].type)) return false;
      }
      return true;
    default: return true;
  }
}

}  // namespace floe::sqlengine
