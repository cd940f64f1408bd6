// Flink's built-in scalar functions (scalar_functions.h): row-at-a-time
// kernels over the evaluated argument columns.
#include "floe/sqlengine/scalar_functions.h"

#include <openssl/evp.h>
#include <unicode/ucasemap.h>
#include <unicode/uchar.h>
#include <unicode/uregex.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/format/value_parse.h"
#include "floe/sqlengine/value_text.h"
#include "floe/util/civil_time.h"

namespace floe::sqlengine {

// A named namespace, not an anonymous one: the unity build puts this file in
// one translation unit with others whose helpers have the same names.
namespace scalar_detail {

using civil::CivilDate;
using civil::CivilFromDays;
using civil::DaysFromCivil;
using civil::DaysInMonth;
using civil::FloorDiv;
using civil::FloorMod;

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;

// ---------------------------------------------------------------- reading

std::string_view Str(const ColumnVector& c, int64_t i) { return c.bytes(i); }

int64_t Long(const ColumnVector& c, int64_t i) {
  switch (c.type->id) {
    case TypeId::kBoolean: return c.data<uint8_t>()[i];
    case TypeId::kInt:
    case TypeId::kDate: return c.data<int32_t>()[i];
    default: return c.data<int64_t>()[i];
  }
}

double Double(const ColumnVector& c, int64_t i) {
  switch (c.type->id) {
    case TypeId::kInt: return c.data<int32_t>()[i];
    case TypeId::kLong: return static_cast<double>(c.data<int64_t>()[i]);
    case TypeId::kFloat: return c.data<float>()[i];
    default: return c.data<double>()[i];
  }
}

// A timestamp column's value in microseconds since the epoch (a DATE: its midnight).
int64_t Micros(const ColumnVector& c, int64_t i) {
  switch (c.type->id) {
    case TypeId::kDate: {
      // Saturated: a DATE past +-100 million days has no timestamp.
      const int64_t d = std::clamp<int64_t>(c.data<int32_t>()[i], -100000000, 100000000);
      return d * kMicrosPerDay;
    }
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: return FloorDiv(c.data<int64_t>()[i], 1000);
    default: return c.data<int64_t>()[i];
  }
}

bool AnyNull(const std::vector<ColumnVector>& args, int64_t i) {
  for (const auto& a : args) {
    if (a.IsNull(i)) return true;
  }
  return false;
}

// ---------------------------------------------------------------- UTF-8

// Byte offsets of the code points of s (plus s.size() at the end).
std::vector<size_t> CodePointOffsets(std::string_view s) {
  std::vector<size_t> out;
  out.reserve(s.size() + 1);
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) out.push_back(i);
  }
  out.push_back(s.size());
  return out;
}

