/// \file
/// floe's SQL test files (`.slt`): the sqllogictest-rs record syntax, plus
/// `query ... changelog` and `require plugin X` (design: shared SQL.md §4).
/// This parses a file into records with their line numbers; the runner that
/// executes them comes with the engine.
///
/// Records are separated by blank lines; `#` starts a comment line. Kinds:
///
///   statement ok                   the SQL (one or more lines) must succeed
///   <sql>
///
///   statement error <text>         the SQL must fail, and the error message
///   <sql>                          must contain <text> (a substring)
///
///   statement error                same, with a multi-line expected message:
///   <sql>                          the lines after ---- up to the blank line,
///   ----                           joined by '\n', must occur in the message
///   <message lines>
///
///   query <types> [rowsort|valuesort|nosort] [changelog]
///   <sql>                          the rows, tab- or space-separated values
///   ----                           per line as the runner prints them
///   <expected rows>                (NULL for null, (empty) for '')
///
///   query error <text>             like statement error, for a query
///   <sql>
///
///   system ok                      a shell command that must exit 0
///   <command lines>
///
///   system capture <NAME>          a shell command that must exit 0 and print
///   <command lines>                one value: later records see `${NAME}`
///                                  replaced by it (a snapshot id for a hint)
///
///   require plugin <name>          skip the rest of the file without the plugin
///   halt                           stop reading the file here
///
/// Why substrings for `statement error`, where sqllogictest-rs takes a regex:
/// Flink's messages are full of regex metacharacters (`Encountered "(" at
/// line 1, column 14.`, `'c.db.t'`, `[ERROR]`), so a regex would need escapes
/// in nearly every test; a substring reads as the message reads.
///
/// `<types>` is one letter per column (I integer, R float/decimal, T text,
/// B boolean, D date/time, ? any), as in sqllogictest; `changelog` adds the
/// op column (+I, -U, +U, -D) first, which takes no letter.
/// `$__TEST_DIR__` in SQL, commands and expected text becomes the directory
/// given to the parser (the runner's scratch folder for this file).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/util/status.h"

namespace floe::sql {

enum class SltKind : uint8_t {
  kStatementOk,
  kStatementError,
  kQuery,
  kQueryError,
  kSystemOk,
  kSystemCapture,
  kRequirePlugin,
};

/// How a query's rows are compared (sqllogictest's sort modes).
enum class SltSort : uint8_t {
  kNoSort,     ///< in the order the query returns them
  kRowSort,    ///< rows sorted as text before comparing
  kValueSort,  ///< every value sorted, row boundaries ignored
};

struct SltRecord {
  SltKind kind = SltKind::kStatementOk;
  int line = 0;                ///< 1-based line of the record's first line
  std::string sql;             ///< statement / query text; the command for kSystemOk
  int sql_line = 0;            ///< line where `sql` starts (for error positions)
  std::string expected_error;  ///< kStatementError / kQueryError: a substring ("" = any error)
  std::string types;           ///< kQuery: one letter per column
  SltSort sort = SltSort::kNoSort;
  bool changelog = false;
  std::vector<std::string> expected_rows;  ///< kQuery: the lines after ----
  std::string plugin;                      ///< kRequirePlugin
  std::string capture;                     ///< kSystemCapture: the variable's name
};

/// Parses an .slt file. `file_name` goes into messages; `test_dir` replaces
/// `$__TEST_DIR__`. Errors (kInvalidArgument) name the file and line:
/// `t.slt:12: unknown record 'statment' (expected statement, query, system,
/// require, halt)`.
Result<std::vector<SltRecord>> ParseSltFile(std::string_view text, std::string_view file_name,
                                            std::string_view test_dir = "");

}  // namespace floe::sql
