/// \file
/// Block compression codecs shared by the Parquet and Avro formats.
/// Parquet: SNAPPY (raw, no framing), GZIP (RFC 1952), BROTLI, ZSTD, LZ4_RAW.
/// Avro: deflate (raw RFC 1951), snappy (raw + big-endian CRC32 done by the
/// Avro layer), zstandard.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "floe/util/buffer.h"
#include "floe/util/status.h"

namespace floe {

enum class Codec : uint8_t {
  kUncompressed,
  kSnappy,
  kGzip,        ///< RFC 1952 gzip stream; decompression also accepts zlib
  kDeflateRaw,  ///< RFC 1951 raw deflate (Avro "deflate")
  kBrotli,
  kZstd,
  kLz4Raw,      ///< LZ4 block format without framing
};

/// Parses a codec name as Parquet table properties and Avro spell it:
/// uncompressed|none|null, snappy, gzip, deflate, brotli, zstd|zstandard, lz4|lz4_raw.
Result<Codec> ParseCodec(std::string_view name);
std::string_view CodecName(Codec codec);

/// Compresses blocks with one codec at one level, reusing its context.
/// Not thread-safe: one per writer thread.
class Compressor {
 public:
  virtual ~Compressor() = default;
  /// Appends the compressed form of [data, data+size) to `out`.
  virtual Status Compress(const uint8_t* data, size_t size, Buffer* out) = 0;
};

/// `level` 0 means the codec's default (zstd 3, gzip 6, brotli 5).
Result<std::unique_ptr<Compressor>> MakeCompressor(Codec codec, int level = 0);

/// Whether `level` is one `codec` takes (0, the default, always is): zstd
/// -131072..22 (negative levels are its fast modes), gzip and deflate 1..9,
/// brotli 0..11. snappy, lz4_raw and uncompressed have no levels and ignore
/// one (as Iceberg's writers do: a table may carry a level for another
/// codec). The error names the codec and its range.
Status CheckCompressionLevel(Codec codec, int level);

/// Decompresses a block whose uncompressed size is known exactly (Parquet
/// pages). Fails with kCorrupt unless exactly `out_size` bytes come out.
Status DecompressExact(Codec codec, const uint8_t* data, size_t size, uint8_t* out,
                       size_t out_size);

/// Decompresses a block of unknown uncompressed size (Avro blocks), appending
/// to `out`; fails with kCorrupt past `max_size` bytes (no unbounded growth).
Status DecompressAppend(Codec codec, const uint8_t* data, size_t size, Buffer* out,
                        size_t max_size);

}  // namespace floe
