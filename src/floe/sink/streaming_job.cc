// The streaming job (streaming_job.h), and the cancellation it stops on.
#include "floe/sink/streaming_job.h"

#include <cstdio>

#include "floe/catalog/identifier.h"
#include "floe/iceberg/table_updates.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>

namespace floe::sink {

// ------------------------------------------------------------ cancellation

Cancellation::Cancellation() {
  if (::pipe2(fds_, O_CLOEXEC | O_NONBLOCK) != 0) fds_[0] = fds_[1] = -1;
}

Cancellation::~Cancellation() {
  for (int fd : fds_) {
    if (fd >= 0) ::close(fd);
  }
}

void Cancellation::Cancel() {
  cancelled_.store(true, std::memory_order_release);
  if (fds_[1] >= 0) {
    const char c = 1;
    ssize_t ignored = ::write(fds_[1], &c, 1);  // full pipe: already readable
    (void)ignored;
  }
}

namespace {

std::atomic<Cancellation*> g_cancel{nullptr};

void OnSignal(int) {
  if (Cancellation* c = g_cancel.load()) c->Cancel();
}

struct SavedHandlers {
  struct sigaction int_ {}, term_ {};
} g_saved;

}  // namespace

ScopedSignalCancellation::ScopedSignalCancellation(Cancellation* cancel) {
  g_cancel.store(cancel);
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  ::sigaction(SIGINT, &sa, &g_saved.int_);
  ::sigaction(SIGTERM, &sa, &g_saved.term_);
}

ScopedSignalCancellation::~ScopedSignalCancellation() {
  ::sigaction(SIGINT, &g_saved.int_, nullptr);
  ::sigaction(SIGTERM, &g_saved.term_, nullptr);
  g_cancel.store(nullptr);
}

// --------------------------------------------------------------------- job

Result<std::unique_ptr<StreamingJob>> StreamingJob::Open(const WriteConfig& config, catalog::Catalog* catalog,
                                                          SchemaPtr input_schema, ChangeSinkOptions sink_options,
                                                          std::unique_ptr<Source> source,
                                                          StreamingJobOptions options) {
  std::unique_ptr<StreamingJob> job(new StreamingJob());
  job->source_ = std::move(source);
  job->options_ = std::move(options);
  Source* src = job->source_.get();
  StreamingJob* self = job.get();  // owns the sink that calls back
  sink_options.summary.emplace(std::string(kSummaryInput), src->name());
  sink_options.resume = [src, self](std::string_view stored, std::string_view stored_input,
                                    int64_t position) -> Status {
    Status st = src->Resume(stored, stored_input, position);
    if (!st && st.error().kind == ErrorKind::kInvalidArgument) self->refused_ = true;
    return st;
  };
  sink_options.describe_position = [src](int64_t position) { return src->Describe(position); };
  if (src->per_destination()) {
    sink_options.resume_destination = [src, self](std::string_view table, std::string_view stored,
                                                  std::string_view stored_input, int64_t position)
        -> Result<std::function<bool(int64_t)>> {
      auto held = src->ResumeDestination(table, stored, stored_input, position);
      if (!held && held.error().kind == ErrorKind::kInvalidArgument) self->refused_ = true;
      return held;
    };
    sink_options.describe_destination = [src](std::string_view table, int64_t position) {
      return src->DescribeDestination(table, position);
    };
    if (src->shared()) {
      sink_options.describe_shared = [src](std::string_view table, int64_t position, std::string_view newest) {
        return src->DescribeShared(table, position, newest);
      };
    }
  }
  job->config_ = config;
  job->catalog_ = catalog;
  job->input_schema_ = input_schema;
  job->sink_options_ = sink_options;
  FLOE_ASSIGN_OR_RETURN(job->sink_, ChangeSink::Open(config, catalog, std::move(input_schema),
                                                     std::move(sink_options)));
  ChangeSink* sink = job->sink_.get();
  const SinkOptions& so = sink->options();
  if (!job->options_.trigger && so.triggering_frequency_seconds) {
    job->options_.trigger = std::chrono::seconds(*so.triggering_frequency_seconds);
  }
  if (!job->options_.heartbeat && so.token_heartbeat_seconds && !so.sink_id.empty()) {
    job->options_.heartbeat = std::chrono::seconds(*so.token_heartbeat_seconds);
  }
  return job;
}

StreamingJob::~StreamingJob() = default;

// ------------------------------------------------------------------ loop

namespace {

// Progress reports at most every interval (and when forced).
class Reporter {
 public:
  Reporter(const LoopOptions& o, const JobTarget& target) : o_(o), target_(target) {
    start_ = last_ = SourceClock::now();
  }
  void Report(bool force, bool final, int64_t committed) {
    if (!o_.on_progress) return;
    const auto now = SourceClock::now();
    if (!force && now - last_ < o_.progress_interval) return;
    last_ = now;
    JobProgress p = target_.Progress();
    p.committed = committed;
    const double secs = std::chrono::duration<double>(now - start_).count();
    p.rows_per_second = secs > 0 ? double(p.read) / secs : 0.0;
    p.final = final;
    o_.on_progress(p);
  }

