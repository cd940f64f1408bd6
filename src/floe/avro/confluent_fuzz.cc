// libFuzzer target: the avro-confluent formats' decode path (confluent.h).
// Byte 0 picks the writer schema and the JSON form (the Kafka source's row
// and Debezium forms); the rest is a message value, split by Confluent's
// wire format and its datum written as JSON. Byte 0 = 255: the rest is a
// writer schema's text, a NUL, then a datum, so schemas reach the Connect
// schema translation too. Any input must end in JSON text or an error,
// never a crash, a hang or unbounded memory; what is written must be valid
// JSON (nlohmann parses it) and an error must leave the output untouched.
// Seeds: tests/fuzz_seeds/confluent_fuzz/.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "floe/avro/confluent.h"

namespace {

using floe::avro::DatumToJson;
using floe::avro::JsonDialect;

constexpr const char* kSchemas[] = {
    // Every primitive and logical type, nulls and unions.
    R"({"type":"record","name":"L","fields":[
      {"name":"b","type":"boolean"},{"name":"f","type":"float"},{"name":"d","type":"double"},
      {"name":"s","type":["null","string"]},{"name":"y","type":"bytes"},
      {"name":"x","type":{"type":"fixed","name":"F3","size":3}},
      {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
      {"name":"date","type":{"type":"int","logicalType":"date"}},
      {"name":"tms","type":{"type":"int","logicalType":"time-millis"}},
      {"name":"tus","type":{"type":"long","logicalType":"time-micros"}},
      {"name":"tsms","type":{"type":"long","logicalType":"timestamp-millis"}},
      {"name":"tsus","type":{"type":"long","logicalType":"timestamp-micros"}},
      {"name":"tsns","type":{"type":"long","logicalType":"timestamp-nanos"}},
      {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":38,"scale":9}},
      {"name":"fdec","type":{"type":"fixed","name":"D5","size":5,"logicalType":"decimal","precision":12,"scale":4}},
      {"name":"uuid","type":{"type":"fixed","name":"U16","size":16,"logicalType":"uuid"}}]})",
    // Blocks and nesting.
    R"({"type":"record","name":"U","fields":[
      {"name":"multi","type":["null","string","double","long"]},
      {"name":"arr","type":{"type":"array","items":["null","int"]}},
      {"name":"nested","type":{"type":"array","items":{"type":"map","values":{"type":"array","items":"null"}}}},
      {"name":"map","type":{"type":"map","values":"string"}},
      {"name":"rec","type":["null",{"type":"record","name":"In","fields":[{"name":"a","type":"int"},
        {"name":"empty","type":{"type":"record","name":"Empty","fields":[]}}]}]}]})",
    // A Debezium envelope as AvroConverter writes it.
    R"({"type":"record","name":"Envelope","namespace":"s.t","fields":[
      {"name":"before","type":["null",{"type":"record","name":"Value","fields":[
        {"name":"id","type":"int"},
        {"name":"small","type":["null",{"type":"int","connect.type":"int16"}],"default":null},
        {"name":"day","type":["null",{"type":"int","connect.version":1,"connect.name":"io.debezium.time.Date"}],"default":null},
        {"name":"price","type":["null",{"type":"bytes","scale":2,"precision":8,"connect.version":1,
          "connect.parameters":{"scale":"2","connect.decimal.precision":"8"},
          "connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}],"default":null},
        {"name":"vsd","type":["null",{"type":"record","name":"VariableScaleDecimal","namespace":"io.debezium.data",
          "fields":[{"name":"scale","type":"int"},{"name":"value","type":"bytes"}],
          "connect.name":"io.debezium.data.VariableScaleDecimal"}],"default":null}],
        "connect.name":"s.t.Value"}],"default":null},
      {"name":"after","type":["null","Value"],"default":null},
      {"name":"op","type":"string"},
      {"name":"ts_ms","type":["null","long"],"default":null}],"connect.name":"s.t.Envelope"})",
};

const std::shared_ptr<const DatumToJson>& Writer(size_t schema, JsonDialect dialect) {
  static std::shared_ptr<const DatumToJson> cache[std::size(kSchemas)][2];
  auto& slot = cache[schema][dialect == JsonDialect::kConnect ? 1 : 0];
  if (!slot) {
    auto made = DatumToJson::Make(kSchemas[schema], dialect);
    // Each schema is valid; the union of several types has no Connect form.
    if (!made && (dialect == JsonDialect::kRow || schema != 1)) std::abort();
    if (made) slot = *made;
  }
  return slot;
}

void Check(const DatumToJson& w, std::string_view body) {
  std::string out = "[";
  auto st = w.Append(body, &out);
  if (!st) {
    if (out != "[") std::abort();  // an error leaves the output as it was
    return;
  }
  out.erase(0, 1);
  if (nlohmann::json::parse(out, nullptr, false).is_discarded()) std::abort();
  if (w.dialect() == JsonDialect::kConnect &&
      nlohmann::json::parse(w.connect_schema(), nullptr, false).is_discarded()) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t mode = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if (mode == 255) {
    const size_t nul = rest.find('\0');
    if (nul == std::string_view::npos) return 0;
    for (JsonDialect d : {JsonDialect::kRow, JsonDialect::kConnect}) {
      auto w = DatumToJson::Make(rest.substr(0, nul), d);
      if (w) Check(**w, rest.substr(nul + 1));
    }
    return 0;
  }
  const size_t schema = (mode >> 1) % std::size(kSchemas);
  const JsonDialect dialect = (mode & 1) ? JsonDialect::kConnect : JsonDialect::kRow;
  auto frame = floe::avro::ParseConfluentFrame(rest);
  if (!frame) return 0;
  if (const auto& w = Writer(schema, dialect)) Check(*w, frame->body);
  return 0;
}
