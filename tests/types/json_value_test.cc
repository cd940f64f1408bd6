// Canonical JSON printer: every primitive type and extreme is printed by floe
// and by shared/interop/lib/canonical.mjs (run under node) for the same values,
// and the two outputs must be identical; nested forms checked against the
// canonical.mjs rules.
#include "floe/types/json_value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "floe/types/sql_schema.h"
#include "floe/util/civil_time.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe {
namespace json_value_test {

using test::SharedDir;

/// Runs `cmd` with `input` on stdin; returns stdout, or fails the test.
std::string RunWithInput(const std::string& cmd, const std::string& input) {
  std::string in_path = testing::TempDir() + "json_oracle_in.jsonl";
  {
    std::ofstream f(in_path, std::ios::binary);
    f << input;
  }
  std::string full = cmd + " < " + in_path + " 2>&1";
  FILE* p = popen(full.c_str(), "r");
  if (!p) {
    ADD_FAILURE() << "cannot run " << full;
    return {};
  }
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = pclose(p);
  EXPECT_EQ(rc, 0) << full << "\n" << out;
  return out;
}

/// Collects (value printed by floe, oracle input line) pairs.
struct Cases {
  std::string floe_out;
  std::string oracle_in;
  int count = 0;

  void Add(const ColumnVector& col, const std::string& oracle_value) {
    AppendJsonValue(col, col.length - 1, &floe_out);
    floe_out.push_back('\n');
    oracle_in += "{\"t\":";
    AppendJsonString(col.type->ToString(), &oracle_in);
    oracle_in += ",\"v\":" + oracle_value + "}\n";
    ++count;
  }
};

std::string Quote(const std::string& s) {
  std::string out;
  AppendJsonString(s, &out);
  return out;
}

std::string Hex(std::string_view b) {
  std::string out;
  AppendHex(b, &out);
  return out;
}

std::string Int128Text(int128_t v) {
  std::string out;
  AppendDecimalText(v, 0, &out);
  return out;
}

TEST(JsonValue, PrimitivesMatchCanonicalMjs) {
  Cases cases;
  {
    ColumnVector c(BooleanType());
    for (bool b : {true, false}) {
      c.Append<uint8_t>(b);
      cases.Add(c, b ? "true" : "false");
    }
    c.AppendNull();
    cases.Add(c, "null");
  }
  {
    ColumnVector c(IntType());
    for (int32_t v : {0, -1, 1, std::numeric_limits<int32_t>::min(),
                      std::numeric_limits<int32_t>::max()}) {
      c.Append(v);
      cases.Add(c, std::to_string(v));
    }
  }
  {
    ColumnVector c(LongType());
    for (int64_t v : {int64_t{0}, int64_t{-1}, std::numeric_limits<int64_t>::min(),
                      std::numeric_limits<int64_t>::max(), int64_t{9007199254740993}}) {
      c.Append(v);
      cases.Add(c, Quote(std::to_string(v)));
    }
  }
  std::mt19937_64 rng(42);
  {
    ColumnVector c(DoubleType());
    std::vector<double> vals = {0.1,     -0.0,    0.0,          1e21,     1e-7,    1e20,
                                0.000001, 1.0 / 3, 100,         -2.5e-10, 1.5e300, 5e-324,
                                123456789012345680000.0,        std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::lowest(),
                                std::nan(""), INFINITY, -INFINITY, 0.5, 1e-6, 9.999999e20};
    for (int i = 0; i < 2000; ++i) {
      uint64_t bits = rng();
      double d;
      std::memcpy(&d, &bits, 8);
      if (std::isfinite(d)) vals.push_back(d);
      vals.push_back(static_cast<double>(static_cast<int64_t>(rng() % 2000000) - 1000000) /
                     std::pow(10.0, static_cast<double>(rng() % 12)));
    }
    for (double v : vals) {
      c.Append(v);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", v);
      std::string t = std::isnan(v) ? "NaN" : std::isinf(v) ? (v > 0 ? "Infinity" : "-Infinity") : buf;
      cases.Add(c, Quote(t));
    }
  }
  {
    ColumnVector c(FloatType());
    std::vector<float> vals = {0.1f,     1.1f,  3.4028235e38f, 1e-45f, 16777216.f, 0.3f, 1e10f,
                               -0.0f,    7e-7f, 123456.789f,   1e21f,  1e-7f,     2.5f,
                               std::nanf(""), INFINITY, -INFINITY, 33554432.f, 1.17549435e-38f};
    for (int i = 0; i < 2000; ++i) {
      uint32_t bits = static_cast<uint32_t>(rng());
      float f;
      std::memcpy(&f, &bits, 4);
      if (std::isfinite(f)) vals.push_back(f);
      vals.push_back(static_cast<float>(static_cast<int64_t>(rng() % 200000) - 100000) /
                     static_cast<float>(std::pow(10.0, static_cast<double>(rng() % 8))));
    }
    for (float v : vals) {
      c.Append(v);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(v));
      std::string t = std::isnan(v) ? "NaN" : std::isinf(v) ? (v > 0 ? "Infinity" : "-Infinity") : buf;
      cases.Add(c, Quote(t));
    }
  }
  for (auto [p, s] : {std::pair{9, 2}, {5, 0}, {38, 10}, {38, 38}, {18, 3}}) {
    ColumnVector c(DecimalType(p, s));
    int128_t max = 1;
    for (int i = 0; i < p; ++i) max *= 10;
    max -= 1;
    for (int128_t v : {int128_t{0}, int128_t{-50}, int128_t{123456789} % max, max, -max,
                       int128_t{1}, int128_t{-1}}) {
      c.Append(v);
      cases.Add(c, Quote(Int128Text(v)));
    }
  }
  {
    ColumnVector c(DateType());
    for (int32_t v : {0, -1, 19000, -719528, -719529, 2932896, 2932897, -25567, 11016}) {
      c.Append(v);
      cases.Add(c, std::to_string(v));
    }
  }
  {
    ColumnVector c(TimeType());
    for (int64_t v : {int64_t{0}, int64_t{86399999999}, int64_t{45296789012}, int64_t{1}}) {
      c.Append(v);
      cases.Add(c, Quote(std::to_string(v)));
    }
  }
  for (TypeId id : {TypeId::kTimestamp, TypeId::kTimestampTz}) {
    ColumnVector c(Primitive(id));
    for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1510871468123456},
                      int64_t{-62167219200000000}, int64_t{-62167219200000001},
                      int64_t{253402300800000000}, int64_t{951782400000000},
                      int64_t{-30610224000000001}}) {
      c.Append(v);
      cases.Add(c, Quote(std::to_string(v)));
    }
  }
  for (TypeId id : {TypeId::kTimestampNs, TypeId::kTimestampTzNs}) {
    ColumnVector c(Primitive(id));
    for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1510871468123456789},
                      std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}) {
      c.Append(v);
      cases.Add(c, Quote(std::to_string(v)));
    }
  }
  {
    ColumnVector c(StringType());
    for (std::string v : {std::string(""), std::string("a\"b\\c\n\t\x01\x1f\x7f/\b\f\r"),
                          std::string("h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x8e\x89"),
                          std::string("\xe2\x80\xa8\xe2\x80\xa9"), std::string(1, '\0')}) {
      c.AppendBytes(v);
      cases.Add(c, Quote(v));
    }
  }
  {
    ColumnVector c(UuidType());
    std::string u = "\xf7\x9c\x3e\x09\x67\x7c\x4b\xbd\xa4\x79\x3f\x34\x9c\xb7\x85\xe7";
    c.AppendBytes(u);
    cases.Add(c, Quote(Hex(u)));
  }
  {
    ColumnVector c(FixedType(4));
    c.AppendBytes(std::string("\x00\x01\x02\x03", 4));
    cases.Add(c, Quote("00010203"));
  }
  {
    ColumnVector c(BinaryType());
    for (std::string v : {std::string(""), std::string("\xde\xad\xbe\xef"), std::string("ab")}) {
      c.AppendBytes(v);
      cases.Add(c, Quote(Hex(v)));
    }
  }

  std::string cmd = "node " FLOE_SOURCE_DIR "/tests/types/json_canonical_oracle.mjs '" +
                    SharedDir() + "'";
  std::string oracle = RunWithInput(cmd, cases.oracle_in);
  std::istringstream a(cases.floe_out), b(oracle), in(cases.oracle_in);
  std::string la, lb, li;
  int compared = 0;
  int mismatches = 0;
  while (std::getline(a, la)) {
    ASSERT_TRUE(std::getline(b, lb)) << "oracle printed fewer lines: " << oracle.substr(0, 2000);
    std::getline(in, li);
    EXPECT_EQ(la, lb) << "value " << li;
    if (la != lb && ++mismatches > 20) break;
    ++compared;
  }
  EXPECT_EQ(compared, cases.count);
  EXPECT_GT(compared, 8000);
}

