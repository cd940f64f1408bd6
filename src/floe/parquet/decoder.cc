/// \file
/// Value decoders of the Parquet reader (see decoder.h). Spec references are
/// to parquet-format Encodings.md.
#include "floe/parquet/decoder.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "floe/parquet/rle_decoder.h"

namespace floe::parquet {

std::string EncodingName(int32_t encoding) {
  switch (encoding) {
    case 0: return "PLAIN";
    case 2: return "PLAIN_DICTIONARY";
    case 3: return "RLE";
    case 4: return "BIT_PACKED";
    case 5: return "DELTA_BINARY_PACKED";
    case 6: return "DELTA_LENGTH_BYTE_ARRAY";
    case 7: return "DELTA_BYTE_ARRAY";
    case 8: return "RLE_DICTIONARY";
    case 9: return "BYTE_STREAM_SPLIT";
    default: return fmt::format("ENCODING({})", encoding);
  }
}

std::string PhysicalTypeName(PhysicalType type) {
  switch (type) {
    case PhysicalType::kBoolean: return "BOOLEAN";
    case PhysicalType::kInt32: return "INT32";
    case PhysicalType::kInt64: return "INT64";
    case PhysicalType::kInt96: return "INT96";
    case PhysicalType::kFloat: return "FLOAT";
    case PhysicalType::kDouble: return "DOUBLE";
    case PhysicalType::kByteArray: return "BYTE_ARRAY";
    case PhysicalType::kFixedLenByteArray: return "FIXED_LEN_BYTE_ARRAY";
  }
  return "UNKNOWN";
}

int PhysicalWidth(PhysicalType type, int32_t type_length) {
  switch (type) {
    case PhysicalType::kBoolean: return 1;
    case PhysicalType::kInt32:
    case PhysicalType::kFloat: return 4;
    case PhysicalType::kInt64:
    case PhysicalType::kDouble: return 8;
    case PhysicalType::kInt96: return 12;
    case PhysicalType::kFixedLenByteArray: return type_length;
    case PhysicalType::kByteArray: return 0;
  }
  return 0;
}

namespace {

/// Grows a fixed-width output by n values and returns where they go.
uint8_t* GrowFixed(PhysicalValues* out, int64_t n, int width) {
  size_t old = out->values.size();
  out->values.Resize(old + static_cast<size_t>(n) * width);
  out->count += n;
  return out->values.data() + old;
}

// ---------------------------------------------------------------- PLAIN

/// PLAIN for fixed-width types (INT32, INT64, INT96, FLOAT, DOUBLE, FLBA):
/// values back to back, little-endian.
class PlainFixedDecoder final : public ValueDecoder {
 public:
  explicit PlainFixedDecoder(int width) : width_(width) {}
  Status SetData(const uint8_t* data, size_t size, int64_t) override {
    p_ = data;
    end_ = data + size;
    return Ok();
  }
  Status Decode(int64_t n, PhysicalValues* out) override {
    size_t bytes = static_cast<size_t>(n) * width_;
    if (static_cast<size_t>(end_ - p_) < bytes) {
      return Corrupt("PLAIN: {} values of {} bytes need {} bytes, {} left", n, width_, bytes,
                     end_ - p_);
    }
    if (bytes)
      std::memcpy(GrowFixed(out, n, width_), p_, bytes);
    else
      out->count += n;
    p_ += bytes;
    return Ok();
  }

 private:
  int width_;
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
};

/// PLAIN BOOLEAN: one bit per value, LSB first.
class PlainBoolDecoder final : public ValueDecoder {
 public:
  Status SetData(const uint8_t* data, size_t size, int64_t) override {
    data_ = data;
    bits_ = static_cast<uint64_t>(size) * 8;
    bit_ = 0;
    return Ok();
  }
  Status Decode(int64_t n, PhysicalValues* out) override {
    if (bits_ - bit_ < static_cast<uint64_t>(n)) {
      return Corrupt("PLAIN BOOLEAN: {} values asked, {} bits left", n, bits_ - bit_);
    }
    uint8_t* o = GrowFixed(out, n, 1);
    for (int64_t i = 0; i < n; ++i, ++bit_) o[i] = (data_[bit_ >> 3] >> (bit_ & 7)) & 1;
    return Ok();
  }

