// Interop matrix for the Parquet writer: every type x codec x page version x dictionary
// on/off, with nulls and extremes, plus encodings, paging, big values and bloom filters.
// Each file is read back by DuckDB, hyparquet and parquet-wasm (one node process for
// all files: tests/parquet/interop_write_read.mjs) and must give exactly the rows the
// test printed from its input batches; DuckDB's metadata must show the codec, encodings,
// field ids and statistics.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "floe/parquet/writer.h"
#include "testing/files.h"
#include "testing/hex.h"
#include "testing/schema.h"
#include "writer_test_util.h"

namespace floe::parquet {
namespace interop_write_test {

namespace fs = std::filesystem;
using testing::CanonicalRows;
using testing::RandomFiller;

using test::SharedDir;

using test::Field;

// Every floe type but timestamptz_ns (DuckDB has no such type; it gets its own file).
SchemaPtr AllTypesSchema() {
  std::vector<NestedField> f;
  f.push_back(Field(1, "b", BooleanType()));
  f.push_back(Field(2, "i", IntType()));
  f.push_back(Field(3, "l", LongType(), true));
  f.push_back(Field(4, "f", FloatType()));
  f.push_back(Field(5, "d", DoubleType()));
  f.push_back(Field(6, "dec9", DecimalType(9, 2)));
  f.push_back(Field(7, "dec18", DecimalType(18, 6)));
  f.push_back(Field(8, "dec38", DecimalType(38, 10)));
  f.push_back(Field(9, "dt", DateType()));
  f.push_back(Field(10, "tm", TimeType()));
  f.push_back(Field(11, "ts", TimestampType()));
  f.push_back(Field(12, "tstz", TimestampTzType()));
  f.push_back(Field(13, "tsn", Primitive(TypeId::kTimestampNs)));
  f.push_back(Field(14, "s", StringType()));
  f.push_back(Field(15, "u", UuidType()));
  f.push_back(Field(16, "fx", FixedType(5)));
  f.push_back(Field(17, "bin", BinaryType()));
  f.push_back(
      Field(18, "st", StructType({Field(19, "x", IntType(), true), Field(20, "y", StringType())})));
  f.push_back(Field(21, "li", ListType(22, false, IntType())));
  f.push_back(Field(23, "mp", MapType(24, StringType(), 25, false, LongType())));
  // list<struct<a: list<map<int, list<string>>>, z: decimal(20,3)>>
  auto inner_list = ListType(30, false, StringType());
  auto m = MapType(28, IntType(), 29, false, inner_list);
  auto a = ListType(27, false, m);
  f.push_back(Field(
      26, "deep",
      ListType(31, false, StructType({Field(32, "a", a), Field(33, "z", DecimalType(20, 3))}))));
  f.push_back(Field(34, "1st col", IntType()));
  f.push_back(Field(35, "a b", StringType()));
  f.push_back(Field(36, "req_list", ListType(37, true, LongType()), true));
  return std::make_shared<Schema>(std::move(f));
}

struct Case {
  std::string name;
  SchemaPtr schema;
  std::vector<Batch> batches;
  WriterOptions options;
  std::vector<std::string> readers = {"duckdb", "hyparquet", "parquet-wasm"};
  std::string path;
  WriteResult result;
  std::vector<std::string> expected, expected_masked;
  std::string codec_name;  // as DuckDB prints it
  nlohmann::json extra = nlohmann::json::object();  // more manifest keys (page_index, bloom_probes)
};

std::string DuckCodec(Codec c) {
  switch (c) {
    case Codec::kUncompressed: return "UNCOMPRESSED";
    case Codec::kSnappy: return "SNAPPY";
    case Codec::kGzip: return "GZIP";
    case Codec::kZstd: return "ZSTD";
    case Codec::kLz4Raw: return "LZ4_RAW";
    case Codec::kBrotli: return "BROTLI";
    default: return "?";
  }
}

Batch MakeBatch(SchemaPtr schema, uint64_t seed, int64_t rows, double null_rate = 0.15,
                int big_every = 0, size_t big_size = 0) {
  Batch b(schema);
  RandomFiller filler(seed, null_rate);
  if (big_every) filler.SetBigStrings(big_every, big_size);
  filler.Fill(&b, rows);
  return b;
}

class InteropWrite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { dir_ = test::FreshTestDir("floe_pq_interop_"); }
  static void TearDownTestSuite() {
    // Kept on failure, or with FLOE_KEEP_TEST_FILES set, for inspection.
    if (!::testing::Test::HasFailure() && !std::getenv("FLOE_KEEP_TEST_FILES")) fs::remove_all(dir_);
  }
  static fs::path dir_;
};
fs::path InteropWrite::dir_;

void WriteCase(Case* c, const fs::path& dir) {
  c->path = (dir / (c->name + ".parquet")).string();
  auto out = OpenLocalOutput(c->path, true);
  ASSERT_TRUE(out) << out.error().ToString();
  auto w = FileWriter::Open(std::move(*out), c->schema, c->options);
  ASSERT_TRUE(w) << c->name << ": " << w.error().ToString();
  for (const Batch& b : c->batches) {
    auto st = (*w)->Write(b);
    ASSERT_TRUE(st) << c->name << ": " << st.error().ToString();
    for (const auto& r : CanonicalRows(b)) c->expected.push_back(r);
    for (const auto& r : CanonicalRows(b, true)) c->expected_masked.push_back(r);
  }
  auto r = (*w)->Close();
  ASSERT_TRUE(r) << c->name << ": " << r.error().ToString();
  c->result = std::move(*r);
  c->codec_name = DuckCodec(c->options.codec);
  EXPECT_EQ(c->result.file_size_bytes, static_cast<int64_t>(fs::file_size(c->path))) << c->name;
}

struct ReaderOutput {
  std::map<std::string, std::map<std::string, std::vector<std::string>>> rows;  // reader -> path
  std::map<std::string, std::map<std::string, std::string>> errors;
  std::map<std::string, nlohmann::json> meta;
  std::map<std::string, nlohmann::json> page_index;
  std::map<std::string, nlohmann::json> bloom;
};

ReaderOutput RunReaders(const std::vector<Case>& cases, const fs::path& dir) {
  nlohmann::json manifest = nlohmann::json::array();
  for (const auto& c : cases) {
    nlohmann::json e;
    e["path"] = c.path;
    e["type"] = nlohmann::json::parse(testing::SchemaTypeJson(*c.schema));
    e["readers"] = c.readers;
    e["meta"] = true;
    for (auto& [k, v] : c.extra.items()) e[k] = v;
    manifest.push_back(e);
  }
  fs::path mpath = dir / "manifest.json";
  std::ofstream(mpath) << manifest.dump();
  std::string shared = SharedDir();
  std::string cmd = "FLOE_SHARED='" + shared + "' node '" + std::string(FLOE_SOURCE_DIR) +
                    "/tests/parquet/interop_write_read.mjs' '" + mpath.string() + "' > '" +
                    (dir / "readers.out").string() + "' 2> '" + (dir / "readers.err").string() + "'";
  int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << "node helper failed: " << cmd;
  ReaderOutput out;
  std::ifstream in(dir / "readers.out");
  std::string line, reader, path;
  std::vector<std::string>* rows = nullptr;
  while (std::getline(in, line)) {
    if (line.starts_with("#ROWS ")) {
      std::istringstream ss(line.substr(6));
      ss >> reader;
      std::getline(ss >> std::ws, path);
      rows = &out.rows[reader][path];
    } else if (line == "#END") {
      rows = nullptr;
    } else if (line.starts_with("#ERROR ")) {
      std::istringstream ss(line.substr(7));
      ss >> reader >> path;
      std::string msg;
      std::getline(ss, msg);
      out.errors[reader][path] = msg;
    } else if (line.starts_with("#META ")) {
      size_t sp = line.find(' ', 6);
      out.meta[line.substr(6, sp - 6)] = nlohmann::json::parse(line.substr(sp + 1));
    } else if (line.starts_with("#PAGEINDEX ")) {
      size_t sp = line.find(' ', 11);
      out.page_index[line.substr(11, sp - 11)] = nlohmann::json::parse(line.substr(sp + 1));
    } else if (line.starts_with("#BLOOM ")) {
      size_t sp = line.find(' ', 7);
      out.bloom[line.substr(7, sp - 7)] = nlohmann::json::parse(line.substr(sp + 1));
    } else if (rows) {
      rows->push_back(line);
    }
  }
  return out;
}

void CheckRows(const Case& c, const ReaderOutput& out) {
  for (const auto& reader : c.readers) {
    auto eit = out.errors.find(reader);
    if (eit != out.errors.end() && eit->second.count(c.path)) {
      ADD_FAILURE() << c.name << ": " << reader << " failed: " << eit->second.at(c.path);
      continue;
    }
    auto rit = out.rows.find(reader);
    if (rit == out.rows.end() || !rit->second.count(c.path)) {
      ADD_FAILURE() << c.name << ": no rows from " << reader;
      continue;
    }
    const auto& got = rit->second.at(c.path);
    const auto& want = reader == "hyparquet" ? c.expected_masked : c.expected;
    ASSERT_EQ(got.size(), want.size()) << c.name << " via " << reader;
    int shown = 0;
    for (size_t i = 0; i < got.size() && shown < 3; ++i) {
      if (got[i] != want[i]) {
        ADD_FAILURE() << c.name << " via " << reader << ", row " << i << "\n got: " << got[i]
                      << "\nwant: " << want[i];
        ++shown;
      }
    }
  }
}

// DuckDB's view of the footer: codec, field ids and null counts as written.
void CheckMeta(const Case& c, const ReaderOutput& out) {
  auto it = out.meta.find(c.path);
  ASSERT_NE(it, out.meta.end()) << c.name << ": no metadata";
  const nlohmann::json& m = it->second;
  // Field ids: every element but the root, `list` and `key_value` has one.
  for (const auto& s : m["schema"]) {
    std::string name = s["name"].get<std::string>();
    bool wrapper = name == "list" || name == "key_value" || name == "schema" || name == "duckdb_schema";
    if (wrapper) {
      EXPECT_TRUE(s["field_id"].is_null()) << c.name << ": " << name << " has a field id";
    } else {
      EXPECT_FALSE(s["field_id"].is_null()) << c.name << ": " << name << " has no field id";
    }
  }
  std::map<std::string, int64_t> nulls;  // path -> summed stats_null_count
  for (const auto& ch : m["chunks"]) {
    EXPECT_EQ(ch["compression"], c.codec_name) << c.name;
    std::string path = ch["path_in_schema"].get<std::string>();
    if (!ch["stats_null_count"].is_null()) {
      nulls[path] += std::stoll(ch["stats_null_count"].is_string()
                                    ? ch["stats_null_count"].get<std::string>()
                                    : ch["stats_null_count"].dump());
    }
  }
  size_t matched = 0;
  for (const auto& col : c.result.columns) {
    std::string path;
    for (const auto& p : col.path) path += (path.empty() ? "" : ", ") + p;
    if (nulls.count(path)) {
      EXPECT_EQ(nulls[path], col.null_count) << c.name << " " << path;
      ++matched;
    }
  }
  if (c.result.num_rows > 0) EXPECT_EQ(matched, c.result.columns.size()) << c.name << ": null counts missing";
  // Min/max of the integer columns as DuckDB prints them = the file's Iceberg bounds.
  for (const auto& col : c.result.columns) {
    if (col.path.size() != 1 || (col.path[0] != "l" && col.path[0] != "i")) continue;
    std::optional<int64_t> lo, hi;
    for (const auto& ch : m["chunks"]) {
      if (ch["path_in_schema"] != col.path[0] || ch["stats_min_value"].is_null()) continue;
      int64_t a = std::stoll(ch["stats_min_value"].get<std::string>());
      int64_t b = std::stoll(ch["stats_max_value"].get<std::string>());
      lo = lo ? std::min(*lo, a) : a;
      hi = hi ? std::max(*hi, b) : b;
    }
    if (!col.lower_bound) {
      EXPECT_FALSE(lo) << c.name << " " << col.path[0];
      continue;
    }
    auto bound = [&](const std::string& b) {
      if (b.size() == 4) { int32_t v; std::memcpy(&v, b.data(), 4); return static_cast<int64_t>(v); }
      int64_t v; std::memcpy(&v, b.data(), 8); return v;
    };
    ASSERT_TRUE(lo && hi) << c.name << " " << col.path[0] << ": DuckDB shows no min/max";
    EXPECT_EQ(*lo, bound(*col.lower_bound)) << c.name << " " << col.path[0];
    EXPECT_EQ(*hi, bound(*col.upper_bound)) << c.name << " " << col.path[0];
  }
  int64_t rows = 0;
  for (const auto& f : m["file"]) rows = std::stoll(f["num_rows"].dump().find('"') == 0 ? f["num_rows"].get<std::string>() : f["num_rows"].dump());
  EXPECT_EQ(rows, c.result.num_rows) << c.name;
}

// A number DuckDB printed either as a JSON number or (64-bit) as a string.
int64_t Int(const nlohmann::json& j) {
  return j.is_string() ? std::stoll(j.get<std::string>()) : j.get<int64_t>();
}

std::vector<std::string> ChunkEncodings(const nlohmann::json& meta, const std::string& path) {
  std::vector<std::string> out;
  for (const auto& ch : meta["chunks"]) {
    if (ch["path_in_schema"] == path) out.push_back(ch["encodings"].get<std::string>());
  }
  return out;
}

TEST_F(InteropWrite, Matrix) {
  std::vector<Case> cases;
  auto schema = AllTypesSchema();
  uint64_t seed = 1;
  for (Codec codec : {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip, Codec::kZstd,
                      Codec::kLz4Raw, Codec::kBrotli}) {
    for (PageVersion pv : {PageVersion::kV1, PageVersion::kV2}) {
      for (bool dict : {true, false}) {
        Case c;
        c.name = fmt::format("all_{}_{}_{}", CodecName(codec), pv == PageVersion::kV1 ? "v1" : "v2",
                             dict ? "dict" : "plain");
        c.schema = schema;
        c.options.codec = codec;
        c.options.page_version = pv;
        c.options.dictionary_enabled = dict;
        c.options.page_row_limit = 64;  // several pages per chunk
        c.options.parallelism = dict ? 4 : 1;  // pages compressed on 3 threads (as p=1: writer_parallel_test)
        c.options.key_value_metadata["iceberg.schema"] = "{\"test\":true}";
        c.batches.push_back(MakeBatch(schema, seed++, 150));
        c.batches.push_back(MakeBatch(schema, seed++, 90, 0.5));
        cases.push_back(std::move(c));
      }
    }
  }
  {
    Case c;
    c.name = "enc_delta";
    c.schema = schema;
    for (const char* col : {"i", "l", "dec9", "dec18", "dt", "tm", "ts", "tsn", "s", "bin", "a b",
                            "li.element", "deep.element.a.element.key", "deep.element.a.element.value.element"}) {
      c.options.column_encodings[col] = ColumnEncoding::kDelta;
    }
    c.options.page_version = PageVersion::kV2;
    c.batches.push_back(MakeBatch(schema, seed++, 700));
    cases.push_back(std::move(c));
  }
  {
    Case c;
    c.name = "enc_bss";
    c.schema = schema;
    for (const char* col : {"f", "d"}) c.options.column_encodings[col] = ColumnEncoding::kByteStreamSplit;
    c.options.codec = Codec::kSnappy;
    c.batches.push_back(MakeBatch(schema, seed++, 300));
    cases.push_back(std::move(c));
  }
  {
    // BYTE_STREAM_SPLIT on INT32/INT64/FLBA is format 2.11: DuckDB 1.5 rejects it
    // ("only supported for FLOAT or DOUBLE"), the other two read it.
    Case c;
    c.name = "enc_bss_ints_flba";
    c.schema = schema;
    for (const char* col : {"f", "d", "i", "l", "fx", "u", "dec38", "dec9", "deep.element.z"}) {
      c.options.column_encodings[col] = ColumnEncoding::kByteStreamSplit;
    }
    c.options.page_version = PageVersion::kV2;
    c.options.codec = Codec::kZstd;
    c.readers = {"hyparquet", "parquet-wasm"};
    c.batches.push_back(MakeBatch(schema, seed++, 300));
    cases.push_back(std::move(c));
  }
  {
    Case c;
    c.name = "small_pages_many_row_groups";
    c.schema = schema;
    c.options.page_size_bytes = 300;
    c.options.row_group_size_bytes = 20000;
    c.options.write_batch_rows = 100;
    c.options.dict_size_bytes = 200;  // forces dictionary fallback
    c.options.parallelism = 4;
    for (int i = 0; i < 4; ++i) c.batches.push_back(MakeBatch(schema, seed++, 250));
    cases.push_back(std::move(c));
  }
  {
    Case c;
    c.name = "big_strings";
    c.schema = std::make_shared<Schema>(
        std::vector<NestedField>{Field(1, "id", LongType(), true), Field(2, "s", StringType()),
                                 Field(3, "ls", ListType(4, false, StringType()))});
    c.batches.push_back(MakeBatch(c.schema, seed++, 12, 0.1, 3, 1 << 20));
    cases.push_back(std::move(c));
  }
  {
    Case c;
    c.name = "timestamptz_ns";
    c.schema = std::make_shared<Schema>(std::vector<NestedField>{
        Field(1, "t", Primitive(TypeId::kTimestampTzNs)),
        Field(2, "l", ListType(3, false, Primitive(TypeId::kTimestampTzNs)))});
    c.readers = {"hyparquet", "parquet-wasm"};
    c.batches.push_back(MakeBatch(c.schema, seed++, 200));
    cases.push_back(std::move(c));
  }
  {
    Case c;
    c.name = "nulls_everywhere";
    c.schema = schema;
    Batch b(schema);
    RandomFiller filler(seed++, 1.0);  // every optional value null
    filler.Fill(&b, 40);
    c.batches.push_back(std::move(b));
    cases.push_back(std::move(c));
  }
  {
    Case c;
    c.name = "zero_rows";
    c.schema = schema;
    cases.push_back(std::move(c));
  }

  for (auto& c : cases) {
    WriteCase(&c, dir_);
    if (HasFatalFailure()) return;
  }
  ReaderOutput out = RunReaders(cases, dir_);
  for (const auto& c : cases) {
    CheckRows(c, out);
    CheckMeta(c, out);
  }
  // The shared script itself (parquet_rows.mjs --rows) agrees on two of the files.
  for (const auto& c : cases) {
    if (c.name != "all_zstd_v2_dict" && c.name != "all_snappy_v1_plain") continue;
    fs::path rows_out = dir_ / (c.name + ".rows");
    std::string cmd = "node '" + SharedDir() + "/interop/parquet_rows.mjs' '" + c.path + "' --rows > '" +
                      rows_out.string() + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(rows_out);
    std::vector<std::string> got;
    for (std::string line; std::getline(in, line);) got.push_back(line);
    std::vector<std::string> want;  // the script prints Parquet (sanitized) column names
    for (const Batch& b : c.batches) {
      for (auto& r : CanonicalRows(b, false, true)) want.push_back(std::move(r));
    }
    EXPECT_EQ(got, want) << c.name << " via parquet_rows.mjs";
  }
  // Encodings as DuckDB reports them.
  for (const auto& c : cases) {
    const auto& m = out.meta[c.path];
    if (c.name.starts_with("all_") && c.name.ends_with("_dict")) {
      for (const auto& e : ChunkEncodings(m, "s")) EXPECT_NE(e.find("RLE_DICTIONARY"), std::string::npos) << c.name << " " << e;
    }
    if (c.name.starts_with("all_") && c.name.ends_with("_plain")) {
      for (const auto& e : ChunkEncodings(m, "s")) EXPECT_EQ(e.find("DICTIONARY"), std::string::npos) << c.name << " " << e;
    }
    if (c.name == "enc_delta") {
      for (const auto& e : ChunkEncodings(m, "l")) EXPECT_NE(e.find("DELTA_BINARY_PACKED"), std::string::npos) << e;
      for (const auto& e : ChunkEncodings(m, "s")) EXPECT_NE(e.find("DELTA_LENGTH_BYTE_ARRAY"), std::string::npos) << e;
    }
    if (c.name == "enc_bss") {
      for (const auto& e : ChunkEncodings(m, "d")) EXPECT_NE(e.find("BYTE_STREAM_SPLIT"), std::string::npos) << e;
    }
    if (c.name == "small_pages_many_row_groups") {
      EXPECT_GT(c.result.row_group_offsets.size(), 2u);
      bool fallback = false;
      for (const auto& e : ChunkEncodings(m, "s")) {
        fallback |= e.find("RLE_DICTIONARY") != std::string::npos && e.find("PLAIN") != std::string::npos;
      }
      EXPECT_TRUE(fallback) << "no chunk fell back from dictionary to plain";
    }
    if (c.name.starts_with("all_")) {
      bool found = false;
      for (const auto& kv : m["kv"]) found |= kv["key"] == "iceberg.schema" && kv["value"] == "{\"test\":true}";
      EXPECT_TRUE(found) << c.name << ": footer key/value metadata missing";
    }
  }
}

// Page-level statistics through the page index (hyparquet decodes the ColumnIndex and
// OffsetIndex), checked against min/max/null counts the test computes for each page's
// row range; bloom filters through DuckDB's parquet_bloom_probe.
TEST_F(InteropWrite, PageIndexStatisticsAndBloomFilters) {
  Case c;
  c.name = "page_index_bloom";
  c.schema = std::make_shared<Schema>(
      std::vector<NestedField>{Field(1, "id", LongType(), true), Field(2, "i", IntType()),
                               Field(3, "s", StringType()), Field(4, "d", DoubleType())});
  c.options.page_row_limit = 100;
  c.options.write_batch_rows = 250;
  c.options.row_group_size_bytes = 9000;
  c.options.bloom_filter_columns["id"] = true;
  c.options.bloom_filter_columns["s"] = true;
  c.options.bloom_filter_fpp["s"] = 0.001;
  std::mt19937_64 rng(11);
  std::vector<int64_t> ids;
  std::vector<std::optional<int32_t>> is;
  std::vector<std::optional<std::string>> ss;
  std::vector<std::optional<double>> ds;
  for (int bi = 0; bi < 4; ++bi) {
    Batch b(c.schema);
    for (int r = 0; r < 500; ++r) {
      int64_t id = static_cast<int64_t>(ids.size());
      ids.push_back(id);
      b.columns[0].Append(id);
      if (rng() % 10 == 0) {
        b.columns[1].AppendNull();
        is.push_back(std::nullopt);
      } else {
        int32_t v = static_cast<int32_t>(rng());
        b.columns[1].Append(v);
        is.push_back(v);
      }
      if (rng() % 10 == 0) {
        b.columns[2].AppendNull();
        ss.push_back(std::nullopt);
      } else {
        std::string v = "str" + std::to_string(rng() % 300) + (rng() % 2 ? "é" : "");
        b.columns[2].AppendBytes(v);
        ss.push_back(v);
      }
      double dv = rng() % 40 == 0 ? std::nan("") : rng() % 40 == 1 ? -0.0 : static_cast<double>(static_cast<int32_t>(rng())) / 7;
      if (rng() % 10 == 0) {
        b.columns[3].AppendNull();
        ds.push_back(std::nullopt);
      } else {
        b.columns[3].Append(dv);
        ds.push_back(dv);
      }
      ++b.num_rows;
    }
    c.batches.push_back(std::move(b));
  }
  c.extra["page_index"] = true;
  c.extra["bloom_probes"] = nlohmann::json::array({
      {{"col", "id"}, {"value", "5"}},  {{"col", "id"}, {"value", "1777"}},
      {{"col", "id"}, {"value", "-12345"}}, {{"col", "s"}, {"value", "'" + *ss[3] + "'"}},
      {{"col", "s"}, {"value", "'not there at all'"}}});
  WriteCase(&c, dir_);
  ASSERT_FALSE(HasFatalFailure());
  std::vector<Case> cases;
  cases.push_back(std::move(c));
  ReaderOutput out = RunReaders(cases, dir_);
  const Case& k = cases[0];
  CheckRows(k, out);
  CheckMeta(k, out);
  ASSERT_TRUE(out.page_index.count(k.path)) << (out.errors["pageindex"].count(k.path) ? out.errors["pageindex"][k.path] : "no page index output");
  const auto& m = out.meta[k.path];
  std::vector<int64_t> rg_rows;
  for (const auto& ch : m["chunks"]) {
    if (Int(ch["column_id"]) == 0) rg_rows.push_back(Int(ch["row_group_num_rows"]));
  }
  ASSERT_GT(rg_rows.size(), 1u) << "expected several row groups";
  std::vector<int64_t> rg_start = {0};
  for (int64_t n : rg_rows) rg_start.push_back(rg_start.back() + n);
  EXPECT_EQ(k.result.row_group_offsets.size(), rg_rows.size());
  int checked_pages = 0;
  for (const auto& e : out.page_index[k.path]) {
    int g = e["rg"].get<int>();
    std::string col = e["col"].get<std::string>();
    ASSERT_FALSE(e["oi"].is_null()) << "no offset index for " << col;
    const auto& oi = e["oi"];
    // Pages tile the chunk: the first starts at the first data page, each follows the last.
    EXPECT_EQ(oi[0]["offset"].get<int64_t>(), e["data_page_offset"].get<int64_t>()) << col;
    int64_t chunk_start = e["dictionary_page_offset"].is_null() ? e["data_page_offset"].get<int64_t>()
                                                                 : e["dictionary_page_offset"].get<int64_t>();
    const auto& last = oi[oi.size() - 1];
    EXPECT_EQ(last["offset"].get<int64_t>() + last["size"].get<int64_t>(),
              chunk_start + e["total_compressed_size"].get<int64_t>()) << col;
    for (size_t p = 0; p + 1 < oi.size(); ++p) {
      EXPECT_EQ(oi[p]["offset"].get<int64_t>() + oi[p]["size"].get<int64_t>(), oi[p + 1]["offset"].get<int64_t>());
    }
    ASSERT_FALSE(e["ci"].is_null()) << "no column index for " << col << " rg " << g;
    const auto& ci = e["ci"];
    if (col == "id") EXPECT_EQ(ci["boundary_order"].get<int>(), 1) << "id pages ascend";
    for (size_t p = 0; p < oi.size(); ++p) {
      int64_t r0 = rg_start[g] + oi[p]["first_row"].get<int64_t>();
      int64_t r1 = p + 1 < oi.size() ? rg_start[g] + oi[p + 1]["first_row"].get<int64_t>() : rg_start[g + 1];
      EXPECT_LE(r1 - r0, 100) << "page row limit";
      std::string lo, hi;
      int64_t nulls = 0;
      if (col == "id") {
        lo = test::Hex(&ids[r0], 8);
        hi = test::Hex(&ids[r1 - 1], 8);
      } else if (col == "i") {
        std::optional<int32_t> mn, mx;
        for (int64_t r = r0; r < r1; ++r) {
          if (!is[r]) { ++nulls; continue; }
          if (!mn || *is[r] < *mn) mn = is[r];
          if (!mx || *is[r] > *mx) mx = is[r];
        }
        lo = test::Hex(&*mn, 4);
        hi = test::Hex(&*mx, 4);
      } else if (col == "s") {
        std::optional<std::string> mn, mx;
        for (int64_t r = r0; r < r1; ++r) {
          if (!ss[r]) { ++nulls; continue; }
          if (!mn || *ss[r] < *mn) mn = ss[r];
          if (!mx || *ss[r] > *mx) mx = ss[r];
        }
        lo = test::Hex(mn->data(), mn->size());
        hi = test::Hex(mx->data(), mx->size());
      } else if (col == "d") {
        std::optional<double> mn, mx;
        for (int64_t r = r0; r < r1; ++r) {
          if (!ds[r]) { ++nulls; continue; }
          if (std::isnan(*ds[r])) continue;
          if (!mn || *ds[r] < *mn) mn = ds[r];
          if (!mx || *ds[r] > *mx) mx = ds[r];
        }
        if (*mn == 0) mn = -0.0;  // zero min is -0.0, zero max +0.0
        if (*mx == 0) mx = 0.0;
        lo = test::Hex(&*mn, 8);
        hi = test::Hex(&*mx, 8);
      }
      EXPECT_EQ(ci["min_hex"][p].get<std::string>(), lo) << col << " page " << p << " rg " << g;
      EXPECT_EQ(ci["max_hex"][p].get<std::string>(), hi) << col << " page " << p << " rg " << g;
      EXPECT_EQ(ci["null_counts"][p].get<int64_t>(), nulls) << col << " page " << p;
      EXPECT_FALSE(ci["null_pages"][p].get<bool>());
      ++checked_pages;
    }
  }
  EXPECT_GT(checked_pages, 60);
  // Bloom filters: present values are never excluded from the row group holding them;
  // absent ones are excluded (nearly) everywhere.
  ASSERT_TRUE(out.bloom.count(k.path)) << (out.errors["bloom"].count(k.path) ? out.errors["bloom"][k.path] : "no bloom output");
  auto group_of = [&](int64_t row) {
    for (size_t g = 0; g + 1 < rg_start.size(); ++g) if (row < rg_start[g + 1]) return g;
    return rg_start.size() - 2;
  };
  for (const auto& pr : out.bloom[k.path]) {
    std::string col = pr["col"], value = pr["value"];
    const auto& ex = pr["excludes"];
    ASSERT_EQ(ex.size(), rg_rows.size()) << col << " " << value;
    if (value == "5" || value == "1777") {
      EXPECT_FALSE(ex[group_of(std::stoll(value))].get<bool>()) << col << " " << value;
      int excluded = 0;
      for (const auto& x : ex) excluded += x.get<bool>();
      EXPECT_GE(excluded, static_cast<int>(ex.size()) - 2) << "other row groups should exclude " << value;
    } else if (col == "s" && value != "'not there at all'") {
      for (size_t g = 0; g + 1 < rg_start.size(); ++g) {
        bool present = false;
        for (int64_t r = rg_start[g]; r < rg_start[g + 1]; ++r) present |= ss[r] && "'" + *ss[r] + "'" == value;
        if (present) EXPECT_FALSE(ex[g].get<bool>()) << "string bloom excludes a present value, rg " << g;
      }
    } else {
      int excluded = 0;
      for (const auto& x : ex) excluded += x.get<bool>();
      EXPECT_GE(excluded, static_cast<int>(ex.size()) - 1) << col << " " << value << " should be excluded";
    }
  }
}

}  // namespace interop_write_test
}  // namespace floe::parquet
