#include "floe/io/location.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace floe {
namespace location_test {

TEST(Location, FileUrisAndAbsolutePaths) {
  EXPECT_EQ(FileUri("/w/db/t"), "file:/w/db/t");
  EXPECT_EQ(AbsolutePath("/a/./b//c/../d/"), "/a/b/d");
  EXPECT_TRUE(AbsolutePath("x/y").ends_with("/x/y"));
  LocationMapper m;
  EXPECT_EQ(*m.ToLocal("file:/w/t/data/a.parquet"), "/w/t/data/a.parquet");
  EXPECT_EQ(*m.ToLocal("file:///w/t/a"), "/w/t/a");
  EXPECT_EQ(*m.ToLocal("/w/t/a"), "/w/t/a");
  auto s3 = m.ToLocal("s3://bucket/t/a");
  ASSERT_FALSE(s3);
  EXPECT_NE(s3.error().message.find("--map"), std::string::npos);
}

TEST(Location, TableLocationsMapEverySpelling) {
  LocationMapper m;
  m.AddTableLocation("s3a://bucket/wh/db/t/", "/golden/t");
  EXPECT_EQ(*m.ToLocal("s3://bucket/wh/db/t/data/x.parquet"), "/golden/t/data/x.parquet");
  EXPECT_EQ(*m.ToLocal("s3a://bucket/wh/db/t/metadata/snap.avro"), "/golden/t/metadata/snap.avro");
  // A sibling table with a longer name is not captured by the prefix.
  EXPECT_FALSE(m.ToLocal("s3://bucket/wh/db/t2/data/x"));
  LocationMapper f;
  f.AddTableLocation("file:/old/place/t", "/new/t");
  EXPECT_EQ(*f.ToLocal("/old/place/t/data/a"), "/new/t/data/a");
  EXPECT_EQ(*f.ToLocal("file:///old/place/t/data/a"), "/new/t/data/a");
  auto mp = ParseMapping("s3://b/x=/tmp/x");
  ASSERT_OK(mp);
  EXPECT_EQ(mp->first, "s3://b/x");
  EXPECT_FALSE(ParseMapping("nodir="));
}

}  // namespace location_test
}  // namespace floe
