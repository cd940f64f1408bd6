// Schema JSON (Appendix C), partition specs (builder, Java default names,
// field ids from 1000, validation rules) and sort orders.
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema_json.h"
#include "floe/iceberg/sort_order.h"

#include <gtest/gtest.h>

#include "testing/matchers.h"

namespace floe::iceberg {
namespace schema_spec_test {

constexpr const char* kNested = R"J({
  "type": "struct", "schema-id": 3, "identifier-field-ids": [1],
  "fields": [
    {"id": 1, "name": "id", "required": true, "type": "long", "doc": "the key"},
    {"id": 2, "name": "tags", "required": false,
     "type": {"type": "list", "element-id": 3, "element-required": true, "element": "string"}},
    {"id": 4, "name": "props", "required": false,
     "type": {"type": "map", "key-id": 5, "key": "string", "value-id": 6, "value-required": false,
              "value": {"type": "struct", "fields": [
                 {"id": 7, "name": "x", "required": false, "type": "decimal(9,2)"},
                 {"id": 8, "name": "t", "required": false, "type": "timestamptz_ns"}]}}},
    {"id": 9, "name": "f", "required": false, "type": "fixed[16]", "initial-default": "000102030405060708090a0b0c0d0e0f", "write-default": null},
    {"id": 10, "name": "ts", "required": false, "type": "timestamp_ns"}
  ]})J";

TEST(SchemaJson, NestedTypesRoundTrip) {
  FieldDefaults defaults;
  auto s = SchemaFromJson(kNested, &defaults);
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->schema_id(), 3);
  EXPECT_EQ(s->identifier_field_ids(), std::vector<int32_t>{1});
  EXPECT_EQ(s->fields()[0].doc, "the key");
  const Type& tags = *s->fields()[1].type;
  EXPECT_EQ(tags.id, TypeId::kList);
  EXPECT_EQ(tags.element().id, 3);
  EXPECT_TRUE(tags.element().required);
  const Type& props = *s->fields()[2].type;
  EXPECT_EQ(props.id, TypeId::kMap);
  EXPECT_EQ(props.value().type->fields[0].type->ToString(), "decimal(9, 2)");
  EXPECT_EQ(props.value().type->fields[1].type->id, TypeId::kTimestampTzNs);
  EXPECT_EQ(s->FindField(10)->type->id, TypeId::kTimestampNs);
  ASSERT_EQ(defaults.count(9), 1u);
  EXPECT_EQ(defaults[9].initial_default, "\"000102030405060708090a0b0c0d0e0f\"");
  EXPECT_EQ(defaults[9].write_default, "null");

  auto text = SchemaToJson(*s, &defaults);
  ASSERT_OK(text);
  FieldDefaults defaults2;
  auto again = SchemaFromJson(*text, &defaults2);
  ASSERT_TRUE(again) << again.error().ToString() << "\n" << *text;
  EXPECT_EQ(*again, *s);
  EXPECT_EQ(defaults2, defaults);
  EXPECT_NE(text->find("\"element-required\":true"), std::string::npos);
  EXPECT_NE(text->find("\"type\":\"decimal(9, 2)\""), std::string::npos);
}

