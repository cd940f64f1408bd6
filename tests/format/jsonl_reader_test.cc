// JSONL decoder: every type in every accepted form, nulls, extremes, nesting,
// streaming in small batches, and every error rule with its exact message.
#include "floe/format/jsonl_reader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "format/decode_test_util.h"
#include "testing/matchers.h"

namespace floe::format {
namespace jsonl_reader_test {

/// Decodes `input` and prints every row in canonical JSON, one per line.
Result<std::string> RoundTrip(std::string_view sql, std::string input, DecodeOptions opt = {}) {
  FLOE_ASSIGN_OR_RETURN(auto reader, JsonlReader::FromString(MakeSchema(sql), std::move(input), opt));
  return ReadAllRows(*reader);
}

std::string ErrorOf(std::string_view sql, std::string input, DecodeOptions opt = {}) {
  auto r = RoundTrip(sql, std::move(input), opt);
  EXPECT_FALSE(r) << "no error; output: " << (r ? *r : "");
  return r ? std::string() : r.error().message;
}

std::string Ok(std::string_view sql, std::string input, DecodeOptions opt = {}) {
  auto r = RoundTrip(sql, std::move(input), opt);
  EXPECT_TRUE(r) << r.error().ToString();
  return r ? *r : std::string();
}

TEST(Jsonl, CanonicalFormsRoundTripExactly) {
  const char* sql =
      "b BOOLEAN, i INT, l BIGINT, f FLOAT, d DOUBLE, dec DECIMAL(9,2), big DECIMAL(38,0), "
      "dt DATE, t TIME, ts TIMESTAMP, tstz TIMESTAMPTZ, tsn TIMESTAMP_NS, tstzn TIMESTAMPTZ_NS, "
      "s STRING, u UUID, fx FIXED(4), bin BINARY";
  // Lines exactly as the canonical printer writes them: they must come back byte for byte.
  std::string lines =
      R"({"b":true,"i":-2147483648,"l":-9223372036854775808,"f":0.1,"d":0.1,"dec":"-1234567.89","big":"99999999999999999999999999999999999999","dt":"2017-11-16","t":"22:31:08.123456","ts":"2017-11-16T22:31:08.000001","tstz":"2017-11-16T22:31:08.000001+00:00","tsn":"2017-11-16T22:31:08.123456789","tstzn":"1969-12-31T23:59:59.999999999+00:00","s":"h\u00e9 \"q\" \\ \n","u":"f79c3e09-677c-4bbd-a479-3f349cb785e7","fx":"00010203","bin":""})"
      "\n"
      R"({"b":false,"i":2147483647,"l":9223372036854775807,"f":"NaN","d":"-Infinity","dec":"0.00","big":"-99999999999999999999999999999999999999","dt":"-000001-01-01","t":"00:00:00.000000","ts":"+010000-01-01T00:00:00.000000","tstz":"1970-01-01T00:00:00.000000+00:00","tsn":"2262-04-11T23:47:16.854775807","tstzn":"1677-09-21T00:12:43.145224192+00:00","s":"","u":"00000000-0000-0000-0000-000000000000","fx":"ffffffff","bin":"deadbeef"})"
      "\n"
      R"({"b":null,"i":null,"l":null,"f":"Infinity","d":1e+300,"dec":null,"big":null,"dt":null,"t":null,"ts":null,"tstz":null,"tsn":null,"tstzn":null,"s":null,"u":null,"fx":null,"bin":null})"
      "\n";
  std::string expected = lines;
  // JSON escapes are decoded; the printer writes raw UTF-8 for é.
  auto pos = expected.find("h\\u00e9");
  expected.replace(pos, 7, "h\xc3\xa9");
  EXPECT_EQ(Ok(sql, lines), expected);
}

