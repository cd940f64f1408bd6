// Deletion vectors and Puffin files built byte by byte from the specs, for
// the readers' tests (not floe's code: an independent writer):
//  - RoaringFormatSpec "General layout" (32-bit: cookie, descriptive header,
//    offset header, array / bitset / run containers) and its "Extension for
//    64-bit implementations" (bucket count, then key + 32-bit bitmap);
//  - Puffin spec: the deletion-vector-v1 blob (big-endian length, magic
//    D1 D3 39 64, vector, big-endian CRC-32 of magic + vector) and the file
//    (Magic Blob* Footer; Footer = Magic JSON PayloadSize Flags Magic).
#pragma once

#include <zlib.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace floe::test {

enum class RoaringKind { kArray, kBitset, kRun };

inline void PutLe(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
inline void PutBe32(std::string* out, uint32_t v) {
  for (int i = 3; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

/// Chooses a container's kind from its (high 32 bits, 16-bit key, values);
/// the default: bitset above 4096 values, else array.
using RoaringChooser = std::function<RoaringKind(uint32_t high, uint16_t key, const std::vector<uint16_t>& values)>;

inline RoaringKind DefaultRoaringKind(uint32_t, uint16_t, const std::vector<uint16_t>& v) {
  return v.size() > 4096 ? RoaringKind::kBitset : RoaringKind::kArray;
}

/// A standard 32-bit Roaring bitmap of `values` (ascending, distinct).
inline std::string Roaring32(uint32_t high, const std::vector<uint32_t>& values, const RoaringChooser& choose) {
  std::map<uint16_t, std::vector<uint16_t>> containers;
  for (uint32_t v : values) containers[static_cast<uint16_t>(v >> 16)].push_back(static_cast<uint16_t>(v & 0xFFFF));
  const uint32_t size = static_cast<uint32_t>(containers.size());
  std::vector<RoaringKind> kinds;
  std::vector<std::string> bodies;
  bool has_run = false;
  for (const auto& [key, vals] : containers) {
    RoaringKind k = choose(high, key, vals);
    std::string body;
    if (k == RoaringKind::kArray) {
      for (uint16_t v : vals) PutLe(&body, v, 2);
    } else if (k == RoaringKind::kBitset) {
      std::vector<uint64_t> words(1024, 0);
      for (uint16_t v : vals) words[v / 64] |= uint64_t{1} << (v % 64);
      for (uint64_t w : words) PutLe(&body, w, 8);
    } else {
      has_run = true;
      std::vector<std::pair<uint16_t, uint16_t>> runs;  // start, length - 1
      for (size_t i = 0; i < vals.size();) {
        size_t j = i;
        while (j + 1 < vals.size() && vals[j + 1] == vals[j] + 1) ++j;
        runs.push_back({vals[i], static_cast<uint16_t>(j - i)});
        i = j + 1;
      }
      PutLe(&body, runs.size(), 2);
      for (auto [s, l] : runs) {
        PutLe(&body, s, 2);
        PutLe(&body, l, 2);
      }
    }
    kinds.push_back(k);
    bodies.push_back(std::move(body));
  }
  std::string out;
  uint32_t start = 0;
  if (has_run) {
    PutLe(&out, 12347u | ((size - 1) << 16), 4);
    std::string flags((size + 7) / 8, '\0');
    for (uint32_t i = 0; i < size; ++i) {
      if (kinds[i] == RoaringKind::kRun) flags[i / 8] = static_cast<char>(flags[i / 8] | (1 << (i % 8)));
    }
    out += flags;
    start = size < 4 ? 4 + 4 * size + static_cast<uint32_t>(flags.size())
                     : 4 + 8 * size + static_cast<uint32_t>(flags.size());
  } else {
    PutLe(&out, 12346, 4);
    PutLe(&out, size, 4);
    start = 4 + 4 + 4 * size + 4 * size;
  }
  for (const auto& [key, vals] : containers) {
    PutLe(&out, key, 2);
    PutLe(&out, vals.size() - 1, 2);
  }
  if (!has_run || size >= 4) {
    for (const auto& b : bodies) {
      PutLe(&out, start, 4);
      start += static_cast<uint32_t>(b.size());
    }
  }
  for (const auto& b : bodies) out += b;
  return out;
}

/// The portable 64-bit Roaring format of `positions` (ascending, distinct).
inline std::string PortableRoaring64(const std::vector<uint64_t>& positions,
                                     const RoaringChooser& choose = DefaultRoaringKind) {
  std::map<uint32_t, std::vector<uint32_t>> buckets;
  for (uint64_t p : positions) buckets[static_cast<uint32_t>(p >> 32)].push_back(static_cast<uint32_t>(p));
  std::string out;
  PutLe(&out, buckets.size(), 8);
  for (const auto& [high, lows] : buckets) {
    PutLe(&out, high, 4);
    out += Roaring32(high, lows, choose);
  }
  return out;
}

/// A deletion-vector-v1 blob around a portable bitmap.
inline std::string DeletionVectorBlob(const std::string& vector) {
  std::string checked = std::string("\xD1\xD3\x39\x64", 4) + vector;
  std::string out;
  PutBe32(&out, static_cast<uint32_t>(checked.size()));
  out += checked;
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(checked.data()), static_cast<uInt>(checked.size()));
  PutBe32(&out, static_cast<uint32_t>(crc));
  return out;
}

/// A Puffin file built blob by blob.
class PuffinBuilder {
 public:
  struct Blob {
    int64_t offset, length;
  };
  /// Appends a blob; `properties_json` is the JSON text of its properties
  /// object. Returns where it went.
  Blob Add(const std::string& bytes, const std::string& properties_json,
           const std::string& type = "deletion-vector-v1") {
    Blob b{static_cast<int64_t>(bytes_.size()), static_cast<int64_t>(bytes.size())};
    bytes_ += bytes;
    if (!blobs_json_.empty()) blobs_json_ += ",";
    blobs_json_ += "{\"type\":\"" + type + "\",\"fields\":[],\"snapshot-id\":-1,\"sequence-number\":-1,\"offset\":" +
                   std::to_string(b.offset) + ",\"length\":" + std::to_string(b.length) +
                   ",\"properties\":" + properties_json + "}";
    return b;
  }
  /// The footer's JSON payload.
  std::string FooterJson() const {
    return "{\"blobs\":[" + blobs_json_ + "],\"properties\":{\"created-by\":\"floe tests\"}}";
  }
  /// The whole file; `payload` replaces the footer JSON (e.g. compressed),
  /// `flags` byte 0 is the footer's first flag byte.
  std::string Finish(const std::string* payload = nullptr, uint8_t flags = 0) const {
    const std::string json = payload ? *payload : FooterJson();
    std::string out = bytes_;
    out += "PFA1";
    out += json;
    PutLe(&out, json.size(), 4);
    out.push_back(static_cast<char>(flags));
    out.append(3, '\0');
    out += "PFA1";
    return out;
  }

 private:
  std::string bytes_ = "PFA1";
  std::string blobs_json_;
};

/// Properties of a deletion vector blob.
inline std::string DvProperties(const std::string& data_file, int64_t cardinality) {
  return "{\"referenced-data-file\":\"" + data_file + "\",\"cardinality\":\"" + std::to_string(cardinality) + "\"}";
}

}  // namespace floe::test
