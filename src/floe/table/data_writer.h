/// \file
/// Iceberg data file writers, composed as the architecture's "Writers compose"
/// (ARCHITECTURE.md, STYLE.md habit 4): the Parquet FileWriter -> a rolling
/// writer that opens files under Java's names, rolls them at the target size
/// and turns each finished file into an iceberg::DataFile with its metrics
/// (Iceberg spec: Data File Fields; Java MetricsConfig / ParquetUtil) -> a
/// partitioned writer that routes rows by partition tuple to one rolling
/// writer per open partition. The delete writers (delete_writer.h) reuse the
/// same layers with other schemas and content kinds.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "floe/config/options.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/metrics_config.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file.h"
#include "floe/io/file_io.h"
#include "floe/io/location.h"
#include "floe/parquet/writer.h"
#include "floe/table/partition_key.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"
#include "floe/util/uuid.h"

namespace floe::table {

/// The resolved settings of one table write.
struct DataWriterOptions {
  /// `target-file-size-bytes` > `write.target-file-size-bytes` > the registry's default.
  int64_t target_file_size_bytes = config::DefaultOf(config::keys::kWriteTargetFileSizeBytes);
  /// `write.parquet.*`, with the job's `compression-codec` / `compression-level`.
  parquet::WriterOptions parquet;
  /// `write.metadata.metrics.*`.
  iceberg::MetricsConfig metrics;
  /// `write.data.path`, else `<location>/data`, as stored in metadata (a URI
  /// or an absolute path).
  std::string data_location;
  /// Only Parquet is written.
  iceberg::FileFormat format = iceberg::FileFormat::kParquet;
  /// sort_order_id of data and equality delete files: 0 (unsorted), since
  /// floe writes rows in arrival order.
  std::optional<int32_t> sort_order_id;

  /// Resolves the options of a write to `metadata`'s table. `resolver` holds
  /// the job layers and, last, the table properties (Flink precedence; see
  /// config::Resolver); prefix families (`write.metadata.metrics.column.*`,
  /// `write.parquet.*.column.*`) come from `metadata.properties`. A write
  /// format other than parquet is kUnsupported; bad values are
  /// kInvalidArgument naming the option.
  static Result<DataWriterOptions> Resolve(const iceberg::TableMetadata& metadata,
                                           const config::Resolver& resolver);
};

/// Names and opens the files of one write task, as Java's OutputFileFactory:
/// `<data>/<partition path>/<partition id 5 digits>-<task id>-<operation
/// uuid>-<file count 5 digits>[-<suffix>].parquet`. Files are opened,
/// removed and their folders released through a FileIO. Thread-safe; share
/// one factory between the data and delete writers of a task so names never
/// clash.
class OutputFileFactory {
 public:
  /// Writes through `io` (a table's: Table::io()). `data_location` as stored
  /// in metadata; a `file:` URI or a plain path is recorded as the `file:`
  /// URI of its absolute path.
  OutputFileFactory(io::FileIOPtr io, std::string data_location, int32_t partition_id = 0,
                    int64_t task_id = 0, std::string operation_id = RandomUuid());
  /// Writes to the local file system, other schemes through the prefix
  /// mappings of `mapper` (io::MappedFileIO).
  OutputFileFactory(std::string data_location, LocationMapper mapper = {}, int32_t partition_id = 0,
                    int64_t task_id = 0, std::string operation_id = RandomUuid());

  /// One new file: where metadata records it, where it is written, and the open output.
  struct NewFile {
    std::string location;    ///< file_path for the DataFile (`file:/...` for local files)
    std::string local_path;  ///< the local path written, when the FileIO has one (else empty)
    std::unique_ptr<OutputFile> output;
  };
  /// Opens the next file under `partition_path` (may be empty); `suffix` is
  /// "" for data files and "deletes" for delete files. Creates the missing
  /// folders and remembers them (see ReleaseFolders). When another writer
  /// removes an empty folder between its creation and the open, it is made
  /// again.
  /// `extension` is the file name's ending ("puffin" for deletion vectors).
  Result<NewFile> Open(std::string_view partition_path, std::string_view suffix = {},
                       std::string_view extension = "parquet");

