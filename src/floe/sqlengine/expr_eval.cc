// Binder and columnar evaluator of the engine's expressions (expr_eval.h).
#include "floe/sqlengine/expr_eval.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "floe/format/value_parse.h"
#include "floe/sql/printer.h"
#include "floe/sql/sql_types.h"
#include "floe/sqlengine/scalar_functions.h"
#include "floe/sqlengine/value_text.h"
#include "floe/types/column_ops.h"
#include "floe/util/civil_time.h"

namespace floe::sqlengine {

using sql::DataType;
using sql::TypeName;

Error ValidationError(const sql::Span& span, std::string_view message) {
  return Error{
      ErrorKind::kInvalidArgument,
      fmt::format("SQL validation failed. From line {}, column {} to line {}, column {}: {}",
                  span.begin.line, span.begin.column, span.end.line, span.end.column, message),
      false};
}

std::string ExprName(int index) { return fmt::format("EXPR${}", index); }

bool BoundExpr::IsConstant() const {
  if (kind == BoundKind::kLiteral) return true;
  if (kind == BoundKind::kCast) return args[0].IsConstant();
  return false;
}

namespace {

// ---------------------------------------------------------------- helpers

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

int64_t CodePoints(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

int128_t Pow10(int n) {
  int128_t p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

int128_t MaxUnscaled(int precision) { return Pow10(precision) - 1; }

// Rounds v / 10^k half away from zero (Java's RoundingMode.HALF_UP).
int128_t DivRoundHalfUp(int128_t v, int128_t div) {
  int128_t q = v / div, r = v % div;
  if (r < 0) r = -r;
  if (r * 2 >= div) q += v < 0 ? -1 : 1;
  return q;
}

// `v` (unscaled at `from_scale`) at `to_scale`; false on overflow of int128.
bool Rescale(int128_t v, int from_scale, int to_scale, int128_t* out) {
  if (to_scale >= from_scale) {
    const int128_t m = Pow10(to_scale - from_scale);
    const int128_t limit = std::numeric_limits<int128_t>::max() / m;
    if (v > limit || v < -limit) return false;
    *out = v * m;
  } else {
    *out = DivRoundHalfUp(v, Pow10(from_scale - to_scale));
  }
  return true;
}

DataType Nullable(DataType t, bool nullable) {
  t.nullable = nullable;
  return t;
}

std::string TypeText(const DataType& t) {
  return sql::TypeToSql(Nullable(t, true), sql::TypeStyle::kSummary);
}

// The family names Calcite prints in "No match found for function signature f(<NUMERIC>)".
std::string Family(const DataType& t) {
  if (IsNumeric(t.name)) return "<NUMERIC>";
  if (IsCharacter(t.name)) return "<CHARACTER>";
  if (IsBinaryString(t.name)) return "<BINARY>";
  if (t.name == TypeName::kBoolean) return "<BOOLEAN>";
  if (t.name == TypeName::kDate) return "<DATE>";
  if (t.name == TypeName::kTime) return "<TIME>";
  if (t.name == TypeName::kTimestamp || t.name == TypeName::kTimestampLtz) return "<TIMESTAMP>";
  return "<ANY>";
}

// One-row constant columns.
ColumnVector OneRow(const TypePtr& type) { return ColumnVector(type); }

Result<BoundExpr> MakeLiteral(DataType type, ColumnVector value, const sql::Span& span) {
  BoundExpr e;
  e.kind = BoundKind::kLiteral;
  FLOE_ASSIGN_OR_RETURN(e.physical, PhysicalOf(type));
  value.type = e.physical;
  e.type = std::move(type);
  e.literal = std::move(value);
  e.span = span;
  return e;
}

// ------------------------------------------------------------- evaluation

// Validity of a result from its inputs: empty when every input is all-valid.
std::vector<uint8_t> CombineValidity(const std::vector<const ColumnVector*>& inputs, int64_t n) {
  std::vector<uint8_t> v;
  for (const ColumnVector* c : inputs) {
    if (!c->has_nulls()) continue;
    if (v.empty()) {
      v = c->validity;
    } else {
      for (int64_t i = 0; i < n; ++i) v[i] &= c->validity[i];
    }
  }
  return v;
}

template <typename T>
ColumnVector MakeFixed(const TypePtr& type, int64_t n) {
  ColumnVector c(type);
  c.values.Resize(static_cast<size_t>(n) * sizeof(T));
  c.length = n;
  return c;
}

ColumnVector Broadcast(const ColumnVector& one, int64_t n) {
  std::vector<int64_t> idx(static_cast<size_t>(n), 0);
  return Take(one, idx);
}

// Reads a numeric column value as double / int128 (decimals unscaled).
double AsDouble(const ColumnVector& c, int64_t i) {
  switch (c.type->id) {
    case TypeId::kBoolean: return c.data<uint8_t>()[i];
    case TypeId::kInt: return c.data<int32_t>()[i];
    case TypeId::kLong: return static_cast<double>(c.data<int64_t>()[i]);
    case TypeId::kFloat: return c.data<float>()[i];
    case TypeId::kDouble: return c.data<double>()[i];
    case TypeId::kDecimal:
      return static_cast<double>(static_cast<long double>(c.data<int128_t>()[i]) /
                                 static_cast<long double>(Pow10(c.type->scale)));
    default: return 0;
  }
}

int64_t AsLong(const ColumnVector& c, int64_t i) {
  switch (c.type->id) {
    case TypeId::kBoolean: return c.data<uint8_t>()[i];
    case TypeId::kInt:
    case TypeId::kDate: return c.data<int32_t>()[i];
    case TypeId::kDecimal:
      return static_cast<int64_t>(c.data<int128_t>()[i] / Pow10(c.type->scale));
    case TypeId::kFloat:
    case TypeId::kDouble: {
      // Java's (long) cast: NaN is 0, out of range saturates.
      double d = AsDouble(c, i);
      if (std::isnan(d)) return 0;
      if (d >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
      if (d <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
      return static_cast<int64_t>(d);
    }
    default: return c.data<int64_t>()[i];
  }
}

// Wraps an integer to the width of a Flink integral type (Java's narrowing).
int64_t WrapTo(TypeName t, int64_t v) {
  switch (t) {
    case TypeName::kTinyInt: return static_cast<int8_t>(v);
    case TypeName::kSmallInt: return static_cast<int16_t>(v);
    case TypeName::kInt: return static_cast<int32_t>(v);
    default: return v;
  }
}

// Parses a decimal string with rounding to `scale` (HALF_UP), as Flink's
// CAST(string AS DECIMAL) does; false when it is no number.
bool ParseDecimalRounded(std::string_view s, int scale, int128_t* out) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  bool neg = false;
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  std::string digits;
  int frac = 0;
  bool dot = false, any = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      any = true;
      if (digits.size() < 60) {
        digits.push_back(c);
        if (dot) ++frac;
      } else if (!dot) {
        return false;
      }
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  int exp = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
    if (i >= s.size()) return false;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      exp = exp * 10 + (s[i] - '0');
      if (exp > 100) return false;
    }
    if (eneg) exp = -exp;
  }
  if (!any || i != s.size()) return false;
  // value = digits * 10^(exp - frac)
  int shift = scale - (frac - exp);  // multiply digits by 10^shift
  int128_t v = 0;
  size_t n = digits.size();
  if (shift < 0) {
    // drop -shift digits with rounding
    size_t keep = -shift >= static_cast<int>(n) ? 0 : n - static_cast<size_t>(-shift);
    for (size_t k = 0; k < keep; ++k) {
      if (v > std::numeric_limits<int128_t>::max() / 10 - 10) return false;
      v = v * 10 + (digits[k] - '0');
    }
    if (keep < n && -shift <= static_cast<int>(n) && digits[keep] >= '5') v += 1;
  } else {
    for (char c : digits) {
      if (v > std::numeric_limits<int128_t>::max() / 10 - 10) return false;
      v = v * 10 + (c - '0');
    }
    for (int k = 0; k < shift; ++k) {
      if (v > std::numeric_limits<int128_t>::max() / 10) return false;
      v *= 10;
    }
  }
  *out = neg ? -v : v;
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

// ------------------------------------------------------------------- casts

Result<ColumnVector> CastColumn(const ColumnVector& in, const DataType& from, const DataType& to,
                                const TypePtr& to_physical, bool try_cast) {
  const int64_t n = in.length;
  // Same physical representation: reuse the values (CHAR(3) -> STRING,
  // INT -> INT NOT NULL, VARBINARY -> BYTES).
  if (SameShape(*in.type, *to_physical) &&
      (SameLogical(from, to) || (IsCharacter(from.name) && IsCharacter(to.name)))) {
    ColumnVector out = in;
    Retype(&out, to_physical);
    return out;
  }
  ColumnVector out(to_physical);
  auto bad = [&](int64_t i, std::string_view what) -> Status {
    if (try_cast) {
      out.AppendNull();
      return Ok();
    }
    std::string text;
    AppendValueText(in, from, i, &text);
    return Fail(Error{ErrorKind::kInvalidArgument,
                      fmt::format("Cannot cast '{}' of type {} to {}{}{}", text, TypeText(from),
                                  TypeText(to), what.empty() ? "" : ": ", what),
                      false});
  };
  const TypeName t = to.name;
  const TypeName f = from.name;
  for (int64_t i = 0; i < n; ++i) {
    if (in.IsNull(i)) {
      out.AppendNull();
      continue;
    }
    switch (to_physical->id) {
      case TypeId::kBoolean: {
        bool v = false;
        if (IsCharacter(f)) {
          std::string u = Upper(Trim(in.bytes(i)));
          if (u == "TRUE" || u == "T" || u == "YES" || u == "Y" || u == "1") {
            v = true;
          } else if (u == "FALSE" || u == "F" || u == "NO" || u == "N" || u == "0") {
            v = false;
          } else {
            FLOE_RETURN_IF_ERROR(bad(i, ""));
            continue;
          }
        } else if (in.type->id == TypeId::kBoolean) {
          v = in.data<uint8_t>()[i];
        } else {
          v = AsDouble(in, i) != 0;
        }
        out.Append<uint8_t>(v);
        break;
      }
      case TypeId::kInt:
      case TypeId::kLong:
      case TypeId::kDate:
      case TypeId::kTime:
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz: {
        if (to_physical->id == TypeId::kDate) {
          // DATE
          int32_t days = 0;
          if (IsCharacter(f)) {
            auto d = format::ParseDateText(Trim(in.bytes(i)));
            if (!d) {
              FLOE_RETURN_IF_ERROR(bad(i, ""));
              continue;
            }
            days = *d;
          } else if (in.type->id == TypeId::kDate) {
            days = in.data<int32_t>()[i];
          } else {
            // a timestamp: its date (UTC)
            const int64_t per_day =
                IsNanosTimestamp(in.type->id) ? civil::kNanosPerDay : civil::kMicrosPerDay;
            days = static_cast<int32_t>(civil::FloorDiv(in.data<int64_t>()[i], per_day));
          }
          out.Append<int32_t>(days);
          break;
        }
        if (to_physical->id != TypeId::kInt && to_physical->id != TypeId::kLong) {
          int64_t v = 0;
          if (IsCharacter(f)) {
            Result<int64_t> r = t == TypeName::kTime
                                    ? format::ParseTimeText(Trim(in.bytes(i)))
                                    : format::ParseTimestampText(Trim(in.bytes(i)), *to_physical);
            if (!r) {
              FLOE_RETURN_IF_ERROR(bad(i, ""));
              continue;
            }
            v = *r;
          } else if (in.type->id == TypeId::kDate) {
            v = int64_t{in.data<int32_t>()[i]} * civil::kMicrosPerDay;
          } else if (t == TypeName::kTime) {
            const int64_t per_day =
                IsNanosTimestamp(in.type->id) ? civil::kNanosPerDay : civil::kMicrosPerDay;
            v = in.type->id == TypeId::kTime ? in.data<int64_t>()[i]
                                             : civil::FloorMod(in.data<int64_t>()[i], per_day);
            if (IsNanosTimestamp(in.type->id)) v /= 1000;
          } else {
            v = in.data<int64_t>()[i];
            if (IsNanosTimestamp(in.type->id)) v = civil::FloorDiv(v, 1000);
          }
          out.Append<int64_t>(v);
          break;
        }
        int64_t v = 0;
        if (IsCharacter(f)) {
          auto r = format::ParseIntegerText(Trim(in.bytes(i)), *LongType());
          if (!r) {
            FLOE_RETURN_IF_ERROR(bad(i, ""));
            continue;
          }
          v = *r;
        } else {
          v = AsLong(in, i);
        }
        v = WrapTo(t, v);
        if (to_physical->id == TypeId::kInt) {
          out.Append<int32_t>(static_cast<int32_t>(v));
        } else {
          out.Append<int64_t>(v);
        }
        break;
      }
      case TypeId::kFloat:
      case TypeId::kDouble: {
        double v = 0;
        if (IsCharacter(f)) {
          auto r = format::ParseDoubleText(Trim(in.bytes(i)));
          if (!r) {
            FLOE_RETURN_IF_ERROR(bad(i, ""));
            continue;
          }
          v = *r;
        } else {
          v = AsDouble(in, i);
        }
        if (to_physical->id == TypeId::kFloat) {
          out.Append<float>(static_cast<float>(v));
        } else {
          out.Append<double>(v);
        }
        break;
      }
      case TypeId::kDecimal: {
        const int scale = to_physical->scale;
        int128_t v = 0;
        bool ok = true;
        if (IsCharacter(f)) {
          if (!ParseDecimalRounded(in.bytes(i), scale, &v)) {
            FLOE_RETURN_IF_ERROR(bad(i, ""));
            continue;
          }
        } else if (in.type->id == TypeId::kDecimal) {
          ok = Rescale(in.data<int128_t>()[i], in.type->scale, scale, &v);
        } else if (in.type->id == TypeId::kFloat || in.type->id == TypeId::kDouble) {
          const double d = AsDouble(in, i);
          if (!std::isfinite(d)) {
            ok = false;
          } else {
            // Through the shortest decimal text, so 0.1 becomes 0.1, not 0.1000000000000000055.
            ok = ParseDecimalRounded(in.type->id == TypeId::kFloat
                                         ? JavaFloatText(static_cast<float>(d))
                                         : JavaDoubleText(d),
                                     scale, &v);
          }
        } else {
          ok = Rescale(AsLong(in, i), 0, scale, &v);
        }
        // Flink: a value that does not fit the DECIMAL is null.
        if (!ok || v > MaxUnscaled(to_physical->precision) ||
            v < -MaxUnscaled(to_physical->precision)) {
          out.AppendNull();
        } else {
          out.Append<int128_t>(v);
        }
        break;
      }
      case TypeId::kString: {
        std::string text;
        AppendValueText(in, from, i, &text);
        if (IsBinaryString(f)) text = std::string(in.bytes(i));  // bytes as UTF-8, as Flink
        out.AppendBytes(text);
        break;
      }
      case TypeId::kBinary:
      case TypeId::kFixed: {
        std::string bytes(in.type->id == TypeId::kString || in.type->id == TypeId::kBinary ||
                                  in.type->id == TypeId::kFixed
                              ? std::string(in.bytes(i))
                              : std::string());
        if (in.type->id != TypeId::kString && in.type->id != TypeId::kBinary &&
            in.type->id != TypeId::kFixed) {
          FLOE_RETURN_IF_ERROR(bad(i, ""));
          continue;
        }
        if (to_physical->id == TypeId::kFixed)
          bytes.resize(static_cast<size_t>(to_physical->length), '\0');
        out.AppendBytes(bytes);
        break;
      }
      default:
        return Unsupported("CAST from {} to {} is not supported yet", TypeText(from), TypeText(to));
    }
  }
  return out;
}

// ----------------------------------------------------------------- binding

namespace {

struct Binder {
  const Scope& scope;

  Result<BoundExpr> Column(const sql::Expr& e) {
    const std::vector<std::string>& names = e.names;
    const std::string& col = names.back();
    if (names.size() > 1) {
      std::vector<std::string> qual(names.begin(), names.end() - 1);
      bool found = false;
      for (const auto& q : scope.qualifiers) {
        if (q == qual) found = true;
      }
      if (!found) {
        std::string q;
        for (size_t i = 0; i < qual.size(); ++i) q += (i ? "." : "") + qual[i];
        return Fail(ValidationError(e.span, fmt::format("Table '{}' not found", q)));
      }
    }
    for (int i = 0; i < scope.schema.size(); ++i) {
      if (scope.schema.columns[i].name == col) {
        BoundExpr b;
        b.kind = BoundKind::kColumn;
        b.column = i;
        b.type = scope.schema.columns[i].type;
        b.physical = scope.schema.columns[i].physical;
        b.span = e.span;
        return b;
      }
    }
    if (names.size() > 1) {
      return Fail(ValidationError(e.span, fmt::format("Column '{}' not found in table '{}'", col,
                                                      names[names.size() - 2])));
    }
    if (auto now = NowFunction(Upper(col), e.span); now && Upper(col) != "UNIX_TIMESTAMP") {
      return std::move(*now);
    }
    // Calcite says which columns differ only in case.
    for (const ColumnInfo& c : scope.schema.columns) {
      if (Upper(c.name) == Upper(col)) {
        return Fail(ValidationError(
            e.span,
            fmt::format("Column '{}' not found in any table; did you mean '{}'?", col, c.name)));
      }
    }
    return Fail(ValidationError(e.span, fmt::format("Column '{}' not found in any table", col)));
  }

  Result<BoundExpr> Literal(const sql::Expr& e) {
    using sql::LiteralKind;
    switch (e.literal) {
      case LiteralKind::kNull: {
        ColumnVector v = OneRow(StringType());
        v.AppendNull();
        FLOE_ASSIGN_OR_RETURN(BoundExpr b,
                              MakeLiteral(MakeType(TypeName::kString), std::move(v), e.span));
        b.null_literal = true;
        return b;
      }
      case LiteralKind::kBoolean: {
        ColumnVector v = OneRow(BooleanType());
        v.Append<uint8_t>(Upper(e.value) == "TRUE");
        return MakeLiteral(MakeType(TypeName::kBoolean, false), std::move(v), e.span);
      }
      case LiteralKind::kInteger: {
        std::string_view digits = e.value;
        while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
        if (digits.size() <= 18) {
          int64_t v = std::stoll(std::string(digits));
          if (v <= std::numeric_limits<int32_t>::max()) {
            ColumnVector c = OneRow(IntType());
            c.Append<int32_t>(static_cast<int32_t>(v));
            return MakeLiteral(MakeType(TypeName::kInt, false), std::move(c), e.span);
          }
          ColumnVector c = OneRow(LongType());
          c.Append<int64_t>(v);
          return MakeLiteral(MakeType(TypeName::kBigInt, false), std::move(c), e.span);
        }
        if (digits.size() > 38) {
          return Fail(
              ValidationError(e.span, fmt::format("Numeric literal '{}' out of range", e.value)));
        }
        int128_t v = 0;
        for (char c : digits) v = v * 10 + (c - '0');
        if (v <= std::numeric_limits<int64_t>::max()) {
          ColumnVector c = OneRow(LongType());
          c.Append<int64_t>(static_cast<int64_t>(v));
          return MakeLiteral(MakeType(TypeName::kBigInt, false), std::move(c), e.span);
        }
        const int32_t p = static_cast<int32_t>(digits.size());
        ColumnVector c = OneRow(DecimalType(p, 0));
        c.Append<int128_t>(v);
        return MakeLiteral(MakeType(TypeName::kDecimal, false, p, 0), std::move(c), e.span);
      }
      case LiteralKind::kDecimal: {
        const size_t dot = e.value.find('.');
        const int32_t scale = static_cast<int32_t>(e.value.size() - dot - 1);
        std::string digits = e.value.substr(0, dot) + e.value.substr(dot + 1);
        while (digits.size() > 1 && digits.front() == '0') digits.erase(0, 1);
        const int32_t precision = std::max<int32_t>(static_cast<int32_t>(digits.size()), scale);
        if (precision > 38)
          return Fail(
              ValidationError(e.span, fmt::format("Numeric literal '{}' out of range", e.value)));
        if (precision == 0) return Fail(ValidationError(e.span, "empty decimal literal"));
        int128_t v = 0;
        for (char c : digits) v = v * 10 + (c - '0');
        ColumnVector c = OneRow(DecimalType(precision, scale));
        c.Append<int128_t>(v);
        return MakeLiteral(MakeType(TypeName::kDecimal, false, precision, scale), std::move(c),
                           e.span);
      }
      case LiteralKind::kApprox: {
        auto d = format::ParseDoubleText(e.value);
        if (!d)
          return Fail(
              ValidationError(e.span, fmt::format("Numeric literal '{}' out of range", e.value)));
        ColumnVector c = OneRow(DoubleType());
        c.Append<double>(*d);
        return MakeLiteral(MakeType(TypeName::kDouble, false), std::move(c), e.span);
      }
      case LiteralKind::kString: {
        ColumnVector c = OneRow(StringType());
        c.AppendBytes(e.value);
        const int32_t len = static_cast<int32_t>(CodePoints(e.value));
        return MakeLiteral(MakeType(TypeName::kChar, false, len), std::move(c), e.span);
      }
      case LiteralKind::kBinary: {
        std::string bytes;
        if (Status st = format::ParseHexText(e.value, -1, &bytes); !st) {
          return Fail(ValidationError(
              e.span, "Binary literal string must contain an even number of hexits"));
        }
        const int32_t len = static_cast<int32_t>(bytes.size());
        ColumnVector c = OneRow(FixedType(len));
        c.AppendBytes(bytes);
        return MakeLiteral(MakeType(TypeName::kBinary, false, len), std::move(c), e.span);
      }
      case LiteralKind::kDate: {
        auto d = format::ParseDateText(Trim(e.value));
        if (!d)
          return Fail(ValidationError(
              e.span,
              fmt::format("Illegal DATE literal '{}': not in format 'yyyy-MM-dd'", e.value)));
        ColumnVector c = OneRow(DateType());
        c.Append<int32_t>(*d);
        return MakeLiteral(MakeType(TypeName::kDate, false), std::move(c), e.span);
      }
      case LiteralKind::kTime: {
        auto t = format::ParseTimeText(Trim(e.value));
        if (!t)
          return Fail(ValidationError(
              e.span, fmt::format("Illegal TIME literal '{}': not in format 'HH:mm:ss'", e.value)));
        ColumnVector c = OneRow(TimeType());
        c.Append<int64_t>(*t);
        const size_t dot = e.value.find('.');
        const int32_t p = dot == std::string::npos
                              ? 0
                              : static_cast<int32_t>(std::min<size_t>(
                                    9, Trim(e.value).size() - Trim(e.value).find('.') - 1));
        return MakeLiteral(MakeType(TypeName::kTime, false, p), std::move(c), e.span);
      }
      case LiteralKind::kTimestamp: {
        auto t = format::ParseTimestampText(Trim(e.value), *TimestampType());
        if (!t) {
          return Fail(ValidationError(
              e.span,
              fmt::format("Illegal TIMESTAMP literal '{}': not in format 'yyyy-MM-dd HH:mm:ss'",
                          e.value)));
        }
        std::string_view v = Trim(e.value);
        const size_t dot = v.find('.');
        const int32_t p = dot == std::string_view::npos
                              ? 0
                              : static_cast<int32_t>(std::min<size_t>(9, v.size() - dot - 1));
        ColumnVector c = OneRow(TimestampType());
        c.Append<int64_t>(*t);
        return MakeLiteral(MakeType(TypeName::kTimestamp, false, p), std::move(c), e.span);
      }
      case LiteralKind::kInterval:
        return Fail(Error{
            ErrorKind::kUnsupported,
            fmt::format("INTERVAL literals are supported only added to or subtracted from a DATE "
                        "or TIMESTAMP (ts + INTERVAL '1' DAY) (line {}, column {})",
                        e.span.begin.line, e.span.begin.column),
            false});
    }
    return Internal("unknown literal kind");
  }

  BoundExpr Call(Fn fn, DataType type, std::vector<BoundExpr> args, const sql::Span& span) {
    BoundExpr b;
    b.kind = BoundKind::kCall;
    b.fn = fn;
    b.type = std::move(type);
    b.physical = *PhysicalOf(b.type);
    b.args = std::move(args);
    b.span = span;
    return b;
  }

  bool AnyNullable(const std::vector<BoundExpr>& args) {
    for (const auto& a : args) {
      if (a.type.nullable) return true;
    }
    return false;
  }

  // Brings every operand to their common type; nullopt when there is none.
  Result<bool> Unify(std::vector<BoundExpr>* args, size_t first = 0) {
    std::optional<DataType> common;
    for (size_t i = first; i < args->size(); ++i) {
      const BoundExpr& a = (*args)[i];
      if (a.null_literal) continue;
      if (!common) {
        common = a.type;
      } else {
        common = CommonType(*common, a.type);
        if (!common) return false;
      }
    }
    if (!common) return true;  // all NULL: leave them
    for (size_t i = first; i < args->size(); ++i) {
      BoundExpr& a = (*args)[i];
      DataType target = *common;
      target.nullable = a.type.nullable || a.null_literal;
      FLOE_ASSIGN_OR_RETURN(a, CastTo(std::move(a), target));
    }
    return true;
  }

  Error OperatorError(const sql::Expr& e, std::string_view op, const std::vector<BoundExpr>& args) {
    std::string types;
    if (args.size() == 1) {
      types = fmt::format("{} <{}>", op, TypeText(args[0].type));
    } else {
      for (size_t i = 0; i < args.size(); ++i) {
        if (i) types += fmt::format(" {} ", op);
        types += "<" + TypeText(args[i].type) + ">";
      }
    }
    return ValidationError(e.span,
                           fmt::format("Cannot apply '{}' to arguments of type '{}'", op, types));
  }

  Result<BoundExpr> Comparison(const sql::Expr& e, Fn fn, std::string_view op,
                               std::vector<BoundExpr> args) {
    // A character string compared with another type is cast to it, as
    // Calcite's implicit coercion does (WHERE d = '2024-01-31').
    for (int k = 0; k < 2; ++k) {
      BoundExpr& s = args[k];
      const BoundExpr& other = args[1 - k];
      if (IsCharacter(s.type.name) && !IsCharacter(other.type.name) && !other.null_literal &&
          s.IsConstant() && ExplicitCastAllowed(s.type, other.type)) {
        DataType t = other.type;
        t.nullable = s.type.nullable;
        FLOE_ASSIGN_OR_RETURN(s, CastTo(std::move(s), t));
      }
    }
    if ((fn != Fn::kEq && fn != Fn::kNe) &&
        (args[0].type.name == TypeName::kArray || args[0].type.name == TypeName::kMap ||
         args[0].type.name == TypeName::kRow || args[0].type.name == TypeName::kMultiset)) {
      return Fail(OperatorError(e, op, args));
    }
    FLOE_ASSIGN_OR_RETURN(bool ok, Unify(&args));
    if (!ok) return Fail(OperatorError(e, op, args));
    const bool nullable = AnyNullable(args);
    return Call(fn, MakeType(TypeName::kBoolean, nullable), std::move(args), e.span);
  }

  Result<BoundExpr> Arithmetic(const sql::Expr& e, Fn fn, std::string_view op,
                               std::vector<BoundExpr> args) {
    for (auto& a : args) {
      if (a.null_literal) continue;
      if (!IsNumeric(a.type.name)) return Fail(OperatorError(e, op, args));
    }
    if (args[0].null_literal && args[1].null_literal) return Fail(OperatorError(e, op, args));
    // A NULL operand takes the other's type.
    for (int k = 0; k < 2; ++k) {
      if (args[k].null_literal) {
        FLOE_ASSIGN_OR_RETURN(args[k],
                              CastTo(std::move(args[k]), Nullable(args[1 - k].type, true)));
      }
    }
    const DataType& a = args[0].type;
    const DataType& b = args[1].type;
    const bool nullable = a.nullable || b.nullable;
    DataType result;
    const bool dec = a.name == TypeName::kDecimal || b.name == TypeName::kDecimal;
    const bool approx = a.name == TypeName::kFloat || a.name == TypeName::kDouble ||
                        b.name == TypeName::kFloat || b.name == TypeName::kDouble;
    if (fn == Fn::kMod) {
      if (!IsIntegral(a.name) || !IsIntegral(b.name)) return Fail(OperatorError(e, "MOD", args));
      result = b;  // Calcite: MOD returns the type of its second argument
      FLOE_ASSIGN_OR_RETURN(bool ok, Unify(&args));
      (void)ok;
      result = Nullable(args[0].type, nullable);
      return Call(fn, result, std::move(args), e.span);
    }
    if (approx || !dec) {
      std::optional<DataType> c = CommonType(a, b);
      if (!c) return Fail(OperatorError(e, op, args));
      result = *c;
      FLOE_ASSIGN_OR_RETURN(bool ok, Unify(&args));
      (void)ok;
    } else {
      // Decimal rules of Flink's LogicalTypeMerging.
      DataType da = a.name == TypeName::kDecimal
                        ? a
                        : MakeType(TypeName::kDecimal, a.nullable, IntegralDigits(a.name), 0);
      DataType db = b.name == TypeName::kDecimal
                        ? b
                        : MakeType(TypeName::kDecimal, b.nullable, IntegralDigits(b.name), 0);
      FLOE_ASSIGN_OR_RETURN(args[0], CastTo(std::move(args[0]), da));
      FLOE_ASSIGN_OR_RETURN(args[1], CastTo(std::move(args[1]), db));
      const int p1 = sql::EffectivePrecision(da), s1 = da.scale.value_or(0);
      const int p2 = sql::EffectivePrecision(db), s2 = db.scale.value_or(0);
      int p = 0, s = 0;
      auto adjust = [&](int precision, int scale) {
        if (precision <= 38) {
          p = precision;
          s = scale;
          return;
        }
        const int int_digits = precision - scale;
        const int min_scale = std::min(scale, 6);
        s = std::max(38 - int_digits, min_scale);
        p = 38;
      };
      switch (fn) {
        case Fn::kAdd:
        case Fn::kSub: {
          const int scale = std::max(s1, s2);
          adjust(std::max(p1 - s1, p2 - s2) + scale + 1, scale);
          break;
        }
        case Fn::kMul: adjust(p1 + p2, s1 + s2); break;
        default: {  // kDiv
          const int scale = std::max(6, s1 + p2 + 1);
          adjust(p1 - s1 + s2 + scale, scale);
          break;
        }
      }
      result = MakeType(TypeName::kDecimal, nullable, p, s);
    }
    result.nullable = nullable;
    return Call(fn, result, std::move(args), e.span);
  }

  Result<BoundExpr> Bool(const sql::Expr& e, BoundExpr arg, std::string_view op) {
    if (arg.null_literal) {
      return CastTo(std::move(arg), MakeType(TypeName::kBoolean));
    }
    if (arg.type.name != TypeName::kBoolean) {
      return Fail(ValidationError(
          arg.span,
          fmt::format(
              "Cannot apply '{}' to arguments of type '<{}>'. Supported form(s): '<BOOLEAN>'", op,
              TypeText(arg.type))));
    }
    return arg;
  }

  Result<BoundExpr> Bind(const sql::Expr& e) {
    using sql::ExprKind;
    using sql::Op;
    switch (e.kind) {
      case ExprKind::kLiteral: return Literal(e);
      case ExprKind::kColumn: return Column(e);
      case ExprKind::kStar:
        return Fail(ValidationError(e.span, "'*' is only allowed in a SELECT list"));
      case ExprKind::kUnary: {
        FLOE_ASSIGN_OR_RETURN(BoundExpr a, Bind(e.args[0]));
        if (e.op == Op::kNot) {
          FLOE_ASSIGN_OR_RETURN(a, Bool(e, std::move(a), "NOT"));
          DataType t = a.type;
          std::vector<BoundExpr> args;
          args.push_back(std::move(a));
          return Call(Fn::kNot, t, std::move(args), e.span);
        }
        if (!a.null_literal && !IsNumeric(a.type.name)) {
          return Fail(OperatorError(e, e.op == Op::kNeg ? "-" : "+", {a}));
        }
        if (e.op == Op::kPlus) return a;
        DataType t = a.type;
        std::vector<BoundExpr> args;
        args.push_back(std::move(a));
        return Call(Fn::kNeg, t, std::move(args), e.span);
      }
      case ExprKind::kBinary: {
        auto is_interval = [](const sql::Expr& x) {
          return x.kind == ExprKind::kLiteral && x.literal == sql::LiteralKind::kInterval;
        };
        if ((e.op == Op::kAdd || e.op == Op::kSub) && is_interval(e.args[1])) {
          return IntervalArith(e, e.args[0], e.args[1], e.op == Op::kSub);
        }
        if (e.op == Op::kAdd && is_interval(e.args[0])) {
          return IntervalArith(e, e.args[1], e.args[0], false);
        }
        std::vector<BoundExpr> args;
        for (const sql::Expr& x : e.args) {
          FLOE_ASSIGN_OR_RETURN(BoundExpr b, Bind(x));
          args.push_back(std::move(b));
        }
        const std::string op(sql::OpText(e.op));
        switch (e.op) {
          case Op::kAnd:
          case Op::kOr: {
            for (auto& a : args) {
              FLOE_ASSIGN_OR_RETURN(a, Bool(e, std::move(a), op));
            }
            const bool nullable = AnyNullable(args);
            return Call(e.op == Op::kAnd ? Fn::kAnd : Fn::kOr,
                        MakeType(TypeName::kBoolean, nullable), std::move(args), e.span);
          }
          case Op::kEq: return Comparison(e, Fn::kEq, op, std::move(args));
          case Op::kNe: return Comparison(e, Fn::kNe, op, std::move(args));
          case Op::kLt: return Comparison(e, Fn::kLt, op, std::move(args));
          case Op::kLe: return Comparison(e, Fn::kLe, op, std::move(args));
          case Op::kGt: return Comparison(e, Fn::kGt, op, std::move(args));
          case Op::kGe: return Comparison(e, Fn::kGe, op, std::move(args));
          case Op::kAdd: return Arithmetic(e, Fn::kAdd, op, std::move(args));
          case Op::kSub: return Arithmetic(e, Fn::kSub, op, std::move(args));
          case Op::kMul: return Arithmetic(e, Fn::kMul, op, std::move(args));
          case Op::kDiv: return Arithmetic(e, Fn::kDiv, op, std::move(args));
          case Op::kMod: return Arithmetic(e, Fn::kMod, op, std::move(args));
          case Op::kConcat: return Concat(e, std::move(args), "||");
          case Op::kIsDistinctFrom:
          case Op::kIsNotDistinctFrom: {
            FLOE_ASSIGN_OR_RETURN(BoundExpr c, Comparison(e, Fn::kEq, op, std::move(args)));
            c.fn = Fn::kIsDistinct;
            c.negated = e.op == Op::kIsNotDistinctFrom;
            c.type.nullable = false;
            return c;
          }
          default:
            return Fail(
                ValidationError(e.span, fmt::format("operator {} is not supported yet", op)));
        }
      }
      case ExprKind::kIs: {
        FLOE_ASSIGN_OR_RETURN(BoundExpr a, Bind(e.args[0]));
        Fn fn = Fn::kIsNull;
        bool negate = false;
        switch (e.op) {
          case Op::kIsNull: fn = Fn::kIsNull; break;
          case Op::kIsNotNull: fn = Fn::kIsNotNull; break;
          case Op::kIsTrue: fn = Fn::kIsTrue; break;
          case Op::kIsNotTrue: fn = Fn::kIsNotTrue; break;
          case Op::kIsFalse: fn = Fn::kIsFalse; break;
          case Op::kIsNotFalse: fn = Fn::kIsNotFalse; break;
          case Op::kIsUnknown: fn = Fn::kIsNull; break;
          case Op::kIsNotUnknown: fn = Fn::kIsNotNull; break;
          default: break;
        }
        (void)negate;
        if (fn != Fn::kIsNull && fn != Fn::kIsNotNull) {
          FLOE_ASSIGN_OR_RETURN(a, Bool(e, std::move(a), sql::OpText(e.op)));
        } else if ((e.op == Op::kIsUnknown || e.op == Op::kIsNotUnknown)) {
          FLOE_ASSIGN_OR_RETURN(a, Bool(e, std::move(a), sql::OpText(e.op)));
        }
        std::vector<BoundExpr> args;
        args.push_back(std::move(a));
        return Call(fn, MakeType(TypeName::kBoolean, false), std::move(args), e.span);
      }
      case ExprKind::kIn: {
        std::vector<BoundExpr> args;
        for (const sql::Expr& x : e.args) {
          FLOE_ASSIGN_OR_RETURN(BoundExpr b, Bind(x));
          args.push_back(std::move(b));
        }
        // String constants in the list take the operand's type.
        for (size_t i = 1; i < args.size(); ++i) {
          if (IsCharacter(args[i].type.name) && !IsCharacter(args[0].type.name) &&
              args[i].IsConstant() && !args[0].null_literal &&
              ExplicitCastAllowed(args[i].type, args[0].type)) {
            FLOE_ASSIGN_OR_RETURN(args[i],
                                  CastTo(std::move(args[i]), Nullable(args[0].type, false)));
          }
        }
        FLOE_ASSIGN_OR_RETURN(bool ok, Unify(&args));
        if (!ok) {
          return Fail(
              ValidationError(e.span, "Values passed to IN operator must have compatible types"));
        }
        const bool nullable = AnyNullable(args);
        BoundExpr b =
            Call(Fn::kIn, MakeType(TypeName::kBoolean, nullable), std::move(args), e.span);
        b.negated = e.negated;
        return b;
      }
      case ExprKind::kBetween: {
        // x BETWEEN a AND b  ==  x >= a AND x <= b (NOT: x < a OR x > b).
        sql::Expr lo;
        lo.kind = sql::ExprKind::kBinary;
        lo.span = e.span;
        lo.op = e.negated ? Op::kLt : Op::kGe;
        lo.args = {e.args[0], e.args[1]};
        sql::Expr hi = lo;
        hi.op = e.negated ? Op::kGt : Op::kLe;
        hi.args = {e.args[0], e.args[2]};
        sql::Expr both;
        both.kind = sql::ExprKind::kBinary;
        both.span = e.span;
        both.op = e.negated ? Op::kOr : Op::kAnd;
        both.args = {std::move(lo), std::move(hi)};
        return Bind(both);
      }
      case ExprKind::kLike: {
        std::vector<BoundExpr> args;
        for (const sql::Expr& x : e.args) {
          FLOE_ASSIGN_OR_RETURN(BoundExpr b, Bind(x));
          if (!b.null_literal && !IsCharacter(b.type.name)) {
            return Fail(ValidationError(
                e.span,
                fmt::format("Cannot apply 'LIKE' to arguments of type '<{}>'. Supported form(s): "
                            "'LIKE(<STRING>, <STRING>, <STRING>)'",
                            TypeText(b.type))));
          }
          if (b.null_literal) {
            FLOE_ASSIGN_OR_RETURN(b, CastTo(std::move(b), MakeType(TypeName::kString)));
          }
          args.push_back(std::move(b));
        }
        if (args.size() == 3) {
          if (!args[2].IsConstant())
            return Fail(ValidationError(e.args[2].span, "ESCAPE must be a constant"));
          FLOE_ASSIGN_OR_RETURN(ColumnVector esc, EvaluateConstant(args[2]));
          if (!esc.IsNull(0) && CodePoints(esc.bytes(0)) != 1) {
            return Fail(ValidationError(e.args[2].span, "Invalid escape character"));
          }
        }
        const bool nullable = AnyNullable(args);
        BoundExpr b =
            Call(Fn::kLike, MakeType(TypeName::kBoolean, nullable), std::move(args), e.span);
        b.negated = e.negated;
        return b;
      }
      case ExprKind::kCast: {
        FLOE_ASSIGN_OR_RETURN(BoundExpr a, Bind(e.args[0]));
        DataType to = *e.cast_type;
        if (to.name == TypeName::kMultiset || to.name == TypeName::kArray ||
            to.name == TypeName::kMap || to.name == TypeName::kRow) {
          if (!a.null_literal && !ImplicitCastAllowed(a.type, to)) {
            return Fail(ValidationError(
                e.span, fmt::format("Cast function cannot convert value of type {} to type {}",
                                    TypeText(a.type), TypeText(to))));
          }
        }
        if (!a.null_literal && !ExplicitCastAllowed(a.type, to)) {
          return Fail(ValidationError(
              e.span, fmt::format("Cast function cannot convert value of type {} to type {}",
                                  TypeText(a.type), TypeText(to))));
        }
        // CAST keeps the operand's nullability (TRY_CAST is always nullable).
        to.nullable = e.try_cast || a.type.nullable || a.null_literal;
        to.pos = {};
        FLOE_ASSIGN_OR_RETURN(BoundExpr b, CastTo(std::move(a), to, e.try_cast));
        b.span = e.span;
        // CAST(NULL AS T) is a null of type T, not the untyped NULL literal
        // (Calcite): it types a VALUES column or a SELECT item on its own.
        b.null_literal = false;
        return b;
      }
      case ExprKind::kCase: {
        std::vector<BoundExpr> conds, values;
        size_t i = 0;
        std::optional<BoundExpr> operand;
        if (e.has_operand) {
          FLOE_ASSIGN_OR_RETURN(BoundExpr o, Bind(e.args[0]));
          operand = std::move(o);
          i = 1;
        }
        const size_t end = e.args.size() - (e.has_else ? 1 : 0);
        for (; i + 1 < end + 1 && i < end; i += 2) {
          if (operand) {
            FLOE_ASSIGN_OR_RETURN(BoundExpr w, Bind(e.args[i]));
            std::vector<BoundExpr> pair;
            pair.push_back(*operand);
            pair.push_back(std::move(w));
            FLOE_ASSIGN_OR_RETURN(BoundExpr c,
                                  Comparison(e.args[i], Fn::kEq, "=", std::move(pair)));
            conds.push_back(std::move(c));
          } else {
            FLOE_ASSIGN_OR_RETURN(BoundExpr c, Bind(e.args[i]));
            FLOE_ASSIGN_OR_RETURN(c, Bool(e, std::move(c), "CASE WHEN"));
            conds.push_back(std::move(c));
          }
          FLOE_ASSIGN_OR_RETURN(BoundExpr v, Bind(e.args[i + 1]));
          values.push_back(std::move(v));
        }
        if (e.has_else) {
          FLOE_ASSIGN_OR_RETURN(BoundExpr v, Bind(e.args.back()));
          values.push_back(std::move(v));
        }
        FLOE_ASSIGN_OR_RETURN(bool ok, Unify(&values));
        if (!ok)
          return Fail(
              ValidationError(e.span, "Illegal mixing of types in CASE or COALESCE statement"));
        bool all_null = true;
        for (const auto& v : values) all_null = all_null && v.null_literal;
        if (all_null)
          return Fail(
              ValidationError(e.span, "ELSE clause or at least one THEN clause must be non-NULL"));
        DataType t = values[0].type;
        bool nullable = !e.has_else;
        for (const auto& v : values) nullable = nullable || v.type.nullable;
        t.nullable = nullable;
        for (auto& v : values) {
          FLOE_ASSIGN_OR_RETURN(v, CastTo(std::move(v), t));
        }
        std::vector<BoundExpr> args;
        for (size_t k = 0; k < conds.size(); ++k) {
          args.push_back(std::move(conds[k]));
          args.push_back(std::move(values[k]));
        }
        if (e.has_else) args.push_back(std::move(values.back()));
        BoundExpr b = Call(Fn::kCase, t, std::move(args), e.span);
        b.has_else = e.has_else;
        return b;
      }
      case ExprKind::kCall: return Function(e);
    }
    return Internal("unknown expression kind");
  }

  Result<BoundExpr> Concat(const sql::Expr& e, std::vector<BoundExpr> args, std::string_view op) {
    for (auto& a : args) {
      if (a.null_literal) {
        FLOE_ASSIGN_OR_RETURN(a, CastTo(std::move(a), MakeType(TypeName::kString)));
      } else if (!IsCharacter(a.type.name)) {
        return Fail(OperatorError(e, op, args));
      }
    }
    const bool nullable = AnyNullable(args);
    for (auto& a : args) {
      FLOE_ASSIGN_OR_RETURN(a, CastTo(std::move(a), MakeType(TypeName::kString, a.type.nullable)));
    }
    return Call(Fn::kConcat, MakeType(TypeName::kString, nullable), std::move(args), e.span);
  }

  // CURRENT_TIMESTAMP, LOCALTIMESTAMP, CURRENT_DATE (written without
  // parentheses): the query's start time, one value for the whole statement
  // (Flink's batch mode; its streaming mode reads the clock per row).
  std::optional<BoundExpr> NowFunction(const std::string& name, const sql::Span& span) {
    const int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    const int64_t now_ms = civil::FloorDiv(now_us, 1000) * 1000;
    if (name == "CURRENT_TIMESTAMP" || name == "LOCALTIMESTAMP") {
      const bool ltz = name == "CURRENT_TIMESTAMP";
      DataType t = MakeType(ltz ? TypeName::kTimestampLtz : TypeName::kTimestamp, false, 3);
      ColumnVector c = OneRow(ltz ? TimestampTzType() : TimestampType());
      c.Append<int64_t>(now_ms);
      auto b = MakeLiteral(t, std::move(c), span);
      if (b) return std::move(*b);
    }
    if (name == "CURRENT_DATE") {
      ColumnVector c = OneRow(DateType());
      c.Append<int32_t>(static_cast<int32_t>(civil::FloorDiv(now_us, civil::kMicrosPerDay)));
      auto b = MakeLiteral(MakeType(TypeName::kDate, false), std::move(c), span);
      if (b) return std::move(*b);
    }
    if (name == "UNIX_TIMESTAMP") {
      ColumnVector c = OneRow(LongType());
      c.Append<int64_t>(civil::FloorDiv(now_us, civil::kMicrosPerSecond));
      auto b = MakeLiteral(MakeType(TypeName::kBigInt, false), std::move(c), span);
      if (b) return std::move(*b);
    }
    return std::nullopt;
  }

  BoundExpr Scalar(ScalarFn fn, DataType type, std::vector<BoundExpr> args, const sql::Span& span,
                   std::string unit = "") {
    BoundExpr b = Call(Fn::kScalar, std::move(type), std::move(args), span);
    b.scalar = static_cast<uint8_t>(fn);
    b.unit = std::move(unit);
    return b;
  }

  // DATE / TIMESTAMP ± INTERVAL literal.
  Result<BoundExpr> IntervalArith(const sql::Expr& e, const sql::Expr& operand,
                                  const sql::Expr& interval, bool subtract) {
    FLOE_ASSIGN_OR_RETURN(BoundExpr t, Bind(operand));
    int64_t months = 0, micros = 0;
    if (!ParseIntervalLiteral(interval.value, interval.interval_unit, interval.interval_negative,
                              &months, &micros)) {
      return Fail(ValidationError(
          interval.span, fmt::format("Illegal interval literal format '{}' for INTERVAL {}",
                                     interval.value, interval.interval_unit)));
    }
    if (subtract) {
      months = -months;
      micros = -micros;
    }
    const TypeName tn = t.type.name;
    if (tn != TypeName::kDate && tn != TypeName::kTimestamp && tn != TypeName::kTimestampLtz) {
      return Fail(ValidationError(
          e.span, fmt::format("Cannot apply '{}' to arguments of type '<{}> {} <INTERVAL {}>'. "
                              "Supported form(s): '<DATETIME> + <DATETIME_INTERVAL>'",
                              subtract ? "-" : "+", TypeText(t.type), subtract ? "-" : "+",
                              interval.interval_unit)));
    }
    if (tn == TypeName::kDate && micros % civil::kMicrosPerDay != 0) {
      return Fail(ValidationError(
          e.span, "A DATE moves by whole days: CAST it to TIMESTAMP to add hours, minutes or "
                  "seconds"));
    }
    DataType type = t.type;
    std::vector<BoundExpr> args;
    args.push_back(std::move(t));
    BoundExpr b = Scalar(ScalarFn::kAddInterval, type, std::move(args), e.span);
    b.months = months;
    b.micros = micros;
    return b;
  }

  // Casts a function argument to STRING (a NULL literal too); false when it is
  // not a character string.
  Result<bool> AsString(BoundExpr* a) {
    if (!a->null_literal && !IsCharacter(a->type.name)) return false;
    FLOE_ASSIGN_OR_RETURN(
        *a, CastTo(std::move(*a), MakeType(TypeName::kString, a->type.nullable || a->null_literal)));
    return true;
  }
  Result<bool> AsInteger(BoundExpr* a) {
    if (!a->null_literal && !IsIntegral(a->type.name)) return false;
    FLOE_ASSIGN_OR_RETURN(
        *a, CastTo(std::move(*a), MakeType(TypeName::kBigInt, a->type.nullable || a->null_literal)));
    return true;
  }
  Result<bool> AsDouble(BoundExpr* a) {
    if (!a->null_literal && !IsNumeric(a->type.name)) return false;
    FLOE_ASSIGN_OR_RETURN(
        *a, CastTo(std::move(*a), MakeType(TypeName::kDouble, a->type.nullable || a->null_literal)));
    return true;
  }
  static bool IsDateTime(const BoundExpr& a) {
    return a.type.name == TypeName::kDate || a.type.name == TypeName::kTimestamp ||
           a.type.name == TypeName::kTimestampLtz;
  }

  Result<BoundExpr> Function(const sql::Expr& e) {
    const std::string name = Upper(e.names.back());
    // TIMESTAMPADD(DAY, n, ts): the unit is a bare word, read as a column name.
    std::string unit = e.keyword;
    size_t first_arg = 0;
    if ((name == "TIMESTAMPADD" || name == "TIMESTAMPDIFF") && !e.args.empty() &&
        e.args[0].kind == sql::ExprKind::kColumn && e.args[0].names.size() == 1) {
      unit = Upper(e.args[0].names[0]);
      first_arg = 1;
    }
    std::vector<BoundExpr> args;
    for (size_t k = first_arg; k < e.args.size(); ++k) {
      FLOE_ASSIGN_OR_RETURN(BoundExpr b, Bind(e.args[k]));
      args.push_back(std::move(b));
    }
    auto no_match = [&]() {
      std::string sig;
      if (first_arg) sig = unit;
      for (size_t i = 0; i < args.size(); ++i) sig += (i || first_arg ? ", " : "") + Family(args[i].type);
      std::string text =
          fmt::format("No match found for function signature {}({})", e.names.back(), sig);
      if (std::string have = ScalarSignatures(name); !have.empty()) {
        text += fmt::format(". Supported signatures: {}", have);
      }
      return Fail(ValidationError(e.span, text));
    };
    if (e.distinct) return no_match();
    const bool nullable = AnyNullable(args) || [&] {
      for (const auto& a : args) {
        if (a.null_literal) return true;
      }
      return false;
    }();
    const size_t argc = args.size();
    auto strings = [&](size_t from, size_t to) -> Result<bool> {
      for (size_t k = from; k < to && k < args.size(); ++k) {
        FLOE_ASSIGN_OR_RETURN(bool ok, AsString(&args[k]));
        if (!ok) return false;
      }
      return true;
    };
    const DataType kStr = MakeType(TypeName::kString, true);
    auto str_result = [&](bool may_be_null) { return MakeType(TypeName::kString, may_be_null); };

    if ((name == "UPPER" || name == "LOWER" || name == "INITCAP") && argc == 1) {
      // Calcite's type: the argument's, CHAR(n) as VARCHAR(n).
      DataType t = args[0].null_literal ? MakeType(TypeName::kString) : args[0].type;
      if (t.name == TypeName::kChar) t = MakeType(TypeName::kVarChar, t.nullable, sql::EffectivePrecision(t));
      t.nullable = nullable;
      FLOE_ASSIGN_OR_RETURN(bool ok, strings(0, 1));
      if (!ok) return no_match();
      return Scalar(name == "UPPER"   ? ScalarFn::kUpper
                    : name == "LOWER" ? ScalarFn::kLower
                                      : ScalarFn::kInitcap,
                    t, std::move(args), e.span);
    }
    if ((name == "CHAR_LENGTH" || name == "CHARACTER_LENGTH") && argc == 1) {
      if (args[0].null_literal) {
        FLOE_ASSIGN_OR_RETURN(args[0], CastTo(std::move(args[0]), MakeType(TypeName::kString)));
      }
      if (!IsCharacter(args[0].type.name)) return no_match();
      return Call(Fn::kCharLength, MakeType(TypeName::kInt, nullable), std::move(args), e.span);
    }
    if (name == "CONCAT" && !args.empty()) return Concat(e, std::move(args), "CONCAT");
    if (name == "CONCAT_WS" && argc >= 2) {
      FLOE_ASSIGN_OR_RETURN(bool ok, strings(0, argc));
      if (!ok) return no_match();
      const bool sep_nullable = args[0].type.nullable;
      return Scalar(ScalarFn::kConcatWs, str_result(sep_nullable), std::move(args), e.span);
    }
    if ((name == "SUBSTRING" || name == "SUBSTR") && (argc == 2 || argc == 3)) {
      FLOE_ASSIGN_OR_RETURN(bool ok, strings(0, 1));
      for (size_t k = 1; ok && k < argc; ++k) {
        FLOE_ASSIGN_OR_RETURN(ok, AsInteger(&args[k]));
      }
      if (!ok) return no_match();
      return Scalar(ScalarFn::kSubstring, kStr, std::move(args), e.span);
    }
    if (name == "TRIM" || name == "LTRIM" || name == "RTRIM") {
      std::string mode = name == "LTRIM" ? "LEADING" : name == "RTRIM" ? "TRAILING" : "BOTH";
      if (name == "TRIM" && !unit.empty()) mode = unit;
      // The keyword form has args [chars, s]; the evaluator takes [s, chars].
      if (name == "TRIM" && !unit.empty() && argc == 2) std::swap(args[0], args[1]);
      if (argc < 1 || argc > 2 || (name == "TRIM" && unit.empty() && argc != 1)) return no_match();
      FLOE_ASSIGN_OR_RETURN(bool ok, strings(0, argc));
      if (!ok) return no_match();
      return Scalar(ScalarFn::kTrim, str_result(nullable), std::move(args), e.span, mode);
    }
    if ((name == "REPLACE" || name == "REGEXP_REPLACE") && argc == 3) {
      FLOE_ASSIGN_OR_RETURN(bool ok, strings(0, 3));
      if (!ok) return no_match();
      const bool regexp = name == "REGEXP_REPLACE";
      return Scalar(regexp ? ScalarFn::kRegexpReplace : ScalarFn::kReplace,
                    str_result(nullable || regexp), std::move(args), e.span);
    }
    if (name == "REGEXP_EXTRACT" && (argc == 2 || argc == 3)) {
      FLOE_ASSIGN_OR_RETURN(bool ok, strings(0, 2));
      if (ok && argc == 3) { FLOE_ASSIGN_OR_RETURN(ok, AsInteger(&args[2])); }
      if (!ok) return no_match();
      return Scalar(ScalarFn::kRegexpExtract, kStr, std::move(args), e.span);
    }
    if (name == "SPLIT_INDEX" && argc == 3) {
      FLOE_ASSIGN_OR_RETURN(bool ok, strings(0, 2));
      if (ok) { FLOE_ASSIGN_OR_RETURN(ok, AsInteger(&args[2])); }
      if (!ok) return no_match();
      return Scalar(ScalarFn::kSplitIndex, kStr, std::move(args), e.span);
    }
    if ((name == "LPAD" || name == "RPAD") && argc == 3) {
      FLOE_ASSIGN_OR_RETURN(bool ok, AsString(&args[0]));
      if (ok) { FLOE_ASSIGN_OR_RETURN(ok, AsInteger(&args[1])); }
      if (ok) { FLOE_ASSIGN_OR_RETURN(ok, AsString(&args[2])); }
      if (!ok) return no_match();
      return Scalar(name == "LPAD" ? ScalarFn::kLpad : ScalarFn::kRpad, kStr, std::move(args),
                    e.span);
    }
    if (name == "POSITION" && argc == 2) {
      FLOE_ASSIGN_OR_RETURN(bool ok, strings(0, 2));
      if (!ok) return no_match();
      return Scalar(ScalarFn::kPosition, MakeType(TypeName::kInt, nullable), std::move(args),
                    e.span);
    }
    if (name == "COALESCE" && !args.empty()) {
      FLOE_ASSIGN_OR_RETURN(bool ok, Unify(&args));
      if (!ok)
        return Fail(
            ValidationError(e.span, "Illegal mixing of types in CASE or COALESCE statement"));
      bool any_not_null = false;
      std::optional<DataType> t;
      for (const auto& a : args) {
        if (!a.type.nullable && !a.null_literal) any_not_null = true;
        if (!a.null_literal && !t) t = a.type;
      }
      if (!t) return no_match();
      t->nullable = !any_not_null;
      for (auto& a : args) {
        FLOE_ASSIGN_OR_RETURN(
            a, CastTo(std::move(a), Nullable(*t, a.type.nullable || a.null_literal)));
      }
      return Call(Fn::kCoalesce, *t, std::move(args), e.span);
    }
    if ((name == "NULLIF" && argc == 2) || (name == "IF" && argc == 3)) {
      // NULLIF(a, b) = CASE WHEN a = b THEN NULL ELSE a END;
      // IF(c, a, b) = CASE WHEN c THEN a ELSE b END.
      sql::Expr c;
      c.kind = sql::ExprKind::kCase;
      c.span = e.span;
      c.has_else = true;
      if (name == "NULLIF") {
        sql::Expr eq;
        eq.kind = sql::ExprKind::kBinary;
        eq.op = sql::Op::kEq;
        eq.span = e.span;
        eq.args = {e.args[0], e.args[1]};
        sql::Expr null;
        null.kind = sql::ExprKind::kLiteral;
        null.literal = sql::LiteralKind::kNull;
        null.span = e.span;
        c.args = {std::move(eq), std::move(null), e.args[0]};
      } else {
        c.args = {e.args[0], e.args[1], e.args[2]};
      }
      return Bind(c);
    }
    if (name == "ABS" && argc == 1) {
      if (args[0].null_literal || !IsNumeric(args[0].type.name)) return no_match();
      DataType t = args[0].type;
      return Call(Fn::kAbs, t, std::move(args), e.span);
    }
    if (name == "MOD" && argc == 2) return Arithmetic(e, Fn::kMod, "MOD", std::move(args));
    if ((name == "ROUND" || name == "TRUNCATE" || name == "FLOOR" || name == "CEIL" ||
         name == "CEILING" || name == "SIGN") &&
        (argc == 1 || (argc == 2 && (name == "ROUND" || name == "TRUNCATE")))) {
      if (args[0].null_literal || !IsNumeric(args[0].type.name)) return no_match();
      int64_t digits = 0;
      if (argc == 2) {
        if (!IsIntegral(args[1].type.name)) return no_match();
        if (!NoColumns(args[1])) {
          return Fail(ValidationError(
              args[1].span, fmt::format("{}: the number of digits must be a constant", name)));
        }
        FLOE_ASSIGN_OR_RETURN(ColumnVector d, EvaluateConstant(args[1]));
        if (!d.IsNull(0)) {
          digits = d.type->id == TypeId::kInt ? d.data<int32_t>()[0] : d.data<int64_t>()[0];
        }
        FLOE_ASSIGN_OR_RETURN(bool ok, AsInteger(&args[1]));
        (void)ok;
      }
      DataType t = args[0].type;
      t.nullable = nullable;
      if (t.name == TypeName::kDecimal) {
        const int p = sql::EffectivePrecision(t), s = t.scale.value_or(0);
        // Flink's LogicalTypeMerging: ROUND keeps the digits asked for and
        // one more integer digit (rounding up may carry); FLOOR / CEIL give
        // DECIMAL(p - s + 1, 0); TRUNCATE and SIGN keep the type.
        if (name == "ROUND") {
          if (digits < s) {
            const int r = static_cast<int>(std::max<int64_t>(digits, 0));
            t.precision = std::min(38, 1 + p - s + r);
            t.scale = r;
          }
        } else if ((name == "FLOOR" || name == "CEIL" || name == "CEILING") && s > 0) {
          t.precision = std::min(38, p - s + 1);
          t.scale = 0;
        }
      }
      const ScalarFn fn = name == "ROUND"      ? ScalarFn::kRound
                          : name == "TRUNCATE" ? ScalarFn::kTruncate
                          : name == "FLOOR"    ? ScalarFn::kFloor
                          : name == "SIGN"     ? ScalarFn::kSign
                                               : ScalarFn::kCeil;
      if (t.name == TypeName::kDecimal) t.nullable = true;  // overflow is null
      return Scalar(fn, t, std::move(args), e.span);
    }
    if ((name == "SQRT" || name == "LN" || name == "LOG10" || name == "EXP") && argc == 1) {
      FLOE_ASSIGN_OR_RETURN(bool ok, AsDouble(&args[0]));
      if (!ok) return no_match();
      const ScalarFn fn = name == "SQRT"   ? ScalarFn::kSqrt
                          : name == "LN"   ? ScalarFn::kLn
                          : name == "EXP"  ? ScalarFn::kExp
                                           : ScalarFn::kLog10;
      return Scalar(fn, MakeType(TypeName::kDouble, nullable), std::move(args), e.span);
    }
    if ((name == "POWER" || name == "POW") && argc == 2) {
      FLOE_ASSIGN_OR_RETURN(bool ok, AsDouble(&args[0]));
      if (ok) { FLOE_ASSIGN_OR_RETURN(ok, AsDouble(&args[1])); }
      if (!ok) return no_match();
      return Scalar(ScalarFn::kPower, MakeType(TypeName::kDouble, nullable), std::move(args),
                    e.span);
    }
    if (name == "NOW" && argc == 0) return std::move(*NowFunction("CURRENT_TIMESTAMP", e.span));
    if ((name == "CURRENT_TIMESTAMP" || name == "LOCALTIMESTAMP" || name == "CURRENT_DATE") &&
        argc == 0) {
      return std::move(*NowFunction(name, e.span));
    }
    if (name == "UNIX_TIMESTAMP" && argc == 0) return std::move(*NowFunction(name, e.span));
    if (name == "DATE_FORMAT" && argc == 2) {
      bool ok = IsDateTime(args[0]);
      if (!ok) { FLOE_ASSIGN_OR_RETURN(ok, AsString(&args[0])); }
      if (ok) { FLOE_ASSIGN_OR_RETURN(ok, AsString(&args[1])); }
      if (!ok) return no_match();
      FLOE_RETURN_IF_ERROR(CheckConstantPattern(name, args[1]));
      return Scalar(ScalarFn::kDateFormat, kStr, std::move(args), e.span);
    }
    if ((name == "TO_TIMESTAMP" || name == "TO_DATE" || name == "UNIX_TIMESTAMP") &&
        (argc == 1 || argc == 2)) {
      FLOE_ASSIGN_OR_RETURN(bool ok, strings(0, argc));
      if (!ok) return no_match();
      if (argc == 2) { FLOE_RETURN_IF_ERROR(CheckConstantPattern(name, args[1])); }
      if (name == "TO_TIMESTAMP") {
        return Scalar(ScalarFn::kToTimestamp, MakeType(TypeName::kTimestamp, true, 3),
                      std::move(args), e.span);
      }
      if (name == "TO_DATE") {
        return Scalar(ScalarFn::kToDate, MakeType(TypeName::kDate, true), std::move(args), e.span);
      }
      return Scalar(ScalarFn::kUnixTimestamp, MakeType(TypeName::kBigInt, true), std::move(args),
                    e.span);
    }
    if (name == "FROM_UNIXTIME" && (argc == 1 || argc == 2)) {
      FLOE_ASSIGN_OR_RETURN(bool ok, AsInteger(&args[0]));
      if (ok && argc == 2) { FLOE_ASSIGN_OR_RETURN(ok, AsString(&args[1])); }
      if (!ok) return no_match();
      if (argc == 2) { FLOE_RETURN_IF_ERROR(CheckConstantPattern(name, args[1])); }
      return Scalar(ScalarFn::kFromUnixtime, kStr, std::move(args), e.span);
    }
    static const std::vector<std::string_view> kExtractUnits = {
        "YEAR",   "QUARTER", "MONTH",  "WEEK",        "DAY",         "DOY",  "DOW", "ISODOW",
        "HOUR",   "MINUTE",  "SECOND", "MILLISECOND", "MICROSECOND", "EPOCH"};
    static const std::vector<std::string_view> kAddUnits = {
        "YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND"};
    auto unit_in = [&](const std::vector<std::string_view>& units) {
      return std::find(units.begin(), units.end(), unit) != units.end();
    };
    if (name == "EXTRACT" && argc == 1 && !unit.empty()) {
      if (!unit_in(kExtractUnits)) {
        return Fail(ValidationError(
            e.span, fmt::format("EXTRACT: unknown time unit '{}' (YEAR, QUARTER, MONTH, WEEK, "
                                "DAY, DOY, DOW, ISODOW, HOUR, MINUTE, SECOND, MILLISECOND, "
                                "MICROSECOND, EPOCH)",
                                unit)));
      }
      if (!IsDateTime(args[0])) return no_match();
      return Scalar(ScalarFn::kExtract, MakeType(TypeName::kBigInt, nullable), std::move(args),
                    e.span, unit);
    }
    if ((name == "TIMESTAMPADD" || name == "TIMESTAMPDIFF") && first_arg == 1 && argc == 2) {
      if (!unit_in(kAddUnits)) {
        return Fail(ValidationError(
            e.span, fmt::format("{}: unknown time unit '{}' (YEAR, QUARTER, MONTH, WEEK, DAY, "
                                "HOUR, MINUTE, SECOND)",
                                name, unit)));
      }
      if (name == "TIMESTAMPADD") {
        FLOE_ASSIGN_OR_RETURN(bool ok, AsInteger(&args[0]));
        if (!ok || !IsDateTime(args[1])) return no_match();
        DataType t = args[1].type;
        if (t.name == TypeName::kDate && UnitMonths(unit) == 0 && unit != "DAY" &&
            unit != "WEEK") {
          t = MakeType(TypeName::kTimestamp, t.nullable, 0);
        }
        t.nullable = nullable;
        return Scalar(ScalarFn::kTimestampAdd, t, std::move(args), e.span, unit);
      }
      if (!IsDateTime(args[0]) || !IsDateTime(args[1])) return no_match();
      return Scalar(ScalarFn::kTimestampDiff, MakeType(TypeName::kInt, nullable), std::move(args),
                    e.span, unit);
    }
    if ((name == "JSON_VALUE" || name == "JSON_QUERY") && argc == 2) {
      FLOE_ASSIGN_OR_RETURN(bool ok, strings(0, 2));
      if (!ok) return no_match();
      return Scalar(name == "JSON_VALUE" ? ScalarFn::kJsonValue : ScalarFn::kJsonQuery, kStr,
                    std::move(args), e.span);
    }
    if ((name == "MD5" || name == "SHA256") && argc == 1) {
      FLOE_ASSIGN_OR_RETURN(bool ok, strings(0, 1));
      if (!ok) return no_match();
      return Scalar(name == "MD5" ? ScalarFn::kMd5 : ScalarFn::kSha256, str_result(nullable),
                    std::move(args), e.span);
    }
    return no_match();
  }

  // True when the expression reads no column (a literal, -1, 1 + 1, UPPER('x')).
  static bool NoColumns(const BoundExpr& b) {
    if (b.kind == BoundKind::kColumn) return false;
    for (const auto& a : b.args) {
      if (!NoColumns(a)) return false;
    }
    return true;
  }

  static int64_t UnitMonths(std::string_view unit) {
    return unit == "YEAR" ? 12 : unit == "QUARTER" ? 3 : unit == "MONTH" ? 1 : 0;
  }

  // A constant date-time pattern is checked when the statement is bound.
  Status CheckConstantPattern(std::string_view fn, const BoundExpr& pattern) {
    if (!NoColumns(pattern)) return Ok();
    FLOE_ASSIGN_OR_RETURN(ColumnVector p, EvaluateConstant(pattern));
    if (p.IsNull(0)) return Ok();
    if (std::string why = CheckDateTimePattern(p.bytes(0)); !why.empty()) {
      return Fail(ValidationError(pattern.span,
                             fmt::format("{}: the format '{}' has {}", fn, p.bytes(0), why)));
    }
    return Ok();
  }
};

}  // namespace

Result<BoundExpr> Bind(const sql::Expr& expr, const Scope& scope) {
  Binder b{scope};
  return b.Bind(expr);
}

Result<BoundExpr> CastTo(BoundExpr expr, const DataType& to_in, bool try_cast) {
  DataType to = to_in;
  to.pos = {};
  if (expr.null_literal) {
    to.nullable = true;
    FLOE_ASSIGN_OR_RETURN(expr.physical, PhysicalOf(to));
    expr.type = to;
    ColumnVector v(expr.physical);
    v.AppendNull();
    expr.literal = std::move(v);
    return expr;
  }
  FLOE_ASSIGN_OR_RETURN(TypePtr physical, PhysicalOf(to));
  DataType a = expr.type, b = to;
  sql::ClearPositions(a);
  sql::ClearPositions(b);
  if (a == b && !try_cast) return expr;
  // A nullability-only change keeps the node (NOT NULL -> nullable).
  if (*physical == *expr.physical && SameLogical(expr.type, to) && !try_cast &&
      expr.type.name == to.name && (to.nullable || !expr.type.nullable) &&
      sql::EffectivePrecision(expr.type) == sql::EffectivePrecision(to)) {
    expr.type = to;
    return expr;
  }
  BoundExpr c;
  c.kind = BoundKind::kCast;
  c.type = to;
  c.physical = physical;
  c.try_cast = try_cast;
  c.span = expr.span;
  c.args.push_back(std::move(expr));
  return c;
}

// --------------------------------------------------------------- evaluator

namespace {

template <typename T, typename Op>
ColumnVector CompareFixed(const ColumnVector& a, const ColumnVector& b, int64_t n, Op op) {
  ColumnVector out = MakeFixed<uint8_t>(BooleanType(), n);
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  uint8_t* o = out.mutable_data<uint8_t>();
  for (int64_t i = 0; i < n; ++i) o[i] = op(x[i], y[i]);
  return out;
}

int CompareBytes(std::string_view x, std::string_view y) {
  const size_t m = std::min(x.size(), y.size());
  int c = m ? std::memcmp(x.data(), y.data(), m) : 0;
  if (c != 0) return c;
  return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
}

// Orders two values of the same type as Java's compareTo would, except that
// floats follow SQL (NaN unequal to everything is not modelled: compared as values).
template <typename Pred>
ColumnVector CompareColumns(const ColumnVector& a, const ColumnVector& b, int64_t n, Pred pred) {
  switch (a.type->id) {
    case TypeId::kBoolean:
      return CompareFixed<uint8_t>(a, b, n,
                                   [&](auto x, auto y) { return pred((x > y) - (x < y)); });
    case TypeId::kInt:
    case TypeId::kDate:
      return CompareFixed<int32_t>(a, b, n,
                                   [&](auto x, auto y) { return pred((x > y) - (x < y)); });
    case TypeId::kFloat:
      return CompareFixed<float>(a, b, n, [&](auto x, auto y) { return pred((x > y) - (x < y)); });
    case TypeId::kDouble:
      return CompareFixed<double>(a, b, n, [&](auto x, auto y) { return pred((x > y) - (x < y)); });
    case TypeId::kDecimal:
      return CompareFixed<int128_t>(a, b, n,
                                    [&](auto x, auto y) { return pred((x > y) - (x < y)); });
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid: {
      ColumnVector out = MakeFixed<uint8_t>(BooleanType(), n);
      uint8_t* o = out.mutable_data<uint8_t>();
      for (int64_t i = 0; i < n; ++i) o[i] = pred(CompareBytes(a.bytes(i), b.bytes(i)));
      return out;
    }
    default:
      return CompareFixed<int64_t>(a, b, n,
                                   [&](auto x, auto y) { return pred((x > y) - (x < y)); });
  }
}

// Nested values compared by their canonical text (= and <> only).
ColumnVector CompareNested(const ColumnVector& a, const ColumnVector& b, const DataType& t,
                           int64_t n, bool eq) {
  ColumnVector out = MakeFixed<uint8_t>(BooleanType(), n);
  uint8_t* o = out.mutable_data<uint8_t>();
  for (int64_t i = 0; i < n; ++i) {
    std::string x, y;
    AppendValueText(a, t, i, &x);
    AppendValueText(b, t, i, &y);
    o[i] = (x == y) == eq;
  }
  return out;
}

// Java's integer arithmetic wraps; done in unsigned to stay defined in C++.
template <typename T>
T WrapAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename T>
T WrapSub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <typename T>
T WrapMul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

template <typename T>
Result<ColumnVector> IntegerArith(Fn fn, const ColumnVector& a, const ColumnVector& b,
                                  const TypePtr& type, TypeName logical, int64_t n,
                                  const std::vector<uint8_t>& validity) {
  ColumnVector out = MakeFixed<T>(type, n);
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  T* o = out.mutable_data<T>();
  for (int64_t i = 0; i < n; ++i) {
    T r = 0;
    switch (fn) {
      case Fn::kAdd: r = WrapAdd(x[i], y[i]); break;
      case Fn::kSub: r = WrapSub(x[i], y[i]); break;
      case Fn::kMul: r = WrapMul(x[i], y[i]); break;
      case Fn::kDiv:
      case Fn::kMod:
        if (y[i] == 0) {
          if (!validity.empty() && !validity[i]) break;
          return InvalidArgument("Division by zero");
        }
        if (y[i] == -1) {
          r = fn == Fn::kDiv ? WrapSub<T>(0, x[i]) : 0;
        } else {
          r = fn == Fn::kDiv ? x[i] / y[i] : x[i] % y[i];
        }
        break;
      default: break;
    }
    o[i] = static_cast<T>(WrapTo(logical, r));
  }
  out.validity = validity;
  return out;
}

template <typename T>
ColumnVector FloatArith(Fn fn, const ColumnVector& a, const ColumnVector& b, const TypePtr& type,
                        int64_t n) {
  ColumnVector out = MakeFixed<T>(type, n);
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  T* o = out.mutable_data<T>();
  for (int64_t i = 0; i < n; ++i) {
    switch (fn) {
      case Fn::kAdd: o[i] = x[i] + y[i]; break;
      case Fn::kSub: o[i] = x[i] - y[i]; break;
      case Fn::kMul: o[i] = x[i] * y[i]; break;
      case Fn::kDiv: o[i] = x[i] / y[i]; break;
      default: o[i] = std::fmod(x[i], y[i]); break;
    }
  }
  return out;
}

Result<ColumnVector> DecimalArith(Fn fn, const ColumnVector& a, const ColumnVector& b,
                                  const TypePtr& type, int64_t n, std::vector<uint8_t> validity) {
  const int s1 = a.type->scale, s2 = b.type->scale, s = type->scale;
  const int128_t max = MaxUnscaled(type->precision);
  ColumnVector out = MakeFixed<int128_t>(type, n);
  const int128_t* x = a.data<int128_t>();
  const int128_t* y = b.data<int128_t>();
  int128_t* o = out.mutable_data<int128_t>();
  auto set_null = [&](int64_t i) {
    if (validity.empty()) validity.assign(static_cast<size_t>(n), 1);
    validity[i] = 0;
  };
  for (int64_t i = 0; i < n; ++i) {
    if (!validity.empty() && !validity[i]) {
      o[i] = 0;
      continue;
    }
    int128_t r = 0;
    bool ok = true;
    switch (fn) {
      case Fn::kAdd:
      case Fn::kSub: {
        int128_t u = 0, v = 0;
        ok = Rescale(x[i], s1, s, &u) && Rescale(y[i], s2, s, &v);
        r = fn == Fn::kAdd ? u + v : u - v;
        break;
      }
      case Fn::kMul: {
        // product at scale s1 + s2, then to s
        const long double approx = static_cast<long double>(x[i]) * static_cast<long double>(y[i]);
        if (std::fabs(approx) > 1.0e37L) {
          ok = false;
        } else {
          ok = Rescale(x[i] * y[i], s1 + s2, s, &r);
        }
        break;
      }
      default: {  // kDiv: x / y at scale s, rounded half up
        if (y[i] == 0) return InvalidArgument("Division by zero");
        // r = x * 10^(s - s1 + s2) / y
        const int k = s - s1 + s2;
        int128_t num = 0;
        if (k >= 0 && Rescale(x[i], 0, k, &num)) {
          r = DivRoundHalfUp(num, y[i]);
          if (y[i] < 0) r = -DivRoundHalfUp(num, -y[i]);
        } else {
          const long double q = static_cast<long double>(x[i]) / static_cast<long double>(y[i]) *
                                std::pow(10.0L, static_cast<long double>(k));
          if (std::fabs(q) > 1.0e37L) {
            ok = false;
          } else {
            r = static_cast<int128_t>(std::llroundl(q));
          }
        }
        break;
      }
    }
    if (!ok || r > max || r < -max) {
      set_null(i);
      o[i] = 0;
    } else {
      o[i] = r;
    }
  }
  out.validity = std::move(validity);
  return out;
}

// SQL LIKE with % and _ over code points, `esc` the escape character (or empty).
bool LikeMatch(std::string_view s, std::string_view p, std::string_view esc) {
  auto next_cp = [](std::string_view t, size_t i) {
    size_t j = i + 1;
    while (j < t.size() && (static_cast<unsigned char>(t[j]) & 0xC0) == 0x80) ++j;
    return j;
  };
  size_t si = 0, pi = 0;
  size_t star_p = std::string_view::npos, star_s = 0;
  while (si < s.size()) {
    if (pi < p.size()) {
      const size_t pn = next_cp(p, pi);
      std::string_view pc = p.substr(pi, pn - pi);
      if (!esc.empty() && pc == esc && pn < p.size()) {
        const size_t pn2 = next_cp(p, pn);
        const size_t sn = next_cp(s, si);
        if (s.substr(si, sn - si) == p.substr(pn, pn2 - pn)) {
          si = sn;
          pi = pn2;
          continue;
        }
      } else if (pc == "%") {
        star_p = pi;
        star_s = si;
        pi = pn;
        continue;
      } else if (pc == "_") {
        si = next_cp(s, si);
        pi = pn;
        continue;
      } else {
        const size_t sn = next_cp(s, si);
        if (s.substr(si, sn - si) == pc) {
          si = sn;
          pi = pn;
          continue;
        }
      }
    }
    if (star_p == std::string_view::npos) return false;
    pi = next_cp(p, star_p);
    star_s = next_cp(s, star_s);
    si = star_s;
  }
  while (pi < p.size() && p[pi] == '%') ++pi;
  return pi == p.size();
}

// Three-valued AND / OR over boolean columns.
ColumnVector Logic(bool is_and, const std::vector<ColumnVector>& cols, int64_t n) {
  ColumnVector out = MakeFixed<uint8_t>(BooleanType(), n);
  uint8_t* o = out.mutable_data<uint8_t>();
  std::vector<uint8_t> validity;
  bool any_null = false;
  for (const auto& c : cols) any_null = any_null || c.has_nulls();
  if (any_null) validity.assign(static_cast<size_t>(n), 1);
  for (int64_t i = 0; i < n; ++i) {
    bool decided = false, unknown = false;
    for (const auto& c : cols) {
      if (c.IsNull(i)) {
        unknown = true;
        continue;
      }
      const bool v = c.data<uint8_t>()[i] != 0;
      if (v != is_and) {  // false for AND, true for OR decides
        decided = true;
        break;
      }
    }
    if (decided) {
      o[i] = !is_and;
    } else if (unknown) {
      o[i] = 0;
      validity[i] = 0;
    } else {
      o[i] = is_and;
    }
  }
  out.validity = std::move(validity);
  return out;
}

Result<ColumnVector> EvalCall(const BoundExpr& e, const Batch& batch);

Result<ColumnVector> Eval(const BoundExpr& e, const Batch& batch) {
  switch (e.kind) {
    case BoundKind::kColumn: return batch.columns[e.column];
    case BoundKind::kLiteral: return Broadcast(e.literal, batch.num_rows);
    case BoundKind::kCast: {
      if (e.args[0].kind == BoundKind::kLiteral) {
        // Cast the one value, then repeat it.
        FLOE_ASSIGN_OR_RETURN(ColumnVector one, CastColumn(e.args[0].literal, e.args[0].type,
                                                           e.type, e.physical, e.try_cast));
        return Broadcast(one, batch.num_rows);
      }
      FLOE_ASSIGN_OR_RETURN(ColumnVector in, Eval(e.args[0], batch));
      return CastColumn(in, e.args[0].type, e.type, e.physical, e.try_cast);
    }
    case BoundKind::kCall: return EvalCall(e, batch);
  }
  return Internal("unknown bound expression");
}

Result<ColumnVector> EvalCall(const BoundExpr& e, const Batch& batch) {
  const int64_t n = batch.num_rows;
  std::vector<ColumnVector> args;
  // CASE and COALESCE evaluate every branch (no short-circuit; errors of
  // branches not taken still surface, as in the absence of Flink's code
  // generation: kept simple).
  for (const BoundExpr& a : e.args) {
    FLOE_ASSIGN_OR_RETURN(ColumnVector c, Eval(a, batch));
    args.push_back(std::move(c));
  }
  switch (e.fn) {
    case Fn::kEq:
    case Fn::kNe:
    case Fn::kLt:
    case Fn::kLe:
    case Fn::kGt:
    case Fn::kGe: {
      ColumnVector out;
      const Fn fn = e.fn;
      auto pred = [fn](int c) {
        switch (fn) {
          case Fn::kEq: return c == 0;
          case Fn::kNe: return c != 0;
          case Fn::kLt: return c < 0;
          case Fn::kLe: return c <= 0;
          case Fn::kGt: return c > 0;
          default: return c >= 0;
        }
      };
      if (args[0].type->is_nested()) {
        out = CompareNested(args[0], args[1], e.args[0].type, n, fn == Fn::kEq);
      } else {
        out = CompareColumns(args[0], args[1], n, pred);
      }
      out.validity = CombineValidity({&args[0], &args[1]}, n);
      return out;
    }
    case Fn::kAnd:
    case Fn::kOr: return Logic(e.fn == Fn::kAnd, args, n);
    case Fn::kNot: {
      ColumnVector out = MakeFixed<uint8_t>(BooleanType(), n);
      for (int64_t i = 0; i < n; ++i) out.mutable_data<uint8_t>()[i] = !args[0].data<uint8_t>()[i];
      out.validity = args[0].validity;
      return out;
    }
    case Fn::kIsNull:
    case Fn::kIsNotNull:
    case Fn::kIsTrue:
    case Fn::kIsNotTrue:
    case Fn::kIsFalse:
    case Fn::kIsNotFalse: {
      ColumnVector out = MakeFixed<uint8_t>(BooleanType(), n);
      uint8_t* o = out.mutable_data<uint8_t>();
      for (int64_t i = 0; i < n; ++i) {
        const bool null = args[0].IsNull(i);
        const bool v = !null && args[0].type->id == TypeId::kBoolean && args[0].data<uint8_t>()[i];
        switch (e.fn) {
          case Fn::kIsNull: o[i] = null; break;
          case Fn::kIsNotNull: o[i] = !null; break;
          case Fn::kIsTrue: o[i] = !null && v; break;
          case Fn::kIsNotTrue: o[i] = null || !v; break;
          case Fn::kIsFalse: o[i] = !null && !v; break;
          default: o[i] = null || v; break;
        }
      }
      return out;
    }
    case Fn::kIn: {
      // x IN (a, b): TRUE on a match, else NULL when x or an item is NULL, else FALSE.
      ColumnVector out = MakeFixed<uint8_t>(BooleanType(), n);
      uint8_t* o = out.mutable_data<uint8_t>();
      std::vector<uint8_t> validity;
      std::vector<ColumnVector> eqs;
      for (size_t k = 1; k < args.size(); ++k) {
        ColumnVector c = args[0].type->is_nested()
                             ? CompareNested(args[0], args[k], e.args[0].type, n, true)
                             : CompareColumns(args[0], args[k], n, [](int c) { return c == 0; });
        c.validity = CombineValidity({&args[0], &args[k]}, n);
        eqs.push_back(std::move(c));
      }
      ColumnVector any = Logic(false, eqs, n);
      for (int64_t i = 0; i < n; ++i) o[i] = any.data<uint8_t>()[i];
      validity = any.validity;
      if (e.negated) {
        for (int64_t i = 0; i < n; ++i) o[i] = !o[i];
      }
      out.validity = std::move(validity);
      return out;
    }
    case Fn::kLike: {
      ColumnVector out = MakeFixed<uint8_t>(BooleanType(), n);
      uint8_t* o = out.mutable_data<uint8_t>();
      std::vector<const ColumnVector*> ins;
      for (const auto& a : args) ins.push_back(&a);
      out.validity = CombineValidity(ins, n);
      for (int64_t i = 0; i < n; ++i) {
        if (out.IsNull(i)) {
          o[i] = 0;
          continue;
        }
        std::string_view esc = args.size() == 3 ? args[2].bytes(i) : std::string_view();
        o[i] = LikeMatch(args[0].bytes(i), args[1].bytes(i), esc) != e.negated;
      }
      return out;
    }
    case Fn::kAdd:
    case Fn::kSub:
    case Fn::kMul:
    case Fn::kDiv:
    case Fn::kMod: {
      std::vector<uint8_t> validity = CombineValidity({&args[0], &args[1]}, n);
      switch (e.physical->id) {
        case TypeId::kInt:
          return IntegerArith<int32_t>(e.fn, args[0], args[1], e.physical, e.type.name, n,
                                       validity);
        case TypeId::kLong:
          return IntegerArith<int64_t>(e.fn, args[0], args[1], e.physical, e.type.name, n,
                                       validity);
        case TypeId::kFloat: {
          ColumnVector out = FloatArith<float>(e.fn, args[0], args[1], e.physical, n);
          out.validity = std::move(validity);
          return out;
        }
        case TypeId::kDouble: {
          ColumnVector out = FloatArith<double>(e.fn, args[0], args[1], e.physical, n);
          out.validity = std::move(validity);
          return out;
        }
        case TypeId::kDecimal:
          return DecimalArith(e.fn, args[0], args[1], e.physical, n, std::move(validity));
        default: return Internal("arithmetic on {}", e.physical->ToString());
      }
    }
    case Fn::kNeg:
    case Fn::kAbs: {
      ColumnVector out = args[0];
      out.type = e.physical;
      const bool abs = e.fn == Fn::kAbs;
      switch (out.type->id) {
        case TypeId::kInt:
          for (int64_t i = 0; i < n; ++i) {
            int32_t& v = out.mutable_data<int32_t>()[i];
            if (!abs || v < 0)
              v = static_cast<int32_t>(WrapTo(e.type.name, WrapSub<int32_t>(0, v)));
          }
          break;
        case TypeId::kLong:
          for (int64_t i = 0; i < n; ++i) {
            int64_t& v = out.mutable_data<int64_t>()[i];
            if (!abs || v < 0) v = WrapSub<int64_t>(0, v);
          }
          break;
        case TypeId::kFloat:
          for (int64_t i = 0; i < n; ++i) {
            float& v = out.mutable_data<float>()[i];
            v = abs ? std::fabs(v) : -v;
          }
          break;
        case TypeId::kDouble:
          for (int64_t i = 0; i < n; ++i) {
            double& v = out.mutable_data<double>()[i];
            v = abs ? std::fabs(v) : -v;
          }
          break;
        case TypeId::kDecimal:
          for (int64_t i = 0; i < n; ++i) {
            int128_t& v = out.mutable_data<int128_t>()[i];
            if (!abs || v < 0) v = -v;
          }
          break;
        default: return Internal("negation of {}", out.type->ToString());
      }
      return out;
    }
    case Fn::kConcat: {
      ColumnVector out(e.physical);
      std::vector<const ColumnVector*> ins;
      for (const auto& a : args) ins.push_back(&a);
      std::vector<uint8_t> validity = CombineValidity(ins, n);
      std::string s;
      for (int64_t i = 0; i < n; ++i) {
        if (!validity.empty() && !validity[i]) {
          out.AppendNull();
          continue;
        }
        s.clear();
        for (const auto& a : args) s += a.bytes(i);
        out.AppendBytes(s);
      }
      return out;
    }
    case Fn::kScalar: return EvaluateScalar(e, args, n);
    case Fn::kIsDistinct: {
      // Nulls are equal to each other and unequal to any value.
      ColumnVector eq = args[0].type->is_nested()
                            ? CompareNested(args[0], args[1], e.args[0].type, n, true)
                            : CompareColumns(args[0], args[1], n, [](int c) { return c == 0; });
      ColumnVector out = MakeFixed<uint8_t>(BooleanType(), n);
      uint8_t* o = out.mutable_data<uint8_t>();
      for (int64_t i = 0; i < n; ++i) {
        const bool na = args[0].IsNull(i), nb = args[1].IsNull(i);
        const bool same = (na && nb) || (!na && !nb && eq.data<uint8_t>()[i]);
        o[i] = e.negated ? same : !same;
      }
      return out;
    }
    case Fn::kCharLength: {
      ColumnVector out = MakeFixed<int32_t>(e.physical, n);
      for (int64_t i = 0; i < n; ++i) {
        out.mutable_data<int32_t>()[i] =
            args[0].IsNull(i) ? 0 : static_cast<int32_t>(CodePoints(args[0].bytes(i)));
      }
      out.validity = args[0].validity;
      return out;
    }
    case Fn::kCase:
    case Fn::kCoalesce: {
      // For each row, the index of the argument that gives its value.
      ColumnVector out(e.physical);
      for (int64_t i = 0; i < n; ++i) {
        const ColumnVector* src = nullptr;
        if (e.fn == Fn::kCase) {
          const size_t pairs = (args.size() - (e.has_else ? 1 : 0)) / 2;
          for (size_t k = 0; k < pairs; ++k) {
            const ColumnVector& c = args[2 * k];
            if (!c.IsNull(i) && c.data<uint8_t>()[i]) {
              src = &args[2 * k + 1];
              break;
            }
          }
          if (!src && e.has_else) src = &args.back();
        } else {
          for (const auto& a : args) {
            if (!a.IsNull(i)) {
              src = &a;
              break;
            }
          }
        }
        if (!src) {
          out.AppendNull();
        } else {
          AppendRange(*src, i, i + 1, &out);
        }
      }
      return out;
    }
    default: return Internal("unknown function");
  }
}

}  // namespace

Result<ColumnVector> Evaluate(const BoundExpr& expr, const Batch& batch) { return Eval(expr, batch); }

Result<ColumnVector> EvaluateConstant(const BoundExpr& expr) {
  // One row without columns, as OneRowSource gives SELECT without FROM.
  Batch one;
  one.schema = std::make_shared<Schema>();
  one.num_rows = 1;
  FLOE_ASSIGN_OR_RETURN(ColumnVector out, Eval(expr, one));
  if (out.length != 1) {
    return Internal("a constant expression gave {} values instead of one", out.length);
  }
  return out;
}

Result<std::vector<int64_t>> EvaluateFilter(const BoundExpr& expr, const Batch& batch) {
  FLOE_ASSIGN_OR_RETURN(ColumnVector c, Eval(expr, batch));
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(batch.num_rows));
  const uint8_t* v = c.data<uint8_t>();
  for (int64_t i = 0; i < batch.num_rows; ++i) {
    if (v[i] && !c.IsNull(i)) out.push_back(i);
  }
  return out;
}

}  // namespace floe::sqlengine
