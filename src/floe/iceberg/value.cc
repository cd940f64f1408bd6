#include "floe/iceberg/value.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "floe/iceberg/json_internal.h"
#include "floe/iceberg/murmur3.h"
#include "floe/iceberg/temporal.h"
#include "floe/types/visit_type.h"
#include "floe/util/strings.h"

namespace floe::iceberg {

namespace {

template <typename T>
T LoadLe(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // x86-64 is little-endian
  return v;
}

template <typename T>
std::string StoreLe(T v) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

Result<std::string> FromHex(std::string_view text) {
  if (text.size() % 2) return InvalidArgument("hex text '{}' has an odd length", text);
  std::string out(text.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = HexDigitValue(text[2 * i]), lo = HexDigitValue(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return InvalidArgument("'{}' is not hex text", text);
    out[i] = static_cast<char>(hi << 4 | lo);
  }
  return out;
}

std::string Int128ToString(int128_t v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  auto u = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  while (u) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (neg) digits.push_back('-');
  return std::string(digits.rbegin(), digits.rend());
}

}  // namespace

namespace {
/// The alternative of Value::Storage that holds a value of the type `Tag`
/// (the column's C++ type, except bool for boolean and std::string for bytes).
template <typename Tag>
using StorageOf = std::conditional_t<
    std::is_same_v<typename Tag::CType, uint8_t>, bool,
    std::conditional_t<std::is_same_v<typename Tag::CType, std::string_view>, std::string,
                       typename Tag::CType>>;
}  // namespace

bool Value::Matches(const Type& type) const {
  if (is_null()) return true;
  return VisitType(type, [&](auto tag) {
    using Tag = decltype(tag);
    if constexpr (Tag::is_nested) {
      return false;
    } else {
      if (!std::holds_alternative<StorageOf<Tag>>(v)) return false;
      if constexpr (Tag::id == TypeId::kFixed) return as_bytes().size() == static_cast<size_t>(type.length);
      if constexpr (Tag::id == TypeId::kUuid) return as_bytes().size() == 16;
      return true;
    }
  });
}

bool Value::operator==(const Value& other) const {
  if (v.index() != other.v.index()) return false;
  if (std::holds_alternative<float>(v)) {
    return std::bit_cast<uint32_t>(as_float()) == std::bit_cast<uint32_t>(other.as_float());
  }
  if (std::holds_alternative<double>(v)) {
    return std::bit_cast<uint64_t>(as_double()) == std::bit_cast<uint64_t>(other.as_double());
  }
  return v == other.v;
}

Result<std::string> ToBinary(const Type& type, const Value& value) {
  if (type.is_nested()) {
    return InvalidArgument("{} values have no binary single-value form", type.ToString());
  }
  if (value.is_null()) return InvalidArgument("a null {} has no binary single-value form", type.ToString());
  if (!value.Matches(type)) {
    return InvalidArgument("value does not have the physical form of {}", type.ToString());
  }
  switch (type.id) {
    case TypeId::kBoolean: return std::string(1, value.as_bool() ? '\x01' : '\x00');
    case TypeId::kInt:
    case TypeId::kDate: return StoreLe(value.as_int());
    case TypeId::kFloat: return StoreLe(value.as_float());
    case TypeId::kDouble: return StoreLe(value.as_double());
    case TypeId::kDecimal: {
      uint8_t buf[16];
      int n = MinimalBigEndian(value.as_decimal(), buf);
      return std::string(reinterpret_cast<const char*>(buf), n);
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid: return value.as_bytes();
    default: return StoreLe(value.as_long());
  }
}

Result<Value> FromBinary(const Type& type, std::string_view b) {
  auto wrong_size = [&]() {
    return Corrupt("{} bytes cannot hold a binary {} value", b.size(), type.ToString());
  };
  switch (type.id) {
    case TypeId::kBoolean:
      if (b.size() != 1) return wrong_size();
      return Value::Boolean(b[0] != 0);
    case TypeId::kInt:
    case TypeId::kDate:
      if (b.size() != 4) return wrong_size();
      return Value::Int(LoadLe<int32_t>(b.data()));
    case TypeId::kFloat:
      if (b.size() != 4) return wrong_size();
      return Value::Float(LoadLe<float>(b.data()));
    case TypeId::kDouble:
      if (b.size() == 4) return Value::Double(LoadLe<float>(b.data()));  // promoted float
      if (b.size() != 8) return wrong_size();
      return Value::Double(LoadLe<double>(b.data()));
    case TypeId::kDecimal: {
      if (b.empty() || b.size() > 16) return wrong_size();
      // Sign-extend the big-endian two's complement bytes.
      unsigned __int128 u = (static_cast<unsigned char>(b[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
      for (unsigned char c : b) u = (u << 8) | c;
      return Value::Decimal(static_cast<int128_t>(u));
    }
    case TypeId::kString:
    case TypeId::kBinary: return Value::Bytes(std::string(b));
    case TypeId::kUuid:
      if (b.size() != 16) return wrong_size();
      return Value::Bytes(std::string(b));
    case TypeId::kFixed:
      if (b.size() != static_cast<size_t>(type.length)) return wrong_size();
      return Value::Bytes(std::string(b));
    case TypeId::kLong:
      if (b.size() == 4) return Value::Long(LoadLe<int32_t>(b.data()));  // promoted int
      if (b.size() != 8) return wrong_size();
      return Value::Long(LoadLe<int64_t>(b.data()));
    case TypeId::kTimestamp:
    case TypeId::kTimestampNs:
      if (b.size() == 4) {  // promoted date (v3)
        int64_t days = LoadLe<int32_t>(b.data());
        int64_t per_day = kMicrosPerDay * (IsNanosTimestamp(type.id) ? kNanosPerMicro : 1);
        int64_t v = 0;
        if (__builtin_mul_overflow(days, per_day, &v)) {
          return Corrupt("date bound {} is outside the range of {}", days, type.ToString());
        }
        return Value::Long(v);
      }
      if (b.size() != 8) return wrong_size();
      return Value::Long(LoadLe<int64_t>(b.data()));
    case TypeId::kTime:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampTzNs:
      if (b.size() != 8) return wrong_size();
      return Value::Long(LoadLe<int64_t>(b.data()));
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap: break;
  }
  return InvalidArgument("{} values have no binary single-value form", type.ToString());
}

std::string DecimalToString(int128_t unscaled, int32_t scale) {
  std::string digits = Int128ToString(unscaled < 0 ? -unscaled : unscaled);
  std::string sign = unscaled < 0 ? "-" : "";
  if (scale <= 0) return sign + digits + std::string(static_cast<size_t>(-scale), '0');
  if (digits.size() <= static_cast<size_t>(scale)) {
    digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
  }
  digits.insert(digits.size() - scale, ".");
  return sign + digits;
}

Result<int128_t> DecimalFromString(std::string_view text, int32_t scale) {
  std::string_view s = text;
  bool neg = false;
  size_t p = 0;
  if (p < s.size() && (s[p] == '-' || s[p] == '+')) neg = s[p++] == '-';
  std::string digits;
  int64_t frac = 0;
  bool dot = false;
  for (; p < s.size(); ++p) {
    char c = s[p];
    if (c >= '0' && c <= '9') {
      digits.push_back(c);
      if (dot) ++frac;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  int64_t exp = 0;
  if (p < s.size() && (s[p] == 'e' || s[p] == 'E')) {
    ++p;
    auto [end, ec] = std::from_chars(s.data() + p + (p < s.size() && s[p] == '+'), s.data() + s.size(), exp);
    if (ec != std::errc()) return InvalidArgument("'{}' is not a decimal number", text);
    p = static_cast<size_t>(end - s.data());
  }
  if (digits.empty() || p != s.size()) return InvalidArgument("'{}' is not a decimal number", text);
  int64_t shift = exp - frac + scale;  // unscaled = digits * 10^shift
  if (shift < 0) {
    size_t drop = static_cast<size_t>(-shift);
    if (drop > digits.size()) drop = digits.size();
    for (size_t i = digits.size() - drop; i < digits.size(); ++i) {
      if (digits[i] != '0') {
        return InvalidArgument("'{}' has more than {} digits after the point", text, scale);
      }
    }
    digits.resize(digits.size() - drop);
  } else {
    if (shift > 38) shift = 39;  // forces the overflow error below unless the value is zero
    digits.append(static_cast<size_t>(shift), '0');
  }
  size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return int128_t{0};
  digits.erase(0, first);
  if (digits.size() > 38) return InvalidArgument("'{}' has more than 38 digits at scale {}", text, scale);
  int128_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  return neg ? -v : v;
}

std::string FormatDate(int32_t days) { return civil::FormatDate(days, civil::YearStyle::kJava); }

std::string FormatTime(int64_t micros) {
  std::string out;
  civil::AppendTimeOfDay(micros, 6, &out);
  return out;
}

std::string FormatTimestamp(int64_t value, bool nanos, bool zone) {
  std::string out;
  civil::AppendTimestamp(value, nanos ? 9 : 6, civil::YearStyle::kJava, &out);
  if (zone) out += "+00:00";
  return out;
}

// The single-value JSON forms are the ISO ones Java writes (civil::Spelling::kIso).
Result<int32_t> ParseDate(std::string_view text) {
  int64_t days = 0;
  if (!civil::ParseDate(text, civil::Spelling::kIso, &days) ||
      days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max()) {
    return InvalidArgument("'{}' is not an ISO-8601 date (YYYY-MM-DD)", text);
  }
  return static_cast<int32_t>(days);
}

Result<int64_t> ParseTime(std::string_view text) {
  int64_t nanos = 0;
  if (!civil::ParseTime(text, civil::Spelling::kIso, &nanos)) {
    return InvalidArgument("'{}' is not an ISO-8601 time (HH:MM:SS.ffffff)", text);
  }
  if (nanos % kNanosPerMicro != 0) {
    return InvalidArgument("time '{}' is more precise than microseconds", text);
  }
  return nanos / kNanosPerMicro;
}

Result<int64_t> ParseTimestamp(std::string_view text, bool nanos, bool zone) {
  civil::TimestampParts parts;
  if (!civil::ParseTimestamp(text, civil::Spelling::kIso, &parts) || parts.has_zone != zone) {
    return InvalidArgument("'{}' is not an ISO-8601 timestamp{}", text,
                           zone ? " with a zone offset" : " without a zone offset");
  }
  if (!nanos && parts.nanos_of_day % kNanosPerMicro != 0) {
    return InvalidArgument("timestamp '{}' is more precise than microseconds", text);
  }
  int64_t v = 0;
  if (!civil::EpochUnits(parts, nanos ? 9 : 6, &v)) {
    return InvalidArgument("timestamp '{}' is out of the {} range", text,
                           nanos ? "nanosecond" : "microsecond");
  }
  return v;
}

std::string FormatUuid(std::string_view b) {
  std::string hex = ToHex(b);
  if (hex.size() != 32) return hex;
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

Result<std::string> ParseUuid(std::string_view text) {
  if (text.size() != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' || text[23] != '-') {
    return InvalidArgument("'{}' is not a uuid (8-4-4-4-12 hex digits)", text);
  }
  std::string hex;
  for (char c : text) {
    if (c != '-') hex.push_back(c);
  }
  auto bytes = FromHex(hex);
  if (!bytes) return InvalidArgument("'{}' is not a uuid (8-4-4-4-12 hex digits)", text);
  return bytes;
}

Result<Json> ValueToJsonValue(const Type& type, const Value& value) {
  if (type.is_nested()) {
    return InvalidArgument("JSON single values of {} are not supported yet", type.ToString());
  }
  if (value.is_null()) return Json(nullptr);
  if (!value.Matches(type)) {
    return InvalidArgument("value does not have the physical form of {}", type.ToString());
  }
  auto floating = [](double d) -> Json {
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
    return d;
  };
  switch (type.id) {
    case TypeId::kBoolean: return Json(value.as_bool());
    case TypeId::kInt: return Json(value.as_int());
    case TypeId::kLong: return Json(value.as_long());
    case TypeId::kFloat: return floating(value.as_float());
    case TypeId::kDouble: return floating(value.as_double());
    case TypeId::kDecimal: return Json(DecimalToString(value.as_decimal(), type.scale));
    case TypeId::kDate: return Json(FormatDate(value.as_int()));
    case TypeId::kTime: return Json(FormatTime(value.as_long()));
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return Json(FormatTimestamp(value.as_long(), IsNanosTimestamp(type.id), IsZonedTimestamp(type.id)));
    case TypeId::kString: return Json(value.as_bytes());
    case TypeId::kUuid: return Json(FormatUuid(value.as_bytes()));
    case TypeId::kFixed:
    case TypeId::kBinary: return Json(ToHex(value.as_bytes()));
    default: break;
  }
  return Internal("unhandled type {}", type.ToString());
}

Result<Value> ValueFromJsonValue(const Type& type, const Json& j, std::string_view ctx) {
  using json_internal::KindName;
  if (j.is_null()) return Value::Null();
  auto need = [&](std::string_view what) {
    return InvalidArgument("{}: a {} value must be a JSON {}, got {}", ctx, type.ToString(), what,
                           KindName(j));
  };
  auto with_ctx = [&](Error e) { return Fail(std::move(e).WithContext(ctx)); };
  switch (type.id) {
    case TypeId::kBoolean:
      if (!j.is_boolean()) return need("boolean");
      return Value::Boolean(j.get<bool>());
    case TypeId::kInt: {
      if (!j.is_number_integer()) return need("integer");
      auto v = json_internal::AsInt(j, ctx);
      if (!v) return InvalidArgument("{}", v.error().message);
      return Value::Int(*v);
    }
    case TypeId::kLong: {
      if (!j.is_number_integer()) return need("integer");
      auto v = json_internal::AsLong(j, ctx);
      if (!v) return InvalidArgument("{}", v.error().message);
      return Value::Long(*v);
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double d = 0;
      if (j.is_number()) {
        d = j.get<double>();
      } else if (j.is_string() && j.get<std::string>() == "NaN") {
        d = std::numeric_limits<double>::quiet_NaN();
      } else if (j.is_string() && j.get<std::string>() == "Infinity") {
        d = std::numeric_limits<double>::infinity();
      } else if (j.is_string() && j.get<std::string>() == "-Infinity") {
        d = -std::numeric_limits<double>::infinity();
      } else {
        return need("number");
      }
      if (type.id == TypeId::kFloat) return Value::Float(static_cast<float>(d));
      return Value::Double(d);
    }
    default: break;
  }
  if (type.is_nested()) {
    return InvalidArgument("{}: JSON single values of {} are not supported yet", ctx, type.ToString());
  }
  if (!j.is_string()) return need("string");
  const std::string& s = j.get_ref<const std::string&>();
  switch (type.id) {
    case TypeId::kDecimal: {
      auto v = DecimalFromString(s, type.scale);
      if (!v) return with_ctx(v.error());
      int128_t limit = 1;
      for (int i = 0; i < type.precision; ++i) limit *= 10;
      if (*v >= limit || *v <= -limit) {
        return InvalidArgument("{}: '{}' does not fit {}", ctx, s, type.ToString());
      }
      return Value::Decimal(*v);
    }
    case TypeId::kDate: {
      auto v = ParseDate(s);
      if (!v) return with_ctx(v.error());
      return Value::Date(*v);
    }
    case TypeId::kTime: {
      auto v = ParseTime(s);
      if (!v) return with_ctx(v.error());
      return Value::Time(*v);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      auto v = ParseTimestamp(s, IsNanosTimestamp(type.id), IsZonedTimestamp(type.id));
      if (!v) return with_ctx(v.error());
      return Value::Timestamp(*v);
    }
    case TypeId::kString: return Value::String(s);
    case TypeId::kUuid: {
      auto v = ParseUuid(s);
      if (!v) return with_ctx(v.error());
      return Value::Bytes(std::move(*v));
    }
    case TypeId::kFixed:
    case TypeId::kBinary: {
      auto v = FromHex(s);
      if (!v) return with_ctx(v.error());
      if (type.id == TypeId::kFixed && v->size() != static_cast<size_t>(type.length)) {
        return InvalidArgument("{}: '{}' is {} bytes, not {}", ctx, s, v->size(), type.ToString());
      }
      return Value::Bytes(std::move(*v));
    }
    default: break;
  }
  return Internal("unhandled type {}", type.ToString());
}

Result<std::string> ToJsonText(const Type& type, const Value& value) {
  FLOE_ASSIGN_OR_RETURN(Json j, ValueToJsonValue(type, value));
  return json_internal::Dump(j);
}

Result<Value> FromJsonText(const Type& type, std::string_view json) {
  Json j = Json::parse(json.begin(), json.end(), nullptr, false);
  if (j.is_discarded()) return InvalidArgument("'{}' is not valid JSON", json);
  return ValueFromJsonValue(type, j, fmt::format("{} value", type.ToString()));
}

Result<Json> ColumnValueToJsonValue(const ColumnVector& c, int64_t row) {
  const Type& type = *c.type;
  if (c.IsNull(row)) return Json(nullptr);
  if (!type.is_nested()) return ValueToJsonValue(type, ValueAt(c, row));
  switch (type.id) {
    case TypeId::kStruct: {
      Json obj = Json::object();
      for (size_t i = 0; i < type.fields.size(); ++i) {
        FLOE_ASSIGN_OR_RETURN(Json v, ColumnValueToJsonValue(c.children[i], row));
        obj[std::to_string(type.fields[i].id)] = std::move(v);
      }
      return obj;
    }
    case TypeId::kList: {
      Json arr = Json::array();
      for (int64_t i = c.offsets[row]; i < c.offsets[row + 1]; ++i) {
        FLOE_ASSIGN_OR_RETURN(Json v, ColumnValueToJsonValue(c.children[0], i));
        arr.push_back(std::move(v));
      }
      return arr;
    }
    default: {  // map
      Json keys = Json::array(), values = Json::array();
      for (int64_t i = c.offsets[row]; i < c.offsets[row + 1]; ++i) {
        FLOE_ASSIGN_OR_RETURN(Json k, ColumnValueToJsonValue(c.children[0], i));
        FLOE_ASSIGN_OR_RETURN(Json v, ColumnValueToJsonValue(c.children[1], i));
        keys.push_back(std::move(k));
        values.push_back(std::move(v));
      }
      Json obj = Json::object();
      obj["keys"] = std::move(keys);
      obj["values"] = std::move(values);
      return obj;
    }
  }
}

Status AppendJsonValue(ColumnVector* c, const Json& j, std::string_view ctx) {
  const Type& type = *c->type;
  if (j.is_null()) {
    c->AppendNull();
    return Ok();
  }
  switch (type.id) {
    case TypeId::kStruct: {
      if (!j.is_object()) {
        return InvalidArgument("{}: a struct value must be a JSON object, got {}", ctx,
                               json_internal::KindName(j));
      }
      for (auto it = j.begin(); it != j.end(); ++it) {
        bool known = false;
        for (const auto& f : type.fields) known |= std::to_string(f.id) == it.key();
        if (!known) return InvalidArgument("{}: the struct has no field with id {}", ctx, it.key());
      }
      for (size_t i = 0; i < type.fields.size(); ++i) {
        const Json* v = json_internal::Find(j, std::to_string(type.fields[i].id));
        FLOE_RETURN_IF_ERROR(AppendJsonValue(&c->children[i], v ? *v : Json(nullptr),
                                             fmt::format("{}.{}", ctx, type.fields[i].name)));
      }
      c->AppendStructRow();
      return Ok();
    }
    case TypeId::kList: {
      if (!j.is_array()) {
        return InvalidArgument("{}: a list value must be a JSON array, got {}", ctx,
                               json_internal::KindName(j));
      }
      for (const auto& e : j) {
        FLOE_RETURN_IF_ERROR(AppendJsonValue(&c->children[0], e, fmt::format("{}.element", ctx)));
      }
      c->CloseListRow();
      return Ok();
    }
    case TypeId::kMap: {
      const Json* keys = json_internal::Find(j, "keys");
      const Json* values = json_internal::Find(j, "values");
      if (!keys || !values || !keys->is_array() || !values->is_array() ||
          keys->size() != values->size()) {
        return InvalidArgument(
            "{}: a map value must be {{\"keys\": [...], \"values\": [...]}} with arrays of equal length", ctx);
      }
      for (size_t i = 0; i < keys->size(); ++i) {
        if ((*keys)[i].is_null()) return InvalidArgument("{}: map keys cannot be null", ctx);
        FLOE_RETURN_IF_ERROR(AppendJsonValue(&c->children[0], (*keys)[i], fmt::format("{}.key", ctx)));
        FLOE_RETURN_IF_ERROR(AppendJsonValue(&c->children[1], (*values)[i], fmt::format("{}.value", ctx)));
      }
      c->CloseListRow();
      return Ok();
    }
    default: {
      FLOE_ASSIGN_OR_RETURN(Value v, ValueFromJsonValue(type, j, ctx));
      return AppendValue(c, v);
    }
  }
}

Result<std::string> ColumnValueToJsonText(const ColumnVector& column, int64_t row) {
  if (row < 0 || row >= column.length) {
    return InvalidArgument("row {} is outside the column (length {})", row, column.length);
  }
  FLOE_ASSIGN_OR_RETURN(Json j, ColumnValueToJsonValue(column, row));
  return json_internal::Dump(j);
}

Status AppendJsonText(ColumnVector* column, std::string_view json) {
  Json j = Json::parse(json.begin(), json.end(), nullptr, false);
  if (j.is_discarded()) return InvalidArgument("'{}' is not valid JSON", json);
  return AppendJsonValue(column, j, column->type->ToString() + " value");
}

std::string ValueToString(const Type& type, const Value& value) {
  auto j = ValueToJsonValue(type, value);
  if (!j) return "<invalid>";
  if (j->is_string()) return j->get<std::string>();
  auto text = json_internal::Dump(*j);
  return text ? *text : "<invalid>";
}

namespace {
template <typename T>
int Cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}
// Java's Double.compare: -0.0 < 0.0 and NaN above everything (NaNs equal).
int CompareFloating(double a, double b) {
  bool an = a != a, bn = b != b;
  if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
  if (a == 0.0 && b == 0.0) return Cmp(std::signbit(b), std::signbit(a));
  return Cmp(a, b);
}
}  // namespace

int CompareValues(const Type& type, const Value& a, const Value& b) {
  return VisitType(type, [&](auto tag) {
    using S = StorageOf<decltype(tag)>;
    if constexpr (std::is_same_v<S, void>) {
      return 0;  // nested: no single values
    } else if constexpr (std::is_floating_point_v<S>) {
      return CompareFloating(std::get<S>(a.v), std::get<S>(b.v));
    } else if constexpr (std::is_same_v<S, std::string>) {
      // std::string compares chars as unsigned (char_traits<char>::lt).
      int c = a.as_bytes().compare(b.as_bytes());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    } else {
      return Cmp(std::get<S>(a.v), std::get<S>(b.v));
    }
  });
}

Status AppendValue(ColumnVector* column, const Value& value) {
  const Type& type = *column->type;
  if (type.is_nested()) return InvalidArgument("cannot append a single value to a {} column", type.ToString());
  if (!value.Matches(type)) {
    return InvalidArgument("value does not have the physical form of {}", type.ToString());
  }
  if (value.is_null()) {
    column->AppendNull();
    return Ok();
  }
  VisitType(type, [&](auto tag) {
    using Tag = decltype(tag);
    using S = StorageOf<Tag>;
    if constexpr (std::is_same_v<S, std::string>) {
      column->AppendBytes(value.as_bytes());
    } else if constexpr (std::is_same_v<S, bool>) {
      column->Append<uint8_t>(value.as_bool() ? 1 : 0);
    } else if constexpr (!Tag::is_nested) {
      column->Append(std::get<S>(value.v));
    }
  });
  return Ok();
}

Value ValueAt(const ColumnVector& c, int64_t row) {
  if (c.IsNull(row)) return Value::Null();
  return VisitType(*c.type, [&](auto tag) {
    using Tag = decltype(tag);
    using S = StorageOf<Tag>;
    if constexpr (Tag::is_nested) {
      return Value::Null();
    } else if constexpr (std::is_same_v<S, std::string>) {
      return Value::Bytes(std::string(c.bytes(row)));
    } else if constexpr (std::is_same_v<S, bool>) {
      return Value::Boolean(c.data<uint8_t>()[row] != 0);
    } else {
      S v;  // memcpy: decimal slots need not be 16-byte aligned
      std::memcpy(&v, c.values.data() + sizeof(S) * row, sizeof(S));
      return Value::Of(v);
    }
  });
}

}  // namespace floe::iceberg
