// Manifests and manifest lists written by floe, checked by an independent
// Avro reader (avsc through shared/interop/avro_dump.mjs): header keys, the
// writer schema with every name and field/element/key/value id exactly as the
// Iceberg spec's field tables and Appendix A (with Java's record names), and
// every value; then read back by floe's reader (round trip, inheritance,
// the retry convention) and hostile input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "floe/avro/container.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/schema_json.h"
#include "floe/iceberg/value.h"
#include "floe/io/file.h"
#include "test_util.h"
#include "testing/oracle.h"
#include "testing/files.h"
#include "testing/hex.h"
#include "testing/matchers.h"
#include "testing/schema.h"

namespace floe::iceberg {
namespace manifest_io_write_test {

namespace fs = std::filesystem;
using Json = nlohmann::json;

struct Dump {
  Json header;
  Json schema;
  std::vector<Json> records;
};

::testing::AssertionResult AvroDump(const fs::path& file, Dump* dump) {
  test::OracleResult r = test::Oracle("avro_dump.mjs", {file.string(), "--header", "--schema", "--records"});
  if (r.code != 0) return ::testing::AssertionFailure() << "avro_dump failed on " << file << ": " << r.err;
  const std::string& out = r.out;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    std::string line = out.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    Json j = Json::parse(line);
    if (j.contains("header")) dump->header = j["header"];
    if (j.contains("schema")) dump->schema = j["schema"];
    if (j.contains("record")) dump->records.push_back(j["record"]);
  }
  return ::testing::AssertionSuccess();
}

using test::Hex;
using test::Unhex;

using test::Field;

/// A table with a column of every primitive type.
Schema TestSchema() {
  return Schema(
      {Field(1, "id", LongType(), true), Field(2, "b", BooleanType()), Field(3, "i", IntType()),
       Field(4, "l", LongType()), Field(5, "f", FloatType()), Field(6, "d", DoubleType()),
       Field(7, "dec", DecimalType(9, 2)), Field(8, "big", DecimalType(38, 10)),
       Field(9, "dt", DateType()), Field(10, "t", TimeType()), Field(11, "ts", TimestampType()),
       Field(12, "tstz", TimestampTzType()), Field(13, "s", StringType()),
       Field(14, "u", UuidType()), Field(15, "fx", FixedType(3)), Field(16, "bin", BinaryType())},
      0);
}

/// Every transform and every transform result type.
PartitionSpec TestSpec() {
  auto t = [](const char* text) { return *Transform::Parse(text); };
  std::vector<PartitionField> f = {
      {2, 1000, "b", t("identity")},        {3, 1001, "i_bucket", t("bucket[16]")},
      {4, 1002, "l", t("identity")},        {5, 1003, "f", t("identity")},
      {6, 1004, "d", t("identity")},        {7, 1005, "dec", t("identity")},
      {8, 1006, "big_trunc", t("truncate[100]")}, {9, 1007, "dt_day", t("day")},
      {10, 1008, "t", t("identity")},       {11, 1009, "ts_month", t("month")},
      {12, 1010, "tstz_hour", t("hour")},   {13, 1011, "s_trunc", t("truncate[4]")},
      {14, 1012, "u", t("identity")},       {15, 1013, "fx", t("identity")},
      {16, 1014, "bin", t("identity")},     {11, 1015, "ts", t("identity")},
      {12, 1016, "tstz", t("identity")},    {1, 1017, "id_void", t("void")},
      {9, 1018, "dt_year", t("year")},
  };
  return PartitionSpec(3, std::move(f));
}

const char* kUuid = "f79c3e09677c4bbda4793f349cb785e7";

Values FullPartition() {
  return {Value::Boolean(true),       Value::Int(7),
          Value::Long(-5),            Value::Float(1.5f),
          Value::Double(-2.25),       Value::Decimal(12345),
          Value::Decimal(-15000000000), Value::Date(19000),
          Value::Time(3600000000),    Value::Int(650),
          Value::Int(-1),             Value::String("ice"),
          Value::Bytes(Unhex(kUuid)), Value::Bytes("abc"),
          Value::Bytes(std::string("\x00\x01", 2)), Value::Timestamp(1700000000000000),
          Value::Timestamp(-1),       Value::Null(),
          Value::Int(54)};
}

Values SmallPartition() {
  return {Value::Boolean(false),      Value::Int(0),
          Value::Long(10),            Value::Float(-0.0f),
          Value::Double(0.0),         Value::Decimal(1),
          Value::Decimal(0),          Value::Date(-1),
          Value::Time(0),             Value::Int(-3),
          Value::Int(5),              Value::String("a"),
          Value::Bytes(std::string(16, '\0')), Value::Bytes("zzz"),
          Value::Bytes(""),           Value::Timestamp(0),
          Value::Timestamp(0),        Value::Null(),
          Value::Int(-2)};
}

DataFile FullFile() {
  DataFile f;
  f.file_path = "file:/warehouse/t/data/a.parquet";
  f.partition = FullPartition();
  f.record_count = 10;
  f.file_size_in_bytes = 4321;
  f.column_sizes = {{1, 100}, {13, 50}};
  f.value_counts = {{1, 10}, {5, 10}};
  f.null_value_counts = {{1, 0}};
  f.nan_value_counts = {{5, 1}};
  f.lower_bounds = {{1, std::string("\x01\0\0\0\0\0\0\0", 8)}};
  f.upper_bounds = {{1, std::string("\x63\0\0\0\0\0\0\0", 8)}};
  f.key_metadata = std::string("\xde\xad", 2);
  f.split_offsets = {4, 1000};
  f.sort_order_id = 0;
  return f;
}

TableMetadata TestMetadata() {
  TableMetadata md;
  md.format_version = 2;
  md.location = "file:/warehouse/t";
  md.schemas = {std::make_shared<Schema>(TestSchema())};
  md.specs = {PartitionSpec::Unpartitioned(0), TestSpec()};
  md.default_spec_id = 3;
  md.last_partition_id = 1018;
  return md;
}

class ManifestIoWrite : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::FreshTestDir("floe_manifest_io_"); }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }
  std::unique_ptr<OutputFile> Out(const std::string& name) { return *OpenLocalOutput((dir_ / name).string()); }
  std::unique_ptr<InputFile> In(const std::string& name) { return *OpenLocalInput((dir_ / name).string()); }

  /// The data manifest of the tests: ADDED (full, nulls + NaN), EXISTING, DELETED.
  ManifestFile WriteDataManifest(const std::string& name, Codec codec = Codec::kDeflateRaw) {
    ManifestWriteOptions o;
    o.codec = codec;
    auto w = ManifestWriter::Open(Out(name), TestSchema(), TestSpec(), ManifestContent::kData, kUnassigned, o);
    EXPECT_TRUE(w) << w.error().ToString();
    EXPECT_OK((*w)->AddFile(FullFile()));
    DataFile nulls;
    nulls.file_path = "file:/warehouse/t/data/nulls.parquet";
    nulls.partition = Values(19, Value::Null());
    nulls.partition[3] = Value::Float(std::numeric_limits<float>::quiet_NaN());
    nulls.record_count = 1;
    nulls.file_size_in_bytes = 99;
    EXPECT_OK((*w)->AddFile(nulls));
    ManifestEntry existing;
    existing.status = ManifestEntryStatus::kExisting;
    existing.snapshot_id = 5;
    existing.sequence_number = 3;
    existing.file_sequence_number = 2;
    existing.data_file.file_path = "file:/warehouse/t/data/old.parquet";
    existing.data_file.partition = SmallPartition();
    existing.data_file.record_count = 7;
    existing.data_file.file_size_in_bytes = 700;
    EXPECT_OK((*w)->Add(existing));
    ManifestEntry deleted = existing;
    deleted.status = ManifestEntryStatus::kDeleted;
    deleted.snapshot_id = 42;
    deleted.sequence_number = 1;
    deleted.file_sequence_number = 1;
    deleted.data_file.file_path = "file:/warehouse/t/data/gone.parquet";
    deleted.data_file.record_count = 3;
    EXPECT_OK((*w)->Add(deleted));
    auto m = (*w)->Close();
    EXPECT_TRUE(m) << m.error().ToString();
    return *m;
  }

  fs::path dir_;
};

