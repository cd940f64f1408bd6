/// \file
/// Internal to the Parquet reader: reading one column chunk page by page into
/// definition / repetition levels and physical values, record by record.
/// Data pages v1 (levels RLE or legacy BIT_PACKED, inside the compressed
/// body) and v2 (levels RLE, uncompressed, before the optionally compressed
/// values); dictionary pages; every codec of floe/util/codec.h plus the old
/// Hadoop-framed LZ4. Spec: parquet-format README ("Data Pages"),
/// Encodings.md, Compression.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "floe/io/file.h"
#include "floe/parquet/decoder.h"
#include "floe/parquet/reader_schema.h"
#include "floe/parquet/thrift_internal.h"

namespace floe::parquet {

/// Limits that keep hostile files from allocating without bound.
inline constexpr int64_t kMaxPageBytes = 256 << 20;   ///< decompressed page
inline constexpr int64_t kMaxPageValues = 1 << 24;    ///< level entries per page
inline constexpr int64_t kMaxBatchEntries = 1 << 26;  ///< level entries per batch and column

/// Levels and values of one leaf column for one batch of rows.
struct LeafBatch {
  std::vector<int16_t> def;  ///< empty when the column's max definition level is 0
  std::vector<int16_t> rep;  ///< empty when the column's max repetition level is 0
  PhysicalValues values;     ///< the non-null values, in order
  int64_t entries = 0;       ///< level entries (= slots of the leaf field, at all depths)

  void Clear() {
    def.clear();
    rep.clear();
    values.Clear();
    entries = 0;
  }
};

/// Reads one column chunk of one row group.
class ColumnChunkReader {
 public:
  /// `context` prefixes every error ("file f, row group 0, column a.b").
  Status Open(const InputFile& file, const format::ColumnChunk& chunk, const LeafInfo& leaf,
              std::string context);
  /// Appends the levels and values of the next `rows` records to `out`.
  Status ReadRows(int64_t rows, LeafBatch* out);
  /// Called after the row group's last row: the chunk must hold nothing more (no
  /// entry left in the page, no further data page) and as many entries as its
  /// metadata's num_values. A page header or footer that lies about its counts
  /// (e.g. a page claiming one entry more, read from the padding of its levels)
  /// would otherwise shift rows without any error.
  Status Finish();

 private:
  Status NextPage(bool* got);
  Status LoadDictionary(const format::PageHeader& ph, const uint8_t* body, size_t size);
  Status Decompress(const uint8_t* in, size_t in_size, size_t out_size, const uint8_t** out);
  Status DecodeLevels(int32_t encoding, int max_level, const uint8_t** p, const uint8_t* end,
                      bool length_prefixed, size_t v2_len, int64_t n, std::vector<int16_t>* out,
                      const char* what);
  Status SetValues(int32_t encoding, const uint8_t* data, size_t size);
  Status Fail(Error e) const;

  const LeafInfo* leaf_ = nullptr;
  std::string context_;
  Buffer chunk_;
  size_t pos_ = 0;
  int32_t codec_ = 0;
  bool has_dict_ = false;
  PhysicalValues dict_;
  std::unique_ptr<ValueDecoder> decoders_[10];
  ValueDecoder* cur_ = nullptr;
  Buffer page_buf_;
  std::vector<int16_t> page_def_;
  std::vector<int16_t> page_rep_;
  int64_t page_n_ = 0;
  int64_t page_pos_ = 0;
  int page_index_ = -1;
  int64_t entries_read_ = 0;
  int64_t chunk_values_ = 0;  ///< ColumnMetaData.num_values
};

}  // namespace floe::parquet
