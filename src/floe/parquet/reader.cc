/// \file
/// The Parquet file reader (see reader.h): footer, projection, row-group
/// statistics, batches assembled from definition / repetition levels.
#include "floe/parquet/reader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "floe/parquet/reader_column.h"
#include "floe/parquet/reader_schema.h"
#include "floe/parquet/thrift_internal.h"
#include "floe/util/strings.h"

namespace floe::parquet {

namespace {

constexpr int64_t kMaxFooterBytes = 512 << 20;

/// How stored physical values become the requested floe values.
enum class Conv : uint8_t {
  kCopy,
  kInt32ToInt64,
  kUint32ToInt64,
  kInt32ToDecimal,
  kInt64ToDecimal,
  kBytesToDecimal,    ///< BYTE_ARRAY big-endian two's complement
  kFixedToDecimal,    ///< FIXED_LEN_BYTE_ARRAY big-endian two's complement
  kMillisToMicros32,  ///< TIME_MILLIS (int32) -> micros (int64)
  kMillisToMicros64,  ///< TIMESTAMP_MILLIS -> micros
  kNanosToMicros64,   ///< TIME(NANOS) -> micros
  kInt96ToMicros,
  kFloatToDouble,
  kHalfToFloat,
};

/// A requested field and where its values come from.
struct ReadField {
  NestedField field;                ///< as requested
  const FileField* file = nullptr;  ///< null: absent from the file, reads as null
  int levels_slot = -1;             ///< leaf slot whose levels give this field's slots
  int leaf_slot = -1;               ///< primitives: the leaf slot with the values
  Conv conv = Conv::kCopy;
  std::vector<ReadField> children;
};

int128_t BigEndianToInt128(const uint8_t* p, size_t n) {
  int128_t v = (n > 0 && (p[0] & 0x80)) ? -1 : 0;
  for (size_t i = 0; i < n; ++i)
    v = static_cast<int128_t>((static_cast<unsigned __int128>(v) << 8) | p[i]);
  return v;
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {
      float f = std::ldexp(static_cast<float>(man), -24);
      std::memcpy(&bits, &f, 4);
      bits |= sign;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  }
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

/// Minimum-length big-endian two's complement (Iceberg spec Appendix D: decimal).
std::string MinimalBigEndian(int128_t v) {
  uint8_t be[16];
  unsigned __int128 u = static_cast<unsigned __int128>(v);
  for (int i = 15; i >= 0; --i) {
    be[i] = static_cast<uint8_t>(u & 0xff);
    u >>= 8;
  }
  int start = 0;
  while (start < 15 && ((be[start] == 0 && !(be[start + 1] & 0x80)) ||
                        (be[start] == 0xff && (be[start + 1] & 0x80)))) {
    ++start;
  }
  return std::string(reinterpret_cast<const char*>(be + start), static_cast<size_t>(16 - start));
}

template <typename T>
std::string LeBytes(T v) {
  std::string s(sizeof(T), '\0');
  std::memcpy(s.data(), &v, sizeof(T));
  return s;
}

/// Converts one Parquet min/max value (PLAIN bytes) of a leaf into Iceberg's
/// single-value binary form; nullopt when it cannot be used.
std::optional<std::string> StatToIceberg(const LeafInfo& leaf, const std::string& raw) {
  if (!leaf.unsupported.empty() || leaf.is_int96 || leaf.is_float16) return std::nullopt;
  const auto* p = reinterpret_cast<const uint8_t*>(raw.data());
  const TypeId id = leaf.type->id;
  auto i32 = [&]() {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  };
  auto i64 = [&]() {
    int64_t v;
    std::memcpy(&v, p, 8);
    return v;
  };
  switch (leaf.physical) {
    case PhysicalType::kBoolean:
      if (raw.size() != 1) return std::nullopt;
      return std::string(1, static_cast<char>(p[0] & 1));
    case PhysicalType::kInt32:
      if (raw.size() != 4) return std::nullopt;
      if (id == TypeId::kDecimal) return MinimalBigEndian(i32());
      if (leaf.is_unsigned) return LeBytes<int64_t>(static_cast<uint32_t>(i32()));
      if (id == TypeId::kTime) return LeBytes<int64_t>(int64_t{i32()} * 1000);
      return raw;
    case PhysicalType::kInt64:
      if (raw.size() != 8) return std::nullopt;
      if (id == TypeId::kDecimal) return MinimalBigEndian(i64());
      if (leaf.unit == TimeUnit::kMillis) return LeBytes<int64_t>(i64() * 1000);
      if (id == TypeId::kTime && leaf.unit == TimeUnit::kNanos)
        return LeBytes<int64_t>(i64() / 1000);
      return raw;
    case PhysicalType::kFloat: {
      if (raw.size() != 4) return std::nullopt;
      float f;
      std::memcpy(&f, p, 4);
      if (std::isnan(f)) return std::nullopt;
      return raw;
    }
    case PhysicalType::kDouble: {
      if (raw.size() != 8) return std::nullopt;
      double d;
      std::memcpy(&d, p, 8);
      if (std::isnan(d)) return std::nullopt;
      return raw;
    }
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      if (id == TypeId::kDecimal) {
        if (raw.empty() || raw.size() > 16) return std::nullopt;
        return MinimalBigEndian(BigEndianToInt128(p, raw.size()));
      }
      if (leaf.physical == PhysicalType::kFixedLenByteArray &&
          static_cast<int32_t>(raw.size()) != leaf.type_length) {
        return std::nullopt;
      }
      return raw;
    case PhysicalType::kInt96: return std::nullopt;
  }
  return std::nullopt;
}

/// Legacy min/max are usable only where signed order is the type's order.
bool LegacyStatsUsable(const LeafInfo& leaf) {
  switch (leaf.physical) {
    case PhysicalType::kBoolean:
    case PhysicalType::kInt32:
    case PhysicalType::kInt64:
    case PhysicalType::kFloat:
    case PhysicalType::kDouble: return !leaf.is_unsigned;
    default: return false;
  }
}

std::string CodecName(int32_t c) {
  static const char* kNames[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                 "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};
  if (c >= 0 && c < 8) return kNames[c];
  return fmt::format("CODEC({})", c);
}

std::string Hex(const std::string& s) { return ToHex(s); }

/// An Iceberg single-value binary bound as readable JSON (numbers, text,
/// decimal and time values as their raw integers), hex for the rest.
nlohmann::json BoundJson(const Type& type, const std::string& b) {
  auto le = [&](auto tag) {
    using V = decltype(tag);
    V v{};
    if (b.size() == sizeof(V)) std::memcpy(&v, b.data(), sizeof(V));
    return v;
  };
  switch (type.id) {
    case TypeId::kBoolean: return !b.empty() && b[0] != 0;
    case TypeId::kInt:
    case TypeId::kDate: return le(int32_t{});
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: return le(int64_t{});
    case TypeId::kFloat: return le(float{});
    case TypeId::kDouble: return le(double{});
    case TypeId::kString: return b;
    case TypeId::kDecimal: {
      int128_t v = BigEndianToInt128(reinterpret_cast<const uint8_t*>(b.data()), b.size());
      bool neg = v < 0;
      unsigned __int128 u =
          neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
      std::string digits;
      do {
        digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
        u /= 10;
      } while (u);
      return (neg ? "-" : "") + digits + "e-" + std::to_string(type.scale);
    }
    default: return Hex(b);
  }
}

// ---------------------------------------------------------------- assembly helpers

/// Copies dense values into slots: valid[i] = 1 takes the next value, 0 a null.
void ScatterFixed(const uint8_t* dense, int width, const std::vector<uint8_t>& valid,
                  ColumnVector* out) {
  const int64_t n = static_cast<int64_t>(valid.size());
  out->values.Resize(static_cast<size_t>(n) * width);
  uint8_t* o = out->values.data();
  int64_t k = 0;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T* ot = reinterpret_cast<T*>(o);
    const T* dt = reinterpret_cast<const T*>(dense);
    for (int64_t i = 0; i < n; ++i) {
      if (valid[i]) {
        ot[i] = dt[k++];
      } else {
        ot[i] = T{};
      }
    }
  };
  switch (width) {
    case 1: run(uint8_t{}); break;
    case 4: run(uint32_t{}); break;
    case 8: run(uint64_t{}); break;
    case 16: run(int128_t{}); break;
    default:
      for (int64_t i = 0; i < n; ++i) {
        if (valid[i]) {
          std::memcpy(o + i * width, dense + k * width, width);
          ++k;
        } else {
          std::memset(o + i * width, 0, width);
        }
      }
  }
}

}  // namespace

// ---------------------------------------------------------------- FileReaderImpl

class FileReaderImpl {
 public:
  Status Init(std::unique_ptr<InputFile> file, ReaderOptions options);

