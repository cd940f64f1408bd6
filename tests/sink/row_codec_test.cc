// RowCodec: every Iceberg type round-trips, nulls at every level and empty
// strings/lists/maps come back as they were, random batches decode equal to
// their originals (row by row and through EncodeAll), and damaged or cut bytes
// are kCorrupt that leave the target batch untouched.
#include "floe/sink/row_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "floe/types/column_ops.h"
#include "testing/matchers.h"
#include "testing/schema.h"

namespace floe::sink {
namespace row_codec_test {

using test::Field;

// ---------------------------------------------------------------------------
// Comparison of values: "" when equal, else what differs. Values under a null
// parent are not compared (their slots carry no meaning).

std::string Diff(const ColumnVector& a, int64_t i, const ColumnVector& b, int64_t j,
                 const std::string& path) {
  if (a.IsNull(i) != b.IsNull(j)) {
    return fmt::format("{}: null {} vs {}", path, a.IsNull(i), b.IsNull(j));
  }
  if (a.IsNull(i)) return "";
  switch (a.type->id) {
    case TypeId::kBoolean:
      if ((a.values.data()[i] != 0) != (b.values.data()[j] != 0)) return path + ": boolean differs";
      return "";
    case TypeId::kStruct:
      for (size_t c = 0; c < a.children.size(); ++c) {
        auto d = Diff(a.children[c], i, b.children[c], j, path + "." + a.type->fields[c].name);
        if (!d.empty()) return d;
      }
      return "";
    case TypeId::kList:
    case TypeId::kMap: {
      int64_t na = a.offsets[i + 1] - a.offsets[i], nb = b.offsets[j + 1] - b.offsets[j];
      if (na != nb) return fmt::format("{}: {} entries vs {}", path, na, nb);
      for (int64_t k = 0; k < na; ++k) {
        for (size_t c = 0; c < a.children.size(); ++c) {
          auto d = Diff(a.children[c], a.offsets[i] + k, b.children[c], b.offsets[j] + k,
                        fmt::format("{}[{}].{}", path, k, a.type->fields[c].name));
          if (!d.empty()) return d;
        }
      }
      return "";
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid:
    case TypeId::kFixed:
      if (a.bytes(i) != b.bytes(j)) return path + ": bytes differ";
      return "";
    default: {
      // Bitwise, so NaN payloads and -0.0 count.
      size_t w = static_cast<size_t>(FixedValueWidth(*a.type));
      if (std::memcmp(a.values.data() + i * w, b.values.data() + j * w, w) != 0) {
        return path + ": value differs";
      }
      return "";
    }
  }
}

std::string RowDiff(const Batch& a, int64_t i, const Batch& b, int64_t j) {
  for (size_t c = 0; c < a.columns.size(); ++c) {
    auto d = Diff(a.columns[c], i, b.columns[c], j, a.schema->fields()[c].name);
    if (!d.empty()) return d;
  }
  return "";
}

// ---------------------------------------------------------------------------
// A schema with every type, nested ones at several depths.

SchemaPtr EveryTypeSchema() {
  int id = 100;
  auto next = [&] { return id++; };
  auto point =
      StructType({Field(next(), "x", LongType(), true), Field(next(), "label", StringType())});
  std::vector<NestedField> fields = {
      Field(1, "b", BooleanType()),
      Field(2, "i", IntType(), true),
      Field(3, "l", LongType()),
      Field(4, "f", FloatType()),
      Field(5, "d", DoubleType()),
      Field(6, "dec9", DecimalType(9, 2)),
      Field(7, "dec38", DecimalType(38, 10)),
      Field(8, "date", DateType()),
      Field(9, "time", TimeType()),
      Field(10, "ts", TimestampType()),
      Field(11, "tstz", TimestampTzType()),
      Field(12, "ts_ns", Primitive(TypeId::kTimestampNs)),
      Field(13, "tstz_ns", Primitive(TypeId::kTimestampTzNs)),
      Field(14, "s", StringType()),
      Field(15, "u", UuidType()),
      Field(16, "fx", FixedType(3)),
      Field(17, "bin", BinaryType()),
      Field(18, "st",
            StructType({Field(next(), "a", IntType()), Field(next(), "p", point),
                        Field(next(), "tags", ListType(next(), false, StringType()))})),
      Field(19, "pts", ListType(next(), false, point)),
      Field(20, "m",
            MapType(next(), StringType(), next(), false, ListType(next(), false, IntType()))),
      Field(21, "mi", MapType(next(), IntType(), next(), true, point)),
      Field(22, "ll", ListType(next(), true, ListType(next(), false, DecimalType(20, 4)))),
      Field(23, "s_req", StringType(), true),
  };
  return std::make_shared<Schema>(std::move(fields));
}

/// Appends random values, nulls (anywhere, required fields included: the
/// codec must keep them) and extremes.
class Filler {
 public:
  explicit Filler(uint64_t seed, double null_rate = 0.15) : rng_(seed), null_rate_(null_rate) {}

  void Fill(Batch* batch, int64_t n) {
    for (int64_t r = 0; r < n; ++r) {
      for (size_t c = 0; c < batch->columns.size(); ++c) Append(&batch->columns[c], 0);
    }
    batch->num_rows += n;
  }

  void Append(ColumnVector* col, int depth) {
    if (Chance(null_rate_)) {
      col->AppendNull();
      return;
    }
    const Type& t = *col->type;
    switch (t.id) {
      case TypeId::kStruct:
        for (auto& child : col->children) Append(&child, depth + 1);
        col->AppendStructRow();
        return;
      case TypeId::kList:
      case TypeId::kMap: {
        int n = Pick(0, depth > 2 ? 1 : 4);
        for (int k = 0; k < n; ++k) {
          for (auto& child : col->children) Append(&child, depth + 1);
        }
        col->CloseListRow();
        return;
      }
      case TypeId::kBoolean: col->Append<uint8_t>(Pick(0, 1)); return;
      case TypeId::kInt:
      case TypeId::kDate: col->Append<int32_t>(Extreme<int32_t>()); return;
      case TypeId::kFloat: {
        float v = Chance(0.1)   ? std::numeric_limits<float>::quiet_NaN()
                  : Chance(0.1) ? -0.0f
                                : static_cast<float>(Real());
        col->Append(v);
        return;
      }
      case TypeId::kDouble: {
        double v = Chance(0.1) ? -std::numeric_limits<double>::infinity() : Real();
        col->Append(v);
        return;
      }
      case TypeId::kDecimal: {
        int128_t v =
            (static_cast<int128_t>(Extreme<int64_t>()) << 64) | static_cast<uint64_t>(rng_());
        col->Append(v);
        return;
      }
      case TypeId::kString:
      case TypeId::kBinary: {
        // Empty, short, and now and then past a one-byte varint length.
        size_t len = Chance(0.15) ? 0 : Chance(0.05) ? Pick(128, 400) : Pick(1, 20);
        std::string s(len, '\0');
        for (auto& ch : s) ch = static_cast<char>(Pick(0, 255));
        col->AppendBytes(s);
        return;
      }
      case TypeId::kUuid:
      case TypeId::kFixed: {
        std::string s(static_cast<size_t>(FixedValueWidth(t)), '\0');
        for (auto& ch : s) ch = static_cast<char>(Pick(0, 255));
        col->AppendBytes(s);
        return;
      }
      default: col->Append<int64_t>(Extreme<int64_t>()); return;
    }
  }

 private:
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int Pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  double Real() { return std::uniform_real_distribution<double>(-1e6, 1e6)(rng_); }
  template <typename T>
  T Extreme() {
    switch (Pick(0, 5)) {
      case 0: return std::numeric_limits<T>::min();
      case 1: return std::numeric_limits<T>::max();
      case 2: return 0;
      default: return static_cast<T>(rng_());
    }
  }
  std::mt19937_64 rng_;
  double null_rate_;
};

/// Decodes `ends.size()` rows laid end to end in `arena` into a fresh batch,
/// checking that each consumes exactly its bytes.
Batch DecodeAll(const RowCodec& codec, std::string_view arena, const std::vector<uint64_t>& ends) {
  Batch out(codec.schema());
  uint64_t begin = 0;
  for (uint64_t end : ends) {
    auto used = codec.Decode(arena.substr(begin, end - begin), &out);
    EXPECT_THAT(used, test::IsOk());
    if (!used) break;
    EXPECT_EQ(*used, end - begin);
    begin = end;
  }
  return out;
}

void ExpectSameRows(const Batch& original, const Batch& decoded) {
  ASSERT_OK(decoded.Validate());
  ASSERT_EQ(decoded.num_rows, original.num_rows);
  for (int64_t r = 0; r < original.num_rows; ++r) {
    EXPECT_EQ(RowDiff(original, r, decoded, r), "") << "row " << r;
  }
}

TEST(RowCodec, EveryTypeRoundTripsRowByRowAndAllAtOnce) {
  auto schema = EveryTypeSchema();
  RowCodec codec(schema);
  Batch batch(schema);
  Filler(7, /*null_rate=*/0).Fill(&batch, 50);
  Filler(8, /*null_rate=*/0.3).Fill(&batch, 50);
  ASSERT_OK(batch.Validate());

  std::string one_by_one;
  std::vector<uint64_t> ends;
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    codec.Encode(batch, r, &one_by_one);
    ends.push_back(one_by_one.size());
  }
  ExpectSameRows(batch, DecodeAll(codec, one_by_one, ends));

  // EncodeAll writes the same bytes, after what the arena already holds.
  std::string arena = "prefix";
  std::vector<uint64_t> all_ends;
  codec.EncodeAll(batch, &arena, &all_ends);
  EXPECT_EQ(arena.substr(6), one_by_one);
  ASSERT_EQ(all_ends.size(), ends.size());
  for (size_t k = 0; k < ends.size(); ++k) EXPECT_EQ(all_ends[k], ends[k] + 6);
}

TEST(RowCodec, ExtremesAndSpecialFloatsKeepTheirBits) {
  auto schema = std::make_shared<Schema>(
      std::vector<NestedField>{Field(1, "f", FloatType()), Field(2, "d", DoubleType()),
                               Field(3, "l", LongType()), Field(4, "dec", DecimalType(38, 0))});
  Batch batch(schema);
  const double doubles[] = {-0.0, std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::denorm_min()};
  const int64_t longs[] = {std::numeric_limits<int64_t>::min(), -1, 0,
                           std::numeric_limits<int64_t>::max()};
  const int128_t max128 = ~(static_cast<int128_t>(1) << 127);
  const int128_t decs[] = {-max128 - 1, -1, 0, max128};
  for (int k = 0; k < 4; ++k) {
    batch.columns[0].Append(static_cast<float>(doubles[k]));
    batch.columns[1].Append(doubles[k]);
    batch.columns[2].Append(longs[k]);
    batch.columns[3].Append(decs[k]);
  }
  batch.num_rows = 4;
  RowCodec codec(schema);
  std::string arena;
  std::vector<uint64_t> ends;
  codec.EncodeAll(batch, &arena, &ends);
  Batch out = DecodeAll(codec, arena, ends);
  ExpectSameRows(batch, out);
  EXPECT_TRUE(std::signbit(out.columns[1].data<double>()[0]));
  EXPECT_TRUE(std::isnan(out.columns[0].data<float>()[1]));
  EXPECT_EQ(out.columns[3].data<int128_t>()[0], -max128 - 1);
}

// One row per case, each a null or an empty value at a different level.
TEST(RowCodec, NullsAtEveryLevelAndEmptyValues) {
  auto schema = EveryTypeSchema();
  Batch batch(schema);
  Filler fill(11, 0);
  auto col = [&](const char* name) { return &batch.columns[schema->IndexOf(name)]; };
  auto fill_row = [&](auto&& special) {
    // Every column gets a normal value except the ones `special` appends itself.
    std::vector<bool> done(batch.columns.size());
    special(done);
    for (size_t c = 0; c < batch.columns.size(); ++c) {
      if (!done[c]) fill.Append(&batch.columns[c], 0);
    }
    ++batch.num_rows;
  };
  auto idx = [&](const char* name) { return static_cast<size_t>(schema->IndexOf(name)); };

  // Row 0: every top-level column null (required ones too).
  fill_row([&](std::vector<bool>& done) {
    for (size_t c = 0; c < batch.columns.size(); ++c) {
      batch.columns[c].AppendNull();
      done[c] = true;
    }
  });
  // Row 1: empty string, binary, list, map; a struct whose children are all null.
  fill_row([&](std::vector<bool>& done) {
    col("s")->AppendBytes("");
    col("bin")->AppendBytes("");
    col("pts")->CloseListRow();
    col("m")->CloseListRow();
    col("mi")->CloseListRow();
    col("ll")->CloseListRow();
    ColumnVector* st = col("st");
    for (auto& child : st->children) child.AppendNull();
    st->AppendStructRow();
    for (const char* n : {"s", "bin", "pts", "m", "mi", "ll", "st"}) done[idx(n)] = true;
  });
  // Row 2: null list elements, null map values, a list holding an empty list,
  // a struct in a list with a null inner field, a map with an empty list value.
  fill_row([&](std::vector<bool>& done) {
    ColumnVector* pts = col("pts");
    pts->children[0].AppendNull();
    ColumnVector& point = pts->children[0];
    point.children[0].Append<int64_t>(5);
    point.children[1].AppendNull();
    point.AppendStructRow();
    pts->CloseListRow();

    ColumnVector* m = col("m");
    m->children[0].AppendBytes("");
    m->children[1].AppendNull();
    m->children[0].AppendBytes("k");
    m->children[1].CloseListRow();  // empty list value
    m->CloseListRow();

    ColumnVector* ll = col("ll");
    ll->children[0].CloseListRow();  // [[]]
    ll->children[0].children[0].AppendNull();
    ll->children[0].CloseListRow();  // [null]
    ll->CloseListRow();
    for (const char* n : {"pts", "m", "ll"}) done[idx(n)] = true;
  });
  ASSERT_OK(batch.Validate());

  RowCodec codec(schema);
  std::string arena;
  std::vector<uint64_t> ends;
  codec.EncodeAll(batch, &arena, &ends);
  Batch out = DecodeAll(codec, arena, ends);
  ExpectSameRows(batch, out);
  // Spot checks that the nulls and empties are what came back, not just equal diffs.
  const ColumnVector& st = out.columns[idx("st")];
  EXPECT_FALSE(st.IsNull(1));
  EXPECT_TRUE(st.children[0].IsNull(1));
  EXPECT_TRUE(out.columns[idx("s_req")].IsNull(0));
  EXPECT_EQ(out.columns[idx("s")].bytes(1), "");
  const ColumnVector& ll = out.columns[idx("ll")];
  EXPECT_EQ(ll.offsets[3] - ll.offsets[2], 2);
  // A row with every column null is just its presence bitmap.
  EXPECT_EQ(ends[0], (schema->fields().size() + 7) / 8);
}

// The property: random batches of every type, with nulls anywhere, decode
// equal to their originals, also when decoded into a batch that holds rows.
TEST(RowCodec, RandomBatchesDecodeEqualToTheOriginals) {
  auto schema = EveryTypeSchema();
  RowCodec codec(schema);
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE(seed);
    Batch batch(schema);
    Filler(seed, 0.05 * static_cast<double>(seed % 8)).Fill(&batch, 64);
    ASSERT_OK(batch.Validate());
    std::string arena;
    std::vector<uint64_t> ends;
    codec.EncodeAll(batch, &arena, &ends);
    ASSERT_EQ(ends.size(), 64u);
    ASSERT_EQ(ends.back(), arena.size());

    // Decode into a batch that already has rows, in reverse order, to make
    // sure rows do not depend on what was decoded before them.
    Batch out(schema);
    Filler(seed + 1000).Fill(&out, 3);
    for (int64_t r = batch.num_rows - 1; r >= 0; --r) {
      uint64_t begin = r == 0 ? 0 : ends[r - 1];
      ASSERT_OK_AND_ASSIGN(size_t used, codec.Decode(std::string_view(arena).substr(begin), &out));
      EXPECT_EQ(used, ends[r] - begin);
    }
    ASSERT_OK(out.Validate());
    ASSERT_EQ(out.num_rows, 3 + batch.num_rows);
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      EXPECT_EQ(RowDiff(batch, r, out, 3 + batch.num_rows - 1 - r), "") << "row " << r;
    }
  }
}