 private:
  const uint8_t* data_ = nullptr;
  uint64_t bits_ = 0;
  uint64_t bit_ = 0;
};

/// PLAIN BYTE_ARRAY: 4-byte little-endian length, then the bytes.
class PlainByteArrayDecoder final : public ValueDecoder {
 public:
  Status SetData(const uint8_t* data, size_t size, int64_t) override {
    p_ = data;
    end_ = data + size;
    return Ok();
  }
  Status Decode(int64_t n, PhysicalValues* out) override {
    // First pass: validate and size; second: copy.
    const uint8_t* q = p_;
    size_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (end_ - q < 4)
        return Corrupt("PLAIN BYTE_ARRAY: value {} of {}: length past the end", i, n);
      uint32_t len;
      std::memcpy(&len, q, 4);
      q += 4;
      if (static_cast<size_t>(end_ - q) < len) {
        return Corrupt("PLAIN BYTE_ARRAY: value {} of {}: length {} but {} bytes left", i, n, len,
                       end_ - q);
      }
      q += len;
      total += len;
    }
    size_t base = out->values.size();
    out->values.Resize(base + total);
    uint8_t* dst = out->values.data() + base;
    out->offsets.reserve(out->offsets.size() + n);
    int64_t off = static_cast<int64_t>(base);
    for (int64_t i = 0; i < n; ++i) {
      uint32_t len;
      std::memcpy(&len, p_, 4);
      p_ += 4;
      // len == 0: dst may be null (all values empty, nothing was allocated), and
      // memcpy with a null pointer is undefined even for 0 bytes.
      if (len) std::memcpy(dst, p_, len);
      dst += len;
      p_ += len;
      off += len;
      out->offsets.push_back(off);
    }
    out->count += n;
    return Ok();
  }

 private:
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
};

// ---------------------------------------------------------------- RLE booleans

/// RLE BOOLEAN (data pages v2): 4-byte length, then the hybrid with width 1.
class RleBoolDecoder final : public ValueDecoder {
 public:
  Status SetData(const uint8_t* data, size_t size, int64_t) override {
    if (size < 4) return Corrupt("RLE BOOLEAN: {} bytes, no length prefix", size);
    uint32_t len;
    std::memcpy(&len, data, 4);
    if (len > size - 4) return Corrupt("RLE BOOLEAN: length {} but {} bytes follow", len, size - 4);
    rle_.Reset(data + 4, len, 1);
    return Ok();
  }
  Status Decode(int64_t n, PhysicalValues* out) override {
    uint8_t* o = GrowFixed(out, n, 1);
    int64_t got = rle_.GetBatch(o, n);
    if (got != n) return Corrupt("RLE BOOLEAN: {} values asked, {} present", n, got);
    for (int64_t i = 0; i < n; ++i) o[i] &= 1;
    return Ok();
  }

 private:
  RleBitPackedDecoder rle_;
};

// ---------------------------------------------------------------- dictionary

/// RLE_DICTIONARY / PLAIN_DICTIONARY data pages: one byte of bit width, then
/// the hybrid of indices into the dictionary.
class DictDecoder final : public ValueDecoder {
 public:
  DictDecoder(const PhysicalValues* dict, int width) : dict_(dict), width_(width) {}
  Status SetData(const uint8_t* data, size_t size, int64_t) override {
    if (size < 1) return Corrupt("dictionary indices: empty page data");
    int bw = data[0];
    if (bw > 32) return Corrupt("dictionary indices: bit width {} > 32", bw);
    rle_.Reset(data + 1, size - 1, bw);
    return Ok();
  }
  Status Decode(int64_t n, PhysicalValues* out) override {
    idx_.resize(static_cast<size_t>(n));
    int64_t got = rle_.GetBatch(idx_.data(), n);
    if (got != n) return Corrupt("dictionary indices: {} asked, {} present", n, got);
    const uint32_t dict_size = static_cast<uint32_t>(dict_->count);
    for (int64_t i = 0; i < n; ++i) {
      if (idx_[i] >= dict_size) {
        return Corrupt("dictionary index {} out of range (dictionary has {} values)", idx_[i],
                       dict_size);
      }
    }
    if (width_ == 0) return GatherBinary(n, out);
    switch (width_) {
      case 1: Gather<uint8_t>(n, out); break;
      case 4: Gather<uint32_t>(n, out); break;
      case 8: Gather<uint64_t>(n, out); break;
      default: {
        uint8_t* o = GrowFixed(out, n, width_);
        const uint8_t* d = dict_->values.data();
        for (int64_t i = 0; i < n; ++i) {
          std::memcpy(o + i * width_, d + static_cast<size_t>(idx_[i]) * width_, width_);
        }
      }
    }
    return Ok();
  }

