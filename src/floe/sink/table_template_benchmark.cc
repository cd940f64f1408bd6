// Throughput of TableTemplate::EvaluateTo, which the CDC sink runs for every
// row: a template with a top-level string field, a nested string field and a
// date, over rows whose values repeat in runs (as change streams group by
// source table) and over rows whose values change on every row.
#include <benchmark/benchmark.h>

#include <random>

#include "floe/sink/table_template.h"

namespace floe::sink {
namespace {

NestedField F(int id, std::string name, TypePtr t) {
  return NestedField{id, std::move(name), false, std::move(t), ""};
}

SchemaPtr BenchSchema() {
  return std::make_shared<Schema>(std::vector<NestedField>{
      F(1, "region", StringType()), F(2, "meta", StructType({F(3, "kind", StringType())})),
      F(4, "day", DateType())});
}

// `run` rows in a row share their values.
Batch BenchBatch(int64_t n, int64_t run) {
  std::mt19937_64 rng(42);
  const char* regions[] = {"eu-west", "us-east", "ap-south", "sa-east"};
  const char* kinds[] = {"click", "view", "purchase", "signup", "logout"};
  Batch b(BenchSchema());
  uint64_t r = rng();
  for (int64_t i = 0; i < n; ++i) {
    if (i % run == 0) r = rng();
    b.columns[0].AppendBytes(regions[r % 4]);
    b.columns[1].AppendStructRow();
    b.columns[1].children[0].AppendBytes(kinds[(r >> 8) % 5]);
    b.columns[2].Append<int32_t>(19000 + static_cast<int32_t>((r >> 16) % 30));
  }
  b.num_rows = n;
  return b;
}

void BM_Evaluate(benchmark::State& state) {
  const int64_t kRows = 65536;
  Batch batch = BenchBatch(kRows, state.range(0));
  auto t = TableTemplate::Parse("{region}.events_{meta.kind}_{day}");
  if (!t || !t->Bind(*batch.schema)) {
    state.SkipWithError("template");
    return;
  }
  std::string out;
  for (auto _ : state) {
    for (int64_t i = 0; i < kRows; ++i) {
      if (!t->EvaluateTo(batch, i, &out)) state.SkipWithError("evaluate");
      benchmark::DoNotOptimize(out.data());
    }
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}
BENCHMARK(BM_Evaluate)->Arg(1)->Arg(64);

}  // namespace
}  // namespace floe::sink

BENCHMARK_MAIN();
