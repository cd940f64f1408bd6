#include "floe/iceberg/deletion_vector.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "floe/iceberg/manifest.h"
#include "floe/iceberg/puffin.h"

namespace floe::iceberg {

namespace {

// Cookies of the 32-bit Roaring format (RoaringFormatSpec: Cookie header).
constexpr uint32_t kRoaringCookieNoRuns = 12346;
constexpr uint32_t kRoaringCookieRuns = 12347;
// Fewer containers than this and a bitmap with runs has no offset header.
constexpr uint32_t kRoaringNoOffsetThreshold = 4;
// Cardinality above which a container that is not a run is a bitset.
constexpr uint32_t kRoaringMaxArray = 4096;

// Little-endian reads over a byte span with a bounds check on every read.
class DvBytes {
 public:
  DvBytes(std::span<const uint8_t> b, std::string_view where) : b_(b), where_(where) {}
  size_t left() const { return b_.size() - at_; }
  size_t at() const { return at_; }
  Status Need(size_t n, std::string_view what) const {
    if (n > left()) {
      return Corrupt("{}: truncated: {} needs {} bytes at byte {} of the vector, {} left", where_, what, n,
                     at_, left());
    }
    return Ok();
  }
  uint16_t U16() {
    uint16_t v = static_cast<uint16_t>(b_[at_] | (b_[at_ + 1] << 8));
    at_ += 2;
    return v;
  }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | b_[at_ + static_cast<size_t>(i)];
    at_ += 4;
    return v;
  }
  uint64_t U64() {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | b_[at_ + static_cast<size_t>(i)];
    at_ += 8;
    return v;
  }
  const uint8_t* Here() const { return b_.data() + at_; }
  void Skip(size_t n) { at_ += n; }

 private:
  std::span<const uint8_t> b_;
  size_t at_ = 0;
  std::string_view where_;
};

uint32_t BigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

}  // namespace

Result<DeletionVector> DeletionVector::DecodeBlob(std::span<const uint8_t> blob, std::string_view where) {
  // length (4) + magic (4) + vector (>= 8: its bitmap count) + CRC (4).
  if (blob.size() < 20) {
    return Corrupt("{}: a deletion-vector-v1 blob of {} bytes (at least 20: length, magic, vector, CRC-32)",
                   where, blob.size());
  }
  const uint32_t length = BigEndian32(blob.data());
  if (length != blob.size() - 8) {
    return Corrupt("{}: the blob's length field says {} bytes of magic and vector, but content_size_in_bytes {} "
                   "leaves {}",
                   where, length, blob.size(), blob.size() - 8);
  }
  if (std::memcmp(blob.data() + 4, kDeletionVectorMagic, 4) != 0) {
    return Corrupt("{}: bad deletion vector magic {:02X} {:02X} {:02X} {:02X} (expected D1 D3 39 64)", where,
                   blob[4], blob[5], blob[6], blob[7]);
  }
  const size_t checked = blob.size() - 8;  // magic + vector
  const uint32_t stored = BigEndian32(blob.data() + blob.size() - 4);
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, blob.data() + 4, static_cast<uInt>(checked));
  if (static_cast<uint32_t>(crc) != stored) {
    return Corrupt("{}: CRC-32 mismatch: the blob stores {:08x}, its magic and vector hash to {:08x}", where,
                   stored, static_cast<uint32_t>(crc));
  }
  return DecodePortable(blob.subspan(8, blob.size() - 12), where);
}

