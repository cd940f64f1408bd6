// The `iceberg` connector: tables of an Iceberg catalog (CREATE CATALOG ...
// WITH ('type'='iceberg')), read through the batch scan planner and reader
// (table/scan.h, table_reader.h) and written through the library's write
// job (appends, INSERT OVERWRITE) or change sink (upserts, changelog input).
//
// Options, as Iceberg's Flink connector takes them (and never validates:
// FlinkDynamicTableFactory ignores unknown keys): hints and the session's
// `connector.iceberg.*` keys name read or write options; the table's
// properties back them. floe differs in one way: an unknown hint key is a
// warning, not silence.
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "floe/config/options.h"
#include "floe/plugin/commit_ledger.h"
#include "floe/sink/change_sink.h"
#include "floe/sink/write_job.h"
#include "floe/sqlengine/builtin_connectors.h"
#include "floe/table/scan.h"
#include "floe/table/streaming_scan.h"
#include "floe/table/table_reader.h"

namespace floe::sqlengine {

namespace {

namespace k = config::keys;

class IcebergSource : public RowSource {
 public:
  explicit IcebergSource(std::unique_ptr<table::TableReader> reader) : reader_(std::move(reader)) {}
  Result<bool> Next(Batch* out) override { return reader_->Next(out); }

 private:
  std::unique_ptr<table::TableReader> reader_;
};

// A streaming read (`streaming`=true): each committed snapshot's changelog
// (+I, -U, +U, -D rows) as it comes, polling every `monitor-interval`.
// Unbounded: a query ends it with LIMIT (or the process ends).
class IcebergStreamingSource : public RowSource {
 public:
  explicit IcebergStreamingSource(std::unique_ptr<table::StreamingScan> scan,
                                  std::chrono::nanoseconds interval)
      : scan_(std::move(scan)), interval_(interval) {}

  bool unbounded() const override { return true; }

  // While nothing new is committed, each poll returns an empty batch: the
  // job sees time pass (its checkpoints, a statement set's stop) between
  // polls, not only when rows come.
  Result<bool> Next(Batch* out) override {
    if (ready_.empty()) {
      if (scan_->pending() == 0) {
        FLOE_ASSIGN_OR_RETURN(int queued, scan_->Discover());
        if (queued == 0) {
          std::this_thread::sleep_for(interval_);
          *out = Batch();
          return true;
        }
      }
      FLOE_ASSIGN_OR_RETURN(auto emitted, scan_->EmitNext([&](Batch&& b) -> Status {
        if (b.num_rows > 0) ready_.push_back(std::move(b));
        return Ok();
      }));
      if (!emitted) std::this_thread::sleep_for(interval_);
      if (ready_.empty()) {
        *out = Batch();
        return true;
      }
    }
    *out = std::move(ready_.front());
    ready_.pop_front();
    return true;
  }

 private:
  std::unique_ptr<table::StreamingScan> scan_;
  std::chrono::nanoseconds interval_;
  std::deque<Batch> ready_;
};

// Appends and INSERT OVERWRITE: one WriteJob, one snapshot at Commit. An
// append of a streaming job (`execution.checkpointing.interval`) commits at
// each checkpoint and goes on with a new job, as Iceberg's Flink sink
// commits at checkpoints; an overwrite only at the end.
class IcebergAppendSink : public RowSink {
 public:
  using OpenJob = std::function<Result<std::unique_ptr<sink::WriteJob>>()>;
  IcebergAppendSink(std::unique_ptr<sink::WriteJob> job, OpenJob open, bool overwrite)
      : job_(std::move(job)), open_(std::move(open)), overwrite_(overwrite) {}
  Status Write(Batch&& batch) override { return job_->Write(std::move(batch)); }
  Status Finish() override { return Ok(); }
  bool deferred_commit() const override { return true; }
  Status Commit() override {
    // After a checkpoint an empty job has nothing to publish.
    if (checkpointed_ && job_->rows() == 0) return Ok();
    FLOE_ASSIGN_OR_RETURN(auto result, job_->Commit({{"floe.input", "sql"}}));
    if (result.commit) {
      // For the plugin guard's messages: a plugin that crashes later (its
      // destroy, a later statement) says this snapshot landed.
      plugin::NoteCommitted(fmt::format("Iceberg table {} snapshot {}", result.table, result.commit->snapshot_id));
    }
    return Ok();
  }
  bool checkpoints() const override { return !overwrite_; }
  Status Checkpoint() override {
    if (job_->rows() == 0) return Ok();
    FLOE_RETURN_IF_ERROR(Commit());
    checkpointed_ = true;
    FLOE_ASSIGN_OR_RETURN(job_, open_());
    return Ok();
  }
  void Abort() override { job_->Abort(); }

