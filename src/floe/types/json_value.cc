// Canonical JSON printer (see json_value.h for the forms and their source).
#include "floe/types/json_value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "floe/util/civil_time.h"
#include "floe/util/decimal_digits.h"
#include "floe/util/strings.h"

namespace floe {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

inline void AppendInt(int64_t v, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

/// JavaScript's Number#toString layout for decimal digits `d` (no leading
/// zeros, k >= 1) and value 0.d x 10^n, written at `p` (room for
/// d.size() + 30 characters); returns the end.
char* PutJsNumber(char* p, bool negative, std::string_view d, int n) {
  const int k = static_cast<int>(d.size());
  if (negative) *p++ = '-';
  if (k <= n && n <= 21) {
    std::memcpy(p, d.data(), d.size());
    p += d.size();
    std::memset(p, '0', static_cast<size_t>(n - k));
    p += n - k;
  } else if (0 < n && n <= 21) {
    std::memcpy(p, d.data(), static_cast<size_t>(n));
    p += n;
    *p++ = '.';
    std::memcpy(p, d.data() + n, d.size() - static_cast<size_t>(n));
    p += d.size() - static_cast<size_t>(n);
  } else if (-6 < n && n <= 0) {
    *p++ = '0';
    *p++ = '.';
    std::memset(p, '0', static_cast<size_t>(-n));
    p += -n;
    std::memcpy(p, d.data(), d.size());
    p += d.size();
  } else {
    *p++ = d[0];
    if (k > 1) {
      *p++ = '.';
      std::memcpy(p, d.data() + 1, d.size() - 1);
      p += d.size() - 1;
    }
    *p++ = 'e';
    int e = n - 1;
    *p++ = e < 0 ? '-' : '+';
    p = std::to_chars(p, p + 8, e < 0 ? -e : e).ptr;
  }
  return p;
}

void AppendJsNumber(bool negative, std::string_view d, int n, std::string* out) {
  char buf[200];
  out->append(buf, PutJsNumber(buf, negative, d, n));
}

/// Splits to_chars scientific text "-d.ddde+XX" into digits (written to
/// `digits`, room for s.size() characters) and n (0.d x 10^n), dropping
/// trailing zeros of the digits; returns the number of digits.
size_t SplitScientific(std::string_view s, bool* negative, char* digits, int* n) {
  *negative = !s.empty() && s[0] == '-';
  if (*negative) s.remove_prefix(1);
  size_t e = s.find('e');
  size_t k = 0;
  for (size_t i = 0; i < e; ++i) {
    if (s[i] != '.') digits[k++] = s[i];
  }
  int exp = 0;
  std::string_view es = s.substr(e + 1);
  if (!es.empty() && es[0] == '+') es.remove_prefix(1);
  std::from_chars(es.data(), es.data() + es.size(), exp);
  while (k > 1 && digits[k - 1] == '0') --k;
  *n = exp + 1;
  return k;
}

void SplitScientific(std::string_view s, bool* negative, std::string* digits, int* n) {
  digits->resize(s.size());
  digits->resize(SplitScientific(s, negative, digits->data(), n));
}

bool AppendNonFinite(double v, std::string* out) {
  if (std::isnan(v)) {
    out->append("\"NaN\"");
  } else if (std::isinf(v)) {
    out->append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  } else if (v == 0) {
    out->append(std::signbit(v) ? "-0" : "0");
  } else {
    return false;
  }
  return true;
}

void AppendUuid(std::string_view b, std::string* out) {
  out->push_back('"');
  for (size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out->push_back('-');
    unsigned char c = static_cast<unsigned char>(b[i]);
    out->push_back(kHexDigits[c >> 4]);
    out->push_back(kHexDigits[c & 15]);
  }
  out->push_back('"');
}

}  // namespace

bool IsValidUtf8(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const auto* end = p + bytes.size();
  while (p < end) {
    // ASCII fast path, 8 bytes at a time.
    if (end - p >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      if ((w & 0x8080808080808080ULL) == 0) {
        p += 8;
        continue;
      }
    }
    unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (end - p < len) return false;
    for (int i = 1; i < len; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return false;
    }
    p += len;
  }
  return true;
}

namespace {

// True when one of the 8 bytes of `w` needs an escape in a JSON string: a
// control character (< 0x20), '"' or '\\' (bytes >= 0x80 never do).
inline bool NeedsEscape8(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  const uint64_t control = (w - kOnes * 0x20) & ~w;
  const uint64_t q = w ^ (kOnes * '"'), b = w ^ (kOnes * '\\');
  const uint64_t quote = (q - kOnes) & ~q, backslash = (b - kOnes) & ~b;
  return ((control | quote | backslash) & kHigh) != 0;
}

}  // namespace

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  size_t start = 0;
  size_t i = 0;
  for (;;) {
    // Whole words without anything to escape are copied as they are.
    while (i + 8 <= s.size()) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if (NeedsEscape8(w)) break;
      i += 8;
    }
    for (; i < s.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      if (c < 0x20 || c == '"' || c == '\\') break;
    }
    if (i >= s.size()) break;
    const unsigned char c = static_cast<unsigned char>(s[i]);
    out->append(s.data() + start, i - start);
    start = ++i;
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        out->append("\\u00");
        out->push_back(kHexDigits[c >> 4]);
        out->push_back(kHexDigits[c & 15]);
    }
  }
  out->append(s.data() + start, s.size() - start);
  out->push_back('"');
}

