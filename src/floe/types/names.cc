#include "floe/types/names.h"

#include <iterator>

#include <fmt/format.h>

namespace floe {

namespace {

bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Next UTF-8 code point at s[*i]; advances *i. Invalid bytes are returned as is.
uint32_t NextCodePoint(std::string_view s, size_t* i) {
  auto c = static_cast<unsigned char>(s[*i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  if (*i + n > s.size()) n = 1;
  uint32_t cp = n == 1 ? c : (c & (0xFF >> (n + 1)));
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[*i + k]) & 0x3F);
  *i += n;
  return cp;
}

}  // namespace

bool IsValidAvroName(std::string_view name) {
  if (name.empty()) return false;
  if (!IsLetter(name[0]) && name[0] != '_') return false;
  for (char c : name.substr(1)) {
    if (!IsLetter(c) && !IsDigit(c) && c != '_') return false;
  }
  return true;
}

std::string SanitizeName(std::string_view name) {
  if (IsValidAvroName(name)) return std::string(name);
  std::string out;
  size_t i = 0;
  bool first = true;
  while (i < name.size()) {
    char c = name[i];
    if (IsLetter(c) || c == '_' || (!first && IsDigit(c))) {
      out.push_back(c);
      ++i;
    } else if (first && IsDigit(c)) {
      out.push_back('_');
      out.push_back(c);
      ++i;
    } else {
      uint32_t cp = NextCodePoint(name, &i);
      fmt::format_to(std::back_inserter(out), "_x{:X}", cp);
    }
    first = false;
  }
  if (out.empty()) out.push_back('_');
  return out;
}

}  // namespace floe
