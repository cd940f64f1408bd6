// Input positions and per-row rejects of the JSONL and CSV decoders: which
// line each row came from (off unless asked for), every row-level error
// passed to the reject callback with its line, raw text and the message it
// would have raised, the half-decoded row taken out of every column (nested
// ones too), the fast path and the simdjson path agreeing in reject mode, and
// the errors that stop a decoder whatever the callback.
#include <gtest/gtest.h>

#include <cstring>

#include "floe/format/csv_reader.h"
#include "floe/format/jsonl_fast_path_internal.h"
#include "floe/format/jsonl_reader.h"
#include "format/decode_test_util.h"
#include "testing/matchers.h"

namespace floe::format {
namespace jsonl_reject_test {

/// Rows (with positions when asked for) and rejects of one decode.
struct Outcome {
  std::string rows;  ///< ReadAllRowsWithPositions, or "error: <message>"
  std::vector<RejectedRow> rejected;
};

template <typename Reader>
Outcome Run(std::string_view sql, std::string input, DecodeOptions opt, bool collect = true) {
  Outcome out;
  if (collect) opt.reject = CollectRejects(&out.rejected);
  auto reader = Reader::FromString(MakeSchema(sql), std::move(input), opt);
  if (!reader) {
    out.rows = "error: " + reader.error().message;
    return out;
  }
  auto rows = ReadAllRowsWithPositions(**reader);
  out.rows = rows ? *rows : "error: " + rows.error().message;
  return out;
}

Outcome Jsonl(std::string_view sql, std::string input, DecodeOptions opt = {}, bool collect = true) {
  return Run<JsonlReader>(sql, std::move(input), std::move(opt), collect);
}
Outcome Csv(std::string_view sql, std::string input, DecodeOptions opt = {}, bool collect = true) {
  return Run<CsvReader>(sql, std::move(input), std::move(opt), collect);
}

DecodeOptions WithPositions() {
  DecodeOptions opt;
  opt.with_positions = true;
  return opt;
}

TEST(InputPositions, JsonlLinesOnBothPathsAndAcrossBatches) {
  // Blank lines count; line 1 and the nested value take the simdjson path,
  // the others the fast path.
  const std::string input =
      "{\"a\": 1}\n\n{\"a\": 2}\n   \n{\"a\": 3, \"l\": [1]}\r\n{\"a\": 4}";
  DecodeOptions opt = WithPositions();
  opt.batch_rows = 2;
  EXPECT_EQ(Jsonl("a INT, l ARRAY<INT>", input, opt).rows,
            "{\"a\":1,\"l\":null} @1\n{\"a\":2,\"l\":null} @3\n{\"a\":3,\"l\":[1]} @5\n"
            "{\"a\":4,\"l\":null} @6\n");
  // Off by default: no positions kept.
  EXPECT_EQ(Jsonl("a INT, l ARRAY<INT>", input).rows,
            "{\"a\":1,\"l\":null}\n{\"a\":2,\"l\":null}\n{\"a\":3,\"l\":[1]}\n{\"a\":4,\"l\":null}\n");
}

TEST(InputPositions, CsvRecordsStartLines) {
  // The header is line 1; a quoted line break makes a record span two lines,
  // and the record is found at its first.
  const std::string input = "a,s\n1,x\n\n2,\"two\nlines\"\n3,y\n";
  EXPECT_EQ(Csv("a INT, s STRING", input, WithPositions()).rows,
            "{\"a\":1,\"s\":\"x\"} @2\n{\"a\":2,\"s\":\"two\\nlines\"} @4\n{\"a\":3,\"s\":\"y\"} @6\n");
  DecodeOptions opt = WithPositions();
  opt.csv_header = false;
  EXPECT_EQ(Csv("a INT, s STRING", "1,x\n2,y\n", opt).rows,
            "{\"a\":1,\"s\":\"x\"} @1\n{\"a\":2,\"s\":\"y\"} @2\n");
  EXPECT_EQ(Csv("a INT, s STRING", input).rows,
            "{\"a\":1,\"s\":\"x\"}\n{\"a\":2,\"s\":\"two\\nlines\"}\n{\"a\":3,\"s\":\"y\"}\n");
}

TEST(JsonlReject, EveryRowErrorIsPassedOnAndTheRestDecodes) {
  const char* sql = "id INT NOT NULL, qty INT, name STRING";
  const std::string input =
      "{\"id\": 1, \"qty\": 2}\n"
      "{\"id\": 2, \"qty\": 3000000000}\n"
      "{\"id\": 3, \"qty\": \"x\"}\n"
      "{\"qty\": 4}\n"
      "{\"id\": null}\n"
      "{\"id\": 6, \"foo\": 1}\n"
      "{\"id\": 7,\n"
      "[1]\n"
      "{\"id\": 9, \"name\": \"a\xff\"}\n"
      "{\"id\": 10, \"id\": 10}\n"
      "{\"id\": 11} x\n"
      "{\"id\": 12, \"name\": \"ok\"}\n";
  Outcome out = Jsonl(sql, input, WithPositions());
  EXPECT_EQ(out.rows,
            "{\"id\":1,\"qty\":2,\"name\":null} @1\n{\"id\":12,\"qty\":null,\"name\":\"ok\"} @12\n");
  EXPECT_EQ(RejectsText(out.rejected),
            "line 2: column 'qty': value 3000000000 overflows INT\n"
            "line 3: column 'qty': expected an integer for INT, found a string \"x\"\n"
            "line 4: column 'id': null in NOT NULL column (the key is missing)\n"
            "line 5: column 'id': null in NOT NULL column\n"
            "line 6: unknown column 'foo'\n"
            "line 7: not valid JSON at column 10: the line ends inside an object\n"
            "line 8: expected a JSON object, found an array\n"
            "line 9: column 'name': invalid UTF-8 in a string (byte 0xff at offset 20 of the line)\n"
            "line 10: column 'id': duplicate key\n"
            "line 11: not valid JSON at column 12: trailing content after the JSON value\n");
  ASSERT_EQ(out.rejected.size(), 10u);
  EXPECT_EQ(out.rejected[1].text, "{\"id\": 3, \"qty\": \"x\"}");
  EXPECT_EQ(out.rejected[6].text, "[1]");
  // Without a callback each of them is the decoder's error, with its line.
  size_t start = 0;
  for (int line = 1; line <= 12; ++line) {
    size_t end = input.find('\n', start);
    std::string one = input.substr(start, end - start + 1);
    start = end + 1;
    Outcome alone = Jsonl(sql, one, {}, /*collect=*/false);
    if (line == 1 || line == 12) continue;
    const RejectedRow& r = out.rejected[line - 2];
    EXPECT_EQ(alone.rows, "error: line 1" + std::string(r.reason.starts_with("column") ? ", " : ": ") +
                              r.reason)
        << "line " << line;
  }
}

TEST(JsonlReject, HalfDecodedNestedRowsAreTakenOutOfEveryColumn) {
  const char* sql =
      "id INT NOT NULL, tags ARRAY<STRING>, loc STRUCT<lat DOUBLE, pts ARRAY<INT NOT NULL>>, "
      "m MAP<STRING, ARRAY<INT>>, s STRING";
  const std::string good = R"({"id":1,"tags":["a"],"loc":{"lat":1,"pts":[1]},"m":{"k":[1]},"s":"x"})";
  const std::string bad[] = {
      R"({"id":2,"tags":["b",null,"c"],"loc":{"lat":2,"pts":[2,null]},"s":"y"})",
      R"({"id":3,"tags":null,"loc":null,"m":{"k":[1],"z":[2,"q"]}})",
      R"({"id":4,"tags":["d"],"loc":{"lat":null,"pts":[]},"m":{"keys":["a","b"],"values":[[1]]}})",
      R"({"id":5,"s":"longer text that is appended first","tags":["e"],"id":5})",
  };
  std::string input = good + "\n";
  for (const auto& b : bad) input += b + "\n" + good + "\n";
  // Batches as if the bad lines were not there, buffer for buffer.
  std::string clean;
  for (size_t i = 0; i <= std::size(bad); ++i) clean += good + "\n";
  for (bool fast : {true, false}) {
    internal::SetJsonlFastPathEnabled(fast);
    std::vector<RejectedRow> rejected;
    DecodeOptions opt;
    opt.reject = CollectRejects(&rejected);
    auto reader = JsonlReader::FromString(MakeSchema(sql), input, opt);
    auto expected_reader = JsonlReader::FromString(MakeSchema(sql), clean);
    internal::SetJsonlFastPathEnabled(true);
    ASSERT_OK(reader);
    ASSERT_OK(expected_reader);
    Batch batch, expected;
    ASSERT_OK_AND_ASSIGN(bool more, (*reader)->Next(&batch));
    ASSERT_TRUE(more);
    ASSERT_OK(batch.Validate());
    ASSERT_OK_AND_ASSIGN(more, (*expected_reader)->Next(&expected));
    ASSERT_EQ(batch.num_rows, expected.num_rows);
    std::function<void(const ColumnVector&, const ColumnVector&)> same =
        [&](const ColumnVector& a, const ColumnVector& b) {
          EXPECT_EQ(a.length, b.length) << a.type->ToString();
          EXPECT_EQ(a.validity, b.validity) << a.type->ToString();
          EXPECT_EQ(a.offsets, b.offsets) << a.type->ToString();
          ASSERT_EQ(a.values.size(), b.values.size()) << a.type->ToString();
          if (a.values.size()) {
            EXPECT_EQ(std::memcmp(a.values.data(), b.values.data(), a.values.size()), 0);
          }
          ASSERT_EQ(a.children.size(), b.children.size());
          for (size_t i = 0; i < a.children.size(); ++i) same(a.children[i], b.children[i]);
        };
    for (size_t c = 0; c < batch.columns.size(); ++c) same(batch.columns[c], expected.columns[c]);
    EXPECT_EQ(RejectsText(rejected),
              "line 2: column 'loc.pts.element': null in NOT NULL column\n"
              "line 4: column 'm.value.element': expected an integer for INT, found a string \"q\"\n"
              "line 6: column 'm': map has 2 keys and 1 values\n"
              "line 8: column 'id': duplicate key\n");
    EXPECT_EQ((*reader)->rows_rejected(), 4);
    EXPECT_EQ((*reader)->rows_read(), 5);
  }
}

TEST(JsonlReject, FastPathAndSimdjsonPathAgree) {
  // Lines the fast path takes, lines it gives up on, and bad lines of both
  // kinds, decoded in small batches: the same rows, bit for bit, and the same
  // rejects.
  const char* sql = "id BIGINT NOT NULL, d DOUBLE, s STRING, ts TIMESTAMP, l ARRAY<INT>";
  std::string input;
  // Runs of good flat lines (the fast path's) between lines of every other kind.
  for (int i = 0; i < 80; ++i) {
    if (i % 2 == 0 || i % 3 == 0) {
      input += fmt::format("{{\"id\":{},\"d\":1.5,\"s\":\"a\",\"ts\":\"2026-01-01T00:00:00\"}}\n", i);
      continue;
    }
    switch (i % 7) {
      case 0: input += fmt::format("{{\"id\":{},\"d\":\"x\"}}\n", i); break;
      case 1: input += fmt::format("{{\"id\":{},\"s\":\"esc\\\"aped\",\"l\":[1,2]}}\n", i); break;
      case 2: input += fmt::format("{{\"id\":{},\"l\":[1,\"y\"]}}\n", i); break;
      case 3: input += "{\"d\":2}\n"; break;
      case 4: input += fmt::format("{{\"id\":{},\"ts\":\"not a time\"}}\n", i); break;
      case 5: input += fmt::format("{{\"id\":{},\"s\":null,\"d\":null}}\n", i); break;
      case 6: input += fmt::format("{{\"id\":{}\n", i); break;
    }
  }
  DecodeOptions opt = WithPositions();
  opt.batch_rows = 3;
  internal::SetJsonlFastPathEnabled(false);
  Outcome slow = Jsonl(sql, input, opt);
  internal::SetJsonlFastPathEnabled(true);
  const int64_t before = internal::JsonlFastPathLines();
  Outcome fast = Jsonl(sql, input, opt);
  EXPECT_GT(internal::JsonlFastPathLines(), before);  // the fast path took part
  EXPECT_EQ(fast.rows, slow.rows);
  EXPECT_EQ(RejectsText(fast.rejected), RejectsText(slow.rejected));
  EXPECT_EQ(fast.rejected.size(), 19u);  // of 27 lines that are not plain
}

TEST(JsonlReject, WhatStillStopsTheDecoder) {
  // A callback error.
  DecodeOptions opt;
  opt.reject = [](RejectedRow&& row) -> Status {
    return InvalidArgument("too many rejects (line {})", row.position);
  };
  EXPECT_EQ(Jsonl("a INT", "{\"a\":1}\n{\"a\":\"x\"}\n", opt, false).rows,
            "error: too many rejects (line 2)");
  // A line over max_line_bytes, on either path.
  std::vector<RejectedRow> rejected;
  opt.reject = CollectRejects(&rejected);
  opt.max_line_bytes = 20;
  for (bool fast : {true, false}) {
    internal::SetJsonlFastPathEnabled(fast);
    EXPECT_EQ(Jsonl("a INT, s STRING", "{\"a\":1}\n{\"a\":2,\"s\":\"0123456789\"}\n", opt, false).rows,
              "error: line 2: the line is longer than 20 bytes (max_line_bytes)");
    internal::SetJsonlFastPathEnabled(true);
  }
  EXPECT_TRUE(rejected.empty());
}

TEST(JsonlReject, LongLinesAreCutInTheRejectedRow) {
  const std::string value(200000, 'v');
  Outcome out = Jsonl("a INT", "{\"a\": \"" + value + "\"}\n");
  ASSERT_EQ(out.rejected.size(), 1u);
  EXPECT_EQ(out.rejected[0].text, "{\"a\": \"" + value.substr(0, RejectedRow::kMaxText - 7) + "...");
  EXPECT_TRUE(out.rejected[0].reason.starts_with("column 'a': expected an integer for INT, found a string \"vvv"));
  // Cut on a character boundary: no half of a UTF-8 sequence.
  const std::string wide = "{\"a\": \"" + std::string(RejectedRow::kMaxText - 8, 'w') + "\xc3\xa9\xc3\xa9\"}";
  out = Jsonl("a INT", wide);
  ASSERT_EQ(out.rejected.size(), 1u);
  EXPECT_EQ(out.rejected[0].text, wide.substr(0, RejectedRow::kMaxText - 1) + "...");
}

TEST(CsvReject, RecordErrorsArePassedOnAndTheRestDecodes) {
  const char* sql = "id INT NOT NULL, qty INT, name STRING";
  const std::string input =
      "id,qty,name\n"
      "1,2,a\n"
      "2,3000000000,b\n"
      "3,4\n"
      ",5,c\n"
      "4,5,\"multi\nline\",extra\n"
      "5,\"\",e\n"
      "6,7,\"f\xff\"\n"
      "7,8,\"ok\"\n";
  Outcome out = Csv(sql, input, WithPositions());
  EXPECT_EQ(out.rows,
            "{\"id\":1,\"qty\":2,\"name\":\"a\"} @2\n{\"id\":7,\"qty\":8,\"name\":\"ok\"} @10\n");
  EXPECT_EQ(RejectsText(out.rejected),
            "line 3: column 'qty': value 3000000000 overflows INT\n"
            "line 4: expected 3 fields (as in the header), found 2\n"
            "line 5: column 'id': null in NOT NULL column\n"
            "line 6: expected 3 fields (as in the header), found 4\n"
            "line 8: column 'qty': an empty quoted field is not a valid INT\n"
            "line 9: column 'name': invalid UTF-8\n");
  ASSERT_EQ(out.rejected.size(), 6u);
  EXPECT_EQ(out.rejected[0].text, "2,3000000000,b");
  EXPECT_EQ(out.rejected[3].text, "4,5,\"multi\nline\",extra");
  // The first column of a record was appended before the second failed:
  // taken back out (the batch validates, and holds only the good rows).
  Outcome alone = Csv(sql, "id,qty,name\n2,3000000000,b\n", {}, false);
  EXPECT_EQ(alone.rows, "error: line 2, column 'qty': value 3000000000 overflows INT");
  alone = Csv(sql, "id,qty,name\n3,4\n", {}, false);
  EXPECT_EQ(alone.rows, "error: line 2: expected 3 fields (as in the header), found 2");
}

TEST(CsvReject, MalformedQuotingAndLongRecordsStillStopTheDecoder) {
  EXPECT_EQ(Csv("a INT, s STRING", "a,s\n1,\"x\"y\n2,z\n").rows,
            "error: line 2: malformed CSV (text after the closing quote of field 2)");
  DecodeOptions opt;
  opt.max_line_bytes = 10;
  Outcome out = Csv("a INT, s STRING", "a,s\n1,short\n2,\"far too\nlong\"\n", opt);
  EXPECT_EQ(out.rows, "error: line 3: the record is longer than 10 bytes (max_line_bytes)");
  EXPECT_TRUE(out.rejected.empty());
}

}  // namespace jsonl_reject_test
}  // namespace floe::format

namespace floe::format {
namespace jsonl_reject_test {

// tests/format/findings/jsonl_diff_fuzz-reject-then-long-double.bin: a
// rejected line, then a DOUBLE of 103 digits: both paths give the correctly
// rounded value.
TEST(JsonlReject, LongDoubleAfterARejectedLine) {
  const std::string input =
      "{\"id\":1,\"tz\":\"f2024-01-01T00:00:00Z\"}\n"
      "{\"id\":2,\"d\":-0.5555555555555555555555555555555555555555555555555555555555553456789"
      "01234567890123}\n";
  for (bool fast : {true, false}) {
    internal::SetJsonlFastPathEnabled(fast);
    Outcome out = Jsonl("id BIGINT, tz TIMESTAMPTZ, d DOUBLE", input);
    internal::SetJsonlFastPathEnabled(true);
    EXPECT_EQ(out.rows, "{\"id\":2,\"tz\":null,\"d\":-0.5555555555555556}\n") << fast;
  }
}

}  // namespace jsonl_reject_test
}  // namespace floe::format
