// Control columns of plain change rows, and the key encoding of the change sink.
#include "floe/sink/change_rows.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "floe/config/options.h"

namespace floe::sink {

namespace {

std::vector<std::string> SplitDots(std::string_view dotted) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= dotted.size(); ++i) {
    if (i == dotted.size() || dotted[i] == '.') {
      parts.emplace_back(dotted.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

const NestedField* FieldAt(const Schema& schema, const std::vector<int>& path) {
  const std::vector<NestedField>* fields = &schema.fields();
  const NestedField* f = nullptr;
  for (int i : path) {
    f = &(*fields)[static_cast<size_t>(i)];
    fields = &f->type->fields;
  }
  return f;
}

// `fields` without the field at `path` (a struct on the way is rebuilt).
std::vector<NestedField> WithoutField(const std::vector<NestedField>& fields, const std::vector<int>& path,
                                      size_t depth) {
  std::vector<NestedField> out = fields;
  const size_t i = static_cast<size_t>(path[depth]);
  if (depth + 1 == path.size()) {
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(i));
  } else {
    out[i].type = StructType(WithoutField(out[i].type->fields, path, depth + 1));
  }
  return out;
}

void RemoveColumn(std::vector<ColumnVector>* columns, const std::vector<int>& path, size_t depth) {
  const size_t i = static_cast<size_t>(path[depth]);
  ColumnVector& col = (*columns)[i];
  if (depth + 1 == path.size()) {
    columns->erase(columns->begin() + static_cast<std::ptrdiff_t>(i));
    return;
  }
  RemoveColumn(&col.children, path, depth + 1);
  col.type = StructType(WithoutField(col.type->fields, path, depth + 1));
}

bool IsIntegral(TypeId id) {
  return id == TypeId::kInt || id == TypeId::kLong || id == TypeId::kDate || id == TypeId::kTimestamp ||
         id == TypeId::kTimestampTz || id == TypeId::kTimestampNs || id == TypeId::kTimestampTzNs ||
         id == TypeId::kTime;
}

}  // namespace

Result<std::vector<int>> NamePath(const Schema& schema, std::string_view dotted) {
  std::vector<int> path;
  const std::vector<NestedField>* fields = &schema.fields();
  const std::vector<std::string> parts = SplitDots(dotted);
  for (size_t p = 0; p < parts.size(); ++p) {
    auto it = std::find_if(fields->begin(), fields->end(), [&](const NestedField& f) { return f.name == parts[p]; });
    if (it == fields->end()) {
      return NotFound("no column '{}' in the input schema", dotted);
    }
    path.push_back(static_cast<int>(it - fields->begin()));
    if (p + 1 < parts.size()) {
      if (it->type->id != TypeId::kStruct) {
        return InvalidArgument("column '{}': '{}' is not a struct", dotted, it->name);
      }
      fields = &it->type->fields;
    }
  }
  return path;
}

const ColumnVector& ColumnAt(const Batch& batch, const std::vector<int>& path) {
  const ColumnVector* c = &batch.columns[static_cast<size_t>(path[0])];
  for (size_t d = 1; d < path.size(); ++d) c = &c->children[static_cast<size_t>(path[d])];
  return *c;
}

// Whether any column on `path` has a null in this batch (else IsNullAt is false for every row).
static bool PathHasNulls(const Batch& batch, const std::vector<int>& path) {
  const ColumnVector* c = &batch.columns[static_cast<size_t>(path[0])];
  if (c->has_nulls()) return true;
  for (size_t d = 1; d < path.size(); ++d) {
    c = &c->children[static_cast<size_t>(path[d])];
    if (c->has_nulls()) return true;
  }
  return false;
}

bool IsNullAt(const Batch& batch, const std::vector<int>& path, int64_t row) {
  const ColumnVector* c = &batch.columns[static_cast<size_t>(path[0])];
  if (c->IsNull(row)) return true;
  for (size_t d = 1; d < path.size(); ++d) {
    c = &c->children[static_cast<size_t>(path[d])];
    if (c->IsNull(row)) return true;
  }
  return false;
}

Result<ControlColumns> ControlColumns::Make(SchemaPtr input, const SinkOptions& options,
                                            const std::vector<std::string>& keep) {
  namespace k = config::keys;
  ControlColumns c;
  c.input_ = input;
  c.kinds_.assign(options.change_types.begin(), options.change_types.end());
  // Kept: keep names the column, or a struct it is in.
  auto kept = [&](const std::string& dotted) {
    return std::any_of(keep.begin(), keep.end(), [&](const std::string& k) {
      return dotted == k || (dotted.size() > k.size() && dotted.starts_with(k) && dotted[k.size()] == '.');
    });
  };
  std::vector<std::vector<int>> strip;
  if (options.mode == WriteMode::kMergeOnRead && !options.arrival_order) {
    auto seq = NamePath(*input, options.sequence_column);
    if (!seq) {
      return InvalidArgument(
          "option {}: the sequence number column '{}' is not an input column{}; merge-on-read orders each "
          "key's changes by it",
          k::kBeamSequenceNumberColumn.name, options.sequence_column,
          options.sequence_column_set ? "" : " (Beam's default name; set sequence_number_column)");
    }
    const NestedField* f = FieldAt(*input, *seq);
    if (!IsIntegral(f->type->id)) {
      return InvalidArgument("option {}: column '{}' is {}; a sequence number must be an integer (int, long) or "
                             "a date/time",
                             k::kBeamSequenceNumberColumn.name, options.sequence_column, f->type->ToString());
    }
    c.seq_path_ = *seq;
    c.seq_name_ = options.sequence_column;
    c.strip_seq_ = !kept(options.sequence_column);
    if (c.strip_seq_) strip.push_back(*seq);
  }
  if (!options.change_type_column.empty()) {
    auto ct = NamePath(*input, options.change_type_column);
    if (!ct) {
      return InvalidArgument("option {}: '{}' is not an input column", k::kBeamChangeTypeColumn.name,
                             options.change_type_column);
    }
    const NestedField* f = FieldAt(*input, *ct);
    if (f->type->id != TypeId::kString) {
      return InvalidArgument("option {}: column '{}' is {}; change types are strings",
                             k::kBeamChangeTypeColumn.name, options.change_type_column, f->type->ToString());
    }
    c.type_path_ = *ct;
    c.type_name_ = options.change_type_column;
    c.strip_type_ = !kept(options.change_type_column);
    if (c.strip_type_) strip.push_back(*ct);
  }
  // Strip the deeper / later one first so the other's path stays valid.
  std::sort(strip.begin(), strip.end(), std::greater<>());
  std::vector<NestedField> fields = input->fields();
  for (const auto& path : strip) fields = WithoutField(fields, path, 0);
  c.stripped_ = std::make_shared<Schema>(std::move(fields), input->schema_id(), input->identifier_field_ids());
  return c;
}

ptrdiff_t ControlColumns::KindIndex(std::string_view v) const {
  for (size_t i = 0; i < kinds_.size(); ++i) {
    const std::string& text = kinds_[i].first;
    if (text.size() == v.size() && std::memcmp(text.data(), v.data(), v.size()) == 0) return static_cast<ptrdiff_t>(i);
  }
  return -1;
}

Result<ControlColumns::RowControl> ControlColumns::Read(const Batch& batch, int64_t row,
                                                        const SinkOptions& options) const {
  RowControl rc;
  if (!type_path_.empty()) {
    if (IsNullAt(batch, type_path_, row)) {
      return InvalidArgument("column '{}': the change type is null", type_name_);
    }
    std::string_view v = ColumnAt(batch, type_path_).bytes(row);
    const ptrdiff_t at = KindIndex(v);
    if (at < 0) {
      std::string valid;
      for (const auto& [text, k] : options.change_types) valid += (valid.empty() ? "" : ", ") + text;
      return InvalidArgument("column '{}': unknown change type '{}' (valid: {})", type_name_, v, valid);
    }
    rc.kind = kinds_[static_cast<size_t>(at)].second;
  }
  if (!seq_path_.empty()) {
    if (IsNullAt(batch, seq_path_, row)) {
      return InvalidArgument("column '{}': the sequence number is missing or null", seq_name_);
    }
    const ColumnVector& col = ColumnAt(batch, seq_path_);
    rc.seq = FixedValueWidth(*col.type) == 4 ? col.data<int32_t>()[row] : col.data<int64_t>()[row];
  }
  return rc;
}

void ControlColumns::ReadAll(const Batch& batch, std::vector<RowKind>* kinds, std::vector<int64_t>* seqs,
                             std::vector<int64_t>* invalid) const {
  const int64_t n = batch.num_rows;
  kinds->resize(static_cast<size_t>(n), RowKind::kInsert);
  seqs->resize(static_cast<size_t>(n), 0);
  // The columns found once per batch, not per row (Read per row was ~200
  // instructions of a change's ~4,400 in a merge-on-read write).
  if (!type_path_.empty()) {
    const ColumnVector& col = ColumnAt(batch, type_path_);
    // Change types come in runs of a few spellings: try the last one first.
    std::string_view last_text;
    RowKind last_kind = RowKind::kInsert;
    const bool nulls = PathHasNulls(batch, type_path_);
    for (int64_t i = 0; i < n; ++i) {
      if (nulls && IsNullAt(batch, type_path_, i)) {
        invalid->push_back(i);
        continue;
      }
      const std::string_view v = col.bytes(i);
      if (v.size() != last_text.size() || std::memcmp(v.data(), last_text.data(), v.size()) != 0) {
        const ptrdiff_t at = KindIndex(v);
        if (at < 0) {
          invalid->push_back(i);
          continue;
        }
        last_text = kinds_[static_cast<size_t>(at)].first;
        last_kind = kinds_[static_cast<size_t>(at)].second;
      }
      (*kinds)[static_cast<size_t>(i)] = last_kind;
    }
  }
  if (!seq_path_.empty()) {
    const ColumnVector& col = ColumnAt(batch, seq_path_);
    const bool narrow = FixedValueWidth(*col.type) == 4;
    const size_t before = invalid->size();
    const bool nulls = PathHasNulls(batch, seq_path_);
    for (int64_t i = 0; i < n; ++i) {
      if (nulls && IsNullAt(batch, seq_path_, i)) {
        invalid->push_back(i);
        continue;
      }
      (*seqs)[static_cast<size_t>(i)] = narrow ? col.data<int32_t>()[i] : col.data<int64_t>()[i];
    }
    // Rows refused by both columns: listed once, in row order.
    if (before != 0 && invalid->size() != before) {
      std::inplace_merge(invalid->begin(), invalid->begin() + static_cast<std::ptrdiff_t>(before), invalid->end());
      invalid->erase(std::unique(invalid->begin(), invalid->end()), invalid->end());
    }
  }
}

Batch ControlColumns::Strip(Batch&& batch) const {
  if (!strip_seq_ && !strip_type_) return std::move(batch);
  std::vector<std::vector<int>> strip;
  if (strip_seq_) strip.push_back(seq_path_);
  if (strip_type_) strip.push_back(type_path_);
  std::sort(strip.begin(), strip.end(), std::greater<>());
  for (const auto& path : strip) RemoveColumn(&batch.columns, path, 0);
  batch.schema = stripped_;
  return std::move(batch);
}

Result<KeyEncoder> KeyEncoder::Make(const Schema& schema, const std::vector<int32_t>& field_ids) {
  KeyEncoder e;
  for (int32_t id : field_ids) {
    // Find the path of `id` through structs.
    std::vector<int> path;
    std::function<bool(const std::vector<NestedField>&)> find = [&](const std::vector<NestedField>& fields) {
      for (size_t i = 0; i < fields.size(); ++i) {
        path.push_back(static_cast<int>(i));
        if (fields[i].id == id) return true;
        if (fields[i].type->id == TypeId::kStruct && find(fields[i].type->fields)) return true;
        path.pop_back();
      }
      return false;
    };
    if (!find(schema.fields())) return NotFound("key column with field id {} is not in the schema", id);
    const NestedField* f = FieldAt(schema, path);
    const TypeId t = f->type->id;
    if (IsNested(t) || t == TypeId::kFloat || t == TypeId::kDouble) {
      return InvalidArgument("key column '{}' is {}; key columns must be primitive and not float or double",
                             f->name, f->type->ToString());
    }
    e.paths_.push_back(std::move(path));
    const bool var = t == TypeId::kString || t == TypeId::kBinary;
    e.widths_.push_back(var ? 0 : (t == TypeId::kUuid || t == TypeId::kFixed) ? -1 : FixedValueWidth(*f->type));
    e.names_.push_back(f->name);
  }
  return e;
}

bool KeyEncoder::Encode(const Batch& batch, int64_t row, std::string* out, std::string* null_column) const {
  const size_t start = out->size();
  for (size_t i = 0; i < paths_.size(); ++i) {
    if (IsNullAt(batch, paths_[i], row)) {
      out->resize(start);
      *null_column = names_[i];
      return false;
    }
    const ColumnVector& col = ColumnAt(batch, paths_[i]);
    const int w = widths_[i];
    if (w > 0) {
      out->append(reinterpret_cast<const char*>(col.values.data()) + static_cast<size_t>(row) * size_t(w),
                  size_t(w));
    } else {
      std::string_view b = col.bytes(row);
      if (w == 0) {
        const uint32_t n = static_cast<uint32_t>(b.size());
        out->append(reinterpret_cast<const char*>(&n), 4);
      }
      out->append(b);
    }
  }
  return true;
}

}  // namespace floe::sink
