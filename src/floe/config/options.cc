#include "floe/config/options.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace floe::config {

namespace {

constexpr uint32_t kT = uint32_t(Scope::kTable);
constexpr uint32_t kW = uint32_t(Scope::kWrite);
constexpr uint32_t kR = uint32_t(Scope::kRead);
constexpr uint32_t kC = uint32_t(Scope::kCatalog);
constexpr uint32_t kB = uint32_t(Scope::kBeam);
using T = OptionType;

// The registry. Iceberg table properties keep Iceberg's names and defaults
// (Iceberg docs: Configuration); Flink options keep the Iceberg Flink
// connector's names (Flink: Read options, Write options, Catalog options);
// Beam keys keep IcebergIO's managed write configuration names.
const std::vector<OptionDef>& Registry() {
  static const std::vector<OptionDef> kOptions = {
      // ---- Iceberg table properties: format and files
      {"format-version", kT, T::kInt, "2", "Table format version written for new tables (1 or 2)."},
      {"write.format.default", kT, T::kEnum, "parquet", "Default data file format.", {"parquet"}},
      {"write.target-file-size-bytes", kT, T::kLong, "536870912",
       "Data files are rolled when they reach about this many bytes."},
      {"write.data.path", kT, T::kString, "", "Folder for new data files (default <location>/data)."},
      {"write.distribution-mode", kT, T::kEnum, "none",
       "How rows are distributed to writers before writing: none, hash (by partition key), range.",
       {"none", "hash", "range"}},
      {"write.upsert.enabled", kT, T::kBool, "false",
       "Write every insert as an upsert (equality delete + insert) on the identifier fields."},
      {"write.delete.mode", kT, T::kEnum, "merge-on-read", "Row-level delete mode.",
       {"merge-on-read", "copy-on-write"}},
      {"write.update.mode", kT, T::kEnum, "merge-on-read", "Row-level update mode.",
       {"merge-on-read", "copy-on-write"}},
      {"write.merge.mode", kT, T::kEnum, "merge-on-read", "Row-level merge mode.",
       {"merge-on-read", "copy-on-write"}},
      // ---- Parquet
      {"write.parquet.row-group-size-bytes", kT, T::kLong, "134217728", "Parquet row group size."},
      {"write.parquet.page-size-bytes", kT, T::kLong, "1048576", "Parquet page size."},
      {"write.parquet.page-row-limit", kT, T::kInt, "20000", "Maximum rows in one Parquet page."},
      {"write.parquet.page-version", kT, T::kEnum, "v1", "Parquet data page version.", {"v1", "v2"}},
      {"write.parquet.dict-size-bytes", kT, T::kLong, "2097152",
       "Dictionary size limit; past it a column chunk falls back to PLAIN."},
      {"write.parquet.dictionary-enabled", kT, T::kBool, "true", "Dictionary-encode columns (floe)."},
      {"write.parquet.compression-codec", kT, T::kEnum, "zstd", "Parquet compression codec.",
       {"zstd", "snappy", "gzip", "lz4", "lz4_raw", "brotli", "uncompressed", "none"}},
      {"write.parquet.compression-level", kT, T::kInt, "", "Codec level (zstd 1-22, gzip 1-9, brotli 0-11)."},
      {"write.parquet.bloom-filter-enabled.column.", kT, T::kBool, "",
       "Write a bloom filter for the column named after the prefix."},
      {"write.parquet.bloom-filter-fpp.column.", kT, T::kDouble, "0.01",
       "False-positive probability of the column's bloom filter."},
      {"write.parquet.bloom-filter-max-bytes", kT, T::kLong, "1048576", "Maximum bloom filter size."},
      {"write.parquet.encoding.column.", kT, T::kEnum, "",
       "Value encoding of the column named after the prefix (floe).",
       {"plain", "dictionary", "delta", "byte_stream_split"}},
      // ---- metadata
      {"write.metadata.metrics.default", kT, T::kString, "truncate(16)",
       "Column metrics mode: none, counts, truncate(N) or full."},
      {"write.metadata.metrics.column.", kT, T::kString, "",
       "Metrics mode of the column named after the prefix."},
      {"write.metadata.compression-codec", kT, T::kEnum, "none", "Metadata JSON compression.",
       {"none", "gzip"}},
      {"write.metadata.delete-after-commit.enabled", kT, T::kBool, "false",
       "Delete the oldest metadata files after each commit."},
      {"write.metadata.previous-versions-max", kT, T::kInt, "100",
       "Previous metadata files kept in the metadata log."},
      {"write.summary.partition-limit", kT, T::kInt, "0",
       "Partitions whose changes are listed in a snapshot summary."},
      {"schema.name-mapping.default", kT, T::kString, "", "Name mapping for files without field ids (JSON)."},
      // ---- commits and maintenance
      {"commit.retry.num-retries", kT, T::kInt, "4", "Retries of a commit that lost a race."},
      {"commit.retry.min-wait-ms", kT, T::kLong, "100", "First wait before a retry."},
      {"commit.retry.max-wait-ms", kT, T::kLong, "60000", "Longest wait before a retry."},
      {"commit.retry.total-timeout-ms", kT, T::kLong, "1800000", "Time limit for all retries."},
      {"commit.manifest.min-count-to-merge", kT, T::kInt, "100",
       "Manifests are merged once a snapshot would list at least this many."},
      {"commit.manifest.target-size-bytes", kT, T::kLong, "8388608", "Target size of merged manifests."},
      {"commit.manifest-merge.enabled", kT, T::kBool, "true", "Merge manifests on append."},
      {"history.expire.max-snapshot-age-ms", kT, T::kLong, "432000000",
       "Snapshots older than this are expired by `floe expire`."},
      {"history.expire.min-snapshots-to-keep", kT, T::kInt, "1", "Snapshots always kept by expiry."},
      {"history.expire.max-ref-age-ms", kT, T::kLong, "", "Age past which branches and tags expire."},
      {"read.split.target-size", kT, T::kLong, "134217728", "Target split size for scans."},
      {"read.split.planning-lookback", kT, T::kInt, "10", "Bins considered when packing splits."},
      {"read.split.open-file-cost", kT, T::kLong, "4194304", "Minimum weight of a file in a split."},

      // ---- Flink write options
      {"write-format", kW, T::kEnum, "", "File format of this write.", {"parquet"},
       "write.format.default"},
      {"target-file-size-bytes", kW, T::kLong, "", "Roll data files at about this size.", {},
       "write.target-file-size-bytes"},
      {"upsert-enabled", kW, T::kBool, "", "Upsert on the equality fields.", {}, "write.upsert.enabled"},
      {"overwrite-enabled", kW, T::kBool, "false",
       "Overwrite the table (unpartitioned) or the partitions the write touches."},
      {"distribution-mode", kW, T::kEnum, "", "Distribution of rows to writers.",
       {"none", "hash", "range"}, "write.distribution-mode"},
      {"compression-codec", kW, T::kEnum, "", "Parquet codec of this write.",
       {"zstd", "snappy", "gzip", "lz4", "lz4_raw", "brotli", "uncompressed", "none"},
       "write.parquet.compression-codec"},
      {"compression-level", kW, T::kInt, "", "Codec level of this write.", {},
       "write.parquet.compression-level"},
      {"compression-strategy", kW, T::kString, "", "Accepted for Flink compatibility (ORC only)."},
      {"write-parallelism", kW, T::kInt, "", "Encoder threads (default: the number of cores)."},

      // ---- Flink read options
      {"snapshot-id", kR, T::kLong, "", "Read this snapshot."},
      {"as-of-timestamp", kR, T::kLong, "", "Read the snapshot current at this time (epoch ms)."},
      {"branch", kR, T::kString, "", "Read the head of this branch."},
      {"tag", kR, T::kString, "", "Read the snapshot of this tag."},
      {"start-snapshot-id", kR, T::kLong, "", "Incremental read: changes after this snapshot."},
      {"end-snapshot-id", kR, T::kLong, "", "Incremental read: up to and including this snapshot."},
      {"start-tag", kR, T::kString, "", "Incremental read: changes after this tag."},
      {"end-tag", kR, T::kString, "", "Incremental read: up to and including this tag."},
      {"case-sensitive", kR, T::kBool, "false", "Match column names case-sensitively."},
      {"limit", kR, T::kLong, "-1", "Emit at most this many rows (-1: no limit)."},
      {"include-column-stats", kR, T::kBool, "false", "Keep column statistics in planned files."},
      {"split-size", kR, T::kLong, "", "Target split size.", {}, "read.split.target-size"},
      {"split-lookback", kR, T::kInt, "", "Bins considered when packing splits.", {},
       "read.split.planning-lookback"},
      {"split-file-open-cost", kR, T::kLong, "", "Minimum weight of a file in a split.", {},
       "read.split.open-file-cost"},
      {"streaming", kR, T::kBool, "false", "Keep reading new snapshots as they are committed."},
      {"monitor-interval", kR, T::kString, "60s", "How often a streaming read looks for snapshots."},
      {"starting-strategy", kR, T::kEnum, "INCREMENTAL_FROM_LATEST_SNAPSHOT",
       "Where a streaming read starts.",
       {"TABLE_SCAN_THEN_INCREMENTAL", "INCREMENTAL_FROM_LATEST_SNAPSHOT",
        "INCREMENTAL_FROM_EARLIEST_SNAPSHOT", "INCREMENTAL_FROM_SNAPSHOT_ID",
        "INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP"}},
      {"start-snapshot-timestamp", kR, T::kLong, "", "Streaming start time (epoch ms)."},
      {"max-planning-snapshot-count", kR, T::kInt, "2147483647",
       "Snapshots planned at most in one streaming discovery."},
      {"max-allowed-planning-failures", kR, T::kInt, "3", "Planning failures tolerated (-1: any)."},

      // ---- catalog options
      {"type", kC, T::kString, "iceberg", "Flink catalog type; always iceberg."},
      {"catalog-type", kC, T::kEnum, "hadoop", "Built-in catalog.", {"hadoop", "rest", "hive", "sql"}},
      {"catalog-impl", kC, T::kString, "", "Class name of a catalog plugin."},
      {"warehouse", kC, T::kString, "./warehouse", "Warehouse folder or URI."},
      {"uri", kC, T::kString, "", "REST catalog URI or Hive metastore URI."},
      {"credential", kC, T::kString, "", "REST OAuth2 client credential (id:secret)."},
      {"token", kC, T::kString, "", "REST bearer token."},
      {"clients", kC, T::kInt, "2", "Hive metastore client pool size."},
      {"property-version", kC, T::kInt, "1", "Catalog property version."},
      {"cache-enabled", kC, T::kBool, "true", "Cache loaded tables."},
      {"cache.expiration-interval-ms", kC, T::kLong, "-1",
       "How long cached tables live (-1: until changed here; 0 is invalid)."},
      {"io-impl", kC, T::kString, "", "FileIO implementation."},

      // ---- Beam IcebergIO write configuration
      {"table", kB, T::kString, "", "Table identifier, or a template such as db.events_{region}."},
      {"catalog_name", kB, T::kString, "", "Name of the catalog."},
      {"catalog_properties", kB, T::kMap, "", "Catalog properties (see the catalog options)."},
      {"config_properties", kB, T::kMap, "", "Hadoop configuration properties (accepted, unused)."},
      {"triggering_frequency_seconds", kB, T::kInt, "", "Seconds between commits of a streaming write."},
      {"keep", kB, T::kList, "", "Only these input fields are written (exclusive with drop, only)."},
      {"drop", kB, T::kList, "", "These input fields are not written (exclusive with keep, only)."},
      {"only", kB, T::kString, "", "Write this one record field (exclusive with keep, drop)."},
      {"partition_fields", kB, T::kList, "",
       "Partition fields of a new table: col, bucket(col, N), truncate(col, W), year|month|day|hour(col)."},
      {"sort_fields", kB, T::kList, "", "Sort order of a new table: `col [asc|desc] [nulls first|last]`."},
      {"table_properties", kB, T::kMap, "", "Table properties of a new table."},
      {"write_properties", kB, T::kMap, "", "Write options of this job (Flink write option names)."},
  };
  return kOptions;
}

std::string_view TypeName(OptionType t) {
  switch (t) {
    case T::kString: return "string";
    case T::kBool: return "boolean";
    case T::kInt: return "int";
    case T::kLong: return "long";
    case T::kDouble: return "double";
    case T::kEnum: return "enum";
    case T::kList: return "list";
    case T::kMap: return "map";
  }
  return "?";
}

bool ParseLong(std::string_view s, int64_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string_view ScopeName(Scope scope) {
  switch (scope) {
    case Scope::kTable: return "table property";
    case Scope::kWrite: return "write option";
    case Scope::kRead: return "read option";
    case Scope::kCatalog: return "catalog option";
    case Scope::kBeam: return "Beam write configuration";
  }
  return "?";
}

std::span<const OptionDef> AllOptions() { return Registry(); }

const OptionDef* FindOption(std::string_view key, uint32_t scopes) {
  for (const auto& def : Registry()) {
    if (!(def.scopes & scopes)) continue;
    if (def.is_prefix()) {
      if (key.size() > def.key.size() && key.starts_with(def.key)) return &def;
    } else if (key == def.key) {
      return &def;
    }
  }
  return nullptr;
}

Status CheckValue(const OptionDef& def, std::string_view key, std::string_view value) {
  int64_t n = 0;
  switch (def.type) {
    case T::kString:
    case T::kList:
    case T::kMap: return Ok();
    case T::kBool:
      if (EqualsIgnoreCase(value, "true") || EqualsIgnoreCase(value, "false")) return Ok();
      return InvalidArgument("option {}: '{}' is not a boolean (true or false)", key, value);
    case T::kInt:
      if (ParseLong(value, &n) && n >= INT32_MIN && n <= INT32_MAX) return Ok();
      return InvalidArgument("option {}: '{}' is not an int", key, value);
    case T::kLong:
      if (ParseLong(value, &n)) return Ok();
      return InvalidArgument("option {}: '{}' is not a long integer", key, value);
    case T::kDouble: {
      std::string s(value);
      char* end = nullptr;
      double d = std::strtod(s.c_str(), &end);
      if (!s.empty() && end == s.c_str() + s.size() && std::isfinite(d)) return Ok();
      return InvalidArgument("option {}: '{}' is not a number", key, value);
    }
    case T::kEnum:
      for (auto v : def.enum_values) {
        if (EqualsIgnoreCase(v, value)) return Ok();
      }
      {
        std::string valid;
        for (auto v : def.enum_values) valid += (valid.empty() ? "" : ", ") + std::string(v);
        return InvalidArgument("option {}: '{}' is not one of: {}", key, value, valid);
      }
  }
  return Ok();
}

Status CheckOptions(const std::map<std::string, std::string>& options, uint32_t scopes,
                    std::string_view origin) {
  for (const auto& [key, value] : options) {
    const OptionDef* def = FindOption(key, scopes);
    if (!def) {
      std::vector<std::pair<size_t, std::string_view>> ranked;
      for (const auto& d : Registry()) {
        if (d.scopes & scopes) ranked.emplace_back(EditDistance(key, d.key), d.key);
      }
      std::stable_sort(ranked.begin(), ranked.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      std::string valid;
      for (const auto& [dist, name] : ranked) {
        valid += (valid.empty() ? "" : ", ") + std::string(name);
        if (name.back() == '.') valid += "<column>";
      }
      return InvalidArgument("{}: unknown option '{}'; valid options are: {}", origin, key, valid);
    }
    FLOE_RETURN_IF_ERROR(CheckValue(*def, key, value));
  }
  return Ok();
}

Result<std::optional<std::string>> Resolver::Get(std::string_view key) const {
  const OptionDef* def = FindOption(key, ~0u);
  if (!def) return InvalidArgument("unknown option '{}'", key);
  for (const auto* layer : layers_) {
    if (!layer) continue;
    if (auto it = layer->find(std::string(key)); it != layer->end()) {
      FLOE_RETURN_IF_ERROR(CheckValue(*def, key, it->second));
      return std::optional<std::string>(it->second);
    }
  }
  if (!def->overrides.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto v, Get(def->overrides));
    if (v) return v;
  }
  if (!def->default_value.empty()) return std::optional<std::string>(std::string(def->default_value));
  return std::optional<std::string>();
}

Result<std::optional<int64_t>> Resolver::GetLong(std::string_view key) const {
  FLOE_ASSIGN_OR_RETURN(auto v, Get(key));
  if (!v) return std::optional<int64_t>();
  int64_t n = 0;
  if (!ParseLong(*v, &n)) return InvalidArgument("option {}: '{}' is not an integer", key, *v);
  return std::optional<int64_t>(n);
}

Result<std::optional<bool>> Resolver::GetBool(std::string_view key) const {
  FLOE_ASSIGN_OR_RETURN(auto v, Get(key));
  if (!v) return std::optional<bool>();
  if (EqualsIgnoreCase(*v, "true")) return std::optional<bool>(true);
  if (EqualsIgnoreCase(*v, "false")) return std::optional<bool>(false);
  return InvalidArgument("option {}: '{}' is not a boolean", key, *v);
}

Result<std::optional<double>> Resolver::GetDouble(std::string_view key) const {
  FLOE_ASSIGN_OR_RETURN(auto v, Get(key));
  if (!v) return std::optional<double>();
  char* end = nullptr;
  double d = std::strtod(v->c_str(), &end);
  if (end != v->c_str() + v->size()) return InvalidArgument("option {}: '{}' is not a number", key, *v);
  return std::optional<double>(d);
}

std::string RenderMarkdown() {
  std::string out =
      "# floe options\n\n"
      "Generated from the option registry (`src/floe/config/options.cc`) by\n"
      "`floe options --markdown`; a test keeps this file equal to the registry.\n"
      "Precedence: per-statement option > session configuration > table property > default.\n";
  for (Scope scope : {Scope::kTable, Scope::kWrite, Scope::kRead, Scope::kCatalog, Scope::kBeam}) {
    std::string title(ScopeName(scope));
    title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
    if (title.ends_with("property")) title.replace(title.size() - 1, 1, "ie");
    if (scope != Scope::kBeam) title += "s";
    out += fmt::format("\n## {}\n\n| name | type | default | description |\n| --- | --- | --- | --- |\n",
                       title);
    for (const auto& d : Registry()) {
      if (!(d.scopes & uint32_t(scope))) continue;
      std::string type(TypeName(d.type));
      if (d.type == T::kEnum) {
        type.clear();
        for (auto v : d.enum_values) type += (type.empty() ? "" : " \\| ") + std::string(v);
      }
      std::string doc(d.doc);
      if (!d.overrides.empty()) doc += fmt::format(" Overrides table property `{}`.", d.overrides);
      out += fmt::format("| `{}{}` | {} | {} | {} |\n", d.key, d.is_prefix() ? "<column>" : "", type,
                         d.default_value.empty() ? "" : fmt::format("`{}`", d.default_value), doc);
    }
  }
  return out;
}

}  // namespace floe::config
