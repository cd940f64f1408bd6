// The REST commit model on the server side: parsing a CommitTableRequest
// body (TableChangesFromJson), checking its requirements
// (CheckRequirements) and applying its updates (ApplyUpdates), action by
// action as the REST spec lists them (TableUpdate, TableRequirement).

#include <gtest/gtest.h>

#include <string>

#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_updates.h"
#include "testing/matchers.h"
#include "testing/schema.h"

namespace floe::iceberg {
namespace table_updates_apply_test {

using floe::test::Field;
using floe::test::HasErrorMessage;
using floe::test::IsError;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr int64_t kCreatedMs = 1700000000000;

TableMetadata NewTable() {
  NewTableOptions o;
  o.location = "file:///warehouse/db/t";
  o.schema = Schema({Field(1, "id", LongType(), true), Field(2, "data", StringType())});
  o.now_ms = kCreatedMs;
  o.table_uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
  auto m = NewTableMetadata(o);
  EXPECT_TRUE(m) << m.error().ToString();
  return *m;
}

std::string SnapshotJson(int64_t id, std::optional<int64_t> parent, int64_t seq, int64_t ts) {
  std::string p = parent ? fmt::format(R"("parent-snapshot-id":{},)", *parent) : "";
  return fmt::format(
      R"({{"snapshot-id":{},{}"sequence-number":{},"timestamp-ms":{},)"
      R"("manifest-list":"file:///warehouse/db/t/metadata/snap-{}.avro","summary":{{"operation":"append"}},"schema-id":0}})",
      id, p, seq, ts, id);
}

/// Parses `{"requirements":[],"updates":[<updates>]}` and applies it.
Result<TableMetadata> Apply(const TableMetadata& base, const std::string& updates) {
  FLOE_ASSIGN_OR_RETURN(TableChanges c,
                        TableChangesFromJson(R"({"requirements":[],"updates":[)" + updates + "]}"));
  return ApplyUpdates(base, c.updates);
}

/// A table with one appended snapshot (id 100, ts kCreatedMs + 10) on main.
TableMetadata TableWithSnapshot() {
  auto m = Apply(
      NewTable(),
      R"({"action":"add-snapshot","snapshot":)" + SnapshotJson(100, {}, 1, kCreatedMs + 10) +
          R"(},{"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":100})");
  EXPECT_TRUE(m) << m.error().ToString();
  return *m;
}

Status Check(const TableMetadata* current, const std::string& requirement) {
  auto c = TableChangesFromJson(R"({"requirements":[)" + requirement + R"(],"updates":[]})");
  if (!c) return Fail(c.error());
  return CheckRequirements(c->requirements, current);
}

// ---------------------------------------------------------------------------
// Parsing

TEST(TableUpdatesParse, ReadsEveryActionOfTheSpec) {
  std::string body = R"({"identifier":{"namespace":["db"],"name":"t"},
    "requirements":[{"type":"assert-create"},{"type":"assert-table-uuid","uuid":"u"},
      {"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null},
      {"type":"assert-ref-snapshot-id","ref":"b","snapshot-id":9223372036854775807},
      {"type":"assert-last-assigned-field-id","last-assigned-field-id":3},
      {"type":"assert-current-schema-id","current-schema-id":4},
      {"type":"assert-last-assigned-partition-id","last-assigned-partition-id":1000},
      {"type":"assert-default-spec-id","default-spec-id":5},
      {"type":"assert-default-sort-order-id","default-sort-order-id":6}],
    "updates":[{"action":"assign-uuid","uuid":"u"},{"action":"upgrade-format-version","format-version":2},
      {"action":"add-schema","schema":{"type":"struct","schema-id":1,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]},"last-column-id":1},
      {"action":"set-current-schema","schema-id":-1},
      {"action":"add-spec","spec":{"fields":[{"source-id":1,"field-id":1000,"name":"id_b","transform":"bucket[4]"}]}},
      {"action":"set-default-spec","spec-id":-1},
      {"action":"add-sort-order","sort-order":{"order-id":1,"fields":[{"source-id":1,"transform":"identity","direction":"desc","null-order":"nulls-last"}]}},
      {"action":"set-default-sort-order","sort-order-id":1},
      {"action":"add-snapshot","snapshot":)" +
                     SnapshotJson(7, 6, 3, 5) + R"(},
      {"action":"set-snapshot-ref","ref-name":"tag1","type":"tag","snapshot-id":7,"max-ref-age-ms":10},
      {"action":"remove-snapshots","snapshot-ids":[1,2]},{"action":"remove-snapshot-ref","ref-name":"tag1"},
      {"action":"set-location","location":"file:///x"},{"action":"set-properties","updates":{"a":"1"}},
      {"action":"remove-properties","removals":["b"]},
      {"action":"set-statistics","statistics":{"snapshot-id":7,"statistics-path":"p","file-size-in-bytes":1,"file-footer-size-in-bytes":1,"blob-metadata":[]}},
      {"action":"remove-statistics","snapshot-id":7},
      {"action":"set-partition-statistics","partition-statistics":{"snapshot-id":7,"statistics-path":"q","file-size-in-bytes":2}},
      {"action":"remove-partition-statistics","snapshot-id":7},
      {"action":"remove-partition-specs","spec-ids":[0]},{"action":"remove-schemas","schema-ids":[0]}]})";
  auto c = TableChangesFromJson(body);
  ASSERT_OK(c);
  ASSERT_EQ(c->requirements.size(), 9u);
  using R = TableRequirement::Kind;
  EXPECT_EQ(c->requirements[0].kind, R::kAssertCreate);
  EXPECT_EQ(c->requirements[1].uuid, "u");
  EXPECT_EQ(c->requirements[2].ref, "main");
  EXPECT_FALSE(c->requirements[2].snapshot_id);
  EXPECT_EQ(c->requirements[3].snapshot_id, INT64_MAX);
  EXPECT_EQ(c->requirements[4].id, 3);
  EXPECT_EQ(c->requirements[8].kind, R::kAssertDefaultSortOrderId);
  EXPECT_EQ(c->requirements[8].id, 6);
  ASSERT_EQ(c->updates.size(), 21u);
  for (size_t i = 0; i < c->updates.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(c->updates[i].kind), i) << "updates[" << i << "]";
  }
  EXPECT_EQ(c->updates[2].schema->schema_id(), 1);
  EXPECT_EQ(c->updates[3].id, -1);
  EXPECT_EQ(c->updates[4].spec.fields().at(0).name, "id_b");
  EXPECT_EQ(c->updates[6].sort_order.fields().at(0).direction, SortDirection::kDesc);
  EXPECT_EQ(c->updates[8].snapshot.snapshot_id, 7);
  EXPECT_EQ(c->updates[8].snapshot.parent_snapshot_id, 6);
  EXPECT_EQ(c->updates[9].ref_name, "tag1");
  EXPECT_EQ(c->updates[9].ref.type, SnapshotRefType::kTag);
  EXPECT_EQ(c->updates[9].ref.max_ref_age_ms, 10);
  EXPECT_EQ(c->updates[10].snapshot_ids, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(c->updates[13].set.at("a"), "1");
  EXPECT_EQ(c->updates[14].remove, std::vector<std::string>{"b"});
  EXPECT_THAT(c->updates[15].json, HasSubstr(R"("statistics-path":"p")"));
  EXPECT_EQ(c->updates[16].snapshot_ids, std::vector<int64_t>{7});
  EXPECT_EQ(c->updates[19].ids, std::vector<int32_t>{0});
}

