// libFuzzer target: an arbitrary byte string read as an Avro container file,
// with and without a reader schema, and its writer schema mapped to Iceberg.
// Any input must end in a value or an error, never a crash, a hang or an
// allocation beyond the bounds the reader enforces. Seeds:
// tests/fuzz_seeds/avro_read_fuzz/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "floe/avro/container.h"
#include "floe/avro/iceberg_schema.h"
#include "floe/io/file.h"

namespace {

// A small manifest-list-like reader schema to exercise resolution.
const floe::avro::NodePtr& ReaderSchema() {
  static const floe::avro::NodePtr schema = [] {
    auto s = floe::avro::AvroSchema::Parse(R"({"type":"record","name":"manifest_file","fields":[
      {"name":"manifest_path","type":["null","string"],"default":null,"field-id":500},
      {"name":"manifest_length","type":["null","long"],"default":null,"field-id":501},
      {"name":"status","type":["null","long"],"default":null,"field-id":0},
      {"name":"partitions","type":["null",{"type":"array","element-id":508,"items":{"type":"record","name":"r508",
        "fields":[{"name":"contains_null","type":["null","boolean"],"default":null,"field-id":509}]}}],
       "default":null,"field-id":507}]})");
    return s ? s->root() : nullptr;
  }();
  return schema;
}

void ReadAll(const uint8_t* data, size_t size, floe::avro::ReaderOptions options) {
  options.max_block_bytes = size_t{16} << 20;
  auto reader = floe::avro::ContainerReader::Open(
      floe::MemoryInput(std::string(reinterpret_cast<const char*>(data), size)), options);
  if (!reader) return;
  if (!options.reader_schema) (void)floe::avro::FromAvroSchema((*reader)->writer_schema());
  floe::avro::Value v;
  for (int i = 0; i < 100000; ++i) {
    auto more = (*reader)->Next(&v);
    if (!more || !*more) break;
    (void)v.ToJson();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ReadAll(data, size, {});
  floe::avro::ReaderOptions resolved;
  resolved.reader_schema = ReaderSchema();
  ReadAll(data, size, resolved);
  return 0;
}
