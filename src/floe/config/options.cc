#include "floe/config/options.h"

#include "floe/config/duration.h"
#include "floe/util/strings.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

namespace floe::config {

namespace {

constexpr uint32_t kT = uint32_t(Scope::kTable);
constexpr uint32_t kW = uint32_t(Scope::kWrite);
constexpr uint32_t kR = uint32_t(Scope::kRead);
constexpr uint32_t kC = uint32_t(Scope::kCatalog);
constexpr uint32_t kB = uint32_t(Scope::kBeam);
constexpr uint32_t kM = uint32_t(Scope::kRewrite);
constexpr uint32_t kSrc = uint32_t(Scope::kSource);
using T = OptionType;

// The registry. Iceberg table properties keep Iceberg's names and defaults
// (Iceberg docs: Configuration); Flink options keep the Iceberg Flink
// connector's names (Flink Configuration: read, write and catalog options);
// Beam keys keep IcebergIO's managed write configuration names. Each entry is
// written as `K(kConstant)` so that its name comes from keys:: (options.h).
#define K(name_) .key = keys::name_.name, .ident = #name_

constexpr std::string_view kOtherEngines = "floe does not act on it; it is stored for the engines that do";

std::string ValidateMetricsMode(std::string_view v) {
  if (v == "none" || v == "counts" || v == "full") return {};
  if (v.starts_with("truncate(") && v.ends_with(")") && v.size() > 10) {
    int64_t n = 0;
    std::string_view digits = v.substr(9, v.size() - 10);
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc() && p == digits.data() + digits.size() && n > 0) return {};
  }
  return "expected none, counts, full or truncate(N) with N > 0";
}

std::string ValidateIcebergType(std::string_view v) {
  if (v == "iceberg") return {};
  return "the Flink catalog type must be 'iceberg'";
}

const std::vector<OptionDef>& Registry() {
  static const std::vector<OptionDef> kOptions = {
      // ---- Iceberg table properties: format and files
      {K(kFormatVersion), .scopes = kT, .type = T::kInt, .default_value = "2",
       .doc = "Table format version of new tables: 2, or 3 (row lineage, deletion vectors, nanosecond "
              "timestamps). Set on an existing table it raises 2 to 3, never lowers.",
       .min = 2, .max = 3},
      {K(kWriteFormatDefault), .scopes = kT, .type = T::kEnum, .default_value = "parquet",
       .doc = "Default data file format.", .enum_values = {"parquet", "avro", "orc"},
       .values_not_yet = {"avro", "orc"}},
      {K(kWriteTargetFileSizeBytes), .scopes = kT, .type = T::kLong, .default_value = "536870912",
       .doc = "Data files are rolled when they reach about this many bytes.", .min = 1},
      {K(kWriteDataPath), .scopes = kT, .type = T::kString,
       .doc = "Folder for new data files (default <location>/data)."},
      {K(kWriteMetadataPath), .scopes = kT, .type = T::kString,
       .doc = "Folder for new metadata files (default <location>/metadata); expiry and orphan removal "
              "count it as part of the table.",
       .support = Support::kStoredOnly,
       .missing = "floe's hadoop catalog always writes metadata under <location>/metadata; stored for other "
                  "catalogs"},
      {K(kWriteDistributionMode), .scopes = kT, .type = T::kEnum, .default_value = "none",
       .doc = "How rows are distributed to writers before writing: none, hash (by partition key), range.",
       .enum_values = {"none", "hash", "range"}, .support = Support::kStoredOnly, .missing = kOtherEngines},
      {K(kWriteUpsertEnabled), .scopes = kT, .type = T::kBool, .default_value = "false",
       .doc = "Write every insert as an upsert (equality delete + insert) on the identifier fields; a write "
              "to such a table must be merge-on-read."},
      {K(kWriteDeleteMode), .scopes = kT, .type = T::kEnum, .default_value = "copy-on-write",
       .doc = "Row-level delete mode of engines that run DELETE (Spark).",
       .enum_values = {"copy-on-write", "merge-on-read"}, .support = Support::kStoredOnly,
       .missing = kOtherEngines},
      {K(kWriteDeleteGranularity), .scopes = kT | kW, .type = T::kEnum, .default_value = "file",
       .doc = "Position deletes of the change sink (delete_kind position) on format version 2: file keeps one "
              "position delete file per data file (referenced_data_file set; each commit merges the data file's "
              "live one into the new one and removes it; a reader of a data file opens only its own); partition "
              "adds one per partition per commit, merging nothing. Format version 3 writes deletion vectors.",
       .enum_values = {"file", "partition"}},
      {K(kWriteUpdateMode), .scopes = kT, .type = T::kEnum, .default_value = "copy-on-write",
       .doc = "Row-level update mode of engines that run UPDATE (Spark).",
       .enum_values = {"copy-on-write", "merge-on-read"}, .support = Support::kStoredOnly,
       .missing = kOtherEngines},
      {K(kWriteMergeMode), .scopes = kT, .type = T::kEnum, .default_value = "copy-on-write",
       .doc = "Row-level merge mode of engines that run MERGE (Spark).",
       .enum_values = {"copy-on-write", "merge-on-read"}, .support = Support::kStoredOnly,
       .missing = kOtherEngines},
      // ---- Parquet
      {K(kParquetRowGroupSizeBytes), .scopes = kT, .type = T::kLong, .default_value = "134217728",
       .doc = "Parquet row group size.", .min = 1},
      {K(kParquetPageSizeBytes), .scopes = kT, .type = T::kLong, .default_value = "1048576",
       .doc = "Parquet page size.", .min = 1},
      {K(kParquetPageRowLimit), .scopes = kT, .type = T::kInt, .default_value = "20000",
       .doc = "Maximum rows in one Parquet page.", .min = 1},
      {K(kParquetPageVersion), .scopes = kT, .type = T::kEnum, .default_value = "v1",
       .doc = "Parquet data page version (floe).", .enum_values = {"v1", "v2"}},
      {K(kParquetDictSizeBytes), .scopes = kT, .type = T::kLong, .default_value = "2097152",
       .doc = "Dictionary size limit; past it a column chunk falls back to PLAIN.", .min = 0},
      {K(kParquetDictionaryEnabled), .scopes = kT, .type = T::kBool, .default_value = "true",
       .doc = "Dictionary-encode columns (floe)."},
      {K(kParquetCompressionCodec), .scopes = kT, .type = T::kEnum, .default_value = "zstd",
       .doc = "Parquet compression codec.",
       .enum_values = {"zstd", "snappy", "gzip", "lz4", "lz4_raw", "brotli", "uncompressed", "none"}},
      {K(kParquetCompressionLevel), .scopes = kT, .type = T::kInt,
       .doc = "Codec level (zstd -131072..22, gzip 1-9, brotli 0-11; default: the codec's).", .min = -131072,
       .max = 22},
      {K(kParquetBloomFilterEnabledColumn), .scopes = kT, .type = T::kBool,
       .doc = "Write a bloom filter for the column named after the prefix."},
      {K(kParquetBloomFilterFppColumn), .scopes = kT, .type = T::kDouble, .default_value = "0.01",
       .doc = "False-positive probability of the column's bloom filter, in (0, 1).",
       .validate = [](std::string_view v) -> std::string {
         double d = std::strtod(std::string(v).c_str(), nullptr);
         return d > 0.0 && d < 1.0 ? std::string() : std::string("expected a probability in (0, 1)");
       }},
      {K(kParquetBloomFilterMaxBytes), .scopes = kT, .type = T::kLong, .default_value = "1048576",
       .doc = "Maximum bloom filter size.", .min = 32},
      {K(kParquetEncodingColumn), .scopes = kT, .type = T::kEnum,
       .doc = "Value encoding of the column named after the prefix (floe).",
       .enum_values = {"plain", "dictionary", "delta", "byte_stream_split"}},
      // ---- metadata
      {K(kMetricsDefault), .scopes = kT, .type = T::kString, .default_value = "truncate(16)",
       .doc = "Column metrics mode: none, counts, truncate(N) or full.", .validate = ValidateMetricsMode},
      {K(kMetricsColumn), .scopes = kT, .type = T::kString,
       .doc = "Metrics mode of the column named after the prefix.", .validate = ValidateMetricsMode},
      {K(kMetadataCompressionCodec), .scopes = kT, .type = T::kEnum, .default_value = "none",
       .doc = "Metadata JSON compression.", .enum_values = {"none", "gzip"}, .support = Support::kStoredOnly,
       .missing = "floe writes uncompressed metadata; the property is stored for other engines"},
      {K(kMetadataDeleteAfterCommit), .scopes = kT, .type = T::kBool, .default_value = "false",
       .doc = "Delete the oldest metadata files after each commit.", .support = Support::kStoredOnly,
       .missing = kOtherEngines},
      {K(kMetadataPreviousVersionsMax), .scopes = kT, .type = T::kInt, .default_value = "100",
       .doc = "Previous metadata files kept in the metadata log.", .min = 1},
      {K(kSummaryPartitionLimit), .scopes = kT, .type = T::kInt, .default_value = "0",
       .doc = "Partitions whose changes are listed in a snapshot summary.", .min = 0,
       .support = Support::kStoredOnly, .missing = kOtherEngines},
      {K(kNameMappingDefault), .scopes = kT, .type = T::kString,
       .doc = "Name mapping for files without field ids (JSON)."},
      // ---- commits and maintenance
      {K(kCommitNumRetries), .scopes = kT, .type = T::kInt, .default_value = "4",
       .doc = "Retries of a commit that lost a race.", .min = 0, .max = 1000000},
      {K(kCommitMinWaitMs), .scopes = kT, .type = T::kLong, .default_value = "100",
       .doc = "First wait before a retry.", .min = 0},
      {K(kCommitMaxWaitMs), .scopes = kT, .type = T::kLong, .default_value = "60000",
       .doc = "Longest wait before a retry.", .min = 0},
      {K(kCommitTotalTimeoutMs), .scopes = kT, .type = T::kLong, .default_value = "1800000",
       .doc = "Time limit for all retries.", .min = 0},
      {K(kManifestMinCountToMerge), .scopes = kT, .type = T::kInt, .default_value = "100",
       .doc = "Manifests are merged once a snapshot would list at least this many.", .min = 0,
       .support = Support::kStoredOnly, .missing = "floe does not merge manifests yet; stored for other engines"},
      {K(kManifestTargetSizeBytes), .scopes = kT, .type = T::kLong, .default_value = "8388608",
       .doc = "Target size of merged manifests.", .min = 1, .support = Support::kStoredOnly,
       .missing = "floe does not merge manifests yet; stored for other engines"},
      {K(kManifestMergeEnabled), .scopes = kT, .type = T::kBool, .default_value = "true",
       .doc = "Merge manifests on append.", .support = Support::kStoredOnly,
       .missing = "floe does not merge manifests yet; stored for other engines"},
      {K(kMaxSnapshotAgeMs), .scopes = kT, .type = T::kLong, .default_value = "432000000",
       .doc = "Snapshots older than this are expired by `floe expire`.", .min = 0},
      {K(kMinSnapshotsToKeep), .scopes = kT, .type = T::kInt, .default_value = "1",
       .doc = "Snapshots always kept by expiry.", .min = 1},
      {K(kMaxRefAgeMs), .scopes = kT, .type = T::kLong, .doc = "Age past which branches and tags expire.",
       .min = 1, .support = Support::kStoredOnly,
       .missing = "`floe expire` does not expire refs yet; stored for other engines"},
      {K(kReadSplitTargetSize), .scopes = kT, .type = T::kLong, .default_value = "134217728",
       .doc = "Target split size for scans.", .min = 1},
      {K(kReadSplitPlanningLookback), .scopes = kT, .type = T::kInt, .default_value = "10",
       .doc = "Bins considered when packing splits.", .min = 1},
      {K(kReadSplitOpenFileCost), .scopes = kT, .type = T::kLong, .default_value = "4194304",
       .doc = "Minimum weight of a file in a split.", .min = 0},

      // ---- Flink write options
      {K(kWriteFormat), .scopes = kW, .type = T::kEnum, .doc = "File format of this write.",
       .enum_values = {"parquet", "avro", "orc"}, .overrides = keys::kWriteFormatDefault.name,
       .values_not_yet = {"avro", "orc"}},
      {K(kTargetFileSizeBytes), .scopes = kW | kM, .type = T::kLong,
       .doc = "Roll data files at about this size (a rewrite: the size of the files it writes).",
       .overrides = keys::kWriteTargetFileSizeBytes.name, .min = 1},
      {K(kUpsertEnabled), .scopes = kW, .type = T::kBool, .doc = "Upsert on the equality fields (merge-on-read implied); without sequence_number_column a key's "
              "changes apply in arrival order, as in Flink.",
       .overrides = keys::kWriteUpsertEnabled.name, .conflicts = {keys::kOverwriteEnabled.name}},
      {K(kOverwriteEnabled), .scopes = kW, .type = T::kBool, .default_value = "false",
       .doc = "Overwrite the table (unpartitioned) or the partitions the write touches.",
       .conflicts = {keys::kUpsertEnabled.name}},
      {K(kDistributionMode), .scopes = kW, .type = T::kEnum,
       .doc = "Distribution of rows to writers (Beam's distribution_mode): none, or hash (keys hash into "
              "num_shards shards).",
       .enum_values = {"none", "hash", "range"}, .values_not_yet = {"range"}},
      {K(kCompressionCodec), .scopes = kW, .type = T::kEnum, .doc = "Parquet codec of this write.",
       .enum_values = {"zstd", "snappy", "gzip", "lz4", "lz4_raw", "brotli", "uncompressed", "none"},
       .overrides = keys::kParquetCompressionCodec.name},
      {K(kCompressionLevel), .scopes = kW, .type = T::kInt, .doc = "Codec level of this write.",
       .overrides = keys::kParquetCompressionLevel.name, .min = -131072, .max = 22},
      {K(kCompressionStrategy), .scopes = kW, .type = T::kEnum, .doc = "ORC compression strategy.",
       .enum_values = {"speed", "compression"}, .support = Support::kNotYet,
       .missing = "ORC files, which floe does not write (it writes Parquet)"},
      {K(kEqualityFieldColumns), .scopes = kW, .type = T::kList,
       .doc = "Key columns of an upsert / CDC write (Beam's equality_columns)."},
      {K(kWriteParallelism), .scopes = kW, .type = T::kInt,
       .doc = "Encoder threads (default: the number of cores).", .min = 1, .max = 1024},

      // ---- table maintenance: Spark's rewrite_data_files options (floe rewrite-data-files --set)
      {K(kMinFileSizeBytes), .scopes = kM, .type = T::kLong,
       .doc = "Files smaller than this are rewritten (default: 75% of the target file size).", .min = 0},
      {K(kMaxFileSizeBytes), .scopes = kM, .type = T::kLong,
       .doc = "Files larger than this are rewritten (default: 180% of the target file size).", .min = 1},
      {K(kMinInputFiles), .scopes = kM, .type = T::kInt, .default_value = "5",
       .doc = "A file group is rewritten when it has at least this many files (or more than the target size "
              "in all, or a file with too many deletes).",
       .min = 1},
      {K(kDeleteFileThreshold), .scopes = kM, .type = T::kInt, .default_value = "2147483647",
       .doc = "A file with at least this many delete files applying to it is rewritten whatever its size.",
       .min = 1},
      {K(kRewriteAll), .scopes = kM, .type = T::kBool, .default_value = "false",
       .doc = "Rewrite every selected file, whatever its size and deletes."},
      {K(kPartialProgressEnabled), .scopes = kM, .type = T::kBool, .default_value = "false",
       .doc = "Commit file groups in several commits (partial-progress.max-commits) instead of one; a failed "
              "commit leaves the others committed."},
      {K(kPartialProgressMaxCommits), .scopes = kM, .type = T::kInt, .default_value = "10",
       .doc = "With partial progress: the most commits the rewrite makes.", .min = 1},
      {K(kMaxConcurrentFileGroupRewrites), .scopes = kM, .type = T::kInt, .default_value = "5",
       .doc = "File groups rewritten at once (never more than the machine's cores).", .min = 1},
      {K(kMaxFileGroupSizeBytes), .scopes = kM, .type = T::kLong, .default_value = "107374182400",
       .doc = "The most bytes of input files in one file group (one unit of work and of commit).", .min = 1},
      {K(kUseStartingSequenceNumber), .scopes = kM, .type = T::kBool, .default_value = "true",
       .doc = "Give the rewritten files the sequence number of the snapshot the rewrite read, so equality "
              "deletes committed meanwhile still apply.",
       .missing = "without it an equality delete committed during the rewrite would not apply to the rewritten "
                  "rows (a resurrected row); floe always uses the starting sequence number",
       .values_not_yet = {"false"}},
      {K(kPartialProgressMaxFailedCommits), .scopes = kM, .type = T::kInt,
       .doc = "With partial progress: the most failed commits tolerated.", .min = 0, .support = Support::kNotYet,
       .missing = "floe reports every failed commit and fails the command when one failed (issue 25)"},
      {K(kDeleteRatioThreshold), .scopes = kM, .type = T::kDouble,
       .doc = "Rewrite files whose deleted-row ratio reaches this.", .support = Support::kNotYet,
       .missing = "use delete-file-threshold (issue 25)"},
      {K(kOutputSpecId), .scopes = kM, .type = T::kInt,
       .doc = "Partition spec of the rewritten files.", .support = Support::kNotYet,
       .missing = "floe writes each group back in the spec it was read from (issue 25)"},
      {K(kRemoveDanglingDeletes), .scopes = kM, .type = T::kBool,
       .doc = "Remove delete files that no longer apply.", .support = Support::kNotYet,
       .missing = "floe drops the deletes only the rewritten files needed, always (issue 25)"},

      // ---- Flink read options
      {K(kSnapshotId), .scopes = kR, .type = T::kLong, .doc = "Read this snapshot.",
       .conflicts = {keys::kAsOfTimestamp.name, keys::kBranch.name, keys::kTag.name, keys::kStartSnapshotId.name,
                     keys::kStartTag.name, keys::kEndSnapshotId.name, keys::kEndTag.name}},
      {K(kAsOfTimestamp), .scopes = kR, .type = T::kLong,
       .doc = "Read the snapshot current at this time (epoch ms).",
       .conflicts = {keys::kSnapshotId.name, keys::kBranch.name, keys::kTag.name, keys::kStartSnapshotId.name,
                     keys::kStartTag.name, keys::kEndSnapshotId.name, keys::kEndTag.name}},
      {K(kBranch), .scopes = kR | kW, .type = T::kString,
       .doc = "Read the head of this branch; a write commits to it (created from main when missing).",
       .conflicts = {keys::kSnapshotId.name, keys::kAsOfTimestamp.name, keys::kTag.name,
                     keys::kStartSnapshotId.name, keys::kStartTag.name, keys::kEndSnapshotId.name,
                     keys::kEndTag.name}},
      {K(kTag), .scopes = kR, .type = T::kString, .doc = "Read the snapshot of this tag.",
       .conflicts = {keys::kSnapshotId.name, keys::kAsOfTimestamp.name, keys::kBranch.name,
                     keys::kStartSnapshotId.name, keys::kStartTag.name, keys::kEndSnapshotId.name,
                     keys::kEndTag.name}},
      {K(kStartSnapshotId), .scopes = kR, .type = T::kLong,
       .doc = "Incremental read: changes after this snapshot. Streaming read with starting-strategy "
              "INCREMENTAL_FROM_SNAPSHOT_ID: changes from this snapshot on (inclusive).",
       .conflicts = {keys::kStartTag.name}},
      {K(kEndSnapshotId), .scopes = kR, .type = T::kLong,
       .doc = "Incremental read: up to and including this snapshot.", .conflicts = {keys::kEndTag.name}},
      {K(kStartTag), .scopes = kR, .type = T::kString, .doc = "Incremental read: changes after this tag.",
       .conflicts = {keys::kStartSnapshotId.name}},
      {K(kEndTag), .scopes = kR, .type = T::kString,
       .doc = "Incremental read: up to and including this tag.", .conflicts = {keys::kEndSnapshotId.name}},
      {K(kCaseSensitive), .scopes = kR, .type = T::kBool, .default_value = "false",
       .doc = "Match column names case-sensitively.", .session_key = "connector.iceberg.case-sensitive"},
      {K(kLimit), .scopes = kR, .type = T::kLong, .default_value = "-1",
       .doc = "Emit at most this many rows (-1: no limit).", .session_key = "connector.iceberg.limit",
       .min = -1},
      {K(kIncludeColumnStats), .scopes = kR, .type = T::kBool, .default_value = "false",
       .doc = "Keep column statistics in planned files (`floe files` prints them).",
       .session_key = "connector.iceberg.include-column-stats"},
      {K(kSplitSize), .scopes = kR, .type = T::kLong, .doc = "Target split size.",
       .overrides = keys::kReadSplitTargetSize.name, .session_key = "connector.iceberg.split-size", .min = 1},
      {K(kSplitLookback), .scopes = kR, .type = T::kInt, .doc = "Bins considered when packing splits.",
       .overrides = keys::kReadSplitPlanningLookback.name, .session_key = "connector.iceberg.split-lookback",
       .min = 1},
      {K(kSplitFileOpenCost), .scopes = kR, .type = T::kLong, .doc = "Minimum weight of a file in a split.",
       .overrides = keys::kReadSplitOpenFileCost.name, .session_key = "connector.iceberg.split-file-open-cost",
       .min = 0},
      {K(kStreaming), .scopes = kR, .type = T::kBool, .default_value = "false",
       .doc = "Keep reading new snapshots of the branch as they are committed, as a changelog (+I, -U, +U, "
              "-D rows).",
       .session_key = "connector.iceberg.streaming"},
      {K(kMonitorInterval), .scopes = kR, .type = T::kString, .default_value = "60s",
       .doc = "How often a streaming read looks for new snapshots (a Flink duration: 10s, 500 ms, 1 min).",
       .session_key = "connector.iceberg.monitor-interval", .validate = ValidateDuration},
      {K(kStartingStrategy), .scopes = kR, .type = T::kEnum, .default_value = "INCREMENTAL_FROM_LATEST_SNAPSHOT",
       .doc = "Where a streaming read starts. TABLE_SCAN_THEN_INCREMENTAL: the current snapshot's rows, then "
              "the changes after it; INCREMENTAL_FROM_LATEST_SNAPSHOT / _EARLIEST_SNAPSHOT / _SNAPSHOT_ID / "
              "_SNAPSHOT_TIMESTAMP: the changes from that snapshot on, inclusive (an empty table: every "
              "future snapshot).",
       .enum_values = {"TABLE_SCAN_THEN_INCREMENTAL", "INCREMENTAL_FROM_LATEST_SNAPSHOT",
                       "INCREMENTAL_FROM_EARLIEST_SNAPSHOT", "INCREMENTAL_FROM_SNAPSHOT_ID",
                       "INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP"},
       .session_key = "connector.iceberg.starting-strategy"},
      {K(kStartSnapshotTimestamp), .scopes = kR, .type = T::kLong,
       .doc = "Streaming start time (epoch ms) of INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP: the oldest snapshot of "
              "the branch committed at or after it."},
      {K(kMaxPlanningSnapshotCount), .scopes = kR, .type = T::kInt, .default_value = "2147483647",
       .doc = "Snapshots planned at most in one streaming discovery.",
       .session_key = "connector.iceberg.max-planning-snapshot-count", .min = 1},
      {K(kMaxAllowedPlanningFailures), .scopes = kR, .type = T::kInt, .default_value = "3",
       .doc = "Consecutive streaming planning failures tolerated before the read fails (-1: any).",
       .session_key = "connector.iceberg.max-allowed-planning-failures", .min = -1},

      // ---- catalog options
      {K(kType), .scopes = kC, .type = T::kString, .default_value = "iceberg",
       .doc = "Flink catalog type; must be iceberg.", .validate = ValidateIcebergType},
      {K(kCatalogType), .scopes = kC, .type = T::kEnum, .default_value = "hadoop",
       .doc = "Built-in catalog: hadoop (a warehouse folder), rest (an Iceberg REST catalog at uri), sql "
              "(Iceberg's JdbcCatalog tables in SQLite or PostgreSQL at uri).",
       .enum_values = {"hadoop", "rest", "hive", "sql"}, .conflicts = {keys::kCatalogImpl.name},
       .missing = "no Hive Metastore client: use catalog-type=rest (any REST catalog, or floe serve) or "
                  "catalog-type=sql (SQLite or PostgreSQL)",
       .values_not_yet = {"hive"}},
      {K(kCatalogImpl), .scopes = kC, .type = T::kString,
       .doc = "Catalog class name: org.apache.iceberg.hadoop.HadoopCatalog, org.apache.iceberg.rest.RESTCatalog "
              "or org.apache.iceberg.jdbc.JdbcCatalog select the built-in catalogs; other names are looked up "
              "among catalogs registered by plugins.",
       .conflicts = {keys::kCatalogType.name}},
      {K(kWarehouse), .scopes = kC, .type = T::kString, .default_value = "./warehouse",
       .doc = "hadoop: the warehouse folder (a local path or file: URI); sql: the root of new tables' "
              "locations; rest: the warehouse asked for in the config handshake."},
      {K(kUri), .scopes = kC, .type = T::kString,
       .doc = "rest: the REST catalog's base URI (http://host:port[/path]); sql: jdbc:sqlite:file:PATH or "
              "jdbc:postgresql://HOST:PORT/DB."},
      {K(kCredential), .scopes = kC, .type = T::kString,
       .doc = "rest: OAuth2 client credential client_id:client_secret, exchanged for a token at the token "
              "endpoint (client-credentials flow)."},
      {K(kToken), .scopes = kC, .type = T::kString, .doc = "rest: bearer token sent with every request."},
      {K(kOauth2ServerUri), .scopes = kC, .type = T::kString,
       .doc = "rest: OAuth2 token endpoint (default <uri>/v1/oauth/tokens)."},
      {K(kScope), .scopes = kC, .type = T::kString, .default_value = "catalog",
       .doc = "rest: OAuth2 scope asked for with credential."},
      {K(kTokenRefreshEnabled), .scopes = kC, .type = T::kBool, .default_value = "true",
       .doc = "rest: fetch a new token with credential before the current one expires."},
      {K(kHeaderPrefix), .scopes = kC, .type = T::kString,
       .doc = "rest: extra HTTP header sent with every request (header.X-Name=value)."},
      {K(kRestPageSize), .scopes = kC, .type = T::kInt, .doc = "rest: page size asked for when listing.",
       .min = 1},
      {K(kRestConnectionTimeoutMs), .scopes = kC, .type = T::kLong, .default_value = "10000",
       .doc = "rest: connection time-out in ms.", .min = 1},
      {K(kRestSocketTimeoutMs), .scopes = kC, .type = T::kLong, .default_value = "60000",
       .doc = "rest: time-out of one request in ms (a commit that times out is commit state unknown).",
       .min = 1},
      {K(kJdbcUser), .scopes = kC, .type = T::kString, .doc = "sql: PostgreSQL user."},
      {K(kJdbcPassword), .scopes = kC, .type = T::kString, .doc = "sql: PostgreSQL password."},
      {K(kJdbcSchemaVersion), .scopes = kC, .type = T::kEnum, .default_value = "V1",
       .doc = "sql: JdbcCatalog schema version of new catalog tables: V1 has the iceberg_type column, V0 "
              "not.",
       .enum_values = {"V0", "V1"}},
      {K(kJdbcInitCatalogTables), .scopes = kC, .type = T::kBool, .default_value = "true",
       .doc = "sql: create the catalog tables when they are missing."},
      {K(kJdbcBusyTimeout), .scopes = kC, .type = T::kLong, .default_value = "60000",
       .doc = "sql (SQLite): how long in ms a catalog call waits for another connection's lock on the catalog "
              "file before it fails naming the lock (sqlite-jdbc's busy_timeout, as JdbcCatalog passes jdbc.* "
              "on); waited once per call, never per commit retry.",
       .min = 0, .max = 2147483647},
      {K(kClients), .scopes = kC, .type = T::kInt, .default_value = "2", .doc = "Hive metastore client pool size.",
       .min = 1, .support = Support::kNotYet,
       .missing = "the hive catalog, which floe does not have (no Hive Metastore client)"},
      {K(kPropertyVersion), .scopes = kC, .type = T::kInt, .default_value = "1",
       .doc = "Catalog property version; 1 is the only version.", .min = 1, .max = 1},
      {K(kCacheEnabled), .scopes = kC, .type = T::kBool, .default_value = "true",
       .doc = "Cache loaded tables (a commit through the cache refreshes its entry)."},
      {K(kCacheExpirationIntervalMs), .scopes = kC, .type = T::kLong, .default_value = "-1",
       .doc = "How long cached tables live (-1: until changed here; 0 is invalid).",
       .validate = [](std::string_view v) -> std::string {
         return v == "0" ? std::string("0 is not allowed (use -1 to never expire)") : std::string();
       }},
      {K(kIoImpl), .scopes = kC, .type = T::kEnum,
       .doc = "FileIO implementation: org.apache.iceberg.aws.s3.S3FileIO (the warehouse must be s3://, s3a:// "
              "or s3n://); org.apache.iceberg.io.ResolvingFileIO or org.apache.iceberg.hadoop.HadoopFileIO pick "
              "the FileIO by the location's scheme, as floe does without io-impl (local for file: and paths, "
              "S3 for s3/s3a/s3n).",
       .enum_values = {"org.apache.iceberg.aws.s3.S3FileIO", "org.apache.iceberg.io.ResolvingFileIO",
                       "org.apache.iceberg.hadoop.HadoopFileIO"}},
      {K(kS3Endpoint), .scopes = kC, .type = T::kString,
       .doc = "S3 FileIO: the endpoint, http(s)://host[:port] (default https://s3.<client.region>.amazonaws.com); "
              "MinIO and other S3-compatible stores are reached here."},
      {K(kS3AccessKeyId), .scopes = kC, .type = T::kString,
       .doc = "S3 FileIO: access key id (with s3.secret-access-key; without both, AWS_ACCESS_KEY_ID / "
              "AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN from the environment)."},
      {K(kS3SecretAccessKey), .scopes = kC, .type = T::kString,
       .doc = "S3 FileIO: secret access key; used only to sign requests, never printed."},
      {K(kS3SessionToken), .scopes = kC, .type = T::kString,
       .doc = "S3 FileIO: session token of temporary credentials (sent as x-amz-security-token)."},
      {K(kS3PathStyleAccess), .scopes = kC, .type = T::kBool, .default_value = "false",
       .doc = "S3 FileIO: path-style addressing (endpoint/bucket/key) instead of virtual-host "
              "(bucket.endpoint/key); most local stores need true."},
      {K(kS3MultipartPartSizeBytes), .scopes = kC, .type = T::kLong, .default_value = "33554432",
       .doc = "S3 FileIO: files are uploaded in parts of this size while they are written (2 parts in "
              "flight per file, so a file being written holds at most 3 parts in memory); a smaller "
              "file is one PUT.",
       .min = 5242880},
      {K(kS3RetryNumRetries), .scopes = kC, .type = T::kInt, .default_value = "4",
       .doc = "S3 FileIO: how often a failed request is sent again (5xx, 429, a connection lost or "
              "stalled; 0: never); a conditional write whose outcome is unknown is resolved by reading "
              "the object back. Iceberg's Java default is 5.",
       .min = 0, .max = 100},
      {K(kS3RetryMinWaitMs), .scopes = kC, .type = T::kLong, .default_value = "50",
       .doc = "S3 FileIO: the shortest wait before a retry, in ms; the wait before retry n is drawn "
              "between this and min(s3.retry.max-wait-ms, this * 2^n) (jitter, so that writers that "
              "failed together do not retry together). Iceberg's Java default is 2000.",
       .min = 0},
      {K(kS3RetryMaxWaitMs), .scopes = kC, .type = T::kLong, .default_value = "5000",
       .doc = "S3 FileIO: the longest wait before a retry, in ms (at least s3.retry.min-wait-ms). "
              "Iceberg's Java default is 20000.",
       .min = 0},
      {K(kS3ConnectionTimeoutMs), .scopes = kC, .type = T::kLong, .default_value = "10000",
       .doc = "S3 FileIO: connecting to the store, in ms (floe's name; Iceberg's Java client sets "
              "this through its http-client.* properties).",
       .min = 1},
      {K(kS3SocketTimeoutMs), .scopes = kC, .type = T::kLong, .default_value = "60000",
       .doc = "S3 FileIO: a request during which no byte moves for this long once connected fails as "
              "stalled, in ms (checked about once a second), and is retried as above; a whole request may "
              "take 600 s at most (fixed). A stalled metadata publish is resolved by reading the "
              "object back, or reported as commit state unknown.",
       .min = 1000},
      {K(kClientRegion), .scopes = kC, .type = T::kString,
       .doc = "S3 FileIO: the region requests are signed for (default AWS_REGION, then AWS_DEFAULT_REGION, "
              "then us-east-1)."},

      // ---- Beam IcebergIO write configuration
      {K(kBeamTable), .scopes = kB, .type = T::kString,
       .doc = "Table identifier, or a template such as db.events_{region}_{meta.kind}: one destination per "
              "value (sanitized into identifier characters), each created on first use."},
      {K(kBeamCatalogName), .scopes = kB, .type = T::kString, .doc = "Name of the catalog (used in messages)."},
      {K(kBeamCatalogProperties), .scopes = kB, .type = T::kMap,
       .doc = "Catalog properties (see the catalog options)."},
      {K(kBeamConfigProperties), .scopes = kB, .type = T::kMap,
       .doc = "Hadoop configuration properties; floe uses none yet, so any key is refused."},
      {K(kBeamTriggeringFrequencySeconds), .scopes = kB, .type = T::kInt,
       .doc = "Seconds between commits of a streaming write (standard input); a file commits at its end.",
       .min = 1},
      {K(kBeamKeep), .scopes = kB, .type = T::kList,
       .doc = "Only these input fields are written (exclusive with drop, only).",
       .conflicts = {keys::kBeamDrop.name, keys::kBeamOnly.name}},
      {K(kBeamDrop), .scopes = kB, .type = T::kList,
       .doc = "These input fields are not written (exclusive with keep, only).",
       .conflicts = {keys::kBeamKeep.name, keys::kBeamOnly.name}},
      {K(kBeamOnly), .scopes = kB, .type = T::kString,
       .doc = "Write this one record field (exclusive with keep, drop).",
       .conflicts = {keys::kBeamKeep.name, keys::kBeamDrop.name}},
      {K(kBeamPartitionFields), .scopes = kB, .type = T::kList,
       .doc = "Partition fields of a new table: col, bucket(col, N), truncate(col, W), year|month|day|hour(col)."},
      {K(kBeamSortFields), .scopes = kB, .type = T::kList,
       .doc = "Sort order of a new table: `term [asc|desc] [nulls first|last]`, a term being a column or a "
              "transform of one (`bucket(id, 4) desc`, `day(ts)`)."},
      {K(kBeamTableProperties), .scopes = kB, .type = T::kMap, .doc = "Table properties of a new table."},
      {K(kBeamWriteProperties), .scopes = kB, .type = T::kMap,
       .doc = "Write options of this job (Flink write option names and table properties)."},
      // ---- Beam: merge-on-read (CDC) and streaming
      {K(kBeamMode), .scopes = kB, .type = T::kEnum, .default_value = "append",
       .doc = "append: every row is an insert. merge-on-read: rows are changes (insert, update, delete) "
              "resolved per key and written as data files plus equality deletes.",
       .enum_values = {"append", "merge-on-read"}},
      {K(kBeamSequenceNumberColumn), .scopes = kB, .type = T::kString,
       .default_value = "_commit_snapshot_sequence_number",
       .doc = "Merge-on-read: the column (a dotted path into structs allowed) that orders changes of one key; "
              "stripped before writing. Not set with upsert: a key's changes apply in the order they arrive (Flink's "
              "upsert)."},
      {K(kBeamChangeTypeColumn), .scopes = kB, .type = T::kString,
       .doc = "Merge-on-read: the column holding each row's change type (INSERT, UPDATE_BEFORE, UPDATE_AFTER, "
              "DELETE, or Flink's +I -U +U -D); stripped before writing. Unset: every row is an insert (an "
              "upsert with upsert)."},
      {K(kBeamChangeTypeMap), .scopes = kB, .type = T::kMap,
       .doc = "Merge-on-read: maps the change type column's values to change types, e.g. {c: INSERT, u: "
              "UPDATE_AFTER, d: DELETE} (the inverse form {INSERT: c, ...} is accepted too)."},
      {K(kBeamUpsert), .scopes = kB, .type = T::kBool, .default_value = "false",
       .doc = "Merge-on-read: every insert or update replaces the key's row (after-images only; UPDATE_BEFORE "
              "rows are dropped). Without sequence_number_column the last change of a key to arrive wins."},
      {K(kBeamDeleteKind), .scopes = kB, .type = T::kEnum, .default_value = "position",
       .doc = "Merge-on-read: how an update or delete of a key already in the table is written. position: the "
              "sink indexes the table's keys (their data file and row) and writes a position delete file per "
              "data file (format version 2) or a deletion vector per data file (format version 3: one Puffin "
              "file per commit, merged with the file's live vector), which every engine reads and reads fast. "
              "equality: an equality delete of the key (the "
              "cheapest write, no index; readers pay per delete file and some engines do not read them).",
       .enum_values = {"position", "equality"}},
      {K(kBeamEqualityColumns), .scopes = kB, .type = T::kList,
       .doc = "Merge-on-read: the key columns (default: the table's identifier fields; required when the table "
              "does not exist yet and the schema declares no PRIMARY KEY)."},
      {K(kBeamSnapshotProperties), .scopes = kB, .type = T::kMap,
       .doc = "Extra snapshot summary properties of every commit (the floe. prefix is reserved)."},
      {K(kBeamDistributionMode), .scopes = kB, .type = T::kEnum, .default_value = "none",
       .doc = "none: one writer per destination. hash: keys hash into num_shards shards, each writing its "
              "own files.",
       .enum_values = {"none", "hash"}},
      {K(kBeamAutosharding), .scopes = kB, .type = T::kBool, .default_value = "false",
       .doc = "hash only: per commit, as many writers as the window's bytes need (one per target file size), "
              "at most num_shards."},
      {K(kBeamNumShards), .scopes = kB, .type = T::kInt, .default_value = "16",
       .doc = "hash only: shards per destination.", .min = 1, .max = 65535},
      {K(kBeamShardsPerPartition), .scopes = kB, .type = T::kInt, .default_value = "1",
       .doc = "hash only: shards one partition's keys spread over (1..num_shards).", .min = 1, .max = 65535},
      {K(kBeamSorterMemoryMb), .scopes = kB, .type = T::kInt, .default_value = "100",
       .doc = "Memory of the change buffers of all destinations; past it sorted runs spill to disk.", .min = 1,
       .max = 1048576},
      {K(kBeamDirectWriteByteLimit), .scopes = kB, .type = T::kLong,
       .doc = "A window (of one destination) smaller than this many bytes is written by one writer instead of "
              "being spread over the shards: fewer, larger files for small windows.",
       .min = 1},
      {K(kBeamAllowedLatenessSeconds), .scopes = kB, .type = T::kLong, .default_value = "21600",
       .doc = "Merge-on-read: a change older than an already committed change of its key goes to the "
              "dead-letter output while it is at most this late, and is dropped (and counted) beyond.",
       .min = 0},
      {K(kBeamSinkId), .scopes = kB, .type = T::kString,
       .doc = "Exactly-once: commits carry this id, a commit number and the input position; a relaunch skips "
              "what is committed."},
      {K(kBeamTokenHeartbeatSeconds), .scopes = kB, .type = T::kInt,
       .doc = "Streaming with sink_id: an idle sink commits an empty token refresh this often.", .min = 1},
      {K(kBeamErrorHandling), .scopes = kB, .type = T::kMap,
       .doc = "Where invalid rows go, {output: FILE.jsonl} or {table: NS.T}, and late changes, {dead_letter: "
              "FILE.jsonl} or {dead_letter_table: NS.T} (position, reason and row; written once per input "
              "position)."},
      {K(kBeamUseSideInputTableCache), .scopes = kB, .type = T::kBool, .default_value = "false",
       .doc = "Keep loaded destination tables between commits (refreshed every "
              "table_cache_refresh_interval_seconds); off: every window reloads its tables from the catalog."},
      {K(kBeamTableCacheRefreshIntervalSeconds), .scopes = kB, .type = T::kLong,
       .doc = "With the table cache: how often a cached destination table is reloaded (unset: only when a "
              "commit finds it changed).",
       .min = 1},
      {K(kBeamMaximumTableCacheSize), .scopes = kB, .type = T::kInt,
       .doc = "With the table cache: destination tables kept loaded at most; the least recently used idle ones "
              "are unloaded (and reloaded on their next change).",
       .min = 1},
      {K(kBeamTableCachePollingBuckets), .scopes = kB, .type = T::kInt, .default_value = "1",
       .doc = "With the table cache: destinations are spread over this many buckets whose refreshes are "
              "staggered across the refresh interval, so they do not all reload at once.",
       .min = 1, .max = 65536},
      // The Kafka source block (kafka/kafka_source.h).
      {K(kSourceType), .scopes = kSrc, .type = T::kEnum,
       .doc = "kafka (or ReadFromKafka, Beam YAML's name): the rows come from Kafka topics instead of --input. "
              "(type: postgres is the PostgreSQL source, whose keys are its own.)",
       .enum_values = {"kafka", "ReadFromKafka"}},
      {K(kSourceTopic), .scopes = kSrc, .type = T::kList,
       .doc = "The topic to read, or a list of topics (every partition of each).",
       .conflicts = {keys::kSourceTopicPattern.name}},
      {K(kSourceTopicPattern), .scopes = kSrc, .type = T::kString,
       .doc = "A regular expression (ECMAScript) searched in every topic name (anchor it with ^ and $ for whole "
              "names; topics starting with __ never match): every topic that matches is read, also those "
              "created later (found every partition_discovery_interval_ms).",
       .conflicts = {keys::kSourceTopic.name}},
      {K(kSourceBootstrapServers), .scopes = kSrc, .type = T::kString,
       .doc = "host:port[,host:port...] of the Kafka brokers (required)."},
      {K(kSourceFormat), .scopes = kSrc, .type = T::kEnum, .default_value = "json",
       .doc = "How a message's value is decoded: json (one JSON object, the JSONL rules), debezium-json (one "
              "Debezium change event, with or without its schema; Debezium's value encodings), avro-confluent "
              "(one Avro record in Confluent's wire format, its writer schema from the Schema Registry at "
              "confluent_schema_registry_url; fields map to columns by name with the JSONL rules), "
              "debezium-avro-confluent (one Debezium change event in Avro, as Confluent's AvroConverter writes "
              "it; the debezium-json rules). A null or empty value (a tombstone) is no record.",
       .enum_values = {"json", "debezium-json", "avro-confluent", "debezium-avro-confluent", "canal-json"},
       .values_not_yet = {"canal-json"}},
      {K(kSourceConsumerConfig), .scopes = kSrc, .type = T::kMap,
       .doc = "librdkafka consumer properties passed as they are (group.id, security.protocol, sasl.*, ssl.*, "
              "client.id, ...); an unknown property is an error naming it. group.id: the group whose offsets "
              "are committed after each Iceberg commit (lag monitoring); the table's offsets decide where a "
              "relaunch starts. enable.auto.commit is refused (offsets are committed with the data)."},
      {K(kSourceAutoOffsetResetConfig), .scopes = kSrc, .type = T::kEnum, .default_value = "earliest",
       .doc = "Where a partition that no destination table and no group offset names starts.",
       .enum_values = {"earliest", "latest"}},
      {K(kSourceBoundedMode), .scopes = kSrc, .type = T::kEnum, .default_value = "unbounded",
       .doc = "unbounded: read until stopped (SIGINT / SIGTERM commit what was read). latest-offset: read up "
              "to the partitions' high watermarks taken at start, commit and end.",
       .enum_values = {"unbounded", "latest-offset", "timestamp", "specific-offsets"},
       .values_not_yet = {"timestamp", "specific-offsets"}},
      {K(kSourcePartitionDiscoveryIntervalMs), .scopes = kSrc, .type = T::kLong, .default_value = "10000",
       .doc = "How often new partitions (and, with topic_pattern, new topics) are looked for.", .min = 100},
      {K(kSourcePartitionAssignment), .scopes = kSrc, .type = T::kEnum, .default_value = "all",
       .doc = "all: this process reads every partition of the topics. group: the processes started with the "
              "same consumer_config group.id and sink_id share the partitions, Kafka's group coordinator "
              "assigning them (subscribe); a process commits what it read of a partition before letting it "
              "go, one that dies is covered by the offsets in the tables, and every commit merges its "
              "partitions' offsets into the ones the other processes stored. Unbounded runs only; error and "
              "dead-letter outputs are not implemented with it yet.",
       .enum_values = {"all", "group"}},
      {K(kSourceEvolveSchema), .scopes = kSrc, .type = T::kBool, .default_value = "false",
       .doc = "A record with a column the table lacks adds it to the table (a new optional column, in a "
              "schema-only commit after the rows before it are committed) instead of being an error: the Iceberg "
              "Kafka Connect sink's evolve-schema-enabled. Its type comes from the envelope's Connect schema "
              "(debezium-json with schema; Debezium's logical types as the decoder reads them), else from the "
              "JSON value (integer: long, other number: double, string, boolean; a null brings no column). New "
              "top-level columns of simple types only; not with a table template yet."},
      {K(kSourceSchemaRegistryUrl), .scopes = kSrc, .type = T::kString,
       .doc = "The Schema Registry of the avro-confluent formats (required by them): http(s)://host:port, or "
              "several comma-separated (tried in order). Each message's schema id is fetched from "
              "<url>/schemas/ids/<id> once per process; only AVRO schemas are read."},
      {K(kSourceSchemaRegistryCredentialsSource), .scopes = kSrc, .type = T::kEnum, .default_value = "USER_INFO",
       .doc = "Where the registry's basic-auth credentials come from: USER_INFO "
              "(confluent_schema_registry_basic_auth_user_info) or URL (http://user:password@host:port).",
       .enum_values = {"USER_INFO", "URL", "SASL_INHERIT"}, .values_not_yet = {"SASL_INHERIT"}},
      {K(kSourceSchemaRegistryUserInfo), .scopes = kSrc, .type = T::kString,
       .doc = "user:password for the registry's basic authentication (never printed)."},
      {K(kSourceSchemaRegistrySubject), .scopes = kSrc, .type = T::kString,
       .doc = "Beam's subject of the reader schema.", .support = Support::kNotYet,
       .missing = "floe reads each message with its writer schema, by the id the message carries"},
  };
  return kOptions;
}
#undef K

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

bool ParseInt64(std::string_view s, int64_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
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

std::string JoinValues(const std::vector<std::string_view>& values) {
  std::string out;
  for (auto v : values) out += (out.empty() ? "" : ", ") + std::string(v);
  return out;
}

// Whether `key` names `def` (its name, its session spelling, or a column key
// of a prefix option).
bool Matches(const OptionDef& def, std::string_view key) {
  if (def.is_prefix()) return key.size() > def.key.size() && key.starts_with(def.key);
  return key == def.key || (!def.session_key.empty() && key == def.session_key);
}

// A value set in `options` under the name of `def` (or its session spelling).
const std::string* FindSet(const std::map<std::string, std::string>& options, const OptionDef& def) {
  if (def.is_prefix()) {
    auto it = options.lower_bound(std::string(def.key));
    if (it != options.end() && Matches(def, it->first)) return &it->second;
    return nullptr;
  }
  if (auto it = options.find(std::string(def.key)); it != options.end()) return &it->second;
  if (!def.session_key.empty()) {
    if (auto it = options.find(std::string(def.session_key)); it != options.end()) return &it->second;
  }
  return nullptr;
}

}  // namespace

std::string_view ScopeName(Scope scope) {
  switch (scope) {
    case Scope::kTable: return "table property";
    case Scope::kWrite: return "write option";
    case Scope::kRead: return "read option";
    case Scope::kCatalog: return "catalog option";
    case Scope::kBeam: return "Beam write configuration";
    case Scope::kRewrite: return "rewrite option";
    case Scope::kSource: return "Kafka source block key";
  }
  return "?";
}

std::string_view SupportName(Support support) {
  switch (support) {
    case Support::kImplemented: return "implemented";
    case Support::kStoredOnly: return "stored only";
    case Support::kNotYet: return "not yet";
  }
  return "?";
}

std::span<const OptionDef> AllOptions() { return Registry(); }

const OptionDef* FindOption(std::string_view key, uint32_t scopes) {
  for (const auto& def : Registry()) {
    if ((def.scopes & scopes) && Matches(def, key)) return &def;
  }
  return nullptr;
}

const OptionDef& Def(std::string_view key) {
  for (const auto& def : Registry()) {
    if (def.key == key) return def;
  }
  // Every keys:: constant is declared (tested); reaching here is a bug.
  std::fprintf(stderr, "floe: internal error: option '%.*s' is not declared\n", int(key.size()), key.data());
  std::abort();
}

void AbortOnBadDefault(std::string_view key, const Error& error) {
  std::fprintf(stderr, "floe: internal error: option '%.*s' has no usable default: %s\n", int(key.size()),
               key.data(), error.message.c_str());
  std::abort();
}

Result<bool> ParseBool(std::string_view key, std::string_view value) {
  if (EqualsIgnoreCase(value, "true")) return true;
  if (EqualsIgnoreCase(value, "false")) return false;
  return InvalidArgument("option {}: '{}' is not a boolean (true or false)", key, value);
}

Result<int64_t> ParseLong(std::string_view key, std::string_view value) {
  int64_t n = 0;
  if (ParseInt64(value, &n)) return n;
  return InvalidArgument("option {}: '{}' is not an integer", key, value);
}

Result<double> ParseDouble(std::string_view key, std::string_view value) {
  std::string s(value);
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (!s.empty() && end == s.c_str() + s.size() && std::isfinite(d)) return d;
  return InvalidArgument("option {}: '{}' is not a number", key, value);
}

Status CheckValue(const OptionDef& def, std::string_view key, std::string_view value) {
  switch (def.type) {
    case T::kString:
    case T::kList:
    case T::kMap: break;
    case T::kBool: FLOE_RETURN_IF_ERROR(ParseBool(key, value)); break;
    case T::kInt:
    case T::kLong: {
      int64_t n = 0;
      const bool is_int = def.type == T::kInt;
      if (!ParseInt64(value, &n) || (is_int && (n < INT32_MIN || n > INT32_MAX))) {
        return InvalidArgument("option {}: '{}' is not {}", key, value, is_int ? "an int" : "a long integer");
      }
      if ((def.min && n < *def.min) || (def.max && n > *def.max)) {
        if (def.min && def.max) {
          return InvalidArgument("option {}: {} is out of range {}..{}", key, value, *def.min, *def.max);
        }
        if (def.min) return InvalidArgument("option {}: {} is below the minimum {}", key, value, *def.min);
        return InvalidArgument("option {}: {} is above the maximum {}", key, value, *def.max);
      }
      break;
    }
    case T::kDouble: FLOE_RETURN_IF_ERROR(ParseDouble(key, value)); break;
    case T::kEnum: {
      bool found = false;
      for (auto v : def.enum_values) found = found || EqualsIgnoreCase(v, value);
      if (!found) {
        return InvalidArgument("option {}: '{}' is not one of: {}", key, value, JoinValues(def.enum_values));
      }
      break;
    }
  }
  if (def.validate) {
    if (std::string why = def.validate(value); !why.empty()) {
      return InvalidArgument("option {}: '{}': {}", key, value, why);
    }
  }
  return Ok();
}

Status CheckSupport(const OptionDef& def, std::string_view key, std::string_view value, Use use) {
  if (def.support == Support::kNotYet) {
    return Unsupported("option {} is not implemented in floe yet ({}); it comes with {}", key, def.doc,
                       def.missing);
  }
  if (def.support == Support::kStoredOnly && use == Use::kJob) {
    return Unsupported(
        "option {} does nothing as a job option: {}. To store it in a table floe creates, give it in "
        "table_properties",
        key, def.missing);
  }
  for (auto v : def.values_not_yet) {
    if (EqualsIgnoreCase(v, value)) {
      if (def.support == Support::kImplemented && !def.missing.empty()) {
        return Unsupported("option {}={} is not implemented in floe: {}", key, value, def.missing);
      }
      return Unsupported("option {}={} is not implemented in floe yet", key, value);
    }
  }
  return Ok();
}

Status CheckOptions(const std::map<std::string, std::string>& options, uint32_t scopes,
                    std::string_view origin, Use use) {
  for (const auto& [key, value] : options) {
    const OptionDef* def = FindOption(key, scopes);
    if (!def) {
      // Closest names first; ties keep registry order, so the list is stable.
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
    // Not implemented says more than a type error would.
    if (Status st = CheckSupport(*def, key, value, use); !st) return Fail(st.error().WithContext(origin));
    if (Status st = CheckValue(*def, key, value); !st) return Fail(st.error().WithContext(origin));
    for (std::string_view other : def->conflicts) {
      const OptionDef& o = Def(other);
      if (FindSet(options, o) != nullptr) {
        return InvalidArgument("{}: options {} and {} cannot be used together", origin, key, o.key);
      }
    }
  }
  return Ok();
}

std::optional<std::string> Resolver::Raw(std::string_view key) const {
  const OptionDef& def = Def(key);
  for (const auto* layer : layers_) {
    if (!layer) continue;
    if (const std::string* v = FindSet(*layer, def)) return *v;
  }
  if (!def.overrides.empty()) return Raw(def.overrides);
  return std::nullopt;
}

Result<std::optional<std::string>> Resolver::Text(std::string_view key) const {
  const OptionDef& def = Def(key);
  for (const auto* layer : layers_) {
    if (!layer) continue;
    if (const std::string* v = FindSet(*layer, def)) {
      FLOE_RETURN_IF_ERROR(CheckValue(def, key, *v));
      return std::optional<std::string>(*v);
    }
  }
  if (!def.overrides.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto v, Text(def.overrides));
    if (v) return v;
  }
  if (!def.default_value.empty()) return std::optional<std::string>(std::string(def.default_value));
  return std::optional<std::string>();
}

namespace {

template <typename T>
Result<T> Convert(const OptionDef& def, std::string_view key, const std::string& text) {
  if constexpr (std::is_same_v<T, bool>) {
    return ParseBool(key, text);
  } else if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
    FLOE_ASSIGN_OR_RETURN(int64_t n, ParseLong(key, text));
    return static_cast<T>(n);
  } else if constexpr (std::is_same_v<T, double>) {
    return ParseDouble(key, text);
  } else {
    if (def.type == OptionType::kEnum) {
      for (auto v : def.enum_values) {
        if (EqualsIgnoreCase(v, text)) return std::string(v);
      }
    }
    return text;
  }
}

}  // namespace