  Result<bool> Next(Batch* out);
  std::string DescribeMetadata() const;

  std::unique_ptr<InputFile> file_;
  ReaderOptions options_;
  format::FileMetaData meta_;
  FileSchema fs_;
  SchemaPtr read_schema_;
  std::vector<std::pair<std::string, std::string>> kv_;
  std::vector<RowGroupStats> stats_;
  std::vector<int32_t> leaf_field_id_;
  std::vector<ReadField> read_fields_;
  std::vector<int> leaf_columns_;           ///< slot -> file leaf index
  std::unordered_map<int, int> leaf_slot_;  ///< file leaf index -> slot
  int64_t num_rows_ = 0;

  // Reading state.
  int rg_ = -1;
  int64_t rg_pos_ = 0;
  int64_t rg_rows_ = 0;
  bool rg_open_ = false;
  std::vector<ColumnChunkReader> readers_;
  std::vector<LeafBatch> leaf_data_;
  int64_t batch_first_row_ = 0;

 private:
  std::string Where() const { return fmt::format("Parquet file {}", file_->path()); }
  Status ReadFooter();
  void ComputeStats();
  Status Project();
  Status MatchField(const NestedField& req, const FileField& ff, ReadField* rf);
  void AbsentField(const NestedField& req, ReadField* rf);
  int SlotFor(int leaf);
  /// Whether file field f is the requested field: by name, or by id. Ids the
  /// reader made up for fields without one match only when reading the
  /// file's own schema (a projection's ids must not meet invented ones).
  bool Matches(const FileField& f, const NestedField& req) const {
    if (options_.match_by_name) return f.field.name == req.name;
    return f.field.id == req.id && (f.has_id || !options_.projection);
  }
  Status OpenRowGroup(int rg);
  Status Assemble(const ReadField& rf, int64_t expected, ColumnVector* out);
  Status AssemblePrimitive(const ReadField& rf, int64_t expected, ColumnVector* out);
  Status ConvertDense(const ReadField& rf, LeafBatch* lb, ColumnVector* dense);
  Status Slots(const ReadField& rf, int64_t expected, std::vector<uint8_t>* valid,
               std::vector<int64_t>* child_counts, const FileField* child);
};

Status FileReaderImpl::Init(std::unique_ptr<InputFile> file, ReaderOptions options) {
  file_ = std::move(file);
  options_ = std::move(options);
  if (options_.batch_rows <= 0) {
    return InvalidArgument("Parquet reader option batch_rows must be positive, got {}",
                           options_.batch_rows);
  }
  FLOE_RETURN_IF_ERROR(ReadFooter());
  ComputeStats();
  return Project();
}

Status FileReaderImpl::ReadFooter() {
  const int64_t size = file_->Size();
  if (size < 12) return Corrupt("{}: {} bytes is too small for a Parquet file", Where(), size);
  uint8_t tail[8];
  FLOE_RETURN_IF_ERROR(file_->ReadAt(size - 8, 8, tail));
  if (std::memcmp(tail + 4, "PAR1", 4) != 0) {
    if (std::memcmp(tail + 4, "PARE", 4) == 0) return Unsupported("{}: encrypted footer", Where());
    return Corrupt("{}: no PAR1 magic at the end", Where());
  }
  uint8_t head[4];
  FLOE_RETURN_IF_ERROR(file_->ReadAt(0, 4, head));
  if (std::memcmp(head, "PAR1", 4) != 0) return Corrupt("{}: no PAR1 magic at the start", Where());
  uint32_t flen;
  std::memcpy(&flen, tail, 4);
  if (flen > static_cast<uint64_t>(size - 12) || flen > kMaxFooterBytes) {
    return Corrupt("{}: footer length {} does not fit the file of {} bytes", Where(), flen, size);
  }
  Buffer footer;
  FLOE_RETURN_IF_ERROR(file_->ReadAt(size - 8 - flen, flen, &footer));
  uint32_t used = flen;
  if (Status st = DeserializeThrift(footer.data(), &used, &meta_, "footer (FileMetaData)"); !st) {
    return Fail(std::move(st).error().WithContext(Where()));
  }
  auto built = BuildFileSchema(meta_.schema);
  if (!built) return Fail(std::move(built).error().WithContext(Where()));
  fs_ = std::move(*built);
  leaf_field_id_.assign(fs_.leaves.size(), 0);
  std::vector<const FileField*> stack;
  for (const auto& f : fs_.fields) stack.push_back(&f);
  while (!stack.empty()) {
    const FileField* f = stack.back();
    stack.pop_back();
    if (f->leaf >= 0) leaf_field_id_[f->leaf] = f->field.id;
    for (const auto& c : f->children) stack.push_back(&c);
  }
  if (meta_.num_rows < 0) return Corrupt("{}: negative row count {}", Where(), meta_.num_rows);
  int64_t total = 0;
  for (size_t i = 0; i < meta_.row_groups.size(); ++i) {
    const auto& rg = meta_.row_groups[i];
    if (rg.num_rows < 0 || rg.num_rows > (int64_t{1} << 50)) {
      return Corrupt("{}: row group {} has {} rows", Where(), i, rg.num_rows);
    }
    if (rg.columns.size() != fs_.leaves.size()) {
      return Corrupt("{}: row group {} has {} column chunks, the schema {} columns", Where(), i,
                     rg.columns.size(), fs_.leaves.size());
    }
    total += rg.num_rows;
  }
  num_rows_ = total;
  for (const auto& kv : meta_.key_value_metadata) kv_.emplace_back(kv.key, kv.value);
  return Ok();
}

void FileReaderImpl::ComputeStats() {
  int64_t first = 0;
  stats_.resize(meta_.row_groups.size());
  for (size_t g = 0; g < meta_.row_groups.size(); ++g) {
    const auto& rg = meta_.row_groups[g];
    RowGroupStats& rs = stats_[g];
    rs.index = static_cast<int>(g);
    rs.num_rows = rg.num_rows;
    rs.first_row = first;
    first += rg.num_rows;
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const LeafInfo& leaf = fs_.leaves[c];
      ColumnStats cs;
      cs.field_id = leaf_field_id_[c];
      cs.type = leaf.type;
      for (size_t k = 0; k < leaf.path.size(); ++k) cs.path += (k ? "." : "") + leaf.path[k];
      if (rg.columns[c].__isset.meta_data) {
        const auto& md = rg.columns[c].meta_data;
        cs.num_values = md.num_values;
        cs.compressed_size = md.total_compressed_size;
        cs.uncompressed_size = md.total_uncompressed_size;
        if (md.__isset.statistics) {
          const auto& st = md.statistics;
          if (st.__isset.null_count) cs.null_count = st.null_count;
          if (st.__isset.nan_count) cs.nan_count = st.nan_count;
          if (st.__isset.min_value)
            cs.lower = StatToIceberg(leaf, st.min_value);
          else if (st.__isset.min && LegacyStatsUsable(leaf))
            cs.lower = StatToIceberg(leaf, st.min);
          if (st.__isset.max_value)
            cs.upper = StatToIceberg(leaf, st.max_value);
          else if (st.__isset.max && LegacyStatsUsable(leaf))
            cs.upper = StatToIceberg(leaf, st.max);
        }
      }
      rs.columns.push_back(std::move(cs));
    }
  }
}

int FileReaderImpl::SlotFor(int leaf) {
  auto it = leaf_slot_.find(leaf);
  if (it != leaf_slot_.end()) return it->second;
  int slot = static_cast<int>(leaf_columns_.size());
  leaf_columns_.push_back(leaf);
  leaf_slot_[leaf] = slot;
  return slot;
}

void FileReaderImpl::AbsentField(const NestedField& req, ReadField* rf) {
  rf->field = req;
  rf->file = nullptr;
}

Status FileReaderImpl::MatchField(const NestedField& req, const FileField& ff, ReadField* rf) {
  rf->field = req;
  rf->file = &ff;
  const Type& rt = *req.type;
  const Type& ft = *ff.field.type;
  auto mismatch = [&]() {
    std::string ftext = ft.ToString();
    if (ff.leaf >= 0) ftext += " (Parquet " + fs_.leaves[ff.leaf].annotation + ")";
    return InvalidArgument("{}: field id {} ({}): file type {} cannot be read as requested type {}",
                           Where(), req.id, ff.path, ftext, rt.ToString());
  };
  if (rt.is_nested() || ft.is_nested()) {
    if (rt.id != ft.id) return mismatch();
    if (ff.first_leaf >= 0) rf->levels_slot = SlotFor(ff.first_leaf);
    if (rt.id == TypeId::kStruct) {
      for (const auto& rc : rt.fields) {
        const FileField* match = nullptr;
        for (const auto& fc : ff.children) {
          if (Matches(fc, rc)) {
            match = &fc;
            break;
          }
        }
        ReadField child;
        if (match) {
          FLOE_RETURN_IF_ERROR(MatchField(rc, *match, &child));
        } else {
          AbsentField(rc, &child);
        }
        rf->children.push_back(std::move(child));
      }
      return Ok();
    }
    // list: element; map: key, value (matched by position).
    for (size_t i = 0; i < rt.fields.size(); ++i) {
      ReadField child;
      FLOE_RETURN_IF_ERROR(MatchField(rt.fields[i], ff.children[i], &child));
      rf->children.push_back(std::move(child));
    }
    return Ok();
  }
  const LeafInfo& leaf = fs_.leaves[ff.leaf];
  if (!leaf.unsupported.empty()) {
    return Unsupported("{}: field id {} ({}): column cannot be read: {}", Where(), req.id, ff.path,
                       leaf.unsupported);
  }
  // The conversion that gives the file's own floe type.
  Conv base = Conv::kCopy;
  switch (leaf.physical) {
    case PhysicalType::kInt32:
      if (ft.id == TypeId::kDecimal)
        base = Conv::kInt32ToDecimal;
      else if (leaf.is_unsigned)
        base = Conv::kUint32ToInt64;
      else if (ft.id == TypeId::kTime)
        base = Conv::kMillisToMicros32;
      break;
    case PhysicalType::kInt64:
      if (ft.id == TypeId::kDecimal)
        base = Conv::kInt64ToDecimal;
      else if (leaf.unit == TimeUnit::kMillis)
        base = Conv::kMillisToMicros64;
      else if (ft.id == TypeId::kTime && leaf.unit == TimeUnit::kNanos)
        base = Conv::kNanosToMicros64;
      break;
    case PhysicalType::kInt96: base = Conv::kInt96ToMicros; break;
    case PhysicalType::kByteArray:
      if (ft.id == TypeId::kDecimal) base = Conv::kBytesToDecimal;
      break;
    case PhysicalType::kFixedLenByteArray:
      if (ft.id == TypeId::kDecimal)
        base = Conv::kFixedToDecimal;
      else if (leaf.is_float16)
        base = Conv::kHalfToFloat;
      break;
    default: break;
  }
  rf->leaf_slot = SlotFor(ff.leaf);
  rf->levels_slot = rf->leaf_slot;
  if (rt == ft) {
    rf->conv = base;
    return Ok();
  }
  if (ft.id == TypeId::kInt && rt.id == TypeId::kLong && base == Conv::kCopy) {
    rf->conv = Conv::kInt32ToInt64;
    return Ok();
  }
  if (ft.id == TypeId::kFloat && rt.id == TypeId::kDouble && base == Conv::kCopy) {
    rf->conv = Conv::kFloatToDouble;
    return Ok();
  }
  if (ft.id == TypeId::kDecimal && rt.id == TypeId::kDecimal && rt.scale == ft.scale &&
      rt.precision >= ft.precision) {
    rf->conv = base;
    return Ok();
  }
  if (leaf.legacy_timestamp && (rt.id == TypeId::kTimestamp || rt.id == TypeId::kTimestampTz) &&
      (ft.id == TypeId::kTimestamp || ft.id == TypeId::kTimestampTz)) {
    rf->conv = base;
    return Ok();
  }
  if (ft.id == TypeId::kFixed && ft.length == 16 && rt.id == TypeId::kUuid) {
    rf->conv = Conv::kCopy;
    return Ok();
  }
  return mismatch();
}

Status FileReaderImpl::Project() {
  read_schema_ = options_.projection ? options_.projection : fs_.schema;
  for (const auto& req : read_schema_->fields()) {
    const FileField* match = nullptr;
    for (const auto& f : fs_.fields) {
      if (Matches(f, req)) {
        match = &f;
        break;
      }
    }
    ReadField rf;
    if (match) {
      FLOE_RETURN_IF_ERROR(MatchField(req, *match, &rf));
    } else {
      AbsentField(req, &rf);
    }
    read_fields_.push_back(std::move(rf));
  }
  readers_.resize(leaf_columns_.size());
  leaf_data_.resize(leaf_columns_.size());
  return Ok();
}

Status FileReaderImpl::OpenRowGroup(int g) {
  const auto& rg = meta_.row_groups[g];
  for (size_t s = 0; s < leaf_columns_.size(); ++s) {
    int leaf = leaf_columns_[s];
    const LeafInfo& info = fs_.leaves[leaf];
    std::string path;
    for (size_t k = 0; k < info.path.size(); ++k) path += (k ? "." : "") + info.path[k];
    FLOE_RETURN_IF_ERROR(
        readers_[s].Open(*file_, rg.columns[leaf], info,
                         fmt::format("{}, row group {}, column {}", Where(), g, path)));
  }
  return Ok();
}

Result<bool> FileReaderImpl::Next(Batch* out) {
  while (true) {
    if (!rg_open_) {
      ++rg_;
      if (rg_ >= static_cast<int>(meta_.row_groups.size())) return false;
      if (options_.skip_row_group && options_.skip_row_group(stats_[rg_])) continue;
      rg_rows_ = meta_.row_groups[rg_].num_rows;
      rg_pos_ = 0;
      if (rg_rows_ == 0) continue;
      FLOE_RETURN_IF_ERROR(OpenRowGroup(rg_));
      rg_open_ = true;
    }
    if (rg_pos_ >= rg_rows_) {
      rg_open_ = false;
      continue;
    }
    const int64_t rows = std::min(options_.batch_rows, rg_rows_ - rg_pos_);
    for (size_t s = 0; s < leaf_columns_.size(); ++s) {
      leaf_data_[s].Clear();
      FLOE_RETURN_IF_ERROR(readers_[s].ReadRows(rows, &leaf_data_[s]));
      if (rg_pos_ + rows == rg_rows_) FLOE_RETURN_IF_ERROR(readers_[s].Finish());
    }
    if (out->schema != read_schema_ || out->columns.size() != read_schema_->fields().size()) {
      *out = Batch(read_schema_);
    } else {
      out->Clear();
    }
    for (size_t i = 0; i < read_fields_.size(); ++i) {
      ColumnVector col(read_fields_[i].field.type);
      if (Status st = Assemble(read_fields_[i], rows, &col); !st) {
        return Fail(std::move(st).error().WithContext(
            fmt::format("{}, row group {}, field {}", Where(), rg_, read_fields_[i].field.name)));
      }
      out->columns[i] = std::move(col);
    }
    out->num_rows = rows;
    batch_first_row_ = stats_[rg_].first_row + rg_pos_;
    rg_pos_ += rows;
    return true;
  }
}

Status FileReaderImpl::ConvertDense(const ReadField& rf, LeafBatch* lb, ColumnVector* dense) {
  PhysicalValues& pv = lb->values;
  const int64_t n = pv.count;
  dense->length = n;
  const uint8_t* src = pv.values.data();
  auto out_as = [&](auto tag) {
    using T = decltype(tag);
    dense->values.Resize(static_cast<size_t>(n) * sizeof(T));
    return dense->values.as<T>();
  };
  switch (rf.conv) {
    case Conv::kCopy:
      if (rf.field.type->id == TypeId::kString || rf.field.type->id == TypeId::kBinary) {
        dense->values = std::move(pv.values);
        dense->offsets = std::move(pv.offsets);
        pv.offsets.assign(1, 0);
      } else {
        dense->values = std::move(pv.values);
      }
      pv.values.Clear();
      return Ok();
    case Conv::kInt32ToInt64: {
      int64_t* o = out_as(int64_t{});
      const int32_t* s = reinterpret_cast<const int32_t*>(src);
      for (int64_t i = 0; i < n; ++i) o[i] = s[i];
      return Ok();
    }
    case Conv::kUint32ToInt64: {
      int64_t* o = out_as(int64_t{});
      const uint32_t* s = reinterpret_cast<const uint32_t*>(src);
      for (int64_t i = 0; i < n; ++i) o[i] = s[i];
      return Ok();
    }
    case Conv::kInt32ToDecimal: {
      int128_t* o = out_as(int128_t{});
      const int32_t* s = reinterpret_cast<const int32_t*>(src);
      for (int64_t i = 0; i < n; ++i) o[i] = s[i];
      return Ok();
    }
    case Conv::kInt64ToDecimal: {
      int128_t* o = out_as(int128_t{});
      const int64_t* s = reinterpret_cast<const int64_t*>(src);
      for (int64_t i = 0; i < n; ++i) o[i] = s[i];
      return Ok();
    }
    case Conv::kBytesToDecimal: {
      int128_t* o = out_as(int128_t{});
      for (int64_t i = 0; i < n; ++i) {
        int64_t len = pv.offsets[i + 1] - pv.offsets[i];
        if (len > 16) return Corrupt("decimal value of {} bytes (at most 16)", len);
        o[i] = BigEndianToInt128(src + pv.offsets[i], static_cast<size_t>(len));
      }
      return Ok();
    }
    case Conv::kFixedToDecimal: {
      const LeafInfo& leaf = fs_.leaves[rf.file->leaf];
      const size_t w = static_cast<size_t>(leaf.type_length);
      int128_t* o = out_as(int128_t{});
      for (int64_t i = 0; i < n; ++i) o[i] = BigEndianToInt128(src + i * w, w);
      return Ok();
    }
    case Conv::kMillisToMicros32: {
      int64_t* o = out_as(int64_t{});
      const int32_t* s = reinterpret_cast<const int32_t*>(src);
      for (int64_t i = 0; i < n; ++i) o[i] = int64_t{s[i]} * 1000;
      return Ok();
    }
    case Conv::kMillisToMicros64: {
      int64_t* o = out_as(int64_t{});
      const int64_t* s = reinterpret_cast<const int64_t*>(src);
      for (int64_t i = 0; i < n; ++i)
        o[i] = static_cast<int64_t>(static_cast<uint64_t>(s[i]) * 1000);
      return Ok();
    }
    case Conv::kNanosToMicros64: {
      int64_t* o = out_as(int64_t{});
      const int64_t* s = reinterpret_cast<const int64_t*>(src);
      for (int64_t i = 0; i < n; ++i) o[i] = s[i] / 1000;
      return Ok();
    }
    case Conv::kInt96ToMicros: {
      int64_t* o = out_as(int64_t{});
      for (int64_t i = 0; i < n; ++i) {
        int64_t nanos;
        int32_t julian;
        std::memcpy(&nanos, src + i * 12, 8);
        std::memcpy(&julian, src + i * 12 + 8, 4);
        o[i] =
            static_cast<int64_t>(static_cast<uint64_t>(int64_t{julian} - 2440588) * 86400000000ULL +
                                 static_cast<uint64_t>(nanos / 1000));
      }
      return Ok();
    }
    case Conv::kFloatToDouble: {
      double* o = out_as(double{});
      const float* s = reinterpret_cast<const float*>(src);
      for (int64_t i = 0; i < n; ++i) o[i] = s[i];
      return Ok();
    }
    case Conv::kHalfToFloat: {
      float* o = out_as(float{});
      for (int64_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, src + i * 2, 2);
        o[i] = HalfToFloat(h);
      }
      return Ok();
    }
  }
  return Internal("unknown conversion");
}

