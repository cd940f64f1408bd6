/// \file
/// The projection stage of the write pipeline (ARCHITECTURE "Data flow of a
/// write": project): Beam's keep / drop / only applied to decoded input
/// batches, and the binding of the projected columns to a table's schema by
/// column name (the table's field ids and nested types win; a table column
/// missing from the input is written as nulls when it is optional). Columns
/// are moved, never copied.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "floe/sink/write_config.h"
#include "floe/types/column_vector.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::sink {

/// True when two types have the same shape (type ids, parameters, field
/// names, nullability), whatever their field ids.
bool SameShape(const Type& a, const Type& b);

/// Projects input batches and binds them to a table schema.
class Projector {
 public:
  /// The part of a column a projection keeps: all of it, or some children
  /// of a struct (Child: the child's index, and what of it).
  struct Narrow {
    struct Child;
    bool whole = true;
    std::vector<Child> children;
  };


  /// Checks the projection against the input schema (names exist; `only`
  /// names a struct).
  static Result<Projector> Make(SchemaPtr input, const ProjectionConfig& config);

  /// The projected schema (the input's ids): what a new table is made of.
  SchemaPtr projected_schema() const { return projected_; }

  /// Binds output batches to `table`: every projected column must name a
  /// table column of the same shape; required table columns must be present.
  Status Bind(SchemaPtr table);

  /// Projects `in` (of the input schema) into `out` (of the bound table
  /// schema). `first_row` numbers rows in errors (1-based input rows).
  Status Apply(Batch&& in, Batch* out, int64_t first_row) const;

 private:
  SchemaPtr input_;
  SchemaPtr projected_;
  ProjectionKind kind_ = ProjectionKind::kNone;
  int only_index_ = -1;              ///< kOnly: the struct column of the input
  std::vector<int> source_columns_;  ///< projected column i = input column (or only child)
  std::vector<Narrow> narrow_;       ///< what of projected column i's source is kept
  SchemaPtr table_;
  /// Table column i comes from projected column bound_[i], or -1 (nulls).
  std::vector<int> bound_;
};

/// One kept child of a struct column: its index in the struct, and what of it.
struct Projector::Narrow::Child {
  int index = 0;
  Narrow narrow;
};

}  // namespace floe::sink
