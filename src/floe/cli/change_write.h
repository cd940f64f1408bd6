/// \file
/// `floe write` through the streaming job (sink/streaming_job.h): the input
/// (a file, or standard input as it arrives) as a text source, the change
/// sink behind it, SIGINT / SIGTERM as the job's cancellation, live progress
/// on stderr, and the sink's accounting printed as one JSON line per commit
/// (streaming) or at the end.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "floe/catalog/catalog.h"
#include "floe/format/decode_options.h"
#include "floe/sink/change_sink.h"
#include "floe/sink/source.h"
#include "floe/sink/write_config.h"
#include "floe/util/status.h"

namespace floe::cli {

struct ChangeWriteInput {
  std::string path = "-";
  std::string format;
  std::string sequence_path;  ///< Debezium
  int64_t batch_rows = 65536;
  size_t max_line_bytes = format::kDefaultMaxLineBytes;  ///< --max-line-bytes
  bool ignore_unknown = false;
  bool progress = false;
  /// Another source than the text input (`path`, `format`): `source:` in
  /// --config (Kafka).
  std::function<Result<std::unique_ptr<sink::Source>>()> open_source;
};

/// Opens the job and runs it. Errors that are the user's to fix (a bad
/// option, another input under the same sink_id) are usage errors (exit 2).
Status RunChangeWrite(const sink::WriteConfig& config, catalog::Catalog* catalog, SchemaPtr input_schema,
                      sink::ChangeSinkOptions sink_options, const ChangeWriteInput& in);

}  // namespace floe::cli
