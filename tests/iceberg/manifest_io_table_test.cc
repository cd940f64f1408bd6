// End to end through independent table readers: golden tables whose current
// snapshot's manifest list and manifests are replaced by files floe writes
// (its manifest writer, list writer, inheritance convention and header keys)
// must still read to their expected rows with the spec-only reference reader
// (verify_table.mjs --strict, which also turns manifest/list disagreements
// into errors) and, where icebird reads the original right, with icebird.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file.h"
#include "test_util.h"
#include "testing/oracle.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::iceberg {
namespace manifest_io_table_test {

namespace fs = std::filesystem;
using Json = nlohmann::json;

class ManifestIoTable : public ::testing::TestWithParam<std::pair<const char*, bool>> {
 protected:
  void SetUp() override { tmp_ = test::FreshTestDir("floe_manifest_io_table_"); }
  void TearDown() override { test::RemoveTestDirIfPassed(tmp_); }
  fs::path tmp_;
};

/// Stored path -> local path in the copied table.
std::string Local(const fs::path& dir, const std::string& location, const std::string& stored) {
  return stored.starts_with(location) ? dir.string() + stored.substr(location.size()) : stored;
}

TEST_P(ManifestIoTable, RewrittenByFloeReadsToTheExpectedRows) {
  const auto [name, check_icebird] = GetParam();
  fs::path interop = testing::SharedDir() / "interop";
  fs::path src = interop / "golden" / name;
  fs::path dir = tmp_ / name;
  fs::copy(src, dir, fs::copy_options::recursive);

  // The metadata file the readers pick (version-hint.text or the highest).
  test::OracleResult info = test::Oracle("verify_table.mjs", {dir.string(), "--info"});
  ASSERT_EQ(info.code, 0) << info.err;
  fs::path metadata_file = Json::parse(info.out).at("metadata_file").get<std::string>();
  std::string metadata_text = testing::ReadFile(metadata_file);
  auto md = TableMetadataFromJson(metadata_text);
  ASSERT_TRUE(md) << md.error().ToString();
  const Snapshot* snap = md->CurrentSnapshot();
  ASSERT_TRUE(snap && !snap->manifest_list.empty());
  const std::string& loc = md->location;

  auto list_in = OpenLocalInput(Local(dir, loc, snap->manifest_list));
  ASSERT_OK(list_in);
  auto list = ReadManifestList(**list_in);
  ASSERT_TRUE(list) << list.error().ToString();

  auto new_list_path = loc + "/metadata/floe-snap-" + std::to_string(snap->snapshot_id) + ".avro";
  auto lw = ManifestListWriter::Open(*OpenLocalOutput(Local(dir, loc, new_list_path)), snap->snapshot_id,
                                     snap->parent_snapshot_id, snap->sequence_number);
  ASSERT_TRUE(lw) << lw.error().ToString();
  int i = 0;
  for (const ManifestFile& m : *list) {
    SCOPED_TRACE(m.manifest_path);
    auto in = OpenLocalInput(Local(dir, loc, m.manifest_path));
    ASSERT_OK(in);
    auto entries = ReadManifest(**in, m, *md);
    ASSERT_TRUE(entries) << entries.error().ToString();
    const PartitionSpec* spec = md->SpecById(m.partition_spec_id);
    ASSERT_TRUE(spec);
    // A manifest added by this snapshot is written as new: ADDED entries with
    // null ids, the list filling in the snapshot's id and sequence number.
    // An older one keeps its numbers, written explicitly.
    bool is_new = m.added_snapshot_id == snap->snapshot_id;
    std::string path = loc + "/metadata/floe-m" + std::to_string(i++) + ".avro";
    auto w = ManifestWriter::Open(*OpenLocalOutput(Local(dir, loc, path)), *md->CurrentSchema(), *spec, m.content,
                                  is_new ? kUnassigned : m.added_snapshot_id);
    ASSERT_TRUE(w) << w.error().ToString();
    for (const ManifestEntry& e : *entries) {
      if (is_new && e.status == ManifestEntryStatus::kAdded && e.snapshot_id == snap->snapshot_id &&
          e.sequence_number == m.sequence_number && e.file_sequence_number == m.sequence_number) {
        ASSERT_OK((*w)->AddFile(e.data_file));
      } else {
        ASSERT_OK((*w)->Add(e));
      }
    }
    auto written = (*w)->Close();
    ASSERT_TRUE(written) << written.error().ToString();
    written->manifest_path = path;
    if (!is_new) {
      written->sequence_number = m.sequence_number;
      written->min_sequence_number = m.min_sequence_number;
    }
    auto listed = (*lw)->Add(*written);
    ASSERT_TRUE(listed) << listed.error().ToString();
    EXPECT_EQ(listed->sequence_number, m.sequence_number);
    EXPECT_EQ(listed->min_sequence_number, m.min_sequence_number);
    EXPECT_EQ(listed->added_snapshot_id, m.added_snapshot_id);
    // The originals go, so that only floe's files can be read.
    fs::remove(Local(dir, loc, m.manifest_path));
  }
  ASSERT_OK((*lw)->Close());
  fs::remove(Local(dir, loc, snap->manifest_list));

  Json meta = Json::parse(metadata_text);
  for (auto& s : meta["snapshots"]) {
    if (s["snapshot-id"].get<int64_t>() == snap->snapshot_id) s["manifest-list"] = new_list_path;
  }
  testing::WriteFile(metadata_file, meta.dump());

  std::string expected = testing::ReadFile(interop / "golden" / "EXPECTED" / (std::string(name) + ".jsonl"));
  ASSERT_FALSE(expected.empty());
  test::OracleResult verified = test::Oracle("verify_table.mjs", {dir.string(), "--strict"});
  ASSERT_EQ(verified.code, 0) << verified.err;
  std::string rows = verified.out;
  std::string err = verified.err;
  EXPECT_EQ(rows, expected) << err;
  if (check_icebird) {
    test::OracleResult icebird = test::Oracle("read_table.mjs", {dir.string()});
    ASSERT_EQ(icebird.code, 0) << icebird.err;
    rows = icebird.out;
    err = icebird.err;
    EXPECT_EQ(rows, expected) << err;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Golden, ManifestIoTable,
    ::testing::Values(std::pair{"spark_rename_column", true}, std::pair{"java_bunnies", true},
                      std::pair{"spark_eq_deletes_partitioned", false},
                      std::pair{"synthetic_decimal_uuid_partition", false}, std::pair{"spark_pos_deletes_files", false},
                      std::pair{"synthetic_pos_delete_seq", false}),
    [](const auto& info) { return std::string(info.param.first); });

}  // namespace manifest_io_table_test
}  // namespace floe::iceberg
