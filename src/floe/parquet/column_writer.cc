// Shredding (Dremel levels per leaf) and the typed column chunk writers: one
// template per physical type with a policy (how values are read, compared, hashed and
// PLAIN-encoded), pages cut on row boundaries, dictionary with PLAIN fallback, page and
// chunk statistics, page index entries and bloom filter hashes. See
// column_writer_internal.h.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

// Inlined: the dictionary hashes every value, mostly short strings.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "floe/parquet/column_writer_internal.h"
#include "floe/parquet/encoder.h"
#include "floe/parquet/rle_encoder.h"

namespace floe::parquet {

// ---------------------------------------------------------------------------------
// Shredding (Dremel levels). A walk per leaf from the top-level vector down its path.

namespace {

class Shredder {
 public:
  Shredder(const LeafColumn& leaf, LeafLevels* out) : leaf_(leaf), out_(out) {}

  Status Run(const ColumnVector& top, int64_t num_rows) {
    // Resolve the vector at each step once.
    cols_.resize(leaf_.steps.size());
    cols_[0] = &top;
    for (size_t k = 0; k + 1 < leaf_.steps.size(); ++k) {
      int child = leaf_.steps[k].child;
      if (child >= static_cast<int>(cols_[k]->children.size())) {
        return InvalidArgument("column '{}': vector has {} children, expected more",
                               leaf_.DottedPath(), cols_[k]->children.size());
      }
      cols_[k + 1] = &cols_[k]->children[child];
    }
    out_->leaf = cols_.back();
    out_->num_rows = num_rows;
    out_->def.clear();
    out_->rep.clear();
    out_->positions.clear();
    out_->row_level_start.clear();
    out_->row_value_start.clear();
    const bool flat = leaf_.steps.size() == 1;
    if (flat && (!top.has_nulls() || top.null_count() == 0)) {
      out_->identity = true;  // def stays empty: every level is max_def
      return Ok();
    }
    out_->identity = false;
    out_->row_level_start.reserve(num_rows + 1);
    out_->row_value_start.reserve(num_rows + 1);
    if (flat) {
      if (!leaf_.steps[0].optional) return NullInRequired(0);
      out_->def.resize(static_cast<size_t>(num_rows));
      out_->positions.reserve(static_cast<size_t>(num_rows));
      for (int64_t i = 0; i < num_rows; ++i) {
        out_->row_level_start.push_back(i);
        out_->row_value_start.push_back(static_cast<int64_t>(out_->positions.size()));
        bool valid = top.validity[i] != 0;
        out_->def[i] = valid ? 1 : 0;
        if (valid) out_->positions.push_back(i);
      }
      out_->row_level_start.push_back(num_rows);
      out_->row_value_start.push_back(static_cast<int64_t>(out_->positions.size()));
      return Ok();
    }
    for (int64_t i = 0; i < num_rows; ++i) {
      row_ = i;
      out_->row_level_start.push_back(static_cast<int64_t>(out_->def.size()));
      out_->row_value_start.push_back(static_cast<int64_t>(out_->positions.size()));
      FLOE_RETURN_IF_ERROR(Walk(0, i, 0, 0));
    }
    out_->row_level_start.push_back(static_cast<int64_t>(out_->def.size()));
    out_->row_value_start.push_back(static_cast<int64_t>(out_->positions.size()));
    if (leaf_.max_def == 0) out_->def.clear();
    if (leaf_.max_rep == 0) out_->rep.clear();
    return Ok();
  }

 private:
  void Emit(int16_t rep, int16_t def) {
    out_->def.push_back(def);
    out_->rep.push_back(rep);
  }

  Status NullInRequired(size_t k) {
    std::string name;
    for (size_t i = 0; i <= k && i < leaf_.iceberg_path.size(); ++i) {
      if (!name.empty()) name += '.';
      name += leaf_.iceberg_path[i];
    }
    return InvalidArgument("row {}: null in required field '{}' (column '{}')", row_,
                           name.empty() ? leaf_.DottedPath() : name, leaf_.DottedPath());
  }

  Status Walk(size_t k, int64_t i, int16_t rep, int16_t def) {
    const PathStep& step = leaf_.steps[k];
    const ColumnVector& col = *cols_[k];
    if (i >= col.length) {
      return InvalidArgument("row {}: column '{}' has {} values at depth {}, index {} needed",
                             row_, leaf_.DottedPath(), col.length, k, i);
    }
    if (col.IsNull(i)) {
      if (!step.optional) return NullInRequired(k);
      Emit(rep, def);
      return Ok();
    }
    if (step.optional) ++def;
    switch (step.kind) {
      case PathStep::Kind::kPrimitive:
        Emit(rep, def);
        out_->positions.push_back(i);
        return Ok();
      case PathStep::Kind::kStruct: return Walk(k + 1, i, rep, def);
      case PathStep::Kind::kList:
      case PathStep::Kind::kMap: {
        int64_t b = col.offsets[i];
        int64_t e = col.offsets[i + 1];
        if (b == e) {
          Emit(rep, def);
          return Ok();
        }
        for (int64_t j = b; j < e; ++j) {
          FLOE_RETURN_IF_ERROR(Walk(k + 1, j, j == b ? rep : step.rep_level, def + 1));
        }
        return Ok();
      }
    }
    return Ok();
  }

