// Text forms of primitive values (see value_parse.h).
#include "floe/format/value_parse.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "floe/types/json_value.h"

namespace floe::format {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

/// Reads exactly `n` digits at `*p`.
bool Digits(std::string_view s, size_t* p, int n, int64_t* out) {
  if (*p + n > s.size()) return false;
  int64_t v = 0;
  for (int i = 0; i < n; ++i) {
    char c = s[*p + i];
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *p += n;
  *out = v;
  return true;
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t y, int64_t m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

/// YYYY-MM-DD or [+-]YYYYYY-MM-DD at *p; days since epoch.
bool ParseDatePart(std::string_view s, size_t* p, int64_t* days) {
  int64_t y = 0, m = 0, d = 0;
  bool neg = false;
  if (*p < s.size() && (s[*p] == '+' || s[*p] == '-')) {
    neg = s[*p] == '-';
    ++*p;
    if (!Digits(s, p, 6, &y)) return false;
  } else if (!Digits(s, p, 4, &y)) {
    return false;
  }
  if (neg) y = -y;
  if (*p >= s.size() || s[*p] != '-') return false;
  ++*p;
  if (!Digits(s, p, 2, &m) || *p >= s.size() || s[*p] != '-') return false;
  ++*p;
  if (!Digits(s, p, 2, &d)) return false;
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m)) return false;
  *days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return true;
}

/// HH:MM[:SS[.f{1,9}]] at *p; nanoseconds since midnight. `lost` is set when
/// fraction digits beyond `keep_digits` are non-zero.
bool ParseTimePart(std::string_view s, size_t* p, int64_t* nanos) {
  int64_t h = 0, mi = 0, sec = 0, frac = 0;
  if (!Digits(s, p, 2, &h) || *p >= s.size() || s[*p] != ':') return false;
  ++*p;
  if (!Digits(s, p, 2, &mi)) return false;
  if (*p < s.size() && s[*p] == ':') {
    ++*p;
    if (!Digits(s, p, 2, &sec)) return false;
    if (*p < s.size() && (s[*p] == '.' || s[*p] == ',')) {
      ++*p;
      int n = 0;
      while (*p < s.size() && IsDigit(s[*p])) {
        if (n == 9) return false;  // more than nanoseconds
        frac = frac * 10 + (s[*p] - '0');
        ++n;
        ++*p;
      }
      if (n == 0) return false;
      for (; n < 9; ++n) frac *= 10;
    }
  }
  if (h > 23 || mi > 59 || sec > 59) return false;
  *nanos = ((h * 60 + mi) * 60 + sec) * 1000000000LL + frac;
  return true;
}

/// Z | [+-]HH[:MM] | [+-]HHMM at *p; offset in seconds (to subtract).
bool ParseZone(std::string_view s, size_t* p, int64_t* offset_seconds) {
  if (s[*p] == 'Z' || s[*p] == 'z') {
    ++*p;
    *offset_seconds = 0;
    return true;
  }
  if (s[*p] != '+' && s[*p] != '-') return false;
  bool neg = s[*p] == '-';
  ++*p;
  int64_t hh = 0, mm = 0;
  if (!Digits(s, p, 2, &hh)) return false;
  if (*p < s.size() && s[*p] == ':') {
    ++*p;
    if (!Digits(s, p, 2, &mm)) return false;
  } else if (*p < s.size()) {
    if (!Digits(s, p, 2, &mm)) return false;
  }
  if (hh > 18 || mm > 59) return false;
  *offset_seconds = (neg ? -1 : 1) * (hh * 3600 + mm * 60);
  return true;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsTz(TypeId id) { return id == TypeId::kTimestampTz || id == TypeId::kTimestampTzNs; }
bool IsNs(TypeId id) { return id == TypeId::kTimestampNs || id == TypeId::kTimestampTzNs; }

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

Result<int64_t> ParseIntegerText(std::string_view text, const Type& type) {
  std::string_view s = text;
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
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

Result<int32_t> ParseDateText(std::string_view text) {
  size_t p = 0;
  int64_t days = 0;
  if (!ParseDatePart(text, &p, &days) || p != text.size()) {
    return InvalidArgument("value {} is not a valid DATE (expected YYYY-MM-DD)", QuoteValue(text));
  }
  if (days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max()) {
    return InvalidArgument("value {} is out of range for DATE", QuoteValue(text));
  }
  return static_cast<int32_t>(days);
}

Result<int64_t> ParseTimeText(std::string_view text) {
  size_t p = 0;
  int64_t nanos = 0;
  if (!ParseTimePart(text, &p, &nanos) || p != text.size()) {
    return InvalidArgument("value {} is not a valid TIME (expected HH:MM:SS[.ffffff])",
                           QuoteValue(text));
  }
  if (nanos % 1000 != 0) {
    return InvalidArgument("value {} has more precision than TIME (microseconds)",
                           QuoteValue(text));
  }
  return nanos / 1000;
}

namespace {
/// The 8 bytes at `p` as a little-endian word.
inline uint64_t Load8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

/// Whether the bytes of `w` selected by `mask` (0xff per byte) are all ASCII
/// digits: a digit has high nibble 3, and so has the digit plus 6. (A byte
/// >= 0xfa carries into the next one, but is itself rejected, and a carry
/// only ever makes a digit fail the test, never a non-digit pass.)
inline bool AllDigits(uint64_t w, uint64_t mask) {
  constexpr uint64_t kF0 = 0xf0f0f0f0f0f0f0f0ULL, k30 = 0x3030303030303030ULL,
                     k06 = 0x0606060606060606ULL;
  return ((((w & kF0) ^ k30) | (((w + k06) & kF0) ^ k30)) & mask) == 0;
}

/// Fast path for the most common spelling, "YYYY-MM-DDTHH:MM:SS.ffffff" (or
/// with a space, or without the fraction): fixed positions, no zone, checked
/// 8 bytes at a time. Returns false to fall back to the general parser,
/// which accepts everything this accepts with the same value and gives the
/// messages.
inline bool FastTimestamp(std::string_view s, bool ns, DateCache* cache, int64_t* out) {
  char buf[32];
  const char* p = s.data();
  if (s.size() == 19) {
    std::memcpy(buf, p, 19);
    std::memcpy(buf + 19, ".000000", 7);
    p = buf;
  } else if (s.size() != 26) {
    return false;
  }
  //            byte:  7 6 5 4 3 2 1 0
  // w0 "YYYY-MM-":    - M M - Y Y Y Y
  // w1 "DDTHH:MM":    M M : H H T D D
  // w2 ":SS.ffff":    f f f f . S S :
  const uint64_t w0 = Load8(p), w1 = Load8(p + 8), w2 = Load8(p + 16);
  uint16_t w3;  // "ff"
  std::memcpy(&w3, p + 24, 2);
  if (!AllDigits(w0, 0x00ffff00ffffffffULL) || !AllDigits(w1, 0xffff00ffff00ffffULL) ||
      !AllDigits(w2, 0xffffffff00ffff00ULL) || !AllDigits(w3, 0xffff)) {
    return false;
  }
  if ((w0 & 0xff0000ff00000000ULL) != 0x2d00002d00000000ULL ||  // '-' at 4 and 7
      (w1 & 0x0000ff0000000000ULL) != 0x00003a0000000000ULL ||  // ':' at 13
      (w2 & 0x00000000ff0000ffULL) != 0x000000002e00003aULL ||  // ':' at 16, '.' at 19
      (p[10] != 'T' && p[10] != ' ')) {
    return false;
  }
  // Two-digit numbers from the low nibbles: byte i of pairs(w) is
  // 10 * digit i + digit i+1 (no carries: every byte stays below 256).
  auto pairs = [](uint64_t w) {
    const uint64_t x = w & 0x0f0f0f0f0f0f0f0fULL;
    return x * 10 + (x >> 8);
  };
  auto at = [](uint64_t q, int byte) { return static_cast<int64_t>((q >> (8 * byte)) & 0xff); };
  const uint64_t q0 = pairs(w0), q1 = pairs(w1), q2 = pairs(w2);
  const int64_t h = at(q1, 3), mi = at(q1, 6), se = at(q2, 1);
  if (h > 23 || mi > 59 || se > 59) return false;  // the general parser gives the message
  const int64_t frac = at(q2, 4) * 10000 + at(q2, 6) * 100 + (p[24] - '0') * 10 + (p[25] - '0');
  const int64_t y = at(q0, 0) * 100 + at(q0, 2);
  int64_t days;
  if (cache && cache->valid && std::memcmp(cache->text, p, 10) == 0) {
    days = cache->days;
  } else {
    const unsigned mo = static_cast<unsigned>(at(q0, 5)), da = static_cast<unsigned>(at(q1, 0));
    if (mo < 1 || mo > 12 || da < 1 || static_cast<int>(da) > DaysInMonth(y, mo)) return false;
    days = DaysFromCivil(y, mo, da);
    if (cache) {
      std::memcpy(cache->text, p, 10);
      cache->days = days;
      cache->valid = true;
    }
  }
  const int64_t secs = days * 86400 + (h * 60 + mi) * 60 + se;
  if (ns) {
    // years 0..9999 can overflow nanoseconds: leave the range check to the general path
    if (y < 1678 || y > 2261) return false;
    *out = secs * 1000000000 + frac * 1000;
  } else {
    *out = secs * 1000000 + frac;
  }
  return true;
}
}  // namespace

bool ParseTimestampFast(std::string_view text, const Type& type, DateCache* cache, int64_t* out) {
  return FastTimestamp(text, IsNs(type.id), cache, out);
}

Result<int64_t> ParseTimestampText(std::string_view text, const Type& type, DateCache* cache) {
  const bool tz = IsTz(type.id), ns = IsNs(type.id);
  if (int64_t fast; FastTimestamp(text, ns, cache, &fast)) return fast;
  auto invalid = [&]() {
    return InvalidArgument("value {} is not a valid {} (expected YYYY-MM-DDTHH:MM:SS[.{}]{})",
                           QuoteValue(text), SqlTypeName(type), ns ? "fffffffff" : "ffffff",
                           tz ? "[+HH:MM]" : "");
  };
  size_t p = 0;
  int64_t days = 0, nanos = 0, offset = 0;
  if (!ParseDatePart(text, &p, &days)) return invalid();
  if (p < text.size() && (text[p] == 'T' || text[p] == 't' || text[p] == ' ')) {
    ++p;
    if (!ParseTimePart(text, &p, &nanos)) return invalid();
  }
  if (p < text.size()) {
    if (!tz) {
      return InvalidArgument("value {} has a zone offset; {} has no time zone (use TIMESTAMPTZ)",
                             QuoteValue(text), SqlTypeName(type));
    }
    if (!ParseZone(text, &p, &offset) || p != text.size()) return invalid();
  }
  if (!ns && nanos % 1000 != 0) {
    return InvalidArgument("value {} has more precision than {} (microseconds)", QuoteValue(text),
                           SqlTypeName(type));
  }
  // seconds fit easily in __int128; check the unit count against int64.
  __int128 secs = static_cast<__int128>(days) * 86400 - offset;
  __int128 units = ns ? secs * 1000000000 + nanos : secs * 1000000 + nanos / 1000;
  if (units < std::numeric_limits<int64_t>::min() || units > std::numeric_limits<int64_t>::max()) {
    return InvalidArgument("value {} is out of range for {}", QuoteValue(text), SqlTypeName(type));
  }
  return static_cast<int64_t>(units);
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
    int hi = HexValue(text[i]), lo = i + 1 < text.size() ? HexValue(text[i + 1]) : -1;
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
    int hi = HexValue(text[i]), lo = HexValue(text[i + 1]);
    if (hi < 0 || lo < 0) {
      out->resize(at);
      return InvalidArgument("value {} is not hex bytes (bad digit at position {})",
                             QuoteValue(text), i + (hi < 0 ? 1 : 2));
    }
    *w++ = static_cast<char>(hi << 4 | lo);
  }
  return Ok();
}

}  // namespace floe::format