TEST(SchemaJson, ErrorsNameTheField) {
  auto unsupported = SchemaFromJson(
      R"J({"type":"struct","schema-id":0,"fields":[{"id":1,"name":"a","required":false,"type":{"type":"struct","fields":[{"id":2,"name":"geo","required":false,"type":"geometry(srid:4326)"}]}}]})J");
  ASSERT_FALSE(unsupported);
  EXPECT_EQ(unsupported.error().kind, ErrorKind::kUnsupported);
  EXPECT_NE(unsupported.error().message.find("field 'a.geo'"), std::string::npos)
      << unsupported.error().message;
  for (const char* t : {"\"variant\"", "\"unknown\"", "\"geography(srid:4326,spherical)\""}) {
    auto r = SchemaFromJson(fmt::format(
        R"({{"type":"struct","fields":[{{"id":1,"name":"v","required":false,"type":{}}}]}})", t));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().kind, ErrorKind::kUnsupported) << t;
    EXPECT_NE(r.error().message.find("field 'v'"), std::string::npos);
  }
  auto bad = SchemaFromJson(
      R"({"type":"struct","fields":[{"id":1,"name":"v","required":false,"type":"varchar"}]})");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(bad.error().message.find("field 'v'"), std::string::npos);
  auto no_id = SchemaFromJson(R"({"type":"struct","fields":[{"name":"v","required":false,"type":"int"}]})");
  ASSERT_FALSE(no_id);
  EXPECT_NE(no_id.error().message.find("field 'v': 'id' is required"), std::string::npos)
      << no_id.error().message;
  auto dup = SchemaFromJson(
      R"({"type":"struct","fields":[{"id":1,"name":"a","required":false,"type":"int"},{"id":1,"name":"b","required":false,"type":"int"}]})");
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.error().message.find("field id 1 is used twice"), std::string::npos);
  EXPECT_FALSE(SchemaFromJson("[1,2]"));
  EXPECT_FALSE(SchemaFromJson("{\"type\":\"list\"}"));
}

Schema TestSchema() {
  return Schema({{1, "id", true, LongType(), {}},
                 {2, "name", false, StringType(), {}},
                 {3, "ts", false, TimestampTzType(), {}},
                 {4, "d", false, DateType(), {}},
                 {5, "amount", false, DecimalType(10, 2), {}},
                 {6, "tags", false, ListType(7, false, StringType()), {}},
                 {8, "loc", false, StructType({{9, "city", false, StringType(), {}}}), {}},
                 {10, "score", false, DoubleType(), {}}});
}

TEST(PartitionSpec, BuilderAssignsIdsAndJavaNames) {
  Schema schema = TestSchema();
  auto spec = PartitionSpecBuilder(schema)
                  .Bucket("id", 16)
                  .Truncate("name", 4)
                  .Day("ts")
                  .Month("d")
                  .Identity("loc.city")
                  .Truncate("amount", 50, "amt")
                  .Void("score")
                  .Build(3);
  ASSERT_TRUE(spec) << spec.error().ToString();
  EXPECT_EQ(spec->spec_id(), 3);
  const auto& f = spec->fields();
  ASSERT_EQ(f.size(), 7u);
  EXPECT_EQ(f[0].name, "id_bucket");
  EXPECT_EQ(f[0].field_id, 1000);
  EXPECT_EQ(f[1].name, "name_trunc");
  EXPECT_EQ(f[2].name, "ts_day");
  EXPECT_EQ(f[3].name, "d_month");
  EXPECT_EQ(f[4].name, "loc.city");
  EXPECT_EQ(f[4].source_id, 9);
  EXPECT_EQ(f[5].name, "amt");
  EXPECT_EQ(f[6].name, "score_null");
  EXPECT_EQ(f[6].field_id, 1006);
  EXPECT_EQ(spec->LastAssignedFieldId(), 1006);
  EXPECT_FALSE(spec->is_unpartitioned());

  auto type = spec->PartitionType(schema);
  ASSERT_OK(type);
  EXPECT_EQ((*type)->ToString(),
            "struct<id_bucket: int, name_trunc: string, ts_day: date, d_month: int, loc.city: "
            "string, amt: decimal(10, 2), score_null: double>");

  // Ids continue from last-partition-id in an evolved spec.
  auto next = PartitionSpecBuilder(schema, 1006).Hour("ts").Build(4);
  ASSERT_OK(next);
  EXPECT_EQ(next->fields()[0].field_id, 1007);
  EXPECT_EQ(next->fields()[0].name, "ts_hour");

  auto text = PartitionSpecToJson(*spec);
  ASSERT_OK(text);
  auto back = PartitionSpecFromJson(*text);
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_EQ(*back, *spec);
  auto fields_only = PartitionFieldsToJson(*spec);
  EXPECT_EQ(*PartitionFieldsFromJson(*fields_only, 3), *spec);
  // v1 fields without ids get 1000, 1001, ...
  auto v1 = PartitionFieldsFromJson(
      R"([{"name":"a","transform":"identity","source-id":1},{"name":"b","transform":"bucket[2]","source-id":2}])", 0);
  ASSERT_OK(v1);
  EXPECT_EQ(v1->fields()[1].field_id, 1001);
  EXPECT_TRUE(PartitionSpec().is_unpartitioned());
  EXPECT_EQ(PartitionSpec().LastAssignedFieldId(), 999);
}

