/// \file
/// Flink's `kafka` and `upsert-kafka` connectors, as sources of `floe sql`,
/// over the Kafka source of `floe write` (kafka/kafka_source.h). Flink's
/// option names:
///
///   topic ('a;b' for several) | topic-pattern, properties.bootstrap.servers
///   (required), properties.group.id, properties.* (librdkafka consumer
///   properties, passed as they are), scan.startup.mode (group-offsets, the
///   default | earliest-offset | latest-offset), scan.bounded.mode
///   (unbounded, the default | latest-offset),
///   scan.topic-partition-discovery.interval (a duration), format /
///   value.format (json | debezium-json | avro-confluent |
///   debezium-avro-confluent), key.format (json) and key.fields
///   (upsert-kafka: the PRIMARY KEY's columns), value.fields-include (ALL);
///   for the Avro formats their Schema Registry under the format's prefix:
///   `<format>.url` (required), `<format>.basic-auth.credentials-source`
///   (USER_INFO | URL), `<format>.basic-auth.user-info` (`value.<format>.*`
///   with value.format).
///
/// Options Flink has and floe does not implement yet are refused by name
/// (scan.startup.mode timestamp / specific-offsets and their offsets and
/// timestamps, scan.bounded.mode timestamp / specific-offsets, other formats,
/// the registry's bearer auth, SSL settings, subject, schema and properties,
/// value.fields-include EXCEPT_KEY, key.fields-prefix); unknown ones with
/// Flink's "Unsupported options found" text. Tables of both connectors are
/// sources only: INSERT INTO them is refused as not supported yet.
///
/// `INSERT INTO <iceberg table> SELECT <its columns> FROM <kafka table>` runs
/// as `floe write` runs a `source:` block: the streaming job of the library
/// (sink/streaming_job.h) with the Kafka source, the offsets of every commit
/// in its snapshot summary (exactly-once across relaunches, sink_id
/// `sql:<kafka table>`), debezium-json as merge-on-read and upsert-kafka as
/// upserts by the key. Other queries over a Kafka table run through the
/// engine (no offsets stored).
#pragma once

#include <memory>

#include "floe/kafka/kafka_source.h"
#include "floe/sqlengine/connector.h"

namespace floe::sqlengine {

std::shared_ptr<const Connector> MakeKafkaConnector();
std::shared_ptr<const Connector> MakeUpsertKafkaConnector();

/// Whether `table` is a table of the `kafka` or `upsert-kafka` connector.
bool IsKafkaTable(const TableHandle& table);

/// The Kafka source options of such a table (its options checked).
Result<kafka::KafkaSourceOptions> KafkaSourceOptionsOf(const TableHandle& table);

}  // namespace floe::sqlengine
