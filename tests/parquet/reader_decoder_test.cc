// Unit tests of the reader's decoders: the RLE / bit-packing hybrid (bit-packed
// tails included), legacy BIT_PACKED levels, DELTA_BINARY_PACKED (miniblocks of
// width 0 and 64, truncated last block), DELTA_LENGTH_BYTE_ARRAY,
// DELTA_BYTE_ARRAY prefixes, BYTE_STREAM_SPLIT, PLAIN and dictionary indices,
// and their errors on bad data. Encodings are built by hand from Encodings.md.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "floe/parquet/decoder.h"
#include "floe/parquet/rle_decoder.h"
#include "testing/matchers.h"

namespace floe::parquet {
namespace reader_decoder_test {

void PutUleb(std::vector<uint8_t>* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));
}
void PutZigZag(std::vector<uint8_t>* out, int64_t v) {
  PutUleb(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}
/// Packs values LSB-first, `width` bits each.
void PackBits(std::vector<uint8_t>* out, const std::vector<uint64_t>& values, int width) {
  size_t start = out->size();
  out->resize(start + (values.size() * width + 7) / 8, 0);
  uint64_t bit = 0;
  for (uint64_t v : values) {
    for (int b = 0; b < width; ++b, ++bit) {
      if ((v >> b) & 1) (*out)[start + bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
    }
  }
}

/// A DELTA_BINARY_PACKED encoder for tests: `minis` miniblocks per block; the
/// last block stores only the miniblocks that hold values.
std::vector<uint8_t> EncodeDelta(const std::vector<int64_t>& values, int block = 128,
                                 int minis = 4) {
  std::vector<uint8_t> out;
  PutUleb(&out, block);
  PutUleb(&out, minis);
  PutUleb(&out, values.size());
  PutZigZag(&out, values.empty() ? 0 : values[0]);
  const int per = block / minis;
  size_t i = 1;
  while (i < values.size()) {
    std::vector<uint64_t> deltas;
    for (size_t k = i; k < values.size() && deltas.size() < static_cast<size_t>(block); ++k) {
      deltas.push_back(static_cast<uint64_t>(values[k]) - static_cast<uint64_t>(values[k - 1]));
    }
    int64_t min_delta = std::numeric_limits<int64_t>::max();
    for (uint64_t d : deltas) min_delta = std::min(min_delta, static_cast<int64_t>(d));
    PutZigZag(&out, min_delta);
    std::vector<int> widths(minis, 0);
    std::vector<std::vector<uint64_t>> bodies(minis);
    for (int m = 0; m < minis; ++m) {
      uint64_t mx = 0;
      for (int k = 0; k < per; ++k) {
        size_t idx = static_cast<size_t>(m) * per + k;
        uint64_t v = idx < deltas.size() ? deltas[idx] - static_cast<uint64_t>(min_delta) : 0;
        bodies[m].push_back(v);
        mx = std::max(mx, v);
      }
      widths[m] = BitWidthFor(mx);
    }
    for (int w : widths) out.push_back(static_cast<uint8_t>(w));
    for (int m = 0; m < minis; ++m) {
      if (static_cast<size_t>(m) * per >= deltas.size()) break;  // unneeded miniblocks omitted
      PackBits(&out, bodies[m], widths[m]);
    }
    i += deltas.size();
  }
  return out;
}

TEST(RleDecoder, RleAndBitPackedRuns) {
  for (int width : {1, 3, 8, 13, 17, 32}) {
    SCOPED_TRACE(width);
    std::vector<uint8_t> buf;
    const uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
    // RLE run: 10 x value.
    uint64_t rv = 0x5a5a5a5a5a5aull & mask;
    PutUleb(&buf, 10 << 1);
    for (int b = 0; b < (width + 7) / 8; ++b) buf.push_back(static_cast<uint8_t>(rv >> (8 * b)));
    // Bit-packed run: 3 groups of 8.
    std::vector<uint64_t> packed;
    for (int k = 0; k < 24; ++k) packed.push_back((k * 2654435761ull) & mask);
    PutUleb(&buf, (3 << 1) | 1);
    PackBits(&buf, packed, width);
    RleBitPackedDecoder dec(buf.data(), buf.size(), width);
    std::vector<uint32_t> out(40, 7);
    // Read in uneven pieces across the run boundary.
    ASSERT_EQ(dec.GetBatch(out.data(), 7), 7);
    ASSERT_EQ(dec.GetBatch(out.data() + 7, 20), 20);
    ASSERT_EQ(dec.GetBatch(out.data() + 27, 13), 7);  // only 34 values exist
    for (int k = 0; k < 10; ++k) EXPECT_EQ(out[k], rv);
    for (int k = 0; k < 24; ++k) EXPECT_EQ(out[10 + k], packed[k]) << k;
  }
}

TEST(RleDecoder, BitPackedTailCutShort) {
  // A bit-packed run claiming 2 groups (16 values of width 3 = 6 bytes) with
  // only 2 bytes present: the 5 whole values in those 16 bits are readable.
  std::vector<uint8_t> buf;
  PutUleb(&buf, (2 << 1) | 1);
  PackBits(&buf, {1, 2, 3, 4, 5}, 3);  // 15 bits -> 2 bytes
  RleBitPackedDecoder dec(buf.data(), buf.size(), 3);
  std::vector<int16_t> out(16);
  ASSERT_EQ(dec.GetBatch(out.data(), 16), 5);
  EXPECT_EQ(std::vector<int16_t>(out.begin(), out.begin() + 5),
            (std::vector<int16_t>{1, 2, 3, 4, 5}));
}

TEST(RleDecoder, WidthZeroAndSkip) {
  std::vector<uint8_t> buf;
  PutUleb(&buf, 100 << 1);      // RLE of 100 zeros, no value bytes at width 0
  PutUleb(&buf, (1 << 1) | 1);  // 8 packed zeros, no bytes
  RleBitPackedDecoder dec(buf.data(), buf.size(), 0);
  EXPECT_EQ(dec.Skip(50), 50);
  std::vector<uint8_t> out(100, 9);
  EXPECT_EQ(dec.GetBatch(out.data(), 100), 58);
  for (int k = 0; k < 58; ++k) EXPECT_EQ(out[k], 0);
}

TEST(RleDecoder, TruncatedHeaderStops) {
  std::vector<uint8_t> buf = {0x80, 0x80};  // a varint that never ends
  RleBitPackedDecoder dec(buf.data(), buf.size(), 4);
  uint32_t out[4];
  EXPECT_EQ(dec.GetBatch(out, 4), 0);
}

TEST(RleDecoder, LegacyBitPackedIsMsbFirst) {
  // Values 0..7 at width 3, MSB first: 000 001 010 011 100 101 110 111.
  std::vector<uint8_t> buf = {0b00000101, 0b00111001, 0b01110111};
  LegacyBitPackedDecoder dec;
  dec.Reset(buf.data(), buf.size(), 3);
  int16_t out[9];
  ASSERT_EQ(dec.GetBatch(out, 9), 8);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(out[k], k);
}

Result<PhysicalValues> DecodeAll(Encoding enc, PhysicalType type, const std::vector<uint8_t>& data,
                                 int64_t n, int32_t length = 0,
                                 const PhysicalValues* dict = nullptr,
                                 std::vector<int64_t> pieces = {}) {
  FLOE_ASSIGN_OR_RETURN(auto dec, MakeValueDecoder(enc, type, length, dict));
  FLOE_RETURN_IF_ERROR(dec->SetData(data.data(), data.size(), n));
  PhysicalValues out;
  if (pieces.empty()) pieces = {n};
  for (int64_t p : pieces) FLOE_RETURN_IF_ERROR(dec->Decode(p, &out));
  return out;
}

template <typename T>
std::vector<T> Values(const PhysicalValues& v) {
  return std::vector<T>(v.values.as<T>(), v.values.as<T>() + v.count);
}

std::vector<std::string> Strings(const PhysicalValues& v) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < v.count; ++i) {
    out.emplace_back(reinterpret_cast<const char*>(v.values.data()) + v.offsets[i],
                     v.offsets[i + 1] - v.offsets[i]);
  }
  return out;
}

