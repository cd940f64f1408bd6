/// \file
/// A client of Confluent's Schema Registry (its REST API: `GET
/// /schemas/ids/{id}`), for the writer schemas of Confluent-framed Kafka
/// messages (avro/confluent.h). Schemas are cached per registry (its URLs and
/// the credentials used) and id for the whole process: each id is fetched
/// once (a registry's ids never change what they name), and a client whose
/// credentials differ asks the registry itself. HTTP goes through the REST
/// catalog's libcurl transport (catalog/rest_http.h).
///
/// Errors say which URL and id failed, and their kind tells a caller whether
/// the message or the job is at fault:
///   kNotFound     the registry has no schema of that id (HTTP 404): the
///                 message is bad (a record-level error);
///   kUnsupported  the schema is not Avro (schemaType PROTOBUF / JSON), or
///                 has references to other subjects: a record-level error;
///   kIo           the registry could not be reached, timed out, refused
///                 the credentials (401 / 403) or failed (5xx, a body that is
///                 not a schema response): the job stops (retryable for
///                 time-outs and 5xx).
/// Answers are cached (a schema, or that the registry has no Avro schema of
/// that id); failures to get an answer are not.
/// Credentials never appear in messages.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "floe/util/status.h"

namespace floe::kafka {

/// How the client reaches the registry (Flink's avro-confluent options,
/// Confluent's `schema.registry.url` / `basic.auth.*` client properties).
struct SchemaRegistryOptions {
  /// Base URL(s), comma-separated (`http://registry:8081`): tried in order
  /// when one cannot be reached.
  std::string url;
  /// `USER_INFO` (the default): `user_info` is `user:password`; `URL`: the
  /// user info of the URL (`http://user:password@host:8081`).
  std::string credentials_source;
  std::string user_info;
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds request_timeout{30000};
  /// Tries of a request that timed out, could not connect or got a 5xx.
  int attempts = 3;
};

/// Checks `options` (the credentials source, the user info's form, the URLs'
/// schemes): kInvalidArgument / kUnsupported naming the problem.
Status ValidateSchemaRegistryOptions(const SchemaRegistryOptions& options);

/// One registered schema.
struct RegisteredSchema {
  int32_t id = 0;
  std::string text;  ///< the Avro schema (JSON text)
};

class SchemaRegistryClient {
 public:
  static Result<std::unique_ptr<SchemaRegistryClient>> Make(SchemaRegistryOptions options);

  /// The schema of `id`: from the process's cache, else fetched (and kept).
  Result<std::shared_ptr<const RegisteredSchema>> Get(int32_t id);

  /// The registry's base URL(s) as shown in messages (no user info).
  const std::string& shown_url() const { return shown_url_; }
  /// HTTP requests this client sent (tests: one per id per process).
  int64_t requests() const { return requests_; }

 private:
  explicit SchemaRegistryClient(SchemaRegistryOptions options) : o_(std::move(options)) {}
  Result<std::shared_ptr<const RegisteredSchema>> Fetch(int32_t id);

  SchemaRegistryOptions o_;
  std::vector<std::string> urls_;  ///< base URLs without user info and trailing '/'
  std::string shown_url_;
  std::string authorization_;      ///< the Authorization header's value, or empty
  int64_t requests_ = 0;
};

}  // namespace floe::kafka
