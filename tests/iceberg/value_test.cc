// Single values: the binary (Appendix D) and JSON single-value serializations
// round-trip for every primitive type, with the spec's example texts and the
// edge cases (pre-epoch times, negative decimals, NaN, max longs, promotion).
#include "floe/iceberg/value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "testing/hex.h"
#include "testing/matchers.h"

namespace floe::iceberg {
namespace value_test {

using test::Hex;

struct Case {
  TypePtr type;
  Value value;
  std::string binary_hex;  // expected Appendix D bytes
  std::string json;        // expected JSON single-value text
};

std::vector<Case> Cases() {
  auto uuid = *ParseUuid("f79c3e09-677c-4bbd-a479-3f349cb785e7");
  return {
      {BooleanType(), Value::Boolean(true), "01", "true"},
      {BooleanType(), Value::Boolean(false), "00", "false"},
      {IntType(), Value::Int(34), "22000000", "34"},
      {IntType(), Value::Int(-1), "ffffffff", "-1"},
      {LongType(), Value::Long(34), "2200000000000000", "34"},
      {LongType(), Value::Long(std::numeric_limits<int64_t>::max()), "ffffffffffffff7f",
       "9223372036854775807"},
      {LongType(), Value::Long(std::numeric_limits<int64_t>::min()), "0000000000000080",
       "-9223372036854775808"},
      {FloatType(), Value::Float(1.0f), "0000803f", "1.0"},
      {FloatType(), Value::Float(-2.5f), "000020c0", "-2.5"},
      {DoubleType(), Value::Double(1.0), "000000000000f03f", "1.0"},
      {DoubleType(), Value::Double(0.1), "9a9999999999b93f", "0.1"},
      {DoubleType(), Value::Double(-0.0), "0000000000000080", "-0.0"},
      {DoubleType(), Value::Double(std::numeric_limits<double>::infinity()), "000000000000f07f",
       "\"Infinity\""},
      {DecimalType(4, 2), Value::Decimal(1420), "058c", "\"14.20\""},
      {DecimalType(9, 2), Value::Decimal(-5), "fb", "\"-0.05\""},
      {DecimalType(9, 0), Value::Decimal(0), "00", "\"0\""},
      {DecimalType(5, 2), Value::Decimal(128), "0080", "\"1.28\""},
      {DecimalType(38, 0), Value::Decimal(*DecimalFromString("99999999999999999999999999999999999999", 0)),
       "4b3b4ca85a86c47a098a223fffffffff", "\"99999999999999999999999999999999999999\""},
      {DateType(), Value::Date(17486), "4e440000", "\"2017-11-16\""},
      {DateType(), Value::Date(-1), "ffffffff", "\"1969-12-31\""},
      {TimeType(), Value::Time(81068123456), "406509e012000000", "\"22:31:08.123456\""},
      {TimestampType(), Value::Timestamp(1510871468123456), "40a5282d215e0500",
       "\"2017-11-16T22:31:08.123456\""},
      {TimestampType(), Value::Timestamp(-1), "ffffffffffffffff", "\"1969-12-31T23:59:59.999999\""},
      {TimestampTzType(), Value::Timestamp(1510871468123456), "40a5282d215e0500",
       "\"2017-11-16T22:31:08.123456+00:00\""},
      {Primitive(TypeId::kTimestampNs), Value::Timestamp(1510871468123456789), "1585c56698b1f714",
       "\"2017-11-16T22:31:08.123456789\""},
      {Primitive(TypeId::kTimestampTzNs), Value::Timestamp(1510871468123456789), "1585c56698b1f714",
       "\"2017-11-16T22:31:08.123456789+00:00\""},
      {StringType(), Value::String("iceberg"), "69636562657267", "\"iceberg\""},
      {StringType(), Value::String("q\"\xC3\xA9"), "7122c3a9", "\"q\\\"\xC3\xA9\""},
      {StringType(), Value::String(""), "", "\"\""},
      {UuidType(), Value::Bytes(uuid), "f79c3e09677c4bbda4793f349cb785e7",
       "\"f79c3e09-677c-4bbd-a479-3f349cb785e7\""},
      {FixedType(4), Value::Bytes(std::string("\x00\x01\x02\xff", 4)), "000102ff", "\"000102ff\""},
      {BinaryType(), Value::Bytes(std::string("\x00\x01\x02\xff", 4)), "000102ff", "\"000102ff\""},
  };
}

TEST(Value, BinaryAndJsonRoundTripForEveryType) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.type->ToString() + " " + c.json);
    auto bin = ToBinary(*c.type, c.value);
    ASSERT_TRUE(bin) << bin.error().ToString();
    EXPECT_EQ(Hex(*bin), c.binary_hex);
    auto back = FromBinary(*c.type, *bin);
    ASSERT_TRUE(back) << back.error().ToString();
    EXPECT_EQ(*back, c.value);

