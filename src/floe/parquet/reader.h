/// \file
/// The Parquet file reader: footer, schema mapping, projection by field id
/// (Iceberg spec: Column Projection), row-group skipping on statistics, page
/// decoding and nested assembly into floe Batches, with the file position of
/// each batch's first row (for position deletes).
///
/// Untrusted input: every size and count in the footer and page headers is
/// checked against the bytes present before anything is allocated; failures
/// are kCorrupt errors naming the file, row group, column and page.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "floe/io/file.h"
#include "floe/parquet/metadata.h"
#include "floe/types/column_vector.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::parquet {

/// Options of a FileReader.
struct ReaderOptions {
  /// The schema to read (Iceberg projection: fields matched by id, nested
  /// too; absent fields read as null; int->long, float->double and decimal
  /// widening allowed). Null = the file's whole schema.
  SchemaPtr projection;
  /// Match fields by name instead of id (files written without field ids).
  bool match_by_name = false;
  /// Rows per batch at most (batches never span row groups).
  int64_t batch_rows = 65536;
  /// Called once per row group with its statistics; true = skip the group.
  std::function<bool(const RowGroupStats&)> skip_row_group;
};

class FileReaderImpl;

/// Reads one Parquet file as floe Batches.
class FileReader {
 public:
  /// Opens the file, decodes and checks the footer and maps the schema and
  /// the projection. An incompatible projected type is an error naming the
  /// file, field id, name, file type and requested type.
  static Result<std::unique_ptr<FileReader>> Open(std::unique_ptr<InputFile> file,
                                                  ReaderOptions options = {});
  ~FileReader();

  /// The file's schema in floe types (ids from the file; fresh ids for fields
  /// without one).
  SchemaPtr file_schema() const;
  /// The schema of the batches (the projection, or the file schema).
  SchemaPtr read_schema() const;
  /// True when the file's schema carries Parquet field ids.
  bool has_field_ids() const;
  int64_t num_rows() const;
  int num_row_groups() const;
  const std::vector<std::pair<std::string, std::string>>& key_value_metadata() const;
  /// Statistics of row group i (as given to skip_row_group).
  const RowGroupStats& row_group_stats(int i) const;

  /// Reads the next batch into `out` (cleared first). Returns false at the end.
  Result<bool> Next(Batch* out);
  /// File position of the first row of the last batch returned.
  int64_t batch_first_row() const;

  /// The footer as JSON text (for `floe parquet meta`): file, schema, row
  /// groups, column chunks with encodings, codecs, decoded statistics, sizes,
  /// page index and bloom filter offsets.
  std::string DescribeMetadata() const;

 private:
  explicit FileReader(std::unique_ptr<FileReaderImpl> impl);
  std::unique_ptr<FileReaderImpl> impl_;
};

}  // namespace floe::parquet