template <typename T>
Result<std::optional<T>> Resolver::Get(const Key<T>& key) const {
  FLOE_ASSIGN_OR_RETURN(auto text, Text(key.name));
  if (!text) return std::optional<T>();
  FLOE_ASSIGN_OR_RETURN(T v, Convert<T>(Def(key.name), key.name, *text));
  return std::optional<T>(std::move(v));
}

template <typename T>
Result<T> Resolver::Value(const Key<T>& key) const {
  FLOE_ASSIGN_OR_RETURN(auto v, Get(key));
  if (!v) return Internal("option {} has no default", key.name);
  return std::move(*v);
}

template <typename T>
Result<std::map<std::string, T>> Resolver::GetColumns(const Key<T>& prefix) const {
  const OptionDef& def = Def(prefix.name);
  std::map<std::string, T> out;
  for (const auto* layer : layers_) {
    if (!layer) continue;
    for (auto it = layer->lower_bound(std::string(def.key)); it != layer->end() && it->first.starts_with(def.key);
         ++it) {
      if (it->first.size() == def.key.size()) continue;
      std::string column = it->first.substr(def.key.size());
      if (out.contains(column)) continue;  // an earlier layer set it
      FLOE_RETURN_IF_ERROR(CheckValue(def, it->first, it->second));
      FLOE_ASSIGN_OR_RETURN(T v, Convert<T>(def, it->first, it->second));
      out.emplace(std::move(column), std::move(v));
    }
  }
  return out;
}