 private:
  const LoopOptions& o_;
  const JobTarget& target_;
  SourceClock::time_point start_, last_;
};

}  // namespace

Status RunStreamingLoop(Source& source, JobTarget& target, const LoopOptions& options) {
  Reporter reporter(options, target);
  int64_t committed = 0;
  auto commit = [&]() -> Status {
    const int64_t pending = target.pending_rows();
    FLOE_RETURN_IF_ERROR(target.Commit(source.consumed()));
    FLOE_RETURN_IF_ERROR(source.OnCommitted());
    committed += pending;
    reporter.Report(true, false, committed);
    return Ok();
  };
  const Cancellation* cancel = options.cancel;
  auto cancelled = [&] { return cancel != nullptr && cancel->cancelled(); };
  if (source.bounded()) {
    for (;;) {
      if (cancelled()) {
        if (!options.commit_at_end) return Ok();  // the caller decides what to publish
        // Not retryable as it stands: the run was asked to stop.
        return Fail(Error{ErrorKind::kCommitFailed,
                          fmt::format("{}: stopped before the end of the input; nothing was committed (a bounded "
                                      "input is committed whole)",
                                      source.name()),
                          false});
      }
      FLOE_ASSIGN_OR_RETURN(SourceState state, source.Read(SourceClock::time_point::max(), cancel));
      reporter.Report(false, false, committed);
      if (state == SourceState::kEnd) break;
      if (state == SourceState::kSchemaChange) {
        // (A bounded input commits once: the rows before the change are
        // committed with the narrower schema, the rest at the end.)
        FLOE_RETURN_IF_ERROR(commit());
        FLOE_RETURN_IF_ERROR(target.Evolve(source.added_columns()));
      }
    }
  } else {
    using std::chrono::milliseconds;
    const auto trigger = options.trigger;
    const auto heartbeat = options.heartbeat;
    auto next_commit = SourceClock::now() + trigger.value_or(milliseconds(0));
    while (!cancelled()) {
      const auto now = SourceClock::now();
      auto deadline = SourceClock::time_point::max();
      if (trigger) deadline = std::min(deadline, next_commit);
      if (heartbeat) deadline = std::min(deadline, now + *heartbeat);
      if (options.on_progress) deadline = std::min(deadline, now + options.progress_interval);
      FLOE_ASSIGN_OR_RETURN(SourceState state, source.Read(deadline, cancel));
      if (state == SourceState::kEnd) break;
      if (state == SourceState::kSchemaChange) {
        FLOE_RETURN_IF_ERROR(commit());
        next_commit = SourceClock::now() + trigger.value_or(milliseconds(0));
        FLOE_RETURN_IF_ERROR(target.Evolve(source.added_columns()));
        continue;
      }
      if (source.commit_due() || (trigger && SourceClock::now() >= next_commit)) {
        FLOE_RETURN_IF_ERROR(commit());
        next_commit = SourceClock::now() + trigger.value_or(milliseconds(0));
      }
      if (heartbeat) FLOE_RETURN_IF_ERROR(target.Heartbeat());
      reporter.Report(false, false, committed);
    }
  }
  // The end of the input, or cancelled: what was handed over is committed
  // (unless the caller commits itself).
  if (options.commit_at_end) FLOE_RETURN_IF_ERROR(commit());
  reporter.Report(true, true, committed);
  return Ok();
}

// The change sink as the loop's target.
class StreamingJob::SinkTarget final : public JobTarget {
 public:
  SinkTarget(StreamingJob* job, const StreamingJobOptions& o) : job_(job), sink_(job->sink_.get()), o_(o) {
    if (o_.on_commit) last_ = Counts();
  }
  Status Evolve(const std::vector<NestedField>& added) override {
    FLOE_RETURN_IF_ERROR(job_->Evolve(added));
    sink_ = job_->sink_.get();
    last_ = Counts();  // the new sink counts from zero
    return Ok();
  }
  /// Reports after a trigger that changed the accounting (an idle stream's
  /// triggers report nothing, nor do its token heartbeats: they commit a
  /// snapshot, which the destinations' figures count, but no row).
  Status Commit(int64_t consumed) override {
    FLOE_RETURN_IF_ERROR(sink_->Commit(consumed));
    return Report(false);
  }
  /// The run's last report: always one, even when nothing changed.
  Status Final() { return Report(true); }
  Status Heartbeat() override { return sink_->Heartbeat(); }
  int64_t pending_rows() const override { return sink_->pending_rows(); }
  JobProgress Progress() const override {
    const SinkStats st = sink_->stats();
    JobProgress p;
    p.read = st.read;
    p.applied = st.applied;
    p.errors = st.errors;
    return p;
  }

