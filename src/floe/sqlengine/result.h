/// \file
/// What a statement returns, and how Flink's SQL client prints it: result
/// tables in the "tableau" style (every cell right-aligned between `|`,
/// `+---+` rules, `<NULL>` for null, `N rows in set` / `1 row in set` /
/// `Empty set` after batch results, an `op` column and `Received a total of N
/// rows` after streaming ones), `[INFO] ...` for statements without rows.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "floe/sql/ast.h"
#include "floe/types/column_vector.h"

namespace floe::sqlengine {

/// Rows as text (nullopt = NULL), with their column names and types.
struct ResultTable {
  std::vector<std::string> columns;
  std::vector<sql::DataType> types;
  std::vector<std::vector<std::optional<std::string>>> rows;
  /// A streaming result: each row has a kind (the `op` column).
  bool changelog = false;
  std::vector<RowKind> kinds;
  /// A streaming result whose rows went to Session::SetStreamingRows's
  /// callback as they came: how many there were (`rows` is empty).
  std::optional<int64_t> streamed_rows;
};

struct StatementResult {
  enum class Kind : uint8_t {
    kOk,    ///< [INFO] Execute statement succeed.
    kRows,  ///< a result table
    kInfo,  ///< [INFO] <message>
  };
  Kind kind = Kind::kOk;
  std::string message;
  ResultTable table;
  /// Warnings of the statement (printed as `[WARNING] ...` before the result).
  std::vector<std::string> warnings;
};

/// "+I", "-U", "+U", "-D".
std::string_view RowKindText(RowKind kind);

/// A changelog row as Flink's Row.toString prints it: `+I[1, a, null]`.
std::string ChangelogLine(RowKind kind, const std::vector<std::optional<std::string>>& row);

/// Tableau lines printed as a streaming result's rows come (Flink's tableau
/// mode for a streaming query): the column widths come from the types (the
/// rows are not known yet), and a longer value is cut to the width with
/// "..." (Flink's `sql-client.display.max-column-width`, 30).
class StreamingTableau {
 public:
  explicit StreamingTableau(const ResultTable& columns);
  /// The header (rule, names, rule).
  std::string Header() const;
  /// The lines of the rows of `batch`.
  std::string Rows(const ResultTable& batch) const;
  /// The closing rule (when rows were printed) and `Received a total of N rows`.
  std::string Footer(int64_t rows) const;

 private:
  std::string Line(const std::vector<std::string>& cells) const;
  std::vector<std::string> header_;
  std::vector<size_t> width_;
};

/// The tableau text of a result table, footer included, each line ending in '\n'.
std::string RenderTableau(const ResultTable& table);

/// What the SQL client prints for a result (warnings, then the table or the
/// [INFO] line), each line ending in '\n'.
std::string RenderResult(const StatementResult& result);

/// The SQL client's error frame: `[ERROR] Could not execute SQL statement.
/// Reason:` and the message on the next line.
std::string RenderError(std::string_view message);

}  // namespace floe::sqlengine
