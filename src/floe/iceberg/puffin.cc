#include "floe/iceberg/puffin.h"

#include <lz4frame.h>

#include <cstring>

#include "floe/iceberg/json_internal.h"

namespace floe::iceberg {

namespace ji = json_internal;

namespace {

// Magic (4) + FooterPayloadSize (4) + Flags (4) + Magic (4) after the payload,
// plus the file's leading magic.
constexpr int64_t kPuffinFooterTail = 12;
constexpr uint8_t kPuffinFlagCompressed = 0x01;

// One LZ4 frame with its content size (Puffin spec: Footer Payload), at most
// kMaxPuffinFooterBytes out.
Result<std::string> InflatePuffinFooter(const std::string& frame, const std::string& name) {
  LZ4F_dctx* ctx = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION))) {
    return Internal("Puffin file {}: cannot create an LZ4 decompression context", name);
  }
  struct Free {
    LZ4F_dctx* c;
    ~Free() { LZ4F_freeDecompressionContext(c); }
  } free_ctx{ctx};
  LZ4F_frameInfo_t info{};
  size_t consumed = frame.size();
  size_t rc = LZ4F_getFrameInfo(ctx, &info, frame.data(), &consumed);
  if (LZ4F_isError(rc)) {
    return Corrupt("Puffin file {}: the compressed footer is not an LZ4 frame ({})", name, LZ4F_getErrorName(rc));
  }
  if (info.contentSize == 0) {
    return Corrupt("Puffin file {}: the compressed footer's LZ4 frame has no content size (the spec requires it)",
                   name);
  }
  if (info.contentSize > static_cast<unsigned long long>(kMaxPuffinFooterBytes)) {
    return Corrupt("Puffin file {}: the footer inflates to {} bytes, more than the {} bytes read at most", name,
                   info.contentSize, kMaxPuffinFooterBytes);
  }
  std::string out(static_cast<size_t>(info.contentSize), '\0');
  size_t in_at = consumed;
  size_t out_at = 0;
  while (true) {
    size_t in_size = frame.size() - in_at;
    size_t out_size = out.size() - out_at;
    rc = LZ4F_decompress(ctx, out.data() + out_at, &out_size, frame.data() + in_at, &in_size, nullptr);
    if (LZ4F_isError(rc)) {
      return Corrupt("Puffin file {}: the compressed footer is damaged ({})", name, LZ4F_getErrorName(rc));
    }
    in_at += in_size;
    out_at += out_size;
    if (rc == 0) break;  // the frame is complete
    if (in_size == 0 && out_size == 0) {
      return Corrupt("Puffin file {}: the compressed footer's LZ4 frame ends early", name);
    }
  }
  if (out_at != out.size() || in_at != frame.size()) {
    return Corrupt("Puffin file {}: the compressed footer holds {} bytes and ends at byte {} of {}, its frame says {}",
                   name, out_at, in_at, frame.size(), out.size());
  }
  return out;
}

Result<PuffinBlobMetadata> ParsePuffinBlob(const Json& j, const std::string& ctx) {
  if (!j.is_object()) return Corrupt("{} must be an object, got {}", ctx, ji::KindName(j));
  PuffinBlobMetadata b;
  FLOE_ASSIGN_OR_RETURN(b.type, ji::GetString(j, "type", ctx));
  const Json* fields = ji::Find(j, "fields");
  if (!fields || !fields->is_array()) return Corrupt("{}: 'fields' must be a list of ints", ctx);
  for (const auto& f : *fields) {
    FLOE_ASSIGN_OR_RETURN(int32_t id, ji::AsInt(f, ctx + ".fields"));
    b.fields.push_back(id);
  }
  FLOE_ASSIGN_OR_RETURN(b.snapshot_id, ji::GetLong(j, "snapshot-id", ctx));
  FLOE_ASSIGN_OR_RETURN(b.sequence_number, ji::GetLong(j, "sequence-number", ctx));
  FLOE_ASSIGN_OR_RETURN(b.offset, ji::GetLong(j, "offset", ctx));
  FLOE_ASSIGN_OR_RETURN(b.length, ji::GetLong(j, "length", ctx));
  FLOE_ASSIGN_OR_RETURN(b.compression_codec, ji::GetOptionalString(j, "compression-codec", ctx));
  FLOE_ASSIGN_OR_RETURN(b.properties, ji::GetStringMap(j, "properties", ctx));
  return b;
}

}  // namespace

