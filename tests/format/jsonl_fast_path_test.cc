// The JSONL decoder's fast path (jsonl_fast_path_internal.h): for every line
// shape it accepts, that it was taken (the fast-line counter moves), that the
// values are the expected ones, and that they are bit-identical to the
// simdjson path's; for every shape it must refuse, that the line fell back
// and gives the same rows or the same error message as with the fast path off.
#include "floe/format/jsonl_fast_path_internal.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "floe/format/jsonl_reader.h"
#include "format/decode_test_util.h"
#include "testing/matchers.h"

namespace floe::format {
namespace jsonl_fast_path_test {

/// What one decode gave: rows in canonical JSON (or the error), the raw
/// batches, and how many lines the fast path decoded.
struct Decoded {
  std::string text;  ///< rows, one per line, or "error: <message>"
  std::vector<Batch> batches;
  int64_t fast_lines = 0;
};

Decoded Decode(std::string_view sql, const std::string& input, bool fast, DecodeOptions opt = {}) {
  internal::SetJsonlFastPathEnabled(fast);
  auto reader = JsonlReader::FromString(MakeSchema(sql), input, opt);
  internal::SetJsonlFastPathEnabled(true);
  Decoded out;
  if (!reader) {
    out.text = "error: " + reader.error().message;
    return out;
  }
  const int64_t before = internal::JsonlFastPathLines();
  while (true) {
    Batch batch;
    auto more = (*reader)->Next(&batch);
    if (!more) {
      out.text += "error: " + more.error().message;
      break;
    }
    if (!*more) break;
    EXPECT_OK(batch.Validate());
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      AppendJsonRow(batch, r, &out.text);
      out.text += '\n';
    }
    out.batches.push_back(std::move(batch));
  }
  out.fast_lines = internal::JsonlFastPathLines() - before;
  return out;
}

/// Every buffer of two columns is the same (bit-identical doubles, nulls).
void ExpectSameColumn(const ColumnVector& a, const ColumnVector& b, const std::string& where) {
  ASSERT_EQ(a.length, b.length) << where;
  EXPECT_EQ(a.validity, b.validity) << where;
  EXPECT_EQ(a.offsets, b.offsets) << where;
  ASSERT_EQ(a.values.size(), b.values.size()) << where;
  if (a.values.size()) {
    EXPECT_EQ(std::memcmp(a.values.data(), b.values.data(), a.values.size()), 0) << where;
  }
  ASSERT_EQ(a.children.size(), b.children.size()) << where;
  for (size_t i = 0; i < a.children.size(); ++i)
    ExpectSameColumn(a.children[i], b.children[i], where);
}

/// Decodes `line` as the second line of an input after a blank one (line 1
/// never takes the fast path: it may carry a byte order mark) with the fast
/// path on and off. Checks that the fast path took the line or not as `fast`, that both
/// runs agree exactly, and returns what the line gave: its row or its error.
std::string Line(std::string_view sql, const std::string& line, bool fast, DecodeOptions opt = {}) {
  const std::string input = "\n" + line + "\n";
  Decoded on = Decode(sql, input, true, opt);
  Decoded off = Decode(sql, input, false, opt);
  EXPECT_EQ(on.fast_lines, fast ? 1 : 0) << "line: " << line;
  EXPECT_EQ(off.fast_lines, 0);
  EXPECT_EQ(on.text, off.text) << "line: " << line;
  EXPECT_EQ(on.batches.size(), off.batches.size());
  for (size_t b = 0; b < std::min(on.batches.size(), off.batches.size()); ++b) {
    const Batch& x = on.batches[b];
    const Batch& y = off.batches[b];
    EXPECT_EQ(x.num_rows, y.num_rows);
    for (size_t c = 0; c < std::min(x.columns.size(), y.columns.size()); ++c) {
      ExpectSameColumn(x.columns[c], y.columns[c], "line: " + line);
    }
  }
  return on.text;
}

constexpr const char* kBench =
    "id BIGINT, user_id BIGINT, amount DOUBLE, qty INT, name STRING, ts TIMESTAMP, flag BOOLEAN";

TEST(JsonlFastPath, TheBenchmarkRow) {
  EXPECT_EQ(
      Line(
          kBench,
          R"({"id":1,"user_id":358352,"amount":189.82,"qty":92,"name":"name_3146xxxxxxxxxx","ts":"2026-01-01T00:00:00.000001","flag":false})",
          true),
      R"({"id":1,"user_id":358352,"amount":189.82,"qty":92,"name":"name_3146xxxxxxxxxx","ts":"2026-01-01T00:00:00.000001","flag":false})"
      "\n");
}

TEST(JsonlFastPath, KeysInAnyOrderWhitespaceMissingKeysAndNulls) {
  // Whitespace wherever JSON allows it (a '\r' before the newline included).
  EXPECT_EQ(
      Line(kBench, " \t{ \"flag\" :true , \"qty\"\t:\t-7,\"id\": null ,\"name\" : \"\" } \r", true),
      R"({"id":null,"user_id":null,"amount":null,"qty":-7,"name":"","ts":null,"flag":true})"
      "\n");
  EXPECT_EQ(
      Line(kBench, "{}", true),
      R"({"id":null,"user_id":null,"amount":null,"qty":null,"name":null,"ts":null,"flag":null})"
      "\n");
  EXPECT_EQ(
      Line(kBench, "{ }", true),
      R"({"id":null,"user_id":null,"amount":null,"qty":null,"name":null,"ts":null,"flag":null})"
      "\n");
  // A nested column may be null or absent; NOT NULL columns present.
  EXPECT_EQ(Line("id BIGINT NOT NULL, loc STRUCT<lat DOUBLE>, tags ARRAY<INT>, m MAP<STRING, INT>",
                 R"({"id": 5, "loc": null, "m": null})", true),
            R"({"id":5,"loc":null,"tags":null,"m":null})"
            "\n");
}

TEST(JsonlFastPath, KeyNames) {
  // Longer than the 16 bytes compared at once, non-ASCII, a prefix of another.
  const char* sql = "`a_column_name_longer_than_16` INT, `\xc3\xa9t\xc3\xa9` INT, ab INT, a INT";
  EXPECT_EQ(
      Line(sql,
           "{\"a_column_name_longer_than_16\": 1, \"\xc3\xa9t\xc3\xa9\": 2, \"ab\": 3, \"a\": 4}",
           true),
      "{\"a_column_name_longer_than_16\":1,\"\xc3\xa9t\xc3\xa9\":2,\"ab\":3,\"a\":4}\n");
  EXPECT_EQ(
      Line(sql,
           "{\"a\": 4, \"ab\": 3, \"\xc3\xa9t\xc3\xa9\": 2, \"a_column_name_longer_than_16\": 1}",
           true),
      "{\"a_column_name_longer_than_16\":1,\"\xc3\xa9t\xc3\xa9\":2,\"ab\":3,\"a\":4}\n");
  // A key that only starts like a column's name is another (unknown) key.
  EXPECT_EQ(Line(sql, R"({"a_column_name_longer_than_1": 1})", false),
            "error: line 2: unknown column 'a_column_name_longer_than_1'");
  EXPECT_EQ(Line(sql, R"({"a_column_name_longer_than_16x": 1})", false),
            "error: line 2: unknown column 'a_column_name_longer_than_16x'");
  EXPECT_EQ(Line(sql, R"({"abc": 1})", false), "error: line 2: unknown column 'abc'");
}

TEST(JsonlFastPath, Integers) {
  const char* sql = "i INT, l BIGINT";
  EXPECT_EQ(Line(sql, R"({"i": -2147483648, "l": -9223372036854775808})", true),
            "{\"i\":-2147483648,\"l\":-9223372036854775808}\n");
  EXPECT_EQ(Line(sql, R"({"i": 2147483647, "l": 9223372036854775807})", true),
            "{\"i\":2147483647,\"l\":9223372036854775807}\n");
  EXPECT_EQ(Line(sql, R"({"i": -0, "l": 0})", true), "{\"i\":0,\"l\":0}\n");
  EXPECT_EQ(Line(sql, R"({"i": 1000000000, "l": 1234567890123456789})", true),
            "{\"i\":1000000000,\"l\":1234567890123456789}\n");
  // Out of range, not integers, not JSON numbers: the simdjson path decides.
  EXPECT_EQ(Line(sql, R"({"i": 2147483648})", false),
            "error: line 2, column 'i': value 2147483648 overflows INT");
  EXPECT_EQ(Line(sql, R"({"i": -2147483649})", false),
            "error: line 2, column 'i': value -2147483649 overflows INT");
  EXPECT_EQ(Line(sql, R"({"l": 9223372036854775808})", false),
            "error: line 2, column 'l': value 9223372036854775808 overflows BIGINT");
  EXPECT_EQ(Line(sql, R"({"l": -9223372036854775809})", false),
            "error: line 2, column 'l': value -9223372036854775809 overflows BIGINT");
  EXPECT_EQ(Line(sql, R"({"l": 18446744073709551616})", false),
            "error: line 2, column 'l': value 18446744073709551616 overflows BIGINT");
  EXPECT_EQ(Line(sql, R"({"l": 99999999999999999999})", false),
            "error: line 2, column 'l': value 99999999999999999999 overflows BIGINT");
  EXPECT_EQ(Line(sql, R"({"i": 1.0})", false),
            "error: line 2, column 'i': value '1.0' is not an integer (INT)");
  EXPECT_EQ(Line(sql, R"({"i": 1e3})", false),
            "error: line 2, column 'i': value '1e3' is not an integer (INT)");
  EXPECT_EQ(Line(sql, R"({"i": "5"})", false),
            "error: line 2, column 'i': expected an integer for INT, found a string \"5\"");
  EXPECT_EQ(Line(sql, R"({"i": true})", false),
            "error: line 2, column 'i': expected an integer for INT, found a boolean true");
  // Not JSON numbers: leading zeros, '+', a bare '-', a dangling point.
  for (const char* bad : {"01", "+1", "-", "1.", ".5", "1e", "1e+", "--1", "0x10", "1_0"}) {
    Line(sql, std::string(R"({"l": )") + bad + "}", false);
  }
}

TEST(JsonlFastPath, Doubles) {
  const char* sql = "d DOUBLE";
  struct {
    const char* json;
    const char* printed;
  } cases[] = {
      {"0.1", "0.1"},
      {"-0.0", "-0"},
      {"-0", "-0"},
      {"189.82", "189.82"},
      {"1E+2", "100"},
      {"1e22", "1e+22"},
      {"1e23", "1e+23"},                         // beyond the exact powers of ten: from_chars
      {"9007199254740993", "9007199254740992"},  // 2^53 + 1: rounds to even
      {"123456789012345678901234", "1.2345678901234569e+23"},
      {"1.7976931348623157e308", "1.7976931348623157e+308"},
      {"5e-324", "5e-324"},
      {"2.2250738585072011e-308", "2.225073858507201e-308"},
      {"0.30000000000000004", "0.30000000000000004"},
      {"3.14159265358979323846264338327950288", "3.141592653589793"},
      {"\"1.5\"", "1.5"},
      {"\"NaN\"", "\"NaN\""},
      {"\"-Infinity\"", "\"-Infinity\""},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Line(sql, std::string(R"({"d": )") + c.json + "}", true),
              std::string("{\"d\":") + c.printed + "}\n")
        << c.json;
  }
  // Overflow, underflow to zero and malformed: the simdjson path.
  EXPECT_EQ(Line(sql, R"({"d": 1e400})", false),
            "error: line 2, column 'd': value 1e400 overflows DOUBLE");
  EXPECT_EQ(Line(sql, R"({"d": -1e-400})", false), "{\"d\":-0}\n");
  EXPECT_EQ(Line(sql, R"({"d": "x"})", false),
            "error: line 2, column 'd': value 'x' is not a number (DOUBLE)");
  EXPECT_EQ(Line(sql, R"({"d": [1]})", false),
            "error: line 2, column 'd': expected a number for DOUBLE, found an array");
}

