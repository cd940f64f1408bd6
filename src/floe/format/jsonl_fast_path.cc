// The JSONL fast path (see jsonl_fast_path_internal.h). JSON grammar: RFC 8259
// sections 2 (whitespace), 4 (objects), 6 (numbers), 7 (strings), 8.1 (UTF-8).
#include "floe/format/jsonl_fast_path_internal.h"

#include <immintrin.h>
#include <simdjson.h>

#include <atomic>
#include <charconv>
#include <cstring>
#include <limits>

#include "floe/types/json_value.h"

namespace floe::format {

namespace internal {
namespace {
std::atomic<bool> g_fast_enabled{true};
std::atomic<int64_t> g_fast_lines{0};
}  // namespace
void SetJsonlFastPathEnabled(bool enabled) { g_fast_enabled.store(enabled); }
bool JsonlFastPathEnabled() { return g_fast_enabled.load(); }
int64_t JsonlFastPathLines() { return g_fast_lines.load(std::memory_order_relaxed); }
void AddJsonlFastPathLines(int64_t n) { g_fast_lines.fetch_add(n, std::memory_order_relaxed); }
}  // namespace internal

namespace {

inline bool IsDigit(char c) { return static_cast<unsigned char>(c - '0') <= 9; }

/// JSON whitespace within a line (a '\n' ends the line, so it is not skipped).
inline const char* SkipWs(const char* p) {
  if (static_cast<unsigned char>(*p) > ' ') [[likely]]
    return p;  // the usual case: none
  while (*p == ' ' || *p == '\t' || *p == '\r') ++p;
  return p;
}

/// Scans the content of a JSON string whose opening quote precedes `p`.
/// Returns the closing quote, or nullptr at an escape or a control character
/// (the NUL after the data included). Sets `*high` when a byte >= 0x80 occurs
/// (the caller validates UTF-8). Reads 32 bytes at a time.
[[gnu::always_inline]] inline const char* ScanString(const char* p, bool* high) {
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i backslash = _mm256_set1_epi8('\\');
  const __m256i ctl = _mm256_set1_epi8(0x1f);
  for (;;) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i special = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpeq_epi8(x, quote), _mm256_cmpeq_epi8(x, backslash)),
        _mm256_cmpeq_epi8(_mm256_min_epu8(x, ctl), x));  // x <= 0x1f
    const uint32_t m = static_cast<uint32_t>(_mm256_movemask_epi8(special));
    const uint32_t hi = static_cast<uint32_t>(_mm256_movemask_epi8(x));
    if (m) {
      const int i = __builtin_ctz(m);
      if (hi & ((uint32_t{1} << i) - 1)) *high = true;
      return p[i] == '"' ? p + i : nullptr;
    }
    if (hi) *high = true;
    p += 32;
  }
}

/// A scanned JSON number.
struct Number {
  const char* begin;
  const char* end;
  uint64_t mantissa;  ///< all digits as one integer (valid when digits <= 19)
  int digits;         ///< digits before the exponent (leading zeros included)
  int64_t exp10;      ///< the value is mantissa * 10^exp10
  bool neg;
  bool is_int;  ///< no fraction, no exponent
};

