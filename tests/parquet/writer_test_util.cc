#include "writer_test_util.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "floe/parquet/schema_mapping.h"
#include "floe/types/names.h"
#include "testing/hex.h"

namespace floe::parquet::testing {

std::string IcebergTypeJson(const Type& t) {
  switch (t.id) {
    case TypeId::kStruct: {
      std::string out = R"({"type":"struct","fields":[)";
      for (size_t i = 0; i < t.fields.size(); ++i) {
        if (i) out += ',';
        out += fmt::format(R"({{"name":"{}","type":{}}})", t.fields[i].name,
                           IcebergTypeJson(*t.fields[i].type));
      }
      return out + "]}";
    }
    case TypeId::kList:
      return fmt::format(R"({{"type":"list","element":{}}})", IcebergTypeJson(*t.element().type));
    case TypeId::kMap:
      return fmt::format(R"({{"type":"map","key":{},"value":{}}})", IcebergTypeJson(*t.key().type),
                         IcebergTypeJson(*t.value().type));
    default: return "\"" + t.ToString() + "\"";
  }
}

std::string SchemaTypeJson(const Schema& schema) { return IcebergTypeJson(*schema.AsStruct()); }

namespace {

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// Formats shortest-digit scientific text ("d.ddde±x") the way JavaScript prints numbers.
std::string JsFromScientific(const std::string& sci) {
  bool neg = sci[0] == '-';
  std::string s = neg ? sci.substr(1) : sci;
  size_t e = s.find('e');
  std::string mant = s.substr(0, e);
  int exp = std::stoi(s.substr(e + 1));
  std::string digits;
  for (char c : mant) {
    if (c != '.') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int k = static_cast<int>(digits.size());
  int n = exp + 1;
  std::string out;
  if (k <= n && n <= 21) {
    out = digits + std::string(n - k, '0');
  } else if (0 < n && n <= 21) {
    out = digits.substr(0, n) + "." + digits.substr(n);
  } else if (-6 < n && n <= 0) {
    out = "0." + std::string(-n, '0') + digits;
  } else {
    out = digits.substr(0, 1);
    if (k > 1) out += "." + digits.substr(1);
    out += (n - 1 >= 0 ? "e+" : "e-") + std::to_string(std::abs(n - 1));
  }
  return neg ? "-" + out : out;
}

template <typename F>
std::string JsNumber(F v) {
  if (std::isnan(v)) return "\"NaN\"";
  if (std::isinf(v)) return v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  return JsFromScientific(std::string(buf, r.ptr));
}

// Days since 1970-01-01 -> civil date.
void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t yy = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = yy + (*m <= 2);
}

std::string Date(int64_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  return fmt::format("{:04}-{:02}-{:02}", y, m, d);
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::string Timestamp(int64_t units, int64_t per_second, int digits) {
  int64_t secs = FloorDiv(units, per_second);
  int64_t frac = units - secs * per_second;
  int64_t days = FloorDiv(secs, 86400);
  int64_t sod = secs - days * 86400;
  return fmt::format("{}T{:02}:{:02}:{:02}.{:0{}}", Date(days), sod / 3600, sod / 60 % 60, sod % 60,
                     frac, digits);
}

std::string DecimalText(int128_t v, int scale) {
  bool neg = v < 0;
  unsigned __int128 a = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(a % 10)));
    a /= 10;
  } while (a > 0);
  while (static_cast<int>(digits.size()) < scale + 1) digits.insert(digits.begin(), '0');
  std::string out = scale ? digits.substr(0, digits.size() - scale) + "." +
                                digits.substr(digits.size() - scale)
                          : digits;
  return (neg ? "-" : "") + out;
}

}  // namespace

std::string JsDouble(double v) { return JsNumber(v); }
// canonical.mjs formatFloat32: the first toPrecision(p), p = 1..9, that reads back as
// the same float32; toPrecision rounds exact ties away from zero.
std::string JsFloat(float v) {
  if (std::isnan(v) || std::isinf(v) || v == 0) return JsNumber(v);
  double x = std::fabs(static_cast<double>(v));
  char buf[256];
  std::snprintf(buf, sizeof(buf), "%.150e", x);  // exact digits of the double
  std::string s(buf);
  size_t e = s.find('e');
  std::string digits = s.substr(0, 1) + s.substr(2, e - 2);
  int exp10 = std::stoi(s.substr(e + 1));
  for (int p = 1; p <= 9; ++p) {
    std::string d = digits.substr(0, p);
    int ex = exp10;
    if (digits[p] >= '5') {  // round half up (ties away from zero)
      int i = p - 1;
      while (i >= 0 && d[i] == '9') d[i--] = '0';
      if (i < 0) {
        d.insert(d.begin(), '1');
        d.pop_back();
        ++ex;
      } else {
        ++d[i];
      }
    }
    std::string sci = d.substr(0, 1) + (p > 1 ? "." + d.substr(1) : "") + "e" + std::to_string(ex);
    if (static_cast<float>(std::strtod(sci.c_str(), nullptr)) == std::fabs(v)) {
      return JsFromScientific((v < 0 ? "-" : "") + sci);
    }
  }
  return JsNumber(v);
}