TEST(JsonlFastPath, ManyDoublesBitIdentical) {
  // Decimal spellings of every shape the exact (Clinger) path and the
  // from_chars path take, all in one input: each must give the same bits as
  // simdjson's parser.
  std::string in = "\n";
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  int rows = 0;
  for (int i = 0; i < 20000; ++i) {
    h ^= h << 13;
    h ^= h >> 7;
    h ^= h << 17;
    const int digits = 1 + static_cast<int>(h % 19);
    std::string m =
        std::to_string(h % 10000000000000000000ULL).substr(0, static_cast<size_t>(digits));
    std::string num = (h & 1 ? "-" : "") + m;
    const int point = static_cast<int>((h >> 8) % (m.size() + 1));
    if (point > 0 && point < static_cast<int>(m.size()))
      num.insert(num.size() - m.size() + point, ".");
    if (h & 2) num += "e" + std::to_string(static_cast<int>((h >> 16) % 61) - 30);
    in += "{\"d\": " + num + "}\n";
    ++rows;
  }
  for (int k = 0; k < 3000; ++k) {  // prices like the benchmark's
    in += "{\"d\": " + std::to_string(k / 100) + "." + std::to_string(k % 100 / 10) +
          std::to_string(k % 10) + "}\n";
    ++rows;
  }
  in += "{\"d\": 0.3}\n";
  ++rows;
  Decoded on = Decode("d DOUBLE", in, true);
  Decoded off = Decode("d DOUBLE", in, false);
  EXPECT_EQ(on.fast_lines, rows);
  EXPECT_EQ(on.text, off.text);
  ASSERT_EQ(on.batches.size(), off.batches.size());
  for (size_t b = 0; b < on.batches.size(); ++b) {
    ExpectSameColumn(on.batches[b].columns[0], off.batches[b].columns[0],
                     "batch " + std::to_string(b));
  }
  EXPECT_TRUE(on.text.ends_with("{\"d\":0.3}\n"));
}