Result<DeletionVector> DeletionVector::DecodePortable(std::span<const uint8_t> bytes, std::string_view where) {
  DvBytes in(bytes, where);
  FLOE_RETURN_IF_ERROR(in.Need(8, "the number of 32-bit bitmaps"));
  const uint64_t buckets = in.U64();
  // Each bitmap takes at least 12 bytes (its key, a cookie, a container count).
  if (buckets > in.left() / 12) {
    return Corrupt("{}: the vector says {} 32-bit bitmaps, but {} bytes hold at most {}", where, buckets,
                   in.left(), in.left() / 12);
  }
  DeletionVector out;
  int64_t prev_key = -1;
  for (uint64_t b = 0; b < buckets; ++b) {
    FLOE_RETURN_IF_ERROR(in.Need(4, "a bitmap key"));
    const uint32_t key = in.U32();
    if (static_cast<int64_t>(key) <= prev_key) {
      return Corrupt("{}: 32-bit bitmap keys are not strictly ascending ({} after {})", where, key, prev_key);
    }
    if (key > 0x7FFFFFFFu) {
      return Corrupt("{}: bitmap key {} gives positions with the sign bit set (positions must be positive)",
                     where, key);
    }
    prev_key = key;
    const int64_t high = static_cast<int64_t>(key) << 32;

    FLOE_RETURN_IF_ERROR(in.Need(4, "a Roaring cookie"));
    const uint32_t cookie = in.U32();
    uint32_t size = 0;
    const uint8_t* run_flags = nullptr;
    if ((cookie & 0xFFFF) == kRoaringCookieRuns) {
      size = (cookie >> 16) + 1;
      FLOE_RETURN_IF_ERROR(in.Need((size + 7) / 8, "the run-container flags"));
      run_flags = in.Here();
      in.Skip((size + 7) / 8);
    } else if (cookie == kRoaringCookieNoRuns) {
      FLOE_RETURN_IF_ERROR(in.Need(4, "the container count"));
      size = in.U32();
      if (size > 65536) return Corrupt("{}: a 32-bit bitmap with {} containers (at most 65536)", where, size);
    } else {
      return Corrupt("{}: bad Roaring cookie {} in bitmap {} (expected {} or {})", where, cookie, key,
                     kRoaringCookieNoRuns, kRoaringCookieRuns);
    }
    FLOE_RETURN_IF_ERROR(in.Need(size_t{4} * size, "the container headers"));
    std::vector<std::pair<uint16_t, uint32_t>> headers(size);  // key, cardinality
    for (uint32_t i = 0; i < size; ++i) {
      headers[i].first = in.U16();
      headers[i].second = uint32_t{in.U16()} + 1;
      if (i > 0 && headers[i].first <= headers[i - 1].first) {
        return Corrupt("{}: container keys of bitmap {} are not strictly ascending ({} after {})", where, key,
                       headers[i].first, headers[i - 1].first);
      }
    }
    if (!run_flags || size >= kRoaringNoOffsetThreshold) {
      // The offset header (random access only; containers are read in order).
      FLOE_RETURN_IF_ERROR(in.Need(size_t{4} * size, "the container offsets"));
      in.Skip(size_t{4} * size);
    }
    for (uint32_t i = 0; i < size; ++i) {
      Container c;
      c.base = high | (int64_t{headers[i].first} << 16);
      c.cardinality = headers[i].second;
      const bool is_run = run_flags && ((run_flags[i / 8] >> (i % 8)) & 1);
      if (is_run) {
        c.kind = Container::Kind::kRun;
        FLOE_RETURN_IF_ERROR(in.Need(2, "a run count"));
        const uint16_t runs = in.U16();
        FLOE_RETURN_IF_ERROR(in.Need(size_t{4} * runs, "the runs"));
        c.values.resize(size_t{2} * runs);
        uint64_t total = 0;
        int64_t next_free = 0;
        for (uint16_t r = 0; r < runs; ++r) {
          const uint16_t start = in.U16();
          const uint32_t len = uint32_t{in.U16()} + 1;
          if (start < next_free) {
            return Corrupt("{}: runs of container {} of bitmap {} overlap or are not sorted", where,
                           headers[i].first, key);
          }
          if (start + len > 65536) {
            return Corrupt("{}: a run of container {} of bitmap {} ends past the container", where,
                           headers[i].first, key);
          }
          next_free = start + len;
          total += len;
          c.values[size_t{2} * r] = start;
          c.values[size_t{2} * r + 1] = static_cast<uint16_t>(len - 1);
        }
        if (total != c.cardinality) {
          return Corrupt("{}: run container {} of bitmap {} holds {} positions, its header says {}", where,
                         headers[i].first, key, total, c.cardinality);
        }
      } else if (c.cardinality <= kRoaringMaxArray) {
        c.kind = Container::Kind::kArray;
        FLOE_RETURN_IF_ERROR(in.Need(size_t{2} * c.cardinality, "an array container"));
        c.values.resize(c.cardinality);
        for (uint32_t j = 0; j < c.cardinality; ++j) {
          c.values[j] = in.U16();
          if (j > 0 && c.values[j] <= c.values[j - 1]) {
            return Corrupt("{}: array container {} of bitmap {} is not strictly ascending", where,
                           headers[i].first, key);
          }
        }
      } else {
        c.kind = Container::Kind::kBitset;
        FLOE_RETURN_IF_ERROR(in.Need(8192, "a bitset container"));
        c.words.resize(1024);
        uint64_t count = 0;
        for (auto& w : c.words) {
          w = in.U64();
          count += static_cast<uint64_t>(std::popcount(w));
        }
        if (count != c.cardinality) {
          return Corrupt("{}: bitset container {} of bitmap {} holds {} positions, its header says {}", where,
                         headers[i].first, key, count, c.cardinality);
        }
      }
      out.cardinality_ += c.cardinality;
      out.containers_.push_back(std::move(c));
    }
  }
  if (in.left() != 0) {
    return Corrupt("{}: {} bytes after the bitmap's end (byte {} of {})", where, in.left(), in.at(),
                   bytes.size());
  }
  return out;
}

