/// \file
/// Benchmark of the Parquet reader against DuckDB, same file, same run:
/// floe decodes every column of the standard benchmark table
/// (shared/interop/bench_data.mjs, 5M rows, zstd, written by DuckDB) into
/// Batches; DuckDB (threads=1, duckdb_sql.mjs --timing) aggregates every
/// column of the same file with read_parquet, which also decodes them all.
/// Reports floe's time, DuckDB's time and the ratio floe / DuckDB, as wall
/// time (DuckDB's own --timing) and as CPU time (DuckDB's: the CPU of the
/// Node process running the query minus that of one running `SELECT 42`),
/// since on a loaded machine wall times mostly measure the other processes.
///
///   FLOE_BENCH_ROWS (default 5000000), FLOE_BENCH_DIR (default /tmp/floe_bench),
///   FLOE_SHARED (default <source>/../shared or /work/shared)
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

#include <sys/resource.h>

#include "floe/io/file.h"
#include "floe/parquet/reader.h"

namespace {

std::string g_file;
double g_duck_seconds = 0;
double g_duck_cpu = 0;

double ChildrenCpu() {
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}
double SelfCpu() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}
int64_t g_rows = 0;

std::string Shared() {
  if (const char* e = std::getenv("FLOE_SHARED"); e && *e) return e;
  return "/work/shared";
}

std::string Run(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

bool Prepare() {
  const char* rows_env = std::getenv("FLOE_BENCH_ROWS");
  g_rows = rows_env ? std::atoll(rows_env) : 5000000;
  std::string dir =
      std::getenv("FLOE_BENCH_DIR") ? std::getenv("FLOE_BENCH_DIR") : "/tmp/floe_bench";
  std::filesystem::create_directories(dir);
  g_file = dir + "/bench_" + std::to_string(g_rows) + ".parquet";
  if (!std::filesystem::exists(g_file)) {
    std::string cmd = "node '" + Shared() + "/interop/bench_data.mjs' --rows " +
                      std::to_string(g_rows) + " --format parquet '" + g_file + "' 2>&1";
    std::fprintf(stderr, "%s", Run(cmd).c_str());
    if (!std::filesystem::exists(g_file)) {
      std::fprintf(stderr, "reader_benchmark: could not make %s\n", g_file.c_str());
      return false;
    }
  }
  // DuckDB's side: best of 3 at threads=1.
  std::string sql =
      "SELECT sum(id), sum(user_id), sum(amount), sum(qty), sum(length(name)), max(ts), "
      "count_if(flag) "
      "FROM read_parquet('" +
      g_file + "')";
  double best = 1e9, best_cpu = 1e9;
  const std::string node = "node '" + Shared() + "/interop/duckdb_sql.mjs' --threads 1 --timing ";
  for (int i = 0; i < 3; ++i) {
    double c0 = ChildrenCpu();
    Run(node + "\"SELECT 42\" 2>&1 >/dev/null");
    double c1 = ChildrenCpu();
    std::string out = Run(node + "\"" + sql + "\" 2>&1 >/dev/null");
    double c2 = ChildrenCpu();
    std::smatch m;
    if (std::regex_search(out, m, std::regex("([0-9.]+)s SELECT")))
      best = std::min(best, std::stod(m[1]));
    best_cpu = std::min(best_cpu, (c2 - c1) - (c1 - c0));
  }
  g_duck_seconds = best < 1e9 ? best : 0;
  g_duck_cpu = best_cpu;
  return true;
}

void BM_ReadAllColumns(benchmark::State& state) {
  double best = 1e9, best_cpu = 1e9;
  int64_t rows = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    double cpu0 = SelfCpu();
    auto in = floe::OpenLocalInput(g_file);
    auto reader = floe::parquet::FileReader::Open(std::move(*in));
    if (!reader) {
      state.SkipWithError(reader.error().ToString().c_str());
      return;
    }
    floe::Batch batch;
    rows = 0;
    while (true) {
      auto more = (*reader)->Next(&batch);
      if (!more) {
        state.SkipWithError(more.error().ToString().c_str());
        return;
      }
      if (!*more) break;
      rows += batch.num_rows;
      benchmark::DoNotOptimize(batch.columns[0].values.data());
    }
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    best_cpu = std::min(best_cpu, SelfCpu() - cpu0);
  }
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["floe_best_s"] = best;
  state.counters["duckdb_s"] = g_duck_seconds;
  state.counters["floe_over_duckdb"] = g_duck_seconds > 0 ? best / g_duck_seconds : 0;
  state.counters["floe_cpu_s"] = best_cpu;
  state.counters["duckdb_cpu_s"] = g_duck_cpu;
  state.counters["cpu_floe_over_duckdb"] = g_duck_cpu > 0 ? best_cpu / g_duck_cpu : 0;
  state.counters["Mrows_per_s"] = rows / best / 1e6;
}
BENCHMARK(BM_ReadAllColumns)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (!Prepare()) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
