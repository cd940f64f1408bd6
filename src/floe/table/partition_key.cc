#include "floe/table/partition_key.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <unordered_map>

#include "floe/iceberg/temporal.h"
#include "floe/table/delete_filter.h"

namespace floe::table {

using iceberg::Transform;
using iceberg::TransformKind;
using iceberg::Value;
using iceberg::Values;

namespace {

// ---- Java's java.time / Double / BigDecimal text forms ----

// LocalDate.toString: 4-digit years zero-padded with a sign when negative,
// years past 9999 with a leading '+'.
std::string JavaLocalDate(int64_t days) { return civil::FormatDate(days, civil::YearStyle::kJava); }

// LocalTime.toString: HH:mm, then :ss when seconds or fraction are non-zero,
// then the fraction in groups of 3 digits.
std::string JavaLocalTime(int64_t nanos_of_day) { return civil::FormatJavaLocalTime(nanos_of_day); }

std::string JavaLocalDateTime(int64_t value, bool nanos) {
  const int64_t per_day = nanos ? iceberg::kMicrosPerDay * 1000 : iceberg::kMicrosPerDay;
  int64_t days = iceberg::FloorDiv(value, per_day);
  int64_t rest = iceberg::FloorMod(value, per_day);
  return JavaLocalDate(days) + "T" + JavaLocalTime(nanos ? rest : rest * 1000);
}

// Double.toString / Float.toString (shortest repr digits, JDK 19+): plain
// notation for 1e-3 <= |v| < 1e7, otherwise d.dddE<exp>; always a '.'.
template <typename F>
std::string JavaFloatingString(F v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
  bool negative = sci.front() == '-';
  if (negative) sci.remove_prefix(1);
  size_t e = sci.find('e');
  std::string digits;
  for (char ch : sci.substr(0, e)) {
    if (ch != '.') digits.push_back(ch);
  }
  int exp = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+' ? 1 : 0), sci.data() + sci.size(), exp);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out = negative ? "-" : "";
  const F a = std::fabs(v);
  if (a >= F(1e-3) && a < F(1e7)) {
    if (exp >= 0) {
      std::string int_part = digits.substr(0, std::min<size_t>(digits.size(), exp + 1));
      while (int_part.size() < static_cast<size_t>(exp + 1)) int_part.push_back('0');
      std::string frac = digits.size() > static_cast<size_t>(exp + 1) ? digits.substr(exp + 1) : "0";
      out += int_part + "." + frac;
    } else {
      out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    }
  } else {
    out += digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "E" +
           std::to_string(exp);
  }
  return out;
}

// BigDecimal.toString of unscaled * 10^-scale (scale >= 0 in Iceberg).
std::string JavaBigDecimal(int128_t unscaled, int32_t scale) {
  bool negative = unscaled < 0;
  unsigned __int128 mag = negative ? -static_cast<unsigned __int128>(unscaled)
                                   : static_cast<unsigned __int128>(unscaled);
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(mag % 10)));
    mag /= 10;
  } while (mag != 0);
  std::reverse(digits.begin(), digits.end());
  const int64_t len = static_cast<int64_t>(digits.size());
  const int64_t adjusted = -static_cast<int64_t>(scale) + (len - 1);
  std::string out = negative ? "-" : "";
  if (scale == 0) return out + digits;
  if (adjusted >= -6) {
    if (len > scale) {
      out += digits.substr(0, static_cast<size_t>(len - scale)) + "." +
             digits.substr(static_cast<size_t>(len - scale));
    } else {
      out += "0." + std::string(static_cast<size_t>(scale - len), '0') + digits;
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (len > 1) out += "." + digits.substr(1);
  out += "E" + std::string(adjusted >= 0 ? "+" : "") + std::to_string(adjusted);
  return out;
}

std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  auto at = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(bytes[k])); };
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t n = at(i) << 16 | at(i + 1) << 8 | at(i + 2);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(n >> s) & 63]);
  }
  if (size_t rest = bytes.size() - i; rest > 0) {
    uint32_t n = at(i) << 16 | (rest == 2 ? at(i + 1) << 8 : 0);
    out.push_back(kAlphabet[(n >> 18) & 63]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(rest == 2 ? kAlphabet[(n >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

// Identity (and truncate) values, by source type.
std::string SourceValueString(const Type& type, const Value& v) {
  switch (type.id) {
    case TypeId::kBoolean: return v.as_bool() ? "true" : "false";
    case TypeId::kInt: return std::to_string(v.as_int());
    case TypeId::kLong: return std::to_string(v.as_long());
    case TypeId::kFloat: return JavaFloatingString(v.as_float());
    case TypeId::kDouble: return JavaFloatingString(v.as_double());
    case TypeId::kDecimal: return JavaBigDecimal(v.as_decimal(), type.scale);
    case TypeId::kDate: return JavaLocalDate(v.as_int());
    case TypeId::kTime: return JavaLocalTime(v.as_long() * 1000);
    case TypeId::kTimestamp: return JavaLocalDateTime(v.as_long(), false);
    case TypeId::kTimestampTz: return JavaLocalDateTime(v.as_long(), false) + "Z";
    case TypeId::kTimestampNs: return JavaLocalDateTime(v.as_long(), true);
    case TypeId::kTimestampTzNs: return JavaLocalDateTime(v.as_long(), true) + "Z";
    case TypeId::kString: return v.as_bytes();
    case TypeId::kUuid: return iceberg::FormatUuid(v.as_bytes());
    case TypeId::kFixed:
    case TypeId::kBinary: return Base64(v.as_bytes());
    default: return "null";
  }
}

// ---- dense codes for grouping ----

struct Int128Hash {
  size_t operator()(int128_t v) const {
    uint64_t lo = static_cast<uint64_t>(v), hi = static_cast<uint64_t>(static_cast<unsigned __int128>(v) >> 64);
    return std::hash<uint64_t>()(lo ^ (hi * 0x9E3779B97F4A7C15ull));
  }
};

// codes[i] = 0 for null, else 1 + index of the value's first appearance.
template <typename T, typename Hash = std::hash<T>>
void CodeFixed(const ColumnVector& c, std::vector<uint32_t>* codes) {
  std::unordered_map<T, uint32_t, Hash> map;
  const uint8_t* base = c.values.data();
  for (int64_t i = 0; i < c.length; ++i) {
    if (c.IsNull(i)) {
      (*codes)[i] = 0;
      continue;
    }
    T v;
    std::memcpy(&v, base + static_cast<size_t>(i) * sizeof(T), sizeof(T));
    auto [it, inserted] = map.try_emplace(v, static_cast<uint32_t>(map.size() + 1));
    (*codes)[i] = it->second;
  }
}

void CodeBytes(const ColumnVector& c, std::vector<uint32_t>* codes) {
  std::unordered_map<std::string_view, uint32_t> map;
  for (int64_t i = 0; i < c.length; ++i) {
    if (c.IsNull(i)) {
      (*codes)[i] = 0;
      continue;
    }
    auto [it, inserted] = map.try_emplace(c.bytes(i), static_cast<uint32_t>(map.size() + 1));
    (*codes)[i] = it->second;
  }
}

Status CodeColumn(const ColumnVector& c, std::vector<uint32_t>* codes) {
  codes->resize(static_cast<size_t>(c.length));
  switch (c.type->id) {
    case TypeId::kBoolean: CodeFixed<uint8_t>(c, codes); break;
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kFloat: CodeFixed<uint32_t>(c, codes); break;  // floats by bit pattern
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
    case TypeId::kDouble: CodeFixed<uint64_t>(c, codes); break;
    case TypeId::kDecimal: CodeFixed<int128_t, Int128Hash>(c, codes); break;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid:
    case TypeId::kFixed: CodeBytes(c, codes); break;
    default: return Internal("partition values of type {} cannot be grouped", c.type->ToString());
  }
  return Ok();
}

}  // namespace

size_t PartitionTupleHash::operator()(const Values& values) const {
  size_t h = 0x84222325;
  for (const Value& v : values) {
    size_t x = std::visit(
        [](const auto& a) -> size_t {
          using A = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<A, std::monostate>) {
            return 0x51ED27;
          } else if constexpr (std::is_same_v<A, std::string>) {
            return std::hash<std::string>()(a);
          } else if constexpr (std::is_same_v<A, int128_t>) {
            return Int128Hash()(a);
          } else if constexpr (std::is_same_v<A, float>) {
            uint32_t b;
            std::memcpy(&b, &a, 4);
            return std::hash<uint32_t>()(b);
          } else if constexpr (std::is_same_v<A, double>) {
            uint64_t b;
            std::memcpy(&b, &a, 8);
            return std::hash<uint64_t>()(b);
          } else {
            return std::hash<A>()(a);
          }
        },
        v.v);
    h = (h ^ (x + v.v.index())) * 0x100000001B3ull;
  }
  return h;
}

std::string UrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
        c == '-' || c == '*' || c == '_') {
      out.push_back(ch);
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string HumanString(const Transform& transform, const Type& source, const Value& value) {
  if (value.is_null()) return "null";
  switch (transform.kind()) {
    case TransformKind::kVoid: return "null";
    case TransformKind::kBucket: return std::to_string(value.as_int());
    case TransformKind::kYear: return fmt::format("{:04d}", 1970 + value.as_int());
    case TransformKind::kMonth: {
      int64_t m = value.as_int();
      return fmt::format("{:04d}-{:02d}", 1970 + iceberg::FloorDiv(m, 12), 1 + iceberg::FloorMod(m, 12));
    }
    case TransformKind::kDay: {
      iceberg::CivilDate c = iceberg::CivilFromDays(value.as_int());
      return fmt::format("{:04d}-{:02d}-{:02d}", c.year, c.month, c.day);
    }
    case TransformKind::kHour: {
      int64_t h = value.as_int();
      iceberg::CivilDate c = iceberg::CivilFromDays(iceberg::FloorDiv(h, 24));
      return fmt::format("{:04d}-{:02d}-{:02d}-{:02d}", c.year, c.month, c.day, iceberg::FloorMod(h, 24));
    }
    case TransformKind::kIdentity:
    case TransformKind::kTruncate: return SourceValueString(source, value);
    case TransformKind::kUnknown: break;
  }
  return "null";
}

Result<std::string> PartitionPath(const iceberg::PartitionSpec& spec, const Schema& schema,
                                  const Values& partition) {
  const auto& fields = spec.fields();
  if (partition.size() != fields.size()) {
    return InvalidArgument("partition tuple has {} values, spec {} has {} fields", partition.size(),
                           spec.spec_id(), fields.size());
  }
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto& f = fields[i];
    const NestedField* source = schema.FindField(f.source_id);
    if (!source) {
      return InvalidArgument("partition field '{}': source field id {} is not in the schema", f.name,
                             f.source_id);
    }
    FLOE_ASSIGN_OR_RETURN(TypePtr rt, f.transform.ResultType(source->type));
    if (!partition[i].Matches(*rt)) {
      return InvalidArgument("partition field '{}': value does not have the partition type {}", f.name,
                             rt->ToString());
    }
    if (i > 0) out.push_back('/');
    out += UrlEncode(f.name);
    out.push_back('=');
    out += UrlEncode(HumanString(f.transform, *source->type, partition[i]));
  }
  return out;
}

Result<PartitionKeyer> PartitionKeyer::Make(const iceberg::PartitionSpec& spec, SchemaPtr schema) {
  if (!schema) return InvalidArgument("partition keyer: no schema");
  PartitionKeyer k;
  k.spec_ = spec;
  k.schema_ = schema;
  for (const auto& f : spec.fields()) {
    if (f.transform.is_unknown()) {
      return Unsupported("partition field '{}': transform '{}' is unknown and cannot be written",
                         f.name, f.transform.ToString());
    }
    auto path = FieldPath(*schema, f.source_id);
    if (!path) {
      return Fail(std::move(path).error().WithContext(
          fmt::format("partition field '{}' (source id {})", f.name, f.source_id)));
    }
    const NestedField* source = schema->FindField(f.source_id);
    if (!source->type || source->type->is_nested()) {
      return InvalidArgument("partition field '{}': source '{}' is not a primitive column", f.name,
                             source->name);
    }
    if (!f.transform.CanTransform(*source->type)) {
      return InvalidArgument("partition field '{}': transform {} does not apply to {} column '{}'",
                             f.name, f.transform.ToString(), source->type->ToString(), source->name);
    }
    k.sources_.push_back(Source{std::move(*path), f.transform, source->type});
  }
  return k;
}

Result<ColumnVector> PartitionKeyer::TransformedColumn(const Batch& batch, size_t k) const {
  const Source& s = sources_[k];
  const auto& name = spec_.fields()[k].name;
  if (static_cast<size_t>(s.path[0]) >= batch.columns.size()) {
    return InvalidArgument("partition field '{}': the batch has no column {}", name, s.path[0]);
  }
  std::vector<const ColumnVector*> ancestors;
  const ColumnVector* col = &batch.columns[static_cast<size_t>(s.path[0])];
  for (size_t d = 1; d < s.path.size(); ++d) {
    if (!col->type || col->type->id != TypeId::kStruct ||
        static_cast<size_t>(s.path[d]) >= col->children.size()) {
      return InvalidArgument("partition field '{}': the batch does not have the source column's struct",
                             name);
    }
    ancestors.push_back(col);
    col = &col->children[static_cast<size_t>(s.path[d])];
  }
  if (!col->type || !(*col->type == *s.source_type)) {
    return InvalidArgument("partition field '{}': the batch's source column is {}, expected {}", name,
                           col->type ? col->type->ToString() : "untyped", s.source_type->ToString());
  }
  FLOE_ASSIGN_OR_RETURN(ColumnVector out, s.transform.Apply(*col));
  // A value inside a null struct is null (Java reads it as null).
  for (const ColumnVector* a : ancestors) {
    if (!a->has_nulls()) continue;
    for (int64_t i = 0; i < out.length; ++i) {
      if (a->validity[static_cast<size_t>(i)] == 0) out.SetValid(i, false);
    }
  }
  return out;
}

Result<std::vector<PartitionGroup>> PartitionKeyer::Group(const Batch& batch) const {
  std::vector<PartitionGroup> groups;
  const int64_t n = batch.num_rows;
  if (n == 0) return groups;
  if (sources_.empty()) {
    PartitionGroup g;
    g.rows.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) g.rows[static_cast<size_t>(i)] = i;
    groups.push_back(std::move(g));
    return groups;
  }
  std::vector<ColumnVector> results;
  results.reserve(sources_.size());
  std::vector<uint32_t> combined(static_cast<size_t>(n)), codes;
  for (size_t k = 0; k < sources_.size(); ++k) {
    FLOE_ASSIGN_OR_RETURN(ColumnVector r, TransformedColumn(batch, k));
    if (r.length != n) {
      return Internal("partition field '{}': transform gave {} rows for {}", spec_.fields()[k].name,
                      r.length, n);
    }
    FLOE_RETURN_IF_ERROR(CodeColumn(r, k == 0 ? &combined : &codes));
    if (k > 0) {
      std::unordered_map<uint64_t, uint32_t> pairs;
      for (int64_t i = 0; i < n; ++i) {
        uint64_t key = uint64_t(combined[static_cast<size_t>(i)]) << 32 | codes[static_cast<size_t>(i)];
        auto [it, inserted] = pairs.try_emplace(key, static_cast<uint32_t>(pairs.size()));
        combined[static_cast<size_t>(i)] = it->second;
      }
    }
    results.push_back(std::move(r));
  }
  // Renumber to group ids in order of first appearance.
  std::unordered_map<uint32_t, uint32_t> group_of;
  for (int64_t i = 0; i < n; ++i) {
    auto [it, inserted] = group_of.try_emplace(combined[static_cast<size_t>(i)],
                                               static_cast<uint32_t>(groups.size()));
    if (inserted) {
      PartitionGroup g;
      g.partition.reserve(results.size());
      for (const auto& r : results) g.partition.push_back(iceberg::ValueAt(r, i));
      groups.push_back(std::move(g));
    }
    groups[it->second].rows.push_back(i);
  }
  return groups;
}

Result<Values> PartitionKeyer::TupleOf(const Batch& batch, int64_t row) const {
  if (row < 0 || row >= batch.num_rows) {
    return InvalidArgument("row {} is outside the batch ({} rows)", row, batch.num_rows);
  }
  Values out;
  for (size_t k = 0; k < sources_.size(); ++k) {
    FLOE_ASSIGN_OR_RETURN(ColumnVector r, TransformedColumn(batch, k));
    out.push_back(iceberg::ValueAt(r, row));
  }
  return out;
}

}  // namespace floe::table
