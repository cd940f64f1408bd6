/// \file
/// The configuration of one table write, as Beam's IcebergIO write
/// configuration names it (`table`, `catalog_name`, `catalog_properties`,
/// `config_properties`, `partition_fields`, `sort_fields`, `table_properties`,
/// `write_properties`, `keep` / `drop` / `only`, `triggering_frequency_seconds`),
/// read from a YAML map (`floe write --config`) and from single `--set key=value`
/// options (Beam names, Flink write options, Iceberg table properties). Every
/// key and value is checked through the option registry (config/options.h):
/// an unknown or ill-typed option is an error that names it and lists the
/// valid ones. Also the parsers of Beam's partition-field and sort-field
/// syntax (`bucket(id, 16)`, `ts desc nulls last`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/sort_order.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::sink {

/// Beam's record projections (mutually exclusive).
enum class ProjectionKind : uint8_t {
  kNone,
  kKeep,  ///< only the named top-level fields are written
  kDrop,  ///< every top-level field but the named ones is written
  kOnly,  ///< the contents of the one named struct field are written
};

/// A projection and the field names it names.
struct ProjectionConfig {
  ProjectionKind kind = ProjectionKind::kNone;
  std::vector<std::string> fields;
};

/// Everything that configures one write.
struct WriteConfig {
  std::string table;
  std::string table_origin;  ///< where `table` was given (for the error when it is given twice)
  std::string catalog_name = "floe";
  std::map<std::string, std::string> catalog_properties;
  std::map<std::string, std::string> config_properties;  ///< Hadoop conf: floe uses none, any key is refused
  std::vector<std::string> partition_fields;             ///< Beam syntax, applied on create
  std::vector<std::string> sort_fields;                  ///< Beam syntax, applied on create
  std::map<std::string, std::string> table_properties;   ///< applied on create
  /// Job options of this write (Flink write options and table properties
  /// that override the table's own for this write).
  std::map<std::string, std::string> write_properties;
  ProjectionConfig projection;
  /// The other Beam options of the sink (`mode`, `sequence_number_column`,
  /// `num_shards`, `sink_id`, ...) as given, lists comma-joined; typed reads
  /// through config::Resolver (SinkOptions::Resolve).
  std::map<std::string, std::string> sink_options;
  std::map<std::string, std::string> change_type_map;      ///< Beam `change_type_map`
  std::map<std::string, std::string> snapshot_properties;  ///< Beam `snapshot_properties`
  std::map<std::string, std::string> error_handling;       ///< Beam `error_handling`
  /// The `source:` block of the YAML (not a Beam key): where the rows come
  /// from when it is not --input, e.g. `type: postgres` (pgsrc/pg_source.h).
  /// List values are comma-joined. Empty: the input is --input.
  std::map<std::string, std::string> source;

  /// Reads a YAML map with Beam's names. `origin` names the source in errors
  /// (the file name). Unknown keys are errors listing the valid ones.
  static Result<WriteConfig> FromYaml(std::string_view yaml, std::string_view origin);

  /// Applies one `key=value`: a Beam name (lists comma-separated), a Flink
  /// write option, or a table property (then both a table property of a new
  /// table and a job override). `origin` names the source ("--set").
  Status Set(std::string_view key, std::string_view value, std::string_view origin = "--set");

  /// Sets the table identifier; an error when `name` is a template (not
  /// implemented yet) or when another source already gave a different table.
  Status SetTable(std::string_view name, std::string_view origin);

  /// The map field of a map-valued sink option (`change_type_map`,
  /// `snapshot_properties`, `error_handling`), else null.
  std::map<std::string, std::string>* SinkMap(std::string_view key);

  /// Cross-checks everything through the registry: catalog properties,
  /// table properties, write options, and that keep/drop/only are exclusive.
  Status Validate() const;
};

/// The writer a write needs, decided here once for every front end (`floe
/// write`, `INSERT INTO` in `floe sql`).
enum class WriterKind : uint8_t {
  /// The one-commit append or overwrite job (write_job.h): a plain append of
  /// INSERT rows, or a dynamic overwrite.
  kAppendJob,
  /// The change sink (change_sink.h): merge-on-read, upsert, exactly-once
  /// tokens, table templates, error and dead-letter outputs, snapshot
  /// properties, shards and hash distribution, streaming triggers.
  kChangeSink,
};

/// Which writer `config` needs; `change_input`: the rows carry their own row
/// kinds (a Debezium input, a SQL changelog). Anything beyond a plain
/// append or overwrite is the change sink's, which refuses what it cannot
/// combine (an overwrite with merge-on-read or a sink_id) by name.
WriterKind ChooseWriter(const WriteConfig& config, bool change_input);

/// `a,b,c`: the items joined with commas (the text form of a list option).
std::string JoinList(const std::vector<std::string>& items);

/// Splits on commas that are not inside parentheses, trimming blanks
/// (`bucket(id, 16), day(ts)` -> two items).
std::vector<std::string> SplitTopLevelCommas(std::string_view text);

/// Builds the partition spec of a new table from Beam partition fields:
/// `col`, `identity(col)`, `bucket(col, N)`, `truncate(col, W)`,
/// `year|month|day|hour(col)`, `void(col)`; names resolve against `schema`.
Result<iceberg::PartitionSpec> ParsePartitionFields(const std::vector<std::string>& fields,
                                                    const Schema& schema);

/// Builds the sort order of a new table from `col [asc|desc] [nulls first|last]`
/// items (default asc, nulls first for asc and nulls last for desc, as Iceberg's
/// SortOrderBuilder). Unsorted (id 0) when empty, else order id 1.
Result<iceberg::SortOrder> ParseSortFields(const std::vector<std::string>& fields,
                                           const Schema& schema);

}  // namespace floe::sink
