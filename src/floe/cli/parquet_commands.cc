// `floe parquet write|cat|meta|schema`: JSONL/CSV rows into a Parquet file,
// and a Parquet file's rows (canonical JSON lines), footer and schema out.
#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/cli/command.h"
#include "floe/cli/run.h"
#include "floe/config/options.h"
#include "floe/format/format_registry.h"
#include "floe/io/file.h"
#include "floe/parquet/reader.h"
#include "floe/parquet/writer.h"
#include "floe/types/json_value.h"
#include "floe/types/sql_schema.h"

namespace floe::cli {
namespace {

struct WriteArgs {
  std::string schema;
  std::vector<std::string> sets;
  std::string input = "-";
  std::string input_format;
  std::string output;
  int64_t batch_rows = 65536;
  int64_t max_line_bytes = static_cast<int64_t>(format::kDefaultMaxLineBytes);
  bool ignore_unknown = false;
  std::string csv_delimiter = ",";
  bool no_header = false;
  bool overwrite = false;
};

struct CatArgs {
  std::string file;
  std::string columns;
  int64_t limit = -1;
};

struct FileArgs {
  std::string file;
  bool sql = false;
};

Status RunWrite(const WriteArgs& a) {
  auto parsed = ParseSqlColumns(a.schema);
  if (!parsed) return UsageError("--schema: " + parsed.error().message);
  auto schema = std::make_shared<Schema>(std::move(*parsed));

  std::map<std::string, std::string> props;
  for (const auto& kv : a.sets) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return UsageError(fmt::format("--set '{}': expected key=value", kv));
    }
    std::string key = kv.substr(0, eq);
    if (!key.starts_with(config::keys::kParquetPrefix)) {
      return UsageError(fmt::format(
          "--set '{}': unknown option '{}' (floe parquet write takes write.parquet.* properties)",
          kv, key));
    }
    props[key] = kv.substr(eq + 1);
  }
  auto options = parquet::WriterOptions::FromProperties(props);
  if (!options) return UsageError("--set: " + options.error().message);

  if (a.csv_delimiter.size() != 1) {
    return UsageError(fmt::format("--csv-delimiter '{}': must be one character", a.csv_delimiter));
  }
  format::DecodeOptions dopt;
  dopt.batch_rows = a.batch_rows;
  dopt.max_line_bytes = static_cast<size_t>(a.max_line_bytes);
  dopt.stdin_fd = CurrentIo().in;
  dopt.ignore_unknown_keys = a.ignore_unknown;
  dopt.csv_delimiter = a.csv_delimiter[0];
  dopt.csv_header = !a.no_header;

  // The input is opened first (the format registry's decoder): a missing
  // input creates no output at all.
  const std::string input_name = a.input == "-" ? "<stdin>" : a.input;
  const std::string fmt_name = a.input_format.empty() ? format::DefaultFormatFor(a.input) : a.input_format;
  if (!format::HasDecoder(fmt_name)) {
    return UsageError(
        fmt::format("--input-format '{}': valid formats are {}", fmt_name, format::FormatNamesText()));
  }
  auto decoder = format::OpenDecoder(fmt_name, schema, a.input, dopt);
  if (!decoder) return Fail(decoder.error().WithContext(input_name));
  auto next = [&](Batch* b) { return (*decoder)->Next(b); };

  FLOE_ASSIGN_OR_RETURN(auto out, OpenLocalOutput(a.output, a.overwrite));
  FLOE_ASSIGN_OR_RETURN(auto writer, parquet::FileWriter::Open(std::move(out), schema, *options));
  Batch batch(schema);
  while (true) {
    auto more = next(&batch);
    if (!more) {
      writer->Abort();
      return Fail(more.error().WithContext(input_name));
    }
    if (!*more) break;
    if (Status st = writer->Write(batch); !st) {
      writer->Abort();
      return Fail(st.error().WithContext(a.output));
    }
  }
  auto result = writer->Close();
  if (!result) return Fail(result.error().WithContext(a.output));
  StdoutWriter stdout_writer;
  *stdout_writer.buffer() = fmt::format("{{\"file\":{},\"rows\":{},\"bytes\":{}}}\n",
                                        nlohmann::json(a.output).dump(), result->num_rows,
                                        result->file_size_bytes);
  return stdout_writer.Flush();
}

