// Avro schema model: parsing, writing back with every attribute, names and
// references, rejection of malformed schemas.
#include "floe/avro/schema.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testing/matchers.h"

namespace floe::avro {
namespace schema_test {

TEST(AvroSchema, ParsesEveryKindAndKeepsAttributes) {
  const char* text = R"({"type":"record","name":"manifest_entry","namespace":"org.x","doc":"top","fields":[
    {"name":"status","type":"int","field-id":0},
    {"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},
    {"name":"ts","type":{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true},"field-id":5},
    {"name":"d","type":{"type":"int","logicalType":"date"}},
    {"name":"dec","type":{"type":"fixed","name":"decimal_9_2","size":4,"logicalType":"decimal","precision":9,"scale":2}},
    {"name":"u","type":{"type":"fixed","name":"uuid_fixed","size":16,"logicalType":"uuid"}},
    {"name":"tags","type":{"type":"array","items":"string","element-id":7},"field-id":6},
    {"name":"props","type":{"type":"map","values":"string","key-id":9,"value-id":10},"field-id":8},
    {"name":"sizes","type":{"type":"array","logicalType":"map","items":{"type":"record","name":"k117_v118",
       "fields":[{"name":"key","type":"int","field-id":117},{"name":"value","type":"long","field-id":118}]}}},
    {"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"],"default":"A"}},
    {"name":"dec2","type":"decimal_9_2"},
    {"name":"dec3","type":"org.x.decimal_9_2","doc":"ref by full name","order":"descending"}
  ]})";
  auto schema = AvroSchema::Parse(text);
  ASSERT_TRUE(schema) << schema.error().ToString();
  const Node& root = *schema->root();
  EXPECT_EQ(root.full_name(), "org.x.manifest_entry");
  EXPECT_EQ(root.doc, "top");
  ASSERT_EQ(root.fields.size(), 12u);
  EXPECT_EQ(root.fields[0].field_id(), 0);
  EXPECT_EQ(root.fields[1].type->OptionalBranch(), 1);
  EXPECT_EQ(root.fields[1].default_json, "null");
  EXPECT_EQ(root.fields[2].type->logical_type, "timestamp-micros");
  EXPECT_EQ(root.fields[2].type->attributes.GetBool("adjust-to-utc"), true);
  EXPECT_EQ(root.fields[4].type->precision, 9);
  EXPECT_EQ(root.fields[4].type->scale, 2);
  EXPECT_EQ(root.fields[4].type->full_name(), "org.x.decimal_9_2");
  EXPECT_EQ(root.fields[6].type->attributes.GetInt("element-id"), 7);
  EXPECT_EQ(root.fields[7].type->attributes.GetInt("key-id"), 9);
  EXPECT_EQ(root.fields[8].type->logical_type, "map");
  EXPECT_EQ(root.fields[9].type->enum_default, "A");
  // Name references resolve to the defining node.
  EXPECT_EQ(root.fields[10].type.get(), root.fields[4].type.get());
  EXPECT_EQ(root.fields[11].type.get(), root.fields[4].type.get());
  EXPECT_EQ(root.fields[11].attributes.GetString("order"), "descending");

  // Written back: equal JSON (references as names), and it parses to the same JSON again.
  std::string out = schema->ToJson();
  auto again = AvroSchema::Parse(out);
  ASSERT_TRUE(again) << again.error().ToString() << "\n" << out;
  EXPECT_EQ(again->ToJson(), out);
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["fields"][1]["field-id"], 1);
  EXPECT_TRUE(j["fields"][1]["default"].is_null());
  EXPECT_EQ(j["fields"][2]["type"]["adjust-to-utc"], true);
  EXPECT_EQ(j["fields"][6]["type"]["element-id"], 7);
  EXPECT_EQ(j["fields"][7]["type"]["value-id"], 10);
  EXPECT_EQ(j["fields"][8]["type"]["logicalType"], "map");
  EXPECT_EQ(j["fields"][4]["type"]["precision"], 9);
  EXPECT_EQ(j["fields"][10]["type"], "org.x.decimal_9_2");
  EXPECT_EQ(j["fields"][11]["order"], "descending");
}

