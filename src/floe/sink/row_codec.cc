// RowCodec: the byte form is described in row_codec.h.
#include "floe/sink/row_codec.h"

#include <cstring>

#include "floe/types/visit_type.h"
#include "floe/util/varint.h"

namespace floe::sink {

namespace {

size_t BitmapBytes(uint64_t n) { return static_cast<size_t>((n + 7) / 8); }

bool IsBytes(TypeId id) { return id == TypeId::kString || id == TypeId::kBinary; }

// ---------------------------------------------------------------------------
// Encoding: sizes first, then bytes, so a row is written into exactly the
// room it needs (no per-value growth checks).

/// Encoded size of value `i` of `col`, which is present.
size_t ValueSize(const ColumnVector& col, int64_t i) {
  switch (col.type->id) {
    case TypeId::kString:
    case TypeId::kBinary: {
      auto len = static_cast<uint64_t>(col.offsets[i + 1] - col.offsets[i]);
      return VarintSize(len) + len;
    }
    case TypeId::kStruct: {
      size_t size = BitmapBytes(col.children.size());
      for (const auto& child : col.children) {
        if (!child.IsNull(i)) size += ValueSize(child, i);
      }
      return size;
    }
    case TypeId::kList:
    case TypeId::kMap: {
      const int64_t begin = col.offsets[i], end = col.offsets[i + 1];
      auto n = static_cast<uint64_t>(end - begin);
      size_t size = VarintSize(n) + col.children.size() * BitmapBytes(n);
      for (const auto& child : col.children) {
        for (int64_t j = begin; j < end; ++j) {
          if (!child.IsNull(j)) size += ValueSize(child, j);
        }
      }
      return size;
    }
    default: return static_cast<size_t>(FixedValueWidth(*col.type));
  }
}

/// Writes `n` presence bits of `col` rows [begin, begin + n) at `p`.
char* PutBitmap(const ColumnVector& col, int64_t begin, int64_t n, char* p) {
  const size_t bytes = BitmapBytes(static_cast<uint64_t>(n));
  if (col.validity.empty()) {
    std::memset(p, 0xff, bytes);
    if (n % 8) p[bytes - 1] = static_cast<char>((1u << (n % 8)) - 1);
  } else {
    std::memset(p, 0, bytes);
    for (int64_t k = 0; k < n; ++k) {
      if (col.validity[begin + k]) p[k / 8] = static_cast<char>(p[k / 8] | (1u << (k % 8)));
    }
  }
  return p + bytes;
}

/// Writes value `i` of `col` (present) at `p`; returns the end.
char* PutValue(const ColumnVector& col, int64_t i, char* p) {
  switch (col.type->id) {
    case TypeId::kBoolean: *p = col.values.data()[i] != 0 ? 1 : 0; return p + 1;
    case TypeId::kString:
    case TypeId::kBinary: {
      auto len = static_cast<uint64_t>(col.offsets[i + 1] - col.offsets[i]);
      p = PutVarint(p, len);
      // A column of "" values has no value buffer (data() is null), and memcpy
      // from a null pointer is undefined even for 0 bytes (UBSan).
      if (len != 0) std::memcpy(p, col.values.data() + col.offsets[i], len);
      return p + len;
    }
    case TypeId::kStruct: {
      const size_t bytes = BitmapBytes(col.children.size());
      std::memset(p, 0, bytes);
      for (size_t k = 0; k < col.children.size(); ++k) {
        if (!col.children[k].IsNull(i)) p[k / 8] = static_cast<char>(p[k / 8] | (1u << (k % 8)));
      }
      char* q = p + bytes;
      for (const auto& child : col.children) {
        if (!child.IsNull(i)) q = PutValue(child, i, q);
      }
      return q;
    }
    case TypeId::kList:
    case TypeId::kMap: {
      const int64_t begin = col.offsets[i], end = col.offsets[i + 1];
      p = PutVarint(p, static_cast<uint64_t>(end - begin));
      for (const auto& child : col.children) p = PutBitmap(child, begin, end - begin, p);
      for (int64_t j = begin; j < end; ++j) {
        for (const auto& child : col.children) {
          if (!child.IsNull(j)) p = PutValue(child, j, p);
        }
      }
      return p;
    }
    default: {
      const auto w = static_cast<size_t>(FixedValueWidth(*col.type));
      std::memcpy(p, col.values.data() + static_cast<size_t>(i) * w, w);
      return p + w;
    }
  }
}

/// Adds the encoded size of each present value of a top-level column to
/// `sizes[row]`: one tight loop per column for the flat types.
void AddColumnSizes(const ColumnVector& col, std::vector<uint64_t>& sizes) {
  const int64_t n = col.length;
  const TypeId id = col.type->id;
  if (IsBytes(id)) {
    const int64_t* off = col.offsets.data();
    for (int64_t r = 0; r < n; ++r) {
      if (col.IsNull(r)) continue;
      auto len = static_cast<uint64_t>(off[r + 1] - off[r]);
      sizes[r] += VarintSize(len) + len;
    }
  } else if (col.type->is_nested()) {
    for (int64_t r = 0; r < n; ++r) {
      if (!col.IsNull(r)) sizes[r] += ValueSize(col, r);
    }
  } else {
    const auto w = static_cast<uint64_t>(FixedValueWidth(*col.type));
    if (col.validity.empty()) {
      for (int64_t r = 0; r < n; ++r) sizes[r] += w;
    } else {
      for (int64_t r = 0; r < n; ++r) sizes[r] += col.validity[r] ? w : 0;
    }
  }
}

template <size_t kWidth>
void PutFixedColumn(const ColumnVector& col, char* base, std::vector<uint64_t>& cursors) {
  const uint8_t* src = col.values.data();
  for (int64_t r = 0; r < col.length; ++r) {
    if (col.IsNull(r)) continue;
    std::memcpy(base + cursors[r], src + static_cast<size_t>(r) * kWidth, kWidth);
    cursors[r] += kWidth;
  }
}

/// Writes each present value of a top-level column at its row's cursor.
void PutColumn(const ColumnVector& col, char* base, std::vector<uint64_t>& cursors) {
  const int64_t n = col.length;
  switch (col.type->id) {
    case TypeId::kBoolean:
      for (int64_t r = 0; r < n; ++r) {
        if (!col.IsNull(r)) base[cursors[r]++] = col.values.data()[r] != 0 ? 1 : 0;
      }
      return;
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kFloat: PutFixedColumn<4>(col, base, cursors); return;
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
    case TypeId::kDouble: PutFixedColumn<8>(col, base, cursors); return;
    case TypeId::kDecimal:
    case TypeId::kUuid: PutFixedColumn<16>(col, base, cursors); return;
    case TypeId::kString:
    case TypeId::kBinary: {
      const int64_t* off = col.offsets.data();
      const uint8_t* src = col.values.data();
      for (int64_t r = 0; r < n; ++r) {
        if (col.IsNull(r)) continue;
        auto len = static_cast<uint64_t>(off[r + 1] - off[r]);
        char* p = PutVarint(base + cursors[r], len);
        if (len != 0) std::memcpy(p, src + off[r], len);  // src is null when every value is ""
        cursors[r] = static_cast<uint64_t>(p + len - base);
      }
      return;
    }
    default:  // fixed[L] and the nested types
      for (int64_t r = 0; r < n; ++r) {
        if (!col.IsNull(r))
          cursors[r] = static_cast<uint64_t>(PutValue(col, r, base + cursors[r]) - base);
      }
      return;
  }
}

// ---------------------------------------------------------------------------
// Decoding: every read is bounds-checked; a failure unwinds with the path of
// the column it happened in, and the caller truncates the columns back to
// where the row started.

/// Cuts `col` back to its first `n` rows (children to what those rows use).
void Truncate(ColumnVector* col, int64_t n) {
  if (col->length < n) return;
  col->length = n;
  if (!col->validity.empty()) col->validity.resize(static_cast<size_t>(n));
  const TypeId id = col->type->id;
  if (IsBytes(id)) {
    col->offsets.resize(static_cast<size_t>(n) + 1);
    col->values.Resize(static_cast<size_t>(col->offsets.back()));
  } else if (id == TypeId::kList || id == TypeId::kMap) {
    col->offsets.resize(static_cast<size_t>(n) + 1);
    for (auto& child : col->children) Truncate(&child, col->offsets.back());
  } else if (id == TypeId::kStruct) {
    for (auto& child : col->children) Truncate(&child, n);
  } else {
    col->values.Resize(static_cast<size_t>(n) * FixedValueWidth(*col->type));
  }
}

class RowReader {
 public:
  RowReader(const uint8_t* begin, const uint8_t* end) : begin_(begin), p_(begin), end_(end) {}

