// `floe write`: JSONL/CSV rows into an Iceberg table, one commit per run.
// This file only parses the command line and builds the WriteConfig (--config
// YAML, then --set, then --table / --catalog); the write itself is the
// library's: sink::ChooseWriter picks the writer, the streaming job with the
// change sink (change_write.cc) or the one-commit sink::WriteJob (table
// created on first write when --schema is given, decode -> project -> write,
// one commit, and the cleanup of a failed write); the decoder comes from the
// format registry.
#include <unistd.h>

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "floe/catalog/identifier.h"
#include "floe/cli/change_write.h"
#include "floe/cli/run.h"
#include "floe/cli/source_write.h"
#include "floe/cli/table_args.h"
#include "floe/config/options.h"
#include "floe/sink/change_sink.h"
#include "floe/format/format_registry.h"
#include "floe/io/file.h"
#include "floe/kafka/kafka_source.h"
#include "floe/sink/write_config.h"
#include "floe/sink/write_job.h"
#include "floe/types/sql_schema.h"

namespace floe::cli {
namespace {

struct WriteArgs {
  CatalogArgs catalog;
  std::string table;
  std::vector<std::string> sets;
  std::string config_file;
  std::string schema;
  std::string input = "-";
  std::string input_format;
  std::string branch;
  std::vector<std::string> maps;  ///< --map PREFIX=DIR
  int64_t batch_rows = 65536;
  int64_t max_line_bytes = static_cast<int64_t>(format::kDefaultMaxLineBytes);
  bool ignore_unknown = false;
  bool progress = false;
  bool no_progress = false;
  std::string sequence_path;
};

Result<std::string> ReadTextFile(const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(auto in, OpenLocalInput(path));
  const int64_t size = in->Size();
  std::string text(static_cast<size_t>(size), '\0');
  FLOE_RETURN_IF_ERROR(in->ReadAt(0, text.size(), reinterpret_cast<uint8_t*>(text.data())));
  return text;
}

// Takes a Kafka `source:` block (type: kafka, or ReadFromKafka) out of a
// --config file: returns it as YAML text (empty when there is none) and
// leaves the rest in `yaml`. Another type (postgres) stays in the YAML, for
// WriteConfig's `source` (cli/source_write.h); a block without a type is
// Kafka's to refuse by name.
Result<std::string> SplitSourceBlock(std::string& yaml, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    return InvalidArgument("{}: invalid YAML: {}", origin, e.what());
  }
  if (!root.IsMap() || !root["source"]) return std::string();
  if (const YAML::Node src = root["source"]; src.IsMap() && src["type"] && src["type"].IsScalar()) {
    const std::string type = src["type"].Scalar();
    if (type != "kafka" && type != "ReadFromKafka") return std::string();
  }
  YAML::Emitter block;
  block << root["source"];
  root.remove("source");
  YAML::Emitter rest;
  rest << root;
  yaml = root.size() == 0 ? std::string() : std::string(rest.c_str());
  return std::string(block.c_str());
}

Status RunWrite(const WriteArgs& a) {
  FLOE_RETURN_IF_ERROR(ParseMaps(a.maps));  // a bad --map is a usage error before anything is opened
  // 1. Configuration: --config YAML, then --set, then --table / --catalog.
  sink::WriteConfig cfg;
  std::optional<kafka::KafkaSourceOptions> kafka_source;
  if (!a.config_file.empty()) {
    FLOE_ASSIGN_OR_RETURN(std::string yaml, ReadTextFile(a.config_file));
    // `source:` (Beam YAML's ReadFromKafka names): the input, instead of --input.
    auto split = SplitSourceBlock(yaml, a.config_file);
    if (!split) return UsageError(split.error().message);
    if (!split->empty()) {
      auto parsed = kafka::ParseKafkaSourceBlock(*split, a.config_file);
      if (!parsed) return UsageError(parsed.error().message);
      kafka_source = std::move(*parsed);
    }
    auto parsed = sink::WriteConfig::FromYaml(yaml, a.config_file);
    // A bad option is a usage error wherever it was given.
    if (!parsed) return UsageError(parsed.error().message);
    cfg = std::move(*parsed);
  }
  for (const std::string& kv : a.sets) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      return UsageError(fmt::format("--set '{}': expected key=value", kv));
    if (Status st = cfg.Set(kv.substr(0, eq), kv.substr(eq + 1)); !st)
      return UsageError(st.error().message);
  }
  if (!a.table.empty()) {
    if (Status st = cfg.SetTable(a.table, "--table"); !st) return UsageError(st.error().message);
  }
  if (!cfg.source.empty()) {
    // A `source:` block (PostgreSQL): the rows come from it, not from --input.
    if (a.input != "-" || !a.input_format.empty() || !a.schema.empty()) {
      return UsageError("--input, --input-format and --schema do not apply with a `source:` block in --config");
    }
    FLOE_ASSIGN_OR_RETURN(auto cli_catalog, ParseKeyValues(a.catalog.properties, "--catalog"));
    for (const auto& [k, v] : cli_catalog) cfg.catalog_properties[k] = v;
    if (a.catalog.name != "floe") cfg.catalog_name = a.catalog.name;
    FLOE_ASSIGN_OR_RETURN(auto cat, catalog::OpenCatalog(cfg.catalog_name, cfg.catalog_properties));
    FLOE_RETURN_IF_ERROR(ApplyMaps(cat.get(), a.maps));
    sink::ChangeSinkOptions copt;
    copt.branch = a.branch;
    return RunSourceWrite(cfg, cat.get(), std::move(copt), a.progress || (!a.no_progress && ::isatty(CurrentIo().err) != 0),
                          a.config_file);
  }
  if (cfg.table.empty())
    return UsageError("no table given: use --table NS.TABLE (or `table:` in --config)");
  FLOE_ASSIGN_OR_RETURN(auto cli_catalog, ParseKeyValues(a.catalog.properties, "--catalog"));
  for (const auto& [k, v] : cli_catalog) cfg.catalog_properties[k] = v;
  if (a.catalog.name != "floe") cfg.catalog_name = a.catalog.name;
  if (Status st = cfg.Validate(); !st) return UsageError(st.error().message);

