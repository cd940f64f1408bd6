/// \file
/// Test-local canonical JSON printer for Batch rows, in the exact forms of
/// shared/interop/lib/canonical.mjs (what `parquet_rows.mjs --rows` prints):
/// exact longs, shortest round-trip floats in JavaScript's Number format,
/// decimals as strings with every scale digit, dates/times/timestamps as ISO
/// text, binary and fixed as lower-case hex, uuid canonical, maps as
/// {"keys":[..],"values":[..]}.
/// Kept here until the ingest helper's src/floe/types/json_value.h lands.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "floe/types/column_vector.h"
#include "testing/hex.h"

namespace floe::testing {

/// JavaScript's Number.prototype.toString for a shortest digit string.
inline std::string JsNumber(const char* sci) {
  // sci: "-d.ddde+XX" from std::to_chars scientific shortest.
  std::string s(sci);
  std::string out;
  if (s[0] == '-') {
    out = "-";
    s = s.substr(1);
  }
  size_t epos = s.find('e');
  std::string mant = s.substr(0, epos);
  int exp = std::stoi(s.substr(epos + 1));
  std::string digits;
  for (char c : mant) {
    if (c != '.') digits.push_back(c);
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int k = static_cast<int>(digits.size());
  const int n = exp + 1;
  if (k <= n && n <= 21) {
    out += digits + std::string(n - k, '0');
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, n) + "." + digits.substr(n);
  } else if (-6 < n && n <= 0) {
    out += "0." + std::string(-n, '0') + digits;
  } else {
    int e = n - 1;
    out += digits.substr(0, 1);
    if (k > 1) out += "." + digits.substr(1);
    out += e >= 0 ? "e+" : "e-";
    out += std::to_string(e >= 0 ? e : -e);
  }
  return out;
}

inline std::string FormatDouble(double v) {
  if (v != v) return "\"NaN\"";
  if (v == 1.0 / 0.0) return "\"Infinity\"";
  if (v == -1.0 / 0.0) return "\"-Infinity\"";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  *r.ptr = 0;
  return JsNumber(buf);
}

/// formatFloat32 of canonical.mjs: the fewest significant digits p (1..9)
/// such that x.toPrecision(p) reads back as the same float32. toPrecision
/// rounds the exact value half away from zero, so it is done here on the
/// exact decimal expansion rather than with printf (which rounds half-even).
inline std::string FormatFloat(float v) {
  if (v != v) return "\"NaN\"";
  if (v == 1.0f / 0.0f) return "\"Infinity\"";
  if (v == -1.0f / 0.0f) return "\"-Infinity\"";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char exact[256];
  std::snprintf(exact, sizeof(exact), "%.150e", static_cast<double>(v < 0 ? -v : v));
  std::string e(exact);
  size_t epos = e.find('e');
  std::string digits = e.substr(0, 1) + e.substr(2, epos - 2);
  int exp10 = std::stoi(e.substr(epos + 1));
  for (int p = 1; p <= 9; ++p) {
    std::string d = digits.substr(0, p);
    int ex = exp10;
    if (digits[p] >= '5') {  // half away from zero (the expansion is exact)
      int k = p - 1;
      while (k >= 0 && d[k] == '9') d[k--] = '0';
      if (k < 0) {
        d = "1" + d.substr(0, p - 1);
        ++ex;
      } else {
        ++d[k];
      }
    }
    std::string sci = d.substr(0, 1) + (p > 1 ? "." + d.substr(1) : "") + "e" + std::to_string(ex);
    if (std::strtof(sci.c_str(), nullptr) == (v < 0 ? -v : v)) {
      return (v < 0 ? "-" : "") + JsNumber((sci.substr(0, sci.find('e')) + "e" +
                                            (ex >= 0 ? "+" : "") + std::to_string(ex))
                                               .c_str());
    }
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  *r.ptr = 0;
  return JsNumber(buf);
}

inline std::string Pad(int64_t v, int w) {
  std::string s = std::to_string(v);
  if (static_cast<int>(s.size()) < w) s = std::string(w - s.size(), '0') + s;
  return s;
}

/// Days since 1970-01-01 -> "YYYY-MM-DD" (proleptic Gregorian).
inline std::string FormatDate(int64_t days) {
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
  std::string ys;
  if (y >= 0 && y <= 9999) {
    ys = Pad(y, 4);
  } else {
    ys = (y < 0 ? "-" : "+") + Pad(y < 0 ? -y : y, 6);
  }
  return ys + "-" + Pad(m, 2) + "-" + Pad(d, 2);
}

inline std::string FormatTimestamp(int64_t units, int digits) {
  int64_t scale = digits == 9 ? 1000000000 : 1000000;
  int64_t secs = units / scale;
  int64_t frac = units % scale;
  if (frac < 0) {
    frac += scale;
    secs -= 1;
  }
  int64_t days = secs / 86400;
  int64_t sod = secs % 86400;
  if (sod < 0) {
    sod += 86400;
    days -= 1;
  }
  return FormatDate(days) + "T" + Pad(sod / 3600, 2) + ":" + Pad(sod / 60 % 60, 2) + ":" +
         Pad(sod % 60, 2) + "." + Pad(frac, digits);
}

inline std::string FormatTime(int64_t micros) {
  int64_t us = micros % 1000000;
  int64_t s = micros / 1000000;
  return Pad(s / 3600, 2) + ":" + Pad(s / 60 % 60, 2) + ":" + Pad(s % 60, 2) + "." + Pad(us, 6);
}

inline std::string Int128ToString(__int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u =
      neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  while (u) {
    s.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (neg) s.push_back('-');
  return std::string(s.rbegin(), s.rend());
}

inline std::string FormatDecimal(__int128 v, int scale) {
  bool neg = v < 0;
  std::string s = Int128ToString(neg ? -v : v);
  if (static_cast<int>(s.size()) < scale + 1) s = std::string(scale + 1 - s.size(), '0') + s;
  if (scale) s = s.substr(0, s.size() - scale) + "." + s.substr(s.size() - scale);
  return "\"" + std::string(neg ? "-" : "") + s + "\"";
}

/// JSON.stringify of a string (UTF-8 passed through).
inline std::string JsonString(std::string_view s) {
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
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  return out + "\"";
}

inline std::string HexString(std::string_view s) { return "\"" + ::floe::test::Hex(s) + "\""; }

/// Canonical JSON of row i of column c.
inline std::string ValueJson(const ColumnVector& c, int64_t i) {
  if (c.IsNull(i)) return "null";
  const Type& t = *c.type;
  switch (t.id) {
    case TypeId::kBoolean: return c.data<uint8_t>()[i] ? "true" : "false";
    case TypeId::kInt: return std::to_string(c.data<int32_t>()[i]);
    case TypeId::kLong: return std::to_string(c.data<int64_t>()[i]);
    case TypeId::kFloat: return FormatFloat(c.data<float>()[i]);
    case TypeId::kDouble: return FormatDouble(c.data<double>()[i]);
    case TypeId::kDecimal: return FormatDecimal(c.data<__int128>()[i], t.scale);
    case TypeId::kDate: return "\"" + FormatDate(c.data<int32_t>()[i]) + "\"";
    case TypeId::kTime: return "\"" + FormatTime(c.data<int64_t>()[i]) + "\"";
    case TypeId::kTimestamp: return "\"" + FormatTimestamp(c.data<int64_t>()[i], 6) + "\"";
    case TypeId::kTimestampTz: return "\"" + FormatTimestamp(c.data<int64_t>()[i], 6) + "+00:00\"";
    case TypeId::kTimestampNs: return "\"" + FormatTimestamp(c.data<int64_t>()[i], 9) + "\"";
    case TypeId::kTimestampTzNs:
      return "\"" + FormatTimestamp(c.data<int64_t>()[i], 9) + "+00:00\"";
    case TypeId::kString: return JsonString(c.bytes(i));
    case TypeId::kBinary:
    case TypeId::kFixed: return HexString(c.bytes(i));
    case TypeId::kUuid: {
      std::string h = HexString(c.bytes(i));
      h = h.substr(1, 32);
      return "\"" + h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" +
             h.substr(16, 4) + "-" + h.substr(20) + "\"";
    }
    case TypeId::kStruct: {
      std::string out = "{";
      for (size_t f = 0; f < t.fields.size(); ++f) {
        if (f) out += ",";
        out += JsonString(t.fields[f].name) + ":" + ValueJson(c.children[f], i);
      }
      return out + "}";
    }
    case TypeId::kList: {
      std::string out = "[";
      for (int64_t k = c.offsets[i]; k < c.offsets[i + 1]; ++k) {
        if (k > c.offsets[i]) out += ",";
        out += ValueJson(c.children[0], k);
      }
      return out + "]";
    }
    case TypeId::kMap: {
      std::string keys, values;
      for (int64_t k = c.offsets[i]; k < c.offsets[i + 1]; ++k) {
        if (k > c.offsets[i]) {
          keys += ",";
          values += ",";
        }
        keys += ValueJson(c.children[0], k);
        values += ValueJson(c.children[1], k);
      }
      return "{\"keys\":[" + keys + "],\"values\":[" + values + "]}";
    }
  }
  return "\"?\"";
}

/// One canonical JSON line per row of the batch.
inline std::string RowJson(const Batch& b, int64_t i) {
  std::string out = "{";
  for (size_t f = 0; f < b.columns.size(); ++f) {
    if (f) out += ",";
    out += JsonString(b.schema->fields()[f].name) + ":" + ValueJson(b.columns[f], i);
  }
  return out + "}";
}

}  // namespace floe::testing
