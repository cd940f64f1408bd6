/// \file
/// Throughput and peak memory of the CDC sink's sort buffer: SpillSorter over
/// 10M records shaped like the sink's (24-byte keys: shard, key, sequence
/// number, arrival; ~60-byte payloads: a RowCodec row of a small table), all
/// in memory, and through a 32 MB budget (spilling whenever memory_used()
/// reaches it) with and without LZ4 on the runs. Also RowCodec's EncodeAll
/// and Decode on that table. Each case runs in a child process of its own, so
/// its peak RSS (getrusage ru_maxrss) is its own. The stream is checked while
/// read (keys ascending, every record there).
///
///   spill_sorter_benchmark [case...]     cases: codec memory spill spill-raw (default: all)
///   FLOE_BENCH_RECORDS (default 10000000), FLOE_BENCH_BUDGET_MB (default 32),
///   FLOE_BENCH_DIR (spill folder; default $TMPDIR or /tmp)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "floe/sink/row_codec.h"
#include "floe/sink/spill_sorter.h"

namespace {

using floe::Batch;
using floe::NestedField;
using floe::sink::RowCodec;
using floe::sink::SpillSorter;

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoll(v) : fallback;
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double CpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

double PeakRssMb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;
}

floe::SchemaPtr CdcSchema() {
  auto f = [](int id, const char* name, floe::TypePtr t, bool required = false) {
    return NestedField{id, name, required, std::move(t), ""};
  };
  return std::make_shared<floe::Schema>(std::vector<NestedField>{
      f(1, "id", floe::LongType(), true), f(2, "user_id", floe::LongType()),
      f(3, "amount", floe::DoubleType()), f(4, "qty", floe::IntType()),
      f(5, "name", floe::StringType()), f(6, "ts", floe::TimestampType()),
      f(7, "flag", floe::BooleanType())});
}

/// A batch of `n` rows of CdcSchema; ~60 bytes encoded per row.
Batch CdcBatch(std::mt19937_64& rng, int64_t first, int64_t n) {
  Batch b(CdcSchema());
  for (int64_t i = first; i < first + n; ++i) {
    b.columns[0].Append<int64_t>(static_cast<int64_t>(rng() % 1000000));
    b.columns[1].Append<int64_t>(static_cast<int64_t>(rng() % 100000));
    b.columns[2].Append<double>(static_cast<double>(rng() % 1000000) / 100);
    b.columns[3].Append<int32_t>(static_cast<int32_t>(rng() % 100));
    b.columns[4].AppendBytes(fmt::format("user-name-{:05}", rng() % 100000));
    b.columns[5].Append<int64_t>(1704067200000000 + i);
    b.columns[6].Append<uint8_t>(static_cast<uint8_t>(rng() & 1));
  }
  b.num_rows = n;
  return b;
}

