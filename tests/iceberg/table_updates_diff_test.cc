// DiffMetadata and TableChangesToJson: each kind of commit floe makes
// (append, branch/tag create/move/remove, expire, properties, a new spec, a
// schema change) becomes the REST spec's requirements and updates, with the
// member names of rest-catalog-open-api.yaml (TableRequirement,
// TableUpdate); differences no update expresses are refused by name.
#include <gtest/gtest.h>

#include <memory>

#include <nlohmann/json.hpp>

#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_updates.h"
#include "testing/matchers.h"

namespace floe::iceberg {
namespace table_updates_diff_test {

using test::HasErrorMessage;
using test::IsError;
using RK = TableRequirement::Kind;
using UK = TableUpdate::Kind;
using nlohmann::json;

TableMetadata Base() {
  NewTableOptions o;
  o.location = "file:/tmp/diff/t";
  o.schema = Schema({{1, "id", true, LongType(), {}}, {2, "name", false, StringType(), {}}});
  o.properties = {{"owner", "ann"}, {"gone", "soon"}};
  o.now_ms = 1000;
  auto m = NewTableMetadata(o);
  EXPECT_TRUE(m) << m.error().ToString();
  return *m;
}

Snapshot Snap(int64_t id, std::optional<int64_t> parent, int64_t seq) {
  Snapshot s;
  s.snapshot_id = id;
  s.parent_snapshot_id = parent;
  s.sequence_number = seq;
  s.timestamp_ms = 1000 + seq;
  s.manifest_list = "file:/tmp/diff/t/metadata/snap-" + std::to_string(id) + ".avro";
  s.operation = SnapshotOperation::kAppend;
  s.summary = {{"added-records", "3"}};
  s.schema_id = 0;
  return s;
}

TableMetadata Appended(TableMetadata m, int64_t id, std::string_view branch = kMainBranch) {
  std::optional<int64_t> parent;
  if (auto it = m.refs.find(std::string(branch)); it != m.refs.end())
    parent = it->second.snapshot_id;
  Status st = AddSnapshot(&m, Snap(id, parent, m.last_sequence_number + 1), 5000, branch);
  EXPECT_TRUE(st) << st.error().ToString();
  return m;
}

SnapshotRef Branch(int64_t id) {
  SnapshotRef r;
  r.snapshot_id = id;
  return r;
}

SnapshotRef Tag(int64_t id, int64_t max_ref_age_ms) {
  SnapshotRef r;
  r.snapshot_id = id;
  r.type = SnapshotRefType::kTag;
  r.max_ref_age_ms = max_ref_age_ms;
  return r;
}

json ToJson(const TableChanges& c) {
  auto text = TableChangesToJson(c);
  EXPECT_TRUE(text) << text.error().ToString();
  return json::parse(text ? *text : "{}");
}

TEST(DiffMetadata, AppendAddsSnapshotMovesMainAndAssertsItsHead) {
  TableMetadata base = Base();
  TableMetadata first = Appended(base, 11);
  ASSERT_OK_AND_ASSIGN(TableChanges c, DiffMetadata(base, first));
  ASSERT_EQ(c.requirements.size(), 2u);
  EXPECT_EQ(c.requirements[0].kind, RK::kAssertTableUuid);
  EXPECT_EQ(c.requirements[0].uuid, base.table_uuid);
  EXPECT_EQ(c.requirements[1].kind, RK::kAssertRefSnapshotId);
  EXPECT_EQ(c.requirements[1].ref, "main");
  EXPECT_FALSE(c.requirements[1].snapshot_id);  // main does not exist yet
  ASSERT_EQ(c.updates.size(), 2u);
  EXPECT_EQ(c.updates[0].kind, UK::kAddSnapshot);
  EXPECT_EQ(c.updates[0].snapshot, first.snapshots[0]);
  EXPECT_EQ(c.updates[1].kind, UK::kSetSnapshotRef);
  EXPECT_EQ(c.updates[1].ref_name, "main");
  EXPECT_EQ(c.updates[1].ref.snapshot_id, 11);

  json j = ToJson(c);
  EXPECT_EQ(j["requirements"][0],
            json::parse(R"({"type":"assert-table-uuid","uuid":")" + base.table_uuid + "\"}"));
  // snapshot-id is required and null for a ref that must not exist.
  EXPECT_EQ(j["requirements"][1],
            json::parse(R"({"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null})"));
  const json& add = j["updates"][0];
  EXPECT_EQ(add["action"], "add-snapshot");
  EXPECT_EQ(add["snapshot"]["snapshot-id"], 11);
  EXPECT_EQ(add["snapshot"]["sequence-number"], 1);
  EXPECT_EQ(add["snapshot"]["manifest-list"], "file:/tmp/diff/t/metadata/snap-11.avro");
  EXPECT_EQ(add["snapshot"]["summary"]["operation"], "append");
  EXPECT_EQ(add["snapshot"]["summary"]["added-records"], "3");
  EXPECT_FALSE(add["snapshot"].contains("parent-snapshot-id"));
  EXPECT_EQ(
      j["updates"][1],
      json::parse(
          R"({"action":"set-snapshot-ref","ref-name":"main","snapshot-id":11,"type":"branch"})"));

