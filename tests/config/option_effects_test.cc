// Every option the registry marks implemented names the test that proves its
// effect (what floe does differently with it), and that test exists. An
// option added as implemented without such a test fails here; so does a
// renamed or deleted effect test. (The reader side — each implemented key
// constant is used in src/floe — is Options.EveryImplementedOptionHasAReader.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "floe/config/options.h"

namespace floe::config {
namespace option_effects_test {

// option -> "Suite.Test" that shows its effect.
const std::map<std::string, std::string>& EffectTests() {
  static const std::map<std::string, std::string> kTests = {
      // table properties: format and files
      {"format-version", "DvTable.V2TableUpgradedToV3ThenWritten"},  // 3 at create and as an upgrade
      {"write.format.default", "DataWriterOptionsTest.RejectsOtherFormatsAndBadValues"},
      {"write.target-file-size-bytes", "OptionEffectsCli.FileSizeAndDataPathMoveTheFiles"},
      {"write.data.path", "OptionEffectsCli.FileSizeAndDataPathMoveTheFiles"},
      // Parquet
      {"write.parquet.row-group-size-bytes", "OptionEffectsCli.ParquetOptionsChangeTheDataFiles"},
      {"write.parquet.page-size-bytes", "OptionEffectsCli.ParquetOptionsChangeTheDataFiles"},
      {"write.parquet.page-row-limit", "OptionEffectsCli.ParquetOptionsChangeTheDataFiles"},
      {"write.parquet.page-version", "OptionEffectsCli.ParquetOptionsChangeTheDataFiles"},
      {"write.parquet.dict-size-bytes", "OptionEffectsCli.ParquetOptionsChangeTheDataFiles"},
      {"write.parquet.dictionary-enabled", "OptionEffectsCli.ParquetOptionsChangeTheDataFiles"},
      {"write.parquet.compression-codec", "OptionEffectsCli.ParquetOptionsChangeTheDataFiles"},
      {"write.parquet.compression-level", "OptionEffectsCli.ParquetOptionsChangeTheDataFiles"},
      {"write.parquet.bloom-filter-enabled.column.", "OptionsCli.PerColumnKeysWorkFromYamlAndSet"},
      {"write.parquet.bloom-filter-fpp.column.", "OptionEffectsCli.ParquetOptionsChangeTheDataFiles"},
      {"write.parquet.bloom-filter-max-bytes", "OptionEffectsCli.ParquetOptionsChangeTheDataFiles"},
      {"write.parquet.encoding.column.", "OptionEffectsCli.ParquetOptionsChangeTheDataFiles"},
      // metadata
      {"write.metadata.metrics.default", "OptionEffectsCli.MetricsModesChangeTheManifests"},
      {"write.metadata.metrics.column.", "OptionEffectsCli.MetricsModesChangeTheManifests"},
      {"write.metadata.previous-versions-max", "OptionEffectsCli.PreviousVersionsMaxBoundsTheMetadataLog"},
      {"schema.name-mapping.default", "GoldenErrors.TypeMismatchSnapshotsNameFileFieldAndTypes"},
      // commits and maintenance
      {"commit.retry.num-retries", "WriteJobTest.LostCommitRaceWithoutRetriesLeavesTheTableAsTheWinnerLeftIt"},
      {"commit.retry.min-wait-ms", "RetryPolicy.WaitsFollowMinAndMaxWaitProperties"},
      {"commit.retry.max-wait-ms", "RetryPolicy.WaitsFollowMinAndMaxWaitProperties"},
      {"commit.retry.total-timeout-ms", "RunWithRetries.GiveUpMessageNamesWhatWasRetriedAndWhyItStopped"},
      {"history.expire.max-snapshot-age-ms", "OptionEffectsCli.ExpiryPropertiesDecideWhatExpireRemoves"},
      {"history.expire.min-snapshots-to-keep", "OptionEffectsCli.ExpiryPropertiesDecideWhatExpireRemoves"},
      {"read.split.target-size", "ScanPlanTest.SplitsFollowRowGroupOffsets"},
      {"read.split.planning-lookback", "SplitPlanner.PacksWithLookback"},
      {"read.split.open-file-cost", "ScanPlanTest.SplitsFollowRowGroupOffsets"},
      // Flink write options
      {"write-format", "DataWriterOptionsTest.RejectsOtherFormatsAndBadValues"},
      {"target-file-size-bytes", "OptionEffectsCli.FileSizeAndDataPathMoveTheFiles"},
      // table maintenance (floe rewrite-data-files --set)
      {"min-file-size-bytes", "RewriteDataFilesTest.DeleteFileThresholdRewritesAFileWithManyDeletes"},
      {"max-file-size-bytes", "RewriteDataFilesTest.DeleteFileThresholdRewritesAFileWithManyDeletes"},
      {"min-input-files", "RewriteDataFilesTest.MinInputFilesAndRewriteAllDecideWhatIsRewritten"},
      {"delete-file-threshold", "RewriteDataFilesTest.DeleteFileThresholdRewritesAFileWithManyDeletes"},
      {"rewrite-all", "RewriteDataFilesTest.MinInputFilesAndRewriteAllDecideWhatIsRewritten"},
      {"max-file-group-size-bytes", "RewriteDataFilesTest.MinInputFilesAndRewriteAllDecideWhatIsRewritten"},
      {"partial-progress.enabled", "RewriteDataFilesTest.PartialProgressCommitsGroupsApart"},
      {"partial-progress.max-commits", "RewriteDataFilesTest.PartialProgressCommitsGroupsApart"},
      {"max-concurrent-file-group-rewrites", "RewriteDataFilesTest.PartialProgressCommitsGroupsApart"},
      {"use-starting-sequence-number", "RewriteConflict.AnEqualityDeleteCommittedMeanwhileStillApplies"},
      {"overwrite-enabled", "WriteJobTest.OverwriteReplacesWrittenPartitionsOnABranch"},
      {"compression-codec", "OptionEffectsCli.ParquetOptionsChangeTheDataFiles"},
      {"compression-level", "OptionEffectsCli.ParquetOptionsChangeTheDataFiles"},
      {"write-parallelism", "WriterParallel.FilesAreByteIdenticalForOneTwoAndFourThreads"},
      // Flink read options (and `branch` as a write option)
      {"snapshot-id", "ScanPlanTest.SnapshotSelectionAndDeletedEntries"},
      {"as-of-timestamp", "ScanPlanTest.SnapshotSelectionAndDeletedEntries"},
      {"branch", "WriteJobTest.OverwriteReplacesWrittenPartitionsOnABranch"},
      {"tag", "GoldenTimeTravel.EverySnapshotAndRefMatchesTheReferenceReader"},
      {"start-snapshot-id", "ScanPlanTest.IncrementalAppendsOnly"},
      {"end-snapshot-id", "ScanPlanTest.IncrementalAppendsOnly"},
      {"start-tag", "ScanPlanTest.IncrementalAppendsOnly"},
      {"end-tag", "IcebergCli.CommitsOverwriteBranchTagAndTimeTravel"},
      {"case-sensitive", "ScanPlanTest.ProjectionAndFilterErrors"},
      {"limit", "GoldenScan.ProjectionFilterAndLimit"},
      {"include-column-stats", "OptionsCli.IncludeColumnStatsAddsMetricsToFiles"},
      {"split-size", "GoldenExpected.ParallelSmallSplitsGiveTheSameRows"},
      {"split-lookback", "SplitPlanner.PacksWithLookback"},
      {"split-file-open-cost", "ScanPlanTest.SplitsFollowRowGroupOffsets"},
      {"streaming", "StreamingScanCli.AReaderStartedBeforeThreeCommitsSeesEveryChangeOnceInOrder"},
      {"monitor-interval", "StreamingScanTest.RunWaitsTheMonitorIntervalBetweenDiscoveries"},
      {"starting-strategy", "StreamingScanTest.IncrementalStrategiesStartInclusive"},
      {"start-snapshot-timestamp", "StreamingScanTest.IncrementalStrategiesStartInclusive"},
      {"max-planning-snapshot-count", "StreamingScanTest.MaxPlanningSnapshotCountBoundsEachDiscovery"},
      {"max-allowed-planning-failures", "StreamingScanTest.PlanningFailuresAreToleratedUpToTheLimitInARow"},
      // catalog options
      {"type", "OptionsCli.CatalogSeedsAreRefusedWithTheHadoopCatalog"},
      {"catalog-type", "OptionsCli.CatalogSeedsAreRefusedWithTheHadoopCatalog"},
      {"warehouse", "IcebergCli.ConfigYamlWithEveryBeamKey"},
      {"property-version", "OptionsCli.CatalogSeedsAreRefusedWithTheHadoopCatalog"},
      // Beam write configuration
      {"table", "IcebergCli.ConfigYamlWithEveryBeamKey"},
      {"catalog_name", "IcebergCli.ConfigYamlWithEveryBeamKey"},
      {"catalog_properties", "IcebergCli.ConfigYamlWithEveryBeamKey"},
      {"config_properties", "OptionsCli.BeamSeedsAreRefused"},
      {"keep", "IcebergCli.ConfigYamlWithEveryBeamKey"},
      {"drop", "IcebergCli.ConfigYamlWithEveryBeamKey"},
      {"only", "IcebergCli.ConfigYamlWithEveryBeamKey"},
      {"partition_fields", "IcebergCli.ConfigYamlWithEveryBeamKey"},
      {"sort_fields", "IcebergCli.ConfigYamlWithEveryBeamKey"},
      {"table_properties", "IcebergCli.ConfigYamlWithEveryBeamKey"},
      {"write_properties", "OptionsCli.PerColumnKeysWorkFromYamlAndSet"},
      // Beam merge-on-read, sharding, exactly-once, errors, streaming (the change sink)
      {"mode", "CdcOptionsCli.ModeChangeTypeAndSequenceColumnsCollapseChanges"},
      {"change_type_column", "CdcOptionsCli.ModeChangeTypeAndSequenceColumnsCollapseChanges"},
      {"equality_columns", "CdcOptionsCli.ModeChangeTypeAndSequenceColumnsCollapseChanges"},
      {"sequence_number_column", "CdcOptionsCli.SequenceColumnMayBeADottedPath"},
      {"change_type_map", "CdcOptionsCli.ChangeTypeMapTranslatesValues"},
      {"upsert", "CdcOptionsCli.UpsertReplacesRowsAndIgnoresUpdateBefore"},
      {"delete_kind", "CdcPositionDeletes.DeleteKindChoosesPositionOrEqualityDeletes"},
      {"write.delete.granularity", "CdcPositionDeletes.GranularityPartitionWritesOneDeleteFilePerPartition"},
      {"upsert-enabled", "CdcOptionsCli.UpsertReplacesRowsAndIgnoresUpdateBefore"},
      {"write.upsert.enabled", "CdcOptionsCli.UpsertReplacesRowsAndIgnoresUpdateBefore"},
      {"equality-field-columns", "CdcOptionsCli.UpsertReplacesRowsAndIgnoresUpdateBefore"},
      {"snapshot_properties", "CdcOptionsCli.SnapshotPropertiesReachTheSummaryAndTheFloePrefixIsReserved"},
      {"distribution_mode", "CdcOptionsCli.HashDistributionShardsTheFiles"},
      {"distribution-mode", "CdcOptionsCli.HashDistributionShardsTheFiles"},
      {"autosharding", "CdcOptionsCli.HashDistributionShardsTheFiles"},
      {"direct_write_byte_limit", "CdcOptionsCli.HashDistributionShardsTheFiles"},
      {"num_shards", "CdcOptionsCli.HashDistributionShardsTheFiles"},
      {"shards_per_partition", "CdcOptionsCli.HashDistributionShardsTheFiles"},
      {"sorter_memory_mb", "CdcOptionsCli.SorterMemorySpillsAndGivesTheSameTable"},
      {"allowed_lateness_seconds", "CdcOptionsCli.AllowedLatenessSplitsDeadLetterAndDropped"},
      {"sink_id", "CdcOptionsCli.SinkIdSkipsCommittedInputOnRelaunch"},
      {"error_handling", "CdcOptionsCli.ErrorHandlingCollectsInvalidRows"},
      {"triggering_frequency_seconds", "CdcOptionsCli.TriggeringFrequencyCommitsStreamingInputAndSigtermFlushes"},
      {"token_heartbeat_seconds", "CdcOptionsCli.TriggeringFrequencyCommitsStreamingInputAndSigtermFlushes"},
      {"use_side_input_table_cache", "CdcOptionsCli.TableCacheOptionsDecideWhenTablesAreLoaded"},
      {"table_cache_refresh_interval_seconds", "CdcOptionsCli.TableCacheOptionsDecideWhenTablesAreLoaded"},
      {"maximum_table_cache_size", "CdcOptionsCli.TableCacheOptionsDecideWhenTablesAreLoaded"},
      {"table_cache_polling_buckets", "CdcOptionsCli.TableCacheOptionsDecideWhenTablesAreLoaded"},
      {"catalog-impl", "CachingCatalogTest.CatalogImplNamesAndTypeChecks"},
      {"cache-enabled", "CachingCatalogTest.OpenCatalogWrapsUnlessDisabledAndChecksTheInterval"},
      {"cache.expiration-interval-ms", "CachingCatalogTest.LoadsAreCachedUntilTheEntryIsIdleForTheInterval"},
      {"uri", "SqlCatalogCli.CommandsRunThroughTheSqlCatalog"},
      {"jdbc.user", "SqlCatalogPostgresTest.UserAndPasswordAuthenticate"},
      {"jdbc.password", "SqlCatalogPostgresTest.UserAndPasswordAuthenticate"},
      {"jdbc.schema-version", "SqlCatalogTest.UsesAHandMadeV0Catalog"},
      {"jdbc.init-catalog-tables", "SqlCatalogTest.OptionsAreChecked"},
      {"jdbc.busy_timeout", "SqlCatalogTest.ALockedCatalogFileFailsOnceNamingTheLock"},
      {"credential", "RestCatalogTest.CredentialTokenIsRefreshedBeforeItExpires"},
      {"token", "RestCatalogTest.SecretsStayOutOfErrors"},
      {"oauth2-server-uri", "RestCatalogTest.TokenEndpointAndScopeAreTheConfiguredOnes"},
      {"scope", "RestCatalogTest.TokenEndpointAndScopeAreTheConfiguredOnes"},
      {"token-refresh-enabled", "RestCatalogTest.ExpiredTokenIsRetriedOnceAfter401"},
      {"header.", "RestCatalogTest.SecretsStayOutOfErrors"},
      {"rest-page-size", "RestCatalogTest.ListsFollowPagesAcrossThreeRequests"},
      {"rest.client.connection-timeout-ms", "RestCatalogTest.ConnectionTimeoutBoundsTheConnect"},
      {"rest.client.socket-timeout-ms", "RestCatalogTest.CommitStateUnknownWhenTheAnswerIsLost"},
      {"io-impl", "S3Cli.IoImplAndTheEnvironmentFallback"},
      {"s3.endpoint", "S3Config.PropertiesAndTheEnvironmentFallback"},
      {"s3.access-key-id", "S3Cli.AWrongSecretIsAClear403ThatNeverShowsTheSecret"},
      {"s3.secret-access-key", "S3Cli.AWrongSecretIsAClear403ThatNeverShowsTheSecret"},
      {"s3.session-token", "S3Config.PropertiesAndTheEnvironmentFallback"},
      {"s3.path-style-access", "S3Config.PropertiesAndTheEnvironmentFallback"},
      {"s3.multipart.part-size-bytes", "S3Config.PartSizePropertySetsTheMultipartParts"},
      {"client.region", "S3Config.PropertiesAndTheEnvironmentFallback"},
      {"s3.retry.num-retries", "S3Config.NumRetriesIsHowOftenAFailedRequestIsSentAgain"},
      {"s3.retry.min-wait-ms", "S3Config.RetryWaitsAreTakenBetweenTheAttempts"},
      {"s3.retry.max-wait-ms", "S3Config.RetryWaitsAreTakenBetweenTheAttempts"},
      {"s3.connection-timeout-ms", "S3Config.ConnectionTimeoutFailsAConnectThatHangs"},
      {"s3.socket-timeout-ms", "S3Config.SocketTimeoutFailsAStalledRequestNamingTheOption"},
      // The Kafka source block
      {"source.type", "KafkaCli.TopicIntoTableThenARelaunchResumesAtTheTableOffsets"},
      {"source.topic", "KafkaCli.TopicIntoTableThenARelaunchResumesAtTheTableOffsets"},
      {"source.bootstrap_servers", "KafkaCli.TopicIntoTableThenARelaunchResumesAtTheTableOffsets"},
      {"source.consumer_config", "KafkaCli.BadSourceBlocksAreRefusedByName"},
      {"source.bounded_mode", "KafkaCli.TopicIntoTableThenARelaunchResumesAtTheTableOffsets"},
      {"source.format", "KafkaCli.DebeziumGoldenStreamsThroughATopic"},
      {"source.topic_pattern", "KafkaCli.TopicPatternFindsTopicsCreatedLater"},
      {"source.partition_discovery_interval_ms", "KafkaCli.TopicPatternFindsTopicsCreatedLater"},
      {"source.partition_assignment", "KafkaGroup.ThreeProcessesShareSixPartitionsThroughAKillAndAJoin"},
      {"source.evolve_schema", "KafkaCli.EvolveSchemaAddsTheColumnsRecordsBring"},
      {"source.confluent_schema_registry_url", "KafkaAvro.EveryLogicalTypeThroughATopicAndDamagedMessagesRejected"},
      {"source.confluent_schema_registry_basic_auth_credentials_source",
       "KafkaAvro.WrongRegistryCredentialsFailAndCommitNothing"},
      {"source.confluent_schema_registry_basic_auth_user_info", "KafkaAvro.WrongRegistryCredentialsFailAndCommitNothing"},
      {"source.auto_offset_reset_config", "KafkaCli.AutoOffsetResetLatestSkipsWhatCameBefore"},
  };
  return kTests;
}

// Every "Suite.Test" defined with TEST / TEST_F / TEST_P under tests/.
std::set<std::string> DefinedTests() {
  std::set<std::string> out;
  const std::regex def(R"re(\bTEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\))re");
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::filesystem::path(FLOE_SOURCE_DIR) / "tests")) {
    if (!e.is_regular_file() || e.path().extension() != ".cc") continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    for (auto it = std::sregex_iterator(text.begin(), text.end(), def); it != std::sregex_iterator(); ++it) {
      out.insert((*it)[1].str() + "." + (*it)[2].str());
    }
  }
  return out;
}

TEST(OptionEffects, EveryImplementedOptionNamesAnExistingEffectTest) {
  const auto defined = DefinedTests();
  ASSERT_GT(defined.size(), 100u);
  std::set<std::string> implemented;
  for (const auto& d : AllOptions()) {
    if (d.support != Support::kImplemented) continue;
    implemented.insert(std::string(d.key));
    auto it = EffectTests().find(std::string(d.key));
    if (it == EffectTests().end()) {
      ADD_FAILURE() << d.key << " is marked implemented but names no test of its effect";
      continue;
    }
    EXPECT_TRUE(defined.contains(it->second)) << d.key << ": effect test " << it->second << " does not exist";
  }
  for (const auto& [key, test] : EffectTests()) {
    EXPECT_TRUE(implemented.contains(key)) << key << " has an effect test but is not an implemented option";
  }
}

}  // namespace option_effects_test
}  // namespace floe::config
