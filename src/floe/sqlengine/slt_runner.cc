// The .slt runner (slt_runner.h).
#include "floe/sqlengine/slt_runner.h"

#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "floe/io/file.h"
#include "floe/sql/slt_file.h"
#include "floe/sqlengine/result.h"
#include "floe/sqlengine/session.h"

namespace floe::sqlengine {

namespace {

namespace fs = std::filesystem;

std::string Normalize(std::string_view line) {
  std::string s(line);
  std::replace(s.begin(), s.end(), '\t', ' ');
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string Cell(const std::optional<std::string>& v) {
  if (!v) return "NULL";
  if (v->empty()) return "(empty)";
  return *v;
}

std::vector<std::string> RowLines(const ResultTable& t) {
  std::vector<std::string> out;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    std::vector<std::string> cells;
    if (t.changelog) cells.emplace_back(RowKindText(t.kinds[r]));
    for (const auto& v : t.rows[r]) cells.push_back(Cell(v));
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) line += (c ? " " : "") + cells[c];
    // A value with line breaks (SHOW CREATE TABLE) spans lines; a trailing
    // break would end the record, so it is dropped.
    while (!line.empty() && line.back() == '\n') line.pop_back();
    size_t start = 0;
    while (true) {
      size_t nl = line.find('\n', start);
      out.push_back(
          Normalize(line.substr(start, nl == std::string::npos ? std::string::npos : nl - start)));
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
  }
  return out;
}

std::vector<std::string> ValueSorted(const std::vector<std::string>& lines) {
  std::vector<std::string> values;
  for (const auto& l : lines) {
    size_t i = 0;
    while (i < l.size()) {
      while (i < l.size() && l[i] == ' ') ++i;
      size_t j = l.find(' ', i);
      if (j == std::string::npos) j = l.size();
      if (j > i) values.push_back(l.substr(i, j - i));
      i = j;
    }
  }
  std::sort(values.begin(), values.end());
  return values;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += "    " + l + "\n";
  return s.empty() ? "    (no rows)\n" : s;
}

std::string Unsubstitute(std::string s, const std::string& dir) {
  if (dir.empty()) return s;
  size_t pos = 0;
  while ((pos = s.find(dir, pos)) != std::string::npos) {
    s.replace(pos, dir.size(), "$__TEST_DIR__");
    pos += 13;
  }
  return s;
}

// `${NAME}` -> the value a `system capture NAME` record printed.
std::string Expand(std::string s, const std::map<std::string, std::string>& vars) {
  for (const auto& [name, value] : vars) {
    const std::string ref = "${" + name + "}";
    size_t at = 0;
    while ((at = s.find(ref, at)) != std::string::npos) {
      s.replace(at, ref.size(), value);
      at += value.size();
    }
  }
  return s;
}

// Runs a shell command and returns its standard output, or its exit status.
Result<std::string> Capture(const std::string& command) {
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return IoError("cannot run the command: {}", std::strerror(errno));
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) {
    out.append(buf, n);
    if (out.size() > (1u << 20)) break;
  }
  const int rc = ::pclose(p);
  if (rc != 0) {
    return InvalidArgument("command exited with status {}", WIFEXITED(rc) ? WEXITSTATUS(rc) : rc);
  }
  return out;
}

}  // namespace

