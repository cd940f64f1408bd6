// Avro object container files: writer and reader (Avro spec 1.11: Object
// Container Files, Required Codecs, Optional Codecs).
#include "floe/avro/container.h"

#include <zlib.h>

#include <algorithm>
#include <random>

namespace floe::avro {
namespace {

constexpr uint8_t kMagic[4] = {'O', 'b', 'j', 1};
/// Largest header accepted (the schema of a manifest is a few KiB).
constexpr size_t kMaxHeaderBytes = size_t{64} << 20;

uint32_t Crc32(const uint8_t* data, size_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (size > 0) {
    uInt n = static_cast<uInt>(std::min<size_t>(size, 1u << 30));
    crc = crc32(crc, data, n);
    data += n;
    size -= n;
  }
  return static_cast<uint32_t>(crc);
}

Error AsCorrupt(Error e) {
  e.kind = ErrorKind::kCorrupt;
  return e;
}

}  // namespace

Result<std::string_view> AvroCodecName(Codec codec) {
  switch (codec) {
    case Codec::kUncompressed: return std::string_view("null");
    case Codec::kDeflateRaw: return std::string_view("deflate");
    case Codec::kSnappy: return std::string_view("snappy");
    case Codec::kZstd: return std::string_view("zstandard");
    default: return Unsupported("avro has no codec {} (null, deflate, snappy, zstandard)", CodecName(codec));
  }
}

Result<Codec> ParseAvroCodec(std::string_view name) {
  if (name == "null") return Codec::kUncompressed;
  if (name == "deflate") return Codec::kDeflateRaw;
  if (name == "snappy") return Codec::kSnappy;
  if (name == "zstandard") return Codec::kZstd;
  return Unsupported("avro codec \"{}\" is not supported (null, deflate, snappy, zstandard)", name);
}

// ---------------------------------------------------------------- writer

Result<std::unique_ptr<ContainerWriter>> ContainerWriter::Open(std::unique_ptr<OutputFile> file, AvroSchema schema,
                                                               Metadata metadata, Codec codec) {
  WriterOptions options;
  options.codec = codec;
  return Open(std::move(file), std::move(schema), std::move(metadata), options);
}

Result<std::unique_ptr<ContainerWriter>> ContainerWriter::Open(std::unique_ptr<OutputFile> file, AvroSchema schema,
                                                               Metadata metadata, WriterOptions options) {
  if (!file) return InvalidArgument("avro writer: no output file");
  const std::string path = file->path();
  if (!schema.root()) return InvalidArgument("avro writer {}: no schema", path);
  if (auto st = schema.Validate(); !st) return Fail(std::move(st).error().WithContext("avro writer " + path));
  FLOE_ASSIGN_OR_RETURN(std::string_view codec_name, AvroCodecName(options.codec));
  for (size_t i = 0; i < metadata.size(); ++i) {
    if (metadata[i].first.starts_with("avro.")) {
      return InvalidArgument("avro writer {}: metadata key \"{}\" uses the reserved prefix avro.", path,
                             metadata[i].first);
    }
    for (size_t j = 0; j < i; ++j) {
      if (metadata[j].first == metadata[i].first) {
        return InvalidArgument("avro writer {}: metadata key \"{}\" given twice", path, metadata[i].first);
      }
    }
  }
  std::unique_ptr<ContainerWriter> w(new ContainerWriter());
  w->file_ = std::move(file);
  w->options_ = options;
  FLOE_ASSIGN_OR_RETURN(w->compressor_, MakeCompressor(options.codec, options.level));
  if (options.sync_marker) {
    w->sync_ = *options.sync_marker;
  } else {
    std::random_device rd;
    for (size_t i = 0; i < 16; i += 4) {
      uint32_t r = rd();
      std::memcpy(w->sync_.data() + i, &r, 4);
    }
  }

  Encoder e(&w->header_);
  w->header_.Append(kMagic, 4);
  e.WriteLong(static_cast<int64_t>(metadata.size() + 2));
  e.WriteString("avro.schema");
  e.WriteBytes(schema.ToJson());
  e.WriteString("avro.codec");
  e.WriteBytes(codec_name);
  for (const auto& [k, v] : metadata) {
    e.WriteString(k);
    e.WriteBytes(v);
  }
  e.WriteLong(0);
  w->header_.Append(w->sync_.data(), 16);
  FLOE_RETURN_IF_ERROR(w->file_->Write(w->header_.data(), w->header_.size()));
  w->schema_ = std::move(schema);
  return w;
}

ContainerWriter::~ContainerWriter() {
  if (file_ && !closed_) file_->Abort();
}

Status ContainerWriter::Append(const Value& value) {
  if (closed_) return InvalidArgument("avro writer {}: Append after Close", file_->path());
  size_t mark = block_.size();
  Encoder e(&block_);
  Status st = EncodeValue(*schema_.root(), value, &e);
  if (!st) {
    block_.Resize(mark);
    return Fail(std::move(st).error().WithContext(fmt::format("avro writer {}: record {}", file_->path(), count_)));
  }
  ++block_count_;
  ++count_;
  if (block_.size() >= options_.block_size) return FlushBlock();
  return Ok();
}

Status ContainerWriter::FlushBlock() {
  if (block_count_ == 0) return Ok();
  compressed_.Clear();
  const uint8_t* data = block_.data();
  size_t size = block_.size();
  if (options_.codec != Codec::kUncompressed) {
    FLOE_RETURN_IF_ERROR(compressor_->Compress(block_.data(), block_.size(), &compressed_));
    if (options_.codec == Codec::kSnappy) {
      uint32_t crc = Crc32(block_.data(), block_.size());
      uint8_t be[4] = {static_cast<uint8_t>(crc >> 24), static_cast<uint8_t>(crc >> 16),
                       static_cast<uint8_t>(crc >> 8), static_cast<uint8_t>(crc)};
      compressed_.Append(be, 4);
    }
    data = compressed_.data();
    size = compressed_.size();
  }
  header_.Clear();
  Encoder e(&header_);
  e.WriteLong(block_count_);
  e.WriteLong(static_cast<int64_t>(size));
  FLOE_RETURN_IF_ERROR(file_->Write(header_.data(), header_.size()));
  FLOE_RETURN_IF_ERROR(file_->Write(data, size));
  FLOE_RETURN_IF_ERROR(file_->Write(sync_.data(), 16));
  block_.Clear();
  block_count_ = 0;
  return Ok();
}

Result<int64_t> ContainerWriter::Close() {
  if (closed_) return InvalidArgument("avro writer {}: closed twice", file_->path());
  FLOE_RETURN_IF_ERROR(FlushBlock());
  int64_t length = file_->Tell();
  closed_ = true;
  FLOE_RETURN_IF_ERROR(file_->Commit());
  return length;
}

// ---------------------------------------------------------------- reader

Result<std::unique_ptr<ContainerReader>> ContainerReader::Open(std::unique_ptr<InputFile> file,
                                                               ReaderOptions options) {
  if (!file) return InvalidArgument("avro reader: no input file");
  std::unique_ptr<ContainerReader> r(new ContainerReader());
  r->file_ = std::move(file);
  r->options_ = std::move(options);
  r->file_size_ = r->file_->Size();
  if (auto st = r->ReadHeader(); !st) {
    return Fail(std::move(st).error().WithContext(fmt::format("avro file {}", r->file_->path())));
  }
  return r;
}

Status ContainerReader::ReadHeader() {
  if (file_size_ < 4) return Corrupt("{} bytes is too short for an avro header", file_size_);
  size_t want = static_cast<size_t>(std::min<int64_t>(file_size_, 64 * 1024));
  while (true) {
    FLOE_RETURN_IF_ERROR(file_->ReadAt(0, want, &raw_));
    if (std::memcmp(raw_.data(), kMagic, 4) != 0) return Corrupt("not an avro container file (bad magic)");
    Decoder d(raw_.data() + 4, raw_.size() - 4);
    metadata_.clear();
    Status st = [&]() -> Status {
      while (true) {
        FLOE_ASSIGN_OR_RETURN(int64_t n, d.ReadBlockCount());
        if (n == 0) break;
        if (static_cast<uint64_t>(n) > d.remaining() / 2) {
          return Corrupt("header map block of {} entries exceeds the {} bytes left", n, d.remaining());
        }
        for (int64_t i = 0; i < n; ++i) {
          FLOE_ASSIGN_OR_RETURN(std::string_view k, d.ReadBytes());
          FLOE_ASSIGN_OR_RETURN(std::string_view v, d.ReadBytes());
          for (const auto& [ek, ev] : metadata_) {
            if (ek == k) return Corrupt("header metadata key \"{}\" appears twice", k);
          }
          metadata_.emplace_back(std::string(k), std::string(v));
        }
      }
      FLOE_ASSIGN_OR_RETURN(std::string_view sync, d.ReadFixed(16));
      std::memcpy(sync_.data(), sync.data(), 16);
      return Ok();
    }();
    if (st) {
      next_block_offset_ = static_cast<int64_t>(d.position() - raw_.data());
      break;
    }
    // Maybe only the part read so far was too short: read more, up to the whole file.
    if (want >= static_cast<size_t>(file_size_) || want >= kMaxHeaderBytes) {
      return Fail(std::move(st).error().WithContext("header"));
    }
    want = static_cast<size_t>(std::min<int64_t>(file_size_, static_cast<int64_t>(std::min(want * 8, kMaxHeaderBytes))));
  }
  auto schema_text = metadata("avro.schema");
  if (!schema_text) return Corrupt("header has no avro.schema");
  // The schemas parsed last on this thread, by their text: a table's
  // manifests share a few schemas (a scan of many manifests parsed the same
  // JSON again for each). A parsed schema is never changed, so readers share it.
  struct ParsedSchema {
    std::string text;
    AvroSchema schema;
  };
  thread_local std::vector<ParsedSchema> parsed;
  auto hit = std::find_if(parsed.begin(), parsed.end(), [&](const ParsedSchema& p) { return p.text == *schema_text; });
  if (hit != parsed.end()) {
    writer_schema_ = hit->schema;
  } else {
    auto schema = AvroSchema::Parse(*schema_text);
    if (!schema) return Fail(AsCorrupt(std::move(schema).error().WithContext("header avro.schema")));
    writer_schema_ = std::move(*schema);
    if (parsed.size() >= 8) parsed.erase(parsed.begin());
    parsed.push_back({std::string(*schema_text), writer_schema_});
  }
  auto codec_text = metadata("avro.codec");
  if (codec_text) {
    auto codec = ParseAvroCodec(*codec_text);
    if (!codec) return Fail(std::move(codec).error());
    codec_ = *codec;
  }
  min_record_size_ = MinEncodedSize(*writer_schema_.root());
  if (options_.reader_schema) {
    auto resolver = Resolver::Make(options_.reader_schema, writer_schema_.root());
    if (!resolver) return Fail(std::move(resolver).error().WithContext("reader schema"));
    resolver_ = std::move(*resolver);
  }
  raw_.Clear();
  return Ok();
}

std::optional<std::string_view> ContainerReader::metadata(std::string_view key) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) return std::string_view(v);
  }
  return std::nullopt;
}

