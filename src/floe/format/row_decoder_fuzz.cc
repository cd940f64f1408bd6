// libFuzzer target for the row decoders: arbitrary bytes decoded as JSONL and
// as CSV against a schema with every primitive type and nested types. Any
// input must give rows or a clean error, never a crash, a hang or a batch
// that breaks the column layout invariants.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "floe/format/csv_reader.h"
#include "floe/format/jsonl_reader.h"
#include "floe/types/json_value.h"
#include "floe/types/sql_schema.h"

namespace {

floe::SchemaPtr FuzzSchema(bool nested) {
  const char* sql = nested
      ? "id BIGINT NOT NULL, b BOOLEAN, i INT, f FLOAT, d DOUBLE, dec DECIMAL(9,2), "
        "big DECIMAL(38,10), dt DATE, t TIME, ts TIMESTAMP, tz TIMESTAMPTZ, tn TIMESTAMP_NS, "
        "s STRING, u UUID, fx FIXED(2), bin BINARY, tags ARRAY<STRING NOT NULL>, "
        "loc STRUCT<lat DOUBLE, inner STRUCT<x INT NOT NULL>>, m MAP<STRING, ARRAY<INT>>, "
        "mi MAP<INT, STRING>"
      : "id BIGINT, b BOOLEAN, i INT, f FLOAT, d DOUBLE, dec DECIMAL(9,2), dt DATE, t TIME, "
        "ts TIMESTAMP, tz TIMESTAMPTZ, s STRING NOT NULL, u UUID, fx FIXED(2), bin BINARY";
  auto parsed = floe::ParseSqlColumns(sql);
  if (!parsed) std::abort();
  return std::make_shared<floe::Schema>(std::move(*parsed));
}

template <typename Reader>
void Drain(floe::SchemaPtr schema, std::string data, floe::format::DecodeOptions opt) {
  auto reader = Reader::FromString(std::move(schema), std::move(data), opt);
  if (!reader) return;
  floe::Batch batch;
  std::string out;
  for (int guard = 0; guard < 100000; ++guard) {
    auto more = (*reader)->Next(&batch);
    if (!more || !*more) return;
    if (!batch.Validate()) std::abort();  // a decoded batch must be well formed
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      out.clear();
      floe::AppendJsonRow(batch, r, &out);
    }
  }
  std::abort();  // no progress: a hang
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const floe::SchemaPtr nested = FuzzSchema(true);
  static const floe::SchemaPtr flat = FuzzSchema(false);
  std::string input(reinterpret_cast<const char*>(data), size);
  floe::format::DecodeOptions opt;
  opt.batch_rows = 7;
  opt.chunk_bytes = 64;
  opt.ignore_unknown_keys = size % 2 == 0;
  Drain<floe::format::JsonlReader>(nested, input, opt);
  opt.csv_header = size % 3 != 0;
  Drain<floe::format::CsvReader>(flat, input, opt);
  return 0;
}
