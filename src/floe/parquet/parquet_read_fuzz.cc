/// \file
/// libFuzzer target: a whole Parquet file read from memory — footer, schema
/// mapping, every page of every column, nested assembly and the metadata
/// description. Any input must give batches or an error, never a crash, a
/// hang or an unbounded allocation. Seeds: tests/fuzz_seeds/parquet_read_fuzz/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "floe/io/file.h"
#include "floe/parquet/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace floe;
  parquet::ReaderOptions options;
  options.batch_rows = 1000;
  auto reader = parquet::FileReader::Open(
      MemoryInput(std::string(reinterpret_cast<const char*>(data), size), "fuzz.parquet"), options);
  if (!reader) return 0;
  (void)(*reader)->DescribeMetadata();
  Batch batch;
  for (int i = 0; i < 10000; ++i) {
    auto more = (*reader)->Next(&batch);
    if (!more || !*more) break;
    if (!batch.Validate()) __builtin_trap();  // a batch that breaks the layout is a bug
  }
  return 0;
}