TEST(PartitionSpec, RulesGiveClearErrors) {
  Schema schema = TestSchema();
  auto expect_error = [](const Result<PartitionSpec>& r, std::string_view needle) {
    ASSERT_FALSE(r) << "accepted: " << needle;
    EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
  };
  expect_error(PartitionSpecBuilder(schema).Bucket("nope", 2).Build(), "column 'nope' is not in the schema");
  expect_error(PartitionSpecBuilder(schema).Hour("d").Build(), "transform hour cannot be applied to column 'd' of type date");
  expect_error(PartitionSpecBuilder(schema).Bucket("score", 2).Build(), "cannot be applied to column 'score' of type double");
  expect_error(PartitionSpecBuilder(schema).Identity("tags").Build(), "not a primitive type");
  expect_error(PartitionSpecBuilder(schema).Identity("tags.element").Build(), "inside a list or map");
  expect_error(PartitionSpecBuilder(schema).Day("ts").Hour("ts").Build(), "already has a time partition");
  expect_error(PartitionSpecBuilder(schema).Bucket("id", 4).Bucket("id", 4, "other").Build(), "already has a bucket[4] partition");
  expect_error(PartitionSpecBuilder(schema).Bucket("id", 4, "x").Truncate("name", 2, "x").Build(), "the name is used twice");
  expect_error(PartitionSpecBuilder(schema).Bucket("id", 4, "name").Build(), "clashes with schema column 'name'");
  expect_error(PartitionSpecBuilder(schema).Identity("id", "name").Build(), "clashes with schema column 'name'");
  // Identity of the column itself may use the column's name.
  EXPECT_OK(PartitionSpecBuilder(schema).Identity("name").Build());
  // Different bucket counts on one column are allowed (Java allows them too).
  EXPECT_OK(PartitionSpecBuilder(schema).Bucket("id", 4).Bucket("id", 8, "id_bucket8").Build());
  auto unknown = PartitionSpecFromJson(R"({"spec-id":1,"fields":[{"name":"z","transform":"zorder","source-id":1,"field-id":1000}]})");
  ASSERT_OK(unknown);  // readers must accept unknown transforms
  auto st = unknown->Validate(schema);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kUnsupported);
  EXPECT_FALSE(PartitionSpecFromJson(R"({"spec-id":1,"fields":[{"name":"z","transform":"bucket[0]","source-id":1}]})"));
  EXPECT_FALSE(PartitionSpecFromJson(R"({"fields":[]})"));
}

TEST(SortOrder, JsonAndValidation) {
  Schema schema = TestSchema();
  SortOrder order(1, {{Transform::Bucket(4), 1, SortDirection::kDesc, NullOrder::kNullsLast},
                      {Transform::Identity(), 2, SortDirection::kAsc, NullOrder::kNullsFirst}});
  EXPECT_OK(order.Validate(schema));
  auto text = SortOrderToJson(order);
  ASSERT_OK(text);
  EXPECT_NE(text->find("\"direction\":\"desc\""), std::string::npos);
  EXPECT_NE(text->find("\"null-order\":\"nulls-last\""), std::string::npos);
  EXPECT_EQ(*SortOrderFromJson(*text), order);
  EXPECT_OK(SortOrder::Unsorted().Validate(schema));
  EXPECT_EQ(*SortOrderToJson(SortOrder::Unsorted()), R"({"order-id":0,"fields":[]})");
  EXPECT_FALSE(SortOrder(0, order.fields()).Validate(schema));
  EXPECT_FALSE(SortOrder(2, {}).Validate(schema));
  EXPECT_FALSE(SortOrder(2, {{Transform::Identity(), 99, SortDirection::kAsc, NullOrder::kNullsFirst}}).Validate(schema));
  EXPECT_FALSE(SortOrder(2, {{Transform::Year(), 2, SortDirection::kAsc, NullOrder::kNullsFirst}}).Validate(schema));
  auto bad = SortOrderFromJson(R"({"order-id":1,"fields":[{"transform":"identity","source-id":1,"direction":"up","null-order":"nulls-first"}]})");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("sort direction 'up'"), std::string::npos);
}

}  // namespace schema_spec_test
}  // namespace floe::iceberg