TEST(TableUpdatesParse, UnknownActionOrTypeIsNamed) {
  EXPECT_THAT(
      TableChangesFromJson(
          R"({"requirements":[],"updates":[{"action":"set-properties","updates":{}},{"action":"frobnicate"}]})"),
      AllOf(IsError(ErrorKind::kInvalidArgument),
            HasErrorMessage("updates[1]: unknown update action 'frobnicate'")));
  // View updates are not table updates.
  EXPECT_THAT(
      TableChangesFromJson(
          R"({"requirements":[],"updates":[{"action":"add-view-version","view-version":{}}]})"),
      AllOf(IsError(ErrorKind::kInvalidArgument),
            HasErrorMessage("unknown update action 'add-view-version'")));
  EXPECT_THAT(
      TableChangesFromJson(
          R"({"requirements":[{"type":"assert-view-uuid","uuid":"x"}],"updates":[]})"),
      AllOf(IsError(ErrorKind::kInvalidArgument),
            HasErrorMessage("requirements[0]: unknown requirement type 'assert-view-uuid'")));
}

TEST(TableUpdatesParse, MalformedMembersAreNamed) {
  auto bad = [](const std::string& body) { return TableChangesFromJson(body); };
  EXPECT_THAT(bad("[1]"), AllOf(IsError(ErrorKind::kInvalidArgument),
                                HasErrorMessage("must be a JSON object")));
  EXPECT_THAT(bad("{"), IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(bad(R"({"updates":[]})"), HasErrorMessage("'requirements' is required"));
  EXPECT_THAT(bad(R"({"requirements":[],"updates":{}})"),
              HasErrorMessage("'updates' must be an array"));
  EXPECT_THAT(
      bad(R"({"requirements":[],"updates":[{"action":"set-current-schema","schema-id":"1"}]})"),
      AllOf(IsError(ErrorKind::kInvalidArgument),
            HasErrorMessage("updates[0] (set-current-schema)"), HasErrorMessage("schema-id")));
  EXPECT_THAT(
      bad(R"({"requirements":[],"updates":[{"action":"add-snapshot","snapshot":{"snapshot-id":1}}]})"),
      AllOf(IsError(ErrorKind::kInvalidArgument), HasErrorMessage("updates[0] (add-snapshot)")));
  EXPECT_THAT(
      bad(R"({"requirements":[{"type":"assert-ref-snapshot-id","ref":"main"}],"updates":[]})"),
      AllOf(IsError(ErrorKind::kInvalidArgument), HasErrorMessage("'snapshot-id' is required")));
  EXPECT_THAT(bad(R"({"requirements":[],"updates":[{"action":"set-properties"}]})"),
              HasErrorMessage("'updates' is required"));
  EXPECT_THAT(
      bad(R"({"requirements":[],"updates":[{"action":"remove-properties","removals":[1]}]})"),
      HasErrorMessage("removals[0] must be a string"));
  EXPECT_THAT(bad(R"({"requirements":[],"updates":[{"nope":1}]})"), HasErrorMessage("'action'"));
}

// ---------------------------------------------------------------------------
// Requirements

TEST(TableUpdatesCheck, AssertCreateAndMissingTable) {
  TableMetadata t = NewTable();
  EXPECT_OK(Check(nullptr, R"({"type":"assert-create"})"));
  EXPECT_THAT(Check(&t, R"({"type":"assert-create"})"),
              AllOf(IsError(ErrorKind::kCommitFailed),
                    HasErrorMessage("assert-create failed: the table already exists")));
  EXPECT_THAT(Check(nullptr, R"({"type":"assert-current-schema-id","current-schema-id":0})"),
              AllOf(IsError(ErrorKind::kCommitFailed), HasErrorMessage("does not exist")));
}

TEST(TableUpdatesCheck, EachRequirementPassesAndFailsNamingExpectedAndActual) {
  TableMetadata t = TableWithSnapshot();
  struct Case {
    std::string pass, fail, message;
  };
  std::vector<Case> cases = {
      {R"({"type":"assert-table-uuid","uuid":"9C12D441-03FE-4693-9A96-A0705DDF69C1"})",
       R"({"type":"assert-table-uuid","uuid":"00000000-0000-0000-0000-000000000000"})",
       "assert-table-uuid failed: expected 00000000-0000-0000-0000-000000000000, found 9c12d441"},
      {R"({"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":100})",
       R"({"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":99})",
       "expected ref 'main' at snapshot 99, found 100"},
      {R"({"type":"assert-ref-snapshot-id","ref":"dev","snapshot-id":null})",
       R"({"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null})",
       "expected ref 'main' at snapshot none, found 100"},
      {R"({"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":100})",
       R"({"type":"assert-ref-snapshot-id","ref":"dev","snapshot-id":100})",
       "expected ref 'dev' at snapshot 100, found no such ref"},
      {R"({"type":"assert-last-assigned-field-id","last-assigned-field-id":2})",
       R"({"type":"assert-last-assigned-field-id","last-assigned-field-id":3})",
       "assert-last-assigned-field-id failed: expected 3, found 2"},
      {R"({"type":"assert-current-schema-id","current-schema-id":0})",
       R"({"type":"assert-current-schema-id","current-schema-id":1})",
       "assert-current-schema-id failed: expected 1, found 0"},
      {R"({"type":"assert-last-assigned-partition-id","last-assigned-partition-id":999})",
       R"({"type":"assert-last-assigned-partition-id","last-assigned-partition-id":1000})",
       "assert-last-assigned-partition-id failed: expected 1000, found 999"},
      {R"({"type":"assert-default-spec-id","default-spec-id":0})",
       R"({"type":"assert-default-spec-id","default-spec-id":2})",
       "assert-default-spec-id failed: expected 2, found 0"},
      {R"({"type":"assert-default-sort-order-id","default-sort-order-id":0})",
       R"({"type":"assert-default-sort-order-id","default-sort-order-id":1})",
       "assert-default-sort-order-id failed: expected 1, found 0"},
  };
  for (const auto& c : cases) {
    EXPECT_OK(Check(&t, c.pass)) << c.pass;
    EXPECT_THAT(Check(&t, c.fail),
                AllOf(IsError(ErrorKind::kCommitFailed), HasErrorMessage(c.message)))
        << c.fail;
  }
  // The first failing requirement is the one reported.
  EXPECT_THAT(Check(&t, cases[4].pass + "," + cases[5].fail + "," + cases[6].fail),
              HasErrorMessage("assert-current-schema-id"));
}