Result<std::unique_ptr<parquet::FileReader>> OpenReader(const std::string& path,
                                                        parquet::ReaderOptions options = {}) {
  FLOE_ASSIGN_OR_RETURN(auto in, OpenLocalInput(path));
  auto r = parquet::FileReader::Open(std::move(in), std::move(options));
  if (!r) return Fail(r.error().WithContext(path));
  return r;
}

Status RunCat(const CatArgs& a) {
  parquet::ReaderOptions options;
  if (!a.columns.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto probe, OpenReader(a.file));
    SchemaPtr file_schema = probe->file_schema();
    std::vector<NestedField> picked;
    size_t start = 0;
    while (start <= a.columns.size()) {
      size_t comma = a.columns.find(',', start);
      if (comma == std::string::npos) comma = a.columns.size();
      std::string name = a.columns.substr(start, comma - start);
      while (!name.empty() && name.front() == ' ') name.erase(0, 1);
      while (!name.empty() && name.back() == ' ') name.pop_back();
      start = comma + 1;
      if (name.empty()) continue;
      const NestedField* f = file_schema->FindTopLevel(name);
      if (!f) {
        std::string names;
        for (const auto& x : file_schema->fields()) names += (names.empty() ? "" : ", ") + x.name;
        return UsageError(fmt::format("--columns: no column '{}' in {} (columns: {})", name,
                                      a.file, names));
      }
      picked.push_back(*f);
    }
    options.projection = std::make_shared<Schema>(std::move(picked));
  }
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenReader(a.file, options));
  StdoutWriter out;
  Batch batch;
  int64_t printed = 0;
  while (a.limit < 0 || printed < a.limit) {
    auto more = reader->Next(&batch);
    if (!more) return Fail(more.error().WithContext(a.file));
    if (!*more) break;
    for (int64_t r = 0; r < batch.num_rows && (a.limit < 0 || printed < a.limit); ++r, ++printed) {
      AppendJsonRow(batch, r, out.buffer());
      out.buffer()->push_back('\n');
    }
    FLOE_RETURN_IF_ERROR(out.MaybeFlush());
  }
  return out.Flush();
}

Status RunMeta(const FileArgs& a) {
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenReader(a.file));
  StdoutWriter out;
  *out.buffer() = reader->DescribeMetadata();
  if (out.buffer()->empty() || out.buffer()->back() != '\n') out.buffer()->push_back('\n');
  return out.Flush();
}

nlohmann::ordered_json TypeJson(const Type& t);

nlohmann::ordered_json FieldsJson(const std::vector<NestedField>& fields) {
  auto arr = nlohmann::ordered_json::array();
  for (const auto& f : fields) {
    nlohmann::ordered_json j;
    j["id"] = f.id;
    j["name"] = f.name;
    j["required"] = f.required;
    j["type"] = TypeJson(*f.type);
    if (!f.doc.empty()) j["doc"] = f.doc;
    arr.push_back(std::move(j));
  }
  return arr;
}

/// Iceberg spec Appendix C: JSON serialization of types.
nlohmann::ordered_json TypeJson(const Type& t) {
  nlohmann::ordered_json j;
  switch (t.id) {
    case TypeId::kStruct:
      j["type"] = "struct";
      j["fields"] = FieldsJson(t.fields);
      return j;
    case TypeId::kList:
      j["type"] = "list";
      j["element-id"] = t.element().id;
      j["element-required"] = t.element().required;
      j["element"] = TypeJson(*t.element().type);
      return j;
    case TypeId::kMap:
      j["type"] = "map";
      j["key-id"] = t.key().id;
      j["key"] = TypeJson(*t.key().type);
      j["value-id"] = t.value().id;
      j["value-required"] = t.value().required;
      j["value"] = TypeJson(*t.value().type);
      return j;
    default: return t.ToString();
  }
}

