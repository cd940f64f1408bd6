// CSV decoder: RFC 4180 quoting, CRLF, embedded newlines, header mapping,
// every primitive type, nulls, streaming, and every error rule.
#include "floe/format/csv_reader.h"

#include <gtest/gtest.h>

#include <fstream>

#include "format/decode_test_util.h"

namespace floe::format {
namespace csv_reader_test {

Result<std::string> Decode(std::string_view sql, std::string input, DecodeOptions opt = {}) {
  FLOE_ASSIGN_OR_RETURN(auto reader, CsvReader::FromString(MakeSchema(sql), std::move(input), opt));
  return ReadAllRows(*reader);
}

std::string Ok(std::string_view sql, std::string input, DecodeOptions opt = {}) {
  auto r = Decode(sql, std::move(input), opt);
  EXPECT_TRUE(r) << r.error().ToString();
  return r ? *r : std::string();
}

std::string ErrorOf(std::string_view sql, std::string input, DecodeOptions opt = {}) {
  auto r = Decode(sql, std::move(input), opt);
  EXPECT_FALSE(r) << "no error; output: " << (r ? *r : "");
  return r ? std::string() : r.error().message;
}

TEST(Csv, EveryPrimitiveType) {
  const char* sql =
      "b BOOLEAN, i INT, l BIGINT, f FLOAT, d DOUBLE, dec DECIMAL(9,2), dt DATE, t TIME, "
      "ts TIMESTAMP, tz TIMESTAMPTZ, tn TIMESTAMP_NS, s STRING, u UUID, fx FIXED(2), bin BINARY";
  std::string in =
      "b,i,l,f,d,dec,dt,t,ts,tz,tn,s,u,fx,bin\n"
      "true,-2147483648,-9223372036854775808,0.1,1e300,-1.5,2017-11-16,22:31:08.5,"
      "2017-11-16 22:31:08,2017-11-16T22:31:08-01:00,2017-11-16T22:31:08.123456789,"
      "h\xc3\xa9llo,f79c3e09-677c-4bbd-a479-3f349cb785e7,0a0B,\n"
      "FALSE,2147483647,9223372036854775807,NaN,-Infinity,\"12.345e2\",1970-01-01,00:00,"
      "1970-01-01,1970-01-01T00:00:00Z,1970-01-01,\"\",00000000000000000000000000000000,ffff,"
      "\"\"\n"
      ",,,,,,,,,,,,,,\n";
  EXPECT_EQ(Ok(sql, in),
            R"({"b":true,"i":-2147483648,"l":-9223372036854775808,"f":0.1,"d":1e+300,"dec":"-1.50","dt":"2017-11-16","t":"22:31:08.500000","ts":"2017-11-16T22:31:08.000000","tz":"2017-11-16T23:31:08.000000+00:00","tn":"2017-11-16T22:31:08.123456789","s":"h)"
            "\xc3\xa9"
            R"(llo","u":"f79c3e09-677c-4bbd-a479-3f349cb785e7","fx":"0a0b","bin":null})"
            "\n"
            R"({"b":false,"i":2147483647,"l":9223372036854775807,"f":"NaN","d":"-Infinity","dec":"1234.50","dt":"1970-01-01","t":"00:00:00.000000","ts":"1970-01-01T00:00:00.000000","tz":"1970-01-01T00:00:00.000000+00:00","tn":"1970-01-01T00:00:00.000000000","s":"","u":"00000000-0000-0000-0000-000000000000","fx":"ffff","bin":""})"
            "\n"
            R"({"b":null,"i":null,"l":null,"f":null,"d":null,"dec":null,"dt":null,"t":null,"ts":null,"tz":null,"tn":null,"s":null,"u":null,"fx":null,"bin":null})"
            "\n");
}

TEST(Csv, QuotingCrlfEmbeddedNewlinesAndHeaderOrder) {
  std::string in =
      "s,id\r\n"
      "\"a,b\",1\r\n"
      "\"say \"\"hi\"\"\",2\r\n"
      "\"two\r\nlines\nhere\",3\r\n"
      "\r\n"
      "plain text with \"quote,4\r\n"
      "last,5";
  EXPECT_EQ(Ok("id BIGINT NOT NULL, s STRING, missing DOUBLE", in),
            "{\"id\":1,\"s\":\"a,b\",\"missing\":null}\n"
            "{\"id\":2,\"s\":\"say \\\"hi\\\"\",\"missing\":null}\n"
            "{\"id\":3,\"s\":\"two\\r\\nlines\\nhere\",\"missing\":null}\n"
            "{\"id\":4,\"s\":\"plain text with \\\"quote\",\"missing\":null}\n"
            "{\"id\":5,\"s\":\"last\",\"missing\":null}\n");
}

