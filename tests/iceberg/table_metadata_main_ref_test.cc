// "There is always a main branch reference pointing to the current-snapshot-id
// even if the refs map is null" (Iceberg spec: Table Metadata Fields, refs).
// Metadata whose refs map holds other refs but not main (Java's TableMetadata
// accepts it) reads with main pointing at the current snapshot, so that the
// main branch resolves and the metadata floe writes back keeps the spec's rule.
// Found by metadata_fuzz (read -> write -> re-check of the golden java_bunnies
// metadata with `main` renamed).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "floe/iceberg/table_metadata.h"
#include "testing/matchers.h"

namespace floe::iceberg {
namespace table_metadata_main_ref_test {

std::string MetadataWithRefs(std::string_view refs) {
  return fmt::format(R"({{
  "format-version": 2, "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1",
  "location": "s3://b/t", "last-sequence-number": 2, "last-updated-ms": 1600000000000,
  "last-column-id": 1, "current-schema-id": 0,
  "schemas": [{{"type": "struct", "schema-id": 0, "fields": [
     {{"id": 1, "name": "id", "required": true, "type": "long"}}]}}],
  "default-spec-id": 0, "partition-specs": [{{"spec-id": 0, "fields": []}}],
  "last-partition-id": 999, "default-sort-order-id": 0,
  "sort-orders": [{{"order-id": 0, "fields": []}}],
  "snapshots": [
    {{"snapshot-id": 11, "sequence-number": 1, "timestamp-ms": 1600000000000,
      "manifest-list": "s3://b/t/metadata/snap-11.avro", "summary": {{"operation": "append"}}}},
    {{"snapshot-id": 12, "parent-snapshot-id": 11, "sequence-number": 2, "timestamp-ms": 1600000000001,
      "manifest-list": "s3://b/t/metadata/snap-12.avro", "summary": {{"operation": "append"}}}}],
  "current-snapshot-id": 12, "refs": {}}})",
                     refs);
}

TEST(TableMetadataMainRef, RefsWithoutMainReadMainAsTheCurrentSnapshot) {
  auto m = TableMetadataFromJson(MetadataWithRefs(
      R"({"audit": {"snapshot-id": 11, "type": "branch"}, "v1": {"snapshot-id": 11, "type": "tag"}})"));
  ASSERT_TRUE(m) << m.error().ToString();
  auto main = m->SnapshotByRef(kMainBranch);
  ASSERT_TRUE(main) << main.error().ToString();
  EXPECT_EQ((*main)->snapshot_id, 12);
  ASSERT_TRUE(m->refs.contains("main"));
  EXPECT_TRUE(m->refs.at("main").is_branch());
  // The other refs are kept as they were.
  EXPECT_EQ(m->refs.at("audit").snapshot_id, 11);
  EXPECT_FALSE(m->refs.at("v1").is_branch());

  auto written = TableMetadataToJson(*m);
  ASSERT_TRUE(written) << written.error().ToString();
  EXPECT_OK(CheckV2MetadataJson(*written));
  auto again = TableMetadataFromJson(*written);
  ASSERT_TRUE(again) << again.error().ToString();
  EXPECT_TRUE(*again == *m);
}

TEST(TableMetadataMainRef, AnEmptyRefsMapAlsoGetsMain) {
  auto m = TableMetadataFromJson(MetadataWithRefs("{}"));
  ASSERT_TRUE(m) << m.error().ToString();
  auto main = m->SnapshotByRef(kMainBranch);
  ASSERT_TRUE(main) << main.error().ToString();
  EXPECT_EQ((*main)->snapshot_id, 12);
  auto written = TableMetadataToJson(*m);
  ASSERT_TRUE(written) << written.error().ToString();
  EXPECT_OK(CheckV2MetadataJson(*written));
}

}  // namespace table_metadata_main_ref_test
}  // namespace floe::iceberg
