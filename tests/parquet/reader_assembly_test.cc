// Level assembly: nested values rebuilt from definition / repetition levels,
// with nulls at every level (PITFALLS 12 and deeper), the backward-compatible
// list and map shapes of LogicalTypes.md (2-level lists, `array` and
// `<name>_tuple` elements, unannotated repeated fields, MAP_KEY_VALUE), INT96,
// legacy BIT_PACKED levels and pages that split a record. Files are built by
// hand; expected rows are written out here and also checked against DuckDB.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "parquet/reader_test_util.h"

namespace floe::parquet {
namespace reader_assembly_test {

using namespace testutil;  // NOLINT
using T = fmtns::Type;
using CT = fmtns::ConvertedType;

std::vector<uint8_t> Ints(std::initializer_list<int32_t> v) {
  std::vector<uint8_t> out;
  for (int32_t x : v) AppendPlain(&out, x);
  return out;
}
std::vector<uint8_t> Strs(std::initializer_list<std::string> v) {
  std::vector<uint8_t> out;
  for (const auto& x : v) AppendPlainBytes(&out, x);
  return out;
}
std::vector<uint8_t> Int96(int64_t nanos, int32_t julian) {
  std::vector<uint8_t> out;
  AppendPlain(&out, nanos);
  AppendPlain(&out, julian);
  return out;
}

/// `bit_packed_h`: column h uses the deprecated BIT_PACKED level encoding,
/// which DuckDB does not read ("Out of buffer"), so its comparison uses RLE.
std::string LegacyShapesFile(bool bit_packed_h = true) {
  auto dec = Leaf("i", T::BYTE_ARRAY, kOpt, CT::DECIMAL, 19);
  dec.__set_precision(10);
  dec.__set_scale(3);
  std::vector<fmtns::SchemaElement> s = {
      Root(9),
      Group("a", kOpt, 1, CT::LIST, 1),
      Group("list", kRep, 1),
      Leaf("element", T::INT32, kOpt, {}, 2),
      Group("b", kOpt, 1, CT::LIST, 3),
      Leaf("array", T::INT32, kRep, {}, 4),
      Leaf("c", T::INT32, kRep, {}, 5),
      Group("d", kOpt, 1, CT::LIST, 6),
      Group("d_tuple", kRep, 2, {}, 7),
      Leaf("x", T::INT32, kReq, {}, 8),
      Leaf("y", T::BYTE_ARRAY, kOpt, CT::UTF8, 9),
      Group("e", kOpt, 1, CT::MAP, 10),
      Group("map", kRep, 2, CT::MAP_KEY_VALUE),
      Leaf("key", T::BYTE_ARRAY, kReq, CT::UTF8, 11),
      Leaf("value", T::INT32, kOpt, {}, 12),
      Leaf("f", T::INT96, kOpt, {}, 13),
      Group("g", kOpt, 1, CT::LIST, 14),
      Group("list", kRep, 1),
      Group("element", kOpt, 1, {}, 15),
      Group("inner", kOpt, 1, CT::LIST, 16),
      Group("list", kRep, 1),
      Leaf("element", T::INT32, kOpt, {}, 17),
      Leaf("h", T::INT32, kOpt, {}, 18),
      dec,
  };
  TestRowGroup rg;
  rg.num_rows = 3;
  rg.chunks = {
      {.def = {0, 1, 2, 3, 3}, .rep = {0, 0, 0, 1, 1}, .values = Ints({1, 2})},
      {.def = {2, 2, 0, 1}, .rep = {0, 1, 0, 0}, .values = Ints({1, 2})},
      {.def = {1, 0, 1, 1}, .rep = {0, 0, 0, 1}, .values = Ints({5, 6, 7})},
      {.def = {2, 2, 0, 1}, .rep = {0, 1, 0, 0}, .values = Ints({1, 2})},
      {.def = {3, 2, 0, 1}, .rep = {0, 1, 0, 0}, .values = Strs({"a"})},
      {.def = {2, 2, 0, 1}, .rep = {0, 1, 0, 0}, .values = Strs({"a", "b"})},
      {.def = {3, 2, 0, 1}, .rep = {0, 1, 0, 0}, .values = Ints({1})},
      {.def = {1, 0, 1},
       .values =
           [] {
             auto v = Int96(3500000000LL, 2440589);
             auto w = Int96(86399000001000LL, 2440587);
             v.insert(v.end(), w.begin(), w.end());
             return v;
           }()},
      // Two pages; the second starts inside row 0.
      {.def = {6, 5, 2, 3, 4, 0, 1},
       .rep = {0, 2, 1, 1, 1, 0, 0},
       .values = Ints({1}),
       .value_splits = {4},
       .page_splits = {2}},
      {.def = {1, 0, 1}, .values = Ints({10, 30}), .bit_packed_levels = bit_packed_h},
      // BYTE_ARRAY decimal, minimal big-endian: -12345 and 99999999.
      {.def = {1, 0, 1}, .values = Strs({"\xCF\xC7", "\x05\xF5\xE0\xFF"})},
  };
  return BuildParquet(s, {rg});
}

const std::vector<std::string> kLegacyRows = {
    R"({"a":null,"b":[1,2],"c":[5],"d":[{"x":1,"y":"a"},{"x":2,"y":null}],"e":{"keys":["a","b"],"values":[1,null]},"f":"1970-01-02T00:00:03.500000","g":[{"inner":[1,null]},null,{"inner":null},{"inner":[]}],"h":10,"i":"-12.345"})",
    R"({"a":[],"b":null,"c":[],"d":null,"e":null,"f":null,"g":null,"h":null,"i":null})",
    R"({"a":[null,1,2],"b":[],"c":[6,7],"d":[],"e":{"keys":[],"values":[]},"f":"1969-12-31T23:59:59.000001","g":[],"h":30,"i":"99999.999"})",
};

TEST(ReaderAssembly, LegacyShapesSchema) {
  auto r = FileReader::Open(MemoryInput(LegacyShapesFile(), "legacy.parquet"));
  ASSERT_TRUE(r) << r.error().ToString();
  const Schema& s = *(*r)->file_schema();
  EXPECT_EQ(s.FindField(1)->type->ToString(), "list<int>");
  EXPECT_EQ(s.FindField(3)->type->element().required, true);  // 2-level: required elements
  EXPECT_TRUE(s.FindField(5)->required);                      // unannotated repeated: required list
  EXPECT_EQ(s.FindField(6)->type->element().type->id, TypeId::kStruct);  // d_tuple is the element
  EXPECT_EQ(s.FindField(6)->type->element().id, 7);
  EXPECT_EQ(s.FindField(10)->type->id, TypeId::kMap);
  EXPECT_EQ(s.FindField(13)->type->id, TypeId::kTimestamp);
  EXPECT_TRUE((*r)->has_field_ids());
}

TEST(ReaderAssembly, LegacyShapesRows) {
  for (int64_t batch : {65536, 2, 1}) {
    SCOPED_TRACE(batch);
    auto rows = FloeRows(MemoryInput(LegacyShapesFile(), "legacy.parquet"),
                         ReaderOptions{.batch_rows = batch});
    ASSERT_TRUE(rows) << rows.error().ToString();
    EXPECT_EQ(*rows, kLegacyRows);
  }
}

TEST(ReaderAssembly, LegacyShapesMatchDuckDb) {
  auto path = std::filesystem::temp_directory_path() /
              ("floe_legacy_" + std::to_string(getpid()) + ".parquet");
  {
    std::ofstream f(path, std::ios::binary);
    std::string bytes = LegacyShapesFile(false);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  if (const char* keep = std::getenv("FLOE_TEST_DUMP_DIR")) {  // for debugging by hand
    std::filesystem::copy_file(path, std::filesystem::path(keep) / "legacy.parquet",
                               std::filesystem::copy_options::overwrite_existing);
  }
  bool ok = true;
  auto duck = DuckDbRows({path.string()}, &ok);
  std::filesystem::remove(path);
  ASSERT_TRUE(ok);
  EXPECT_EQ(duck[path.string()], kLegacyRows);
}

TEST(ReaderAssembly, NestedProjectionAndAbsentFields) {
  // Project g.element.inner only through a struct with an extra absent field,
  // and map e with its value promoted int -> long.
  auto inner = ListType(17, false, LongType());
  auto elem = StructType(
      {NestedField{16, "inner", false, inner}, NestedField{99, "gone", false, StringType()}});
  auto proj = std::make_shared<Schema>(std::vector<NestedField>{
      NestedField{14, "g", false, ListType(15, false, elem)},
      NestedField{10, "e", false, MapType(11, StringType(), 12, false, LongType())},
      NestedField{100, "missing", false, ListType(101, false, IntType())},
  });
  auto rows = FloeRows(MemoryInput(LegacyShapesFile(), "legacy.parquet"),
                       ReaderOptions{.projection = proj, .batch_rows = 2});
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_EQ(
      *rows,
      (std::vector<std::string>{
          R"({"g":[{"inner":[1,null],"gone":null},null,{"inner":null,"gone":null},{"inner":[],"gone":null}],"e":{"keys":["a","b"],"values":[1,null]},"missing":null})",
          R"({"g":null,"e":null,"missing":null})",
          R"({"g":[],"e":{"keys":[],"values":[]},"missing":null})"}));
}

TEST(ReaderAssembly, DataPagesV2CompressedOrNot) {
  // list<int> with nulls, pages v2 (levels uncompressed before the values),
  // SNAPPY with is_compressed true and false, a page split inside a record.
  std::vector<fmtns::SchemaElement> s = {Root(1), Group("a", kOpt, 1, CT::LIST, 1),
                                         Group("list", kRep, 1),
                                         Leaf("element", T::INT32, kOpt, {}, 2)};
  for (bool compressed : {true, false}) {
    SCOPED_TRACE(compressed);
    TestRowGroup rg;
    rg.num_rows = 3;
    rg.chunks = {{.def = {3, 2, 3, 0, 1},
                  .rep = {0, 1, 1, 0, 0},
                  .values = Ints({7, 8}),
                  .value_splits = {4},
                  .page_splits = {2},
                  .v2 = true,
                  .v2_is_compressed = compressed,
                  .snappy = true}};
    auto rows = FloeRows(MemoryInput(BuildParquet(s, {rg}), "v2.parquet"), {});
    ASSERT_TRUE(rows) << rows.error().ToString();
    EXPECT_EQ(*rows,
              (std::vector<std::string>{R"({"a":[7,null,8]})", R"({"a":null})", R"({"a":[]})"}));
  }
  // A v1 page compressed with SNAPPY (levels inside the compressed body).
  TestRowGroup rg;
  rg.num_rows = 1;
  rg.chunks = {{.def = {3}, .rep = {0}, .values = Ints({5}), .snappy = true}};
  std::string f = BuildParquet(s, {rg});
  auto rows = FloeRows(MemoryInput(f, "v1.parquet"), {});
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_EQ((*rows)[0], R"({"a":[5]})");
}

TEST(ReaderAssembly, CorruptLevelsAreErrors) {
  std::vector<fmtns::SchemaElement> s = {Root(1), Group("a", kOpt, 1, CT::LIST, 1),
                                         Group("list", kRep, 1),
                                         Leaf("element", T::INT32, kOpt, {}, 2)};
  // A chunk that starts with repetition level 1.
  TestRowGroup rg;
  rg.num_rows = 1;
  rg.chunks = {{.def = {3, 3}, .rep = {1, 0}, .values = Ints({1, 2})}};
  auto rows = FloeRows(MemoryInput(BuildParquet(s, {rg}), "bad.parquet"), {});
  ASSERT_FALSE(rows);
  EXPECT_EQ(rows.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(rows.error().message.find("bad.parquet"), std::string::npos) << rows.error().message;
  EXPECT_NE(rows.error().message.find("column a.list.element"), std::string::npos)
      << rows.error().message;
  // Definition level above the maximum.
  rg.chunks = {{.def = {4}, .rep = {0}, .values = Ints({1})}};
  rows = FloeRows(MemoryInput(BuildParquet(s, {rg}), "bad.parquet"), {});
  ASSERT_FALSE(rows);
  EXPECT_NE(rows.error().message.find("above the maximum"), std::string::npos)
      << rows.error().message;
  // Fewer rows than the row group claims.
  rg.num_rows = 2;
  rg.chunks = {{.def = {3}, .rep = {0}, .values = Ints({1})}};
  rows = FloeRows(MemoryInput(BuildParquet(s, {rg}), "bad.parquet"), {});
  ASSERT_FALSE(rows);
  EXPECT_NE(rows.error().message.find("ended after 1 of 2 rows"), std::string::npos)
      << rows.error().message;
  // Values missing for present entries.
  rg.num_rows = 1;
  rg.chunks = {{.def = {3, 3}, .rep = {0, 1}, .values = Ints({1})}};
  rows = FloeRows(MemoryInput(BuildParquet(s, {rg}), "bad.parquet"), {});
  ASSERT_FALSE(rows);
  EXPECT_EQ(rows.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(rows.error().message.find("page 0"), std::string::npos) << rows.error().message;
}

}  // namespace reader_assembly_test
}  // namespace floe::parquet
