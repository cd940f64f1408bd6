/// \file
/// The append window of one destination, the top of the append writer stack
/// (files -> rolling -> data writer -> partitioned, table/data_writer.h ->
/// this window): rows go to one data writer per shard, each with its own task
/// id so that file names never clash. Used by the change sink in mode append
/// and by the one-commit WriteJob (one shard).
///
/// A window's life: Write -> Prepare (the files are closed, nothing is
/// published) -> the commit -> Release (committed, or its outcome unknown:
/// the files stay) or Abort (known to have failed, or given up: the files
/// and the folders the window made are removed, also after Prepare).
/// Destroying a window that was neither released nor prepared aborts it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "floe/iceberg/manifest.h"
#include "floe/table/data_writer.h"
#include "floe/table/table.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::sink {

class AppendWindow {
 public:
  /// A window of `shards` writers (at least one) into `table` (not owned;
  /// its current schema and default spec), opened on first use.
  AppendWindow(const table::Table* table, table::DataWriterOptions options, int shards = 1);
  ~AppendWindow();
  AppendWindow(const AppendWindow&) = delete;
  AppendWindow& operator=(const AppendWindow&) = delete;

  /// Writes rows of the table schema to shard 0.
  Status Write(const Batch& rows);
  /// Writes row i to shard `shard_of[i]`.
  Status Write(const Batch& rows, std::span<const int64_t> shard_of);

  /// Closes every writer: the window's data files, nothing published. On
  /// error every file is removed.
  Result<std::vector<iceberg::DataFile>> Prepare();
  /// Removes every file written (also after Prepare).
  void Abort();
  /// Keeps the files (the commit landed, or may have).
  void Release();

  /// Whether a writer was opened (rows were written).
  bool opened() const;
  int64_t rows() const { return rows_; }
  const table::DataWriterOptions& options() const { return options_; }

 private:
  Result<table::PartitionedWriter*> WriterFor(size_t shard);

  const table::Table* table_;
  table::DataWriterOptions options_;
  std::vector<std::unique_ptr<table::PartitionedWriter>> writers_;  ///< one per shard, made on first use
  int64_t rows_ = 0;
};

}  // namespace floe::sink
