#include "floe/util/codec.h"
#include "floe/util/strings.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <string>

namespace floe {

Result<Codec> ParseCodec(std::string_view name) {
  std::string n = ToLower(name);
  if (n == "uncompressed" || n == "none" || n == "null") return Codec::kUncompressed;
  if (n == "snappy") return Codec::kSnappy;
  if (n == "gzip") return Codec::kGzip;
  if (n == "deflate") return Codec::kDeflateRaw;
  if (n == "brotli") return Codec::kBrotli;
  if (n == "zstd" || n == "zstandard") return Codec::kZstd;
  if (n == "lz4" || n == "lz4_raw") return Codec::kLz4Raw;
  return InvalidArgument(
      "unknown compression codec '{}' (valid: uncompressed, snappy, gzip, deflate, brotli, zstd, "
      "lz4_raw)",
      name);
}

std::string_view CodecName(Codec codec) {
  switch (codec) {
    case Codec::kUncompressed: return "uncompressed";
    case Codec::kSnappy: return "snappy";
    case Codec::kGzip: return "gzip";
    case Codec::kDeflateRaw: return "deflate";
    case Codec::kBrotli: return "brotli";
    case Codec::kZstd: return "zstd";
    case Codec::kLz4Raw: return "lz4_raw";
  }
  return "?";
}

namespace {

class NoneCompressor final : public Compressor {
 public:
  Status Compress(const uint8_t* data, size_t size, Buffer* out) override {
    out->Append(data, size);
    return Ok();
  }
};

class SnappyCompressor final : public Compressor {
 public:
  Status Compress(const uint8_t* data, size_t size, Buffer* out) override {
    size_t start = out->size();
    size_t max_len = snappy_max_compressed_length(size);
    out->Resize(start + max_len);
    size_t len = max_len;
    if (snappy_compress(reinterpret_cast<const char*>(data), size,
                        reinterpret_cast<char*>(out->data() + start), &len) != SNAPPY_OK) {
      return Internal("snappy compression failed");
    }
    out->Resize(start + len);
    return Ok();
  }
};

class ZstdCompressor final : public Compressor {
 public:
  explicit ZstdCompressor(int level) : level_(level), ctx_(ZSTD_createCCtx()) {}
  ~ZstdCompressor() override { ZSTD_freeCCtx(ctx_); }
  Status Compress(const uint8_t* data, size_t size, Buffer* out) override {
    size_t start = out->size();
    size_t bound = ZSTD_compressBound(size);
    out->Resize(start + bound);
    size_t n = ZSTD_compressCCtx(ctx_, out->data() + start, bound, data, size, level_);
    if (ZSTD_isError(n)) return Internal("zstd compression failed: {}", ZSTD_getErrorName(n));
    out->Resize(start + n);
    return Ok();
  }

 private:
  int level_;
  ZSTD_CCtx* ctx_;
};

class Lz4Compressor final : public Compressor {
 public:
  Status Compress(const uint8_t* data, size_t size, Buffer* out) override {
    if (size > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
      return InvalidArgument("lz4: block of {} bytes is too large", size);
    }
    size_t start = out->size();
    int bound = LZ4_compressBound(static_cast<int>(size));
    out->Resize(start + bound);
    int n = LZ4_compress_default(reinterpret_cast<const char*>(data),
                                 reinterpret_cast<char*>(out->data() + start),
                                 static_cast<int>(size), bound);
    if (n <= 0 && size > 0) return Internal("lz4 compression failed");
    out->Resize(start + n);
    return Ok();
  }
};

class BrotliCompressor final : public Compressor {
 public:
  explicit BrotliCompressor(int level) : level_(level) {}
  Status Compress(const uint8_t* data, size_t size, Buffer* out) override {
    size_t start = out->size();
    size_t bound = BrotliEncoderMaxCompressedSize(size);
    if (bound == 0) bound = size + 1024;
    out->Resize(start + bound);
    size_t n = bound;
    if (!BrotliEncoderCompress(level_, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, size, data, &n,
                               out->data() + start)) {
      return Internal("brotli compression failed");
    }
    out->Resize(start + n);
    return Ok();
  }

 private:
  int level_;
};

// gzip (windowBits 16+15) or raw deflate (windowBits -15).
class ZlibCompressor final : public Compressor {
 public:
  ZlibCompressor(int level, bool gzip) : level_(level), window_bits_(gzip ? 31 : -15) {}
  Status Compress(const uint8_t* data, size_t size, Buffer* out) override {
    z_stream zs{};
    if (deflateInit2(&zs, level_, Z_DEFLATED, window_bits_, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      return Internal("zlib: deflateInit2 failed");
    }
    size_t start = out->size();
    size_t bound = deflateBound(&zs, static_cast<uLong>(size)) + 32;
    out->Resize(start + bound);
    zs.next_in = const_cast<Bytef*>(data);
    zs.avail_in = static_cast<uInt>(size);
    zs.next_out = out->data() + start;
    zs.avail_out = static_cast<uInt>(bound);
    int rc = deflate(&zs, Z_FINISH);
    size_t n = zs.total_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END) return Internal("zlib compression failed ({})", rc);
    out->Resize(start + n);
    return Ok();
  }