// The manifest_entry schema of the spec's field tables for TestSpec, written
// by hand from the Iceberg spec (Manifests; Appendix A) with Java's names.
const char* kExpectedEntrySchema = R"({"type":"record","name":"manifest_entry","fields":[
 {"name":"status","type":"int","field-id":0},
 {"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},
 {"name":"sequence_number","type":["null","long"],"default":null,"field-id":3},
 {"name":"file_sequence_number","type":["null","long"],"default":null,"field-id":4},
 {"name":"data_file","field-id":2,"type":{"type":"record","name":"r2","fields":[
  {"name":"content","type":"int","field-id":134},
  {"name":"file_path","type":"string","field-id":100},
  {"name":"file_format","type":"string","field-id":101},
  {"name":"partition","field-id":102,"type":{"type":"record","name":"r102","fields":[
    {"name":"b","type":["null","boolean"],"default":null,"field-id":1000},
    {"name":"i_bucket","type":["null","int"],"default":null,"field-id":1001},
    {"name":"l","type":["null","long"],"default":null,"field-id":1002},
    {"name":"f","type":["null","float"],"default":null,"field-id":1003},
    {"name":"d","type":["null","double"],"default":null,"field-id":1004},
    {"name":"dec","type":["null",{"type":"fixed","name":"decimal_9_2","size":4,"logicalType":"decimal","precision":9,"scale":2}],"default":null,"field-id":1005},
    {"name":"big_trunc","type":["null",{"type":"fixed","name":"decimal_38_10","size":16,"logicalType":"decimal","precision":38,"scale":10}],"default":null,"field-id":1006},
    {"name":"dt_day","type":["null",{"type":"int","logicalType":"date"}],"default":null,"field-id":1007},
    {"name":"t","type":["null",{"type":"long","logicalType":"time-micros"}],"default":null,"field-id":1008},
    {"name":"ts_month","type":["null","int"],"default":null,"field-id":1009},
    {"name":"tstz_hour","type":["null","int"],"default":null,"field-id":1010},
    {"name":"s_trunc","type":["null","string"],"default":null,"field-id":1011},
    {"name":"u","type":["null",{"type":"fixed","name":"uuid_fixed","size":16,"logicalType":"uuid"}],"default":null,"field-id":1012},
    {"name":"fx","type":["null",{"type":"fixed","name":"fixed_3","size":3}],"default":null,"field-id":1013},
    {"name":"bin","type":["null","bytes"],"default":null,"field-id":1014},
    {"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":false}],"default":null,"field-id":1015},
    {"name":"tstz","type":["null",{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true}],"default":null,"field-id":1016},
    {"name":"id_void","type":["null","long"],"default":null,"field-id":1017},
    {"name":"dt_year","type":["null","int"],"default":null,"field-id":1018}]}},
  {"name":"record_count","type":"long","field-id":103},
  {"name":"file_size_in_bytes","type":"long","field-id":104},
  {"name":"column_sizes","type":["null",{"type":"array","logicalType":"map","items":{"type":"record","name":"k117_v118","fields":[{"name":"key","type":"int","field-id":117},{"name":"value","type":"long","field-id":118}]}}],"default":null,"field-id":108},
  {"name":"value_counts","type":["null",{"type":"array","logicalType":"map","items":{"type":"record","name":"k119_v120","fields":[{"name":"key","type":"int","field-id":119},{"name":"value","type":"long","field-id":120}]}}],"default":null,"field-id":109},
  {"name":"null_value_counts","type":["null",{"type":"array","logicalType":"map","items":{"type":"record","name":"k121_v122","fields":[{"name":"key","type":"int","field-id":121},{"name":"value","type":"long","field-id":122}]}}],"default":null,"field-id":110},
  {"name":"nan_value_counts","type":["null",{"type":"array","logicalType":"map","items":{"type":"record","name":"k138_v139","fields":[{"name":"key","type":"int","field-id":138},{"name":"value","type":"long","field-id":139}]}}],"default":null,"field-id":137},
  {"name":"lower_bounds","type":["null",{"type":"array","logicalType":"map","items":{"type":"record","name":"k126_v127","fields":[{"name":"key","type":"int","field-id":126},{"name":"value","type":"bytes","field-id":127}]}}],"default":null,"field-id":125},
  {"name":"upper_bounds","type":["null",{"type":"array","logicalType":"map","items":{"type":"record","name":"k129_v130","fields":[{"name":"key","type":"int","field-id":129},{"name":"value","type":"bytes","field-id":130}]}}],"default":null,"field-id":128},
  {"name":"key_metadata","type":["null","bytes"],"default":null,"field-id":131},
  {"name":"split_offsets","type":["null",{"type":"array","items":"long","element-id":133}],"default":null,"field-id":132},
  {"name":"equality_ids","type":["null",{"type":"array","items":"int","element-id":136}],"default":null,"field-id":135},
  {"name":"sort_order_id","type":["null","int"],"default":null,"field-id":140},
  {"name":"referenced_data_file","type":["null","string"],"default":null,"field-id":143}]}}]})";