namespace {

constexpr double kPow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6};

// The shortest round-trip digits of `a` (> 0) when `a` is m / 10^k for an
// integer m < 2^50 and k <= 6 — integers and the few-decimal values (prices,
// amounts) that fill real tables — without a general shortest-digits search.
// k is the least for which the double m / 10^k (a correctly rounded
// division of two exact doubles) is `a`: that decimal reads back as `a`, and
// no shorter one does (one with fewer digits, d / 10^j, would be within half
// an ulp of `a`, and so of m / 10^k, which at m < 2^50 forces d * 10^(k-j) =
// m: m would end in a zero, and k - 1 would have matched). Writes the
// digits without trailing zeros to `digits` and n (0.d x 10^n); false when
// `a` is not of that form (the general path then runs).
bool FewDecimalDigits(double a, char* digits, size_t* k_out, int* n) {
  if (!(a >= 1e-6 && a < 0x1p50)) return false;
  for (int k = 0; k <= 6; ++k) {
    const double m = a * kPow10[k];
    if (m >= 0x1p50) return false;
    if (m != static_cast<double>(static_cast<int64_t>(m)) || m / kPow10[k] != a) continue;
    char buf[24];
    char* end = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(m)).ptr;
    const int len = static_cast<int>(end - buf);
    while (end - buf > 1 && end[-1] == '0') --end;
    const size_t count = static_cast<size_t>(end - buf);
    std::memcpy(digits, buf, count);
    *k_out = count;
    *n = len - k;
    return true;
  }
  return false;
}

}  // namespace

namespace {

// AppendJsonDouble into a buffer of at least 64 bytes at `p`.
char* PutJsonDouble(char* p, double v) {
  if (std::isnan(v)) return std::copy_n("\"NaN\"", 5, p);
  if (std::isinf(v)) return v > 0 ? std::copy_n("\"Infinity\"", 10, p) : std::copy_n("\"-Infinity\"", 11, p);
  if (v == 0) return std::signbit(v) ? std::copy_n("-0", 2, p) : std::copy_n("0", 1, p);
  char digits[64];
  size_t k;
  int n;
  bool neg = std::signbit(v);
  if (!FewDecimalDigits(std::fabs(v), digits, &k, &n)) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    k = SplitScientific(std::string_view(buf, r.ptr - buf), &neg, digits, &n);
  }
  return PutJsNumber(p, neg, std::string_view(digits, k), n);
}

}  // namespace

void AppendJsonDouble(double v, std::string* out) {
  char text[64];
  out->append(text, PutJsonDouble(text, v));
}

void AppendJsonFloat(float v, std::string* out) {
  if (AppendNonFinite(v, out)) return;
  // canonical.mjs: the smallest p for which x.toPrecision(p) reads back as the
  // same float32. toPrecision rounds the exact value to p digits with ties
  // away from zero, so round the exact decimal expansion of the float here
  // the same way (a float has at most 112 significant decimal digits).
  char buf[160];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  bool neg;
  std::string shortest;
  int n;
  SplitScientific(std::string_view(buf, r.ptr - buf), &neg, &shortest, &n);
  r = std::to_chars(buf, buf + sizeof buf, static_cast<double>(v), std::chars_format::scientific,
                    120);
  std::string exact;
  int exact_n;
  SplitScientific(std::string_view(buf, r.ptr - buf), &neg, &exact, &exact_n);
  std::string digits;
  for (int p = static_cast<int>(shortest.size()); p <= 9; ++p) {
    int dn = exact_n;
    digits.assign(exact, 0, std::min<size_t>(p, exact.size()));
    if (static_cast<int>(exact.size()) > p && exact[p] >= '5') {  // ties away from zero
      int i = p - 1;
      while (i >= 0 && digits[i] == '9') digits[i--] = '0';
      if (i < 0) {
        digits.insert(digits.begin(), '1');
        digits.pop_back();
        ++dn;
      } else {
        ++digits[i];
      }
    }
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    std::string text = fmt::format("{}{}{}e{}", digits[0], digits.size() > 1 ? "." : "",
                                   std::string_view(digits).substr(1), dn - 1);
    float back = 0;
    auto pr = std::from_chars(text.data(), text.data() + text.size(), back);
    if (pr.ec == std::errc() && back == std::fabs(v)) {
      AppendJsNumber(neg, digits, dn, out);
      return;
    }
  }
  AppendJsNumber(neg, shortest, n, out);
}

