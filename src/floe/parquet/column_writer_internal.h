/// \file
/// Column chunk writers (internal to the parquet module): the shredder that turns a
/// top-level ColumnVector into definition/repetition levels and value positions for
/// one leaf (Parquet README "Nested Encoding"; PITFALLS 11-13), and the per-type chunk
/// writers that encode values into pages (template + policy per physical type, see
/// column_writer.cc). Shredding and value encoding are kept apart: a chunk writer only
/// sees levels and value positions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "floe/parquet/bloom_filter.h"
#include "floe/parquet/page_pool_internal.h"
#include "floe/parquet/schema_mapping.h"
#include "floe/parquet/thrift_internal.h"
#include "floe/parquet/writer.h"
#include "floe/types/column_vector.h"
#include "floe/util/codec.h"

namespace floe::parquet {

/// The levels of one leaf for one batch.
struct LeafLevels {
  const ColumnVector* leaf = nullptr;  ///< the vector holding the leaf's values
  /// True when level i is value i of `leaf` and rows are levels (flat, no nulls);
  /// `def` is then empty (every level is max_def).
  bool identity = false;
  int64_t num_rows = 0;
  std::vector<int16_t> def;        ///< empty when max_def == 0 or identity
  std::vector<int16_t> rep;        ///< empty when max_rep == 0
  std::vector<int64_t> positions;  ///< index in `leaf` of each present value (not identity)
  std::vector<int64_t> row_level_start;  ///< num_rows + 1 entries (not identity)
  std::vector<int64_t> row_value_start;  ///< num_rows + 1 entries (not identity)
  int64_t num_levels() const {
    return identity ? num_rows : row_level_start.empty() ? 0 : row_level_start.back();
  }
};

/// Shreds leaf `leaf` out of the top-level column `top` (num_rows rows). Fails when
/// a required field holds a null where its parents are present.
Status ShredLeaf(const LeafColumn& leaf, const ColumnVector& top, int64_t num_rows,
                 LeafLevels* out);

/// Settings of one column chunk writer.
struct ColumnWriterConfig {
  const LeafColumn* leaf = nullptr;
  ColumnEncoding encoding = ColumnEncoding::kPlain;  ///< resolved (never kDefault)
  PageVersion page_version = PageVersion::kV1;
  int64_t page_size_bytes = 1 << 20;
  int64_t page_row_limit = 20000;
  int64_t dict_size_bytes = 2 << 20;
  Codec codec = Codec::kUncompressed;
  PagePool* pool = nullptr;  ///< compresses the pages; shared by the file's columns
  bool statistics = true;
  bool page_index = true;
  bool bloom_filter = false;
  double bloom_fpp = 0.01;
  int64_t bloom_max_bytes = 1 << 20;
};

/// Bytes owned by someone else.
struct ByteSpan {
  const uint8_t* data = nullptr;
  int64_t size = 0;
};

/// A finished column chunk, offsets relative to the chunk's first byte. The bytes
/// stay valid until the next call of the chunk writer's Write.
struct ChunkOutput {
  const uint8_t* dictionary_data = nullptr;  ///< header + body; none without dictionary
  int64_t dictionary_size = 0;
  std::vector<ByteSpan> data_pages;  ///< header + body of each data page, in order
  format::ColumnMetaData meta;     ///< offsets relative; sizes final
  format::OffsetIndex offset_index;  ///< page offsets relative to the chunk start
  std::optional<format::ColumnIndex> column_index;
  std::optional<BloomFilter> bloom;
};

/// Writes the chunks of one leaf column, row group after row group.
class ColumnChunkWriter {
 public:
  virtual ~ColumnChunkWriter() = default;
  /// Adds rows [row_begin, row_end) of the shredded batch `levels`.
  virtual Status Write(const LeafLevels& levels, int64_t row_begin, int64_t row_end) = 0;
  /// Encoded bytes buffered for the current chunk (pages, dictionary, open page).
  virtual int64_t BufferedBytes() const = 0;
  /// What the current chunk will take in the file: its compressed pages as
  /// they are, and the bytes not compressed yet (pages in flight, the open
  /// page, the dictionary) at the compression ratio this column's pages (and
  /// its dictionary, once Settle measured it) had so far in this file.
  virtual int64_t EstimatedBytes() const = 0;
  /// Compresses the open page and the pages in flight, and measures the
  /// dictionary's ratio, so that EstimatedBytes is a measurement.
  virtual Status Settle() = 0;
  /// Ends the current chunk; `out` stays valid until the next call of Write.
  virtual Status FinishChunk(ChunkOutput* out) = 0;
  /// Iceberg metrics over all finished chunks.
  virtual void FillMetrics(ColumnMetrics* m) const = 0;
};

/// A chunk writer for the leaf's physical type.
Result<std::unique_ptr<ColumnChunkWriter>> MakeColumnChunkWriter(const ColumnWriterConfig& config);

/// Iceberg Appendix D bytes of a decimal: minimum-length big-endian two's complement.
std::string DecimalIcebergBytes(int128_t unscaled);

}  // namespace floe::parquet
