// `floe write` through the change sink (sink/change_sink.h): merge-on-read,
// exactly-once with sink_id, table templates, error outputs and streaming
// input. Reading the input is the only thing here: a file goes through its
// decoder batch by batch and commits at its end; standard input is read as it
// arrives (poll), decoded a chunk of whole lines at a time, and committed
// every triggering_frequency_seconds, at its end, and on SIGINT / SIGTERM
// (which flush, commit once and exit 0).
#include "floe/cli/change_write.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <algorithm>

#include "floe/cli/command.h"
#include "floe/format/format_registry.h"
#include "floe/format/string_input.h"

namespace floe::cli {

namespace {

std::atomic<int> g_signal{0};
int g_wake[2] = {-1, -1};

void OnSignal(int sig) {
  g_signal.store(sig);
  if (g_wake[1] >= 0) {
    const char c = 1;
    ssize_t ignored = ::write(g_wake[1], &c, 1);
    (void)ignored;
  }
}

// SIGINT / SIGTERM stop the read loop (restored when the loop ends).
class SignalScope {
 public:
  SignalScope() {
    if (::pipe2(g_wake, O_CLOEXEC | O_NONBLOCK) != 0) g_wake[0] = g_wake[1] = -1;
    struct sigaction sa {};
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  ~SignalScope() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    for (int& fd : g_wake) {
      if (fd >= 0) ::close(fd);
      fd = -1;
    }
  }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

using Clock = std::chrono::steady_clock;

// Live progress on stderr: rows read, applied, committed, rows/s.
class Progress {
 public:
  explicit Progress(bool on) : on_(on), start_(Clock::now()), last_(start_) {}
  void Update(const sink::ChangeSink& s, int64_t committed, bool force = false) {
    if (!on_) return;
    const auto now = Clock::now();
    if (!force && now - last_ < std::chrono::seconds(1)) return;
    last_ = now;
    const sink::SinkStats st = s.stats();
    const double secs = std::chrono::duration<double>(now - start_).count();
    std::string line = fmt::format("\rfloe: read {} applied {} committed {} errors {} ({:.0f} rows/s)   ", st.read,
                                   st.applied, committed, st.errors, secs > 0 ? double(st.read) / secs : 0.0);
    ssize_t ignored = ::write(2, line.data(), line.size());
    (void)ignored;
  }
  void Done() {
    if (!on_) return;
    ssize_t ignored = ::write(2, "\n", 1);
    (void)ignored;
  }