// ---------------------------------------------------------------------------
// Updates

TEST(TableUpdatesApply, AddSnapshotSetsLastSequenceNumberAndMainFollows) {
  TableMetadata base = NewTable();
  auto added = Apply(base, R"({"action":"add-snapshot","snapshot":)" +
                               SnapshotJson(100, {}, 1, kCreatedMs + 10) + "}");
  ASSERT_OK(added);
  EXPECT_EQ(added->last_sequence_number, 1);
  EXPECT_FALSE(added->current_snapshot_id) << "add-snapshot alone moves no ref";
  EXPECT_EQ(added->last_updated_ms, kCreatedMs + 10) << "newest of base and added snapshots";

  TableMetadata t = TableWithSnapshot();
  EXPECT_EQ(t.current_snapshot_id, 100);
  EXPECT_EQ(t.refs.at("main").snapshot_id, 100);
  ASSERT_EQ(t.snapshot_log.size(), 1u);
  EXPECT_EQ(t.snapshot_log[0], (SnapshotLogEntry{kCreatedMs + 10, 100}));

  auto next = Apply(
      t,
      R"({"action":"add-snapshot","snapshot":)" + SnapshotJson(101, 100, 2, kCreatedMs + 20) +
          R"(},{"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":101})");
  ASSERT_OK(next);
  EXPECT_EQ(next->last_sequence_number, 2);
  EXPECT_EQ(next->current_snapshot_id, 101);
  ASSERT_EQ(next->snapshot_log.size(), 2u);
  EXPECT_EQ(next->snapshot_log[1], (SnapshotLogEntry{kCreatedMs + 20, 101}));
  EXPECT_EQ(next->last_updated_ms, kCreatedMs + 20);
  EXPECT_TRUE(base == NewTable()) << "the base is not changed";
}