namespace floe::iceberg {
namespace schema_spec_test {

TEST(PartitionSpec, PartitionColumnsOfABatch) {
  auto schema = std::make_shared<const Schema>(TestSchema());
  auto spec = PartitionSpecBuilder(*schema).Bucket("id", 8).Day("ts").Identity("loc.city").Build();
  ASSERT_OK(spec);
  Batch batch(schema);
  // Three rows; row 1 has a null struct `loc`, row 2 a null ts.
  const int64_t ts0 = 1510871468000000;  // 2017-11-16T22:31:08Z
  for (int row = 0; row < 3; ++row) {
    for (size_t c = 0; c < batch.columns.size(); ++c) {
      ColumnVector& col = batch.columns[c];
      switch (c) {
        case 0: col.Append(int64_t{34} + row); break;
        case 2:
          if (row == 2) col.AppendNull(); else col.Append(ts0 - row * 86400000000LL);
          break;
        case 6:
          if (row == 1) {
            col.AppendNull();
          } else {
            col.children[0].AppendBytes(row == 0 ? "Oslo" : "Lima");
            col.AppendStructRow();
          }
          break;
        default: col.AppendNull();
      }
    }
  }
  batch.num_rows = 3;
  ASSERT_TRUE(batch.Validate()) << batch.Validate().error().ToString();
  auto cols = PartitionColumns(*spec, batch);
  ASSERT_TRUE(cols) << cols.error().ToString();
  ASSERT_EQ(cols->size(), 3u);
  auto t0 = PartitionTupleAt(*cols, 0);
  EXPECT_EQ(t0[0], Value::Int(BucketOfHash(2017239379, 8)));
  EXPECT_EQ(t0[1], Value::Date(17486));
  EXPECT_EQ(t0[2], Value::String("Oslo"));
  auto t1 = PartitionTupleAt(*cols, 1);
  EXPECT_EQ(t1[1], Value::Date(17485));
  EXPECT_TRUE(t1[2].is_null());  // under a null struct
  auto t2 = PartitionTupleAt(*cols, 2);
  EXPECT_TRUE(t2[1].is_null());
  EXPECT_EQ(t2[2], Value::String("Lima"));

  PartitionSpec bad(0, {{99, 1000, "x", Transform::Identity()}});
  EXPECT_FALSE(PartitionColumns(bad, batch));
}

}  // namespace schema_spec_test
}  // namespace floe::iceberg

namespace floe::iceberg {
namespace schema_spec_test {

TEST(SchemaJson, DefaultsMustFitTheFieldType) {
  auto field = [](const char* type, const char* initial) {
    return fmt::format(
        R"J({{"type":"struct","fields":[{{"id":1,"name":"f","required":false,"type":{},"initial-default":{}}}]}})J",
        type, initial);
  };
  EXPECT_OK(SchemaFromJson(field("\"int\"", "34")));
  EXPECT_OK(SchemaFromJson(field("\"date\"", "\"2017-11-16\"")));
  EXPECT_OK(SchemaFromJson(field(
      R"({"type":"struct","fields":[{"id":2,"name":"x","required":false,"type":"int","write-default":0}]})",
      "{}")));
  auto bad = SchemaFromJson(field("\"int\"", "\"34\""));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(bad.error().message.find("field 'f' initial-default"), std::string::npos) << bad.error().message;
  auto non_empty = SchemaFromJson(field(R"({"type":"struct","fields":[{"id":2,"name":"x","required":false,"type":"int"}]})", R"({"2": 1})"));
  ASSERT_FALSE(non_empty);
  EXPECT_NE(non_empty.error().message.find("must be null or {}"), std::string::npos) << non_empty.error().message;
}

}  // namespace schema_spec_test
}  // namespace floe::iceberg