 private:
  std::unique_ptr<sink::WriteJob> job_;
  OpenJob open_;
  bool overwrite_;
  bool checkpointed_ = false;
};

// The change sink (sink::ChooseWriter): upserts and changelog input (equality
// deletes by key), and appends with options only it implements.
class IcebergChangeSink : public RowSink {
 public:
  IcebergChangeSink(std::unique_ptr<sink::ChangeSink> sink, std::string table)
      : sink_(std::move(sink)), table_(std::move(table)) {}
  Status Write(Batch&& batch) override {
    const int64_t n = batch.num_rows;
    if (batch.row_kinds.empty()) batch.row_kinds.assign(static_cast<size_t>(n), RowKind::kInsert);
    // The change sink orders each key's changes by sequence number: the
    // arrival order is the order of the changelog.
    batch.sequence_numbers.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) batch.sequence_numbers[i] = ++sequence_;
    return sink_->Write(std::move(batch));
  }
  Status Finish() override { return Ok(); }
  bool deferred_commit() const override { return true; }
  Status Commit() override { return CommitWindow(); }
  /// A streaming job's checkpoint: the window so far becomes a snapshot.
  Status Checkpoint() override { return CommitWindow(); }
  bool checkpoints() const override { return true; }
  void Abort() override { sink_.reset(); }  // nothing is published before Commit

 private:
  // Commits the window and notes each snapshot that landed (the plugin
  // guard's messages: commit_ledger.h).
  Status CommitWindow() {
    std::map<std::string, int64_t> before;
    for (const auto& d : sink_->stats().destinations) before[d.table] = d.commits;
    FLOE_RETURN_IF_ERROR(sink_->Commit());
    for (const auto& d : sink_->stats().destinations) {
      if (d.commits > before[d.table] && d.snapshot_id) {
        plugin::NoteCommitted(fmt::format("Iceberg table {} snapshot {}", table_, *d.snapshot_id));
      }
    }
    return Ok();
  }

  std::unique_ptr<sink::ChangeSink> sink_;
  std::string table_;
  int64_t sequence_ = 0;
};

// The session keys of read options (`connector.iceberg.<key>`).
std::map<std::string, std::string> SessionReadOptions(const EngineContext& ctx) {
  std::map<std::string, std::string> out;
  if (!ctx.session) return out;
  for (const auto& [key, value] : *ctx.session) {
    if (key.starts_with("connector.iceberg.")) out[key] = value;
  }
  return out;
}

bool IsTrue(const std::string& v) { return v == "true" || v == "TRUE" || v == "True"; }

// Two read options cannot change what a SQL query returns: refused when they
// ask for what SQL does not do, rather than accepted to no effect.
//  - case-sensitive: the planner has already resolved the query's column
//    names against the table, case-sensitively (as Flink's does), so the
//    scan binds exact names; true is what SQL does, false cannot apply.
//  - include-column-stats: statistics are kept in planned files, and a
//    query's result holds rows, never files; false is what SQL does.
Status CheckSqlReadOption(const std::string& key, const std::string& value,
                          std::string_view where) {
  if (key == k::kCaseSensitive.name && !IsTrue(value)) {
    return Unsupported(
        "{}: read option case-sensitive={} has no effect in SQL: the query's column names are "
        "resolved by the SQL planner, case-sensitively as in Flink (floe scan --option "
        "case-sensitive=false selects columns case-insensitively)",
        where, value);
  }
  if (key == k::kIncludeColumnStats.name && IsTrue(value)) {
    return Unsupported(
        "{}: read option include-column-stats={} has no effect in SQL: column statistics belong "
        "to planned files, not to rows (floe files --option include-column-stats=true prints "
        "them)",
        where, value);
  }
  return Ok();
}

// The read options of a hint: read options pass, other keys are ignored
// with a warning (Iceberg's connector ignores them silently). The session's
// `connector.iceberg.*` keys are checked here too.
Result<std::map<std::string, std::string>> ReadHints(const TableHandle& table,
                                                     const ReadRequest& request,
                                                     const EngineContext& ctx) {
  std::map<std::string, std::string> hints;
  for (const auto& [key, value] : request.hints) {
    if (config::FindOption(key, uint32_t(config::Scope::kRead))) {
      FLOE_RETURN_IF_ERROR(
          CheckSqlReadOption(key, value, fmt::format("table {}: OPTIONS hint", table.FullName())));
      hints[key] = value;
    } else if (ctx.warn) {
      ctx.warn(fmt::format(
          "table {}: hint option '{}' is not an Iceberg read option; ignored (Iceberg's Flink "
          "connector ignores unknown options)",
          table.FullName(), key));
    }
  }
  for (const auto& [key, value] : SessionReadOptions(ctx)) {
    FLOE_RETURN_IF_ERROR(CheckSqlReadOption(key.substr(std::string_view("connector.iceberg.").size()),
                                            value, fmt::format("SET '{}'", key)));
  }
  return hints;
}

class IcebergConnector : public Connector {
 public:
  std::string identifier() const override { return "iceberg"; }