    auto json = ToJsonText(*c.type, c.value);
    ASSERT_TRUE(json) << json.error().ToString();
    EXPECT_EQ(*json, c.json);
    auto parsed = FromJsonText(*c.type, *json);
    ASSERT_TRUE(parsed) << parsed.error().ToString();
    EXPECT_EQ(*parsed, c.value);

    // Through a column and back.
    ColumnVector col(c.type);
    ASSERT_OK(AppendValue(&col, c.value));
    ASSERT_OK(AppendValue(&col, Value::Null()));
    EXPECT_EQ(ValueAt(col, 0), c.value);
    EXPECT_TRUE(ValueAt(col, 1).is_null());
  }
}

TEST(Value, NaNAndNullAndFloats) {
  auto nan = ToJsonText(*DoubleType(), Value::Double(std::nan("")));
  EXPECT_EQ(*nan, "\"NaN\"");
  EXPECT_TRUE(std::isnan(FromJsonText(*DoubleType(), "\"NaN\"")->as_double()));
  EXPECT_EQ(*ToJsonText(*LongType(), Value::Null()), "null");
  EXPECT_TRUE(FromJsonText(*LongType(), "null")->is_null());
  EXPECT_FALSE(ToBinary(*LongType(), Value::Null()));
  // A float read back from its JSON text is the same float.
  for (float f : {0.1f, 3.4028235e38f, 1e-45f, -123.456f}) {
    auto text = ToJsonText(*FloatType(), Value::Float(f));
    ASSERT_OK(text);
    EXPECT_EQ(FromJsonText(*FloatType(), *text)->as_float(), f) << *text;
  }
}

TEST(Value, PromotedBoundsAreRead) {
  // Bounds written before int->long, float->double, date->timestamp promotion.
  EXPECT_EQ(*FromBinary(*LongType(), std::string("\xff\xff\xff\xff", 4)), Value::Long(-1));
  EXPECT_EQ(*FromBinary(*DoubleType(), std::string("\x00\x00\x80\x3f", 4)), Value::Double(1.0));
  EXPECT_EQ(*FromBinary(*TimestampType(), std::string("\x01\x00\x00\x00", 4)),
            Value::Timestamp(86400000000));
  EXPECT_EQ(*FromBinary(*Primitive(TypeId::kTimestampNs), std::string("\x01\x00\x00\x00", 4)),
            Value::Timestamp(86400000000000));
  // Decimals sign-extend from any minimal length.
  EXPECT_EQ(*FromBinary(*DecimalType(20, 0), std::string("\xff", 1)), Value::Decimal(-1));
  EXPECT_EQ(*FromBinary(*DecimalType(20, 0), std::string("\x00\xff", 2)), Value::Decimal(255));
}

TEST(Value, BadInputGivesClearErrors) {
  auto e = FromBinary(*IntType(), "abc");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(e.error().message.find("3 bytes cannot hold a binary int"), std::string::npos);
  EXPECT_FALSE(FromBinary(*UuidType(), "short"));
  EXPECT_FALSE(FromBinary(*FixedType(3), "four"));
  EXPECT_FALSE(FromBinary(*DecimalType(9, 2), ""));
  EXPECT_FALSE(FromBinary(*DecimalType(9, 2), std::string(17, '\x01')));
  EXPECT_FALSE(FromBinary(*BooleanType(), ""));
  EXPECT_FALSE(ToBinary(*ListType(1, false, IntType()), Value::Int(1)));
  EXPECT_FALSE(ToBinary(*IntType(), Value::Long(1)));  // wrong physical form

  auto j = FromJsonText(*IntType(), "\"34\"");
  ASSERT_FALSE(j);
  EXPECT_NE(j.error().message.find("int value must be a JSON integer, got string"), std::string::npos)
      << j.error().message;
  EXPECT_FALSE(FromJsonText(*IntType(), "3000000000"));
  EXPECT_FALSE(FromJsonText(*LongType(), "1.5"));
  EXPECT_FALSE(FromJsonText(*LongType(), "{"));
  EXPECT_FALSE(FromJsonText(*DecimalType(4, 2), "\"14.201\""));  // digits would be lost
  EXPECT_FALSE(FromJsonText(*DecimalType(4, 2), "\"140.20\""));  // does not fit precision 4
  EXPECT_FALSE(FromJsonText(*DecimalType(4, 2), "14.2"));        // must be a string
  EXPECT_EQ(*FromJsonText(*DecimalType(4, 2), "\"14.2\""), Value::Decimal(1420));
  EXPECT_FALSE(FromJsonText(*DateType(), "\"2017-02-29\""));
  EXPECT_FALSE(FromJsonText(*DateType(), "\"2017-13-01\""));
  EXPECT_FALSE(FromJsonText(*TimeType(), "\"24:00:00\""));
  EXPECT_FALSE(FromJsonText(*TimestampType(), "\"2017-11-16T22:31:08+00:00\""));  // no zone allowed
  EXPECT_FALSE(FromJsonText(*TimestampTzType(), "\"2017-11-16T22:31:08\""));      // zone required
  EXPECT_FALSE(FromJsonText(*TimestampType(), "\"2017-11-16T22:31:08.0000001\""));  // sub-micro
  EXPECT_FALSE(FromJsonText(*UuidType(), "\"f79c3e09677c4bbda4793f349cb785e7\""));
  EXPECT_FALSE(FromJsonText(*FixedType(2), "\"000102\""));
  EXPECT_FALSE(FromJsonText(*BinaryType(), "\"0g\""));
  EXPECT_FALSE(ToJsonText(*StringType(), Value::String("\xff\xfe")));  // not UTF-8
}

