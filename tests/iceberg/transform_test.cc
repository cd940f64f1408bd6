// Transforms and bucket hashing: every Appendix B hash vector, truncate
// vectors, pre-epoch flooring and null handling (Iceberg spec: Partition
// Transforms, Appendix B; PITFALLS 82-88).
#include "floe/iceberg/murmur3.h"
#include "floe/iceberg/temporal.h"
#include "floe/iceberg/transform.h"
#include "floe/iceberg/value.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace floe::iceberg {
namespace transform_test {

int64_t Ts(std::string_view text, TypeId id) {
  bool nanos = id == TypeId::kTimestampNs || id == TypeId::kTimestampTzNs;
  bool zone = id == TypeId::kTimestampTz || id == TypeId::kTimestampTzNs;
  auto v = ParseTimestamp(text, nanos, zone);
  EXPECT_TRUE(v) << text << ": " << v.error().ToString();
  return v.value_or(0);
}

int32_t Hash(const TypePtr& t, const Value& v) {
  auto h = HashValue(*t, v);
  EXPECT_TRUE(h) << h.error().ToString();
  return h.value_or(0);
}

TEST(Murmur3, AppendixBVectors) {
  EXPECT_EQ(Hash(IntType(), Value::Int(34)), 2017239379);
  EXPECT_EQ(Hash(LongType(), Value::Long(34)), 2017239379);
  EXPECT_EQ(Hash(DecimalType(4, 2), Value::Decimal(1420)), -500754589);
  EXPECT_EQ(Hash(DateType(), Value::Date(*ParseDate("2017-11-16"))), -653330422);
  EXPECT_EQ(Hash(TimeType(), Value::Time(*ParseTime("22:31:08"))), -662762989);
  EXPECT_EQ(Hash(TimestampType(), Value::Timestamp(Ts("2017-11-16T22:31:08", TypeId::kTimestamp))),
            -2047944441);
  EXPECT_EQ(
      Hash(TimestampType(), Value::Timestamp(Ts("2017-11-16T22:31:08.000001", TypeId::kTimestamp))),
      -1207196810);
  EXPECT_EQ(Hash(TimestampTzType(),
                 Value::Timestamp(Ts("2017-11-16T14:31:08-08:00", TypeId::kTimestampTz))),
            -2047944441);
  EXPECT_EQ(Hash(TimestampTzType(),
                 Value::Timestamp(Ts("2017-11-16T14:31:08.000001-08:00", TypeId::kTimestampTz))),
            -1207196810);
  auto ts_ns = Primitive(TypeId::kTimestampNs);
  auto tstz_ns = Primitive(TypeId::kTimestampTzNs);
  EXPECT_EQ(Hash(ts_ns, Value::Timestamp(Ts("2017-11-16T22:31:08", TypeId::kTimestampNs))),
            -2047944441);
  EXPECT_EQ(
      Hash(ts_ns, Value::Timestamp(Ts("2017-11-16T22:31:08.000001001", TypeId::kTimestampNs))),
      -1207196810);
  EXPECT_EQ(Hash(tstz_ns, Value::Timestamp(Ts("2017-11-16T14:31:08-08:00", TypeId::kTimestampTzNs))),
            -2047944441);
  EXPECT_EQ(Hash(tstz_ns, Value::Timestamp(
                              Ts("2017-11-16T14:31:08.000001001-08:00", TypeId::kTimestampTzNs))),
            -1207196810);
  EXPECT_EQ(Hash(StringType(), Value::String("iceberg")), 1210000089);
  EXPECT_EQ(Hash(UuidType(), Value::Bytes(*ParseUuid("f79c3e09-677c-4bbd-a479-3f349cb785e7"))),
            1488055340);
  EXPECT_EQ(Hash(FixedType(4), Value::Bytes(std::string("\x00\x01\x02\x03", 4))), -188683207);
  EXPECT_EQ(Hash(BinaryType(), Value::Bytes(std::string("\x00\x01\x02\x03", 4))), -188683207);
  // Types not valid for bucketing, with the hashes the spec fixes for them.
  EXPECT_EQ(Hash(BooleanType(), Value::Boolean(true)), 1392991556);
  EXPECT_EQ(Hash(FloatType(), Value::Float(1.0f)), -142385009);
  EXPECT_EQ(Hash(FloatType(), Value::Float(0.0f)), 1669671676);
  EXPECT_EQ(Hash(FloatType(), Value::Float(-0.0f)), 1669671676);
  EXPECT_EQ(Hash(DoubleType(), Value::Double(1.0)), -142385009);
  EXPECT_EQ(Hash(DoubleType(), Value::Double(0.0)), 1669671676);
  EXPECT_EQ(Hash(DoubleType(), Value::Double(-0.0)), 1669671676);
  // Schema evolution note: "34" hashes differently from 34.
  EXPECT_EQ(Hash(StringType(), Value::String("34")), -427558391);
  // Hashing the 4-byte int is wrong (PITFALLS 83).
  int32_t days = 17486;
  EXPECT_EQ(static_cast<int32_t>(Murmur3X86_32(&days, 4)), 1087118125);
}

TEST(Murmur3, TailLengthsAndMinimalDecimalBytes) {
  // Every tail length of the block loop (1..3 extra bytes) against the generic path.
  EXPECT_EQ(HashBytes(std::string_view("\x00\x01\x02\x03", 4)), -188683207);
  EXPECT_NE(HashBytes("a"), HashBytes("ab"));
  EXPECT_NE(HashBytes("abc"), HashBytes("abcd"));
  uint8_t buf[16];
  EXPECT_EQ(MinimalBigEndian(0, buf), 1);
  EXPECT_EQ(buf[0], 0);
  EXPECT_EQ(MinimalBigEndian(127, buf), 1);
  EXPECT_EQ(MinimalBigEndian(128, buf), 2);  // 00 80
  EXPECT_EQ(buf[0], 0x00);
  EXPECT_EQ(buf[1], 0x80);
  EXPECT_EQ(MinimalBigEndian(-128, buf), 1);  // 80
  EXPECT_EQ(MinimalBigEndian(-129, buf), 2);  // ff 7f
  EXPECT_EQ(buf[0], 0xff);
  EXPECT_EQ(MinimalBigEndian(1420, buf), 2);  // 05 8c
}

TEST(Transform, ParsesAndPrints) {
  for (const char* s : {"identity", "bucket[16]", "truncate[4]", "year", "month", "day", "hour", "void"}) {
    auto t = Transform::Parse(s);
    ASSERT_TRUE(t) << s;
    EXPECT_EQ(t->ToString(), s);
  }
  EXPECT_EQ(Transform::Parse("BUCKET[3]")->param(), 3);
  EXPECT_FALSE(Transform::Parse("bucket[0]"));
  EXPECT_FALSE(Transform::Parse("bucket[x]"));
  EXPECT_FALSE(Transform::Parse("truncate[-1]"));
  EXPECT_FALSE(Transform::Parse("zorder"));
  auto unknown = Transform::Parse("zorder", /*allow_unknown=*/true);
  ASSERT_OK(unknown);
  EXPECT_TRUE(unknown->is_unknown());
  EXPECT_EQ(unknown->ToString(), "zorder");
  auto r = unknown->ResultType(IntType());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kUnsupported);
  EXPECT_FALSE(Transform::Parse("bucket[2", true) && !Transform::Parse("bucket[2", true)->is_unknown());
}

