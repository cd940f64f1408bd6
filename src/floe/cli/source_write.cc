// `floe write` with a `source:` block (source_write.h).
#include "floe/cli/source_write.h"

#include "floe/cli/command.h"
#include "floe/cli/run.h"
#include "floe/pgsrc/pg_source.h"

namespace floe::cli {

Status RunSourceWrite(const sink::WriteConfig& config, catalog::Catalog* catalog, sink::ChangeSinkOptions sink_options,
                      bool progress, const std::string& origin) {
  auto src = pgsrc::PgSourceConfig::FromMap(config.source, origin);
  if (!src) return UsageError(src.error().message);
  sink::Cancellation cancel;
  pgsrc::PgWriteOptions o;
  o.cancel = &cancel;
  o.on_commit = [](const std::string& json) {
    StdoutWriter out;
    *out.buffer() = json + "\n";
    return out.Flush();
  };
  o.on_note = [](const std::string& line) {
    WriteAll(CurrentIo().err, "floe: " + line + "\n");  // best effort
    return Ok();
  };
  if (progress) {
    const int err_fd = CurrentIo().err;
    o.on_progress = [err_fd](const sink::JobProgress& p) {
      std::string line = fmt::format("\rfloe: read {} applied {} committed {} ({:.0f} rows/s)   ", p.read, p.applied,
                                     p.committed, p.rows_per_second);
      if (p.final) line += "\n";
      WriteAll(err_fd, line);  // best effort
    };
  }
  sink::ScopedSignalCancellation signals(&cancel);
  Status st = pgsrc::RunPostgresWrite(config, catalog, *src, std::move(sink_options), o);
  if (!st && st.error().kind == ErrorKind::kInvalidArgument) return UsageError(st.error().message);
  return st;
}

}  // namespace floe::cli