// The manifest_file schema (Iceberg spec: Manifest Lists), by hand.
const char* kExpectedListSchema = R"({"type":"record","name":"manifest_file","fields":[
 {"name":"manifest_path","type":"string","field-id":500},
 {"name":"manifest_length","type":"long","field-id":501},
 {"name":"partition_spec_id","type":"int","field-id":502},
 {"name":"content","type":"int","field-id":517},
 {"name":"sequence_number","type":"long","field-id":515},
 {"name":"min_sequence_number","type":"long","field-id":516},
 {"name":"added_snapshot_id","type":"long","field-id":503},
 {"name":"added_files_count","type":"int","field-id":504},
 {"name":"existing_files_count","type":"int","field-id":505},
 {"name":"deleted_files_count","type":"int","field-id":506},
 {"name":"added_rows_count","type":"long","field-id":512},
 {"name":"existing_rows_count","type":"long","field-id":513},
 {"name":"deleted_rows_count","type":"long","field-id":514},
 {"name":"partitions","type":["null",{"type":"array","element-id":508,"items":{"type":"record","name":"r508","fields":[
   {"name":"contains_null","type":"boolean","field-id":509},
   {"name":"contains_nan","type":["null","boolean"],"default":null,"field-id":518},
   {"name":"lower_bound","type":["null","bytes"],"default":null,"field-id":510},
   {"name":"upper_bound","type":["null","bytes"],"default":null,"field-id":511}]}}],"default":null,"field-id":507},
 {"name":"key_metadata","type":["null","bytes"],"default":null,"field-id":519}]})";

