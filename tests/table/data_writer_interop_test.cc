// Interop: the data writer's files read by DuckDB (shared/interop/parquet_rows.mjs).
// Tables of every type are written under specs that use every partition transform;
// each file must read back (--rows) to exactly the rows of its partition, carry the
// field ids and the `iceberg.schema` footer key (--meta), and its DataFile must agree
// with what DuckDB reads: record count, file size, per-column null and value counts,
// column sizes, and min/max of untruncated columns.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "floe/iceberg/schema_json.h"
#include "floe/iceberg/value.h"
#include "floe/parquet/schema_mapping.h"
#include "floe/table/data_writer.h"
#include "floe/table/partition_key.h"
#include "floe/types/column_ops.h"
#include "floe/types/names.h"
#include "parquet/writer_test_util.h"
#include "testing/oracle.h"
#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/schema.h"

namespace floe::table {
namespace data_writer_interop_test {

namespace fs = std::filesystem;
using nlohmann::json;

using test::SharedDir;

std::vector<json> JsonLines(const std::string& text) {
  std::vector<json> out;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find('\n', i);
    if (j == std::string::npos) j = text.size();
    if (j > i) out.push_back(json::parse(text.substr(i, j - i)));
    i = j + 1;
  }
  return out;
}

using test::Field;

SchemaPtr AllTypes() {
  return std::make_shared<Schema>(std::vector<NestedField>{
      Field(1, "b", BooleanType()),
      Field(2, "i", IntType()),
      Field(3, "l", LongType(), true),
      Field(4, "f", FloatType()),
      Field(5, "d", DoubleType()),
      Field(6, "dec9", DecimalType(9, 2)),
      Field(7, "dec18", DecimalType(18, 6)),
      Field(8, "dec38", DecimalType(38, 10)),
      Field(9, "dt", DateType()),
      Field(10, "tm", TimeType()),
      Field(11, "ts", TimestampType()),
      Field(12, "tstz", TimestampTzType()),
      Field(13, "s", StringType()),
      Field(14, "u", UuidType()),
      Field(15, "fx", FixedType(5)),
      Field(16, "bin", BinaryType()),
      Field(17, "st", StructType({Field(18, "x", IntType()), Field(19, "y", StringType())})),
      Field(20, "li", ListType(21, false, IntType())),
      Field(22, "mp", MapType(23, StringType(), 24, false, LongType())),
      Field(25, "a b", StringType())});
}

// Rows are random (nulls, extremes, nested values) except the partition source
// columns, which are rebuilt with three values each (and nulls when optional),
// all following row % 3, so that every table has a handful of partitions.
Batch MakeRows(SchemaPtr schema, int64_t n, uint64_t seed) {
  Batch b(schema);
  parquet::testing::RandomFiller(seed).Fill(&b, n);
  const int128_t e30 = static_cast<int128_t>(1000000000000000LL) * 1000000000000000LL;
  for (size_t c = 0; c < b.columns.size(); ++c) {
    const NestedField& f = schema->fields()[c];
    if (f.name == "f" || f.name == "d" || f.name == "li" || f.name == "mp" || f.name == "a b") continue;
    ColumnVector col(f.type);
    for (int64_t r = 0; r < n; ++r) {
      const int k = static_cast<int>(r % 3);
      if (!f.required && r % 11 == 10) {
        col.AppendNull();
        continue;
      }
      switch (f.id) {
        case 1: col.Append<uint8_t>(k % 2); break;
        case 2: col.Append<int32_t>(std::array<int32_t, 3>{-7, 0, (1 << 30) + 5}[k]); break;
        case 3: col.Append<int64_t>(std::array<int64_t, 3>{-5, 10, int64_t(1) << 40}[k]); break;
        case 6: col.Append<int128_t>(std::array<int128_t, 3>{-100, 1420, 9999999}[k]); break;
        case 7: col.Append<int128_t>(std::array<int128_t, 3>{-1, 123456789, 100000000000000000}[k]); break;
        case 8: col.Append<int128_t>(std::array<int128_t, 3>{-e30, 0, e30 * 1000000}[k]); break;
        case 9: col.Append<int32_t>(std::array<int32_t, 3>{-1, 19724, 20124}[k]); break;
        case 10: col.Append<int64_t>(std::array<int64_t, 3>{0, 36001500000, 86399999999}[k]); break;
        case 11:
        case 12:
          col.Append<int64_t>(std::array<int64_t, 3>{-1, 1704189600000000, 1704189600000000 + 108000000000}[k]);
          break;
        case 13: col.AppendBytes(std::array<std::string_view, 3>{"a b/c", "\xc3\xa9=\xc3\xbc", "zz"}[k]); break;
        case 14: col.AppendBytes(std::string(16, static_cast<char>(0x10 * k + 1))); break;
        case 15: col.AppendBytes(std::string(5, static_cast<char>(0x7f * k))); break;
        case 16: col.AppendBytes(std::array<std::string_view, 3>{std::string_view("\0\1", 2), "\xff", "abc"}[k]); break;
        case 17:
          col.AppendStructRow();
          col.children[0].Append<int32_t>(static_cast<int32_t>(r));
          col.children[1].AppendBytes(std::array<std::string_view, 3>{"x", "y y", "z"}[k]);
          break;
        default: ADD_FAILURE() << "unexpected column " << f.name; break;
      }
    }
    b.columns[c] = std::move(col);
  }
  return b;
}

struct Spec {
  std::string name;
  std::function<iceberg::PartitionSpecBuilder&(iceberg::PartitionSpecBuilder&)> build;
};

class DataWriterInteropTest : public testing::TestWithParam<int> {};

std::vector<Spec> Specs() {
  using B = iceberg::PartitionSpecBuilder;
  return {
      {"unpartitioned", [](B& b) -> B& { return b; }},
      {"identity", [](B& b) -> B& {
         return b.Identity("b").Identity("s").Identity("dec9").Identity("u").Identity("ts").Identity("dt")
             .Identity("tm").Identity("fx").Identity("bin").Identity("st.y").Identity("tstz").Identity("i");
       }},
      {"bucket", [](B& b) -> B& {
         return b.Bucket("i", 2).Bucket("l", 2).Bucket("s", 2).Bucket("dec38", 2).Bucket("u", 2)
             .Bucket("fx", 2).Bucket("bin", 2).Bucket("dt", 2).Bucket("ts", 2).Bucket("tstz", 2)
             .Bucket("tm", 2).Bucket("dec9", 3);
       }},
      {"truncate", [](B& b) -> B& {
         return b.Truncate("i", 10).Truncate("l", 100).Truncate("s", 1).Truncate("dec18", 1000)
             .Truncate("bin", 1).Truncate("dec38", 7);
       }},
      {"time", [](B& b) -> B& { return b.Year("dt").Month("ts").Hour("tstz"); }},
      {"day_void", [](B& b) -> B& { return b.Day("ts").Day("dt").Void("f").Identity("st.y"); }},
  };
}

TEST_P(DataWriterInteropTest, DuckDbReadsFilesAndMetricsAgree) {
  const Spec spec_def = Specs()[static_cast<size_t>(GetParam())];
  SCOPED_TRACE(spec_def.name);
  SchemaPtr schema = AllTypes();
  iceberg::PartitionSpecBuilder builder(*schema);
  auto spec = spec_def.build(builder).Build();
  ASSERT_TRUE(spec) << spec.error().ToString();
  const fs::path dir = fs::path(FLOE_BINARY_DIR) / "test_tmp" / ("dw_interop_" + spec_def.name + "_" + RandomUuid());
  fs::create_directories(dir);

  iceberg::TableMetadata md;
  md.table_uuid = RandomUuid();
  md.location = FileUri(dir.string());
  md.schemas = {schema};
  md.last_column_id = 25;
  md.specs = {*spec};
  md.sort_orders = {iceberg::SortOrder::Unsorted()};
  md.properties = {{"write.parquet.compression-codec", "snappy"},
                   {"write.metadata.metrics.column.s", "full"}};
  std::map<std::string, std::string> job;
  config::Resolver resolver({&job, &md.properties});
  auto options = DataWriterOptions::Resolve(md, resolver);
  ASSERT_TRUE(options) << options.error().ToString();

  Batch rows = MakeRows(schema, 120, 1000 + GetParam());
  auto factory = std::make_shared<OutputFileFactory>(options->data_location);
  auto writer = MakeDataWriter(md, *options, factory);
  ASSERT_TRUE(writer) << writer.error().ToString();
  ASSERT_OK((*writer)->Write(rows));
  auto files = (*writer)->Close();
  ASSERT_TRUE(files) << files.error().ToString();

  // Expected rows per partition tuple.
  auto keyer = PartitionKeyer::Make(*spec, schema);
  ASSERT_OK(keyer);
  auto groups = keyer->Group(rows);
  ASSERT_OK(groups);
  ASSERT_EQ(files->size(), groups->size());
  std::unordered_map<iceberg::Values, const PartitionGroup*, PartitionTupleHash> by_tuple;
  for (const auto& g : *groups) by_tuple[g.partition] = &g;

  auto schema_json = iceberg::SchemaToJson(*schema);
  ASSERT_OK(schema_json);
  int64_t total = 0;
  for (const auto& f : *files) {
    SCOPED_TRACE(f.file_path);
    ASSERT_TRUE(f.file_path.starts_with("file:"));
    const std::string local = f.file_path.substr(5);
    if (!spec->is_unpartitioned()) {
      auto path = PartitionPath(*spec, *schema, f.partition);
      ASSERT_OK(path);
      EXPECT_EQ(fs::path(local).parent_path().string(), (dir / "data" / *path).string());
    }
    EXPECT_EQ(f.file_size_in_bytes, static_cast<int64_t>(fs::file_size(local)));
    total += f.record_count;

    // No flag: metadata lines, then {"row": ...} lines in file order.
    test::OracleResult run = test::Oracle("parquet_rows.mjs", {local});
    ASSERT_EQ(run.code, 0) << run.command << ": " << run.err;
    const std::optional<std::string> meta = run.out;
    std::map<std::string, int32_t> field_id_of_name;  // leaf schema element name -> id
    std::map<int32_t, int64_t> nulls, values, sizes;
    bool has_schema_key = false;
    std::vector<json> got;
    for (const json& line : JsonLines(*meta)) {
      if (line.contains("row")) {
        got.push_back(line["row"]);
      } else if (line.contains("file")) {
        EXPECT_EQ(line["file"]["num_rows"].get<int64_t>(), f.record_count);
      } else if (line.contains("kv")) {
        if (line["kv"]["key"] == "iceberg.schema") {
          has_schema_key = true;
          EXPECT_EQ(line["kv"]["value"], json::parse(*schema_json));
        }
      } else if (line.contains("schema")) {
        const json& s = line["schema"];
        if (!s["field_id"].is_null() && !s["type"].is_null()) {
          auto path = s["name"].get<std::string>();
          field_id_of_name[path] = static_cast<int32_t>(s["field_id"].get<int64_t>());
        }
      } else if (line.contains("column_chunk")) {
        const json& c = line["column_chunk"];
        // path_in_schema "st, y" / "li, list, element": the last name is the leaf's.
        std::string p = c["path_in_schema"].get<std::string>();
        std::string leaf = p.substr(p.rfind(',') == std::string::npos ? 0 : p.rfind(',') + 2);
        std::string top = p.substr(0, p.find(','));
        int32_t id = 0;
        // Leaf names repeat ("element", "key"...): find the id through the DataFile's schema.
        for (const auto& tf : schema->fields()) {
          if (SanitizeName(tf.name) != top) continue;
          if (!tf.type->is_nested()) id = tf.id;
          else if (tf.type->id == TypeId::kStruct) {
            for (const auto& sf : tf.type->fields) if (sf.name == leaf) id = sf.id;
          } else if (tf.type->id == TypeId::kList) id = tf.type->element().id;
          else id = leaf == "key" ? tf.type->key().id : tf.type->value().id;
        }
        ASSERT_NE(id, 0) << p;
        nulls[id] += c["stats_null_count"].get<int64_t>();
        values[id] += c["num_values"].get<int64_t>();
        sizes[id] += c["total_compressed_size"].get<int64_t>();
      }
    }
    EXPECT_TRUE(has_schema_key);
    // Field ids on every leaf, as in the schema.
    EXPECT_EQ(field_id_of_name["b"], 1);
    EXPECT_EQ(field_id_of_name["a_x20b"], 25);
    EXPECT_EQ(field_id_of_name["element"], 21);
    EXPECT_EQ(field_id_of_name["value"], 24);
    EXPECT_EQ(nulls, f.null_value_counts);
    EXPECT_EQ(values, f.value_counts);
    EXPECT_EQ(sizes, f.column_sizes);

    // Rows: exactly the partition's rows, in order.
    auto it = by_tuple.find(f.partition);
    ASSERT_NE(it, by_tuple.end());
    Batch expected = Take(rows, it->second->rows);
    auto expected_lines = parquet::testing::CanonicalRows(expected);
    ASSERT_EQ(got.size(), expected_lines.size());
    for (size_t r = 0; r < got.size(); ++r) {
      json want = json::parse(expected_lines[r]);
      // Parquet column names are sanitized as Java does (PITFALLS 44).
      want["a_x20b"] = want["a b"];
      want.erase("a b");
      EXPECT_EQ(got[r], want) << "row " << r;
    }
    // Bounds of untruncated columns equal the min/max DuckDB's rows imply.
    auto check_longs = [&](const std::string& name, int32_t id, const TypePtr& type) {
      std::optional<int64_t> lo, hi;
      int64_t null_count = 0;
      for (const auto& row : got) {
        if (row[name].is_null()) {
          ++null_count;
          continue;
        }
        int64_t v = row[name].get<int64_t>();
        lo = lo ? std::min(*lo, v) : v;
        hi = hi ? std::max(*hi, v) : v;
      }
      EXPECT_EQ(f.null_value_counts.at(id), null_count) << name;
      ASSERT_EQ(lo.has_value(), f.lower_bounds.contains(id)) << name;
      if (!lo) return;
      auto flo = iceberg::FromBinary(*type, f.lower_bounds.at(id));
      auto fhi = iceberg::FromBinary(*type, f.upper_bounds.at(id));
      ASSERT_TRUE(flo && fhi);
      int64_t l = type->id == TypeId::kInt ? flo->as_int() : flo->as_long();
      int64_t h = type->id == TypeId::kInt ? fhi->as_int() : fhi->as_long();
      EXPECT_EQ(l, *lo) << name;
      EXPECT_EQ(h, *hi) << name;
    };
    check_longs("i", 2, IntType());
    check_longs("l", 3, LongType());
    // s has metrics mode full: bounds are the exact byte-wise min and max.
    std::optional<std::string> slo, shi;
    for (const auto& row : got) {
      if (row["s"].is_null()) continue;
      std::string v = row["s"].get<std::string>();
      slo = slo ? std::min(*slo, v) : v;
      shi = shi ? std::max(*shi, v) : v;
    }
    ASSERT_EQ(slo.has_value(), f.lower_bounds.contains(13));
    if (slo) {
      EXPECT_EQ(f.lower_bounds.at(13), *slo);
      EXPECT_EQ(f.upper_bounds.at(13), *shi);
    }
    // Booleans.
    std::set<bool> bools;
    for (const auto& row : got) {
      if (!row["b"].is_null()) bools.insert(row["b"].get<bool>());
    }
    if (!bools.empty()) {
      EXPECT_EQ(f.lower_bounds.at(1), std::string(1, static_cast<char>(*bools.begin())));
      EXPECT_EQ(f.upper_bounds.at(1), std::string(1, static_cast<char>(*bools.rbegin())));
    }
  }
  EXPECT_EQ(total, rows.num_rows);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

INSTANTIATE_TEST_SUITE_P(Transforms, DataWriterInteropTest, testing::Range(0, 6),
                         [](const testing::TestParamInfo<int>& info) {
                           return Specs()[static_cast<size_t>(info.param)].name;
                         });

}  // namespace data_writer_interop_test
}  // namespace floe::table
