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
#include <sstream>

#include <nlohmann/json.hpp>

#include "floe/parquet/writer.h"
#include "writer_test_util.h"

namespace floe::parquet {
namespace {

namespace fs = std::filesystem;
using testing::CanonicalRows;
using testing::RandomFiller;

std::string SharedDir() {
  if (const char* e = std::getenv("FLOE_SHARED")) return e;
  for (const char* rel : {"/../shared", "/../../shared"}) {
    std::string p = std::string(FLOE_SOURCE_DIR) + rel;
    if (fs::exists(p + "/interop/lib/canonical.mjs")) return fs::canonical(p).string();
  }
  return std::string(FLOE_SOURCE_DIR) + "/../shared";
}

NestedField F(int id, std::string name, TypePtr t, bool required = false) {
  return NestedField{id, std::move(name), required, std::move(t), ""};
}

// Every floe type but timestamptz_ns (DuckDB has no such type; it gets its own file).
SchemaPtr AllTypesSchema() {
  std::vector<NestedField> f;
  f.push_back(F(1, "b", BooleanType()));
  f.push_back(F(2, "i", IntType()));
  f.push_back(F(3, "l", LongType(), true));
  f.push_back(F(4, "f", FloatType()));
  f.push_back(F(5, "d", DoubleType()));
  f.push_back(F(6, "dec9", DecimalType(9, 2)));
  f.push_back(F(7, "dec18", DecimalType(18, 6)));
  f.push_back(F(8, "dec38", DecimalType(38, 10)));
  f.push_back(F(9, "dt", DateType()));
  f.push_back(F(10, "tm", TimeType()));
  f.push_back(F(11, "ts", TimestampType()));
  f.push_back(F(12, "tstz", TimestampTzType()));
  f.push_back(F(13, "tsn", Primitive(TypeId::kTimestampNs)));
  f.push_back(F(14, "s", StringType()));
  f.push_back(F(15, "u", UuidType()));
  f.push_back(F(16, "fx", FixedType(5)));
  f.push_back(F(17, "bin", BinaryType()));
  f.push_back(F(18, "st", StructType({F(19, "x", IntType(), true), F(20, "y", StringType())})));
  f.push_back(F(21, "li", ListType(22, false, IntType())));
  f.push_back(F(23, "mp", MapType(24, StringType(), 25, false, LongType())));
  // list<struct<a: list<map<int, list<string>>>, z: decimal(20,3)>>
  auto inner_list = ListType(30, false, StringType());
  auto m = MapType(28, IntType(), 29, false, inner_list);
  auto a = ListType(27, false, m);
  f.push_back(F(26, "deep", ListType(31, false, StructType({F(32, "a", a), F(33, "z", DecimalType(20, 3))}))));
  f.push_back(F(34, "1st col", IntType()));
  f.push_back(F(35, "a b", StringType()));
  f.push_back(F(36, "req_list", ListType(37, true, LongType()), true));
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
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("floe_pq_interop_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  static void TearDownTestSuite() {
    if (!::testing::Test::HasFailure()) fs::remove_all(dir_);
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
};

ReaderOutput RunReaders(const std::vector<Case>& cases, const fs::path& dir) {
  nlohmann::json manifest = nlohmann::json::array();
  for (const auto& c : cases) {
    nlohmann::json e;
    e["path"] = c.path;
    e["type"] = nlohmann::json::parse(testing::SchemaTypeJson(*c.schema));
    e["readers"] = c.readers;
    e["meta"] = true;
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
  for (const auto& col : c.result.columns) {
    std::string path;
    for (const auto& p : col.path) path += (path.empty() ? "" : ", ") + p;
    if (nulls.count(path)) EXPECT_EQ(nulls[path], col.null_count) << c.name << " " << path;
  }
  int64_t rows = 0;
  for (const auto& f : m["file"]) rows = std::stoll(f["num_rows"].dump().find('"') == 0 ? f["num_rows"].get<std::string>() : f["num_rows"].dump());
  EXPECT_EQ(rows, c.result.num_rows) << c.name;
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
    for (int i = 0; i < 4; ++i) c.batches.push_back(MakeBatch(schema, seed++, 250));
    cases.push_back(std::move(c));
  }
  {
    Case c;
    c.name = "big_strings";
    c.schema = std::make_shared<Schema>(std::vector<NestedField>{
        F(1, "id", LongType(), true), F(2, "s", StringType()),
        F(3, "ls", ListType(4, false, StringType()))});
    c.batches.push_back(MakeBatch(c.schema, seed++, 12, 0.1, 3, 1 << 20));
    cases.push_back(std::move(c));
  }
  {
    Case c;
    c.name = "timestamptz_ns";
    c.schema = std::make_shared<Schema>(std::vector<NestedField>{
        F(1, "t", Primitive(TypeId::kTimestampTzNs)), F(2, "l", ListType(3, false, Primitive(TypeId::kTimestampTzNs)))});
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

}  // namespace
}  // namespace floe::parquet