TEST(Jsonl, NaturalForms) {
  EXPECT_EQ(Ok("f FLOAT, d DOUBLE, dec DECIMAL(9,2)",
               R"({"f": 16777217, "d": 5e-324, "dec": 12.3})"
               "\n"
               R"({"f": 3.4028235e38, "d": -0.0, "dec": 1.2e3})"
               "\n"
               R"({"f": 1e-50, "d": "1.5", "dec": -0.010})"
               "\n"),
            "{\"f\":16777216,\"d\":5e-324,\"dec\":\"12.30\"}\n"
            "{\"f\":3.4028235e+38,\"d\":-0,\"dec\":\"1200.00\"}\n"
            "{\"f\":0,\"d\":1.5,\"dec\":\"-0.01\"}\n");
  // Decimals are exact from their text: no rounding through a double.
  EXPECT_EQ(Ok("d DECIMAL(38,18)", R"({"d": 12345678901234567890.123456789012345678})"),
            "{\"d\":\"12345678901234567890.123456789012345678\"}\n");
  // Dates, times and timestamps: ISO-8601 with 'T' or ' ', 0-9 fraction digits, zones.
  EXPECT_EQ(Ok("ts TIMESTAMP, tz TIMESTAMPTZ, t TIME",
               R"({"ts": "2024-02-29 13:45", "tz": "2024-02-29T13:45:00.5+02:00", "t": "07:08"})"
               "\n"
               R"({"ts": "2024-02-29", "tz": "2024-02-29T13:45:00.123Z", "t": "07:08:09.1"})"
               "\n"
               R"({"ts": "2024-02-29T01:02:03.123456000", "tz": "2024-02-29 13:45:00-0130", "t": "23:59:59.999999"})"
               "\n"
               R"({"ts": "1900-01-01T00:00:00", "tz": "2024-02-29T13:45", "t": "00:00:00.000001000"})"
               "\n"),
            "{\"ts\":\"2024-02-29T13:45:00.000000\",\"tz\":\"2024-02-29T11:45:00.500000+00:00\",\"t\":\"07:08:00.000000\"}\n"
            "{\"ts\":\"2024-02-29T00:00:00.000000\",\"tz\":\"2024-02-29T13:45:00.123000+00:00\",\"t\":\"07:08:09.100000\"}\n"
            "{\"ts\":\"2024-02-29T01:02:03.123456\",\"tz\":\"2024-02-29T15:15:00.000000+00:00\",\"t\":\"23:59:59.999999\"}\n"
            "{\"ts\":\"1900-01-01T00:00:00.000000\",\"tz\":\"2024-02-29T13:45:00.000000+00:00\",\"t\":\"00:00:00.000001\"}\n");
  // uuid without dashes and upper-case hex; binary upper-case hex.
  EXPECT_EQ(Ok("u UUID, b BINARY", R"({"u": "F79C3E09677C4BBDA4793F349CB785E7", "b": "DEADbeef"})"),
            "{\"u\":\"f79c3e09-677c-4bbd-a479-3f349cb785e7\",\"b\":\"deadbeef\"}\n");
}

TEST(Jsonl, MissingKeysNullsKeyOrderAndBlankLines) {
  EXPECT_EQ(Ok("a INT, b STRING, c DOUBLE",
               "{\"c\": 1.5, \"a\": 1}\r\n\n   \n{}\n{\"b\":\"x\",\"a\":null}"),
            "{\"a\":1,\"b\":null,\"c\":1.5}\n"
            "{\"a\":null,\"b\":null,\"c\":null}\n"
            "{\"a\":null,\"b\":\"x\",\"c\":null}\n");
}

