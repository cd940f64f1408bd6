/// \file
/// The values of the Kafka source's `avro-confluent` and
/// `debezium-avro-confluent` formats: each Confluent-framed Avro value
/// (avro/confluent.h) is looked up in the Schema Registry by its schema id
/// (schema_registry.h) and written as the JSON line the source's decoder
/// reads: a JSONL row (avro-confluent), or a Debezium event wrapped with the
/// Kafka Connect schema of its writer schema (debezium-avro-confluent):
///   {"schema":<the Connect schema>,"payload":<the event>}
/// so that the `json` / `debezium-json` rules apply unchanged. Each schema id
/// is fetched and translated once.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "floe/avro/confluent.h"
#include "floe/kafka/schema_registry.h"
#include "floe/util/status.h"

namespace floe::kafka {

class ConfluentAvroValues {
 public:
  static Result<std::unique_ptr<ConfluentAvroValues>> Make(const SchemaRegistryOptions& registry,
                                                           avro::JsonDialect dialect);

  /// Appends the JSON line of `value` (no newline) to `out`. A value that
  /// cannot be decoded (not framed, an unknown or non-Avro schema id, a
  /// damaged body) leaves `out` as it was and sets `*rejected` to why; an
  /// error returned is the registry's (unreachable, credentials refused):
  /// the job's, not the message's.
  Status Append(std::string_view value, std::string* out, std::string* rejected);

  SchemaRegistryClient& registry() { return *registry_; }

 private:
  struct Writer {
    std::shared_ptr<const avro::DatumToJson> datum;
    std::string error;  ///< why the schema cannot be used (every value of it is rejected)
  };
  ConfluentAvroValues() = default;

  std::unique_ptr<SchemaRegistryClient> registry_;
  avro::JsonDialect dialect_ = avro::JsonDialect::kRow;
  std::map<int32_t, Writer> writers_;
};

}  // namespace floe::kafka
