// The sink module alone: Beam configuration from YAML and --set (checked
// through the option registry), partition/sort field syntax, keep/drop/only
// projection and binding to a table schema, and the two-stage pipeline
// (rows in order, errors from either stage stop both).
#include <gtest/gtest.h>

#include <atomic>

#include "floe/format/jsonl_reader.h"
#include "floe/sink/change_rows.h"
#include "floe/sink/pipeline.h"
#include "floe/sink/projection.h"
#include "floe/sink/write_config.h"
#include "floe/types/json_value.h"
#include "floe/types/sql_schema.h"
#include "testing/matchers.h"

namespace floe::sink {
namespace sink_test {

SchemaPtr Sql(const char* text) {
  auto s = ParseSqlColumns(text);
  EXPECT_TRUE(s) << s.error().message;
  return std::make_shared<Schema>(std::move(*s));
}

TEST(WriteConfig, YamlEveryKey) {
  auto c = WriteConfig::FromYaml(R"Y(
table: db.t
catalog_name: c1
catalog_properties: {warehouse: /tmp/wh}
config_properties: {}
partition_fields: [id, "bucket(id, 4)"]
sort_fields: ["id desc"]
table_properties: {write.parquet.compression-codec: snappy}
write_properties: {target-file-size-bytes: 1000}
keep: [id, name]
)Y",
                                 "t.yaml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->table, "db.t");
  EXPECT_EQ(c->catalog_name, "c1");
  EXPECT_EQ(c->catalog_properties.at("warehouse"), "/tmp/wh");
  EXPECT_EQ(c->partition_fields, (std::vector<std::string>{"id", "bucket(id, 4)"}));
  EXPECT_EQ(c->sort_fields, (std::vector<std::string>{"id desc"}));
  EXPECT_EQ(c->table_properties.at("write.parquet.compression-codec"), "snappy");
  EXPECT_EQ(c->write_properties.at("target-file-size-bytes"), "1000");
  EXPECT_EQ(c->projection.kind, ProjectionKind::kKeep);
}

// Options floe does not implement yet are refused, never accepted and ignored.
TEST(WriteConfig, NotImplementedOptionsAreRefused) {
  for (const char* yaml : {"direct_write_byte_limit: 0\n", "config_properties: {fs.s3a.endpoint: x}\n",
                           "write_properties: {write-format: orc}\n", "write_properties: {distribution-mode: range}\n",
                           "write_properties: {write.delete.mode: merge-on-read}\n",
                           "catalog_properties: {catalog-type: hive, uri: 'thrift://x'}\n",
                           "catalog_properties: {catalog-impl: a.B, catalog-type: hadoop}\n"}) {
    auto c = WriteConfig::FromYaml(yaml, "t.yaml");
    EXPECT_FALSE(c) << yaml;
  }
  // Stored for other engines when a table is created.
  EXPECT_OK(
      WriteConfig::FromYaml("table_properties: {write.delete.mode: merge-on-read}\n", "t.yaml"));
  WriteConfig c;
  EXPECT_FALSE(c.Set("write.update.mode", "merge-on-read"));
  EXPECT_FALSE(c.Set("distribution-mode", "range"));
  EXPECT_FALSE(c.Set("direct_write_byte_limit", "0"));
  EXPECT_OK(c.Set("keep", "a,b"));
  auto st = c.Set("drop", "c");
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("keep"), std::string::npos) << st.error().message;
  EXPECT_OK(c.Set("table", "db.t"));
  EXPECT_FALSE(c.SetTable("db.u", "--table"));
  EXPECT_OK(c.SetTable("db.t", "--table"));
}

TEST(WriteConfig, ErrorsNameTheKey) {
  auto unknown = WriteConfig::FromYaml("tabel: x\n", "t.yaml");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("tabel"), std::string::npos) << unknown.error().message;
  EXPECT_NE(unknown.error().message.find("table"), std::string::npos);
  auto both = WriteConfig::FromYaml("keep: [a]\nonly: b\n", "t.yaml");
  ASSERT_FALSE(both);
  auto bad_prop = WriteConfig::FromYaml("write_properties: {overwrite-enabled: perhaps}\n", "t.yaml");
  ASSERT_FALSE(bad_prop);
  EXPECT_NE(bad_prop.error().message.find("overwrite-enabled"), std::string::npos) << bad_prop.error().message;
  auto bad_yaml = WriteConfig::FromYaml("table: [unclosed\n", "t.yaml");
  ASSERT_FALSE(bad_yaml);
  EXPECT_NE(bad_yaml.error().message.find("t.yaml"), std::string::npos);

