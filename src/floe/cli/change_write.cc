// `floe write` through the streaming job: the front end's part only (what
// the job reports goes to stdout and stderr; SIGINT / SIGTERM cancel it).
// The loop itself — triggers, heartbeats, resuming, committing — is the
// library's (sink/streaming_job.h).
#include "floe/cli/change_write.h"

#include <unistd.h>

#include "floe/cli/command.h"
#include "floe/cli/run.h"
#include "floe/sink/streaming_job.h"
#include "floe/sink/text_source.h"

namespace floe::cli {

namespace {

Status PrintLine(const std::string& json) {
  StdoutWriter out;
  *out.buffer() = json + "\n";
  return out.Flush();
}

// An error the user fixes by changing the command: exit 2.
bool IsUsage(const Error& e) { return e.kind == ErrorKind::kInvalidArgument || e.kind == ErrorKind::kUnsupported; }

}  // namespace

Status RunChangeWrite(const sink::WriteConfig& config, catalog::Catalog* catalog, SchemaPtr input_schema,
                      sink::ChangeSinkOptions sink_options, const ChangeWriteInput& in) {
  sink::TextSourceOptions so;
  so.format = in.format;
  so.decode.stdin_fd = CurrentIo().in;
  so.decode.batch_rows = in.batch_rows;
  so.decode.max_line_bytes = in.max_line_bytes;
  so.decode.ignore_unknown_keys = in.ignore_unknown;
  if (!in.sequence_path.empty()) so.decode.sequence_path = in.sequence_path;
  std::unique_ptr<sink::Source> source;
  if (in.open_source) {
    auto opened = in.open_source();
    if (!opened) {
      if (IsUsage(opened.error())) return UsageError(opened.error().message);
      return Fail(std::move(opened).error());
    }
    source = std::move(*opened);
  } else {
    FLOE_ASSIGN_OR_RETURN(source, sink::OpenTextSource(in.path, std::move(so)));
  }

  sink::Cancellation cancel;
  sink::StreamingJobOptions jo;
  jo.cancel = &cancel;
  if (in.progress) {
    const int err_fd = CurrentIo().err;
    jo.on_progress = [err_fd](const sink::JobProgress& p) {
      std::string line = fmt::format("\rfloe: read {} applied {} committed {} errors {} ({:.0f} rows/s)   ", p.read,
                                     p.applied, p.committed, p.errors, p.rows_per_second);
      if (p.final) line += "\n";
      WriteAll(err_fd, line);  // best effort
    };
  }
  // A streaming run prints its accounting after each trigger that changed it
  // (an idle stream prints nothing) and once at its end; a bounded one once,
  // at its end (its only commit). --progress adds a live line on stderr.
  jo.on_commit = [](const sink::ChangeSink& s) { return PrintLine(s.StatsJson()); };
  jo.on_note = [](const std::string& line) { WriteAll(CurrentIo().err, "floe: " + line + "\n"); };  // best effort
  auto opened = sink::StreamingJob::Open(config, catalog, std::move(input_schema), std::move(sink_options),
                                         std::move(source), std::move(jo));
  if (!opened) {
    if (IsUsage(opened.error())) return UsageError(opened.error().message);
    return Fail(std::move(opened).error());
  }
  sink::StreamingJob& job = **opened;
  sink::ScopedSignalCancellation signals(&cancel);
  Status st = job.Run();
  if (!st && job.input_refused()) return UsageError(st.error().message);
  return st;
}

}  // namespace floe::cli
