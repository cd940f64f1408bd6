/// \file
/// libFuzzer target: arbitrary bytes read as a Puffin file (footer, then
/// every deletion-vector-v1 blob it lists, as a manifest entry naming it
/// would), as a bare deletion-vector-v1 blob and as a portable 64-bit Roaring
/// bitmap; a vector that decodes is applied to row windows, and encoded again
/// by floe's writer (EncodeDeletionVectorBlob), which must decode to the same
/// positions. Any input must
/// give vectors or a clean error, never a crash, a hang or an allocation
/// beyond the input's size. Seeds: Trino's Puffin files
/// (tests/fuzz_seeds/puffin_fuzz/, see PROVENANCE.md).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "floe/iceberg/deletion_vector.h"
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/puffin.h"
#include "floe/io/file.h"

namespace {

using namespace floe;
using namespace floe::iceberg;

void Exercise(const DeletionVector& dv) {
  std::vector<uint8_t> keep(4096, 1);
  for (int64_t first : {int64_t{0}, int64_t{65000}, int64_t{1} << 32}) dv.Apply(first, keep);
  (void)dv.Contains(7);
  if (dv.cardinality() <= 100000) {
    const std::vector<int64_t> positions = dv.Positions();
    auto blob = EncodeDeletionVectorBlob(positions);
    if (!blob) __builtin_trap();
    auto again = DeletionVector::DecodeBlob(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(blob->data()), blob->size()), "re-encoded");
    if (!again || again->Positions() != positions) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  auto input = MemoryInput(bytes, "fuzz.puffin");
  if (auto footer = ReadPuffinFooter(*input, "fuzz.puffin")) {
    size_t tried = 0;
    for (const auto& blob : footer->blobs) {
      if (++tried > 16) break;
      DataFile f;
      f.content = DataFileContent::kPositionDeletes;
      f.file_format = FileFormat::kPuffin;
      f.file_path = "fuzz.puffin";
      f.content_offset = blob.offset;
      f.content_size_in_bytes = blob.length;
      auto ref = blob.properties.find("referenced-data-file");
      f.referenced_data_file = ref != blob.properties.end() ? ref->second : "data.parquet";
      auto card = blob.properties.find("cardinality");
      f.record_count = card != blob.properties.end() && card->second.size() < 18 &&
                               card->second.find_first_not_of("0123456789") == std::string::npos &&
                               !card->second.empty()
                           ? std::stoll(card->second)
                           : 0;
      if (auto dv = ReadDeletionVector(*input, *footer, f)) Exercise(*dv);
    }
  }
  const std::span<const uint8_t> span(data, size);
  if (auto dv = DeletionVector::DecodeBlob(span, "fuzz blob")) Exercise(*dv);
  if (auto dv = DeletionVector::DecodePortable(span, "fuzz bitmap")) Exercise(*dv);
  return 0;
}
