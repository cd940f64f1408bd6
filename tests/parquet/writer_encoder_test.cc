// Unit tests of the writer's encoders (hybrid RLE, DELTA_BINARY_PACKED,
// DELTA_LENGTH_BYTE_ARRAY, BYTE_STREAM_SPLIT, split-block bloom filters) and of the
// shredder. Decoding is done by small test-local decoders written from Encodings.md.
#include <gtest/gtest.h>

#include <random>

#include "floe/parquet/bloom_filter.h"
#include "floe/parquet/column_writer_internal.h"
#include "floe/parquet/encoder.h"
#include "floe/parquet/rle_encoder.h"
#include "floe/parquet/schema_mapping.h"
#include "floe/types/names.h"
#include "testing/matchers.h"
#include "testing/schema.h"

namespace floe::parquet {
namespace writer_encoder_test {

uint64_t ReadUVarint(const uint8_t*& p) {
  uint64_t v = 0;
  int shift = 0;
  while (true) {
    uint8_t b = *p++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
    shift += 7;
  }
}
int64_t ReadZigZag(const uint8_t*& p) {
  uint64_t u = ReadUVarint(p);
  return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
}
uint64_t ReadBits(const uint8_t* base, uint64_t bit, int width) {
  uint64_t v = 0;
  for (int i = 0; i < width; ++i, ++bit) v |= static_cast<uint64_t>((base[bit / 8] >> (bit % 8)) & 1) << i;
  return v;
}

// Decodes `n` hybrid values; also counts runs of each kind.
std::vector<uint32_t> DecodeHybrid(const Buffer& buf, int width, size_t n, int* rle_runs = nullptr,
                                   int* packed_runs = nullptr) {
  std::vector<uint32_t> out;
  const uint8_t* p = buf.data();
  const uint8_t* end = p + buf.size();
  while (out.size() < n && p < end) {
    uint64_t h = ReadUVarint(p);
    if (h & 1) {
      if (packed_runs) ++*packed_runs;
      size_t count = (h >> 1) * 8;
      for (size_t i = 0; i < count; ++i) {
        uint32_t v = static_cast<uint32_t>(ReadBits(p, i * width, width));
        if (out.size() < n) out.push_back(v);
      }
      p += (h >> 1) * width;
    } else {
      if (rle_runs) ++*rle_runs;
      size_t count = h >> 1;
      uint32_t v = 0;
      for (int b = 0; b < (width + 7) / 8; ++b) v |= static_cast<uint32_t>(*p++) << (8 * b);
      for (size_t i = 0; i < count; ++i) out.push_back(v);
    }
  }
  EXPECT_EQ(p, end) << "trailing bytes";
  return out;
}

TEST(WriterRle, EveryWidthRoundTrips) {
  std::mt19937 rng(3);
  for (int width = 0; width <= 32; ++width) {
    uint64_t mask = width == 32 ? 0xffffffffULL : ((1ULL << width) - 1);
    for (size_t n : {0u, 1u, 7u, 8u, 9u, 100u, 1000u}) {
      std::vector<uint32_t> v(n);
      for (size_t i = 0; i < n; ++i) {
        // Mix runs and noise.
        v[i] = (i / 37) % 2 ? static_cast<uint32_t>(mask) & 5u : static_cast<uint32_t>(rng() & mask);
      }
      Buffer buf;
      EncodeRleBitPacked(v.data(), n, width, &buf);
      EXPECT_EQ(DecodeHybrid(buf, width, n), v) << "width " << width << " n " << n;
    }
  }
}

TEST(WriterRle, RunsUseRleAndNoiseUsesBitPacking) {
  std::vector<uint16_t> v(1000, 3);
  Buffer buf;
  EncodeRleBitPacked(v.data(), v.size(), 2, &buf);
  EXPECT_EQ(buf.size(), 3u);  // varint(2000) = 2 bytes + 1 value byte
  int rle = 0, packed = 0;
  std::vector<uint16_t> mixed;
  for (int i = 0; i < 16; ++i) mixed.push_back(i % 4);  // 2 bit-packed groups
  for (int i = 0; i < 40; ++i) mixed.push_back(1);      // a run
  for (int i = 0; i < 5; ++i) mixed.push_back(i % 3);   // a padded group
  Buffer b2;
  EncodeRleBitPacked(mixed.data(), mixed.size(), 2, &b2);
  auto got = DecodeHybrid(b2, 2, mixed.size(), &rle, &packed);
  EXPECT_EQ(std::vector<uint32_t>(mixed.begin(), mixed.end()), got);
  EXPECT_GE(rle, 1);
  EXPECT_GE(packed, 2);
}

TEST(WriterRle, LongLiteralRunsSplitAt63Groups) {
  std::vector<uint32_t> v(2000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = i % 2;
  Buffer buf;
  EncodeRleBitPacked(v.data(), v.size(), 1, &buf);
  int packed = 0;
  EXPECT_EQ(DecodeHybrid(buf, 1, v.size(), nullptr, &packed), v);
  EXPECT_GE(packed, 4);  // 250 groups need at least 4 runs of <= 63
}

std::vector<int64_t> DecodeDelta(const uint8_t*& p, bool int32) {
  uint64_t block = ReadUVarint(p), minis = ReadUVarint(p), total = ReadUVarint(p);
  int64_t first = ReadZigZag(p);
  EXPECT_EQ(block % 128, 0u);
  EXPECT_EQ((block / minis) % 32, 0u);
  std::vector<int64_t> out;
  if (total == 0) return out;
  out.push_back(first);
  uint64_t per_mini = block / minis;
  while (out.size() < total) {
    int64_t min_delta = ReadZigZag(p);
    std::vector<int> widths(minis);
    for (auto& w : widths) w = *p++;
    for (uint64_t m = 0; m < minis && out.size() < total; ++m) {
      for (uint64_t i = 0; i < per_mini; ++i) {
        uint64_t d = ReadBits(p, i * widths[m], widths[m]);
        if (out.size() < total) {
          if (int32) {
            out.push_back(static_cast<int32_t>(static_cast<uint32_t>(out.back()) +
                                               static_cast<uint32_t>(min_delta) + static_cast<uint32_t>(d)));
          } else {
            out.push_back(static_cast<int64_t>(static_cast<uint64_t>(out.back()) +
                                               static_cast<uint64_t>(min_delta) + d));
          }
        }
      }
      p += per_mini * widths[m] / 8;
    }
  }
  return out;
}

TEST(WriterDelta, Int64AndInt32RoundTripWithExtremes) {
  std::mt19937_64 rng(5);
  for (bool int32 : {false, true}) {
    for (size_t n : {0u, 1u, 2u, 31u, 32u, 33u, 128u, 129u, 1000u}) {
      std::vector<int64_t> v(n);
      for (size_t i = 0; i < n; ++i) {
        int64_t x = i % 5 == 0 ? (int32 ? INT32_MIN : INT64_MIN)
                    : i % 7 == 0 ? (int32 ? INT32_MAX : INT64_MAX)
                                 : static_cast<int64_t>(rng());
        v[i] = int32 ? static_cast<int32_t>(x) : x;
      }
      Buffer buf;
      EncodeDeltaBinaryPacked(v.data(), n, int32, &buf);
      const uint8_t* p = buf.data();
      EXPECT_EQ(DecodeDelta(p, int32), v) << "n " << n << " int32 " << int32;
      EXPECT_EQ(p, buf.data() + buf.size());
    }
  }
}

TEST(WriterDelta, SequentialValuesPackTightly) {
  std::vector<int64_t> v(1280);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 1000 + static_cast<int64_t>(i);
  Buffer buf;
  EncodeDeltaBinaryPacked(v.data(), v.size(), false, &buf);
  EXPECT_LT(buf.size(), 80u);  // every delta is 1: width 0 miniblocks
}

TEST(WriterDelta, LengthByteArray) {
  std::vector<int64_t> lens = {0, 3, 1, 5};
  std::string bytes = "abcdefghi";
  Buffer buf;
  EncodeDeltaLengthByteArray(lens.data(), lens.size(), reinterpret_cast<const uint8_t*>(bytes.data()),
                             bytes.size(), &buf);
  const uint8_t* p = buf.data();
  EXPECT_EQ(DecodeDelta(p, true), lens);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(p), buf.data() + buf.size() - p), bytes);
}

TEST(WriterBss, ScattersBytes) {
  std::vector<float> f = {1.0f, -2.5f, 3.25f};
  Buffer buf;
  EncodeByteStreamSplit(reinterpret_cast<const uint8_t*>(f.data()), f.size(), 4, &buf);
  ASSERT_EQ(buf.size(), 12u);
  const uint8_t* src = reinterpret_cast<const uint8_t*>(f.data());
  for (size_t i = 0; i < 3; ++i) {
    for (int b = 0; b < 4; ++b) EXPECT_EQ(buf.data()[b * 3 + i], src[i * 4 + b]);
  }
}

TEST(WriterBloom, InsertedValuesAreFoundAndSizesArePowersOfTwo) {
  EXPECT_EQ(BloomFilterBytes(0, 0.01, 1 << 20), 32u);
  size_t b = BloomFilterBytes(100000, 0.01, 1 << 20);
  EXPECT_EQ(b & (b - 1), 0u);
  EXPECT_GE(b, 100000u);  // ~9.6 bits per value at 1%
  EXPECT_EQ(BloomFilterBytes(100000000, 0.01, 1 << 20), 1u << 20);
  BloomFilter f(BloomFilterBytes(1000, 0.01, 1 << 20));
  for (int64_t i = 0; i < 1000; ++i) f.InsertHash(BloomHash(&i, 8));
  int fp = 0;
  for (int64_t i = 0; i < 1000; ++i) EXPECT_TRUE(f.MightContainHash(BloomHash(&i, 8)));
  for (int64_t i = 1000; i < 11000; ++i) fp += f.MightContainHash(BloomHash(&i, 8));
  EXPECT_LT(fp, 300);
}

// ---- shredder ----

using test::Field;

TEST(WriterShredder, OptionalListOfOptionalInts) {
  // PITFALLS 12: def 0 null list, 1 empty list, 2 null element, 3 value; rep 0 starts a row.
  Schema schema({Field(1, "a", ListType(2, false, IntType()))});
  auto ps = MapSchema(schema);
  ASSERT_OK(ps);
  const LeafColumn& leaf = ps->leaves[0];
  EXPECT_EQ(leaf.max_def, 3);
  EXPECT_EQ(leaf.max_rep, 1);
  EXPECT_EQ(leaf.DottedPath(), "a.list.element");
  ColumnVector col(schema.fields()[0].type);
  col.AppendNull();                                   // null
  col.CloseListRow();                                 // []
  col.children[0].AppendNull();                       // [null, 7]
  col.children[0].Append<int32_t>(7);
  col.CloseListRow();
  col.children[0].Append<int32_t>(8);                 // [8]
  col.CloseListRow();
  LeafLevels lv;
  ASSERT_OK(ShredLeaf(leaf, col, 4, &lv));
  EXPECT_EQ(lv.def, (std::vector<int16_t>{0, 1, 2, 3, 3}));
  EXPECT_EQ(lv.rep, (std::vector<int16_t>{0, 0, 0, 1, 0}));
  EXPECT_EQ(lv.positions, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(lv.row_level_start, (std::vector<int64_t>{0, 1, 2, 4, 5}));
}

TEST(WriterShredder, MapOfListsInsideStruct) {
  // struct<m: map<string, list<long>>> (optional everywhere but the key).
  auto lt = ListType(5, false, LongType());
  auto mt = MapType(3, StringType(), 4, false, lt);
  Schema schema({Field(1, "s", StructType({Field(2, "m", mt)}))});
  auto ps = MapSchema(schema);
  ASSERT_OK(ps);
  ASSERT_EQ(ps->leaves.size(), 2u);
  const LeafColumn& vals = ps->leaves[1];
  EXPECT_EQ(vals.DottedPath(), "s.m.key_value.value.list.element");
  EXPECT_EQ(vals.max_def, 6);
  EXPECT_EQ(vals.max_rep, 2);
  ColumnVector col(schema.fields()[0].type);
  ColumnVector& m = col.children[0];
  // row 0: {m: {"a": [1, 2], "b": null}}
  m.children[0].AppendBytes("a");
  m.children[1].children[0].Append<int64_t>(1);
  m.children[1].children[0].Append<int64_t>(2);
  m.children[1].CloseListRow();
  m.children[0].AppendBytes("b");
  m.children[1].AppendNull();
  m.CloseListRow();
  col.AppendStructRow();
  // row 1: null struct
  col.AppendNull();
  // row 2: {m: {}}
  m.CloseListRow();
  col.AppendStructRow();
  LeafLevels lv;
  ASSERT_OK(ShredLeaf(vals, col, 3, &lv));
  EXPECT_EQ(lv.def, (std::vector<int16_t>{6, 6, 3, 0, 2}));
  EXPECT_EQ(lv.rep, (std::vector<int16_t>{0, 2, 1, 0, 0}));
  LeafLevels keys;
  ASSERT_OK(ShredLeaf(ps->leaves[0], col, 3, &keys));
  EXPECT_EQ(keys.def, (std::vector<int16_t>{3, 3, 0, 2}));
  EXPECT_EQ(keys.rep, (std::vector<int16_t>{0, 1, 0, 0}));
}

TEST(WriterShredder, NullInRequiredFieldIsAnErrorNamingTheField) {
  Schema schema({Field(1, "s", StructType({Field(2, "x", IntType(), true)}))});
  auto ps = MapSchema(schema);
  ASSERT_OK(ps);
  ColumnVector col(schema.fields()[0].type);
  col.children[0].Append<int32_t>(1);
  col.AppendStructRow();
  col.children[0].AppendNull();  // present struct, null required child
  col.AppendStructRow();
  LeafLevels lv;
  auto st = ShredLeaf(ps->leaves[0], col, 2, &lv);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("row 1"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("s.x"), std::string::npos) << st.error().message;
}

TEST(WriterSchema, SanitizesNamesLikeIcebergJava) {
  EXPECT_EQ(SanitizeName("a b"), "a_x20b");
  EXPECT_EQ(SanitizeName("1st"), "_1st");
  EXPECT_EQ(SanitizeName("ok_Name9"), "ok_Name9");
  EXPECT_EQ(SanitizeName("a.b-c"), "a_x2Eb_x2Dc");
}

TEST(WriterSchema, DecimalPhysicalTypes) {
  EXPECT_EQ(PhysicalTypeFor(*DecimalType(9, 2)), PhysicalType::kInt32);
  EXPECT_EQ(PhysicalTypeFor(*DecimalType(10, 2)), PhysicalType::kInt64);
  EXPECT_EQ(PhysicalTypeFor(*DecimalType(18, 2)), PhysicalType::kInt64);
  EXPECT_EQ(PhysicalTypeFor(*DecimalType(19, 2)), PhysicalType::kFixedLenByteArray);
  Schema schema({Field(1, "d", DecimalType(38, 2)), Field(2, "e", DecimalType(19, 0))});
  auto ps = MapSchema(schema);
  ASSERT_OK(ps);
  EXPECT_EQ(ps->leaves[0].type_length, 16);
  EXPECT_EQ(ps->leaves[1].type_length, 9);
}

TEST(WriterSchema, ReverseMappingGivesBackEveryPrimitive) {
  std::vector<TypePtr> types = {BooleanType(), IntType(), LongType(), FloatType(), DoubleType(),
                                DateType(), TimeType(), TimestampType(), TimestampTzType(),
                                Primitive(TypeId::kTimestampNs), Primitive(TypeId::kTimestampTzNs),
                                StringType(), UuidType(), BinaryType(), FixedType(7),
                                DecimalType(9, 2), DecimalType(18, 0), DecimalType(38, 38)};
  for (const auto& t : types) {
    int32_t len = t->id == TypeId::kUuid ? 16 : t->id == TypeId::kFixed ? t->length
                  : t->id == TypeId::kDecimal ? DecimalRequiredBytes(t->precision) : 0;
    auto back = IcebergTypeFor(PhysicalTypeFor(*t), len, AnnotationFor(*t));
    ASSERT_TRUE(back) << t->ToString() << ": " << back.error().ToString();
    EXPECT_EQ(**back, *t) << t->ToString() << " came back as " << (*back)->ToString();
  }
  LeafAnnotation u64;
  u64.kind = LeafAnnotation::Kind::kInteger;
  u64.bit_width = 64;
  u64.is_signed = false;
  EXPECT_FALSE(IcebergTypeFor(PhysicalType::kInt64, 0, u64));
}

TEST(WriterSchema, DecimalIcebergBytesAreMinimal) {
  EXPECT_EQ(DecimalIcebergBytes(0), std::string("\x00", 1));
  EXPECT_EQ(DecimalIcebergBytes(127), "\x7f");
  EXPECT_EQ(DecimalIcebergBytes(128), std::string("\x00\x80", 2));
  EXPECT_EQ(DecimalIcebergBytes(-1), "\xff");
  EXPECT_EQ(DecimalIcebergBytes(-129), "\xff\x7f");
  EXPECT_EQ(DecimalIcebergBytes(1420), "\x05\x8c");  // 14.20 (Iceberg spec App. D)
}

}  // namespace writer_encoder_test
}  // namespace floe::parquet