  const LeafColumn& leaf_;
  LeafLevels* out_;
  std::vector<const ColumnVector*> cols_;
  int64_t row_ = 0;
};

}  // namespace

Status ShredLeaf(const LeafColumn& leaf, const ColumnVector& top, int64_t num_rows,
                 LeafLevels* out) {
  return Shredder(leaf, out).Run(top, num_rows);
}

std::string DecimalIcebergBytes(int128_t v) {
  // Minimum number of bytes whose sign extension gives v back.
  int n = 16;
  while (n > 1) {
    int128_t lo = -(static_cast<int128_t>(1) << (8 * (n - 1) - 1));
    int128_t hi = (static_cast<int128_t>(1) << (8 * (n - 1) - 1)) - 1;
    if (v >= lo && v <= hi) {
      --n;
    } else {
      break;
    }
  }
  std::string out(static_cast<size_t>(n), '\0');
  auto u = static_cast<unsigned __int128>(v);
  for (int i = n - 1; i >= 0; --i) {
    out[i] = static_cast<char>(static_cast<uint8_t>(u));
    u >>= 8;
  }
  return out;
}

// ---------------------------------------------------------------------------------
// Type policies: how a physical type is read from a ColumnVector, compared, hashed and
// PLAIN-encoded.

namespace {

inline uint64_t MixHash(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

template <typename V, PhysicalType kP>
struct NumericPolicy {
  using T = V;
  static constexpr PhysicalType kPhysical = kP;
  static constexpr bool kIsBytes = false;
  static constexpr bool kIsFloat = std::is_floating_point_v<V>;
  static constexpr int kWidth = sizeof(V);
  static bool Less(T a, T b) {
    if constexpr (kIsFloat) {
      // -0.0 sorts before +0.0 (Iceberg bounds; PITFALLS 27, 91).
      return a < b || (a == b && std::signbit(a) && !std::signbit(b));
    } else {
      return a < b;
    }
  }
  static bool Eq(T a, T b) {
    if constexpr (kIsFloat) {
      return std::memcmp(&a, &b, sizeof(T)) == 0;
    } else {
      return a == b;
    }
  }
  static uint64_t Hash(T v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    return MixHash(bits);
  }
  static void Plain(T v, int /*width*/, Buffer* out) { out->Push(v); }
  static std::string_view PlainView(const T& v, int /*width*/, char* scratch) {
    std::memcpy(scratch, &v, sizeof(T));
    return std::string_view(scratch, sizeof(T));
  }
};

// Reads the value type straight out of the vector.
template <typename V, PhysicalType kP>
struct DirectPolicy : NumericPolicy<V, kP> {
  static constexpr bool kMemcpy = true;
  static V Get(const ColumnVector& c, int64_t i) { return c.data<V>()[i]; }
};

// A decimal held as int128 and written as INT32/INT64.
template <typename V, PhysicalType kP>
struct DecimalIntPolicy : NumericPolicy<V, kP> {
  static constexpr bool kMemcpy = false;
  static V Get(const ColumnVector& c, int64_t i) {
    return static_cast<V>(c.data<int128_t>()[i]);
  }
};

struct BoolPolicy {
  using T = bool;
  static constexpr PhysicalType kPhysical = PhysicalType::kBoolean;
  static constexpr bool kIsBytes = false;
  static constexpr bool kIsFloat = false;
  static constexpr bool kMemcpy = false;
  static constexpr int kWidth = 1;
  static T Get(const ColumnVector& c, int64_t i) { return c.data<uint8_t>()[i] != 0; }
  static bool Less(T a, T b) { return !a && b; }
  static bool Eq(T a, T b) { return a == b; }
  static uint64_t Hash(T v) { return v ? 1 : 0; }
  static void Plain(T v, int, Buffer* out) { out->Push(static_cast<uint8_t>(v)); }
  static std::string_view PlainView(const T& v, int, char* scratch) {
    scratch[0] = v ? 1 : 0;
    return std::string_view(scratch, 1);
  }
};

// Byte-string equality and unsigned order, inline: the strings are mostly short, and
// a library call per value costs more than the comparison.
inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline bool BytesEqual(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  if (n >= 8) {
    for (size_t i = 0; i + 8 <= n; i += 8) {
      if (Load64(x + i) != Load64(y + i)) return false;
    }
    return Load64(x + n - 8) == Load64(y + n - 8);  // the tail, overlapping
  }
  for (size_t i = 0; i < n; ++i) {
    if (x[i] != y[i]) return false;
  }
  return true;
}
inline bool BytesLess(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  const char* x = a.data();
  const char* y = b.data();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t u = Load64(x + i), v = Load64(y + i);
    if (u != v) return __builtin_bswap64(u) < __builtin_bswap64(v);
  }
  for (; i < n; ++i) {
    if (x[i] != y[i]) return static_cast<uint8_t>(x[i]) < static_cast<uint8_t>(y[i]);
  }
  return a.size() < b.size();
}

// BYTE_ARRAY (string, binary) and FIXED_LEN_BYTE_ARRAY (uuid, fixed): views into the
// vector's bytes. Compared unsigned bytewise (PITFALLS 26).
template <PhysicalType kP>
struct BytesPolicy {
  using T = std::string_view;
  static constexpr PhysicalType kPhysical = kP;
  static constexpr bool kIsBytes = true;
  static constexpr bool kIsFloat = false;
  static constexpr bool kMemcpy = false;
  static constexpr int kWidth = 0;
  static T Get(const ColumnVector& c, int64_t i) {
    if constexpr (kP == PhysicalType::kByteArray) {
      const int64_t* off = c.offsets.data();
      return T(reinterpret_cast<const char*>(c.values.data()) + off[i],
               static_cast<size_t>(off[i + 1] - off[i]));
    } else {
      return c.bytes(i);
    }
  }
  static bool Less(T a, T b) { return BytesLess(a, b); }
  static bool Eq(T a, T b) { return BytesEqual(a, b); }
  static uint64_t Hash(T v);
  static void Plain(T v, int, Buffer* out) {
    if constexpr (kP == PhysicalType::kByteArray) {
      uint32_t len = static_cast<uint32_t>(v.size());
      out->Push(len);
    }
    out->Append(v.data(), v.size());
  }
  static std::string_view PlainView(const T& v, int, char*) { return v; }
};
template <PhysicalType kP>
uint64_t BytesPolicy<kP>::Hash(T v) {
  return XXH3_64bits(v.data(), v.size());  // dictionary only; bloom filters use XXH64
}

// A decimal with precision > 18: int128 values, written as big-endian FLBA of the
// column's width, compared by signed value.
struct DecimalFlbaPolicy {
  using T = int128_t;
  static constexpr PhysicalType kPhysical = PhysicalType::kFixedLenByteArray;
  static constexpr bool kIsBytes = false;
  static constexpr bool kIsFloat = false;
  static constexpr bool kMemcpy = false;
  static constexpr int kWidth = 0;
  static T Get(const ColumnVector& c, int64_t i) { return c.data<int128_t>()[i]; }
  static bool Less(T a, T b) { return a < b; }
  static bool Eq(T a, T b) { return a == b; }
  static uint64_t Hash(T v) {
    return MixHash(static_cast<uint64_t>(v) ^ MixHash(static_cast<uint64_t>(v >> 64)));
  }
  static std::string_view PlainView(const T& v, int width, char* scratch) {
    auto u = static_cast<unsigned __int128>(v);
    for (int i = width - 1; i >= 0; --i) {
      scratch[i] = static_cast<char>(static_cast<uint8_t>(u));
      u >>= 8;
    }
    return std::string_view(scratch, static_cast<size_t>(width));
  }
  static void Plain(T v, int width, Buffer* out) {
    char scratch[16];
    out->Append(PlainView(v, width, scratch).data(), static_cast<size_t>(width));
  }
};

// Owned copy of a value, for statistics and the dictionary.
template <typename P>
using Owned = std::conditional_t<P::kIsBytes, std::string, typename P::T>;

template <typename P>
struct MinMax {
  bool has = false;
  Owned<P> min{}, max{};
  int64_t nulls = 0;
  int64_t nans = 0;
  void Update(const typename P::T& v) {
    if (!has) {
      min = Owned<P>(v);
      max = Owned<P>(v);
      has = true;
      return;
    }
    if (P::Less(v, typename P::T(min))) {
      min = Owned<P>(v);
    } else if (P::Less(typename P::T(max), v)) {
      max = Owned<P>(v);
    }
  }
  void Merge(const MinMax& o) {
    nulls += o.nulls;
    nans += o.nans;
    if (!o.has) return;
    Update(typename P::T(o.min));
    Update(typename P::T(o.max));
  }
  void Reset() {
    has = false;
    nulls = nans = 0;
  }
};

constexpr size_t kMaxStatBytes = 4096;

// A dictionary hash slot: index + 1 (0: empty), the high half of the value's hash,
// and for byte arrays where its bytes are, so a lookup reads the dictionary's bytes
// only for a likely match.
struct DictSlot {
  uint32_t idx1 = 0, tag = 0, off = 0, len = 0;
};  // larger byte-array bounds are left out of stats


// ---------------------------------------------------------------------------------

template <typename P>
class TypedChunkWriter final : public ColumnChunkWriter {
  using T = typename P::T;
  enum class Mode { kPlain, kDictionary, kDelta, kBss };

