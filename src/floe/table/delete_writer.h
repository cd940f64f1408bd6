/// \file
/// Iceberg v2 delete file writers (Iceberg spec: Position Delete Files,
/// Equality Delete Files, Data File Fields; PITFALLS 75-79), built from the
/// same layers as the data writer (data_writer.h): rolling Parquet files under
/// Java's names with a `-deletes` suffix, one set per partition. These are the
/// pieces the CDC sink combines: rows written and changed within one commit
/// become position deletes, keys that live in earlier snapshots become
/// equality deletes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "floe/iceberg/manifest.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/table/data_writer.h"
#include "floe/table/partition_key.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"
#include "floe/iceberg/reserved_ids.h"

namespace floe::table {

/// Reserved field ids of the position delete columns (Iceberg spec: Reserved Field IDs).
using iceberg::kDeleteFilePathFieldId;
using iceberg::kDeleteFilePosFieldId;

/// The position delete schema: `file_path` (required string), `pos`
/// (required long). The optional `row` column is not written (PITFALLS 75).
SchemaPtr PositionDeleteSchema();

/// The schema of `schema` narrowed to the fields `field_ids` (structs on the
/// way keep only the selected children); field order follows `schema`.
/// kNotFound for an id that is not in the schema.
Result<SchemaPtr> ProjectSchema(const Schema& schema, const std::vector<int32_t>& field_ids);

/// The columns of `rows` that `projected` (a ProjectSchema of rows' schema)
/// keeps, matched by field id. Row kinds and sequence numbers are dropped.
Result<Batch> ProjectBatch(const Batch& rows, SchemaPtr projected);

/// Collects (data file path, position) pairs per partition and writes them,
/// sorted by path then position and without duplicates, into position delete
/// files (content 1, null sort_order_id, full bounds on both columns, and
/// `referenced_data_file` when every row of a file names one data file).
/// Deletes are held in memory until Close.
class PositionDeleteWriter {
 public:
  /// `spec` is the spec of the data files the deletes refer to; partition
  /// tuples passed to Delete are of its partition type.
  static Result<std::unique_ptr<PositionDeleteWriter>> Make(std::shared_ptr<OutputFileFactory> factory,
                                                            const DataWriterOptions& options,
                                                            const iceberg::PartitionSpec& spec,
                                                            SchemaPtr table_schema);
  ~PositionDeleteWriter();

  /// Deletes row `pos` (0-based) of the data file `data_file_path` (exactly
  /// the file_path of its DataFile), which lives in `partition`.
  Status Delete(std::string_view data_file_path, int64_t pos, const iceberg::Values& partition = {});
  /// Deletes several rows of one data file.
  Status Delete(std::string_view data_file_path, std::span<const int64_t> positions,
                const iceberg::Values& partition = {});

  /// Deletes buffered so far (duplicates included).
  int64_t buffered() const { return buffered_; }

  /// Writes every buffered delete and returns the delete files.
  Result<std::vector<iceberg::DataFile>> Close();
  /// Drops the buffer and removes every file written so far.
  void Abort();

 private:
  PositionDeleteWriter() = default;
  Result<std::map<std::string, std::vector<int64_t>, std::less<>>*> BufferFor(
      const iceberg::Values& partition);

  std::unique_ptr<PartitionedWriter> writer_;
  iceberg::PartitionSpec spec_;
  SchemaPtr table_schema_;
  struct PartitionBuffer {
    iceberg::Values partition;
    std::map<std::string, std::vector<int64_t>, std::less<>> positions;  ///< by path, bytewise order
  };
  std::vector<PartitionBuffer> buffers_;
  std::unordered_map<iceberg::Values, size_t, PartitionTupleHash> index_;
  int64_t buffered_ = 0;
  bool closed_ = false;
};

/// Writes equality delete rows (content 2, `equality_ids`), partitioned like
/// the table's data. The file schema is the equality columns by default, or
/// any projection of the table schema that contains them (e.g. full rows).
class EqualityDeleteWriter {
 public:
  /// `equality_ids` must name primitive, non-float columns of `table_schema`
  /// outside lists and maps (PITFALLS 78). `delete_schema` null means
  /// ProjectSchema(table_schema, equality_ids).
  static Result<std::unique_ptr<EqualityDeleteWriter>> Make(
      std::shared_ptr<OutputFileFactory> factory, const DataWriterOptions& options,
      const iceberg::PartitionSpec& spec, SchemaPtr table_schema, std::vector<int32_t> equality_ids,
      SchemaPtr delete_schema = nullptr, std::optional<int32_t> sort_order_id = std::nullopt);

  /// The schema delete batches must have.
  const SchemaPtr& delete_schema() const { return delete_schema_; }
  const std::vector<int32_t>& equality_ids() const { return equality_ids_; }

  /// Writes delete rows; their partition comes from the rows themselves (the
  /// partition source columns must be in the delete schema).
  Status Write(const Batch& deletes) { return writer_->Write(deletes); }
  /// Writes delete rows partitioned by `partition_source` (rows of the table
  /// schema, as many as `deletes`), e.g. the full rows being deleted.
  Status Write(const Batch& deletes, const Batch& partition_source) {
    return writer_->Write(deletes, partition_source);
  }
  /// Writes delete rows of one known partition.
  Status WriteToPartition(const iceberg::Values& partition, const Batch& deletes) {
    return writer_->WriteToPartition(partition, deletes);
  }

  Result<std::vector<iceberg::DataFile>> Close() { return writer_->Close(); }
  /// Removes every file written so far.
  void Abort() { writer_->Abort(); }

 private:
  EqualityDeleteWriter() = default;
  std::unique_ptr<PartitionedWriter> writer_;
  SchemaPtr delete_schema_;
  std::vector<int32_t> equality_ids_;
};

}  // namespace floe::table