  if (kafka_source && (a.input != "-" || !a.input_format.empty())) {
    return UsageError("--input / --input-format: the input is the `source:` of --config (give the format there)");
  }
  std::string fmt_name =
      a.input_format.empty() ? format::DefaultFormatFor(a.input) : a.input_format;
  if (kafka_source) {
    auto f = kafka::KafkaFormat(kafka_source->format);
    if (!f) return UsageError(f.error().message);
    fmt_name = *f;
  }
  if (!format::HasDecoder(fmt_name)) {
    return UsageError(fmt::format("--input-format '{}': valid formats are {}", fmt_name,
                                  format::FormatNamesText()));
  }
  const bool change_input = fmt_name == "debezium-json" || fmt_name == "debezium";
  // A topic is unbounded: always the streaming job.
  const bool change_sink = kafka_source || sink::ChooseWriter(cfg, change_input) == sink::WriterKind::kChangeSink;
  if (!change_sink) FLOE_RETURN_IF_ERROR(catalog::ParseTableIdentifier(cfg.table));
  FLOE_ASSIGN_OR_RETURN(auto cat, catalog::OpenCatalog(cfg.catalog_name, cfg.catalog_properties));
  // --map: the table's locations under PREFIX (its metadata `location` or
  // write.data.path, e.g. s3://bucket/db/t) are written to and read from the
  // local folder DIR, and recorded in the metadata as they are (s3://...).
  FLOE_RETURN_IF_ERROR(ApplyMaps(cat.get(), a.maps));

  // 2. The input schema (the table's when not given), and the job.
  SchemaPtr input_schema;
  if (!a.schema.empty()) {
    auto parsed = ParseSqlColumns(a.schema);
    if (!parsed) return UsageError("--schema: " + parsed.error().message);
    input_schema = std::make_shared<Schema>(std::move(*parsed));
  }
  const std::string input_name = a.input == "-" ? "<stdin>" : a.input;
  if (change_sink) {
    sink::ChangeSinkOptions copt;
    copt.branch = a.branch;
    copt.missing_table_hint = "give --schema '<SQL column list>' to create it";
    copt.changes_in_batch = change_input;
    ChangeWriteInput in;
    in.path = a.input;
    in.format = fmt_name;
    in.sequence_path = a.sequence_path;
    in.batch_rows = a.batch_rows;
    in.max_line_bytes = static_cast<size_t>(a.max_line_bytes);
    in.ignore_unknown = a.ignore_unknown;
    in.progress = a.progress || (!a.no_progress && ::isatty(CurrentIo().err) != 0);
    if (kafka_source) {
      kafka::KafkaSourceOptions ko = std::move(*kafka_source);
      ko.decode.batch_rows = a.batch_rows;
      ko.decode.max_line_bytes = static_cast<size_t>(a.max_line_bytes);
      ko.decode.ignore_unknown_keys = a.ignore_unknown;
      if (!a.sequence_path.empty()) ko.decode.sequence_path = a.sequence_path;
      in.open_source = [ko]() { return kafka::OpenKafkaSource(ko); };
    }
    return RunChangeWrite(cfg, cat.get(), input_schema, std::move(copt), in);
  }
  if (!a.sequence_path.empty()) return UsageError("--sequence-path applies to --input-format debezium-json");
  sink::WriteJobOptions options;
  options.branch = a.branch;
  options.missing_table_hint = "give --schema '<SQL column list>' to create it";
  FLOE_ASSIGN_OR_RETURN(auto job, sink::WriteJob::Open(cfg, cat.get(), input_schema, options));