// Every cut of every row is kCorrupt, and the batch decoded into is left as
// it was (a later good row still decodes in place).
TEST(RowCodec, TruncatedRowsAreCorruptAndLeaveTheBatchAlone) {
  auto schema = EveryTypeSchema();
  RowCodec codec(schema);
  Batch batch(schema);
  Filler(3, 0.2).Fill(&batch, 12);
  std::string arena;
  std::vector<uint64_t> ends;
  codec.EncodeAll(batch, &arena, &ends);

  Batch out(schema);
  uint64_t begin = 0;
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    std::string_view row = std::string_view(arena).substr(begin, ends[r] - begin);
    for (size_t cut = 0; cut < row.size(); ++cut) {
      // A copy of exactly `cut` bytes, so reading past it is caught by ASan too.
      std::string part(row.substr(0, cut));
      auto r2 = codec.Decode(part, &out);
      ASSERT_THAT(r2, test::IsError(ErrorKind::kCorrupt)) << "row " << r << " cut at " << cut;
      ASSERT_EQ(out.num_rows, r);
      ASSERT_OK(out.Validate()) << "row " << r << " cut at " << cut;
    }
    ASSERT_OK_AND_ASSIGN(size_t used, codec.Decode(row, &out));
    EXPECT_EQ(used, row.size());
    begin = ends[r];
  }
  ExpectSameRows(batch, out);
}