TEST(JsonValue, InvalidUtf8StringPrintsAsHex) {
  // canonical.mjs prints undecodable string bytes as hex (RawBytes).
  ColumnVector c(StringType());
  c.AppendBytes("\xff\xfe");
  c.AppendBytes("\xed\xa0\x80");  // an encoded surrogate is not UTF-8
  c.AppendBytes("\xc0\xaf");      // overlong
  std::string out;
  for (int i = 0; i < 3; ++i) {
    AppendJsonValue(c, i, &out);
    out += ' ';
  }
  EXPECT_EQ(out, "\"fffe\" \"eda080\" \"c0af\" ");
}

TEST(JsonValue, NestedRowsInSchemaOrder) {
  auto schema = ParseSqlColumns(
      "id BIGINT NOT NULL, tags ARRAY<STRING>, loc STRUCT<lat DOUBLE, lon DOUBLE>, "
      "m MAP<STRING, INT>, `we\"ird` INT");
  ASSERT_OK(schema);
  Batch batch(std::make_shared<Schema>(*schema));
  // row 0: everything present
  batch.columns[0].Append<int64_t>(7);
  batch.columns[1].children[0].AppendBytes("a");
  batch.columns[1].children[0].AppendNull();
  batch.columns[1].CloseListRow();
  batch.columns[2].children[0].Append(1.5);
  batch.columns[2].children[1].Append(-0.25);
  batch.columns[2].AppendStructRow();
  batch.columns[3].children[0].AppendBytes("k1");
  batch.columns[3].children[1].Append<int32_t>(1);
  batch.columns[3].children[0].AppendBytes("k2");
  batch.columns[3].children[1].AppendNull();
  batch.columns[3].CloseListRow();
  batch.columns[4].Append<int32_t>(3);
  // row 1: nulls and empties
  batch.columns[0].Append<int64_t>(-1);
  batch.columns[1].CloseListRow();
  batch.columns[2].AppendNull();
  batch.columns[3].AppendNull();
  batch.columns[4].AppendNull();
  batch.num_rows = 2;
  ASSERT_TRUE(batch.Validate()) << batch.Validate().error().ToString();
  std::string out;
  AppendJsonRow(batch, 0, &out);
  EXPECT_EQ(out,
            R"({"id":7,"tags":["a",null],"loc":{"lat":1.5,"lon":-0.25},)"
            R"("m":{"keys":["k1","k2"],"values":[1,null]},"we\"ird":3})");
  out.clear();
  AppendJsonRow(batch, 1, &out);
  EXPECT_EQ(out, R"({"id":-1,"tags":[],"loc":null,"m":null,"we\"ird":null})");
}

TEST(JsonValue, TextHelpers) {
  std::string s;
  AppendDecimalText(-5, 3, &s);
  EXPECT_EQ(s, "-0.005");
  s.clear();
  AppendTimestampText(-1, 6, &s);
  EXPECT_EQ(s, "1969-12-31T23:59:59.999999");
  EXPECT_EQ(civil::DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(civil::DaysFromCivil(2017, 11, 16), 17486);
  EXPECT_EQ(civil::DaysFromCivil(0, 1, 1), -719528);
  EXPECT_TRUE(IsValidUtf8("plain ascii text, longer than eight bytes"));
  EXPECT_TRUE(IsValidUtf8("\xf4\x8f\xbf\xbf"));
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));
  EXPECT_FALSE(IsValidUtf8("abc\xe2\x82"));
}

}  // namespace json_value_test
}  // namespace floe
