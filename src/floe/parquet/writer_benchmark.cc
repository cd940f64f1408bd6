// Benchmark of the Parquet writer on the standard 5,000,000-row table
// (shared/interop/bench_data.mjs: id BIGINT, user_id BIGINT, amount DOUBLE, qty INT,
// name STRING, ts TIMESTAMP, flag BOOLEAN). The rows come from the CSV form of the table
// (FLOE_BENCH_CSV, default /tmp/floe_bench/bench.csv; bench/parquet_write.sh makes it),
// are loaded into in-memory batches first, and only the writing is timed.
// Counters: rows/s and the output file size, per codec.
#include <benchmark/benchmark.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "floe/parquet/encoder.h"
#include "floe/parquet/rle_encoder.h"
#include "floe/parquet/writer.h"
#include "floe/util/civil_time.h"

namespace floe::parquet {
namespace {

constexpr int64_t kBatchRows = 65536;

SchemaPtr BenchSchema() {
  return std::make_shared<Schema>(std::vector<NestedField>{
      {1, "id", false, LongType(), ""},       {2, "user_id", false, LongType(), ""},
      {3, "amount", false, DoubleType(), ""}, {4, "qty", false, IntType(), ""},
      {5, "name", false, StringType(), ""},   {6, "ts", false, TimestampType(), ""},
      {7, "flag", false, BooleanType(), ""}});
}

// "2026-01-01 00:00:00[.ffffff]" -> microseconds since epoch.
int64_t ParseTimestamp(std::string_view s) {
  auto num = [&](size_t pos, size_t len) {
    int64_t v = 0;
    std::from_chars(s.data() + pos, s.data() + pos + len, v);
    return v;
  };
  int64_t days = civil::DaysFromCivil(num(0, 4), static_cast<int>(num(5, 2)), static_cast<int>(num(8, 2)));
  int64_t secs = days * 86400 + num(11, 2) * 3600 + num(14, 2) * 60 + num(17, 2);
  int64_t frac = 0;
  if (s.size() > 20) {
    std::string f(s.substr(20));
    f.resize(6, '0');
    frac = std::stoll(f);
  }
  return secs * 1000000 + frac;
}

const std::vector<Batch>& BenchBatches() {
  static std::vector<Batch> batches = [] {
    std::vector<Batch> out;
    const char* env = std::getenv("FLOE_BENCH_CSV");
    std::string path = env ? env : "/tmp/floe_bench/bench.csv";
    std::ifstream in(path);
    if (!in) {
      std::fprintf(stderr, "writer_benchmark: cannot open %s (run bench/parquet_write.sh)\n",
                   path.c_str());
      std::exit(2);
    }
    auto schema = BenchSchema();
    std::string line;
    std::getline(in, line);  // header
    Batch b(schema);
    std::vector<std::string_view> f(7);
    while (std::getline(in, line)) {
      size_t start = 0;
      for (int i = 0; i < 7; ++i) {
        size_t comma = i < 6 ? line.find(',', start) : line.size();
        f[i] = std::string_view(line).substr(start, comma - start);
        start = comma + 1;
      }
      int64_t id = 0, user = 0;
      int32_t qty = 0;
      std::from_chars(f[0].data(), f[0].data() + f[0].size(), id);
      std::from_chars(f[1].data(), f[1].data() + f[1].size(), user);
      double amount = std::strtod(std::string(f[2]).c_str(), nullptr);
      std::from_chars(f[3].data(), f[3].data() + f[3].size(), qty);
      b.columns[0].Append(id);
      b.columns[1].Append(user);
      b.columns[2].Append(amount);
      b.columns[3].Append(qty);
      b.columns[4].AppendBytes(f[4]);
      b.columns[5].Append(ParseTimestamp(f[5]));
      b.columns[6].Append<uint8_t>(f[6] == "true");
      if (++b.num_rows == kBatchRows) {
        out.push_back(std::move(b));
        b = Batch(schema);
      }
    }
    if (b.num_rows) out.push_back(std::move(b));
    return out;
  }();
  return batches;
}

void BM_WriteBenchTable(benchmark::State& state, Codec codec, int parallelism) {
  const auto& batches = BenchBatches();
  int64_t rows = 0;
  for (const auto& b : batches) rows += b.num_rows;
  std::string path = (std::filesystem::temp_directory_path() /
                      ("floe_writer_bench_" + std::string(CodecName(codec)) + "_p" +
                       std::to_string(parallelism) + ".parquet"))
                         .string();
  if (const char* out = std::getenv("FLOE_BENCH_OUT")) {
    path = std::string(out) + "/floe_" + std::string(CodecName(codec)) +
           (parallelism > 1 ? "_p" + std::to_string(parallelism) : "") + ".parquet";
  }
  int64_t size = 0;
  for (auto _ : state) {
    auto out = OpenLocalOutput(path, true);
    if (!out) {
      state.SkipWithError(out.error().ToString().c_str());
      return;
    }
    WriterOptions opt;
    opt.codec = codec;
    opt.parallelism = parallelism;
    auto w = FileWriter::Open(std::move(*out), batches[0].schema, opt);
    if (!w) {
      state.SkipWithError(w.error().ToString().c_str());
      return;
    }
    for (const auto& b : batches) {
      if (auto st = (*w)->Write(b); !st) {
        state.SkipWithError(st.error().ToString().c_str());
        return;
      }
    }
    auto r = (*w)->Close();
    if (!r) {
      state.SkipWithError(r.error().ToString().c_str());
      return;
    }
    size = r->file_size_bytes;
  }
  state.counters["rows_per_s"] =
      benchmark::Counter(static_cast<double>(rows) * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["file_bytes"] = static_cast<double>(size);
  state.counters["rows"] = static_cast<double>(rows);
}

// Encoder micro-benchmarks (no data file needed).
void BM_RleLevels(benchmark::State& state) {
  std::vector<uint16_t> v(1 << 16);
  std::mt19937 rng(1);
  for (auto& x : v) x = rng() % 16 == 0 ? 0 : 1;  // mostly present, some nulls
  Buffer out;
  for (auto _ : state) {
    out.Clear();
    EncodeRleBitPacked(v.data(), v.size(), 1, &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(v.size()));
}
BENCHMARK(BM_RleLevels);

void BM_RleDictIndices(benchmark::State& state) {
  std::vector<uint32_t> v(1 << 16);
  std::mt19937 rng(2);
  for (auto& x : v) x = rng() % 10000;
  Buffer out;
  for (auto _ : state) {
    out.Clear();
    EncodeRleBitPacked(v.data(), v.size(), 14, &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(v.size()));
}
BENCHMARK(BM_RleDictIndices);

void BM_DeltaBinaryPacked(benchmark::State& state) {
  std::vector<int64_t> v(1 << 16);
  std::mt19937_64 rng(3);
  int64_t x = 0;
  for (auto& e : v) e = x += static_cast<int64_t>(rng() % 1000);
  Buffer out;
  for (auto _ : state) {
    out.Clear();
    EncodeDeltaBinaryPacked(v.data(), v.size(), false, &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(v.size()));
}
BENCHMARK(BM_DeltaBinaryPacked);

void BM_ByteStreamSplitDouble(benchmark::State& state) {
  std::vector<double> v(1 << 16);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i) * 0.37;
  Buffer out;
  for (auto _ : state) {
    out.Clear();
    EncodeByteStreamSplit(reinterpret_cast<const uint8_t*>(v.data()), v.size(), 8, &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(v.size()));
}
BENCHMARK(BM_ByteStreamSplitDouble);

BENCHMARK_CAPTURE(BM_WriteBenchTable, zstd, Codec::kZstd, 1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_WriteBenchTable, snappy, Codec::kSnappy, 1)->Unit(benchmark::kMillisecond)->UseRealTime();
// Pages compressed on a second thread (WriterOptions::parallelism).
BENCHMARK_CAPTURE(BM_WriteBenchTable, zstd_p2, Codec::kZstd, 2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
// Encoding alone: no compression.
BENCHMARK_CAPTURE(BM_WriteBenchTable, uncompressed, Codec::kUncompressed, 1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace floe::parquet

BENCHMARK_MAIN();
