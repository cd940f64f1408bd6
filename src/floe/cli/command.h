/// \file
/// The `floe` command's structure: each command group (`floe parquet ...`,
/// later `floe write`, `floe scan`, `floe tables`, ...) registers its CLI11
/// subcommands on the root app and chooses the action to run once parsing
/// succeeded. Actions return a Status; main prints `floe: <message>` and
/// exits 1 on error, 2 on a usage error, 0 on success.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <string_view>

#include "floe/util/status.h"

namespace floe::cli {

/// What a parsed command line runs.
using Action = std::function<Status()>;

/// Where a subcommand's callback puts the action main will run.
struct CommandContext {
  Action action;
};

/// A usage error found after parsing (bad option value): exit code 2.
inline std::unexpected<Error> UsageError(std::string message) {
  return Fail(Error{ErrorKind::kInvalidArgument, "usage: " + std::move(message), false});
}

/// Registers `floe parquet write|cat|meta|schema`.
void AddParquetCommands(CLI::App* root, CommandContext* ctx);

/// Buffered standard output for row printing (no iostreams).
class StdoutWriter {
 public:
  explicit StdoutWriter(size_t flush_at = size_t{1} << 20) : flush_at_(flush_at) {}
  ~StdoutWriter() { (void)Flush(); }
  std::string* buffer() { return &buf_; }
  /// Flushes when the buffer passed the threshold.
  Status MaybeFlush() { return buf_.size() >= flush_at_ ? Flush() : Ok(); }
  Status Flush();

 private:
  std::string buf_;
  size_t flush_at_;
};

}  // namespace floe::cli