TEST(Value, TemporalTextForms) {
  // Offsets convert to UTC; short forms are accepted.
  EXPECT_EQ(*ParseTimestamp("2017-11-16T14:31:08-08:00", false, true), 1510871468000000);
  EXPECT_EQ(*ParseTimestamp("2017-11-16T22:31:08Z", false, true), 1510871468000000);
  EXPECT_EQ(*ParseTimestamp("2017-11-16T22:31", false, false), 1510871460000000);
  EXPECT_EQ(*ParseTime("22:31"), 81060000000);
  EXPECT_EQ(FormatDate(*ParseDate("0001-01-01")), "0001-01-01");
  EXPECT_EQ(FormatDate(*ParseDate("+10000-01-01")), "+10000-01-01");
  EXPECT_EQ(FormatDate(*ParseDate("1900-02-28") + 1), "1900-03-01");
  EXPECT_EQ(FormatTimestamp(-1, true, true), "1969-12-31T23:59:59.999999999+00:00");
  EXPECT_EQ(*DecimalFromString("2E+20", 0), int128_t{200000000000000000} * 1000);
  EXPECT_EQ(*DecimalFromString("-1.5e-1", 2), -15);
  EXPECT_EQ(DecimalToString(-1, 3), "-0.001");
}

}  // namespace value_test
}  // namespace floe::iceberg

namespace floe::iceberg {
namespace value_test {

TEST(Value, NestedJsonSingleValuesThroughColumns) {
  auto type = StructType({{1, "id", false, LongType(), {}},
                          {2, "tags", false, ListType(3, false, StringType()), {}},
                          {4, "m", false, MapType(5, StringType(), 6, false, DateType()), {}}});
  ColumnVector col(type);
  const std::string text =
      R"({"1":34,"2":["a",null],"4":{"keys":["x","y"],"values":["2017-11-16",null]}})";
  ASSERT_OK(AppendJsonText(&col, text));
  ASSERT_OK(AppendJsonText(&col, "null"));
  ASSERT_OK(AppendJsonText(&col, "{}"));  // missing fields are null
  ASSERT_TRUE(col.Validate()) << col.Validate().error().ToString();
  EXPECT_EQ(col.length, 3);
  auto json_at = [&](int64_t row) {
    auto r = ColumnValueToJsonText(col, row);
    return r ? *r : "error: " + r.error().message;
  };
  EXPECT_EQ(json_at(0), text);
  EXPECT_EQ(json_at(1), "null");
  EXPECT_EQ(json_at(2), R"({"1":null,"2":null,"4":null})");
  EXPECT_FALSE(ColumnValueToJsonText(col, 3));

  auto err = AppendJsonText(&col, R"({"1":"x"})");
  ASSERT_FALSE(err);
  EXPECT_NE(err.error().message.find("long value must be a JSON integer"), std::string::npos)
      << err.error().message;
  EXPECT_FALSE(AppendJsonText(&col, R"({"9":1})"));  // unknown field id
  ColumnVector map(MapType(5, StringType(), 6, false, IntType()));
  EXPECT_FALSE(AppendJsonText(&map, R"({"keys":["a"],"values":[]})"));
  EXPECT_FALSE(AppendJsonText(&map, R"({"keys":[null],"values":[1]})"));
  ColumnVector list(ListType(3, false, IntType()));
  EXPECT_FALSE(AppendJsonText(&list, "5"));
}

}  // namespace value_test
}  // namespace floe::iceberg

namespace floe::iceberg {
namespace value_test {

TEST(Value, PromotedDateBoundOutsideTheNanosecondRange) {
  // Found by the fuzzer: a 4-byte date bound read as timestamp_ns must not overflow.
  auto v = FromBinary(*Primitive(TypeId::kTimestampNs), std::string("\x01\x02\x03\x04", 4));
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().kind, ErrorKind::kCorrupt);
  EXPECT_OK(FromBinary(*TimestampType(), std::string("\x01\x02\x03\x04", 4)));
}

}  // namespace value_test
}  // namespace floe::iceberg