constexpr uint64_t kPow10Int[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/// The leading ASCII digits at `p`, up to 8 of them, read as one word:
/// returns how many there are and their value in `*value`. Reads 8 bytes.
[[gnu::always_inline]] inline int Digits8(const char* p, uint64_t* value) {
  constexpr uint64_t kF0 = 0xf0f0f0f0f0f0f0f0ULL, k30 = 0x3030303030303030ULL,
                     k06 = 0x0606060606060606ULL, k0F = 0x0f0f0f0f0f0f0f0fULL;
  uint64_t w;
  std::memcpy(&w, p, 8);
  // Non-zero in the high nibble of each byte that is not a digit. (A byte
  // >= 0xfa carries into the next one, but only bytes after the first
  // non-digit can be affected.)
  const uint64_t non_digit = ((w & kF0) ^ k30) | (((w + k06) & kF0) ^ k30);
  const int n = non_digit ? __builtin_ctzll(non_digit) >> 3 : 8;
  if (n == 0) {
    *value = 0;
    return 0;
  }
  // Move the n digits to the top bytes (zeros before them are leading
  // zeros), then combine neighbours: pairs, quadruples, the 8 digits.
  uint64_t x = (w & k0F) << (8 * (8 - n));
  x = x * 10 + (x >> 8);  // byte 2i: digits 2i, 2i+1 as a number 0..99
  x = (((x & 0x000000ff000000ffULL) * (100 + (1000000ULL << 32))) +
       (((x >> 16) & 0x000000ff000000ffULL) * (1 + (10000ULL << 32)))) >>
      32;
  *value = static_cast<uint32_t>(x);
  return n;
}

/// Scans a JSON number (RFC 8259 section 6) at `p`: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
/// Returns its end, or nullptr when `p` holds no JSON number. What follows
/// is checked by the caller's grammar (so "01" or "1x" fail there). Digits
/// are read 8 at a time (the buffer is padded).
[[gnu::always_inline]] inline const char* ScanNumber(const char* p, Number* n) {
  n->begin = p;
  n->neg = *p == '-';
  if (n->neg) ++p;
  uint64_t m = 0, v;
  int digits = 0;
  if (*p == '0') {
    ++p;
    digits = 1;
  } else {
    int k = Digits8(p, &v);
    if (k == 0) return nullptr;
    m = v;
    digits = k;
    p += k;
    while (k == 8) {  // the mantissa wraps past 19 digits, which then go to from_chars
      k = Digits8(p, &v);
      m = m * kPow10Int[k] + v;
      digits += k;
      p += k;
    }
  }
  n->is_int = true;
  int64_t frac = 0;
  if (*p == '.') {
    ++p;
    int k = Digits8(p, &v);
    if (k == 0) return nullptr;
    for (;;) {
      m = m * kPow10Int[k] + v;
      digits += k;
      frac += k;
      p += k;
      if (k < 8) break;
      k = Digits8(p, &v);
    }
    n->is_int = false;
  }
  int64_t e = 0;
  if (*p == 'e' || *p == 'E') {
    ++p;
    bool eneg = false;
    if (*p == '+' || *p == '-') {
      eneg = *p == '-';
      ++p;
    }
    if (!IsDigit(*p)) return nullptr;
    do {
      if (e < 100000000) e = e * 10 + (*p - '0');
      ++p;
    } while (IsDigit(*p));
    if (eneg) e = -e;
    n->is_int = false;
  }
  n->mantissa = m;
  n->digits = digits;
  n->exp10 = e - frac;
  n->end = p;
  return p;
}

/// The integer value of a JSON integer token, as simdjson's get_int64 gives
/// it; false when out of int64 range or not an integer token.
inline bool NumberToInt64(const Number& n, int64_t* out) {
  if (!n.is_int || n.digits > 19) return false;  // 19 digits never wrap a uint64
  if (n.neg) {
    if (n.mantissa > uint64_t{1} << 63) return false;
    *out = static_cast<int64_t>(0 - n.mantissa);
  } else {
    if (n.mantissa > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    *out = static_cast<int64_t>(n.mantissa);
  }
  return true;
}

constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/// The correctly rounded double of a JSON number. When the mantissa and the
/// power of ten are both exact doubles (mantissa <= 2^53, |exp10| <= 22), one
/// IEEE multiplication or division rounds the exact value correctly
/// (Clinger's fast path); otherwise std::from_chars (correctly rounded).
/// False on overflow or underflow (out of range): the simdjson path decides.
inline bool NumberToDouble(const Number& n, double* out) {
  if (n.digits <= 19 && n.mantissa <= (uint64_t{1} << 53) && n.exp10 >= -22 && n.exp10 <= 22) {
    double d = static_cast<double>(n.mantissa);
    d = n.exp10 < 0 ? d / kPow10[-n.exp10] : d * kPow10[n.exp10];
    *out = n.neg ? -d : d;
    return true;
  }
  auto [ptr, ec] = std::from_chars(n.begin, n.end, *out);
  return ec == std::errc() && ptr == n.end;
}

/// `len` bytes at `p` equal `lit` (short literals: true, false, null).
inline bool Literal(const char* p, const char* lit, size_t len) {
  return std::memcmp(p, lit, len) == 0;
}

/// ColumnVector::Append, inlined into the line scanner (the compiler would
/// not inline it into that big function by itself).
template <typename T>
[[gnu::always_inline]] inline void AppendValue(ColumnVector& col, T v) {
  const size_t n = col.values.size();
  col.values.Resize(n + sizeof(T));
  std::memcpy(col.values.data() + n, &v, sizeof(T));
  if (!col.validity.empty()) col.validity.push_back(1);
  ++col.length;
}

/// Whether a JSON key's raw bytes can be compared with `name` directly: the
/// name needs no escape in JSON and is valid UTF-8.
bool RawComparable(std::string_view name) {
  for (char c : name) {
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return false;
  }
  return IsValidUtf8(name);
}

}  // namespace

JsonlFastPath::JsonlFastPath(const Schema& schema) {
  const auto& fields = schema.fields();
  cols_.resize(fields.size());
  slots_.resize(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    const NestedField& f = fields[i];
    Column& c = cols_[i];
    c.type = f.type.get();
    c.required = f.required;
    c.name = f.name;
    c.raw_name = RawComparable(f.name);
    // The raw key: the name and its closing quote, compared 16 bytes at a time.
    char key16[16] = {};
    const std::string quoted = f.name + '"';
    const size_t klen = std::min<size_t>(quoted.size(), 16);
    std::memcpy(key16, quoted.data(), klen);
    std::memcpy(&c.key0, key16, 8);
    std::memcpy(&c.key1, key16 + 8, 8);
    c.mask0 = klen >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * klen)) - 1;
    c.mask1 = klen >= 16 ? ~uint64_t{0} : klen <= 8 ? 0 : (uint64_t{1} << (8 * (klen - 8))) - 1;
    switch (f.type->id) {
      case TypeId::kBoolean: c.kind = Kind::kBool; break;
      case TypeId::kInt: c.kind = Kind::kInt; break;
      case TypeId::kLong: c.kind = Kind::kLong; break;
      case TypeId::kFloat: c.kind = Kind::kFloat; break;
      case TypeId::kDouble: c.kind = Kind::kDouble; break;
      case TypeId::kDecimal: c.kind = Kind::kDecimal; break;
      case TypeId::kString: c.kind = Kind::kString; break;
      case TypeId::kDate: c.kind = Kind::kDate; break;
      case TypeId::kTime: c.kind = Kind::kTime; break;
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
      case TypeId::kTimestampNs:
      case TypeId::kTimestampTzNs: c.kind = Kind::kTimestamp; break;
      case TypeId::kUuid: c.kind = Kind::kUuid; break;
      case TypeId::kFixed:
      case TypeId::kBinary: c.kind = Kind::kHex; break;
      default: c.kind = Kind::kOther; break;
    }
    c.width = FixedValueWidth(*f.type);  // 0 for string and binary (offsets)
    if (c.required) required_.push_back(static_cast<int>(i));
  }
  // Built after cols_ is final: the keys view the columns' names.
  for (size_t i = 0; i < cols_.size(); ++i) {
    index_.emplace(std::string_view(cols_[i].name), static_cast<int>(i));
  }
}

