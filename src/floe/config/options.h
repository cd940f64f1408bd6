/// \file
/// The option registry: every option floe understands, declared once with all
/// its names (Iceberg table property, Flink read/write/catalog option, Beam
/// write configuration key, the `connector.iceberg.*` Flink configuration
/// spelling), its type, typed default, range or validator, the options it
/// conflicts with, and whether floe implements it yet. YAML configs, `--set`,
/// `--catalog`, SQL `WITH (...)` and `/*+ OPTIONS(...) */` hints all resolve
/// through it with Flink's precedence: per-statement option > session
/// configuration > table property > default.
///
/// Code reads an option through its typed key (`keys::kTargetFileSizeBytes`)
/// and a `Resolver`; no option name is written as a string at the place of
/// use, and no other list of names or defaults exists. The user documentation
/// (docs/options.md) is generated from this table and a test keeps the two
/// equal.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/util/status.h"

namespace floe::config {

enum class OptionType : uint8_t { kString, kBool, kInt, kLong, kDouble, kEnum, kList, kMap };

/// Where an option is accepted. A bit set: one option may live in several.
enum class Scope : uint32_t {
  kTable = 1,    ///< Iceberg table property (stored in table metadata)
  kWrite = 2,    ///< Flink write option (job / `--set` / SQL hint)
  kRead = 4,     ///< Flink read option (scan `--set` / SQL hint)
  kCatalog = 8,  ///< catalog property (`--catalog`, CREATE CATALOG WITH)
  kBeam = 16,    ///< Beam Iceberg write configuration key (YAML `--config`)
  /// Table maintenance option (`floe rewrite-data-files --set`; Spark's
  /// `rewrite_data_files` / `rewrite_position_delete_files` option names)
  kRewrite = 32,
  /// A key of the Kafka `source:` block of `floe write --config` (Beam YAML's
  /// ReadFromKafka names), declared as `source.<key>`.
  kSource = 64,
};
constexpr uint32_t operator|(Scope a, Scope b) { return uint32_t(a) | uint32_t(b); }
constexpr uint32_t operator|(uint32_t a, Scope b) { return a | uint32_t(b); }

std::string_view ScopeName(Scope scope);

/// Whether floe acts on an option.
enum class Support : uint8_t {
  kImplemented,  ///< floe reads it and it changes what floe does
  /// A table property floe itself does not act on but stores in the metadata
  /// of a table it creates, for the engines that do (Spark's row-level
  /// modes, manifest merging, ...): accepted in `table_properties`, refused
  /// as a job option (`--set`, `write_properties`), where it would do nothing.
  kStoredOnly,
  kNotYet,  ///< refused everywhere with a message saying so
};

std::string_view SupportName(Support support);

/// A typed handle of one declared option; code reads options through these.
/// `T` is the C++ type a Resolver returns: bool, int32_t, int64_t, double or
/// std::string (strings and enums; an enum comes back in its declared
/// spelling).
template <typename T>
struct Key {
  std::string_view name;
};

/// The declared options' names, each written once, here. Prefix options end
/// in '.' (the column name follows).
namespace keys {
/// The prefix of every Parquet table property.
inline constexpr std::string_view kParquetPrefix = "write.parquet.";
// Iceberg table properties: format and files
inline constexpr Key<int32_t> kFormatVersion{"format-version"};
inline constexpr Key<std::string> kWriteFormatDefault{"write.format.default"};
inline constexpr Key<int64_t> kWriteTargetFileSizeBytes{"write.target-file-size-bytes"};
inline constexpr Key<std::string> kWriteDataPath{"write.data.path"};
inline constexpr Key<std::string> kWriteMetadataPath{"write.metadata.path"};
inline constexpr Key<std::string> kWriteDistributionMode{"write.distribution-mode"};
inline constexpr Key<bool> kWriteUpsertEnabled{"write.upsert.enabled"};
inline constexpr Key<std::string> kWriteDeleteMode{"write.delete.mode"};
inline constexpr Key<std::string> kWriteDeleteGranularity{"write.delete.granularity"};
inline constexpr Key<std::string> kWriteUpdateMode{"write.update.mode"};
inline constexpr Key<std::string> kWriteMergeMode{"write.merge.mode"};
// Parquet
inline constexpr Key<int64_t> kParquetRowGroupSizeBytes{"write.parquet.row-group-size-bytes"};
inline constexpr Key<int64_t> kParquetPageSizeBytes{"write.parquet.page-size-bytes"};
inline constexpr Key<int32_t> kParquetPageRowLimit{"write.parquet.page-row-limit"};
inline constexpr Key<std::string> kParquetPageVersion{"write.parquet.page-version"};
inline constexpr Key<int64_t> kParquetDictSizeBytes{"write.parquet.dict-size-bytes"};
inline constexpr Key<bool> kParquetDictionaryEnabled{"write.parquet.dictionary-enabled"};
inline constexpr Key<std::string> kParquetCompressionCodec{"write.parquet.compression-codec"};
inline constexpr Key<int32_t> kParquetCompressionLevel{"write.parquet.compression-level"};
inline constexpr Key<bool> kParquetBloomFilterEnabledColumn{"write.parquet.bloom-filter-enabled.column."};
inline constexpr Key<double> kParquetBloomFilterFppColumn{"write.parquet.bloom-filter-fpp.column."};
inline constexpr Key<int64_t> kParquetBloomFilterMaxBytes{"write.parquet.bloom-filter-max-bytes"};
inline constexpr Key<std::string> kParquetEncodingColumn{"write.parquet.encoding.column."};
// metadata
inline constexpr Key<std::string> kMetricsDefault{"write.metadata.metrics.default"};
inline constexpr Key<std::string> kMetricsColumn{"write.metadata.metrics.column."};
inline constexpr Key<std::string> kMetadataCompressionCodec{"write.metadata.compression-codec"};
inline constexpr Key<bool> kMetadataDeleteAfterCommit{"write.metadata.delete-after-commit.enabled"};
inline constexpr Key<int32_t> kMetadataPreviousVersionsMax{"write.metadata.previous-versions-max"};
inline constexpr Key<int32_t> kSummaryPartitionLimit{"write.summary.partition-limit"};
inline constexpr Key<std::string> kNameMappingDefault{"schema.name-mapping.default"};
// commits and maintenance
inline constexpr Key<int32_t> kCommitNumRetries{"commit.retry.num-retries"};
inline constexpr Key<int64_t> kCommitMinWaitMs{"commit.retry.min-wait-ms"};
inline constexpr Key<int64_t> kCommitMaxWaitMs{"commit.retry.max-wait-ms"};
inline constexpr Key<int64_t> kCommitTotalTimeoutMs{"commit.retry.total-timeout-ms"};
inline constexpr Key<int32_t> kManifestMinCountToMerge{"commit.manifest.min-count-to-merge"};
inline constexpr Key<int64_t> kManifestTargetSizeBytes{"commit.manifest.target-size-bytes"};
inline constexpr Key<bool> kManifestMergeEnabled{"commit.manifest-merge.enabled"};
inline constexpr Key<int64_t> kMaxSnapshotAgeMs{"history.expire.max-snapshot-age-ms"};
inline constexpr Key<int32_t> kMinSnapshotsToKeep{"history.expire.min-snapshots-to-keep"};
inline constexpr Key<int64_t> kMaxRefAgeMs{"history.expire.max-ref-age-ms"};
inline constexpr Key<int64_t> kReadSplitTargetSize{"read.split.target-size"};
inline constexpr Key<int32_t> kReadSplitPlanningLookback{"read.split.planning-lookback"};
inline constexpr Key<int64_t> kReadSplitOpenFileCost{"read.split.open-file-cost"};
// Flink write options
inline constexpr Key<std::string> kWriteFormat{"write-format"};
inline constexpr Key<int64_t> kTargetFileSizeBytes{"target-file-size-bytes"};
inline constexpr Key<bool> kUpsertEnabled{"upsert-enabled"};
inline constexpr Key<bool> kOverwriteEnabled{"overwrite-enabled"};
inline constexpr Key<std::string> kDistributionMode{"distribution-mode"};
inline constexpr Key<std::string> kCompressionCodec{"compression-codec"};
inline constexpr Key<int32_t> kCompressionLevel{"compression-level"};
inline constexpr Key<std::string> kCompressionStrategy{"compression-strategy"};
inline constexpr Key<int32_t> kWriteParallelism{"write-parallelism"};
// Flink read options
inline constexpr Key<int64_t> kSnapshotId{"snapshot-id"};
inline constexpr Key<int64_t> kAsOfTimestamp{"as-of-timestamp"};
inline constexpr Key<std::string> kBranch{"branch"};
inline constexpr Key<std::string> kTag{"tag"};
inline constexpr Key<int64_t> kStartSnapshotId{"start-snapshot-id"};
inline constexpr Key<int64_t> kEndSnapshotId{"end-snapshot-id"};
inline constexpr Key<std::string> kStartTag{"start-tag"};
inline constexpr Key<std::string> kEndTag{"end-tag"};
inline constexpr Key<bool> kCaseSensitive{"case-sensitive"};
inline constexpr Key<int64_t> kLimit{"limit"};
inline constexpr Key<bool> kIncludeColumnStats{"include-column-stats"};
inline constexpr Key<int64_t> kSplitSize{"split-size"};
inline constexpr Key<int32_t> kSplitLookback{"split-lookback"};
inline constexpr Key<int64_t> kSplitFileOpenCost{"split-file-open-cost"};
inline constexpr Key<bool> kStreaming{"streaming"};
inline constexpr Key<std::string> kMonitorInterval{"monitor-interval"};
inline constexpr Key<std::string> kStartingStrategy{"starting-strategy"};
inline constexpr Key<int64_t> kStartSnapshotTimestamp{"start-snapshot-timestamp"};
inline constexpr Key<int32_t> kMaxPlanningSnapshotCount{"max-planning-snapshot-count"};
inline constexpr Key<int32_t> kMaxAllowedPlanningFailures{"max-allowed-planning-failures"};
// catalog options
inline constexpr Key<std::string> kType{"type"};
inline constexpr Key<std::string> kCatalogType{"catalog-type"};
inline constexpr Key<std::string> kCatalogImpl{"catalog-impl"};
inline constexpr Key<std::string> kWarehouse{"warehouse"};
inline constexpr Key<std::string> kUri{"uri"};
inline constexpr Key<std::string> kCredential{"credential"};
inline constexpr Key<std::string> kToken{"token"};
inline constexpr Key<int32_t> kClients{"clients"};
inline constexpr Key<int32_t> kPropertyVersion{"property-version"};
inline constexpr Key<bool> kCacheEnabled{"cache-enabled"};
inline constexpr Key<int64_t> kCacheExpirationIntervalMs{"cache.expiration-interval-ms"};
inline constexpr Key<std::string> kIoImpl{"io-impl"};
// S3 FileIO (Iceberg's S3FileIO / AwsClientProperties names)
inline constexpr Key<std::string> kS3Endpoint{"s3.endpoint"};
inline constexpr Key<std::string> kS3AccessKeyId{"s3.access-key-id"};
inline constexpr Key<std::string> kS3SecretAccessKey{"s3.secret-access-key"};
inline constexpr Key<std::string> kS3SessionToken{"s3.session-token"};
inline constexpr Key<bool> kS3PathStyleAccess{"s3.path-style-access"};
inline constexpr Key<int64_t> kS3MultipartPartSizeBytes{"s3.multipart.part-size-bytes"};
inline constexpr Key<int32_t> kS3RetryNumRetries{"s3.retry.num-retries"};
inline constexpr Key<int64_t> kS3RetryMinWaitMs{"s3.retry.min-wait-ms"};
inline constexpr Key<int64_t> kS3RetryMaxWaitMs{"s3.retry.max-wait-ms"};
inline constexpr Key<int64_t> kS3ConnectionTimeoutMs{"s3.connection-timeout-ms"};
inline constexpr Key<int64_t> kS3SocketTimeoutMs{"s3.socket-timeout-ms"};
inline constexpr Key<std::string> kClientRegion{"client.region"};
// REST catalog client (Iceberg's RESTCatalog / OAuth2Properties names)
inline constexpr Key<std::string> kOauth2ServerUri{"oauth2-server-uri"};
inline constexpr Key<std::string> kScope{"scope"};
inline constexpr Key<bool> kTokenRefreshEnabled{"token-refresh-enabled"};
inline constexpr Key<std::string> kHeaderPrefix{"header."};
inline constexpr Key<int32_t> kRestPageSize{"rest-page-size"};
inline constexpr Key<int64_t> kRestConnectionTimeoutMs{"rest.client.connection-timeout-ms"};
inline constexpr Key<int64_t> kRestSocketTimeoutMs{"rest.client.socket-timeout-ms"};
// SQL catalog (Iceberg's JdbcCatalog names)
inline constexpr Key<std::string> kJdbcUser{"jdbc.user"};
inline constexpr Key<std::string> kJdbcPassword{"jdbc.password"};
inline constexpr Key<std::string> kJdbcSchemaVersion{"jdbc.schema-version"};
inline constexpr Key<bool> kJdbcInitCatalogTables{"jdbc.init-catalog-tables"};
inline constexpr Key<int64_t> kJdbcBusyTimeout{"jdbc.busy_timeout"};
// Beam IcebergIO write configuration
inline constexpr Key<std::string> kBeamTable{"table"};
inline constexpr Key<std::string> kBeamCatalogName{"catalog_name"};
inline constexpr Key<std::string> kBeamCatalogProperties{"catalog_properties"};
inline constexpr Key<std::string> kBeamConfigProperties{"config_properties"};
inline constexpr Key<int32_t> kBeamTriggeringFrequencySeconds{"triggering_frequency_seconds"};
inline constexpr Key<std::string> kBeamKeep{"keep"};
inline constexpr Key<std::string> kBeamDrop{"drop"};
inline constexpr Key<std::string> kBeamOnly{"only"};
inline constexpr Key<std::string> kBeamPartitionFields{"partition_fields"};
inline constexpr Key<std::string> kBeamSortFields{"sort_fields"};
inline constexpr Key<std::string> kBeamTableProperties{"table_properties"};
inline constexpr Key<std::string> kBeamWriteProperties{"write_properties"};
inline constexpr Key<std::string> kBeamMode{"mode"};
inline constexpr Key<std::string> kBeamSequenceNumberColumn{"sequence_number_column"};
inline constexpr Key<std::string> kBeamChangeTypeColumn{"change_type_column"};
inline constexpr Key<std::string> kBeamChangeTypeMap{"change_type_map"};
inline constexpr Key<bool> kBeamUpsert{"upsert"};
inline constexpr Key<std::string> kBeamDeleteKind{"delete_kind"};
inline constexpr Key<std::string> kBeamEqualityColumns{"equality_columns"};
inline constexpr Key<std::string> kBeamSnapshotProperties{"snapshot_properties"};
inline constexpr Key<std::string> kBeamDistributionMode{"distribution_mode"};
inline constexpr Key<bool> kBeamAutosharding{"autosharding"};
inline constexpr Key<int32_t> kBeamNumShards{"num_shards"};
inline constexpr Key<int32_t> kBeamShardsPerPartition{"shards_per_partition"};
inline constexpr Key<int32_t> kBeamSorterMemoryMb{"sorter_memory_mb"};
inline constexpr Key<int64_t> kBeamDirectWriteByteLimit{"direct_write_byte_limit"};
inline constexpr Key<int64_t> kBeamAllowedLatenessSeconds{"allowed_lateness_seconds"};
inline constexpr Key<std::string> kBeamSinkId{"sink_id"};
inline constexpr Key<int32_t> kBeamTokenHeartbeatSeconds{"token_heartbeat_seconds"};
inline constexpr Key<std::string> kBeamErrorHandling{"error_handling"};
inline constexpr Key<bool> kBeamUseSideInputTableCache{"use_side_input_table_cache"};
inline constexpr Key<int64_t> kBeamTableCacheRefreshIntervalSeconds{"table_cache_refresh_interval_seconds"};
inline constexpr Key<int32_t> kBeamMaximumTableCacheSize{"maximum_table_cache_size"};
inline constexpr Key<int32_t> kBeamTableCachePollingBuckets{"table_cache_polling_buckets"};
// table maintenance (Spark's rewrite_data_files options)
inline constexpr Key<int64_t> kMinFileSizeBytes{"min-file-size-bytes"};
inline constexpr Key<int64_t> kMaxFileSizeBytes{"max-file-size-bytes"};
inline constexpr Key<int32_t> kMinInputFiles{"min-input-files"};
inline constexpr Key<int32_t> kDeleteFileThreshold{"delete-file-threshold"};
inline constexpr Key<bool> kRewriteAll{"rewrite-all"};
inline constexpr Key<bool> kPartialProgressEnabled{"partial-progress.enabled"};
inline constexpr Key<int32_t> kPartialProgressMaxCommits{"partial-progress.max-commits"};
inline constexpr Key<int32_t> kMaxConcurrentFileGroupRewrites{"max-concurrent-file-group-rewrites"};
inline constexpr Key<int64_t> kMaxFileGroupSizeBytes{"max-file-group-size-bytes"};
inline constexpr Key<bool> kUseStartingSequenceNumber{"use-starting-sequence-number"};
inline constexpr Key<int32_t> kPartialProgressMaxFailedCommits{"partial-progress.max-failed-commits"};
inline constexpr Key<double> kDeleteRatioThreshold{"delete-ratio-threshold"};
inline constexpr Key<int32_t> kOutputSpecId{"output-spec-id"};
inline constexpr Key<bool> kRemoveDanglingDeletes{"remove-dangling-deletes"};
// The Kafka `source:` block of `floe write --config` (kafka/kafka_source.h):
// declared as `source.<key>`, written in the block without the prefix.
inline constexpr std::string_view kSourcePrefix = "source.";
inline constexpr Key<std::string> kSourceType{"source.type"};
inline constexpr Key<std::string> kSourceTopic{"source.topic"};
inline constexpr Key<std::string> kSourceTopicPattern{"source.topic_pattern"};
inline constexpr Key<std::string> kSourceBootstrapServers{"source.bootstrap_servers"};
inline constexpr Key<std::string> kSourceFormat{"source.format"};
inline constexpr Key<std::string> kSourceConsumerConfig{"source.consumer_config"};
inline constexpr Key<std::string> kSourceAutoOffsetResetConfig{"source.auto_offset_reset_config"};
inline constexpr Key<std::string> kSourceBoundedMode{"source.bounded_mode"};
inline constexpr Key<int64_t> kSourcePartitionDiscoveryIntervalMs{"source.partition_discovery_interval_ms"};
inline constexpr Key<std::string> kSourcePartitionAssignment{"source.partition_assignment"};
inline constexpr Key<bool> kSourceEvolveSchema{"source.evolve_schema"};
inline constexpr Key<std::string> kSourceSchemaRegistryUrl{"source.confluent_schema_registry_url"};
// clang-format off
inline constexpr Key<std::string> kSourceSchemaRegistryCredentialsSource{"source.confluent_schema_registry_basic_auth_credentials_source"};
// clang-format on
inline constexpr Key<std::string> kSourceSchemaRegistryUserInfo{"source.confluent_schema_registry_basic_auth_user_info"};
inline constexpr Key<std::string> kSourceSchemaRegistrySubject{"source.confluent_schema_registry_subject"};
// Flink write option spellings of the same ideas
inline constexpr Key<std::string> kEqualityFieldColumns{"equality-field-columns"};
}  // namespace keys

/// One declared option.
struct OptionDef {
  std::string_view key = {};       ///< canonical name; a trailing '.' marks a prefix (`...column.`)
  std::string_view ident = {};     ///< the C++ key constant (`kWriteTargetFileSizeBytes`)
  uint32_t scopes = 0;             ///< Scope bits
  OptionType type = OptionType::kString;
  std::string_view default_value = {};  ///< empty: no default
  std::string_view doc = {};
  std::vector<std::string_view> enum_values = {};  ///< kEnum, in documentation order
  /// For a job option: the table property it takes precedence over.
  std::string_view overrides = {};
  /// The Flink configuration spelling (`connector.iceberg.<key>`) of a read
  /// option that may also be set for a whole session (SQL `SET`).
  std::string_view session_key = {};
  std::optional<int64_t> min = {};  ///< kInt / kLong range
  std::optional<int64_t> max = {};
  /// Extra rule on the text of a value (after the type check); returns an
  /// empty string when valid, else what is wrong.
  std::string (*validate)(std::string_view value) = nullptr;
  /// Options that cannot be set together with this one.
  std::vector<std::string_view> conflicts = {};
  Support support = Support::kImplemented;
  /// For kNotYet / kStoredOnly: what floe lacks and where it will come from.
  std::string_view missing = {};
  /// Enum values floe does not implement yet (the option itself is).
  std::vector<std::string_view> values_not_yet = {};

