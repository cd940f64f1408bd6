/// \file
/// Runs floe's `.slt` test files (format: sql/slt_file.h) against a fresh
/// Session: `statement ok` must succeed, `statement error <text>` must fail
/// with <text> in its message, `query <types> [rowsort|valuesort]
/// [changelog]` must return exactly the expected rows, `system ok` runs a
/// shell command that must exit 0, `require plugin X` skips the rest of the
/// file when the plugin class X cannot be found.
///
/// Query rows are printed one per line, values separated by one space, NULL
/// for null and (empty) for the empty string (a value with line breaks spans
/// lines); a changelog query prints the
/// row kind (+I, -U, +U, -D) first. Expected rows compare after tabs become
/// spaces and trailing blanks are dropped. `--override` rewrites each
/// query's expected rows (and each failing `statement error`'s text) with
/// what the engine returned, as sqllogictest-rs does.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "floe/util/status.h"

namespace floe::sqlengine {

struct SltOptions {
  /// The scratch folder of the file ($__TEST_DIR__), emptied before the run.
  std::string test_dir;
  /// Rewrite the expected output in the file instead of failing.
  bool override_results = false;
  /// Whether a plugin class can be loaded (for `require plugin`); null: none can.
  std::function<bool(const std::string&)> has_plugin;
};

struct SltOutcome {
  int passed = 0;
  int failed = 0;
  int skipped = 0;
  /// One entry per failed record: `file.slt:12: ...` with expected and actual.
  std::vector<std::string> failures;
  /// With override_results: whether the file was rewritten.
  bool rewritten = false;
};

/// Runs one file. An error is returned for an unreadable or malformed file;
/// failing records are counted in the outcome.
Result<SltOutcome> RunSltFile(const std::string& path, const SltOptions& options);

}  // namespace floe::sqlengine
