/// \file
/// Avro object container files (Avro spec 1.11: Object Container Files): the
/// header (`Obj\x01`, the metadata map with `avro.schema`, `avro.codec` and the
/// caller's keys such as Iceberg's `schema`, `partition-spec`,
/// `format-version`, `content`), a 16-byte random sync marker, then blocks of
/// (count, byte size, data, sync). Codecs: null, deflate (raw RFC 1951),
/// zstandard, snappy (raw snappy + big-endian CRC32 of the uncompressed data).
///
/// Iceberg manifests and manifest lists are such files (Iceberg spec:
/// Manifests, Manifest Lists); `ContainerWriter::Close` returns the exact file
/// length that a manifest list records as `manifest_length`.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/avro/encoding.h"
#include "floe/avro/schema.h"
#include "floe/avro/value.h"
#include "floe/io/file.h"
#include "floe/util/codec.h"

namespace floe::avro {

/// Header metadata: key -> value bytes, in file order.
using Metadata = std::vector<std::pair<std::string, std::string>>;

/// The Avro codec name ("null", "deflate", "snappy", "zstandard") of a codec;
/// kUnsupported for codecs Avro does not define.
Result<std::string_view> AvroCodecName(Codec codec);
/// Parses an `avro.codec` value.
Result<Codec> ParseAvroCodec(std::string_view name);

/// Options of a container writer.
struct WriterOptions {
  Codec codec = Codec::kDeflateRaw;  ///< kUncompressed, kDeflateRaw, kSnappy or kZstd
  int level = 0;                     ///< codec level, 0 = the codec's default
  /// A block is written once its encoded records reach this size (Avro Java
  /// uses 64000 bytes).
  size_t block_size = 64 * 1024;
  /// The sync marker; random (std::random_device) when not given.
  std::optional<std::array<uint8_t, 16>> sync_marker;
};

/// Writes one container file. Values are appended one at a time and encoded
/// against the writer schema; Close() writes the last block and publishes the
/// file. Not thread-safe.
class ContainerWriter {
 public:
  /// Writes the header. `metadata` may not use the reserved `avro.` prefix.
  static Result<std::unique_ptr<ContainerWriter>> Open(std::unique_ptr<OutputFile> file, AvroSchema schema,
                                                       Metadata metadata, WriterOptions options = {});
  /// Same, with only a codec.
  static Result<std::unique_ptr<ContainerWriter>> Open(std::unique_ptr<OutputFile> file, AvroSchema schema,
                                                       Metadata metadata, Codec codec);

  ContainerWriter(const ContainerWriter&) = delete;
  ContainerWriter& operator=(const ContainerWriter&) = delete;
  ~ContainerWriter();

  /// Encodes one record; kInvalidArgument (naming the field) when it does not
  /// fit the schema, in which case nothing of it is written.
  Status Append(const Value& value);

  /// Flushes the last block and commits the file; returns its exact length.
  Result<int64_t> Close();

  /// Records appended so far.
  int64_t count() const { return count_; }
  const AvroSchema& schema() const { return schema_; }

 private:
  ContainerWriter() = default;
  Status FlushBlock();

  std::unique_ptr<OutputFile> file_;
  AvroSchema schema_;
  WriterOptions options_;
  std::unique_ptr<Compressor> compressor_;
  std::array<uint8_t, 16> sync_{};
  Buffer block_;
  Buffer compressed_;
  Buffer header_;
  int64_t block_count_ = 0;
  int64_t count_ = 0;
  bool closed_ = false;
};

/// Options of a container reader.
struct ReaderOptions {
  /// When set, values are resolved to this schema (by Iceberg field id, see
  /// Resolver); otherwise they come out as written.
  NodePtr reader_schema;
  /// Largest decompressed block accepted (hostile-file bound).
  size_t max_block_bytes = size_t{256} << 20;
};

/// Reads one container file block by block. Hostile files give kCorrupt
/// errors that name the file and the offset, never a crash or an allocation
/// larger than the file (or `max_block_bytes` after decompression).
class ContainerReader {
 public:
  static Result<std::unique_ptr<ContainerReader>> Open(std::unique_ptr<InputFile> file, ReaderOptions options = {});

  ContainerReader(const ContainerReader&) = delete;
  ContainerReader& operator=(const ContainerReader&) = delete;

  /// The header's user metadata and `avro.*` keys, in file order.
  const Metadata& metadata() const { return metadata_; }
  /// One metadata value, if present.
  std::optional<std::string_view> metadata(std::string_view key) const;
  /// The schema the file was written with.
  const AvroSchema& writer_schema() const { return writer_schema_; }
  Codec codec() const { return codec_; }

  /// Reads the next record into `*out`; false at the end of the file.
  Result<bool> Next(Value* out);
  /// Reads every remaining record.
  Result<std::vector<Value>> ReadAll();

 private:
  ContainerReader() = default;
  Status ReadHeader();
  Status LoadBlock();

  std::unique_ptr<InputFile> file_;
  ReaderOptions options_;
  Metadata metadata_;
  AvroSchema writer_schema_;
  std::optional<Resolver> resolver_;
  Codec codec_ = Codec::kUncompressed;
  std::array<uint8_t, 16> sync_{};
  int64_t file_size_ = 0;
  int64_t next_block_offset_ = 0;
  int64_t block_offset_ = 0;
  Buffer raw_;
  Buffer block_;
  std::optional<Decoder> decoder_;
  int64_t block_remaining_ = 0;
  int64_t record_index_ = 0;
  size_t min_record_size_ = 0;
};

}  // namespace floe::avro