TEST_F(ManifestIoWrite, DataManifestHeaderSchemaAndValuesAsAvscReadsThem) {
  ManifestFile m = WriteDataManifest("m0.avro");
  EXPECT_EQ(static_cast<int64_t>(fs::file_size(dir_ / "m0.avro")), m.manifest_length);
  Dump dump;
  ASSERT_TRUE(AvroDump(dir_ / "m0.avro", &dump));

  // Header: exactly the spec's keys, all strings (PITFALLS 57).
  Json expected_schema = Json::parse(*SchemaToJson(TestSchema()));
  Json expected_spec = Json::parse(*PartitionFieldsToJson(TestSpec()));
  ASSERT_TRUE(expected_spec.is_array());
  Json header = {{"avro.codec", "deflate"},  {"schema", expected_schema},  {"schema-id", "0"},
                 {"partition-spec", expected_spec}, {"partition-spec-id", "3"}, {"format-version", "2"},
                 {"content", "data"}};
  EXPECT_EQ(dump.header, header);
  EXPECT_EQ(dump.schema, Json::parse(kExpectedEntrySchema)) << dump.schema.dump();

  ASSERT_EQ(dump.records.size(), 4u);
  Json full = Json::parse(R"({"status":1,"snapshot_id":null,"sequence_number":null,"file_sequence_number":null,
   "data_file":{"content":0,"file_path":"file:/warehouse/t/data/a.parquet","file_format":"PARQUET",
    "partition":{"b":true,"i_bucket":7,"l":-5,"f":1.5,"d":-2.25,"dec":"00003039",
      "big_trunc":"fffffffffffffffffffffffc81ee2a00","dt_day":19000,"t":3600000000,"ts_month":650,"tstz_hour":-1,
      "s_trunc":"ice","u":"f79c3e09677c4bbda4793f349cb785e7","fx":"616263","bin":"0001","ts":1700000000000000,
      "tstz":-1,"id_void":null,"dt_year":54},
    "record_count":10,"file_size_in_bytes":4321,
    "column_sizes":[{"key":1,"value":100},{"key":13,"value":50}],
    "value_counts":[{"key":1,"value":10},{"key":5,"value":10}],
    "null_value_counts":[{"key":1,"value":0}],
    "nan_value_counts":[{"key":5,"value":1}],
    "lower_bounds":[{"key":1,"value":"0100000000000000"}],
    "upper_bounds":[{"key":1,"value":"6300000000000000"}],
    "key_metadata":"dead","split_offsets":[4,1000],"equality_ids":null,"sort_order_id":0,
    "referenced_data_file":null}})");
  EXPECT_EQ(dump.records[0], full) << dump.records[0].dump();
  // ADDED entries leave snapshot id and sequence numbers to inheritance; the
  // others carry them (PITFALLS 70, 71).
  EXPECT_TRUE(dump.records[1]["snapshot_id"].is_null());
  EXPECT_EQ(dump.records[1]["data_file"]["partition"]["b"], nullptr);
  EXPECT_EQ(dump.records[1]["data_file"]["column_sizes"], nullptr);
  EXPECT_EQ(dump.records[2]["status"], 0);
  EXPECT_EQ(dump.records[2]["snapshot_id"], 5);
  EXPECT_EQ(dump.records[2]["sequence_number"], 3);
  EXPECT_EQ(dump.records[2]["file_sequence_number"], 2);
  EXPECT_EQ(dump.records[2]["data_file"]["partition"]["big_trunc"], "00000000000000000000000000000000");
  EXPECT_EQ(dump.records[3]["status"], 2);
  EXPECT_EQ(dump.records[3]["snapshot_id"], 42);

  // The manifest-list entry Close returned.
  EXPECT_EQ(m.manifest_path, (dir_ / "m0.avro").string());
  EXPECT_EQ(m.partition_spec_id, 3);
  EXPECT_EQ(m.content, ManifestContent::kData);
  EXPECT_EQ(m.sequence_number, kUnassigned);
  EXPECT_EQ(m.added_snapshot_id, kUnassigned);
  EXPECT_EQ(m.min_sequence_number, 3) << "lowest explicit data sequence number of a live entry";
  EXPECT_EQ(m.added_files_count, 2);
  EXPECT_EQ(m.existing_files_count, 1);
  EXPECT_EQ(m.deleted_files_count, 1);
  EXPECT_EQ(m.added_rows_count, 11);
  EXPECT_EQ(m.existing_rows_count, 7);
  EXPECT_EQ(m.deleted_rows_count, 3);
  // Partition summaries: bounds in the partition type's binary form (App. D).
  ASSERT_EQ(m.partitions.size(), 19u);
  for (size_t i = 0; i < m.partitions.size(); ++i) {
    EXPECT_EQ(m.partitions[i].contains_null, i != 3) << "every field is null in one file but f, which is NaN";
  }
  auto bounds = [&](int i) { return Hex(m.partitions[i].lower_bound.value_or("?")) + "/" + Hex(m.partitions[i].upper_bound.value_or("?")); };
  EXPECT_EQ(bounds(0), "00/01");                                  // boolean
  EXPECT_EQ(bounds(1), "00000000/07000000");                      // bucket -> int
  EXPECT_EQ(bounds(2), "fbffffffffffffff/0a00000000000000");      // long
  EXPECT_EQ(bounds(3), "00000080/0000c03f");                      // float: -0.0 .. 1.5, NaN left out
  EXPECT_TRUE(m.partitions[3].contains_nan.value_or(false));
  EXPECT_FALSE(m.partitions[4].contains_nan.value_or(true));
  EXPECT_EQ(bounds(5), "01/3039");                                // decimal: minimum-length big-endian
  EXPECT_EQ(bounds(6), "fc81ee2a00/00");
  EXPECT_EQ(bounds(7), "ffffffff/384a0000");                      // date
  EXPECT_EQ(bounds(11), "61/696365");                             // string
  EXPECT_EQ(bounds(12), std::string(32, '0') + "/" + kUuid);      // uuid
  EXPECT_EQ(bounds(14), "/0001");                                 // binary: empty is the lowest
  EXPECT_FALSE(m.partitions[17].lower_bound.has_value()) << "void: all null, no bounds";
}

TEST_F(ManifestIoWrite, EveryCodecIsReadByAvsc) {
  for (Codec c : {Codec::kUncompressed, Codec::kDeflateRaw, Codec::kSnappy, Codec::kZstd}) {
    std::string name = "m_" + std::to_string(static_cast<int>(c)) + ".avro";
    ManifestFile m = WriteDataManifest(name, c);
    Dump dump;
    ASSERT_TRUE(AvroDump(dir_ / name, &dump));
    EXPECT_EQ(dump.header["avro.codec"], std::string(*avro::AvroCodecName(c)));
    // Records through tests/avro/avsc_records.mjs: avro_dump.mjs decodes
    // snappy blocks to zeros (a bug in that script; see avsc_records.mjs).
    std::string out, err;
    std::string script = std::string(FLOE_SOURCE_DIR) + "/tests/avro/avsc_records.mjs";
    ASSERT_EQ(testing::Run("node " + test::ShellQuote(script) + " " +
                               test::ShellQuote(testing::SharedDir().string()) + " " +
                               test::ShellQuote((dir_ / name).string()),
                           &out, &err),
              0)
        << err;
    std::vector<Json> records;
    for (size_t start = 0; start < out.size();) {
      size_t end = out.find('\n', start);
      if (end == std::string::npos) end = out.size();
      if (end > start) records.push_back(Json::parse(out.substr(start, end - start))["record"]);
      start = end + 1;
    }
    ASSERT_EQ(records.size(), 4u) << static_cast<int>(c);
    EXPECT_EQ(records[0]["data_file"]["partition"]["u"], kUuid) << static_cast<int>(c) << records[0].dump();
    EXPECT_EQ(records[0]["data_file"]["split_offsets"], Json::parse("[4,1000]"));
    EXPECT_EQ(records[2]["sequence_number"], 3);
  }
}

