// Implemented options change what floe does: each write-side option of the
// registry is run through `floe write` with a non-default value and the table
// it produces must differ from the default write's in the way the option says
// (the data files' bytes, their number or place, the metrics in the
// manifests, the metadata log, what `floe expire` removes). Options whose
// effect is not visible in one write (retries, read options, Beam keys) name
// their effect tests in tests/config/option_effects_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "cli/cli_util.h"

namespace floe_cli_test {
namespace option_effects_cli_test {

class OptionEffectsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("floe_option_effects_");
    std::string rows;
    // Repetitive strings (dictionary-friendly), doubles, 3,000 rows over two regions.
    for (int i = 0; i < 3000; ++i) {
      rows += "{\"id\":" + std::to_string(i) + ",\"region\":\"" + (i % 2 ? "eu" : "us") + "\",\"name\":\"name" +
              std::to_string(i % 7) + "\",\"v\":" + std::to_string(i * 0.25) + "}\n";
    }
    WriteFile(dir_ / "in.jsonl", rows);
  }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }

  // Writes table `name` (a new table) with extra arguments; fails the test on error.
  void Write(const std::string& name, const std::string& extra) {
    RunResult r = Floe("write --table db." + name +
                       " --schema 'id BIGINT, region STRING, name STRING, v DOUBLE' --input in.jsonl " + extra);
    ASSERT_EQ(r.rc, 0) << extra << "\n" << r.err;
  }

  // The data files of a table, each as its size and a hash of its bytes, sorted.
  std::vector<std::string> FilesUnder(const fs::path& root) {
    std::vector<std::string> out;
    if (!fs::exists(root)) return out;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (e.is_regular_file() && e.path().extension() == ".parquet") {
        const std::string bytes = ReadFile(e.path());
        out.push_back(std::to_string(bytes.size()) + ":" + std::to_string(std::hash<std::string>{}(bytes)));
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> DataFiles(const std::string& name) {
    return FilesUnder(dir_ / "warehouse" / "db" / name / "data");
  }
  std::string Meta(const std::string& name) {
    std::string all;
    for (const auto& e : fs::recursive_directory_iterator(dir_ / "warehouse" / "db" / name / "data")) {
      if (e.path().extension() == ".parquet") all += Floe("parquet meta " + Shell(e.path().string())).out;
    }
    return all;
  }

  fs::path dir_;
};

// Every Parquet property and the job's compression options change the data
// files' bytes; each is compared with the default write of the same rows.
TEST_F(OptionEffectsCli, ParquetOptionsChangeTheDataFiles) {
  Write("base", "");
  const auto base = DataFiles("base");
  ASSERT_FALSE(base.empty());
  // Two default writes of the same rows give the same bytes: so a difference
  // below is the option's doing, not something that varies between writes.
  Write("base_again", "");
  ASSERT_EQ(DataFiles("base_again"), base) << "two default writes differ: the comparisons below would prove nothing";
  const std::vector<std::string> options = {
      "write.parquet.row-group-size-bytes=4096",
      "write.parquet.page-size-bytes=512",
      "write.parquet.page-row-limit=100",
      "write.parquet.page-version=v2",
      "write.parquet.dict-size-bytes=16",
      "write.parquet.dictionary-enabled=false",
      "write.parquet.compression-codec=snappy",
      "write.parquet.compression-level=19",
      "write.parquet.bloom-filter-enabled.column.name=true",
      "write.parquet.encoding.column.v=byte_stream_split",
      "compression-codec=gzip",
      "compression-level=1",
  };
  int n = 0;
  for (const auto& kv : options) {
    const std::string name = "t" + std::to_string(n++);
    Write(name, "--set " + Shell(kv));
    EXPECT_NE(DataFiles(name), base) << kv << " wrote the same bytes as the default";
  }
  // The fpp and bloom size limit act on a bloom filter that exists.
  // (on id: 3,000 distinct values, so the filter's size depends on both).
  Write("bloom", "--set write.parquet.bloom-filter-enabled.column.id=true");
  Write("bloom_fpp", "--set write.parquet.bloom-filter-enabled.column.id=true "
                     "--set write.parquet.bloom-filter-fpp.column.id=0.3");
  Write("bloom_max", "--set write.parquet.bloom-filter-enabled.column.id=true "
                     "--set write.parquet.bloom-filter-max-bytes=32");
  EXPECT_NE(DataFiles("bloom_fpp"), DataFiles("bloom"));
  EXPECT_NE(DataFiles("bloom_max"), DataFiles("bloom"));
}

TEST_F(OptionEffectsCli, FileSizeAndDataPathMoveTheFiles) {
  Write("base", "");
  const size_t base_files = DataFiles("base").size();
  Write("small", "--set target-file-size-bytes=2048 --set write.parquet.row-group-size-bytes=1024");
  EXPECT_GT(DataFiles("small").size(), base_files);
  Write("small_tp", "--set write.target-file-size-bytes=2048 --set write.parquet.row-group-size-bytes=1024");
  EXPECT_GT(DataFiles("small_tp").size(), base_files);
  Write("moved", "--set " + Shell("write.data.path=" + (dir_ / "elsewhere").string()));
  EXPECT_TRUE(DataFiles("moved").empty());
  EXPECT_EQ(FilesUnder(dir_ / "elsewhere").size(), base_files);
  RunResult scan = Floe("scan --table db.moved --columns id --limit 1");
  EXPECT_EQ(scan.rc, 0) << scan.err;
}

// write.metadata.previous-versions-max bounds the metadata log.
TEST_F(OptionEffectsCli, PreviousVersionsMaxBoundsTheMetadataLog) {
  auto log_entries = [&](const std::string& name) {
    fs::path md = dir_ / "warehouse" / "db" / name / "metadata";
    std::string newest;
    int best = -1;
    for (const auto& e : fs::directory_iterator(md)) {
      const std::string f = e.path().filename().string();
      if (f.starts_with("v") && f.ends_with(".metadata.json")) {
        int v = std::stoi(f.substr(1));
        if (v > best) best = v, newest = ReadFile(e.path());
      }
    }
    size_t n = 0, at = newest.find("\"metadata-log\"");
    if (at == std::string::npos) return n;
    const size_t end = newest.find(']', at);
    for (size_t p = newest.find("metadata-file", at); p != std::string::npos && p < end;
         p = newest.find("metadata-file", p + 1)) {
      ++n;
    }
    return n;
  };
  for (int i = 0; i < 4; ++i) Write("dflt", "");
  WriteFile(dir_ / "p.yaml", "table_properties: {write.metadata.previous-versions-max: '2'}\n");
  for (int i = 0; i < 4; ++i) Write("bounded", "--config p.yaml");
  EXPECT_EQ(log_entries("dflt"), 4u);
  EXPECT_EQ(log_entries("bounded"), 2u);
}

// The expiry table properties decide what `floe expire` removes without flags.
TEST_F(OptionEffectsCli, ExpiryPropertiesDecideWhatExpireRemoves) {
  auto expired = [&](const std::string& name) {
    RunResult r = Floe("expire --table db." + name);
    EXPECT_EQ(r.rc, 0) << r.err;
    const size_t at = r.out.find("\"expired-snapshot-ids\":[");
    if (at == std::string::npos) return -1;
    const size_t end = r.out.find(']', at);
    const std::string ids = r.out.substr(at + 24, end - at - 24);
    return ids.empty() ? 0 : static_cast<int>(std::count(ids.begin(), ids.end(), ',')) + 1;
  };
  for (int i = 0; i < 4; ++i) Write("dflt", "");
  EXPECT_EQ(expired("dflt"), 0);  // 5 days by default: nothing is that old
  WriteFile(dir_ / "age.yaml", "table_properties: {history.expire.max-snapshot-age-ms: '0'}\n");
  for (int i = 0; i < 4; ++i) Write("aged", "--config age.yaml");
  EXPECT_EQ(expired("aged"), 3);  // all but the current one
  WriteFile(dir_ / "keep.yaml",
            "table_properties: {history.expire.max-snapshot-age-ms: '0', history.expire.min-snapshots-to-keep: '3'}\n");
  for (int i = 0; i < 4; ++i) Write("kept", "--config keep.yaml");
  EXPECT_EQ(expired("kept"), 1);
}

// The metrics modes change what the manifests record for each data file.
TEST_F(OptionEffectsCli, MetricsModesChangeTheManifests) {
  auto stats = [&](const std::string& name) {
    RunResult r = Floe("files --table db." + name + " --set include-column-stats=true");
    EXPECT_EQ(r.rc, 0) << r.err;
    return r.out.substr(r.out.find("\"column-sizes\""));
  };
  Write("base", "");
  Write("none", "--set write.metadata.metrics.default=none");
  Write("counts", "--set write.metadata.metrics.column.name=counts");
  const std::string base = stats("base");
  EXPECT_NE(base.find("\"lower-bounds\":{\"1\""), std::string::npos) << base;
  EXPECT_NE(stats("none"), base);
  EXPECT_NE(stats("none").find("\"lower-bounds\":{}"), std::string::npos) << stats("none");
  // name (id 3) keeps its counts but loses its bounds.
  EXPECT_EQ(stats("counts").find("\"3\":\"6e616d6530\""), std::string::npos) << stats("counts");
  EXPECT_NE(base.find("\"3\":\"6e616d6530\""), std::string::npos) << base;
}

}  // namespace option_effects_cli_test
}  // namespace floe_cli_test