  // The next append asserts main at the first snapshot.
  TableMetadata second = Appended(first, 12);
  ASSERT_OK_AND_ASSIGN(TableChanges c2, DiffMetadata(first, second));
  ASSERT_EQ(c2.requirements.size(), 2u);
  EXPECT_EQ(c2.requirements[1].snapshot_id, 11);
  EXPECT_EQ(ToJson(c2)["requirements"][1]["snapshot-id"], 11);
  EXPECT_EQ(ToJson(c2)["updates"][0]["snapshot"]["parent-snapshot-id"], 11);
}

TEST(DiffMetadata, NoChangeIsOnlyTheUuidAssertion) {
  TableMetadata base = Appended(Base(), 11);
  TableMetadata same = base;
  same.last_updated_ms += 10;  // the publishing catalog owns it
  same.metadata_log.push_back({1000, "file:/tmp/diff/t/metadata/v1.metadata.json"});
  ASSERT_OK_AND_ASSIGN(TableChanges c, DiffMetadata(base, same));
  EXPECT_EQ(c.requirements.size(), 1u);
  EXPECT_TRUE(c.updates.empty());
}

TEST(DiffMetadata, BranchAndTagCreateMoveRemove) {
  TableMetadata m = Appended(Appended(Base(), 11), 12);
  // create a branch and a tag
  ASSERT_OK_AND_ASSIGN(TableMetadata created, SetRef(m, "dev", Branch(11)));
  ASSERT_OK_AND_ASSIGN(created, SetRef(created, "v1", Tag(12, 86400000)));
  ASSERT_OK_AND_ASSIGN(TableChanges c, DiffMetadata(m, created));
  ASSERT_EQ(c.updates.size(), 2u);
  json j = ToJson(c);
  EXPECT_EQ(
      j["updates"][0],
      json::parse(
          R"({"action":"set-snapshot-ref","ref-name":"dev","snapshot-id":11,"type":"branch"})"));
  EXPECT_EQ(
      j["updates"][1],
      json::parse(
          R"({"action":"set-snapshot-ref","ref-name":"v1","snapshot-id":12,"type":"tag","max-ref-age-ms":86400000})"));
  ASSERT_EQ(c.requirements.size(), 3u);
  EXPECT_EQ(j["requirements"][1],
            json::parse(R"({"type":"assert-ref-snapshot-id","ref":"dev","snapshot-id":null})"));
  EXPECT_EQ(j["requirements"][2],
            json::parse(R"({"type":"assert-ref-snapshot-id","ref":"v1","snapshot-id":null})"));

  // move the branch
  ASSERT_OK_AND_ASSIGN(TableMetadata moved, SetRef(created, "dev", Branch(12)));
  ASSERT_OK_AND_ASSIGN(TableChanges mc, DiffMetadata(created, moved));
  json mj = ToJson(mc);
  EXPECT_EQ(mj["requirements"][1],
            json::parse(R"({"type":"assert-ref-snapshot-id","ref":"dev","snapshot-id":11})"));
  EXPECT_EQ(
      mj["updates"],
      json::parse(
          R"([{"action":"set-snapshot-ref","ref-name":"dev","snapshot-id":12,"type":"branch"}])"));

  // remove the tag
  ASSERT_OK_AND_ASSIGN(TableMetadata removed, RemoveRef(moved, "v1"));
  ASSERT_OK_AND_ASSIGN(TableChanges rc, DiffMetadata(moved, removed));
  json rj = ToJson(rc);
  EXPECT_EQ(rj["updates"], json::parse(R"([{"action":"remove-snapshot-ref","ref-name":"v1"}])"));
  EXPECT_EQ(rj["requirements"][1],
            json::parse(R"({"type":"assert-ref-snapshot-id","ref":"v1","snapshot-id":12})"));

  // a commit to the branch only asserts the branch, not main
  TableMetadata on_branch = Appended(moved, 13, "dev");
  ASSERT_OK_AND_ASSIGN(TableChanges bc, DiffMetadata(moved, on_branch));
  ASSERT_EQ(bc.requirements.size(), 2u);
  EXPECT_EQ(bc.requirements[1].ref, "dev");
  EXPECT_EQ(bc.requirements[1].snapshot_id, 12);
}

TEST(DiffMetadata, ExpireRemovesSnapshotsAfterRefUpdates) {
  TableMetadata m = Appended(Appended(Appended(Base(), 11), 12), 13);
  ASSERT_OK_AND_ASSIGN(TableMetadata expired, RemoveSnapshots(m, {11, 12}));
  ASSERT_OK_AND_ASSIGN(TableChanges c, DiffMetadata(m, expired));
  EXPECT_EQ(c.requirements.size(), 1u);
  json j = ToJson(c);
  EXPECT_EQ(j["updates"], json::parse(R"([{"action":"remove-snapshots","snapshot-ids":[11,12]}])"));

  // Removing a branch and the snapshot only it held: the ref goes first, or
  // the server would refuse to remove a referenced snapshot.
  ASSERT_OK_AND_ASSIGN(TableMetadata b, SetRef(m, "old", Branch(11)));
  ASSERT_OK_AND_ASSIGN(TableMetadata no_ref, RemoveRef(b, "old"));
  ASSERT_OK_AND_ASSIGN(TableMetadata both, RemoveSnapshots(no_ref, {11}));
  ASSERT_OK_AND_ASSIGN(TableChanges bc, DiffMetadata(b, both));
  ASSERT_EQ(bc.updates.size(), 2u);
  EXPECT_EQ(bc.updates[0].kind, UK::kRemoveSnapshotRef);
  EXPECT_EQ(bc.updates[1].kind, UK::kRemoveSnapshots);
}

TEST(DiffMetadata, PropertiesSetAndRemoved) {
  TableMetadata base = Base();
  ASSERT_OK_AND_ASSIGN(TableMetadata u,
                       UpdateProperties(base, {{"owner", "bob"}, {"new", "1"}}, {"gone"}));
  ASSERT_OK_AND_ASSIGN(TableChanges c, DiffMetadata(base, u));
  EXPECT_EQ(c.requirements.size(), 1u);
  json j = ToJson(c);
  EXPECT_EQ(j["updates"],
            json::parse(R"([{"action":"set-properties","updates":{"new":"1","owner":"bob"}},
                                          {"action":"remove-properties","removals":["gone"]}])"));
}

TEST(DiffMetadata, NewPartitionSpecIsAddedNotMadeDefault) {
  TableMetadata base = Base();
  ASSERT_OK_AND_ASSIGN(
      PartitionSpec spec,
      PartitionSpecBuilder(*base.CurrentSchema(), base.last_partition_id).Bucket("id", 8).Build(1));
  ASSERT_OK_AND_ASSIGN(TableMetadata u, AddPartitionSpec(base, spec));
  ASSERT_OK_AND_ASSIGN(TableChanges c, DiffMetadata(base, u));
  ASSERT_EQ(c.updates.size(), 1u);
  EXPECT_EQ(c.updates[0].kind, UK::kAddSpec);
  json j = ToJson(c);
  EXPECT_EQ(j["updates"][0], json::parse(R"({"action":"add-spec","spec":{"spec-id":1,"fields":[
      {"name":"id_bucket","transform":"bucket[8]","source-id":1,"field-id":1000}]}})"));
  EXPECT_EQ(j["requirements"],
            json::parse(R"([{"type":"assert-table-uuid","uuid":")" + base.table_uuid + R"("},
      {"type":"assert-last-assigned-partition-id","last-assigned-partition-id":999},
      {"type":"assert-default-spec-id","default-spec-id":0}])"));
}

