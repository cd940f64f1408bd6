// Flink SQL client's printing of results (result.h).
#include "floe/sqlengine/result.h"

#include <algorithm>

#include <fmt/format.h>

#include "floe/sql/sql_types.h"
#include "floe/util/display_width.h"

namespace floe::sqlengine {

std::string_view RowKindText(RowKind kind) {
  switch (kind) {
    case RowKind::kInsert: return "+I";
    case RowKind::kUpdateBefore: return "-U";
    case RowKind::kUpdateAfter: return "+U";
    case RowKind::kDelete: return "-D";
  }
  return "+I";
}

std::string ChangelogLine(RowKind kind, const std::vector<std::optional<std::string>>& row) {
  std::string out(RowKindText(kind));
  out += '[';
  for (size_t c = 0; c < row.size(); ++c) {
    if (c) out += ", ";
    out += row[c] ? *row[c] : "null";
  }
  out += "]\n";
  return out;
}

namespace {

constexpr size_t kMaxColumnWidth = 30;

// The width a streaming tableau gives a column of this type (Flink sizes
// them by type: the values are not known when the header prints).
size_t TypeWidth(const sql::DataType& t) {
  const int p = sql::EffectivePrecision(t);
  switch (t.name) {
    case sql::TypeName::kBoolean: return 5;
    case sql::TypeName::kTinyInt: return 4;
    case sql::TypeName::kSmallInt: return 6;
    case sql::TypeName::kInt: return 11;
    case sql::TypeName::kBigInt: return 20;
    case sql::TypeName::kDecimal: return std::min<size_t>(static_cast<size_t>(p) + 2, 40);
    case sql::TypeName::kDate: return 10;
    case sql::TypeName::kTime: return 8 + (p > 0 ? static_cast<size_t>(p) + 1 : 0);
    case sql::TypeName::kTimestamp:
    case sql::TypeName::kTimestampLtz: return 19 + (p > 0 ? static_cast<size_t>(p) + 1 : 0);
    case sql::TypeName::kChar:
    case sql::TypeName::kVarChar: return std::min<size_t>(static_cast<size_t>(p), kMaxColumnWidth);
    default: return kMaxColumnWidth;
  }
}

// `s` cut to `width` display columns, ending "..." when cut.
std::string Fit(const std::string& s, size_t width) {
  if (DisplayWidth(s) <= width) return s;
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t j = i + 1;
    while (j < s.size() && (static_cast<unsigned char>(s[j]) & 0xC0) == 0x80) ++j;
    std::string next = out + s.substr(i, j - i);
    if (DisplayWidth(next) + 3 > width) break;
    out = std::move(next);
    i = j;
  }
  return out + "...";
}

}  // namespace

StreamingTableau::StreamingTableau(const ResultTable& t) {
  header_.push_back("op");
  width_.push_back(2);
  for (size_t c = 0; c < t.columns.size(); ++c) {
    header_.push_back(t.columns[c]);
    size_t w = std::max<size_t>(TypeWidth(t.types[c]), 6);  // "<NULL>"
    width_.push_back(std::max(w, DisplayWidth(t.columns[c])));
  }
}

std::string StreamingTableau::Line(const std::vector<std::string>& cells) const {
  std::string out = "|";
  for (size_t c = 0; c < cells.size(); ++c) {
    const std::string v = Fit(cells[c], width_[c]);
    out += " ";
    out.append(width_[c] - std::min(width_[c], DisplayWidth(v)), ' ');
    out += v;
    out += " |";
  }
  return out + "\n";
}

std::string StreamingTableau::Header() const {
  std::string rule = "+";
  for (size_t w : width_) rule += std::string(w + 2, '-') + "+";
  rule += "\n";
  return rule + Line(header_) + rule;
}

std::string StreamingTableau::Rows(const ResultTable& batch) const {
  std::string out;
  for (size_t r = 0; r < batch.rows.size(); ++r) {
    std::vector<std::string> cells;
    cells.emplace_back(RowKindText(r < batch.kinds.size() ? batch.kinds[r] : RowKind::kInsert));
    for (const auto& v : batch.rows[r]) cells.push_back(v ? *v : "<NULL>");
    out += Line(cells);
  }
  return out;
}

std::string StreamingTableau::Footer(int64_t rows) const {
  std::string out;
  if (rows > 0) {
    out += "+";
    for (size_t w : width_) out += std::string(w + 2, '-') + "+";
    out += "\n";
  }
  return out + fmt::format("Received a total of {} {}\n", rows, rows > 1 ? "rows" : "row");
}

std::string RenderTableau(const ResultTable& t) {
  const size_t nrows = t.rows.size();
  if (nrows == 0 && !t.changelog) return "Empty set\n";
  std::vector<std::string> header;
  if (t.changelog) header.push_back("op");
  for (const auto& c : t.columns) header.push_back(c);
  std::vector<std::vector<std::string>> cells;
  cells.reserve(nrows);
  for (size_t r = 0; r < nrows; ++r) {
    std::vector<std::string> row;
    if (t.changelog) row.emplace_back(RowKindText(t.kinds[r]));
    for (const auto& v : t.rows[r]) row.push_back(v ? *v : "<NULL>");
    cells.push_back(std::move(row));
  }
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = DisplayWidth(header[c]);
  for (const auto& row : cells) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], DisplayWidth(row[c]));
  }
  std::string rule = "+";
  for (size_t w : width) rule += std::string(w + 2, '-') + "+";
  rule += "\n";
  auto line = [&](const std::vector<std::string>& row, std::string* out) {
    *out += "|";
    for (size_t c = 0; c < row.size(); ++c) {
      *out += " ";
      out->append(width[c] - DisplayWidth(row[c]), ' ');
      *out += row[c];
      *out += " |";
    }
    *out += "\n";
  };
  std::string out = rule;
  line(header, &out);
  out += rule;
  for (const auto& row : cells) line(row, &out);
  if (!cells.empty() || !t.changelog) out += rule;
  if (t.changelog) {
    out += fmt::format("Received a total of {} {}\n", nrows, nrows > 1 ? "rows" : "row");
  } else {
    out += fmt::format("{} {} in set\n", nrows, nrows > 1 ? "rows" : "row");
  }
  return out;
}

std::string RenderResult(const StatementResult& result) {
  std::string out;
  for (const std::string& w : result.warnings) out += "[WARNING] " + w + "\n";
  switch (result.kind) {
    case StatementResult::Kind::kOk: out += "[INFO] Execute statement succeed.\n"; break;
    case StatementResult::Kind::kInfo: out += "[INFO] " + result.message + "\n"; break;
    case StatementResult::Kind::kRows:
      // Streamed rows were printed as they came: only the count is left.
      if (!result.table.streamed_rows) out += RenderTableau(result.table);
      break;
  }
  return out;
}

std::string RenderError(std::string_view message) {
  return fmt::format("[ERROR] Could not execute SQL statement. Reason:\n{}\n", message);
}

}  // namespace floe::sqlengine