/// Computes the slots of `rf` from its levels: validity per slot and, for
/// lists and maps, the number of child slots in each.
Status FileReaderImpl::Slots(const ReadField& rf, int64_t expected, std::vector<uint8_t>* valid,
                             std::vector<int64_t>* child_counts, const FileField* child) {
  const FileField& ff = *rf.file;
  valid->clear();
  if (rf.levels_slot < 0) {  // a struct without any leaf: every slot present
    valid->assign(static_cast<size_t>(expected), 1);
    return Ok();
  }
  const LeafBatch& lb = leaf_data_[rf.levels_slot];
  const int16_t* def = lb.def.empty() ? nullptr : lb.def.data();
  const int16_t* rep = lb.rep.empty() ? nullptr : lb.rep.data();
  const int64_t n = lb.entries;
  valid->reserve(static_cast<size_t>(expected));
  if (!rep && ff.slot_def == 0) {
    // Every entry is a slot (no repetition above this field).
    if (!def) {
      valid->assign(static_cast<size_t>(n), 1);
    } else {
      valid->resize(static_cast<size_t>(n));
      const int16_t dp = ff.def_present;
      for (int64_t i = 0; i < n; ++i) (*valid)[i] = def[i] >= dp;
    }
  } else {
    const int16_t sd = ff.slot_def, sr = ff.slot_rep, dp = ff.def_present;
    const int16_t cd = child ? child->slot_def : 0, cr = child ? child->slot_rep : 0;
    for (int64_t i = 0; i < n; ++i) {
      const int16_t d = def ? def[i] : 0;
      const int16_t r = rep ? rep[i] : 0;
      if (r <= sr && d >= sd) {
        valid->push_back(d >= dp);
        if (child) child_counts->push_back(0);
      }
      if (child && r <= cr && d >= cd) {
        if (child_counts->empty()) return Corrupt("levels start inside a list");
        ++child_counts->back();
      }
    }
  }
  if (static_cast<int64_t>(valid->size()) != expected) {
    return Corrupt("field {} has {} values where its parent has {} (column levels disagree)",
                   ff.path, valid->size(), expected);
  }
  if (child && child_counts->size() != valid->size()) {
    return Corrupt("field {}: list levels disagree", ff.path);
  }
  return Ok();
}

