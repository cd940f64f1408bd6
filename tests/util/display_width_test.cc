// Terminal display width (issue 7: `floe scan --format table` misaligned
// CJK and emoji): wide characters 2 columns, combining marks 0.
#include "floe/util/display_width.h"

#include <gtest/gtest.h>

namespace floe {
namespace display_width_test {

TEST(DisplayWidth, AsciiAndLatinCountOnePerCharacter) {
  EXPECT_EQ(DisplayWidth(""), 0u);
  EXPECT_EQ(DisplayWidth("abc"), 3u);
  EXPECT_EQ(DisplayWidth("h\xc3\xa9llo"), 5u);  // é precomposed: 2 bytes, 1 column
}

TEST(DisplayWidth, CjkFullwidthAndEmojiTakeTwoColumns) {
  EXPECT_EQ(DisplayWidth("\xe4\xb8\xad\xe6\x96\x87"), 4u);  // 中文
  EXPECT_EQ(DisplayWidth("\xe3\x81\x8b\xe3\x81\xaa"), 4u);  // かな
  EXPECT_EQ(DisplayWidth("\xed\x95\x9c"), 2u);              // 한
  EXPECT_EQ(DisplayWidth("\xef\xbc\xa1"), 2u);              // Ａ fullwidth
  EXPECT_EQ(DisplayWidth("\xf0\x9f\x8e\x89"), 2u);          // 🎉
  EXPECT_EQ(DisplayWidth("a\xf0\x9f\x98\x80"
                         "b"),
            4u);                                    // a😀b
  EXPECT_EQ(DisplayWidth("\xf0\xa0\x80\x80"), 2u);  // U+20000, CJK extension B
  EXPECT_EQ(CodePointWidth(0x3000), 2);             // ideographic space
}

TEST(DisplayWidth, CombiningMarksAndZeroWidthCharactersTakeNone) {
  EXPECT_EQ(DisplayWidth("e\xcc\x81"), 1u);          // e + COMBINING ACUTE
  EXPECT_EQ(DisplayWidth("a\xcc\x8a\xcc\xa3"), 1u);  // two marks on one letter
  EXPECT_EQ(DisplayWidth("a\xe2\x80\x8b"
                         "b"),
            2u);                                                // ZERO WIDTH SPACE
  EXPECT_EQ(DisplayWidth("\xf0\x9f\x8e\x89\xef\xb8\x8f"), 2u);  // 🎉 + VARIATION SELECTOR-16
  EXPECT_EQ(DisplayWidth("\xef\xbb\xbf"
                         "x"),
            1u);  // BOM
}

TEST(DisplayWidth, EmojiSequencesCountAsOneEmoji) {
  // 👍🏽: thumbs up + skin tone modifier.
  EXPECT_EQ(DisplayWidth("\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd"), 2u);
  // 👩‍💻: woman, ZWJ, laptop.
  EXPECT_EQ(DisplayWidth("\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x92\xbb"), 2u);
}

TEST(DisplayWidth, InvalidUtf8CountsOnePerByte) {
  EXPECT_EQ(DisplayWidth("a\xff"
                         "b"),
            3u);
  EXPECT_EQ(DisplayWidth("\xe4\xb8"), 2u);      // a cut sequence
  EXPECT_EQ(DisplayWidth("\xc0\xaf"), 2u);      // overlong
  EXPECT_EQ(DisplayWidth("\xed\xa0\x80"), 3u);  // a surrogate
}

}  // namespace display_width_test
}  // namespace floe
