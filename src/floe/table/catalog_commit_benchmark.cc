// Commit latency per catalog: one process, one table per catalog, N appends
// of one tiny data file each through the table layer (AppendFiles: manifest,
// manifest list, metadata file, the catalog's swap), each timed alone. The
// data file is written before the clock starts: what is measured is the
// commit, which is what differs between catalogs (a `floe write` loop would
// measure process start and input decoding too). Prints one line per catalog:
//   <name> p50_ms p99_ms max_ms commits first100_p50_ms last100_p50_ms
// (the table grows by a snapshot and a manifest per commit, so later commits
// write a longer manifest list and metadata file: the last two columns show
// how much that costs).
// Usage (bench/catalog_commit.sh runs it for hadoop, SQLite and PostgreSQL):
//   catalog_commit_benchmark [--commits N] --catalog NAME KEY=VALUE... [--catalog NAME
//   KEY=VALUE...]
// where KEY=VALUE are catalog options as `floe --catalog` takes them.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/catalog/identifier.h"
#include "floe/table/append_files.h"
#include "floe/table/table.h"
#include "floe/util/uuid.h"

namespace floe::table {
namespace {

struct CatalogSpec {
  std::string name;
  std::map<std::string, std::string> options;
};

struct Latency {
  std::vector<double> ms;  // one per commit, in commit order

  /// The p-quantile (0 < p <= 1) of commits [from, to).
  double Percentile(double p, size_t from = 0, size_t to = SIZE_MAX) const {
    std::vector<double> sorted(ms.begin() + static_cast<std::ptrdiff_t>(std::min(from, ms.size())),
                               ms.begin() + static_cast<std::ptrdiff_t>(std::min(to, ms.size())));
    if (sorted.empty()) return 0;
    std::sort(sorted.begin(), sorted.end());
    // Nearest rank: the smallest value with at least p of the samples at or below it.
    size_t rank = static_cast<size_t>(p * static_cast<double>(sorted.size()) + 0.999999);
    rank = std::clamp<size_t>(rank, 1, sorted.size());
    return sorted[rank - 1];
  }
};

Result<Latency> Measure(const CatalogSpec& spec, int commits) {
  FLOE_ASSIGN_OR_RETURN(auto catalog, catalog::OpenCatalog(spec.name, spec.options));
  FLOE_ASSIGN_OR_RETURN(auto ns, catalog::ParseNamespace("bench"));
  FLOE_ASSIGN_OR_RETURN(bool exists, catalog->NamespaceExists(ns));
  if (!exists) FLOE_RETURN_IF_ERROR(catalog->CreateNamespace(ns, {}));
  // A new table per run, so runs do not grow one another's metadata.
  FLOE_ASSIGN_OR_RETURN(
      auto id, catalog::ParseTableIdentifier("bench.commits_" + RandomUuid().substr(0, 8)));
  catalog::TableDefinition def;
  def.schema = Schema({{1, "id", true, LongType(), {}}});
  def.properties = {{"format-version", "2"}};
  FLOE_ASSIGN_OR_RETURN(auto loaded, catalog->CreateTable(id, def));
  Table table(catalog.get(), std::move(loaded));

  Latency out;
  out.ms.reserve(static_cast<size_t>(commits));
  for (int i = 0; i < commits; ++i) {
    // A stand-in data file (its bytes are never read): what a one-row append
    // adds to the table.
    const std::string location =
        fmt::format("{}/data/{:05}-{}.parquet", table.metadata().location, i, RandomUuid());
    io::OutputOptions o;
    o.create_parents = true;
    FLOE_ASSIGN_OR_RETURN(auto file, table.io()->NewOutput(location, o));
    FLOE_RETURN_IF_ERROR(file->Write("PAR1", 4));
    FLOE_RETURN_IF_ERROR(file->Commit());
    iceberg::DataFile f;
    f.file_path = location;
    f.record_count = 1;
    f.file_size_in_bytes = 4;

    const auto start = std::chrono::steady_clock::now();
    FLOE_ASSIGN_OR_RETURN(auto committed, AppendFiles(&table).AddDataFile(std::move(f)).Commit());
    out.ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
    if (committed.attempts != 1) {
      return Internal("{}: commit {} took {} attempts: another writer is using the table",
                      spec.name, i, committed.attempts);
    }
  }
  return out;
}

int Main(int argc, char** argv) {
  int commits = 500;
  std::vector<CatalogSpec> specs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--commits" && i + 1 < argc) {
      commits = std::atoi(argv[++i]);
    } else if (arg == "--catalog" && i + 1 < argc) {
      specs.push_back({argv[++i], {}});
    } else if (size_t eq = arg.find('='); eq != std::string::npos && !specs.empty()) {
      specs.back().options[arg.substr(0, eq)] = arg.substr(eq + 1);
    } else {
      std::fprintf(
          stderr,
          "catalog_commit_benchmark: unexpected argument '%s'\nusage: catalog_commit_benchmark "
          "[--commits N] --catalog NAME KEY=VALUE... [--catalog NAME KEY=VALUE...]\n",
          arg.c_str());
      return 2;
    }
  }
  if (specs.empty() || commits < 1) {
    std::fprintf(stderr,
                 "catalog_commit_benchmark: give at least one --catalog NAME KEY=VALUE... and "
                 "--commits >= 1\n");
    return 2;
  }
  std::printf("catalog p50_ms p99_ms max_ms commits first100_p50_ms last100_p50_ms\n");
  for (const auto& spec : specs) {
    auto latency = Measure(spec, commits);
    if (!latency) {
      std::fprintf(stderr, "catalog_commit_benchmark: %s: %s\n", spec.name.c_str(),
                   latency.error().message.c_str());
      return 1;
    }
    const size_t n = latency->ms.size();
    std::printf("%s %.2f %.2f %.2f %d %.2f %.2f\n", spec.name.c_str(), latency->Percentile(0.50),
                latency->Percentile(0.99), latency->Percentile(1.0), commits,
                latency->Percentile(0.5, 0, 100), latency->Percentile(0.5, n > 100 ? n - 100 : 0));
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace floe::table

int main(int argc, char** argv) { return floe::table::Main(argc, argv); }
