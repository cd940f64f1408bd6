// `floe write`: JSONL/CSV rows into an Iceberg table through the sink
// pipeline (decode -> project -> partitioned data writer), one commit per run.
// The table is created on first write when --schema is given. A failed write
// publishes nothing: the data files written so far are removed (writer
// Abort), no snapshot is committed, and a table this run created is dropped
// (unless another writer committed to it meanwhile). Two first writes racing
// to create a table both append to the one that won.
#include <nlohmann/json.hpp>

#include <optional>
#include <thread>

#include "floe/catalog/identifier.h"
#include "floe/cli/table_args.h"
#include "floe/config/options.h"
#include "floe/format/csv_reader.h"
#include "floe/format/jsonl_reader.h"
#include "floe/io/file.h"
#include "floe/sink/pipeline.h"
#include "floe/sink/projection.h"
#include "floe/sink/write_config.h"
#include "floe/table/data_writer.h"
#include "floe/table/table.h"
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
  int64_t batch_rows = 65536;
  bool ignore_unknown = false;
};

Result<std::string> ReadTextFile(const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(auto in, OpenLocalInput(path));
  const int64_t size = in->Size();
  std::string text(static_cast<size_t>(size), '\0');
  FLOE_RETURN_IF_ERROR(in->ReadAt(0, text.size(), reinterpret_cast<uint8_t*>(text.data())));
  return text;
}

// The decoder of the input, typed by `schema`.
struct Decoder {
  std::unique_ptr<format::JsonlReader> jsonl;
  std::unique_ptr<format::CsvReader> csv;
  sink::DecodeFn fn;
};

Result<Decoder> OpenDecoder(const WriteArgs& a, SchemaPtr schema) {
  std::string fmt_name = a.input_format;
  if (fmt_name.empty()) fmt_name = (a.input.ends_with(".csv") || a.input.ends_with(".CSV")) ? "csv" : "jsonl";
  format::DecodeOptions dopt;
  dopt.batch_rows = a.batch_rows;
  dopt.ignore_unknown_keys = a.ignore_unknown;
  Decoder d;
  const std::string name = a.input == "-" ? "<stdin>" : a.input;
  if (fmt_name == "csv") {
    auto r = format::CsvReader::Open(schema, a.input, dopt);
    if (!r) return Fail(r.error().WithContext(name));
    d.csv = std::move(*r);
    format::CsvReader* csv = d.csv.get();
    d.fn = [csv](Batch* b) { return csv->Next(b); };
  } else if (fmt_name == "jsonl" || fmt_name == "json") {
    auto r = format::JsonlReader::Open(schema, a.input, dopt);
    if (!r) return Fail(r.error().WithContext(name));
    d.jsonl = std::move(*r);
    format::JsonlReader* jsonl = d.jsonl.get();
    d.fn = [jsonl](Batch* b) { return jsonl->Next(b); };
  } else {
    return UsageError(fmt::format("--input-format '{}': valid formats are jsonl, csv", fmt_name));
  }
  return d;
}

