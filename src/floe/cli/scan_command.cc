// `floe scan`: a table's rows (from the catalog, or from a metadata file with
// --metadata) as canonical JSON lines (the forms of shared/interop), CSV or
// an aligned text table. Read options (`--set snapshot-id=...`, `tag`,
// `branch`, `as-of-timestamp`, incremental ranges, ...) resolve through the
// option registry (table::ScanOptions).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <thread>
#include <utility>

#include "floe/catalog/identifier.h"
#include "floe/cli/table_args.h"
#include "floe/config/options.h"
#include "floe/io/file.h"
#include "floe/table/scan.h"
#include "floe/table/scan_static.h"
#include "floe/table/streaming_scan.h"
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
  // Streaming reads (floe's own flags, not read options).
  int64_t max_snapshots = -1;
  std::string checkpoint;
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
// JSON (a quoted scalar form without its quotes); quoted when it holds a
// delimiter, quote or line break, or is an empty string. Written straight
// into `out` (no text per value): only a value that needs quoting is moved.
// Whether CSV must quote `text`: it holds a delimiter, quote or line break.
// (A byte loop: find_first_of(",\"\r\n") searched the set for every byte,
// ~300 instructions a string.)
bool NeedsCsvQuotes(std::string_view text) {
  for (char c : text) {
    if (c == ',' || c == '"' || c == '\n' || c == '\r') return true;
  }
  return false;
}

void AppendCsvValue(const ColumnVector& col, int64_t row, std::string* out) {
  if (col.IsNull(row)) return;
  const size_t start = out->size();
  bool maybe_special = true;  // the text may hold , " CR or LF
  if (col.type->id == TypeId::kString && IsValidUtf8(col.bytes(row))) {
    out->append(col.bytes(row));
  } else if (char buf[96]; char* end = PutFixedScalarText(col, row, buf, /*json=*/false)) {
    out->append(buf, end);  // numbers, booleans, timestamps: no quoting needed
    return;
  } else if (!col.type->is_nested()) {
    // The other scalars, quoted forms in JSON (dates, times, decimals, uuids,
    // hex), hold none of them either; written without their quotes
    // (formatted aside, not moved within the output).
    thread_local std::string scalar;
    scalar.clear();
    AppendJsonValue(col, row, &scalar);
    const size_t n = scalar.size();
    if (n >= 2 && scalar.front() == '"' && scalar.back() == '"') {
      out->append(scalar, 1, n - 2);
    } else {
      out->append(scalar);
    }
    maybe_special = false;
  } else {
    AppendJsonValue(col, row, out);
  }
  const std::string_view text(out->data() + start, out->size() - start);
  if (!text.empty() && (!maybe_special || !NeedsCsvQuotes(text))) return;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted.push_back('"');
    quoted.push_back(c);
  }
  quoted.push_back('"');
  out->resize(start);
  out->append(quoted);
}

// Flink's short names of the row kinds (its SQL client's `op` column).
std::string_view RowKindShortName(RowKind kind) {
  switch (kind) {
    case RowKind::kInsert: return "+I";
    case RowKind::kUpdateBefore: return "-U";
    case RowKind::kUpdateAfter: return "+U";
    case RowKind::kDelete: return "-D";
  }
  return "?";
}

// The name of the row kind column of a changelog (Flink's SQL client's).
constexpr std::string_view kOpColumn = "op";