int64_t CodePointCount(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Code points of s (invalid bytes as U+FFFD).
std::vector<UChar32> Decode(std::string_view s) {
  std::vector<UChar32> out;
  int32_t i = 0;
  const int32_t len = static_cast<int32_t>(s.size());
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  while (i < len) {
    UChar32 c;
    U8_NEXT(p, i, len, c);
    out.push_back(c < 0 ? 0xFFFD : c);
  }
  return out;
}

void AppendCodePoint(UChar32 c, std::string* out) {
  uint8_t buf[4];
  int32_t k = 0;
  UBool err = false;
  U8_APPEND(buf, k, 4, c, err);
  if (!err) out->append(reinterpret_cast<char*>(buf), static_cast<size_t>(k));
}

bool IsAscii(std::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}

// Full Unicode case mapping (ICU, root locale: Java's toUpperCase/toLowerCase
// outside the Turkic and Lithuanian locales).
Result<std::string> CaseMap(std::string_view s, bool upper) {
  if (IsAscii(s)) {
    std::string out(s);
    for (char& c : out) {
      if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
      if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    }
    return out;
  }
  UErrorCode err = U_ZERO_ERROR;
  std::unique_ptr<UCaseMap, decltype(&ucasemap_close)> map(ucasemap_open("", 0, &err),
                                                           &ucasemap_close);
  if (U_FAILURE(err)) return Internal("ICU case map: {}", u_errorName(err));
  std::string out(s.size() * 3 + 16, '\0');
  for (int attempt = 0; attempt < 2; ++attempt) {
    err = U_ZERO_ERROR;
    const int32_t len =
        upper ? ucasemap_utf8ToUpper(map.get(), out.data(), static_cast<int32_t>(out.size()),
                                     s.data(), static_cast<int32_t>(s.size()), &err)
              : ucasemap_utf8ToLower(map.get(), out.data(), static_cast<int32_t>(out.size()),
                                     s.data(), static_cast<int32_t>(s.size()), &err);
    if (err == U_BUFFER_OVERFLOW_ERROR) {
      out.resize(static_cast<size_t>(len) + 1);
      continue;
    }
    if (U_FAILURE(err)) return Internal("ICU case mapping: {}", u_errorName(err));
    out.resize(static_cast<size_t>(len));
    return out;
  }
  return Internal("ICU case mapping: buffer");
}

// INITCAP: the first character of each word (a run of letters and digits)
// title-cased, the others lower-cased.
std::string Initcap(std::string_view s) {
  std::string out;
  bool start = true;
  for (UChar32 c : Decode(s)) {
    if (u_isalnum(c)) {
      AppendCodePoint(start ? u_totitle(c) : u_tolower(c), &out);
      start = false;
    } else {
      AppendCodePoint(c, &out);
      start = true;
    }
  }
  return out;
}

// ---------------------------------------------------------------- strings

// Flink's SqlFunctionUtils.subString: 1-based; 0 is 1; a negative start
// counts from the end (before the start: empty); a negative length is null.
std::optional<std::string_view> Substring(std::string_view s, int64_t pos, int64_t len) {
  if (len < 0) return std::nullopt;
  // Flink: a start or length beyond INT is NULL (logged).
  if (len > std::numeric_limits<int32_t>::max() || pos > std::numeric_limits<int32_t>::max() ||
      pos < std::numeric_limits<int32_t>::min()) {
    return std::nullopt;
  }
  if (s.empty()) return std::string_view();
  const std::vector<size_t> off = CodePointOffsets(s);
  const int64_t n = static_cast<int64_t>(off.size()) - 1;
  int64_t start = 0;
  if (pos > 0) {
    start = pos - 1;
    if (start >= n) return std::string_view();
  } else if (pos < 0) {
    start = n + pos;
    if (start < 0) return std::string_view();
  }
  const int64_t end = n - start < len ? n : start + len;
  return s.substr(off[start], off[end] - off[start]);
}

std::string TrimChars(std::string_view s, std::string_view chars, bool leading, bool trailing) {
  const std::vector<UChar32> set = Decode(chars);
  auto in_set = [&](UChar32 c) { return std::find(set.begin(), set.end(), c) != set.end(); };
  const std::vector<size_t> off = CodePointOffsets(s);
  const std::vector<UChar32> cps = Decode(s);
  size_t b = 0, e = cps.size();
  if (leading) {
    while (b < e && in_set(cps[b])) ++b;
  }
  if (trailing) {
    while (e > b && in_set(cps[e - 1])) --e;
  }
  return std::string(s.substr(off[b], off[e] - off[b]));
}

// Java's String.replace: every occurrence, left to right; an empty target
// matches before every character and at the end.
std::string Replace(std::string_view s, std::string_view from, std::string_view to) {
  std::string out;
  if (from.empty()) {
    const std::vector<size_t> off = CodePointOffsets(s);
    for (size_t k = 0; k + 1 < off.size(); ++k) {
      out += to;
      out += s.substr(off[k], off[k + 1] - off[k]);
    }
    out += to;
    return out;
  }
  size_t i = 0;
  while (true) {
    const size_t j = s.find(from, i);
    if (j == std::string_view::npos) break;
    out += s.substr(i, j - i);
    out += to;
    i = j + from.size();
  }
  out += s.substr(i);
  return out;
}

// commons-lang's splitByWholeSeparatorPreserveAllTokens (an empty separator
// splits at whitespace runs); an empty string has no tokens.
std::vector<std::string_view> SplitWhole(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> out;
  if (s.empty()) return out;
  if (sep.empty()) {
    size_t i = 0, start = 0;
    bool in_token = false;
    while (i < s.size()) {
      if (std::isspace(static_cast<unsigned char>(s[i]))) {
        if (in_token) out.push_back(s.substr(start, i - start));
        in_token = false;
        ++i;
        start = i;
      } else {
        in_token = true;
        ++i;
      }
    }
    if (in_token) out.push_back(s.substr(start));
    return out;
  }
  size_t i = 0;
  while (true) {
    const size_t j = s.find(sep, i);
    if (j == std::string_view::npos) break;
    out.push_back(s.substr(i, j - i));
    i = j + sep.size();
  }
  out.push_back(s.substr(i));
  return out;
}

// Flink's lpad / rpad over code points: a negative length or an empty pad is
// null; a longer string is cut to the length.
std::optional<std::string> Pad(std::string_view s, int64_t len, std::string_view pad, bool left) {
  if (len < 0 || pad.empty()) return std::nullopt;
  const std::vector<size_t> so = CodePointOffsets(s);
  const std::vector<size_t> po = CodePointOffsets(pad);
  const int64_t sn = static_cast<int64_t>(so.size()) - 1;
  const int64_t pn = static_cast<int64_t>(po.size()) - 1;
  const int64_t fill = std::max<int64_t>(len - sn, 0);
  std::string padding;
  for (int64_t k = 0; k < fill; ++k) {
    const int64_t j = k % pn;
    padding += pad.substr(po[j], po[j + 1] - po[j]);
  }
  const int64_t keep = std::min(sn, len);
  std::string_view body = s.substr(0, so[keep]);
  return left ? padding + std::string(body) : std::string(body) + padding;
}

// 1-based code-point position of needle in haystack, 0 when absent.
int32_t Position(std::string_view needle, std::string_view hay) {
  const size_t j = hay.find(needle);
  if (j == std::string_view::npos) return 0;
  return static_cast<int32_t>(CodePointCount(hay.substr(0, j)) + 1);
}

// java.util.regex's \\w \\d \\s (and \\W \\D \\S outside brackets) match ASCII only
// (without UNICODE_CHARACTER_CLASS); ICU's match all of Unicode. The pattern
// is rewritten to Java's classes.
std::string JavaClasses(std::string_view p) {
  std::string out;
  int depth = 0;  // inside [...]
  bool quoted = false;  // inside \Q...\E
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (quoted) {
      out += c;
      if (c == '\\' && i + 1 < p.size() && p[i + 1] == 'E') {
        out += 'E';
        ++i;
        quoted = false;
      }
      continue;
    }
    if (c == '\\' && i + 1 < p.size()) {
      const char n = p[++i];
      const char* in_class = nullptr;
      const char* outside = nullptr;
      switch (n) {
        case 'w': in_class = "a-zA-Z_0-9"; outside = "[a-zA-Z_0-9]"; break;
        case 'd': in_class = "0-9"; outside = "[0-9]"; break;
        case 's': in_class = " \\t\\n\\x0B\\f\\r"; outside = "[ \\t\\n\\x0B\\f\\r]"; break;
        case 'W': outside = "[^a-zA-Z_0-9]"; break;
        case 'D': outside = "[^0-9]"; break;
        case 'S': outside = "[^ \\t\\n\\x0B\\f\\r]"; break;
        case 'Q': quoted = true; break;
        default: break;
      }
      if (depth > 0 && in_class) {
        out += in_class;
      } else if (depth == 0 && outside) {
        out += outside;
      } else {
        out += '\\';
        out += n;
      }
      continue;
    }
    if (c == '[') {
      ++depth;
      out += c;
      // A ']' right after '[' or '[^' is a literal.
      if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
      if (i + 1 < p.size() && p[i + 1] == ']') out += p[++i];
      continue;
    }
    if (c == ']' && depth > 0) --depth;
    out += c;
  }
  return out;
}

// A compiled ICU regular expression, kept while the pattern repeats.
class Regex {
 public:
  ~Regex() {
    if (re_) uregex_close(re_);
    if (text_) utext_close(text_);
  }
  // False when the pattern does not compile (Flink then gives null).
  bool Compile(std::string_view pattern) {
    if (re_ && pattern == pattern_) return true;
    if (re_) uregex_close(re_);
    re_ = nullptr;
    pattern_.assign(pattern);
    const std::string java = JavaClasses(pattern);
    UErrorCode err = U_ZERO_ERROR;
    UText* pt = utext_openUTF8(nullptr, java.data(), static_cast<int64_t>(java.size()), &err);
    if (U_SUCCESS(err)) re_ = uregex_openUText(pt, 0, nullptr, &err);
    utext_close(pt);
    if (U_FAILURE(err)) {
      if (re_) uregex_close(re_);
      re_ = nullptr;
      return false;
    }
    return true;
  }
  // The text must outlive the matching (it is not copied).
  bool Set(std::string_view text) {
    UErrorCode err = U_ZERO_ERROR;
    text_ = utext_openUTF8(text_, text.data(), static_cast<int64_t>(text.size()), &err);
    if (U_FAILURE(err)) return false;
    uregex_setUText(re_, text_, &err);
    return U_SUCCESS(err);
  }
  // The next match (from the start after Set): [begin, end) byte offsets of group g.
  bool Next(int32_t g, int64_t* b, int64_t* e, bool* group_ok) {
    UErrorCode err = U_ZERO_ERROR;
    if (!uregex_findNext(re_, &err) || U_FAILURE(err)) return false;
    *group_ok = g <= uregex_groupCount(re_, &err) && g >= 0;
    if (*group_ok) {
      *b = uregex_start64(re_, g, &err);
      *e = uregex_end64(re_, g, &err);
    }
    return U_SUCCESS(err);
  }

