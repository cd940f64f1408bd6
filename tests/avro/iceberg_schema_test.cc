// Iceberg <-> Avro schema mapping (Iceberg spec Appendix A), checked against
// the exact schemas Iceberg Java wrote into the golden manifests.
#include "floe/avro/iceberg_schema.h"
#include "floe/types/names.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "floe/avro/container.h"
#include "floe/io/file.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::avro {
namespace iceberg_schema_test {

namespace fs = std::filesystem;
using Json = nlohmann::json;

TEST(IcebergAvro, SanitizeLikeJava) {
  EXPECT_EQ(SanitizeName("col"), "col");
  EXPECT_EQ(SanitizeName("Breed Name"), "Breed_x20Name");
  EXPECT_EQ(SanitizeName("1st"), "_1st");
  EXPECT_EQ(SanitizeName("a.b-c"), "a_x2Eb_x2Dc");
  EXPECT_EQ(SanitizeName("9"), "_9");
  EXPECT_EQ(SanitizeName("é"), "_xE9");
  EXPECT_EQ(SanitizeName("a€"), "a_x20AC");
  EXPECT_TRUE(IsValidName(SanitizeName("x y.z/ü 1")));
}

TEST(IcebergAvro, EveryTypeMapsAsJavaDoes) {
  Schema schema({
      {1, "b", true, BooleanType(), ""},
      {2, "i", false, IntType(), "an int"},
      {3, "l", true, LongType(), ""},
      {4, "f", true, FloatType(), ""},
      {5, "d", true, DoubleType(), ""},
      {6, "dec", true, DecimalType(9, 2), ""},
      {7, "dt", true, DateType(), ""},
      {8, "t", true, TimeType(), ""},
      {9, "ts", true, TimestampType(), ""},
      {10, "tstz", true, TimestampTzType(), ""},
      {11, "s", true, StringType(), ""},
      {12, "u", true, UuidType(), ""},
      {13, "fx", true, FixedType(3), ""},
      {14, "bin", true, BinaryType(), ""},
      {15, "dec2", false, DecimalType(9, 2), ""},
      {16, "list", true, ListType(17, true, StructType({{18, "x", true, IntType(), ""}})), ""},
      {19, "smap", true, MapType(20, StringType(), 21, false, LongType()), ""},
      {22, "imap", false, MapType(23, IntType(), 24, true, BinaryType()), ""},
      {25, "a b", true, StringType(), ""},
  });
  auto avro = ToAvroSchema(schema, "row");
  ASSERT_TRUE(avro) << avro.error().ToString();
  Json j = Json::parse(avro->ToJson());
  Json expected = Json::parse(R"({"type":"record","name":"row","fields":[
    {"name":"b","type":"boolean","field-id":1},
    {"name":"i","type":["null","int"],"doc":"an int","default":null,"field-id":2},
    {"name":"l","type":"long","field-id":3},
    {"name":"f","type":"float","field-id":4},
    {"name":"d","type":"double","field-id":5},
    {"name":"dec","type":{"type":"fixed","name":"decimal_9_2","size":4,"logicalType":"decimal","precision":9,"scale":2},"field-id":6},
    {"name":"dt","type":{"type":"int","logicalType":"date"},"field-id":7},
    {"name":"t","type":{"type":"long","logicalType":"time-micros"},"field-id":8},
    {"name":"ts","type":{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":false},"field-id":9},
    {"name":"tstz","type":{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true},"field-id":10},
    {"name":"s","type":"string","field-id":11},
    {"name":"u","type":{"type":"fixed","name":"uuid_fixed","size":16,"logicalType":"uuid"},"field-id":12},
    {"name":"fx","type":{"type":"fixed","name":"fixed_3","size":3},"field-id":13},
    {"name":"bin","type":"bytes","field-id":14},
    {"name":"dec2","type":["null",{"type":"fixed","name":"decimal_9_2_15","size":4,"logicalType":"decimal","precision":9,"scale":2}],"default":null,"field-id":15},
    {"name":"list","type":{"type":"array","items":{"type":"record","name":"r17","fields":[{"name":"x","type":"int","field-id":18}]},"element-id":17},"field-id":16},
    {"name":"smap","type":{"type":"map","values":["null","long"],"key-id":20,"value-id":21},"field-id":19},
    {"name":"imap","type":["null",{"type":"array","items":{"type":"record","name":"k23_v24","fields":[
        {"name":"key","type":"int","field-id":23},{"name":"value","type":"bytes","field-id":24}]},"logicalType":"map"}],"default":null,"field-id":22},
    {"name":"a_x20b","type":"string","field-id":25,"iceberg-field-name":"a b"}]})");
  EXPECT_EQ(j, expected) << j.dump(1);

  // And back: the same Iceberg schema, original names included.
  auto back = FromAvroSchema(*avro);
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_EQ(*back, schema) << back->ToString() << "\n" << schema.ToString();
  // Every record and fixed name is distinct (no references for icebird).
  EXPECT_EQ(avro->ToJson().find("\"type\":\"decimal_9_2\""), std::string::npos);
}

TEST(IcebergAvro, FromAvroNeedsIds) {
  auto no_field_id = AvroSchema::Parse(R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"}]})");
  auto r = FromAvroSchema(*no_field_id);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("field-id"), std::string::npos);
  auto no_element_id = AvroSchema::Parse(
      R"({"type":"record","name":"r","fields":[{"name":"a","type":{"type":"array","items":"int"},"field-id":1}]})");
  r = FromAvroSchema(*no_element_id);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("element-id"), std::string::npos);
  auto no_key_id = AvroSchema::Parse(
      R"({"type":"record","name":"r","fields":[{"name":"a","type":{"type":"map","values":"int","value-id":3},"field-id":1}]})");
  r = FromAvroSchema(*no_key_id);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("key-id"), std::string::npos);
  auto wide_decimal = AvroSchema::Parse(
      R"({"type":"record","name":"r","fields":[{"name":"a","type":{"type":"fixed","name":"d","size":4,"logicalType":"decimal","precision":12,"scale":2},"field-id":1}]})");
  r = FromAvroSchema(*wide_decimal);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("decimal(12, 2)"), std::string::npos) << r.error().message;
  auto wide_union = AvroSchema::Parse(
      R"({"type":"record","name":"r","fields":[{"name":"a","type":["null","int","string"],"field-id":1}]})");
  r = FromAvroSchema(*wide_union);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kUnsupported);
}

