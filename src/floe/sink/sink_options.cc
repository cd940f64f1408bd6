// SinkOptions: the change sink's options, resolved through the registry, and
// the rules between them.
#include "floe/sink/sink_options.h"

#include "floe/config/options.h"
#include "floe/util/strings.h"

namespace floe::sink {

namespace k = config::keys;

std::string_view RowKindName(RowKind kind) {
  switch (kind) {
    case RowKind::kInsert: return "INSERT";
    case RowKind::kUpdateBefore: return "UPDATE_BEFORE";
    case RowKind::kUpdateAfter: return "UPDATE_AFTER";
    case RowKind::kDelete: return "DELETE";
  }
  return "?";
}

namespace {

std::optional<RowKind> KindByName(std::string_view name) {
  for (RowKind kind : {RowKind::kInsert, RowKind::kUpdateBefore, RowKind::kUpdateAfter, RowKind::kDelete}) {
    if (EqualsIgnoreCase(name, RowKindName(kind))) return kind;
  }
  return std::nullopt;
}

// change_type_map: {value: KIND} or the inverse {KIND: value}.
Result<std::map<std::string, RowKind>> ChangeTypes(const std::map<std::string, std::string>& map) {
  std::map<std::string, RowKind> out;
  if (map.empty()) {
    // The names themselves, as spelled here, and Flink's RowKind short strings.
    for (RowKind kind : {RowKind::kInsert, RowKind::kUpdateBefore, RowKind::kUpdateAfter, RowKind::kDelete}) {
      out[std::string(RowKindName(kind))] = kind;
    }
    out["+I"] = RowKind::kInsert;
    out["-U"] = RowKind::kUpdateBefore;
    out["+U"] = RowKind::kUpdateAfter;
    out["-D"] = RowKind::kDelete;
    return out;
  }
  bool keys_are_kinds = true, values_are_kinds = true;
  for (const auto& [key, value] : map) {
    keys_are_kinds = keys_are_kinds && KindByName(key).has_value();
    values_are_kinds = values_are_kinds && KindByName(value).has_value();
  }
  if (!keys_are_kinds && !values_are_kinds) {
    return InvalidArgument(
        "option {}: map each value of the change type column to one of INSERT, UPDATE_BEFORE, UPDATE_AFTER, "
        "DELETE (e.g. {{c: INSERT, u: UPDATE_AFTER, d: DELETE}})",
        k::kBeamChangeTypeMap.name);
  }
  for (const auto& [key, value] : map) {
    // Values to kinds wins when both read as kinds ({INSERT: DELETE} maps the value INSERT).
    if (values_are_kinds) {
      out[key] = *KindByName(value);
    } else {
      if (out.contains(value)) {
        return InvalidArgument("option {}: the value '{}' is mapped twice", k::kBeamChangeTypeMap.name, value);
      }
      out[value] = *KindByName(key);
    }
  }
  return out;
}

}  // namespace

Result<SinkOptions> SinkOptions::Resolve(const WriteConfig& config) {
  SinkOptions o;
  const config::Resolver beam({&config.sink_options});
  const config::Resolver flink({&config.write_properties});

  FLOE_ASSIGN_OR_RETURN(std::string mode, beam.Value(k::kBeamMode));
  const bool mode_set = beam.IsSet(k::kBeamMode);
  o.mode = EqualsIgnoreCase(mode, "merge-on-read") ? WriteMode::kMergeOnRead : WriteMode::kAppend;

  // Flink's upsert-enabled (or write.upsert.enabled as a job option): an upsert CDC write.
  FLOE_ASSIGN_OR_RETURN(auto flink_upsert, flink.Get(k::kUpsertEnabled));
  FLOE_ASSIGN_OR_RETURN(bool beam_upsert, beam.Value(k::kBeamUpsert));
  o.upsert = beam_upsert || flink_upsert.value_or(false);
  if (flink_upsert.value_or(false)) {
    if (mode_set && o.mode == WriteMode::kAppend) {
      return InvalidArgument("option {}=true needs mode merge-on-read (an upsert writes equality deletes); "
                             "mode is append",
                             k::kUpsertEnabled.name);
    }
    o.mode = WriteMode::kMergeOnRead;
  }

  // Options Beam limits to merge-on-read.
  if (o.mode == WriteMode::kAppend) {
    for (std::string_view key : {k::kBeamSequenceNumberColumn.name, k::kBeamChangeTypeColumn.name,
                                 k::kBeamUpsert.name, k::kBeamEqualityColumns.name, k::kBeamDeleteKind.name,
                                 k::kBeamAllowedLatenessSeconds.name}) {
      if (config.sink_options.contains(std::string(key))) {
        return InvalidArgument("option {} applies to mode merge-on-read only (as in Beam); set mode: merge-on-read",
                               key);
      }
    }
    if (!config.change_type_map.empty()) {
      return InvalidArgument("option {} applies to mode merge-on-read only (as in Beam); set mode: merge-on-read",
                             k::kBeamChangeTypeMap.name);
    }
    if (config.write_properties.contains(std::string(k::kEqualityFieldColumns.name))) {
      return InvalidArgument("option {} applies to merge-on-read (CDC or upsert) writes only; set mode: "
                             "merge-on-read",
                             k::kEqualityFieldColumns.name);
    }
  }

  FLOE_ASSIGN_OR_RETURN(std::string delete_kind, beam.Value(k::kBeamDeleteKind));
  o.position_deletes = delete_kind == "position";
  FLOE_ASSIGN_OR_RETURN(o.sequence_column, beam.Value(k::kBeamSequenceNumberColumn));
  o.sequence_column_set = beam.IsSet(k::kBeamSequenceNumberColumn);
  // Flink's upsert needs no sequence column: the last change to arrive wins.
  // (A CDC write without upsert keeps Beam's rule: the column orders changes.)
  o.arrival_order = o.mode == WriteMode::kMergeOnRead && o.upsert && !o.sequence_column_set;
  FLOE_ASSIGN_OR_RETURN(auto ct, beam.Get(k::kBeamChangeTypeColumn));
  o.change_type_column = ct.value_or("");
  if (!config.change_type_map.empty() && o.change_type_column.empty()) {
    return InvalidArgument("option {} needs {} (the column whose values it maps)", k::kBeamChangeTypeMap.name,
                           k::kBeamChangeTypeColumn.name);
  }
  FLOE_ASSIGN_OR_RETURN(o.change_types, ChangeTypes(config.change_type_map));

  // equality_columns (Beam) or equality-field-columns (Flink): one of them.
  FLOE_ASSIGN_OR_RETURN(auto beam_eq, beam.Get(k::kBeamEqualityColumns));
  FLOE_ASSIGN_OR_RETURN(auto flink_eq, flink.Get(k::kEqualityFieldColumns));
  if (beam_eq && flink_eq && *beam_eq != *flink_eq) {
    return InvalidArgument("the key columns are given twice, as {}='{}' and {}='{}'; give them once",
                           k::kBeamEqualityColumns.name, *beam_eq, k::kEqualityFieldColumns.name, *flink_eq);
  }
  if (auto eq = beam_eq ? beam_eq : flink_eq) o.equality_columns = SplitTopLevelCommas(*eq);

  o.snapshot_properties = config.snapshot_properties;
  for (const auto& [key, value] : o.snapshot_properties) {
    if (key.starts_with(kReservedSummaryPrefix)) {
      return InvalidArgument("option {}: '{}' uses the prefix '{}', which floe reserves for its own summary keys",
                             k::kBeamSnapshotProperties.name, key, kReservedSummaryPrefix);
    }
  }

  // Distribution: Beam's distribution_mode, or Flink's distribution-mode.
  FLOE_ASSIGN_OR_RETURN(std::string dist, beam.Value(k::kBeamDistributionMode));
  FLOE_ASSIGN_OR_RETURN(auto flink_dist, flink.Get(k::kDistributionMode));
  if (flink_dist && beam.IsSet(k::kBeamDistributionMode) && !EqualsIgnoreCase(*flink_dist, dist)) {
    return InvalidArgument("the distribution is given twice, as {}={} and {}={}; give it once",
                           k::kBeamDistributionMode.name, dist, k::kDistributionMode.name, *flink_dist);
  }
  if (flink_dist) dist = *flink_dist;
  o.hash_distribution = EqualsIgnoreCase(dist, "hash");
  FLOE_ASSIGN_OR_RETURN(o.autosharding, beam.Value(k::kBeamAutosharding));
  FLOE_ASSIGN_OR_RETURN(o.num_shards, beam.Value(k::kBeamNumShards));
  FLOE_ASSIGN_OR_RETURN(o.shards_per_partition, beam.Value(k::kBeamShardsPerPartition));
  if (!o.hash_distribution) {
    for (std::string_view key :
         {k::kBeamAutosharding.name, k::kBeamNumShards.name, k::kBeamShardsPerPartition.name}) {
      if (config.sink_options.contains(std::string(key))) {
        return InvalidArgument("option {} applies to distribution_mode hash only (as in Beam); the distribution "
                               "mode is {}",
                               key, dist);
      }
    }
    o.num_shards = 1;
  }
  if (o.shards_per_partition > o.num_shards) {
    return InvalidArgument("option {}: {} is more than {} ({})", k::kBeamShardsPerPartition.name,
                           o.shards_per_partition, k::kBeamNumShards.name, o.num_shards);
  }
  FLOE_ASSIGN_OR_RETURN(int32_t mb, beam.Value(k::kBeamSorterMemoryMb));
  o.sorter_memory_bytes = int64_t{mb} << 20;
  FLOE_ASSIGN_OR_RETURN(auto freq, beam.Get(k::kBeamTriggeringFrequencySeconds));
  if (freq) o.triggering_frequency_seconds = *freq;
  FLOE_ASSIGN_OR_RETURN(o.allowed_lateness_seconds, beam.Value(k::kBeamAllowedLatenessSeconds));
  FLOE_ASSIGN_OR_RETURN(auto sink_id, beam.Get(k::kBeamSinkId));
  o.sink_id = sink_id.value_or("");
  if (beam.IsSet(k::kBeamSinkId) && o.sink_id.empty()) {
    return InvalidArgument("option {}: an empty id", k::kBeamSinkId.name);
  }
  FLOE_ASSIGN_OR_RETURN(auto heartbeat, beam.Get(k::kBeamTokenHeartbeatSeconds));
  if (heartbeat) {
    if (o.sink_id.empty()) {
      return InvalidArgument("option {} needs {} (the token it refreshes)", k::kBeamTokenHeartbeatSeconds.name,
                             k::kBeamSinkId.name);
    }
    o.token_heartbeat_seconds = *heartbeat;
  }

  FLOE_ASSIGN_OR_RETURN(o.direct_write_byte_limit, beam.Get(k::kBeamDirectWriteByteLimit));
  FLOE_ASSIGN_OR_RETURN(o.table_cache, beam.Value(k::kBeamUseSideInputTableCache));
  FLOE_ASSIGN_OR_RETURN(o.table_cache_refresh_seconds, beam.Get(k::kBeamTableCacheRefreshIntervalSeconds));
  FLOE_ASSIGN_OR_RETURN(auto max_size, beam.Get(k::kBeamMaximumTableCacheSize));
  if (max_size) o.table_cache_max_size = *max_size;
  FLOE_ASSIGN_OR_RETURN(o.table_cache_buckets, beam.Value(k::kBeamTableCachePollingBuckets));
  if (!o.table_cache) {
    for (std::string_view key : {k::kBeamTableCacheRefreshIntervalSeconds.name, k::kBeamMaximumTableCacheSize.name,
                                 k::kBeamTableCachePollingBuckets.name}) {
      if (config.sink_options.contains(std::string(key))) {
        return InvalidArgument("option {} applies to the table cache; set {}: true", key,
                               k::kBeamUseSideInputTableCache.name);
      }
    }
  }
  for (const auto& [key, value] : config.error_handling) {
    std::string* slot = key == "output"              ? &o.errors.output
                        : key == "table"             ? &o.errors.table
                        : key == "dead_letter"       ? &o.errors.dead_letter
                        : key == "dead_letter_table" ? &o.errors.dead_letter_table
                                                     : nullptr;
    if (slot == nullptr) {
      return InvalidArgument("option {}: unknown key '{}'; valid keys are output, table, dead_letter, "
                             "dead_letter_table",
                             k::kBeamErrorHandling.name, key);
    }
    if (value.empty()) return InvalidArgument("option {}: '{}' is empty", k::kBeamErrorHandling.name, key);
    *slot = value;
  }
  if (!o.errors.output.empty() && !o.errors.table.empty()) {
    return InvalidArgument("option {}: give output or table, not both", k::kBeamErrorHandling.name);
  }
  if (!o.errors.dead_letter.empty() && !o.errors.dead_letter_table.empty()) {
    return InvalidArgument("option {}: give dead_letter or dead_letter_table, not both", k::kBeamErrorHandling.name);
  }
  if (o.mode == WriteMode::kAppend && o.errors.has_dead_letter()) {
    return InvalidArgument("option {}: dead_letter takes late changes, which only mode merge-on-read has",
                           k::kBeamErrorHandling.name);
  }
  return o;
}

}  // namespace floe::sink