Status RunWrite(const WriteArgs& a) {
  // 1. Configuration: --config YAML, then --set, then --table / --catalog.
  sink::WriteConfig cfg;
  if (!a.config_file.empty()) {
    FLOE_ASSIGN_OR_RETURN(std::string yaml, ReadTextFile(a.config_file));
    auto parsed = sink::WriteConfig::FromYaml(yaml, a.config_file);
    // A bad option is a usage error wherever it was given.
    if (!parsed) return UsageError(parsed.error().message);
    cfg = std::move(*parsed);
  }
  for (const std::string& kv : a.sets) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return UsageError(fmt::format("--set '{}': expected key=value", kv));
    if (Status st = cfg.Set(kv.substr(0, eq), kv.substr(eq + 1)); !st) return UsageError(st.error().message);
  }
  if (!a.table.empty()) {
    if (Status st = cfg.SetTable(a.table, "--table"); !st) return UsageError(st.error().message);
  }
  if (cfg.table.empty()) return UsageError("no table given: use --table NS.TABLE (or `table:` in --config)");
  FLOE_ASSIGN_OR_RETURN(auto cli_catalog, ParseKeyValues(a.catalog.properties, "--catalog"));
  for (const auto& [k, v] : cli_catalog) cfg.catalog_properties[k] = v;
  if (a.catalog.name != "floe") cfg.catalog_name = a.catalog.name;
  if (Status st = cfg.Validate(); !st) return UsageError(st.error().message);

  FLOE_ASSIGN_OR_RETURN(auto id, catalog::ParseTableIdentifier(cfg.table));
  FLOE_ASSIGN_OR_RETURN(auto cat, catalog::OpenCatalog(cfg.catalog_name, cfg.catalog_properties));

  // 2. The input schema and the table (created on first write).
  SchemaPtr input_schema;
  if (!a.schema.empty()) {
    auto parsed = ParseSqlColumns(a.schema);
    if (!parsed) return UsageError("--schema: " + parsed.error().message);
    input_schema = std::make_shared<Schema>(std::move(*parsed));
  }
  FLOE_ASSIGN_OR_RETURN(bool exists, cat->TableExists(id));
  bool created = false;
  catalog::LoadedTable loaded;
  if (exists) {
    FLOE_ASSIGN_OR_RETURN(loaded, cat->LoadTable(id));
    if (!input_schema) input_schema = loaded.metadata.CurrentSchema();
  } else {
    if (!input_schema) {
      return Fail(NotFound("table {} does not exist; give --schema '<SQL column list>' to create it",
                           id.ToString()).error());
    }
  }
  FLOE_ASSIGN_OR_RETURN(sink::Projector projector, sink::Projector::Make(input_schema, cfg.projection));
  if (!exists) {
    catalog::TableDefinition def;
    def.schema = *projector.projected_schema();
    FLOE_ASSIGN_OR_RETURN(def.spec, sink::ParsePartitionFields(cfg.partition_fields, def.schema));
    FLOE_ASSIGN_OR_RETURN(def.sort_order, sink::ParseSortFields(cfg.sort_fields, def.schema));
    def.properties = cfg.table_properties;
    FLOE_ASSIGN_OR_RETURN(bool ns_exists, cat->NamespaceExists(id.ns));
    if (!ns_exists) {
      Status st = cat->CreateNamespace(id.ns, {});
      // Another first write may have made it meanwhile.
      if (!st && st.error().kind != ErrorKind::kAlreadyExists) return st;
    }
    auto made = cat->CreateTable(id, def);
    if (made) {
      loaded = std::move(*made);
      created = true;
    } else if (made.error().kind == ErrorKind::kAlreadyExists) {
      // Another first write created it meanwhile: append to that table.
      FLOE_ASSIGN_OR_RETURN(loaded, cat->LoadTable(id));
    } else {
      return Fail(std::move(made).error());
    }
  }
  // A table this run created is dropped again when the write fails, but only
  // while no other writer has committed to it (never its files).
  std::optional<catalog::LoadedTable> created_as;
  if (created) created_as = loaded;
  auto drop_created = [&] {
    if (created_as) (void)cat->DropIfUnchanged(*created_as);
  };

  table::Table table(cat.get(), std::move(loaded));
  const iceberg::TableMetadata& meta = table.metadata();
  if (Status st = projector.Bind(meta.CurrentSchema()); !st) {
    drop_created();
    return Fail(st.error().WithContext(id.ToString()));
  }

  // 3. Write options (Flink precedence: this job's options, then the table's).
  config::Resolver resolver({&cfg.write_properties, &meta.properties});
  auto options = table::DataWriterOptions::Resolve(meta, resolver);
  if (!options) {
    drop_created();
    return Fail(options.error());
  }
  FLOE_ASSIGN_OR_RETURN(auto overwrite, resolver.Get(config::keys::kOverwriteEnabled));
  FLOE_ASSIGN_OR_RETURN(auto parallelism, resolver.Get(config::keys::kWriteParallelism));
  sink::PipelineOptions popt;
  popt.workers = parallelism ? static_cast<int>(*parallelism)
                             : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));

  auto decoder = OpenDecoder(a, input_schema);
  if (!decoder) {
    drop_created();
    return Fail(decoder.error());
  }
  auto factory = std::make_shared<table::OutputFileFactory>(options->data_location, table.locations());
  auto writer = table::MakeDataWriter(meta, *options, factory);
  if (!writer) {
    drop_created();
    return Fail(writer.error());
  }

  // 4. Decode -> project -> write; any error aborts everything.
  const std::string input_name = a.input == "-" ? "<stdin>" : a.input;
  auto stats = sink::RunPipeline(decoder->fn, input_schema, projector,
                                 [&](const Batch& b) { return (*writer)->Write(b); }, popt);
  if (!stats) {
    (*writer)->Abort();
    drop_created();
    return Fail(stats.error().WithContext(input_name));
  }
  auto files = (*writer)->Close();
  if (!files) {
    (*writer)->Abort();
    drop_created();
    return Fail(files.error());
  }

  // 5. One commit.
  int64_t bytes = 0;
  for (const auto& f : *files) bytes += f.file_size_in_bytes;
  nlohmann::ordered_json summary;
  summary["table"] = id.ToString();
  summary["rows"] = stats->rows;
  summary["files"] = files->size();
  summary["bytes"] = bytes;
  if (files->empty() && !overwrite.value_or(false)) {
    summary["snapshot-id"] = nullptr;
    StdoutWriter out;
    *out.buffer() = summary.dump() + "\n";
    return out.Flush();
  }
  table::SnapshotUpdate update(&table);
  for (const auto& f : *files) update.AddDataFile(f);
  if (overwrite.value_or(false)) update.OverwritePartitions();
  update.Set("floe.input", input_name);
  update.Set("floe.input-rows", std::to_string(stats->rows));
  if (!a.branch.empty()) update.ToBranch(a.branch);
  auto committed = update.Commit();
  if (!committed) {
    // Known to have failed (a lost race, or an error before the swap): take
    // the data files and their new folders back. An unknown outcome keeps them.
    if (committed.error().kind != ErrorKind::kCommitStateUnknown) {
      for (const auto& f : *files) {
        if (auto local = table.LocalPath(f.file_path)) factory->Remove(*local);
      }
      drop_created();
    }
    return Fail(committed.error().WithContext(id.ToString()));
  }
  summary["snapshot-id"] = committed->snapshot_id;
  summary["sequence-number"] = committed->sequence_number;
  summary["operation"] = committed->operation;
  StdoutWriter out;
  *out.buffer() = summary.dump() + "\n";
  return out.Flush();
}

}  // namespace

