// Kafka as a source of the streaming job (kafka_source.h).
#include "floe/kafka/kafka_source.h"

#include <cstring>
#include <librdkafka/rdkafka.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <optional>
#include <nlohmann/json.hpp>
#include <random>
#include <simdjson.h>
#include <unordered_set>
#include <regex>
#include <set>

#include "floe/config/options.h"
#include "floe/format/format_registry.h"
#include "floe/format/string_input.h"
#include "floe/kafka/confluent_values.h"
#include "floe/util/strings.h"

namespace floe::kafka {

namespace {

using nlohmann::json;
using sink::Cancellation;
using sink::SourceClock;
using sink::SourceState;

std::string PartKey(const std::string& topic, int32_t partition) { return fmt::format("{}/{}", topic, partition); }

struct KafkaDeleter {
  void operator()(rd_kafka_t* rk) const {
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
  }
};
struct QueueDeleter {
  void operator()(rd_kafka_queue_t* q) const { rd_kafka_queue_destroy(q); }
};
struct ListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* l) const { rd_kafka_topic_partition_list_destroy(l); }
};
using ListPtr = std::unique_ptr<rd_kafka_topic_partition_list_t, ListDeleter>;

/// upsert mode: the key of the event envelope that holds the message's offset.
constexpr const char* kUpsertOffsetKey = "kafka_offset";

class KafkaSource final : public sink::Source {
 public:
  explicit KafkaSource(KafkaSourceOptions o) : o_(std::move(o)) {}
  ~KafkaSource() override {
    for (rd_kafka_message_t* m : held_) rd_kafka_message_destroy(m);
    // Closed here, while the members live: a group's last revocation runs
    // the rebalance callback.
    closing_ = true;
    queue_.reset();
    if (rk_) {
      rd_kafka_consumer_close(rk_.get());
      rd_kafka_destroy(rk_.release());
    }
  }