TEST(DiffMetadata, SchemaChangeAddsSchemaAndSetsItCurrent) {
  TableMetadata base = Base();
  TableMetadata u = base;
  u.schemas.push_back(std::make_shared<Schema>(
      std::vector<NestedField>{{1, "id", true, LongType(), {}},
                               {2, "name", false, StringType(), {}},
                               {3, "ts", false, TimestampTzType(), "when"}},
      1));
  u.current_schema_id = 1;
  u.last_column_id = 3;
  ASSERT_OK_AND_ASSIGN(TableChanges c, DiffMetadata(base, u));
  json j = ToJson(c);
  ASSERT_EQ(j["updates"].size(), 2u);
  EXPECT_EQ(j["updates"][0]["action"], "add-schema");
  EXPECT_EQ(j["updates"][0]["schema"]["type"], "struct");
  EXPECT_EQ(j["updates"][0]["schema"]["schema-id"], 1);
  EXPECT_EQ(
      j["updates"][0]["schema"]["fields"][2],
      json::parse(R"({"id":3,"name":"ts","required":false,"type":"timestamptz","doc":"when"})"));
  EXPECT_EQ(j["updates"][1], json::parse(R"({"action":"set-current-schema","schema-id":1})"));
  EXPECT_EQ(j["requirements"][1],
            json::parse(R"({"type":"assert-current-schema-id","current-schema-id":0})"));
  EXPECT_EQ(j["requirements"][2],
            json::parse(R"({"type":"assert-last-assigned-field-id","last-assigned-field-id":2})"));
}