 private:
  URegularExpression* re_ = nullptr;
  UText* text_ = nullptr;
  std::string pattern_;
};

// ---------------------------------------------------------------- decimals

int128_t Pow10(int n) {
  int128_t p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

enum class RoundMode { kHalfUp, kFloor, kCeil, kDown };

// v / 10^k rounded by `mode`.
int128_t DivRound(int128_t v, int k, RoundMode mode) {
  if (k <= 0) return v;
  if (k > 38) return 0;
  const int128_t d = Pow10(k);
  int128_t q = v / d;
  const int128_t r = v % d;
  if (r == 0) return q;
  switch (mode) {
    case RoundMode::kHalfUp:
      if ((r < 0 ? -r : r) * 2 >= d) q += v < 0 ? -1 : 1;
      break;
    case RoundMode::kFloor:
      if (v < 0) q -= 1;
      break;
    case RoundMode::kCeil:
      if (v > 0) q += 1;
      break;
    case RoundMode::kDown: break;
  }
  return q;
}

// Rounds the unscaled v (at `scale`) to `digits` after the point (negative:
// before it), the result unscaled at `out_scale`; false on overflow.
bool RoundDecimal(int128_t v, int scale, int64_t digits, int out_scale, RoundMode mode,
                  int128_t* out) {
  if (digits >= scale) {
    // Nothing to round: only rescale.
    if (out_scale < scale) return false;
    *out = v * Pow10(out_scale - scale);
    return true;
  }
  const int64_t drop = scale - digits;  // > 0
  if (drop > 76) {
    *out = 0;
    return true;
  }
  int128_t q = drop > 38 ? 0 : DivRound(v, static_cast<int>(drop), mode);
  if (drop > 38 && v != 0) {
    if (mode == RoundMode::kFloor && v < 0) q = -1;
    if (mode == RoundMode::kCeil && v > 0) q = 1;
  }
  // q is at scale `digits`; bring it to out_scale.
  if (q == 0) {
    *out = 0;
    return true;
  }
  const int64_t up = out_scale - digits;
  if (up < 0 || up > 38) return false;
  *out = q * Pow10(static_cast<int>(up));
  return true;
}

// Java's BigDecimal.valueOf(double) (the shortest text) rounded half-up, as
// Flink's sround(double, int).
double RoundDouble(double x, int64_t digits, RoundMode mode) {
  if (!std::isfinite(x)) return x;
  std::string text = JavaDoubleText(x);
  // Parse the shortest text as an exact decimal: mantissa and exponent.
  int128_t m = 0;
  int scale = 0, exp10 = 0, nd = 0;
  bool neg = false, dot = false;
  size_t i = 0;
  if (text[i] == '-') {
    neg = true;
    ++i;
  }
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      dot = true;
    } else if (c == 'E') {
      exp10 = std::stoi(text.substr(i + 1));
      break;
    } else {
      if (nd < 36) {
        m = m * 10 + (c - '0');
        ++nd;
        if (dot) ++scale;
      } else if (!dot) {
        --scale;  // digits beyond what fits (not reached: doubles print 17 digits)
      }
    }
  }
  scale -= exp10;
  if (neg) m = -m;
  if (digits >= scale) return x;
  const int64_t drop = scale - digits;
  int128_t q = drop > 38 ? 0 : DivRound(m, static_cast<int>(drop), mode);
  // q * 10^-digits as double, through text for a correctly rounded conversion.
  std::string qs;
  int128_t a = q < 0 ? -q : q;
  do {
    qs.insert(qs.begin(), static_cast<char>('0' + static_cast<int>(a % 10)));
    a /= 10;
  } while (a != 0);
  std::string num = fmt::format("{}{}e{}", q < 0 ? "-" : "", qs, -digits);
  return std::strtod(num.c_str(), nullptr);
}

// ---------------------------------------------------------------- time

struct Civil {
  int64_t year;
  int month, day, hour, minute, second;
  int64_t micro;
};

Civil ToCivil(int64_t micros) {
  const int64_t days = FloorDiv(micros, kMicrosPerDay);
  int64_t rest = FloorMod(micros, kMicrosPerDay);  // days * kMicrosPerDay may not fit
  const CivilDate d = CivilFromDays(days);
  Civil c{d.year, static_cast<int>(d.month), static_cast<int>(d.day), 0, 0, 0, 0};
  c.hour = static_cast<int>(rest / (3600 * kMicrosPerSecond));
  rest %= 3600 * kMicrosPerSecond;
  c.minute = static_cast<int>(rest / (60 * kMicrosPerSecond));
  rest %= 60 * kMicrosPerSecond;
  c.second = static_cast<int>(rest / kMicrosPerSecond);
  c.micro = rest % kMicrosPerSecond;
  return c;
}

// Microseconds since the epoch; nullopt past what int64 holds.
std::optional<int64_t> FromCivil(const Civil& c) {
  const int128_t v = static_cast<int128_t>(DaysFromCivil(c.year, c.month, c.day)) * kMicrosPerDay +
                     ((c.hour * 60 + c.minute) * 60 + c.second) * kMicrosPerSecond + c.micro;
  if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min()) {
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

std::optional<int64_t> AddMonths(int64_t micros, int64_t months) {
  Civil c = ToCivil(micros);
  int64_t m = c.year * 12 + (c.month - 1) + months;
  c.year = FloorDiv(m, 12);
  c.month = static_cast<int>(m - c.year * 12) + 1;
  c.day = std::min(c.day, DaysInMonth(c.year, c.month));
  return FromCivil(c);
}

// Java pattern letters: y M d H m s S; 'quoted' text; others literal.
std::string CheckPattern(std::string_view p) {
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\'') {
      const size_t j = p.find('\'', i + 1);
      if (j == std::string_view::npos) return "an unterminated quote";
      i = j;
      continue;
    }
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      if (std::string_view("yMdHmsS").find(c) == std::string_view::npos) {
        return fmt::format("the pattern letter '{}' (floe formats y M d H m s S)", c);
      }
    }
  }
  return "";
}

std::string FormatPattern(int64_t micros, std::string_view p) {
  const Civil c = ToCivil(micros);
  std::string out;
  for (size_t i = 0; i < p.size();) {
    const char ch = p[i];
    if (ch == '\'') {
      const size_t j = p.find('\'', i + 1);
      if (j == i + 1) {
        out += '\'';
      } else {
        out += p.substr(i + 1, j - i - 1);
      }
      i = j + 1;
      continue;
    }
    size_t k = i;
    while (k < p.size() && p[k] == ch) ++k;
    const int width = static_cast<int>(k - i);
    switch (ch) {
      case 'y':
        if (width == 2) {
          out += fmt::format("{:02}", FloorMod(c.year, 100));
        } else {
          out += fmt::format("{:0{}}", c.year, width);
        }
        break;
      case 'M': out += fmt::format("{:0{}}", c.month, width); break;
      case 'd': out += fmt::format("{:0{}}", c.day, width); break;
      case 'H': out += fmt::format("{:0{}}", c.hour, width); break;
      case 'm': out += fmt::format("{:0{}}", c.minute, width); break;
      case 's': out += fmt::format("{:0{}}", c.second, width); break;
      case 'S': {
        // Fraction of the second, `width` digits (DateTimeFormatter).
        std::string f = fmt::format("{:06}", c.micro);
        if (width <= 6) {
          out += f.substr(0, static_cast<size_t>(width));
        } else {
          out += f + std::string(static_cast<size_t>(width - 6), '0');
        }
        break;
      }
      default: out.append(static_cast<size_t>(width), ch); break;
    }
    i = k;
  }
  return out;
}

