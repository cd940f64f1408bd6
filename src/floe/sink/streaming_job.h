/// \file
/// The streaming job: a source (source.h) into the change sink
/// (change_sink.h), with everything between them that is not about rows —
/// when to commit, token heartbeats, cancellation, progress and resuming
/// after a relaunch. `floe write` runs it; any front end that has a Source
/// runs the same loop.
///
///   open:    the sink opens its destinations; each that finds a token of
///            this sink_id hands the token's stored source position to
///            Source::Resume, which accepts it (rows at or before the token's
///            position are skipped) or refuses it (another input: the job
///            stops before writing anything).
///   run:     Read until the next trigger; every `trigger` a commit (one
///            snapshot per destination, carrying the token and the source's
///            position); a heartbeat refresh of idle destinations' tokens
///            every `heartbeat`; progress at most every `progress_interval`.
///   end:     a bounded source (a file) is committed once, at its end; an
///            unbounded one at every trigger and at its end. Cancellation
///            (SIGINT / SIGTERM through ScopedSignalCancellation) commits
///            what an unbounded source has handed over and ends cleanly; a
///            bounded source's run is abandoned, nothing committed, since a
///            part of a file is not a unit anyone asked for.
///   failure: an error anywhere leaves nothing of the open window published
///            (the sink's files are removed; a table the sink created and
///            never committed to is dropped).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

#include "floe/catalog/catalog.h"
#include "floe/sink/change_sink.h"
#include "floe/sink/source.h"
#include "floe/sink/write_config.h"
#include "floe/util/status.h"

namespace floe::sink {

/// What the job reports while it runs.
struct JobProgress {
  int64_t read = 0, applied = 0, errors = 0;
  int64_t committed = 0;     ///< rows of the windows committed so far
  double rows_per_second = 0;
  bool final = false;        ///< the last report (the job ended)
};

struct StreamingJobOptions {
  /// Commit interval of an unbounded source. Default: the sink's
  /// triggering_frequency_seconds (none: commit only at the end).
  std::optional<std::chrono::milliseconds> trigger;
  /// Token heartbeat interval. Default: the sink's token_heartbeat_seconds.
  std::optional<std::chrono::milliseconds> heartbeat;
  /// Stops the job (null: runs to the end of the input).
  const Cancellation* cancel = nullptr;
  /// Called after every commit (e.g. to print the sink's StatsJson).
  std::function<Status(const ChangeSink&)> on_commit;
  /// Called at most every progress_interval, after each commit, and once
  /// at the end (final).
  std::function<void(const JobProgress&)> on_progress;
  std::chrono::milliseconds progress_interval{1000};
};

class StreamingJob {
 public:
  /// Opens the sink for `source` (see ChangeSink::Open for `input_schema`).
  /// Errors here are the sink's (options, catalog, table, a refused input).
  static Result<std::unique_ptr<StreamingJob>> Open(const WriteConfig& config, catalog::Catalog* catalog,
                                                    SchemaPtr input_schema, ChangeSinkOptions sink_options,
                                                    std::unique_ptr<Source> source,
                                                    StreamingJobOptions options = {});
  ~StreamingJob();

  /// Opens the source for the sink's input schema and runs to its end (or
  /// cancellation); see the file comment. Once only.
  Status Run();

  const ChangeSink& sink() const { return *sink_; }
  const Source& source() const { return *source_; }
  /// Whether the job stopped because the source refused the position an
  /// earlier run of the sink committed (another input under the same
  /// sink_id): a usage error, nothing written.
  bool input_refused() const { return *refused_ || source_->input_refused(); }

 private:
  StreamingJob() = default;
  Status Commit();
  void Report(bool force, bool final);

  std::unique_ptr<Source> source_;
  std::unique_ptr<ChangeSink> sink_;
  StreamingJobOptions options_;
  std::shared_ptr<bool> refused_ = std::make_shared<bool>(false);
  int64_t committed_rows_ = 0;
  SourceClock::time_point start_, last_report_;
};

}  // namespace floe::sink