  bool is_prefix() const { return !key.empty() && key.back() == '.'; }
};

/// All declared options, in documentation order.
std::span<const OptionDef> AllOptions();

/// The option named `key` in any of `scopes` (prefix options match keys that
/// start with them and have a non-empty rest; a read option also matches its
/// `connector.iceberg.` session spelling), or nullptr.
const OptionDef* FindOption(std::string_view key, uint32_t scopes);

/// The declared option of a key handle (never null: every key is declared;
/// a test checks it).
const OptionDef& Def(std::string_view key);
template <typename T>
const OptionDef& Def(const Key<T>& key) {
  return Def(key.name);
}

/// Checks that `value` is well-typed and in range for `def`, and that floe
/// implements it (and that value); the error names the option, the value and
/// the expected type, range or values. Errors are kInvalidArgument (bad value)
/// or kUnsupported (not implemented yet); both are usage errors at the CLI.
Status CheckValue(const OptionDef& def, std::string_view key, std::string_view value);

/// How a set of options is being given, for the support check.
enum class Use : uint8_t {
  kJob,          ///< job options (`--set`, `write_properties`, hints, `--catalog`)
  kNewTable,     ///< properties stored in a table floe creates (`table_properties`)
};

/// Checks that floe implements the option and its value for this use:
/// kUnsupported naming the option and the issue that brings it otherwise.
Status CheckSupport(const OptionDef& def, std::string_view key, std::string_view value, Use use);

/// Checks a whole set of options for one scope set: an unknown key is an error
/// that names it, says where it was given (`origin`, e.g. "--set") and lists
/// the valid options (closest names first, then in registry order); a value
/// is checked by CheckValue; an option floe does not implement is refused
/// (kStoredOnly options are accepted only for kNewTable); two options that
/// conflict are refused together.
Status CheckOptions(const std::map<std::string, std::string>& options, uint32_t scopes,
                    std::string_view origin, Use use = Use::kJob);

/// Parses a value of `def` (already checked) into T.
Result<bool> ParseBool(std::string_view key, std::string_view value);
Result<int64_t> ParseLong(std::string_view key, std::string_view value);
Result<double> ParseDouble(std::string_view key, std::string_view value);

/// Typed reads with declared defaults. `layers` are searched first to last
/// (statement options, session configuration, table properties); for a job
/// option the table property it overrides is consulted after the job layers.
/// A value is checked against its declaration when read (type, range, rule).
class Resolver {
 public:
  explicit Resolver(std::vector<const std::map<std::string, std::string>*> layers)
      : layers_(std::move(layers)) {}
  Resolver(std::initializer_list<const std::map<std::string, std::string>*> layers) : layers_(layers) {}
  /// One layer.
  explicit Resolver(const std::map<std::string, std::string>& layer) : layers_({&layer}) {}