  // 3. The decoder, typed by the job's input schema. An error from here on
  // returns early: the job's destructor takes the write back.
  format::DecodeOptions dopt;
  dopt.batch_rows = a.batch_rows;
  dopt.max_line_bytes = static_cast<size_t>(a.max_line_bytes);
  dopt.stdin_fd = CurrentIo().in;
  dopt.ignore_unknown_keys = a.ignore_unknown;
  auto decoder = format::OpenDecoder(fmt_name, job->input_schema(), a.input, dopt);
  if (!decoder) return Fail(decoder.error().WithContext(input_name));

  // 4. Decode -> project -> write, then one commit.
  FLOE_ASSIGN_OR_RETURN(auto stats, job->Run(**decoder, input_name));
  FLOE_ASSIGN_OR_RETURN(
      auto result,
      job->Commit({{"floe.input", input_name}, {"floe.input-rows", std::to_string(stats.rows)}}));
  nlohmann::ordered_json summary;
  summary["table"] = result.table;
  summary["rows"] = result.rows;
  summary["files"] = result.files;
  summary["bytes"] = result.bytes;
  if (!result.commit) {
    summary["snapshot-id"] = nullptr;
  } else {
    summary["snapshot-id"] = result.commit->snapshot_id;
    summary["sequence-number"] = result.commit->sequence_number;
    summary["operation"] = result.commit->operation;
  }
  StdoutWriter out;
  *out.buffer() = summary.dump() + "\n";
  return out.Flush();
}

}  // namespace

void AddWriteCommand(CLI::App* root, CommandContext* ctx) {
  auto* cmd =
      root->add_subcommand("write", "Write JSONL/CSV rows into an Iceberg table (one commit)");
  auto a = std::make_shared<WriteArgs>();
  a->catalog.AddTo(cmd);
  cmd->add_option("--table", a->table, "NS.TABLE");
  cmd->add_option("--set", a->sets,
                  "Option key=value: a Beam name, a Flink write option or a table property (see "
                  "`floe options`)")
      ->allow_extra_args(false);
  cmd->add_option("--config", a->config_file, "YAML file with Beam's write configuration names");
  cmd->add_option("--schema", a->schema,
                  "SQL column list of the input (creates the table when missing)");
  cmd->add_option("--input,-i", a->input, "Input file, or - for standard input");
  cmd->add_option("--input-format", a->input_format,
                  "jsonl | csv (default: from the file name, else jsonl)");
  cmd->add_option("--branch", a->branch, "Commit to this branch (created from main when missing)");
  cmd->add_option("--map", a->maps,
                  "PREFIX=DIR: the table's locations under PREFIX (e.g. s3://bucket/db/t) are the files "
                  "under DIR; the metadata keeps recording PREFIX")
      ->allow_extra_args(false);
  cmd->add_option("--batch-rows", a->batch_rows, "Rows per batch")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 24));
  cmd->add_option("--max-line-bytes", a->max_line_bytes, "The longest input line (CSV: record) in bytes; a longer one is an error naming its line (default 256 MiB, at most 1 GiB)")
      ->check(CLI::Range(int64_t{1}, static_cast<int64_t>(format::kMaxLineBytes)));
  cmd->add_flag("--ignore-unknown", a->ignore_unknown, "Skip input fields that name no column");
  cmd->add_flag("--progress", a->progress, "Show live progress on stderr (default: when stderr is a terminal)");
  cmd->add_flag("--no-progress", a->no_progress, "Never show live progress");
  cmd->add_option("--sequence-path", a->sequence_path,
                  "debezium-json: dotted path of the sequence number in the event (default source.lsn)");
  cmd->callback([=] { ctx->action = [=] { return RunWrite(*a); }; });
}

}  // namespace floe::cli
