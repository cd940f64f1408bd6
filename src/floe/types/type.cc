#include "floe/types/type.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <unordered_set>

#include "floe/types/visit_type.h"
#include "floe/util/strings.h"

namespace floe {

bool NestedField::operator==(const NestedField& other) const {
  return id == other.id && name == other.name && required == other.required &&
         (type == other.type || (type && other.type && *type == *other.type)) && doc == other.doc;
}

bool Type::operator==(const Type& other) const {
  return id == other.id && precision == other.precision && scale == other.scale &&
         length == other.length && fields == other.fields;
}

std::string Type::ToString() const {
  return VisitType(*this, [&](auto tag) -> std::string {
    using Tag = decltype(tag);
    if constexpr (Tag::id == TypeId::kDecimal) {
      return fmt::format("decimal({}, {})", precision, scale);
    } else if constexpr (Tag::id == TypeId::kFixed) {
      return fmt::format("fixed[{}]", length);
    } else if constexpr (Tag::id == TypeId::kStruct) {
      std::string out = "struct<";
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i) out += ", ";
        out += fmt::format("{}: {}{}", fields[i].name, fields[i].type->ToString(),
                           fields[i].required ? " not null" : "");
      }
      return out + ">";
    } else if constexpr (Tag::id == TypeId::kList) {
      return fmt::format("list<{}>", element().type->ToString());
    } else if constexpr (Tag::id == TypeId::kMap) {
      return fmt::format("map<{}, {}>", key().type->ToString(), value().type->ToString());
    } else {
      return std::string(Tag::name);
    }
  });
}

TypePtr Primitive(TypeId id) {
  static const auto kInstances = [] {
    std::array<TypePtr, std::size(kAllTypeIds)> out;
    for (size_t i = 0; i < out.size(); ++i) {
      auto t = std::make_shared<Type>();
      t->id = static_cast<TypeId>(i);
      out[i] = std::move(t);
    }
    return out;
  }();
  return kInstances[static_cast<int>(id)];
}

TypePtr BooleanType() { return Primitive(TypeId::kBoolean); }
TypePtr IntType() { return Primitive(TypeId::kInt); }
TypePtr LongType() { return Primitive(TypeId::kLong); }
TypePtr FloatType() { return Primitive(TypeId::kFloat); }
TypePtr DoubleType() { return Primitive(TypeId::kDouble); }
TypePtr DateType() { return Primitive(TypeId::kDate); }
TypePtr TimeType() { return Primitive(TypeId::kTime); }
TypePtr TimestampType() { return Primitive(TypeId::kTimestamp); }
TypePtr TimestampTzType() { return Primitive(TypeId::kTimestampTz); }
TypePtr StringType() { return Primitive(TypeId::kString); }
TypePtr UuidType() { return Primitive(TypeId::kUuid); }
TypePtr BinaryType() { return Primitive(TypeId::kBinary); }

TypePtr DecimalType(int32_t precision, int32_t scale) {
  auto t = std::make_shared<Type>();
  t->id = TypeId::kDecimal;
  t->precision = precision;
  t->scale = scale;
  return t;
}

TypePtr FixedType(int32_t length) {
  auto t = std::make_shared<Type>();
  t->id = TypeId::kFixed;
  t->length = length;
  return t;
}

TypePtr StructType(std::vector<NestedField> fields) {
  auto t = std::make_shared<Type>();
  t->id = TypeId::kStruct;
  t->fields = std::move(fields);
  return t;
}

TypePtr ListType(int32_t element_id, bool element_required, TypePtr element) {
  auto t = std::make_shared<Type>();
  t->id = TypeId::kList;
  t->fields.push_back(NestedField{element_id, "element", element_required, std::move(element), {}});
  return t;
}

TypePtr MapType(int32_t key_id, TypePtr key, int32_t value_id, bool value_required, TypePtr value) {
  auto t = std::make_shared<Type>();
  t->id = TypeId::kMap;
  t->fields.push_back(NestedField{key_id, "key", true, std::move(key), {}});
  t->fields.push_back(NestedField{value_id, "value", value_required, std::move(value), {}});
  return t;
}