Status RunSchema(const FileArgs& a) {
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenReader(a.file));
  SchemaPtr schema = reader->file_schema();
  StdoutWriter out;
  if (a.sql) {
    *out.buffer() = FormatSqlColumns(*schema) + "\n";
  } else {
    nlohmann::ordered_json j;
    j["type"] = "struct";
    j["schema-id"] = schema->schema_id();
    j["fields"] = FieldsJson(schema->fields());
    *out.buffer() = j.dump(2) + "\n";
  }
  return out.Flush();
}

}  // namespace

void AddParquetCommands(CLI::App* root, CommandContext* ctx) {
  CLI::App* pq = root->add_subcommand("parquet", "Write and inspect Parquet files");
  pq->require_subcommand(1);

  auto wa = std::make_shared<WriteArgs>();
  CLI::App* w = pq->add_subcommand(
      "write", "Write JSONL or CSV rows into a Parquet file (no file is left on error)");
  w->add_option("--schema", wa->schema,
                "SQL column list, e.g. 'id BIGINT NOT NULL, name STRING, tags ARRAY<STRING>'")
      ->required();
  w->add_option("--set", wa->sets, "Writer property key=value (write.parquet.*), repeatable")
      ->allow_extra_args(false);
  w->add_option("--input", wa->input, "Input file, or - for standard input")
      ->capture_default_str();
  w->add_option("--input-format", wa->input_format,
                "jsonl or csv (default: from the input's extension, else jsonl)")
      ->check(CLI::IsMember({"jsonl", "csv"}));
  w->add_option("--batch-rows", wa->batch_rows, "Rows per batch")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 24));
  w->add_option("--max-line-bytes", wa->max_line_bytes, "The longest input line (CSV: record) in bytes; a longer one is an error naming its line (default 256 MiB, at most 1 GiB)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, static_cast<int64_t>(format::kMaxLineBytes)));
  w->add_flag("--ignore-unknown-keys", wa->ignore_unknown,
              "Skip JSON keys / CSV header columns that name no column");
  w->add_option("--csv-delimiter", wa->csv_delimiter, "CSV field separator")->capture_default_str();
  w->add_flag("--no-header", wa->no_header, "CSV input has no header: fields map by position");
  w->add_flag("--overwrite", wa->overwrite, "Replace OUTPUT if it exists");
  w->add_option("output", wa->output, "Output Parquet file")->required();
  w->callback([ctx, wa] { ctx->action = [wa] { return RunWrite(*wa); }; });

  auto ca = std::make_shared<CatArgs>();
  CLI::App* c = pq->add_subcommand("cat", "Print a Parquet file's rows as canonical JSON lines");
  c->add_option("file", ca->file, "Parquet file")->required();
  c->add_option("--columns", ca->columns, "Top-level columns to print, comma-separated");
  c->add_option("--limit", ca->limit, "Print at most N rows")->check(CLI::NonNegativeNumber);
  c->callback([ctx, ca] { ctx->action = [ca] { return RunCat(*ca); }; });

  auto ma = std::make_shared<FileArgs>();
  CLI::App* m = pq->add_subcommand(
      "meta", "Print a Parquet file's footer: row groups, column chunks, encodings, codecs, statistics");
  m->add_option("file", ma->file, "Parquet file")->required();
  m->callback([ctx, ma] { ctx->action = [ma] { return RunMeta(*ma); }; });

  auto sa = std::make_shared<FileArgs>();
  CLI::App* s = pq->add_subcommand("schema", "Print a Parquet file's schema (Iceberg JSON)");
  s->add_option("file", sa->file, "Parquet file")->required();
  s->add_flag("--sql", sa->sql, "Print a SQL column list instead");
  s->callback([ctx, sa] { ctx->action = [sa] { return RunSchema(*sa); }; });
}

}  // namespace floe::cli
