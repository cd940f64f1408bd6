/// \file
/// One table write as a library job, the same for every front end (`floe
/// write`, the SQL front end, sink plugins): open the table (or create it on
/// the first write), write batches, commit one snapshot. Options are resolved
/// once, at Open, with Flink's precedence (this job's `write_properties`, then
/// the table's properties; config::Resolver).
///
/// A failed write publishes nothing. All of its cleanup is one guard
/// (WriteJob::Cleanup) that runs on any failed step, on Abort() and on
/// destruction without a commit: the data writer is aborted (its files and
/// the folders it made are removed), and a table this job created is dropped
/// again while no other writer has committed to it (Catalog::DropIfUnchanged).
/// After a commit known to have failed (kCommitFailed, or an error before the
/// swap) the same happens; after a commit whose outcome is unknown
/// (kCommitStateUnknown) nothing is removed, since the snapshot may be live.
///
/// Row kinds: batches carry them in `Batch::row_kinds` (empty = all INSERT).
/// This job appends: it accepts INSERT rows only and refuses any other kind
/// (UPDATE_BEFORE, UPDATE_AFTER, DELETE) with kUnsupported, since writing them
/// needs merge-on-read delete files, which the CDC sink will add on this API.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/format/format_registry.h"
#include "floe/iceberg/manifest.h"
#include "floe/sink/append_window.h"
#include "floe/sink/pipeline.h"
#include "floe/sink/projection.h"
#include "floe/sink/write_config.h"
#include "floe/table/data_writer.h"
#include "floe/table/table.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::sink {

/// A table opened for a write (created when missing), with the projection
/// of the input bound to it.
struct OpenedTable {
  std::unique_ptr<table::Table> table;
  /// Set when this call created the table (for Catalog::DropIfUnchanged).
  std::optional<catalog::LoadedTable> created;
  std::optional<Projector> projector;  ///< always set on success
  SchemaPtr input_schema;  ///< the given one, or the table's schema
};

/// Opens `name` through `catalog`, creating it (and its namespace) from the
/// projected `input_schema` with the config's partition_fields, sort_fields
/// and table_properties when it does not exist; `adjust` may amend the new
/// table's definition (the change sink makes its key columns the identifier
/// fields). When another first write creates it meanwhile, that table is
/// used. `input_schema` null means the table's schema (the table must exist;
/// otherwise kNotFound with `missing_table_hint`).
Result<OpenedTable> OpenOrCreateTable(const WriteConfig& config, const std::string& name,
                                      catalog::Catalog* catalog, SchemaPtr input_schema,
                                      std::string_view missing_table_hint,
                                      const std::function<Status(catalog::TableDefinition*)>& adjust = {});

/// What a front end adds to the WriteConfig.
struct WriteJobOptions {
  /// Commit to this branch (created from main's head when missing); empty
  /// commits to main.
  std::string branch;
  /// How to give a schema, for the error when the table does not exist and
  /// no input schema was given ("table db.t does not exist; <hint>").
  std::string missing_table_hint = "give an input schema to create it";
};

/// What a committed write did.
struct WriteResult {
  std::string table;  ///< the identifier, as `ns.name`
  int64_t rows = 0;   ///< rows written
  int64_t files = 0;  ///< data files written
  int64_t bytes = 0;  ///< their total size
  /// The snapshot; nullopt when nothing was committed (an empty write that
  /// does not overwrite).
  std::optional<table::CommitResult> commit;
};

/// One write job. Open, Write / Run, then Commit or Abort.
class WriteJob {
 public:
  /// Opens a write to `config.table` through `catalog` (not owned; it must
  /// outlive the job). `input_schema` types the rows given to Write / Run;
  /// null means the table's current schema, and the table must exist. A
  /// missing table is created from the projected input schema with
  /// `partition_fields`, `sort_fields` and `table_properties` (its namespace
  /// too); when another first write creates it meanwhile, this one appends
  /// to theirs. Then the projection is bound to the table schema, the options
  /// are resolved and the data writer is opened. On any error, a table this
  /// call created is dropped again.
  static Result<std::unique_ptr<WriteJob>> Open(const WriteConfig& config,
                                                catalog::Catalog* catalog, SchemaPtr input_schema,
                                                WriteJobOptions options = {});
  /// The same, opening the catalog from `config.catalog_name` and
  /// `config.catalog_properties` (owned by the job).
  static Result<std::unique_ptr<WriteJob>> Open(const WriteConfig& config, SchemaPtr input_schema,
                                                WriteJobOptions options = {});