const PuffinBlobMetadata* PuffinFileMetadata::FindBlob(int64_t offset, int64_t length) const {
  for (const auto& b : blobs) {
    if (b.offset == offset && b.length == length) return &b;
  }
  return nullptr;
}

Result<PuffinFileMetadata> ReadPuffinFooter(const InputFile& in, const std::string& name) {
  const int64_t size = in.Size();
  // Magic, then a footer of at least Magic + an empty payload + the tail.
  if (size < 4 + 4 + kPuffinFooterTail) {
    return Corrupt("{} is not a Puffin file: {} bytes, fewer than the smallest Puffin file (20)", name, size);
  }
  uint8_t head[4];
  FLOE_RETURN_IF_ERROR(in.ReadAt(0, 4, head));
  uint8_t tail[kPuffinFooterTail];
  FLOE_RETURN_IF_ERROR(in.ReadAt(size - kPuffinFooterTail, kPuffinFooterTail, tail));
  if (std::memcmp(head, kPuffinMagic, 4) != 0 || std::memcmp(tail + 8, kPuffinMagic, 4) != 0) {
    return Corrupt("{} is not a Puffin file: it does not start and end with the magic PFA1", name);
  }
  int32_t payload_size = 0;
  {
    uint32_t u = uint32_t{tail[0]} | (uint32_t{tail[1]} << 8) | (uint32_t{tail[2]} << 16) | (uint32_t{tail[3]} << 24);
    std::memcpy(&payload_size, &u, sizeof(u));
  }
  const uint8_t* flags = tail + 4;
  if ((flags[0] & ~kPuffinFlagCompressed) != 0 || flags[1] != 0 || flags[2] != 0 || flags[3] != 0) {
    return Corrupt("Puffin file {}: unknown footer flags {:02x} {:02x} {:02x} {:02x} (only byte 0 bit 0, "
                   "'compressed', is defined)",
                   name, flags[0], flags[1], flags[2], flags[3]);
  }
  // The footer's own magic sits right before the payload.
  const int64_t footer_offset = size - kPuffinFooterTail - int64_t{payload_size} - 4;
  if (payload_size < 0 || footer_offset < 4) {
    return Corrupt("Puffin file {}: the footer payload size {} does not fit the file's {} bytes", name,
                   payload_size, size);
  }
  if (payload_size > kMaxPuffinFooterBytes) {
    return Corrupt("Puffin file {}: a footer payload of {} bytes, more than the {} bytes read at most", name,
                   payload_size, kMaxPuffinFooterBytes);
  }
  uint8_t footer_magic[4];
  FLOE_RETURN_IF_ERROR(in.ReadAt(footer_offset, 4, footer_magic));
  if (std::memcmp(footer_magic, kPuffinMagic, 4) != 0) {
    return Corrupt("Puffin file {}: no magic PFA1 at the start of the footer (byte {}; payload size {})", name,
                   footer_offset, payload_size);
  }
  std::string payload(static_cast<size_t>(payload_size), '\0');
  FLOE_RETURN_IF_ERROR(
      in.ReadAt(footer_offset + 4, payload.size(), reinterpret_cast<uint8_t*>(payload.data())));
  if (flags[0] & kPuffinFlagCompressed) {
    FLOE_ASSIGN_OR_RETURN(payload, InflatePuffinFooter(payload, name));
  }
  const std::string ctx = fmt::format("Puffin file {}: footer", name);
  FLOE_ASSIGN_OR_RETURN(Json j, ji::Parse(payload, ctx));
  if (!j.is_object()) return Corrupt("{} must be a JSON object, got {}", ctx, ji::KindName(j));
  PuffinFileMetadata out;
  out.footer_offset = footer_offset;
  const Json* blobs = ji::Find(j, "blobs");
  if (!blobs || !blobs->is_array()) return Corrupt("{}: 'blobs' must be a list", ctx);
  for (size_t i = 0; i < blobs->size(); ++i) {
    const std::string bctx = fmt::format("{} blob {}", ctx, i);
    FLOE_ASSIGN_OR_RETURN(PuffinBlobMetadata b, ParsePuffinBlob((*blobs)[i], bctx));
    if (b.offset < 4 || b.length < 0 || b.length > footer_offset - b.offset) {
      return Corrupt("{}: blob [{}, +{}) is outside the blob area [4, {}) of the file", bctx, b.offset, b.length,
                     footer_offset);
    }
    out.blobs.push_back(std::move(b));
  }
  FLOE_ASSIGN_OR_RETURN(out.properties, ji::GetStringMap(j, "properties", ctx));
  return out;
}

}  // namespace floe::iceberg