bool JsonlFastPath::KeyIs(const char* p, const Column& c) const {
  if (!c.raw_name) return false;
  uint64_t a0, a1;
  std::memcpy(&a0, p, 8);
  std::memcpy(&a1, p + 8, 8);
  if ((((a0 ^ c.key0) & c.mask0) | ((a1 ^ c.key1) & c.mask1)) != 0) return false;
  const size_t len = c.name.size();
  if (len < 16) return true;  // the closing quote was part of the 16 bytes compared
  // Longer names: compare only while the bytes are not past the line's end
  // (a NUL or any control byte differs from the name, which has none).
  return std::strncmp(p + 16, c.name.data() + 16, len - 16) == 0 && p[len] == '"';
}

const char* JsonlFastPath::ScanValue(const Column& c, ColumnVector& col, Slot& s, const char* p) {
  if (*p == 'n') {
    if (!Literal(p, "null", 4) || c.required) return nullptr;
    s.null = true;  // appended once the whole line is known to be good
    return p + 4;
  }
  s.null = false;
  Number num;
  // Strings: escape-free, UTF-8 checked; `text` is the content.
  std::string_view text;
  const bool is_string = *p == '"';
  if (is_string) {
    bool high = false;
    const char* q = ScanString(p + 1, &high);
    if (!q) return nullptr;
    text = std::string_view(p + 1, static_cast<size_t>(q - p - 1));
    if (high && !simdjson::validate_utf8(text.data(), text.size())) return nullptr;
  }
  const char* end = is_string ? text.data() + text.size() + 1 : nullptr;  // after the quote
  switch (c.kind) {
    case Kind::kBool:
      if (Literal(p, "true", 4)) {
        end = p + 4;
        AppendValue<uint8_t>(col, 1);
      } else if (Literal(p, "false", 5)) {
        end = p + 5;
        AppendValue<uint8_t>(col, 0);
      } else {
        return nullptr;
      }
      break;
    case Kind::kInt:
    case Kind::kLong: {
      end = ScanNumber(p, &num);
      int64_t v;
      if (!end || !NumberToInt64(num, &v)) return nullptr;
      if (c.kind == Kind::kLong) {
        AppendValue<int64_t>(col, v);
      } else {
        if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
          return nullptr;
        }
        AppendValue<int32_t>(col, static_cast<int32_t>(v));
      }
      break;
    }
    case Kind::kDouble: {
      double d;
      if (is_string) {
        auto r = ParseDoubleText(text);
        if (!r) return nullptr;
        d = *r;
      } else {
        end = ScanNumber(p, &num);
        if (!end || !NumberToDouble(num, &d)) return nullptr;
      }
      AppendValue<double>(col, d);
      break;
    }
    case Kind::kFloat:
    case Kind::kDecimal: {
      if (!is_string) {
        end = ScanNumber(p, &num);
        if (!end) return nullptr;
        text = std::string_view(p, static_cast<size_t>(end - p));
      }
      if (c.kind == Kind::kFloat) {
        auto r = ParseFloatText(text);
        if (!r) return nullptr;
        AppendValue<float>(col, *r);
      } else {
        auto r = ParseDecimalText(text, *c.type);
        if (!r) return nullptr;
        AppendValue<int128_t>(col, *r);
      }
      break;
    }
    case Kind::kOther: return nullptr;  // a nested value: the simdjson path
    default: {
      // The remaining kinds are JSON strings.
      if (!is_string) return nullptr;
      switch (c.kind) {
        case Kind::kString: col.AppendBytes(text); break;
        case Kind::kDate: {
          auto r = ParseDateText(text);
          if (!r) return nullptr;
          AppendValue<int32_t>(col, *r);
          break;
        }
        case Kind::kTime: {
          auto r = ParseTimeText(text);
          if (!r) return nullptr;
          AppendValue<int64_t>(col, *r);
          break;
        }
        case Kind::kTimestamp: {
          int64_t v;
          if (!ParseTimestampFast(text, *c.type, &date_cache_, &v)) {
            auto r = ParseTimestampText(text, *c.type, &date_cache_);
            if (!r) return nullptr;
            v = *r;
          }
          AppendValue<int64_t>(col, v);
          break;
        }
        case Kind::kUuid: {
          uint8_t b[16];
          if (!ParseUuidText(text, b)) return nullptr;
          col.AppendBytes(std::string_view(reinterpret_cast<const char*>(b), 16));
          break;
        }
        case Kind::kHex:
          hex_.clear();
          if (!ParseHexText(text, c.type->id == TypeId::kFixed ? c.type->length : -1, &hex_)) {
            return nullptr;
          }
          col.AppendBytes(hex_);
          break;
        default: return nullptr;
      }
    }
  }
  s.appended = true;
  return end;
}