  Status Init() {
    FLOE_ASSIGN_OR_RETURN(registry_format_, KafkaFormat(o_.format));
    FLOE_RETURN_IF_ERROR(InitAvro());
    if (o_.topics.empty() && o_.topic_pattern.empty()) return InvalidArgument("kafka: no topic given (topic or topic_pattern)");
    if (!o_.topics.empty() && !o_.topic_pattern.empty()) {
      return InvalidArgument("kafka: give either topic or topic_pattern, not both");
    }
    if (!o_.topic_pattern.empty()) {
      try {
        pattern_ = std::regex(o_.topic_pattern, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        return InvalidArgument("kafka: topic_pattern '{}' is not a regular expression: {}", o_.topic_pattern, e.what());
      }
    }
    std::sort(o_.topics.begin(), o_.topics.end());
    o_.topics.erase(std::unique(o_.topics.begin(), o_.topics.end()), o_.topics.end());
    if (o_.bootstrap_servers.empty() && !o_.consumer_config.contains("bootstrap.servers")) {
      return InvalidArgument("kafka: no bootstrap_servers given");
    }
    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    auto set = [&](const std::string& k, const std::string& v) -> Status {
      if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof(err)) != RD_KAFKA_CONF_OK) {
        return InvalidArgument("kafka: consumer property '{}': {}", k, err);
      }
      return Ok();
    };
    auto fail = [&](Status st) {
      rd_kafka_conf_destroy(conf);
      return st;
    };
    std::map<std::string, std::string> props = o_.consumer_config;
    if (!o_.bootstrap_servers.empty()) props["bootstrap.servers"] = o_.bootstrap_servers;
    // floe stores offsets with the data and commits the group's itself.
    for (const char* k : {"enable.auto.commit", "enable.auto.offset.store"}) {
      if (props.contains(k) && props[k] != "false") {
        return fail(InvalidArgument("kafka: consumer property '{}': floe commits offsets itself (after each "
                                    "Iceberg commit); it cannot be {}",
                                    k, props[k]));
      }
      props[k] = "false";
    }
    if (!props.contains("auto.offset.reset")) props["auto.offset.reset"] = "earliest";
    reset_latest_ = props["auto.offset.reset"] == "latest" || props["auto.offset.reset"] == "largest" ||
                    props["auto.offset.reset"] == "end";
    if (props.contains("group.id") && !props["group.id"].empty()) {
      group_ = props["group.id"];
    } else {
      // librdkafka's consumer needs a group; offsets are never committed to one
      // floe made up.
      std::random_device rd;
      props["group.id"] = fmt::format("floe-{:016x}", (uint64_t(rd()) << 32) | rd());
    }
    if (!props.contains("log_level")) props["log_level"] = "3";
    for (const auto& [k, v] : props) {
      if (Status st = set(k, v); !st) return fail(st);
    }
    if (o_.group_assignment) {
      if (group_.empty()) {
        return fail(InvalidArgument("kafka: partition_assignment: group needs consumer_config group.id (the group "
                                    "whose processes share the partitions)"));
      }
      if (o_.bounded) {
        return fail(InvalidArgument("kafka: partition_assignment: group reads until stopped; bounded_mode: "
                                    "latest-offset reads every partition in one process (partition_assignment: all)"));
      }
      rd_kafka_conf_set_opaque(conf, this);
      rd_kafka_conf_set_rebalance_cb(conf, &KafkaSource::RebalanceCallback);
    }
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
    if (rk == nullptr) {
      rd_kafka_conf_destroy(conf);
      return InvalidArgument("kafka: cannot create the consumer: {}", err);
    }
    rk_.reset(rk);
    queue_.reset(rd_kafka_queue_get_consumer(rk));
    if (!queue_) return Internal("kafka: the consumer has no queue");
    return Ok();
  }

  std::string name() const override {
    if (!o_.topic_pattern.empty()) return fmt::format("kafka:/{}/", o_.topic_pattern);
    std::string n = "kafka:";
    for (size_t i = 0; i < o_.topics.size(); ++i) n += (i ? "," : "") + o_.topics[i];
    return n;
  }
  bool bounded() const override { return o_.bounded; }
  bool per_destination() const override { return true; }
  bool shared() const override { return o_.group_assignment; }
  std::vector<NestedField> added_columns() const override { return added_; }
  bool commit_due() override { return revoke_pending_; }
  int64_t consumed() const override { return next_position_; }

  Status Open(SchemaPtr schema, sink::SourceOutput output) override {
    schema_ = std::move(schema);
    output_ = std::move(output);
    // (Opened again after the table evolved: the wider schema's columns.)
    known_columns_.clear();
    for (const NestedField& f : schema_->fields()) known_columns_.insert(f.name);
    added_.clear();
    decode_ = o_.decode;
    decode_.with_positions = true;
    if (o_.upsert) {
      // Each message becomes a change event (Take): ordered by its offset.
      registry_format_ = "debezium-json";
      decode_.sequence_path = kUpsertOffsetKey;
    }
    decode_.reject = [this](format::RejectedRow&& r) -> Status {
      r.position += chunk_base_;
      return output_.reject(std::move(r));
    };
    return Ok();
  }

  Result<SourceState> Read(SourceClock::time_point deadline, const Cancellation* cancel) override {
    if (!started_) FLOE_RETURN_IF_ERROR(Start());
    constexpr size_t kCap = 4096;
    rd_kafka_message_t* msgs[kCap];
    const size_t want_rows = static_cast<size_t>(std::max<int64_t>(1, o_.decode.batch_rows));
    for (;;) {
      if (cancel != nullptr && cancel->cancelled()) {
        FLOE_RETURN_IF_ERROR(Flush());
        return SourceState::kIdle;
      }
      if (o_.bounded && ReachedEnd()) {
        FLOE_RETURN_IF_ERROR(Flush());
        return SourceState::kEnd;
      }
      auto now = SourceClock::now();
      if (!o_.bounded && now >= next_discovery_) FLOE_RETURN_IF_ERROR(Discover(false));
      int timeout_ms = 0;
      if (deadline > now) {
        timeout_ms = static_cast<int>(
            std::min<int64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1, 100));
      }
      if (!lines_.empty()) timeout_ms = 0;  // hand over what is there before waiting
      if (auto fatal = FatalError(); !fatal.empty()) return IoError("{}: {}", name(), fatal);
      // Messages held back at a schema change first (the table has evolved).
      ssize_t n = 0;
      while (!held_.empty() && n < static_cast<ssize_t>(kCap)) {
        msgs[n++] = held_.front();
        held_.pop_front();
      }
      if (n == 0) n = rd_kafka_consume_batch_queue(queue_.get(), timeout_ms, msgs, kCap);
      if (n < 0) return IoError("{}: consume: {}", name(), rd_kafka_err2str(rd_kafka_last_error()));
      Status st = Ok();
      for (ssize_t i = 0; i < n; ++i) {
        if (st && added_.empty()) st = Take(msgs[i]);
        if (!added_.empty()) {
          held_.push_back(msgs[i]);  // the message with new columns and those after it
        } else {
          rd_kafka_message_destroy(msgs[i]);
        }
      }
      FLOE_RETURN_IF_ERROR(st);
      if (!added_.empty()) {
        // Every row before the change goes with the narrower schema; the job
        // evolves the table and opens this source again.
        FLOE_RETURN_IF_ERROR(Flush());
        return SourceState::kSchemaChange;
      }
      if (rebalance_error_) return Fail(*rebalance_error_);
      if (revoke_pending_) {
        // Partitions are being taken away: what was read of them is
        // committed first (commit_due), then they are let go (OnCommitted).
        FLOE_RETURN_IF_ERROR(Flush());
        return SourceState::kMore;
      }
      if (lines_.size() >= want_rows || (n == 0 && !lines_.empty()) ||
          (static_cast<size_t>(n) < kCap && !lines_.empty())) {
        FLOE_RETURN_IF_ERROR(Flush());
        return SourceState::kMore;
      }
      if (n == 0 && SourceClock::now() >= deadline) return SourceState::kIdle;
    }
  }

  Status Resume(std::string_view stored, std::string_view stored_input, int64_t position) override {
    auto held = ResumeDestination("", stored, stored_input, position);
    if (!held) return Fail(held.error());
    return Ok();
  }

  Result<std::function<bool(int64_t)>> ResumeDestination(std::string_view table, std::string_view stored,
                                                         std::string_view stored_input, int64_t position) override {
    const std::string now = name();
    auto refuse = [&](std::string_view what) -> Status {
      return InvalidArgument(
          "this sink_id committed {} before, and this run reads {}: a relaunch with the same sink_id resumes only "
          "the same topics, and nothing was written. To load another input, use a new sink_id",
          what, now);
    };
    if (stored.empty()) {
      return std::unexpected<Error>(
          refuse(stored_input.empty() ? std::string("an unknown input") : std::string(stored_input)).error());
    }
    json j = json::parse(stored, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("source") || !j["source"].is_string()) {
      return Corrupt("the sink token's floe.source-position is not a source position: {}", stored);
    }
    FLOE_RETURN_IF_ERROR(SameInput(j, refuse));
    std::map<std::string, int64_t> offsets;
    FLOE_RETURN_IF_ERROR(StoredOffsets(j, stored, &offsets));
    if (!started_) {
      // Every partition starts at the lowest offset a destination stored.
      for (const auto& [k, v] : offsets) {
        auto it = start_.find(k);
        if (it == start_.end() || v < it->second) start_[k] = v;
      }
      position_base_ = std::max(position_base_, position);
    }
    // Updated in place when read again (ResumeAgain): the filter handed out
    // before stays valid.
    auto& slot = dests_[std::string(table)];
    if (!slot) slot = std::make_unique<DestState>();
    DestState* d = slot.get();
    if (o_.group_assignment && started_) {
      // Read again while this process holds partitions (the sink opened
      // again after the table evolved): what it knows of its own partitions
      // stays, so that another process's commit of one of them is still
      // found by the next commit (DescribeShared), not taken as known.
      for (const Part& p : parts_) {
        if (!p.owned) continue;
        if (auto it = d->stored.find(p.key); it != d->stored.end()) {
          offsets[p.key] = it->second;
        } else {
          offsets.erase(p.key);
        }
      }
    }
    d->stored = std::move(offsets);
    d->pending.reset();
    Align(d);
    return std::function<bool(int64_t)>([this, d](int64_t pos) {
      const int64_t i = pos - chunk_base_ - 1;
      if (i < 0 || i >= static_cast<int64_t>(lines_.size())) return false;
      const Line& l = lines_[static_cast<size_t>(i)];
      return static_cast<size_t>(l.part) < d->by_part.size() && l.offset < d->by_part[static_cast<size_t>(l.part)];
    });
  }

  Result<std::string> Describe(int64_t upto) override { return DescribeDestination("", upto); }

  Result<std::string> DescribeDestination(std::string_view table, int64_t upto) override {
    // The newest checkpoint at or before `upto`.
    const Checkpoint* cp = nullptr;
    for (const Checkpoint& c : checkpoints_) {
      if (c.position <= upto) cp = &c;
    }
    json offsets = json::object();
    for (const auto& [k, v] : start_) offsets[k] = v;  // stored, not (yet) read
    if (cp != nullptr) {
      for (size_t i = 0; i < cp->next.size() && i < parts_.size(); ++i) {
        if (cp->next[i] >= 0) offsets[parts_[i].key] = cp->next[i];
      }
    }
    auto d = dests_.find(std::string(table));
    if (d != dests_.end()) {
      for (const auto& [k, v] : d->second->stored) {
        if (!offsets.contains(k) || offsets[k].get<int64_t>() < v) offsets[k] = v;
      }
    }
    nlohmann::ordered_json j;
    j["source"] = "kafka";
    if (!o_.topic_pattern.empty()) {
      j["topic-pattern"] = o_.topic_pattern;
    } else {
      j["topics"] = o_.topics;
    }
    j["offsets"] = std::move(offsets);
    return j.dump();
  }

  Result<std::string> DescribeShared(std::string_view table, int64_t upto, std::string_view newest) override {
    json offsets = json::object();
    if (!newest.empty()) {
      json j = json::parse(newest, nullptr, false);
      if (j.is_discarded() || !j.is_object() || !j.contains("source") || !j["source"].is_string()) {
        return Corrupt("the sink token's floe.source-position is not a source position: {}", newest);
      }
      FLOE_RETURN_IF_ERROR(SameInput(j, [&](std::string_view what) -> Status {
        return InvalidArgument("another process with this sink_id committed {} to {}, and this one reads {}", what,
                               table, name());
      }));
      std::map<std::string, int64_t> stored;
      FLOE_RETURN_IF_ERROR(StoredOffsets(j, newest, &stored));
      for (const auto& [k, v] : stored) offsets[k] = v;
    }
    const Checkpoint* cp = nullptr;
    for (const Checkpoint& c : checkpoints_) {
      if (c.position <= upto) cp = &c;
    }
    auto& slot = dests_[std::string(table)];
    if (!slot) {
      slot = std::make_unique<DestState>();
      Align(slot.get());
    }
    DestState* d = slot.get();
    for (size_t i = 0; i < parts_.size(); ++i) {
      const Part& p = parts_[i];
      if (!p.owned) continue;
      int64_t ours = cp != nullptr && i < cp->next.size() ? cp->next[i] : -1;
      if (offsets.contains(p.key)) {
        const int64_t theirs = offsets[p.key].get<int64_t>();
        auto known = d->stored.find(p.key);
        // What this process last knew the table holds (at the assignment,
        // or its own last commit): another process committed past it.
        if (known == d->stored.end() || theirs > known->second) {
          return AlreadyExists(
              "{}: partition {} was committed to {} by another process of group '{}' up to offset {} while this "
              "process held it ({}): this process lost it in a rebalance without noticing; nothing of this "
              "window was committed",
              name(), p.key, table, group_, theirs,
              known == d->stored.end() ? std::string("the table stored no offset of it when this process took it")
                                       : fmt::format("the table stored offset {} when this process took it or "
                                                     "last committed it",
                                                     known->second));
        }
        ours = std::max(ours, theirs);
      }
      if (ours >= 0) offsets[p.key] = ours;
    }
    std::map<std::string, int64_t> pending;
    for (const auto& [k, v] : offsets.items()) pending[k] = v.get<int64_t>();
    d->pending = std::move(pending);
    nlohmann::ordered_json out;
    out["source"] = "kafka";
    if (!o_.topic_pattern.empty()) {
      out["topic-pattern"] = o_.topic_pattern;
    } else {
      out["topics"] = o_.topics;
    }
    out["offsets"] = std::move(offsets);
    return out.dump();
  }

  Status OnCommitted() override {
    // Checkpoints before the one committed are dropped (a describe of a
    // destination keeps them, since destinations are described one by one).
    while (checkpoints_.size() > 1 && checkpoints_[1].position <= next_position_) checkpoints_.pop_front();
    for (auto& [t, d] : dests_) {
      // What this process committed is what it knows the table holds.
      if (!d->pending) continue;
      d->stored = std::move(*d->pending);
      d->pending.reset();
      Align(d.get());
    }
    if (!group_.empty() && !parts_.empty()) {
      // The group's offsets (for lag monitoring, and where a partition
      // starts when no open table names it): best effort, asynchronous, but
      // synchronous before partitions are let go (the next owner reads them);
      // only a partition this process holds.
      ListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(parts_.size())));
      for (const Part& p : parts_) {
        if (p.next >= 0 && p.owned) {
          rd_kafka_topic_partition_list_add(list.get(), p.topic.c_str(), p.partition)->offset = p.next;
        }
      }
      if (list->cnt > 0) {
        const rd_kafka_resp_err_t err = rd_kafka_commit(rk_.get(), list.get(), revoke_pending_ ? 0 : 1);
        if (revoke_pending_ && err != RD_KAFKA_RESP_ERR_NO_ERROR) {
          Note(fmt::format("kafka group '{}': committing the group's offsets before the rebalance: {}", group_,
                           rd_kafka_err2str(err)));
        }
      }
    }
    if (revoke_pending_) return Release();
    return Ok();
  }

 private:
  struct Part {
    std::string topic;
    int32_t partition = 0;
    std::string key;
    int64_t next = -1;  ///< the next offset to read (-1: not known yet)
    int64_t high = -1;  ///< bounded: the high watermark at start
    bool owned = true;  ///< assigned to this process (a group's partitions come and go)
  };
  struct Line {
    int32_t part;
    int64_t offset;
  };
  struct Checkpoint {
    int64_t position;
    std::vector<int64_t> next;  ///< per part (parts_), after every row up to position
  };
  struct DestState {
    std::map<std::string, int64_t> stored;
    std::vector<int64_t> by_part;  ///< stored offset per part (0 when it stored none)
    /// Shared: the offsets of the commit being made (DescribeShared), stored
    /// once it landed (OnCommitted).
    std::optional<std::map<std::string, int64_t>> pending;
  };

  // The identity of the input a stored position covers: the same topics (or
  // pattern), else `refuse(what it covered)`.
  template <typename Refuse>
  Status SameInput(const json& j, Refuse&& refuse) const {
    const std::string kind = j["source"].get<std::string>();
    if (kind != "kafka") return refuse(fmt::format("a {} input", kind));
    if (!o_.topic_pattern.empty()) {
      if (j.value("topic-pattern", std::string()) != o_.topic_pattern) return refuse(fmt::format("Kafka input {}", j.dump()));
      return Ok();
    }
    std::vector<std::string> topics;
    if (j.contains("topics") && j["topics"].is_array()) {
      for (const auto& t : j["topics"]) {
        if (t.is_string()) topics.push_back(t.get<std::string>());
      }
    }
    std::sort(topics.begin(), topics.end());
    if (topics != o_.topics) return refuse(fmt::format("Kafka input {}", j.dump()));
    return Ok();
  }

  static Status StoredOffsets(const json& j, std::string_view text, std::map<std::string, int64_t>* out) {
    if (!j.contains("offsets") || !j["offsets"].is_object()) {
      return Corrupt("the sink token's floe.source-position has no offsets: {}", text);
    }
    for (const auto& [k, v] : j["offsets"].items()) {
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || k.rfind('/') == std::string::npos) {
        return Corrupt("the sink token's floe.source-position has a damaged offset '{}': {}", k, text);
      }
      (*out)[k] = v.get<int64_t>();
    }
    return Ok();
  }

  // evolve_schema: the columns a record (its JSON line) has and the table
  // does not: from the envelope's Connect schema when it carries one (read
  // once per distinct schema text), else from the record's values (the
  // after image of a change event, or the object of a JSON record). Only
  // new top-level columns of simple types; a nested one is an error naming
  // it. A key whose value is null brings no column (its type is unknown).
  Result<std::vector<NestedField>> NewColumns(std::string_view line) {
    std::vector<NestedField> added;
    while (!line.empty() && (line.back() == ' ' || line.back() == '\n')) line.remove_suffix(1);
    if (line.empty()) return added;
    namespace od = simdjson::ondemand;
    simdjson::padded_string padded(line);
    od::document doc;
    od::object obj;
    // Not JSON, or not an object: the decoder says what is wrong.
    if (parser_.iterate(padded).get(doc) != simdjson::SUCCESS || doc.get_object().get(obj) != simdjson::SUCCESS) {
      return added;
    }
    const bool change = registry_format_ == "debezium-json";
    if (change) {
      std::string_view schema_text;
      od::value schema;
      od::object schema_object;
      if (obj.find_field_unordered("schema").get(schema) == simdjson::SUCCESS &&
          schema.get_object().get(schema_object) == simdjson::SUCCESS &&
          schema_object.raw_json().get(schema_text) == simdjson::SUCCESS) {
        if (schema_text == checked_schema_) return added;
        FLOE_RETURN_IF_ERROR(ConnectColumns(schema_text, &added));
        if (added.empty()) checked_schema_ = std::string(schema_text);
        return added;
      }
      // No schema: the after image (the before image of a delete).
      od::value payload;
      if (obj.find_field_unordered("payload").get(payload) == simdjson::SUCCESS) {
        if (payload.get_object().get(obj) != simdjson::SUCCESS) return added;
      }
      od::value image;
      bool found = false;
      for (const char* side : {"after", "before"}) {
        if (obj.find_field_unordered(side).get(image) != simdjson::SUCCESS) continue;
        if (image.is_null().value_unsafe()) continue;
        if (image.get_object().get(obj) != simdjson::SUCCESS) return added;
        found = true;
        break;
      }
      if (!found) return added;
    }
    for (auto field : obj) {
      std::string_view key;
      if (field.unescaped_key().get(key) != simdjson::SUCCESS) return added;
      if (known_columns_.contains(std::string(key))) continue;
      od::value v;
      if (field.value().get(v) != simdjson::SUCCESS) return added;
      od::json_type t;
      if (v.type().get(t) != simdjson::SUCCESS) return added;
      TypePtr type;
      switch (t) {
        case od::json_type::boolean: type = BooleanType(); break;
        case od::json_type::string: type = StringType(); break;
        case od::json_type::number: {
          od::number_type nt;
          if (v.get_number_type().get(nt) != simdjson::SUCCESS) return added;
          type = nt == od::number_type::floating_point_number ? DoubleType() : LongType();
          break;
        }
        case od::json_type::null: continue;
        default:
          return Unsupported("the record's key '{}' names no column of the table, and floe evolves a table with new "
                             "top-level columns of simple types only (this one is a JSON {}); add the column "
                             "to the table yourself and relaunch",
                             key, t == od::json_type::array ? "array" : "object");
      }
      if (std::none_of(added.begin(), added.end(), [&](const NestedField& f) { return f.name == key; })) {
        added.push_back({0, std::string(key), false, type, ""});
      }
    }
    return added;
  }

  // The columns of a Connect schema's `after` struct the table lacks, typed
  // as the Debezium decoder reads them (debezium_reader.h).
  Status ConnectColumns(std::string_view schema_text, std::vector<NestedField>* added) const {
    const json schema = json::parse(schema_text, nullptr, false);
    if (schema.is_discarded() || !schema.is_object() || !schema.contains("fields") || !schema["fields"].is_array()) {
      return Ok();  // the decoder says what is wrong
    }
    const json* after = nullptr;
    for (const json& f : schema["fields"]) {
      if (f.is_object() && f.value("field", "") == "after" && f.contains("fields") && f["fields"].is_array()) after = &f;
    }
    if (after == nullptr) return Ok();
    for (const json& f : (*after)["fields"]) {
      if (!f.is_object() || !f.contains("field") || !f["field"].is_string()) continue;
      const std::string col = f["field"].get<std::string>();
      if (known_columns_.contains(col)) continue;
      const std::string type = f.value("type", "");
      const std::string logical = f.value("name", "");
      auto param = [&](const char* k) -> std::string {
        if (!f.contains("parameters") || !f["parameters"].is_object()) return {};
        const json& p = f["parameters"];
        return p.contains(k) && p[k].is_string() ? p[k].get<std::string>() : std::string();
      };
      TypePtr t;
      if (logical == "io.debezium.time.Date" || logical == "org.apache.kafka.connect.data.Date") {
        t = DateType();
      } else if (logical == "io.debezium.time.Time" || logical == "io.debezium.time.MicroTime" ||
                 logical == "io.debezium.time.NanoTime" || logical == "org.apache.kafka.connect.data.Time" ||
                 logical == "io.debezium.time.ZonedTime") {
        t = TimeType();
      } else if (logical == "io.debezium.time.Timestamp" || logical == "io.debezium.time.MicroTimestamp" ||
                 logical == "io.debezium.time.NanoTimestamp" || logical == "org.apache.kafka.connect.data.Timestamp") {
        t = TimestampType();
      } else if (logical == "io.debezium.time.ZonedTimestamp") {
        t = TimestampTzType();
      } else if (logical == "org.apache.kafka.connect.data.Decimal") {
        const std::string scale = param("scale"), precision = param("connect.decimal.precision");
        int sc = 0, pr = 38;
        try {
          if (!scale.empty()) sc = std::stoi(scale);
          if (!precision.empty()) pr = std::stoi(precision);
        } catch (const std::exception&) {
          return InvalidArgument("the envelope's schema gives column '{}' a damaged decimal scale or precision", col);
        }
        if (sc < 0 || pr < 1 || pr > 38 || sc > pr) {
          return Unsupported("column '{}' is a decimal({}, {}), which an Iceberg decimal cannot hold", col, pr, sc);
        }
        t = DecimalType(pr, sc);
      } else if (logical == "io.debezium.data.VariableScaleDecimal") {
        return Unsupported("column '{}' is a variable-scale decimal (io.debezium.data.VariableScaleDecimal): an "
                           "Iceberg decimal has one scale; add the column to the table with the scale you want, or "
                           "set the connector's decimal.handling.mode (string or double)",
                           col);
      } else if (logical == "io.debezium.data.Bits" || type == "bytes") {
        t = BinaryType();
      } else if (type == "int8" || type == "int16" || type == "int32") {
        t = IntType();
      } else if (type == "int64") {
        t = LongType();
      } else if (type == "float32") {
        t = FloatType();
      } else if (type == "float64") {
        t = DoubleType();
      } else if (type == "boolean") {
        t = BooleanType();
      } else if (type == "string") {
        t = StringType();
      } else {
        return Unsupported("the envelope's schema has column '{}' of type {}, which the table does not have: floe "
                           "evolves a table with new top-level columns of simple types only; add it to the table "
                           "yourself and relaunch",
                           col, type.empty() ? std::string("?") : type);
      }
      added->push_back({0, col, false, t, ""});
    }
    return Ok();
  }

  void Note(const std::string& line) const {
    if (output_.note) {
      output_.note(line);
    } else {
      std::fprintf(stderr, "floe: %s\n", line.c_str());
    }
  }

  static void RebalanceCallback(rd_kafka_t*, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* list,
                                void* opaque) {
    static_cast<KafkaSource*>(opaque)->OnRebalance(err, list);
  }

  // The group's rebalance protocol: asked while the group runs, the answer
  // kept (librdkafka answers NULL on an error, e.g. while the consumer
  // closes, and the protocol never changes within a run).
  bool Cooperative() {
    if (const char* p = rd_kafka_rebalance_protocol(rk_.get()); p != nullptr && std::strcmp(p, "NONE") != 0) {
      cooperative_ = std::strcmp(p, "COOPERATIVE") == 0;
    }
    return cooperative_;
  }

  std::string Keys(const rd_kafka_topic_partition_list_t* list, bool with_offsets) const {
    std::string s;
    for (int k = 0; k < list->cnt; ++k) {
      s += (k ? ", " : "") + PartKey(list->elems[k].topic, list->elems[k].partition);
      if (with_offsets) s += fmt::format("@{}", list->elems[k].offset);
    }
    return s.empty() ? std::string("none") : s;
  }

  // A group's rebalance (group_assignment), from inside a consume call.
  void OnRebalance(rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* list) {
    const bool cooperative = Cooperative();
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS && !closing_ && list != nullptr) {
      if (Status st = Assigned(list, cooperative); !st) {
        rebalance_error_ = st.error();
        // Nothing is read of them: let them go at once.
        if (cooperative) {
          if (rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk_.get(), list)) rd_kafka_error_destroy(e);
        } else {
          rd_kafka_assign(rk_.get(), nullptr);
        }
      }
      return;
    }
    if (closing_ || err != RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS || list == nullptr) {
      // Closing (the run's commit is done), or an error: let go at once.
      for (Part& p : parts_) p.owned = false;
      if (cooperative && list != nullptr) {
        if (rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk_.get(), list)) rd_kafka_error_destroy(e);
      } else {
        rd_kafka_assign(rk_.get(), nullptr);
      }
      return;
    }
    if (rd_kafka_assignment_lost(rk_.get())) {
      // The session expired (no heartbeat or poll in time): the partitions
      // may be another process's already, and what this one read of them
      // must not be committed. The run stops; a relaunch resumes from the
      // tables.
      rebalance_error_ = IoError(
                             "{}: group '{}' took this process's partitions ({}) away: its session expired "
                             "(session.timeout.ms / max.poll.interval.ms); what it read of them since its last "
                             "commit is not committed (another process has them); relaunch to rejoin",
                             name(), group_, Keys(list, false))
                             .error();
      for (Part& p : parts_) p.owned = false;
      if (cooperative) {
        if (rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk_.get(), list)) rd_kafka_error_destroy(e);
      } else {
        rd_kafka_assign(rk_.get(), nullptr);
      }
      return;
    }
    // Revoked: committed first, let go after (Read, commit_due, OnCommitted).
    revoking_.clear();
    for (int k = 0; k < list->cnt; ++k) {
      auto it = index_.find(PartKey(list->elems[k].topic, list->elems[k].partition));
      if (it != index_.end()) revoking_.push_back(it->second);
    }
    revoke_all_ = !cooperative;
    revoke_pending_ = true;
    Note(fmt::format("kafka group '{}': revoked {}; committing what was read of them first", group_,
                     Keys(list, false)));
  }

  // After the commit that followed a revocation: the partitions are let go.
  Status Release() {
    revoke_pending_ = false;
    rd_kafka_error_t* e = nullptr;
    if (revoke_all_) {
      for (Part& p : parts_) p.owned = false;
      const rd_kafka_resp_err_t err = rd_kafka_assign(rk_.get(), nullptr);
      if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return IoError("{}: unassigning partitions: {}", name(), rd_kafka_err2str(err));
    } else {
      ListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(revoking_.size())));
      for (size_t i : revoking_) {
        parts_[i].owned = false;
        rd_kafka_topic_partition_list_add(list.get(), parts_[i].topic.c_str(), parts_[i].partition);
      }
      e = rd_kafka_incremental_unassign(rk_.get(), list.get());
    }
    revoking_.clear();
    if (e != nullptr) {
      const std::string msg = rd_kafka_error_string(e);
      rd_kafka_error_destroy(e);
      return IoError("{}: unassigning partitions: {}", name(), msg);
    }
    Note(fmt::format("kafka group '{}': committed and released the revoked partitions", group_));
    return Ok();
  }

  // Partitions assigned to this process: each starts at the lowest of what
  // the open destinations hold (read again now: another process may have
  // committed it since) and the group's committed offset, else at
  // auto.offset.reset.
  Status Assigned(rd_kafka_topic_partition_list_t* list, bool cooperative) {
    std::vector<size_t> idx;
    for (int k = 0; k < list->cnt; ++k) {
      const std::string key = PartKey(list->elems[k].topic, list->elems[k].partition);
      auto it = index_.find(key);
      if (it == index_.end()) {
        Part p;
        p.topic = list->elems[k].topic;
        p.partition = list->elems[k].partition;
        p.key = key;
        p.owned = false;
        it = index_.emplace(key, parts_.size()).first;
        parts_.push_back(std::move(p));
      }
      idx.push_back(it->second);
    }
    for (auto& [t, d] : dests_) Align(d.get());
    if (output_.resume_again) FLOE_RETURN_IF_ERROR(output_.resume_again());
    std::vector<int64_t> start(idx.size(), -1);
    auto lower = [](int64_t* at, int64_t v) {
      if (v >= 0 && (*at < 0 || v < *at)) *at = v;
    };
    for (size_t n = 0; n < idx.size(); ++n) {
      for (const auto& [t, d] : dests_) {
        auto it = d->stored.find(parts_[idx[n]].key);
        if (it != d->stored.end()) lower(&start[n], it->second);
      }
    }
    {
      ListPtr q(rd_kafka_topic_partition_list_new(static_cast<int>(idx.size())));
      for (size_t i : idx) rd_kafka_topic_partition_list_add(q.get(), parts_[i].topic.c_str(), parts_[i].partition);
      rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
      const auto give_up = SourceClock::now() + o_.metadata_timeout;
      do {
        err = rd_kafka_committed(rk_.get(), q.get(), 5000);
      } while (err != RD_KAFKA_RESP_ERR_NO_ERROR && SourceClock::now() < give_up);
      if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return IoError("{}: reading the committed offsets of group '{}': {}", name(), group_, rd_kafka_err2str(err));
      }
      for (int k = 0; k < q->cnt; ++k) {
        if (q->elems[k].err == RD_KAFKA_RESP_ERR_NO_ERROR) lower(&start[static_cast<size_t>(k)], q->elems[k].offset);
      }
    }
    ListPtr a(rd_kafka_topic_partition_list_new(static_cast<int>(idx.size())));
    for (size_t n = 0; n < idx.size(); ++n) {
      Part& p = parts_[idx[n]];
      int64_t lo = 0, hi = 0;
      FLOE_RETURN_IF_ERROR(Watermarks(p, &lo, &hi));
      p.next = start[n] >= 0 ? start[n] : (reset_latest_ ? hi : lo);
      if (p.next < lo) p.next = lo;  // deleted by retention: from the first one kept
      p.owned = true;
      rd_kafka_topic_partition_list_add(a.get(), p.topic.c_str(), p.partition)->offset = p.next;
    }
    if (!cooperative) {
      for (size_t i = 0; i < parts_.size(); ++i) {
        if (std::find(idx.begin(), idx.end(), i) == idx.end()) parts_[i].owned = false;
      }
    }
    Note(fmt::format("kafka group '{}': assigned {}", group_, Keys(a.get(), true)));
    if (cooperative) {
      if (rd_kafka_error_t* e = rd_kafka_incremental_assign(rk_.get(), a.get())) {
        const std::string msg = rd_kafka_error_string(e);
        rd_kafka_error_destroy(e);
        return IoError("{}: assigning partitions: {}", name(), msg);
      }
    } else if (const rd_kafka_resp_err_t err = rd_kafka_assign(rk_.get(), a.get()); err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return IoError("{}: assigning partitions: {}", name(), rd_kafka_err2str(err));
    }
    for (auto& [t, d] : dests_) Align(d.get());
    return Ok();
  }

  Status Watermarks(const Part& p, int64_t* lo, int64_t* hi) {
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
    const auto give_up = SourceClock::now() + o_.metadata_timeout;
    do {
      err = rd_kafka_query_watermark_offsets(rk_.get(), p.topic.c_str(), p.partition, lo, hi, 5000);
    } while (err != RD_KAFKA_RESP_ERR_NO_ERROR && SourceClock::now() < give_up);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return IoError("{}: reading the offsets of {}: {}", name(), p.key, rd_kafka_err2str(err));
    }
    return Ok();
  }

  void Align(DestState* d) {
    d->by_part.resize(parts_.size(), 0);
    for (size_t i = 0; i < parts_.size(); ++i) {
      auto it = d->stored.find(parts_[i].key);
      d->by_part[i] = it == d->stored.end() ? 0 : it->second;
    }
  }

  // The Avro formats: the registry client and the values' translation.
  Status InitAvro() {
    if (!IsConfluentAvroFormat(o_.format)) {
      if (!o_.schema_registry.url.empty() || !o_.schema_registry.user_info.empty()) {
        return InvalidArgument("kafka: a Schema Registry is given, but format '{}' does not use one (the "
                               "avro-confluent formats do)",
                               o_.format);
      }
      return Ok();
    }
    if (o_.upsert) return Unsupported("kafka: upsert mode with format '{}' is not supported yet", o_.format);
    if (o_.schema_registry.url.empty()) {
      return InvalidArgument("kafka: format '{}' needs the URL of its Schema Registry", o_.format);
    }
    const auto dialect = registry_format_ == "debezium-json" ? avro::JsonDialect::kConnect : avro::JsonDialect::kRow;
    auto values = ConfluentAvroValues::Make(o_.schema_registry, dialect);
    if (!values) return Fail(values.error().WithContext("kafka"));
    avro_ = std::move(*values);
    return Ok();
  }

  // An Avro value as its JSON line; a value that cannot be decoded is kept
  // for the error output (at Flush, which numbers the lines) and its line
  // left blank.
  Status TakeAvro(const char* topic, const rd_kafka_message_t* m) {
    std::string why;
    if (Status st = avro_->Append(std::string_view(static_cast<const char*>(m->payload), m->len), &chunk_, &why);
        !st) {
      return Fail(st.error().WithContext(
          fmt::format("{}: topic '{}' partition {} offset {}", name(), topic, m->partition, m->offset)));
    }
    if (why.empty()) return Ok();
    format::RejectedRow r;
    r.position = static_cast<int64_t>(lines_.size()) + 1;  // the line this message is about to take
    r.reason = fmt::format("topic '{}' partition {} offset {}: {}", topic, m->partition, m->offset, why);
    r.text = "base64:" + Base64(std::string_view(static_cast<const char*>(m->payload),
                                                     std::min(m->len, format::RejectedRow::kMaxText * 3 / 4)));
    avro_rejects_.push_back(std::move(r));
    return Ok();
  }

  std::string FatalError() {
    char buf[512];
    if (rd_kafka_fatal_error(rk_.get(), buf, sizeof(buf)) != RD_KAFKA_RESP_ERR_NO_ERROR) return buf;
    return {};
  }

  bool Wanted(const std::string& topic) const {
    if (!o_.topic_pattern.empty()) return topic.rfind("__", 0) != 0 && std::regex_search(topic, pattern_);
    return std::binary_search(o_.topics.begin(), o_.topics.end(), topic);
  }

  // The topics' partitions from the cluster's metadata; new ones are assigned
  // (at their stored offset, the group's, or auto.offset.reset).
  Status Discover(bool first) {
    next_discovery_ = SourceClock::now() + o_.discovery_interval;
    const auto give_up = SourceClock::now() + o_.metadata_timeout;
    std::vector<std::pair<std::string, int32_t>> found;
    for (;;) {
      const rd_kafka_metadata_t* md = nullptr;
      const rd_kafka_resp_err_t err = rd_kafka_metadata(rk_.get(), 1, nullptr, &md, first ? 5000 : 2000);
      found.clear();
      std::set<std::string> seen;
      if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        for (int t = 0; t < md->topic_cnt; ++t) {
          const auto& mt = md->topics[t];
          if (mt.err != RD_KAFKA_RESP_ERR_NO_ERROR || !Wanted(mt.topic)) continue;
          seen.insert(mt.topic);
          for (int p = 0; p < mt.partition_cnt; ++p) found.emplace_back(mt.topic, mt.partitions[p].id);
        }
        rd_kafka_metadata_destroy(md);
      }
      if (!first) {
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return Ok();  // the next discovery tries again
        break;
      }
      std::vector<std::string> missing;
      for (const auto& t : o_.topics) {
        if (!seen.contains(t)) missing.push_back(t);
      }
      if (err == RD_KAFKA_RESP_ERR_NO_ERROR && missing.empty()) break;
      if (SourceClock::now() >= give_up) {
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
          return IoError("{}: cannot read the cluster's metadata from {}: {}", name(), o_.bootstrap_servers,
                         rd_kafka_err2str(err));
        }
        return InvalidArgument("{}: no topic {} in the cluster at {}", name(), fmt::join(missing, ", "),
                               o_.bootstrap_servers);
      }
      ::usleep(100 * 1000);
    }
    std::sort(found.begin(), found.end());
    if (o_.group_assignment) {
      // The group's coordinator assigns the partitions (OnRebalance); the
      // topics are subscribed by name (a pattern resolved here, with the
      // source's own regular expressions), again when the set changes.
      std::set<std::string> topics;
      for (const auto& [topic, partition] : found) topics.insert(topic);
      if (topics == subscribed_) return Ok();
      ListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(topics.size())));
      for (const auto& t : topics) rd_kafka_topic_partition_list_add(list.get(), t.c_str(), RD_KAFKA_PARTITION_UA);
      const rd_kafka_resp_err_t err = rd_kafka_subscribe(rk_.get(), list.get());
      if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return IoError("{}: subscribing to {}: {}", name(), fmt::join(topics, ", "), rd_kafka_err2str(err));
      }
      subscribed_ = std::move(topics);
      return Ok();
    }
    std::vector<size_t> added;
    for (const auto& [topic, partition] : found) {
      const std::string key = PartKey(topic, partition);
      if (index_.contains(key)) continue;
      index_[key] = parts_.size();
      Part p;
      p.topic = topic;
      p.partition = partition;
      p.key = key;
      parts_.push_back(std::move(p));
      added.push_back(parts_.size() - 1);
    }
    if (added.empty()) return Ok();
    for (auto& [t, d] : dests_) Align(d.get());
    FLOE_RETURN_IF_ERROR(ResolveStart(added));
    ListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(added.size())));
    for (size_t i : added) {
      rd_kafka_topic_partition_list_add(list.get(), parts_[i].topic.c_str(), parts_[i].partition)->offset =
          parts_[i].next;
    }
    rd_kafka_error_t* e = rd_kafka_incremental_assign(rk_.get(), list.get());
    if (e != nullptr) {
      const std::string msg = rd_kafka_error_string(e);
      rd_kafka_error_destroy(e);
      return IoError("{}: assigning partitions: {}", name(), msg);
    }
    return Ok();
  }

  // Where each new partition starts: the offset the tables stored, else the
  // group's committed one, else auto.offset.reset (resolved to a number, so
  // that positions and the bounded end are known).
  Status ResolveStart(const std::vector<size_t>& added) {
    std::vector<size_t> open;
    for (size_t i : added) {
      auto it = start_.find(parts_[i].key);
      if (it != start_.end()) {
        parts_[i].next = it->second;
      } else {
        open.push_back(i);
      }
    }
    if (!open.empty() && !group_.empty() && o_.group_offsets) {
      ListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(open.size())));
      for (size_t i : open) rd_kafka_topic_partition_list_add(list.get(), parts_[i].topic.c_str(), parts_[i].partition);
      rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
      const auto give_up = SourceClock::now() + o_.metadata_timeout;
      do {
        err = rd_kafka_committed(rk_.get(), list.get(), 5000);
      } while (err != RD_KAFKA_RESP_ERR_NO_ERROR && SourceClock::now() < give_up);
      if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return IoError("{}: reading the committed offsets of group '{}': {}", name(), group_, rd_kafka_err2str(err));
      }
      for (int k = 0; k < list->cnt; ++k) {
        const auto& e = list->elems[k];
        if (e.err == RD_KAFKA_RESP_ERR_NO_ERROR && e.offset >= 0) parts_[index_[PartKey(e.topic, e.partition)]].next = e.offset;
      }
    }
    for (size_t i : added) {
      Part& p = parts_[i];
      if (p.next >= 0 && !o_.bounded) continue;
      int64_t lo = 0, hi = 0;
      FLOE_RETURN_IF_ERROR(Watermarks(p, &lo, &hi));
      if (p.next < 0) p.next = reset_latest_ ? hi : lo;
      if (p.next < lo) p.next = lo;  // deleted by retention: from the first one kept
      p.high = hi;
    }
    return Ok();
  }

  Status Start() {
    started_ = true;
    // Positions grow across runs too (the error and dead-letter outputs skip
    // entries by position, and a template's destinations resume only once
    // reading has begun): a run numbers on from its start time in ms * 2^20,
    // past every earlier run unless one read over 2^20 messages a ms.
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    next_position_ = std::max(position_base_, now_ms << 20);
    FLOE_RETURN_IF_ERROR(Discover(true));
    Checkpoint cp{next_position_, {}};
    for (const Part& p : parts_) cp.next.push_back(p.next);
    checkpoints_.push_back(std::move(cp));
    return Ok();
  }

  bool ReachedEnd() const {
    for (const Part& p : parts_) {
      if (p.next < p.high) return false;
    }
    return true;
  }

  Status Take(rd_kafka_message_t* m) {
    if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      // End of a partition, or a transient error librdkafka retries itself.
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) return Ok();
      if (m->err == RD_KAFKA_RESP_ERR__FATAL) return IoError("{}: {}", name(), FatalError());
      if (m->err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
          m->err == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED) {
        return IoError("{}: {}", name(), rd_kafka_message_errstr(m));
      }
      return Ok();
    }
    const char* topic = rd_kafka_topic_name(m->rkt);
    // The partition of the message before is the likely one (a fetch hands
    // over a partition's messages in a row): no key built, no map searched.
    size_t part_index = last_part_;
    if (part_index >= parts_.size() || parts_[part_index].partition != m->partition ||
        std::strcmp(parts_[part_index].topic.c_str(), topic) != 0) {
      auto it = index_.find(PartKey(topic, m->partition));
      if (it == index_.end()) return Ok();
      part_index = last_part_ = it->second;
    }
    Part& p = parts_[part_index];
    if (!p.owned) return Ok();            // a group's partition that is not (or no longer) this process's
    if (m->offset < p.next) return Ok();  // read before (a seek back)
    if (o_.bounded && p.high >= 0 && m->offset >= p.high) {
      p.next = std::max(p.next, p.high);
      return Ok();
    }
    p.next = m->offset + 1;
    // One line per message: a raw line end can only be white space in JSON.
    auto append = [&](const void* data, size_t len) {
      const size_t at = chunk_.size();
      chunk_.append(static_cast<const char*>(data), len);
      for (const char eol : {'\n', '\r'}) {  // (rare: memchr finds none at vector speed)
        char* q = chunk_.data() + at;
        char* const end = chunk_.data() + chunk_.size();
        while ((q = static_cast<char*>(std::memchr(q, eol, static_cast<size_t>(end - q)))) != nullptr) *q++ = ' ';
      }
    };
    if (o_.upsert) {
      // upsert-kafka: a value is its key's row, a tombstone deletes the row
      // of its key; as a change event for the Debezium decoder.
      if (m->payload != nullptr && m->len > 0) {
        chunk_ += R"({"op":"u","before":null,"after":)";
        append(m->payload, m->len);
      } else {
        chunk_ += R"({"op":"d","before":)";
        if (m->key != nullptr && m->key_len > 0) {
          append(m->key, m->key_len);
        } else {
          chunk_ += "null";  // a tombstone without a key: rejected (no row to delete)
        }
      }
      chunk_ += fmt::format(R"(,"{}":{}}})", kUpsertOffsetKey, m->offset);
    } else if (m->payload != nullptr && m->len > 0 && o_.evolve_schema) {
      // Columns the table does not have yet: the message waits (Read) while
      // the table evolves.
      const size_t at = chunk_.size();
      const size_t rejects = avro_rejects_.size();
      if (avro_) {
        FLOE_RETURN_IF_ERROR(TakeAvro(topic, m));
      } else {
        append(m->payload, m->len);
      }
      auto added = NewColumns(std::string_view(chunk_).substr(at));
      if (!added) {
        chunk_.resize(at);
        return Fail(added.error().WithContext(
            fmt::format("{}: topic '{}' partition {} offset {}", name(), topic, m->partition, m->offset)));
      }
      if (!added->empty()) {
        chunk_.resize(at);
        avro_rejects_.resize(rejects);
        p.next = m->offset;  // not taken
        added_ = std::move(*added);
        std::string names;
        for (const NestedField& f : added_) names += (names.empty() ? "" : ", ") + f.name + " " + f.type->ToString();
        Note(fmt::format("{}: topic '{}' partition {} offset {} brings new columns: {}", name(), topic, m->partition,
                         m->offset, names));
        return Ok();
      }
    } else if (m->payload != nullptr && m->len > 0) {
      if (avro_) {
        FLOE_RETURN_IF_ERROR(TakeAvro(topic, m));
      } else {
        append(m->payload, m->len);
      }
    }
    chunk_.push_back('\n');
    lines_.push_back({static_cast<int32_t>(part_index), m->offset});
    return Ok();
  }

  // Decodes the messages taken and hands the rows over; then the checkpoint
  // of every partition's next offset at the last of them.
  Status Flush() {
    if (lines_.empty()) return Ok();
    chunk_base_ = next_position_;
    for (format::RejectedRow& r : avro_rejects_) FLOE_RETURN_IF_ERROR(decode_.reject(std::move(r)));
    avro_rejects_.clear();
    auto decoder = format::OpenDecoderFromString(registry_format_, schema_, std::move(chunk_), decode_);
    chunk_.clear();
    if (!decoder) return Fail(decoder.error().WithContext(name()));
    Batch batch;
    for (;;) {
      auto more = (*decoder)->Next(&batch);
      if (!more) return Fail(more.error().WithContext(name()));
      if (!*more) break;
      for (int64_t& p : batch.positions) p += chunk_base_;
      FLOE_RETURN_IF_ERROR(output_.emit(std::move(batch)));
      batch = Batch();
    }
    next_position_ += static_cast<int64_t>(lines_.size());
    lines_.clear();
    chunk_base_ = next_position_;
    Checkpoint cp{next_position_, {}};
    cp.next.reserve(parts_.size());
    for (const Part& p : parts_) cp.next.push_back(p.next);
    checkpoints_.push_back(std::move(cp));
    return Ok();
  }

  KafkaSourceOptions o_;
  std::string registry_format_;
  std::regex pattern_;
  std::string group_;  ///< the user's group.id (empty: none, offsets not committed)
  bool reset_latest_ = false;
  std::unique_ptr<rd_kafka_t, KafkaDeleter> rk_;
  std::unique_ptr<rd_kafka_queue_t, QueueDeleter> queue_;
  std::unique_ptr<ConfluentAvroValues> avro_;     ///< the Avro formats' values (null for the JSON ones)
  std::vector<format::RejectedRow> avro_rejects_;  ///< Avro values taken that could not be decoded (line-numbered)

  SchemaPtr schema_;
  sink::SourceOutput output_;
  format::DecodeOptions decode_;

  bool started_ = false;
  SourceClock::time_point next_discovery_{};
  std::vector<Part> parts_;
  std::map<std::string, size_t> index_;
  size_t last_part_ = SIZE_MAX;  ///< the part of the last message taken (Take)
  std::map<std::string, int64_t> start_;  ///< the lowest offset any destination stored, per partition
  std::map<std::string, std::unique_ptr<DestState>> dests_;
  int64_t position_base_ = 0;  ///< the highest position a destination stored (this run numbers on from it)
  int64_t next_position_ = 0;  ///< positions handed over
  int64_t chunk_base_ = 0;     ///< positions before the chunk being decoded
  std::string chunk_;
  std::vector<Line> lines_;
  std::deque<Checkpoint> checkpoints_;

  // evolve_schema
  std::unordered_set<std::string> known_columns_;  ///< the columns of the schema opened with
  std::string checked_schema_;        ///< the last envelope schema whose fields were all known
  simdjson::ondemand::parser parser_;
  std::vector<NestedField> added_;    ///< columns of the message that waits (kSchemaChange)
  std::deque<rd_kafka_message_t*> held_;  ///< that message and the ones after it

  // group_assignment
  bool closing_ = false;
  std::set<std::string> subscribed_;
  bool revoke_pending_ = false;  ///< partitions revoked: commit, then release
  bool revoke_all_ = false;      ///< eager protocol: the whole assignment goes
  bool cooperative_ = false;     ///< the group's protocol, as last known (Cooperative)
  std::vector<size_t> revoking_;
  std::optional<Error> rebalance_error_;
};

}  // namespace

