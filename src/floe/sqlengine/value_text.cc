// Flink's text forms of values (see value_text.h).
#include "floe/sqlengine/value_text.h"

#include <charconv>
#include <cmath>

#include "floe/sql/sql_types.h"
#include "floe/sqlengine/engine_types.h"
#include "floe/types/json_value.h"
#include "floe/util/civil_time.h"

namespace floe::sqlengine {

namespace {

// Java's Double.toString layout from the shortest round-trip digits:
// 1e-3 <= |v| < 1e7 in plain notation with at least one fraction digit,
// otherwise d.dddE[-]n (JLS: Double.toString).
std::string JavaText(std::string_view sci) {
  // sci: [-]d[.ddd]e[+-]nn from std::to_chars(scientific)
  std::string out;
  size_t i = 0;
  if (sci[0] == '-') {
    out.push_back('-');
    i = 1;
  }
  const size_t e = sci.find('e');
  std::string digits;
  for (size_t k = i; k < e; ++k) {
    if (sci[k] != '.') digits.push_back(sci[k]);
  }
  int exp = std::stoi(std::string(sci.substr(e + 1)));
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (exp >= -3 && exp < 7) {
    if (exp >= 0) {
      std::string int_part = digits.substr(0, std::min<size_t>(digits.size(), size_t(exp) + 1));
      while (int_part.size() < size_t(exp) + 1) int_part.push_back('0');
      std::string frac = digits.size() > size_t(exp) + 1 ? digits.substr(size_t(exp) + 1) : "0";
      out += int_part + "." + frac;
    } else {
      out += "0." + std::string(size_t(-exp - 1), '0') + digits;
    }
  } else {
    out += digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "E" +
           std::to_string(exp);
  }
  return out;
}

template <typename F>
std::string FloatingText(F v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  return JavaText(std::string_view(buf, r.ptr - buf));
}

// Epoch units of 10^-unit_digits seconds as "YYYY-MM-DD HH:MM:SS[.f{precision}]".
void AppendTimestampValue(int64_t units, int unit_digits, int precision, std::string* out) {
  const int64_t per_day = unit_digits == 9 ? civil::kNanosPerDay : civil::kMicrosPerDay;
  const int64_t days = civil::FloorDiv(units, per_day);
  int64_t of_day = civil::FloorMod(units, per_day);
  civil::AppendDate(days, civil::YearStyle::kJava, out);
  out->push_back(' ');
  // Cut the fraction to the type's precision (the value holds no more).
  int digits = std::min(precision, unit_digits);
  int64_t div = 1;
  for (int i = digits; i < unit_digits; ++i) div *= 10;
  civil::AppendTimeOfDay(of_day / div, digits, out);
  for (int i = digits; i < precision; ++i) {
    if (i == 0) out->push_back('.');
    out->push_back('0');
  }
}

}  // namespace

std::string JavaDoubleText(double v) { return FloatingText(v); }
std::string JavaFloatText(float v) { return FloatingText(v); }

void AppendValueText(const ColumnVector& col, const sql::DataType& type, int64_t row,
                     std::string* out) {
  if (col.IsNull(row)) return;
  using sql::TypeName;
  switch (col.type->id) {
    case TypeId::kBoolean: *out += col.data<uint8_t>()[row] ? "TRUE" : "FALSE"; return;
    case TypeId::kInt: *out += std::to_string(col.data<int32_t>()[row]); return;
    case TypeId::kLong: *out += std::to_string(col.data<int64_t>()[row]); return;
    case TypeId::kFloat: *out += JavaFloatText(col.data<float>()[row]); return;
    case TypeId::kDouble: *out += JavaDoubleText(col.data<double>()[row]); return;
    case TypeId::kDecimal:
      AppendDecimalText(col.data<int128_t>()[row], col.type->scale, out);
      return;
    case TypeId::kDate:
      civil::AppendDate(col.data<int32_t>()[row], civil::YearStyle::kJava, out);
      return;
    case TypeId::kTime: {
      int precision = type.name == TypeName::kTime ? sql::EffectivePrecision(type) : 6;
      int64_t micros = col.data<int64_t>()[row];
      int digits = std::min(precision, 6);
      int64_t div = 1;
      for (int i = digits; i < 6; ++i) div *= 10;
      civil::AppendTimeOfDay(micros / div, digits, out);
      return;
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      const bool ns = IsNanosTimestamp(col.type->id);
      int precision = (type.name == TypeName::kTimestamp || type.name == TypeName::kTimestampLtz)
                          ? sql::EffectivePrecision(type)
                          : (ns ? 9 : 6);
      AppendTimestampValue(col.data<int64_t>()[row], ns ? 9 : 6, precision, out);
      return;
    }
    case TypeId::kString: *out += col.bytes(row); return;
    case TypeId::kUuid: {
      // Iceberg uuid columns read as BINARY(16) in Flink; print the usual form.
      std::string hex;
      AppendHex(col.bytes(row), &hex);
      *out += hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
              hex.substr(16, 4) + "-" + hex.substr(20);
      return;
    }
    case TypeId::kFixed:
    case TypeId::kBinary:
      *out += "x'";
      AppendHex(col.bytes(row), out);
      out->push_back('\'');
      return;
    case TypeId::kList: {
      const sql::DataType elem =
          type.elements.empty() ? LogicalOf(*col.type->element().type, true) : type.elements[0];
      out->push_back('[');
      for (int64_t i = col.offsets[row]; i < col.offsets[row + 1]; ++i) {
        if (i > col.offsets[row]) *out += ", ";
        if (col.children[0].IsNull(i)) {
          *out += "NULL";
        } else {
          AppendValueText(col.children[0], elem, i, out);
        }
      }
      out->push_back(']');
      return;
    }
    case TypeId::kMap: {
      const sql::DataType kt =
          type.elements.size() == 2 ? type.elements[0] : LogicalOf(*col.type->key().type, false);
      const sql::DataType vt =
          type.elements.size() == 2 ? type.elements[1] : LogicalOf(*col.type->value().type, true);
      out->push_back('{');
      for (int64_t i = col.offsets[row]; i < col.offsets[row + 1]; ++i) {
        if (i > col.offsets[row]) *out += ", ";
        AppendValueText(col.children[0], kt, i, out);
        out->push_back('=');
        if (col.children[1].IsNull(i)) {
          *out += "NULL";
        } else {
          AppendValueText(col.children[1], vt, i, out);
        }
      }
      out->push_back('}');
      return;
    }
    case TypeId::kStruct: {
      out->push_back('(');
      for (size_t f = 0; f < col.children.size(); ++f) {
        if (f) *out += ", ";
        const sql::DataType ft = f < type.fields.size()
                                     ? type.fields[f].type
                                     : LogicalOf(*col.type->fields[f].type, true);
        if (col.children[f].IsNull(row)) {
          *out += "NULL";
        } else {
          AppendValueText(col.children[f], ft, row, out);
        }
      }
      out->push_back(')');
      return;
    }
  }
}

}  // namespace floe::sqlengine