TEST_F(ManifestIoWrite, ListAssignsSequenceNumbersAndRoundTrips) {
  ManifestFile data = WriteDataManifest("m0.avro");
  // A delete manifest of the unpartitioned spec: equality and position deletes.
  auto w = ManifestWriter::Open(Out("d0.avro"), TestSchema(), PartitionSpec::Unpartitioned(0),
                                ManifestContent::kDeletes);
  ASSERT_TRUE(w) << w.error().ToString();
  DataFile eq;
  eq.content = DataFileContent::kEqualityDeletes;
  eq.file_path = "file:/warehouse/t/data/eq.parquet";
  eq.record_count = 2;
  eq.file_size_in_bytes = 300;
  eq.equality_ids = {1, 13};
  eq.sort_order_id = 0;
  DataFile pos;
  pos.content = DataFileContent::kPositionDeletes;
  pos.file_path = "file:/warehouse/t/data/pos.parquet";
  pos.record_count = 1;
  pos.file_size_in_bytes = 200;
  pos.referenced_data_file = "file:/warehouse/t/data/a.parquet";
  ASSERT_OK((*w)->AddFile(eq));
  ASSERT_OK((*w)->AddFile(pos));
  DataFile wrong = FullFile();
  auto bad = (*w)->AddFile(wrong);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kInvalidArgument);
  EXPECT_NE(bad.error().message.find("a.parquet"), std::string::npos) << bad.error().message;
  auto deletes = (*w)->Close();
  ASSERT_TRUE(deletes) << deletes.error().ToString();
  EXPECT_EQ(deletes->min_sequence_number, kUnassigned);
  EXPECT_TRUE(deletes->partitions.empty());

  Dump ddump;
  ASSERT_TRUE(AvroDump(dir_ / "d0.avro", &ddump));
  EXPECT_EQ(ddump.header["content"], "deletes");
  EXPECT_EQ(ddump.header["partition-spec"], Json::array());
  EXPECT_EQ(ddump.schema["fields"][4]["type"]["fields"][3]["type"],
            Json::parse(R"({"type":"record","name":"r102","fields":[]})"));
  ASSERT_EQ(ddump.records.size(), 2u);
  EXPECT_EQ(ddump.records[0]["data_file"]["content"], 2);
  EXPECT_EQ(ddump.records[0]["data_file"]["equality_ids"], Json::parse("[1,13]"));
  EXPECT_EQ(ddump.records[1]["data_file"]["content"], 1);
  EXPECT_EQ(ddump.records[1]["data_file"]["referenced_data_file"], "file:/warehouse/t/data/a.parquet");
  EXPECT_EQ(ddump.records[1]["data_file"]["sort_order_id"], nullptr);

  // An older manifest carried over with its own numbers.
  ManifestFile old;
  old.manifest_path = "file:/warehouse/t/metadata/old-m0.avro";
  old.manifest_length = 1234;
  old.partition_spec_id = 3;
  old.sequence_number = 2;
  old.min_sequence_number = 1;
  old.added_snapshot_id = 66;
  old.existing_files_count = 4;
  old.existing_rows_count = 40;
  old.partitions = {PartitionFieldSummary{false, false, "\x01", "\x02"}};
  old.key_metadata = "km";

  const int64_t kSnap = 8000000000000000777;  // above 2^53: must stay exact
  auto lw = ManifestListWriter::Open(Out("snap-1.avro"), kSnap, std::nullopt, 4);
  ASSERT_TRUE(lw) << lw.error().ToString();
  auto a = (*lw)->Add(data);
  auto b = (*lw)->Add(*deletes);
  auto c = (*lw)->Add(old);
  ASSERT_TRUE(a && b && c);
  ManifestFile too_new = old;
  too_new.sequence_number = 5;
  auto rejected = (*lw)->Add(too_new);
  ASSERT_FALSE(rejected);
  EXPECT_EQ(rejected.error().kind, ErrorKind::kInvalidArgument);
  auto length = (*lw)->Close();
  ASSERT_OK(length);
  EXPECT_EQ(*length, static_cast<int64_t>(fs::file_size(dir_ / "snap-1.avro")));

  EXPECT_EQ(a->sequence_number, 4);
  EXPECT_EQ(a->min_sequence_number, 3) << "EXISTING entry at 3 is lower than the new 4";
  EXPECT_EQ(a->added_snapshot_id, kSnap);
  EXPECT_EQ(b->sequence_number, 4);
  EXPECT_EQ(b->min_sequence_number, 4);
  EXPECT_EQ(*c, old) << "an assigned manifest is written unchanged";

  Dump dump;
  ASSERT_TRUE(AvroDump(dir_ / "snap-1.avro", &dump));
  Json header = {{"avro.codec", "deflate"},
                 {"snapshot-id", "8000000000000000777"},
                 {"parent-snapshot-id", "null"},
                 {"sequence-number", "4"},
                 {"format-version", "2"}};
  EXPECT_EQ(dump.header, header);
  EXPECT_EQ(dump.schema, Json::parse(kExpectedListSchema)) << dump.schema.dump();
  ASSERT_EQ(dump.records.size(), 3u);
  Json r0 = dump.records[0];
  EXPECT_EQ(r0["manifest_path"], (dir_ / "m0.avro").string());
  EXPECT_EQ(r0["manifest_length"], data.manifest_length);
  EXPECT_EQ(r0["partition_spec_id"], 3);
  EXPECT_EQ(r0["content"], 0);
  EXPECT_EQ(r0["sequence_number"], 4);
  EXPECT_EQ(r0["min_sequence_number"], 3);
  EXPECT_EQ(r0["added_snapshot_id"].dump(), "8000000000000000777");
  EXPECT_EQ(r0["added_files_count"], 2);
  EXPECT_EQ(r0["existing_files_count"], 1);
  EXPECT_EQ(r0["deleted_files_count"], 1);
  EXPECT_EQ(r0["added_rows_count"], 11);
  EXPECT_EQ(r0["existing_rows_count"], 7);
  EXPECT_EQ(r0["deleted_rows_count"], 3);
  ASSERT_EQ(r0["partitions"].size(), 19u);
  EXPECT_EQ(r0["partitions"][3], Json::parse(R"({"contains_null":false,"contains_nan":true,"lower_bound":"00000080","upper_bound":"0000c03f"})"));
  EXPECT_EQ(r0["key_metadata"], nullptr);
  EXPECT_EQ(dump.records[1]["content"], 1);
  EXPECT_EQ(dump.records[1]["partitions"], Json::array());
  EXPECT_EQ(dump.records[2]["partitions"][0], Json::parse(R"({"contains_null":false,"contains_nan":false,"lower_bound":"01","upper_bound":"02"})"));
  EXPECT_EQ(dump.records[2]["key_metadata"], "6b6d");

  // Read back: the list, then each manifest with inheritance.
  ManifestListInfo info;
  auto list = ReadManifestList(*In("snap-1.avro"), &info);
  ASSERT_TRUE(list) << list.error().ToString();
  EXPECT_EQ(info.format_version, 2);
  EXPECT_EQ(info.snapshot_id, kSnap);
  EXPECT_EQ(info.parent_snapshot_id, std::nullopt);
  EXPECT_EQ(info.sequence_number, 4);
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[0], *a);
  EXPECT_EQ((*list)[1], *b);
  EXPECT_EQ((*list)[2], old);

  TableMetadata md = TestMetadata();
  ManifestInfo mi;
  auto entries = ReadManifest(*In("m0.avro"), (*list)[0], md, {}, &mi);
  ASSERT_TRUE(entries) << entries.error().ToString();
  EXPECT_EQ(mi.format_version, 2);
  EXPECT_EQ(mi.spec, TestSpec());
  ASSERT_EQ(entries->size(), 4u);
  const ManifestEntry& e0 = (*entries)[0];
  EXPECT_EQ(e0.status, ManifestEntryStatus::kAdded);
  EXPECT_EQ(e0.snapshot_id, kSnap) << "inherited from added_snapshot_id";
  EXPECT_EQ(e0.sequence_number, 4);
  EXPECT_EQ(e0.file_sequence_number, 4);
  EXPECT_EQ(e0.data_file, FullFile());
  EXPECT_TRUE(std::isnan((*entries)[1].data_file.partition[3].as_float()));
  EXPECT_EQ((*entries)[2].sequence_number, 3);
  EXPECT_EQ((*entries)[2].file_sequence_number, 2);
  EXPECT_EQ((*entries)[2].snapshot_id, 5);
  EXPECT_EQ((*entries)[2].data_file.partition, SmallPartition());
  EXPECT_EQ((*entries)[3].status, ManifestEntryStatus::kDeleted);
  EXPECT_EQ((*entries)[3].snapshot_id, 42);
  EXPECT_OK(ValidateManifest((*list)[0], *entries));

  auto dentries = ReadManifest(*In("d0.avro"), (*list)[1], md);
  ASSERT_TRUE(dentries) << dentries.error().ToString();
  ASSERT_EQ(dentries->size(), 2u);
  EXPECT_EQ((*dentries)[0].data_file, eq);
  EXPECT_EQ((*dentries)[1].data_file, pos);
  EXPECT_EQ((*dentries)[1].sequence_number, 4);

  // Planning read: no metrics, no DELETED entries.
  auto plan = ReadManifestForPlanning(*In("m0.avro"), (*list)[0], md);
  ASSERT_OK(plan);
  ASSERT_EQ(plan->size(), 3u);
  EXPECT_TRUE((*plan)[0].data_file.column_sizes.empty());
  EXPECT_TRUE((*plan)[0].data_file.lower_bounds.empty());
  EXPECT_EQ((*plan)[0].data_file.partition, FullPartition());
  EXPECT_EQ((*plan)[0].data_file.split_offsets, FullFile().split_offsets);
}

