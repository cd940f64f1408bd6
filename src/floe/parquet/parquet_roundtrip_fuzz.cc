/// \file
/// libFuzzer property target: Parquet write -> read is the identity. The input
/// is not a file but a recipe: a small deterministic byte consumer draws a
/// random schema (every type floe writes, structs, lists and maps nested, each
/// field optional or required), random batches (nulls, extremes, NaNs, empty
/// lists and strings) and random writer options (codec, page version,
/// dictionary, per-column encodings, page / row-group / dictionary sizes, bloom
/// filters, statistics, page index, parallelism). The file is written to memory
/// and read back with floe's reader; the schema and every value (nulls and
/// nesting included, NaN as NaN, -0.0 as -0.0) must come back as written. A
/// writer error on valid input, a reader error on floe's own file, or any
/// difference prints a description and traps. Seeds:
/// tests/fuzz_seeds/parquet_roundtrip_fuzz/.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "floe/io/file.h"
#include "floe/parquet/reader.h"
#include "floe/parquet/schema_mapping.h"
#include "floe/parquet/writer.h"
#include "floe/types/column_ops.h"
#include "floe/types/column_vector.h"
#include "floe/types/names.h"
#include "floe/types/type.h"

namespace {

using namespace floe;

/// Deterministic draws from the fuzz input; zeros once it is used up, so every
/// input (the empty one too) is a complete recipe.
class Draw {
 public:
  Draw(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  uint8_t U8() {
    if (n_ == 0) return 0;
    --n_;
    return *p_++;
  }
  uint64_t Bits(int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | U8();
    return v;
  }
  /// 0 .. n-1.
  uint32_t Below(uint32_t n) {
    return n <= 1 ? 0 : static_cast<uint32_t>(Bits(n > 256 ? 2 : 1) % n);
  }
  bool Chance(uint8_t in256) { return U8() < in256; }
  std::string Bytes(size_t max) {
    size_t len = Below(static_cast<uint32_t>(max + 1));
    std::string s;
    for (size_t i = 0; i < len; ++i) s.push_back(static_cast<char>(U8()));
    return s;
  }
  bool empty() const { return n_ == 0; }

 private:
  const uint8_t* p_;
  size_t n_;
};

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "parquet_roundtrip_fuzz: %s\n", what.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

// ---------------------------------------------------------------------------
// Schemas

constexpr int kMaxDepth = 3;

TypePtr RandomPrimitive(Draw& d) {
  switch (d.Below(17)) {
    case 0: return BooleanType();
    case 1: return IntType();
    case 2: return LongType();
    case 3: return FloatType();
    case 4: return DoubleType();
    case 5: {
      int32_t precision = 1 + static_cast<int32_t>(d.Below(38));
      return DecimalType(precision, static_cast<int32_t>(d.Below(precision + 1)));
    }
    case 6: return DateType();
    case 7: return TimeType();
    case 8: return TimestampType();
    case 9: return TimestampTzType();
    case 10: return Primitive(TypeId::kTimestampNs);
    case 11: return Primitive(TypeId::kTimestampTzNs);
    case 12: return UuidType();
    case 13: return FixedType(1 + static_cast<int32_t>(d.Below(24)));
    case 14: return BinaryType();
    default: return StringType();
  }
}

std::string FieldName(Draw& d, int32_t id) {
  // Mostly plain names; sometimes ones Parquet writers sanitize (PITFALLS 44).
  switch (d.Below(8)) {
    case 0: return fmt::format("a.b{}", id);
    case 1: return fmt::format("{}é", id);
    case 2: return fmt::format("x y{}", id);
    default: return fmt::format("c{}", id);
  }
}

TypePtr RandomType(Draw& d, int depth, int32_t* next_id);

std::vector<NestedField> RandomFields(Draw& d, int depth, int32_t* next_id, int max_fields) {
  std::vector<NestedField> fields;
  int n = 1 + static_cast<int>(d.Below(max_fields));
  for (int i = 0; i < n; ++i) {
    NestedField f;
    f.id = (*next_id)++;
    f.name = FieldName(d, f.id);
    f.required = d.Chance(80);
    f.type = RandomType(d, depth + 1, next_id);
    fields.push_back(std::move(f));
  }
  return fields;
}

TypePtr RandomType(Draw& d, int depth, int32_t* next_id) {
  uint32_t pick = d.Below(depth >= kMaxDepth ? 1 : 8);
  switch (pick) {
    case 1: return StructType(RandomFields(d, depth, next_id, 3));
    case 2: {
      int32_t id = (*next_id)++;
      bool required = d.Chance(100);
      return ListType(id, required, RandomType(d, depth + 1, next_id));
    }
    case 3: {
      int32_t key_id = (*next_id)++;
      int32_t value_id = (*next_id)++;
      TypePtr key = RandomPrimitive(d);
      bool value_required = d.Chance(100);
      return MapType(key_id, key, value_id, value_required, RandomType(d, depth + 1, next_id));
    }
    default: return RandomPrimitive(d);
  }
}

// ---------------------------------------------------------------------------
// Values

int128_t Pow10(int n) {
  int128_t v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

void AppendPrimitive(Draw& d, const Type& t, ColumnVector* col) {
  const uint8_t pick = d.U8() & 7;  // 0, 1: an extreme
  switch (t.id) {
    case TypeId::kBoolean: col->Append<uint8_t>(d.U8() & 1); return;
    case TypeId::kInt:
    case TypeId::kDate: {
      int32_t v = pick == 0   ? std::numeric_limits<int32_t>::min()
                  : pick == 1 ? std::numeric_limits<int32_t>::max()
                  : pick == 2 ? static_cast<int32_t>(static_cast<int8_t>(d.U8()))
                              : static_cast<int32_t>(d.Bits(4));
      col->Append(v);
      return;
    }
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      int64_t v = pick == 0   ? std::numeric_limits<int64_t>::min()
                  : pick == 1 ? std::numeric_limits<int64_t>::max()
                  : pick == 2 ? static_cast<int64_t>(static_cast<int8_t>(d.U8()))
                              : static_cast<int64_t>(d.Bits(8));
      col->Append(v);
      return;
    }
    case TypeId::kFloat: {
      static const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                                       -std::numeric_limits<float>::quiet_NaN(),
                                       std::numeric_limits<float>::infinity(),
                                       -std::numeric_limits<float>::infinity(),
                                       -0.0f,
                                       0.0f,
                                       std::numeric_limits<float>::denorm_min(),
                                       std::numeric_limits<float>::max()};
      float v;
      if (pick < 2) {
        v = specials[d.U8() & 7];
      } else {
        uint32_t bits = static_cast<uint32_t>(d.Bits(4));
        std::memcpy(&v, &bits, 4);  // any bit pattern, NaN payloads included
      }
      col->Append(v);
      return;
    }
    case TypeId::kDouble: {
      static const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                                        -std::numeric_limits<double>::quiet_NaN(),
                                        std::numeric_limits<double>::infinity(),
                                        -std::numeric_limits<double>::infinity(),
                                        -0.0,
                                        0.0,
                                        std::numeric_limits<double>::denorm_min(),
                                        std::numeric_limits<double>::lowest()};
      double v;
      if (pick < 2) {
        v = specials[d.U8() & 7];
      } else {
        uint64_t bits = d.Bits(8);
        std::memcpy(&v, &bits, 8);
      }
      col->Append(v);
      return;
    }
    case TypeId::kDecimal: {
      const int128_t limit = Pow10(t.precision);
      int128_t v;
      if (pick == 0) {
        v = limit - 1;
      } else if (pick == 1) {
        v = -(limit - 1);
      } else {
        unsigned __int128 r = (static_cast<unsigned __int128>(d.Bits(8)) << 64) | d.Bits(8);
        v = static_cast<int128_t>(r % static_cast<unsigned __int128>(limit));
        if (d.U8() & 1) v = -v;
      }
      col->Append(v);
      return;
    }
    case TypeId::kUuid:
    case TypeId::kFixed: {
      const size_t len = t.id == TypeId::kUuid ? 16 : static_cast<size_t>(t.length);
      std::string s;
      for (size_t i = 0; i < len; ++i) s.push_back(static_cast<char>(d.U8()));
      col->AppendBytes(s);
      return;
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      // Short values repeat often (dictionary pages); a few are long (page splits).
      std::string s = pick == 0 ? std::string() : d.Bytes(pick == 1 ? 300 : 6);
      col->AppendBytes(s);
      return;
    }
    default: Fail("AppendPrimitive: nested type " + t.ToString());
  }
}