bool DeletionVector::Contains(int64_t position) const {
  if (position < 0) return false;
  const int64_t base = position & ~int64_t{0xFFFF};
  auto it = std::lower_bound(containers_.begin(), containers_.end(), base,
                             [](const Container& c, int64_t b) { return c.base < b; });
  if (it == containers_.end() || it->base != base) return false;
  const auto low = static_cast<uint16_t>(position & 0xFFFF);
  switch (it->kind) {
    case Container::Kind::kArray:
      return std::binary_search(it->values.begin(), it->values.end(), low);
    case Container::Kind::kBitset:
      return (it->words[low / 64] >> (low % 64)) & 1;
    case Container::Kind::kRun:
      for (size_t r = 0; r + 1 < it->values.size(); r += 2) {
        if (low >= it->values[r] && low <= uint32_t{it->values[r]} + it->values[r + 1]) return true;
      }
      return false;
  }
  return false;
}

std::vector<int64_t> DeletionVector::Positions() const {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(cardinality_));
  for (const auto& c : containers_) {
    switch (c.kind) {
      case Container::Kind::kArray:
        for (uint16_t v : c.values) out.push_back(c.base + v);
        break;
      case Container::Kind::kBitset:
        for (size_t w = 0; w < c.words.size(); ++w) {
          for (uint64_t word = c.words[w]; word; word &= word - 1) {
            out.push_back(c.base + static_cast<int64_t>(w * 64) + std::countr_zero(word));
          }
        }
        break;
      case Container::Kind::kRun:
        for (size_t r = 0; r + 1 < c.values.size(); r += 2) {
          for (uint32_t v = c.values[r]; v <= uint32_t{c.values[r]} + c.values[r + 1]; ++v) out.push_back(c.base + v);
        }
        break;
    }
  }
  return out;
}

