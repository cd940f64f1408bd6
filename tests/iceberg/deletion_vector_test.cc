// Deletion vectors (deletion-vector-v1 blobs) and Puffin footers read by
// floe, built byte by byte from the specs in testing/puffin_builder.h: array,
// bitset and run containers, the offset header present and absent, several
// 32-bit high keys; Trino's vectors from the golden table; and malformed
// input refused with an error naming it (bad CRC, bad magic, a bare blob
// without the Puffin container, cardinality != record_count, offsets outside
// the file, truncated or trailing bytes, huge counts, deep footer JSON).

#include <lz4frame.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/iceberg/deletion_vector.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/puffin.h"
#include "floe/io/file.h"
#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/puffin_builder.h"

namespace floe::iceberg {
namespace deletion_vector_test {

using ::testing::HasSubstr;
using test::DeletionVectorBlob;
using test::PortableRoaring64;
using test::RoaringKind;

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

Result<DeletionVector> Decode(const std::string& blob) { return DeletionVector::DecodeBlob(Bytes(blob), "dv"); }

// The blob of a vector whose bytes were edited: length and CRC recomputed, so
// only the vector's own checks can find the damage.
std::string Reframe(const std::string& vector) { return DeletionVectorBlob(vector); }

void ExpectPositions(const std::vector<uint64_t>& positions, const test::RoaringChooser& choose) {
  const std::string blob = DeletionVectorBlob(PortableRoaring64(positions, choose));
  auto dv = Decode(blob);
  ASSERT_TRUE(dv) << dv.error().ToString();
  EXPECT_EQ(dv->cardinality(), static_cast<int64_t>(positions.size()));
  std::vector<int64_t> want(positions.begin(), positions.end());
  EXPECT_EQ(dv->Positions(), want);
  for (uint64_t p : positions) EXPECT_TRUE(dv->Contains(static_cast<int64_t>(p))) << p;
  std::set<uint64_t> set(positions.begin(), positions.end());
  for (uint64_t p : positions) {
    if (!set.contains(p + 1)) {
      EXPECT_FALSE(dv->Contains(static_cast<int64_t>(p + 1))) << p + 1;
    }
  }
}

RoaringKind AllRuns(uint32_t, uint16_t, const std::vector<uint16_t>&) { return RoaringKind::kRun; }

TEST(DeletionVector, ArrayContainer) {
  ExpectPositions({0, 3, 6, 100, 4095, 65535}, test::DefaultRoaringKind);
}

TEST(DeletionVector, BitsetContainer) {
  std::vector<uint64_t> p;
  for (uint64_t i = 1; i < 12000; i += 2) p.push_back(i);  // 6000 values: a bitset
  p.push_back(65535);
  ExpectPositions(p, test::DefaultRoaringKind);
}

TEST(DeletionVector, RunContainersWithAndWithoutTheOffsetHeader) {
  // Three containers with runs: no offset header.
  std::vector<uint64_t> three;
  for (uint64_t i = 10; i < 20; ++i) three.push_back(i);
  for (uint64_t i = 1000; i < 3000; ++i) three.push_back(i);
  for (uint64_t i = 65536 + 5; i < 65536 + 9; ++i) three.push_back(i);
  three.push_back(2 * 65536 + 65535);
  ExpectPositions(three, AllRuns);
  // Five containers, runs mixed with an array and a bitset: the offset header is there.
  std::vector<uint64_t> five = three;
  for (uint64_t i = 3 * 65536; i < 3 * 65536 + 9000; i += 2) five.push_back(i);
  five.push_back(4 * 65536 + 7);
  auto mixed = [](uint32_t, uint16_t key, const std::vector<uint16_t>& v) {
    if (key == 3) return RoaringKind::kBitset;
    if (key == 4) return RoaringKind::kArray;
    return v.size() > 4096 ? RoaringKind::kBitset : RoaringKind::kRun;
  };
  ExpectPositions(five, mixed);
  // A whole container as one run (65536 values in 6 bytes).
  std::vector<uint64_t> whole;
  for (uint64_t i = 0; i < 65536; ++i) whole.push_back(7 * 65536 + i);
  ExpectPositions(whole, AllRuns);
}

TEST(DeletionVector, SeveralHighKeys) {
  const uint64_t k1 = uint64_t{1} << 32, k2 = uint64_t{5} << 32, top = uint64_t{0x7FFFFFFF} << 32;
  std::vector<uint64_t> p = {1, 2, 65536 + 3, k1, k1 + 9, k1 + 3 * 65536 + 7, k2 + 100, top, top + 0xFFFFFFFFu};
  ExpectPositions(p, test::DefaultRoaringKind);
  ExpectPositions(p, AllRuns);
}

TEST(DeletionVector, AnEmptyVector) {
  auto dv = Decode(DeletionVectorBlob(PortableRoaring64({})));
  ASSERT_TRUE(dv) << dv.error().ToString();
  EXPECT_EQ(dv->cardinality(), 0);
  EXPECT_TRUE(dv->empty());
}

TEST(DeletionVector, ApplyClearsExactlyTheDeletedRowsOfAnyWindow) {
  std::vector<uint64_t> p;
  for (uint64_t i = 0; i < 70000; i += 3) p.push_back(i);                 // bitset, then array
  for (uint64_t i = 2 * 65536 + 100; i < 2 * 65536 + 300; ++i) p.push_back(i);  // a run
  p.push_back((uint64_t{1} << 32) + 2);
  auto choose = [](uint32_t, uint16_t key, const std::vector<uint16_t>& v) {
    if (key == 2) return RoaringKind::kRun;
    return v.size() > 4096 ? RoaringKind::kBitset : RoaringKind::kArray;
  };
  auto dv = Decode(DeletionVectorBlob(PortableRoaring64(p, choose)));
  ASSERT_TRUE(dv) << dv.error().ToString();
  std::set<int64_t> deleted(p.begin(), p.end());
  const std::vector<std::pair<int64_t, int64_t>> windows = {
      {0, 1},       {0, 64},      {1, 63},      {5, 1000},   {65530, 20}, {65536, 65536},
      {0, 200000},  {131172, 300}, {131000, 500}, {131399, 2}, {(int64_t{1} << 32), 5},
      {(int64_t{1} << 32) - 3, 8}, {500000, 100}};
  for (auto [first, n] : windows) {
    std::vector<uint8_t> keep(static_cast<size_t>(n), 1);
    dv->Apply(first, keep);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(keep[i] == 0, deleted.contains(first + i)) << "window " << first << "+" << n << " row " << first + i;
    }
  }
}

// ------------------------------------------------------------ malformed

TEST(DeletionVectorErrors, BadCrcIsRefused) {
  std::string blob = DeletionVectorBlob(PortableRoaring64({1, 2, 3}));
  blob[blob.size() - 6] ^= 0x01;  // a bit of the vector
  auto dv = Decode(blob);
  ASSERT_FALSE(dv);
  EXPECT_EQ(dv.error().kind, ErrorKind::kCorrupt);
  EXPECT_THAT(dv.error().message, HasSubstr("CRC-32 mismatch"));
  EXPECT_THAT(dv.error().message, HasSubstr("dv:"));
}

TEST(DeletionVectorErrors, BadMagicIsRefused) {
  std::string blob = DeletionVectorBlob(PortableRoaring64({1}));
  blob[5] = 0x00;
  auto dv = Decode(blob);
  ASSERT_FALSE(dv);
  EXPECT_THAT(dv.error().message, HasSubstr("bad deletion vector magic"));
}

TEST(DeletionVectorErrors, LengthFieldMustMatchTheBlob) {
  std::string blob = DeletionVectorBlob(PortableRoaring64({1}));
  blob[3] = static_cast<char>(blob[3] + 1);
  auto dv = Decode(blob);
  ASSERT_FALSE(dv);
  EXPECT_THAT(dv.error().message, HasSubstr("length field"));
  EXPECT_FALSE(Decode(blob.substr(0, 10)));  // shorter than any blob
}

TEST(DeletionVectorErrors, DamagedBitmapsAreRefusedNeverReadPastTheEnd) {
  const std::string good = PortableRoaring64({1, 2, 3, 70000}, AllRuns);
  ASSERT_TRUE(Decode(Reframe(good)));
  // Every truncation and one trailing byte.
  for (size_t n = 0; n < good.size(); ++n) {
    auto dv = Decode(Reframe(good.substr(0, n)));
    EXPECT_FALSE(dv) << "truncated to " << n;
  }
  auto trailing = Decode(Reframe(good + std::string(1, '\0')));
  ASSERT_FALSE(trailing);
  EXPECT_THAT(trailing.error().message, HasSubstr("after the bitmap"));
  // Every single-byte change, with length and CRC made right: an error or a
  // vector, never a crash (ASan and UBSan builds check the reads).
  for (size_t i = 0; i < good.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string v = good;
      v[i] = static_cast<char>(v[i] ^ (1 << bit));
      (void)Decode(Reframe(v));
    }
  }
}

