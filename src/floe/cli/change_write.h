/// \file
/// `floe write` through the change sink: reading the input (a file, or
/// standard input as it arrives) into a ChangeSink, committing at the end,
/// every triggering_frequency_seconds and on SIGINT / SIGTERM, and printing
/// the sink's accounting as one JSON line per commit (streaming) or at the end.
#pragma once

#include <cstdint>
#include <string>

#include "floe/sink/change_sink.h"
#include "floe/util/status.h"

namespace floe::cli {

struct ChangeWriteInput {
  std::string path = "-";
  std::string input_name;
  std::string format;
  std::string sequence_path;  ///< Debezium
  int64_t batch_rows = 65536;
  bool ignore_unknown = false;
  bool progress = false;
  size_t max_line_bytes = size_t{1} << 30;
};

Status RunChangeWrite(sink::ChangeSink* sink, const ChangeWriteInput& in);

}  // namespace floe::cli
