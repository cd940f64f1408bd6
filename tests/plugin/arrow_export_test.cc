// Every Iceberg type reaches a write_batch plugin as Arrow C Data: the test
// sink reads the arrays back with its own reader of the C Data Interface
// (test_sink.cc) and logs schema and values, compared here; and the row
// accessors of invoke read every type.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/plugin/arrow_export.h"
#include "floe/plugin/plugin_internal.h"
#include "floe/plugin/plugin_sink.h"
#include "plugin_test_util.h"
#include "testing/matchers.h"

namespace floe::plugin {
namespace arrow_export_test {

using floe::test::Field;
using floe::test::HasErrorMessage;
using floe::test::IsError;
using test::Lines;
using test::PluginFile;

SchemaPtr AllTypesSchema() {
  return std::make_shared<Schema>(std::vector<NestedField>{
      Field(1, "b", BooleanType()),
      Field(2, "i", IntType()),
      Field(3, "l", LongType(), true),
      Field(4, "f", FloatType()),
      Field(5, "d", DoubleType()),
      Field(6, "dec", DecimalType(9, 2)),
      Field(7, "dt", DateType()),
      Field(8, "t", TimeType()),
      Field(9, "ts", TimestampType()),
      Field(10, "tstz", TimestampTzType()),
      Field(11, "tsn", Primitive(TypeId::kTimestampNs)),
      Field(12, "tstzn", Primitive(TypeId::kTimestampTzNs)),
      Field(13, "s", StringType()),
      Field(14, "u", UuidType()),
      Field(15, "fx", FixedType(3)),
      Field(16, "bin", BinaryType()),
      Field(17, "st", StructType({Field(20, "x", IntType()), Field(21, "y", StringType())})),
      Field(18, "li", ListType(22, false, LongType())),
      Field(19, "m", MapType(23, StringType(), 24, false, IntType())),
  });
}

// Row 0: a value in every column; row 1: nulls everywhere but the required `l`.
Batch AllTypesBatch() {
  Batch b(AllTypesSchema());
  auto& c = b.columns;
  c[0].Append<uint8_t>(1);
  c[1].Append<int32_t>(-5);
  c[2].Append<int64_t>(1234567890123);
  c[3].Append<float>(1.5f);
  c[4].Append<double>(-2.25);
  c[5].Append<int128_t>(12345);
  c[6].Append<int32_t>(19000);
  c[7].Append<int64_t>(3600000000);
  c[8].Append<int64_t>(1700000000000000);
  c[9].Append<int64_t>(1700000000000000);
  c[10].Append<int64_t>(1700000000000000001);
  c[11].Append<int64_t>(1700000000000000001);
  c[12].AppendBytes("hi");
  c[13].AppendBytes(
      std::string("\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff", 16));
  c[14].AppendBytes("abc");
  c[15].AppendBytes(std::string("\x00\x01\xff", 3));
  c[16].children[0].Append<int32_t>(7);
  c[16].children[1].AppendBytes("q");
  c[16].AppendStructRow();
  c[17].children[0].Append<int64_t>(10);
  c[17].children[0].Append<int64_t>(20);
  c[17].CloseListRow();
  c[18].children[0].AppendBytes("k1");
  c[18].children[1].Append<int32_t>(1);
  c[18].children[0].AppendBytes("k2");
  c[18].children[1].Append<int32_t>(2);
  c[18].CloseListRow();
  for (size_t i = 0; i < c.size(); ++i) {
    if (i == 2) {
      c[i].Append<int64_t>(-1);
    } else {
      c[i].AppendNull();
    }
  }
  b.num_rows = 2;
  b.row_kinds = {RowKind::kInsert, RowKind::kDelete};
  return b;
}

TEST(ArrowExport, EveryTypeReadBackByThePlugin) {
  ASSERT_OK(LoadPlugin(PluginFile("floe_test_sink")));
  auto dir = floe::test::FreshTestDir("plugin_arrow");
  std::string log = (dir / "calls.log").string();
  Batch batch = AllTypesBatch();
  ASSERT_OK(batch.Validate());
  {
    SinkSpec spec;
    spec.class_name = "test.BatchSink";
    spec.parameter = "log=" + log;
    spec.schema = batch.schema;
    ASSERT_OK_AND_ASSIGN(auto sink, PluginSink::Open(spec));
    ASSERT_OK(sink->Write(batch));
    ASSERT_OK(sink->Close());
  }
  auto lines = Lines(log);
  ASSERT_EQ(lines.size(), 7u) << floe::test::ReadFile(log);
  EXPECT_EQ(lines[0], "create test.BatchSink subtask=0 parallelism=1 columns=19");
  EXPECT_EQ(lines[2],
            "write_batch rows=2 schema=:+s<"
            "b:b:nullable:PARQUET:field_id=1,"
            "i:i:nullable:PARQUET:field_id=2,"
            "l:l:PARQUET:field_id=3,"
            "f:f:nullable:PARQUET:field_id=4,"
            "d:g:nullable:PARQUET:field_id=5,"
            "dec:d:9,2:nullable:PARQUET:field_id=6,"
            "dt:tdD:nullable:PARQUET:field_id=7,"
            "t:ttu:nullable:PARQUET:field_id=8,"
            "ts:tsu::nullable:PARQUET:field_id=9,"
            "tstz:tsu:UTC:nullable:PARQUET:field_id=10,"
            "tsn:tsn::nullable:PARQUET:field_id=11,"
            "tstzn:tsn:UTC:nullable:PARQUET:field_id=12,"
            "s:U:nullable:PARQUET:field_id=13,"
            "u:w:16:nullable:PARQUET:field_id=14:ARROW:extension:name=arrow.uuid,"
            "fx:w:3:nullable:PARQUET:field_id=15,"
            "bin:Z:nullable:PARQUET:field_id=16,"
            "st:+s:nullable:PARQUET:field_id=17<x:i:nullable:PARQUET:field_id=20,y:U:nullable:"
            "PARQUET:field_id=21>,"
            "li:+L:nullable:PARQUET:field_id=18<element:l:nullable:PARQUET:field_id=22>,"
            "m:+m:nullable:PARQUET:field_id=19<entries:+s<key:U:PARQUET:field_id=23,"
            "value:i:nullable:PARQUET:field_id=24>>>");
  EXPECT_EQ(
      lines[3],
      "  kind=0 b=true i=-5 l=1234567890123 f=1.5 d=-2.25 dec=dec(12345,2) dt=19000 t=3600000000 "
      "ts=1700000000000000 tstz=1700000000000000 tsn=1700000000000000001 tstzn=1700000000000000001 "
      "s=\"hi\" u=0x00112233445566778899aabbccddeeff fx=0x616263 bin=0x0001ff st={x:7,y:\"q\"} "
      "li=[10,20] m={\"k1\"=>1,\"k2\"=>2}");
  EXPECT_EQ(lines[4],
            "  kind=3 b=null i=null l=-1 f=null d=null dec=null dt=null t=null ts=null tstz=null "
            "tsn=null "
            "tstzn=null s=null u=null fx=null bin=null st=null li=null m=null");
  floe::test::RemoveTestDirIfPassed(dir);
}

TEST(ArrowExport, ZeroCopyWhereLayoutsAgree) {
  Batch batch = AllTypesBatch();
  ExportedArray a;
  ASSERT_OK(ExportBatch(batch, &a.array));
  ASSERT_EQ(a.array.n_children, 19);
  EXPECT_EQ(a.array.children[2]->buffers[1], batch.columns[2].values.data());     // long
  EXPECT_EQ(a.array.children[5]->buffers[1], batch.columns[5].values.data());     // decimal
  EXPECT_EQ(a.array.children[12]->buffers[1], batch.columns[12].offsets.data());  // string offsets
  EXPECT_EQ(a.array.children[12]->buffers[2], batch.columns[12].values.data());   // string bytes
  EXPECT_EQ(a.array.children[17]->buffers[1], batch.columns[17].offsets.data());  // list offsets
  EXPECT_EQ(a.array.children[2]->buffers[0], nullptr);  // no nulls: no bitmap
  EXPECT_EQ(a.array.children[1]->null_count, 1);
}

TEST(ArrowExport, RowAccessorsReadEveryType) {
  Batch batch = AllTypesBatch();
  const floe_host_api* h = internal::HostApi();
  floe_row row;
  row.batch = &batch;
  row.row = 0;
  ASSERT_EQ(h->row_column_count(&row), 19);
  EXPECT_STREQ(h->row_column_name(&row, 5), "dec");
  EXPECT_EQ(h->row_column_type(&row, 5), FLOE_TYPE_DECIMAL);
  EXPECT_EQ(h->row_column_type(&row, 19), -1);
  bool b = false;
  ASSERT_EQ(h->row_get_bool(&row, 0, &b), FLOE_OK);
  EXPECT_TRUE(b);
  int64_t v = 0;
  ASSERT_EQ(h->row_get_int64(&row, 1, &v), FLOE_OK);
  EXPECT_EQ(v, -5);
  ASSERT_EQ(h->row_get_int64(&row, 10, &v), FLOE_OK);
  EXPECT_EQ(v, 1700000000000000001);
  double d = 0;
  ASSERT_EQ(h->row_get_double(&row, 3, &d), FLOE_OK);
  EXPECT_EQ(d, 1.5);
  EXPECT_EQ(h->row_get_double(&row, 1, &d), FLOE_INVALID_ARGUMENT);  // an int is not read as double
  const char* p;
  size_t n;
  ASSERT_EQ(h->row_get_bytes(&row, 13, &p, &n), FLOE_OK);
  EXPECT_EQ(n, 16u);
  auto text = [&](int col) {
    EXPECT_EQ(h->row_get_text(&row, col, &p, &n), FLOE_OK) << col;
    return std::string(p, n);
  };
  EXPECT_EQ(text(0), "true");
  EXPECT_EQ(text(2), "1234567890123");
  EXPECT_EQ(text(5), "123.45");
  EXPECT_EQ(text(6), "2022-01-08");
  EXPECT_EQ(text(7), "01:00:00.000000");
  EXPECT_EQ(text(8), "2023-11-14T22:13:20.000000");
  EXPECT_EQ(text(9), "2023-11-14T22:13:20.000000+00:00");
  EXPECT_EQ(text(12), "hi");
  EXPECT_EQ(text(13), "00112233-4455-6677-8899-aabbccddeeff");
  EXPECT_EQ(text(15), "0001ff");
  EXPECT_EQ(text(16), "{\"x\":7,\"y\":\"q\"}");
  EXPECT_EQ(text(17), "[10,20]");
  ASSERT_EQ(h->row_get_json(&row, 18, &p, &n), FLOE_OK);
  EXPECT_EQ(std::string(p, n), "{\"keys\":[\"k1\",\"k2\"],\"values\":[1,2]}");
  row.row = 1;
  EXPECT_TRUE(h->row_is_null(&row, 0));
  EXPECT_FALSE(h->row_is_null(&row, 2));
  EXPECT_EQ(h->row_get_text(&row, 0, &p, &n), FLOE_INVALID_ARGUMENT);  // null
  ASSERT_EQ(h->row_get_json(&row, 0, &p, &n), FLOE_OK);
  EXPECT_EQ(std::string(p, n), "null");
}

}  // namespace arrow_export_test
}  // namespace floe::plugin