  size_t consumed() const { return static_cast<size_t>(p_ - begin_); }
  const std::string& problem() const { return problem_; }
  /// The column path of the failure, innermost last.
  std::string Path() const {
    std::string path;
    for (auto it = path_.rbegin(); it != path_.rend(); ++it) {
      if (!path.empty()) path += '.';
      path += *it;
    }
    return path;
  }

  /// Points `bits` at the presence bitmap of `n` values; false when the
  /// bytes left cannot hold it.
  bool Bitmap(uint64_t n, const uint8_t** bits) {
    if (n > static_cast<uint64_t>(end_ - p_) * 8) {
      return Fail("bitmap of {} values at byte {}, {} bytes left", n, consumed(), end_ - p_);
    }
    *bits = p_;
    p_ += BitmapBytes(n);
    return true;
  }

  /// Reads one present value of `field` and appends it to `col`.
  bool Value(const NestedField& field, ColumnVector* col) {
    if (!ReadValue(field, col)) {
      path_.push_back(field.name);
      return false;
    }
    return true;
  }

  /// Reads value `k` of a bitmap: present → Value, absent → a null slot.
  bool Slot(const uint8_t* bits, uint64_t k, const NestedField& field, ColumnVector* col) {
    if (bits[k / 8] & (1u << (k % 8))) return Value(field, col);
    col->AppendNull();
    return true;
  }