void AppendValue(Draw& d, const NestedField& f, uint8_t null_rate, ColumnVector* col) {
  if (!f.required && d.Chance(null_rate)) {
    col->AppendNull();
    return;
  }
  const Type& t = *f.type;
  switch (t.id) {
    case TypeId::kStruct:
      for (size_t i = 0; i < t.fields.size(); ++i) {
        AppendValue(d, t.fields[i], null_rate, &col->children[i]);
      }
      col->AppendStructRow();
      return;
    case TypeId::kList: {
      const uint32_t n = d.Below(5);
      for (uint32_t i = 0; i < n; ++i) AppendValue(d, t.element(), null_rate, &col->children[0]);
      col->CloseListRow();
      return;
    }
    case TypeId::kMap: {
      // Keys are not checked for uniqueness by the writer or the reader; any keys round trip.
      const uint32_t n = d.Below(4);
      for (uint32_t i = 0; i < n; ++i) {
        AppendPrimitive(d, *t.key().type, &col->children[0]);
        AppendValue(d, t.value(), null_rate, &col->children[1]);
      }
      col->CloseListRow();
      return;
    }
    default: AppendPrimitive(d, t, col);
  }
}

// ---------------------------------------------------------------------------
// Comparison

std::string Hex(std::string_view s) {
  std::string out;
  for (unsigned char c : s) out += fmt::format("{:02x}", c);
  return out;
}