Status FileReaderImpl::AssemblePrimitive(const ReadField& rf, int64_t expected, ColumnVector* out) {
  LeafBatch& lb = leaf_data_[rf.leaf_slot];
  const LeafInfo& leaf = fs_.leaves[rf.file->leaf];
  ColumnVector dense(rf.field.type);
  FLOE_RETURN_IF_ERROR(ConvertDense(rf, &lb, &dense));
  const bool flat = leaf.max_rep == 0;
  if (flat && dense.length == expected && lb.entries == expected) {
    *out = std::move(dense);  // no nulls: the dense values are the column
    return Ok();
  }
  std::vector<uint8_t> valid;
  FLOE_RETURN_IF_ERROR(Slots(rf, expected, &valid, nullptr, nullptr));
  int64_t present = 0;
  for (uint8_t v : valid) present += v;
  if (present != dense.length) {
    return Corrupt("column {}: {} values for {} present slots", rf.file->path, dense.length,
                   present);
  }
  out->length = expected;
  out->validity = std::move(valid);
  const TypeId id = rf.field.type->id;
  if (id == TypeId::kString || id == TypeId::kBinary) {
    out->values = std::move(dense.values);
    out->offsets.resize(static_cast<size_t>(expected) + 1);
    out->offsets[0] = 0;
    int64_t k = 0;
    for (int64_t i = 0; i < expected; ++i) {
      if (out->validity[i]) ++k;
      out->offsets[i + 1] = dense.offsets[k];
    }
  } else {
    ScatterFixed(dense.values.data(), FixedValueWidth(*rf.field.type), out->validity, out);
  }
  bool any_null = false;
  for (uint8_t v : out->validity) any_null |= v == 0;
  if (!any_null) out->validity.clear();
  return Ok();
}

