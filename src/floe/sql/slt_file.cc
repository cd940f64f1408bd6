// The .slt test-file parser: lines -> records (format in slt_file.h).
#include "floe/sql/slt_file.h"

#include <cctype>

#include <fmt/format.h>

#include "floe/util/strings.h"

namespace floe::sql {
namespace {

std::string Substitute(std::string s, std::string_view test_dir) {
  static constexpr std::string_view kVar = "$__TEST_DIR__";
  size_t at = 0;
  while ((at = s.find(kVar, at)) != std::string::npos) {
    s.replace(at, kVar.size(), test_dir);
    at += test_dir.size();
  }
  return s;
}

std::vector<std::string_view> Words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsAsciiSpace(line[i])) ++i;
    size_t start = i;
    while (i < line.size() && !IsAsciiSpace(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

class SltParser {
 public:
  SltParser(std::string_view text, std::string_view file, std::string_view test_dir)
      : file_(file), test_dir_(test_dir) {
    size_t start = 0;
    while (start <= text.size()) {
      size_t nl = text.find('\n', start);
      if (nl == std::string_view::npos) {
        if (start < text.size()) lines_.push_back(text.substr(start));
        break;
      }
      std::string_view line = text.substr(start, nl - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      lines_.push_back(line);
      start = nl + 1;
    }
  }

  Result<std::vector<SltRecord>> Run() {
    std::vector<SltRecord> out;
    while (i_ < lines_.size()) {
      std::string_view line = lines_[i_];
      if (TrimSpace(line).empty() || line.front() == '#') {
        ++i_;
        continue;
      }
      auto words = Words(line);
      int at = Line();
      std::string_view head = words[0];
      if (head == "halt") break;
      SltRecord r;
      r.line = at;
      if (head == "statement") {
        if (words.size() < 2) return Error(at, "'statement' needs 'ok' or 'error'");
        if (words[1] == "ok") {
          if (words.size() > 2) return Error(at, "unexpected '{}' after 'statement ok'", words[2]);
          r.kind = SltKind::kStatementOk;
        } else if (words[1] == "error") {
          r.kind = SltKind::kStatementError;
          r.expected_error = Rest(line, "error");
        } else {
          return Error(at, "'statement {}': expected 'statement ok' or 'statement error'",
                       words[1]);
        }
        ++i_;
        FLOE_RETURN_IF_ERROR(Body(r, /*allow_results=*/r.kind == SltKind::kStatementError));
      } else if (head == "query") {
        if (words.size() < 2) return Error(at, "'query' needs column types (e.g. 'query IT')");
        if (words[1] == "error") {
          r.kind = SltKind::kQueryError;
          r.expected_error = Rest(line, "error");
        } else {
          r.kind = SltKind::kQuery;
          r.types = std::string(words[1]);
          for (char c : r.types) {
            if (std::string_view("IRTBD?").find(c) == std::string_view::npos) {
              return Error(at,
                           "column type '{}' in 'query {}': expected letters of I, R, T, B, D, ?",
                           c, r.types);
            }
          }
          bool sort_seen = false;
          for (size_t w = 2; w < words.size(); ++w) {
            SltSort sort;
            if (words[w] == "rowsort") {
              sort = SltSort::kRowSort;
            } else if (words[w] == "valuesort") {
              sort = SltSort::kValueSort;
            } else if (words[w] == "nosort") {
              sort = SltSort::kNoSort;
            } else if (words[w] == "changelog") {
              if (r.changelog) return Error(at, "'changelog' given twice");
              r.changelog = true;
              continue;
            } else {
              return Error(at,
                           "unknown query option '{}' (expected rowsort, valuesort, nosort, "
                           "changelog)",
                           words[w]);
            }
            if (sort_seen) return Error(at, "more than one sort mode in '{}'", line);
            sort_seen = true;
            r.sort = sort;
          }
        }
        ++i_;
        FLOE_RETURN_IF_ERROR(Body(r, /*allow_results=*/true));
        if (r.kind == SltKind::kQuery && !has_results_) {
          return Error(at, "query without '----' and expected rows");
        }
      } else if (head == "system") {
        if (words.size() == 3 && words[1] == "capture") {
          for (char c : words[2]) {
            if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
              return Error(at, "'system capture {}': a name is letters, digits and _", words[2]);
            }
          }
          r.kind = SltKind::kSystemCapture;
          r.capture = std::string(words[2]);
        } else if (words.size() != 2 || words[1] != "ok") {
          return Error(at, "expected 'system ok' or 'system capture <NAME>'");
        } else {
          r.kind = SltKind::kSystemOk;
        }
        ++i_;
        FLOE_RETURN_IF_ERROR(Body(r, /*allow_results=*/false));
      } else if (head == "require") {
        if (words.size() != 3 || words[1] != "plugin") {
          return Error(at, "expected 'require plugin <name>'");
        }
        r.kind = SltKind::kRequirePlugin;
        r.plugin = std::string(words[2]);
        ++i_;
      } else {
        return Error(at, "unknown record '{}' (expected statement, query, system, require, halt)",
                     head);
      }
      out.push_back(std::move(r));
    }
    return out;
  }

 private:
  int Line() const { return static_cast<int>(i_) + 1; }

  template <typename... Args>
  std::unexpected<floe::Error> Error(int line, fmt::format_string<Args...> f,
                                     Args&&... args) const {
    return InvalidArgument("{}:{}: {}", file_, line, fmt::format(f, std::forward<Args>(args)...));
  }

  /// What follows `word` on the header line, trimmed (statement error <text>).
  std::string Rest(std::string_view line, std::string_view word) const {
    size_t at = line.find(word);
    return Substitute(std::string(TrimSpace(line.substr(at + word.size()))), test_dir_);
  }

  /// The SQL (or command) lines up to a blank line or ----, then, if allowed,
  /// the result lines after ---- up to a blank line.
  Status Body(SltRecord& r, bool allow_results) {
    has_results_ = false;
    r.sql_line = Line();
    std::string sql;
    while (i_ < lines_.size() && !TrimSpace(lines_[i_]).empty() && lines_[i_] != "----") {
      if (!sql.empty()) sql += '\n';
      sql += lines_[i_];
      ++i_;
    }
    if (sql.empty()) {
      return Error(r.line, "record has no {} after its header",
                   r.kind == SltKind::kSystemOk || r.kind == SltKind::kSystemCapture ? "command"
                                                                                     : "SQL");
    }
    r.sql = Substitute(std::move(sql), test_dir_);
    if (i_ < lines_.size() && lines_[i_] == "----") {
      if (!allow_results) {
        return Error(Line(), "'----' in a record that has no expected output ('{}')",
                     r.kind == SltKind::kSystemOk        ? "system ok"
                     : r.kind == SltKind::kSystemCapture ? "system capture"
                                                         : "statement ok");
      }
      ++i_;
      has_results_ = true;
      std::vector<std::string> rows;
      while (i_ < lines_.size() && !TrimSpace(lines_[i_]).empty()) {
        rows.push_back(Substitute(std::string(lines_[i_]), test_dir_));
        ++i_;
      }
      if (r.kind == SltKind::kStatementError || r.kind == SltKind::kQueryError) {
        if (!r.expected_error.empty()) {
          return Error(r.line, "expected error given twice (on the header line and after '----')");
        }
        std::string msg;
        for (size_t k = 0; k < rows.size(); ++k) {
          if (k) msg += '\n';
          msg += rows[k];
        }
        r.expected_error = std::move(msg);
      } else {
        r.expected_rows = std::move(rows);
      }
    }
    return Ok();
  }

  std::string_view file_;
  std::string_view test_dir_;
  std::vector<std::string_view> lines_;
  size_t i_ = 0;
  bool has_results_ = false;
};

}  // namespace

Result<std::vector<SltRecord>> ParseSltFile(std::string_view text, std::string_view file_name,
                                            std::string_view test_dir) {
  return SltParser(text, file_name, test_dir).Run();
}

}  // namespace floe::sql