TEST(DeletionVectorErrors, StructuralRulesAreChecked) {
  auto expect_error = [](const std::string& vector, const std::string& what) {
    auto dv = Decode(Reframe(vector));
    ASSERT_FALSE(dv) << what;
    EXPECT_EQ(dv.error().kind, ErrorKind::kCorrupt);
    EXPECT_THAT(dv.error().message, HasSubstr(what));
  };
  std::string v;
  // A huge bucket count: refused before anything is allocated.
  v.clear();
  test::PutLe(&v, uint64_t{1} << 60, 8);
  expect_error(v, "32-bit bitmaps");
  // Bucket keys not ascending.
  v.clear();
  test::PutLe(&v, 2, 8);
  test::PutLe(&v, 5, 4);
  v += test::Roaring32(5, {1}, test::DefaultRoaringKind);
  test::PutLe(&v, 5, 4);
  v += test::Roaring32(5, {2}, test::DefaultRoaringKind);
  expect_error(v, "not strictly ascending");
  // A key with the sign bit: positions must be positive.
  v.clear();
  test::PutLe(&v, 1, 8);
  test::PutLe(&v, 0x80000000u, 4);
  v += test::Roaring32(0x80000000u, {1}, test::DefaultRoaringKind);
  expect_error(v, "sign bit");
  // A bad cookie.
  v.clear();
  test::PutLe(&v, 1, 8);
  test::PutLe(&v, 0, 4);
  test::PutLe(&v, 999, 4);
  test::PutLe(&v, 0, 4);
  expect_error(v, "bad Roaring cookie");
  // An array container out of order: values 5 then 3.
  v.clear();
  test::PutLe(&v, 1, 8);
  test::PutLe(&v, 0, 4);
  test::PutLe(&v, 12346, 4);
  test::PutLe(&v, 1, 4);
  test::PutLe(&v, 0, 2);
  test::PutLe(&v, 1, 2);   // cardinality 2
  test::PutLe(&v, 16, 4);  // offset
  test::PutLe(&v, 5, 2);
  test::PutLe(&v, 3, 2);
  expect_error(v, "array container 0 of bitmap 0 is not strictly ascending");
  // A bitset whose header cardinality differs from its bits.
  std::vector<uint64_t> many;
  for (uint64_t i = 0; i < 5000; ++i) many.push_back(i);
  v = PortableRoaring64(many);
  v[8 + 4 + 4 + 4 + 2] = static_cast<char>(v[8 + 4 + 4 + 4 + 2] + 1);  // cardinality - 1, low byte
  expect_error(v, "bitset container 0 of bitmap 0 holds 5000 positions, its header says 5001");
  // A run past the container's end: start 65535, length 2.
  v.clear();
  test::PutLe(&v, 1, 8);
  test::PutLe(&v, 0, 4);
  test::PutLe(&v, 12347, 4);  // runs, one container
  v.push_back(1);             // container 0 is a run
  test::PutLe(&v, 0, 2);
  test::PutLe(&v, 1, 2);      // cardinality 2
  test::PutLe(&v, 1, 2);      // one run
  test::PutLe(&v, 65535, 2);
  test::PutLe(&v, 1, 2);
  expect_error(v, "ends past the container");
  // A run container whose runs hold fewer values than its header says.
  v.clear();
  test::PutLe(&v, 1, 8);
  test::PutLe(&v, 0, 4);
  test::PutLe(&v, 12347, 4);
  v.push_back(1);
  test::PutLe(&v, 0, 2);
  test::PutLe(&v, 9, 2);  // cardinality 10
  test::PutLe(&v, 1, 2);
  test::PutLe(&v, 0, 2);
  test::PutLe(&v, 4, 2);  // 5 values
  expect_error(v, "holds 5 positions, its header says 10");
}

