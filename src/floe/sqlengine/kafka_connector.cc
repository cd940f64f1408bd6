// Flink's `kafka` and `upsert-kafka` connectors over the Kafka source of
// `floe write` (see kafka_connector.h).
#include "floe/sqlengine/kafka_connector.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>

#include "floe/config/duration.h"
#include "floe/sink/source.h"

namespace floe::sqlengine {

namespace {

constexpr const char* kKafka = "kafka";
constexpr const char* kUpsertKafka = "upsert-kafka";

// Flink's option names (its KafkaConnectorOptions), as the connector takes them.
constexpr const char* kTopic = "topic";
constexpr const char* kTopicPattern = "topic-pattern";
constexpr const char* kBootstrap = "properties.bootstrap.servers";
constexpr const char* kGroupId = "properties.group.id";
constexpr const char* kPropertiesPrefix = "properties.";
constexpr const char* kStartupMode = "scan.startup.mode";
constexpr const char* kStartupOffsets = "scan.startup.specific-offsets";
constexpr const char* kStartupTimestamp = "scan.startup.timestamp-millis";
constexpr const char* kBoundedMode = "scan.bounded.mode";
constexpr const char* kBoundedOffsets = "scan.bounded.specific-offsets";
constexpr const char* kBoundedTimestamp = "scan.bounded.timestamp-millis";
constexpr const char* kDiscovery = "scan.topic-partition-discovery.interval";
constexpr const char* kFormat = "format";
constexpr const char* kValueFormat = "value.format";
constexpr const char* kKeyFormat = "key.format";
constexpr const char* kKeyFields = "key.fields";
constexpr const char* kKeyFieldsPrefix = "key.fields-prefix";
constexpr const char* kValueFieldsInclude = "value.fields-include";

// The options of Flink's avro-confluent and debezium-avro-confluent formats
// (its AvroConfluentFormatOptions), under the format's prefix
// (`avro-confluent.url`, `value.avro-confluent.url` with value.format). floe
// implements the registry's URL and basic authentication; the others are
// refused by name.
constexpr const char* kRegistryUrl = "url";
constexpr const char* kRegistryUrlDeprecated = "schema-registry.url";
constexpr const char* kRegistryCredentialsSource = "basic-auth.credentials-source";
constexpr const char* kRegistryUserInfo = "basic-auth.user-info";
constexpr const char* kRegistryNotYet[] = {
    "bearer-auth.credentials-source", "bearer-auth.token", "ssl.keystore.location", "ssl.keystore.password",
    "ssl.truststore.location",        "ssl.truststore.password", "subject", "schema-registry.subject", "schema"};
constexpr const char* kRegistryProperties = "properties.";

std::string Lower(std::string s);

/// The option prefix of the table's format when it is one of the Avro
/// formats ("avro-confluent.", "value.debezium-avro-confluent."), else empty.
std::string AvroFormatPrefix(const std::map<std::string, std::string>& options) {
  for (const char* key : {"format", "value.format"}) {
    auto it = options.find(key);
    if (it == options.end()) continue;
    const std::string f = Lower(it->second);
    if (!kafka::IsConfluentAvroFormat(f)) return {};
    return (std::string_view(key) == "format" ? "" : "value.") + f + ".";
  }
  return {};
}

Error NotYet(std::string_view what) {
  return Error{ErrorKind::kUnsupported, fmt::format("floe.UnsupportedException: {} is not supported yet", what),
               false};
}

std::string Option(const TableHandle& t, const char* key, std::string fallback = {}) {
  auto it = t.options.find(key);
  return it == t.options.end() ? fallback : it->second;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

class KafkaConnector;

// The Kafka source as a row source of the engine: the rows the source hands
// over, projected onto the columns the query reads.
class KafkaRowSource final : public RowSource {
 public:
  KafkaRowSource(std::unique_ptr<sink::Source> source, SchemaPtr schema, std::vector<int> columns)
      : source_(std::move(source)), schema_(std::move(schema)), columns_(std::move(columns)) {
    std::vector<NestedField> fields;
    for (int c : columns_) fields.push_back(schema_->fields()[c]);
    out_schema_ = std::make_shared<Schema>(std::move(fields));
  }

  Status Open() {
    sink::SourceOutput out;
    out.emit = [this](Batch&& b) -> Status {
      if (b.num_rows > 0) queue_.push_back(std::move(b));
      return Ok();
    };
    // The engine has no error output: a message that does not decode fails
    // the query, naming it.
    out.reject = [this](format::RejectedRow&& r) -> Status {
      return InvalidArgument("{}: {} (message: {})", source_->name(), r.reason, r.text);
    };
    return source_->Open(schema_, std::move(out));
  }

  Result<bool> Next(Batch* out) override {
    for (;;) {
      FLOE_ASSIGN_OR_RETURN(bool more, NextUntil(out, sink::SourceClock::now() + std::chrono::seconds(1)));
      if (!more || out->num_rows > 0) return more;
    }
  }

  Result<bool> NextUntil(Batch* out, std::chrono::steady_clock::time_point deadline) override {
    while (queue_.empty() && !ended_) {
      FLOE_ASSIGN_OR_RETURN(auto state, source_->Read(deadline, nullptr));
      if (state == sink::SourceState::kEnd) ended_ = true;
      if (state == sink::SourceState::kIdle && sink::SourceClock::now() >= deadline) break;
    }
    if (queue_.empty()) {
      *out = Batch();
      return !ended_;
    }
    Batch b = std::move(queue_.front());
    queue_.pop_front();
    Batch projected;
    projected.schema = out_schema_;
    projected.num_rows = b.num_rows;
    projected.row_kinds = std::move(b.row_kinds);
    for (int c : columns_) projected.columns.push_back(std::move(b.columns[c]));
    *out = std::move(projected);
    return true;
  }

  bool unbounded() const override { return !source_->bounded(); }

 private:
  std::unique_ptr<sink::Source> source_;
  SchemaPtr schema_;
  SchemaPtr out_schema_;
  std::vector<int> columns_;
  std::deque<Batch> queue_;
  bool ended_ = false;
};

class KafkaConnector final : public Connector {
 public:
  explicit KafkaConnector(bool upsert) : upsert_(upsert) {}
  std::string identifier() const override { return upsert_ ? kUpsertKafka : kKafka; }

  Status Validate(const TableHandle& table, bool for_sink) const override {
    std::set<std::string> optional = {kTopic,          kTopicPattern,      kGroupId,    "properties.#",
                                      kStartupMode,    kStartupOffsets,    kStartupTimestamp,
                                      kBoundedMode,    kBoundedOffsets,    kBoundedTimestamp,
                                      kDiscovery,      kFormat,            kValueFormat,
                                      kKeyFormat,      kKeyFields,         kKeyFieldsPrefix,
                                      kValueFieldsInclude};
    if (const std::string prefix = AvroFormatPrefix(table.options); !prefix.empty()) {
      for (const char* k : {kRegistryUrl, kRegistryUrlDeprecated, kRegistryCredentialsSource, kRegistryUserInfo}) {
        optional.insert(prefix + k);
      }
      for (const char* k : kRegistryNotYet) optional.insert(prefix + k);
      optional.insert(prefix + kRegistryProperties + "#");
    }
    FLOE_RETURN_IF_ERROR(CheckConnectorOptions(identifier(), table.options, {"connector", kBootstrap}, optional));
    if (for_sink) {
      return Fail(NotYet(fmt::format("Writing to a '{}' table (INSERT INTO {}): the {} connector is a source only "
                                     "in floe",
                                     identifier(), table.FullName(), identifier())));
    }
    auto options = KafkaSourceOptionsOf(table);
    if (!options) return Fail(std::move(options).error());
    return Ok();
  }

  Result<std::unique_ptr<RowSource>> OpenSource(const TableHandle& table, const ReadRequest& request,
                                                const EngineContext&) const override {
    FLOE_ASSIGN_OR_RETURN(auto options, KafkaSourceOptionsOf(table));
    FLOE_ASSIGN_OR_RETURN(auto source, kafka::OpenKafkaSource(std::move(options)));
    auto rows = std::make_unique<KafkaRowSource>(std::move(source), table.schema.Physical(), request.columns);
    FLOE_RETURN_IF_ERROR(rows->Open());
    return std::unique_ptr<RowSource>(std::move(rows));
  }

  Result<std::unique_ptr<RowSink>> OpenSink(const TableHandle& table, const WriteRequest&,
                                            const EngineContext&) const override {
    FLOE_RETURN_IF_ERROR(Validate(table, true));
    return Internal("unreachable");
  }

  bool ChangelogSource(const TableHandle& table, const ReadRequest&, const EngineContext&) const override {
    if (upsert_) return true;
    const std::string f = Lower(Option(table, kValueFormat, Option(table, kFormat)));
    return f == "debezium-json" || f == "debezium-avro-confluent";
  }

 private:
  bool upsert_;
};

}  // namespace

bool IsKafkaTable(const TableHandle& table) {
  if (table.iceberg) return false;
  const std::string c = table.Connector();
  return c == kKafka || c == kUpsertKafka;
}

Result<kafka::KafkaSourceOptions> KafkaSourceOptionsOf(const TableHandle& table) {
  const std::string connector = table.Connector();
  const bool upsert = connector == kUpsertKafka;
  const std::string where = fmt::format("table {} ('connector' = '{}')", table.FullName(), connector);
  kafka::KafkaSourceOptions o;
  o.upsert = upsert;
  // Topics.
  const std::string topic = Option(table, kTopic), pattern = Option(table, kTopicPattern);
  if (!topic.empty() && !pattern.empty()) {
    return InvalidArgument("Option 'topic' and 'topic-pattern' shouldn't be set together ({}).", where);
  }
  if (topic.empty() && pattern.empty()) {
    return InvalidArgument("Either 'topic' or 'topic-pattern' must be set ({}).", where);
  }
  if (upsert && !pattern.empty()) {
    return InvalidArgument("Option 'topic-pattern' is not supported by upsert-kafka: give 'topic' ({}).", where);
  }
  for (size_t start = 0; start <= topic.size() && !topic.empty();) {
    size_t end = topic.find(';', start);
    if (end == std::string::npos) end = topic.size();
    std::string t = topic.substr(start, end - start);
    while (!t.empty() && t.front() == ' ') t.erase(0, 1);
    while (!t.empty() && t.back() == ' ') t.pop_back();
    if (!t.empty()) o.topics.push_back(t);
    start = end + 1;
  }
  o.topic_pattern = pattern;
  // Properties: every properties.* key to librdkafka, as it is.
  for (const auto& [k, v] : table.options) {
    if (!k.starts_with(kPropertiesPrefix)) continue;
    const std::string prop = k.substr(std::string_view(kPropertiesPrefix).size());
    if (k == kBootstrap) {
      o.bootstrap_servers = v;
    } else {
      o.consumer_config[prop] = v;
    }
  }
  if (o.bootstrap_servers.empty()) {
    return InvalidArgument("Option 'properties.bootstrap.servers' is empty ({}).", where);
  }
  // Where to start.
  const std::string startup = Lower(Option(table, kStartupMode, upsert ? "earliest-offset" : "group-offsets"));
  if (startup == "earliest-offset" || startup == "latest-offset") {
    o.group_offsets = false;
    o.consumer_config["auto.offset.reset"] = startup == "earliest-offset" ? "earliest" : "latest";
  } else if (startup == "group-offsets") {
    o.group_offsets = true;
  } else if (startup == "timestamp" || startup == "specific-offsets") {
    return Fail(NotYet(fmt::format("'{}' = '{}' ({})", kStartupMode, startup, where)));
  } else {
    return InvalidArgument(
        "Invalid value for option '{}': '{}' ({}); expected earliest-offset, latest-offset, group-offsets, timestamp "
        "or specific-offsets",
        kStartupMode, startup, where);
  }
  for (const char* key : {kStartupOffsets, kStartupTimestamp, kBoundedOffsets, kBoundedTimestamp, kKeyFieldsPrefix}) {
    if (table.options.contains(key)) return Fail(NotYet(fmt::format("Option '{}' ({})", key, where)));
  }
  const std::string bounded = Lower(Option(table, kBoundedMode, "unbounded"));
  if (bounded == "latest-offset") {
    o.bounded = true;
  } else if (bounded == "timestamp" || bounded == "specific-offsets") {
    return Fail(NotYet(fmt::format("'{}' = '{}' ({})", kBoundedMode, bounded, where)));
  } else if (bounded != "unbounded") {
    return InvalidArgument(
        "Invalid value for option '{}': '{}' ({}); expected unbounded, latest-offset, timestamp or specific-offsets",
        kBoundedMode, bounded, where);
  }
  if (auto it = table.options.find(kDiscovery); it != table.options.end()) {
    auto d = config::ParseDuration(it->second);
    if (!d) return InvalidArgument("Option '{}': '{}' is not a duration ({})", kDiscovery, it->second, where);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
    if (ms.count() < 100) {
      return Fail(NotYet(fmt::format("Option '{}' below 100 ms (turning discovery off) ({})", kDiscovery, where)));
    }
    o.discovery_interval = ms;
  }
  // Formats.
  const bool has_format = table.options.contains(kFormat), has_value_format = table.options.contains(kValueFormat);
  if (has_format && has_value_format) {
    return InvalidArgument("Option 'format' and 'value.format' shouldn't be set together ({}).", where);
  }
  if (!has_format && !has_value_format) {
    return InvalidArgument("One or more required options are missing.\n\nMissing required options are:\n\n{}",
                           upsert ? kValueFormat : kFormat);
  }
  const std::string format = Lower(Option(table, has_format ? kFormat : kValueFormat));
  if (format == "json" || format == "debezium-json" || format == "avro-confluent" ||
      format == "debezium-avro-confluent") {
    o.format = format;
  } else if (format == "canal-json" || format == "avro" || format == "csv" || format == "raw" ||
             format == "maxwell-json" || format == "ogg-json" || format == "protobuf") {
    return Fail(NotYet(fmt::format("Format '{}' of the {} connector ({})", format, connector, where)));
  } else {
    return InvalidArgument(
        "Could not find any format factory for identifier '{}' in floe.\n\nAvailable factory identifiers are:\n\n"
        "avro-confluent\ndebezium-avro-confluent\ndebezium-json\njson",
        format);
  }
  if (const std::string prefix = AvroFormatPrefix(table.options); !prefix.empty()) {
    // The Schema Registry: Flink's option names under the format's prefix.
    for (const char* k : kRegistryNotYet) {
      if (table.options.contains(prefix + k)) return Fail(NotYet(fmt::format("Option '{}{}' ({})", prefix, k, where)));
    }
    for (const auto& [k, v] : table.options) {
      if (k.starts_with(prefix + kRegistryProperties)) return Fail(NotYet(fmt::format("Option '{}' ({})", k, where)));
    }
    o.schema_registry.url = Option(table, (prefix + kRegistryUrl).c_str(),
                                   Option(table, (prefix + kRegistryUrlDeprecated).c_str()));
    if (o.schema_registry.url.empty()) {
      return InvalidArgument("One or more required options are missing.\n\nMissing required options are:\n\n{}{}",
                             prefix, kRegistryUrl);
    }
    o.schema_registry.credentials_source = Option(table, (prefix + kRegistryCredentialsSource).c_str());
    o.schema_registry.user_info = Option(table, (prefix + kRegistryUserInfo).c_str());
    if (Status st = kafka::ValidateSchemaRegistryOptions(o.schema_registry); !st) {
      return Fail(st.error().WithContext(where));
    }
  }
  if (upsert && format != "json") {
    return Fail(NotYet(fmt::format("upsert-kafka with value.format '{}' (json is) ({})", format, where)));
  }
  // The key.
  const std::string key_format = Lower(Option(table, kKeyFormat));
  const std::string key_fields = Option(table, kKeyFields);
  const std::string include = Lower(Option(table, kValueFieldsInclude, "all"));
  if (include == "except_key") {
    return Fail(NotYet(fmt::format("'{}' = 'EXCEPT_KEY' ({}): the value must hold every column", kValueFieldsInclude,
                                   where)));
  }
  if (include != "all") {
    return InvalidArgument("Invalid value for option '{}': '{}' ({}); expected ALL or EXCEPT_KEY",
                           kValueFieldsInclude, include, where);
  }
  if (upsert) {
    if (table.primary_key.empty()) {
      return InvalidArgument(
          "'upsert-kafka' tables require to define a PRIMARY KEY constraint. The PRIMARY KEY specifies which columns "
          "should be read from or write to the Kafka message key. ({})",
          where);
    }
    if (key_format.empty()) {
      return InvalidArgument("One or more required options are missing.\n\nMissing required options are:\n\n{}",
                             kKeyFormat);
    }
    if (key_format != "json") {
      return Fail(NotYet(fmt::format("Key format '{}' ({}); json is", key_format, where)));
    }
    if (!key_fields.empty()) {
      return InvalidArgument("Option 'key.fields' is not allowed for upsert-kafka: the PRIMARY KEY is the key ({}).",
                             where);
    }
  } else if (!key_format.empty() || !key_fields.empty()) {
    // The key of a `kafka` table only adds columns read from it: the value
    // holds every column here (value.fields-include ALL).
    if (key_fields.empty()) {
      return InvalidArgument("A key format 'key.format' requires the declaration of one or more of key fields using "
                             "'key.fields' ({}).",
                             where);
    }
    return Fail(NotYet(fmt::format("Reading columns from the message key ('key.format', 'key.fields') ({})", where)));
  }
  return o;
}

std::shared_ptr<const Connector> MakeKafkaConnector() { return std::make_shared<KafkaConnector>(false); }
std::shared_ptr<const Connector> MakeUpsertKafkaConnector() { return std::make_shared<KafkaConnector>(true); }

}  // namespace floe::sqlengine