TEST(Jsonl, NestedTypes) {
  const char* sql =
      "tags ARRAY<STRING>, loc STRUCT<lat DOUBLE, lon DOUBLE>, m MAP<STRING, INT>, "
      "mi MAP<INT, ARRAY<STRUCT<x INT NOT NULL>>>, deep ARRAY<ARRAY<ARRAY<MAP<STRING, "
      "STRUCT<a ARRAY<INT>>>>>>";
  std::string in =
      R"({"tags": ["a", null, ""], "loc": {"lon": 2.5, "lat": -1}, "m": {"k": 1, "z": null}, "mi": {"keys": [3, 4], "values": [[{"x": 1}], null]}, "deep": [[[{"q": {"a": [1, null]}}]], []]})"
      "\n"
      R"({"tags": [], "loc": {}, "m": {"keys": ["a"], "values": [7]}, "mi": {"keys": [], "values": []}, "deep": null})"
      "\n"
      R"({"tags": null, "loc": null, "m": {}, "mi": null, "deep": [null, [null, []]]})"
      "\n";
  EXPECT_EQ(Ok(sql, in),
            R"({"tags":["a",null,""],"loc":{"lat":-1,"lon":2.5},"m":{"keys":["k","z"],"values":[1,null]},"mi":{"keys":[3,4],"values":[[{"x":1}],null]},"deep":[[[{"keys":["q"],"values":[{"a":[1,null]}]}]],[]]})"
            "\n"
            R"({"tags":[],"loc":{"lat":null,"lon":null},"m":{"keys":["a"],"values":[7]},"mi":{"keys":[],"values":[]},"deep":null})"
            "\n"
            R"({"tags":null,"loc":null,"m":{"keys":[],"values":[]},"mi":null,"deep":[null,[null,[]]]})"
            "\n");
}

TEST(Jsonl, LargeStringsAndNonAscii) {
  std::string big(1 << 20, 'x');
  big[12345] = '\xc3';
  big[12346] = '\xa9';
  std::string in = "{\"s\": \"" + big + "\", \"t\": \"\\ud83c\\udf89 \xe6\x97\xa5\"}\n";
  std::string out = Ok("s STRING, t STRING", in);
  EXPECT_EQ(out, "{\"s\":\"" + big + "\",\"t\":\"\xf0\x9f\x8e\x89 \xe6\x97\xa5\"}\n");
}

TEST(Jsonl, EscapesAtEveryPosition) {
  // The decoder takes escape-free strings straight from the input and scans
  // 8 bytes at a time for backslashes: check every position and length.
  std::string in, expected;
  for (int len = 0; len < 20; ++len) {
    for (int at = 0; at <= len; ++at) {
      std::string text(len, 'a'), json = text;
      if (at < len) {
        json.replace(at, 1, "\\n");
        text[at] = '\n';
      }
      in += "{\"s\":\"" + json + "\"}\n";
      std::string printed;
      AppendJsonString(text, &printed);
      expected += "{\"s\":" + printed + "}\n";
    }
  }
  EXPECT_EQ(Ok("s STRING", in), expected);
}

TEST(Jsonl, StreamsInBatchesAcrossSmallChunks) {
  std::string in;
  for (int i = 0; i < 1000; ++i) in += "{\"id\": " + std::to_string(i) + ", \"s\": \"row " + std::to_string(i) + "\"}\n";
  DecodeOptions opt;
  opt.batch_rows = 64;
  auto reader = JsonlReader::FromString(MakeSchema("id BIGINT NOT NULL, s STRING"), in, opt);
  ASSERT_OK(reader);
  Batch batch;
  int64_t expect = 0, batches = 0;
  while (true) {
    auto more = (*reader)->Next(&batch);
    ASSERT_TRUE(more) << more.error().ToString();
    if (!*more) break;
    ++batches;
    EXPECT_LE(batch.num_rows, 64);
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      EXPECT_EQ(batch.columns[0].data<int64_t>()[r], expect);
      EXPECT_EQ(batch.columns[1].bytes(r), "row " + std::to_string(expect));
      ++expect;
    }
  }
  EXPECT_EQ(expect, 1000);
  EXPECT_EQ(batches, 16);
  EXPECT_EQ((*reader)->rows_read(), 1000);

  // A file read with a tiny chunk size: lines straddle chunk boundaries.
  std::string path = testing::TempDir() + "jsonl_chunks.jsonl";
  {
    std::ofstream f(path, std::ios::binary);
    f << in;
  }
  opt.chunk_bytes = 100;
  auto fr = JsonlReader::Open(MakeSchema("id BIGINT NOT NULL, s STRING"), path, opt);
  ASSERT_OK(fr);
  int64_t total = 0;
  while (true) {
    auto more = (*fr)->Next(&batch);
    ASSERT_TRUE(more) << more.error().ToString();
    if (!*more) break;
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      ASSERT_EQ(batch.columns[0].data<int64_t>()[r], total);
      ++total;
    }
  }
  EXPECT_EQ(total, 1000);
}

