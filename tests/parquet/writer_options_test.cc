// WriterOptions::FromProperties (Iceberg's write.parquet.* table properties), the
// writer's argument and batch checks, Abort, EstimatedFileSize and the Iceberg metrics
// of WriteResult (Iceberg spec: Data File Fields; Appendix D bounds).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "floe/parquet/writer.h"
#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/schema.h"

namespace floe::parquet {
namespace writer_options_test {

namespace fs = std::filesystem;

using test::Field;

TEST(WriterOptions, DefaultsAreIcebergs) {
  auto o = WriterOptions::FromProperties({});
  ASSERT_OK(o);
  EXPECT_EQ(o->row_group_size_bytes, 134217728);
  EXPECT_EQ(o->page_size_bytes, 1048576);
  EXPECT_EQ(o->page_row_limit, 20000);
  EXPECT_EQ(o->dict_size_bytes, 2097152);
  EXPECT_EQ(o->codec, Codec::kZstd);
  EXPECT_EQ(o->bloom_filter_max_bytes, 1048576);
  EXPECT_EQ(o->page_version, PageVersion::kV1);
  EXPECT_TRUE(o->dictionary_enabled);
}

TEST(WriterOptions, ReadsEveryKey) {
  auto o = WriterOptions::FromProperties({
      {"write.parquet.row-group-size-bytes", "1000"},
      {"write.parquet.page-size-bytes", "200"},
      {"write.parquet.page-row-limit", "50"},
      {"write.parquet.dict-size-bytes", "300"},
      {"write.parquet.compression-codec", "snappy"},
      {"write.parquet.compression-level", "5"},
      {"write.parquet.bloom-filter-enabled.column.a.b", "true"},
      {"write.parquet.bloom-filter-fpp.column.a.b", "0.05"},
      {"write.parquet.bloom-filter-max-bytes", "4096"},
      {"write.parquet.page-version", "v2"},
      {"write.parquet.dictionary-enabled", "false"},
      {"write.parquet.encoding.column.x", "delta"},
      {"write.parquet.encoding.column.y", "byte_stream_split"},
      {"write.target-file-size-bytes", "5"},  // not ours: ignored
  });
  ASSERT_TRUE(o) << o.error().ToString();
  EXPECT_EQ(o->row_group_size_bytes, 1000);
  EXPECT_EQ(o->page_size_bytes, 200);
  EXPECT_EQ(o->page_row_limit, 50);
  EXPECT_EQ(o->dict_size_bytes, 300);
  EXPECT_EQ(o->codec, Codec::kSnappy);
  EXPECT_EQ(o->compression_level, 5);
  EXPECT_TRUE(o->bloom_filter_columns.at("a.b"));
  EXPECT_DOUBLE_EQ(o->bloom_filter_fpp.at("a.b"), 0.05);
  EXPECT_EQ(o->bloom_filter_max_bytes, 4096);
  EXPECT_EQ(o->page_version, PageVersion::kV2);
  EXPECT_FALSE(o->dictionary_enabled);
  EXPECT_EQ(o->column_encodings.at("x"), ColumnEncoding::kDelta);
  EXPECT_EQ(o->column_encodings.at("y"), ColumnEncoding::kByteStreamSplit);
}

TEST(WriterOptions, UnknownKeyIsNamedWithTheValidOnes) {
  auto o = WriterOptions::FromProperties({{"write.parquet.page-sise-bytes", "1"}});
  ASSERT_FALSE(o);
  EXPECT_NE(o.error().message.find("write.parquet.page-sise-bytes"), std::string::npos);
  EXPECT_NE(o.error().message.find("write.parquet.page-size-bytes"), std::string::npos);
  EXPECT_NE(o.error().message.find("write.parquet.encoding.column.<column>"), std::string::npos);
}

TEST(WriterOptions, BadValuesNameKeyAndValue) {
  for (auto [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"write.parquet.page-size-bytes", "12x"},
           {"write.parquet.page-row-limit", "0"},
           {"write.parquet.compression-codec", "lzo"},
           {"write.parquet.compression-codec", "deflate"},
           {"write.parquet.page-version", "v3"},
           {"write.parquet.dictionary-enabled", "yes"},
           {"write.parquet.bloom-filter-fpp.column.c", "1.5"},
           {"write.parquet.encoding.column.c", "rle"}}) {
    auto o = WriterOptions::FromProperties({{k, v}});
    ASSERT_FALSE(o) << k << "=" << v;
    EXPECT_NE(o.error().message.find(k), std::string::npos) << o.error().message;
    EXPECT_NE(o.error().message.find(v), std::string::npos) << o.error().message;
  }
}

class WriterFiles : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::FreshTestDir("floe_pq_writer_"); }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }
  std::unique_ptr<OutputFile> Out(const std::string& name) {
    auto o = OpenLocalOutput((dir_ / name).string(), true);
    EXPECT_OK(o);
    return std::move(*o);
  }
  fs::path dir_;
};

