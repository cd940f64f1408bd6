// Text forms of primitive values (see value_parse.h).
#include "floe/format/value_parse.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "floe/util/civil_time.h"
#include "floe/util/strings.h"

namespace floe::format {
namespace {

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }


}  // namespace

std::string QuoteValue(std::string_view text) {
  if (text.size() > 64) return fmt::format("'{}...'", text.substr(0, 61));
  return fmt::format("'{}'", text);
}

Result<bool> ParseBoolText(std::string_view text) {
  if (EqualsIgnoreCase(text, "true")) return true;
  if (EqualsIgnoreCase(text, "false")) return false;
  return InvalidArgument("value {} is not a BOOLEAN (expected true or false)", QuoteValue(text));
}

bool ParseInt64Fast(std::string_view text, int64_t* out) {
  const char* p = text.data();
  const char* end = p + text.size();
  const bool neg = p != end && *p == '-';
  p += neg;
  const size_t digits = static_cast<size_t>(end - p);
  if (digits == 0 || digits > 18) return false;  // 18 digits cannot overflow
  uint64_t v = 0;
  for (; p != end; ++p) {
    const unsigned d = static_cast<unsigned char>(*p) - '0';
    if (d > 9) return false;
    v = v * 10 + d;
  }
  *out = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return true;
}

bool ParseDoubleFast(std::string_view text, double* out) {
  static constexpr double kPow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
                                      1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const char* p = text.data();
  const char* end = p + text.size();
  const bool neg = p != end && *p == '-';
  p += neg;
  uint64_t m = 0;
  int digits = 0, frac = -1;  // frac: digits after the point, -1 without one
  for (; p != end; ++p) {
    const unsigned d = static_cast<unsigned char>(*p) - '0';
    if (d <= 9) {
      m = m * 10 + d;
      ++digits;
      if (frac >= 0) ++frac;
    } else if (*p == '.' && frac < 0 && digits > 0) {
      frac = 0;
    } else {
      return false;
    }
  }
  if (digits == 0 || digits > 15 || frac == 0) return false;
  const double v = frac > 0 ? static_cast<double>(m) / kPow10[frac] : static_cast<double>(m);
  *out = neg ? -v : v;
  return true;
}

Result<int64_t> ParseIntegerText(std::string_view text, const Type& type) {
  std::string_view s = text;
  if (!s.empty() && s[0] == '+') {
    s.remove_prefix(1);
    // from_chars takes a '-' of its own: "+-5" is no integer.
    if (s.empty() || !IsDigit(s[0])) {
      return InvalidArgument("value {} is not an integer ({})", QuoteValue(text), SqlTypeName(type));
    }
  }
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) {
    return InvalidArgument("value {} overflows {}", text, SqlTypeName(type));
  }
  if (ec != std::errc() || p != s.data() + s.size() || s.empty() || s[0] == '+') {
    return InvalidArgument("value {} is not an integer ({})", QuoteValue(text), SqlTypeName(type));
  }
  if (type.id == TypeId::kInt &&
      (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())) {
    return InvalidArgument("value {} overflows INT", text);
  }
  return v;
}

namespace {
template <typename T>
Result<T> ParseFloating(std::string_view text, const char* name) {
  std::string_view s = text;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
    // from_chars takes a '-' of its own: "--5" and "+-5" are no numbers.
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
      return InvalidArgument("value {} is not a number ({})", QuoteValue(text), name);
    }
  }
  if (EqualsIgnoreCase(s, "nan")) return std::numeric_limits<T>::quiet_NaN();
  if (EqualsIgnoreCase(s, "infinity") || EqualsIgnoreCase(s, "inf")) {
    return neg ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  }
  T v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports both overflow and underflow; only overflow is an error.
    size_t e = s.find_first_of("eE");
    bool tiny = e != std::string_view::npos && e + 1 < s.size() && s[e + 1] == '-';
    if (!tiny) return InvalidArgument("value {} overflows {}", text, name);
    return neg ? -T(0) : T(0);
  }
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) {
    return InvalidArgument("value {} is not a number ({})", QuoteValue(text), name);
  }
  return neg ? -v : v;
}
}  // namespace

Result<double> ParseDoubleText(std::string_view text) {
  return ParseFloating<double>(text, "DOUBLE");
}
Result<float> ParseFloatText(std::string_view text) { return ParseFloating<float>(text, "FLOAT"); }