TEST(Jsonl, ErrorsNameLineColumnAndRule) {
  EXPECT_EQ(ErrorOf("qty INT", "{\"qty\": 1}\n\n{\"qty\": 3000000000}\n"),
            "line 3, column 'qty': value 3000000000 overflows INT");
  EXPECT_EQ(ErrorOf("n BIGINT", "{\"n\": 9223372036854775808}"),
            "line 1, column 'n': value 9223372036854775808 overflows BIGINT");
  EXPECT_EQ(ErrorOf("n BIGINT", "{\"n\": -9223372036854775809}"),
            "line 1, column 'n': value -9223372036854775809 overflows BIGINT");
  EXPECT_EQ(ErrorOf("n INT", "{\"n\": 1.5}"), "line 1, column 'n': value '1.5' is not an integer (INT)");
  EXPECT_EQ(ErrorOf("n INT", "{\"n\": \"5\"}"),
            "line 1, column 'n': expected an integer for INT, found a string \"5\"");
  EXPECT_EQ(ErrorOf("loc STRUCT<lat DOUBLE>", "{\"loc\": {\"lat\": \"north\"}}"),
            "line 1, column 'loc.lat': value 'north' is not a number (DOUBLE)");
  EXPECT_EQ(ErrorOf("b BOOLEAN", "{\"b\": 1}"),
            "line 1, column 'b': expected true or false for BOOLEAN, found a number 1");
  EXPECT_EQ(ErrorOf("d DOUBLE", "{\"d\": 1e400}"), "line 1, column 'd': value 1e400 overflows DOUBLE");
  EXPECT_EQ(ErrorOf("f FLOAT", "{\"f\": 1e39}"), "line 1, column 'f': value 1e39 overflows FLOAT");
  EXPECT_EQ(ErrorOf("d DECIMAL(5,2)", "{\"d\": 1234.5}"),
            "line 1, column 'd': value '1234.5' exceeds the precision of DECIMAL(5, 2)");
  EXPECT_EQ(ErrorOf("d DECIMAL(5,2)", "{\"d\": \"1.234\"}"),
            "line 1, column 'd': value '1.234' has more than 2 fraction digits (DECIMAL(5, 2))");
  EXPECT_EQ(ErrorOf("id BIGINT NOT NULL", "{\"id\": 1}\n{\"id\": null}"),
            "line 2, column 'id': null in NOT NULL column");
  EXPECT_EQ(ErrorOf("id BIGINT NOT NULL, x INT", "{\"x\": 1}"),
            "line 1, column 'id': null in NOT NULL column (the key is missing)");
  EXPECT_EQ(ErrorOf("t ARRAY<INT NOT NULL>", "{\"t\": [1, null]}"),
            "line 1, column 't.element': null in NOT NULL column");
  EXPECT_EQ(ErrorOf("m MAP<STRING, INT>", "{\"m\": {\"a\": \"x\"}}"),
            "line 1, column 'm.value': expected an integer for INT, found a string \"x\"");
  EXPECT_EQ(ErrorOf("m MAP<INT, INT>", "{\"m\": {\"keys\": [1, null], \"values\": [1, 2]}}"),
            "line 1, column 'm.key': null in NOT NULL column");
  EXPECT_EQ(ErrorOf("m MAP<INT, INT>", "{\"m\": {\"keys\": [1, 2], \"values\": [1]}}"),
            "line 1, column 'm': map has 2 keys and 1 values");
  EXPECT_EQ(ErrorOf("m MAP<INT, INT>", "{\"m\": {\"1\": 2}}"),
            "line 1, column 'm': a MAP<INT, INT> needs the form {\"keys\":[...],\"values\":[...]} "
            "(object keys are strings)");
  EXPECT_EQ(ErrorOf("a INT", "{\"a\": 1}\n{\"a\": 2, \"b\": 3}"), "line 2: unknown column 'b'");
  EXPECT_EQ(ErrorOf("s STRUCT<x INT>", "{\"s\": {\"y\": 1}}"),
            "line 1, column 's': unknown field 'y' in STRUCT<x INT>");
  EXPECT_EQ(ErrorOf("a INT", "{\"a\": 1, \"a\": 2}"), "line 1, column 'a': duplicate key");
  EXPECT_EQ(ErrorOf("a INT", "{\"a\": 1}\n{\"a\": 1,}"),
            "line 2: not valid JSON at column 9: expected a quoted key, found '}'");
  EXPECT_EQ(ErrorOf("a INT", "{\"a\": 1} {\"a\": 2}"),
            "line 1: not valid JSON at column 10: trailing content after the JSON value");
  EXPECT_EQ(ErrorOf("a INT", "[1]"), "line 1: expected a JSON object, found an array");
  EXPECT_EQ(ErrorOf("s STRING, t STRING", "{\"s\": \"ok\", \"t\": \"a\xff\"}"),
            "line 1, column 't': invalid UTF-8 in a string (byte 0xff at offset 19 of the line)");
  EXPECT_EQ(ErrorOf("d DATE", "{\"d\": \"2023-02-29\"}"),
            "line 1, column 'd': value '2023-02-29' is not a valid DATE (expected YYYY-MM-DD)");
  EXPECT_EQ(ErrorOf("t TIMESTAMP", "{\"t\": \"2023-01-01T00:00:00Z\"}"),
            "line 1, column 't': value '2023-01-01T00:00:00Z' has a zone offset; TIMESTAMP has "
            "no time zone (use TIMESTAMPTZ)");
  EXPECT_EQ(ErrorOf("t TIMESTAMP", "{\"t\": \"2023-01-01T00:00:00.1234567\"}"),
            "line 1, column 't': value '2023-01-01T00:00:00.1234567' has more precision than "
            "TIMESTAMP (microseconds)");
  EXPECT_EQ(ErrorOf("t TIMESTAMP_NS", "{\"t\": \"2263-01-01T00:00:00\"}"),
            "line 1, column 't': value '2263-01-01T00:00:00' is out of range for TIMESTAMP_NS");
  EXPECT_EQ(ErrorOf("t TIMESTAMP", "{\"t\": \"2023-02-29T00:00:00.000000\"}"),
            "line 1, column 't': value '2023-02-29T00:00:00.000000' is not a valid TIMESTAMP "
            "(expected YYYY-MM-DDTHH:MM:SS[.ffffff])");
  EXPECT_EQ(ErrorOf("t TIMESTAMP", "{\"t\": \"2023-01-01T24:00:00\"}"),
            "line 1, column 't': value '2023-01-01T24:00:00' is not a valid TIMESTAMP "
            "(expected YYYY-MM-DDTHH:MM:SS[.ffffff])");
  EXPECT_EQ(Ok("t TIMESTAMP_NS", "{\"t\": \"2017-11-16T22:31:08.123456\"}"),
            "{\"t\":\"2017-11-16T22:31:08.123456000\"}\n");
  EXPECT_EQ(ErrorOf("u UUID", "{\"u\": \"not-a-uuid\"}"),
            "line 1, column 'u': value 'not-a-uuid' is not a UUID (expected 8-4-4-4-12 hex digits)");
  EXPECT_EQ(ErrorOf("f FIXED(2)", "{\"f\": \"00\"}"),
            "line 1, column 'f': value '00' has 1 bytes; FIXED(2) needs exactly 2");
  EXPECT_EQ(ErrorOf("b BINARY", "{\"b\": \"0g\"}"),
            "line 1, column 'b': value '0g' is not hex bytes (bad digit at position 2)");
  EXPECT_EQ(ErrorOf("l ARRAY<INT>", "{\"l\": {\"a\": 1}}"),
            "line 1, column 'l': expected an array for ARRAY<INT>, found an object");
}