void AddWriteCommand(CLI::App* root, CommandContext* ctx) {
  auto* cmd = root->add_subcommand("write", "Write JSONL/CSV rows into an Iceberg table (one commit)");
  auto a = std::make_shared<WriteArgs>();
  a->catalog.AddTo(cmd);
  cmd->add_option("--table", a->table, "NS.TABLE");
  cmd->add_option("--set", a->sets,
                  "Option key=value: a Beam name, a Flink write option or a table property (see `floe options`)")
      ->allow_extra_args(false);
  cmd->add_option("--config", a->config_file, "YAML file with Beam's write configuration names");
  cmd->add_option("--schema", a->schema, "SQL column list of the input (creates the table when missing)");
  cmd->add_option("--input,-i", a->input, "Input file, or - for standard input");
  cmd->add_option("--input-format", a->input_format, "jsonl | csv (default: from the file name, else jsonl)");
  cmd->add_option("--branch", a->branch, "Commit to this branch (created from main when missing)");
  cmd->add_option("--batch-rows", a->batch_rows, "Rows per batch")->check(CLI::Range(int64_t{1}, int64_t{1} << 24));
  cmd->add_flag("--ignore-unknown", a->ignore_unknown, "Skip input fields that name no column");
  cmd->callback([=] { ctx->action = [=] { return RunWrite(*a); }; });
}

}  // namespace floe::cli