fs::path SharedDir() { return test::SharedDir(); }

// Java's manifest and manifest-list schemas -> Iceberg -> Avro again gives
// Java's schema back, attribute for attribute.
TEST(IcebergAvro, JavaManifestSchemasRoundTrip) {
  fs::path golden = SharedDir() / "interop" / "golden";
  ASSERT_TRUE(fs::exists(golden)) << golden;
  int checked = 0;
  for (const auto& table : fs::directory_iterator(golden)) {
    if (!fs::is_directory(table.path() / "metadata")) continue;
    for (const auto& f : fs::directory_iterator(table.path() / "metadata")) {
      if (f.path().extension() != ".avro") continue;
      SCOPED_TRACE(f.path().string());
      auto in = OpenLocalInput(f.path().string());
      ASSERT_OK(in);
      auto reader = ContainerReader::Open(std::move(*in));
      ASSERT_TRUE(reader) << reader.error().ToString();
      const AvroSchema& written = (*reader)->writer_schema();
      auto iceberg = FromAvroSchema(written);
      ASSERT_TRUE(iceberg) << iceberg.error().ToString();
      auto again = ToAvroSchema(*iceberg, written.root()->name);
      ASSERT_TRUE(again) << again.error().ToString();
      Json want = Json::parse(written.ToJson());
      Json got = Json::parse(again->ToJson());
      EXPECT_EQ(got, want) << "floe:\n" << got.dump() << "\njava:\n" << want.dump();
      ++checked;
    }
  }
  EXPECT_GE(checked, 20);
}

}  // namespace iceberg_schema_test
}  // namespace floe::avro
