/// \file
/// Table templates: Beam's dynamic destinations, where the `table` option is
/// a template such as `db.events_{region}_{meta.kind}` and each row goes to
/// the table its own field values name. A `{path}` is a dotted path to a
/// primitive field (nested structs by dots; list and map elements are not
/// addressable). The namespace part may hold fields too (`{tenant}.events`).
///
/// Values are formatted as text — integers in decimal, booleans true/false,
/// decimals exactly ("-12.30"), floating point as the shortest text that
/// reads back, dates ISO (2024-01-31), times HH:MM:SS.ffffff, timestamps
/// ISO without zone (timestamptz in UTC), strings as they are, uuids in
/// their 8-4-4-4-12 form, binary and fixed as lower-case hex — and then
/// sanitized into identifier characters: every character outside
/// [A-Za-z0-9_] becomes one '_' (a multi-byte UTF-8 character becomes one
/// '_', so do '.' and '-': a value can never add a namespace level). The
/// template's literal text is kept as written.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/types/column_vector.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::sink {

/// A parsed `table` option: literal text and `{field}` references.
/// Evaluate keeps a cache of the last formatted value of each field, so a
/// TableTemplate is not thread-safe: give each thread its own copy.
class TableTemplate {
 public:
  /// The longest namespace level or table name a row may produce, in bytes.
  static constexpr size_t kMaxNameBytes = 255;

  /// Parses a template. kInvalidArgument naming the 1-based character
  /// position for a `{` without `}`, a `}` without `{`, an empty `{}`, a `{`
  /// inside braces (no nesting) and an empty path component (`{a..b}`).
  static Result<TableTemplate> Parse(std::string_view text);

  /// Whether the text has at least one `{field}`; a plain table name has none.
  bool is_template() const { return !fields_.empty(); }
  /// The field paths, dotted, in order of first appearance (each once).
  const std::vector<std::string>& fields() const { return fields_; }
  /// The template as written.
  const std::string& text() const { return text_; }

  /// Binds the field paths to `schema`, the schema of the batches Evaluate
  /// gets (top-level columns in field order). kInvalidArgument naming the
  /// path and the template when a path does not exist, passes through a
  /// list or map, or ends at a struct, list or map.
  Status Bind(const Schema& schema);

  /// The destination of row `row` of `batch` (of the bound schema), as
  /// `ns.name` text. kInvalidArgument naming the field, the row (and its
  /// input position when the batch tracks positions) when a field is null
  /// (or under a null struct), or a namespace level or the table name comes
  /// out empty or longer than kMaxNameBytes: the sink sends such rows to its
  /// error output.
  Result<std::string> Evaluate(const Batch& batch, int64_t row) const;
  /// The same into `out` (replaced), which keeps its capacity across rows:
  /// the way to evaluate many rows without an allocation per row.
  Status EvaluateTo(const Batch& batch, int64_t row, std::string* out) const;

 private:
  /// A piece of the template: literal text, or a reference to fields_[field].
  struct Part {
    std::string literal;
    int field = -1;
  };
  /// A bound field: the column index, then child indices through structs,
  /// the leaf type, and the cache of the last value formatted.
  struct Bound {
    std::vector<int> path;
    TypePtr type;
    mutable std::string last_raw;   ///< the raw bytes of the last value formatted
    mutable std::string last_text;  ///< its sanitized text
    mutable std::string scratch;    ///< the unsanitized text (kept for its capacity)
    mutable bool cached = false;
  };

  /// The sanitized text of field `i` at `row` into the cache; nullptr and an
  /// error when it is null.
  Result<const std::string*> FieldText(const Batch& batch, int64_t row, size_t i) const;
  /// The error for row `row` of `batch` about `what`.
  Error RowError(const Batch& batch, int64_t row, std::string_view what) const;

  std::string text_;
  std::vector<Part> parts_;
  std::vector<std::string> fields_;
  std::vector<Bound> bound_;
  bool bound_ok_ = false;
};

}  // namespace floe::sink