  Status Validate(const TableHandle& table, bool for_sink) const override { return Ok(); }

  bool ChangelogSource(const TableHandle& table, const ReadRequest& request,
                       const EngineContext& ctx) const override {
    if (!table.loaded) return false;
    EngineContext quiet = ctx;
    quiet.warn = nullptr;
    auto hints = ReadHints(table, request, quiet);
    if (!hints) return false;  // OpenSource reports the error
    auto options = table::ScanOptions::FromOptions(*hints, table.loaded->metadata.properties,
                                                   SessionReadOptions(ctx));
    return options && options->streaming;
  }

  Result<std::unique_ptr<RowSource>> OpenSource(const TableHandle& table,
                                                const ReadRequest& request,
                                                const EngineContext& ctx) const override {
    if (!table.loaded) return Internal("iceberg table {} not loaded", table.FullName());
    FLOE_ASSIGN_OR_RETURN(auto hints, ReadHints(table, request, ctx));
    auto metadata = std::make_shared<const iceberg::TableMetadata>(table.loaded->metadata);
    FLOE_ASSIGN_OR_RETURN(
        table::ScanOptions options,
        table::ScanOptions::FromOptions(hints, metadata->properties, SessionReadOptions(ctx)));
    for (int c : request.columns) options.columns.push_back(table.schema.columns[c].name);
    if (options.columns.empty() && !request.columns.empty()) options.columns.clear();
    options.filter = request.filter;
    // Flink is case-sensitive about names; the planner already resolved them.
    options.case_sensitive = true;
    if (options.streaming) {
      catalog::Catalog* cat = table.iceberg;
      const catalog::TableIdentifier id = table.loaded->id;
      auto first = std::make_shared<std::shared_ptr<const iceberg::TableMetadata>>(metadata);
      table::MetadataLoader load =
          [cat, id, first]() -> Result<std::shared_ptr<const iceberg::TableMetadata>> {
        if (*first) return std::exchange(*first, nullptr);
        FLOE_ASSIGN_OR_RETURN(auto loaded, cat->RefreshTable(id));
        return std::make_shared<const iceberg::TableMetadata>(std::move(loaded.metadata));
      };
      const auto interval = options.monitor_interval;
      FLOE_ASSIGN_OR_RETURN(
          auto scan, table::StreamingScan::Make(std::move(load), cat->io(), std::move(options)));
      return std::unique_ptr<RowSource>(new IcebergStreamingSource(std::move(scan), interval));
    }
    if (request.limit >= 0 && (options.limit < 0 || request.limit < options.limit))
      options.limit = request.limit;
    table::FileManifestSource manifests(*metadata, table.iceberg->io());
    FLOE_ASSIGN_OR_RETURN(table::ScanPlan plan, table::PlanScan(metadata, options, &manifests));
    table::TableReaderOptions ropt;
    ropt.threads = std::max(1, std::min(4, static_cast<int>(std::thread::hardware_concurrency())));
    FLOE_ASSIGN_OR_RETURN(auto reader,
                          table::TableReader::Make(std::move(plan), table.iceberg->io(), ropt));
    return std::unique_ptr<RowSource>(new IcebergSource(std::move(reader)));
  }

