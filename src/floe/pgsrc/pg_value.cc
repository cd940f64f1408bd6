// PostgreSQL values, text and binary, into floe columns (pg_value.h).
#include "floe/pgsrc/pg_value.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "floe/format/value_parse.h"

namespace floe::pgsrc {
namespace {

// Type OIDs (pg_type.dat; fixed across versions).
constexpr uint32_t kBool = 16, kBytea = 17, kInt8 = 20, kInt2 = 21, kInt4 = 23, kOid = 26, kFloat4 = 700,
                   kFloat8 = 701, kDate = 1082, kTime = 1083, kTimestamp = 1114, kTimestampTz = 1184,
                   kNumeric = 1700, kUuid = 2950;
// Types whose binary form is their text's bytes (or, for jsonb, a version byte and the text).
constexpr uint32_t kName = 19, kText = 25, kJson = 114, kBpchar = 1042, kVarchar = 1043, kJsonb = 3802;

TypePtr ScalarType(uint32_t oid, int32_t typmod) {
  switch (oid) {
    case kBool: return BooleanType();
    case kBytea: return BinaryType();
    case kInt2:
    case kInt4: return IntType();
    case kInt8:
    case kOid: return LongType();
    case kFloat4: return FloatType();
    case kFloat8: return DoubleType();
    case kDate: return DateType();
    case kTime: return TimeType();
    case kTimestamp: return TimestampType();
    case kTimestampTz: return TimestampTzType();
    case kUuid: return UuidType();
    case kNumeric: {
      if (typmod < 4) return StringType();  // unconstrained: the exact text
      const int32_t p = ((typmod - 4) >> 16) & 0xffff;
      const int32_t s = (typmod - 4) & 0xffff;
      if (p < 1 || p > 38 || s > p || s >= 0x8000) return StringType();  // beyond Iceberg's decimal
      return DecimalType(p, s);
    }
    default: return StringType();  // text, varchar, json, enums, inet, ... : PostgreSQL's text form
  }
}

// A float as PostgreSQL writes it (NaN, Infinity, -Infinity are words).
template <typename T>
Result<T> ParseFloat(std::string_view text) {
  if (text == "NaN") return std::numeric_limits<T>::quiet_NaN();
  if (text == "Infinity") return std::numeric_limits<T>::infinity();
  if (text == "-Infinity") return -std::numeric_limits<T>::infinity();
  if constexpr (std::is_same_v<T, float>) {
    return format::ParseFloatText(text);
  } else {
    return format::ParseDoubleText(text);
  }
}

Status AppendScalar(ColumnVector* out, const Type& type, uint32_t oid, std::string_view text) {
  switch (type.id) {
    case TypeId::kBoolean:
      if (text == "t") {
        out->Append<uint8_t>(1);
      } else if (text == "f") {
        out->Append<uint8_t>(0);
      } else {
        return InvalidArgument("boolean value {} is neither t nor f", format::QuoteValue(text));
      }
      return Ok();
    case TypeId::kInt: {
      FLOE_ASSIGN_OR_RETURN(int64_t v, format::ParseIntegerText(text, type));
      out->Append<int32_t>(static_cast<int32_t>(v));
      return Ok();
    }
    case TypeId::kLong: {
      FLOE_ASSIGN_OR_RETURN(int64_t v, format::ParseIntegerText(text, type));
      out->Append<int64_t>(v);
      return Ok();
    }
    case TypeId::kFloat: {
      FLOE_ASSIGN_OR_RETURN(float v, ParseFloat<float>(text));
      out->Append<float>(v);
      return Ok();
    }
    case TypeId::kDouble: {
      FLOE_ASSIGN_OR_RETURN(double v, ParseFloat<double>(text));
      out->Append<double>(v);
      return Ok();
    }
    case TypeId::kDecimal: {
      if (text == "NaN" || text == "Infinity" || text == "-Infinity") {
        return InvalidArgument("numeric value {} has no decimal({}, {}) form", text, type.precision, type.scale);
      }
      FLOE_ASSIGN_OR_RETURN(int128_t v, format::ParseDecimalText(text, type));
      out->Append<int128_t>(v);
      return Ok();
    }
    case TypeId::kDate: {
      if (text.find_first_of("BCinfy") != std::string_view::npos) {
        return InvalidArgument("date {} has no Iceberg form (infinity and BC dates are refused)",
                               format::QuoteValue(text));
      }
      FLOE_ASSIGN_OR_RETURN(int32_t v, format::ParseDateText(text));
      out->Append<int32_t>(v);
      return Ok();
    }
    case TypeId::kTime: {
      FLOE_ASSIGN_OR_RETURN(int64_t v, format::ParseTimeText(text));
      out->Append<int64_t>(v);
      return Ok();
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      std::string_view t = text;
      if (t.find_first_of("BCinfy") != std::string_view::npos) {
        return InvalidArgument("timestamp {} has no Iceberg form (infinity and BC dates are refused)",
                               format::QuoteValue(text));
      }
      if (type.id == TypeId::kTimestampTz) {
        // TimeZone is UTC on floe's connections: every value ends in +00.
        if (t.size() < 3 || t.substr(t.size() - 3) != "+00") {
          return InvalidArgument("timestamptz {} is not in UTC (+00)", format::QuoteValue(text));
        }
        t.remove_suffix(3);
      }
      FLOE_ASSIGN_OR_RETURN(int64_t v, format::ParseTimestampText(t, *TimestampType()));
      out->Append<int64_t>(v);
      return Ok();
    }
    case TypeId::kUuid: {
      uint8_t b[16];
      FLOE_RETURN_IF_ERROR(format::ParseUuidText(text, b));
      out->AppendBytes(std::string_view(reinterpret_cast<const char*>(b), 16));
      return Ok();
    }
    case TypeId::kBinary: {
      if (oid != kBytea || text.size() < 2 || text[0] != '\\' || text[1] != 'x') {
        return InvalidArgument("bytea value is not in hex form (\\x...)");
      }
      std::string bytes;
      FLOE_RETURN_IF_ERROR(format::ParseHexText(text.substr(2), -1, &bytes));
      out->AppendBytes(bytes);
      return Ok();
    }
    case TypeId::kString:
      out->AppendBytes(text);
      return Ok();
    default:
      return Internal("no PostgreSQL conversion into {}", static_cast<int>(type.id));
  }
}

// A one-dimensional array's text form: {a,"b c",NULL}; its elements
// unquoted (nullopt: NULL).
Result<std::vector<std::optional<std::string>>> SplitArray(std::string_view text) {
  std::string_view s = text;
  if (!s.empty() && s[0] == '[') {  // [lower:upper]={...}: explicit bounds
    const size_t eq = s.find('=');
    if (eq == std::string_view::npos) return InvalidArgument("array value {} is malformed", format::QuoteValue(text));
    s.remove_prefix(eq + 1);
  }
  if (s.size() < 2 || s.front() != '{' || s.back() != '}') {
    return InvalidArgument("array value {} is malformed", format::QuoteValue(text));
  }
  s = s.substr(1, s.size() - 2);
  std::vector<std::optional<std::string>> items;
  if (s.empty()) return items;
  size_t i = 0;
  for (;;) {
    while (i < s.size() && s[i] == ' ') ++i;
    if (i < s.size() && s[i] == '{') {
      return Unsupported("multi-dimensional array {} (only one-dimensional arrays map to a list)",
                         format::QuoteValue(text));
    }
    std::string item;
    bool quoted = false;
    if (i < s.size() && s[i] == '"') {
      quoted = true;
      ++i;
      while (i < s.size() && s[i] != '"') {
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
        item += s[i++];
      }
      if (i >= s.size()) return InvalidArgument("array value {} is malformed", format::QuoteValue(text));
      ++i;  // the closing quote
    } else {
      while (i < s.size() && s[i] != ',') {
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
        item += s[i++];
      }
      while (!item.empty() && item.back() == ' ') item.pop_back();
    }
    if (!quoted && (item == "NULL" || item == "null")) {
      items.push_back(std::nullopt);
    } else {
      items.push_back(std::move(item));
    }
    while (i < s.size() && s[i] == ' ') ++i;
    if (i >= s.size()) break;
    if (s[i] != ',') return InvalidArgument("array value {} is malformed", format::QuoteValue(text));
    ++i;
  }
  return items;
}

// A big-endian integer of N bytes at `p`.
template <typename T>
T BigEndian(const char* p) {
  using U = std::make_unsigned_t<T>;
  U v = 0;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::little) {
    if constexpr (sizeof v == 2) v = __builtin_bswap16(v);
    if constexpr (sizeof v == 4) v = __builtin_bswap32(v);
    if constexpr (sizeof v == 8) v = __builtin_bswap64(v);
  }
  return static_cast<T>(v);
}

// Days and microseconds between PostgreSQL's epoch (2000-01-01) and 1970-01-01, and the
// range the text path takes (years 1 to 9999: PostgreSQL writes a later year with five
// digits, and BC years with a suffix, which the date parser refuses).
constexpr int64_t kPgEpochDays = 10957;
constexpr int64_t kPgEpochMicros = kPgEpochDays * 86400 * 1000000LL;
constexpr int64_t kMinDays = -719162;  // 0001-01-01
constexpr int64_t kMaxDays = 2932896;  // 9999-12-31
constexpr int64_t kMicrosPerDay = 86400 * 1000000LL;

}  // namespace