TEST_F(WriterFiles, OptionsNamingMissingOrUnfitColumnsFail) {
  auto schema = std::make_shared<Schema>(
      std::vector<NestedField>{Field(1, "a", StringType()), Field(2, "b", BooleanType())});
  WriterOptions o;
  o.bloom_filter_columns["nope"] = true;
  auto w = FileWriter::Open(Out("x.parquet"), schema, o);
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().message.find("'nope'"), std::string::npos) << w.error().message;
  WriterOptions o2;
  o2.column_encodings["a"] = ColumnEncoding::kByteStreamSplit;
  auto w2 = FileWriter::Open(Out("y.parquet"), schema, o2);
  ASSERT_FALSE(w2);
  EXPECT_NE(w2.error().message.find("write.parquet.encoding.column.a"), std::string::npos);
  WriterOptions o3;
  o3.column_encodings["b"] = ColumnEncoding::kDelta;
  EXPECT_FALSE(FileWriter::Open(Out("z.parquet"), schema, o3));
  EXPECT_FALSE(fs::exists(dir_ / "x.parquet"));  // nothing left behind
}

TEST_F(WriterFiles, BadBatchesAreRejectedWithNames) {
  auto schema = std::make_shared<Schema>(std::vector<NestedField>{
      Field(1, "a", LongType(), true), Field(2, "dec", DecimalType(4, 2))});
  auto w = FileWriter::Open(Out("bad.parquet"), schema, {});
  ASSERT_OK(w);
  Batch b(schema);
  b.columns[0].AppendNull();  // required
  b.columns[1].Append<int128_t>(1);
  b.num_rows = 1;
  auto st = (*w)->Write(b);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("'a'"), std::string::npos) << st.error().message;
  Batch d(schema);
  d.columns[0].Append<int64_t>(1);
  d.columns[1].Append<int128_t>(10000);  // 100.00 does not fit decimal(4,2)
  d.num_rows = 1;
  st = (*w)->Write(d);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("decimal(4, 2)"), std::string::npos) << st.error().message;
  Batch e(schema);
  e.columns[0].Append<int64_t>(1);
  e.num_rows = 1;  // column 'dec' short
  EXPECT_FALSE((*w)->Write(e));
  auto other = std::make_shared<Schema>(
      std::vector<NestedField>{Field(1, "a", IntType(), true), Field(2, "dec", DecimalType(4, 2))});
  Batch o(other);
  st = (*w)->Write(o);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("column 'a'"), std::string::npos) << st.error().message;
  (*w)->Abort();
  EXPECT_TRUE(fs::is_empty(dir_)) << "Abort left files behind";
}