Result<std::string> KafkaFormat(std::string_view format) {
  std::string f(format);
  std::transform(f.begin(), f.end(), f.begin(), [](unsigned char c) { return std::tolower(c); });
  if (f == "json" || f == "jsonl" || f == "avro-confluent") return std::string("jsonl");
  if (f == "debezium-json" || f == "debezium" || f == "debezium-avro-confluent") return std::string("debezium-json");
  if (f == "avro" || f == "canal-json" || f == "raw" || f == "proto") {
    return Unsupported(
        "kafka: format '{}' is not implemented yet (json, debezium-json, avro-confluent and debezium-avro-confluent "
        "are)",
        format);
  }
  return InvalidArgument(
      "kafka: unknown format '{}': valid formats are json, debezium-json, avro-confluent, debezium-avro-confluent",
      format);
}

bool IsConfluentAvroFormat(std::string_view format) {
  std::string f(format);
  std::transform(f.begin(), f.end(), f.begin(), [](unsigned char c) { return std::tolower(c); });
  return f == "avro-confluent" || f == "debezium-avro-confluent";
}

Result<std::unique_ptr<sink::Source>> OpenKafkaSource(KafkaSourceOptions options) {
  auto s = std::make_unique<KafkaSource>(std::move(options));
  FLOE_RETURN_IF_ERROR(s->Init());
  return std::unique_ptr<sink::Source>(std::move(s));
}