Status FileReaderImpl::Assemble(const ReadField& rf, int64_t expected, ColumnVector* out) {
  *out = ColumnVector(rf.field.type);
  if (!rf.file) {
    for (int64_t i = 0; i < expected; ++i) out->AppendNull();
    return Ok();
  }
  const TypeId id = rf.field.type->id;
  if (!rf.field.type->is_nested()) return AssemblePrimitive(rf, expected, out);
  std::vector<uint8_t> valid;
  std::vector<int64_t> counts;
  const FileField* child = id == TypeId::kStruct ? nullptr : &rf.file->children[0];
  FLOE_RETURN_IF_ERROR(Slots(rf, expected, &valid, &counts, child));
  out->length = expected;
  bool any_null = false;
  for (uint8_t v : valid) any_null |= v == 0;
  if (any_null) out->validity = valid;
  if (id == TypeId::kStruct) {
    for (size_t c = 0; c < rf.children.size(); ++c) {
      FLOE_RETURN_IF_ERROR(Assemble(rf.children[c], expected, &out->children[c]));
    }
    return Ok();
  }
  out->offsets.resize(static_cast<size_t>(expected) + 1);
  out->offsets[0] = 0;
  for (int64_t i = 0; i < expected; ++i) out->offsets[i + 1] = out->offsets[i] + counts[i];
  const int64_t total = out->offsets.back();
  for (size_t c = 0; c < rf.children.size(); ++c) {
    FLOE_RETURN_IF_ERROR(Assemble(rf.children[c], total, &out->children[c]));
  }
  return Ok();
}