// Parses `s` by the pattern; nullopt when it does not match.
std::optional<int64_t> ParsePattern(std::string_view s, std::string_view p) {
  Civil c{1970, 1, 1, 0, 0, 0, 0};
  size_t si = 0;
  for (size_t i = 0; i < p.size();) {
    const char ch = p[i];
    if (ch == '\'') {
      const size_t j = p.find('\'', i + 1);
      std::string_view lit = j == i + 1 ? std::string_view("'") : p.substr(i + 1, j - i - 1);
      if (s.substr(si, lit.size()) != lit) return std::nullopt;
      si += lit.size();
      i = j + 1;
      continue;
    }
    size_t k = i;
    while (k < p.size() && p[k] == ch) ++k;
    const size_t width = k - i;
    if (std::string_view("yMdHmsS").find(ch) == std::string_view::npos) {
      for (size_t w = 0; w < width; ++w) {
        if (si >= s.size() || s[si] != ch) return std::nullopt;
        ++si;
      }
      i = k;
      continue;
    }
    // Digits: exactly `width` when the next pattern item is a number too,
    // else as many as there are (at least one).
    const bool adjacent = k < p.size() && std::string_view("yMdHmsS").find(p[k]) != std::string_view::npos;
    size_t e = si;
    while (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e])) &&
           (!adjacent || e - si < width)) {
      ++e;
    }
    if (e == si || e - si > 9) return std::nullopt;
    const int64_t v = std::stoll(std::string(s.substr(si, e - si)));
    switch (ch) {
      case 'y': c.year = width == 2 && e - si == 2 ? 2000 + v : v; break;
      case 'M': c.month = static_cast<int>(v); break;
      case 'd': c.day = static_cast<int>(v); break;
      case 'H': c.hour = static_cast<int>(v); break;
      case 'm': c.minute = static_cast<int>(v); break;
      case 's': c.second = static_cast<int>(v); break;
      default: {  // S: a fraction
        std::string f(s.substr(si, e - si));
        f.resize(6, '0');
        c.micro = std::stoll(f.substr(0, 6));
        break;
      }
    }
    si = e;
    i = k;
  }
  if (si != s.size()) return std::nullopt;
  if (c.month < 1 || c.month > 12 || c.day < 1 || c.day > DaysInMonth(c.year, c.month) ||
      c.hour > 23 || c.minute > 59 || c.second > 59) {
    return std::nullopt;
  }
  return FromCivil(c);
}

// The default text forms: 'yyyy-MM-dd HH:mm:ss[.fff]' (also a date alone, or
// with 'T').
std::optional<int64_t> ParseDefaultTimestamp(std::string_view s) {
  auto t = format::ParseTimestampText(s, *TimestampType());
  if (t) return *t;
  auto d = format::ParseDateText(s);
  if (d) return static_cast<int64_t>(*d) * kMicrosPerDay;
  return std::nullopt;
}

int64_t UnitMicros(std::string_view unit) {
  if (unit == "WEEK") return 7 * kMicrosPerDay;
  if (unit == "DAY") return kMicrosPerDay;
  if (unit == "HOUR") return 3600 * kMicrosPerSecond;
  if (unit == "MINUTE") return 60 * kMicrosPerSecond;
  if (unit == "SECOND") return kMicrosPerSecond;
  if (unit == "MILLISECOND") return 1000;
  if (unit == "MICROSECOND") return 1;
  return 0;
}

int64_t UnitMonths(std::string_view unit) {
  if (unit == "YEAR") return 12;
  if (unit == "QUARTER") return 3;
  if (unit == "MONTH") return 1;
  return 0;
}

// Calcite's EXTRACT on a civil time.
int64_t Extract(std::string_view unit, int64_t micros) {
  const Civil c = ToCivil(micros);
  const int64_t days = FloorDiv(micros, kMicrosPerDay);
  if (unit == "YEAR") return c.year;
  if (unit == "QUARTER") return (c.month - 1) / 3 + 1;
  if (unit == "MONTH") return c.month;
  if (unit == "DAY") return c.day;
  if (unit == "HOUR") return c.hour;
  if (unit == "MINUTE") return c.minute;
  if (unit == "SECOND") return c.second;
  if (unit == "MILLISECOND") return c.second * 1000 + c.micro / 1000;
  if (unit == "MICROSECOND") return c.second * kMicrosPerSecond + c.micro;
  if (unit == "DOY") return days - DaysFromCivil(c.year, 1, 1) + 1;
  // 1970-01-01 was a Thursday; DOW is 1 (Sunday) to 7 (Saturday).
  const int64_t iso_dow = FloorMod(days + 3, 7) + 1;  // 1 = Monday .. 7 = Sunday
  if (unit == "DOW") return iso_dow % 7 + 1;
  if (unit == "ISODOW") return iso_dow;
  if (unit == "WEEK") {
    // ISO 8601 week of the year: the week with the year's first Thursday is 1.
    const int64_t thursday = days - iso_dow + 4;
    const int64_t year = CivilFromDays(thursday).year;
    return (thursday - DaysFromCivil(year, 1, 1)) / 7 + 1;
  }
  if (unit == "EPOCH") return FloorDiv(micros, kMicrosPerSecond);
  return 0;
}

// Calcite's TIMESTAMPDIFF in months (DateTimeUtils.subtractMonths): the
// most months m with a + m months <= b (month ends clamped: Jan 31 + 1 month
// is Feb 29), negated when b is before a.
int64_t MonthsBetween(int64_t a, int64_t b) {
  if (b < a) return -MonthsBetween(b, a);
  const Civil x = ToCivil(a), y = ToCivil(b);
  int64_t m = (y.year * 12 + y.month) - (x.year * 12 + x.month);
  while (m > 0) {
    const std::optional<int64_t> t = AddMonths(a, m);
    if (t && *t <= b) break;
    --m;
  }
  return m;
}

// ---------------------------------------------------------------- JSON

using Json = nlohmann::ordered_json;

