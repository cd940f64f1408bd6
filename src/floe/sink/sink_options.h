/// \file
/// The resolved options of the change sink (sink/change_sink.h): Beam's
/// merge-on-read, sharding, exactly-once and error-handling options, with the
/// Flink spellings of the same ideas (`upsert-enabled` / `write.upsert.enabled`,
/// `equality-field-columns`, `distribution-mode`). Resolve checks the rules
/// that span options: Beam limits the change options to merge-on-read, the
/// sharding options to hash distribution, `shards_per_partition` to
/// 1..num_shards, and reserves the `floe.` summary prefix.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "floe/sink/write_config.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::sink {

enum class WriteMode : uint8_t { kAppend, kMergeOnRead };

/// The snapshot summary keys of the exactly-once token (the `floe.` prefix
/// is reserved: snapshot_properties may not use it).
inline constexpr std::string_view kSummarySinkId = "floe.sink-id";
inline constexpr std::string_view kSummaryCommitNumber = "floe.commit-number";
inline constexpr std::string_view kSummaryInputPosition = "floe.input-position";
/// The source's description of what a commit covers (source.h): a JSON
/// object naming the input and how far into it the commit reaches.
inline constexpr std::string_view kSummarySourcePosition = "floe.source-position";
/// The input's name as users gave it (`floe write`: a path or <stdin>).
inline constexpr std::string_view kSummaryInput = "floe.input";
inline constexpr std::string_view kReservedSummaryPrefix = "floe.";

/// Where rejected rows go (Beam `error_handling`).
struct ErrorHandling {
  std::string output;             ///< JSONL file of invalid rows (`output`)
  std::string table;              ///< Iceberg table of invalid rows (`table`)
  std::string dead_letter;        ///< JSONL file of late changes (`dead_letter`)
  std::string dead_letter_table;  ///< Iceberg table of late changes (`dead_letter_table`)
  bool has_error_output() const { return !output.empty() || !table.empty(); }
  bool has_dead_letter() const { return !dead_letter.empty() || !dead_letter_table.empty(); }
};

/// Everything the change sink reads from the configuration.
struct SinkOptions {
  WriteMode mode = WriteMode::kAppend;
  /// Dotted path of the sequence number column (merge-on-read).
  std::string sequence_column;
  bool sequence_column_set = false;  ///< given explicitly (not Beam's default)
  /// An upsert without `sequence_number_column`: a key's changes apply in
  /// the order they arrive (Flink's upsert mode), numbered by the sink.
  bool arrival_order = false;
  /// The change type column; empty: every row is an insert (or an upsert).
  std::string change_type_column;
  /// Column value -> change kind (change_type_map, or the default spellings).
  std::map<std::string, RowKind> change_types;
  bool upsert = false;
  /// delete_kind: position (the key index, position deletes) or equality.
  bool position_deletes = true;
  /// Key columns (names; dotted paths into structs allowed); empty: the
  /// table's identifier fields.
  std::vector<std::string> equality_columns;
  std::map<std::string, std::string> snapshot_properties;
  bool hash_distribution = false;
  bool autosharding = false;
  int num_shards = 16;
  int shards_per_partition = 1;
  int64_t sorter_memory_bytes = int64_t{100} << 20;
  std::optional<int> triggering_frequency_seconds;
  int64_t allowed_lateness_seconds = 21600;
  std::string sink_id;
  std::optional<int> token_heartbeat_seconds;
  ErrorHandling errors;
  /// The destination table cache (Beam's side-input table cache).
  std::optional<int64_t> direct_write_byte_limit;
  bool table_cache = false;
  std::optional<int64_t> table_cache_refresh_seconds;
  std::optional<int> table_cache_max_size;
  int table_cache_buckets = 1;

  /// Resolves and cross-checks the options of `config` (its sink_options,
  /// maps, and the Flink write options in write_properties).
  static Result<SinkOptions> Resolve(const WriteConfig& config);
};

/// INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE.
std::string_view RowKindName(RowKind kind);

}  // namespace floe::sink