// The golden table's vectors, written by Trino 480 (Iceberg 1.10.1).
TEST(DeletionVector, ReadsTrinosVectors) {
  const std::string dir = test::SharedDir() + "/interop/golden/trino_v3_deletion_vectors/data/";
  const std::string name = dir + "dv-20260504_111849_00012_8gkte-2ed65adb-8895-4026-bb5e-efcedbf874e5.puffin";
  auto in = OpenLocalInput(name);
  ASSERT_OK(in);
  auto footer = ReadPuffinFooter(**in, name);
  ASSERT_TRUE(footer) << footer.error().ToString();
  ASSERT_EQ(footer->blobs.size(), 2u);
  EXPECT_EQ(footer->properties.at("created-by"), "Trino version 480");
  int64_t total = 0;
  for (const auto& b : footer->blobs) {
    EXPECT_EQ(b.type, kDeletionVectorBlobType);
    DataFile f;
    f.content = DataFileContent::kPositionDeletes;
    f.file_format = FileFormat::kPuffin;
    f.file_path = name;
    f.content_offset = b.offset;
    f.content_size_in_bytes = b.length;
    f.referenced_data_file = b.properties.at("referenced-data-file");
    f.record_count = std::stoll(b.properties.at("cardinality"));
    auto dv = ReadDeletionVector(**in, *footer, f);
    ASSERT_TRUE(dv) << dv.error().ToString();
    total += dv->cardinality();
  }
  EXPECT_EQ(total, 2 + 6);
}