namespace {

bool ParseInt(std::string_view s, int32_t* out) {
  s = TrimSpace(s);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

Result<TypePtr> ParsePrimitiveType(std::string_view text) {
  std::string t = ToLower(TrimSpace(text));
  for (TypeId id : kAllTypeIds) {
    if (!IsNested(id) && id != TypeId::kDecimal && id != TypeId::kFixed && t == TypeIdName(id)) {
      return Primitive(id);
    }
  }
  if (t.starts_with("decimal(") && t.ends_with(")")) {
    std::string_view inner(t.data() + 8, t.size() - 9);
    auto comma = inner.find(',');
    int32_t p = 0, s = 0;
    if (comma != std::string_view::npos && ParseInt(inner.substr(0, comma), &p) &&
        ParseInt(inner.substr(comma + 1), &s)) {
      if (p < 1 || p > 38 || s < 0 || s > p) {
        return InvalidArgument("decimal({}, {}): precision must be 1..38 and scale 0..precision",
                               p, s);
      }
      return DecimalType(p, s);
    }
  }
  if (t.starts_with("fixed[") && t.ends_with("]")) {
    int32_t len = 0;
    if (ParseInt(std::string_view(t.data() + 6, t.size() - 7), &len) && len > 0) {
      return FixedType(len);
    }
  }
  return InvalidArgument("unknown type '{}'", text);
}

Schema::Schema(std::vector<NestedField> fields, int32_t schema_id,
               std::vector<int32_t> identifier_field_ids)
    : fields_(std::move(fields)),
      schema_id_(schema_id),
      identifier_field_ids_(std::move(identifier_field_ids)) {}

TypePtr Schema::AsStruct() const { return StructType(fields_); }

namespace {

const NestedField* FindIn(const std::vector<NestedField>& fields, int32_t id) {
  for (const auto& f : fields) {
    if (f.id == id) return &f;
    if (f.type && f.type->is_nested()) {
      if (const auto* found = FindIn(f.type->fields, id)) return found;
    }
  }
  return nullptr;
}

int32_t MaxId(const std::vector<NestedField>& fields) {
  int32_t out = 0;
  for (const auto& f : fields) {
    out = std::max(out, f.id);
    if (f.type && f.type->is_nested()) out = std::max(out, MaxId(f.type->fields));
  }
  return out;
}

bool NamesEqual(std::string_view a, std::string_view b, bool case_sensitive) {
  if (case_sensitive) return a == b;
  return EqualsIgnoreCase(a, b);
}

Status ValidateFields(const std::vector<NestedField>& fields, const std::string& path,
                      std::set<int32_t>* ids) {
  std::unordered_set<std::string> names;
  for (const auto& f : fields) {
    std::string full = path.empty() ? f.name : path + "." + f.name;
    if (!f.type) return InvalidArgument("field '{}' has no type", full);
    if (f.id <= 0) return InvalidArgument("field '{}' has id {}: ids must be positive", full, f.id);
    if (!ids->insert(f.id).second) {
      return InvalidArgument("field id {} is used twice (second use: '{}')", f.id, full);
    }
    if (!names.insert(f.name).second) {
      return InvalidArgument("field name '{}' appears twice in the same struct", full);
    }
    if (f.type->id == TypeId::kDecimal &&
        (f.type->precision < 1 || f.type->precision > 38 || f.type->scale < 0 ||
         f.type->scale > f.type->precision)) {
      return InvalidArgument("field '{}': invalid {}", full, f.type->ToString());
    }
    if (f.type->id == TypeId::kFixed && f.type->length <= 0) {
      return InvalidArgument("field '{}': fixed length must be positive", full);
    }
    if (f.type->is_nested()) FLOE_RETURN_IF_ERROR(ValidateFields(f.type->fields, full, ids));
  }
  return Ok();
}

}  // namespace

const NestedField* Schema::FindField(int32_t field_id) const { return FindIn(fields_, field_id); }

const NestedField* Schema::FindTopLevel(std::string_view name, bool case_sensitive) const {
  int i = IndexOf(name, case_sensitive);
  return i < 0 ? nullptr : &fields_[i];
}

int Schema::IndexOf(std::string_view name, bool case_sensitive) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (NamesEqual(fields_[i].name, name, case_sensitive)) return static_cast<int>(i);
  }
  return -1;
}

int32_t Schema::HighestFieldId() const { return MaxId(fields_); }

Status Schema::Validate() const {
  std::set<int32_t> ids;
  FLOE_RETURN_IF_ERROR(ValidateFields(fields_, "", &ids));
  for (int32_t id : identifier_field_ids_) {
    const NestedField* f = FindField(id);
    if (!f) return InvalidArgument("identifier field id {} is not in the schema", id);
    if (f->type->is_nested()) {
      return InvalidArgument("identifier field '{}' must be a primitive type", f->name);
    }
    if (f->type->id == TypeId::kFloat || f->type->id == TypeId::kDouble) {
      return InvalidArgument("identifier field '{}' cannot be float or double", f->name);
    }
    if (!f->required) return InvalidArgument("identifier field '{}' must be required", f->name);
  }
  return Ok();
}

std::string Schema::ToString() const {
  std::string out = "table {\n";
  for (const auto& f : fields_) {
    out += fmt::format("  {}: {} {}{}\n", f.id, f.name, f.type->ToString(),
                       f.required ? " (required)" : "");
  }
  return out + "}";
}

bool Schema::operator==(const Schema& other) const {
  return fields_ == other.fields_ && schema_id_ == other.schema_id_ &&
         identifier_field_ids_ == other.identifier_field_ids_;
}

int32_t DecimalRequiredBytes(int32_t precision) {
  // Smallest n with 2^(8n-1) > 10^precision - 1, computed once exactly.
  static const auto kTable = [] {
    std::array<int32_t, 40> t{};
    for (int p = 0; p < 40; ++p) {
      unsigned __int128 max_unscaled = 1;
      for (int i = 0; i < p && i < 38; ++i) max_unscaled *= 10;
      max_unscaled -= 1;
      int32_t n = 1;
      while (n < 16 && (static_cast<unsigned __int128>(1) << (8 * n - 1)) <= max_unscaled) ++n;
      t[p] = n;
    }
    return t;
  }();
  return kTable[std::clamp(precision, 0, 39)];
}

}  // namespace floe