// Follows a JSON path ($, .name, ."name", ['name'], [n], with an optional
// "lax " / "strict " mode) into `doc`; nullptr when absent or malformed.
const Json* FollowPath(const Json& doc, std::string_view path) {
  while (!path.empty() && path.front() == ' ') path.remove_prefix(1);
  if (path.substr(0, 4) == "lax ") path.remove_prefix(4);
  if (path.substr(0, 7) == "strict ") path.remove_prefix(7);
  while (!path.empty() && path.front() == ' ') path.remove_prefix(1);
  if (path.empty() || path[0] != '$') return nullptr;
  const Json* cur = &doc;
  size_t i = 1;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      std::string name;
      if (i < path.size() && path[i] == '"') {
        const size_t j = path.find('"', i + 1);
        if (j == std::string_view::npos) return nullptr;
        name = std::string(path.substr(i + 1, j - i - 1));
        i = j + 1;
      } else {
        const size_t st = i;
        while (i < path.size() && path[i] != '.' && path[i] != '[') ++i;
        name = std::string(path.substr(st, i - st));
      }
      if (name.empty() || !cur->is_object()) return nullptr;
      auto it = cur->find(name);
      if (it == cur->end()) return nullptr;
      cur = &*it;
    } else if (path[i] == '[') {
      const size_t j = path.find(']', i);
      if (j == std::string_view::npos) return nullptr;
      std::string_view inside = path.substr(i + 1, j - i - 1);
      i = j + 1;
      if (!inside.empty() && (inside[0] == '\'' || inside[0] == '"')) {
        if (inside.size() < 2 || inside.back() != inside[0]) return nullptr;
        std::string name(inside.substr(1, inside.size() - 2));
        if (!cur->is_object()) return nullptr;
        auto it = cur->find(name);
        if (it == cur->end()) return nullptr;
        cur = &*it;
      } else {
        if (inside.empty()) return nullptr;
        size_t idx = 0;
        for (char c : inside) {
          if (c < '0' || c > '9') return nullptr;
          idx = idx * 10 + static_cast<size_t>(c - '0');
          if (idx > (size_t{1} << 40)) return nullptr;
        }
        if (!cur->is_array() || idx >= cur->size()) return nullptr;
        cur = &(*cur)[idx];
      }
    } else if (path[i] == ' ') {
      ++i;
    } else {
      return nullptr;
    }
  }
  return cur;
}

std::optional<std::string> JsonValue(std::string_view text, std::string_view path, bool query) {
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return std::nullopt;
  const Json* v = FollowPath(doc, path);
  if (!v) return std::nullopt;
  if (query) {
    if (!v->is_object() && !v->is_array()) return std::nullopt;
    return v->dump();
  }
  if (v->is_string()) return v->get<std::string>();
  if (v->is_null() || v->is_object() || v->is_array()) return std::nullopt;
  if (v->is_number_float()) return JavaDoubleText(v->get<double>());
  return v->dump();
}

std::string Hex(const unsigned char* p, size_t n) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[p[i] >> 4];
    out += kDigits[p[i] & 15];
  }
  return out;
}

Result<std::string> Digest(std::string_view s, bool md5) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(s.data(), s.size(), md, &len, md5 ? EVP_md5() : EVP_sha256(), nullptr) != 1) {
    return Internal("{} digest failed", md5 ? "MD5" : "SHA256");
  }
  return Hex(md, len);
}

// ---------------------------------------------------------------- output

// Appends a fixed-width value or a null.
template <typename T>
void Put(ColumnVector* out, std::optional<T> v) {
  if (v) {
    out->Append<T>(*v);
  } else {
    out->AppendNull();
  }
}

void PutStr(ColumnVector* out, const std::optional<std::string_view>& v) {
  if (v) {
    out->AppendBytes(*v);
  } else {
    out->AppendNull();
  }
}

