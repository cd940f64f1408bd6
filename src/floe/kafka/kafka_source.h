/// \file
/// Kafka as a source of the streaming job (sink/source.h), over librdkafka.
///
/// The source reads every partition of its topics (named, or every topic
/// matching `topic_pattern`, a regular expression) with assign(): one
/// process reads all partitions of the topics under one `sink_id`; new
/// partitions and new matching topics are picked up every
/// `discovery_interval`. The value of each message is one record of the
/// format (`json`: one JSON object, the jsonl decoder; `debezium-json`: one
/// change event; `avro-confluent` / `debezium-avro-confluent`: the same in
/// Avro, framed as Confluent's serializers frame it, its writer schema read
/// from a Schema Registry: confluent_values.h); a null or empty value (a
/// tombstone) is no record, except in upsert mode (KafkaSourceOptions::upsert),
/// where it deletes its key's row. A value the Avro formats cannot decode is
/// rejected (the error output, or the job fails) naming its topic, partition
/// and offset.
///
/// Positions are ordinals of the run (the n-th message handed over, counted
/// on from the run's start time in ms * 2^20, so that they also grow from run
/// to run); what a commit covers is described per topic-partition:
///
///   {"source":"kafka","topics":["orders"],"offsets":{"orders/0":120,"orders/1":98}}
///
/// (`"topic-pattern"` instead of `"topics"` for a pattern), each offset the
/// next one to read, as Kafka commits them. On a relaunch each destination
/// table hands back its own stored offsets (Source::ResumeDestination): the
/// consumer starts every partition at the lowest offset any destination
/// stored, and a message below a destination's offset is not applied to that
/// destination again (a record applied to one table before a crash is not
/// applied twice when another table's commit was lost). A partition that no
/// table names starts at the group's committed offset (`group.id`), else at
/// `auto.offset.reset` (default `earliest`). The group's offsets are
/// committed to Kafka after each Iceberg commit, for lag monitoring only.
///
/// Consumer groups (`group_assignment`, `partition_assignment: group`):
/// several processes with one `group.id` and one `sink_id` share the topics'
/// partitions; the consumer subscribes and Kafka's group coordinator assigns
/// them (eager or, with `partition.assignment.strategy: cooperative-sticky`,
/// incremental rebalances). On an assignment every open destination's newest
/// offsets are read again from its table (another process may have committed
/// the partition since this one last saw it) and each partition starts at the
/// lowest of them and the group's committed offset (which is committed only
/// after every destination's commit, so it covers destinations not open
/// yet). On a revocation the source asks for a commit at once (commit_due)
/// and lets the partitions go only after it. All the processes' commits
/// carry one token chain: each commit's offsets are those of the newest
/// token in the table with this process's partitions merged in, made in
/// every commit attempt (Source::DescribeShared), and the attempt fails when
/// the newest token stores a partition of this process further than this
/// process last knew (a process that lost the partition without noticing: a
/// zombie), nothing published. Messages of a partition this process does not
/// hold are dropped.
///
/// Bounded mode (`bounded`, Flink's `scan.bounded.mode: latest-offset`): the
/// high watermarks of every partition are taken at start, and the source ends
/// when it has read up to them.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/format/decode_options.h"
#include "floe/kafka/schema_registry.h"
#include "floe/sink/source.h"

namespace floe::kafka {

struct KafkaSourceOptions {
  std::vector<std::string> topics;  ///< by name, or
  std::string topic_pattern;        ///< a regular expression (ECMAScript) every topic name is matched against
  std::string bootstrap_servers;
  /// Passed to librdkafka as they are (`group.id`, `security.protocol`,
  /// `sasl.*`, `ssl.*`, `client.id`, ...); a property librdkafka does not
  /// know is an error naming it.
  std::map<std::string, std::string> consumer_config;
  /// `json`, `debezium-json`, `avro-confluent` or `debezium-avro-confluent`
  /// (KafkaFormat: the decoders `jsonl` and `debezium-json`).
  std::string format = "json";
  /// The Schema Registry of the Avro formats (required by them, refused by
  /// the others).
  SchemaRegistryOptions schema_registry;
  bool bounded = false;
  /// A partition that no destination table names starts at the group's
  /// committed offset when it has one (false: at `auto.offset.reset` even
  /// then: Flink's scan.startup.mode earliest-offset / latest-offset).
  bool group_offsets = true;
  /// Flink's `upsert-kafka`: the value of a message is the whole row of its
  /// key (an upsert: an UPDATE_AFTER row), and a null value (a tombstone)
  /// deletes the row of the message's key, a JSON object of the key columns
  /// (a DELETE row with only those set). Decoded as change events (the
  /// Debezium decoder's value rules), ordered within a key by offset.
  bool upsert = false;
  /// Several processes share the partitions (`partition_assignment:
  /// group`): the consumer subscribes with the group (`group.id` required)
  /// and Kafka's coordinator assigns the partitions; see the file comment.
  bool group_assignment = false;
  /// A record with a column the table lacks evolves the table (a new
  /// optional column) instead of being an error (the Iceberg Kafka Connect
  /// sink's `evolve-schema-enabled`): the window before it is committed,
  /// the column added in a schema-only commit, and reading goes on with the
  /// wider schema. The column's type comes from the envelope's Connect
  /// schema (debezium-json with `schema`), else from the JSON value (integer:
  /// long, other number: double, string, boolean).
  bool evolve_schema = false;
  std::chrono::milliseconds discovery_interval{10000};
  /// How long the first metadata request may take before the topics are
  /// declared missing.
  std::chrono::milliseconds metadata_timeout{10000};
  /// batch_rows, ignore_unknown_keys, sequence_path (Debezium).
  format::DecodeOptions decode;
};

/// The registry format a Kafka `format` names (`json` -> `jsonl`,
/// `avro-confluent` -> `jsonl`, `debezium-avro-confluent` -> `debezium-json`),
/// or an error listing the formats.
Result<std::string> KafkaFormat(std::string_view format);

/// Whether a Kafka `format` is one of Confluent's Avro formats (each value
/// framed with a schema id of a Schema Registry).
bool IsConfluentAvroFormat(std::string_view format);

Result<std::unique_ptr<sink::Source>> OpenKafkaSource(KafkaSourceOptions options);

/// Parses a `source:` block of `floe write --config` (Beam YAML's
/// ReadFromKafka names): `type` (kafka | ReadFromKafka), `topic` (a name, or
/// a list), `topic_pattern`, `bootstrap_servers`, `format`,
/// `consumer_config` (a map), `auto_offset_reset_config`, `bounded_mode`
/// (`unbounded` | `latest-offset`), `partition_discovery_interval_ms`, and for
/// the Avro formats `confluent_schema_registry_url`,
/// `confluent_schema_registry_basic_auth_credentials_source`,
/// `confluent_schema_registry_basic_auth_user_info`.
/// Unknown keys are refused by name. `yaml_block` is the block as YAML text.
Result<KafkaSourceOptions> ParseKafkaSourceBlock(const std::string& yaml_block, std::string_view origin);

}  // namespace floe::kafka
