// Throughput of the data writer layers on a table shaped like the standard
// benchmark table (id, user_id, amount, qty, name, ts, flag): grouping rows by
// partition tuple alone, then whole writes (zstd Parquet files on local disk)
// unpartitioned and partitioned by day(ts) + bucket[16](user_id).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <random>

#include "floe/table/data_writer.h"
#include "floe/table/partition_key.h"

namespace floe::table {
namespace {

namespace fs = std::filesystem;

NestedField F(int id, std::string name, TypePtr t, bool required = false) {
  return NestedField{id, std::move(name), required, std::move(t), ""};
}

SchemaPtr BenchSchema() {
  return std::make_shared<Schema>(std::vector<NestedField>{
      F(1, "id", LongType(), true), F(2, "user_id", LongType()), F(3, "amount", DoubleType()),
      F(4, "qty", IntType()), F(5, "name", StringType()), F(6, "ts", TimestampType()),
      F(7, "flag", BooleanType())});
}

// ts spreads rows over four days (row i lands on day i % 4).
Batch BenchBatch(int64_t first, int64_t n) {
  static std::mt19937_64 rng(42);
  Batch b(BenchSchema());
  for (int64_t i = first; i < first + n; ++i) {
    b.columns[0].Append<int64_t>(i);
    b.columns[1].Append<int64_t>(static_cast<int64_t>(rng() % 100000));
    b.columns[2].Append<double>(static_cast<double>(rng() % 1000000) / 100);
    b.columns[3].Append<int32_t>(static_cast<int32_t>(rng() % 100));
    b.columns[4].AppendBytes(fmt::format("user-name-{}", rng() % 10000));
    b.columns[5].Append<int64_t>(1704067200000000 + (i % 4) * 86400000000LL + i);
    b.columns[6].Append<uint8_t>(static_cast<uint8_t>(rng() & 1));
  }
  b.num_rows = n;
  return b;
}

constexpr int64_t kBatchRows = 8192;
constexpr int kBatches = 64;  // 524288 rows per iteration

iceberg::PartitionSpec DaysBuckets(const Schema& schema) {
  return *iceberg::PartitionSpecBuilder(schema).Day("ts").Bucket("user_id", 16).Build();
}

void BM_GroupByPartition(benchmark::State& state) {
  SchemaPtr schema = BenchSchema();
  auto keyer = PartitionKeyer::Make(DaysBuckets(*schema), schema);
  Batch batch = BenchBatch(0, kBatchRows);
  for (auto _ : state) {
    auto groups = keyer->Group(batch);
    benchmark::DoNotOptimize(groups);
  }
  state.SetItemsProcessed(state.iterations() * kBatchRows);
}
BENCHMARK(BM_GroupByPartition);

void RunWrite(benchmark::State& state, bool partitioned) {
  SchemaPtr schema = BenchSchema();
  std::vector<Batch> batches;
  for (int i = 0; i < kBatches; ++i) batches.push_back(BenchBatch(i * kBatchRows, kBatchRows));
  const fs::path dir = fs::temp_directory_path() / ("floe_dw_bench_" + RandomUuid());
  iceberg::TableMetadata md;
  md.table_uuid = RandomUuid();
  md.location = dir.string();
  md.schemas = {schema};
  md.last_column_id = 7;
  md.specs = {partitioned ? DaysBuckets(*schema) : iceberg::PartitionSpec::Unpartitioned()};
  md.sort_orders = {iceberg::SortOrder::Unsorted()};
  std::map<std::string, std::string> job;
  config::Resolver resolver({&job, &md.properties});
  auto options = DataWriterOptions::Resolve(md, resolver);
  int64_t files = 0, bytes = 0;
  for (auto _ : state) {
    auto factory = std::make_shared<OutputFileFactory>(options->data_location);
    auto w = MakeDataWriter(md, *options, factory);
    for (const auto& b : batches) {
      if (!(*w)->Write(b)) state.SkipWithError("write failed");
    }
    auto out = (*w)->Close();
    if (!out) state.SkipWithError(out.error().message.c_str());
    files = static_cast<int64_t>(out->size());
    for (const auto& f : *out) bytes += f.file_size_in_bytes;
    state.PauseTiming();
    fs::remove_all(dir);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kBatches * kBatchRows);
  state.counters["files"] = static_cast<double>(files);
  state.counters["MB_written"] = static_cast<double>(bytes) / 1e6 / static_cast<double>(state.iterations());
}

void BM_WriteUnpartitioned(benchmark::State& state) { RunWrite(state, false); }
void BM_WriteDayBucket16(benchmark::State& state) { RunWrite(state, true); }
BENCHMARK(BM_WriteUnpartitioned)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_WriteDayBucket16)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace floe::table

BENCHMARK_MAIN();