bool HasPgBinaryForm(const PgColumn& column) {
  if (column.elem_oid != 0) return false;
  switch (column.type_oid) {
    case kBool: case kBytea: case kInt8: case kInt2: case kInt4: case kOid: case kFloat4: case kFloat8:
    case kDate: case kTime: case kTimestamp: case kTimestampTz: case kUuid:
    case kName: case kText: case kJson: case kBpchar: case kVarchar: case kJsonb:
      return true;
    default:
      return false;
  }
}

Status AppendPgBinary(ColumnVector* out, const Type& type, uint32_t oid, std::string_view v) {
  auto size_is = [&](size_t n) -> Status {
    if (v.size() == n) return Ok();
    return Corrupt("a binary value of type oid {} has {} bytes, not {}", oid, v.size(), n);
  };
  switch (oid) {
    case kBool:
      FLOE_RETURN_IF_ERROR(size_is(1));
      out->Append<uint8_t>(v[0] != 0 ? 1 : 0);
      return Ok();
    case kInt2:
      FLOE_RETURN_IF_ERROR(size_is(2));
      out->Append<int32_t>(BigEndian<int16_t>(v.data()));
      return Ok();
    case kInt4:
      FLOE_RETURN_IF_ERROR(size_is(4));
      out->Append<int32_t>(BigEndian<int32_t>(v.data()));
      return Ok();
    case kOid:
      FLOE_RETURN_IF_ERROR(size_is(4));
      out->Append<int64_t>(BigEndian<uint32_t>(v.data()));
      return Ok();
    case kInt8:
      FLOE_RETURN_IF_ERROR(size_is(8));
      out->Append<int64_t>(BigEndian<int64_t>(v.data()));
      return Ok();
    case kFloat4: {
      FLOE_RETURN_IF_ERROR(size_is(4));
      const float f = std::bit_cast<float>(BigEndian<uint32_t>(v.data()));
      out->Append<float>(std::isnan(f) ? std::numeric_limits<float>::quiet_NaN() : f);  // as the text "NaN" gives
      return Ok();
    }
    case kFloat8: {
      FLOE_RETURN_IF_ERROR(size_is(8));
      const double d = std::bit_cast<double>(BigEndian<uint64_t>(v.data()));
      out->Append<double>(std::isnan(d) ? std::numeric_limits<double>::quiet_NaN() : d);
      return Ok();
    }
    case kDate: {
      FLOE_RETURN_IF_ERROR(size_is(4));
      const int32_t pg = BigEndian<int32_t>(v.data());
      if (pg == std::numeric_limits<int32_t>::max() || pg == std::numeric_limits<int32_t>::min()) {
        return InvalidArgument("date {} has no Iceberg form (infinity and BC dates are refused)",
                               pg > 0 ? "infinity" : "-infinity");
      }
      const int64_t days = int64_t{pg} + kPgEpochDays;
      if (days < kMinDays || days > kMaxDays) {
        return InvalidArgument("date {} days from 1970-01-01 has no Iceberg form floe takes (years 1 to 9999; "
                               "infinity and BC dates are refused)",
                               days);
      }
      out->Append<int32_t>(static_cast<int32_t>(days));
      return Ok();
    }
    case kTime: {
      FLOE_RETURN_IF_ERROR(size_is(8));
      const int64_t us = BigEndian<int64_t>(v.data());
      if (us < 0 || us >= kMicrosPerDay) {
        return InvalidArgument("time of {} microseconds has no Iceberg form (24:00:00 is refused)", us);
      }
      out->Append<int64_t>(us);
      return Ok();
    }
    case kTimestamp:
    case kTimestampTz: {
      FLOE_RETURN_IF_ERROR(size_is(8));
      const int64_t pg = BigEndian<int64_t>(v.data());
      if (pg == std::numeric_limits<int64_t>::max() || pg == std::numeric_limits<int64_t>::min()) {
        return InvalidArgument("timestamp {} has no Iceberg form (infinity and BC dates are refused)",
                               pg > 0 ? "infinity" : "-infinity");
      }
      const int64_t us = pg + kPgEpochMicros;  // no overflow: |pg| < 2^63 - 2^50 for every finite value
      if (us < kMinDays * kMicrosPerDay || us >= (kMaxDays + 1) * kMicrosPerDay) {
        return InvalidArgument("timestamp {} microseconds from 1970-01-01 has no Iceberg form floe takes (years 1 "
                               "to 9999; infinity and BC dates are refused)",
                               us);
      }
      out->Append<int64_t>(us);
      return Ok();
    }
    case kUuid:
      FLOE_RETURN_IF_ERROR(size_is(16));
      out->AppendBytes(v);
      return Ok();
    case kJsonb:
      if (v.empty() || v[0] != 1) return Corrupt("a binary jsonb value without version 1");
      out->AppendBytes(v.substr(1));
      return Ok();
    case kBytea:
    case kName:
    case kText:
    case kJson:
    case kBpchar:
    case kVarchar:
      if (type.id != TypeId::kString && type.id != TypeId::kBinary) break;
      out->AppendBytes(v);
      return Ok();
    default:
      break;
  }
  return Internal("no binary PostgreSQL conversion of type oid {} into {}", oid, static_cast<int>(type.id));
}

TypePtr IcebergTypeOf(const PgColumn& column, int32_t* next_id) {
  if (column.elem_oid != 0) {
    const int32_t id = (*next_id)++;
    return ListType(id, false, ScalarType(column.elem_oid, column.typmod));
  }
  return ScalarType(column.type_oid, column.typmod);
}

Status AppendPgText(ColumnVector* out, const Type& type, uint32_t type_oid, std::string_view text) {
  if (type.id != TypeId::kList) return AppendScalar(out, type, type_oid, text);
  FLOE_ASSIGN_OR_RETURN(auto items, SplitArray(text));
  const Type& elem = *type.fields[0].type;
  ColumnVector& child = out->children[0];
  // The element's own OID matters only for bytea (hex form).
  const uint32_t elem_oid = elem.id == TypeId::kBinary ? kBytea : 0;
  for (const auto& item : items) {
    if (!item) {
      child.AppendNull();
    } else {
      FLOE_RETURN_IF_ERROR(AppendScalar(&child, elem, elem_oid, *item));
    }
  }
  out->CloseListRow();
  return Ok();
}

}  // namespace floe::pgsrc