TEST(DeltaBinaryPacked, SpecExampleAndSmallBlocks) {
  // Encodings.md example 1: 1 2 3 4 5 -> deltas all 1, min delta 1, width 0.
  std::vector<int64_t> v = {1, 2, 3, 4, 5};
  auto enc = EncodeDelta(v, 8, 1);
  auto out = DecodeAll(Encoding::kDeltaBinaryPacked, PhysicalType::kInt64, enc, 5);
  ASSERT_TRUE(out) << out.error().ToString();
  EXPECT_EQ(Values<int64_t>(*out), v);
}

TEST(DeltaBinaryPacked, WidthZeroMiniblocksAndPieces) {
  std::vector<int64_t> v;
  for (int i = 0; i < 300; ++i) v.push_back(1000 + 7 * i);  // constant delta: width 0 everywhere
  v.push_back(-5);
  auto enc = EncodeDelta(v);
  auto out = DecodeAll(Encoding::kDeltaBinaryPacked, PhysicalType::kInt64, enc, 301, 0, nullptr,
                       {1, 31, 100, 169});
  ASSERT_TRUE(out) << out.error().ToString();
  EXPECT_EQ(Values<int64_t>(*out), v);
}

TEST(DeltaBinaryPacked, Width64Deltas) {
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> v = {0, hi, lo, hi, 0, lo, 1, -1};
  for (int i = 0; i < 200; ++i) v.push_back(i % 2 ? lo + i : hi - i);
  auto enc = EncodeDelta(v);
  auto out = DecodeAll(Encoding::kDeltaBinaryPacked, PhysicalType::kInt64, enc, v.size());
  ASSERT_TRUE(out) << out.error().ToString();
  EXPECT_EQ(Values<int64_t>(*out), v);
}

