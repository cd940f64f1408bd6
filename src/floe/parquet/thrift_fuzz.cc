/// \file
/// libFuzzer target: Thrift compact decoding of the Parquet FileMetaData and
/// PageHeader structures (with thrift_internal's size limits), and the
/// reader's schema mapping of whatever FileMetaData decodes.
/// Seeds: tests/fuzz_seeds/thrift_fuzz/ (footers and page headers).
#include <cstddef>
#include <cstdint>

#include "floe/parquet/reader_schema.h"
#include "floe/parquet/thrift_internal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace floe::parquet;
  uint32_t n = static_cast<uint32_t>(size);
  format::FileMetaData meta;
  if (DeserializeThrift(data, &n, &meta, "footer")) {
    auto schema = BuildFileSchema(meta.schema);
    if (schema) (void)schema->schema->ToString();
  }
  n = static_cast<uint32_t>(size);
  format::PageHeader page;
  (void)DeserializeThrift(data, &n, &page, "page header");
  return 0;
}