  WriteConfig c;
  EXPECT_OK(c.Set("overwrite-enabled", "true"));
  EXPECT_OK(c.Set("write.parquet.page-size-bytes", "65536"));
  EXPECT_EQ(c.table_properties.at("write.parquet.page-size-bytes"), "65536");
  EXPECT_EQ(c.table_properties.count("overwrite-enabled"), 0u);
  auto st = c.Set("write-parallelizm", "2");
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("write-parallelizm"), std::string::npos);
  EXPECT_NE(st.error().message.find("write-parallelism"), std::string::npos) << st.error().message;
  EXPECT_FALSE(c.Set("target-file-size-bytes", "1MB"));
}

TEST(WriteConfig, PartitionAndSortFields) {
  SchemaPtr s = Sql("id BIGINT, name STRING, ts TIMESTAMP, d DATE");
  EXPECT_EQ(SplitTopLevelCommas("bucket(id, 16), day(ts) ,name"),
            (std::vector<std::string>{"bucket(id, 16)", "day(ts)", "name"}));
  auto spec = ParsePartitionFields({"bucket(id, 16)", "truncate(name, 3)", "hour(ts)", "year(d)", "void(name)"}, *s);
  ASSERT_TRUE(spec) << spec.error().message;
  ASSERT_EQ(spec->fields().size(), 5u);
  EXPECT_EQ(spec->fields()[0].name, "id_bucket");
  EXPECT_EQ(spec->fields()[0].field_id, 1000);
  EXPECT_FALSE(ParsePartitionFields({"bucket(id)"}, *s));
  EXPECT_FALSE(ParsePartitionFields({"bucket(id, x)"}, *s));
  EXPECT_FALSE(ParsePartitionFields({"nope"}, *s));
  auto bad = ParsePartitionFields({"decade(ts)"}, *s);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("decade"), std::string::npos);

  auto order = ParseSortFields({"id", "name DESC", "ts asc nulls last"}, *s);
  ASSERT_TRUE(order) << order.error().message;
  ASSERT_EQ(order->fields().size(), 3u);
  EXPECT_EQ(order->order_id(), 1);
  EXPECT_EQ(order->fields()[0].null_order, iceberg::NullOrder::kNullsFirst);
  EXPECT_EQ(order->fields()[1].direction, iceberg::SortDirection::kDesc);
  EXPECT_EQ(order->fields()[1].null_order, iceberg::NullOrder::kNullsLast);
  EXPECT_EQ(order->fields()[2].null_order, iceberg::NullOrder::kNullsLast);
  EXPECT_FALSE(ParseSortFields({"id sideways"}, *s));
  EXPECT_FALSE(ParseSortFields({"id nulls"}, *s));
  EXPECT_FALSE(ParseSortFields({"missing"}, *s));
  EXPECT_TRUE(ParseSortFields({}, *s)->is_unsorted());
  // Sort terms may be transforms (Beam's sort_fields).
  auto transforms = ParseSortFields({"bucket(id, 4) desc", "day(ts)", "truncate(name, 2) asc nulls last"}, *s);
  ASSERT_TRUE(transforms) << transforms.error().message;
  EXPECT_EQ(transforms->fields()[0].transform, iceberg::Transform::Bucket(4));
  EXPECT_EQ(transforms->fields()[0].direction, iceberg::SortDirection::kDesc);
  EXPECT_EQ(transforms->fields()[1].transform, iceberg::Transform::Day());
  EXPECT_FALSE(ParseSortFields({"bucket(id) desc"}, *s));
  EXPECT_FALSE(ParseSortFields({"decade(ts)"}, *s));
}