TEST(DiffMetadata, DifferencesNoUpdateExpressesAreRefused) {
  TableMetadata base = Appended(Base(), 11);
  TableMetadata u = base;
  u.table_uuid = NewUuid();
  EXPECT_THAT(DiffMetadata(base, u), ::testing::AllOf(IsError(ErrorKind::kInvalidArgument),
                                                      HasErrorMessage("table-uuid")));

  u = base;
  u.snapshots[0].manifest_list = "file:/elsewhere.avro";
  EXPECT_THAT(DiffMetadata(base, u), HasErrorMessage("snapshot 11 was rewritten"));

  TableMetadata v3 = base;
  v3.format_version = 3;
  EXPECT_THAT(DiffMetadata(v3, base), HasErrorMessage("format-version lowered from 3 to 2"));
  ASSERT_OK_AND_ASSIGN(TableChanges up, DiffMetadata(base, v3));
  EXPECT_EQ(ToJson(up)["updates"],
            json::parse(R"([{"action":"upgrade-format-version","format-version":3}])"));

  u = base;
  u.schemas[0] =
      std::make_shared<Schema>(std::vector<NestedField>{{1, "id", true, LongType(), {}}}, 0);
  EXPECT_THAT(DiffMetadata(base, u), HasErrorMessage("schema 0 was rewritten"));

  u = base;
  u.current_snapshot_id = std::nullopt;
  EXPECT_THAT(DiffMetadata(base, u), HasErrorMessage("not the head of branch main"));

  u = base;
  u.last_column_id = 7;
  EXPECT_THAT(DiffMetadata(base, u),
              HasErrorMessage("last-column-id changed from 2 to 7 without a new schema"));
}

TEST(DiffMetadata, StatisticsSetAndRemovedBySnapshot) {
  TableMetadata base = Appended(Base(), 11);
  TableMetadata u = base;
  u.statistics.push_back(
      R"({"snapshot-id":11,"statistics-path":"file:/tmp/diff/t/s.puffin",)"
      R"("file-size-in-bytes":10,"file-footer-size-in-bytes":4,"blob-metadata":[]})");
  ASSERT_OK_AND_ASSIGN(TableChanges c, DiffMetadata(base, u));
  json j = ToJson(c);
  ASSERT_EQ(j["updates"].size(), 1u);
  EXPECT_EQ(j["updates"][0]["action"], "set-statistics");
  EXPECT_EQ(j["updates"][0]["statistics"]["statistics-path"], "file:/tmp/diff/t/s.puffin");
  ASSERT_OK_AND_ASSIGN(TableChanges r, DiffMetadata(u, base));
  EXPECT_EQ(ToJson(r)["updates"],
            json::parse(R"([{"action":"remove-statistics","snapshot-id":11}])"));
}

}  // namespace table_updates_diff_test
}  // namespace floe::iceberg
