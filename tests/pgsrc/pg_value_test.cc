// PostgreSQL values into floe columns (pgsrc/pg_value.h): the type
// mapping, the text forms (arrays with quoting and NULL, bytea hex, floats'
// words, timestamptz in UTC), the binary send forms of the snapshot's COPY,
// and the values refused with a message. The end-to-end path is
// tests/cli/pg_source_cli_test.cc.
#include <gtest/gtest.h>

#include <bit>

#include "floe/pgsrc/pg_source.h"
#include "floe/pgsrc/pg_value.h"

namespace floe::pgsrc {
namespace {

PgColumn Col(uint32_t oid, int32_t typmod = -1, uint32_t elem = 0) {
  PgColumn c;
  c.name = "c";
  c.type_oid = oid;
  c.typmod = typmod;
  c.elem_oid = elem;
  return c;
}

TEST(PgValue, TypeMapping) {
  int32_t next = 10;
  EXPECT_EQ(IcebergTypeOf(Col(21), &next)->id, TypeId::kInt);
  EXPECT_EQ(IcebergTypeOf(Col(23), &next)->id, TypeId::kInt);
  EXPECT_EQ(IcebergTypeOf(Col(20), &next)->id, TypeId::kLong);
  // numeric(12,3): typmod = (12 << 16 | 3) + 4
  TypePtr dec = IcebergTypeOf(Col(1700, (12 << 16 | 3) + 4), &next);
  ASSERT_EQ(dec->id, TypeId::kDecimal);
  EXPECT_EQ(dec->precision, 12);
  EXPECT_EQ(dec->scale, 3);
  EXPECT_EQ(IcebergTypeOf(Col(1700), &next)->id, TypeId::kString);                    // unconstrained
  EXPECT_EQ(IcebergTypeOf(Col(1700, (40 << 16 | 2) + 4), &next)->id, TypeId::kString);  // beyond 38 digits
  EXPECT_EQ(IcebergTypeOf(Col(1184), &next)->id, TypeId::kTimestampTz);
  EXPECT_EQ(IcebergTypeOf(Col(869), &next)->id, TypeId::kString);  // inet
  TypePtr list = IcebergTypeOf(Col(1007, -1, 23), &next);      // integer[]
  ASSERT_EQ(list->id, TypeId::kList);
  EXPECT_EQ(list->fields[0].id, 10);
  EXPECT_EQ(list->fields[0].type->id, TypeId::kInt);
  EXPECT_EQ(next, 11);
}

TEST(PgValue, TextForms) {
  ColumnVector f(FloatType());
  ASSERT_TRUE(AppendPgText(&f, *f.type, 700, "NaN"));
  ASSERT_TRUE(AppendPgText(&f, *f.type, 700, "-Infinity"));
  EXPECT_TRUE(std::isnan(f.data<float>()[0]));
  EXPECT_EQ(f.data<float>()[1], -std::numeric_limits<float>::infinity());

  ColumnVector b(BinaryType());
  ASSERT_TRUE(AppendPgText(&b, *b.type, 17, "\\x00ff"));
  EXPECT_EQ(b.bytes(0), std::string("\x00\xff", 2));
  EXPECT_FALSE(AppendPgText(&b, *b.type, 17, "00ff"));  // escape form: not what floe's connections produce

  ColumnVector tz(TimestampTzType());
  ASSERT_TRUE(AppendPgText(&tz, *tz.type, 1184, "1970-01-01 00:00:01.5+00"));
  EXPECT_EQ(tz.data<int64_t>()[0], 1500000);
  EXPECT_FALSE(AppendPgText(&tz, *tz.type, 1184, "1970-01-01 00:00:01+02"));
  EXPECT_FALSE(AppendPgText(&tz, *tz.type, 1184, "infinity"));

  ColumnVector d(DecimalType(5, 2));
  ASSERT_TRUE(AppendPgText(&d, *d.type, 1700, "-123.45"));
  auto nan = AppendPgText(&d, *d.type, 1700, "NaN");
  ASSERT_FALSE(nan);
  EXPECT_NE(nan.error().message.find("NaN"), std::string::npos);

  int32_t next = 2;
  TypePtr lt = IcebergTypeOf(Col(1009, -1, 25), &next);  // text[]
  ColumnVector l(lt);
  ASSERT_TRUE(AppendPgText(&l, *lt, 1009, R"({"a,b",NULL,"","x\"y",plain,"NULL"})"));
  ASSERT_TRUE(AppendPgText(&l, *lt, 1009, "{}"));
  ASSERT_TRUE(AppendPgText(&l, *lt, 1009, "[0:1]={p,q}"));
  ASSERT_EQ(l.length, 3);
  const ColumnVector& e = l.children[0];
  ASSERT_EQ(e.length, 8);
  EXPECT_EQ(e.bytes(0), "a,b");
  EXPECT_TRUE(e.IsNull(1));
  EXPECT_EQ(e.bytes(2), "");
  EXPECT_EQ(e.bytes(3), "x\"y");
  EXPECT_EQ(e.bytes(4), "plain");
  EXPECT_EQ(e.bytes(5), "NULL");  // quoted: the text NULL, not a null
  EXPECT_EQ(e.bytes(6), "p");
  auto multi = AppendPgText(&l, *lt, 1009, "{{1,2},{3,4}}");
  ASSERT_FALSE(multi);
  EXPECT_NE(multi.error().message.find("multi-dimensional"), std::string::npos);
}

// Binary send forms (what the snapshot's binary COPY sends), and the
// values the text path refuses refused here too.
TEST(PgValue, BinaryForms) {
  auto be = [](uint64_t v, int n) {
    std::string s;
    for (int i = n - 1; i >= 0; --i) s += static_cast<char>((v >> (8 * i)) & 0xff);
    return s;
  };
  ColumnVector i2(IntType()), i4(IntType()), i8(LongType()), o(LongType());
  ASSERT_TRUE(AppendPgBinary(&i2, *i2.type, 21, be(0x8000, 2)));
  ASSERT_TRUE(AppendPgBinary(&i4, *i4.type, 23, be(0xfffffffe, 4)));
  ASSERT_TRUE(AppendPgBinary(&i8, *i8.type, 20, be(0x8000000000000000ull, 8)));
  ASSERT_TRUE(AppendPgBinary(&o, *o.type, 26, be(0xffffffff, 4)));
  EXPECT_EQ(i2.data<int32_t>()[0], -32768);
  EXPECT_EQ(i4.data<int32_t>()[0], -2);
  EXPECT_EQ(i8.data<int64_t>()[0], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(o.data<int64_t>()[0], 4294967295LL);
  EXPECT_FALSE(AppendPgBinary(&i4, *i4.type, 23, be(1, 2)));  // a cut value

  ColumnVector f8(DoubleType());
  ASSERT_TRUE(AppendPgBinary(&f8, *f8.type, 701, be(std::bit_cast<uint64_t>(-1.5), 8)));
  EXPECT_EQ(f8.data<double>()[0], -1.5);

  // Dates: days since 2000-01-01; the text path's range (years 1 to 9999), no infinities.
  ColumnVector d(DateType());
  ASSERT_TRUE(AppendPgBinary(&d, *d.type, 1082, be(static_cast<uint32_t>(-10957), 4)));
  EXPECT_EQ(d.data<int32_t>()[0], 0);  // 1970-01-01
  auto inf = AppendPgBinary(&d, *d.type, 1082, be(0x7fffffff, 4));
  ASSERT_FALSE(inf);
  EXPECT_NE(inf.error().message.find("infinity"), std::string::npos);
  EXPECT_FALSE(AppendPgBinary(&d, *d.type, 1082, be(static_cast<uint32_t>(-730120), 4)));  // 1 BC
  ASSERT_TRUE(AppendPgBinary(&d, *d.type, 1082, be(static_cast<uint32_t>(-730119), 4)));    // 0001-01-01
  EXPECT_FALSE(AppendPgBinary(&d, *d.type, 1082, be(2932897 - 10957, 4)));                  // 10000-01-01

  ColumnVector ts(TimestampType()), tm(TimeType());
  ASSERT_TRUE(AppendPgBinary(&ts, *ts.type, 1114, be(1, 8)));
  EXPECT_EQ(ts.data<int64_t>()[0], 946684800000001LL);
  EXPECT_FALSE(AppendPgBinary(&ts, *ts.type, 1114, be(0x7fffffffffffffffull, 8)));
  EXPECT_FALSE(AppendPgBinary(&ts, *ts.type, 1184, be(0x8000000000000000ull, 8)));
  EXPECT_FALSE(AppendPgBinary(&tm, *tm.type, 1083, be(86400000000ull, 8)));  // 24:00:00
  ASSERT_TRUE(AppendPgBinary(&tm, *tm.type, 1083, be(86399999999ull, 8)));

  ColumnVector j(StringType());
  ASSERT_TRUE(AppendPgBinary(&j, *j.type, 3802, std::string("\x01{}", 3)));
  EXPECT_EQ(j.bytes(0), "{}");
  EXPECT_FALSE(AppendPgBinary(&j, *j.type, 3802, std::string("\x02{}", 3)));  // an unknown jsonb version
  ASSERT_TRUE(AppendPgBinary(&j, *j.type, 1042, "ab   "));                    // char(5): padded, as text
  EXPECT_EQ(j.bytes(1), "ab   ");

  // Numeric, arrays, enums, ... have no binary form floe reads: selected as text.
  EXPECT_TRUE(HasPgBinaryForm(Col(23)));
  EXPECT_TRUE(HasPgBinaryForm(Col(3802)));
  EXPECT_FALSE(HasPgBinaryForm(Col(1700)));
  EXPECT_FALSE(HasPgBinaryForm(Col(1007, -1, 23)));
  EXPECT_FALSE(HasPgBinaryForm(Col(869)));
}

TEST(PgValue, Lsn) {
  auto lsn = ParseLsn("16/B374D848");
  ASSERT_TRUE(lsn);
  EXPECT_EQ(*lsn, (uint64_t{0x16} << 32) | 0xB374D848);
  EXPECT_EQ(FormatLsn(*lsn), "16/B374D848");
  EXPECT_FALSE(ParseLsn("16B374D848"));
  EXPECT_FALSE(ParseLsn("x/1"));
}

}  // namespace
}  // namespace floe::pgsrc