Status ContainerReader::LoadBlock() {
  block_offset_ = next_block_offset_;
  int64_t left = file_size_ - block_offset_;
  uint8_t head[20];
  size_t head_len = static_cast<size_t>(std::min<int64_t>(left, sizeof head));
  FLOE_RETURN_IF_ERROR(file_->ReadAt(block_offset_, head_len, head));
  Decoder d(head, head_len);
  FLOE_ASSIGN_OR_RETURN(int64_t count, d.ReadLong());
  FLOE_ASSIGN_OR_RETURN(int64_t size, d.ReadLong());
  int64_t data_offset = block_offset_ + static_cast<int64_t>(head_len - d.remaining());
  if (count < 0) return Corrupt("negative record count {}", count);
  if (size < 0 || size > file_size_ - data_offset - 16) {
    return Corrupt("block byte size {} exceeds the {} bytes left in the file", size,
                   std::max<int64_t>(0, file_size_ - data_offset - 16));
  }
  FLOE_RETURN_IF_ERROR(file_->ReadAt(data_offset, static_cast<size_t>(size) + 16, &raw_));
  if (std::memcmp(raw_.data() + size, sync_.data(), 16) != 0) {
    return Corrupt("block does not end with the header's sync marker");
  }
  next_block_offset_ = data_offset + size + 16;
  block_.Clear();
  const uint8_t* data = raw_.data();
  size_t data_size = static_cast<size_t>(size);
  if (codec_ == Codec::kSnappy) {
    if (data_size < 4) return Corrupt("snappy block of {} bytes has no CRC32", data_size);
    FLOE_RETURN_IF_ERROR(DecompressAppend(codec_, data, data_size - 4, &block_, options_.max_block_bytes));
    const uint8_t* c = data + data_size - 4;
    uint32_t want = (uint32_t{c[0]} << 24) | (uint32_t{c[1]} << 16) | (uint32_t{c[2]} << 8) | c[3];
    if (Crc32(block_.data(), block_.size()) != want) return Corrupt("snappy block fails its CRC32 check");
  } else if (codec_ != Codec::kUncompressed) {
    FLOE_RETURN_IF_ERROR(DecompressAppend(codec_, data, data_size, &block_, options_.max_block_bytes));
  } else {
    if (data_size > options_.max_block_bytes) {
      return Corrupt("block of {} bytes exceeds the limit of {}", data_size, options_.max_block_bytes);
    }
    std::swap(block_, raw_);
    block_.Resize(data_size);  // drop the sync marker
  }
  if (min_record_size_ > 0 ? static_cast<uint64_t>(count) > block_.size() / min_record_size_
                           : count > (int64_t{1} << 24)) {
    return Corrupt("block claims {} records in {} bytes", count, block_.size());
  }
  decoder_.emplace(block_.data(), block_.size());
  block_remaining_ = count;
  return Ok();
}