#define FLOE_INSTANTIATE(T)                                                      \
  template Result<std::optional<T>> Resolver::Get<T>(const Key<T>&) const;       \
  template Result<T> Resolver::Value<T>(const Key<T>&) const;                    \
  template Result<std::map<std::string, T>> Resolver::GetColumns<T>(const Key<T>&) const;
FLOE_INSTANTIATE(bool)
FLOE_INSTANTIATE(int32_t)
FLOE_INSTANTIATE(int64_t)
FLOE_INSTANTIATE(double)
FLOE_INSTANTIATE(std::string)
#undef FLOE_INSTANTIATE

std::string RenderMarkdown() {
  std::string out =
      "# floe options\n\n"
      "Generated from the option registry (`src/floe/config/options.cc`) by\n"
      "`floe options --markdown`; a test keeps this file equal to the registry.\n"
      "Precedence: per-statement option > session configuration > table property > default.\n\n"
      "Status: **implemented** options change what floe does; **stored only** table properties are\n"
      "kept in the metadata of a table floe creates (`table_properties`) for the engines that act on\n"
      "them, and refused as job options; **not yet** options are refused with a message naming the\n"
      "issue that brings them.\n";
  for (Scope scope : {Scope::kTable, Scope::kWrite, Scope::kRead, Scope::kCatalog, Scope::kBeam, Scope::kRewrite, Scope::kSource}) {
    std::string title(ScopeName(scope));
    title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
    if (title.ends_with("property")) title.replace(title.size() - 1, 1, "ie");
    if (scope != Scope::kBeam) title += "s";
    if (scope == Scope::kSource) title += " (`source:` of `floe write --config`, written there without `source.`)";
    out += fmt::format(
        "\n## {}\n\n| name | type | default | status | description |\n| --- | --- | --- | --- | --- |\n", title);
    for (const auto& d : Registry()) {
      if (!(d.scopes & uint32_t(scope))) continue;
      std::string type(TypeName(d.type));
      if (d.type == T::kEnum) {
        type.clear();
        for (auto v : d.enum_values) type += (type.empty() ? "" : " \\| ") + std::string(v);
      }
      if (d.min && d.max) {
        type += fmt::format(" ({}..{})", *d.min, *d.max);
      } else if (d.min) {
        type += fmt::format(" (>= {})", *d.min);
      }
      std::string doc(d.doc);
      if (!d.overrides.empty()) doc += fmt::format(" Overrides table property `{}`.", d.overrides);
      if (!d.session_key.empty()) doc += fmt::format(" Session spelling `{}`.", d.session_key);
      if (!d.conflicts.empty()) {
        std::string c;
        for (auto k : d.conflicts) c += (c.empty() ? "" : ", ") + fmt::format("`{}`", k);
        doc += " Conflicts with " + c + ".";
      }
      std::string status(SupportName(d.support));
      if (d.support != Support::kImplemented) status += ": " + std::string(d.missing);
      if (!d.values_not_yet.empty()) status += fmt::format(" (not yet: {})", JoinValues(d.values_not_yet));
      out += fmt::format("| `{}{}` | {} | {} | {} | {} |\n", d.key, d.is_prefix() ? "<column>" : "", type,
                         d.default_value.empty() ? "" : fmt::format("`{}`", d.default_value), status, doc);
    }
  }
  return out;
}

}  // namespace floe::config
