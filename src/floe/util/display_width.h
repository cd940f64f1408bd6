/// \file
/// Terminal display width of UTF-8 text, for aligned text output (`floe scan
/// --format table`). Padding by bytes or code points misaligns any column
/// holding CJK, emoji or combining accents. The width of each code point comes
/// from a small table of Unicode facts kept here (East Asian Width "W" and "F"
/// from UAX #11, emoji presentation, combining marks and zero-width format
/// characters), not from the C library's locale-dependent wcwidth().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace floe {

/// Columns one code point takes on a terminal: 2 for East Asian Wide and
/// Fullwidth characters and emoji, 0 for combining marks, zero-width and
/// format characters (ZWJ, variation selectors, BOM) and C0/C1 controls, 1
/// otherwise.
int CodePointWidth(uint32_t cp);

/// Columns `text` takes on a terminal: the sum of its code points' widths,
/// except that a code point joined by U+200D ZERO WIDTH JOINER to the one
/// before it (emoji ZWJ sequences) and an emoji skin-tone modifier after
/// an emoji add nothing, as terminals draw such a sequence as one emoji. A byte
/// that is not part of valid UTF-8 counts 1 (it shows as a replacement mark).
size_t DisplayWidth(std::string_view text);

}  // namespace floe