// ---------------------------------------------------------------- Puffin

class PuffinTest : public ::testing::Test {
 protected:
  void SetUp() override {
    blob_ = DeletionVectorBlob(PortableRoaring64({1, 4, 9}));
    b1_ = builder_.Add(blob_, test::DvProperties("s3://b/t/data/a.parquet", 3));
    b2_ = builder_.Add(DeletionVectorBlob(PortableRoaring64({0})), test::DvProperties("s3://b/t/data/b.parquet", 1));
  }
  DataFile Entry(const test::PuffinBuilder::Blob& b, const std::string& data, int64_t rows) const {
    DataFile f;
    f.content = DataFileContent::kPositionDeletes;
    f.file_format = FileFormat::kPuffin;
    f.file_path = "s3://b/t/data/dv.puffin";
    f.content_offset = b.offset;
    f.content_size_in_bytes = b.length;
    f.referenced_data_file = data;
    f.record_count = rows;
    return f;
  }
  static Result<DeletionVector> Read(const std::string& file, const DataFile& entry) {
    auto in = MemoryInput(file, "dv.puffin");
    FLOE_ASSIGN_OR_RETURN(PuffinFileMetadata footer, ReadPuffinFooter(*in, "dv.puffin"));
    return ReadDeletionVector(*in, footer, entry);
  }
  std::string blob_;
  test::PuffinBuilder builder_;
  test::PuffinBuilder::Blob b1_{}, b2_{};
};