TEST(DeltaBinaryPacked, Int32Wraps) {
  std::vector<int64_t> v = {std::numeric_limits<int32_t>::max(),
                            std::numeric_limits<int32_t>::min(), 0, -1, 5};
  auto enc = EncodeDelta(v);
  auto out = DecodeAll(Encoding::kDeltaBinaryPacked, PhysicalType::kInt32, enc, v.size());
  ASSERT_TRUE(out) << out.error().ToString();
  std::vector<int32_t> want(v.begin(), v.end());
  EXPECT_EQ(Values<int32_t>(*out), want);
}

TEST(DeltaBinaryPacked, Errors) {
  std::vector<int64_t> v = {1, 5, 9, 100, 3};
  auto enc = EncodeDelta(v);
  // More values than the page holds.
  EXPECT_FALSE(DecodeAll(Encoding::kDeltaBinaryPacked, PhysicalType::kInt64, enc, 4));
  // Truncated miniblock: the 4 deltas need 4 bytes of the 32-byte miniblock
  // (width 8); missing padding is accepted, missing value bits are not.
  auto pad_cut = enc;
  pad_cut.resize(pad_cut.size() - 28);
  EXPECT_OK(DecodeAll(Encoding::kDeltaBinaryPacked, PhysicalType::kInt64, pad_cut, 5));
  auto cut = enc;
  cut.resize(cut.size() - 30);
  auto r = DecodeAll(Encoding::kDeltaBinaryPacked, PhysicalType::kInt64, cut, 5);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
  // Asking for more than present.
  auto dec = MakeValueDecoder(Encoding::kDeltaBinaryPacked, PhysicalType::kInt64, 0).value();
  ASSERT_OK(dec->SetData(enc.data(), enc.size(), 5));
  PhysicalValues out;
  EXPECT_FALSE(dec->Decode(6, &out));
  // Bad header: zero miniblocks.
  std::vector<uint8_t> bad;
  PutUleb(&bad, 128);
  PutUleb(&bad, 0);
  PutUleb(&bad, 1);
  PutZigZag(&bad, 0);
  EXPECT_FALSE(DecodeAll(Encoding::kDeltaBinaryPacked, PhysicalType::kInt64, bad, 1));
}