  /// Aborts the write unless it was committed (see the file comment).
  ~WriteJob();
  WriteJob(const WriteJob&) = delete;
  WriteJob& operator=(const WriteJob&) = delete;

  /// Writes rows of the input schema (projected and bound to the table, then
  /// routed to partition files). A row kind other than INSERT is
  /// kUnsupported. Any error aborts the job: its files are removed, a table
  /// it created is dropped, and later calls fail.
  Status Write(const Batch& batch);
  /// As Write(const Batch&), moving the columns instead of copying them.
  Status Write(Batch&& batch);

  /// Runs decode -> project -> write (sink/pipeline.h, `write-parallelism`
  /// workers) until `decode` reports the end of the input. `decode` fills
  /// batches of input_schema(). Errors are prefixed by `input_name` and
  /// abort the job as in Write. Returns the rows and batches of this run.
  Result<PipelineStats> Run(const DecodeFn& decode, std::string_view input_name);
  /// Run over a decoder from the format registry.
  Result<PipelineStats> Run(format::RowDecoder& decoder, std::string_view input_name);

  /// Closes the data files and commits them as one snapshot: an append, or
  /// with `overwrite-enabled` a dynamic overwrite of the partitions written
  /// (an unpartitioned table: all of it). `summary_properties` go into the
  /// snapshot summary. An empty write commits nothing unless it overwrites.
  /// A failed commit is kCommitFailed (cleaned up) or kCommitStateUnknown
  /// (files kept); errors are prefixed by the table name.
  Result<WriteResult> Commit(const std::map<std::string, std::string>& summary_properties = {});

  /// Gives the write up now: removes its files and drops a table it created.
  /// Does nothing after a commit.
  void Abort();

  /// The schema that Write and Run take.
  const SchemaPtr& input_schema() const { return input_schema_; }
  const catalog::TableIdentifier& id() const { return table_->id(); }
  const table::Table& table() const { return *table_; }
  /// Whether Open created the table.
  bool created_table() const;
  /// Rows written so far.
  int64_t rows() const { return rows_; }
  /// The resolved options.
  const table::DataWriterOptions& writer_options() const { return writer_options_; }
  bool overwrite() const { return overwrite_; }
  const PipelineOptions& pipeline_options() const { return pipeline_options_; }

  class Cleanup;

 private:
  WriteJob();
  /// Opens the table, creating it when needed (recorded in cleanup_).
  Status OpenTable(const WriteConfig& config, catalog::Catalog* catalog, SchemaPtr input_schema,
                   const WriteJobOptions& options);
  /// Resolves the options and opens the data writer.
  Status OpenWriter(const WriteConfig& config, const WriteJobOptions& options);
  /// Checks the row kinds and hands a bound batch to the data writer.
  Status WriteBound(const Batch& bound, int64_t first_row);
  /// Fails the job: cleans up and returns `e`.
  std::unexpected<Error> Failed(Error e);
  /// kInvalidArgument unless the job can still take rows.
  Status CheckWritable() const;

  enum class State : uint8_t { kOpen, kFailed, kCommitted };

  std::unique_ptr<catalog::Catalog> owned_catalog_;  ///< when Open opened it
  std::unique_ptr<table::Table> table_;
  SchemaPtr input_schema_;
  std::optional<Projector> projector_;
  table::DataWriterOptions writer_options_;
  bool overwrite_ = false;
  std::string branch_;
  PipelineOptions pipeline_options_;
  std::unique_ptr<AppendWindow> window_;
  int64_t rows_ = 0;
  State state_ = State::kOpen;
  /// Declared last, so destroyed first: it undoes the write while the
  /// writer, the table and the catalog it refers to are still alive.
  std::unique_ptr<Cleanup> cleanup_;
};

}  // namespace floe::sink