 private:
  int level_;
  int window_bits_;
};

// Inflates gzip/zlib (auto-detected) or raw deflate into `out`, at most max bytes.
Status Inflate(bool raw, const uint8_t* data, size_t size, Buffer* out, size_t max_size,
               size_t exact) {
  z_stream zs{};
  if (inflateInit2(&zs, raw ? -15 : 15 + 32) != Z_OK) return Internal("zlib: inflateInit2 failed");
  zs.next_in = const_cast<Bytef*>(data);
  zs.avail_in = static_cast<uInt>(size);
  size_t start = out->size();
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    size_t produced = out->size() - start;
    if (produced >= max_size) {
      inflateEnd(&zs);
      return Corrupt("deflate block inflates past {} bytes", max_size);
    }
    size_t chunk = std::min<size_t>(max_size - produced, exact ? exact : std::max<size_t>(size * 4, 4096));
    out->Reserve(out->size() + chunk);
    zs.next_out = out->data() + out->size();
    zs.avail_out = static_cast<uInt>(chunk);
    rc = inflate(&zs, Z_NO_FLUSH);
    out->Resize(out->size() + (chunk - zs.avail_out));
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      inflateEnd(&zs);
      return Corrupt("deflate data is corrupt ({})", zs.msg ? zs.msg : "zlib error");
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
      inflateEnd(&zs);
      return Corrupt("deflate data is truncated");
    }
  }
  inflateEnd(&zs);
  return Ok();
}

}  // namespace

Status CheckCompressionLevel(Codec codec, int level) {
  if (level == 0) return Ok();
  switch (codec) {
    case Codec::kZstd:
      if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
        return InvalidArgument("level {} is out of range for zstd ({}..{})", level, ZSTD_minCLevel(),
                               ZSTD_maxCLevel());
      }
      return Ok();
    case Codec::kBrotli:
      if (level < 0 || level > 11) return InvalidArgument("level {} is out of range for brotli (0..11)", level);
      return Ok();
    case Codec::kGzip:
    case Codec::kDeflateRaw:
      if (level < 1 || level > 9) {
        return InvalidArgument("level {} is out of range for {} (1..9)", level, CodecName(codec));
      }
      return Ok();
    case Codec::kUncompressed:
    case Codec::kSnappy:
    case Codec::kLz4Raw: return Ok();  // no levels: ignored, as Iceberg's writers do
  }
  return Ok();
}

Result<std::unique_ptr<Compressor>> MakeCompressor(Codec codec, int level) {
  FLOE_RETURN_IF_ERROR(CheckCompressionLevel(codec, level));
  switch (codec) {
    case Codec::kUncompressed: return std::make_unique<NoneCompressor>();
    case Codec::kSnappy: return std::make_unique<SnappyCompressor>();
    case Codec::kZstd: return std::make_unique<ZstdCompressor>(level == 0 ? 3 : level);
    case Codec::kLz4Raw: return std::make_unique<Lz4Compressor>();
    case Codec::kBrotli: return std::make_unique<BrotliCompressor>(level == 0 ? 5 : level);
    case Codec::kGzip:
    case Codec::kDeflateRaw:
      return std::make_unique<ZlibCompressor>(level == 0 ? 6 : level, codec == Codec::kGzip);
  }
  return InvalidArgument("unknown codec");
}

