// Projector: keep / drop / only and the binding of columns to a table schema.
#include "floe/sink/projection.h"

#include <set>

namespace floe::sink {

namespace {

// Gives a moved column (and its children) the table's types, whose nested
// field ids may differ from the input's.
void Retype(ColumnVector* col, const TypePtr& type) {
  col->type = type;
  for (size_t i = 0; i < col->children.size() && i < type->fields.size(); ++i) {
    Retype(&col->children[i], type->fields[i].type);
  }
}

}  // namespace

bool SameShape(const Type& a, const Type& b) {
  if (a.id != b.id || a.precision != b.precision || a.scale != b.scale || a.length != b.length ||
      a.fields.size() != b.fields.size()) {
    return false;
  }
  for (size_t i = 0; i < a.fields.size(); ++i) {
    const NestedField& fa = a.fields[i];
    const NestedField& fb = b.fields[i];
    if (a.id == TypeId::kStruct && fa.name != fb.name) return false;
    if (fa.required != fb.required || !SameShape(*fa.type, *fb.type)) return false;
  }
  return true;
}

Result<Projector> Projector::Make(SchemaPtr input, const ProjectionConfig& config) {
  Projector p;
  p.input_ = input;
  p.kind_ = config.kind;
  std::vector<NestedField> fields;
  switch (config.kind) {
    case ProjectionKind::kNone:
      for (int i = 0; i < input->num_fields(); ++i) p.source_columns_.push_back(i);
      p.projected_ = input;
      return p;
    case ProjectionKind::kKeep:
      for (const std::string& name : config.fields) {
        int i = input->IndexOf(name);
        if (i < 0) return InvalidArgument("keep: no field '{}' in the input schema", name);
        p.source_columns_.push_back(i);
        fields.push_back(input->fields()[i]);
      }
      break;
    case ProjectionKind::kDrop: {
      std::set<std::string> drop(config.fields.begin(), config.fields.end());
      for (const std::string& name : config.fields) {
        if (input->IndexOf(name) < 0) return InvalidArgument("drop: no field '{}' in the input schema", name);
      }
      for (int i = 0; i < input->num_fields(); ++i) {
        if (drop.count(input->fields()[i].name)) continue;
        p.source_columns_.push_back(i);
        fields.push_back(input->fields()[i]);
      }
      if (fields.empty()) return InvalidArgument("drop: every input field is dropped");
      break;
    }
    case ProjectionKind::kOnly: {
      if (config.fields.size() != 1) return InvalidArgument("only: names exactly one field");
      int i = input->IndexOf(config.fields[0]);
      if (i < 0) return InvalidArgument("only: no field '{}' in the input schema", config.fields[0]);
      const NestedField& f = input->fields()[i];
      if (f.type->id != TypeId::kStruct) {
        return InvalidArgument("only: field '{}' is a {}, not a struct", f.name, f.type->ToString());
      }
      p.only_index_ = i;
      for (size_t c = 0; c < f.type->fields.size(); ++c) {
        p.source_columns_.push_back(static_cast<int>(c));
        NestedField child = f.type->fields[c];
        // A null record makes its fields null: keep the record's nullability.
        if (!f.required) child.required = false;
        fields.push_back(std::move(child));
      }
      break;
    }
  }
  p.projected_ = std::make_shared<Schema>(std::move(fields), input->schema_id());
  return p;
}

Status Projector::Bind(SchemaPtr table) {
  std::vector<int> bound(table->num_fields(), -1);
  std::vector<bool> used(projected_->num_fields(), false);
  for (int t = 0; t < table->num_fields(); ++t) {
    const NestedField& tf = table->fields()[t];
    int i = projected_->IndexOf(tf.name);
    if (i < 0) {
      if (tf.required) {
        return InvalidArgument("the input has no column '{}', which is NOT NULL in the table", tf.name);
      }
      continue;
    }
    const NestedField& pf = projected_->fields()[i];
    if (!SameShape(*pf.type, *tf.type)) {
      // Nullability of nested parts aside, the shapes must match exactly.
      return InvalidArgument("column '{}': the input has type {}, the table {}", tf.name, pf.type->ToString(),
                             tf.type->ToString());
    }
    bound[t] = i;
    used[i] = true;
  }
  for (int i = 0; i < projected_->num_fields(); ++i) {
    if (!used[i]) {
      return InvalidArgument("the table has no column '{}' (table columns: {})", projected_->fields()[i].name,
                             table->ToString());
    }
  }
  table_ = std::move(table);
  bound_ = std::move(bound);
  return Ok();
}

Status Projector::Apply(Batch&& in, Batch* out, int64_t first_row) const {
  out->schema = table_;
  out->num_rows = in.num_rows;
  out->row_kinds = std::move(in.row_kinds);
  out->sequence_numbers = std::move(in.sequence_numbers);
  out->positions = std::move(in.positions);
  std::vector<ColumnVector>* source = &in.columns;
  if (only_index_ >= 0) source = &in.columns[only_index_].children;
  out->columns.resize(table_->num_fields());
  for (int t = 0; t < table_->num_fields(); ++t) {
    const NestedField& tf = table_->fields()[t];
    ColumnVector& col = out->columns[t];
    if (bound_[t] < 0) {
      col = ColumnVector(tf.type);
      for (int64_t r = 0; r < in.num_rows; ++r) col.AppendNull();
      continue;
    }
    col = std::move((*source)[source_columns_[bound_[t]]]);
    Retype(&col, tf.type);
    if (tf.required && col.has_nulls()) {
      for (int64_t r = 0; r < col.length; ++r) {
        if (col.IsNull(r)) {
          return InvalidArgument("row {}, column '{}': null in NOT NULL column", first_row + r, tf.name);
        }
      }
    }
  }
  return Ok();
}

}  // namespace floe::sink