void PutBigEndian(char* p, uint64_t v, int bytes) {
  for (int k = bytes - 1; k >= 0; --k) {
    p[k] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
}

/// The sink's sort key: shard (2 bytes), key id (8), sequence number (8),
/// arrival (6), all big-endian.
void MakeKey(char* key, int64_t key_id, int64_t seq, int64_t arrival) {
  PutBigEndian(key, static_cast<uint64_t>(key_id % 16), 2);
  PutBigEndian(key + 2, static_cast<uint64_t>(key_id), 8);
  PutBigEndian(key + 10, static_cast<uint64_t>(seq), 8);
  PutBigEndian(key + 18, static_cast<uint64_t>(arrival), 6);
}

int RunSorter(const char* name, int64_t records, size_t budget, bool compress) {
  const char* dir = std::getenv("FLOE_BENCH_DIR");
  auto made = SpillSorter::Make({dir ? dir : "", compress});
  if (!made) {
    std::fprintf(stderr, "%s\n", made.error().ToString().c_str());
    return 1;
  }
  auto sorter = std::move(*made);
  std::mt19937_64 rng(42);
  RowCodec codec(CdcSchema());
  // Payloads: 64K encoded rows, reused round-robin (generating rows is not
  // what is measured).
  constexpr int64_t kRows = 65536;
  std::string arena;
  std::vector<uint64_t> ends;
  codec.EncodeAll(CdcBatch(rng, 0, kRows), &arena, &ends);
  const double avg_payload = static_cast<double>(arena.size()) / kRows;

  const double t0 = Now(), c0 = CpuSeconds();
  char key[24];
  for (int64_t i = 0; i < records; ++i) {
    const int64_t r = i % kRows;
    const uint64_t begin = r == 0 ? 0 : ends[r - 1];
    MakeKey(key, static_cast<int64_t>(rng() % 1000000), i / 4, i);
    std::string_view payload(arena.data() + begin, ends[r] - begin);
    if (auto st = sorter->Add(std::string_view(key, 24), payload); !st) {
      std::fprintf(stderr, "%s\n", st.error().ToString().c_str());
      return 1;
    }
    if (budget && sorter->memory_used() >= budget) {
      if (auto st = sorter->Spill(); !st) {
        std::fprintf(stderr, "%s\n", st.error().ToString().c_str());
        return 1;
      }
    }
  }
  const int runs = sorter->runs();
  const double spilled_mb = static_cast<double>(sorter->spilled_bytes()) / (1 << 20);
  const double c1 = CpuSeconds();
  auto stream = sorter->Finish();
  if (!stream) {
    std::fprintf(stderr, "%s\n", stream.error().ToString().c_str());
    return 1;
  }
  const double c2 = CpuSeconds();
  std::string previous;
  int64_t seen = 0;
  std::string_view k, p;
  while (true) {
    auto more = (*stream)->Next(&k, &p);
    if (!more) {
      std::fprintf(stderr, "%s\n", more.error().ToString().c_str());
      return 1;
    }
    if (!*more) break;
    if (k < std::string_view(previous)) {
      std::fprintf(stderr, "%s: keys out of order at record %lld\n", name,
                   static_cast<long long>(seen));
      return 1;
    }
    previous.assign(k);
    ++seen;
  }
  const double t3 = Now(), c3 = CpuSeconds();
  if (seen != records) {
    std::fprintf(stderr, "%s: %lld records out of %lld\n", name, static_cast<long long>(seen),
                 static_cast<long long>(records));
    return 1;
  }
  std::printf(
      "%-10s %lld records (24 B keys, %.0f B payloads), %d runs (%.0f MB): %.2f M records/s wall, "
      "%.2f M/s CPU (CPU s: add+spill %.2f, finish %.2f, read %.2f), peak RSS %.1f MB\n",
      name, static_cast<long long>(records), avg_payload, runs, spilled_mb,
      records / (t3 - t0) / 1e6, records / (c3 - c0) / 1e6, c1 - c0, c2 - c1, c3 - c2, PeakRssMb());
  return 0;
}

int RunCodec(int64_t rows) {
  std::mt19937_64 rng(7);
  constexpr int64_t kBatch = 8192;
  Batch batch = CdcBatch(rng, 0, kBatch);
  RowCodec codec(CdcSchema());
  std::string arena;
  std::vector<uint64_t> ends;
  const int64_t batches = std::max<int64_t>(1, rows / kBatch);
  double c0 = CpuSeconds();
  for (int64_t b = 0; b < batches; ++b) {
    arena.clear();
    ends.clear();
    codec.EncodeAll(batch, &arena, &ends);
  }
  const double encode = CpuSeconds() - c0;
  Batch out(CdcSchema());
  c0 = CpuSeconds();
  for (int64_t b = 0; b < batches; ++b) {
    out.Clear();
    uint64_t begin = 0;
    for (uint64_t end : ends) {
      auto used = codec.Decode(std::string_view(arena).substr(begin, end - begin), &out);
      if (!used) {
        std::fprintf(stderr, "%s\n", used.error().ToString().c_str());
        return 1;
      }
      begin = end;
    }
  }
  const double decode = CpuSeconds() - c0;
  const double n = static_cast<double>(batches * kBatch);
  std::printf(
      "%-10s %.0f rows of 7 columns (%.1f B each): EncodeAll %.1f M rows/s, Decode %.1f M rows/s "
      "(CPU)\n",
      "codec", n, static_cast<double>(arena.size()) / kBatch, n / encode / 1e6, n / decode / 1e6);
  return 0;
}

/// Runs `fn` in a child process, so its peak RSS is its own.
template <typename Fn>
int InChild(Fn fn) {
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    int rc = fn();
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(rc);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t records = EnvInt("FLOE_BENCH_RECORDS", 10000000);
  const auto budget = static_cast<size_t>(EnvInt("FLOE_BENCH_BUDGET_MB", 32)) << 20;
  std::vector<std::string> cases(argv + 1, argv + argc);
  if (cases.empty()) cases = {"codec", "memory", "spill", "spill-raw"};
  int failed = 0;
  for (const auto& c : cases) {
    if (c == "codec") {
      failed += InChild([&] { return RunCodec(records); });
    } else if (c == "memory") {
      failed += InChild([&] { return RunSorter("memory", records, 0, true); });
    } else if (c == "spill") {
      failed += InChild([&] { return RunSorter("spill-lz4", records, budget, true); });
    } else if (c == "spill-raw") {
      failed += InChild([&] { return RunSorter("spill-raw", records, budget, false); });
    } else {
      std::fprintf(stderr, "unknown case '%s' (codec, memory, spill, spill-raw)\n", c.c_str());
      return 2;
    }
  }
  return failed ? 1 : 0;
}
