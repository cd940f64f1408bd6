// JSONL syntax errors say what is wrong and at which column (issue 7): a
// line that is not JSON is "not valid JSON", not "found null"; trailing
// garbage is trailing garbage, not "ended early"; leading zeros (RFC 8259)
// are refused. The fast path and the simdjson path give the same message.
#include <gtest/gtest.h>

#include <string>

#include "floe/format/json_syntax_internal.h"
#include "floe/format/jsonl_fast_path_internal.h"
#include "floe/format/jsonl_reader.h"
#include "format/decode_test_util.h"

namespace floe::format {
namespace jsonl_syntax_errors_test {

constexpr std::string_view kSql =
    "id BIGINT, s STRING, d DOUBLE, f FLOAT, dec DECIMAL(9,2), b BOOLEAN";

// `line` as line 2 after a good line (line 1 never takes the fast path), with
// the fast path on or off: the error message, or "" when the input decodes.
std::string ErrorOf(const std::string& line, bool fast) {
  internal::SetJsonlFastPathEnabled(fast);
  auto reader = JsonlReader::FromString(MakeSchema(kSql), "{\"id\":5}\n" + line + "\n", {});
  internal::SetJsonlFastPathEnabled(true);
  if (!reader) return "reader: " + reader.error().message;
  while (true) {
    Batch batch;
    auto more = (*reader)->Next(&batch);
    if (!more) return more.error().message;
    if (!*more) return "";
  }
}

// Both paths, which must agree.
std::string Error(const std::string& line) {
  std::string fast = ErrorOf(line, true);
  EXPECT_EQ(fast, ErrorOf(line, false)) << line;
  return fast;
}

TEST(JsonlSyntaxErrors, TextThatIsNotJsonSaysSoWithTheColumn) {
  EXPECT_EQ(Error("not json"), "line 2: not valid JSON at column 1: 'not' is not a JSON value");
  EXPECT_EQ(Error("nope"), "line 2: not valid JSON at column 1: 'nope' is not a JSON value");
  EXPECT_EQ(Error("nul"), "line 2: not valid JSON at column 1: 'nul' is not a JSON value");
  EXPECT_EQ(Error("tru"), "line 2: not valid JSON at column 1: 'tru' is not a JSON value");
  EXPECT_EQ(Error("  nullx"), "line 2: not valid JSON at column 3: 'nullx' is not a JSON value");
  // Valid JSON that is not an object keeps its own message.
  EXPECT_EQ(Error("null"), "line 2: expected a JSON object, found null");
  EXPECT_EQ(Error("true"), "line 2: expected a JSON object, found a boolean");
  EXPECT_EQ(Error("[1]"), "line 2: expected a JSON object, found an array");
}

TEST(JsonlSyntaxErrors, TrailingGarbageIsNamedAsSuch) {
  EXPECT_EQ(Error("{\"id\":1} xyz"),
            "line 2: not valid JSON at column 10: trailing content after the JSON value");
  EXPECT_EQ(Error("{\"id\":1}{\"id\":2}"),
            "line 2: not valid JSON at column 9: trailing content after the JSON value");
  EXPECT_EQ(Error("{\"id\":1"),
            "line 2: not valid JSON at column 8: the line ends inside an object");
}

TEST(JsonlSyntaxErrors, BadLiteralsInsideTheObjectNameColumnAndPosition) {
  EXPECT_EQ(Error("{\"id\":tru}"),
            "line 2, column 'id': not valid JSON at column 7: 'tru' is not a JSON value");
  EXPECT_EQ(Error("{\"b\":tru}"),
            "line 2, column 'b': not valid JSON at column 6: 'tru' is not a JSON value");
  EXPECT_EQ(Error("{\"s\":nul}"),
            "line 2, column 's': not valid JSON at column 6: 'nul' is not a JSON value");
  // Columns count characters, not bytes.
  EXPECT_EQ(Error("{\"s\":\"\xc3\xa9\xc3\xa9\", \"b\":fals}"),
            "line 2, column 'b': not valid JSON at column 16: 'fals' is not a JSON value");
}

TEST(JsonlSyntaxErrors, LeadingZerosAreInvalidOnBothPaths) {
  EXPECT_EQ(Error("{\"id\":01}"),
            "line 2, column 'id': not valid JSON at column 7: invalid number '01' (leading zero)");
  EXPECT_EQ(Error("{\"id\":-01}"),
            "line 2, column 'id': not valid JSON at column 7: invalid number '-01' (leading zero)");
  EXPECT_EQ(Error("{\"d\":00.5}"),
            "line 2, column 'd': not valid JSON at column 6: invalid number '00.5' (leading zero)");
  EXPECT_EQ(
      Error("{\"f\":-01.5}"),
      "line 2, column 'f': not valid JSON at column 6: invalid number '-01.5' (leading zero)");
  EXPECT_EQ(
      Error("{\"dec\":01.5}"),
      "line 2, column 'dec': not valid JSON at column 8: invalid number '01.5' (leading zero)");
  // With an escape in the line (never the fast path) the same.
  EXPECT_EQ(Error("{\"s\":\"\\u00e9\",\"id\":01}"),
            "line 2, column 'id': not valid JSON at column 20: invalid number '01' (leading zero)");
  // Zero itself, fractions of zero and exponents with zeros are fine.
  for (const char* ok :
       {"{\"id\":0}", "{\"id\":-0}", "{\"d\":0.5}", "{\"d\":-0.05}", "{\"d\":1e05}", "{\"d\":0e5}",
        "{\"dec\":0.10}", "{\"s\":\"\\u00e9\",\"id\":0}", "{\"dec\":\"01.5\"}"}) {
    EXPECT_EQ(Error(ok), "") << ok;
  }
}

TEST(JsonlSyntaxErrors, TheLocatorHandlesAnyDepthAndEveryRule) {
  std::string deep = std::string(200000, '[') + std::string(200000, ']');
  EXPECT_FALSE(internal::FindJsonSyntaxError(deep));
  auto open = internal::FindJsonSyntaxError(std::string(200000, '['));
  ASSERT_TRUE(open);
  EXPECT_EQ(open->what, "the line ends inside an array");
  auto esc = internal::FindJsonSyntaxError(R"({"a":"\q"})");
  ASSERT_TRUE(esc);
  EXPECT_EQ(esc->offset, 6u);
  EXPECT_FALSE(internal::FindJsonSyntaxError(
      R"( {"a":[1,-2.5e+3,"x\"\u00e9",true,false,null,{}],"b":{}} )"));
  EXPECT_TRUE(internal::FindJsonSyntaxError("{\"a\":1,}"));
  EXPECT_TRUE(internal::FindJsonSyntaxError("[1,]"));
  EXPECT_TRUE(internal::FindJsonSyntaxError("1."));
  EXPECT_TRUE(internal::FindJsonSyntaxError("-"));
  EXPECT_TRUE(internal::FindJsonSyntaxError(""));
}

}  // namespace jsonl_syntax_errors_test
}  // namespace floe::format