TEST(Jsonl, DeepNestingAndLongLinesFromAFile) {
  std::string sql = "x ";
  std::string value, expected;
  for (int i = 0; i < 40; ++i) {
    sql += "ARRAY<";
    value += "[";
  }
  sql += "INT";
  value += "7";
  for (int i = 0; i < 40; ++i) {
    sql += ">";
    value += "]";
  }
  EXPECT_EQ(Ok(sql, "{\"x\": " + value + "}\n"), "{\"x\":" + value + "}\n");
  // Nesting deeper than simdjson's document limit inside an ignored key is
  // skipped; unbalanced, it is malformed.
  DecodeOptions opt;
  opt.ignore_unknown_keys = true;
  std::string deep = std::string(3000, '[') + std::string(3000, ']');
  EXPECT_EQ(Ok("a INT", "{\"a\": 1, \"z\": " + deep + "}\n", opt), "{\"a\":1}\n");
  EXPECT_EQ(ErrorOf("a INT", "{\"a\": 1, \"z\": " + deep.substr(1) + "}\n", opt).substr(0, 22),
            "line 1: not valid JSON");
  EXPECT_EQ(ErrorOf("a INT", "null"), "line 1: expected a JSON object, found null");
  EXPECT_EQ(Ok("a INT", "\xef\xbb\xbf{\"a\": 5}\n"), "{\"a\":5}\n");  // a UTF-8 byte order mark

  // A 3 MB line read through a 4 KiB chunk: the buffer grows to hold it.
  std::string big(3 << 20, 'y');
  std::string path = testing::TempDir() + "jsonl_long.jsonl";
  {
    std::ofstream f(path, std::ios::binary);
    f << "{\"s\": \"a\"}\n{\"s\": \"" << big << "\"}\n{\"s\": \"b\"}";
  }
  opt = {};
  opt.chunk_bytes = 4096;
  auto reader = JsonlReader::Open(MakeSchema("s STRING"), path, opt);
  ASSERT_OK(reader);
  Batch batch;
  auto more = (*reader)->Next(&batch);
  ASSERT_TRUE(more && *more) << (more ? "" : more.error().ToString());
  ASSERT_EQ(batch.num_rows, 3);
  EXPECT_EQ(batch.columns[0].bytes(0), "a");
  EXPECT_EQ(batch.columns[0].bytes(1), big);
  EXPECT_EQ(batch.columns[0].bytes(2), "b");
}

