/// \file
/// Decoders over text already in memory, for inputs read a chunk of whole
/// lines at a time (standard input as it arrives, in the change sink):
/// line-oriented formats only (`jsonl`; `debezium-json`). Positions restart
/// at line 1 in every chunk; the caller offsets them.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "floe/format/decode_options.h"
#include "floe/format/format_registry.h"
#include "floe/util/status.h"

namespace floe::format {

/// Whether `format` (a name or alias) can decode a chunk of whole lines.
bool SupportsStringInput(std::string_view format);

/// A decoder of `format` over `data`.
Result<std::unique_ptr<RowDecoder>> OpenDecoderFromString(std::string_view format, SchemaPtr schema,
                                                          std::string data, const DecodeOptions& options);

}  // namespace floe::format