TEST(TableUpdatesApply, AddSnapshotThatCannotApplyIsNamed) {
  TableMetadata t = TableWithSnapshot();
  auto add = [&](const std::string& snap) {
    return Apply(t, R"({"action":"add-snapshot","snapshot":)" + snap + "}");
  };
  EXPECT_THAT(
      add(SnapshotJson(100, {}, 2, 1)),
      AllOf(IsError(ErrorKind::kInvalidArgument), HasErrorMessage("updates[0] (add-snapshot)"),
            HasErrorMessage("snapshot 100 already exists")));
  EXPECT_THAT(add(SnapshotJson(101, 55, 2, 1)),
              HasErrorMessage("parent snapshot 55 does not exist"));
  EXPECT_THAT(add(SnapshotJson(101, 100, 1, 1)),
              HasErrorMessage("sequence number 1 is not above the table's last-sequence-number 1"));
  EXPECT_THAT(
      Apply(t,
            R"({"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":7})"),
      AllOf(IsError(ErrorKind::kInvalidArgument), HasErrorMessage("snapshot 7 does not exist")));
}

TEST(TableUpdatesApply, RollbackOfMainIsLoggedAndBranchesTagsAndRemovals) {
  TableMetadata t = TableWithSnapshot();
  auto two = Apply(
      t,
      R"({"action":"add-snapshot","snapshot":)" + SnapshotJson(101, 100, 2, kCreatedMs + 20) +
          R"(},{"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":101},)"
          R"({"action":"set-snapshot-ref","ref-name":"v1","type":"tag","snapshot-id":100},)"
          R"({"action":"set-snapshot-ref","ref-name":"dev","type":"branch","snapshot-id":100,"min-snapshots-to-keep":3})");
  ASSERT_OK(two);
  EXPECT_EQ(two->refs.at("v1").type, SnapshotRefType::kTag);
  EXPECT_EQ(two->refs.at("dev").min_snapshots_to_keep, 3);
  EXPECT_EQ(two->current_snapshot_id, 101) << "only main moves the current snapshot";

  auto rolled = Apply(
      *two, R"({"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":100})");
  ASSERT_OK(rolled);
  EXPECT_EQ(rolled->current_snapshot_id, 100);
  ASSERT_EQ(rolled->snapshot_log.size(), 3u);
  EXPECT_EQ(rolled->snapshot_log.back().snapshot_id, 100);
  EXPECT_GE(rolled->snapshot_log.back().timestamp_ms, rolled->snapshot_log[1].timestamp_ms);
  EXPECT_LE(rolled->snapshot_log.back().timestamp_ms, rolled->last_updated_ms);

  EXPECT_THAT(Apply(*two, R"({"action":"remove-snapshots","snapshot-ids":[100]})"),
              AllOf(IsError(ErrorKind::kInvalidArgument), HasErrorMessage("remove-snapshots")));
  auto removed = Apply(
      *two,
      R"({"action":"remove-snapshot-ref","ref-name":"v1"},{"action":"remove-snapshot-ref","ref-name":"dev"},)"
      R"({"action":"remove-snapshot-ref","ref-name":"gone"},{"action":"remove-snapshots","snapshot-ids":[100]})");
  ASSERT_OK(removed);
  EXPECT_EQ(removed->refs.size(), 1u);
  EXPECT_EQ(removed->snapshots.size(), 1u);
  EXPECT_EQ(removed->snapshots[0].snapshot_id, 101);

  auto no_main = Apply(*two, R"({"action":"remove-snapshot-ref","ref-name":"main"})");
  ASSERT_OK(no_main);
  EXPECT_FALSE(no_main->current_snapshot_id);
  EXPECT_THAT(
      Apply(*two,
            R"({"action":"set-snapshot-ref","ref-name":"v1","type":"branch","snapshot-id":100})"),
      HasErrorMessage("'v1' is a tag already"));
}