// A YAML flow list splits at the comma inside `bucket(id, 4)`; floe joins it again.
TEST(WriteConfig, YamlFlowListsKeepTransformArguments) {
  auto c = WriteConfig::FromYaml("partition_fields: [bucket(id, 4), day(ts)]\nsort_fields: [bucket(id, 4) desc]\n",
                                 "t.yaml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->partition_fields, (std::vector<std::string>{"bucket(id, 4)", "day(ts)"}));
  EXPECT_EQ(c->sort_fields, (std::vector<std::string>{"bucket(id, 4) desc"}));
}

Batch Decode(SchemaPtr schema, const std::string& jsonl) {
  auto r = format::JsonlReader::FromString(schema, jsonl);
  EXPECT_OK(r);
  Batch b(schema);
  auto more = (*r)->Next(&b);
  EXPECT_TRUE(more && *more);
  return b;
}

std::string Rows(const Batch& b) {
  std::string out;
  for (int64_t r = 0; r < b.num_rows; ++r) {
    AppendJsonRow(b, r, &out);
    out += "\n";
  }
  return out;
}

// ReadAll (a batch's change types and sequence numbers at once, what the
// sink calls) gives what Read gives row by row, and lists exactly the rows
// Read refuses, once each and in order: a null or unknown change type, a
// null sequence number, both in one row; the change types in runs and
// alternating (ReadAll remembers the last spelling); a nested sequence column.
TEST(ControlColumns, ReadAllAgreesWithReadRowByRow) {
  for (const char* seq_column : {"seq", "meta.seq"}) {
    SCOPED_TRACE(seq_column);
    auto config = WriteConfig::FromYaml(std::string("mode: merge-on-read\nchange_type_column: op\n"
                                                    "change_type_map: {i: INSERT, u: UPDATE_AFTER, d: DELETE}\n"
                                                    "sequence_number_column: ") + seq_column + "\n",
                                        "t.yaml");
    ASSERT_OK(config);
    auto options = SinkOptions::Resolve(*config);
    ASSERT_OK(options);
    SchemaPtr in = Sql("id BIGINT, op STRING, seq BIGINT, meta STRUCT<seq INT>");
    auto control = ControlColumns::Make(in, *options, {});
    ASSERT_OK(control);
    const std::string rows =
        R"({"id":1,"op":"i","seq":1,"meta":{"seq":1}})" "\n"
        R"({"id":2,"op":"i","seq":2,"meta":{"seq":2}})" "\n"
        R"({"id":3,"op":"u","seq":3,"meta":{"seq":3}})" "\n"
        R"({"id":4,"op":null,"seq":4,"meta":{"seq":4}})" "\n"
        R"({"id":5,"op":"x","seq":5,"meta":{"seq":5}})" "\n"
        R"({"id":6,"op":"d","seq":null,"meta":null})" "\n"
        R"({"id":7,"op":"zz","seq":null,"meta":{"seq":null}})" "\n"
        R"({"id":8,"op":"u","seq":8,"meta":{"seq":8}})" "\n"
        R"({"id":9,"op":"d","seq":9,"meta":{"seq":9}})" "\n"
        R"({"id":10,"op":"u","seq":10,"meta":{"seq":10}})" "\n";
    Batch batch = Decode(in, rows);
    std::vector<RowKind> kinds;
    std::vector<int64_t> seqs, refused;
    control->ReadAll(batch, &kinds, &seqs, &refused);
    ASSERT_EQ(kinds.size(), 10u);
    ASSERT_EQ(seqs.size(), 10u);
    std::vector<int64_t> want_refused;
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      auto one = control->Read(batch, i, *options);
      if (!one) {
        want_refused.push_back(i);
        continue;
      }
      EXPECT_EQ(kinds[static_cast<size_t>(i)], one->kind) << "row " << i;
      EXPECT_EQ(seqs[static_cast<size_t>(i)], one->seq) << "row " << i;
    }
    EXPECT_EQ(refused, (std::vector<int64_t>{3, 4, 5, 6}));
    EXPECT_EQ(refused, want_refused);
    EXPECT_EQ(kinds[9], RowKind::kUpdateAfter);
    EXPECT_EQ(kinds[8], RowKind::kDelete);
    EXPECT_EQ(seqs[9], 10);
  }
}