Result<int128_t> ParseDecimalText(std::string_view text, const Type& type) {
  const int32_t precision = type.precision, scale = type.scale;
  std::string_view s = text;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  // Split into integer digits, fraction digits and exponent.
  size_t i = 0;
  size_t int_begin = i;
  while (i < s.size() && IsDigit(s[i])) ++i;
  std::string_view int_digits = s.substr(int_begin, i - int_begin);
  std::string_view frac_digits;
  if (i < s.size() && s[i] == '.') {
    size_t f = ++i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    frac_digits = s.substr(f, i - f);
  }
  int64_t exp = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    std::string_view es = s.substr(i);
    if (!es.empty() && es[0] == '+') es.remove_prefix(1);
    auto [p, ec] = std::from_chars(es.data(), es.data() + es.size(), exp);
    if (ec != std::errc() || p != es.data() + es.size() || exp > 1000 || exp < -1000) {
      return InvalidArgument("value {} is not a decimal number ({})", QuoteValue(text),
                             SqlTypeName(type));
    }
    i = s.size();
  }
  if (i != s.size() || (int_digits.empty() && frac_digits.empty())) {
    return InvalidArgument("value {} is not a decimal number ({})", QuoteValue(text),
                           SqlTypeName(type));
  }
  // Digit string D with the decimal point after position `point` (may be outside D).
  // The unscaled value is D shifted so that `scale` digits follow the point.
  int64_t point = static_cast<int64_t>(int_digits.size()) + exp;
  auto digit_at = [&](int64_t k) -> int {
    if (k < 0) return 0;
    if (k < static_cast<int64_t>(int_digits.size())) return int_digits[k] - '0';
    k -= static_cast<int64_t>(int_digits.size());
    if (k < static_cast<int64_t>(frac_digits.size())) return frac_digits[k] - '0';
    return 0;
  };
  const int64_t total = static_cast<int64_t>(int_digits.size() + frac_digits.size());
  // Digits after point+scale must be zero.
  for (int64_t k = std::max<int64_t>(point + scale, 0); k < total; ++k) {
    if (digit_at(k) != 0) {
      return InvalidArgument("value {} has more than {} fraction digits ({})", QuoteValue(text),
                             scale, SqlTypeName(type));
    }
  }
  // Significant digits from the first non-zero to point+scale.
  int64_t first = 0;
  while (first < total && digit_at(first) == 0) ++first;
  const int64_t end = point + scale;
  if (first < end && end - first > precision) {
    return InvalidArgument("value {} exceeds the precision of {}", QuoteValue(text),
                           SqlTypeName(type));
  }
  int128_t v = 0;
  for (int64_t k = first; k < end; ++k) v = v * 10 + digit_at(k);
  return neg ? -v : v;
}

// Data text takes the natural spellings (civil::Spelling::kNatural): ' ' for
// 'T', date-only timestamps, ',' fractions, +HH and +HHMM zones.
Result<int32_t> ParseDateText(std::string_view text) {
  int64_t days = 0;
  if (!civil::ParseDate(text, civil::Spelling::kNatural, &days)) {
    return InvalidArgument("value {} is not a valid DATE (expected YYYY-MM-DD)", QuoteValue(text));
  }
  if (days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max()) {
    return InvalidArgument("value {} is out of range for DATE", QuoteValue(text));
  }
  return static_cast<int32_t>(days);
}

Result<int64_t> ParseTimeText(std::string_view text) {
  int64_t nanos = 0;
  if (!civil::ParseTime(text, civil::Spelling::kNatural, &nanos)) {
    return InvalidArgument("value {} is not a valid TIME (expected HH:MM:SS[.ffffff])",
                           QuoteValue(text));
  }
  if (nanos % 1000 != 0) {
    return InvalidArgument("value {} has more precision than TIME (microseconds)",
                           QuoteValue(text));
  }
  return nanos / 1000;
}

bool ParseTimestampFast(std::string_view text, const Type& type, DateCache* cache, int64_t* out) {
  return civil::ParseTimestampFixed(text, IsNanosTimestamp(type.id), cache, out);
}

Result<int64_t> ParseTimestampText(std::string_view text, const Type& type, DateCache* cache) {
  const bool tz = IsZonedTimestamp(type.id), ns = IsNanosTimestamp(type.id);
  if (int64_t fast; civil::ParseTimestampFixed(text, ns, cache, &fast)) return fast;
  civil::TimestampParts parts;
  if (!civil::ParseTimestamp(text, civil::Spelling::kNatural, &parts)) {
    return InvalidArgument("value {} is not a valid {} (expected YYYY-MM-DDTHH:MM:SS[.{}]{})",
                           QuoteValue(text), SqlTypeName(type), ns ? "fffffffff" : "ffffff",
                           tz ? "[+HH:MM]" : "");
  }
  if (parts.has_zone && !tz) {
    return InvalidArgument("value {} has a zone offset; {} has no time zone (use TIMESTAMPTZ)",
                           QuoteValue(text), SqlTypeName(type));
  }
  if (!ns && parts.nanos_of_day % 1000 != 0) {
    return InvalidArgument("value {} has more precision than {} (microseconds)", QuoteValue(text),
                           SqlTypeName(type));
  }
  int64_t units = 0;
  if (!civil::EpochUnits(parts, ns ? 9 : 6, &units)) {
    return InvalidArgument("value {} is out of range for {}", QuoteValue(text), SqlTypeName(type));
  }
  return units;
}