 private:
  template <typename T>
  void Gather(int64_t n, PhysicalValues* out) {
    T* o = reinterpret_cast<T*>(GrowFixed(out, n, sizeof(T)));
    const T* d = dict_->values.as<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = d[idx_[i]];
  }
  Status GatherBinary(int64_t n, PhysicalValues* out) {
    const int64_t* doff = dict_->offsets.data();
    size_t total = 0;
    for (int64_t i = 0; i < n; ++i) total += doff[idx_[i] + 1] - doff[idx_[i]];
    size_t base = out->values.size();
    out->values.Resize(base + total);
    uint8_t* dst = out->values.data() + base;
    const uint8_t* src = dict_->values.data();
    int64_t off = static_cast<int64_t>(base);
    size_t old_n = out->offsets.size();
    out->offsets.resize(old_n + n);
    int64_t* o = out->offsets.data() + old_n;
    for (int64_t i = 0; i < n; ++i) {
      int64_t s = doff[idx_[i]];
      int64_t len = doff[idx_[i] + 1] - s;
      if (len) std::memcpy(dst, src + s, static_cast<size_t>(len));  // dst, src null when all empty
      dst += len;
      off += len;
      o[i] = off;
    }
    out->count += n;
    return Ok();
  }

  const PhysicalValues* dict_;
  int width_;
  RleBitPackedDecoder rle_;
  std::vector<uint32_t> idx_;
};

// ---------------------------------------------------------------- DELTA_BINARY_PACKED

/// Streaming reader of one DELTA_BINARY_PACKED stream: header <block size>
/// <miniblocks per block> <total count> <first value>, then blocks of
/// <min delta> <bit widths> <miniblocks>. Arithmetic wraps in 64 bits.
class DeltaStream {
 public:
  Status Init(const uint8_t* data, size_t size, int64_t max_values) {
    p_ = data;
    end_ = data + size;
    uint64_t block = 0, minis = 0, total = 0;
    int64_t first = 0;
    if (!ReadUleb128(&p_, end_, &block) || !ReadUleb128(&p_, end_, &minis) ||
        !ReadUleb128(&p_, end_, &total) || !ReadZigZag(&p_, end_, &first)) {
      return Corrupt("DELTA_BINARY_PACKED: header runs past the end of the data");
    }
    if (minis == 0 || block == 0 || block % minis != 0 || block > (1u << 20) ||
        (block / minis) % 8 != 0) {
      return Corrupt("DELTA_BINARY_PACKED: bad block size {} / {} miniblocks", block, minis);
    }
    if (total > static_cast<uint64_t>(max_values)) {
      return Corrupt("DELTA_BINARY_PACKED: {} values, more than the {} in the page", total,
                     max_values);
    }
    block_size_ = static_cast<int64_t>(block);
    minis_ = static_cast<int>(minis);
    per_mini_ = block_size_ / minis_;
    total_ = static_cast<int64_t>(total);
    left_ = total_;
    last_ = static_cast<uint64_t>(first);
    first_pending_ = total_ > 0;
    mini_idx_ = minis_;  // forces a block header on first use
    mini_left_ = 0;
    consumed_end_ = p_;
    return Ok();
  }

  int64_t total() const { return total_; }
  /// Bytes used by the stream so far (the whole stream once all values are read).
  const uint8_t* position() const { return consumed_end_; }

  template <typename T>
  Status Get(T* out, int64_t n) {
    if (n > left_) return Corrupt("DELTA_BINARY_PACKED: {} values asked, {} left", n, left_);
    int64_t i = 0;
    if (n > 0 && first_pending_) {
      out[i++] = static_cast<T>(last_);
      first_pending_ = false;
      --left_;
    }
    while (i < n) {
      if (mini_left_ == 0) FLOE_RETURN_IF_ERROR(NextMini());
      int64_t k = std::min<int64_t>(mini_left_, n - i);
      const int w = width_;
      if (w == 0) {
        for (int64_t j = 0; j < k; ++j) {
          last_ += min_delta_;
          out[i + j] = static_cast<T>(last_);
        }
      } else {
        uint64_t bit = mini_bit_;
        for (int64_t j = 0; j < k; ++j, bit += w) {
          last_ += min_delta_ + ExtractBits(mini_base_, end_, bit, w);
          out[i + j] = static_cast<T>(last_);
        }
        mini_bit_ = bit;
      }
      mini_left_ -= k;
      left_ -= k;
      i += k;
    }
    return Ok();
  }