TEST(Projector, KeepDropOnlyAndBind) {
  SchemaPtr in = Sql("a INT, b STRING, rec STRUCT<x INT, y STRING>");
  const std::string rows = R"({"a":1,"b":"p","rec":{"x":5,"y":"q"}})" "\n" R"({"a":2,"b":null,"rec":null})" "\n";

  auto keep = Projector::Make(in, {ProjectionKind::kKeep, {"b", "a"}});
  ASSERT_OK(keep);
  ASSERT_OK(keep->Bind(Sql("a INT, b STRING")));
  Batch out;
  ASSERT_OK(keep->Apply(Decode(in, rows), &out, 1));
  EXPECT_EQ(Rows(out), "{\"a\":1,\"b\":\"p\"}\n{\"a\":2,\"b\":null}\n");

  auto drop = Projector::Make(in, {ProjectionKind::kDrop, {"rec"}});
  ASSERT_OK(drop);
  EXPECT_EQ(drop->projected_schema()->num_fields(), 2);

  auto only = Projector::Make(in, {ProjectionKind::kOnly, {"rec"}});
  ASSERT_OK(only);
  ASSERT_OK(only->Bind(Sql("x INT, y STRING")));
  ASSERT_OK(only->Apply(Decode(in, rows), &out, 1));
  EXPECT_EQ(Rows(out), "{\"x\":5,\"y\":\"q\"}\n{\"x\":null,\"y\":null}\n");

  EXPECT_FALSE(Projector::Make(in, {ProjectionKind::kOnly, {"a"}}));
  EXPECT_FALSE(Projector::Make(in, {ProjectionKind::kKeep, {"zz"}}));
  EXPECT_FALSE(Projector::Make(in, {ProjectionKind::kDrop, {"a", "b", "rec"}}));

  // Binding: a table column of another type, a missing required column, an
  // input column the table lacks; a missing optional column reads as nulls.
  auto none = Projector::Make(Sql("a INT, b STRING"), {});
  EXPECT_FALSE(none->Bind(Sql("a BIGINT, b STRING")));
  EXPECT_FALSE(none->Bind(Sql("a INT, b STRING, c INT NOT NULL")));
  EXPECT_FALSE(none->Bind(Sql("a INT")));
  ASSERT_OK(none->Bind(Sql("c DOUBLE, b STRING, a INT")));
  SchemaPtr two = Sql("a INT, b STRING");
  ASSERT_OK(none->Apply(Decode(two, R"({"a":7,"b":"z"})"
                                    "\n"),
                        &out, 1));
  EXPECT_EQ(Rows(out), "{\"c\":null,\"b\":\"z\",\"a\":7}\n");
  // Null in a NOT NULL table column: the row is named.
  ASSERT_OK(none->Bind(Sql("a INT NOT NULL, b STRING")));
  auto st = none->Apply(Decode(two, "{\"a\":1}\n{\"a\":null}\n"), &out, 101);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("row 102"), std::string::npos) << st.error().message;
}

// keep / drop name nested struct fields with dots, as Beam's RowFilter does
// (issue 28: `drop=meta.src` was "no field 'meta.src'"): the struct keeps
// the other fields (drop) or only the named ones, in its own order (keep).
TEST(Projector, KeepAndDropNameNestedFields) {
  SchemaPtr in = Sql("id INT, meta STRUCT<src STRING, at BIGINT, deep STRUCT<p INT, q INT>>, v STRING");
  const std::string rows = R"({"id":1,"meta":{"src":"a","at":5,"deep":{"p":1,"q":2}},"v":"x"})" "\n"
                           R"({"id":2,"meta":null,"v":null})" "\n";
  Batch out;
  auto drop = Projector::Make(in, {ProjectionKind::kDrop, {"meta.src", "meta.deep.q"}});
  ASSERT_OK(drop);
  EXPECT_EQ(drop->projected_schema()->ToString(),
            Sql("id INT, meta STRUCT<at BIGINT, deep STRUCT<p INT>>, v STRING")->ToString());
  ASSERT_OK(drop->Bind(Sql("id INT, meta STRUCT<at BIGINT, deep STRUCT<p INT>>, v STRING")));
  ASSERT_OK(drop->Apply(Decode(in, rows), &out, 1));
  EXPECT_EQ(Rows(out), "{\"id\":1,\"meta\":{\"at\":5,\"deep\":{\"p\":1}},\"v\":\"x\"}\n"
                       "{\"id\":2,\"meta\":null,\"v\":null}\n");

  auto keep = Projector::Make(in, {ProjectionKind::kKeep, {"v", "meta.deep.q", "meta.src"}});
  ASSERT_OK(keep);
  ASSERT_OK(keep->Bind(Sql("v STRING, meta STRUCT<src STRING, deep STRUCT<q INT>>")));
  ASSERT_OK(keep->Apply(Decode(in, rows), &out, 1));
  EXPECT_EQ(Rows(out), "{\"v\":\"x\",\"meta\":{\"src\":\"a\",\"deep\":{\"q\":2}}}\n"
                       "{\"v\":null,\"meta\":null}\n");
  // A whole struct named next to one of its fields keeps all of it.
  auto both = Projector::Make(in, {ProjectionKind::kKeep, {"meta.src", "meta"}});
  ASSERT_OK(both);
  ASSERT_EQ(both->projected_schema()->num_fields(), 1);
  EXPECT_EQ(both->projected_schema()->fields()[0].type->ToString(),
            "struct<src: string, at: long, deep: struct<p: int, q: int>>");

  auto missing = Projector::Make(in, {ProjectionKind::kDrop, {"meta.none"}});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("drop: no field 'meta.none'"), std::string::npos) << missing.error().message;
  auto through = Projector::Make(in, {ProjectionKind::kKeep, {"v.x"}});
  ASSERT_FALSE(through);
  EXPECT_NE(through.error().message.find("'v' is not a struct"), std::string::npos) << through.error().message;
  auto all = Projector::Make(in, {ProjectionKind::kDrop, {"meta.src", "meta.at", "meta.deep"}});
  ASSERT_FALSE(all);
  EXPECT_NE(all.error().message.find("every field of struct 'meta'"), std::string::npos) << all.error().message;
}