// ---------------------------------------------------------------- DescribeMetadata

std::string FileReaderImpl::DescribeMetadata() const {
  using nlohmann::json;
  json j;
  j["file"] = {{"path", file_->path()},
               {"size", file_->Size()},
               {"version", meta_.version},
               {"num_rows", num_rows_},
               {"num_row_groups", meta_.row_groups.size()},
               {"created_by", meta_.__isset.created_by ? meta_.created_by : ""},
               {"has_field_ids", fs_.has_field_ids}};
  json kv = json::array();
  for (const auto& [k, v] : kv_) kv.push_back({{"key", k}, {"value", v}});
  j["key_value_metadata"] = kv;
  j["floe_schema"] = fs_.schema->ToString();
  json schema = json::array();
  for (const auto& e : meta_.schema) {
    json s = {{"name", e.name}};
    if (e.__isset.type) s["type"] = PhysicalTypeName(static_cast<PhysicalType>(EnumValue(e.type)));
    if (e.__isset.type_length) s["type_length"] = e.type_length;
    if (e.__isset.repetition_type) {
      static const char* kRep[] = {"REQUIRED", "OPTIONAL", "REPEATED"};
      int r = EnumValue(e.repetition_type);
      s["repetition"] = r >= 0 && r < 3 ? kRep[r] : "UNKNOWN";
    }
    if (e.__isset.num_children) s["num_children"] = e.num_children;
    if (e.__isset.converted_type) s["converted_type"] = EnumValue(e.converted_type);
    if (e.__isset.scale) s["scale"] = e.scale;
    if (e.__isset.precision) s["precision"] = e.precision;
    if (e.__isset.field_id) s["field_id"] = e.field_id;
    schema.push_back(std::move(s));
  }
  j["schema"] = schema;
  json groups = json::array();
  for (size_t g = 0; g < meta_.row_groups.size(); ++g) {
    const auto& rg = meta_.row_groups[g];
    json jg = {{"index", g},
               {"num_rows", rg.num_rows},
               {"first_row", stats_[g].first_row},
               {"total_byte_size", rg.total_byte_size}};
    if (rg.__isset.total_compressed_size) jg["total_compressed_size"] = rg.total_compressed_size;
    json cols = json::array();
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const auto& cc = rg.columns[c];
      const ColumnStats& cs = stats_[g].columns[c];
      json jc = {{"path", cs.path},
                 {"field_id", cs.field_id},
                 {"type", fs_.leaves[c].annotation},
                 {"floe_type", cs.type ? cs.type->ToString() : ""}};
      if (cc.__isset.meta_data) {
        const auto& md = cc.meta_data;
        jc["codec"] = CodecName(EnumValue(md.codec));
        json enc = json::array();
        for (const auto& e : md.encodings) enc.push_back(EncodingName(EnumValue(e)));
        jc["encodings"] = enc;
        jc["num_values"] = md.num_values;
        jc["total_compressed_size"] = md.total_compressed_size;
        jc["total_uncompressed_size"] = md.total_uncompressed_size;
        jc["data_page_offset"] = md.data_page_offset;
        if (md.__isset.dictionary_page_offset)
          jc["dictionary_page_offset"] = md.dictionary_page_offset;
        if (md.__isset.index_page_offset) jc["index_page_offset"] = md.index_page_offset;
        if (md.__isset.bloom_filter_offset) jc["bloom_filter_offset"] = md.bloom_filter_offset;
        if (md.__isset.bloom_filter_length) jc["bloom_filter_length"] = md.bloom_filter_length;
        if (md.__isset.statistics) {
          const auto& st = md.statistics;
          json js = json::object();
          if (st.__isset.null_count) js["null_count"] = st.null_count;
          if (st.__isset.distinct_count) js["distinct_count"] = st.distinct_count;
          if (st.__isset.nan_count) js["nan_count"] = st.nan_count;
          if (st.__isset.min_value) js["min_value_hex"] = Hex(st.min_value);
          if (st.__isset.max_value) js["max_value_hex"] = Hex(st.max_value);
          if (st.__isset.min) js["min_legacy_hex"] = Hex(st.min);
          if (st.__isset.max) js["max_legacy_hex"] = Hex(st.max);
          if (cs.lower) {
            js["lower_bound_hex"] = Hex(*cs.lower);
            js["lower_bound"] = BoundJson(*cs.type, *cs.lower);
          }
          if (cs.upper) {
            js["upper_bound_hex"] = Hex(*cs.upper);
            js["upper_bound"] = BoundJson(*cs.type, *cs.upper);
          }
          jc["statistics"] = js;
        }
      }
      if (cc.__isset.offset_index_offset) jc["offset_index_offset"] = cc.offset_index_offset;
      if (cc.__isset.offset_index_length) jc["offset_index_length"] = cc.offset_index_length;
      if (cc.__isset.column_index_offset) jc["column_index_offset"] = cc.column_index_offset;
      if (cc.__isset.column_index_length) jc["column_index_length"] = cc.column_index_length;
      cols.push_back(std::move(jc));
    }
    jg["columns"] = cols;
    groups.push_back(std::move(jg));
  }
  j["row_groups"] = groups;
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

