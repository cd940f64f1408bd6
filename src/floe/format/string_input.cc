// Decoders over in-memory chunks of whole lines.
#include "floe/format/string_input.h"

#include "floe/format/debezium_reader.h"
#include "floe/format/jsonl_reader.h"

namespace floe::format {

namespace {

template <typename Reader>
class StringDecoder final : public RowDecoder {
 public:
  explicit StringDecoder(std::unique_ptr<Reader> reader) : reader_(std::move(reader)) {}
  Result<bool> Next(Batch* batch) override { return reader_->Next(batch); }

 private:
  std::unique_ptr<Reader> reader_;
};

}  // namespace

bool SupportsStringInput(std::string_view format) {
  return format == "jsonl" || format == "json" || format == "debezium-json" || format == "debezium";
}

Result<std::unique_ptr<RowDecoder>> OpenDecoderFromString(std::string_view format, SchemaPtr schema,
                                                          std::string data, const DecodeOptions& options) {
  if (format == "jsonl" || format == "json") {
    FLOE_ASSIGN_OR_RETURN(auto r, JsonlReader::FromString(std::move(schema), std::move(data), options));
    return std::unique_ptr<RowDecoder>(new StringDecoder<JsonlReader>(std::move(r)));
  }
  if (format == "debezium-json" || format == "debezium") {
    FLOE_ASSIGN_OR_RETURN(auto r, DebeziumReader::FromString(std::move(schema), std::move(data), options));
    return std::unique_ptr<RowDecoder>(new StringDecoder<DebeziumReader>(std::move(r)));
  }
  return Unsupported("input format '{}' cannot be read a chunk at a time", format);
}

}  // namespace floe::format
