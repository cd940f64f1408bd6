// WriteJob: open or create the table, resolve the options, write through the
// data writer, commit one snapshot; and Cleanup, the one place that undoes a
// write that did not commit.
#include "floe/sink/write_job.h"

#include <algorithm>
#include <thread>

#include "floe/config/options.h"
#include "floe/sink/sink_options.h"
#include "floe/sink/window_commit.h"

namespace floe::sink {

// Everything a write that does not commit must undo, undone once by whoever
// gets there first: a failed step, Abort(), a commit known to have failed, or
// the destructor. Release() (a commit that landed, or whose outcome is
// unknown) leaves everything in place.
class WriteJob::Cleanup {
 public:
  ~Cleanup() { Undo(); }

  /// This job created `created` through `catalog`: drop it on undo while no
  /// other writer has committed to it.
  void TableCreated(catalog::Catalog* catalog, catalog::LoadedTable created) {
    catalog_ = catalog;
    created_ = std::move(created);
  }
  /// The window whose files (open, finished or closed) are removed on undo.
  void WindowOpened(AppendWindow* window) { window_ = window; }
  bool created_table() const { return created_.has_value(); }

  /// Removes the writer's files and the folders it made, then drops the
  /// table this job created (never its namespace, which may be shared).
  void Undo() {
    if (done_) return;
    done_ = true;
    if (window_) window_->Abort();
    // The write already failed; a table that cannot be dropped stays, empty
    // (as when another writer committed to it).
    if (created_) (void)catalog_->DropIfUnchanged(*created_);
  }
  /// Keeps everything: the commit landed, or may have.
  void Release() { done_ = true; }

