// `floe scan`: a table's rows (from the catalog, or from a metadata file with
// --metadata) as canonical JSON lines (the forms of shared/interop), CSV or
// an aligned text table. Read options (`--set snapshot-id=...`, `tag`,
// `branch`, `as-of-timestamp`, incremental ranges, ...) resolve through the
// option registry (table::ScanOptions).
#include <nlohmann/json.hpp>

#include <thread>

#include "floe/catalog/identifier.h"
#include "floe/config/options.h"
#include "floe/cli/table_args.h"
#include "floe/io/file.h"
#include "floe/table/scan.h"
#include "floe/table/scan_static.h"
#include "floe/table/table_reader.h"
#include "floe/types/json_value.h"
#include "floe/util/display_width.h"

namespace floe::cli {
namespace {

struct ScanArgs {
  CatalogArgs catalog;
  std::string table;
  std::string metadata;
  std::vector<std::string> maps;
  std::vector<std::string> sets;
  std::string columns;
  std::string where;
  std::string format = "jsonl";
  int64_t limit = -1;
  int threads = 0;
};

std::vector<std::string> SplitColumns(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string name = text.substr(start, comma - start);
    while (!name.empty() && name.front() == ' ') name.erase(0, 1);
    while (!name.empty() && name.back() == ' ') name.pop_back();
    if (!name.empty()) out.push_back(std::move(name));
    start = comma + 1;
  }
  return out;
}

// The CSV text of one value: strings raw, everything else its canonical
// JSON; quoted when it holds a delimiter, quote or line break.
void AppendCsvValue(const ColumnVector& col, int64_t row, std::string* out) {
  if (col.IsNull(row)) return;
  std::string text;
  if (col.type->id == TypeId::kString && IsValidUtf8(col.bytes(row))) {
    text = std::string(col.bytes(row));
  } else {
    AppendJsonValue(col, row, &text);
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"' && !col.type->is_nested()) {
      text = text.substr(1, text.size() - 2);
    }
  }
  if (text.find_first_of(",\"\r\n") != std::string::npos || text.empty()) {
    out->push_back('"');
    for (char c : text) {
      if (c == '"') out->push_back('"');
      out->push_back(c);
    }
    out->push_back('"');
  } else {
    *out += text;
  }
}

// Prints batches as they come (jsonl, csv) or collects them (table).
class RowPrinter {
 public:
  RowPrinter(std::string format, SchemaPtr schema) : format_(std::move(format)), schema_(std::move(schema)) {
    if (format_ == "csv") {
      for (int i = 0; i < schema_->num_fields(); ++i) {
        if (i) out_.buffer()->push_back(',');
        *out_.buffer() += schema_->fields()[i].name;
      }
      out_.buffer()->push_back('\n');
    }
  }

  Status Print(const Batch& b) {
    std::string* buf = out_.buffer();
    for (int64_t r = 0; r < b.num_rows; ++r) {
      if (format_ == "jsonl") {
        AppendJsonRow(b, r, buf);
        buf->push_back('\n');
      } else if (format_ == "csv") {
        for (size_t c = 0; c < b.columns.size(); ++c) {
          if (c) buf->push_back(',');
          AppendCsvValue(b.columns[c], r, buf);
        }
        buf->push_back('\n');
      } else {
        std::vector<std::string> cells;
        for (const auto& col : b.columns) {
          std::string v;
          AppendJsonValue(col, r, &v);
          cells.push_back(std::move(v));
        }
        rows_.push_back(std::move(cells));
      }
      FLOE_RETURN_IF_ERROR(out_.MaybeFlush());
    }
    return Ok();
  }

  Status Finish() {
    if (format_ == "table") {
      // Columns are padded by terminal display width: a CJK character or an
      // emoji takes two columns, a combining accent none (bytes would
      // misalign every column after such a cell).
      std::vector<size_t> width;
      for (const auto& f : schema_->fields()) width.push_back(DisplayWidth(f.name));
      for (const auto& row : rows_) {
        for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], DisplayWidth(row[c]));
      }
      std::string* buf = out_.buffer();
      auto line = [&](const std::vector<std::string>& cells) {
        for (size_t c = 0; c < cells.size(); ++c) {
          *buf += c ? " | " : "";
          *buf += cells[c];
          if (c + 1 < cells.size()) buf->append(width[c] - DisplayWidth(cells[c]), ' ');
        }
        buf->push_back('\n');
      };
      std::vector<std::string> header;
      for (const auto& f : schema_->fields()) header.push_back(f.name);
      line(header);
      std::string rule;
      for (size_t c = 0; c < width.size(); ++c) {
        rule += (c ? "-+-" : "") + std::string(width[c], '-');
      }
      *buf += rule + "\n";
      for (const auto& row : rows_) line(row);
      *buf += fmt::format("({} row{})\n", rows_.size(), rows_.size() == 1 ? "" : "s");
    }
    return out_.Flush();
  }

 private:
  std::string format_;
  SchemaPtr schema_;
  StdoutWriter out_;
  std::vector<std::vector<std::string>> rows_;
};