 private:
  Status NextMini() {
    if (mini_idx_ + 1 >= minis_) {
      int64_t md = 0;
      if (!ReadZigZag(&p_, end_, &md))
        return Corrupt("DELTA_BINARY_PACKED: block header past the end");
      if (end_ - p_ < minis_) return Corrupt("DELTA_BINARY_PACKED: bit widths past the end");
      min_delta_ = static_cast<uint64_t>(md);
      widths_ = p_;
      p_ += minis_;
      mini_idx_ = -1;
    }
    ++mini_idx_;
    width_ = widths_[mini_idx_];
    if (width_ > 64) return Corrupt("DELTA_BINARY_PACKED: miniblock bit width {}", width_);
    size_t bytes = static_cast<size_t>(per_mini_) * width_ / 8;
    // Values still wanted from this miniblock must have their bits present.
    int64_t needed = std::min<int64_t>(per_mini_, left_);
    size_t needed_bytes = (static_cast<size_t>(needed) * width_ + 7) / 8;
    if (static_cast<size_t>(end_ - p_) < needed_bytes) {
      return Corrupt("DELTA_BINARY_PACKED: miniblock of {} bytes past the end", bytes);
    }
    mini_base_ = p_;
    mini_bit_ = 0;
    mini_left_ = per_mini_;
    p_ += std::min(bytes, static_cast<size_t>(end_ - p_));
    consumed_end_ = p_;
    return Ok();
  }

  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  const uint8_t* consumed_end_ = nullptr;
  int64_t block_size_ = 0;
  int minis_ = 0;
  int64_t per_mini_ = 0;
  int64_t total_ = 0;
  int64_t left_ = 0;
  uint64_t last_ = 0;
  bool first_pending_ = false;
  uint64_t min_delta_ = 0;
  const uint8_t* widths_ = nullptr;
  int mini_idx_ = 0;
  int width_ = 0;
  const uint8_t* mini_base_ = nullptr;
  uint64_t mini_bit_ = 0;
  int64_t mini_left_ = 0;
};

template <typename T>
class DeltaBinaryPackedDecoder final : public ValueDecoder {
 public:
  Status SetData(const uint8_t* data, size_t size, int64_t num_values) override {
    return stream_.Init(data, size, std::max<int64_t>(num_values, 0));
  }
  Status Decode(int64_t n, PhysicalValues* out) override {
    T* o = reinterpret_cast<T*>(GrowFixed(out, n, sizeof(T)));
    return stream_.Get(o, n);
  }

 private:
  DeltaStream stream_;
};

/// Decodes all lengths of a DELTA_BINARY_PACKED stream; checks they are >= 0.
Status DecodeLengths(const uint8_t* data, size_t size, int64_t max_values,
                     std::vector<int64_t>* out, size_t* consumed, const char* what) {
  DeltaStream s;
  FLOE_RETURN_IF_ERROR(s.Init(data, size, max_values));
  out->resize(static_cast<size_t>(s.total()));
  FLOE_RETURN_IF_ERROR(s.Get(out->data(), s.total()));
  for (int64_t v : *out) {
    if (v < 0) return Corrupt("{}: negative length {}", what, v);
  }
  *consumed = static_cast<size_t>(s.position() - data);
  return Ok();
}

// ---------------------------------------------------------------- DELTA_LENGTH_BYTE_ARRAY

class DeltaLengthByteArrayDecoder final : public ValueDecoder {
 public:
  Status SetData(const uint8_t* data, size_t size, int64_t num_values) override {
    size_t used = 0;
    FLOE_RETURN_IF_ERROR(DecodeLengths(data, size, std::max<int64_t>(num_values, 0), &lengths_,
                                       &used, "DELTA_LENGTH_BYTE_ARRAY"));
    p_ = data + used;
    end_ = data + size;
    next_ = 0;
    return Ok();
  }
  Status Decode(int64_t n, PhysicalValues* out) override {
    if (n > static_cast<int64_t>(lengths_.size()) - next_) {
      return Corrupt("DELTA_LENGTH_BYTE_ARRAY: {} values asked, {} left", n,
                     static_cast<int64_t>(lengths_.size()) - next_);
    }
    uint64_t total = 0;
    for (int64_t i = 0; i < n; ++i) total += static_cast<uint64_t>(lengths_[next_ + i]);
    if (total > static_cast<uint64_t>(end_ - p_)) {
      return Corrupt("DELTA_LENGTH_BYTE_ARRAY: values need {} bytes, {} left", total, end_ - p_);
    }
    size_t base = out->values.size();
    out->values.Append(p_, total);
    int64_t off = static_cast<int64_t>(base);
    for (int64_t i = 0; i < n; ++i) {
      off += lengths_[next_ + i];
      out->offsets.push_back(off);
    }
    out->count += n;
    p_ += total;
    next_ += n;
    return Ok();
  }