TEST(Transform, SourceTypesAndResultTypes) {
  EXPECT_EQ((*Transform::Bucket(4).ResultType(StringType()))->id, TypeId::kInt);
  EXPECT_EQ((*Transform::Day().ResultType(TimestampType()))->id, TypeId::kDate);
  EXPECT_EQ((*Transform::Month().ResultType(DateType()))->id, TypeId::kInt);
  EXPECT_EQ((*Transform::Truncate(3).ResultType(DecimalType(9, 2)))->ToString(), "decimal(9, 2)");
  EXPECT_EQ((*Transform::Void().ResultType(StringType()))->id, TypeId::kString);
  EXPECT_EQ((*Transform::Identity().ResultType(UuidType()))->id, TypeId::kUuid);

  auto err = Transform::Hour().ResultType(DateType());
  ASSERT_FALSE(err);
  EXPECT_NE(err.error().message.find("hour"), std::string::npos);
  EXPECT_NE(err.error().message.find("date"), std::string::npos);
  EXPECT_FALSE(Transform::Bucket(2).ResultType(DoubleType()));
  EXPECT_FALSE(Transform::Bucket(2).ResultType(BooleanType()));
  EXPECT_FALSE(Transform::Truncate(2).ResultType(UuidType()));
  EXPECT_FALSE(Transform::Truncate(2).ResultType(DateType()));
  EXPECT_FALSE(Transform::Year().ResultType(TimeType()));
  EXPECT_FALSE(Transform::Identity().ResultType(ListType(2, false, IntType())));
  EXPECT_TRUE(Transform::Bucket(2).CanTransform(*Primitive(TypeId::kTimestampTzNs)));
  EXPECT_TRUE(Transform::Hour().CanTransform(*Primitive(TypeId::kTimestampNs)));
}