TEST_F(ManifestIoWrite, RetriedCommitReusesTheManifestWithANewSequenceNumber) {
  ManifestFile data = WriteDataManifest("m0.avro");
  auto first = ManifestListWriter::Open(Out("snap-a.avro"), 9, 8, 4);
  ASSERT_OK(first);
  ASSERT_OK((*first)->Add(data));
  ASSERT_OK((*first)->Close());
  // The commit lost a race; the retry lists the same manifest at seq 6.
  auto second = ManifestListWriter::Open(Out("snap-b.avro"), 9, 8, 6);
  ASSERT_OK(second);
  auto listed = (*second)->Add(data);
  ASSERT_OK(listed);
  ASSERT_OK((*second)->Close());
  Dump dump;
  ASSERT_TRUE(AvroDump(dir_ / "snap-b.avro", &dump));
  EXPECT_EQ(dump.header["parent-snapshot-id"], "8");
  EXPECT_EQ(dump.records[0]["sequence_number"], 6);
  auto list = ReadManifestList(*In("snap-b.avro"));
  ASSERT_OK(list);
  auto entries = ReadManifest(*In("m0.avro"), (*list)[0], TestMetadata());
  ASSERT_OK(entries);
  EXPECT_EQ((*entries)[0].sequence_number, 6);
  EXPECT_EQ((*entries)[0].snapshot_id, 9);
  EXPECT_EQ((*entries)[2].sequence_number, 3) << "EXISTING keeps its own";
}