  /// Removes a file this factory opened and was committed (by its location,
  /// or its local path), then ReleaseFolders of it.
  void Remove(const std::string& location);
  /// Removes the folders above `location` (or local path) that this factory created (the
  /// data folder of a new table, partition folders) and that are empty now,
  /// innermost first. Folders that existed before, or that another writer
  /// created, are never removed: a failed write leaves the table's folders
  /// as it found them. (Known gap: when two writes share a new partition
  /// folder and both fail, the folder stays, empty, if its maker gave up
  /// before the other write had removed its file.)
  void ReleaseFolders(const std::string& location);
  /// The folders this factory created and has not removed (tests), as the
  /// FileIO names them (local paths for local files).
  std::vector<std::string> created_folders() const;

  const std::string& data_location() const { return data_location_; }
  const std::string& operation_id() const { return operation_id_; }

 private:
  io::FileIOPtr io_;
  std::string data_location_;
  std::string local_root_;  ///< absolute path of data_location_ when it is local
  bool local_uri_ = true;   ///< data_location_ is file: or a plain path
  int32_t partition_id_;
  int64_t task_id_;
  std::string operation_id_;
  std::atomic<int64_t> count_{0};
  mutable std::mutex mu_;
  std::set<std::string> created_;  ///< folders made by Open, not yet removed (guarded by mu_)
};

/// What kind of content file a writer produces and how its metrics are kept.
struct ContentFileOptions {
  iceberg::DataFileContent content = iceberg::DataFileContent::kData;
  std::vector<int32_t> equality_ids;      ///< equality deletes only
  std::optional<int32_t> sort_order_id;   ///< never for position deletes
  /// Metrics modes that win over the table's configuration, by field id (the
  /// position delete columns keep full bounds: PITFALLS 79).
  std::map<int32_t, iceberg::MetricsMode> metrics_overrides;
};

/// Everything a rolling writer needs that is the same for every file of one
/// schema: built once, shared by all partitions.
class FileSettings {
 public:
  /// Checks the schema maps to Parquet, and puts `iceberg.schema` (the schema
  /// JSON) in the footer metadata.
  static Result<std::shared_ptr<const FileSettings>> Make(SchemaPtr file_schema,
                                                          const DataWriterOptions& options,
                                                          ContentFileOptions content);

  const SchemaPtr& schema() const { return schema_; }
  const parquet::WriterOptions& parquet() const { return parquet_; }
  int64_t target_file_size_bytes() const { return target_; }
  const ContentFileOptions& content() const { return content_; }

  /// The DataFile of a finished Parquet file: counts, sizes, split offsets and
  /// bounds by field id after the metrics modes (leaves inside lists and maps
  /// keep counts only, as Java's ParquetUtil), partition and content fields.
  Result<iceberg::DataFile> ToDataFile(const parquet::WriteResult& result, std::string location,
                                       iceberg::Values partition) const;

 private:
  struct Leaf {
    std::string name;  ///< full Iceberg column name ("loc.lat", "tags.element")
    TypePtr type;
    bool repeated = false;  ///< inside a list or map
    iceberg::MetricsMode mode;
  };
  SchemaPtr schema_;
  parquet::WriterOptions parquet_;
  int64_t target_ = 0;
  ContentFileOptions content_;
  std::unordered_map<int32_t, Leaf> leaves_;
};

/// Writes the rows of one partition into files of about the target size.
/// Files are opened on the first row (no empty files) and rolled when the
/// Parquet writer's estimated size reaches the target; a large batch is cut
/// into slices so a file overshoots by at most about one slice.
class RollingFileWriter {
 public:
  RollingFileWriter(std::shared_ptr<OutputFileFactory> factory,
                    std::shared_ptr<const FileSettings> settings, iceberg::Values partition,
                    std::string partition_path);
  ~RollingFileWriter();
  RollingFileWriter(const RollingFileWriter&) = delete;
  RollingFileWriter& operator=(const RollingFileWriter&) = delete;