// Dates print as JavaScript's Date#toISOString does (canonical.mjs).
void AppendDateText(int32_t days, std::string* out) {
  civil::AppendDate(days, civil::YearStyle::kJavaScript, out);
}

void AppendTimeText(int64_t micros, std::string* out) {
  if (micros < 0) out->push_back('-');  // not a valid time; printed, not hidden
  civil::AppendTimeOfDay(micros < 0 ? -micros : micros, 6, out);
}

void AppendTimestampText(int64_t units, int digits, std::string* out) {
  civil::AppendTimestamp(units, digits, civil::YearStyle::kJavaScript, out);
}

void AppendDecimalText(int128_t v, int32_t scale, std::string* out) {
  bool neg = v < 0;
  unsigned __int128 a = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  char buf[48];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + static_cast<int>(a % 10));
    a /= 10;
  } while (a);
  while (n < scale + 1) buf[n++] = '0';
  if (neg) out->push_back('-');
  for (int i = n - 1; i >= 0; --i) {
    out->push_back(buf[i]);
    if (i == scale && scale > 0) out->push_back('.');
  }
}

void AppendHex(std::string_view bytes, std::string* out) { AppendHexBytes(bytes, out); }

void AppendJsonValue(const ColumnVector& col, int64_t row, std::string* out) {
  if (col.IsNull(row)) {
    out->append("null");
    return;
  }
  const Type& type = *col.type;
  switch (type.id) {
    case TypeId::kBoolean: out->append(col.data<uint8_t>()[row] ? "true" : "false"); return;
    case TypeId::kInt: AppendInt(col.data<int32_t>()[row], out); return;
    case TypeId::kLong: AppendInt(col.data<int64_t>()[row], out); return;
    case TypeId::kFloat: AppendJsonFloat(col.data<float>()[row], out); return;
    case TypeId::kDouble: AppendJsonDouble(col.data<double>()[row], out); return;
    case TypeId::kDecimal: {
      int128_t v;
      std::memcpy(&v, col.values.data() + row * 16, 16);
      out->push_back('"');
      AppendDecimalText(v, type.scale, out);
      out->push_back('"');
      return;
    }
    case TypeId::kDate:
      out->push_back('"');
      AppendDateText(col.data<int32_t>()[row], out);
      out->push_back('"');
      return;
    case TypeId::kTime:
      out->push_back('"');
      AppendTimeText(col.data<int64_t>()[row], out);
      out->push_back('"');
      return;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      bool ns = IsNanosTimestamp(type.id);
      out->push_back('"');
      AppendTimestampText(col.data<int64_t>()[row], ns ? 9 : 6, out);
      if (IsZonedTimestamp(type.id)) {
        out->append("+00:00");
      }
      out->push_back('"');
      return;
    }
    case TypeId::kString: {
      std::string_view s = col.bytes(row);
      if (IsValidUtf8(s)) {
        AppendJsonString(s, out);
      } else {
        out->push_back('"');
        AppendHex(s, out);
        out->push_back('"');
      }
      return;
    }
    case TypeId::kUuid: AppendUuid(col.bytes(row), out); return;
    case TypeId::kFixed:
    case TypeId::kBinary:
      out->push_back('"');
      AppendHex(col.bytes(row), out);
      out->push_back('"');
      return;
    case TypeId::kStruct:
      out->push_back('{');
      for (size_t i = 0; i < type.fields.size(); ++i) {
        if (i) out->push_back(',');
        AppendJsonString(type.fields[i].name, out);
        out->push_back(':');
        AppendJsonValue(col.children[i], row, out);
      }
      out->push_back('}');
      return;
    case TypeId::kList: {
      out->push_back('[');
      for (int64_t i = col.offsets[row]; i < col.offsets[row + 1]; ++i) {
        if (i != col.offsets[row]) out->push_back(',');
        AppendJsonValue(col.children[0], i, out);
      }
      out->push_back(']');
      return;
    }
    case TypeId::kMap: {
      out->append("{\"keys\":[");
      for (int64_t i = col.offsets[row]; i < col.offsets[row + 1]; ++i) {
        if (i != col.offsets[row]) out->push_back(',');
        AppendJsonValue(col.children[0], i, out);
      }
      out->append("],\"values\":[");
      for (int64_t i = col.offsets[row]; i < col.offsets[row + 1]; ++i) {
        if (i != col.offsets[row]) out->push_back(',');
        AppendJsonValue(col.children[1], i, out);
      }
      out->append("]}");
      return;
    }
  }
}

