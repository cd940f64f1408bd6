// `floe write --map PREFIX=DIR` (floe issue 7, section 3): a table whose
// metadata names an object-store location (a local copy of an s3:// table)
// is written through a prefix mapping: the files go to the local folder, the
// metadata keeps recording s3:// locations, and the same mapping reads it
// back (`scan --table`, `files`), as does `scan --metadata` without one.
// Without the mapping the write is refused before anything is written, and a
// warehouse on S3 without credentials is refused naming the options to set.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>
#include <string>

#include "cli/cli_util.h"

namespace fileio_cli_test {

namespace fs = std::filesystem;
using namespace floe_cli_test;  // NOLINT: test helpers
using nlohmann::json;

class FileIOCli : public testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("floe_fileio_cli_"); }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }

  // db.t created empty (no snapshot), then its metadata `location` set to
  // s3://bucket/db/t, as in a table copied down from object storage.
  void MakeS3Table() {
    WriteFile(dir_ / "empty.jsonl", "");
    RunResult r = Floe("write --table db.t --schema 'id BIGINT NOT NULL, name STRING' --input empty.jsonl");
    ASSERT_EQ(r.rc, 0) << r.err;
    const fs::path v1 = dir_ / "warehouse/db/t/metadata/v1.metadata.json";
    json md = json::parse(ReadFile(v1));
    md["location"] = "s3://bucket/db/t";
    WriteFile(v1, md.dump());
  }

  std::set<std::string> DataFiles() const {
    std::set<std::string> out;
    const fs::path data = dir_ / "warehouse/db/t/data";
    if (!fs::exists(data)) return out;
    for (const auto& e : fs::recursive_directory_iterator(data)) {
      if (e.is_regular_file()) out.insert(e.path().filename().string());
    }
    return out;
  }

  static constexpr const char* kMap = "--map s3://bucket/db/t=warehouse/db/t";
  fs::path dir_;
};

TEST_F(FileIOCli, WriteThroughAMapRecordsTheStoredLocationsAndWritesLocally) {
  MakeS3Table();
  WriteFile(dir_ / "rows.jsonl", "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n");

  // Unmapped: refused before any data file is written, with the way out.
  RunResult refused = Floe("write --table db.t --input rows.jsonl");
  EXPECT_NE(refused.rc, 0);
  EXPECT_NE(refused.err.find("s3://bucket/db/t"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--map s3://bucket/db/t="), std::string::npos) << refused.err;
  EXPECT_TRUE(DataFiles().empty());

  RunResult w = Floe(std::string("write --table db.t --input rows.jsonl ") + kMap);
  ASSERT_EQ(w.rc, 0) << w.err;
  json summary = json::parse(w.out);
  EXPECT_EQ(summary["rows"], 2);
  EXPECT_EQ(summary["files"], 1);
  ASSERT_EQ(DataFiles().size(), 1u);

  // The metadata records the stored spelling; the files are local.
  json md = json::parse(ReadFile(dir_ / "warehouse/db/t/metadata/v2.metadata.json"));
  EXPECT_EQ(md["location"], "s3://bucket/db/t");
  const std::string list = md["snapshots"][0]["manifest-list"];
  EXPECT_EQ(list.rfind("s3://bucket/db/t/metadata/snap-", 0), 0u) << list;
  EXPECT_TRUE(fs::exists(dir_ / "warehouse/db/t" / list.substr(std::string("s3://bucket/db/t/").size())));
  RunResult files = Floe(std::string("files --table db.t ") + kMap);
  ASSERT_EQ(files.rc, 0) << files.err;
  json file = json::parse(files.out);
  const std::string path = file["file-path"];
  EXPECT_EQ(path.rfind("s3://bucket/db/t/data/", 0), 0u) << path;
  EXPECT_TRUE(DataFiles().contains(path.substr(path.rfind('/') + 1)));

  // Read back through the same mapping, and as a static table (whose own
  // location is mapped to the folder it is read from).
  const std::string rows = "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n";
  RunResult scan = Floe(std::string("scan --table db.t ") + kMap);
  ASSERT_EQ(scan.rc, 0) << scan.err;
  EXPECT_EQ(scan.out, rows);
  RunResult st = Floe("scan --metadata warehouse/db/t");
  ASSERT_EQ(st.rc, 0) << st.err;
  EXPECT_EQ(st.out, rows);
  // Without the mapping a read names the location and the missing storage.
  RunResult unmapped = Floe("scan --table db.t");
  EXPECT_NE(unmapped.rc, 0);
  EXPECT_NE(unmapped.err.find("s3"), std::string::npos) << unmapped.err;
  EXPECT_NE(unmapped.err.find("--map"), std::string::npos) << unmapped.err;

  // A second mapped write appends; expiry through the mapping stays inside the table.
  ASSERT_EQ(Floe(std::string("write --table db.t --input rows.jsonl ") + kMap).rc, 0);
  EXPECT_EQ(DataFiles().size(), 2u);
  RunResult expire = Floe(std::string("expire --table db.t --retain-last 1 --older-than 99999999999999 ") + kMap);
  ASSERT_EQ(expire.rc, 0) << expire.err;
  json ex = json::parse(expire.out);
  EXPECT_TRUE(ex["refused-files"].empty()) << expire.out;
  EXPECT_EQ(DataFiles().size(), 2u);  // an append: both files stay live
}

TEST_F(FileIOCli, BadMapsAndObjectStoreWarehousesAreRefused) {
  WriteFile(dir_ / "rows.jsonl", "{\"id\":1}\n");
  RunResult bad = Floe("write --table db.t --schema 'id BIGINT' --input rows.jsonl --map nodir");
  EXPECT_EQ(bad.rc, 2) << bad.err;
  EXPECT_NE(bad.err.find("--map 'nodir'"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir_ / "warehouse/db/t"));
  // An S3 warehouse without credentials (none given, none in the
  // environment) is refused before any request, naming what to set.
  RunResult s3 = RunIn(dir_, "env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN " + Shell(FLOE_BIN) +
                       " write --table db.t --schema 'id BIGINT' --input rows.jsonl --catalog warehouse=s3://bucket/wh");
  EXPECT_NE(s3.rc, 0);
  EXPECT_NE(s3.err.find("s3://bucket/wh"), std::string::npos) << s3.err;
  EXPECT_NE(s3.err.find("s3.access-key-id"), std::string::npos) << s3.err;
}

}  // namespace fileio_cli_test