 private:
  std::vector<int64_t> lengths_;
  int64_t next_ = 0;
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
};

// ---------------------------------------------------------------- DELTA_BYTE_ARRAY

/// DELTA_BYTE_ARRAY: prefix lengths (DELTA_BINARY_PACKED), then the suffixes
/// (DELTA_LENGTH_BYTE_ARRAY). For FIXED_LEN_BYTE_ARRAY each value must have
/// the type's length.
class DeltaByteArrayDecoder final : public ValueDecoder {
 public:
  explicit DeltaByteArrayDecoder(int fixed_width) : fixed_width_(fixed_width) {}
  Status SetData(const uint8_t* data, size_t size, int64_t num_values) override {
    int64_t maxv = std::max<int64_t>(num_values, 0);
    size_t used = 0;
    FLOE_RETURN_IF_ERROR(
        DecodeLengths(data, size, maxv, &prefixes_, &used, "DELTA_BYTE_ARRAY prefixes"));
    size_t used2 = 0;
    FLOE_RETURN_IF_ERROR(DecodeLengths(data + used, size - used, maxv, &suffixes_, &used2,
                                       "DELTA_BYTE_ARRAY suffixes"));
    if (prefixes_.size() != suffixes_.size()) {
      return Corrupt("DELTA_BYTE_ARRAY: {} prefix lengths but {} suffixes", prefixes_.size(),
                     suffixes_.size());
    }
    p_ = data + used + used2;
    end_ = data + size;
    next_ = 0;
    last_.clear();
    return Ok();
  }
  Status Decode(int64_t n, PhysicalValues* out) override {
    if (n > static_cast<int64_t>(prefixes_.size()) - next_) {
      return Corrupt("DELTA_BYTE_ARRAY: {} values asked, {} left", n,
                     static_cast<int64_t>(prefixes_.size()) - next_);
    }
    for (int64_t i = 0; i < n; ++i) {
      int64_t pre = prefixes_[next_];
      int64_t suf = suffixes_[next_];
      if (pre > static_cast<int64_t>(last_.size())) {
        return Corrupt("DELTA_BYTE_ARRAY: value {}: prefix {} longer than the previous value ({})",
                       next_, pre, last_.size());
      }
      if (suf > end_ - p_) {
        return Corrupt("DELTA_BYTE_ARRAY: value {}: suffix of {} bytes, {} left", next_, suf,
                       end_ - p_);
      }
      last_.resize(static_cast<size_t>(pre));
      last_.append(reinterpret_cast<const char*>(p_), static_cast<size_t>(suf));
      p_ += suf;
      ++next_;
      if (fixed_width_ > 0) {
        if (static_cast<int64_t>(last_.size()) != fixed_width_) {
          return Corrupt("DELTA_BYTE_ARRAY: value of {} bytes in a FIXED_LEN_BYTE_ARRAY({})",
                         last_.size(), fixed_width_);
        }
        std::memcpy(GrowFixed(out, 1, fixed_width_), last_.data(), last_.size());
      } else {
        out->values.Append(last_.data(), last_.size());
        out->offsets.push_back(static_cast<int64_t>(out->values.size()));
        ++out->count;
      }
    }
    return Ok();
  }