TEST_F(PuffinTest, ReadsTheFooterAndEachVector) {
  const std::string file = builder_.Finish();
  auto in = MemoryInput(file, "dv.puffin");
  auto footer = ReadPuffinFooter(*in, "dv.puffin");
  ASSERT_TRUE(footer) << footer.error().ToString();
  ASSERT_EQ(footer->blobs.size(), 2u);
  EXPECT_EQ(footer->blobs[0].offset, 4);
  EXPECT_EQ(footer->blobs[1].properties.at("cardinality"), "1");
  auto a = Read(file, Entry(b1_, "s3://b/t/data/a.parquet", 3));
  ASSERT_TRUE(a) << a.error().ToString();
  EXPECT_EQ(a->Positions(), (std::vector<int64_t>{1, 4, 9}));
  auto b = Read(file, Entry(b2_, "s3://b/t/data/b.parquet", 1));
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ(b->Positions(), (std::vector<int64_t>{0}));
}

TEST_F(PuffinTest, ReadsAnLz4CompressedFooter) {
  const std::string json = builder_.FooterJson();
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.contentSize = json.size();
  std::string frame(LZ4F_compressFrameBound(json.size(), &prefs), '\0');
  size_t n = LZ4F_compressFrame(frame.data(), frame.size(), json.data(), json.size(), &prefs);
  ASSERT_FALSE(LZ4F_isError(n));
  frame.resize(n);
  const std::string file = builder_.Finish(&frame, 0x01);
  auto a = Read(file, Entry(b1_, "s3://b/t/data/a.parquet", 3));
  ASSERT_TRUE(a) << a.error().ToString();
  EXPECT_EQ(a->cardinality(), 3);
  // The same frame without the flag is not JSON.
  auto plain = Read(builder_.Finish(&frame, 0x00), Entry(b1_, "s3://b/t/data/a.parquet", 3));
  ASSERT_FALSE(plain);
  EXPECT_THAT(plain.error().message, HasSubstr("not valid JSON"));
}

TEST_F(PuffinTest, ABareBlobWithoutThePuffinContainerIsRefused) {
  auto in = MemoryInput(blob_, "bare.bin");
  auto footer = ReadPuffinFooter(*in, "s3://b/t/data/bare.bin");
  ASSERT_FALSE(footer);
  EXPECT_EQ(footer.error().kind, ErrorKind::kCorrupt);
  EXPECT_THAT(footer.error().message, HasSubstr("s3://b/t/data/bare.bin is not a Puffin file"));
  // A file that starts with the magic but ends without it.
  std::string no_tail = "PFA1" + blob_ + std::string(20, '\0');
  auto t = ReadPuffinFooter(*MemoryInput(no_tail), "x.puffin");
  ASSERT_FALSE(t);
  EXPECT_THAT(t.error().message, HasSubstr("x.puffin is not a Puffin file"));
}

TEST_F(PuffinTest, DamagedFootersAreRefused) {
  const std::string file = builder_.Finish();
  auto footer_error = [](const std::string& f) -> std::string {
    auto r = ReadPuffinFooter(*MemoryInput(f), "dv.puffin");
    return r ? std::string("(read)") : r.error().message;
  };
  // Payload size beyond the file, and negative.
  std::string big = file;
  std::memcpy(big.data() + big.size() - 12, "\xFF\xFF\xFF\x0F", 4);
  EXPECT_THAT(footer_error(big), HasSubstr("does not fit the file"));
  std::string neg = file;
  std::memcpy(neg.data() + neg.size() - 12, "\xFF\xFF\xFF\xFF", 4);
  EXPECT_THAT(footer_error(neg), HasSubstr("does not fit the file"));
  // An unknown flag.
  std::string flags = file;
  flags[flags.size() - 8] = 0x02;
  EXPECT_THAT(footer_error(flags), HasSubstr("unknown footer flags"));
  // The footer's leading magic gone (payload size one too small).
  std::string shifted = file;
  shifted[shifted.size() - 12] = static_cast<char>(shifted[shifted.size() - 12] - 1);
  EXPECT_THAT(footer_error(shifted), HasSubstr("no magic PFA1 at the start of the footer"));
  // Deep JSON, a blob outside the blob area, a missing required field.
  std::string deep = std::string(5000, '[') + std::string(5000, ']');
  EXPECT_THAT(footer_error(test::PuffinBuilder().Finish(&deep)), HasSubstr("nested deeper"));
  std::string outside = R"({"blobs":[{"type":"deletion-vector-v1","fields":[],"snapshot-id":-1,)"
                        R"("sequence-number":-1,"offset":4,"length":100000}]})";
  EXPECT_THAT(footer_error(test::PuffinBuilder().Finish(&outside)), HasSubstr("outside the blob area"));
  std::string no_offset = R"({"blobs":[{"type":"deletion-vector-v1","fields":[],"snapshot-id":-1,)"
                          R"("sequence-number":-1,"length":1}]})";
  EXPECT_THAT(footer_error(test::PuffinBuilder().Finish(&no_offset)), HasSubstr("offset"));
  // Too small to be a Puffin file at all.
  EXPECT_THAT(footer_error("PFA1PFA1"), HasSubstr("not a Puffin file"));
}

