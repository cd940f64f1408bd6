// Deep Avro schemas (manifests embed them; issue 7): nesting past the limit,
// in schema nodes or in an attribute's JSON, is an error, never a crash.
#include <gtest/gtest.h>

#include <string>

#include "floe/avro/schema.h"
#include "floe/util/nesting.h"

namespace floe::avro {
namespace deep_schema_test {

std::string Repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(AvroDeepSchema, NestedArraysPastTheLimitAreAnError) {
  for (int depth : {kMaxTypeDepth + 5, 5000, 100000}) {
    std::string json =
        Repeat(R"({"type":"array","items":)", depth) + "\"int\"" + Repeat("}", depth);
    auto s = AvroSchema::Parse(json);
    ASSERT_FALSE(s) << depth;
    EXPECT_NE(s.error().message.find("nested deeper than"), std::string::npos) << s.error().message;
  }
}

TEST(AvroDeepSchema, DeepRecordsPastTheLimitAreAnError) {
  std::string json;
  for (int i = 0; i < 3000; ++i)
    json += fmt::format(R"({{"type":"record","name":"r{}","fields":[{{"name":"f","type":)", i);
  json += "\"int\"" + Repeat("}]}", 3000);
  auto s = AvroSchema::Parse(json);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("nested deeper than"), std::string::npos) << s.error().message;
}

TEST(AvroDeepSchema, DeepJsonInAnAttributeOrDefaultIsAnError) {
  std::string deep = Repeat("[", 200000) + Repeat("]", 200000);
  for (
      const std::string& json :
      {R"({"type":"record","name":"r","fields":[{"name":"f","type":"int","x-attr":)" + deep + "}]}",
       R"({"type":"record","name":"r","fields":[{"name":"f","type":{"type":"array","items":"int"},"default":)" +
           deep + "}]}",
       R"({"type":"int","x-attr":)" + deep + "}"}) {
    auto s = AvroSchema::Parse(json);
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find(fmt::format("nested deeper than {} levels", kMaxJsonDepth)),
              std::string::npos)
        << s.error().message;
  }
}

TEST(AvroDeepSchema, NestingUpToTheLimitParsesAndWritesBack) {
  int depth = kMaxTypeDepth - 1;
  std::string json = Repeat(R"({"type":"array","items":)", depth) + "\"int\"" + Repeat("}", depth);
  auto s = AvroSchema::Parse(json);
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->ToJson(), json);
}

}  // namespace deep_schema_test
}  // namespace floe::avro