void DeletionVector::ApplyContainer(const Container& c, int64_t begin, int64_t end, int64_t first_row,
                                    std::span<uint8_t> keep) {
  // [lo, hi): the container-relative positions of the batch.
  const int64_t lo = std::max(begin, c.base) - c.base;
  const int64_t hi = std::min(end, c.base + 65536) - c.base;
  if (lo >= hi) return;
  const int64_t shift = c.base - first_row;
  switch (c.kind) {
    case Container::Kind::kArray: {
      auto it = std::lower_bound(c.values.begin(), c.values.end(), static_cast<uint16_t>(lo));
      for (; it != c.values.end() && *it < hi; ++it) keep[static_cast<size_t>(shift + *it)] = 0;
      break;
    }
    case Container::Kind::kBitset: {
      for (int64_t w = lo / 64; w <= (hi - 1) / 64; ++w) {
        uint64_t word = c.words[static_cast<size_t>(w)];
        if (w == lo / 64) word &= ~uint64_t{0} << (lo % 64);
        if (w == (hi - 1) / 64 && (hi % 64) != 0) word &= ~(~uint64_t{0} << (hi % 64));
        for (; word; word &= word - 1) {
          keep[static_cast<size_t>(shift + w * 64 + std::countr_zero(word))] = 0;
        }
      }
      break;
    }
    case Container::Kind::kRun: {
      for (size_t r = 0; r + 1 < c.values.size(); r += 2) {
        const int64_t s = std::max<int64_t>(lo, c.values[r]);
        const int64_t e = std::min<int64_t>(hi, int64_t{c.values[r]} + c.values[r + 1] + 1);
        for (int64_t p = s; p < e; ++p) keep[static_cast<size_t>(shift + p)] = 0;
      }
      break;
    }
  }
}

void DeletionVector::Apply(int64_t first_row, std::span<uint8_t> keep) const {
  if (containers_.empty() || keep.empty()) return;
  const int64_t end = first_row + static_cast<int64_t>(keep.size());
  // The first container that may hold first_row or later.
  auto it = std::lower_bound(containers_.begin(), containers_.end(), first_row,
                             [](const Container& c, int64_t row) { return c.base + 65536 <= row; });
  for (; it != containers_.end() && it->base < end; ++it) ApplyContainer(*it, first_row, end, first_row, keep);
}

bool IsDeletionVector(const DataFile& file) {
  return file.content != DataFileContent::kData &&
         (file.file_format == FileFormat::kPuffin || file.content_offset.has_value());
}

std::string DeletionVectorName(const DataFile& file) {
  return fmt::format("deletion vector {} at offset {} (data file {})", file.file_path,
                     file.content_offset ? std::to_string(*file.content_offset) : std::string("null"),
                     file.referenced_data_file.value_or("null"));
}

Result<DeletionVector> ReadDeletionVector(const InputFile& puffin, const PuffinFileMetadata& footer,
                                          const DataFile& file) {
  const std::string where = DeletionVectorName(file);
  if (file.content != DataFileContent::kPositionDeletes || file.file_format != FileFormat::kPuffin) {
    return Corrupt("{}: a deletion vector must be a position delete file in PUFFIN format", where);
  }
  if (!file.content_offset || !file.content_size_in_bytes) {
    return Corrupt("{}: content_offset and content_size_in_bytes are required for a deletion vector", where);
  }
  if (!file.referenced_data_file) {
    return Corrupt("{}: referenced_data_file is required for a deletion vector", where);
  }
  const int64_t offset = *file.content_offset;
  const int64_t length = *file.content_size_in_bytes;
  if (offset < 4 || length < 0 || length > footer.footer_offset - offset) {
    return Corrupt("{}: the blob [{}, +{}) lies outside the Puffin file's blob area [4, {})", where, offset,
                   length, footer.footer_offset);
  }
  const PuffinBlobMetadata* blob = footer.FindBlob(offset, length);
  if (!blob) {
    return Corrupt("{}: the Puffin footer lists no blob at offset {} with length {}", where, offset, length);
  }
  if (blob->type != kDeletionVectorBlobType) {
    return Corrupt("{}: the Puffin blob at offset {} is a '{}', not a '{}'", where, offset, blob->type,
                   kDeletionVectorBlobType);
  }
  if (blob->compression_codec) {
    return Corrupt("{}: the blob has compression-codec '{}' (a deletion-vector-v1 blob is never compressed)",
                   where, *blob->compression_codec);
  }
  if (auto it = blob->properties.find("referenced-data-file");
      it != blob->properties.end() && it->second != *file.referenced_data_file) {
    return Corrupt("{}: the Puffin blob is for data file {}, the manifest entry for {}", where, it->second,
                   *file.referenced_data_file);
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(length));
  FLOE_RETURN_IF_ERROR(puffin.ReadAt(offset, bytes.size(), bytes.data()));
  FLOE_ASSIGN_OR_RETURN(DeletionVector dv, DeletionVector::DecodeBlob(bytes, where));
  if (dv.cardinality() != file.record_count) {
    return Corrupt("{}: the vector holds {} positions, its manifest entry's record_count says {}", where,
                   dv.cardinality(), file.record_count);
  }
  if (auto it = blob->properties.find("cardinality"); it != blob->properties.end()) {
    if (it->second != std::to_string(dv.cardinality())) {
      return Corrupt("{}: the vector holds {} positions, its Puffin blob's cardinality property says '{}'",
                     where, dv.cardinality(), it->second);
    }
  }
  return dv;
}

}  // namespace floe::iceberg