TEST(JsonlFastPath, FloatsDecimalsAndBooleans) {
  EXPECT_EQ(
      Line("f FLOAT, dec DECIMAL(9,2), big DECIMAL(38,10), b BOOLEAN",
           R"({"f": 16777217, "dec": 1.2e3, "big": "-12345678901234567890.0123456789", "b": true})",
           true),
      "{\"f\":16777216,\"dec\":\"1200.00\",\"big\":\"-12345678901234567890.0123456789\",\"b\":true}"
      "\n");
  EXPECT_EQ(Line("f FLOAT, dec DECIMAL(9,2), b BOOLEAN",
                 R"({"f": "Infinity", "dec": "-0.010", "b": false})", true),
            "{\"f\":\"Infinity\",\"dec\":\"-0.01\",\"b\":false}\n");
  EXPECT_EQ(Line("f FLOAT", R"({"f": 1e39})", false),
            "error: line 2, column 'f': value 1e39 overflows FLOAT");
  EXPECT_EQ(Line("dec DECIMAL(5,2)", R"({"dec": 1234.5})", false),
            "error: line 2, column 'dec': value '1234.5' exceeds the precision of DECIMAL(5, 2)");
  EXPECT_EQ(
      Line("b BOOLEAN", R"({"b": "true"})", false),
      "error: line 2, column 'b': expected true or false for BOOLEAN, found a string \"true\"");
  for (const char* bad : {"True", "tru", "truex", "falsy"}) {
    EXPECT_EQ(Line("b BOOLEAN", std::string(R"({"b": )") + bad + "}", false).substr(0, 41),
              "error: line 2, column 'b': not valid JSON")
        << bad;
  }
  // A token starting with 'n' must be exactly null (simdjson's type() looks
  // at the first byte only); the fast path leaves such lines to the
  // simdjson path, which checks the whole atom.
  for (const char* bad : {"nul", "nulL", "nullx", "n"}) {
    EXPECT_EQ(Line("b BOOLEAN", std::string(R"({"b": )") + bad + "}", false).substr(0, 41),
              "error: line 2, column 'b': not valid JSON")
        << bad;
  }
  EXPECT_EQ(Line("b BOOLEAN", R"({"b": null })", true), "{\"b\":null}\n");
}