Status DecompressExact(Codec codec, const uint8_t* data, size_t size, uint8_t* out,
                       size_t out_size) {
  switch (codec) {
    case Codec::kUncompressed:
      if (size != out_size) return Corrupt("uncompressed block: {} bytes, expected {}", size, out_size);
      if (size) std::memcpy(out, data, size);
      return Ok();
    case Codec::kSnappy: {
      size_t len = 0;
      if (snappy_uncompressed_length(reinterpret_cast<const char*>(data), size, &len) != SNAPPY_OK ||
          len != out_size) {
        return Corrupt("snappy block: bad length header (expected {} bytes)", out_size);
      }
      if (snappy_uncompress(reinterpret_cast<const char*>(data), size, reinterpret_cast<char*>(out),
                            &len) != SNAPPY_OK) {
        return Corrupt("snappy block is corrupt");
      }
      return Ok();
    }
    case Codec::kZstd: {
      thread_local std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(),
                                                                          ZSTD_freeDCtx);
      size_t n = ZSTD_decompressDCtx(dctx.get(), out, out_size, data, size);
      if (ZSTD_isError(n)) return Corrupt("zstd block is corrupt: {}", ZSTD_getErrorName(n));
      if (n != out_size) return Corrupt("zstd block: {} bytes, expected {}", n, out_size);
      return Ok();
    }
    case Codec::kLz4Raw: {
      if (out_size > static_cast<size_t>(LZ4_MAX_INPUT_SIZE) ||
          size > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
        return Corrupt("lz4 block too large");
      }
      int n = LZ4_decompress_safe(reinterpret_cast<const char*>(data), reinterpret_cast<char*>(out),
                                  static_cast<int>(size), static_cast<int>(out_size));
      if (n < 0 || static_cast<size_t>(n) != out_size) {
        return Corrupt("lz4_raw block is corrupt or has the wrong size");
      }
      return Ok();
    }
    case Codec::kBrotli: {
      size_t n = out_size;
      if (BrotliDecoderDecompress(size, data, &n, out) != BROTLI_DECODER_RESULT_SUCCESS ||
          n != out_size) {
        return Corrupt("brotli block is corrupt or has the wrong size");
      }
      return Ok();
    }
    case Codec::kGzip:
    case Codec::kDeflateRaw: {
      Buffer tmp;
      FLOE_RETURN_IF_ERROR(
          Inflate(codec == Codec::kDeflateRaw, data, size, &tmp, out_size + 1, out_size + 1));
      if (tmp.size() != out_size) {
        return Corrupt("gzip block: {} bytes, expected {}", tmp.size(), out_size);
      }
      if (out_size) std::memcpy(out, tmp.data(), out_size);
      return Ok();
    }
  }
  return Corrupt("unknown codec");
}

Status DecompressAppend(Codec codec, const uint8_t* data, size_t size, Buffer* out,
                        size_t max_size) {
  switch (codec) {
    case Codec::kUncompressed:
      if (size > max_size) return Corrupt("block of {} bytes exceeds {}", size, max_size);
      out->Append(data, size);
      return Ok();
    case Codec::kGzip:
    case Codec::kDeflateRaw:
      return Inflate(codec == Codec::kDeflateRaw, data, size, out, max_size, 0);
    case Codec::kSnappy: {
      size_t len = 0;
      if (snappy_uncompressed_length(reinterpret_cast<const char*>(data), size, &len) != SNAPPY_OK) {
        return Corrupt("snappy block: bad length header");
      }
      if (len > max_size) return Corrupt("snappy block inflates past {} bytes", max_size);
      size_t start = out->size();
      out->Resize(start + len);
      return DecompressExact(codec, data, size, out->data() + start, len);
    }
    case Codec::kZstd: {
      unsigned long long len = ZSTD_getFrameContentSize(data, size);
      if (len != ZSTD_CONTENTSIZE_UNKNOWN && len != ZSTD_CONTENTSIZE_ERROR) {
        if (len > max_size) return Corrupt("zstd block inflates past {} bytes", max_size);
        size_t start = out->size();
        out->Resize(start + len);
        return DecompressExact(codec, data, size, out->data() + start, len);
      }
      // Streaming decode for frames without a content size.
      std::unique_ptr<ZSTD_DStream, size_t (*)(ZSTD_DStream*)> ds(ZSTD_createDStream(),
                                                                  ZSTD_freeDStream);
      ZSTD_initDStream(ds.get());
      ZSTD_inBuffer in{data, size, 0};
      size_t start = out->size();
      while (in.pos < in.size) {
        size_t produced = out->size() - start;
        if (produced >= max_size) return Corrupt("zstd block inflates past {} bytes", max_size);
        size_t chunk = std::min<size_t>(max_size - produced, ZSTD_DStreamOutSize());
        out->Reserve(out->size() + chunk);
        ZSTD_outBuffer ob{out->data() + out->size(), chunk, 0};
        size_t rc = ZSTD_decompressStream(ds.get(), &ob, &in);
        if (ZSTD_isError(rc)) return Corrupt("zstd block is corrupt: {}", ZSTD_getErrorName(rc));
        out->Resize(out->size() + ob.pos);
        if (rc == 0) break;
        if (ob.pos == 0 && in.pos == in.size) return Corrupt("zstd block is truncated");
      }
      return Ok();
    }
    case Codec::kBrotli:
    case Codec::kLz4Raw:
      return Unsupported("{} blocks of unknown size", CodecName(codec));
  }
  return Corrupt("unknown codec");
}

}  // namespace floe