Status ParseUuidText(std::string_view text, uint8_t out[16]) {
  int n = 0;
  bool dashed = text.size() == 36;
  if (!dashed && text.size() != 32) {
    return InvalidArgument("value {} is not a UUID (expected 8-4-4-4-12 hex digits)",
                           QuoteValue(text));
  }
  for (size_t i = 0; i < text.size();) {
    if (dashed && (i == 8 || i == 13 || i == 18 || i == 23)) {
      if (text[i] != '-') {
        return InvalidArgument("value {} is not a UUID (expected 8-4-4-4-12 hex digits)",
                               QuoteValue(text));
      }
      ++i;
      continue;
    }
    int hi = HexDigitValue(text[i]), lo = i + 1 < text.size() ? HexDigitValue(text[i + 1]) : -1;
    if (hi < 0 || lo < 0 || n >= 16) {
      return InvalidArgument("value {} is not a UUID (expected 8-4-4-4-12 hex digits)",
                             QuoteValue(text));
    }
    out[n++] = static_cast<uint8_t>(hi << 4 | lo);
    i += 2;
  }
  return Ok();
}

Status ParseHexText(std::string_view text, int32_t expected_len, std::string* out) {
  if (text.size() % 2 != 0) {
    return InvalidArgument("value {} is not hex bytes (odd number of digits)", QuoteValue(text));
  }
  if (expected_len >= 0 && static_cast<int64_t>(text.size()) != 2LL * expected_len) {
    return InvalidArgument("value {} has {} bytes; FIXED({}) needs exactly {}", QuoteValue(text),
                           text.size() / 2, expected_len, expected_len);
  }
  size_t at = out->size();
  out->resize(at + text.size() / 2);
  char* w = out->data() + at;
  for (size_t i = 0; i < text.size(); i += 2) {
    int hi = HexDigitValue(text[i]), lo = HexDigitValue(text[i + 1]);
    if (hi < 0 || lo < 0) {
      out->resize(at);
      return InvalidArgument("value {} is not hex bytes (bad digit at position {})",
                             QuoteValue(text), i + (hi < 0 ? 1 : 2));
    }
    *w++ = static_cast<char>(hi << 4 | lo);
  }
  return Ok();
}

namespace {

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

Status ParseBase64Text(std::string_view text, int32_t expected_len, std::string* out) {
  if (text.size() % 4 != 0) {
    return InvalidArgument("value {} is not base64 (its length is not a multiple of 4)",
                           QuoteValue(text));
  }
  size_t pad = 0;
  while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=') ++pad;
  const size_t at = out->size();
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i + pad < text.size(); ++i) {
    const int v = Base64Value(text[i]);
    if (v < 0) {
      out->resize(at);
      return InvalidArgument("value {} is not base64 (bad character at position {})",
                             QuoteValue(text), i + 1);
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  // The bits left over from the padded group must be zero (canonical form).
  if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) {
    out->resize(at);
    return InvalidArgument("value {} is not base64 (non-zero padding bits)", QuoteValue(text));
  }
  const size_t n = out->size() - at;
  if (expected_len >= 0 && static_cast<int64_t>(n) != expected_len) {
    out->resize(at);
    return InvalidArgument("value {} has {} bytes; FIXED({}) needs exactly {}", QuoteValue(text),
                           n, expected_len, expected_len);
  }
  return Ok();
}

Result<int128_t> DecimalFromUnscaledBytes(std::string_view bytes, int32_t scale, const Type& type,
                                          std::string_view text) {
  if (bytes.empty()) {
    return InvalidArgument("value {} is no decimal: no bytes ({})", QuoteValue(text),
                           SqlTypeName(type));
  }
  const bool neg = static_cast<unsigned char>(bytes[0]) & 0x80;
  // Leading sign bytes beyond 16 carry nothing.
  while (bytes.size() > 16 &&
         static_cast<unsigned char>(bytes[0]) == (neg ? 0xff : 0x00) &&
         ((static_cast<unsigned char>(bytes[1]) & 0x80) != 0) == neg) {
    bytes.remove_prefix(1);
  }
  auto overflow = [&] {
    return InvalidArgument("value {} (scale {}) does not fit {}", QuoteValue(text), scale,
                           SqlTypeName(type));
  };
  if (bytes.size() > 16) return overflow();
  unsigned __int128 u = neg ? ~static_cast<unsigned __int128>(0) : 0;
  for (char c : bytes) u = (u << 8) | static_cast<unsigned char>(c);
  int128_t v = static_cast<int128_t>(u);
  // |v| < 10^38 for every value that can fit a decimal (P <= 38).
  int128_t p10_38 = 1;
  for (int i = 0; i < 38; ++i) p10_38 *= 10;
  if (v >= p10_38 || v <= -p10_38) return overflow();
  if (scale < type.scale) {
    for (int32_t s = scale; s < type.scale; ++s) {
      if (v >= p10_38 / 10 || v <= -p10_38 / 10) return overflow();
      v *= 10;
    }
  } else {
    for (int32_t s = type.scale; s < scale; ++s) {
      if (v % 10 != 0) {
        return InvalidArgument("value {} (scale {}) has more than {} fraction digits ({})",
                               QuoteValue(text), scale, type.scale, SqlTypeName(type));
      }
      v /= 10;
    }
  }
  int128_t limit = 1;
  for (int32_t i = 0; i < type.precision; ++i) limit *= 10;
  if (v >= limit || v <= -limit) return overflow();
  return v;
}

}  // namespace floe::format