TEST(JsonlFastPath, StringsAndStringForms) {
  const char* sql =
      "s STRING, dt DATE, t TIME, ts TIMESTAMP, tz TIMESTAMPTZ, tn TIMESTAMP_NS, u UUID, "
      "fx FIXED(2), bin BINARY";
  EXPECT_EQ(
      Line(
          sql,
          "{\"s\": \"h\xc3\xa9 \xf0\x9f\x8e\x89 \x7f /\", \"dt\": \"2024-02-29\", \"t\": "
          "\"07:08\", "
          "\"ts\": \"1900-01-01 00:00:00\", \"tz\": \"2024-02-29T13:45:00.5+02:00\", "
          "\"tn\": \"2262-04-11T23:47:16.854775807\", \"u\": \"F79C3E09677C4BBDA4793F349CB785E7\", "
          "\"fx\": \"0a0B\", \"bin\": \"\"}",
          true),
      "{\"s\":\"h\xc3\xa9 \xf0\x9f\x8e\x89 \x7f "
      "/\",\"dt\":\"2024-02-29\",\"t\":\"07:08:00.000000\","
      "\"ts\":\"1900-01-01T00:00:00.000000\",\"tz\":\"2024-02-29T11:45:00.500000+00:00\","
      "\"tn\":\"2262-04-11T23:47:16.854775807\",\"u\":\"f79c3e09-677c-4bbd-a479-3f349cb785e7\","
      "\"fx\":\"0a0b\",\"bin\":\"\"}\n");
  // Strings longer than the 32 bytes scanned at once, with a non-ASCII byte
  // on either side of the boundary.
  for (size_t len : {31u, 32u, 33u, 63u, 64u, 65u, 200u}) {
    for (size_t at : {size_t{0}, len / 2, len - 2}) {
      std::string text(len, 'x');
      text.replace(at, 2, "\xc3\xa9");
      EXPECT_EQ(Line("s STRING", "{\"s\": \"" + text + "\"}", true), "{\"s\":\"" + text + "\"}\n");
    }
  }
  // Escapes, control characters and bad UTF-8: the simdjson path.
  EXPECT_EQ(Line("s STRING", R"({"s": "a\nb"})", false), "{\"s\":\"a\\nb\"}\n");
  EXPECT_EQ(Line("s STRING", R"({"s": "\u00e9"})", false), "{\"s\":\"\xc3\xa9\"}\n");
  EXPECT_EQ(Line("s STRING", R"({"\u0073": "x"})", false), "{\"s\":\"x\"}\n");
  Line("s STRING", "{\"s\": \"a\tb\"}", false);
  Line("s STRING", std::string("{\"s\": \"a\0b\"}", 12), false);
  EXPECT_EQ(
      Line("s STRING", "{\"s\": \"a\xff\"}", false),
      "error: line 2, column 's': invalid UTF-8 in a string (byte 0xff at offset 8 of the line)");
  Line("s STRING", "{\"s\": \"\xc0\xaf\"}", false);      // overlong
  Line("s STRING", "{\"s\": \"\xed\xa0\x80\"}", false);  // a surrogate
  Line("s STRING", "{\"s\": \"\xe2\x82\"}", false);      // cut short
  Line("s STRING", "{\"\xff\": \"x\"}", false);          // in a key
  // Values the type rejects.
  EXPECT_EQ(Line(sql, R"({"ts": "2023-02-29T00:00:00.000000"})", false),
            "error: line 2, column 'ts': value '2023-02-29T00:00:00.000000' is not a valid "
            "TIMESTAMP (expected YYYY-MM-DDTHH:MM:SS[.ffffff])");
  EXPECT_EQ(Line(sql, R"({"ts": "2023-01-01T00:00:00Z"})", false),
            "error: line 2, column 'ts': value '2023-01-01T00:00:00Z' has a zone offset; TIMESTAMP "
            "has no time zone (use TIMESTAMPTZ)");
  EXPECT_EQ(Line(sql, R"({"ts": 5})", false),
            "error: line 2, column 'ts': expected a string for TIMESTAMP, found a number 5");
  EXPECT_EQ(Line(sql, R"({"fx": "00"})", false),
            "error: line 2, column 'fx': value '00' has 1 bytes; FIXED(2) needs exactly 2");
  EXPECT_EQ(
      Line(sql, R"({"u": "nope"})", false),
      "error: line 2, column 'u': value 'nope' is not a UUID (expected 8-4-4-4-12 hex digits)");
}