 private:
  template <typename... Args>
  bool Fail(fmt::format_string<Args...> f, Args&&... args) {
    problem_ = fmt::format(f, std::forward<Args>(args)...);
    return false;
  }

  bool Need(uint64_t n, std::string_view what) {
    if (n <= static_cast<uint64_t>(end_ - p_)) return true;
    return Fail("{} needs {} bytes at byte {}, {} left", what, n, consumed(), end_ - p_);
  }

  bool Varint(uint64_t* v, std::string_view what) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) {
        return Fail("{} is cut off at byte {}", what, consumed());
      }
      uint8_t b = *p_++;
      result |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        *v = result;
        return true;
      }
    }
    return Fail("{} is longer than 10 bytes at byte {}", what, consumed());
  }

  void AppendFixed(ColumnVector* col, size_t w) {
    col->values.Append(p_, w);
    if (!col->validity.empty()) col->validity.push_back(1);
    ++col->length;
    p_ += w;
  }

  bool ReadValue(const NestedField& field, ColumnVector* col) {
    const Type& type = *col->type;
    switch (type.id) {
      case TypeId::kBoolean:
        if (!Need(1, "boolean")) return false;
        if (*p_ > 1) return Fail("boolean byte {} at byte {}", *p_, consumed());
        AppendFixed(col, 1);
        return true;
      case TypeId::kString:
      case TypeId::kBinary: {
        uint64_t len;
        if (!Varint(&len, "length") || !Need(len, TypeIdName(type.id))) return false;
        col->AppendBytes(std::string_view(reinterpret_cast<const char*>(p_), len));
        p_ += len;
        return true;
      }
      case TypeId::kStruct: {
        const uint8_t* bits;
        if (!Bitmap(type.fields.size(), &bits)) return false;
        for (size_t k = 0; k < type.fields.size(); ++k) {
          if (!Slot(bits, k, type.fields[k], &col->children[k])) return false;
        }
        col->AppendStructRow();
        return true;
      }
      case TypeId::kList:
      case TypeId::kMap: {
        uint64_t n;
        if (!Varint(&n, "entry count")) return false;
        // Each entry takes at least one presence bit per child: a count the
        // remaining bytes cannot hold is damage, caught before any loop.
        const size_t nchildren = type.fields.size();
        const uint8_t* bits[2] = {nullptr, nullptr};
        for (size_t c = 0; c < nchildren; ++c) {
          if (!Bitmap(n, &bits[c])) return false;
        }
        for (uint64_t j = 0; j < n; ++j) {
          for (size_t c = 0; c < nchildren; ++c) {
            if (!Slot(bits[c], j, type.fields[c], &col->children[c])) return false;
          }
        }
        col->CloseListRow();
        return true;
      }
      default: {
        const auto w = static_cast<size_t>(FixedValueWidth(type));
        if (!Need(w, TypeIdName(type.id))) return false;
        AppendFixed(col, w);
        return true;
      }
    }
  }

  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  std::string problem_;
  std::vector<std::string_view> path_;
};

}  // namespace