Result<ColumnVector> Evaluate(const BoundExpr& e, const std::vector<ColumnVector>& args,
                              int64_t n) {
  ColumnVector out(e.physical);
  const auto fn = static_cast<ScalarFn>(e.scalar);
  Regex regex;
  for (int64_t i = 0; i < n; ++i) {
    // Every function here is null when an argument is null, but CONCAT_WS
    // (null arguments are skipped).
    if (fn != ScalarFn::kConcatWs && AnyNull(args, i)) {
      out.AppendNull();
      continue;
    }
    switch (fn) {
      case ScalarFn::kSubstring: {
        const int64_t len =
            args.size() > 2 ? Long(args[2], i) : std::numeric_limits<int32_t>::max();
        PutStr(&out, Substring(Str(args[0], i), Long(args[1], i), len));
        break;
      }
      case ScalarFn::kTrim: {
        std::string_view chars = args.size() > 1 ? Str(args[1], i) : std::string_view(" ");
        out.AppendBytes(TrimChars(Str(args[0], i), chars, e.unit != "TRAILING",
                                  e.unit != "LEADING"));
        break;
      }
      case ScalarFn::kReplace:
        out.AppendBytes(Replace(Str(args[0], i), Str(args[1], i), Str(args[2], i)));
        break;
      case ScalarFn::kRegexpReplace: {
        std::string_view s = Str(args[0], i);
        if (!regex.Compile(Str(args[1], i)) || !regex.Set(s)) {
          out.AppendNull();
          break;
        }
        // Java's replaceAll with a quoted (literal) replacement.
        std::string r;
        int64_t last = 0, b = 0, en = 0;
        bool ok = true;
        while (regex.Next(0, &b, &en, &ok)) {
          r.append(s.substr(static_cast<size_t>(last), static_cast<size_t>(b - last)));
          r.append(Str(args[2], i));
          last = en;
        }
        r.append(s.substr(static_cast<size_t>(last)));
        out.AppendBytes(r);
        break;
      }
      case ScalarFn::kRegexpExtract: {
        std::string_view s = Str(args[0], i);
        const int64_t g = args.size() > 2 ? Long(args[2], i) : 0;
        int64_t b = 0, en = 0;
        bool group_ok = false;
        if (g < 0 || g > std::numeric_limits<int32_t>::max() || !regex.Compile(Str(args[1], i)) ||
            !regex.Set(s) || !regex.Next(static_cast<int32_t>(g), &b, &en, &group_ok) ||
            !group_ok || b < 0) {
          out.AppendNull();
          break;
        }
        out.AppendBytes(s.substr(static_cast<size_t>(b), static_cast<size_t>(en - b)));
        break;
      }
      case ScalarFn::kSplitIndex: {
        const int64_t idx = Long(args[2], i);
        std::vector<std::string_view> parts = SplitWhole(Str(args[0], i), Str(args[1], i));
        if (idx < 0 || idx >= static_cast<int64_t>(parts.size())) {
          out.AppendNull();
        } else {
          out.AppendBytes(parts[static_cast<size_t>(idx)]);
        }
        break;
      }
      case ScalarFn::kConcatWs: {
        if (args[0].IsNull(i)) {
          out.AppendNull();
          break;
        }
        std::string r;
        bool first = true;
        for (size_t k = 1; k < args.size(); ++k) {
          if (args[k].IsNull(i)) continue;
          if (!first) r += Str(args[0], i);
          r += Str(args[k], i);
          first = false;
        }
        out.AppendBytes(r);
        break;
      }
      case ScalarFn::kLpad:
      case ScalarFn::kRpad: {
        if (Long(args[1], i) > (int64_t{1} << 28)) {
          return InvalidArgument("{}: a length of {} characters is more than floe builds (2^28)",
                                 fn == ScalarFn::kLpad ? "LPAD" : "RPAD", Long(args[1], i));
        }
        auto r = Pad(Str(args[0], i), Long(args[1], i), Str(args[2], i), fn == ScalarFn::kLpad);
        if (r) {
          out.AppendBytes(*r);
        } else {
          out.AppendNull();
        }
        break;
      }
      case ScalarFn::kPosition:
        out.Append<int32_t>(Position(Str(args[0], i), Str(args[1], i)));
        break;
      case ScalarFn::kInitcap: out.AppendBytes(Initcap(Str(args[0], i))); break;
      case ScalarFn::kUpper:
      case ScalarFn::kLower: {
        FLOE_ASSIGN_OR_RETURN(std::string r, CaseMap(Str(args[0], i), fn == ScalarFn::kUpper));
        out.AppendBytes(r);
        break;
      }
      case ScalarFn::kRound:
      case ScalarFn::kFloor:
      case ScalarFn::kCeil:
      case ScalarFn::kTruncate: {
        const RoundMode mode = fn == ScalarFn::kRound   ? RoundMode::kHalfUp
                               : fn == ScalarFn::kFloor ? RoundMode::kFloor
                               : fn == ScalarFn::kCeil  ? RoundMode::kCeil
                                                        : RoundMode::kDown;
        // Beyond +-100 digits every value rounds to itself or to 0 alike.
        const int64_t digits =
            args.size() > 1 ? std::clamp<int64_t>(Long(args[1], i), -100, 100) : 0;
        switch (args[0].type->id) {
          case TypeId::kInt:
          case TypeId::kLong: {
            const int64_t v = Long(args[0], i);
            int128_t r = v;
            if (digits < 0) RoundDecimal(v, 0, digits, 0, mode, &r);
            if (e.physical->id == TypeId::kInt) {
              out.Append<int32_t>(static_cast<int32_t>(r));
            } else {
              out.Append<int64_t>(static_cast<int64_t>(r));
            }
            break;
          }
          case TypeId::kFloat:
          case TypeId::kDouble: {
            const double v = Double(args[0], i);
            double r;
            if (fn == ScalarFn::kFloor && args.size() == 1) {
              r = std::floor(v);
            } else if (fn == ScalarFn::kCeil && args.size() == 1) {
              r = std::ceil(v);
            } else {
              r = RoundDouble(v, digits, mode);
            }
            if (e.physical->id == TypeId::kFloat) {
              out.Append<float>(static_cast<float>(r));
            } else {
              out.Append<double>(r);
            }
            break;
          }
          case TypeId::kDecimal: {
            int128_t r = 0;
            if (RoundDecimal(args[0].data<int128_t>()[i], args[0].type->scale, digits,
                             e.physical->scale, mode, &r) &&
                (r < Pow10(e.physical->precision) && r > -Pow10(e.physical->precision))) {
              out.Append<int128_t>(r);
            } else {
              out.AppendNull();
            }
            break;
          }
          default: return Internal("rounding of {}", args[0].type->ToString());
        }
        break;
      }
      case ScalarFn::kSign: {
        switch (args[0].type->id) {
          case TypeId::kInt: {
            const int32_t v = args[0].data<int32_t>()[i];
            out.Append<int32_t>((v > 0) - (v < 0));
            break;
          }
          case TypeId::kLong: {
            const int64_t v = args[0].data<int64_t>()[i];
            out.Append<int64_t>((v > 0) - (v < 0));
            break;
          }
          case TypeId::kFloat: {
            const float v = args[0].data<float>()[i];
            out.Append<float>(std::isnan(v) ? v : static_cast<float>((v > 0) - (v < 0)));
            break;
          }
          case TypeId::kDouble: {
            const double v = args[0].data<double>()[i];
            out.Append<double>(std::isnan(v) ? v : static_cast<double>((v > 0) - (v < 0)));
            break;
          }
          case TypeId::kDecimal: {
            const int128_t v = args[0].data<int128_t>()[i];
            out.Append<int128_t>(((v > 0) - (v < 0)) * Pow10(e.physical->scale));
            break;
          }
          default: return Internal("SIGN of {}", args[0].type->ToString());
        }
        break;
      }
      case ScalarFn::kPower: out.Append<double>(std::pow(Double(args[0], i), Double(args[1], i))); break;
      case ScalarFn::kSqrt: out.Append<double>(std::sqrt(Double(args[0], i))); break;
      case ScalarFn::kLn: out.Append<double>(std::log(Double(args[0], i))); break;
      case ScalarFn::kLog10: out.Append<double>(std::log10(Double(args[0], i))); break;
      case ScalarFn::kExp: out.Append<double>(std::exp(Double(args[0], i))); break;
      case ScalarFn::kDateFormat: {
        int64_t micros = 0;
        if (args[0].type->id == TypeId::kString) {
          auto t = ParseDefaultTimestamp(Str(args[0], i));
          if (!t) {
            out.AppendNull();
            break;
          }
          micros = *t;
        } else {
          micros = Micros(args[0], i);
        }
        std::string_view pattern = Str(args[1], i);
        if (std::string why = CheckPattern(pattern); !why.empty()) {
          return InvalidArgument("DATE_FORMAT: the format '{}' has {}", pattern, why);
        }
        out.AppendBytes(FormatPattern(micros, pattern));
        break;
      }
      case ScalarFn::kToTimestamp:
      case ScalarFn::kToDate:
      case ScalarFn::kUnixTimestamp: {
        std::optional<int64_t> t;
        if (args.size() > 1) {
          std::string_view pattern = Str(args[1], i);
          if (std::string why = CheckPattern(pattern); !why.empty()) {
            return InvalidArgument("{}: the format '{}' has {}",
                                   fn == ScalarFn::kToDate        ? "TO_DATE"
                                   : fn == ScalarFn::kToTimestamp ? "TO_TIMESTAMP"
                                                                  : "UNIX_TIMESTAMP",
                                   pattern, why);
          }
          t = ParsePattern(Str(args[0], i), pattern);
        } else {
          t = ParseDefaultTimestamp(Str(args[0], i));
        }
        if (!t && fn == ScalarFn::kUnixTimestamp) {
          // Flink's DateTimeUtils.unixTimestamp: Long.MIN_VALUE, not NULL.
          out.Append<int64_t>(std::numeric_limits<int64_t>::min());
        } else if (!t) {
          out.AppendNull();
        } else if (fn == ScalarFn::kToDate) {
          out.Append<int32_t>(static_cast<int32_t>(FloorDiv(*t, kMicrosPerDay)));
        } else if (fn == ScalarFn::kToTimestamp) {
          out.Append<int64_t>(FloorDiv(*t, 1000) * 1000);  // TIMESTAMP(3)
        } else {
          out.Append<int64_t>(FloorDiv(*t, kMicrosPerSecond));
        }
        break;
      }
      case ScalarFn::kFromUnixtime: {
        const int64_t s = Long(args[0], i);
        std::string_view pattern =
            args.size() > 1 ? Str(args[1], i) : std::string_view("yyyy-MM-dd HH:mm:ss");
        if (std::string why = CheckPattern(pattern); !why.empty()) {
          return InvalidArgument("FROM_UNIXTIME: the format '{}' has {}", pattern, why);
        }
        if (s > std::numeric_limits<int64_t>::max() / kMicrosPerSecond ||
            s < std::numeric_limits<int64_t>::min() / kMicrosPerSecond) {
          out.AppendNull();
          break;
        }
        out.AppendBytes(FormatPattern(s * kMicrosPerSecond, pattern));
        break;
      }
      case ScalarFn::kExtract: out.Append<int64_t>(Extract(e.unit, Micros(args[0], i))); break;
      case ScalarFn::kTimestampAdd:
      case ScalarFn::kAddInterval: {
        const ColumnVector& t = fn == ScalarFn::kTimestampAdd ? args[1] : args[0];
        int64_t months = e.months, micros = e.micros;
        bool overflow = false;
        if (fn == ScalarFn::kTimestampAdd) {
          const int64_t k = Long(args[0], i);
          overflow = __builtin_mul_overflow(k, UnitMonths(e.unit), &months) ||
                     __builtin_mul_overflow(k, UnitMicros(e.unit), &micros);
        }
        // Past +-1 million years there is no timestamp: NULL, as an overflow.
        constexpr int64_t kMaxMonths = 12 * 1000000;
        int64_t v = Micros(t, i);
        if (overflow || months > kMaxMonths || months < -kMaxMonths) {
          out.AppendNull();
          break;
        }
        if (months != 0) {
          const std::optional<int64_t> moved = AddMonths(v, months);
          if (!moved) {
            out.AppendNull();
            break;
          }
          v = *moved;
        }
        if (__builtin_add_overflow(v, micros, &v)) {
          out.AppendNull();
          break;
        }
        if (e.physical->id == TypeId::kDate) {
          out.Append<int32_t>(static_cast<int32_t>(FloorDiv(v, kMicrosPerDay)));
        } else {
          out.Append<int64_t>(v);
        }
        break;
      }
      case ScalarFn::kTimestampDiff: {
        const int64_t a = Micros(args[0], i), b = Micros(args[1], i);
        int64_t r = 0, diff = 0;
        if (const int64_t m = UnitMonths(e.unit); m != 0) {
          r = MonthsBetween(a, b) / m;
        } else if (__builtin_sub_overflow(b, a, &diff)) {
          out.AppendNull();
          break;
        } else {
          r = diff / UnitMicros(e.unit);
        }
        out.Append<int32_t>(static_cast<int32_t>(r));
        break;
      }
      case ScalarFn::kJsonValue:
      case ScalarFn::kJsonQuery: {
        auto r = JsonValue(Str(args[0], i), Str(args[1], i), fn == ScalarFn::kJsonQuery);
        if (r) {
          out.AppendBytes(*r);
        } else {
          out.AppendNull();
        }
        break;
      }
      case ScalarFn::kMd5:
      case ScalarFn::kSha256: {
        FLOE_ASSIGN_OR_RETURN(std::string h, Digest(Str(args[0], i), fn == ScalarFn::kMd5));
        out.AppendBytes(h);
        break;
      }
    }
  }
  return out;
}

}  // namespace scalar_detail

