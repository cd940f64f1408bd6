// The decoder registry: a name -> factory table behind a mutex, with the
// built-in JSONL, CSV and Debezium JSON decoders registered on first use.
#include "floe/format/format_registry.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "floe/format/csv_reader.h"
#include "floe/format/debezium_reader.h"
#include "floe/format/jsonl_reader.h"

namespace floe::format {
namespace {

// Adapts a reader with Open(schema, path, options) and Next(Batch*).
template <typename Reader>
class ReaderDecoder final : public RowDecoder {
 public:
  explicit ReaderDecoder(std::unique_ptr<Reader> reader) : reader_(std::move(reader)) {}
  Result<bool> Next(Batch* batch) override { return reader_->Next(batch); }
  DecodeCounts counts() const override {
    DecodeCounts c;
    c.rows = reader_->rows_read();
    c.rejected = reader_->rows_rejected();
    if constexpr (requires { reader_->tombstones(); }) c.tombstones = reader_->tombstones();
    return c;
  }

 private:
  std::unique_ptr<Reader> reader_;
};

template <typename Reader>
DecoderFactory ReaderFactory() {
  return [](SchemaPtr schema, const std::string& path,
            const DecodeOptions& options) -> Result<std::unique_ptr<RowDecoder>> {
    FLOE_ASSIGN_OR_RETURN(auto reader, Reader::Open(std::move(schema), path, options));
    return std::unique_ptr<RowDecoder>(std::make_unique<ReaderDecoder<Reader>>(std::move(reader)));
  };
}

struct Registry {
  std::mutex mu;
  std::vector<std::string> names;                   // registration order, no aliases
  std::map<std::string, std::string> canonical;     // name or alias -> name
  std::map<std::string, DecoderFactory> factories;  // name -> factory

  void Add(const std::string& name, DecoderFactory factory,
           const std::vector<std::string>& aliases) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    factories[name] = std::move(factory);
    canonical[name] = name;
    for (const auto& a : aliases) canonical[a] = name;
  }
};

Registry& Global() {
  static Registry* r = [] {
    auto* reg = new Registry();
    reg->Add("jsonl", ReaderFactory<JsonlReader>(), {"json"});
    reg->Add("csv", ReaderFactory<CsvReader>(), {});
    reg->Add("debezium-json", ReaderFactory<DebeziumReader>(), {"debezium"});
    return reg;
  }();
  return *r;
}

}  // namespace

void RegisterDecoder(const std::string& name, DecoderFactory factory,
                     const std::vector<std::string>& aliases) {
  Registry& r = Global();
  std::lock_guard lock(r.mu);
  r.Add(name, std::move(factory), aliases);
}

std::vector<std::string> FormatNames() {
  Registry& r = Global();
  std::lock_guard lock(r.mu);
  return r.names;
}

std::string FormatNamesText() {
  std::string out;
  for (const auto& n : FormatNames()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool HasDecoder(std::string_view name) {
  Registry& r = Global();
  std::lock_guard lock(r.mu);
  return r.canonical.contains(std::string(name));
}

std::string DefaultFormatFor(std::string_view path) {
  return path.ends_with(".csv") || path.ends_with(".CSV") ? "csv" : "jsonl";
}

Result<std::unique_ptr<RowDecoder>> OpenDecoder(std::string_view name, SchemaPtr schema,
                                                const std::string& path,
                                                const DecodeOptions& options) {
  DecoderFactory factory;
  {
    Registry& r = Global();
    std::lock_guard lock(r.mu);
    auto it = r.canonical.find(std::string(name));
    if (it != r.canonical.end()) factory = r.factories.at(it->second);
  }
  if (!factory) {
    return InvalidArgument("unknown input format '{}': valid formats are {}", name,
                           FormatNamesText());
  }
  return factory(std::move(schema), path, options);
}

}  // namespace floe::format