TEST(RowCodec, GarbledRowsNeverCrashAndFailCleanly) {
  auto schema = EveryTypeSchema();
  RowCodec codec(schema);
  Batch batch(schema);
  Filler(5, 0.1).Fill(&batch, 30);
  std::string arena;
  std::vector<uint64_t> ends;
  codec.EncodeAll(batch, &arena, &ends);

  std::mt19937_64 rng(99);
  Batch out(schema);
  int corrupt = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    size_t r = rng() % ends.size();
    uint64_t begin = r == 0 ? 0 : ends[r - 1];
    std::string row = arena.substr(begin, ends[r] - begin);
    for (int flips = 1 + static_cast<int>(rng() % 3); flips > 0; --flips) {
      row[rng() % row.size()] = static_cast<char>(rng());
    }
    int64_t before = out.num_rows;
    auto used = codec.Decode(row, &out);
    if (used) {
      EXPECT_LE(*used, row.size());
      EXPECT_EQ(out.num_rows, before + 1);
    } else {
      EXPECT_THAT(used, test::IsError(ErrorKind::kCorrupt));
      EXPECT_EQ(out.num_rows, before);
      ++corrupt;
    }
  }
  ASSERT_OK(out.Validate());
  EXPECT_GT(corrupt, 0);
}

TEST(RowCodec, SpecificDamageIsNamed) {
  auto schema = std::make_shared<Schema>(std::vector<NestedField>{
      Field(1, "flag", BooleanType()), Field(2, "tags", ListType(3, false, StringType()))});
  RowCodec codec(schema);
  Batch out(schema);
  // Presence bitmap 0b01 (flag present), flag byte 2: not a boolean.
  EXPECT_THAT(
      codec.Decode(std::string("\x01\x02", 2), &out),
      ::testing::AllOf(test::IsError(ErrorKind::kCorrupt), test::HasErrorMessage("column flag"),
                       test::HasErrorMessage("boolean byte 2")));
  // tags present with a count of 2^63: refused before any loop or allocation.
  std::string huge = "\x02";
  huge += std::string("\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 9);
  EXPECT_THAT(codec.Decode(huge, &out), ::testing::AllOf(test::IsError(ErrorKind::kCorrupt),
                                                         test::HasErrorMessage("column tags")));
  // A varint that never ends.
  EXPECT_THAT(codec.Decode(std::string("\x02") + std::string(12, '\xff'), &out),
              test::HasErrorMessage("longer than 10 bytes"));
  // A list element string cut short names the element.
  EXPECT_THAT(codec.Decode(std::string("\x02\x01\x01\x05"
                                       "ab",
                                       6),
                           &out),
              test::HasErrorMessage("column tags.element"));
  EXPECT_EQ(out.num_rows, 0);
  ASSERT_OK(out.Validate());
  // Empty input: the bitmap byte is missing.
  EXPECT_THAT(codec.Decode("", &out), test::IsError(ErrorKind::kCorrupt));
  // A batch of another shape is a caller error.
  Batch other(std::make_shared<Schema>(std::vector<NestedField>{Field(1, "x", IntType())}));
  EXPECT_THAT(codec.Decode("\x00", &other), test::IsError(ErrorKind::kInvalidArgument));
}

}  // namespace row_codec_test
}  // namespace floe::sink
