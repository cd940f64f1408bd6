/// \file
/// The `deletion-vector-v1` blob of format v3 (Puffin spec: Blob types): the
/// deleted row positions of one data file as a 64-bit Roaring bitmap.
///
///   blob   = length (4 bytes, big-endian: magic + vector) | magic D1 D3 39 64 |
///            vector | CRC-32 of magic + vector (4 bytes, big-endian)
///   vector = the "portable" 64-bit Roaring format (RoaringFormatSpec, extension
///            for 64-bit implementations): the number of 32-bit bitmaps (8
///            bytes, little-endian), then per bitmap in ascending key order the
///            high 32 bits of its positions (4 bytes, little-endian) and a
///            standard 32-bit Roaring bitmap (array, bitset and run containers).
///
/// Decoded here from the format specs (no Roaring library: Debian 12's CRoaring
/// 0.2.66 has no 64-bit portable format, and decoding is small). Everything is
/// checked before it is trusted: lengths against the bytes there are, container
/// keys and array values strictly ascending, run and bitset cardinalities equal
/// to their headers, no position with the sign bit, nothing after the bitmap.
/// Malformed input is a kCorrupt error naming `where`; no input makes it read
/// out of bounds or allocate more than the blob's size allows.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/io/file.h"
#include "floe/util/status.h"

namespace floe::iceberg {

struct DataFile;
struct PuffinFileMetadata;

/// The magic at the start of a deletion-vector-v1 blob's checked bytes.
inline constexpr uint8_t kDeletionVectorMagic[4] = {0xD1, 0xD3, 0x39, 0x64};
/// The Puffin blob type of a deletion vector.
inline constexpr std::string_view kDeletionVectorBlobType = "deletion-vector-v1";

/// A decoded deletion vector: sorted, immutable, cheap to apply to a range of
/// row positions. Thread-safe to read.
class DeletionVector {
 public:
  /// Decodes a whole deletion-vector-v1 blob (length, magic, vector, CRC).
  /// `where` names the blob in errors (file and offset).
  static Result<DeletionVector> DecodeBlob(std::span<const uint8_t> blob, std::string_view where);
  /// Decodes a bare portable 64-bit Roaring bitmap (the blob's vector part).
  static Result<DeletionVector> DecodePortable(std::span<const uint8_t> bytes, std::string_view where);

  /// Number of deleted positions.
  int64_t cardinality() const { return cardinality_; }
  bool empty() const { return cardinality_ == 0; }
  bool Contains(int64_t position) const;
  /// Every deleted position, ascending (for tests and small vectors).
  std::vector<int64_t> Positions() const;
  /// Clears `keep[i]` for each i with position first_row + i deleted.
  void Apply(int64_t first_row, std::span<uint8_t> keep) const;

 private:
  // One 2^16-position chunk: positions base .. base + 65535.
  struct Container {
    enum class Kind : uint8_t { kArray, kBitset, kRun };
    int64_t base = 0;
    Kind kind = Kind::kArray;
    uint32_t cardinality = 0;
    std::vector<uint16_t> values;  ///< array: the low 16 bits; run: start, length-1 pairs
    std::vector<uint64_t> words;   ///< bitset: 1024 words
  };
  static void ApplyContainer(const Container& c, int64_t begin, int64_t end, int64_t first_row,
                             std::span<uint8_t> keep);

  std::vector<Container> containers_;  ///< ascending by base
  int64_t cardinality_ = 0;
};

/// Serializes `positions` (any order, duplicates allowed, each in
/// [0, 2^63)) as the portable 64-bit Roaring format the blob holds. Each
/// 2^16-position chunk becomes the smallest of the three containers, as
/// Roaring's run optimisation chooses: a run container when its runs take
/// fewer bytes than the array (at most 4096 values) or bitset (more) would.
/// kInvalidArgument for a negative position.
Result<std::string> EncodePortableRoaring64(std::span<const int64_t> positions);
/// A whole deletion-vector-v1 blob (length, magic, vector, CRC-32) of
/// `positions` (EncodePortableRoaring64). `cardinality`, when not null, gets
/// the number of distinct positions.
Result<std::string> EncodeDeletionVectorBlob(std::span<const int64_t> positions,
                                             int64_t* cardinality = nullptr);

/// True for a delete file that is a deletion vector: format PUFFIN, or a
/// content_offset (Iceberg spec: Delete Formats, Deletion Vectors).
bool IsDeletionVector(const DataFile& file);

/// Where errors about the deletion vector `file` point: its Puffin file, offset
/// and data file.
std::string DeletionVectorName(const DataFile& file);

/// Reads the deletion vector a delete manifest entry `file` names, from its
/// Puffin file `puffin` whose footer is `footer` (ReadPuffinFooter): the entry
/// needs content_offset, content_size_in_bytes and referenced_data_file; the
/// footer must list a `deletion-vector-v1` blob at exactly that range, without
/// a compression codec, whose `referenced-data-file` and `cardinality`
/// properties (when given) agree with the entry; the blob must decode, and
/// its cardinality must equal the entry's record_count.
Result<DeletionVector> ReadDeletionVector(const InputFile& puffin, const PuffinFileMetadata& footer,
                                          const DataFile& file);

}  // namespace floe::iceberg