Value Apply1(const Transform& t, const TypePtr& type, const Value& v) {
  auto r = t.Apply(type, v);
  EXPECT_TRUE(r) << r.error().ToString();
  return r.value_or(Value::Null());
}

TEST(Transform, TruncateVectors) {
  auto t10 = Transform::Truncate(10);
  EXPECT_EQ(Apply1(t10, IntType(), Value::Int(1)), Value::Int(0));
  EXPECT_EQ(Apply1(t10, IntType(), Value::Int(-1)), Value::Int(-10));
  EXPECT_EQ(Apply1(t10, IntType(), Value::Int(10)), Value::Int(10));
  EXPECT_EQ(Apply1(t10, LongType(), Value::Long(1)), Value::Long(0));
  EXPECT_EQ(Apply1(t10, LongType(), Value::Long(-1)), Value::Long(-10));
  EXPECT_EQ(Apply1(t10, LongType(), Value::Long(-10)), Value::Long(-10));
  // decimal W=50, scale 2: 10.65 -> 10.50
  EXPECT_EQ(Apply1(Transform::Truncate(50), DecimalType(9, 2), Value::Decimal(1065)),
            Value::Decimal(1050));
  EXPECT_EQ(Apply1(Transform::Truncate(50), DecimalType(9, 2), Value::Decimal(-1)),
            Value::Decimal(-50));
  EXPECT_EQ(Apply1(Transform::Truncate(3), StringType(), Value::String("iceberg")),
            Value::String("ice"));
  // Code points, not bytes: "é" is 2 bytes, "😀" is 4.
  EXPECT_EQ(Apply1(Transform::Truncate(2), StringType(), Value::String("\xC3\xA9\xF0\x9F\x98\x80x")),
            Value::String("\xC3\xA9\xF0\x9F\x98\x80"));
  EXPECT_EQ(Apply1(Transform::Truncate(3), StringType(), Value::String("ab")), Value::String("ab"));
  EXPECT_EQ(Apply1(Transform::Truncate(3), BinaryType(), Value::Bytes("\x01\x02\x03\x04\x05")),
            Value::Bytes("\x01\x02\x03"));
}

TEST(Transform, TimeTransformsFloorBeforeTheEpoch) {
  auto ts = TimestampType();
  int64_t t = Ts("2017-11-16T22:31:08", TypeId::kTimestamp);
  EXPECT_EQ(Apply1(Transform::Year(), ts, Value::Timestamp(t)), Value::Int(47));
  EXPECT_EQ(Apply1(Transform::Month(), ts, Value::Timestamp(t)), Value::Int(47 * 12 + 10));
  EXPECT_EQ(Apply1(Transform::Day(), ts, Value::Timestamp(t)), Value::Int(17486));
  EXPECT_EQ(Apply1(Transform::Hour(), ts, Value::Timestamp(t)), Value::Int(17486 * 24 + 22));

  int64_t before = Ts("1969-12-31T23:59:59.999999", TypeId::kTimestamp);
  EXPECT_EQ(before, -1);
  EXPECT_EQ(Apply1(Transform::Year(), ts, Value::Timestamp(before)), Value::Int(-1));
  EXPECT_EQ(Apply1(Transform::Month(), ts, Value::Timestamp(before)), Value::Int(-1));
  EXPECT_EQ(Apply1(Transform::Day(), ts, Value::Timestamp(before)), Value::Int(-1));
  EXPECT_EQ(Apply1(Transform::Hour(), ts, Value::Timestamp(before)), Value::Int(-1));

  auto date = DateType();
  EXPECT_EQ(Apply1(Transform::Day(), date, Value::Date(-1)), Value::Int(-1));
  EXPECT_EQ(Apply1(Transform::Month(), date, Value::Date(-1)), Value::Int(-1));
  EXPECT_EQ(Apply1(Transform::Year(), date, Value::Date(-1)), Value::Int(-1));
  EXPECT_EQ(Apply1(Transform::Year(), date, Value::Date(*ParseDate("1900-01-01"))), Value::Int(-70));
  EXPECT_EQ(Apply1(Transform::Month(), date, Value::Date(*ParseDate("1969-01-31"))), Value::Int(-12));
  EXPECT_EQ(Apply1(Transform::Month(), date, Value::Date(*ParseDate("2000-02-29"))), Value::Int(361));

  auto ns = Primitive(TypeId::kTimestampNs);
  EXPECT_EQ(Apply1(Transform::Day(), ns, Value::Timestamp(-1)), Value::Int(-1));
  EXPECT_EQ(Apply1(Transform::Hour(), ns, Value::Timestamp(3'600'000'000'000)), Value::Int(1));
  EXPECT_EQ(Apply1(Transform::Hour(), ns, Value::Timestamp(3'599'999'999'999)), Value::Int(0));
}

