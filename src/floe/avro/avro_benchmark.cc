// Benchmarks of the Avro paths manifests use: encoding and decoding a
// manifest_entry-shaped record, and whole container files per codec.
#include <benchmark/benchmark.h>

#include "floe/avro/container.h"
#include "floe/avro/encoding.h"

namespace floe::avro {
namespace {

// A manifest entry with the usual statistics maps (12 columns).
const char* kEntrySchema = R"({"type":"record","name":"manifest_entry","fields":[
  {"name":"status","type":"int","field-id":0},
  {"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},
  {"name":"sequence_number","type":["null","long"],"default":null,"field-id":3},
  {"name":"data_file","field-id":2,"type":{"type":"record","name":"r2","fields":[
    {"name":"content","type":"int","field-id":134},
    {"name":"file_path","type":"string","field-id":100},
    {"name":"file_format","type":"string","field-id":101},
    {"name":"record_count","type":"long","field-id":103},
    {"name":"file_size_in_bytes","type":"long","field-id":104},
    {"name":"value_counts","type":["null",{"type":"array","logicalType":"map","items":{"type":"record","name":"k119_v120","fields":[
      {"name":"key","type":"int","field-id":119},{"name":"value","type":"long","field-id":120}]}}],"default":null,"field-id":109},
    {"name":"lower_bounds","type":["null",{"type":"array","logicalType":"map","items":{"type":"record","name":"k126_v127","fields":[
      {"name":"key","type":"int","field-id":126},{"name":"value","type":"bytes","field-id":127}]}}],"default":null,"field-id":125}]}}]})";

struct Fixture {
  AvroSchema schema;
  std::vector<Value> values;
};

const Fixture& Data() {
  static const Fixture f = [] {
    Fixture f;
    f.schema = *AvroSchema::Parse(kEntrySchema);
    NodePtr r2 = f.schema.root()->fields[3].type;
    NodePtr kv = r2->fields[5].type->branches[1]->items;
    NodePtr kb = r2->fields[6].type->branches[1]->items;
    for (int i = 0; i < 1000; ++i) {
      std::vector<Value> counts, bounds;
      for (int c = 1; c <= 12; ++c) {
        counts.push_back(Value::Record(kv, {Value::Int(c), Value::Long(100000 + i)}));
        bounds.push_back(Value::Record(kb, {Value::Int(c), Value::Bytes(std::string(8, static_cast<char>(c)))}));
      }
      Value df = Value::Record(r2, {Value::Int(0), Value::String(fmt::format("s3://bucket/warehouse/db/t/data/{:05}-0-{}.parquet", i, i * 7919)),
                                    Value::String("PARQUET"), Value::Long(100000 + i), Value::Long(4000000 + i),
                                    Value::Array(std::move(counts)), Value::Array(std::move(bounds))});
      f.values.push_back(Value::Record(f.schema.root(), {Value::Int(1), Value::Long(9158179788527662767), Value::Null(), std::move(df)}));
    }
    return f;
  }();
  return f;
}

void BM_EncodeManifestEntries(benchmark::State& state) {
  const Fixture& f = Data();
  Buffer buf;
  for (auto _ : state) {
    buf.Clear();
    Encoder e(&buf);
    for (const auto& v : f.values) benchmark::DoNotOptimize(EncodeValue(*f.schema.root(), v, &e));
  }
  state.SetItemsProcessed(state.iterations() * f.values.size());
  state.SetBytesProcessed(state.iterations() * buf.size());
}
BENCHMARK(BM_EncodeManifestEntries);

void BM_DecodeManifestEntries(benchmark::State& state) {
  const Fixture& f = Data();
  Buffer buf;
  Encoder e(&buf);
  for (const auto& v : f.values) (void)EncodeValue(*f.schema.root(), v, &e);
  for (auto _ : state) {
    Decoder d(buf.data(), buf.size());
    for (size_t i = 0; i < f.values.size(); ++i) benchmark::DoNotOptimize(DecodeValue(f.schema.root(), &d));
  }
  state.SetItemsProcessed(state.iterations() * f.values.size());
  state.SetBytesProcessed(state.iterations() * buf.size());
}
BENCHMARK(BM_DecodeManifestEntries);

/// An OutputFile that discards its bytes (measures encoding + compression only).
class NullOutput final : public OutputFile {
 public:
  Status Write(const void*, size_t size) override {
    n_ += static_cast<int64_t>(size);
    return Ok();
  }
  int64_t Tell() const override { return n_; }
  Status Commit() override { return Ok(); }
  void Abort() override {}
  const std::string& path() const override { return path_; }

 private:
  int64_t n_ = 0;
  std::string path_ = "<null>";
};

const Codec kCodecs[] = {Codec::kUncompressed, Codec::kDeflateRaw, Codec::kZstd, Codec::kSnappy};

void BM_WriteContainer(benchmark::State& state) {
  const Fixture& f = Data();
  Codec codec = kCodecs[state.range(0)];
  int64_t length = 0;
  for (auto _ : state) {
    auto w = ContainerWriter::Open(std::make_unique<NullOutput>(), f.schema, {{"format-version", "2"}}, codec);
    for (const auto& v : f.values) (void)(*w)->Append(v);
    length = *(*w)->Close();
  }
  state.SetLabel(fmt::format("{} {} bytes", CodecName(codec), length));
  state.SetItemsProcessed(state.iterations() * f.values.size());
}
BENCHMARK(BM_WriteContainer)->DenseRange(0, 3);

void BM_ReadContainer(benchmark::State& state) {
  const Fixture& f = Data();
  Codec codec = kCodecs[state.range(0)];
  std::string bytes;
  {
    class StringOutput final : public OutputFile {
     public:
      explicit StringOutput(std::string* s) : s_(s) {}
      Status Write(const void* d, size_t n) override {
        s_->append(static_cast<const char*>(d), n);
        return Ok();
      }
      int64_t Tell() const override { return static_cast<int64_t>(s_->size()); }
      Status Commit() override { return Ok(); }
      void Abort() override {}
      const std::string& path() const override { return path_; }

     private:
      std::string* s_;
      std::string path_ = "<string>";
    };
    auto w = ContainerWriter::Open(std::make_unique<StringOutput>(&bytes), f.schema, {}, codec);
    for (const auto& v : f.values) (void)(*w)->Append(v);
    (void)(*w)->Close();
  }
  for (auto _ : state) {
    auto r = ContainerReader::Open(MemoryInput(bytes));
    auto all = (*r)->ReadAll();
    benchmark::DoNotOptimize(all);
  }
  state.SetLabel(std::string(CodecName(codec)));
  state.SetItemsProcessed(state.iterations() * f.values.size());
}
BENCHMARK(BM_ReadContainer)->DenseRange(0, 3);

}  // namespace
}  // namespace floe::avro

BENCHMARK_MAIN();
