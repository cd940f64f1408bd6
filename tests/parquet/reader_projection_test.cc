// Projection by field id (Iceberg spec: Column Projection): subsets, reorder,
// absent fields as null, the allowed promotions, errors on incompatible types;
// matching by name; row-group skipping on decoded statistics and the file
// positions of batches; footer accessors and DescribeMetadata.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "parquet/reader_test_util.h"
#include "testing/matchers.h"

namespace floe::parquet {
namespace reader_projection_test {

using namespace testutil;  // NOLINT
using T = fmtns::Type;
using CT = fmtns::ConvertedType;

fmtns::Statistics IdStats(int32_t lo, int32_t hi) {
  fmtns::Statistics st;
  std::string a(4, '\0'), b(4, '\0');
  std::memcpy(a.data(), &lo, 4);
  std::memcpy(b.data(), &hi, 4);
  st.__set_min_value(a);
  st.__set_max_value(b);
  st.__set_null_count(0);
  return st;
}

/// 3 row groups x 2 rows: id (1), f float (2), dec decimal(5,2) (3), s string (4),
/// st struct<a int (6), b long (7)> (5).
std::string SampleFile() {
  auto dec = Leaf("dec", T::INT32, kOpt, CT::DECIMAL, 3);
  dec.__set_precision(5);
  dec.__set_scale(2);
  std::vector<fmtns::SchemaElement> s = {
      Root(5),
      Leaf("id", T::INT32, kReq, {}, 1),
      Leaf("f", T::FLOAT, kOpt, {}, 2),
      dec,
      Leaf("s", T::BYTE_ARRAY, kOpt, CT::UTF8, 4),
      Group("st", kOpt, 2, {}, 5),
      Leaf("a", T::INT32, kOpt, {}, 6),
      Leaf("b", T::INT64, kOpt, {}, 7),
  };
  std::vector<TestRowGroup> groups;
  for (int g = 0; g < 3; ++g) {
    TestRowGroup rg;
    rg.num_rows = 2;
    TestChunk id, f, d, str, a, b;
    for (int i = 2 * g; i < 2 * g + 2; ++i) {
      AppendPlain(&id.values, int32_t{i});
      f.def.push_back(1);
      AppendPlain(&f.values, i * 0.5f);
      d.def.push_back(1);
      AppendPlain(&d.values, int32_t{i * 101});
      str.def.push_back(i == 3 ? 0 : 1);
      if (i != 3) AppendPlainBytes(&str.values, "s" + std::to_string(i));
      const int16_t sd = i == 4 ? 0 : 2;
      a.def.push_back(sd);
      b.def.push_back(sd);
      if (sd) {
        AppendPlain(&a.values, int32_t{i});
        AppendPlain(&b.values, int64_t{i * 10});
      }
    }
    id.stats = IdStats(2 * g, 2 * g + 1);
    rg.chunks = {id, f, d, str, a, b};
    groups.push_back(rg);
  }
  return BuildParquet(s, groups, {{"k1", "v1"}});
}

Result<std::vector<std::string>> Read(ReaderOptions opts) {
  return FloeRows(MemoryInput(SampleFile(), "sample.parquet"), std::move(opts));
}

TEST(ReaderProjection, WholeFile) {
  auto rows = Read({.batch_rows = 4});
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_EQ(*rows, (std::vector<std::string>{
                       R"({"id":0,"f":0,"dec":"0.00","s":"s0","st":{"a":0,"b":0}})",
                       R"({"id":1,"f":0.5,"dec":"1.01","s":"s1","st":{"a":1,"b":10}})",
                       R"({"id":2,"f":1,"dec":"2.02","s":"s2","st":{"a":2,"b":20}})",
                       R"({"id":3,"f":1.5,"dec":"3.03","s":null,"st":{"a":3,"b":30}})",
                       R"({"id":4,"f":2,"dec":"4.04","s":"s4","st":null})",
                       R"({"id":5,"f":2.5,"dec":"5.05","s":"s5","st":{"a":5,"b":50}})"}));
}

TEST(ReaderProjection, SubsetReorderPromoteAndAbsent) {
  auto proj = std::make_shared<Schema>(std::vector<NestedField>{
      NestedField{5, "st", false,
                  StructType({NestedField{7, "b", false, LongType()},
                              NestedField{8, "c", false, StringType()}})},
      NestedField{1, "id", true, LongType()},           // int -> long
      NestedField{2, "f", false, DoubleType()},         // float -> double
      NestedField{3, "dec", false, DecimalType(9, 2)},  // decimal widening
      NestedField{42, "new", false, StringType()},      // absent: null
  });
  auto rows = Read({.projection = proj});
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_EQ((*rows)[0], R"({"st":{"b":0,"c":null},"id":0,"f":0,"dec":"0.00","new":null})");
  EXPECT_EQ((*rows)[4], R"({"st":null,"id":4,"f":2,"dec":"4.04","new":null})");
  EXPECT_EQ((*rows)[5], R"({"st":{"b":50,"c":null},"id":5,"f":2.5,"dec":"5.05","new":null})");
}

TEST(ReaderProjection, IncompatibleTypesNameEverything) {
  auto bad = [](NestedField f) {
    auto r =
        FileReader::Open(MemoryInput(SampleFile(), "sample.parquet"),
                         {.projection = std::make_shared<Schema>(std::vector<NestedField>{f})});
    EXPECT_FALSE(r);
    return r ? std::string() : r.error().message;
  };
  std::string m = bad(NestedField{4, "s", false, IntType()});
  EXPECT_NE(m.find("sample.parquet"), std::string::npos) << m;
  EXPECT_NE(m.find("field id 4 (s)"), std::string::npos) << m;
  EXPECT_NE(m.find("file type string"), std::string::npos) << m;
  EXPECT_NE(m.find("requested type int"), std::string::npos) << m;
  m = bad(NestedField{1, "id", true, FloatType()});
  EXPECT_NE(m.find("field id 1 (id)"), std::string::npos) << m;
  m = bad(NestedField{3, "dec", false, DecimalType(4, 2)});  // narrowing
  EXPECT_NE(m.find("decimal(5, 2)"), std::string::npos) << m;
  m = bad(NestedField{3, "dec", false, DecimalType(9, 3)});  // scale change
  EXPECT_NE(m.find("requested type decimal(9, 3)"), std::string::npos) << m;
  m = bad(NestedField{5, "st", false, ListType(9, false, IntType())});
  EXPECT_NE(m.find("field id 5 (st)"), std::string::npos) << m;
  m = bad(NestedField{5, "st", false, StructType({NestedField{6, "a", false, StringType()}})});
  EXPECT_NE(m.find("field id 6 (st.a)"), std::string::npos) << m;
}

TEST(ReaderProjection, MatchByName) {
  auto proj = std::make_shared<Schema>(std::vector<NestedField>{
      NestedField{100, "s", false, StringType()},
      NestedField{101, "st", false, StructType({NestedField{102, "a", false, IntType()}})},
  });
  auto by_id = Read({.projection = proj});
  ASSERT_OK(by_id);
  EXPECT_EQ((*by_id)[0], R"({"s":null,"st":null})");
  auto by_name = Read({.projection = proj, .match_by_name = true});
  ASSERT_TRUE(by_name) << by_name.error().ToString();
  EXPECT_EQ((*by_name)[0], R"({"s":"s0","st":{"a":0}})");
  EXPECT_EQ((*by_name)[4], R"({"s":"s4","st":null})");
}

TEST(ReaderProjection, FileWithoutIdsMatchesOnlyByName) {
  // The same columns without field ids: the file schema gets fresh ids, which
  // a projection by id must not match (fields read as null); by name works.
  std::vector<fmtns::SchemaElement> s = {Root(2), Leaf("a", T::INT32, kReq),
                                         Leaf("b", T::INT32, kOpt)};
  TestRowGroup rg;
  rg.num_rows = 1;
  rg.chunks = {{.values = {7, 0, 0, 0}}, {.def = {1}, .values = {9, 0, 0, 0}}};
  std::string f = BuildParquet(s, {rg});
  auto r = FileReader::Open(MemoryInput(f, "noids.parquet"));
  ASSERT_OK(r);
  EXPECT_FALSE((*r)->has_field_ids());
  EXPECT_EQ((*r)->file_schema()->fields()[0].id, 1);
  auto proj =
      std::make_shared<Schema>(std::vector<NestedField>{NestedField{1, "b", false, IntType()}});
  auto by_id = FloeRows(MemoryInput(f, "noids.parquet"), {.projection = proj});
  ASSERT_OK(by_id);
  EXPECT_EQ((*by_id)[0], R"({"b":null})");
  auto by_name =
      FloeRows(MemoryInput(f, "noids.parquet"), {.projection = proj, .match_by_name = true});
  ASSERT_OK(by_name);
  EXPECT_EQ((*by_name)[0], R"({"b":9})");
  auto whole = FloeRows(MemoryInput(f, "noids.parquet"), {});
  ASSERT_OK(whole);
  EXPECT_EQ((*whole)[0], R"({"a":7,"b":9})");
}

TEST(ReaderProjection, RowGroupSkippingAndPositions) {
  std::vector<int> seen;
  ReaderOptions opts;
  opts.skip_row_group = [&](const RowGroupStats& st) {
    seen.push_back(st.index);
    const ColumnStats* id = st.Find(1);
    EXPECT_NE(id, nullptr);
    EXPECT_EQ(st.first_row, st.index * 2);
    EXPECT_EQ(id->null_count, 0);
    int32_t hi;
    std::memcpy(&hi, id->upper->data(), 4);
    return st.index == 1 || hi < 2;  // skips groups 0 and 1
  };
  auto r = FileReader::Open(MemoryInput(SampleFile(), "sample.parquet"), opts);
  ASSERT_OK(r);
  Batch b;
  auto more = (*r)->Next(&b);
  ASSERT_TRUE(more && *more);
  EXPECT_EQ((*r)->batch_first_row(), 4);
  EXPECT_EQ(b.num_rows, 2);
  EXPECT_EQ(b.columns[0].data<int32_t>()[0], 4);
  more = (*r)->Next(&b);
  ASSERT_OK(more);
  EXPECT_FALSE(*more);
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
}

TEST(ReaderProjection, StatisticsInIcebergForm) {
  auto r = FileReader::Open(MemoryInput(SampleFile(), "sample.parquet"));
  ASSERT_OK(r);
  const auto& st = (*r)->row_group_stats(2);
  const ColumnStats* id = st.Find(1);
  ASSERT_TRUE(id && id->lower && id->upper);
  EXPECT_EQ(*id->lower, std::string("\x04\0\0\0", 4));
  EXPECT_EQ(*id->upper, std::string("\x05\0\0\0", 4));
  EXPECT_EQ(id->path, "id");
  EXPECT_EQ(st.Find(7)->path, "st.b");
  EXPECT_FALSE(st.Find(4)->lower.has_value());
  EXPECT_EQ((*r)->num_rows(), 6);
  EXPECT_EQ((*r)->num_row_groups(), 3);
  ASSERT_EQ((*r)->key_value_metadata().size(), 1u);
  EXPECT_EQ((*r)->key_value_metadata()[0].second, "v1");
  auto j = nlohmann::json::parse((*r)->DescribeMetadata());
  EXPECT_EQ(j["file"]["num_rows"], 6);
  EXPECT_EQ(j["row_groups"].size(), 3u);
  EXPECT_EQ(j["row_groups"][1]["columns"][0]["codec"], "UNCOMPRESSED");
  EXPECT_EQ(j["row_groups"][1]["columns"][0]["statistics"]["lower_bound_hex"], "02000000");
  EXPECT_EQ(j["row_groups"][1]["columns"][0]["statistics"]["upper_bound"], 3);
  EXPECT_EQ(j["row_groups"][1]["columns"][0]["encodings"][1], "RLE");
}

TEST(ReaderProjection, BadOptions) {
  auto r = FileReader::Open(MemoryInput(SampleFile(), "sample.parquet"), {.batch_rows = 0});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidArgument);
  EXPECT_NE(r.error().message.find("batch_rows"), std::string::npos);
}

}  // namespace reader_projection_test
}  // namespace floe::parquet