TEST(AvroSchema, RejectsBadSchemas) {
  struct Case {
    const char* json;
    const char* message;
  };
  const Case cases[] = {
      {R"({"type":"record","name":"1bad","fields":[]})", "invalid name"},
      {R"({"type":"record","name":"r","fields":[{"name":"a-b","type":"int"}]})", "invalid field name"},
      {R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]})", "twice"},
      {R"({"type":"record","name":"r","fields":[{"name":"a","type":{"type":"fixed","name":"f","size":1}},
          {"name":"b","type":{"type":"fixed","name":"f","size":2}}]})", "defined twice"},
      {R"({"type":"record","name":"r","fields":[{"name":"a","type":"nothere"}]})", "unknown type name"},
      {R"({"type":"record","name":"r","fields":[{"name":"a","type":"r"}]})", "recursive"},
      {R"(["null","null"])", "two branches"},
      {R"(["null",["int"]])", "union may not contain a union"},
      {R"({"type":"enum","name":"e","symbols":["A","A"]})", "twice"},
      {R"({"type":"fixed","name":"f"})", "size"},
      {R"({"type":"array"})", "items"},
      {R"({"type":"record","name":"int","fields":[]})", "primitive"},
      {R"({"type":"fixed","name":"d","size":4,"logicalType":"decimal","precision":2,"scale":3})", "decimal"},
      {R"({"type":"record","name":"r"})", "fields"},
      {R"({"type":"record","name":"r",)", "not valid JSON"},
      {R"(42)", "expected a type"},
      {R"({"type":"record","name":"r","fields":[{"name":"a","type":["long","null"],"default":null}]})", "default"},
      {R"({"type":"record","name":"r","fields":[{"name":"a","type":"int","default":"x"}]})", "default"},
  };
  for (const auto& c : cases) {
    auto s = AvroSchema::Parse(c.json);
    ASSERT_FALSE(s) << c.json;
    EXPECT_EQ(s.error().kind, ErrorKind::kInvalidArgument);
    EXPECT_NE(s.error().message.find(c.message), std::string::npos) << c.json << " -> " << s.error().message;
  }
}

TEST(AvroSchema, BuiltSchemasValidateAndWriteReferences) {
  NodePtr fixed = MakeFixed("f16", 16);
  NodePtr rec = MakeRecord("top", {MakeField("a", fixed, 1), MakeField("b", fixed, 2),
                                   MakeField("c", MakeOptional(MakePrimitive(AvroType::kLong)), 3)});
  AvroSchema s(rec);
  ASSERT_OK(s.Validate());
  auto j = nlohmann::json::parse(s.ToJson());
  EXPECT_EQ(j["fields"][0]["type"]["type"], "fixed");
  EXPECT_EQ(j["fields"][1]["type"], "f16");
  EXPECT_EQ(j["fields"][2]["type"], nlohmann::json::parse(R"(["null","long"])"));
  // Two different nodes with one name are rejected.
  NodePtr dup = MakeRecord("top", {MakeField("a", MakeFixed("f16", 16)), MakeField("b", MakeFixed("f16", 8))});
  EXPECT_FALSE(AvroSchema(dup).Validate());
  NodePtr bad = MakeRecord("has space", {});
  EXPECT_FALSE(AvroSchema(bad).Validate());
}

TEST(AvroSchema, NameValidation) {
  EXPECT_TRUE(IsValidName("_a1"));
  EXPECT_TRUE(IsValidName("r102"));
  EXPECT_FALSE(IsValidName(""));
  EXPECT_FALSE(IsValidName("1a"));
  EXPECT_FALSE(IsValidName("a.b"));
  EXPECT_FALSE(IsValidName("é"));
}

}  // namespace schema_test
}  // namespace floe::avro