Result<ColumnVector> EvaluateScalar(const BoundExpr& e, const std::vector<ColumnVector>& args,
                                    int64_t n) {
  return scalar_detail::Evaluate(e, args, n);
}

std::string ScalarSignatures(std::string_view name) {
  static const std::pair<std::string_view, std::string_view> kSigs[] = {
      {"SUBSTRING", "SUBSTRING(<CHARACTER> FROM <INTEGER> [FOR <INTEGER>]), SUBSTRING(<CHARACTER>, <INTEGER>[, <INTEGER>])"},
      {"SUBSTR", "SUBSTR(<CHARACTER>, <INTEGER>[, <INTEGER>])"},
      {"TRIM", "TRIM([BOTH | LEADING | TRAILING] [<CHARACTER>] FROM <CHARACTER>), TRIM(<CHARACTER>)"},
      {"LTRIM", "LTRIM(<CHARACTER>[, <CHARACTER>])"},
      {"RTRIM", "RTRIM(<CHARACTER>[, <CHARACTER>])"},
      {"REPLACE", "REPLACE(<CHARACTER>, <CHARACTER>, <CHARACTER>)"},
      {"REGEXP_REPLACE", "REGEXP_REPLACE(<CHARACTER>, <CHARACTER>, <CHARACTER>)"},
      {"REGEXP_EXTRACT", "REGEXP_EXTRACT(<CHARACTER>, <CHARACTER>[, <INTEGER>])"},
      {"SPLIT_INDEX", "SPLIT_INDEX(<CHARACTER>, <CHARACTER>, <INTEGER>)"},
      {"CONCAT", "CONCAT(<CHARACTER>, ...)"},
      {"CONCAT_WS", "CONCAT_WS(<CHARACTER>, <CHARACTER>, ...)"},
      {"LPAD", "LPAD(<CHARACTER>, <INTEGER>, <CHARACTER>)"},
      {"RPAD", "RPAD(<CHARACTER>, <INTEGER>, <CHARACTER>)"},
      {"POSITION", "POSITION(<CHARACTER> IN <CHARACTER>)"},
      {"INITCAP", "INITCAP(<CHARACTER>)"},
      {"UPPER", "UPPER(<CHARACTER>)"},
      {"LOWER", "LOWER(<CHARACTER>)"},
      {"CHAR_LENGTH", "CHAR_LENGTH(<CHARACTER>)"},
      {"CHARACTER_LENGTH", "CHARACTER_LENGTH(<CHARACTER>)"},
      {"ROUND", "ROUND(<NUMERIC>[, <INTEGER>])"},
      {"TRUNCATE", "TRUNCATE(<NUMERIC>[, <INTEGER>])"},
      {"FLOOR", "FLOOR(<NUMERIC>)"},
      {"CEIL", "CEIL(<NUMERIC>)"},
      {"CEILING", "CEILING(<NUMERIC>)"},
      {"SIGN", "SIGN(<NUMERIC>)"},
      {"ABS", "ABS(<NUMERIC>)"},
      {"MOD", "MOD(<INTEGER>, <INTEGER>)"},
      {"POWER", "POWER(<NUMERIC>, <NUMERIC>)"},
      {"SQRT", "SQRT(<NUMERIC>)"},
      {"LN", "LN(<NUMERIC>)"},
      {"LOG10", "LOG10(<NUMERIC>)"},
      {"EXP", "EXP(<NUMERIC>)"},
      {"NULLIF", "NULLIF(<ANY>, <ANY>)"},
      {"IF", "IF(<BOOLEAN>, <ANY>, <ANY>)"},
      {"COALESCE", "COALESCE(<ANY>, ...)"},
      {"NOW", "NOW()"},
      {"DATE_FORMAT", "DATE_FORMAT(<TIMESTAMP>, <CHARACTER>), DATE_FORMAT(<CHARACTER>, <CHARACTER>)"},
      {"TO_TIMESTAMP", "TO_TIMESTAMP(<CHARACTER>[, <CHARACTER>])"},
      {"TO_DATE", "TO_DATE(<CHARACTER>[, <CHARACTER>])"},
      {"UNIX_TIMESTAMP", "UNIX_TIMESTAMP(), UNIX_TIMESTAMP(<CHARACTER>[, <CHARACTER>])"},
      {"FROM_UNIXTIME", "FROM_UNIXTIME(<INTEGER>[, <CHARACTER>])"},
      {"EXTRACT", "EXTRACT(<unit> FROM <DATE | TIMESTAMP>)"},
      {"TIMESTAMPADD", "TIMESTAMPADD(<unit>, <INTEGER>, <DATE | TIMESTAMP>)"},
      {"TIMESTAMPDIFF", "TIMESTAMPDIFF(<unit>, <DATE | TIMESTAMP>, <DATE | TIMESTAMP>)"},
      {"JSON_VALUE", "JSON_VALUE(<CHARACTER>, <CHARACTER>)"},
      {"JSON_QUERY", "JSON_QUERY(<CHARACTER>, <CHARACTER>)"},
      {"MD5", "MD5(<CHARACTER>)"},
      {"SHA256", "SHA256(<CHARACTER>)"},
  };
  for (auto [n, sig] : kSigs) {
    if (n == name) return std::string(sig);
  }
  return "";
}

