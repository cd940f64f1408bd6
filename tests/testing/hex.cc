#include "testing/hex.h"

#include <gtest/gtest.h>

namespace floe::test {

std::string Hex(const void* data, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  const auto* p = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve(2 * size);
  for (size_t i = 0; i < size; ++i) {
    out += kDigits[p[i] >> 4];
    out += kDigits[p[i] & 15];
  }
  return out;
}

std::string Hex(std::string_view bytes) { return Hex(bytes.data(), bytes.size()); }

namespace {
int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::string Unhex(std::string_view hex) {
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    int hi = HexDigit(hex[i]), lo = HexDigit(hex[i + 1]);
    if (hi < 0 || lo < 0) {
      ADD_FAILURE() << "not a hex digit at offset " << (hi < 0 ? i : i + 1) << " of \"" << hex
                    << "\"";
      return out;
    }
    out.push_back(static_cast<char>(hi << 4 | lo));
  }
  return out;
}

}  // namespace floe::test