TEST(JsonlFastPath, TimestampShapes) {
  // The fixed-position timestamp parser against the general one: every
  // separator and digit position broken in turn must give the same result.
  const std::string good = "2024-02-29T13:45:59.123456";
  for (size_t i = 0; i < good.size(); ++i) {
    for (char c : {'0', '9', '/', ':', 'a', ' ', '-', '.', '\x7f'}) {
      std::string ts = good;
      ts[i] = c;
      Decoded on = Decode("ts TIMESTAMP", "{}\n{\"ts\": \"" + ts + "\"}\n", true);
      Decoded off = Decode("ts TIMESTAMP", "{}\n{\"ts\": \"" + ts + "\"}\n", false);
      EXPECT_EQ(on.text, off.text) << ts;
    }
  }
  EXPECT_EQ(Line("ts TIMESTAMP", "{\"ts\": \"2024-02-29T13:45:59.123456\"}", true),
            "{\"ts\":\"2024-02-29T13:45:59.123456\"}\n");
  EXPECT_EQ(Line("ts TIMESTAMP", "{\"ts\": \"2024-02-29 23:59:59\"}", true),
            "{\"ts\":\"2024-02-29T23:59:59.000000\"}\n");
}

TEST(JsonlFastPath, KeysTheSimdjsonPathMustJudge) {
  DecodeOptions ignore;
  ignore.ignore_unknown_keys = true;
  EXPECT_EQ(Line(kBench, R"({"id": 1, "zz": [1, {"q": 2}]})", false, ignore),
            R"({"id":1,"user_id":null,"amount":null,"qty":null,"name":null,"ts":null,"flag":null})"
            "\n");
  EXPECT_EQ(Line(kBench, R"({"id": 1, "zz": 2})", false), "error: line 2: unknown column 'zz'");
  EXPECT_EQ(Line(kBench, R"({"id": 1, "id": 2})", false),
            "error: line 2, column 'id': duplicate key");
  EXPECT_EQ(Line(kBench, R"({"qty": 1, "id": 2, "qty": 3})", false),
            "error: line 2, column 'qty': duplicate key");
  EXPECT_EQ(Line("id BIGINT NOT NULL, x INT", R"({"x": 1})", false),
            "error: line 2, column 'id': null in NOT NULL column (the key is missing)");
  EXPECT_EQ(Line("id BIGINT NOT NULL, x INT", R"({"id": null})", false),
            "error: line 2, column 'id': null in NOT NULL column");
  EXPECT_EQ(Line("id BIGINT, loc STRUCT<lat DOUBLE>", R"({"id": 1, "loc": {"lat": 2}})", false),
            "{\"id\":1,\"loc\":{\"lat\":2}}\n");
  EXPECT_EQ(Line("id BIGINT, tags ARRAY<INT>", R"({"tags": [], "id": 3})", false),
            "{\"id\":3,\"tags\":[]}\n");
}