Result<bool> ContainerReader::Next(Value* out) {
  while (block_remaining_ == 0) {
    if (decoder_ && decoder_->remaining() != 0) {
      return Corrupt("avro file {}: block at offset {} has {} bytes after its last record", file_->path(),
                     block_offset_, decoder_->remaining());
    }
    decoder_.reset();
    if (next_block_offset_ >= file_size_) return false;
    if (auto st = LoadBlock(); !st) {
      return Fail(std::move(st).error().WithContext(
          fmt::format("avro file {}: block at offset {}", file_->path(), next_block_offset_)));
    }
  }
  auto v = DecodeValue(writer_schema_.root(), &*decoder_);
  if (!v) {
    return Fail(AsCorrupt(std::move(v).error().WithContext(
        fmt::format("avro file {}: block at offset {}: record {}", file_->path(), block_offset_, record_index_))));
  }
  --block_remaining_;
  ++record_index_;
  if (resolver_) {
    auto r = resolver_->Resolve(std::move(*v));
    if (!r) {
      return Fail(std::move(r).error().WithContext(
          fmt::format("avro file {}: record {}", file_->path(), record_index_ - 1)));
    }
    *out = std::move(*r);
  } else {
    *out = std::move(*v);
  }
  return true;
}

Result<std::vector<Value>> ContainerReader::ReadAll() {
  std::vector<Value> out;
  Value v;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool more, Next(&v));
    if (!more) break;
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace floe::avro