Result<SltOutcome> RunSltFile(const std::string& path, const SltOptions& options) {
  FLOE_ASSIGN_OR_RETURN(std::string text, ReadLocalFile(path));
  const std::string name = fs::path(path).filename().string();
  if (!options.test_dir.empty()) {
    std::error_code ec;
    fs::remove_all(options.test_dir, ec);
    fs::create_directories(options.test_dir, ec);
    if (ec) return IoError("cannot create test folder {}: {}", options.test_dir, ec.message());
  }
  FLOE_ASSIGN_OR_RETURN(auto records, sql::ParseSltFile(text, name, options.test_dir));
  // The file's lines, for --override (1-based line r.line is lines[r.line - 1]).
  std::vector<std::string> lines;
  {
    size_t start = 0;
    while (start <= text.size()) {
      size_t nl = text.find('\n', start);
      if (nl == std::string::npos) nl = text.size();
      lines.push_back(text.substr(start, nl - start));
      start = nl + 1;
    }
  }
  // Replacements of expected-output ranges: [first line index, end) -> new lines.
  struct Patch {
    size_t begin, end;
    std::vector<std::string> lines;
  };
  std::vector<Patch> patches;
  auto result_range = [&](int record_line) -> std::pair<size_t, size_t> {
    size_t i = static_cast<size_t>(record_line);  // 0-based index of the line after the header
    while (i < lines.size() && lines[i] != "----" && !Normalize(lines[i]).empty()) ++i;
    if (i >= lines.size() || lines[i] != "----") return {i, i};
    size_t b = i + 1, e = b;
    while (e < lines.size() && !Normalize(lines[e]).empty()) ++e;
    return {b, e};
  };

  SltOutcome out;
  std::string printed;
  SessionOptions so;
  so.print_out = [&printed](std::string_view s) { printed += s; };
  so.print_err = [&printed](std::string_view s) { printed += s; };
  Session session(so);
  auto fail = [&](const sql::SltRecord& r, std::string what) {
    ++out.failed;
    out.failures.push_back(fmt::format("{}:{}: {}\n  sql: {}", name, r.line, what, r.sql));
  };
  std::map<std::string, std::string> vars;
  for (size_t k = 0; k < records.size(); ++k) {
    sql::SltRecord expanded = records[k];
    if (!vars.empty()) {
      expanded.sql = Expand(std::move(expanded.sql), vars);
      expanded.expected_error = Expand(std::move(expanded.expected_error), vars);
      for (auto& row : expanded.expected_rows) row = Expand(std::move(row), vars);
    }
    const sql::SltRecord& r = expanded;
    switch (r.kind) {
      case sql::SltKind::kRequirePlugin:
        if (!options.has_plugin || !options.has_plugin(r.plugin)) {
          out.skipped += static_cast<int>(records.size() - k - 1);
          k = records.size();
        } else {
          ++out.passed;
        }
        break;
      case sql::SltKind::kSystemOk: {
        const int rc = std::system(r.sql.c_str());
        if (rc != 0) {
          fail(r,
               fmt::format("command exited with status {}", WIFEXITED(rc) ? WEXITSTATUS(rc) : rc));
        } else {
          ++out.passed;
        }
        break;
      }
      case sql::SltKind::kSystemCapture: {
        auto printed_value = Capture(r.sql);
        if (!printed_value) {
          fail(r, printed_value.error().message);
          break;
        }
        std::string v = std::move(*printed_value);
        while (!v.empty() && (v.back() == '\n' || v.back() == '\r' || v.back() == ' ')) v.pop_back();
        if (v.empty() || v.find('\n') != std::string::npos) {
          fail(r, fmt::format("system capture {}: the command must print one value (printed '{}')",
                              r.capture, v));
          break;
        }
        vars[r.capture] = std::move(v);
        ++out.passed;
        break;
      }
      case sql::SltKind::kStatementOk: {
        auto res = session.ExecuteSql(r.sql, sql::Pos{r.sql_line, 1});
        if (!res) {
          fail(r, "statement failed:\n" + res.error().message);
        } else {
          ++out.passed;
        }
        break;
      }
      case sql::SltKind::kStatementError:
      case sql::SltKind::kQueryError: {
        auto res = session.ExecuteSql(r.sql, sql::Pos{r.sql_line, 1});
        if (res) {
          fail(r, "statement succeeded, but an error was expected: " + r.expected_error);
        } else if (res.error().message.find(r.expected_error) == std::string::npos) {
          if (options.override_results && r.expected_error.find('\n') == std::string::npos) {
            // Rewrite the header's expected text with the first line of the message.
            const std::string msg = res.error().message;
            const std::string first = msg.substr(0, msg.find('\n'));
            const std::string head =
                r.kind == sql::SltKind::kStatementError ? "statement error " : "query error ";
            patches.push_back({static_cast<size_t>(r.line - 1),
                               static_cast<size_t>(r.line),
                               {head + Unsubstitute(first, options.test_dir)}});
            ++out.passed;
          } else {
            fail(r, fmt::format("error message does not contain the expected text\n  expected: "
                                "{}\n  actual:   {}",
                                r.expected_error, res.error().message));
          }
        } else {
          ++out.passed;
        }
        break;
      }
      case sql::SltKind::kQuery: {
        auto res = session.ExecuteSql(r.sql, sql::Pos{r.sql_line, 1});
        if (!res) {
          fail(r, "query failed:\n" + res.error().message);
          break;
        }
        if (res->kind != StatementResult::Kind::kRows) {
          fail(r, "statement returned no rows (use 'statement ok')");
          break;
        }
        const ResultTable& t = res->table;
        if (t.changelog != r.changelog) {
          fail(r, r.changelog ? "query is not a changelog (no row kinds): drop 'changelog'"
                              : "query returns a changelog: add 'changelog' to the record");
          break;
        }
        if (!r.types.empty() && r.types.size() != t.columns.size()) {
          fail(r, fmt::format("query returns {} columns, the record's types '{}' say {}",
                              t.columns.size(), r.types, r.types.size()));
          break;
        }
        std::vector<std::string> actual = RowLines(t);
        std::vector<std::string> expected;
        for (const auto& l : r.expected_rows) expected.push_back(Normalize(l));
        std::vector<std::string> a = actual, e = expected;
        if (r.sort == sql::SltSort::kRowSort) {
          std::sort(a.begin(), a.end());
          std::sort(e.begin(), e.end());
        } else if (r.sort == sql::SltSort::kValueSort) {
          a = ValueSorted(a);
          e = ValueSorted(e);
        }
        if (a == e) {
          ++out.passed;
        } else if (options.override_results) {
          auto [b, end] = result_range(r.sql_line);
          std::vector<std::string> repl;
          for (const auto& l : actual) repl.push_back(Unsubstitute(l, options.test_dir));
          patches.push_back({b, end, std::move(repl)});
          ++out.passed;
        } else {
          fail(r, "query result differs\n  expected:\n" + Joined(e) + "  actual:\n" + Joined(a));
        }
        break;
      }
    }
  }
  if (options.override_results && !patches.empty()) {
    std::sort(patches.begin(), patches.end(),
              [](const Patch& x, const Patch& y) { return x.begin > y.begin; });
    for (const Patch& p : patches) {
      lines.erase(lines.begin() + static_cast<long>(p.begin),
                  lines.begin() + static_cast<long>(p.end));
      lines.insert(lines.begin() + static_cast<long>(p.begin), p.lines.begin(), p.lines.end());
    }
    std::string rewritten;
    for (size_t i = 0; i < lines.size(); ++i)
      rewritten += lines[i] + (i + 1 < lines.size() ? "\n" : "");
    FLOE_RETURN_IF_ERROR(WriteLocalFile(path, rewritten));
    out.rewritten = true;
  }
  return out;
}

}  // namespace floe::sqlengine