bool JsonlFastPath::ScanLine(const char* p, ColumnVector* cols, size_t* line_len) {
  const char* const start = p;
  if (++gen_ == 0) {
    for (Slot& s : slots_) s.gen = 0;
    gen_ = 1;
  }
  p = SkipWs(p);
  if (*p != '{') return false;
  p = SkipWs(p + 1);
  const size_t ncols = cols_.size();
  size_t expect = 0;  // keys usually come in schema order
  if (*p == '}') {
    ++p;
  } else {
    for (;;) {
      if (*p != '"') return false;
      ++p;
      size_t idx;
      if (expect < ncols && KeyIs(p, cols_[expect])) {
        idx = expect;
        p += cols_[expect].name.size() + 1;
      } else {
        bool high = false;
        const char* q = ScanString(p, &high);
        if (!q) return false;
        std::string_view key(p, static_cast<size_t>(q - p));
        if (high && !simdjson::validate_utf8(key.data(), key.size())) return false;
        auto it = index_.find(key);
        if (it == index_.end()) return false;  // unknown: an error or skipped, not here
        idx = static_cast<size_t>(it->second);
        p = q + 1;
      }
      Slot& slot = slots_[idx];
      if (slot.gen == gen_) return false;  // duplicate key
      slot.gen = gen_;
      slot.appended = false;
      p = SkipWs(p);
      if (*p != ':') return false;
      p = SkipWs(p + 1);
      p = ScanValue(cols_[idx], cols[idx], slot, p);
      if (!p) return false;
      expect = idx + 1;
      p = SkipWs(p);
      if (*p == ',') {
        p = SkipWs(p + 1);
        continue;
      }
      if (*p != '}') return false;
      ++p;
      break;
    }
  }
  p = SkipWs(p);
  if (*p != '\n') return false;  // trailing content, or the line is not complete
  for (int r : required_) {
    if (slots_[r].gen != gen_) return false;  // a missing NOT NULL column
  }
  *line_len = static_cast<size_t>(p - start);
  return true;
}

bool JsonlFastPath::Decode(const char* p, ColumnVector* cols, size_t* line_len) {
  if (!ScanLine(p, cols, line_len)) {
    Rollback(cols);
    return false;
  }
  // Nulls and missing keys last: AppendNull may materialize a validity
  // vector, which a rollback could not take back.
  for (size_t i = 0; i < slots_.size(); ++i) {
    const Slot& s = slots_[i];
    if (s.gen != gen_ || s.null) cols[i].AppendNull();
  }
  return true;
}

void JsonlFastPath::Rollback(ColumnVector* cols) {
  for (size_t i = 0; i < slots_.size(); ++i) {
    const Slot& s = slots_[i];
    if (s.gen != gen_ || !s.appended) continue;
    ColumnVector& col = cols[i];
    --col.length;
    if (!col.validity.empty()) col.validity.pop_back();
    if (cols_[i].width == 0) {
      col.offsets.pop_back();
      col.values.Resize(static_cast<size_t>(col.offsets.back()));
    } else {
      col.values.Resize(col.values.size() - static_cast<size_t>(cols_[i].width));
    }
  }
}

}  // namespace floe::format