 private:
  int fixed_width_;
  std::vector<int64_t> prefixes_;
  std::vector<int64_t> suffixes_;
  int64_t next_ = 0;
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  std::string last_;
};

// ---------------------------------------------------------------- BYTE_STREAM_SPLIT

/// BYTE_STREAM_SPLIT: byte k of value i is at k * count + i.
class ByteStreamSplitDecoder final : public ValueDecoder {
 public:
  explicit ByteStreamSplitDecoder(int width) : width_(width) {}
  Status SetData(const uint8_t* data, size_t size, int64_t) override {
    if (width_ <= 0 || size % width_ != 0) {
      return Corrupt("BYTE_STREAM_SPLIT: {} bytes is not a multiple of the width {}", size, width_);
    }
    data_ = data;
    count_ = static_cast<int64_t>(size / width_);
    next_ = 0;
    return Ok();
  }
  Status Decode(int64_t n, PhysicalValues* out) override {
    if (n > count_ - next_) {
      return Corrupt("BYTE_STREAM_SPLIT: {} values asked, {} left", n, count_ - next_);
    }
    uint8_t* o = GrowFixed(out, n, width_);
    switch (width_) {
      case 4: Run<4>(o, n); break;
      case 8: Run<8>(o, n); break;
      default:
        for (int64_t i = 0; i < n; ++i) {
          for (int b = 0; b < width_; ++b) o[i * width_ + b] = data_[b * count_ + next_ + i];
        }
    }
    next_ += n;
    return Ok();
  }

 private:
  template <int W>
  void Run(uint8_t* o, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      for (int b = 0; b < W; ++b) o[i * W + b] = data_[b * count_ + next_ + i];
    }
  }
  int width_;
  const uint8_t* data_ = nullptr;
  int64_t count_ = 0;
  int64_t next_ = 0;
};

}  // namespace

Status DecodeDeltaBinaryPacked(const uint8_t* data, size_t size, int64_t max_values,
                               std::vector<int64_t>* out, size_t* consumed) {
  DeltaStream s;
  FLOE_RETURN_IF_ERROR(s.Init(data, size, max_values));
  out->resize(static_cast<size_t>(s.total()));
  FLOE_RETURN_IF_ERROR(s.Get(out->data(), s.total()));
  *consumed = static_cast<size_t>(s.position() - data);
  return Ok();
}

Result<std::unique_ptr<ValueDecoder>> MakeValueDecoder(Encoding encoding, PhysicalType type,
                                                       int32_t type_length,
                                                       const PhysicalValues* dictionary) {
  const int width = PhysicalWidth(type, type_length);
  auto wrong = [&]() {
    return Corrupt("encoding {} cannot hold {} values", EncodingName(static_cast<int>(encoding)),
                   PhysicalTypeName(type));
  };
  if (type == PhysicalType::kFixedLenByteArray && type_length <= 0) {
    return Corrupt("FIXED_LEN_BYTE_ARRAY with length {}", type_length);
  }
  switch (encoding) {
    case Encoding::kPlain:
      if (type == PhysicalType::kBoolean) return std::make_unique<PlainBoolDecoder>();
      if (type == PhysicalType::kByteArray) return std::make_unique<PlainByteArrayDecoder>();
      return std::make_unique<PlainFixedDecoder>(width);
    case Encoding::kPlainDictionary:
    case Encoding::kRleDictionary:
      if (dictionary == nullptr) {
        return Corrupt("{} data page without a dictionary page",
                       EncodingName(static_cast<int>(encoding)));
      }
      return std::make_unique<DictDecoder>(dictionary, width);
    case Encoding::kRle:
      if (type != PhysicalType::kBoolean) return wrong();
      return std::make_unique<RleBoolDecoder>();
    case Encoding::kDeltaBinaryPacked:
      if (type == PhysicalType::kInt32)
        return std::make_unique<DeltaBinaryPackedDecoder<int32_t>>();
      if (type == PhysicalType::kInt64)
        return std::make_unique<DeltaBinaryPackedDecoder<int64_t>>();
      return wrong();
    case Encoding::kDeltaLengthByteArray:
      if (type != PhysicalType::kByteArray) return wrong();
      return std::make_unique<DeltaLengthByteArrayDecoder>();
    case Encoding::kDeltaByteArray:
      if (type == PhysicalType::kByteArray) return std::make_unique<DeltaByteArrayDecoder>(0);
      if (type == PhysicalType::kFixedLenByteArray) {
        return std::make_unique<DeltaByteArrayDecoder>(type_length);
      }
      return wrong();
    case Encoding::kByteStreamSplit:
      if (type == PhysicalType::kBoolean || type == PhysicalType::kByteArray ||
          type == PhysicalType::kInt96) {
        return wrong();
      }
      return std::make_unique<ByteStreamSplitDecoder>(width);
    case Encoding::kBitPacked: return wrong();
  }
  return Unsupported("unknown encoding {}", static_cast<int>(encoding));
}

}  // namespace floe::parquet