 public:
  explicit TypedChunkWriter(const ColumnWriterConfig& c) : cfg_(c), leaf_(*c.leaf) {
    width_ = leaf_.type_length > 0 ? leaf_.type_length : P::kWidth;
    initial_mode_ = c.encoding == ColumnEncoding::kDictionary ? Mode::kDictionary
                    : c.encoding == ColumnEncoding::kDelta    ? Mode::kDelta
                    : c.encoding == ColumnEncoding::kByteStreamSplit ? Mode::kBss
                                                                     : Mode::kPlain;
    StartChunk();
  }

  Status Write(const LeafLevels& lv, int64_t row_begin, int64_t row_end) override {
    int64_t r = row_begin;
    while (r < row_end) {
      int64_t remaining = row_end - r;
      int64_t n = std::min(remaining, cfg_.page_row_limit - page_rows_);
      // Keep pages near page_size_bytes even for wide rows.
      int64_t budget = std::max<int64_t>(cfg_.page_size_bytes - PageBytes(), 1);
      if (chunk_rows_ + page_rows_ > 0) {
        int64_t per_row = std::max<int64_t>(1, (chunk_bytes_est_ + PageBytes()) /
                                                   (chunk_rows_ + page_rows_));
        n = std::min(n, budget / per_row + 1);
      } else {
        n = std::min<int64_t>(n, 64);
      }
      n = std::max<int64_t>(n, 1);
      WriteRows(lv, r, r + n);
      r += n;
      if (page_rows_ >= cfg_.page_row_limit || PageBytes() >= cfg_.page_size_bytes) {
        FLOE_RETURN_IF_ERROR(FlushPage());
      }
      if (mode_ == Mode::kDictionary && DictBytes() > cfg_.dict_size_bytes) {
        // Fall back to PLAIN for the rest of the chunk (the pages so far keep the
        // dictionary).
        if (page_levels_ > 0) FLOE_RETURN_IF_ERROR(FlushPage());
        mode_ = Mode::kPlain;
      }
    }
    return Ok();
  }

  int64_t BufferedBytes() const override {
    if (pending_reset_) return 0;
    return pages_bytes_ + PageBytes() + DictBytes();
  }

  int64_t EstimatedBytes() const override {
    if (pending_reset_) return 0;
    // Too few compressed bytes to go by: count raw bytes as they are.
    constexpr int64_t kMinMeasured = 4096;
    const double ratio = sizes_.retired_raw >= kMinMeasured
                             ? double(sizes_.retired_packed) / double(sizes_.retired_raw)
                             : 1.0;
    const double dict_ratio = dict_probe_raw_ > 0 ? double(dict_probe_packed_) / double(dict_probe_raw_) : ratio;
    const int64_t retired = pages_bytes_ - sizes_.inflight_raw;  // this chunk's compressed pages
    return retired + static_cast<int64_t>(ratio * double(sizes_.inflight_raw + PageBytes()) +
                                          dict_ratio * double(DictBytes()));
  }

  /// Encodes the dictionary as a PLAIN dictionary page and compresses it into
  /// dict_job_ (its body kept until the caller gives it back).
  Status CompressDictionary() {
    PageJob& dj = dict_job_;
    cfg_.pool->GiveBuffer(std::move(dj.out));
    dj.body = cfg_.pool->TakeBuffer();
    EncodeDictionaryPlain(&dj.body);
    dj.body_begin = 0;
    dj.prefix.Clear();
    format::PageHeader h;
    h.__set_type(format::PageType::DICTIONARY_PAGE);
    format::DictionaryPageHeader dh;
    dh.__set_num_values(static_cast<int32_t>(DictSize()));
    dh.__set_encoding(format::Encoding::PLAIN);
    h.__set_dictionary_page_header(dh);
    dj.header = std::move(h);
    if (Status st = cfg_.pool->Run(&dj); !st) {
      return Fail(std::move(st).error().WithContext(fmt::format("column '{}'", leaf_.DottedPath())));
    }
    return Ok();
  }

  Status Settle() override {
    if (pending_reset_) return Ok();
    if (page_levels_ > 0) FLOE_RETURN_IF_ERROR(FlushPage());
    for (auto& job : jobs_) {
      if (Status st = cfg_.pool->Retire(job.get()); !st) {
        return Fail(std::move(st).error().WithContext(fmt::format("column '{}'", leaf_.DottedPath())));
      }
    }
    // The dictionary page is compressed when the chunk ends: compress it once
    // now to learn its ratio (plain values compress unlike the indices).
    if (DictBytes() >= 1024 && cfg_.codec != Codec::kUncompressed) {
      FLOE_RETURN_IF_ERROR(CompressDictionary());
      PageJob& dj = dict_job_;
      dict_probe_raw_ = static_cast<int64_t>(dj.body.size());
      dict_probe_packed_ = dj.page_size();
      cfg_.pool->GiveBuffer(std::move(dj.body));
    }
    return Ok();
  }

