// Hostile input: truncated, corrupted and lying files must give clear errors
// (kCorrupt / kUnsupported naming the file, and the row group, column and page
// where known), never a crash, a hang or a huge allocation. The fuzz target
// parquet_read_fuzz does this at scale under ASan/UBSan; this test runs a
// deterministic sample of mutations of the fuzz seeds under ctest.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "parquet/reader_test_util.h"
#include "testing/matchers.h"

namespace floe::parquet {
namespace reader_hostile_test {

using namespace testutil;  // NOLINT

/// The valid seeds, in name order (`finding_*` seeds are damaged files that made
/// the reader misbehave once: reader_findings_test.cc reads those).
std::vector<std::string> Seeds() {
  std::vector<std::string> out;
  std::string dir = std::string(FLOE_SOURCE_DIR) + "/tests/fuzz_seeds/parquet_read_fuzz";
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("finding_", 0) == 0) continue;
    paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    auto bytes = ReadLocalFile(p.string());
    if (bytes) out.push_back(std::move(*bytes));
  }
  return out;
}

/// Reads everything; returns the error, if any.
std::optional<Error> ReadAll(std::string bytes) {
  auto r = FileReader::Open(MemoryInput(std::move(bytes), "hostile.parquet"), {.batch_rows = 100});
  if (!r) return r.error();
  // Describing hostile metadata must not crash; whether it succeeds is not
  // what this helper reports (the reads below give the error).
  (void)(*r)->DescribeMetadata();
  Batch b;
  while (true) {
    auto more = (*r)->Next(&b);
    if (!more) return more.error();
    if (!*more) return std::nullopt;
    auto st = b.Validate();
    EXPECT_TRUE(st) << st.error().ToString();
  }
}

TEST(ReaderHostile, SeedsReadCleanly) {
  auto seeds = Seeds();
  ASSERT_GE(seeds.size(), 5u);
  for (const auto& s : seeds) {
    auto err = ReadAll(s);
    EXPECT_FALSE(err.has_value()) << err->ToString();
  }
}

TEST(ReaderHostile, NotParquetAndTruncatedFooters) {
  auto err = ReadAll("hello world, this is not parquet");
  ASSERT_TRUE(err);
  EXPECT_EQ(err->kind, ErrorKind::kCorrupt);
  EXPECT_NE(err->message.find("hostile.parquet"), std::string::npos);
  EXPECT_NE(err->message.find("PAR1"), std::string::npos);
  std::string seed = Seeds()[0];
  // Footer length pointing before the start.
  std::string lying = seed;
  uint32_t huge = 0x7fffffff;
  std::memcpy(lying.data() + lying.size() - 8, &huge, 4);
  err = ReadAll(lying);
  ASSERT_TRUE(err);
  EXPECT_NE(err->message.find("footer length"), std::string::npos) << err->message;
  // Every truncation of a file keeps giving errors, not crashes.
  for (size_t n = 0; n < seed.size(); n += 97) {
    auto e = ReadAll(seed.substr(0, n));
    ASSERT_TRUE(e.has_value()) << n;
    EXPECT_EQ(e->kind, ErrorKind::kCorrupt) << e->ToString();
  }
}

TEST(ReaderHostile, RandomMutations) {
  std::mt19937_64 rng(20261130);
  int errors = 0, reads = 0;
  for (const auto& seed : Seeds()) {
    for (int iter = 0; iter < 150; ++iter) {
      std::string m = seed;
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < flips; ++k) {
        size_t pos = rng() % m.size();
        switch (rng() % 3) {
          case 0: m[pos] = static_cast<char>(rng()); break;
          case 1: m[pos] ^= static_cast<char>(1 << (rng() % 8)); break;
          default: m[pos] = static_cast<char>(0xff); break;
        }
      }
      auto e = ReadAll(m);
      if (e) {
        ++errors;
        EXPECT_TRUE(e->kind == ErrorKind::kCorrupt || e->kind == ErrorKind::kUnsupported ||
                    e->kind == ErrorKind::kInvalidArgument)
            << e->ToString();
        EXPECT_NE(e->message.find("hostile.parquet"), std::string::npos) << e->ToString();
      } else {
        ++reads;
      }
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(ReaderHostile, HugeClaimsAreRefusedBeforeAllocating) {
  // A page header claiming a 2 GiB page: refused by the page size limit.
  std::vector<fmtns::SchemaElement> s = {Root(1), Leaf("x", fmtns::Type::INT32, kOpt, {}, 1)};
  TestRowGroup rg;
  rg.num_rows = 2;
  rg.chunks = {{.def = {1, 1}, .values = {1, 0, 0, 0, 2, 0, 0, 0}}};
  std::string f = BuildParquet(s, {rg});
  // The page header starts right after PAR1; patch uncompressed_page_size
  // (field 2, zigzag varint) to a huge value by re-serializing the header.
  uint32_t hsize = static_cast<uint32_t>(f.size() - 4);
  fmtns::PageHeader ph;
  ASSERT_OK(DeserializeThrift(reinterpret_cast<const uint8_t*>(f.data()) + 4, &hsize, &ph,
                              "page header"));
  ph.__set_uncompressed_page_size(0x7ffffff0);
  ph.__set_compressed_page_size(0x7ffffff0);
  Buffer nb;
  ASSERT_OK(SerializeThrift(ph, &nb));
  std::string patched = f.substr(0, 4) +
                        std::string(reinterpret_cast<const char*>(nb.data()), nb.size()) +
                        f.substr(4 + hsize);
  // The chunk offsets in the footer are off now; what matters is a clean error.
  auto err = ReadAll(patched);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->kind, ErrorKind::kCorrupt) << err->ToString();
}

}  // namespace reader_hostile_test
}  // namespace floe::parquet
