/// \file
/// Publishing a window: one snapshot of a destination's files, the same for
/// every write path (the change sink's windows, the one-commit WriteJob).
/// Each kind of snapshot is its own operation class (table/append_files.h,
/// overwrite_files.h, row_delta.h); this layer adds what a sink needs on top:
/// the summary properties, the branch, the exactly-once token (sink_token.h)
/// checked inside every commit attempt, and the settling of a commit whose
/// outcome is unknown.
///
/// Outcomes: the snapshot landed (its id); known to have failed (any error
/// but kCommitStateUnknown: the caller removes the window's files); or
/// unknown (kCommitStateUnknown: the snapshot may be live, so the files must
/// stay). With a token an unknown outcome is settled by looking for the
/// token in the table: present means the commit landed, absent that it
/// failed (kCommitFailed).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/iceberg/manifest.h"
#include "floe/table/deletion_vector_writer.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::sink {

/// The snapshot a window becomes.
enum class WindowOperation : uint8_t {
  kAppend,               ///< data files added (AppendFiles)
  kOverwritePartitions,  ///< a dynamic overwrite of the partitions written (OverwriteFiles)
  kRowDelta,             ///< data and delete files in one snapshot (RowDelta)
};

/// The exactly-once token a commit carries.
struct WindowToken {
  std::string sink_id;
  int64_t commit_number = 0;
  int64_t position = 0;          ///< `floe.input-position`
  std::string source_position;   ///< `floe.source-position` (empty: none stored)
  /// Several processes share the sink_id (a Kafka consumer group, each
  /// process with its own partitions): every attempt takes its commit number
  /// and source position from the newest token of the sink in the table it
  /// read — the number after it, and `shared(its stored source position)`
  /// (empty when the table has none), which merges this process's part
  /// into it or fails when another process committed that part meanwhile.
  /// `commit_number` and `source_position` above are then unused, and the
  /// number and snapshot id of the attempt made last are written to
  /// `*shared_number` and `*shared_snapshot`.
  std::function<Result<std::string>(std::string_view newest_stored)> shared;
  int64_t* shared_number = nullptr;
  int64_t* shared_snapshot = nullptr;
};

/// One window's snapshot.
struct WindowCommit {
  WindowOperation operation = WindowOperation::kAppend;
  const std::vector<iceberg::DataFile>* data = nullptr;
  const std::vector<iceberg::DataFile>* deletes = nullptr;  ///< kRowDelta only
  /// The spec of the delete files (an unpartitioned spec for global deletes);
  /// unset: the table's default spec.
  std::optional<int32_t> delete_spec_id;
  std::string branch;  ///< empty: main
  /// Summary properties, set in order (a later one wins).
  std::vector<const std::map<std::string, std::string>*> summary;
  std::optional<WindowToken> token;
  /// kRowDelta: position delete files, each with the spec of its data file.
  const std::vector<std::pair<iceberg::DataFile, int32_t>>* position_deletes = nullptr;
  /// kRowDelta, format version 3: the deletion vectors (added, and the live
  /// ones they replace), written against the table as loaded.
  const table::DeletionVectorUpdate* vectors = nullptr;
  /// The data files the position deletes refer to, and the snapshot of the
  /// branch they were resolved against (the key index's): an attempt on
  /// another head checks that every one is still live (Java's
  /// RowDelta.validateDataFilesExist) and fails the commit when another
  /// writer removed one (compaction, overwrite).
  const std::vector<std::string>* referenced = nullptr;
  std::optional<int64_t> read_snapshot;
  /// With `referenced`: the sorted hashes of the keys the window changed and
  /// the key's field ids; an attempt on another head fails when a data file
  /// another writer added since `read_snapshot` holds one of them (the
  /// window's deletes, resolved without that row, would leave two rows).
  const std::vector<uint64_t>* keys = nullptr;
  const std::vector<int32_t>* eq_ids = nullptr;
};

/// Commits `commit` to `table` (see the file comment). On success the commit
/// result; after a settled unknown outcome only its snapshot id is known.
/// Errors carry no table name (the caller adds it).
Result<table::CommitResult> CommitWindow(table::Table* table, const WindowCommit& commit);

}  // namespace floe::sink