  Status FinishChunk(ChunkOutput* out) override {
    if (page_levels_ > 0 || num_pages_ == 0) FLOE_RETURN_IF_ERROR(FlushPage());
    // Wait for this chunk's pages; their final sizes give the page offsets.
    int64_t data_size = 0;
    int64_t uncompressed_total = 0;
    out->data_pages.clear();
    for (size_t i = 0; i < jobs_.size(); ++i) {
      PageJob& job = *jobs_[i];
      if (Status st = cfg_.pool->Retire(&job); !st) {
        return Fail(std::move(st).error().WithContext(fmt::format("column '{}'", leaf_.DottedPath())));
      }
      page_locations_[i].__set_offset(data_size);
      page_locations_[i].__set_compressed_page_size(static_cast<int32_t>(job.page_size()));
      data_size += job.page_size();
      uncompressed_total += job.header_size + job.uncompressed_size;
      out->data_pages.push_back({job.page_data(), job.page_size()});
    }
    out->dictionary_data = nullptr;
    out->dictionary_size = 0;
    std::vector<format::Encoding::type> encodings;
    auto add_enc = [&](format::Encoding::type e) {
      if (std::find(encodings.begin(), encodings.end(), e) == encodings.end()) encodings.push_back(e);
    };
    std::vector<format::PageEncodingStats> enc_stats;
    if (dict_used_) {
      FLOE_RETURN_IF_ERROR(CompressDictionary());
      PageJob& dj = dict_job_;
      cfg_.pool->GiveBuffer(std::move(dj.body));
      uncompressed_total += dj.header_size + dj.uncompressed_size;
      out->dictionary_data = dj.page_data();
      out->dictionary_size = dj.page_size();
      add_enc(format::Encoding::PLAIN);
      format::PageEncodingStats s;
      s.__set_page_type(format::PageType::DICTIONARY_PAGE);
      s.__set_encoding(format::Encoding::PLAIN);
      s.__set_count(1);
      enc_stats.push_back(s);
    }
    if (leaf_.max_def > 0 || leaf_.max_rep > 0) add_enc(format::Encoding::RLE);
    for (auto e : data_encodings_) add_enc(e);
    format::PageType::type dpt = cfg_.page_version == PageVersion::kV2
                                     ? format::PageType::DATA_PAGE_V2
                                     : format::PageType::DATA_PAGE;
    for (auto e : data_encodings_) {
      format::PageEncodingStats s;
      s.__set_page_type(dpt);
      s.__set_encoding(e);
      int32_t count = 0;
      for (auto pe : page_encodings_) count += pe == e;
      s.__set_count(count);
      enc_stats.push_back(s);
    }
    const int64_t dict_size = out->dictionary_size;

    format::ColumnMetaData& m = out->meta;
    m = format::ColumnMetaData();
    m.__set_type(static_cast<format::Type::type>(P::kPhysical));
    m.__set_encodings(encodings);
    m.__set_path_in_schema(leaf_.path);
    m.__set_codec(CodecId());
    m.__set_num_values(chunk_levels_);
    m.__set_total_uncompressed_size(uncompressed_total);
    m.__set_total_compressed_size(dict_size + data_size);
    m.__set_data_page_offset(dict_size);
    if (dict_used_) m.__set_dictionary_page_offset(0);
    m.__set_encoding_stats(enc_stats);
    if (cfg_.statistics) m.__set_statistics(MakeStats(chunk_stats_, true));

    out->offset_index = format::OffsetIndex();
    std::vector<format::PageLocation> locs = page_locations_;
    for (auto& l : locs) l.offset += dict_size;
    out->offset_index.__set_page_locations(locs);
    out->column_index.reset();
    if (cfg_.page_index && cfg_.statistics && column_index_ok_) {
      format::ColumnIndex ci;
      ci.__set_null_pages(ci_null_pages_);
      ci.__set_min_values(ci_min_);
      ci.__set_max_values(ci_max_);
      ci.__set_null_counts(ci_null_counts_);
      ci.__set_boundary_order(BoundaryOrder());
      out->column_index = std::move(ci);
    }
    out->bloom.reset();
    if (cfg_.bloom_filter) {
      std::sort(bloom_hashes_.begin(), bloom_hashes_.end());
      bloom_hashes_.erase(std::unique(bloom_hashes_.begin(), bloom_hashes_.end()),
                          bloom_hashes_.end());
      BloomFilter bf(BloomFilterBytes(bloom_hashes_.size(), cfg_.bloom_fpp,
                                      static_cast<size_t>(cfg_.bloom_max_bytes)));
      for (uint64_t h : bloom_hashes_) bf.InsertHash(h);
      out->bloom = std::move(bf);
    }
    // File-level metrics.
    file_stats_.Merge(chunk_stats_);
    file_levels_ += chunk_levels_;
    file_compressed_ += dict_size + data_size;
    // Reset for the next chunk, but keep the pages alive for the caller.
    pending_reset_ = true;
    return Ok();
  }

  void FillMetrics(ColumnMetrics* m) const override {
    m->field_id = leaf_.field_id;
    m->path = leaf_.path;
    m->compressed_size = file_compressed_;
    m->value_count = file_levels_;
    m->null_count = file_stats_.nulls;
    if (P::kIsFloat) {
      m->nan_count = file_stats_.nans;
    } else {
      m->nan_count.reset();
    }
    if (file_stats_.has) {
      m->lower_bound = IcebergBound(file_stats_.min);
      m->upper_bound = IcebergBound(file_stats_.max);
    } else {
      m->lower_bound.reset();
      m->upper_bound.reset();
    }
  }

 private:
  // ---- chunk / page state ----
  void StartChunk() {
    for (auto& job : jobs_) cfg_.pool->GiveBuffer(std::move(job->out));
    jobs_.clear();
    pages_bytes_ = 0;
    mode_ = initial_mode_;
    dict_used_ = false;
    ClearDict();
    chunk_stats_.Reset();
    chunk_levels_ = 0;
    chunk_rows_ = 0;
    chunk_bytes_est_ = 0;
    num_pages_ = 0;
    data_encodings_.clear();
    page_encodings_.clear();
    page_locations_.clear();
    ci_null_pages_.clear();
    ci_min_.clear();
    ci_max_.clear();
    ci_null_counts_.clear();
    column_index_ok_ = true;
    bloom_hashes_.clear();
    ResetPage();
    pending_reset_ = false;
  }

  void ResetPage() {
    page_def_.clear();
    page_def_max_run_ = 0;
    ++page_serial_;
    page_rep_.clear();
    page_values_.Resize(kPageHeadroom);
    page_indices_.clear();
    page_ints_.clear();
    page_lengths_.clear();
    page_bools_.clear();
    page_stats_.Reset();
    page_levels_ = 0;
    page_rows_ = 0;
    page_nonnull_ = 0;
  }

  int64_t PageBytes() const {
    int64_t levels =
        static_cast<int64_t>(page_def_.size() + page_rep_.size()) / 4 + page_def_max_run_ / 4;
    switch (mode_) {
      case Mode::kDictionary:
        return levels + static_cast<int64_t>(page_indices_.size()) * (DictBitWidth() + 1) / 8;
      case Mode::kDelta:
        return levels + static_cast<int64_t>(page_ints_.size()) * 4 +
               static_cast<int64_t>(PageValuesSize());
      default:
        return levels + static_cast<int64_t>(PageValuesSize()) +
               static_cast<int64_t>(page_bools_.size()) / 8;
    }
  }

