// Interop: floe's Parquet reader must read files written by DuckDB and by
// parquet-wasm (arrow-rs), and the golden Iceberg data files (Spark, Java,
// Trino, DuckDB), exactly as DuckDB reads them: same rows, same canonical JSON
// (shared/interop/parquet_rows.mjs --rows).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "floe/io/file.h"
#include "floe/parquet/reader.h"
#include "parquet/reader_json.h"
#include "parquet/reader_test_util.h"
#include "testing/files.h"

namespace floe::parquet {
namespace interop_read_test {

namespace fs = std::filesystem;
using testutil::FloeRows;
using testutil::RunCommand;
using testutil::SharedDir;

std::map<std::string, std::vector<std::string>> DuckDbRows(const std::vector<std::string>& files) {
  bool ok = true;
  auto rows = testutil::DuckDbRows(files, &ok);
  EXPECT_TRUE(ok) << "interop_read_rows.mjs failed";
  return rows;
}

void ExpectSameRows(const std::string& file, const std::vector<std::string>& duck,
                    int64_t batch_rows) {
  SCOPED_TRACE(file);
  auto floe = FloeRows(file, batch_rows);
  ASSERT_TRUE(floe.has_value()) << floe.error().ToString();
  ASSERT_FALSE(!duck.empty() && duck[0].rfind("ERROR ", 0) == 0) << "DuckDB: " << duck[0];
  ASSERT_EQ(floe->size(), duck.size()) << file;
  int shown = 0;
  for (size_t i = 0; i < duck.size() && shown < 3; ++i) {
    if ((*floe)[i] != duck[i]) {
      ADD_FAILURE() << file << " row " << i << "\n floe:   " << (*floe)[i]
                    << "\n duckdb: " << duck[i];
      ++shown;
    }
  }
}

class InteropRead : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = test::FreshTestDir("floe_interop_read_");
    bool ok = true;
    std::string out =
        RunCommand("FLOE_SHARED='" + SharedDir() + "' node '" + std::string(FLOE_SOURCE_DIR) +
                       "/tests/parquet/interop_read_gen.mjs' '" + dir_.string() + "' 2>&1",
                   &ok);
    gen_ok_ = ok;
    gen_out_ = out;
  }
  static void TearDownTestSuite() { test::RemoveTestDirIfPassed(dir_); }

  static std::vector<std::string> Files(const std::string& prefix) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) {
      if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  static inline fs::path dir_;
  static inline bool gen_ok_ = false;
  static inline std::string gen_out_;
};

TEST_F(InteropRead, DuckDbFiles) {
  ASSERT_TRUE(gen_ok_) << gen_out_;
  auto files = Files("duckdb_");
  ASSERT_GE(files.size(), 15u);
  auto duck = DuckDbRows(files);
  for (const auto& f : files) ExpectSameRows(f, duck[f], 65536);
  // Batches that end inside pages and inside row groups.
  for (const auto& name : {"duckdb_zstd_V2.parquet", "duckdb_snappy_V1.parquet"}) {
    std::string f = (dir_ / name).string();
    ExpectSameRows(f, duck[f], 777);
  }
}

TEST_F(InteropRead, ParquetWasmFiles) {
  ASSERT_TRUE(gen_ok_) << gen_out_;
  auto files = Files("arrow_");
  ASSERT_GE(files.size(), 18u);
  auto duck = DuckDbRows(files);
  for (const auto& f : files) {
    std::string name = fs::path(f).filename().string();
    if (name.rfind("arrow_lz4_", 0) == 0) {
      // DuckDB cannot read the Hadoop-framed LZ4 codec: compare with the same
      // data written as LZ4_RAW.
      std::string twin = (dir_ / ("arrow_lz4raw_" + name.substr(10))).string();
      ExpectSameRows(f, duck[twin], 65536);
    } else {
      ExpectSameRows(f, duck[f], 65536);
    }
  }
  std::string delta = (dir_ / "arrow_delta_v2.parquet").string();
  ExpectSameRows(delta, duck[delta], 333);
}

TEST(InteropReadGolden, EveryGoldenDataFile) {
  std::string golden = SharedDir() + "/interop/golden";
  ASSERT_TRUE(fs::exists(golden)) << golden;
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(golden)) {
    if (e.path().extension() != ".parquet") continue;
    if (e.path().string().find("/data/") == std::string::npos) continue;
    files.push_back(e.path().string());
  }
  ASSERT_GT(files.size(), 20u);
  auto duck = DuckDbRows(files);
  for (const auto& f : files) ExpectSameRows(f, duck[f], 65536);
}

}  // namespace interop_read_test
}  // namespace floe::parquet