 private:
  bool on_;
  Clock::time_point start_, last_;
};

Status PrintLine(const std::string& json) {
  StdoutWriter out;
  *out.buffer() = json + "\n";
  return out.Flush();
}

// A decoder over one chunk of whole lines of standard input.
Result<std::unique_ptr<format::RowDecoder>> ChunkDecoder(const std::string& format, SchemaPtr schema,
                                                         std::string chunk, const format::DecodeOptions& opt) {
  return format::OpenDecoderFromString(format, std::move(schema), std::move(chunk), opt);
}

}  // namespace

Status RunChangeWrite(sink::ChangeSink* sink, const ChangeWriteInput& in) {
  format::DecodeOptions opt;
  opt.batch_rows = in.batch_rows;
  opt.ignore_unknown_keys = in.ignore_unknown;
  opt.with_positions = true;
  if (!in.sequence_path.empty()) opt.sequence_path = in.sequence_path;
  int64_t line_base = 0;  // lines of earlier chunks (standard input)
  opt.reject = [&](format::RejectedRow&& r) -> Status {
    return sink->Reject(line_base + r.position, r.reason, std::move(r.text));
  };
  Progress progress(in.progress);
  int64_t committed_rows = 0;
  auto commit = [&](int64_t position) -> Status {
    const int64_t pending = sink->pending_rows();
    FLOE_RETURN_IF_ERROR(sink->Commit(position));
    committed_rows += pending;
    progress.Update(*sink, committed_rows, true);
    return Ok();
  };
  auto write = [&](Batch&& b) -> Status {
    if (line_base != 0) {
      for (int64_t& p : b.positions) p += line_base;
    }
    FLOE_RETURN_IF_ERROR(sink->Write(std::move(b)));
    progress.Update(*sink, committed_rows);
    return Ok();
  };
  const bool chunked = in.path == "-" && format::SupportsStringInput(in.format);
  if (!chunked) {
    // A file (or a format read as one stream): decode to the end, commit once.
    auto decoder = format::OpenDecoder(in.format, sink->input_schema(), in.path, opt);
    if (!decoder) return Fail(decoder.error().WithContext(in.input_name));
    Batch batch;
    for (;;) {
      auto more = (*decoder)->Next(&batch);
      if (!more) return Fail(more.error().WithContext(in.input_name));
      if (!*more) break;
      FLOE_RETURN_IF_ERROR(write(std::move(batch)));
      batch = Batch();
    }
    FLOE_RETURN_IF_ERROR(commit(0));
    progress.Done();
    return PrintLine(sink->StatsJson());
  }

  // Standard input, as it arrives.
  SignalScope signals;
  const int fd = 0;
  std::string pending;
  int64_t lines_done = 0;  // complete lines handed to the decoder
  const auto freq = sink->options().triggering_frequency_seconds;
  auto next_commit = Clock::now() + std::chrono::seconds(freq.value_or(0));
  auto decode_chunk = [&](std::string chunk) -> Status {
    if (chunk.empty()) return Ok();
    const int64_t lines = static_cast<int64_t>(std::count(chunk.begin(), chunk.end(), '\n')) +
                          (chunk.back() == '\n' ? 0 : 1);
    line_base = lines_done;
    FLOE_ASSIGN_OR_RETURN(auto decoder, ChunkDecoder(in.format, sink->input_schema(), std::move(chunk), opt));
    Batch batch;
    for (;;) {
      auto more = decoder->Next(&batch);
      if (!more) return Fail(more.error().WithContext(in.input_name));
      if (!*more) break;
      FLOE_RETURN_IF_ERROR(write(std::move(batch)));
      batch = Batch();
    }
    lines_done += lines;
    line_base = 0;
    return Ok();
  };
  bool eof = false;
  std::string buf(size_t{1} << 20, '\0');
  while (!eof && g_signal.load() == 0) {
    int timeout_ms = -1;
    const auto now = Clock::now();
    if (freq) {
      timeout_ms = static_cast<int>(
          std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::milliseconds>(next_commit - now).count()));
    }
    if (sink->options().token_heartbeat_seconds) {
      const int hb = *sink->options().token_heartbeat_seconds * 1000;
      timeout_ms = timeout_ms < 0 ? hb : std::min(timeout_ms, hb);
    }
    if (in.progress) timeout_ms = timeout_ms < 0 ? 1000 : std::min(timeout_ms, 1000);
    struct pollfd fds[2] = {{fd, POLLIN, 0}, {g_wake[0], POLLIN, 0}};
    const int nfds = g_wake[0] >= 0 ? 2 : 1;
    int r = ::poll(fds, nfds, timeout_ms);
    if (r < 0 && errno != EINTR) return IoError("{}: poll: {}", in.input_name, std::strerror(errno));
    if (r > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t n = ::read(fd, buf.data(), buf.size());
      if (n < 0 && errno != EINTR && errno != EAGAIN) {
        return IoError("{}: read: {}", in.input_name, std::strerror(errno));
      }
      if (n == 0) {
        eof = true;
      } else if (n > 0) {
        pending.append(buf.data(), static_cast<size_t>(n));
        const size_t cut = pending.rfind('\n');
        if (cut != std::string::npos) {
          std::string chunk = pending.substr(0, cut + 1);
          pending.erase(0, cut + 1);
          FLOE_RETURN_IF_ERROR(decode_chunk(std::move(chunk)));
        }
        if (pending.size() > in.max_line_bytes) {
          return InvalidArgument("{}: line {} is longer than {} bytes", in.input_name, lines_done + 1,
                                 in.max_line_bytes);
        }
      }
    }
    if (freq && Clock::now() >= next_commit) {
      FLOE_RETURN_IF_ERROR(commit(lines_done));
      FLOE_RETURN_IF_ERROR(PrintLine(sink->StatsJson()));
      next_commit = Clock::now() + std::chrono::seconds(*freq);
    }
    FLOE_RETURN_IF_ERROR(sink->Heartbeat());
    progress.Update(*sink, committed_rows);
  }
  // End of input or a signal: a last line without its newline is still a
  // line at the end of input (not when stopped by a signal: it may be cut).
  if (eof && !pending.empty()) FLOE_RETURN_IF_ERROR(decode_chunk(std::move(pending)));
  FLOE_RETURN_IF_ERROR(commit(lines_done));
  progress.Done();
  return PrintLine(sink->StatsJson());
}

}  // namespace floe::cli
