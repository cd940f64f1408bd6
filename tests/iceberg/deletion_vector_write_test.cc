// Deletion vectors and Puffin files written by floe (iceberg/deletion_vector.h
// EncodeDeletionVectorBlob, iceberg/puffin.h PuffinWriter), read back by
// floe's own decoder, which is checked against vectors built from the specs
// in deletion_vector_test.cc: array, bitset and run containers, more than one
// high 32-bit key, the container kind Roaring's run optimisation picks, and
// random position sets (a property test).

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/iceberg/deletion_vector.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/puffin.h"
#include "floe/io/file.h"
#include "testing/files.h"
#include "testing/scale.h"

namespace floe::iceberg {
namespace deletion_vector_write_test {

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Encodes, decodes and compares; returns the blob.
std::string RoundTrip(const std::vector<int64_t>& positions) {
  int64_t cardinality = -1;
  auto blob = EncodeDeletionVectorBlob(positions, &cardinality);
  EXPECT_TRUE(blob) << blob.error().ToString();
  if (!blob) return {};
  std::set<int64_t> want(positions.begin(), positions.end());
  EXPECT_EQ(cardinality, static_cast<int64_t>(want.size()));
  auto dv = DeletionVector::DecodeBlob(Bytes(*blob), "written");
  EXPECT_TRUE(dv) << dv.error().ToString();
  if (!dv) return *blob;
  EXPECT_EQ(dv->cardinality(), static_cast<int64_t>(want.size()));
  EXPECT_EQ(dv->Positions(), std::vector<int64_t>(want.begin(), want.end()));
  return *blob;
}

// The cookie of the first 32-bit bitmap: 12346 without run containers,
// 12347 (low 16 bits) with some.
uint32_t FirstCookie(const std::string& blob) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(blob.data()) + 8 + 8 + 4;
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}

TEST(DeletionVectorWrite, ArrayContainer) {
  const std::string blob = RoundTrip({0, 3, 6, 100, 4095, 65535});
  EXPECT_EQ(FirstCookie(blob), 12346u);  // scattered values: an array, no runs
  // length, magic, count (8), key (4), cookie + size (8), header (4),
  // offset (4), 6 values (12), CRC.
  EXPECT_EQ(blob.size(), 4u + 4 + 8 + 4 + 8 + 4 + 4 + 12 + 4);
}

TEST(DeletionVectorWrite, BitsetContainer) {
  std::vector<int64_t> p;
  for (int64_t i = 1; i < 12000; i += 2) p.push_back(i);  // 6000 scattered values
  const std::string blob = RoundTrip(p);
  EXPECT_EQ(FirstCookie(blob), 12346u);
  EXPECT_GT(blob.size(), 8192u);  // a bitset: 1024 words
  EXPECT_LT(blob.size(), 8192u + 64);
}

TEST(DeletionVectorWrite, RunContainers) {
  std::vector<int64_t> p;
  for (int64_t i = 10; i < 20000; ++i) p.push_back(i);  // one long run
  const std::string blob = RoundTrip(p);
  EXPECT_EQ(FirstCookie(blob) & 0xFFFF, 12347u);
  EXPECT_LT(blob.size(), 64u);
  // Four containers, some runs: the offset header is written then.
  std::vector<int64_t> q;
  for (int64_t c = 0; c < 5; ++c) {
    for (int64_t i = 0; i < 300; ++i) q.push_back(c * 65536 + (c % 2 ? i * 7 : i));
  }
  const std::string blob2 = RoundTrip(q);
  EXPECT_EQ(FirstCookie(blob2) & 0xFFFF, 12347u);
  EXPECT_EQ(FirstCookie(blob2) >> 16, 4u);  // five containers
}

TEST(DeletionVectorWrite, SeveralHighKeysAndTheLargestPosition) {
  const int64_t k = int64_t{1} << 32;
  RoundTrip({0, 1, k - 1, k, k + 5, 3 * k + 65536, (int64_t{1} << 62) + 7, INT64_MAX});
}

TEST(DeletionVectorWrite, EmptyDuplicatesAndUnsortedInput) {
  RoundTrip({});
  RoundTrip({9, 3, 3, 9, 0, 70000, 0});
}

TEST(DeletionVectorWrite, NegativePositionsAreRefused) {
  std::vector<int64_t> p{1, -5};
  auto blob = EncodeDeletionVectorBlob(p);
  ASSERT_FALSE(blob);
  EXPECT_NE(blob.error().message.find("-5"), std::string::npos) << blob.error().message;
}

// Random position sets of every shape round-trip: sparse and dense chunks,
// runs, several high keys.
TEST(DeletionVectorWrite, RandomSetsRoundTrip) {
  std::mt19937_64 rng(20261206);
  const int64_t trials = test::Scaled(300, 30);
  for (int64_t t = 0; t < trials; ++t) {
    std::vector<int64_t> p;
    const int shape = static_cast<int>(rng() % 4);
    const int64_t n = static_cast<int64_t>(rng() % 5000);
    const int64_t high_keys = 1 + static_cast<int64_t>(rng() % 3);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t key = static_cast<int64_t>(rng() % high_keys) << 32;
      switch (shape) {
        case 0: p.push_back(key + static_cast<int64_t>(rng() % (1u << 20))); break;  // sparse
        case 1: p.push_back(key + static_cast<int64_t>(rng() % 9000)); break;        // dense: bitsets
        case 2: {                                                                    // runs
          const int64_t start = static_cast<int64_t>(rng() % 200000);
          const int64_t len = static_cast<int64_t>(rng() % 300);
          for (int64_t j = 0; j < len; ++j) p.push_back(key + start + j);
          break;
        }
        default: p.push_back(static_cast<int64_t>(rng() >> 1)); break;  // anywhere
      }
    }
    SCOPED_TRACE(::testing::Message() << "trial " << t << " shape " << shape);
    RoundTrip(p);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(PuffinWrite, WritesBlobsAndAFooterFloeReads) {
  const auto dir = test::FreshTestDir("puffin_write");
  const std::string path = (dir / "dv.puffin").string();
  auto out = OpenLocalOutput(path);
  ASSERT_TRUE(out) << out.error().ToString();
  auto w = PuffinWriter::Open(std::move(*out), {{"created-by", "floe test"}});
  ASSERT_TRUE(w) << w.error().ToString();
  std::vector<PuffinBlobMetadata> written;
  const std::vector<std::vector<int64_t>> vectors = {{1, 4, 9}, {0}, {5, 6, 7, 8, 100000}};
  for (size_t i = 0; i < vectors.size(); ++i) {
    int64_t card = 0;
    auto blob = EncodeDeletionVectorBlob(vectors[i], &card);
    ASSERT_TRUE(blob);
    PuffinBlobMetadata md;
    md.type = std::string(kDeletionVectorBlobType);
    md.fields = {2147483545};
    md.properties = {{"referenced-data-file", "data/f" + std::to_string(i) + ".parquet"},
                     {"cardinality", std::to_string(card)}};
    auto added = (*w)->Add(md, Bytes(*blob));
    ASSERT_TRUE(added) << added.error().ToString();
    written.push_back(*added);
  }
  EXPECT_EQ(written[0].offset, 4);
  EXPECT_EQ(written[1].offset, 4 + written[0].length);
  auto size = (*w)->Close();
  ASSERT_TRUE(size) << size.error().ToString();
  EXPECT_EQ(*size, static_cast<int64_t>(std::filesystem::file_size(path)));

  auto in = OpenLocalInput(path);
  ASSERT_TRUE(in);
  auto footer = ReadPuffinFooter(**in, path);
  ASSERT_TRUE(footer) << footer.error().ToString();
  ASSERT_EQ(footer->blobs.size(), 3u);
  EXPECT_EQ(footer->properties.at("created-by"), "floe test");
  for (size_t i = 0; i < vectors.size(); ++i) {
    const auto& b = footer->blobs[i];
    EXPECT_EQ(b.type, "deletion-vector-v1");
    EXPECT_EQ(b.snapshot_id, -1);
    EXPECT_EQ(b.sequence_number, -1);
    EXPECT_EQ(b.offset, written[i].offset);
    EXPECT_EQ(b.length, written[i].length);
    DataFile entry;
    entry.content = DataFileContent::kPositionDeletes;
    entry.file_format = FileFormat::kPuffin;
    entry.file_path = path;
    entry.referenced_data_file = "data/f" + std::to_string(i) + ".parquet";
    entry.content_offset = b.offset;
    entry.content_size_in_bytes = b.length;
    entry.record_count = static_cast<int64_t>(vectors[i].size());
    auto dv = ReadDeletionVector(**in, *footer, entry);
    ASSERT_TRUE(dv) << dv.error().ToString();
    EXPECT_EQ(dv->Positions(), vectors[i]);
  }
  test::RemoveTestDirIfPassed(dir);
}

}  // namespace deletion_vector_write_test
}  // namespace floe::iceberg