std::string CanonicalValue(const ColumnVector& col, int64_t i, bool mask) {
  if (col.IsNull(i)) return "null";
  const Type& t = *col.type;
  switch (t.id) {
    case TypeId::kBoolean: return col.data<uint8_t>()[i] ? "true" : "false";
    case TypeId::kInt: return std::to_string(col.data<int32_t>()[i]);
    case TypeId::kLong: return std::to_string(col.data<int64_t>()[i]);
    case TypeId::kFloat: return JsFloat(col.data<float>()[i]);
    case TypeId::kDouble: return JsDouble(col.data<double>()[i]);
    case TypeId::kDecimal:
      if (mask && t.precision > 15) return "\"~\"";
      return "\"" + DecimalText(col.data<int128_t>()[i], t.scale) + "\"";
    case TypeId::kDate: return "\"" + Date(col.data<int32_t>()[i]) + "\"";
    case TypeId::kTime: {
      int64_t v = col.data<int64_t>()[i];
      return fmt::format("\"{:02}:{:02}:{:02}.{:06}\"", v / 3600000000LL, v / 60000000LL % 60,
                         v / 1000000 % 60, v % 1000000);
    }
    case TypeId::kTimestamp: return "\"" + Timestamp(col.data<int64_t>()[i], 1000000, 6) + "\"";
    case TypeId::kTimestampTz:
      return "\"" + Timestamp(col.data<int64_t>()[i], 1000000, 6) + "+00:00\"";
    case TypeId::kTimestampNs:
      return "\"" + Timestamp(col.data<int64_t>()[i], 1000000000, 9) + "\"";
    case TypeId::kTimestampTzNs:
      return "\"" + Timestamp(col.data<int64_t>()[i], 1000000000, 9) + "+00:00\"";
    case TypeId::kString: return JsonString(col.bytes(i));
    case TypeId::kUuid: {
      std::string h = test::Hex(col.bytes(i));
      return fmt::format("\"{}-{}-{}-{}-{}\"", h.substr(0, 8), h.substr(8, 4), h.substr(12, 4),
                         h.substr(16, 4), h.substr(20));
    }
    case TypeId::kFixed:
    case TypeId::kBinary: return "\"" + test::Hex(col.bytes(i)) + "\"";
    case TypeId::kStruct: {
      std::string out = "{";
      for (size_t f = 0; f < t.fields.size(); ++f) {
        if (f) out += ',';
        out += JsonString(t.fields[f].name) + ":" + CanonicalValue(col.children[f], i, mask);
      }
      return out + "}";
    }
    case TypeId::kList: {
      std::string out = "[";
      for (int64_t j = col.offsets[i]; j < col.offsets[i + 1]; ++j) {
        if (j > col.offsets[i]) out += ',';
        out += CanonicalValue(col.children[0], j, mask);
      }
      return out + "]";
    }
    case TypeId::kMap: {
      std::string keys, values;
      for (int64_t j = col.offsets[i]; j < col.offsets[i + 1]; ++j) {
        if (j > col.offsets[i]) {
          keys += ',';
          values += ',';
        }
        keys += CanonicalValue(col.children[0], j, mask);
        values += CanonicalValue(col.children[1], j, mask);
      }
      return "{\"keys\":[" + keys + "],\"values\":[" + values + "]}";
    }
  }
  return "null";
}

std::vector<std::string> CanonicalRows(const Batch& batch, bool mask, bool parquet_names) {
  std::vector<std::string> rows;
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    std::string out = "{";
    for (size_t c = 0; c < batch.columns.size(); ++c) {
      if (c) out += ',';
      const std::string& name = batch.schema->fields()[c].name;
      out += JsonString(parquet_names ? SanitizeName(name) : name) + ":" +
             CanonicalValue(batch.columns[c], r, mask);
    }
    rows.push_back(out + "}");
  }
  return rows;
}

// ---------------------------------------------------------------------------------

void RandomFiller::Fill(Batch* batch, int64_t n) {
  for (int64_t r = 0; r < n; ++r) {
    for (size_t c = 0; c < batch->columns.size(); ++c) {
      AppendValue(&batch->columns[c], batch->schema->fields()[c], 0);
    }
    ++batch->num_rows;
  }
}

