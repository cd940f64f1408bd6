/// \file
/// Whole-column operations on the columnar layout: gathering rows (filters,
/// partition routing, the CDC sorter), appending ranges of one column to
/// another (batch building, rolling writers), and concatenation.
#pragma once

#include <cstdint>
#include <span>

#include "floe/types/column_vector.h"

namespace floe {

/// Appends rows `indices` of `src` (in that order, repeats allowed) to `dst`,
/// which must have the same type. Nested children are gathered accordingly.
void AppendRows(const ColumnVector& src, std::span<const int64_t> indices, ColumnVector* dst);

/// Appends rows [begin, end) of `src` to `dst` (same type).
void AppendRange(const ColumnVector& src, int64_t begin, int64_t end, ColumnVector* dst);

/// A new column holding rows `indices` of `src`.
ColumnVector Take(const ColumnVector& src, std::span<const int64_t> indices);

/// A new batch holding rows `indices` of `src` (row kinds and sequence
/// numbers included).
Batch Take(const Batch& src, std::span<const int64_t> indices);

/// Rows [begin, end) of `src` appended to `dst` (same schema).
void AppendRange(const Batch& src, int64_t begin, int64_t end, Batch* dst);

/// The indices of the bytes equal to 1 in `selection`.
std::vector<int64_t> SelectedIndices(std::span<const uint8_t> selection);

}  // namespace floe
