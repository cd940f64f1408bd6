// Projector: keep / drop / only and the binding of columns to a table schema.
#include "floe/sink/projection.h"

#include <algorithm>

#include "floe/sink/change_rows.h"

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

namespace {

// A struct's children narrowed to those keep names or drop spares: `paths`
// hold the named fields relative to `type` (child indices; an empty path is
// the field itself).
Projector::Narrow KeepTree(const Type& type, const std::vector<std::vector<int>>& paths) {
  Projector::Narrow n;
  for (const auto& p : paths) {
    if (p.empty()) return n;  // the field itself: whole
  }
  n.whole = false;
  for (size_t c = 0; c < type.fields.size(); ++c) {
    std::vector<std::vector<int>> sub;
    for (const auto& p : paths) {
      if (static_cast<size_t>(p[0]) == c) sub.emplace_back(p.begin() + 1, p.end());
    }
    if (!sub.empty()) n.children.push_back(Projector::Narrow::Child{static_cast<int>(c), KeepTree(*type.fields[c].type, sub)});
  }
  return n;
}

Result<Projector::Narrow> DropTree(const NestedField& field, const std::vector<std::vector<int>>& paths) {
  Projector::Narrow n;
  if (paths.empty()) return n;
  n.whole = false;
  const Type& type = *field.type;
  for (size_t c = 0; c < type.fields.size(); ++c) {
    std::vector<std::vector<int>> sub;
    bool dropped = false;
    for (const auto& p : paths) {
      if (static_cast<size_t>(p[0]) != c) continue;
      if (p.size() == 1) dropped = true;
      sub.emplace_back(p.begin() + 1, p.end());
    }
    if (dropped) continue;
    FLOE_ASSIGN_OR_RETURN(Projector::Narrow child, DropTree(type.fields[c], sub));
    n.children.push_back(Projector::Narrow::Child{static_cast<int>(c), std::move(child)});
  }
  if (n.children.empty()) return InvalidArgument("drop: every field of struct '{}' is dropped", field.name);
  return n;
}

NestedField NarrowField(const NestedField& f, const Projector::Narrow& n) {
  if (n.whole) return f;
  NestedField out = f;
  std::vector<NestedField> children;
  for (const auto& [c, sub] : n.children) children.push_back(NarrowField(f.type->fields[static_cast<size_t>(c)], sub));
  out.type = StructType(std::move(children));
  return out;
}

// Moves the kept children of a struct column (recursively) into place.
void NarrowColumn(ColumnVector* col, const Projector::Narrow& n) {
  if (n.whole) return;
  std::vector<ColumnVector> children;
  children.reserve(n.children.size());
  for (const auto& [c, sub] : n.children) {
    children.push_back(std::move(col->children[static_cast<size_t>(c)]));
    NarrowColumn(&children.back(), sub);
  }
  col->children = std::move(children);
}

// The dotted names of `names` as paths of the input (keep / drop name nested
// struct fields as `meta.src`).
Result<std::vector<std::vector<int>>> PathsOf(const Schema& input, const std::vector<std::string>& names,
                                              std::string_view what) {
  std::vector<std::vector<int>> paths;
  for (const std::string& name : names) {
    auto path = NamePath(input, name);
    if (!path) {
      return InvalidArgument("{}: no field '{}' in the input schema ({})", what, name, path.error().message);
    }
    paths.push_back(std::move(*path));
  }
  return paths;
}

}  // namespace

Result<Projector> Projector::Make(SchemaPtr input, const ProjectionConfig& config) {
  Projector p;
  p.input_ = input;
  p.kind_ = config.kind;
  std::vector<NestedField> fields;
  auto add = [&](int i, Narrow n) {
    fields.push_back(NarrowField(input->fields()[static_cast<size_t>(i)], n));
    p.source_columns_.push_back(i);
    p.narrow_.push_back(std::move(n));
  };
  switch (config.kind) {
    case ProjectionKind::kNone:
      for (int i = 0; i < input->num_fields(); ++i) p.source_columns_.push_back(i);
      p.narrow_.resize(p.source_columns_.size());
      p.projected_ = input;
      return p;
    case ProjectionKind::kKeep: {
      // Top-level columns in the order keep first names them; nested names
      // keep those fields of their structs (in the struct's order).
      FLOE_ASSIGN_OR_RETURN(auto paths, PathsOf(*input, config.fields, "keep"));
      std::vector<int> order;
      for (const auto& path : paths) {
        if (std::find(order.begin(), order.end(), path[0]) == order.end()) order.push_back(path[0]);
      }
      for (int top : order) {
        std::vector<std::vector<int>> sub;
        for (const auto& path : paths) {
          if (path[0] == top) sub.emplace_back(path.begin() + 1, path.end());
        }
        add(top, KeepTree(*input->fields()[static_cast<size_t>(top)].type, sub));
      }
      break;
    }
    case ProjectionKind::kDrop: {
      FLOE_ASSIGN_OR_RETURN(auto paths, PathsOf(*input, config.fields, "drop"));
      for (int i = 0; i < input->num_fields(); ++i) {
        std::vector<std::vector<int>> sub;
        bool dropped = false;
        for (const auto& path : paths) {
          if (path[0] != i) continue;
          if (path.size() == 1) dropped = true;
          sub.emplace_back(path.begin() + 1, path.end());
        }
        if (dropped) continue;
        FLOE_ASSIGN_OR_RETURN(Narrow n, DropTree(input->fields()[static_cast<size_t>(i)], sub));
        add(i, std::move(n));
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
      p.narrow_.resize(p.source_columns_.size());
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
    NarrowColumn(&col, narrow_[static_cast<size_t>(bound_[t])]);
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