namespace {

/// A source block key as written in the block: the registry name without `source.`.
std::string BlockKey(std::string_view registry_name) {
  return std::string(registry_name.substr(config::keys::kSourcePrefix.size()));
}

}  // namespace

Result<KafkaSourceOptions> ParseKafkaSourceBlock(const std::string& yaml_block, std::string_view origin) {
  namespace k = config::keys;
  constexpr uint32_t kSource = uint32_t(config::Scope::kSource);
  KafkaSourceOptions o;
  YAML::Node n;
  try {
    n = YAML::Load(yaml_block);
  } catch (const YAML::Exception& e) {
    return InvalidArgument("{}: source: invalid YAML: {}", origin, e.what());
  }
  if (!n.IsMap()) return InvalidArgument("{}: source: expected a map (type: kafka, topic: ..., bootstrap_servers: ...)", origin);
  try {
    // Every key through the option registry (`source.<key>`): unknown keys
    // are refused by name, scalar values checked against their declaration,
    // values floe does not implement refused, conflicting keys refused together.
    std::set<std::string> given;
    for (const auto& kv : n) given.insert(kv.first.as<std::string>());
    for (const auto& kv : n) {
      const std::string key = kv.first.as<std::string>();
      const std::string full = std::string(k::kSourcePrefix) + key;
      const config::OptionDef* def = config::FindOption(full, kSource);
      if (def == nullptr) {
        std::vector<std::string> valid;
        for (const auto& d : config::AllOptions()) {
          if (d.scopes & kSource) valid.push_back(BlockKey(d.key));
        }
        return InvalidArgument("{}: source: unknown key '{}': valid keys are {}", origin, key, fmt::join(valid, ", "));
      }
      if (kv.second.IsScalar()) {
        const std::string value = kv.second.Scalar();
        if (Status st = config::CheckValue(*def, full, value); !st) return Fail(st.error().WithContext(origin));
        if (Status st = config::CheckSupport(*def, full, value, config::Use::kJob); !st) {
          return Fail(st.error().WithContext(origin));
        }
      }
      for (std::string_view other : def->conflicts) {
        if (given.contains(BlockKey(other))) {
          return InvalidArgument("{}: source: give either {} or {}, not both", origin, key, BlockKey(other));
        }
      }
    }
    auto get = [&](std::string_view registry_name) { return n[BlockKey(registry_name)]; };
    const std::string type = get(k::kSourceType.name) ? get(k::kSourceType.name).as<std::string>() : std::string();
    if (type != "kafka" && type != "ReadFromKafka") {
      return InvalidArgument("{}: source: type '{}': the source types are kafka (or ReadFromKafka) and postgres",
                             origin, type);
    }
    if (auto t = get(k::kSourceTopic.name)) {
      if (t.IsSequence()) {
        for (const auto& e : t) o.topics.push_back(e.as<std::string>());
      } else {
        o.topics.push_back(t.as<std::string>());
      }
    }
    if (auto t = get(k::kSourceTopicPattern.name)) o.topic_pattern = t.as<std::string>();
    if (auto t = get(k::kSourceBootstrapServers.name)) o.bootstrap_servers = t.as<std::string>();
    if (auto t = get(k::kSourceFormat.name)) o.format = t.as<std::string>();
    if (auto t = get(k::kSourceConsumerConfig.name)) {
      if (!t.IsMap()) return InvalidArgument("{}: source: consumer_config: expected a map of librdkafka properties", origin);
      for (const auto& kv : t) o.consumer_config[kv.first.as<std::string>()] = kv.second.as<std::string>();
    }
    if (auto t = get(k::kSourceAutoOffsetResetConfig.name)) {
      std::string v = t.as<std::string>();
      std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
      o.consumer_config["auto.offset.reset"] = v;
    }
    if (auto t = get(k::kSourceBoundedMode.name)) {
      std::string v = t.as<std::string>();
      std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
      o.bounded = v == "latest-offset";
    }
    if (auto t = get(k::kSourcePartitionAssignment.name)) {
      std::string v = t.as<std::string>();
      std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
      o.group_assignment = v == "group";
    }
    if (auto t = get(k::kSourceEvolveSchema.name)) o.evolve_schema = t.as<bool>();
    if (auto t = get(k::kSourcePartitionDiscoveryIntervalMs.name)) {
      o.discovery_interval = std::chrono::milliseconds(t.as<int64_t>());
    }
    if (auto t = get(k::kSourceSchemaRegistryUrl.name)) o.schema_registry.url = t.as<std::string>();
    if (auto t = get(k::kSourceSchemaRegistryCredentialsSource.name)) {
      o.schema_registry.credentials_source = t.as<std::string>();
    }
    if (auto t = get(k::kSourceSchemaRegistryUserInfo.name)) o.schema_registry.user_info = t.as<std::string>();
  } catch (const YAML::Exception& e) {
    return InvalidArgument("{}: source: {}", origin, e.what());
  }
  FLOE_RETURN_IF_ERROR(KafkaFormat(o.format));
  const std::string url_key = BlockKey(k::kSourceSchemaRegistryUrl.name);
  if (IsConfluentAvroFormat(o.format)) {
    if (o.schema_registry.url.empty()) {
      return InvalidArgument("{}: source: format {} needs {} (the Schema Registry that holds the writer schemas)",
                             origin, o.format, url_key);
    }
    if (Status st = ValidateSchemaRegistryOptions(o.schema_registry); !st) {
      return Fail(st.error().WithContext(fmt::format("{}: source", origin)));
    }
  } else if (!o.schema_registry.url.empty() || !o.schema_registry.user_info.empty() ||
             !o.schema_registry.credentials_source.empty()) {
    return InvalidArgument("{}: source: {} and its credentials apply to the formats avro-confluent and "
                           "debezium-avro-confluent, not {}",
                           origin, url_key, o.format);
  }
  if (o.topics.empty() && o.topic_pattern.empty()) return InvalidArgument("{}: source: no topic given (topic or topic_pattern)", origin);
  if (o.bootstrap_servers.empty()) return InvalidArgument("{}: source: no bootstrap_servers given", origin);
  return o;
}

}  // namespace floe::kafka