TEST(Jsonl, IgnoreUnknownKeysOption) {
  DecodeOptions opt;
  opt.ignore_unknown_keys = true;
  EXPECT_EQ(Ok("a INT, s STRUCT<x INT>",
               "{\"a\": 1, \"zz\": [1, {\"q\": 2}], \"s\": {\"x\": 2, \"y\": 3}}", opt),
            "{\"a\":1,\"s\":{\"x\":2}}\n");
}

TEST(Jsonl, ErrorStopsTheReader) {
  auto reader = JsonlReader::FromString(MakeSchema("a INT"), "{\"a\": \"x\"}\n{\"a\": 1}\n");
  ASSERT_OK(reader);
  Batch batch;
  auto r1 = (*reader)->Next(&batch);
  ASSERT_FALSE(r1);
  auto r2 = (*reader)->Next(&batch);
  ASSERT_FALSE(r2);
  EXPECT_EQ(r1.error().message, r2.error().message);
}

TEST(Jsonl, MissingFileIsNotFound) {
  auto r = JsonlReader::Open(MakeSchema("a INT"), "/nonexistent/x.jsonl");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kNotFound);
  EXPECT_EQ(r.error().message, "input file '/nonexistent/x.jsonl' does not exist");
}

}  // namespace jsonl_reader_test
}  // namespace floe::format
