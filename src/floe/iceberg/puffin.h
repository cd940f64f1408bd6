/// \file
/// Puffin files, read and written (Puffin spec, format version 1):
///
///   Magic Blob1 ... BlobN Footer
///   Footer = Magic FooterPayload FooterPayloadSize Flags Magic
///
/// with Magic = "PFA1" (50 46 41 31), FooterPayloadSize a 4-byte little-endian
/// signed int, Flags 4 bytes (byte 0 bit 0: the payload is one LZ4 frame), and
/// the payload the UTF-8 JSON FileMetadata {blobs: [BlobMetadata], properties}.
/// The footer is checked whole before it is trusted: both magics at the start
/// and the three at the end, the payload inside the file, no unknown flag, the
/// JSON's required fields with their types, and every blob inside the file's
/// blob area [4, start of footer). Errors are kCorrupt and name the file.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "floe/io/file.h"
#include "floe/util/status.h"

namespace floe::iceberg {

/// "PFA1".
inline constexpr uint8_t kPuffinMagic[4] = {0x50, 0x46, 0x41, 0x31};

/// One blob of a Puffin file (BlobMetadata).
struct PuffinBlobMetadata {
  std::string type;
  std::vector<int32_t> fields;
  int64_t snapshot_id = -1;
  int64_t sequence_number = -1;
  int64_t offset = 0;
  int64_t length = 0;
  std::optional<std::string> compression_codec;
  std::map<std::string, std::string> properties;
};

/// A Puffin file's footer (FileMetadata).
struct PuffinFileMetadata {
  std::vector<PuffinBlobMetadata> blobs;
  std::map<std::string, std::string> properties;
  /// Where the footer starts (the end of the blob area).
  int64_t footer_offset = 0;

  /// The blob stored at exactly [offset, offset + length), or null.
  const PuffinBlobMetadata* FindBlob(int64_t offset, int64_t length) const;
};

/// The largest footer payload read (after decompression): 256 MiB.
inline constexpr int64_t kMaxPuffinFooterBytes = int64_t{256} << 20;

/// Reads and checks the footer of the Puffin file `in`. `name` is the file as
/// errors name it (its stored location).
Result<PuffinFileMetadata> ReadPuffinFooter(const InputFile& in, const std::string& name);

/// Writes one Puffin file: the magic, the blobs as added, then the footer
/// (magic, the uncompressed JSON FileMetadata, its size, flags 0, magic).
/// Blobs are stored as given (no compression codec). Not thread-safe.
class PuffinWriter {
 public:
  /// `properties` are the FileMetadata properties (e.g. `created-by`).
  static Result<std::unique_ptr<PuffinWriter>> Open(std::unique_ptr<OutputFile> file,
                                                    std::map<std::string, std::string> properties = {});
  ~PuffinWriter();
  PuffinWriter(const PuffinWriter&) = delete;
  PuffinWriter& operator=(const PuffinWriter&) = delete;

  /// Appends a blob: `metadata`'s offset and length are set to where it is
  /// written, and the completed metadata is returned.
  Result<PuffinBlobMetadata> Add(PuffinBlobMetadata metadata, std::span<const uint8_t> bytes);
  /// Writes the footer and publishes the file; returns its size in bytes.
  Result<int64_t> Close();
  /// Drops the file (nothing is published).
  void Abort();
  const std::string& path() const;

 private:
  PuffinWriter() = default;
  std::unique_ptr<OutputFile> file_;
  std::vector<PuffinBlobMetadata> blobs_;
  std::map<std::string, std::string> properties_;
  bool closed_ = false;
};

}  // namespace floe::iceberg