TEST(TableUpdatesApply, AddSchemaAndMinusOneMeansLastAdded) {
  TableMetadata t = NewTable();
  const std::string schema1 =
      R"({"type":"struct","schema-id":1,"fields":[{"id":1,"name":"id","required":true,"type":"long"},)"
      R"({"id":2,"name":"data","required":false,"type":"string"},{"id":3,"name":"ts","required":false,"type":"timestamptz"}]})";
  auto m = Apply(t, R"({"action":"add-schema","schema":)" + schema1 +
                        R"(},{"action":"set-current-schema","schema-id":-1})");
  ASSERT_OK(m);
  EXPECT_EQ(m->current_schema_id, 1);
  EXPECT_EQ(m->last_column_id, 3);
  EXPECT_EQ(m->schemas.size(), 2u);

  // Adding the same columns again reuses the schema (Java's builder does).
  auto again = Apply(
      *m,
      R"({"action":"add-schema","schema":{"type":"struct","schema-id":7,"fields":[)"
      R"({"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"data","required":false,"type":"string"}]}},)"
      R"({"action":"set-current-schema","schema-id":-1})");
  ASSERT_OK(again);
  EXPECT_EQ(again->current_schema_id, 0);
  EXPECT_EQ(again->schemas.size(), 2u);

  EXPECT_THAT(
      Apply(t, R"({"action":"set-current-schema","schema-id":-1})"),
      AllOf(IsError(ErrorKind::kInvalidArgument),
            HasErrorMessage("updates[0] (set-current-schema)"),
            HasErrorMessage("-1 names the schema added last in this commit, but none was added")));
  EXPECT_THAT(Apply(t, R"({"action":"set-current-schema","schema-id":5})"),
              HasErrorMessage("schema 5 does not exist"));
  EXPECT_THAT(
      Apply(
          t,
          R"({"action":"add-schema","schema":{"type":"struct","schema-id":0,"fields":[{"id":4,"name":"x","required":false,"type":"int"}]}})"),
      AllOf(IsError(ErrorKind::kInvalidArgument), HasErrorMessage("schema id 0 is already used")));

  auto dropped = Apply(*m, R"({"action":"remove-schemas","schema-ids":[0]})");
  ASSERT_OK(dropped);
  EXPECT_EQ(dropped->schemas.size(), 1u);
  EXPECT_THAT(Apply(*m, R"({"action":"remove-schemas","schema-ids":[1]})"),
              HasErrorMessage("schema 1 is current"));
}