TEST_F(ManifestIoWrite, InvalidEntriesAreRejectedWithTheirFileAndRule) {
  auto w = ManifestWriter::Open(Out("bad.avro"), TestSchema(), TestSpec(), ManifestContent::kData, 7);
  ASSERT_OK(w);
  DataFile f = FullFile();
  f.partition.pop_back();
  auto s = (*w)->AddFile(f);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("partition values"), std::string::npos) << s.error().message;
  f = FullFile();
  f.partition[1] = Value::String("x");
  s = (*w)->AddFile(f);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("i_bucket"), std::string::npos) << s.error().message;
  f = FullFile();
  f.partition[5] = Value::Decimal(1000000000);  // 10 digits in decimal(9,2)
  EXPECT_FALSE((*w)->AddFile(f));
  ManifestEntry existing = AddedEntry(FullFile());
  existing.status = ManifestEntryStatus::kExisting;
  s = (*w)->Add(existing);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("EXISTING"), std::string::npos) << s.error().message;
  DataFile eq = FullFile();
  eq.content = DataFileContent::kEqualityDeletes;
  EXPECT_FALSE((*w)->AddFile(eq)) << "a delete file in a data manifest";
  ASSERT_OK((*w)->AddFile(FullFile()));
  auto m = (*w)->Close();
  ASSERT_OK(m);
  EXPECT_EQ(m->added_snapshot_id, 7);
  EXPECT_EQ(m->added_files_count, 1) << "rejected entries are not written";
}

TEST_F(ManifestIoWrite, HostileFilesGiveCorruptErrorsNamingTheFile) {
  ManifestFile data = WriteDataManifest("m0.avro");
  data.sequence_number = 4;
  data.added_snapshot_id = 9;
  TableMetadata md = TestMetadata();
  std::string bytes = testing::ReadFile(dir_ / "m0.avro");
  for (size_t cut : {size_t{0}, size_t{3}, size_t{40}, bytes.size() / 2, bytes.size() - 1}) {
    auto r = ReadManifest(*MemoryInput(bytes.substr(0, cut), "cut.avro"), data, md);
    ASSERT_FALSE(r) << cut;
    EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt) << r.error().ToString();
    EXPECT_NE(r.error().message.find("cut.avro"), std::string::npos) << r.error().message;
  }
  // Flipped bytes anywhere: an error or a read, never a crash.
  for (size_t i = 0; i < bytes.size(); i += 7) {
    std::string b = bytes;
    b[i] = static_cast<char>(b[i] ^ 0x5a);
    auto r = ReadManifest(*MemoryInput(b, "flip.avro"), data, md);
    if (!r) {
      EXPECT_NE(r.error().message.find("flip.avro"), std::string::npos) << r.error().message;
    }
  }
  // A data manifest listed as a delete manifest.
  ManifestFile as_deletes = data;
  as_deletes.content = ManifestContent::kDeletes;
  auto r = ReadManifest(*In("m0.avro"), as_deletes, md);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
  // A manifest read as a manifest list names the missing field.
  auto l = ReadManifestList(*In("m0.avro"));
  ASSERT_FALSE(l);
  EXPECT_EQ(l.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(l.error().message.find("manifest_path"), std::string::npos) << l.error().message;
}

}  // namespace manifest_io_write_test
}  // namespace floe::iceberg

