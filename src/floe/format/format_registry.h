/// \file
/// The registry of row decoders: an input format name (`jsonl`, alias `json`;
/// `csv`; `debezium-json`, alias `debezium`) maps to a factory that opens a decoder of a schema over an input
/// path (a local file, or `-` for standard input). Front ends (`floe write`,
/// `floe parquet write`, the coming SQL front end) look formats up here instead
/// of branching on names, and plugins register their own (STYLE habit 6).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/format/decode_options.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::format {

/// What a decoder has read so far, for a job's summary.
struct DecodeCounts {
  int64_t rows = 0;        ///< rows put into batches
  int64_t rejected = 0;    ///< lines / records passed to DecodeOptions::reject
  int64_t tombstones = 0;  ///< Debezium: tombstones skipped
};

/// A decoder of rows into batches of its schema.
class RowDecoder {
 public:
  virtual ~RowDecoder() = default;
  /// Clears `batch` and fills it with up to `batch_rows` rows; false (with an
  /// empty batch) when the input is exhausted. After an error the decoder
  /// stays failed.
  [[nodiscard]] virtual Result<bool> Next(Batch* batch) = 0;
  /// The counts so far.
  virtual DecodeCounts counts() const { return {}; }
};

/// Opens a decoder of `schema` over `path` ("-": standard input).
using DecoderFactory = std::function<Result<std::unique_ptr<RowDecoder>>(
    SchemaPtr schema, const std::string& path, const DecodeOptions& options)>;

/// Registers a format under `name` and its `aliases`. A later registration of
/// a name replaces the earlier one (keeping its place in FormatNames()).
void RegisterDecoder(const std::string& name, DecoderFactory factory,
                     const std::vector<std::string>& aliases = {});

/// The registered format names (aliases left out): the built-in ones first
/// (jsonl, csv, debezium-json), then the others in the order they were registered.
std::vector<std::string> FormatNames();

/// "jsonl, csv": FormatNames() joined, for messages.
std::string FormatNamesText();

/// Whether `name` is a registered format or alias.
bool HasDecoder(std::string_view name);

/// The format of an input when none is named: `csv` for a `.csv` / `.CSV`
/// file, else `jsonl` (standard input too).
std::string DefaultFormatFor(std::string_view path);

/// Opens a decoder of format `name`. An unknown name is kInvalidArgument
/// listing the valid ones ("unknown input format 'xml': valid formats are
/// jsonl, csv"); errors of the decoder's open are returned as they are.
Result<std::unique_ptr<RowDecoder>> OpenDecoder(std::string_view name, SchemaPtr schema,
                                                const std::string& path,
                                                const DecodeOptions& options = {});

}  // namespace floe::format