JsonRowWriter::JsonRowWriter(const Schema& schema) {
  for (const auto& f : schema.fields()) {
    std::string key(keys_.empty() ? "{" : ",");
    AppendJsonString(f.name, &key);
    key.push_back(':');
    keys_.push_back(std::move(key));
  }
}

namespace {
// PutFixedScalarText, inlined into JsonRowWriter::Append (a call per value
// there cost 4 % of floe scan to JSONL).
[[gnu::always_inline]] inline char* FixedScalarText(const ColumnVector& col, int64_t row, char* p, bool json) {
  switch (col.type->id) {
    case TypeId::kBoolean:
      if (col.data<uint8_t>()[row]) return std::copy_n("true", 4, p);
      return std::copy_n("false", 5, p);
    case TypeId::kInt: return PutInt64(p, col.data<int32_t>()[row]);
    case TypeId::kLong: return PutInt64(p, col.data<int64_t>()[row]);
    case TypeId::kDouble: {
      const double v = col.data<double>()[row];
      if (!json && !std::isfinite(v)) {  // "NaN" and "Infinity" without JSON's quotes
        char* q = PutJsonDouble(p, v);
        std::memmove(p, p + 1, static_cast<size_t>(q - p - 2));
        return q - 2;
      }
      return PutJsonDouble(p, v);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      if (json) *p++ = '"';
      p = civil::PutTimestamp(p, col.data<int64_t>()[row], IsNanosTimestamp(col.type->id) ? 9 : 6,
                              civil::YearStyle::kJavaScript);
      if (IsZonedTimestamp(col.type->id)) p = std::copy_n("+00:00", 6, p);
      if (json) *p++ = '"';
      return p;
    default:
      return nullptr;
  }
}
}  // namespace

char* PutFixedScalarText(const ColumnVector& col, int64_t row, char* p, bool json) {
  return FixedScalarText(col, row, p, json);
}

void JsonRowWriter::Append(const Batch& batch, int64_t row, std::string* out) const {
  // The keys and the fixed-size values (numbers, booleans, dates,
  // timestamps) are written into a buffer on the stack that goes to `out`
  // in one append; strings and nested values are appended as they are.
  constexpr size_t kRoom = 96;  // the longest fixed-size value and more
  char buf[2048];
  char* p = buf;
  char* const end = buf + sizeof buf;
  auto flush = [&] {
    out->append(buf, p);
    p = buf;
  };
  if (keys_.empty()) *p++ = '{';
  for (size_t i = 0; i < keys_.size(); ++i) {
    const std::string& key = keys_[i];
    if (static_cast<size_t>(end - p) < key.size() + kRoom) {
      flush();
      if (key.size() + kRoom > sizeof buf) {
        out->append(key);
        AppendJsonValue(batch.columns[i], row, out);
        continue;
      }
    }
    std::memcpy(p, key.data(), key.size());
    p += key.size();
    const ColumnVector& col = batch.columns[i];
    if (col.IsNull(row)) {
      std::memcpy(p, "null", 4);
      p += 4;
      continue;
    }
    if (char* q = FixedScalarText(col, row, p, /*json=*/true)) {
      p = q;
    } else {
      flush();
      AppendJsonValue(col, row, out);
    }
  }
  *p++ = '}';
  flush();
}

void AppendJsonRow(const Batch& batch, int64_t row, std::string* out) {
  out->push_back('{');
  const auto& fields = batch.schema->fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out->push_back(',');
    AppendJsonString(fields[i].name, out);
    out->push_back(':');
    AppendJsonValue(batch.columns[i], row, out);
  }
  out->push_back('}');
}

}  // namespace floe