namespace floe::iceberg {

Result<std::unique_ptr<PuffinWriter>> PuffinWriter::Open(std::unique_ptr<OutputFile> file,
                                                         std::map<std::string, std::string> properties) {
  if (!file) return InvalidArgument("Puffin writer: no output file");
  std::unique_ptr<PuffinWriter> w(new PuffinWriter());
  w->file_ = std::move(file);
  w->properties_ = std::move(properties);
  if (Status st = w->file_->Write(kPuffinMagic, 4); !st) {
    w->file_->Abort();
    return Fail(std::move(st).error().WithContext(fmt::format("Puffin file {}", w->file_->path())));
  }
  return w;
}

PuffinWriter::~PuffinWriter() {
  if (!closed_ && file_) file_->Abort();
}

const std::string& PuffinWriter::path() const { return file_->path(); }

void PuffinWriter::Abort() {
  if (!closed_ && file_) file_->Abort();
  closed_ = true;
}

Result<PuffinBlobMetadata> PuffinWriter::Add(PuffinBlobMetadata metadata, std::span<const uint8_t> bytes) {
  if (closed_) return InvalidArgument("Puffin file {}: Add after Close", file_->path());
  if (metadata.compression_codec) {
    return Unsupported("Puffin file {}: blobs are written uncompressed; compression-codec '{}' is not supported",
                       file_->path(), *metadata.compression_codec);
  }
  metadata.offset = file_->Tell();
  metadata.length = static_cast<int64_t>(bytes.size());
  if (Status st = file_->Write(bytes.data(), bytes.size()); !st) {
    return Fail(std::move(st).error().WithContext(fmt::format("Puffin file {}", file_->path())));
  }
  blobs_.push_back(metadata);
  return metadata;
}

Result<int64_t> PuffinWriter::Close() {
  if (closed_) return InvalidArgument("Puffin file {}: closed twice", file_->path());
  closed_ = true;
  // FileMetadata (Puffin spec: Footer Payload), uncompressed.
  Json blobs = Json::array();
  for (const auto& b : blobs_) {
    Json jb = Json::object();
    jb["type"] = b.type;
    jb["fields"] = b.fields;
    jb["snapshot-id"] = b.snapshot_id;
    jb["sequence-number"] = b.sequence_number;
    jb["offset"] = b.offset;
    jb["length"] = b.length;
    if (!b.properties.empty()) {
      Json props = Json::object();
      for (const auto& [k, v] : b.properties) props[k] = v;
      jb["properties"] = std::move(props);
    }
    blobs.push_back(std::move(jb));
  }
  Json root = Json::object();
  root["blobs"] = std::move(blobs);
  if (!properties_.empty()) {
    Json props = Json::object();
    for (const auto& [k, v] : properties_) props[k] = v;
    root["properties"] = std::move(props);
  }
  const std::string payload = root.dump();
  if (payload.size() > static_cast<size_t>(kMaxPuffinFooterBytes)) {
    file_->Abort();
    return InvalidArgument("Puffin file {}: a footer of {} bytes is too large", file_->path(), payload.size());
  }
  std::string footer(kPuffinMagic, kPuffinMagic + 4);
  footer += payload;
  const uint32_t size = static_cast<uint32_t>(payload.size());
  for (int i = 0; i < 4; ++i) footer.push_back(static_cast<char>((size >> (8 * i)) & 0xFF));  // little-endian
  footer.append(4, '\0');  // flags: nothing compressed
  footer.append(reinterpret_cast<const char*>(kPuffinMagic), 4);
  auto fail = [&](Status st) -> Result<int64_t> {
    file_->Abort();
    return Fail(std::move(st).error().WithContext(fmt::format("Puffin file {}", file_->path())));
  };
  if (Status st = file_->Write(footer.data(), footer.size()); !st) return fail(std::move(st));
  const int64_t total = file_->Tell();
  if (Status st = file_->Commit(); !st) return fail(std::move(st));
  return total;
}

}  // namespace floe::iceberg