 private:
  // The run's own counts: rows and windows (not the destinations' snapshot
  // figures, which a heartbeat advances).
  std::array<int64_t, 8> Counts() const {
    const SinkStats st = sink_->stats();
    return {st.read, st.applied, st.errors, st.dead_letter, st.dropped, st.skipped, st.unrouted_errors, st.commits};
  }
  Status Report(bool final) {
    if (!o_.on_commit) return Ok();
    const std::array<int64_t, 8> now = Counts();
    if (now == last_ && (reported_any_ || !final)) return Ok();
    last_ = now;
    reported_any_ = true;
    return o_.on_commit(*sink_);
  }

  StreamingJob* job_;
  ChangeSink* sink_;
  const StreamingJobOptions& o_;
  std::array<int64_t, 8> last_{};  ///< the counts last reported (at first: before any row)
  bool reported_any_ = false;
};

void StreamingJob::Note(const std::string& line) const {
  if (options_.on_note) {
    options_.on_note(line);
  } else {
    std::fprintf(stderr, "floe: %s\n", line.c_str());
  }
}

Status StreamingJob::OpenSource() {
  ChangeSink* sink = sink_.get();
  SourceOutput out;
  out.emit = [sink](Batch&& b) { return sink->Write(std::move(b)); };
  out.reject = [sink](format::RejectedRow&& r) { return sink->Reject(r.position, r.reason, std::move(r.text)); };
  out.resume_again = [sink] { return sink->ResumeAgain(); };
  out.note = [this](const std::string& line) { Note(line); };
  return source_->Open(sink->input_schema(), std::move(out));
}

Status StreamingJob::Evolve(const std::vector<NestedField>& added) {
  if (added.empty()) return Ok();
  if (config_.table.find('{') != std::string::npos) {
    return Unsupported("{}: the input gained column {}: evolving the tables of a table template is not implemented "
                       "yet (add the column to the tables and relaunch)",
                       source_->name(), added.front().name);
  }
  FLOE_ASSIGN_OR_RETURN(auto id, catalog::ParseTableIdentifier(config_.table));
  // A schema-only commit (retried when another writer, e.g. another process
  // of the group adding the same column, commits first).
  constexpr int kAttempts = 5;
  for (int attempt = 1;; ++attempt) {
    FLOE_ASSIGN_OR_RETURN(catalog::LoadedTable loaded, catalog_->RefreshTable(id));
    const SchemaPtr current = loaded.metadata.CurrentSchema();
    if (!current) return Corrupt("table {} has no current schema", config_.table);
    std::vector<NestedField> fields = current->fields();
    int32_t next_id = std::max(loaded.metadata.last_column_id, current->HighestFieldId()) + 1;
    std::vector<std::string> notes;
    for (const NestedField& a : added) {
      const int idx = current->IndexOf(a.name);
      if (idx >= 0) {
        const TypePtr& has = fields[static_cast<size_t>(idx)].type;
        if (!(*has == *a.type)) {
          return Unsupported("{}: the input's column {} is {} now; table {} holds it as {}: floe does not change a "
                             "column's type from a change stream",
                             source_->name(), a.name, a.type->ToString(), config_.table, has->ToString());
        }
        continue;  // added meanwhile (another process)
      }
      fields.push_back({next_id++, a.name, false, a.type, ""});
      notes.push_back(fmt::format("column {} {} added", a.name, a.type->ToString()));
    }
    if (notes.empty()) break;
    int32_t schema_id = 0;
    FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata updated,
                          iceberg::WithNewCurrentSchema(loaded.metadata, fields, &schema_id));
    auto committed = catalog_->CommitTable(loaded, std::move(updated));
    if (committed) {
      for (const std::string& note : notes) {
        Note(fmt::format("{}: {}: table {} evolved (schema {})", source_->name(), note, config_.table, schema_id));
      }
      break;
    }
    if (committed.error().kind != ErrorKind::kCommitFailed || attempt == kAttempts) {
      return Fail(committed.error().WithContext(fmt::format("adding {} to table {}", added.front().name, config_.table)));
    }
  }
  if (input_schema_) {
    // Given by the user (--schema): it gains the columns too.
    std::vector<NestedField> fields = input_schema_->fields();
    int32_t next_id = input_schema_->HighestFieldId() + 1;
    for (const NestedField& a : added) {
      if (input_schema_->IndexOf(a.name) < 0) fields.push_back({next_id++, a.name, false, a.type, ""});
    }
    input_schema_ = std::make_shared<Schema>(std::move(fields), 0, input_schema_->identifier_field_ids());
  }
  // Nothing is pending (the window was just committed): the sink is opened
  // again on the evolved table (its destinations resumed from their tokens).
  sink_.reset();
  FLOE_ASSIGN_OR_RETURN(sink_, ChangeSink::Open(config_, catalog_, input_schema_, sink_options_));
  return OpenSource();
}

Status StreamingJob::Run() {
  FLOE_RETURN_IF_ERROR(OpenSource());
  SinkTarget target(this, options_);
  FLOE_RETURN_IF_ERROR(RunStreamingLoop(*source_, target, options_));
  return target.Final();
}

}  // namespace floe::sink
