// Confluent-framed Avro values as JSON lines (confluent_values.h).
#include "floe/kafka/confluent_values.h"

#include <fmt/format.h>

namespace floe::kafka {

Result<std::unique_ptr<ConfluentAvroValues>> ConfluentAvroValues::Make(const SchemaRegistryOptions& registry,
                                                                       avro::JsonDialect dialect) {
  std::unique_ptr<ConfluentAvroValues> v(new ConfluentAvroValues());
  FLOE_ASSIGN_OR_RETURN(v->registry_, SchemaRegistryClient::Make(registry));
  v->dialect_ = dialect;
  return v;
}

Status ConfluentAvroValues::Append(std::string_view value, std::string* out, std::string* rejected) {
  rejected->clear();
  auto frame = avro::ParseConfluentFrame(value);
  if (!frame) {
    *rejected = frame.error().message;
    return Ok();
  }
  auto it = writers_.find(frame->schema_id);
  if (it == writers_.end()) {
    Writer w;
    auto schema = registry_->Get(frame->schema_id);
    if (!schema) {
      if (schema.error().kind == ErrorKind::kIo) return Fail(schema.error());
      w.error = schema.error().message;
    } else {
      auto datum = avro::DatumToJson::Make((*schema)->text, dialect_);
      if (datum) {
        w.datum = std::move(*datum);
      } else {
        w.error = fmt::format("the writer's schema (id {} in the registry {}) cannot be read: {}", frame->schema_id,
                              registry_->shown_url(), datum.error().message);
      }
    }
    it = writers_.emplace(frame->schema_id, std::move(w)).first;
  }
  const Writer& w = it->second;
  if (!w.datum) {
    *rejected = w.error;
    return Ok();
  }
  const size_t mark = out->size();
  if (dialect_ == avro::JsonDialect::kConnect) {
    *out += R"({"schema":)";
    *out += w.datum->connect_schema();
    *out += R"(,"payload":)";
  }
  if (Status st = w.datum->Append(frame->body, out); !st) {
    out->resize(mark);
    *rejected = fmt::format("schema id {}: {}", frame->schema_id, st.error().message);
    return Ok();
  }
  if (dialect_ == avro::JsonDialect::kConnect) out->push_back('}');
  return Ok();
}

}  // namespace floe::kafka