namespace {
bool ParseIntervalFields(std::string_view value, std::string_view unit, bool negative,
                         int64_t* months, int64_t* micros) {
  using scalar_detail::kMicrosPerDay;
  using scalar_detail::kMicrosPerSecond;
  using scalar_detail::UnitMicros;
  std::string v(value);
  while (!v.empty() && v.front() == ' ') v.erase(0, 1);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
    if (v[0] == '-') negative = !negative;
    v.erase(0, 1);
  }
  // Splits v into numbers at the separators of `seps`; false unless all digits.
  auto fields = [&](std::string_view seps, std::vector<std::string>* out) {
    std::string cur;
    size_t k = 0;
    for (char c : v) {
      if (k < seps.size() && c == seps[k]) {
        out->push_back(cur);
        cur.clear();
        ++k;
      } else if ((c >= '0' && c <= '9') || c == '.') {
        cur += c;
      } else {
        return false;
      }
    }
    out->push_back(cur);
    for (const auto& f : *out) {
      if (f.empty() || f.front() == '.' || f.substr(0, f.find('.')).size() > 9) return false;
    }
    return out->size() == seps.size() + 1;
  };
  auto whole = [](const std::string& f, int128_t* x) {
    if (f.find('.') != std::string::npos) return false;
    *x = std::stoll(f);
    return true;
  };
  auto seconds = [](const std::string& f, int128_t* x) {
    const size_t dot = f.find('.');
    if (dot == std::string::npos) {
      *x = std::stoll(f) * kMicrosPerSecond;
      return true;
    }
    std::string frac = f.substr(dot + 1);
    if (frac.size() > 9 || frac.find('.') != std::string::npos) return false;
    frac.resize(6, '0');
    *x = std::stoll(f.substr(0, dot)) * kMicrosPerSecond + std::stoll(frac.substr(0, 6));
    return true;
  };
  std::vector<std::string> f;
  int128_t m = 0, us = 0, a = 0, b = 0, c = 0, d = 0;
  if (unit == "YEAR" || unit == "MONTH" || unit == "DAY" || unit == "HOUR" || unit == "MINUTE") {
    if (!fields("", &f) || !whole(f[0], &a)) return false;
    if (unit == "YEAR") m = a * 12;
    if (unit == "MONTH") m = a;
    if (unit != "YEAR" && unit != "MONTH") us = a * UnitMicros(unit);
  } else if (unit == "SECOND") {
    if (!fields("", &f) || !seconds(f[0], &us)) return false;
  } else if (unit == "YEAR TO MONTH") {
    if (!fields("-", &f) || !whole(f[0], &a) || !whole(f[1], &b) || b > 11) return false;
    m = a * 12 + b;
  } else if (unit == "DAY TO HOUR") {
    if (!fields(" ", &f) || !whole(f[0], &a) || !whole(f[1], &b) || b > 23) return false;
    us = a * kMicrosPerDay + b * UnitMicros("HOUR");
  } else if (unit == "DAY TO MINUTE") {
    if (!fields(" :", &f) || !whole(f[0], &a) || !whole(f[1], &b) || !whole(f[2], &c) || b > 23 ||
        c > 59)
      return false;
    us = a * kMicrosPerDay + b * UnitMicros("HOUR") + c * UnitMicros("MINUTE");
  } else if (unit == "DAY TO SECOND") {
    if (!fields(" ::", &f) || !whole(f[0], &a) || !whole(f[1], &b) || !whole(f[2], &c) ||
        !seconds(f[3], &d) || b > 23 || c > 59 || d >= 60 * kMicrosPerSecond)
      return false;
    us = a * kMicrosPerDay + b * UnitMicros("HOUR") + c * UnitMicros("MINUTE") + d;
  } else if (unit == "HOUR TO MINUTE") {
    if (!fields(":", &f) || !whole(f[0], &a) || !whole(f[1], &b) || b > 59) return false;
    us = a * UnitMicros("HOUR") + b * UnitMicros("MINUTE");
  } else if (unit == "HOUR TO SECOND") {
    if (!fields("::", &f) || !whole(f[0], &a) || !whole(f[1], &b) || !seconds(f[2], &d) || b > 59 ||
        d >= 60 * kMicrosPerSecond)
      return false;
    us = a * UnitMicros("HOUR") + b * UnitMicros("MINUTE") + d;
  } else if (unit == "MINUTE TO SECOND") {
    if (!fields(":", &f) || !whole(f[0], &a) || !seconds(f[1], &d) || d >= 60 * kMicrosPerSecond)
      return false;
    us = a * UnitMicros("MINUTE") + d;
  } else {
    return false;
  }
  constexpr int128_t kMax = std::numeric_limits<int64_t>::max();
  if (m > kMax || us > kMax) return false;
  *months = static_cast<int64_t>(negative ? -m : m);
  *micros = static_cast<int64_t>(negative ? -us : us);
  return true;
}

}  // namespace

bool ParseIntervalLiteral(std::string_view value, std::string_view unit, bool negative,
                          int64_t* months, int64_t* micros) {
  // Fields of up to 9 digits: the products below stay far inside int64.
  return ParseIntervalFields(value, unit, negative, months, micros);
}

std::string CheckDateTimePattern(std::string_view pattern) {
  return scalar_detail::CheckPattern(pattern);
}

}  // namespace floe::sqlengine