  // ---- writing rows ----
  void WriteRows(const LeafLevels& lv, int64_t r0, int64_t r1) {
    if (pending_reset_) StartChunk();
    int64_t l0, l1, v0, v1;
    if (lv.identity) {
      l0 = r0;
      l1 = r1;
      v0 = r0;
      v1 = r1;
    } else {
      l0 = lv.row_level_start[r0];
      l1 = lv.row_level_start[r1];
      v0 = lv.row_value_start[r0];
      v1 = lv.row_value_start[r1];
    }
    if (leaf_.max_def > 0) {
      if (lv.identity) {
        // Every level is max_def: count them while the page holds nothing else.
        if (page_def_.empty()) {
          page_def_max_run_ += l1 - l0;
        } else {
          page_def_.insert(page_def_.end(), static_cast<size_t>(l1 - l0), leaf_.max_def);
        }
      } else {
        if (page_def_max_run_ > 0) {
          page_def_.assign(static_cast<size_t>(page_def_max_run_), leaf_.max_def);
          page_def_max_run_ = 0;
        }
        page_def_.insert(page_def_.end(), lv.def.begin() + l0, lv.def.begin() + l1);
      }
    }
    if (!lv.rep.empty()) page_rep_.insert(page_rep_.end(), lv.rep.begin() + l0, lv.rep.begin() + l1);
    const int64_t nvals = v1 - v0;
    page_levels_ += l1 - l0;
    page_rows_ += r1 - r0;
    page_nonnull_ += nvals;
    page_stats_.nulls += (l1 - l0) - nvals;
    const ColumnVector& col = *lv.leaf;
    const int64_t* pos = lv.identity ? nullptr : lv.positions.data() + v0;
    if (lv.identity) {
      EncodeValues<true>(col, nullptr, v0, nvals);
    } else {
      EncodeValues<false>(col, pos, 0, nvals);
    }
  }

  template <bool kIdentity>
  void EncodeValues(const ColumnVector& col, const int64_t* pos, int64_t base, int64_t n) {
    auto at = [&](int64_t k) -> int64_t {
      if constexpr (kIdentity) {
        return base + k;
      } else {
        return pos[k];
      }
    };
    // Statistics (byte arrays in dictionary mode: in the dictionary loop below, once
    // per distinct value of the page).
    const bool dict_stats = P::kIsBytes && mode_ == Mode::kDictionary;
    if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
      // Integers: a branch-free min/max over the slice, then one update each.
      if (!dict_stats && n > 0) {
        T lo = P::Get(col, at(0)), hi = lo;
        for (int64_t k = 1; k < n; ++k) {
          T v = P::Get(col, at(k));
          lo = v < lo ? v : lo;
          hi = v > hi ? v : hi;
        }
        page_stats_.Update(lo);
        page_stats_.Update(hi);
      }
    } else if (!dict_stats) {
      MinMax<P>& s = page_stats_;
      for (int64_t k = 0; k < n; ++k) {
        T v = P::Get(col, at(k));
        if constexpr (P::kIsFloat) {
          if (std::isnan(v)) {
            ++s.nans;
            continue;
          }
        }
        s.Update(v);
      }
    }
    if (cfg_.bloom_filter) {
      char scratch[16];
      for (int64_t k = 0; k < n; ++k) {
        T v = P::Get(col, at(k));
        std::string_view b = P::PlainView(v, width_, scratch);
        bloom_hashes_.push_back(BloomHash(b.data(), b.size()));
      }
    }
    switch (mode_) {
      case Mode::kPlain:
      case Mode::kBss:
        if constexpr (std::is_same_v<P, BoolPolicy>) {
          const size_t start = page_bools_.size();
          page_bools_.resize(start + static_cast<size_t>(n));
          uint8_t* dst = page_bools_.data() + start;
          const uint8_t* src = col.data<uint8_t>();
          for (int64_t k = 0; k < n; ++k) dst[k] = src[at(k)] != 0 ? 1 : 0;
        } else if constexpr (P::kMemcpy) {
          if constexpr (kIdentity) {
            page_values_.Append(col.data<T>() + base, static_cast<size_t>(n) * sizeof(T));
          } else {
            size_t start = page_values_.size();
            page_values_.Resize(start + static_cast<size_t>(n) * sizeof(T));
            T* dst = reinterpret_cast<T*>(page_values_.data() + start);
            const T* src = col.data<T>();
            for (int64_t k = 0; k < n; ++k) dst[k] = src[at(k)];
          }
        } else {
          for (int64_t k = 0; k < n; ++k) P::Plain(P::Get(col, at(k)), width_, &page_values_);
        }
        break;
      case Mode::kDictionary: {
        const size_t start = page_indices_.size();
        page_indices_.resize(start + static_cast<size_t>(n));
        uint32_t* dst = page_indices_.data() + start;
        // Hash a few values ahead and prefetch their slots: the lookups are random
        // and each one would otherwise wait for its slot.
        constexpr int64_t kAhead = 8;
        T vals[kAhead];
        uint64_t hashes[kAhead];
        MinMax<P>& s = page_stats_;
        for (int64_t k0 = 0; k0 < n; k0 += kAhead) {
          const int64_t m = std::min(kAhead, n - k0);
          const size_t mask = slots_.size() - 1;
          for (int64_t j = 0; j < m; ++j) {
            vals[j] = P::Get(col, at(k0 + j));
            hashes[j] = P::Hash(vals[j]);
            __builtin_prefetch(&slots_[static_cast<size_t>(hashes[j]) & mask]);
          }
          if constexpr (P::kIsBytes) {
            // Then the bytes of the entry each first slot points at (the likely match).
            for (int64_t j = 0; j < m; ++j) {
              const DictSlot& slot = slots_[static_cast<size_t>(hashes[j]) & mask];
              if (slot.idx1 != 0) __builtin_prefetch(dict_bytes_.data() + slot.off);
            }
          }
          for (int64_t j = 0; j < m; ++j) {
            const uint32_t idx = DictIndex(vals[j], hashes[j]);
            dst[k0 + j] = idx;
            if constexpr (P::kIsBytes) {
              if (dict_page_seen_[idx] != page_serial_) {
                dict_page_seen_[idx] = page_serial_;
                s.Update(vals[j]);
              }
            }
          }
        }
        break;
      }
      case Mode::kDelta:
        if constexpr (P::kIsBytes) {
          for (int64_t k = 0; k < n; ++k) {
            T v = P::Get(col, at(k));
            page_lengths_.push_back(static_cast<int64_t>(v.size()));
            page_values_.Append(v.data(), v.size());
          }
        } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                             sizeof(T) <= 8) {
          for (int64_t k = 0; k < n; ++k) page_ints_.push_back(static_cast<int64_t>(P::Get(col, at(k))));
        }
        break;
    }
  }