// ------------------------------------------------------------------ encoding

namespace floe::iceberg {
namespace {

void PutLe16(std::string* out, uint16_t v) {
  out->push_back(static_cast<char>(v & 0xFF));
  out->push_back(static_cast<char>(v >> 8));
}
void PutLe32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void PutLe64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void PutBe32(std::string* out, uint32_t v) {
  for (int i = 3; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// One container of a 32-bit bitmap being encoded: its 16-bit key and the low
// 16 bits of its values, ascending and distinct.
struct EncodeContainer {
  uint16_t key = 0;
  std::vector<uint16_t> values;
  bool run = false;
  std::vector<std::pair<uint16_t, uint16_t>> runs;  // start, length - 1
};

// Chooses the container kind as Roaring's run optimisation does: runs when
// they serialize smaller than the array or bitset the values would take.
void ChooseKind(EncodeContainer* c) {
  c->runs.clear();
  for (size_t i = 0; i < c->values.size();) {
    size_t j = i;
    while (j + 1 < c->values.size() && c->values[j + 1] == c->values[j] + 1) ++j;
    c->runs.emplace_back(c->values[i], static_cast<uint16_t>(j - i));
    i = j + 1;
  }
  const size_t card = c->values.size();
  const size_t plain_bytes = card <= 4096 ? 2 * card : 8192;
  const size_t run_bytes = 2 + 4 * c->runs.size();
  c->run = run_bytes < plain_bytes;
}

// A standard 32-bit Roaring bitmap (RoaringFormatSpec: General layout).
void EncodeRoaring32(std::vector<EncodeContainer>& containers, std::string* out) {
  const size_t start = out->size();
  const uint32_t size = static_cast<uint32_t>(containers.size());
  bool has_run = false;
  for (auto& c : containers) {
    ChooseKind(&c);
    has_run = has_run || c.run;
  }
  if (has_run) {
    PutLe32(out, 12347u | ((size - 1) << 16));
    std::string flags((size + 7) / 8, '\0');
    for (uint32_t i = 0; i < size; ++i) {
      if (containers[i].run) flags[i / 8] = static_cast<char>(flags[i / 8] | (1 << (i % 8)));
    }
    *out += flags;
  } else {
    PutLe32(out, 12346u);
    PutLe32(out, size);
  }
  for (const auto& c : containers) {
    PutLe16(out, c.key);
    PutLe16(out, static_cast<uint16_t>(c.values.size() - 1));
  }
  // Offsets: always without runs, and with runs from 4 containers on.
  const bool offsets = !has_run || size >= 4;
  size_t offset_at = out->size();
  if (offsets) out->append(size_t{4} * size, '\0');
  for (uint32_t i = 0; i < size; ++i) {
    const auto& c = containers[i];
    if (offsets) {
      const uint32_t off = static_cast<uint32_t>(out->size() - start);
      for (int b = 0; b < 4; ++b) (*out)[offset_at + 4 * i + b] = static_cast<char>((off >> (8 * b)) & 0xFF);
    }
    if (c.run) {
      PutLe16(out, static_cast<uint16_t>(c.runs.size()));
      for (const auto& [s, l] : c.runs) {
        PutLe16(out, s);
        PutLe16(out, l);
      }
    } else if (c.values.size() <= 4096) {
      for (uint16_t v : c.values) PutLe16(out, v);
    } else {
      std::vector<uint64_t> words(1024, 0);
      for (uint16_t v : c.values) words[v >> 6] |= uint64_t{1} << (v & 63);
      for (uint64_t w : words) PutLe64(out, w);
    }
  }
}

// Positions sorted ascending and distinct.
std::vector<int64_t> SortedDistinct(std::span<const int64_t> positions) {
  std::vector<int64_t> sorted(positions.begin(), positions.end());
  if (!std::is_sorted(sorted.begin(), sorted.end())) std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  return sorted;
}

Result<std::string> EncodeSorted(const std::vector<int64_t>& sorted) {
  if (!sorted.empty() && sorted.front() < 0) {
    return InvalidArgument("deletion vector: position {} is negative", sorted.front());
  }
  // Group by the high 32 bits, then by the next 16.
  std::string out;
  size_t buckets = 0;
  for (size_t i = 0; i < sorted.size();) {
    const uint64_t high = static_cast<uint64_t>(sorted[i]) >> 32;
    size_t j = i;
    while (j < sorted.size() && (static_cast<uint64_t>(sorted[j]) >> 32) == high) ++j;
    ++buckets;
    i = j;
  }
  PutLe64(&out, buckets);
  for (size_t i = 0; i < sorted.size();) {
    const uint64_t high = static_cast<uint64_t>(sorted[i]) >> 32;
    std::vector<EncodeContainer> containers;
    for (; i < sorted.size() && (static_cast<uint64_t>(sorted[i]) >> 32) == high; ++i) {
      const uint32_t low = static_cast<uint32_t>(sorted[i]);
      const uint16_t key = static_cast<uint16_t>(low >> 16);
      if (containers.empty() || containers.back().key != key) {
        containers.emplace_back();
        containers.back().key = key;
      }
      containers.back().values.push_back(static_cast<uint16_t>(low & 0xFFFF));
    }
    PutLe32(&out, static_cast<uint32_t>(high));
    EncodeRoaring32(containers, &out);
  }
  return out;
}

}  // namespace

Result<std::string> EncodePortableRoaring64(std::span<const int64_t> positions) {
  return EncodeSorted(SortedDistinct(positions));
}

Result<std::string> EncodeDeletionVectorBlob(std::span<const int64_t> positions, int64_t* cardinality) {
  const std::vector<int64_t> sorted = SortedDistinct(positions);
  FLOE_ASSIGN_OR_RETURN(std::string vector, EncodeSorted(sorted));
  if (vector.size() > 0xFFFFFFFFu - 8) {
    return InvalidArgument("deletion vector: {} bytes do not fit a blob's 4-byte length", vector.size());
  }
  std::string blob;
  blob.reserve(vector.size() + 12);
  PutBe32(&blob, static_cast<uint32_t>(vector.size() + 4));
  blob.append(reinterpret_cast<const char*>(kDeletionVectorMagic), 4);
  blob += vector;
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(blob.data() + 4), static_cast<uInt>(vector.size() + 4));
  PutBe32(&blob, static_cast<uint32_t>(crc));
  if (cardinality) *cardinality = static_cast<int64_t>(sorted.size());
  return blob;
}

}  // namespace floe::iceberg