namespace floe::iceberg {
namespace manifest_io_write_test {

// A v1 manifest list as Java's v1 writer lays it out (Iceberg spec: Manifest
// Lists, v1 column; no content or sequence numbers, optional counts with the
// v1 names): read with content data and sequence numbers 0 (Appendix E).
TEST_F(ManifestIoWrite, V1ManifestListReadsWithAppendixEDefaults) {
  const char* v1 = R"({"type":"record","name":"manifest_file","fields":[
    {"name":"manifest_path","type":"string","field-id":500},
    {"name":"manifest_length","type":"long","field-id":501},
    {"name":"partition_spec_id","type":"int","field-id":502},
    {"name":"added_snapshot_id","type":["null","long"],"default":null,"field-id":503},
    {"name":"added_data_files_count","type":["null","int"],"default":null,"field-id":504},
    {"name":"existing_data_files_count","type":["null","int"],"default":null,"field-id":505},
    {"name":"deleted_data_files_count","type":["null","int"],"default":null,"field-id":506},
    {"name":"partitions","type":["null",{"type":"array","element-id":508,"items":{"type":"record","name":"r508",
      "fields":[{"name":"contains_null","type":"boolean","field-id":509},
                {"name":"lower_bound","type":["null","bytes"],"default":null,"field-id":510},
                {"name":"upper_bound","type":["null","bytes"],"default":null,"field-id":511}]}}],
     "default":null,"field-id":507},
    {"name":"added_rows_count","type":["null","long"],"default":null,"field-id":512}]})";
  auto schema = avro::AvroSchema::Parse(v1);
  ASSERT_TRUE(schema) << schema.error().ToString();
  struct {
    avro::NodePtr root;
  } h{schema->root()};
  auto w = avro::ContainerWriter::Open(Out("v1-list.avro"), *schema, {{"snapshot-id", "12"}}, Codec::kDeflateRaw);
  ASSERT_OK(w);
  const avro::NodePtr& r508 = h.root->fields[7].type->branches[1]->items;
  ASSERT_OK((*w)->Append(avro::Value::Record(
      h.root,
      {avro::Value::String("file:/t/metadata/m0.avro"), avro::Value::Long(900), avro::Value::Int(0),
       avro::Value::Long(12), avro::Value::Int(3), avro::Value::Null(), avro::Value::Int(0),
       avro::Value::Array({avro::Value::Record(
           r508, {avro::Value::Boolean(true), avro::Value::Bytes("a"), avro::Value::Null()})}),
       avro::Value::Long(30)})));
  ASSERT_OK((*w)->Close());
  ManifestListInfo info;
  auto list = ReadManifestList(*In("v1-list.avro"), &info);
  ASSERT_TRUE(list) << list.error().ToString();
  EXPECT_EQ(info.format_version, 1);
  EXPECT_EQ(info.snapshot_id, 12);
  ASSERT_EQ(list->size(), 1u);
  const ManifestFile& m = (*list)[0];
  EXPECT_EQ(m.manifest_path, "file:/t/metadata/m0.avro");
  EXPECT_EQ(m.manifest_length, 900);
  EXPECT_EQ(m.content, ManifestContent::kData);
  EXPECT_EQ(m.sequence_number, 0);
  EXPECT_EQ(m.min_sequence_number, 0);
  EXPECT_EQ(m.added_snapshot_id, 12);
  EXPECT_EQ(m.added_files_count, 3);
  EXPECT_EQ(m.existing_files_count, 0) << "null v1 count reads 0";
  EXPECT_EQ(m.added_rows_count, 30);
  ASSERT_EQ(m.partitions.size(), 1u);
  EXPECT_EQ(m.partitions[0], (PartitionFieldSummary{true, std::nullopt, "a", std::nullopt}));
}

// Many entries: several Avro blocks, exact length, and a read back of all of
// them (also a rough throughput figure for the report).
// manifest_roundtrip_fuzz: a float partition value that is a signalling NaN
// (0xff91490d) came back quiet (0xffd1490d): the Avro datum held floats as
// doubles. Partition values keep their bits, NaN payloads and signs included.
TEST_F(ManifestIoWrite, FloatAndDoublePartitionNaNsKeepTheirBits) {
  const uint32_t float_bits[] = {0xff91490du, 0x7f800001u, 0xffc00000u};
  const uint64_t double_bits[] = {0xfff0000000000001ull, 0x7ff4000000000000ull, 0xfff8000000000000ull};
  auto w = ManifestWriter::Open(Out("nan.avro"), TestSchema(), TestSpec(), ManifestContent::kData);
  ASSERT_OK(w);
  for (int i = 0; i < 3; ++i) {
    DataFile f = FullFile();
    f.file_path = "file:/warehouse/t/data/nan-" + std::to_string(i) + ".parquet";
    f.partition[3] = Value::Float(std::bit_cast<float>(float_bits[i]));
    f.partition[4] = Value::Double(std::bit_cast<double>(double_bits[i]));
    ASSERT_OK((*w)->AddFile(std::move(f)));
  }
  auto m = (*w)->Close();
  ASSERT_OK(m);
  m->sequence_number = 1;
  m->min_sequence_number = 1;
  m->added_snapshot_id = 1;
  auto entries = ReadManifest(*In("nan.avro"), *m, TestMetadata());
  ASSERT_OK(entries);
  ASSERT_EQ(entries->size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const Values& p = (*entries)[i].data_file.partition;
    EXPECT_EQ(std::bit_cast<uint32_t>(p[3].as_float()), float_bits[i]) << i;
    EXPECT_EQ(std::bit_cast<uint64_t>(p[4].as_double()), double_bits[i]) << i;
  }
}

TEST_F(ManifestIoWrite, ManyEntriesSpanBlocksAndReadBack) {
  constexpr int kEntries = 20000;
  auto start = std::chrono::steady_clock::now();
  auto w = ManifestWriter::Open(Out("big.avro"), TestSchema(), TestSpec(), ManifestContent::kData);
  ASSERT_OK(w);
  for (int i = 0; i < kEntries; ++i) {
    DataFile f = FullFile();
    f.file_path = "file:/warehouse/t/data/f-" + std::to_string(i) + ".parquet";
    f.partition[2] = Value::Long(i);
    ASSERT_OK((*w)->AddFile(std::move(f)));
  }
  auto m = (*w)->Close();
  ASSERT_OK(m);
  auto mid = std::chrono::steady_clock::now();
  EXPECT_EQ(m->manifest_length, static_cast<int64_t>(fs::file_size(dir_ / "big.avro")));
  m->sequence_number = 1;
  m->min_sequence_number = 1;
  m->added_snapshot_id = 1;
  auto entries = ReadManifest(*In("big.avro"), *m, TestMetadata());
  ASSERT_TRUE(entries) << entries.error().ToString();
  auto end = std::chrono::steady_clock::now();
  ASSERT_EQ(entries->size(), static_cast<size_t>(kEntries));
  EXPECT_EQ((*entries)[kEntries - 1].data_file.partition[2], Value::Long(kEntries - 1));
  EXPECT_EQ(Hex(*m->partitions[2].upper_bound), "1f4e000000000000");  // 19999
  auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
  std::printf("manifest of %d entries: %lld bytes, write %.1f ms, read %.1f ms\n", kEntries,
              static_cast<long long>(m->manifest_length), ms(mid - start), ms(end - mid));
}

}  // namespace manifest_io_write_test
}  // namespace floe::iceberg
