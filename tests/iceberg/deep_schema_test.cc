// Deeply nested schemas and JSON in table metadata (issue 7): an error that
// names the limit, never a stack overflow, for every way a schema is read.
#include <gtest/gtest.h>

#include <string>

#include "floe/iceberg/schema_json.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/util/nesting.h"

namespace floe::iceberg {
namespace deep_schema_test {

// A schema whose field `d` nests `depth` types of `kind` (struct, list, map).
std::string DeepSchema(int depth, const std::string& kind) {
  std::string open, close;
  int id = 2;
  for (int i = 0; i < depth; ++i) {
    if (kind == "struct") {
      open += fmt::format(
          R"({{"type":"struct","fields":[{{"id":{},"name":"f","required":false,"type":)", ++id);
      close += "}]}";
    } else if (kind == "list") {
      open += fmt::format(R"({{"type":"list","element-id":{},"element-required":false,"element":)",
                          ++id);
      close += "}";
    } else {
      open += fmt::format(
          R"({{"type":"map","key-id":{},"key":"string","value-id":{},"value-required":false,"value":)",
          id + 1, id + 2);
      id += 2;
      close += "}";
    }
  }
  return fmt::format(
      R"({{"type":"struct","schema-id":0,"fields":[{{"id":1,"name":"id","required":false,"type":"long"}},)"
      R"({{"id":2,"name":"d","required":false,"type":{}"long"{}}}]}})",
      open, close);
}

std::string Metadata(const std::string& schema, const std::string& extra = "") {
  return fmt::format(
      R"({{"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","location":"file:/tmp/t",)"
      R"("last-sequence-number":0,"last-updated-ms":1,"last-column-id":100000,"current-schema-id":0,)"
      R"("schemas":[{}],"default-spec-id":0,"partition-specs":[{{"spec-id":0,"fields":[]}}],)"
      R"("last-partition-id":999,"default-sort-order-id":0,"sort-orders":[{{"order-id":0,"fields":[]}}],)"
      R"("properties":{{}}{}}})",
      schema, extra);
}

TEST(DeepSchema, StructsListsAndMapsPastTheLimitAreCorruptNamingTheLimit) {
  for (const char* kind : {"struct", "list", "map"}) {
    for (int depth : {kMaxTypeDepth + 1, 5000}) {
      auto s = SchemaFromJson(DeepSchema(depth, kind));
      ASSERT_FALSE(s) << kind << " " << depth;
      EXPECT_EQ(s.error().kind, ErrorKind::kCorrupt);
      // Just past the type limit: that limit is named; far past it, the JSON
      // limit (three JSON levels per struct) may be hit first.
      std::string limit =
          std::to_string(depth == kMaxTypeDepth + 1 ? kMaxTypeDepth : kMaxJsonDepth);
      if (depth != kMaxTypeDepth + 1 &&
          s.error().message.find("types nested") != std::string::npos) {
        limit = std::to_string(kMaxTypeDepth);
      }
      EXPECT_NE(s.error().message.find("nested deeper than " + limit), std::string::npos)
          << kind << " " << depth << ": " << s.error().message;
    }
  }
}

TEST(DeepSchema, NestingUpToTheLimitIsRead) {
  for (const char* kind : {"struct", "list", "map"}) {
    // Field `d` is level 1; its type nests kMaxTypeDepth - 1 more.
    auto s = SchemaFromJson(DeepSchema(kMaxTypeDepth - 1, kind));
    ASSERT_TRUE(s) << kind << ": " << s.error().ToString();
    auto back = SchemaToJson(*s);
    ASSERT_TRUE(back) << back.error().ToString();
  }
}

TEST(DeepSchema, TableMetadataWithADeepSchemaIsAnError) {
  for (int depth : {kMaxTypeDepth + 1, 5000, 50000}) {
    auto md = TableMetadataFromJson(Metadata(DeepSchema(depth, "struct")));
    ASSERT_FALSE(md) << depth;
    EXPECT_EQ(md.error().kind, ErrorKind::kCorrupt) << md.error().ToString();
    EXPECT_NE(md.error().message.find("nested deeper than"), std::string::npos)
        << md.error().message;
  }
  auto lists = TableMetadataFromJson(Metadata(DeepSchema(50000, "list")));
  ASSERT_FALSE(lists);
  EXPECT_NE(lists.error().message.find("nested deeper than"), std::string::npos)
      << lists.error().message;
}

TEST(DeepSchema, DeepJsonAnywhereInTableMetadataIsAnError) {
  std::string junk = ",\"x-extra\":" + std::string(100000, '[') + std::string(100000, ']');
  auto md = TableMetadataFromJson(Metadata(DeepSchema(1, "struct"), junk));
  ASSERT_FALSE(md);
  EXPECT_EQ(md.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(md.error().message.find(fmt::format("nested deeper than {} levels", kMaxJsonDepth)),
            std::string::npos)
      << md.error().message;
  // The same document without the junk is fine.
  auto ok = TableMetadataFromJson(Metadata(DeepSchema(1, "struct")));
  EXPECT_TRUE(ok) << ok.error().ToString();
}

}  // namespace deep_schema_test
}  // namespace floe::iceberg
