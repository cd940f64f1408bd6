#include "floe/types/column_vector.h"

#include "floe/types/visit_type.h"

namespace floe {

int FixedValueWidth(const Type& type) {
  return VisitType(type, [&](auto tag) {
    using Tag = decltype(tag);
    if constexpr (Tag::id == TypeId::kFixed) return type.length;
    return Tag::layout == ValueLayout::kFixedWidth ? Tag::width : 0;
  });
}

namespace {
bool HasOffsets(TypeId id) {
  return VisitTypeId(id, [](auto tag) {
    using Tag = decltype(tag);
    return Tag::layout == ValueLayout::kOffsets || Tag::layout == ValueLayout::kList ||
           Tag::layout == ValueLayout::kMap;
  });
}
}  // namespace

ColumnVector::ColumnVector(TypePtr t) : type(std::move(t)) {
  if (HasOffsets(type->id)) offsets.push_back(0);
  if (type->is_nested()) {
    for (const auto& f : type->fields) children.emplace_back(f.type);
  }
}

int64_t ColumnVector::null_count() const {
  if (validity.empty()) return 0;
  int64_t n = 0;
  for (int64_t i = 0; i < length; ++i) n += validity[i] == 0;
  return n;
}

std::string_view ColumnVector::bytes(int64_t i) const {
  const char* base = reinterpret_cast<const char*>(values.data());
  if (!offsets.empty()) {
    return std::string_view(base + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }
  int w = FixedValueWidth(*type);
  return std::string_view(base + static_cast<size_t>(i) * w, static_cast<size_t>(w));
}

void ColumnVector::SetValid(int64_t i, bool valid) {
  if (validity.empty()) {
    if (valid) return;
    validity.assign(static_cast<size_t>(length), 1);
  }
  validity[i] = valid ? 1 : 0;
}

void ColumnVector::AppendNull() {
  if (validity.empty()) validity.assign(static_cast<size_t>(length), 1);
  validity.push_back(0);
  switch (type->id) {
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kList:
    case TypeId::kMap: offsets.push_back(offsets.back()); break;
    case TypeId::kStruct:
      for (auto& c : children) c.AppendNull();
      break;
    default: {
      int w = FixedValueWidth(*type);
      values.Reserve(values.size() + w);
      std::memset(values.data() + values.size(), 0, w);
      values.Resize(values.size() + w);
    }
  }
  ++length;
}

void ColumnVector::AppendBytes(std::string_view v) {
  values.Append(v.data(), v.size());
  if (!offsets.empty()) offsets.push_back(static_cast<int64_t>(values.size()));
  if (!validity.empty()) validity.push_back(1);
  ++length;
}

void ColumnVector::CloseListRow() {
  offsets.push_back(children[0].length);
  if (!validity.empty()) validity.push_back(1);
  ++length;
}

void ColumnVector::AppendStructRow() {
  if (!validity.empty()) validity.push_back(1);
  ++length;
}

void ColumnVector::Clear() {
  length = 0;
  validity.clear();
  values.Clear();
  if (!offsets.empty()) offsets.resize(1);
  for (auto& c : children) c.Clear();
}

Status ColumnVector::Validate() const {
  if (!type) return Internal("column has no type");
  if (!validity.empty() && static_cast<int64_t>(validity.size()) != length) {
    return Internal("{} column: validity has {} entries for {} rows", type->ToString(),
                    validity.size(), length);
  }
  const TypeId id = type->id;
  if (HasOffsets(id)) {
    if (static_cast<int64_t>(offsets.size()) != length + 1 || offsets[0] != 0) {
      return Internal("{} column: {} offsets for {} rows", type->ToString(), offsets.size(),
                      length);
    }
    for (int64_t i = 0; i < length; ++i) {
      if (offsets[i + 1] < offsets[i]) {
        return Internal("{} column: offsets decrease at row {}", type->ToString(), i);
      }
    }
    int64_t end = offsets.back();
    if (id == TypeId::kString || id == TypeId::kBinary) {
      if (static_cast<int64_t>(values.size()) != end) {
        return Internal("{} column: {} data bytes, offsets end at {}", type->ToString(),
                        values.size(), end);
      }
    } else {
      for (const auto& c : children) {
        if (c.length != end) {
          return Internal("{} column: child has {} rows, offsets end at {}", type->ToString(),
                          c.length, end);
        }
        FLOE_RETURN_IF_ERROR(c.Validate());
      }
    }
  } else if (id == TypeId::kStruct) {
    if (children.size() != type->fields.size()) {
      return Internal("struct column: {} children for {} fields", children.size(),
                      type->fields.size());
    }
    for (const auto& c : children) {
      if (c.length != length) {
        return Internal("struct column: child has {} rows, struct has {}", c.length, length);
      }
      FLOE_RETURN_IF_ERROR(c.Validate());
    }
  } else {
    size_t want = static_cast<size_t>(length) * FixedValueWidth(*type);
    if (values.size() != want) {
      return Internal("{} column: {} value bytes for {} rows", type->ToString(), values.size(),
                      length);
    }
  }
  return Ok();
}

Batch::Batch(SchemaPtr s) : schema(std::move(s)) {
  for (const auto& f : schema->fields()) columns.emplace_back(f.type);
}

void Batch::Clear() {
  for (auto& c : columns) c.Clear();
  num_rows = 0;
  row_kinds.clear();
  sequence_numbers.clear();
  positions.clear();
}

Status Batch::Validate() const {
  if (!schema) return Internal("batch has no schema");
  if (columns.size() != schema->fields().size()) {
    return Internal("batch has {} columns for {} fields", columns.size(), schema->fields().size());
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].length != num_rows) {
      return Internal("column '{}' has {} rows, batch has {}", schema->fields()[i].name,
                      columns[i].length, num_rows);
    }
    if (Status st = columns[i].Validate(); !st) {
      return Fail(std::move(st).error().WithContext(schema->fields()[i].name));
    }
  }
  if (!row_kinds.empty() && static_cast<int64_t>(row_kinds.size()) != num_rows) {
    return Internal("batch has {} row kinds for {} rows", row_kinds.size(), num_rows);
  }
  if (!sequence_numbers.empty() && static_cast<int64_t>(sequence_numbers.size()) != num_rows) {
    return Internal("batch has {} sequence numbers for {} rows", sequence_numbers.size(), num_rows);
  }
  if (!positions.empty() && static_cast<int64_t>(positions.size()) != num_rows) {
    return Internal("batch has {} input positions for {} rows", positions.size(), num_rows);
  }
  return Ok();
}

}  // namespace floe