  // ---- dictionary ----
  void ClearDict() {
    dict_values_.clear();
    dict_bytes_.Clear();
    dict_offsets_.clear();
    dict_hashes_.clear();
    slots_.assign(1024, DictSlot());
    dict_page_seen_.clear();
    dict_plain_bytes_ = 0;
  }
  size_t DictSize() const {
    if constexpr (P::kIsBytes) {
      return dict_offsets_.size();
    } else {
      return dict_values_.size();
    }
  }
  int64_t DictBytes() const { return mode_ == Mode::kDictionary || dict_used_ ? dict_plain_bytes_ : 0; }
  int DictBitWidth() const {
    return std::max(1, BitWidth(DictSize() > 0 ? DictSize() - 1 : 0));
  }
  T DictValue(size_t idx) const {
    if constexpr (P::kIsBytes) {
      uint32_t off = dict_offsets_[idx];
      uint32_t end = idx + 1 < dict_offsets_.size() ? dict_offsets_[idx + 1]
                                                    : static_cast<uint32_t>(dict_bytes_.size());
      return T(reinterpret_cast<const char*>(dict_bytes_.data()) + off, end - off);
    } else {
      return dict_values_[idx];
    }
  }
  // The dictionary index of `v` (hash `h`), adding it when new.
  uint32_t DictIndex(const T& v, uint64_t h) {
    size_t mask = slots_.size() - 1;
    size_t s = static_cast<size_t>(h) & mask;
    const uint32_t tag = static_cast<uint32_t>(h >> 32);
    while (true) {
      const DictSlot& slot = slots_[s];
      if (slot.idx1 == 0) break;
      if (slot.tag == tag) {
        const uint32_t idx = slot.idx1 - 1;
        if constexpr (P::kIsBytes) {
          if (slot.len == v.size() &&
              BytesEqual(T(reinterpret_cast<const char*>(dict_bytes_.data()) + slot.off, slot.len), v)) {
            return idx;
          }
        } else {
          if (P::Eq(dict_values_[idx], v)) return idx;
        }
      }
      s = (s + 1) & mask;
    }
    uint32_t idx = static_cast<uint32_t>(DictSize());
    if constexpr (P::kIsBytes) {
      dict_offsets_.push_back(static_cast<uint32_t>(dict_bytes_.size()));
      dict_bytes_.Append(v.data(), v.size());
      dict_plain_bytes_ += static_cast<int64_t>(v.size()) +
                           (P::kPhysical == PhysicalType::kByteArray ? 4 : 0);
    } else {
      dict_values_.push_back(v);
      dict_plain_bytes_ += width_ > 0 ? width_ : 1;
    }
    dict_hashes_.push_back(h);
    if constexpr (P::kIsBytes) dict_page_seen_.push_back(0);
    slots_[s] = MakeSlot(idx, h);
    if (DictSize() * 2 > slots_.size()) Rehash();
    return idx;
  }
  DictSlot MakeSlot(uint32_t idx, uint64_t h) const {
    DictSlot slot;
    slot.idx1 = idx + 1;
    slot.tag = static_cast<uint32_t>(h >> 32);
    if constexpr (P::kIsBytes) {
      slot.off = dict_offsets_[idx];
      slot.len = static_cast<uint32_t>(DictValue(idx).size());
    }
    return slot;
  }
  void Rehash() {
    slots_.assign(slots_.size() * 2, DictSlot());
    size_t mask = slots_.size() - 1;
    for (size_t i = 0; i < dict_hashes_.size(); ++i) {
      size_t s = static_cast<size_t>(dict_hashes_[i]) & mask;
      while (slots_[s].idx1 != 0) s = (s + 1) & mask;
      slots_[s] = MakeSlot(static_cast<uint32_t>(i), dict_hashes_[i]);
    }
  }
  void EncodeDictionaryPlain(Buffer* out) const {
    if constexpr (std::is_same_v<P, BoolPolicy>) {
      return;
    } else {
      for (size_t i = 0; i < DictSize(); ++i) P::Plain(DictValue(i), width_, out);
    }
  }

  // ---- pages ----
  format::CompressionCodec::type CodecId() const {
    switch (cfg_.codec) {
      case Codec::kSnappy: return format::CompressionCodec::SNAPPY;
      case Codec::kGzip: return format::CompressionCodec::GZIP;
      case Codec::kBrotli: return format::CompressionCodec::BROTLI;
      case Codec::kZstd: return format::CompressionCodec::ZSTD;
      case Codec::kLz4Raw: return format::CompressionCodec::LZ4_RAW;
      default: return format::CompressionCodec::UNCOMPRESSED;
    }
  }

