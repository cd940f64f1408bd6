// Throughput of the vectorized partition transforms (the hot path of
// partitioned writes): rows per second for bucket, truncate and day on 1M-row
// columns, and the single-value path for comparison.
#include <benchmark/benchmark.h>

#include <random>

#include "floe/iceberg/transform.h"

namespace floe::iceberg {
namespace {

constexpr int64_t kRows = 1 << 20;

ColumnVector Longs() {
  ColumnVector c(LongType());
  std::mt19937_64 rng(42);
  for (int64_t i = 0; i < kRows; ++i) c.Append(static_cast<int64_t>(rng()));
  return c;
}

ColumnVector Timestamps() {
  ColumnVector c(TimestampTzType());
  std::mt19937_64 rng(42);
  for (int64_t i = 0; i < kRows; ++i) c.Append(static_cast<int64_t>(rng() % 4'000'000'000'000'000) - 2'000'000'000'000'000);
  return c;
}

ColumnVector Strings() {
  ColumnVector c(StringType());
  std::mt19937_64 rng(42);
  std::string s;
  for (int64_t i = 0; i < kRows; ++i) {
    s.assign(9 + rng() % 16, 'a');
    for (auto& ch : s) ch = static_cast<char>('a' + rng() % 26);
    c.AppendBytes(s);
  }
  return c;
}

void Run(benchmark::State& state, const Transform& t, const ColumnVector& c) {
  for (auto _ : state) {
    auto out = t.Apply(c);
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() * c.length);
}

void BM_BucketLong(benchmark::State& s) { static auto c = Longs(); Run(s, Transform::Bucket(16), c); }
void BM_BucketString(benchmark::State& s) { static auto c = Strings(); Run(s, Transform::Bucket(16), c); }
void BM_TruncateString(benchmark::State& s) { static auto c = Strings(); Run(s, Transform::Truncate(4), c); }
void BM_TruncateLong(benchmark::State& s) { static auto c = Longs(); Run(s, Transform::Truncate(1000), c); }
void BM_DayTimestamp(benchmark::State& s) { static auto c = Timestamps(); Run(s, Transform::Day(), c); }
void BM_MonthTimestamp(benchmark::State& s) { static auto c = Timestamps(); Run(s, Transform::Month(), c); }
void BM_HourTimestamp(benchmark::State& s) { static auto c = Timestamps(); Run(s, Transform::Hour(), c); }

void BM_BucketLongSingleValue(benchmark::State& state) {
  static auto c = Longs();
  Transform t = Transform::Bucket(16);
  auto type = LongType();
  for (auto _ : state) {
    for (int64_t i = 0; i < 4096; ++i) {
      auto v = t.Apply(type, Value::Long(c.data<int64_t>()[i]));
      benchmark::DoNotOptimize(v);
    }
  }
  state.SetItemsProcessed(state.iterations() * 4096);
}

BENCHMARK(BM_BucketLong);
BENCHMARK(BM_BucketString);
BENCHMARK(BM_TruncateString);
BENCHMARK(BM_TruncateLong);
BENCHMARK(BM_DayTimestamp);
BENCHMARK(BM_MonthTimestamp);
BENCHMARK(BM_HourTimestamp);
BENCHMARK(BM_BucketLongSingleValue);

}  // namespace
}  // namespace floe::iceberg

BENCHMARK_MAIN();