 private:
  catalog::Catalog* catalog_ = nullptr;
  std::optional<catalog::LoadedTable> created_;
  AppendWindow* window_ = nullptr;
  bool done_ = false;
};

WriteJob::WriteJob() : cleanup_(std::make_unique<Cleanup>()) {}

WriteJob::~WriteJob() = default;

bool WriteJob::created_table() const { return cleanup_->created_table(); }

Result<std::unique_ptr<WriteJob>> WriteJob::Open(const WriteConfig& config,
                                                 catalog::Catalog* catalog, SchemaPtr input_schema,
                                                 WriteJobOptions options) {
  if (!catalog) return InvalidArgument("write job: no catalog");
  FLOE_RETURN_IF_ERROR(config.Validate());
  std::unique_ptr<WriteJob> job(new WriteJob());
  // On an error below, `job` is destroyed and its Cleanup undoes what was done.
  FLOE_RETURN_IF_ERROR(job->OpenTable(config, catalog, std::move(input_schema), options));
  FLOE_RETURN_IF_ERROR(job->OpenWriter(config, options));
  return job;
}

Result<std::unique_ptr<WriteJob>> WriteJob::Open(const WriteConfig& config, SchemaPtr input_schema,
                                                 WriteJobOptions options) {
  FLOE_RETURN_IF_ERROR(config.Validate());
  if (config.table.empty()) return InvalidArgument("write job: no table given (`table`)");
  FLOE_RETURN_IF_ERROR(catalog::ParseTableIdentifier(config.table));
  FLOE_ASSIGN_OR_RETURN(auto catalog,
                        catalog::OpenCatalog(config.catalog_name, config.catalog_properties));
  catalog::Catalog* cat = catalog.get();
  std::unique_ptr<WriteJob> job(new WriteJob());
  job->owned_catalog_ = std::move(catalog);
  FLOE_RETURN_IF_ERROR(job->OpenTable(config, cat, std::move(input_schema), options));
  FLOE_RETURN_IF_ERROR(job->OpenWriter(config, options));
  return job;
}

Result<OpenedTable> OpenOrCreateTable(const WriteConfig& config, const std::string& name,
                                      catalog::Catalog* cat, SchemaPtr input_schema,
                                      std::string_view missing_table_hint,
                                      const std::function<Status(catalog::TableDefinition*)>& adjust) {
  if (name.empty()) return InvalidArgument("write job: no table given (`table`)");
  FLOE_ASSIGN_OR_RETURN(auto id, catalog::ParseTableIdentifier(name));
  FLOE_ASSIGN_OR_RETURN(bool exists, cat->TableExists(id));
  catalog::LoadedTable loaded;
  OpenedTable out;
  if (exists) {
    FLOE_ASSIGN_OR_RETURN(loaded, cat->LoadTable(id));
    // A table folder copied with its metadata still names the original's
    // location: refuse before any file is written there.
    FLOE_RETURN_IF_ERROR(cat->CheckLocation(loaded));
    if (!input_schema) input_schema = loaded.metadata.CurrentSchema();
  } else if (!input_schema) {
    return NotFound("table {} does not exist; {}", id.ToString(), missing_table_hint);
  }
  FLOE_ASSIGN_OR_RETURN(Projector projector, Projector::Make(input_schema, config.projection));
  if (!exists) {
    catalog::TableDefinition def;
    def.schema = *projector.projected_schema();
    FLOE_ASSIGN_OR_RETURN(def.spec, ParsePartitionFields(config.partition_fields, def.schema));
    FLOE_ASSIGN_OR_RETURN(def.sort_order, ParseSortFields(config.sort_fields, def.schema));
    def.properties = config.table_properties;
    if (adjust) FLOE_RETURN_IF_ERROR(adjust(&def));
    FLOE_ASSIGN_OR_RETURN(bool ns_exists, cat->NamespaceExists(id.ns));
    if (!ns_exists) {
      Status st = cat->CreateNamespace(id.ns, {});
      // Another first write may have made it meanwhile.
      if (!st && st.error().kind != ErrorKind::kAlreadyExists) return Fail(st.error());
    }
    auto made = cat->CreateTable(id, def);
    if (made) {
      loaded = std::move(*made);
      out.created = loaded;
    } else if (made.error().kind == ErrorKind::kAlreadyExists) {
      // Another first write created it meanwhile: write to that table.
      FLOE_ASSIGN_OR_RETURN(loaded, cat->LoadTable(id));
    } else if (auto now = cat->TableExists(id); now && *now) {
      // The same race seen another way: the catalog's location check met
      // the metadata the other first write had just put in the table's
      // folder (a Hadoop catalog refuses that folder as taken).
      FLOE_ASSIGN_OR_RETURN(loaded, cat->LoadTable(id));
    } else {
      return Fail(std::move(made).error());
    }
  }
  out.table = std::make_unique<table::Table>(cat, std::move(loaded));
  out.table->SetOptionOverrides(config.write_properties);  // commit.retry.* of this write
  if (Status st = projector.Bind(out.table->metadata().CurrentSchema()); !st) {
    if (out.created) (void)cat->DropIfUnchanged(*out.created);
    return Fail(st.error().WithContext(id.ToString()));
  }
  out.input_schema = std::move(input_schema);
  out.projector = std::move(projector);
  return out;
}

Status WriteJob::OpenTable(const WriteConfig& config, catalog::Catalog* cat, SchemaPtr input_schema,
                           const WriteJobOptions& options) {
  FLOE_ASSIGN_OR_RETURN(OpenedTable opened, OpenOrCreateTable(config, config.table, cat, std::move(input_schema),
                                                              options.missing_table_hint));
  if (opened.created) cleanup_->TableCreated(cat, *opened.created);
  table_ = std::move(opened.table);
  input_schema_ = std::move(opened.input_schema);
  projector_ = std::move(*opened.projector);
  return Ok();
}

Status WriteJob::OpenWriter(const WriteConfig& config, const WriteJobOptions& options) {
  const iceberg::TableMetadata& meta = table_->metadata();
  // Flink precedence: this job's options, then the table's properties.
  config::Resolver resolver({&config.write_properties, &meta.properties});
  FLOE_ASSIGN_OR_RETURN(writer_options_, table::DataWriterOptions::Resolve(meta, resolver));
  FLOE_ASSIGN_OR_RETURN(overwrite_, resolver.Value(config::keys::kOverwriteEnabled));
  // A table that asks its writers to upsert must not be appended to: keys would
  // be duplicated. Its writes go through the change sink (merge-on-read).
  FLOE_ASSIGN_OR_RETURN(bool upsert, resolver.Value(config::keys::kUpsertEnabled));
  if (upsert) {
    return InvalidArgument("{} is true for table {}: a plain append would duplicate keys; write it with mode "
                           "merge-on-read (--set mode=merge-on-read, with sequence_number_column)",
                           config::keys::kWriteUpsertEnabled.name, table_->id().ToString());
  }
  // write-parallelism (default: the number of cores), resolved with the writer's options.
  pipeline_options_.workers = writer_options_.parquet.parallelism;
  // --branch, else Flink's `branch` write option, else main.
  FLOE_ASSIGN_OR_RETURN(auto branch, resolver.Get(config::keys::kBranch));
  if (!options.branch.empty() && branch && *branch != options.branch) {
    return InvalidArgument("the branch is given twice, as '{}' and as option {}='{}'; give it once", options.branch,
                           config::keys::kBranch.name, *branch);
  }
  branch_ = !options.branch.empty() ? options.branch : branch.value_or("");
  window_ = std::make_unique<AppendWindow>(table_.get(), writer_options_);
  cleanup_->WindowOpened(window_.get());
  return Ok();
}

std::unexpected<Error> WriteJob::Failed(Error e) {
  state_ = State::kFailed;
  cleanup_->Undo();
  return Fail(std::move(e));
}

Status WriteJob::CheckWritable() const {
  switch (state_) {
    case State::kOpen: return Ok();
    case State::kFailed:
      return InvalidArgument(
          "write to {}: the job failed or was aborted; nothing more can be written",
          table_->id().ToString());
    case State::kCommitted:
      return InvalidArgument("write to {}: the job has committed; nothing more can be written",
                             table_->id().ToString());
  }
  return Internal("write job: unknown state");
}

Status WriteJob::WriteBound(const Batch& bound, int64_t first_row) {
  for (size_t i = 0; i < bound.row_kinds.size(); ++i) {
    if (bound.row_kinds[i] != RowKind::kInsert) {
      return Unsupported(
          "row {} is {}: this append write takes INSERT rows only (updates and deletes need "
          "merge-on-read delete files, which are not implemented yet)",
          first_row + static_cast<int64_t>(i), RowKindName(bound.row_kinds[i]));
    }
  }
  return window_->Write(bound);
}

Status WriteJob::Write(const Batch& batch) {
  FLOE_RETURN_IF_ERROR(CheckWritable());
  return Write(Batch(batch));
}

Status WriteJob::Write(Batch&& batch) {
  FLOE_RETURN_IF_ERROR(CheckWritable());
  if (!batch.schema || (batch.schema != input_schema_ && !(*batch.schema == *input_schema_))) {
    return Failed(
        InvalidArgument("write to {}: the batch's schema {} is not the job's input schema {}",
                        table_->id().ToString(), batch.schema ? batch.schema->ToString() : "(none)",
                        input_schema_->ToString())
            .error());
  }
  if (Status st = batch.Validate(); !st) return Failed(st.error());
  const int64_t first_row = rows_ + 1;
  Batch bound;
  if (Status st = projector_->Apply(std::move(batch), &bound, first_row); !st)
    return Failed(st.error());
  if (Status st = WriteBound(bound, first_row); !st) return Failed(st.error());
  rows_ += bound.num_rows;
  return Ok();
}

Result<PipelineStats> WriteJob::Run(const DecodeFn& decode, std::string_view input_name) {
  FLOE_RETURN_IF_ERROR(CheckWritable());
  int64_t written = rows_;  // the writer stage runs on this thread
  auto stats = RunPipeline(
      decode, input_schema_, *projector_,
      [&](const Batch& b) -> Status {
        FLOE_RETURN_IF_ERROR(WriteBound(b, written + 1));
        written += b.num_rows;
        return Ok();
      },
      pipeline_options_);
  if (!stats) return Failed(stats.error().WithContext(input_name));
  rows_ += stats->rows;
  return stats;
}

Result<PipelineStats> WriteJob::Run(format::RowDecoder& decoder, std::string_view input_name) {
  return Run([&decoder](Batch* b) { return decoder.Next(b); }, input_name);
}

Result<WriteResult> WriteJob::Commit(const std::map<std::string, std::string>& summary_properties) {
  FLOE_RETURN_IF_ERROR(CheckWritable());
  auto files = window_->Prepare();
  if (!files) return Failed(std::move(files).error());
  WriteResult result;
  result.table = table_->id().ToString();
  result.rows = rows_;
  result.files = static_cast<int64_t>(files->size());
  for (const auto& f : *files) result.bytes += f.file_size_in_bytes;
  if (files->empty() && !overwrite_) {
    // Nothing to publish; a table this job created stays (it was asked for).
    state_ = State::kCommitted;
    cleanup_->Release();
    return result;
  }
  WindowCommit commit;
  commit.operation = overwrite_ ? WindowOperation::kOverwritePartitions : WindowOperation::kAppend;
  commit.data = &*files;
  commit.branch = branch_;
  commit.summary = {&summary_properties};
  auto committed = CommitWindow(table_.get(), commit);
  if (!committed) {
    Error e = std::move(committed).error().WithContext(table_->id().ToString());
    if (e.kind == ErrorKind::kCommitStateUnknown) {
      // The snapshot may be live: its files and the table must stay.
      state_ = State::kFailed;
      cleanup_->Release();
      return Fail(std::move(e));
    }
    // Known to have failed (a lost race, or an error before the swap).
    return Failed(std::move(e));
  }
  state_ = State::kCommitted;
  cleanup_->Release();
  result.commit = std::move(*committed);
  return result;
}

void WriteJob::Abort() {
  if (state_ == State::kCommitted) return;
  state_ = State::kFailed;
  cleanup_->Undo();
}

}  // namespace floe::sink