// ---------------------------------------------------------------- FileReader

FileReader::FileReader(std::unique_ptr<FileReaderImpl> impl) : impl_(std::move(impl)) {}
FileReader::~FileReader() = default;

Result<std::unique_ptr<FileReader>> FileReader::Open(std::unique_ptr<InputFile> file,
                                                     ReaderOptions options) {
  if (!file) return InvalidArgument("Parquet reader: no input file");
  auto impl = std::make_unique<FileReaderImpl>();
  FLOE_RETURN_IF_ERROR(impl->Init(std::move(file), std::move(options)));
  return std::unique_ptr<FileReader>(new FileReader(std::move(impl)));
}

SchemaPtr FileReader::file_schema() const { return impl_->fs_.schema; }
SchemaPtr FileReader::read_schema() const { return impl_->read_schema_; }
bool FileReader::has_field_ids() const { return impl_->fs_.has_field_ids; }
int64_t FileReader::num_rows() const { return impl_->num_rows_; }
int FileReader::num_row_groups() const { return static_cast<int>(impl_->meta_.row_groups.size()); }
const std::vector<std::pair<std::string, std::string>>& FileReader::key_value_metadata() const {
  return impl_->kv_;
}
const RowGroupStats& FileReader::row_group_stats(int i) const { return impl_->stats_[i]; }
Result<bool> FileReader::Next(Batch* out) { return impl_->Next(out); }
int64_t FileReader::batch_first_row() const { return impl_->batch_first_row_; }
std::string FileReader::DescribeMetadata() const { return impl_->DescribeMetadata(); }

}  // namespace floe::parquet