  /// The value, or the declared default; nullopt when unset without default.
  template <typename T>
  Result<std::optional<T>> Get(const Key<T>& key) const;
  /// The value or the declared default (kInternal when the option has none).
  template <typename T>
  Result<T> Value(const Key<T>& key) const;
  /// Every `<prefix><column>` entry of a prefix option, per column, the first
  /// layer that sets a column winning.
  template <typename T>
  Result<std::map<std::string, T>> GetColumns(const Key<T>& prefix) const;
  /// Whether any layer sets the option (or the table property it overrides).
  template <typename T>
  bool IsSet(const Key<T>& key) const {
    return Raw(key.name).has_value();
  }

 private:
  std::optional<std::string> Raw(std::string_view key) const;
  Result<std::optional<std::string>> Text(std::string_view key) const;
  std::vector<const std::map<std::string, std::string>*> layers_;
};

[[noreturn]] void AbortOnBadDefault(std::string_view key, const Error& error);

/// The declared default of an option, parsed (an option without a default
/// is a bug at the caller: it aborts).
template <typename T>
T DefaultOf(const Key<T>& key) {
  auto v = Resolver(std::vector<const std::map<std::string, std::string>*>{}).Value(key);
  if (!v) AbortOnBadDefault(key.name, v.error());
  return std::move(*v);
}

/// Markdown reference of every option (docs/options.md).
std::string RenderMarkdown();

}  // namespace floe::config