TEST(JsonlFastPath, FallbackTakesBackTheValuesAppended) {
  // Line 3 appends a value to every primitive column before its nested value
  // sends it to the simdjson path: the fast path must take them all back
  // (with and without validity vectors, which line 2's nulls create in half
  // of the columns).
  const char* sql =
      "b BOOLEAN, i INT, l BIGINT, f FLOAT, d DOUBLE, dec DECIMAL(9,2), dt DATE, t TIME, "
      "ts TIMESTAMP, s STRING, u UUID, fx FIXED(2), bin BINARY, tags ARRAY<INT>";
  const std::string values =
      R"("b": true, "i": 1, "l": 2, "f": 1.5, "d": 2.5, "dec": 3.25, "dt": "2024-01-02", )"
      R"("t": "01:02:03", "ts": "2024-01-02T03:04:05.000006", "s": "str", )"
      R"("u": "f79c3e09-677c-4bbd-a479-3f349cb785e7", "fx": "0a0b", "bin": "ff")";
  const std::string in =
      "\n{\"b\": null, \"l\": null, \"d\": null, \"dt\": null, \"ts\": null, "
      "\"u\": null, \"bin\": null}\n{" +
      values + ", \"tags\": [7]}\n{" + values + "}\n{" + values + "}\n";
  Decoded on = Decode(sql, in, true);
  Decoded off = Decode(sql, in, false);
  EXPECT_EQ(on.fast_lines, 2);  // lines 2 and 5 (after a fallback it sits out one line)
  const std::string row =
      R"("b":true,"i":1,"l":2,"f":1.5,"d":2.5,"dec":"3.25","dt":"2024-01-02","t":"01:02:03.000000",)"
      R"("ts":"2024-01-02T03:04:05.000006","s":"str","u":"f79c3e09-677c-4bbd-a479-3f349cb785e7",)"
      R"("fx":"0a0b","bin":"ff")";
  EXPECT_EQ(
      on.text,
      R"({"b":null,"i":null,"l":null,"f":null,"d":null,"dec":null,"dt":null,"t":null,"ts":null,"s":null,"u":null,"fx":null,"bin":null,"tags":null})"
      "\n{" +
          row + ",\"tags\":[7]}\n{" + row + ",\"tags\":null}\n{" + row + ",\"tags\":null}\n");
  EXPECT_EQ(on.text, off.text);
  ASSERT_EQ(on.batches.size(), 1u);
  ASSERT_EQ(off.batches.size(), 1u);
  for (size_t c = 0; c < on.batches[0].columns.size(); ++c) {
    ExpectSameColumn(on.batches[0].columns[c], off.batches[0].columns[c],
                     "column " + std::to_string(c));
  }
}