  /// Appends rows (the settings' schema). On error, call Abort().
  Status Write(const Batch& batch);
  /// Closes the open file; returns every file written, in order.
  Result<std::vector<iceberg::DataFile>> Close();
  /// Drops the open file and removes every file already finished (also
  /// after Close). Destroying an unclosed writer aborts it.
  void Abort();

  const iceberg::Values& partition() const { return partition_; }
  /// Rows written so far (all files).
  int64_t rows_written() const { return rows_written_; }

 private:
  Status WriteSlice(const Batch& batch);
  Status OpenFile();
  Status CloseFile();

  std::shared_ptr<OutputFileFactory> factory_;
  std::shared_ptr<const FileSettings> settings_;
  iceberg::Values partition_;
  std::string partition_path_;
  std::unique_ptr<parquet::FileWriter> writer_;
  std::string location_;  ///< of the open file
  int64_t rows_in_file_ = 0;
  int64_t rows_written_ = 0;
  std::vector<iceberg::DataFile> done_;
  std::vector<std::string> done_locations_;
  bool closed_ = false;
};

/// Routes rows to one RollingFileWriter per partition tuple (a fan-out
/// writer: every partition seen stays open until Close). Used for data files
/// and equality-delete files. Rows of a partition that arrive in small groups
/// are gathered (in arrival order) into a pending batch of up to
/// `kPendingRows` rows before they reach the Parquet writer.
class PartitionedWriter {
 public:
  /// Rows gathered per partition before a write to its file.
  static constexpr int64_t kPendingRows = 4096;

  /// `table_schema` names the partition sources (for partition paths).
  static Result<std::unique_ptr<PartitionedWriter>> Make(std::shared_ptr<OutputFileFactory> factory,
                                                         std::shared_ptr<const FileSettings> settings,
                                                         const iceberg::PartitionSpec& spec,
                                                         SchemaPtr table_schema);
  ~PartitionedWriter();

  /// Writes rows whose partition tuples are computed from the rows themselves
  /// (the partition source columns must be in the file schema).
  Status Write(const Batch& rows);
  /// Writes `rows`, taking row i's partition from row i of `partition_source`
  /// (a batch of the table schema with as many rows), e.g. equality deletes
  /// of only the key columns, partitioned by the full rows they delete.
  Status Write(const Batch& rows, const Batch& partition_source);
  /// Writes rows that all belong to `partition` (a tuple of the spec's type).
  Status WriteToPartition(const iceberg::Values& partition, const Batch& rows);

  /// Closes every partition; returns all files (partitions in order of first
  /// appearance). On error every file is removed.
  Result<std::vector<iceberg::DataFile>> Close();
  /// Removes every file written so far, also after Close (a commit that is
  /// known to have failed). Destroying an unclosed writer aborts it.
  void Abort();

  size_t open_partitions() const { return writers_.size(); }
  const iceberg::PartitionSpec& spec() const { return spec_; }

 private:
  PartitionedWriter() = default;
  /// The index of the partition's writer (and pending batch), made on first use.
  Result<size_t> WriterFor(const iceberg::Values& partition);
  Status FlushPending(size_t index);
  Status WriteGroups(const Batch& rows, const std::vector<PartitionGroup>& groups);
  Result<const PartitionKeyer*> KeyerFor(const SchemaPtr& schema);

  std::shared_ptr<OutputFileFactory> factory_;
  std::shared_ptr<const FileSettings> settings_;
  iceberg::PartitionSpec spec_;
  SchemaPtr table_schema_;
  std::vector<std::pair<SchemaPtr, PartitionKeyer>> keyers_;
  std::unordered_map<iceberg::Values, size_t, PartitionTupleHash> index_;
  std::vector<std::unique_ptr<RollingFileWriter>> writers_;
  std::vector<Batch> pending_;  ///< per writer: rows not yet handed to it
  bool closed_ = false;
};

/// The data writer of a table: a PartitionedWriter for the table's current
/// schema and default spec, data content, the table's sort order id.
Result<std::unique_ptr<PartitionedWriter>> MakeDataWriter(const iceberg::TableMetadata& metadata,
                                                          const DataWriterOptions& options,
                                                          std::shared_ptr<OutputFileFactory> factory);

}  // namespace floe::table
