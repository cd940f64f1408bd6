// Flink SQL client's printing of results (result.h).
#include "floe/sqlengine/result.h"

#include <algorithm>

#include <fmt/format.h>

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
    case StatementResult::Kind::kRows: out += RenderTableau(result.table); break;
  }
  return out;
}

std::string RenderError(std::string_view message) {
  return fmt::format("[ERROR] Could not execute SQL statement. Reason:\n{}\n", message);
}

}  // namespace floe::sqlengine