RowCodec::RowCodec(SchemaPtr schema)
    : schema_(std::move(schema)), top_bitmap_bytes_(BitmapBytes(schema_->fields().size())) {}

void RowCodec::Encode(const Batch& batch, int64_t row, std::string* out) const {
  size_t size = top_bitmap_bytes_;
  for (const auto& col : batch.columns) {
    if (!col.IsNull(row)) size += ValueSize(col, row);
  }
  const size_t start = out->size();
  out->resize(start + size);
  char* p = out->data() + start;
  std::memset(p, 0, top_bitmap_bytes_);
  for (size_t c = 0; c < batch.columns.size(); ++c) {
    if (!batch.columns[c].IsNull(row)) p[c / 8] = static_cast<char>(p[c / 8] | (1u << (c % 8)));
  }
  p += top_bitmap_bytes_;
  for (const auto& col : batch.columns) {
    if (!col.IsNull(row)) p = PutValue(col, row, p);
  }
}

void RowCodec::EncodeAll(const Batch& batch, std::string* arena,
                         std::vector<uint64_t>* ends) const {
  const int64_t n = batch.num_rows;
  if (n <= 0) return;
  // Pass 1: each row's size.
  std::vector<uint64_t> cursors(static_cast<size_t>(n), top_bitmap_bytes_);
  for (const auto& col : batch.columns) AddColumnSizes(col, cursors);
  // Sizes become start offsets; the arena grows once.
  uint64_t at = arena->size();
  ends->reserve(ends->size() + static_cast<size_t>(n));
  for (auto& c : cursors) {
    uint64_t size = c;
    c = at;
    at += size;
    ends->push_back(at);
  }
  arena->resize_and_overwrite(at, [](char*, size_t len) { return len; });
  char* base = arena->data();
  // Pass 2: the presence bitmaps, then each column into its rows' slots.
  for (uint64_t c : cursors) std::memset(base + c, 0, top_bitmap_bytes_);
  for (size_t c = 0; c < batch.columns.size(); ++c) {
    const ColumnVector& col = batch.columns[c];
    const auto bit = static_cast<char>(1u << (c % 8));
    const size_t byte = c / 8;
    for (int64_t r = 0; r < n; ++r) {
      if (!col.IsNull(r)) base[cursors[r] + byte] |= bit;
    }
  }
  for (auto& c : cursors) c += top_bitmap_bytes_;
  for (const auto& col : batch.columns) PutColumn(col, base, cursors);
}

Result<size_t> RowCodec::Decode(std::string_view data, Batch* batch) const {
  const auto& fields = schema_->fields();
  if (batch->columns.size() != fields.size()) {
    return InvalidArgument("row codec: batch has {} columns, the schema {}", batch->columns.size(),
                           fields.size());
  }
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  RowReader reader(bytes, bytes + data.size());
  const uint8_t* bits = nullptr;
  bool ok = reader.Bitmap(fields.size(), &bits);
  for (size_t c = 0; ok && c < fields.size(); ++c) {
    ok = reader.Slot(bits, c, fields[c], &batch->columns[c]);
  }
  if (!ok) {
    for (auto& col : batch->columns) Truncate(&col, batch->num_rows);
    std::string path = reader.Path();
    return Corrupt("encoded row of {} bytes{}{}: {}", data.size(), path.empty() ? "" : ", column ",
                   path, reader.problem());
  }
  ++batch->num_rows;
  return reader.consumed();
}

}  // namespace floe::sink