TEST(DeltaLengthByteArray, Decodes) {
  std::vector<std::string> s = {"Hello", "World", "Foobar", "ABCDEF", ""};
  std::vector<int64_t> lens;
  std::string data;
  for (auto& x : s) {
    lens.push_back(static_cast<int64_t>(x.size()));
    data += x;
  }
  auto enc = EncodeDelta(lens);
  enc.insert(enc.end(), data.begin(), data.end());
  auto out = DecodeAll(Encoding::kDeltaLengthByteArray, PhysicalType::kByteArray, enc, 5, 0,
                       nullptr, {2, 3});
  ASSERT_TRUE(out) << out.error().ToString();
  EXPECT_EQ(Strings(*out), s);
  enc.pop_back();  // one byte short
  EXPECT_FALSE(DecodeAll(Encoding::kDeltaLengthByteArray, PhysicalType::kByteArray, enc, 5));
}

TEST(DeltaByteArray, PrefixesAndSuffixes) {
  std::vector<std::string> s = {"axis", "axle", "babble", "babyhood", "", "b"};
  std::vector<int64_t> pre, sl;
  std::string suffixes;
  std::string prev;
  for (auto& x : s) {
    size_t p = 0;
    while (p < prev.size() && p < x.size() && prev[p] == x[p]) ++p;
    pre.push_back(static_cast<int64_t>(p));
    sl.push_back(static_cast<int64_t>(x.size() - p));
    suffixes += x.substr(p);
    prev = x;
  }
  auto enc = EncodeDelta(pre);
  auto e2 = EncodeDelta(sl);
  enc.insert(enc.end(), e2.begin(), e2.end());
  enc.insert(enc.end(), suffixes.begin(), suffixes.end());
  auto out =
      DecodeAll(Encoding::kDeltaByteArray, PhysicalType::kByteArray, enc, 6, 0, nullptr, {1, 4, 1});
  ASSERT_TRUE(out) << out.error().ToString();
  EXPECT_EQ(Strings(*out), s);
  // A prefix longer than the previous value is corrupt.
  auto bad = EncodeDelta({0, 9});
  auto b2 = EncodeDelta({1, 1});
  bad.insert(bad.end(), b2.begin(), b2.end());
  bad.push_back('a');
  bad.push_back('b');
  auto r = DecodeAll(Encoding::kDeltaByteArray, PhysicalType::kByteArray, bad, 2);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("prefix"), std::string::npos);
}

TEST(DeltaByteArray, FixedLength) {
  std::vector<std::string> s = {"abcd", "abce", "zzzz"};
  auto enc = EncodeDelta({0, 3, 0});
  auto e2 = EncodeDelta({4, 1, 4});
  enc.insert(enc.end(), e2.begin(), e2.end());
  std::string suf = "abcdezzzz";
  enc.insert(enc.end(), suf.begin(), suf.end());
  auto out = DecodeAll(Encoding::kDeltaByteArray, PhysicalType::kFixedLenByteArray, enc, 3, 4);
  ASSERT_TRUE(out) << out.error().ToString();
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(out->values.data()), 12), "abcdabcezzzz");
}