// Prints batches as they come (jsonl, csv) or collects them (table). With
// `with_op` (a changelog) each row starts with its row kind: an `op` column
// (table, csv) or member (jsonl).
class RowPrinter {
 public:
  RowPrinter(std::string format, SchemaPtr schema, bool with_op = false)
      : format_(std::move(format)), schema_(std::move(schema)), with_op_(with_op) {
    if (format_ == "csv") {
      if (with_op_) *out_.buffer() += std::string(kOpColumn) + ",";
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
      const std::string_view op = RowKindShortName(
          b.row_kinds.empty() ? RowKind::kInsert : b.row_kinds[static_cast<size_t>(r)]);
      if (format_ == "jsonl") {
        if (with_op_) {
          std::string row;
          AppendJsonRow(b, r, &row);
          *buf += fmt::format("{{\"{}\":\"{}\"", kOpColumn, op);
          if (row.size() > 2) buf->push_back(',');
          buf->append(row, 1, std::string::npos);
        } else {
          if (!json_rows_ || json_schema_ != b.schema.get()) {
            json_rows_.emplace(*b.schema);
            json_schema_ = b.schema.get();
          }
          json_rows_->Append(b, r, buf);
        }
        buf->push_back('\n');
      } else if (format_ == "csv") {
        if (with_op_) *buf += std::string(op) + (b.columns.empty() ? "" : ",");
        for (size_t c = 0; c < b.columns.size(); ++c) {
          if (c) buf->push_back(',');
          AppendCsvValue(b.columns[c], r, buf);
        }
        buf->push_back('\n');
      } else {
        std::vector<std::string> cells;
        if (with_op_) cells.emplace_back(op);
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

  // Prints what is collected (a table: one aligned block) and flushes.
  Status Finish() {
    if (format_ == "table") {
      // Columns are padded by terminal display width: a CJK character or an
      // emoji takes two columns, a combining accent none (bytes would
      // misalign every column after such a cell).
      std::vector<std::string> header;
      if (with_op_) header.emplace_back(kOpColumn);
      for (const auto& f : schema_->fields()) header.push_back(f.name);
      std::vector<size_t> width;
      for (const auto& h : header) width.push_back(DisplayWidth(h));
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
      line(header);
      std::string rule;
      for (size_t c = 0; c < width.size(); ++c) {
        rule += (c ? "-+-" : "") + std::string(width[c], '-');
      }
      *buf += rule + "\n";
      for (const auto& row : rows_) line(row);
      *buf += fmt::format("({} row{})\n", rows_.size(), rows_.size() == 1 ? "" : "s");
      rows_.clear();
    }
    return out_.Flush();
  }

  // A line of its own before a table block (a streaming read's snapshot).
  void Caption(std::string_view text) {
    if (format_ == "table") *out_.buffer() += std::string(text) + "\n";
  }

 private:
  std::string format_;
  SchemaPtr schema_;
  bool with_op_ = false;
  std::optional<JsonRowWriter> json_rows_;  ///< jsonl: the keys of json_schema_, escaped once
  const Schema* json_schema_ = nullptr;
  StdoutWriter out_;
  std::vector<std::vector<std::string>> rows_;
};

// ------------------------------------------------------------- streaming

// A streaming read's checkpoint file: the position after the last snapshot
// whose rows were printed, and the table and branch it belongs to.
struct Checkpoint {
  std::string table_uuid;
  std::string branch;
  table::StreamPosition position;
};

Result<std::optional<Checkpoint>> ReadCheckpoint(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<Checkpoint>();
  FLOE_ASSIGN_OR_RETURN(std::string text, ReadLocalFile(path));
  auto j = nlohmann::json::parse(text, nullptr, false);
  auto bad = [&](std::string_view what) {
    return InvalidArgument(
        "--checkpoint {}: {} (expected {{\"table-uuid\": ..., \"branch\": ..., "
        "\"after-snapshot-id\": ID or null}} as floe writes it)",
        path, what);
  };
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  auto uuid = j.find("table-uuid");
  auto branch = j.find("branch");
  auto after = j.find("after-snapshot-id");
  if (uuid == j.end() || !uuid->is_string()) return bad("no \"table-uuid\" string");
  if (branch == j.end() || !branch->is_string()) return bad("no \"branch\" string");
  if (after == j.end() || !(after->is_null() || after->is_number_integer())) {
    return bad("no \"after-snapshot-id\" (an integer or null)");
  }
  Checkpoint c;
  c.table_uuid = uuid->get<std::string>();
  c.branch = branch->get<std::string>();
  if (!after->is_null()) c.position.after_snapshot_id = after->get<int64_t>();
  return std::optional<Checkpoint>(std::move(c));
}

// Replaces the checkpoint file at once (a temporary file renamed over it,
// synced): a kill leaves the old position or the new one.
Status WriteCheckpoint(const std::string& path, const table::StreamingScan& scan,
                       const table::StreamPosition& p) {
  nlohmann::json j;
  j["table-uuid"] = scan.table_uuid();
  j["branch"] = scan.branch();
  j["after-snapshot-id"] =
      p.after_snapshot_id ? nlohmann::json(*p.after_snapshot_id) : nlohmann::json(nullptr);
  FLOE_ASSIGN_OR_RETURN(auto out, OpenLocalOutput(path, /*overwrite=*/true, /*sync=*/true));
  const std::string text = j.dump() + "\n";
  FLOE_RETURN_IF_ERROR(out->Write(text.data(), text.size()));
  return out->Commit();
}

// `floe scan --set streaming=true`: prints each snapshot's changes as they
// are committed, flushed after each snapshot, then moves the checkpoint.
Status RunStreamingScan(const ScanArgs& a, table::ScanOptions options,
                        std::shared_ptr<const iceberg::TableMetadata> metadata,
                        table::MetadataLoader reload, io::FileIOPtr files) {
  if (a.limit >= 0) {
    return UsageError(
        fmt::format("--limit is for batch reads; a streaming read ({}=true) is bounded with "
                    "--max-snapshots",
                    config::keys::kStreaming.name));
  }
  std::optional<table::StreamPosition> resume;
  if (!a.checkpoint.empty()) {
    auto c = ReadCheckpoint(a.checkpoint);
    if (!c) return UsageError(c.error().message);
    if (*c) {
      const std::string branch = options.branch.value_or(std::string(iceberg::kMainBranch));
      if ((*c)->table_uuid != metadata->table_uuid) {
        return UsageError(fmt::format("--checkpoint {} belongs to table {}, not to this table ({})",
                                      a.checkpoint, (*c)->table_uuid, metadata->table_uuid));
      }
      if ((*c)->branch != branch) {
        return UsageError(fmt::format("--checkpoint {} follows branch '{}', not '{}'", a.checkpoint,
                                      (*c)->branch, branch));
      }
      resume = (*c)->position;
    }
  }
  // The first load is the one already made.
  auto first = std::make_shared<std::shared_ptr<const iceberg::TableMetadata>>(std::move(metadata));
  table::MetadataLoader load = [first,
                                reload]() -> Result<std::shared_ptr<const iceberg::TableMetadata>> {
    if (*first) return std::exchange(*first, nullptr);
    return reload();
  };
  auto scan = table::StreamingScan::Make(std::move(load), files, std::move(options), resume);
  if (!scan) {
    if (scan.error().kind == ErrorKind::kInvalidArgument ||
        scan.error().kind == ErrorKind::kNotFound) {
      return UsageError(scan.error().message);
    }
    return Fail(scan.error());
  }
  for (const auto& f : (*scan)->schema()->fields()) {
    if (a.format == "jsonl" && f.name == kOpColumn) {
      return UsageError(fmt::format(
          "column '{}' clashes with the row kind member '{}' of a streaming read's JSON "
          "lines: leave it out with --columns, or use --format csv",
          f.name, kOpColumn));
    }
  }
  // Nothing is printed before the first snapshot: a kill now resumes at
  // the resolved start.
  if (!a.checkpoint.empty() && !resume) {
    if (auto p = (*scan)->position())
      FLOE_RETURN_IF_ERROR(WriteCheckpoint(a.checkpoint, **scan, *p));
  }
  RowPrinter printer(a.format, (*scan)->schema(), /*with_op=*/true);
  int64_t emitted = 0;
  return (*scan)->Run(
      [&](Batch&& b) { return printer.Print(b); },
      [&](const table::EmittedSnapshot& s) -> Result<bool> {
        printer.Caption(
            fmt::format("snapshot {}{}", s.snapshot_id, s.table_scan ? " (table scan)" : ""));
        FLOE_RETURN_IF_ERROR(printer.Finish());
        if (!a.checkpoint.empty()) {
          FLOE_RETURN_IF_ERROR(WriteCheckpoint(a.checkpoint, **scan, *(*scan)->position()));
        }
        ++emitted;
        return a.max_snapshots < 0 || emitted < a.max_snapshots;
      });
}

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
  table::MetadataLoader reload;  // the table's metadata again (a streaming read)
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
    reload = [path = a.metadata, maps]() -> Result<std::shared_ptr<const iceberg::TableMetadata>> {
      FLOE_ASSIGN_OR_RETURN(auto st, table::OpenStaticTable(path, maps));
      return st.metadata;
    };
  } else {
    FLOE_ASSIGN_OR_RETURN(auto id, catalog::ParseTableIdentifier(a.table));
    FLOE_ASSIGN_OR_RETURN(auto opened, a.catalog.Open());
    std::shared_ptr<catalog::Catalog> cat = std::move(opened);
    FLOE_RETURN_IF_ERROR(ApplyMaps(cat.get(), a.maps));
    FLOE_ASSIGN_OR_RETURN(auto loaded, cat->LoadTable(id));
    metadata = std::make_shared<const iceberg::TableMetadata>(std::move(loaded.metadata));
    files = cat->io();
    reload = [cat, id]() -> Result<std::shared_ptr<const iceberg::TableMetadata>> {
      FLOE_ASSIGN_OR_RETURN(auto loaded, cat->RefreshTable(id));
      return std::make_shared<const iceberg::TableMetadata>(std::move(loaded.metadata));
    };
  }

  auto options = table::ScanOptions::FromOptions(sets, metadata->properties);
  if (!options) return UsageError(options.error().message);
  options->columns = SplitColumns(a.columns);
  options->filter_text = a.where;
  if (options->streaming)
    return RunStreamingScan(a, std::move(*options), metadata, std::move(reload), files);
  if (a.max_snapshots >= 0 || !a.checkpoint.empty()) {
    return UsageError(fmt::format("{} needs --set {}=true",
                                  a.max_snapshots >= 0 ? "--max-snapshots" : "--checkpoint",
                                  config::keys::kStreaming.name));
  }
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
  cmd->add_option("--max-snapshots", a->max_snapshots,
                  "Streaming read: stop after this many snapshots were printed (the first table "
                  "scan counts as one)");
  cmd->add_option(
      "--checkpoint", a->checkpoint,
      "Streaming read: keep the position in FILE after each snapshot, and resume after it");
  cmd->callback([=] { ctx->action = [=] { return RunScan(*a); }; });
}

}  // namespace floe::cli