TEST_F(PuffinTest, TheManifestEntryMustAgreeWithTheBlob) {
  const std::string file = builder_.Finish();
  auto error = [&](const DataFile& f) -> std::string {
    auto r = Read(file, f);
    return r ? std::string("(read)") : r.error().message;
  };
  DataFile good = Entry(b1_, "s3://b/t/data/a.parquet", 3);
  ASSERT_EQ(error(good), "(read)");
  DataFile f = good;
  f.record_count = 4;
  EXPECT_THAT(error(f), HasSubstr("holds 3 positions, its manifest entry's record_count says 4"));
  EXPECT_THAT(error(f), HasSubstr("deletion vector s3://b/t/data/dv.puffin at offset 4"));
  f = good;
  f.content_offset = 1 << 20;
  EXPECT_THAT(error(f), HasSubstr("outside the Puffin file's blob area"));
  f = good;
  f.content_size_in_bytes = *f.content_size_in_bytes + 1;
  EXPECT_THAT(error(f), HasSubstr("lists no blob at offset 4"));
  f = good;
  f.referenced_data_file = "s3://b/t/data/other.parquet";
  EXPECT_THAT(error(f), HasSubstr("the Puffin blob is for data file s3://b/t/data/a.parquet"));
  f = good;
  f.referenced_data_file.reset();
  EXPECT_THAT(error(f), HasSubstr("referenced_data_file is required"));
  f = good;
  f.content_size_in_bytes.reset();
  EXPECT_THAT(error(f), HasSubstr("content_size_in_bytes are required"));
  // A blob of another type at that range, and a cardinality property that disagrees.
  test::PuffinBuilder other;
  auto ob = other.Add(blob_, "{}", "apache-datasketches-theta-v1");
  EXPECT_THAT([&] {
    auto r = Read(other.Finish(), Entry(ob, "s3://b/t/data/a.parquet", 3));
    return r ? std::string("(read)") : r.error().message;
  }(), HasSubstr("is a 'apache-datasketches-theta-v1', not a 'deletion-vector-v1'"));
  test::PuffinBuilder lying;
  auto lb = lying.Add(blob_, test::DvProperties("s3://b/t/data/a.parquet", 7));
  EXPECT_THAT([&] {
    auto r = Read(lying.Finish(), Entry(lb, "s3://b/t/data/a.parquet", 3));
    return r ? std::string("(read)") : r.error().message;
  }(), HasSubstr("cardinality property says '7'"));
  // A damaged vector inside a good container.
  std::string bad_crc = file;
  bad_crc[static_cast<size_t>(b1_.offset + b1_.length - 1)] ^= 0x10;
  auto r = Read(bad_crc, good);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().message, HasSubstr("CRC-32 mismatch"));
  EXPECT_THAT(r.error().message, HasSubstr("dv.puffin"));
}

}  // namespace deletion_vector_test
}  // namespace floe::iceberg