namespace floe::iceberg {
namespace schema_spec_test {

TEST(PartitionSpec, JavaPartitionPaths) {
  Schema schema = TestSchema();
  auto spec = PartitionSpecBuilder(schema)
                  .Day("ts")
                  .Hour("ts", "h")
                  .Identity("name")
                  .Bucket("id", 16)
                  .Truncate("amount", 10)
                  .Build();
  // Hour and day on one column are refused by the builder; build the spec directly.
  ASSERT_FALSE(spec);
  PartitionSpec s(0, {{3, 1000, "ts_day", Transform::Day()},
                      {3, 1001, "ts hour", Transform::Hour()},
                      {4, 1002, "d_month", Transform::Month()},
                      {4, 1003, "d_year", Transform::Year()},
                      {2, 1004, "name", Transform::Identity()},
                      {1, 1005, "id_bucket", Transform::Bucket(16)},
                      {5, 1006, "amount_trunc", Transform::Truncate(10)}});
  auto type = s.PartitionType(schema);
  ASSERT_TRUE(type) << type.error().ToString();
  auto path = PartitionPath(s, **type,
                            {Value::Date(17486), Value::Int(17486 * 24 + 22), Value::Int(574),
                             Value::Int(-1), Value::String("a b/ü"), Value::Int(3),
                             Value::Decimal(1420)});
  ASSERT_TRUE(path) << path.error().ToString();
  EXPECT_EQ(*path,
            "ts_day=2017-11-16/ts+hour=2017-11-16-22/d_month=2017-11/d_year=1969/"
            "name=a+b%2F%C3%BC/id_bucket=3/amount_trunc=14.20");
  auto nulls = PartitionPath(s, **type, Values(7, Value::Null()));
  ASSERT_OK(nulls);
  EXPECT_EQ(nulls->substr(0, 23), "ts_day=null/ts+hour=nul");
  EXPECT_FALSE(PartitionPath(s, **type, {Value::Null()}));

  EXPECT_EQ(PartitionHumanString(Transform::Identity(), *TimestampType(), Value::Timestamp(1510871468000000)),
            "2017-11-16T22:31:08");
  EXPECT_EQ(PartitionHumanString(Transform::Identity(), *TimestampTzType(), Value::Timestamp(1510871460000000)),
            "2017-11-16T22:31Z");
  EXPECT_EQ(PartitionHumanString(Transform::Identity(), *TimestampType(), Value::Timestamp(1510871468100000)),
            "2017-11-16T22:31:08.100");
  EXPECT_EQ(PartitionHumanString(Transform::Identity(), *BinaryType(), Value::Bytes("\x01\x02\x03\x04")), "AQIDBA==");
  EXPECT_EQ(PartitionHumanString(Transform::Identity(), *DecimalType(9, 7), Value::Decimal(1)), "1E-7");
  EXPECT_EQ(PartitionHumanString(Transform::Identity(), *DecimalType(9, 8), Value::Decimal(-12)), "-1.2E-7");
  EXPECT_EQ(PartitionHumanString(Transform::Identity(), *DecimalType(9, 7), Value::Decimal(-12)), "-0.0000012");
  EXPECT_EQ(PartitionHumanString(Transform::Identity(), *DecimalType(9, 6), Value::Decimal(1)), "0.000001");
  EXPECT_EQ(PartitionHumanString(Transform::Month(), *IntType(), Value::Int(-1)), "1969-12");
  EXPECT_EQ(PartitionHumanString(Transform::Hour(), *IntType(), Value::Int(-1)), "1969-12-31-23");
}

}  // namespace schema_spec_test
}  // namespace floe::iceberg