TEST(Csv, NoHeaderDelimiterAndIgnoredColumns) {
  DecodeOptions opt;
  opt.csv_header = false;
  opt.csv_delimiter = '|';
  EXPECT_EQ(Ok("a INT, b STRING", "1|x\n2|\"y|z\"\n", opt),
            "{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":\"y|z\"}\n");
  DecodeOptions ign;
  ign.ignore_unknown_keys = true;
  EXPECT_EQ(Ok("a INT", "junk,a\nq,1\n", ign), "{\"a\":1}\n");
}

TEST(Csv, StreamsAcrossChunkBoundaries) {
  std::string in = "id,s\n";
  for (int i = 0; i < 500; ++i) {
    in += std::to_string(i) + ",\"multi\nline " + std::to_string(i) + " \"\"q\"\"\"\n";
  }
  std::string path = testing::TempDir() + "csv_chunks.csv";
  {
    std::ofstream f(path, std::ios::binary);
    f << in;
  }
  DecodeOptions opt;
  opt.chunk_bytes = 16;
  opt.batch_rows = 50;
  auto reader = CsvReader::Open(MakeSchema("id INT NOT NULL, s STRING"), path, opt);
  ASSERT_TRUE(reader) << reader.error().ToString();
  Batch batch;
  int total = 0;
  while (true) {
    auto more = (*reader)->Next(&batch);
    ASSERT_TRUE(more) << more.error().ToString();
    if (!*more) break;
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      ASSERT_EQ(batch.columns[0].data<int32_t>()[r], total);
      ASSERT_EQ(batch.columns[1].bytes(r), "multi\nline " + std::to_string(total) + " \"q\"");
      ++total;
    }
  }
  EXPECT_EQ(total, 500);
}

TEST(Csv, ErrorsNameLineColumnAndRule) {
  EXPECT_EQ(ErrorOf("qty INT", "qty\n1\n3000000000\n"),
            "line 3, column 'qty': value 3000000000 overflows INT");
  EXPECT_EQ(ErrorOf("a INT, b STRING", "a,b\n\"x\ny\",1\n1,2\n1\n"),
            "line 2, column 'a': value 'x\ny' is not an integer (INT)");
  EXPECT_EQ(ErrorOf("a INT, b STRING", "a,b\n1,2\n1\n"),
            "line 3: expected 2 fields (as in the header), found 1");
  EXPECT_EQ(ErrorOf("a INT, b STRING", "a,b\n1,\"open\n"),
            "line 2: malformed CSV (unterminated quoted field)");
  EXPECT_EQ(ErrorOf("a INT, b STRING", "a,b\n1,\"x\"y\n"),
            "line 2: malformed CSV (text after the closing quote of field 2)");
  EXPECT_EQ(ErrorOf("id INT NOT NULL", "id\n1\n\"\"\n"),
            "line 3, column 'id': an empty quoted field is not a valid INT");
  EXPECT_EQ(ErrorOf("id INT NOT NULL, x INT", "id,x\n,1\n"),
            "line 2, column 'id': null in NOT NULL column");
  EXPECT_EQ(ErrorOf("id INT NOT NULL, x INT", "x\n1\n"),
            "column 'id' is NOT NULL but missing from the CSV header");
  EXPECT_EQ(ErrorOf("a INT", "a,zz\n1,2\n"), "line 1: CSV header names unknown column 'zz'");
  EXPECT_EQ(ErrorOf("a INT", "a,a\n1,2\n"), "line 1: CSV header names column 'a' twice");
  EXPECT_EQ(ErrorOf("a INT, tags ARRAY<STRING>", "a,tags\n1,x\n"),
            "column 'tags': ARRAY<STRING> cannot be read from CSV (nested types need JSONL)");
  EXPECT_EQ(ErrorOf("s STRING", "s\nok\nbad\xff\n"), "line 3, column 's': invalid UTF-8");
  EXPECT_EQ(ErrorOf("d DECIMAL(3,1)", "d\n123.4\n"),
            "line 2, column 'd': value '123.4' exceeds the precision of DECIMAL(3, 1)");
  EXPECT_EQ(ErrorOf("b BOOLEAN", "b\nyes\n"),
            "line 2, column 'b': value 'yes' is not a BOOLEAN (expected true or false)");
  EXPECT_EQ(ErrorOf("a INT", ""), "<string>: the CSV input is empty (no header record)");
}

TEST(Csv, NestedColumnsNotInHeaderAreNull) {
  EXPECT_EQ(Ok("a INT, tags ARRAY<STRING>", "a\n1\n"), "{\"a\":1,\"tags\":null}\n");
}

}  // namespace csv_reader_test
}  // namespace floe::format
