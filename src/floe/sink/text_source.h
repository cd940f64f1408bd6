/// \file
/// Sources over text input (source.h): a file, or standard input.
///
/// Positions are line numbers (1-based; a CSV record's is the line it starts
/// on). Source positions:
///   - a file: `{"source":"file","path":<absolute path>,"line":N,"bytes":B,
///     "xxh3":<hex>}`: the file's first N lines are its first B bytes, whose
///     XXH3-64 digest is given.
///   - standard input in a line format: `{"source":"stdin","line":N,
///     "bytes":B,"xxh3":<hex>}`, the same digest of the lines read so far.
///   - standard input in another format (read by its decoder): only the
///     line, `{"source":"stdin","line":N}`.
///
/// What a relaunch resumes is decided by content: the input must begin with
/// the B bytes committed (the same digest). A file that has only grown since
/// resumes after them, under any path, and so does standard input replaying
/// the same stream (checked when the stream reaches line N, before any row
/// after it is handed out). A file whose first B bytes differ, a stream that
/// does not begin with the committed lines, or a token of a source of another
/// kind, is refused whole, naming both inputs; nothing is written or skipped.
/// A token without a digest (standard input in a non-line format, or one
/// written before floe stored source positions, compared by `floe.input`) is
/// trusted: standard input cannot be identified otherwise, and a relaunch on
/// it must replay the same stream from its start.
///
/// Why content and not the path: the path alone would resume a file
/// rewritten under the same name (a daily export) and skip rows never loaded;
/// the content is what the commit covered, wherever it comes from now. An
/// input that begins with exactly the committed bytes carries the very
/// changes that were committed, so skipping them is what exactly-once asks.
///
/// Standard input in a line format (`jsonl`, `debezium-json`) is read as it
/// arrives: poll() until the job's deadline, whole lines decoded a chunk at a
/// time, so commits happen while the input is open. Other formats on standard
/// input are read to their end, like a file.
#pragma once

#include <memory>
#include <string>

#include "floe/format/decode_options.h"
#include "floe/sink/source.h"

namespace floe::sink {

struct TextSourceOptions {
  /// A registered format name (format_registry.h).
  std::string format = "jsonl";
  /// batch_rows, ignore_unknown_keys, csv options, sequence_path,
  /// max_line_bytes, stdin_fd (the descriptor read for "-"); positions and
  /// reject are set by the source.
  format::DecodeOptions decode;
};

/// A source over `path` (a local file), or standard input for "-".
Result<std::unique_ptr<Source>> OpenTextSource(const std::string& path, TextSourceOptions options);

}  // namespace floe::sink