  Result<std::unique_ptr<RowSink>> OpenSink(const TableHandle& table, const WriteRequest& request,
                                            const EngineContext& ctx) const override {
    if (!table.loaded) return Internal("iceberg table {} not loaded", table.FullName());
    sink::WriteConfig cfg;
    FLOE_RETURN_IF_ERROR(cfg.SetTable(table.loaded->id.ToString(), "INSERT"));
    for (const auto& [key, value] : request.hints) {
      if (!config::FindOption(key, config::Scope::kWrite | config::Scope::kTable)) {
        if (ctx.warn) {
          ctx.warn(fmt::format(
              "table {}: hint option '{}' is not an Iceberg write option; ignored (Iceberg's "
              "Flink connector ignores unknown options)",
              table.FullName(), key));
        }
        continue;
      }
      FLOE_RETURN_IF_ERROR(cfg.Set(key, value, "OPTIONS hint"));
    }
    // Upsert: the hint, else the table property (Iceberg's FlinkSink).
    bool upsert = false;
    if (auto it = cfg.write_properties.find(std::string(k::kUpsertEnabled.name));
        it != cfg.write_properties.end()) {
      upsert = IsTrue(it->second);
    } else if (auto p = table.options.find(std::string(k::kWriteUpsertEnabled.name));
               p != table.options.end()) {
      upsert = IsTrue(p->second);
      if (upsert) FLOE_RETURN_IF_ERROR(cfg.Set(k::kUpsertEnabled.name, "true", "table property"));
    }
    if (request.overwrite) {
      if (request.changelog) {
        // Iceberg's IcebergTableSink: an overwrite needs a bounded input.
        return InvalidArgument("Unbounded data stream doesn't support overwrite operation.");
      }
      if (upsert) {
        return InvalidArgument(
            "OVERWRITE mode shouldn't be enable when configuring to use UPSERT data stream.");
      }
      FLOE_RETURN_IF_ERROR(cfg.Set(k::kOverwriteEnabled.name, "true", "INSERT OVERWRITE"));
    }
    const bool change_input = upsert || request.changelog;
    if (upsert && table.primary_key.empty() &&
        !cfg.write_properties.contains(std::string(k::kEqualityFieldColumns.name))) {
      return InvalidArgument(
          "Equality field columns shouldn't be empty when configuring to use UPSERT data stream "
          "(table {} has no "
          "PRIMARY KEY)",
          table.FullName());
    }
    if (request.changelog && !upsert) cfg.sink_options["mode"] = "merge-on-read";
    // The writer is chosen where `floe write` chooses it (sink::ChooseWriter).
    if (sink::ChooseWriter(cfg, change_input) == sink::WriterKind::kChangeSink) {
      sink::ChangeSinkOptions copt;
      copt.changes_in_batch = change_input;
      copt.summary = {{"floe.input", "sql"}};
      FLOE_ASSIGN_OR_RETURN(
          auto sink, sink::ChangeSink::Open(cfg, table.iceberg, table.schema.Physical(), copt));
      return std::unique_ptr<RowSink>(new IcebergChangeSink(std::move(sink), table.FullName()));
    }
    catalog::Catalog* cat = table.iceberg;
    IcebergAppendSink::OpenJob open = [cfg, cat, schema = table.schema.Physical()]() {
      return sink::WriteJob::Open(cfg, cat, schema, sink::WriteJobOptions{});
    };
    FLOE_ASSIGN_OR_RETURN(auto job, open());
    return std::unique_ptr<RowSink>(
        new IcebergAppendSink(std::move(job), std::move(open), request.overwrite));
  }
};

}  // namespace

std::shared_ptr<const Connector> MakeIcebergConnector() {
  return std::make_shared<IcebergConnector>();
}

}  // namespace floe::sqlengine