TEST(ByteStreamSplit, FloatsDoublesAndFixed) {
  std::vector<float> f = {1.5f, -2.25f, 3e10f, 0.0f, -0.0f};
  std::vector<uint8_t> raw(f.size() * 4);
  std::memcpy(raw.data(), f.data(), raw.size());
  std::vector<uint8_t> enc(raw.size());
  for (size_t i = 0; i < f.size(); ++i) {
    for (int b = 0; b < 4; ++b) enc[b * f.size() + i] = raw[i * 4 + b];
  }
  auto out =
      DecodeAll(Encoding::kByteStreamSplit, PhysicalType::kFloat, enc, 5, 0, nullptr, {2, 3});
  ASSERT_TRUE(out) << out.error().ToString();
  EXPECT_EQ(std::memcmp(out->values.data(), raw.data(), raw.size()), 0);
  // FLBA(3): streams of 2 values.
  std::vector<uint8_t> e3 = {'a', 'x', 'b', 'y', 'c', 'z'};
  auto o3 = DecodeAll(Encoding::kByteStreamSplit, PhysicalType::kFixedLenByteArray, e3, 2, 3);
  ASSERT_OK(o3);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(o3->values.data()), 6), "abcxyz");
  enc.pop_back();
  EXPECT_FALSE(DecodeAll(Encoding::kByteStreamSplit, PhysicalType::kFloat, enc, 5));
}

TEST(Plain, TypesAndTruncation) {
  std::vector<uint8_t> bools = {0b10110101, 0b1};
  auto b = DecodeAll(Encoding::kPlain, PhysicalType::kBoolean, bools, 9, 0, nullptr, {3, 6});
  ASSERT_OK(b);
  EXPECT_EQ(Values<uint8_t>(*b), (std::vector<uint8_t>{1, 0, 1, 0, 1, 1, 0, 1, 1}));
  EXPECT_FALSE(DecodeAll(Encoding::kPlain, PhysicalType::kBoolean, bools, 17));
  std::vector<uint8_t> ba = {3, 0, 0, 0, 'a', 'b', 'c', 0, 0, 0, 0, 2, 0, 0, 0, 'x'};
  auto s = DecodeAll(Encoding::kPlain, PhysicalType::kByteArray, ba, 2);
  ASSERT_OK(s);
  EXPECT_EQ(Strings(*s), (std::vector<std::string>{"abc", ""}));
  auto r = DecodeAll(Encoding::kPlain, PhysicalType::kByteArray, ba, 3);  // third is cut short
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
  std::vector<uint8_t> i32 = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  auto iv = DecodeAll(Encoding::kPlain, PhysicalType::kInt32, i32, 2);
  ASSERT_OK(iv);
  EXPECT_EQ(Values<int32_t>(*iv), (std::vector<int32_t>{1, -1}));
  EXPECT_FALSE(DecodeAll(Encoding::kPlain, PhysicalType::kInt32, i32, 3));
}

TEST(Dictionary, IndicesAndBounds) {
  PhysicalValues dict;
  auto d = DecodeAll(Encoding::kPlain, PhysicalType::kByteArray,
                     {1, 0, 0, 0, 'a', 2, 0, 0, 0, 'b', 'c', 0, 0, 0, 0}, 3);
  ASSERT_OK(d);
  dict = std::move(*d);
  std::vector<uint8_t> idx = {2};  // bit width 2
  PutUleb(&idx, (1 << 1) | 1);
  PackBits(&idx, {0, 1, 2, 1, 0, 2, 2, 0}, 2);
  auto out =
      DecodeAll(Encoding::kRleDictionary, PhysicalType::kByteArray, idx, 8, 0, &dict, {5, 3});
  ASSERT_TRUE(out) << out.error().ToString();
  EXPECT_EQ(Strings(*out), (std::vector<std::string>{"a", "bc", "", "bc", "a", "", "", "a"}));
  std::vector<uint8_t> bad = {2};
  PutUleb(&bad, 1 << 1);
  bad.push_back(3);  // index 3 of 3 entries
  auto r = DecodeAll(Encoding::kRleDictionary, PhysicalType::kByteArray, bad, 1, 0, &dict);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("out of range"), std::string::npos);
  EXPECT_FALSE(MakeValueDecoder(Encoding::kRleDictionary, PhysicalType::kInt32, 0, nullptr));
  EXPECT_FALSE(MakeValueDecoder(Encoding::kDeltaBinaryPacked, PhysicalType::kDouble, 0));
}

}  // namespace reader_decoder_test
}  // namespace floe::parquet
