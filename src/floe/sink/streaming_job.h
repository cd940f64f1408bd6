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

/// What the loop drives (RunStreamingLoop): where the source's rows went
/// (the source's output writes to it), committed at triggers.
class JobTarget {
 public:
  virtual ~JobTarget() = default;
  /// A trigger's commit (or the end's) of what the source handed over; the
  /// source has consumed its input up to `consumed` (Source::consumed).
  virtual Status Commit(int64_t consumed) = 0;
  /// Every loop turn while a heartbeat interval is set.
  virtual Status Heartbeat() { return Ok(); }
  /// Rows handed over and not committed yet.
  virtual int64_t pending_rows() const { return 0; }
  /// read / applied / errors so far (committed and the rate are the loop's).
  virtual JobProgress Progress() const { return {}; }
  /// After a commit, when the source reports kSchemaChange: the table gains
  /// `added` (optional columns) and the sink and the source are opened
  /// again with the wider input schema.
  virtual Status Evolve(const std::vector<NestedField>& added) {
    (void)added;
    return Unsupported("this job cannot evolve its table's schema");
  }
};

/// When the loop commits, how it stops and what it reports.
struct LoopOptions {
  /// Commit interval of an unbounded source (none: only at the end).
  std::optional<std::chrono::milliseconds> trigger;
  /// Heartbeat interval (JobTarget::Heartbeat every turn while set).
  std::optional<std::chrono::milliseconds> heartbeat;
  /// Stops the loop (null: runs to the end of the input).
  const Cancellation* cancel = nullptr;
  /// Called at most every progress_interval, after each commit, and once
  /// at the end (final).
  std::function<void(const JobProgress&)> on_progress;
  std::chrono::milliseconds progress_interval{1000};
  /// Commit at the end of the input (and on cancellation of an unbounded
  /// source). Off for a caller that publishes the end itself (the SQL
  /// engine: a statement set's sinks are committed together).
  bool commit_at_end = true;
};

/// The loop (see the file comment): reads `source` until its end or
/// cancellation, committing `target` at every trigger of an unbounded
/// source. One loop for every front end: `floe write` (StreamingJob) and
/// `INSERT INTO` in `floe sql`.
Status RunStreamingLoop(Source& source, JobTarget& target, const LoopOptions& options);

struct StreamingJobOptions : LoopOptions {
  /// Called after a commit that changed the sink's accounting, and once at
  /// the end of the run (e.g. to print the sink's StatsJson).
  std::function<Status(const ChangeSink&)> on_commit;
  /// A line for the user (a table evolved; the source's notes, e.g. a Kafka
  /// group's rebalances); unset: standard error.
  std::function<void(const std::string&)> on_note;
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
  bool input_refused() const { return refused_ || source_->input_refused(); }

 private:
  class SinkTarget;
  StreamingJob() = default;

  /// The table gains `added`; the sink and the source are opened again.
  Status Evolve(const std::vector<NestedField>& added);
  Status OpenSource();
  void Note(const std::string& line) const;

  std::unique_ptr<Source> source_;
  std::unique_ptr<ChangeSink> sink_;
  StreamingJobOptions options_;
  // What the sink was opened with (Evolve opens it again).
  WriteConfig config_;
  catalog::Catalog* catalog_ = nullptr;
  SchemaPtr input_schema_;
  ChangeSinkOptions sink_options_;
  bool refused_ = false;  ///< a Resume refused the input (set by the sink's callback)
};

}  // namespace floe::sink
