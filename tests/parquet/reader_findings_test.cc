// Inputs that made the reader misbehave in long fuzz runs (tests/parquet/findings/,
// PROVENANCE.md there): each must read as a clean error naming the file, or as rows
// that validate. What they caught was undefined behaviour, so this test fails on the
// old code only under the sanitizers (`cmake --preset asan`, target parquet_test).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "parquet/reader_test_util.h"

namespace floe::parquet {
namespace reader_findings_test {

using namespace testutil;  // NOLINT

TEST(ReaderFindings, EachReadsAsACleanErrorOrValidRows) {
  const std::filesystem::path dir =
      std::filesystem::path(FLOE_SOURCE_DIR) / "tests/parquet/findings";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".bin") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    auto bytes = ReadLocalFile(path.string());
    ASSERT_TRUE(bytes) << bytes.error().ToString();
    auto r = FileReader::Open(MemoryInput(std::move(*bytes), path.filename().string()),
                              {.batch_rows = 64});
    if (!r) {
      EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt) << r.error().ToString();
      continue;
    }
    Batch b;
    while (true) {
      auto more = (*r)->Next(&b);
      if (!more) {
        EXPECT_TRUE(more.error().kind == ErrorKind::kCorrupt ||
                    more.error().kind == ErrorKind::kUnsupported)
            << more.error().ToString();
        EXPECT_NE(more.error().message.find(path.filename().string()), std::string::npos)
            << more.error().ToString();
        break;
      }
      if (!*more) break;
      auto st = b.Validate();
      EXPECT_TRUE(st) << st.error().ToString();
    }
  }
}

// The shape of the first finding, built by hand: a BYTE_ARRAY column whose values
// are all empty strings (PLAIN) reads as empty strings.
TEST(ReaderFindings, ByteArrayPageOfOnlyEmptyValues) {
  std::vector<fmtns::SchemaElement> s = {Root(1), Leaf("s", fmtns::Type::BYTE_ARRAY, kOpt, {}, 1)};
  TestRowGroup rg;
  rg.num_rows = 3;
  // Three empty strings: a 4-byte zero length each.
  rg.chunks = {{.def = {1, 1, 1}, .values = std::vector<uint8_t>(12, 0)}};
  auto rows = FloeRows(MemoryInput(BuildParquet(s, {rg}), "empty.parquet"), {});
  ASSERT_TRUE(rows) << rows.error().ToString();
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[0], R"({"s":""})");
}

}  // namespace reader_findings_test
}  // namespace floe::parquet
