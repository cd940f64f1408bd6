#include "floe/types/column_ops.h"

namespace floe {

namespace {

bool IsVarBytes(TypeId id) { return id == TypeId::kString || id == TypeId::kBinary; }
bool IsListLike(TypeId id) { return id == TypeId::kList || id == TypeId::kMap; }

void AppendValidity(const ColumnVector& src, std::span<const int64_t> idx, ColumnVector* dst) {
  if (src.validity.empty() && dst->validity.empty()) return;
  if (dst->validity.empty()) dst->validity.assign(static_cast<size_t>(dst->length), 1);
  if (src.validity.empty()) {
    dst->validity.insert(dst->validity.end(), idx.size(), 1);
  } else {
    for (int64_t i : idx) dst->validity.push_back(src.validity[i]);
  }
}

template <typename T>
void GatherFixed(const ColumnVector& src, std::span<const int64_t> idx, ColumnVector* dst) {
  size_t start = dst->values.size();
  dst->values.Resize(start + idx.size() * sizeof(T));
  T* out = reinterpret_cast<T*>(dst->values.data() + start);
  const T* in = src.data<T>();
  for (size_t k = 0; k < idx.size(); ++k) out[k] = in[idx[k]];
}

}  // namespace

void AppendRows(const ColumnVector& src, std::span<const int64_t> idx, ColumnVector* dst) {
  const TypeId id = src.type->id;
  AppendValidity(src, idx, dst);
  if (IsVarBytes(id)) {
    size_t total = 0;
    for (int64_t i : idx) total += static_cast<size_t>(src.offsets[i + 1] - src.offsets[i]);
    dst->values.Reserve(dst->values.size() + total);
    dst->offsets.reserve(dst->offsets.size() + idx.size());
    for (int64_t i : idx) {
      dst->values.Append(src.values.data() + src.offsets[i],
                         static_cast<size_t>(src.offsets[i + 1] - src.offsets[i]));
      dst->offsets.push_back(static_cast<int64_t>(dst->values.size()));
    }
  } else if (IsListLike(id)) {
    std::vector<int64_t> child_idx;
    for (int64_t i : idx) {
      for (int64_t j = src.offsets[i]; j < src.offsets[i + 1]; ++j) child_idx.push_back(j);
    }
    for (size_t c = 0; c < src.children.size(); ++c) AppendRows(src.children[c], child_idx, &dst->children[c]);
    int64_t end = dst->offsets.back();
    for (int64_t i : idx) {
      end += src.offsets[i + 1] - src.offsets[i];
      dst->offsets.push_back(end);
    }
  } else if (id == TypeId::kStruct) {
    for (size_t c = 0; c < src.children.size(); ++c) AppendRows(src.children[c], idx, &dst->children[c]);
  } else {
    switch (FixedValueWidth(*src.type)) {
      case 1: GatherFixed<uint8_t>(src, idx, dst); break;
      case 4: GatherFixed<uint32_t>(src, idx, dst); break;
      case 8: GatherFixed<uint64_t>(src, idx, dst); break;
      case 16: GatherFixed<int128_t>(src, idx, dst); break;
      default: {
        size_t w = static_cast<size_t>(FixedValueWidth(*src.type));
        for (int64_t i : idx) dst->values.Append(src.values.data() + static_cast<size_t>(i) * w, w);
      }
    }
  }
  dst->length += static_cast<int64_t>(idx.size());
}

void AppendRange(const ColumnVector& src, int64_t begin, int64_t end, ColumnVector* dst) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  const TypeId id = src.type->id;
  if (!src.validity.empty() || !dst->validity.empty()) {
    if (dst->validity.empty()) dst->validity.assign(static_cast<size_t>(dst->length), 1);
    if (src.validity.empty()) dst->validity.insert(dst->validity.end(), static_cast<size_t>(n), 1);
    else dst->validity.insert(dst->validity.end(), src.validity.begin() + begin, src.validity.begin() + end);
  }
  if (IsVarBytes(id) || IsListLike(id)) {
    int64_t base = src.offsets[begin];
    int64_t shift = dst->offsets.back() - base;
    for (int64_t i = begin + 1; i <= end; ++i) dst->offsets.push_back(src.offsets[i] + shift);
    if (IsVarBytes(id)) {
      dst->values.Append(src.values.data() + base, static_cast<size_t>(src.offsets[end] - base));
    } else {
      for (size_t c = 0; c < src.children.size(); ++c) {
        AppendRange(src.children[c], base, src.offsets[end], &dst->children[c]);
      }
    }
  } else if (id == TypeId::kStruct) {
    for (size_t c = 0; c < src.children.size(); ++c) AppendRange(src.children[c], begin, end, &dst->children[c]);
  } else {
    size_t w = static_cast<size_t>(FixedValueWidth(*src.type));
    dst->values.Append(src.values.data() + static_cast<size_t>(begin) * w, static_cast<size_t>(n) * w);
  }
  dst->length += n;
}

ColumnVector Take(const ColumnVector& src, std::span<const int64_t> indices) {
  ColumnVector out(src.type);
  AppendRows(src, indices, &out);
  return out;
}

Batch Take(const Batch& src, std::span<const int64_t> indices) {
  Batch out(src.schema);
  for (size_t c = 0; c < src.columns.size(); ++c) AppendRows(src.columns[c], indices, &out.columns[c]);
  if (!src.row_kinds.empty()) {
    for (int64_t i : indices) out.row_kinds.push_back(src.row_kinds[i]);
  }
  if (!src.positions.empty()) {
    for (int64_t i : indices) out.positions.push_back(src.positions[i]);
  }
  if (!src.sequence_numbers.empty()) {
    for (int64_t i : indices) out.sequence_numbers.push_back(src.sequence_numbers[i]);
  }
  out.num_rows = static_cast<int64_t>(indices.size());
  return out;
}

void AppendRange(const Batch& src, int64_t begin, int64_t end, Batch* dst) {
  for (size_t c = 0; c < src.columns.size(); ++c) AppendRange(src.columns[c], begin, end, &dst->columns[c]);
  if (!src.row_kinds.empty()) {
    dst->row_kinds.resize(static_cast<size_t>(dst->num_rows), RowKind::kInsert);
    dst->row_kinds.insert(dst->row_kinds.end(), src.row_kinds.begin() + begin, src.row_kinds.begin() + end);
  }
  if (!src.positions.empty()) {
    dst->positions.resize(static_cast<size_t>(dst->num_rows), 0);
    dst->positions.insert(dst->positions.end(), src.positions.begin() + begin, src.positions.begin() + end);
  }
  if (!src.sequence_numbers.empty()) {
    dst->sequence_numbers.resize(static_cast<size_t>(dst->num_rows), 0);
    dst->sequence_numbers.insert(dst->sequence_numbers.end(), src.sequence_numbers.begin() + begin,
                                 src.sequence_numbers.begin() + end);
  }
  dst->num_rows += end - begin;
}

std::vector<int64_t> SelectedIndices(std::span<const uint8_t> selection) {
  std::vector<int64_t> out;
  out.reserve(selection.size());
  for (size_t i = 0; i < selection.size(); ++i) {
    if (selection[i]) out.push_back(static_cast<int64_t>(i));
  }
  return out;
}

}  // namespace floe