void RandomFiller::AppendValue(ColumnVector* col, const NestedField& f, int depth) {
  if (!f.required && Chance(null_rate_)) {
    col->AppendNull();
    return;
  }
  const Type& t = *f.type;
  switch (t.id) {
    case TypeId::kStruct:
      for (size_t i = 0; i < t.fields.size(); ++i) AppendValue(&col->children[i], t.fields[i], depth + 1);
      col->AppendStructRow();
      return;
    case TypeId::kList: {
      int n = static_cast<int>(rng_() % 4);
      for (int i = 0; i < n; ++i) AppendValue(&col->children[0], t.element(), depth + 1);
      col->CloseListRow();
      return;
    }
    case TypeId::kMap: {
      int n = static_cast<int>(rng_() % 4);
      // Keys must be unique within a map (DuckDB rejects duplicates): derive them from
      // the entry index. Int keys are non-negative and ascending because hyparquet returns
      // maps as JS objects, which list integer-like keys first in numeric order.
      for (int i = 0; i < n; ++i) {
        ColumnVector& keys = col->children[0];
        switch (t.key().type->id) {
          case TypeId::kInt: keys.Append<int32_t>(i * 7 + 3); break;
          case TypeId::kLong: keys.Append<int64_t>(static_cast<int64_t>(i) << 40); break;
          default: keys.AppendBytes(fmt::format("k{}é{}", i, rng_() % 100)); break;
        }
        AppendValue(&col->children[1], t.value(), depth + 1);
      }
      col->CloseListRow();
      return;
    }
    default: AppendPrimitive(col, t);
  }
}

void RandomFiller::AppendPrimitive(ColumnVector* col, const Type& t) {
  const int pick = static_cast<int>(rng_() % 8);  // 0..1: an extreme
  switch (t.id) {
    case TypeId::kBoolean: col->Append<uint8_t>(rng_() & 1); return;
    case TypeId::kInt: {
      int32_t v = pick == 0 ? std::numeric_limits<int32_t>::min()
                  : pick == 1 ? std::numeric_limits<int32_t>::max()
                  : pick == 2 ? 0
                              : static_cast<int32_t>(rng_());
      col->Append(v);
      return;
    }
    case TypeId::kLong: {
      int64_t v = pick == 0 ? std::numeric_limits<int64_t>::min()
                  : pick == 1 ? std::numeric_limits<int64_t>::max()
                  : pick == 2 ? 0
                              : static_cast<int64_t>(rng_());
      col->Append(v);
      return;
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      static const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                                        std::numeric_limits<double>::infinity(),
                                        -std::numeric_limits<double>::infinity(),
                                        -0.0, 0.0, 1.5, -2.25e-7, 1e21};
      double v = rng_() % 3 == 0 ? specials[rng_() % 8]
                                 : std::ldexp(static_cast<double>(static_cast<int32_t>(rng_())),
                                              static_cast<int>(rng_() % 40) - 30);
      if (t.id == TypeId::kFloat) {
        col->Append(static_cast<float>(v));
      } else {
        col->Append(v);
      }
      return;
    }
    case TypeId::kDecimal: {
      int128_t limit = 1;
      for (int i = 0; i < t.precision; ++i) limit *= 10;
      int128_t v;
      if (pick == 0) {
        v = limit - 1;
      } else if (pick == 1) {
        v = -(limit - 1);
      } else {
        unsigned __int128 r = (static_cast<unsigned __int128>(rng_()) << 64) | rng_();
        v = static_cast<int128_t>(r % static_cast<unsigned __int128>(limit));
        if (rng_() & 1) v = -v;
      }
      col->Append(v);
      return;
    }
    case TypeId::kDate: {
      // 0001-01-01 .. 9999-12-31
      int32_t lo = -719162, hi = 2932896;
      int32_t v = pick == 0 ? lo : pick == 1 ? hi : lo + static_cast<int32_t>(rng_() % (hi - lo + 1));
      col->Append(v);
      return;
    }
    case TypeId::kTime: {
      int64_t v = pick == 0 ? 0 : pick == 1 ? 86399999999LL : static_cast<int64_t>(rng_() % 86400000000ULL);
      col->Append(v);
      return;
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      int64_t lo = -62135596800000000LL, hi = 253402300799999999LL;
      int64_t v = pick == 0 ? lo : pick == 1 ? hi : lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo));
      col->Append(v);
      return;
    }
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      int64_t lim = 9200000000000000000LL;
      const uint64_t ulim = static_cast<uint64_t>(lim);
      int64_t v = pick == 0 ? -lim : pick == 1 ? lim : static_cast<int64_t>(rng_() % (2 * ulim) - ulim);
      col->Append(v);
      return;
    }
    case TypeId::kString: {
      ++string_count_;
      if (big_every_ > 0 && string_count_ % big_every_ == 0) {
        std::string s(big_size_, 'x');
        for (size_t i = 0; i < s.size(); i += 97) s[i] = static_cast<char>('a' + rng_() % 26);
        col->AppendBytes(s);
        return;
      }
      static const char* samples[] = {"", "plain ascii", "héllo wörld ✓ 日本語 🎉", "quote\" back\\slash",
                                      "ctl\n\t\x01\x1f", "zzzz", "\xc3\xbf\xc3\xbf", "a"};
      std::string s = samples[rng_() % 8];
      if (rng_() % 2) s += std::to_string(rng_() % 1000);
      col->AppendBytes(s);
      return;
    }
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kBinary: {
      size_t n = t.id == TypeId::kUuid ? 16 : t.id == TypeId::kFixed ? t.length : rng_() % 12;
      std::string s(n, '\0');
      for (auto& c : s) c = static_cast<char>(pick == 0 ? 0xff : pick == 1 ? 0 : rng_());
      col->AppendBytes(s);
      return;
    }
    default: return;
  }
}

}  // namespace floe::parquet::testing