TEST(JsonlFastPath, MalformedLines) {
  for (const char* bad :
       {R"({"id": 1,})", R"({"id": 1} x)", R"({"id": 1}})", R"({"id" 1})", R"({"id": 1 "qty": 2})",
        R"({id: 1})", R"({"id": 1)", R"([1])", "null", R"({"id": 1}{"id": 2})", R"({"id":)",
        R"({,})", "{\"id\": 1}\f", "\xef\xbb\xbf{\"id\": 1}"}) {
    std::string got = Line(kBench, bad, false);
    EXPECT_TRUE(got.starts_with("error: line 2")) << bad << " -> " << got;
  }
}

TEST(JsonlFastPath, LinesAroundTheFastPath) {
  // Line 1 (byte order mark), blank lines, CRLF and a last line without a
  // newline; rows and line numbers must match the simdjson path's.
  std::string in = "\xef\xbb\xbf{\"id\": 1}\r\n\r\n  \n{\"id\": 2}\r\n{\"id\": 3}\n\n{\"id\": 4}";
  Decoded on = Decode("id BIGINT", in, true);
  Decoded off = Decode("id BIGINT", in, false);
  EXPECT_EQ(on.text, "{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n{\"id\":4}\n");
  EXPECT_EQ(on.text, off.text);
  EXPECT_EQ(on.fast_lines, 2);  // lines 4 and 5
  // An error after fast lines names the right line.
  EXPECT_EQ(Decode("id BIGINT", "{}\n{\"id\": 1}\n\n{\"id\": 2}\n{\"id\": \"x\"}\n", true).text,
            "error: line 5, column 'id': expected an integer for BIGINT, found a string \"x\"");
}

TEST(JsonlFastPath, StreamsAcrossChunksAndBatches) {
  // Lines cut by the end of the read buffer, small batches, and runs of
  // lines the fast path refuses between runs it takes.
  std::string in;
  for (int i = 0; i < 3000; ++i) {
    if (i % 500 < 20) {
      in += "{\"id\": " + std::to_string(i) + ", \"name\": \"esc\\u0061ped\"}\n";
    } else {
      in += "{\"id\": " + std::to_string(i) + ", \"name\": \"row " + std::to_string(i) +
            "\", \"amount\": " + std::to_string(i) + ".25}\n";
    }
  }
  DecodeOptions opt;
  opt.batch_rows = 77;
  opt.chunk_bytes = 4096;
  Decoded on = Decode(kBench, in, true, opt);
  Decoded off = Decode(kBench, in, false, opt);
  EXPECT_EQ(on.text, off.text);
  EXPECT_EQ(on.text.find("error"), std::string::npos);
  EXPECT_GT(on.fast_lines, 2500);
  ASSERT_EQ(on.batches.size(), off.batches.size());
  for (size_t b = 0; b < on.batches.size(); ++b) {
    for (size_t c = 0; c < on.batches[b].columns.size(); ++c) {
      ExpectSameColumn(on.batches[b].columns[c], off.batches[b].columns[c],
                       "batch " + std::to_string(b));
    }
  }
}

}  // namespace jsonl_fast_path_test
}  // namespace floe::format