TEST(Transform, NullInputGivesNullAndVoidIsAlwaysNull) {
  const std::pair<Transform, TypePtr> cases[] = {
      {Transform::Identity(), StringType()}, {Transform::Bucket(4), LongType()},
      {Transform::Truncate(3), IntType()},   {Transform::Year(), DateType()},
      {Transform::Month(), TimestampType()}, {Transform::Day(), DateType()},
      {Transform::Hour(), TimestampTzType()}, {Transform::Void(), DateType()}};
  for (const auto& [t, type] : cases) {
    EXPECT_TRUE(Apply1(t, type, Value::Null()).is_null()) << t.ToString();
  }
  EXPECT_TRUE(Apply1(Transform::Void(), LongType(), Value::Long(5)).is_null());
  EXPECT_TRUE(Apply1(Transform::Void(), StringType(), Value::String("x")).is_null());
}

TEST(Transform, VectorizedApplyMatchesSingleValues) {
  ColumnVector col(StringType());
  col.AppendBytes("iceberg");
  col.AppendNull();
  col.AppendBytes("");
  col.AppendBytes("\xC3\xA9t\xC3\xA9");
  auto bucket = Transform::Bucket(16).Apply(col);
  ASSERT_TRUE(bucket) << bucket.error().ToString();
  ASSERT_OK(bucket->Validate());
  EXPECT_EQ(bucket->type->id, TypeId::kInt);
  EXPECT_EQ(bucket->length, 4);
  EXPECT_EQ(bucket->data<int32_t>()[0], BucketOfHash(1210000089, 16));
  EXPECT_TRUE(bucket->IsNull(1));
  auto trunc = Transform::Truncate(2).Apply(col);
  ASSERT_OK(trunc);
  ASSERT_OK(trunc->Validate());
  EXPECT_EQ(trunc->bytes(0), "ic");
  EXPECT_TRUE(trunc->IsNull(1));
  EXPECT_EQ(trunc->bytes(2), "");
  EXPECT_EQ(trunc->bytes(3), "\xC3\xA9t");

  ColumnVector ts(TimestampTzType());
  for (int64_t v : {int64_t{-1}, int64_t{0}, int64_t{1511000000000000}}) ts.Append(v);
  ts.AppendNull();
  auto days = Transform::Day().Apply(ts);
  ASSERT_OK(days);
  EXPECT_EQ(days->type->id, TypeId::kDate);
  EXPECT_EQ(days->data<int32_t>()[0], -1);
  EXPECT_EQ(days->data<int32_t>()[1], 0);
  EXPECT_EQ(days->data<int32_t>()[2], 17488);
  EXPECT_TRUE(days->IsNull(3));
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ValueAt(*days, i), Apply1(Transform::Day(), TimestampTzType(), ValueAt(ts, i)));
  }

  ColumnVector dec(DecimalType(9, 2));
  dec.Append(int128_t{1420});
  auto b = Transform::Bucket(100).Apply(dec);
  ASSERT_OK(b);
  EXPECT_EQ(b->data<int32_t>()[0], BucketOfHash(-500754589, 100));

  auto bad = Transform::Hour().Apply(dec);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kInvalidArgument);
}

TEST(Transform, DefaultPartitionNamesFollowJava) {
  EXPECT_EQ(Transform::Identity().DefaultPartitionName("x"), "x");
  EXPECT_EQ(Transform::Bucket(4).DefaultPartitionName("x"), "x_bucket");
  EXPECT_EQ(Transform::Truncate(4).DefaultPartitionName("x"), "x_trunc");
  EXPECT_EQ(Transform::Year().DefaultPartitionName("x"), "x_year");
  EXPECT_EQ(Transform::Month().DefaultPartitionName("x"), "x_month");
  EXPECT_EQ(Transform::Day().DefaultPartitionName("x"), "x_day");
  EXPECT_EQ(Transform::Hour().DefaultPartitionName("x"), "x_hour");
  EXPECT_EQ(Transform::Void().DefaultPartitionName("x"), "x_null");
}

TEST(Temporal, CivilRoundTripsAcrossCenturies) {
  for (int64_t d = -800000; d <= 800000; d += 37) {
    CivilDate c = CivilFromDays(d);
    ASSERT_EQ(DaysFromCivil(c.year, c.month, c.day), d);
  }
  EXPECT_EQ(DaysFromCivil(2017, 11, 16), 17486);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(FloorDiv(-1, 10), -1);
  EXPECT_EQ(FloorMod(-1, 10), 9);
}

}  // namespace transform_test
}  // namespace floe::iceberg