TEST(TableUpdatesApply, AddSpecAndSortOrderWithMinusOne) {
  TableMetadata t = NewTable();
  auto m = Apply(
      t,
      R"({"action":"add-spec","spec":{"spec-id":1,"fields":[{"source-id":1,"field-id":1000,"name":"id_bucket","transform":"bucket[8]"}]}},)"
      R"({"action":"set-default-spec","spec-id":-1},)"
      R"({"action":"add-sort-order","sort-order":{"order-id":1,"fields":[{"source-id":2,"transform":"identity","direction":"asc","null-order":"nulls-first"}]}},)"
      R"({"action":"set-default-sort-order","sort-order-id":-1})");
  ASSERT_OK(m);
  EXPECT_EQ(m->default_spec_id, 1);
  EXPECT_EQ(m->last_partition_id, 1000);
  EXPECT_EQ(m->DefaultSpec()->fields().at(0).name, "id_bucket");
  EXPECT_EQ(m->default_sort_order_id, 1);
  EXPECT_EQ(m->SortOrderById(1)->fields().at(0).source_id, 2);

  // The unpartitioned spec and unsorted order exist: -1 names them when re-added.
  auto back = Apply(
      *m,
      R"({"action":"add-spec","spec":{"spec-id":5,"fields":[]}},{"action":"set-default-spec","spec-id":-1},)"
      R"({"action":"add-sort-order","sort-order":{"order-id":0,"fields":[]}},{"action":"set-default-sort-order","sort-order-id":-1})");
  ASSERT_OK(back);
  EXPECT_EQ(back->default_spec_id, 0);
  EXPECT_EQ(back->specs.size(), 2u);
  EXPECT_EQ(back->default_sort_order_id, 0);

  EXPECT_THAT(Apply(t, R"({"action":"set-default-spec","spec-id":-1})"),
              HasErrorMessage("none was added"));
  EXPECT_THAT(Apply(t, R"({"action":"set-default-sort-order","sort-order-id":-1})"),
              HasErrorMessage("none was added"));
  EXPECT_THAT(Apply(t, R"({"action":"set-default-spec","spec-id":3})"),
              HasErrorMessage("partition spec 3 does not exist"));
  EXPECT_THAT(
      Apply(
          t,
          R"({"action":"add-spec","spec":{"spec-id":1,"fields":[{"source-id":9,"field-id":1000,"name":"x","transform":"identity"}]}})"),
      AllOf(IsError(ErrorKind::kInvalidArgument), HasErrorMessage("updates[0] (add-spec)")));
  EXPECT_THAT(Apply(*m, R"({"action":"remove-partition-specs","spec-ids":[1]})"),
              HasErrorMessage("spec 1 is the default"));
  auto pruned = Apply(*m, R"({"action":"remove-partition-specs","spec-ids":[0]})");
  ASSERT_OK(pruned);
  EXPECT_EQ(pruned->specs.size(), 1u);
}