std::string Describe(const ColumnVector& c, int64_t i) {
  if (c.IsNull(i)) return "null";
  const Type& t = *c.type;
  switch (t.id) {
    case TypeId::kBoolean: return c.data<uint8_t>()[i] ? "true" : "false";
    case TypeId::kInt:
    case TypeId::kDate: return std::to_string(c.data<int32_t>()[i]);
    case TypeId::kFloat: return fmt::format("{}", c.data<float>()[i]);
    case TypeId::kDouble: return fmt::format("{}", c.data<double>()[i]);
    case TypeId::kDecimal: {
      int128_t v = c.data<int128_t>()[i];
      return fmt::format("0x{:016x}{:016x}",
                         static_cast<uint64_t>(static_cast<unsigned __int128>(v) >> 64),
                         static_cast<uint64_t>(v));
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid:
    case TypeId::kFixed: return "0x" + Hex(c.bytes(i));
    case TypeId::kStruct: return "struct";
    case TypeId::kList:
    case TypeId::kMap: return fmt::format("{} entries", c.offsets[i + 1] - c.offsets[i]);
    default: return std::to_string(c.data<int64_t>()[i]);
  }
}

template <typename F>
bool SameFloat(F a, F b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;  // -0.0 stays -0.0
}

/// Compares row i of `a` (written) with row j of `b` (read); on a difference
/// sets *why to the path and both values.
bool SameValue(const ColumnVector& a, int64_t i, const ColumnVector& b, int64_t j,
               const std::string& path, std::string* why) {
  auto differ = [&](std::string detail = "") {
    *why = fmt::format("{}: wrote {}, read {}{}", path, Describe(a, i), Describe(b, j), detail);
    return false;
  };
  if (a.IsNull(i) != b.IsNull(j)) return differ();
  if (a.IsNull(i)) return true;
  const Type& t = *a.type;
  switch (t.id) {
    case TypeId::kBoolean:
      return (a.data<uint8_t>()[i] != 0) == (b.data<uint8_t>()[j] != 0) || differ();
    case TypeId::kFloat: return SameFloat(a.data<float>()[i], b.data<float>()[j]) || differ();
    case TypeId::kDouble: return SameFloat(a.data<double>()[i], b.data<double>()[j]) || differ();
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid:
    case TypeId::kFixed: return a.bytes(i) == b.bytes(j) || differ();
    case TypeId::kStruct:
      for (size_t k = 0; k < t.fields.size(); ++k) {
        if (!SameValue(a.children[k], i, b.children[k], j, path + "." + t.fields[k].name, why)) {
          return false;
        }
      }
      return true;
    case TypeId::kList:
    case TypeId::kMap: {
      const int64_t an = a.offsets[i + 1] - a.offsets[i], bn = b.offsets[j + 1] - b.offsets[j];
      if (an != bn) return differ();
      for (int64_t k = 0; k < an; ++k) {
        for (size_t c = 0; c < a.children.size(); ++c) {
          std::string p = fmt::format("{}[{}]{}", path, k,
                                      t.id == TypeId::kList ? ""
                                      : c == 0              ? ".key"
                                                            : ".value");
          if (!SameValue(a.children[c], a.offsets[i] + k, b.children[c], b.offsets[j] + k, p,
                         why)) {
            return false;
          }
        }
      }
      return true;
    }
    default: {
      const int w = FixedValueWidth(t);
      return std::memcmp(a.values.data() + i * w, b.values.data() + j * w, w) == 0 || differ();
    }
  }
}

/// Types equal by id, parameters, field ids, requiredness and (when Parquet
/// keeps them as they are) names.
bool SameType(const Type& a, const Type& b, const std::string& path, std::string* why) {
  if (a.id != b.id || a.precision != b.precision || a.scale != b.scale || a.length != b.length ||
      a.fields.size() != b.fields.size()) {
    *why = fmt::format("{}: wrote type {}, read {}", path, a.ToString(), b.ToString());
    return false;
  }
  for (size_t k = 0; k < a.fields.size(); ++k) {
    const NestedField& fa = a.fields[k];
    const NestedField& fb = b.fields[k];
    const std::string p = path + "." + fa.name;
    if (fa.id != fb.id || fa.required != fb.required ||
        (a.id == TypeId::kStruct && SanitizeName(fa.name) == fa.name && fa.name != fb.name)) {
      *why = fmt::format("{}: wrote field {} '{}' {}, read {} '{}' {}", p, fa.id, fa.name,
                         fa.required ? "required" : "optional", fb.id, fb.name,
                         fb.required ? "required" : "optional");
      return false;
    }
    if (!SameType(*fa.type, *fb.type, p, why)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Writer options

class StringOutput final : public OutputFile {
 public:
  explicit StringOutput(std::string* sink) : sink_(sink) {}
  Status Write(const void* data, size_t size) override {
    buf_.append(static_cast<const char*>(data), size);
    return Ok();
  }
  int64_t Tell() const override { return static_cast<int64_t>(buf_.size()); }
  Status Commit() override {
    *sink_ = std::move(buf_);
    return Ok();
  }
  void Abort() override { buf_.clear(); }
  const std::string& path() const override { return name_; }

 private:
  std::string* sink_;
  std::string buf_;
  std::string name_ = "roundtrip.parquet";
};

std::string LeafName(const parquet::LeafColumn& leaf) {
  std::string out;
  for (const auto& p : leaf.iceberg_path) out += (out.empty() ? "" : ".") + p;
  return out;
}

parquet::WriterOptions RandomOptions(Draw& d, const Schema& schema, std::string* summary) {
  using parquet::ColumnEncoding;
  using parquet::PhysicalType;
  parquet::WriterOptions o;
  static const Codec kCodecs[] = {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip,
                                  Codec::kBrotli,       Codec::kZstd,   Codec::kLz4Raw};
  o.codec = kCodecs[d.Below(6)];
  o.page_version = d.Chance(128) ? parquet::PageVersion::kV2 : parquet::PageVersion::kV1;
  o.dictionary_enabled = d.Chance(160);
  o.write_statistics = d.Chance(200);
  o.write_page_index = d.Chance(200);
  if (d.Chance(128)) o.page_size_bytes = 1 + d.Below(4096);
  if (d.Chance(100)) o.page_row_limit = 1 + d.Below(300);
  if (d.Chance(100)) o.row_group_size_bytes = 1 + d.Below(20000);
  if (d.Chance(100)) o.dict_size_bytes = 1 + d.Below(2000);
  if (d.Chance(80)) o.write_batch_rows = 1 + d.Below(500);
  if (d.Chance(40)) o.parallelism = 2 + static_cast<int>(d.Below(3));
  if (d.Chance(60)) o.bloom_filter_max_bytes = 32 + d.Below(4096);
  auto mapped = parquet::MapSchema(schema);
  if (!mapped) Fail("MapSchema refused a valid schema: " + mapped.error().ToString());
  for (const auto& leaf : mapped->leaves) {
    const std::string name = LeafName(leaf);
    if (d.Chance(50)) {
      o.bloom_filter_columns[name] = d.Chance(220);
      if (d.Chance(100)) o.bloom_filter_fpp[name] = 0.001 + d.Below(300) / 1000.0;
    }
    if (d.Chance(90)) {
      // Only encodings that apply to the column (others are refused by design).
      const PhysicalType pt = leaf.physical;
      std::vector<ColumnEncoding> fit = {ColumnEncoding::kPlain};
      if (pt != PhysicalType::kBoolean) fit.push_back(ColumnEncoding::kDictionary);
      if (pt == PhysicalType::kInt32 || pt == PhysicalType::kInt64 ||
          pt == PhysicalType::kByteArray) {
        fit.push_back(ColumnEncoding::kDelta);
      }
      if (pt == PhysicalType::kFloat || pt == PhysicalType::kDouble || pt == PhysicalType::kInt32 ||
          pt == PhysicalType::kInt64 || pt == PhysicalType::kFixedLenByteArray) {
        fit.push_back(ColumnEncoding::kByteStreamSplit);
      }
      o.column_encodings[name] = fit[d.Below(static_cast<uint32_t>(fit.size()))];
    }
  }
  *summary = fmt::format(
      "codec {} page {} dict {} stats {} index {} page_bytes {} page_rows {} group_bytes {} "
      "dict_bytes {} batch_rows {} parallelism {} bloom columns {} encodings {}",
      CodecName(o.codec), o.page_version == parquet::PageVersion::kV2 ? "v2" : "v1",
      o.dictionary_enabled, o.write_statistics, o.write_page_index, o.page_size_bytes,
      o.page_row_limit, o.row_group_size_bytes, o.dict_size_bytes, o.write_batch_rows,
      o.parallelism, o.bloom_filter_columns.size(), o.column_encodings.size());
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Draw d(data, size);
  int32_t next_id = 1;
  auto schema = std::make_shared<Schema>(RandomFields(d, 0, &next_id, 6));
  if (auto st = schema->Validate(); !st)
    Fail("generated an invalid schema: " + st.error().ToString());
  std::string options_summary;
  parquet::WriterOptions options = RandomOptions(d, *schema, &options_summary);

  // Batches: a few, each 0..~600 rows, with a per-input null rate.
  const uint8_t null_rate = d.U8();
  std::vector<Batch> batches;
  const int num_batches = 1 + static_cast<int>(d.Below(4));
  Batch all(schema);
  for (int b = 0; b < num_batches; ++b) {
    Batch batch(schema);
    const int64_t rows = d.Chance(30) ? d.Below(600) : d.Below(40);
    for (int64_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < batch.columns.size(); ++c) {
        AppendValue(d, schema->fields()[c], null_rate, &batch.columns[c]);
      }
      ++batch.num_rows;
    }
    if (auto st = batch.Validate(); !st)
      Fail("generated a malformed batch: " + st.error().ToString());
    AppendRange(batch, 0, batch.num_rows, &all);
    batches.push_back(std::move(batch));
  }
  const std::string context =
      fmt::format("schema {} ({} rows; {})", schema->ToString(), all.num_rows, options_summary);

  // FLOE_FUZZ_DESCRIBE=1 prints each recipe (to pick seeds that cover each type and codec).
  if (std::getenv("FLOE_FUZZ_DESCRIBE")) std::fprintf(stderr, "recipe: %s\n", context.c_str());
  std::string file;
  {
    auto writer = parquet::FileWriter::Open(std::make_unique<StringOutput>(&file), schema, options);
    if (!writer) Fail("writer refused to open: " + writer.error().ToString() + "\n" + context);
    for (const auto& batch : batches) {
      if (auto st = (*writer)->Write(batch); !st) {
        Fail("writer refused a valid batch: " + st.error().ToString() + "\n" + context);
      }
    }
    auto result = (*writer)->Close();
    if (!result) Fail("writer failed to close: " + result.error().ToString() + "\n" + context);
    if (result->num_rows != all.num_rows ||
        result->file_size_bytes != static_cast<int64_t>(file.size())) {
      Fail(fmt::format("write result says {} rows, {} bytes; wrote {} rows, {} bytes\n{}",
                       result->num_rows, result->file_size_bytes, all.num_rows, file.size(),
                       context));
    }
  }

  parquet::ReaderOptions read_options;
  read_options.batch_rows = 1 + d.Below(2000);
  auto reader = parquet::FileReader::Open(MemoryInput(file, "roundtrip.parquet"), read_options);
  if (!reader) Fail("reader refused floe's file: " + reader.error().ToString() + "\n" + context);
  std::string why;
  if (!SameType(*schema->AsStruct(), *(*reader)->file_schema()->AsStruct(), "schema", &why)) {
    Fail(why + "\n" + context);
  }
  if ((*reader)->num_rows() != all.num_rows) {
    Fail(fmt::format("footer says {} rows, wrote {}\n{}", (*reader)->num_rows(), all.num_rows,
                     context));
  }
  int64_t row = 0;
  Batch got;
  while (true) {
    auto more = (*reader)->Next(&got);
    if (!more) Fail("reader failed on floe's file: " + more.error().ToString() + "\n" + context);
    if (!*more) break;
    if (auto st = got.Validate(); !st)
      Fail("reader gave a malformed batch: " + st.error().ToString());
    if (row + got.num_rows > all.num_rows) Fail("reader gave more rows than written\n" + context);
    if ((*reader)->batch_first_row() != row) {
      Fail(fmt::format("batch_first_row {} for row {}\n{}", (*reader)->batch_first_row(), row,
                       context));
    }
    for (int64_t r = 0; r < got.num_rows; ++r, ++row) {
      for (size_t c = 0; c < all.columns.size(); ++c) {
        const std::string path = fmt::format("row {} {}", row, schema->fields()[c].name);
        if (!SameValue(all.columns[c], row, got.columns[c], r, path, &why))
          Fail(why + "\n" + context);
      }
    }
  }
  if (row != all.num_rows) {
    Fail(fmt::format("reader gave {} rows, wrote {}\n{}", row, all.num_rows, context));
  }
  return 0;
}
