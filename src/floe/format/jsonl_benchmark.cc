// Benchmarks of the row decoders alone (no Parquet): JSONL and CSV rows of the
// standard benchmark table (shared/interop/bench_data.mjs: id, user_id, amount,
// qty, name, ts, flag) decoded into batches.
//
// BM_JsonlDecode / BM_CsvDecode use rows generated in memory (the
// Positions variants with DecodeOptions::with_positions on).
// BM_DebeziumDecode decodes the same rows as Debezium change events (one in
// four an update with its before image), reporting events/s. BM_JsonlDecodeFile
// decodes the file named by FLOE_BENCH_JSONL_FILE (bench/jsonl_ingest.sh sets it
// to the 5,000,000-row file) once, and reports rows/s.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>
#include <type_traits>

#include "floe/format/csv_reader.h"
#include "floe/format/debezium_reader.h"
#include "floe/format/jsonl_reader.h"
#include "floe/types/sql_schema.h"

namespace {

constexpr const char* kSchema =
    "id BIGINT, user_id BIGINT, amount DOUBLE, qty INT, name STRING, ts TIMESTAMP, flag BOOLEAN";

floe::SchemaPtr BenchSchema() {
  return std::make_shared<floe::Schema>(*floe::ParseSqlColumns(kSchema));
}

std::string Name(uint64_t h) {
  std::string n = "name_" + std::to_string(10000 + h % 10000).substr(1);
  n.append(h % 10000 % 16, 'x');
  return n;
}

std::string MakeRows(int64_t n, bool csv) {
  std::string out = csv ? "id,user_id,amount,qty,name,ts,flag\n" : "";
  uint64_t h = 88172645463325252ULL;
  char buf[256];
  for (int64_t i = 0; i < n; ++i) {
    h ^= h << 13;
    h ^= h >> 7;
    h ^= h << 17;
    int64_t us = i;
    int sec = static_cast<int>(us / 1000000 % 60), min = static_cast<int>(us / 60000000 % 60);
    int len;
    if (csv) {
      len = std::snprintf(buf, sizeof buf, "%lld,%llu,%.2f,%llu,%s,2026-01-01 00:%02d:%02d.%06lld,%s\n",
                          static_cast<long long>(i), static_cast<unsigned long long>(h % 1000000),
                          static_cast<double>(h % 100000) / 100.0,
                          static_cast<unsigned long long>(h % 100), Name(h >> 8).c_str(), min, sec,
                          static_cast<long long>(us % 1000000), (h & 1) ? "true" : "false");
    } else {
      len = std::snprintf(buf, sizeof buf,
                          "{\"id\":%lld,\"user_id\":%llu,\"amount\":%.2f,\"qty\":%llu,\"name\":\"%s\","
                          "\"ts\":\"2026-01-01T00:%02d:%02d.%06lld\",\"flag\":%s}\n",
                          static_cast<long long>(i), static_cast<unsigned long long>(h % 1000000),
                          static_cast<double>(h % 100000) / 100.0,
                          static_cast<unsigned long long>(h % 100), Name(h >> 8).c_str(), min, sec,
                          static_cast<long long>(us % 1000000), (h & 1) ? "true" : "false");
    }
    out.append(buf, static_cast<size_t>(len));
  }
  return out;
}

/// The JSONL rows of MakeRows as Debezium PostgreSQL change events: creates,
/// and every fourth an update whose before image is the previous row.
std::string MakeEvents(int64_t n) {
  const std::string rows = MakeRows(n, false);
  std::string out, prev = "null";
  size_t start = 0;
  for (int64_t i = 0; i < n; ++i) {
    size_t end = rows.find('\n', start);
    std::string row = rows.substr(start, end - start);
    start = end + 1;
    const bool update = i % 4 == 3;
    out += "{\"before\":" + (update ? prev : std::string("null")) + ",\"after\":" + row +
           ",\"source\":{\"version\":\"2.5.0.Final\",\"connector\":\"postgresql\",\"name\":"
           "\"bench\",\"ts_ms\":1700000000000,\"snapshot\":\"false\",\"db\":\"postgres\","
           "\"schema\":\"public\",\"table\":\"rows\",\"txId\":" + std::to_string(600 + i) +
           ",\"lsn\":" + std::to_string(34078720 + 64 * i) + ",\"xmin\":null},\"op\":\"" +
           (update ? "u" : "c") + "\",\"ts_ms\":1700000000123,\"transaction\":null}\n";
    prev = row;
  }
  return out;
}

template <typename Reader>
void Decode(benchmark::State& state, bool csv, floe::format::DecodeOptions opt = {}) {
  const int64_t rows = state.range(0);
  const std::string data = std::is_same_v<Reader, floe::format::DebeziumReader> ? MakeEvents(rows)
                                                                               : MakeRows(rows, csv);
  auto schema = BenchSchema();
  floe::Batch batch;
  for (auto _ : state) {
    auto reader = Reader::FromString(schema, data, opt);
    if (!reader) {
      state.SkipWithError(reader.error().message.c_str());
      return;
    }
    int64_t n = 0;
    while (true) {
      auto more = (*reader)->Next(&batch);
      if (!more) {
        state.SkipWithError(more.error().message.c_str());
        return;
      }
      if (!*more) break;
      n += batch.num_rows;
    }
    benchmark::DoNotOptimize(n);
  }
  state.SetItemsProcessed(state.iterations() * rows);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(data.size()));
}

void BM_JsonlDecode(benchmark::State& state) { Decode<floe::format::JsonlReader>(state, false); }
void BM_CsvDecode(benchmark::State& state) { Decode<floe::format::CsvReader>(state, true); }
floe::format::DecodeOptions Positions() {
  floe::format::DecodeOptions opt;
  opt.with_positions = true;
  return opt;
}
void BM_JsonlDecodePositions(benchmark::State& state) {
  Decode<floe::format::JsonlReader>(state, false, Positions());
}
void BM_CsvDecodePositions(benchmark::State& state) {
  Decode<floe::format::CsvReader>(state, true, Positions());
}
void BM_DebeziumDecode(benchmark::State& state) {
  Decode<floe::format::DebeziumReader>(state, false);
}
BENCHMARK(BM_JsonlDecode)->Arg(200000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CsvDecode)->Arg(200000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_JsonlDecodePositions)->Arg(200000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CsvDecodePositions)->Arg(200000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DebeziumDecode)->Arg(200000)->Unit(benchmark::kMillisecond);

void BM_JsonlDecodeFile(benchmark::State& state) {
  const char* path = std::getenv("FLOE_BENCH_JSONL_FILE");
  if (!path || !*path) {
    state.SkipWithError("set FLOE_BENCH_JSONL_FILE to a JSONL file of the benchmark table");
    return;
  }
  auto schema = BenchSchema();
  floe::Batch batch;
  int64_t rows = 0;
  for (auto _ : state) {
    auto reader = floe::format::JsonlReader::Open(schema, path);
    if (!reader) {
      state.SkipWithError(reader.error().message.c_str());
      return;
    }
    while (true) {
      auto more = (*reader)->Next(&batch);
      if (!more) {
        state.SkipWithError(more.error().message.c_str());
        return;
      }
      if (!*more) break;
      rows += batch.num_rows;
    }
  }
  state.SetItemsProcessed(rows);
  state.counters["rows"] = static_cast<double>(rows) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_JsonlDecodeFile)->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