TEST(TableUpdatesApply, PropertiesLocationUuidAndFormatVersion) {
  TableMetadata t = NewTable();
  auto m = Apply(
      t,
      R"({"action":"set-properties","updates":{"a":"1","b":"2"}},{"action":"remove-properties","removals":["b","never"]},)"
      R"({"action":"set-location","location":"file:///elsewhere/t"},)"
      R"({"action":"assign-uuid","uuid":"9C12D441-03FE-4693-9A96-A0705DDF69C1"},)"
      R"({"action":"upgrade-format-version","format-version":2})");
  ASSERT_OK(m);
  EXPECT_EQ(m->properties.at("a"), "1");
  EXPECT_FALSE(m->properties.contains("b"));
  EXPECT_EQ(m->location, "file:///elsewhere/t");
  EXPECT_EQ(m->last_updated_ms, kCreatedMs) << "no snapshot added: the base's time stays";
  EXPECT_THAT(Apply(t, R"({"action":"assign-uuid","uuid":"00000000-0000-0000-0000-000000000000"})"),
              AllOf(IsError(ErrorKind::kInvalidArgument), HasErrorMessage("cannot be reassigned")));
  EXPECT_THAT(Apply(t, R"({"action":"upgrade-format-version","format-version":1})"),
              HasErrorMessage("cannot downgrade"));
  EXPECT_THAT(Apply(t, R"({"action":"upgrade-format-version","format-version":4})"),
              HasErrorMessage("format versions 2 and 3"));
  // 2 -> 3 starts row lineage at next-row-id 0 (Iceberg spec: Row Lineage for
  // Upgraded Tables).
  auto v3 = Apply(t, R"({"action":"upgrade-format-version","format-version":3})");
  ASSERT_OK(v3);
  EXPECT_EQ(v3->format_version, 3);
  EXPECT_EQ(v3->next_row_id, 0);
}

TEST(TableUpdatesApply, StatisticsReplaceRemoveAndFollowTheirSnapshot) {
  TableMetadata t = TableWithSnapshot();
  auto stats = [](const char* path) {
    return fmt::format(
        R"({{"snapshot-id":100,"statistics-path":"{}","file-size-in-bytes":1,"file-footer-size-in-bytes":1,"blob-metadata":[]}})",
        path);
  };
  auto m = Apply(
      t,
      R"({"action":"set-statistics","statistics":)" + stats("a") +
          R"(},{"action":"set-statistics","statistics":)" + stats("b") +
          R"(},{"action":"set-partition-statistics","partition-statistics":{"snapshot-id":100,"statistics-path":"p","file-size-in-bytes":3}})");
  ASSERT_OK(m);
  ASSERT_EQ(m->statistics.size(), 1u) << "one statistics file per snapshot";
  EXPECT_THAT(m->statistics[0], HasSubstr(R"("statistics-path":"b")"));
  EXPECT_EQ(m->partition_statistics.size(), 1u);
  auto removed = Apply(
      *m,
      R"({"action":"remove-statistics","snapshot-id":100},{"action":"remove-partition-statistics","snapshot-id":100})");
  ASSERT_OK(removed);
  EXPECT_TRUE(removed->statistics.empty());
  EXPECT_TRUE(removed->partition_statistics.empty());
}

TEST(TableUpdatesApply, CommitBuiltLocallyAppliesBackToTheSameMetadata) {
  // What a client does locally (AddSnapshot on main) and the updates it
  // sends for it give the same metadata on the server.
  TableMetadata base = TableWithSnapshot();
  TableMetadata local = base;
  Snapshot s;
  s.snapshot_id = 555;
  s.parent_snapshot_id = 100;
  s.sequence_number = 2;
  s.timestamp_ms = kCreatedMs + 50;
  s.manifest_list = "file:///warehouse/db/t/metadata/snap-555.avro";
  s.operation = SnapshotOperation::kAppend;
  s.schema_id = 0;
  ASSERT_OK(AddSnapshot(&local, s, kCreatedMs + 50));
  auto remote = Apply(
      base,
      R"({"action":"add-snapshot","snapshot":)" + SnapshotJson(555, 100, 2, kCreatedMs + 50) +
          R"(},{"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":555})");
  ASSERT_OK(remote);
  EXPECT_TRUE(*remote == local);
}

}  // namespace table_updates_apply_test
}  // namespace floe::iceberg