  // Cuts the open page: encodes its levels and values into a PageJob (V1: levels
  // in the headroom in front of the values; V2: levels as the uncompressed prefix)
  // and hands it to the pool, which compresses it and serializes its header.
  Status FlushPage() {
    if (pending_reset_) StartChunk();
    const bool v2 = cfg_.page_version == PageVersion::kV2;
    // Levels.
    levels_.Clear();
    int32_t rep_len = 0, def_len = 0;
    auto put_levels = [&](const std::vector<int16_t>& lv, int16_t max, int32_t* len,
                          int64_t max_run) {
      if (max == 0) return;
      size_t start = levels_.size();
      if (!v2) levels_.Resize(start + 4);
      size_t data_start = levels_.size();
      const int width = BitWidth(static_cast<uint64_t>(max));
      if (max_run > 0) {
        // The same bytes EncodeRleBitPacked gives for max_run copies of max.
        RleBitPackedEncoder enc(width, &levels_);
        enc.PutRepeated(static_cast<uint32_t>(max), static_cast<size_t>(max_run));
        enc.Finish();
      } else {
        EncodeRleBitPacked(lv.data(), lv.size(), width, &levels_);
      }
      uint32_t n = static_cast<uint32_t>(levels_.size() - data_start);
      if (!v2) std::memcpy(levels_.data() + start, &n, 4);
      *len = static_cast<int32_t>(levels_.size() - start);
    };
    put_levels(page_rep_, leaf_.max_rep, &rep_len, 0);
    put_levels(page_def_, leaf_.max_def, &def_len, page_def_max_run_);
    if (mode_ == Mode::kDictionary && num_pages_ == 0 && !dict_used_) MaybeAbandonDictionary();
    // Values, after kPageHeadroom free bytes.
    auto job = std::make_unique<PageJob>();
    Buffer& body = job->body;
    auto fresh_body = [&] {
      body = cfg_.pool->TakeBuffer();
      body.Resize(kPageHeadroom);
    };
    format::Encoding::type enc = format::Encoding::PLAIN;
    switch (mode_) {
      case Mode::kPlain:
        if constexpr (std::is_same_v<P, BoolPolicy>) {
          fresh_body();
          AppendPlainBools(&body);
        } else {
          // The values are already laid out after the headroom: hand the buffer over.
          body = std::move(page_values_);
          page_values_ = cfg_.pool->TakeBuffer();
          page_values_.Resize(kPageHeadroom);
        }
        break;
      case Mode::kDictionary:
        fresh_body();
        if (page_indices_.empty() && DictSize() == 0) {
          enc = format::Encoding::PLAIN;  // nothing to index
        } else {
          enc = format::Encoding::RLE_DICTIONARY;
          uint8_t w = static_cast<uint8_t>(DictBitWidth());
          body.Append(&w, 1);
          EncodeRleBitPacked(page_indices_.data(), page_indices_.size(), w, &body);
          dict_used_ = true;
        }
        break;
      case Mode::kDelta:
        fresh_body();
        if constexpr (P::kIsBytes) {
          enc = format::Encoding::DELTA_LENGTH_BYTE_ARRAY;
          EncodeDeltaLengthByteArray(page_lengths_.data(), page_lengths_.size(), PageValuesData(),
                                     PageValuesSize(), &body);
        } else {
          enc = format::Encoding::DELTA_BINARY_PACKED;
          EncodeDeltaBinaryPacked(page_ints_.data(), page_ints_.size(),
                                  P::kPhysical == PhysicalType::kInt32, &body);
        }
        break;
      case Mode::kBss:
        fresh_body();
        enc = format::Encoding::BYTE_STREAM_SPLIT;
        if (width_ > 0) {
          EncodeByteStreamSplit(PageValuesData(), PageValuesSize() / width_, width_, &body);
        }
        break;
    }
    format::PageHeader& h = job->header;
    format::Statistics st;
    bool with_stats = cfg_.statistics;
    if (with_stats) st = MakeStats(page_stats_, false);
    if (v2) {
      h.__set_type(format::PageType::DATA_PAGE_V2);
      format::DataPageHeaderV2 d;
      d.__set_num_values(static_cast<int32_t>(page_levels_));
      d.__set_num_nulls(static_cast<int32_t>(page_levels_ - page_nonnull_));
      d.__set_num_rows(static_cast<int32_t>(page_rows_));
      d.__set_encoding(enc);
      d.__set_definition_levels_byte_length(def_len);
      d.__set_repetition_levels_byte_length(rep_len);
      d.__set_is_compressed(cfg_.codec != Codec::kUncompressed);
      if (with_stats) d.__set_statistics(st);
      h.__set_data_page_header_v2(d);
      job->prefix = cfg_.pool->TakeBuffer();
      job->prefix.Append(levels_.data(), levels_.size());
      job->body_begin = kPageHeadroom;
    } else {
      h.__set_type(format::PageType::DATA_PAGE);
      format::DataPageHeader d;
      d.__set_num_values(static_cast<int32_t>(page_levels_));
      d.__set_encoding(enc);
      d.__set_definition_level_encoding(format::Encoding::RLE);
      d.__set_repetition_level_encoding(format::Encoding::RLE);
      if (with_stats) d.__set_statistics(st);
      h.__set_data_page_header(d);
      // v1: levels and values are compressed together.
      if (levels_.size() <= kPageHeadroom) {
        job->body_begin = kPageHeadroom - levels_.size();
        if (!levels_.empty()) std::memcpy(body.data() + job->body_begin, levels_.data(), levels_.size());
      } else {
        Buffer joined = cfg_.pool->TakeBuffer();
        joined.Reserve(levels_.size() + body.size() - kPageHeadroom);
        joined.Append(levels_.data(), levels_.size());
        joined.Append(body.data() + kPageHeadroom, body.size() - kPageHeadroom);
        cfg_.pool->GiveBuffer(std::move(body));
        body = std::move(joined);
        job->body_begin = 0;
      }
    }
    job->owner_bytes = &pages_bytes_;
    job->sizes = &sizes_;
    if (Status s = cfg_.pool->Submit(job.get()); !s) {
      return Fail(std::move(s).error().WithContext(fmt::format("column '{}'", leaf_.DottedPath())));
    }
    jobs_.push_back(std::move(job));
    if (std::find(data_encodings_.begin(), data_encodings_.end(), enc) == data_encodings_.end()) {
      data_encodings_.push_back(enc);
    }
    page_encodings_.push_back(enc);
    // Page index entries (offsets and sizes are known when the chunk ends).
    format::PageLocation loc;
    loc.__set_first_row_index(chunk_rows_);
    page_locations_.push_back(loc);
    bool null_page = page_nonnull_ == 0;
    ci_null_pages_.push_back(null_page);
    ci_null_counts_.push_back(page_stats_.nulls);
    if (null_page) {
      ci_min_.emplace_back();
      ci_max_.emplace_back();
    } else if (st.__isset.min_value && st.__isset.max_value) {
      ci_min_.push_back(st.min_value);
      ci_max_.push_back(st.max_value);
    } else {
      column_index_ok_ = false;
      ci_min_.emplace_back();
      ci_max_.emplace_back();
    }
    // Roll the page into the chunk.
    chunk_stats_.Merge(page_stats_);
    chunk_levels_ += page_levels_;
    chunk_rows_ += page_rows_;
    chunk_bytes_est_ += PageBytes();
    ++num_pages_;
    ResetPage();
    return Ok();
  }

  // After the first page of a chunk: when indices plus dictionary are no smaller than
  // the PLAIN values, the dictionary does not pay; the page and the rest of the chunk
  // are written PLAIN (as parquet-mr does).
  void MaybeAbandonDictionary() {
    if constexpr (!std::is_same_v<P, BoolPolicy>) {
      int64_t plain = 0;
      for (uint32_t idx : page_indices_) {
        if constexpr (P::kIsBytes) {
          plain += static_cast<int64_t>(DictValue(idx).size()) +
                   (P::kPhysical == PhysicalType::kByteArray ? 4 : 0);
        } else {
          plain += width_;
        }
      }
      int64_t encoded = static_cast<int64_t>(page_indices_.size()) * DictBitWidth() / 8 + 1 +
                        dict_plain_bytes_;
      if (encoded < plain) return;
      page_values_.Resize(kPageHeadroom);
      page_values_.Reserve(kPageHeadroom + static_cast<size_t>(plain));
      for (uint32_t idx : page_indices_) P::Plain(DictValue(idx), width_, &page_values_);
      page_indices_.clear();
      ClearDict();
      mode_ = Mode::kPlain;
    }
  }

  // Bit-packed, LSB first (PITFALLS 16).
  void AppendPlainBools(Buffer* out) const {
    size_t n = page_bools_.size();
    if (n == 0) return;
    size_t start = out->size();
    out->Resize(start + (n + 7) / 8);
    uint8_t* dst = out->data() + start;
    std::memset(dst, 0, (n + 7) / 8);
    for (size_t i = 0; i < n; ++i) dst[i >> 3] |= static_cast<uint8_t>(page_bools_[i] << (i & 7));
  }

  // The open page's PLAIN (or BYTE_STREAM_SPLIT / delta byte) values, after the headroom.
  const uint8_t* PageValuesData() const { return page_values_.data() + kPageHeadroom; }
  size_t PageValuesSize() const { return page_values_.size() - kPageHeadroom; }

  // PLAIN bytes of a bound, or nothing for byte arrays past kMaxStatBytes.
  std::optional<std::string> StatBytes(const Owned<P>& v) const {
    char scratch[16];
    std::string_view b = P::PlainView(typename P::T(v), width_, scratch);
    if (b.size() > kMaxStatBytes) return std::nullopt;
    return std::string(b);
  }

  format::Statistics MakeStats(const MinMax<P>& s, bool /*chunk*/) const {
    format::Statistics st;
    st.__set_null_count(s.nulls);
    if constexpr (P::kIsFloat) st.__set_nan_count(s.nans);
    if (!s.has) return st;
    Owned<P> lo = s.min, hi = s.max;
    if constexpr (P::kIsFloat) {
      if (lo == 0) lo = -0.0;  // PITFALLS 27
      if (hi == 0) hi = +0.0;
    }
    auto mn = StatBytes(lo);
    auto mx = StatBytes(hi);
    if (!mn || !mx) return st;
    st.__set_min_value(*mn);
    st.__set_max_value(*mx);
    st.__set_is_min_value_exact(true);
    st.__set_is_max_value_exact(true);
    // Legacy signed min/max only where signed order is the type's order.
    constexpr bool kLegacy = !P::kIsBytes && !std::is_same_v<P, DecimalFlbaPolicy>;
    if (kLegacy) {
      st.__set_min(*mn);
      st.__set_max(*mx);
    }
    return st;
  }