TEST_F(WriterFiles, MetricsAreIcebergs) {
  auto schema = std::make_shared<Schema>(std::vector<NestedField>{
      Field(1, "l", LongType()), Field(2, "d", DoubleType()), Field(3, "s", StringType()),
      Field(4, "dec", DecimalType(20, 2)), Field(5, "li", ListType(6, true, IntType())),
      Field(7, "b", BooleanType()), Field(8, "nn", FloatType())});
  WriterOptions opt;
  opt.row_group_size_bytes = 1;  // one row group per batch: bounds merge across groups
  auto w = FileWriter::Open(Out("m.parquet"), schema, opt);
  ASSERT_OK(w);
  int64_t before = (*w)->EstimatedFileSize();
  for (int part = 0; part < 2; ++part) {
    Batch b(schema);
    for (int i = 0; i < 5; ++i) {
      int v = part * 5 + i;
      b.columns[0].Append<int64_t>(v == 3 ? INT64_MIN : v);
      if (v == 4) {
        b.columns[1].AppendNull();
      } else {
        b.columns[1].Append(v == 1 ? std::nan("") : v == 2 ? -0.0 : v == 7 ? 0.0 : v * 1.5);
      }
      b.columns[2].AppendBytes(v == 9 ? "\xc3\xbf" : "m" + std::to_string(v));
      b.columns[3].Append<int128_t>(v == 5 ? -100000 : v);
      for (int k = 0; k < v % 3; ++k) b.columns[4].children[0].Append<int32_t>(k);
      b.columns[4].CloseListRow();
      b.columns[5].Append<uint8_t>(1);
      b.columns[6].Append(std::nanf(""));
      ++b.num_rows;
    }
    ASSERT_OK((*w)->Write(b));
  }
  EXPECT_GT((*w)->EstimatedFileSize(), before);
  auto r = (*w)->Close();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->num_rows, 10);
  EXPECT_EQ(r->file_size_bytes, static_cast<int64_t>(fs::file_size(dir_ / "m.parquet")));
  EXPECT_EQ(r->row_group_offsets.size(), 2u);
  EXPECT_EQ(r->row_group_offsets[0], 4);
  ASSERT_EQ(r->columns.size(), 7u);
  auto le64 = [](int64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); };
  auto led = [](double v) { return std::string(reinterpret_cast<const char*>(&v), 8); };
  const auto& l = r->columns[0];
  EXPECT_EQ(l.field_id, 1);
  EXPECT_EQ(l.value_count, 10);
  EXPECT_EQ(l.null_count, 0);
  EXPECT_FALSE(l.nan_count);
  EXPECT_EQ(l.lower_bound, le64(INT64_MIN));
  EXPECT_EQ(l.upper_bound, le64(9));
  const auto& d = r->columns[1];
  EXPECT_EQ(d.null_count, 1);
  EXPECT_EQ(d.nan_count, 1);
  EXPECT_EQ(d.lower_bound, led(-0.0));  // -0.0 sorts before +0.0; NaN is never a bound
  EXPECT_EQ(d.upper_bound, led(13.5));
  const auto& s = r->columns[2];
  EXPECT_EQ(s.lower_bound, "m0");
  EXPECT_EQ(s.upper_bound, "\xc3\xbf");  // unsigned bytes
  const auto& dec = r->columns[3];
  EXPECT_EQ(dec.lower_bound, std::string("\xfe\x79\x60", 3));  // -100000, minimal big-endian
  EXPECT_EQ(dec.upper_bound, std::string("\x09", 1));
  const auto& li = r->columns[4];
  EXPECT_EQ(li.path, (std::vector<std::string>{"li", "list", "element"}));
  EXPECT_EQ(li.field_id, 6);
  EXPECT_EQ(li.value_count, 13);  // 9 elements + 4 empty lists
  EXPECT_EQ(li.null_count, 4);
  EXPECT_EQ(li.lower_bound, std::string("\0\0\0\0", 4));
  EXPECT_EQ(r->columns[5].lower_bound, std::string("\x01", 1));
  EXPECT_EQ(r->columns[6].nan_count, 10);
  EXPECT_FALSE(r->columns[6].lower_bound);  // all NaN: no bounds
  int64_t sizes = 0;
  for (const auto& c : r->columns) sizes += c.compressed_size;
  EXPECT_LT(sizes, r->file_size_bytes);
  EXPECT_GT(r->columns[0].compressed_size, 0);
}

}  // namespace writer_options_test
}  // namespace floe::parquet
