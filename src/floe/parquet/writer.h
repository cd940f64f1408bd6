/// \file
/// The Parquet file writer: floe Batches in, one Parquet file out (Parquet format
/// README "File Format"; Iceberg spec Appendix A for the type mapping). Options use
/// Iceberg's `write.parquet.*` table-property names. The footer, page headers and
/// everything Thrift stay in the .cc files.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/config/options.h"
#include "floe/io/file.h"
#include "floe/types/column_vector.h"
#include "floe/types/type.h"
#include "floe/util/codec.h"
#include "floe/util/status.h"

namespace floe::parquet {

/// How the values of one column are encoded.
enum class ColumnEncoding : uint8_t {
  kDefault,          ///< dictionary when dictionary-enabled, else plain
  kPlain,            ///< PLAIN
  kDictionary,       ///< RLE_DICTIONARY, PLAIN fallback past dict-size-bytes
  kDelta,            ///< DELTA_BINARY_PACKED (int32/int64) or DELTA_LENGTH_BYTE_ARRAY
  kByteStreamSplit,  ///< BYTE_STREAM_SPLIT (float, double, int32, int64, fixed)
};

/// Data page header version.
enum class PageVersion : uint8_t { kV1, kV2 };

/// Writer settings. Column keys (`bloom_filter_columns`, `column_encodings`) are
/// Iceberg column names, dotted for nested fields ("a.b"), as in Iceberg's properties.
struct WriterOptions {
  // Defaults are the registry's (config/options.cc), read once.
  int64_t row_group_size_bytes = config::DefaultOf(config::keys::kParquetRowGroupSizeBytes);
  int64_t page_size_bytes = config::DefaultOf(config::keys::kParquetPageSizeBytes);
  int64_t page_row_limit = config::DefaultOf(config::keys::kParquetPageRowLimit);
  int64_t dict_size_bytes = config::DefaultOf(config::keys::kParquetDictSizeBytes);
  Codec codec = Codec::kZstd;                ///< write.parquet.compression-codec (the registry's default)
  int compression_level = 0;                 ///< write.parquet.compression-level (0 = default)
  std::map<std::string, bool> bloom_filter_columns;   ///< ...bloom-filter-enabled.column.<col>
  std::map<std::string, double> bloom_filter_fpp;     ///< ...bloom-filter-fpp.column.<col>
  int64_t bloom_filter_max_bytes = config::DefaultOf(config::keys::kParquetBloomFilterMaxBytes);
  PageVersion page_version = PageVersion::kV1;  ///< write.parquet.page-version (v1|v2)
  bool dictionary_enabled = true;               ///< write.parquet.dictionary-enabled
  std::map<std::string, ColumnEncoding> column_encodings;  ///< ...encoding.column.<col>
  bool write_page_index = true;  ///< ColumnIndex + OffsetIndex
  bool write_statistics = true;  ///< chunk and page statistics
  /// Footer key/value metadata (the Iceberg layer puts `iceberg.schema` here).
  std::map<std::string, std::string> key_value_metadata;
  /// Rows the writer takes from a batch at a time (bounds how far a page or a row group
  /// may overshoot its size).
  int64_t write_batch_rows = 4096;
  /// Threads that encode the file (`write-parallelism`): 1 keeps everything on the
  /// caller's thread; N > 1 adds N - 1 threads (15 at most) that compress pages (and
  /// serialize their headers) while the caller encodes. The file is byte-identical for
  /// every N.
  int parallelism = 1;

  /// Reads `write.parquet.*` table properties; other keys are ignored. An unknown
  /// `write.parquet.` key is an error that names it and lists the valid ones; a bad
  /// value names the key and the value.
  static Result<WriterOptions> FromProperties(const std::map<std::string, std::string>& props);
  /// Reads the Parquet options through a resolver (job options over table
  /// properties over the registry's defaults): `write.parquet.*`, and the
  /// job's `compression-codec` / `compression-level`.
  static Result<WriterOptions> FromResolver(const config::Resolver& resolver);
};

/// Metrics of one leaf column over the whole file, for Iceberg's data_file fields.
struct ColumnMetrics {
  int32_t field_id = 0;
  std::vector<std::string> path;  ///< Parquet path_in_schema
  int64_t compressed_size = 0;    ///< column_sizes: summed chunk total_compressed_size
  int64_t value_count = 0;        ///< value_counts: level entries, nulls included
  int64_t null_count = 0;
  std::optional<int64_t> nan_count;  ///< float/double only
  /// Iceberg single-value binary serialization (spec Appendix D), untruncated; absent
  /// when the column has no non-null, non-NaN value.
  std::optional<std::string> lower_bound, upper_bound;
};

/// What a finished file holds.
struct WriteResult {
  int64_t file_size_bytes = 0;
  int64_t num_rows = 0;
  std::vector<ColumnMetrics> columns;     ///< one per leaf, in schema order
  std::vector<int64_t> row_group_offsets;  ///< file offset of each row group (split offsets)
};

class FileWriterImpl;

/// Writes one Parquet file. Not thread-safe (its compression threads are its own and
/// end with it). Memory: the encoded pages of one row group, the dictionaries, and at
/// most 32 pages (64 MiB) waiting for compression.
class FileWriter {
 public:
  /// Starts a file on `out` (writes the leading magic).
  static Result<std::unique_ptr<FileWriter>> Open(std::unique_ptr<OutputFile> out,
                                                  SchemaPtr schema, WriterOptions options);
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  /// Appends the rows of `batch`, whose columns must match the schema (checked:
  /// layout, nulls in required fields, decimal precision). On error nothing of this
  /// batch is guaranteed; the caller should Abort().
  Status Write(const Batch& batch);
  /// Bytes written so far plus an estimate of what is buffered (for rolling
  /// files): buffered bytes not compressed yet count at the compression ratio
  /// each column had so far in this file (1 before any page was compressed).
  int64_t EstimatedFileSize() const;
  /// Compresses every column's open page and pages in flight and measures
  /// its dictionary's ratio, so that EstimatedFileSize measures rather than
  /// estimates (a rolling writer calls it before it closes a file on the
  /// estimate). Costs short pages: call it rarely.
  Status SettlePages();
  /// Flushes the last row group, writes page indexes, bloom filters and the footer,
  /// and commits the output file.
  Result<WriteResult> Close();
  /// Drops everything (stops and joins the compression threads); the output file is
  /// not created.
  void Abort();

 private:
  explicit FileWriter(std::unique_ptr<FileWriterImpl> impl);
  std::unique_ptr<FileWriterImpl> impl_;
};

}  // namespace floe::parquet
