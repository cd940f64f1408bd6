// util/strings: the ASCII helpers every module shares.
#include "floe/util/strings.h"

#include <gtest/gtest.h>

#include <string>

namespace floe {
namespace strings_test {

TEST(Strings, CaseFolding) {
  EXPECT_EQ(ToLower("Timestamp_NS 9Z"), "timestamp_ns 9z");
  EXPECT_EQ(ToUpper("decimal(9, 2) é"), "DECIMAL(9, 2) é");  // non-ASCII bytes stay as they are
  EXPECT_TRUE(EqualsIgnoreCase("ZSTD", "zstd"));
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_FALSE(EqualsIgnoreCase("zstd", "zst"));
  EXPECT_FALSE(EqualsIgnoreCase("a[", "A{"));  // '[' and '{' differ by the case bit but are no letters
  static_assert(EqualsIgnoreCase("Name", "nAME"));
}

TEST(Strings, TrimSpace) {
  EXPECT_EQ(TrimSpace(" \t\r\n\v\f x y \n"), "x y");
  EXPECT_EQ(TrimSpace("   "), "");
  EXPECT_EQ(TrimSpace(""), "");
  EXPECT_EQ(TrimSpace("\xa0x"), "\xa0x");  // no locale: a Latin-1 NBSP byte is not space
}

TEST(Strings, Hex) {
  EXPECT_EQ(ToHex(std::string("\x00\x7f\x80\xff", 4)), "007f80ff");
  std::string out = "keep";
  EXPECT_TRUE(AppendBytesFromHex("00aBfF", &out));
  EXPECT_EQ(out, std::string("keep\x00\xab\xff", 7));
  EXPECT_FALSE(AppendBytesFromHex("abc", &out));
  EXPECT_FALSE(AppendBytesFromHex("0g", &out));
  EXPECT_EQ(out, std::string("keep\x00\xab\xff", 7));  // unchanged on failure
  EXPECT_EQ(HexDigitValue('F'), 15);
  EXPECT_EQ(HexDigitValue('g'), -1);
}

}  // namespace strings_test
}  // namespace floe