Status RunScan(const ScanArgs& a) {
  if (a.format != "jsonl" && a.format != "csv" && a.format != "table") {
    return UsageError(fmt::format("--format '{}': valid formats are jsonl, csv, table", a.format));
  }
  if (a.table.empty() == a.metadata.empty()) return UsageError("give either --table NS.TABLE or --metadata PATH");
  FLOE_ASSIGN_OR_RETURN(auto sets, ParseKeyValues(a.sets, "--set"));
  if (Status st = config::CheckOptions(sets, uint32_t(config::Scope::kRead), "--set"); !st) {
    return UsageError(st.error().message);
  }

  std::shared_ptr<const iceberg::TableMetadata> metadata;
  io::FileIOPtr files;  // where the table's files are read from
  if (!a.metadata.empty()) {
    std::vector<std::pair<std::string, std::string>> maps;
    for (const std::string& m : a.maps) {
      size_t eq = m.find('=');
      if (eq == std::string::npos || eq == 0) return UsageError(fmt::format("--map '{}': expected PREFIX=DIR", m));
      maps.emplace_back(m.substr(0, eq), m.substr(eq + 1));
    }
    FLOE_ASSIGN_OR_RETURN(auto st, table::OpenStaticTable(a.metadata, maps));
    metadata = st.metadata;
    files = st.io;
  } else {
    FLOE_ASSIGN_OR_RETURN(auto id, catalog::ParseTableIdentifier(a.table));
    FLOE_ASSIGN_OR_RETURN(auto cat, a.catalog.Open());
    FLOE_RETURN_IF_ERROR(ApplyMaps(cat.get(), a.maps));
    FLOE_ASSIGN_OR_RETURN(auto loaded, cat->LoadTable(id));
    metadata = std::make_shared<const iceberg::TableMetadata>(std::move(loaded.metadata));
    files = cat->io();
  }

  auto options = table::ScanOptions::FromOptions(sets, metadata->properties);
  if (!options) return UsageError(options.error().message);
  options->columns = SplitColumns(a.columns);
  options->filter_text = a.where;
  if (a.limit >= 0) options->limit = a.limit;

  table::FileManifestSource source(*metadata, files);
  FLOE_ASSIGN_OR_RETURN(auto plan, table::PlanScan(metadata, *options, &source));
  table::TableReaderOptions ropt;
  ropt.threads = a.threads > 0 ? a.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  FLOE_ASSIGN_OR_RETURN(auto reader, table::TableReader::Make(std::move(plan), files, ropt));
  RowPrinter printer(a.format, reader->schema());
  Batch batch;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool more, reader->Next(&batch));
    if (!more) break;
    FLOE_RETURN_IF_ERROR(printer.Print(batch));
  }
  return printer.Finish();
}

}  // namespace

void AddScanCommand(CLI::App* root, CommandContext* ctx) {
  auto* cmd = root->add_subcommand("scan", "Read a table's rows (canonical JSON lines, CSV or a text table)");
  auto a = std::make_shared<ScanArgs>();
  a->catalog.AddTo(cmd);
  cmd->add_option("--table", a->table, "NS.TABLE");
  cmd->add_option("--metadata", a->metadata, "A metadata file or table folder (no catalog)");
  cmd->add_option("--map", a->maps, "PREFIX=DIR: read stored locations under PREFIX from DIR (--metadata or --table)")
      ->allow_extra_args(false);
  cmd->add_option("--set", a->sets, "Read option key=value (snapshot-id, tag, branch, as-of-timestamp, ...)")
      ->allow_extra_args(false);
  cmd->add_option("--columns", a->columns, "Columns to read, comma-separated");
  cmd->add_option("--where", a->where, "Row filter, e.g. \"id > 10 AND region = 'eu'\"");
  cmd->add_option("--format", a->format, "jsonl | csv | table");
  cmd->add_option("--limit", a->limit, "Rows at most");
  cmd->add_option("--threads", a->threads, "Reader threads (default: the number of cores)");
  cmd->callback([=] { ctx->action = [=] { return RunScan(*a); }; });
}

}  // namespace floe::cli

