/// \file
/// Column chunk reading for the Parquet reader (see reader_column.h).
#include "floe/parquet/reader_column.h"

#include <algorithm>
#include <cstring>

#include "floe/parquet/page_crc_internal.h"
#include "floe/parquet/rle_decoder.h"
#include "floe/util/codec.h"

namespace floe::parquet {

namespace {

uint32_t LoadBe32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

/// The old "LZ4" codec: Hadoop's framing (4-byte big-endian uncompressed and
/// compressed sizes before each LZ4 block); some writers used a bare block.
Status DecompressHadoopLz4(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size) {
  const uint8_t* p = in;
  const uint8_t* end = in + in_size;
  size_t produced = 0;
  bool framed = true;
  while (p < end) {
    if (end - p < 8) {
      framed = false;
      break;
    }
    uint32_t raw = LoadBe32(p);
    uint32_t comp = LoadBe32(p + 4);
    if (comp > static_cast<size_t>(end - p - 8) || raw > out_size - produced) {
      framed = false;
      break;
    }
    if (!DecompressExact(Codec::kLz4Raw, p + 8, comp, out + produced, raw)) {
      framed = false;
      break;
    }
    produced += raw;
    p += 8 + comp;
  }
  if (framed && produced == out_size) return Ok();
  return DecompressExact(Codec::kLz4Raw, in, in_size, out, out_size);
}

const char* PageTypeName(int32_t type) {
  switch (type) {
    case format::PageType::DATA_PAGE: return "data";
    case format::PageType::INDEX_PAGE: return "index";
    case format::PageType::DICTIONARY_PAGE: return "dictionary";
    case format::PageType::DATA_PAGE_V2: return "data (v2)";
    default: return "unknown";
  }
}

}  // namespace

Status ColumnChunkReader::Fail(Error e) const {
  std::string where =
      page_index_ >= 0 ? fmt::format("{}, page {}", context_, page_index_) : context_;
  return ::floe::Fail(std::move(e).WithContext(where));
}

Status ColumnChunkReader::Open(const InputFile& file, const format::ColumnChunk& chunk,
                               const LeafInfo& leaf, std::string context) {
  leaf_ = &leaf;
  context_ = std::move(context);
  if (!leaf.unsupported.empty()) return Fail(Unsupported("{}", leaf.unsupported).error());
  if (!chunk.__isset.meta_data) return Fail(Corrupt("column chunk has no metadata").error());
  if (chunk.__isset.file_path && !chunk.file_path.empty()) {
    return Fail(Unsupported("column chunk stored in another file ({})", chunk.file_path).error());
  }
  const auto& md = chunk.meta_data;
  if (EnumValue(md.type) != static_cast<int>(leaf.physical)) {
    return Fail(Corrupt("column chunk type {} but the schema says {}", EnumValue(md.type),
                        PhysicalTypeName(leaf.physical))
                    .error());
  }
  int64_t start = md.data_page_offset;
  if (md.__isset.dictionary_page_offset && md.dictionary_page_offset > 0 &&
      md.dictionary_page_offset < start) {
    start = md.dictionary_page_offset;
  }
  const int64_t size = md.total_compressed_size;
  if (start < 0) return Fail(Corrupt("column chunk: negative offset {}", start).error());
  if (size < 0) return Fail(Corrupt("column chunk: negative length {}", size).error());
  if (start > file.Size()) {
    return Fail(Corrupt("column chunk starts at byte {}, past the end of the file of {} bytes",
                        start, file.Size())
                    .error());
  }
  if (size > file.Size() - start) {  // (compared so, start + size cannot overflow)
    return Fail(
        Corrupt("column chunk: {} bytes from byte {} run past the end of the file of {} bytes",
                size, start, file.Size())
            .error());
  }
  codec_ = EnumValue(md.codec);
  switch (codec_) {
    case format::CompressionCodec::UNCOMPRESSED:
    case format::CompressionCodec::SNAPPY:
    case format::CompressionCodec::GZIP:
    case format::CompressionCodec::BROTLI:
    case format::CompressionCodec::LZ4:
    case format::CompressionCodec::ZSTD:
    case format::CompressionCodec::LZ4_RAW: break;
    default: return Fail(Unsupported("compression codec {}", codec_).error());
  }
  if (Status st = file.ReadAt(start, static_cast<size_t>(size), &chunk_); !st) {
    return Fail(std::move(st).error());
  }
  chunk_values_ = md.num_values;
  pos_ = 0;
  has_dict_ = false;
  dict_.Clear();
  cur_ = nullptr;
  page_n_ = page_pos_ = 0;
  page_index_ = -1;
  entries_read_ = 0;
  return Ok();
}

Status ColumnChunkReader::Decompress(const uint8_t* in, size_t in_size, size_t out_size,
                                     const uint8_t** out) {
  if (out_size > static_cast<size_t>(kMaxPageBytes)) {
    return Corrupt("page of {} bytes uncompressed exceeds the limit of {}", out_size,
                   kMaxPageBytes);
  }
  using CC = format::CompressionCodec;
  if (codec_ == CC::UNCOMPRESSED) {
    if (in_size != out_size) {
      return Corrupt("uncompressed page: compressed size {} != uncompressed size {}", in_size,
                     out_size);
    }
    *out = in;
    return Ok();
  }
  page_buf_.Resize(out_size);
  Codec c;
  switch (codec_) {
    case CC::SNAPPY: c = Codec::kSnappy; break;
    case CC::GZIP: c = Codec::kGzip; break;
    case CC::BROTLI: c = Codec::kBrotli; break;
    case CC::ZSTD: c = Codec::kZstd; break;
    case CC::LZ4_RAW: c = Codec::kLz4Raw; break;
    case CC::LZ4:
      FLOE_RETURN_IF_ERROR(DecompressHadoopLz4(in, in_size, page_buf_.data(), out_size));
      *out = page_buf_.data();
      return Ok();
    default: return Unsupported("compression codec {}", codec_);
  }
  FLOE_RETURN_IF_ERROR(DecompressExact(c, in, in_size, page_buf_.data(), out_size));
  *out = page_buf_.data();
  return Ok();
}

Status ColumnChunkReader::LoadDictionary(const format::PageHeader& ph, const uint8_t* body,
                                         size_t size) {
  if (!ph.__isset.dictionary_page_header) return Corrupt("dictionary page without its header");
  if (has_dict_) return Corrupt("a second dictionary page in one column chunk");
  const auto& dh = ph.dictionary_page_header;
  const int32_t denc = EnumValue(dh.encoding);
  if (denc != format::Encoding::PLAIN && denc != format::Encoding::PLAIN_DICTIONARY) {
    return Corrupt("dictionary page encoding {}", EncodingName(denc));
  }
  const uint8_t* data = nullptr;
  FLOE_RETURN_IF_ERROR(
      Decompress(body, size, static_cast<size_t>(ph.uncompressed_page_size), &data));
  const size_t usize = static_cast<size_t>(ph.uncompressed_page_size);
  int64_t n = dh.num_values;
  int width = PhysicalWidth(leaf_->physical, leaf_->type_length);
  // Every value takes at least one bit (booleans) or its width (4 bytes of length for BYTE_ARRAY).
  uint64_t min_bytes = leaf_->physical == PhysicalType::kBoolean
                           ? (static_cast<uint64_t>(n) + 7) / 8
                       : width == 0 ? static_cast<uint64_t>(n) * 4
                                    : static_cast<uint64_t>(n) * width;
  if (n < 0 || n > kMaxPageValues * 4 || min_bytes > usize) {
    return Corrupt("dictionary page claims {} values in {} bytes", n, usize);
  }
  FLOE_ASSIGN_OR_RETURN(auto dec,
                        MakeValueDecoder(Encoding::kPlain, leaf_->physical, leaf_->type_length));
  FLOE_RETURN_IF_ERROR(dec->SetData(data, usize, n));
  dict_.Clear();
  FLOE_RETURN_IF_ERROR(dec->Decode(n, &dict_));
  has_dict_ = true;
  return Ok();
}

Status ColumnChunkReader::DecodeLevels(int32_t encoding, int max_level, const uint8_t** p,
                                       const uint8_t* end, bool length_prefixed, size_t v2_len,
                                       int64_t n, std::vector<int16_t>* out, const char* what) {
  out->resize(static_cast<size_t>(n));
  const int bw = BitWidthFor(static_cast<uint64_t>(max_level));
  int64_t got = 0;
  if (encoding == format::Encoding::RLE) {
    size_t len = v2_len;
    if (length_prefixed) {
      if (end - *p < 4) return Corrupt("{} levels: no length prefix", what);
      uint32_t l;
      std::memcpy(&l, *p, 4);
      *p += 4;
      len = l;
    }
    if (len > static_cast<size_t>(end - *p)) {
      return Corrupt("{} levels: {} bytes claimed, {} present", what, len, end - *p);
    }
    RleBitPackedDecoder dec(*p, len, bw);
    got = dec.GetBatch(out->data(), n);
    if (got == n && !length_prefixed && !dec.ConsumedExactly()) {
      // V2 levels: their byte length comes from the page header, outside the
      // page's checksum; a length that is not exactly the runs' bytes would
      // shift the values that follow.
      return Corrupt("{} levels: {} bytes claimed, but the runs of the {} levels do not end there",
                     what, len, n);
    }
    *p += len;
  } else if (encoding == format::Encoding::BIT_PACKED) {
    size_t len = (static_cast<size_t>(n) * bw + 7) / 8;
    if (len > static_cast<size_t>(end - *p)) {
      return Corrupt("{} levels: BIT_PACKED needs {} bytes, {} present", what, len, end - *p);
    }
    LegacyBitPackedDecoder dec;
    dec.Reset(*p, len, bw);
    got = dec.GetBatch(out->data(), n);
    *p += len;
  } else {
    return Corrupt("{} levels in encoding {}", what, EncodingName(encoding));
  }
  if (got != n) return Corrupt("{} levels: {} expected, {} present", what, n, got);
  int16_t mx = 0;
  for (int16_t v : *out) mx = std::max(mx, v);
  if (mx > max_level) return Corrupt("{} level {} above the maximum {}", what, mx, max_level);
  return Ok();
}

Status ColumnChunkReader::SetValues(int32_t encoding, const uint8_t* data, size_t size) {
  if (encoding < 0 || encoding > 9) return Unsupported("value encoding {}", encoding);
  int slot =
      encoding == format::Encoding::PLAIN_DICTIONARY ? format::Encoding::RLE_DICTIONARY : encoding;
  if (!decoders_[slot]) {
    FLOE_ASSIGN_OR_RETURN(decoders_[slot],
                          MakeValueDecoder(static_cast<Encoding>(encoding), leaf_->physical,
                                           leaf_->type_length, has_dict_ ? &dict_ : nullptr));
  }
  cur_ = decoders_[slot].get();
  // The page's entry count bounds its non-null values (what decoders check
  // their own counts against); counting the exact number would cost a pass.
  return cur_->SetData(data, size, page_n_);
}

Status ColumnChunkReader::NextPage(bool* got) {
  *got = false;
  while (pos_ < chunk_.size()) {
    ++page_index_;
    format::PageHeader ph;
    size_t left = chunk_.size() - pos_;
    uint32_t hsize = static_cast<uint32_t>(std::min<size_t>(left, UINT32_MAX));
    FLOE_RETURN_IF_ERROR(DeserializeThrift(chunk_.data() + pos_, &hsize, &ph, "page header"));
    pos_ += hsize;
    left = chunk_.size() - pos_;
    if (ph.compressed_page_size < 0 || static_cast<size_t>(ph.compressed_page_size) > left) {
      return Corrupt("page of {} bytes but {} bytes left in the column chunk",
                     ph.compressed_page_size, left);
    }
    if (ph.uncompressed_page_size < 0 || ph.uncompressed_page_size > kMaxPageBytes) {
      return Corrupt("page claims {} bytes uncompressed", ph.uncompressed_page_size);
    }
    const uint8_t* body = chunk_.data() + pos_;
    const size_t body_size = static_cast<size_t>(ph.compressed_page_size);
    pos_ += body_size;
    if (ph.__isset.crc) {
      // parquet.thrift PageHeader.crc: CRC-32 of the bytes after the header, as stored.
      const uint32_t expected = static_cast<uint32_t>(ph.crc);
      const uint32_t actual = PageCrc(body, body_size);
      if (actual != expected) {
        return Corrupt("{} page damaged: CRC-32 of its {} bytes {:08x}, header says {:08x}",
                       PageTypeName(EnumValue(ph.type)), body_size, actual, expected);
      }
    }
    switch (EnumValue(ph.type)) {
      case format::PageType::DICTIONARY_PAGE:
        FLOE_RETURN_IF_ERROR(LoadDictionary(ph, body, body_size));
        continue;
      case format::PageType::DATA_PAGE: {
        if (!ph.__isset.data_page_header) return Corrupt("data page without its header");
        const auto& h = ph.data_page_header;
        if (h.num_values < 0 || h.num_values > kMaxPageValues) {
          return Corrupt("data page claims {} values", h.num_values);
        }
        const uint8_t* data = nullptr;
        FLOE_RETURN_IF_ERROR(
            Decompress(body, body_size, static_cast<size_t>(ph.uncompressed_page_size), &data));
        const uint8_t* p = data;
        const uint8_t* end = data + ph.uncompressed_page_size;
        page_n_ = h.num_values;
        if (leaf_->max_rep > 0) {
          FLOE_RETURN_IF_ERROR(DecodeLevels(EnumValue(h.repetition_level_encoding), leaf_->max_rep,
                                            &p, end, true, 0, page_n_, &page_rep_, "repetition"));
        }
        if (leaf_->max_def > 0) {
          FLOE_RETURN_IF_ERROR(DecodeLevels(EnumValue(h.definition_level_encoding), leaf_->max_def,
                                            &p, end, true, 0, page_n_, &page_def_, "definition"));
        }
        page_pos_ = 0;
        FLOE_RETURN_IF_ERROR(SetValues(EnumValue(h.encoding), p, static_cast<size_t>(end - p)));
        *got = true;
        return Ok();
      }
      case format::PageType::DATA_PAGE_V2: {
        if (!ph.__isset.data_page_header_v2) return Corrupt("data page v2 without its header");
        const auto& h = ph.data_page_header_v2;
        if (h.num_values < 0 || h.num_values > kMaxPageValues) {
          return Corrupt("data page claims {} values", h.num_values);
        }
        const int64_t rl = h.repetition_levels_byte_length;
        const int64_t dl = h.definition_levels_byte_length;
        if (rl < 0 || dl < 0 || rl + dl > static_cast<int64_t>(body_size) ||
            rl + dl > ph.uncompressed_page_size) {
          return Corrupt("data page v2: level lengths {} + {} exceed the page of {} bytes", rl, dl,
                         body_size);
        }
        if ((leaf_->max_rep == 0 && rl != 0) || (leaf_->max_def == 0 && dl != 0)) {
          return Corrupt("data page v2: level lengths {} + {} for a column without {} levels", rl,
                         dl, leaf_->max_rep == 0 && rl != 0 ? "repetition" : "definition");
        }
        page_n_ = h.num_values;
        const uint8_t* p = body;
        const uint8_t* end = body + rl + dl;
        if (leaf_->max_rep > 0) {
          FLOE_RETURN_IF_ERROR(DecodeLevels(format::Encoding::RLE, leaf_->max_rep, &p, end, false,
                                            static_cast<size_t>(rl), page_n_, &page_rep_,
                                            "repetition"));
        } else {
          p += rl;
        }
        if (leaf_->max_def > 0) {
          FLOE_RETURN_IF_ERROR(DecodeLevels(format::Encoding::RLE, leaf_->max_def, &p, end, false,
                                            static_cast<size_t>(dl), page_n_, &page_def_,
                                            "definition"));
        }
        const uint8_t* vals = body + rl + dl;
        const size_t vsize = body_size - static_cast<size_t>(rl + dl);
        const size_t usize = static_cast<size_t>(ph.uncompressed_page_size - rl - dl);
        const uint8_t* data = vals;
        size_t dsize = vsize;
        const bool compressed = !h.__isset.is_compressed || h.is_compressed;
        if (compressed && codec_ != format::CompressionCodec::UNCOMPRESSED) {
          FLOE_RETURN_IF_ERROR(Decompress(vals, vsize, usize, &data));
          dsize = usize;
        } else if (usize != vsize) {
          return Corrupt(
              "data page v2: values stored uncompressed in {} bytes but {} bytes uncompressed "
              "claimed",
              vsize, usize);
        }
        page_pos_ = 0;
        FLOE_RETURN_IF_ERROR(SetValues(EnumValue(h.encoding), data, dsize));
        *got = true;
        return Ok();
      }
      default: continue;  // index pages and unknown page types are skipped
    }
  }
  return Ok();
}

Status ColumnChunkReader::ReadRows(int64_t rows, LeafBatch* out) {
  const int16_t max_def = leaf_->max_def;
  const int16_t max_rep = leaf_->max_rep;
  int64_t rows_read = 0;
  while (true) {
    if (page_pos_ == page_n_) {
      bool got = false;
      if (Status st = NextPage(&got); !st) return Fail(std::move(st).error());
      if (!got) break;
      continue;
    }
    const int64_t start = page_pos_;
    int64_t i = start;
    if (max_rep == 0) {
      int64_t take = std::min(rows - rows_read, page_n_ - i);
      i += take;
      rows_read += take;
    } else {
      const int16_t* rp = page_rep_.data();
      if (entries_read_ == 0 && rp[i] != 0) {
        return Fail(Corrupt("column chunk starts with repetition level {}", rp[i]).error());
      }
      for (; i < page_n_; ++i) {
        if (rp[i] == 0) {
          if (rows_read == rows) break;
          ++rows_read;
        }
      }
    }
    const int64_t n = i - start;
    if (out->entries + n > kMaxBatchEntries) {
      return Fail(Corrupt("more than {} values in {} rows", kMaxBatchEntries, rows).error());
    }
    int64_t nonnull = n;
    if (max_def > 0) {
      out->def.insert(out->def.end(), page_def_.begin() + start, page_def_.begin() + i);
      const int16_t* d = page_def_.data();
      nonnull = 0;
      for (int64_t k = start; k < i; ++k) nonnull += d[k] == max_def;
    }
    if (max_rep > 0)
      out->rep.insert(out->rep.end(), page_rep_.begin() + start, page_rep_.begin() + i);
    out->entries += n;
    entries_read_ += n;
    page_pos_ = i;
    if (nonnull > 0) {
      if (Status st = cur_->Decode(nonnull, &out->values); !st) {
        return Fail(std::move(st).error().WithContext("values"));
      }
    }
    if (rows_read == rows && (max_rep == 0 || i < page_n_)) break;
  }
  if (rows_read < rows) {
    return Fail(Corrupt("column chunk ended after {} of {} rows", rows_read, rows).error());
  }
  return Ok();
}

Status ColumnChunkReader::Finish() {
  if (page_pos_ != page_n_) {
    return Fail(
        Corrupt("{} entries of the page left after the row group's last row", page_n_ - page_pos_)
            .error());
  }
  while (true) {
    bool got = false;
    if (Status st = NextPage(&got); !st) return Fail(std::move(st).error());
    if (!got) break;
    if (page_n_ > 0) {
      return Fail(
          Corrupt("a data page of {} entries after the row group's last row", page_n_).error());
    }
  }
  if (entries_read_ != chunk_values_) {
    return Fail(Corrupt("column chunk holds {} entries but its metadata says num_values {}",
                        entries_read_, chunk_values_)
                    .error());
  }
  return Ok();
}

}  // namespace floe::parquet