  format::BoundaryOrder::type BoundaryOrder() const {
    bool asc = true, desc = true;
    bool have_prev = false;
    std::string pmin, pmax;
    for (size_t i = 0; i < ci_null_pages_.size(); ++i) {
      if (ci_null_pages_[i]) continue;
      if (have_prev) {
        int cmin = CompareStat(ci_min_[i], pmin);
        int cmax = CompareStat(ci_max_[i], pmax);
        if (cmin < 0 || cmax < 0) asc = false;
        if (cmin > 0 || cmax > 0) desc = false;
      }
      pmin = ci_min_[i];
      pmax = ci_max_[i];
      have_prev = true;
    }
    if (asc) return format::BoundaryOrder::ASCENDING;
    if (desc) return format::BoundaryOrder::DESCENDING;
    return format::BoundaryOrder::UNORDERED;
  }

  // Compares two PLAIN stat values in the column's order.
  int CompareStat(const std::string& a, const std::string& b) const {
    if constexpr (P::kIsBytes) {
      int c = a.compare(b);  // std::string compares as unsigned char
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    } else if constexpr (std::is_same_v<P, DecimalFlbaPolicy>) {
      // Big-endian two's complement: flip the sign bit and compare bytewise.
      std::string x = a, y = b;
      if (!x.empty()) x[0] = static_cast<char>(x[0] ^ 0x80);
      if (!y.empty()) y[0] = static_cast<char>(y[0] ^ 0x80);
      int c = x.compare(y);
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    } else {
      T x{}, y{};
      std::memcpy(&x, a.data(), std::min(a.size(), sizeof(T)));
      std::memcpy(&y, b.data(), std::min(b.size(), sizeof(T)));
      return P::Less(x, y) ? -1 : P::Less(y, x) ? 1 : 0;
    }
  }

  std::string IcebergBound(const Owned<P>& v) const {
    const Type& t = *leaf_.type;
    if (t.id == TypeId::kDecimal) {
      if constexpr (P::kIsBytes) {
        return std::string(v);
      } else {
        return DecimalIcebergBytes(static_cast<int128_t>(v));
      }
    }
    char scratch[16];
    return std::string(P::PlainView(typename P::T(v), width_, scratch));
  }

  ColumnWriterConfig cfg_;
  const LeafColumn& leaf_;
  int width_ = 0;
  Mode initial_mode_ = Mode::kPlain;
  Mode mode_ = Mode::kPlain;

  // Page being filled.
  std::vector<int16_t> page_def_, page_rep_;
  int64_t page_def_max_run_ = 0;  // max_def levels not in page_def_ (only while it is empty)
  Buffer page_values_;
  std::vector<uint32_t> page_indices_;
  std::vector<int64_t> page_ints_;
  std::vector<int64_t> page_lengths_;
  std::vector<uint8_t> page_bools_;
  MinMax<P> page_stats_;
  int64_t page_levels_ = 0, page_rows_ = 0, page_nonnull_ = 0;

  // Chunk being filled.
  std::vector<std::unique_ptr<PageJob>> jobs_;  // the chunk's data pages, in order
  PageJob dict_job_;
  PageSizes sizes_;                 // this column's pages in this file (EstimatedBytes)
  int64_t dict_probe_raw_ = 0;      // the dictionary as Settle last compressed it
  int64_t dict_probe_packed_ = 0;
  int64_t pages_bytes_ = 0;  // the pages' buffered bytes, as the pool accounts them
  bool pending_reset_ = false;
  bool dict_used_ = false;
  MinMax<P> chunk_stats_;
  int64_t chunk_levels_ = 0, chunk_rows_ = 0, chunk_bytes_est_ = 0;
  int64_t num_pages_ = 0;
  std::vector<format::Encoding::type> data_encodings_, page_encodings_;
  std::vector<format::PageLocation> page_locations_;
  std::vector<bool> ci_null_pages_;
  std::vector<std::string> ci_min_, ci_max_;
  std::vector<int64_t> ci_null_counts_;
  bool column_index_ok_ = true;
  std::vector<uint64_t> bloom_hashes_;

  // Dictionary.
  std::vector<T> dict_values_;
  Buffer dict_bytes_;
  std::vector<uint32_t> dict_offsets_;
  std::vector<uint64_t> dict_hashes_;
  std::vector<DictSlot> slots_;
  std::vector<uint64_t> dict_page_seen_;  // byte arrays: the page serial that last saw each entry
  uint64_t page_serial_ = 1;
  int64_t dict_plain_bytes_ = 0;

  // Scratch.
  Buffer levels_;

  // File totals.
  MinMax<P> file_stats_;
  int64_t file_levels_ = 0, file_compressed_ = 0;
};

}  // namespace

Result<std::unique_ptr<ColumnChunkWriter>> MakeColumnChunkWriter(const ColumnWriterConfig& c) {
  const LeafColumn& leaf = *c.leaf;
  const Type& t = *leaf.type;
  auto make = [&]<typename P>() -> std::unique_ptr<ColumnChunkWriter> {
    return std::make_unique<TypedChunkWriter<P>>(c);
  };
  switch (t.id) {
    case TypeId::kBoolean: return make.template operator()<BoolPolicy>();
    case TypeId::kInt:
    case TypeId::kDate:
      return make.template operator()<DirectPolicy<int32_t, PhysicalType::kInt32>>();
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return make.template operator()<DirectPolicy<int64_t, PhysicalType::kInt64>>();
    case TypeId::kFloat: return make.template operator()<DirectPolicy<float, PhysicalType::kFloat>>();
    case TypeId::kDouble:
      return make.template operator()<DirectPolicy<double, PhysicalType::kDouble>>();
    case TypeId::kDecimal:
      if (t.precision <= 9) {
        return make.template operator()<DecimalIntPolicy<int32_t, PhysicalType::kInt32>>();
      }
      if (t.precision <= 18) {
        return make.template operator()<DecimalIntPolicy<int64_t, PhysicalType::kInt64>>();
      }
      return make.template operator()<DecimalFlbaPolicy>();
    case TypeId::kString:
    case TypeId::kBinary:
      return make.template operator()<BytesPolicy<PhysicalType::kByteArray>>();
    case TypeId::kUuid:
    case TypeId::kFixed:
      return make.template operator()<BytesPolicy<PhysicalType::kFixedLenByteArray>>();
    default:
      return InvalidArgument("column '{}': {} is not a primitive type", leaf.DottedPath(),
                             t.ToString());
  }
}

}  // namespace floe::parquet
