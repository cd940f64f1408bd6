/// \file
/// Small ASCII string helpers shared by every module: case folding,
/// case-insensitive comparison, trimming, hex. Locale-free on purpose:
/// option values, type names, codec names and identifiers are ASCII, and
/// std::tolower/std::isspace would follow the process locale.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace floe {

/// `c` in lower case when it is an ASCII capital letter, else `c`.
constexpr char AsciiLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
/// `c` in upper case when it is an ASCII small letter, else `c`.
constexpr char AsciiUpper(char c) {
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}
/// True for the C locale's white space: space, \t, \n, \v, \f, \r.
constexpr bool IsAsciiSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/// `s` with ASCII letters lower-cased.
inline std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

/// `s` with ASCII letters upper-cased.
inline std::string ToUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiUpper(c);
  return out;
}

/// True when `a` and `b` are equal ignoring ASCII case.
constexpr bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

/// `s` without leading and trailing ASCII white space.
constexpr std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && IsAsciiSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsAsciiSpace(s.back())) s.remove_suffix(1);
  return s;
}

/// The value of a hex digit (either case), or -1.
constexpr int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// Appends two lower-case hex digits per byte of `bytes` to `out`.
inline void AppendHexBytes(std::string_view bytes, std::string* out) {
  constexpr char kDigits[] = "0123456789abcdef";
  size_t at = out->size();
  out->resize(at + bytes.size() * 2);
  char* w = out->data() + at;
  for (unsigned char c : bytes) {
    *w++ = kDigits[c >> 4];
    *w++ = kDigits[c & 15];
  }
}

/// Lower-case hex of `bytes` ("00ff").
inline std::string ToHex(std::string_view bytes) {
  std::string out;
  AppendHexBytes(bytes, &out);
  return out;
}

/// Appends the bytes of hex text `hex` (either case) to `out`; false (and
/// `out` unchanged) when the length is odd or a character is no hex digit.
inline bool AppendBytesFromHex(std::string_view hex, std::string* out) {
  if (hex.size() % 2 != 0) return false;
  const size_t at = out->size();
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = HexDigitValue(hex[i]), lo = HexDigitValue(hex[i + 1]);
    if (hi < 0 || lo < 0) {
      out->resize(at);
      return false;
    }
    out->push_back(static_cast<char>(hi << 4 | lo));
  }
  return true;
}

/// Appends standard base64 of `bytes` with padding (RFC 4648 section 4;
/// Java's Base64 encoder, which Kafka Connect uses) to `out`.
inline void AppendBase64(std::string_view bytes, std::string* out) {
  constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  out->reserve(out->size() + (n + 2) / 3 * 4);
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = uint32_t{b[i]} << 16;
    if (i + 1 < n) v |= uint32_t{b[i + 1]} << 8;
    if (i + 2 < n) v |= b[i + 2];
    out->push_back(kAlphabet[(v >> 18) & 63]);
    out->push_back(kAlphabet[(v >> 12) & 63]);
    out->push_back(i + 1 < n ? kAlphabet[(v >> 6) & 63] : '=');
    out->push_back(i + 2 < n ? kAlphabet[v & 63] : '=');
  }
}

inline std::string Base64(std::string_view bytes) {
  std::string out;
  AppendBase64(bytes, &out);
  return out;
}

}  // namespace floe
