// The parsed-metadata cache answers only for the same location with the
// same bytes: a path reused for another table's first version (drop, then
// create again) is parsed afresh, and a damaged file is an error each time.
#include "floe/catalog/metadata_cache.h"

#include <gtest/gtest.h>

#include "floe/iceberg/metadata_updates.h"
#include "testing/matchers.h"

namespace floe::catalog {
namespace metadata_cache_test {

iceberg::TableMetadata NewTable(const std::string& owner) {
  iceberg::NewTableOptions o;
  o.location = "file:/tmp/wh/db/t";
  o.schema = Schema({{1, "id", true, LongType(), {}}}, 0, {});
  o.properties = {{"owner", owner}};
  o.now_ms = 1700000000000;
  return *iceberg::NewTableMetadata(o);
}

TEST(MetadataCache, SameLocationOtherBytesIsParsedAfresh) {
  const std::string path = "/tmp/wh/db/t/metadata/v1.metadata.json";
  auto a = NewTable("a");
  auto b = NewTable("b");
  std::string ja = *iceberg::TableMetadataToJson(a);
  std::string jb = *iceberg::TableMetadataToJson(b);
  ASSERT_OK_AND_ASSIGN(auto pa, ParseMetadataFile(path, ja));
  EXPECT_EQ(pa.properties.at("owner"), "a");
  ASSERT_OK_AND_ASSIGN(auto pb, ParseMetadataFile(path, jb));
  EXPECT_EQ(pb.properties.at("owner"), "b");
  ASSERT_OK_AND_ASSIGN(auto again, ParseMetadataFile(path, ja));
  EXPECT_EQ(again, pa);
  // Remembered on write: the same value comes back for those bytes.
  iceberg::TableMetadata c = NewTable("c");
  std::string jc = *iceberg::TableMetadataToJson(c);
  RememberMetadataFile(path, jc, c);
  ASSERT_OK_AND_ASSIGN(auto pc, ParseMetadataFile(path, jc));
  EXPECT_EQ(pc, c);
  EXPECT_EQ(pc, *iceberg::TableMetadataFromJson(jc));  // what a parse gives
  // Damage is an error every time, never a cached value.
  std::string damaged = ja.substr(0, ja.size() / 2);
  EXPECT_FALSE(ParseMetadataFile(path, damaged));
  EXPECT_FALSE(ParseMetadataFile(path, damaged));
}

}  // namespace metadata_cache_test
}  // namespace floe::catalog