// `--set` takes a map in YAML's flow form (issue 28: `--set
// error_handling='{output: e.jsonl}'` was "unknown key '{output'"), as the
// same key in --config would be read.
TEST(WriteConfig, SetTakesAMapInYamlFlowForm) {
  WriteConfig c;
  ASSERT_OK(c.Set("error_handling", "{output: e.jsonl, dead_letter: late.jsonl}"));
  EXPECT_EQ(c.error_handling, (std::map<std::string, std::string>{{"output", "e.jsonl"}, {"dead_letter", "late.jsonl"}}));
  ASSERT_OK(c.Set("snapshot_properties", "{pipeline: demo}"));
  EXPECT_EQ(c.snapshot_properties.at("pipeline"), "demo");
  ASSERT_OK(c.Set("table_properties", "{write.parquet.compression-codec: snappy}"));
  EXPECT_EQ(c.table_properties.at("write.parquet.compression-codec"), "snappy");
  ASSERT_OK(c.Set("write_properties", "{target-file-size-bytes: 1000000}"));
  EXPECT_EQ(c.write_properties.at("target-file-size-bytes"), "1000000");
  // The key:value form still works for the sink's maps.
  ASSERT_OK(c.Set("change_type_map", "c:INSERT,d:DELETE"));
  EXPECT_EQ(c.change_type_map.size(), 2u);
  // Errors name the option: YAML that does not parse, a value that is not a
  // map.
  auto bad = c.Set("table_properties", "{a: [1, 2}");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("table_properties"), std::string::npos) << bad.error().message;
  bad = c.Set("catalog_properties", "warehouse");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("flow form"), std::string::npos) << bad.error().message;
}

class PipelineTest : public testing::TestWithParam<int> {};

TEST_P(PipelineTest, RowsInOrderAndErrorsStopBothStages) {
  SchemaPtr s = Sql("id BIGINT");
  std::string jsonl;
  for (int i = 0; i < 10000; ++i) jsonl += "{\"id\":" + std::to_string(i) + "}\n";
  format::DecodeOptions dopt;
  dopt.batch_rows = 100;
  auto reader = format::JsonlReader::FromString(s, jsonl, dopt);
  ASSERT_OK(reader);
  auto proj = Projector::Make(s, {});
  ASSERT_OK(proj->Bind(s));
  int64_t next = 0;
  bool ordered = true;
  PipelineOptions opt;
  opt.workers = GetParam();
  auto stats = RunPipeline([&](Batch* b) { return (*reader)->Next(b); }, s, *proj,
                           [&](const Batch& b) {
                             const int64_t* v = b.columns[0].data<int64_t>();
                             for (int64_t r = 0; r < b.num_rows; ++r) ordered &= v[r] == next++;
                             return Ok();
                           },
                           opt);
  ASSERT_TRUE(stats) << stats.error().message;
  EXPECT_EQ(stats->rows, 10000);
  EXPECT_EQ(stats->batches, 100);
  EXPECT_TRUE(ordered);

  // A decode error at line 5001 surfaces, naming the line.
  std::string bad = jsonl;
  bad.replace(bad.find("{\"id\":5000}"), 11, "{\"id\":\"x\"}");
  auto r2 = format::JsonlReader::FromString(s, bad, dopt);
  auto failed = RunPipeline([&](Batch* b) { return (*r2)->Next(b); }, s, *proj,
                            [&](const Batch&) { return Ok(); }, opt);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("line 5001"), std::string::npos) << failed.error().message;

  // A writer error stops the decoder (it does not read the whole input).
  std::atomic<int> decoded{0};
  auto r3 = format::JsonlReader::FromString(s, jsonl, dopt);
  auto wfail = RunPipeline(
      [&](Batch* b) {
        ++decoded;
        return (*r3)->Next(b);
      },
      s, *proj, [&](const Batch&) { return Fail(IoError("disk full").error()); }, opt);
  ASSERT_FALSE(wfail);
  EXPECT_EQ(wfail.error().message, "disk full");
  EXPECT_LT(decoded.load(), 20);
}

INSTANTIATE_TEST_SUITE_P(Workers, PipelineTest, testing::Values(1, 2));

}  // namespace sink_test
}  // namespace floe::sink
