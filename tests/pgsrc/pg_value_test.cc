// PostgreSQL text values into floe columns (pgsrc/pg_value.h): the type
// mapping, the text forms (arrays with quoting and NULL, bytea hex, floats'
// words, timestamptz in UTC), the values refused with a message, and COPY's
// text-format escapes. The end-to-end path is tests/cli/pg_source_cli_test.cc.
#include <gtest/gtest.h>

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

TEST(PgValue, CopyEscapes) {
  std::string out;
  EXPECT_FALSE(UnescapeCopyField("\\N", &out));
  ASSERT_TRUE(UnescapeCopyField("a\\tb\\\\c\\nd\\101\\x41", &out));
  EXPECT_EQ(out, "a\tb\\c\nd" "AA");
  ASSERT_TRUE(UnescapeCopyField("", &out));
  EXPECT_EQ(out, "");
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
