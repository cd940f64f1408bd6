/// \file
/// A source of the streaming job (streaming_job.h): where rows come from, and
/// where it stands in its input.
///
/// A source yields batches of rows (with row kinds and sequence numbers when
/// the input carries changes) and numbers every row with a *position*: an
/// ordinal that grows along the input (a line number for text input). What
/// a commit covers is described by the source as a *source position*: a JSON
/// object the job stores in the commit's snapshot summary
/// (`floe.source-position`, next to the sink token of sink_token.h), which
/// says both what the input is (its identity) and how far into it the commit
/// reaches. On a relaunch with the same `sink_id` the job hands the stored
/// position back to the source (Resume), which either accepts it (the same
/// input: rows at or before the stored position are skipped, so nothing is
/// applied twice) or refuses it (another input: nothing is skipped, nothing
/// is written). A different input under the same `sink_id` is never skipped in
/// part.
///
/// The sources of this module are text_source.h (a file, standard input or
/// any descriptor); the position's JSON is the source's own, with one field
/// every source sets: `"source"` (its kind: "file", "stdin", ...).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/format/decode_options.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::sink {

using SourceClock = std::chrono::steady_clock;

/// A way to stop a running job from elsewhere (another thread, a signal
/// handler): Cancel() is async-signal-safe (an atomic store and a write to a
/// pipe), and wake_fd() becomes readable once cancelled, so a source blocked
/// in poll() wakes at once.
class Cancellation {
 public:
  Cancellation();
  ~Cancellation();
  Cancellation(const Cancellation&) = delete;
  Cancellation& operator=(const Cancellation&) = delete;

  void Cancel();
  /// Cancelled, or `parent` (Follow) is.
  bool cancelled() const {
    return cancelled_.load(std::memory_order_acquire) || (parent_ != nullptr && parent_->cancelled());
  }
  /// Also counts as cancelled once `parent` is (e.g. a statement set's stop
  /// follows the session's signal). Set before the cancellation is shared;
  /// wake_fd() wakes on this one's Cancel only.
  void Follow(const Cancellation* parent) { parent_ = parent; }
  /// Readable once cancelled; -1 when no pipe could be made (then only
  /// cancelled() tells).
  int wake_fd() const { return fds_[0]; }

 private:
  std::atomic<bool> cancelled_{false};
  const Cancellation* parent_ = nullptr;
  int fds_[2] = {-1, -1};
};

/// While alive, SIGINT and SIGTERM cancel `cancel` (the handlers before it
/// are restored when it ends). One at a time per process.
class ScopedSignalCancellation {
 public:
  explicit ScopedSignalCancellation(Cancellation* cancel);
  ~ScopedSignalCancellation();
  ScopedSignalCancellation(const ScopedSignalCancellation&) = delete;
  ScopedSignalCancellation& operator=(const ScopedSignalCancellation&) = delete;
};

/// What a source hands the job.
struct SourceOutput {
  /// A batch of rows of the job's input schema, each with its position
  /// (Batch::positions; an empty vector numbers them on from the last one).
  std::function<Status(Batch&&)> emit;
  /// A row that could not be decoded (it goes to the error output, or fails
  /// the job).
  std::function<Status(format::RejectedRow&&)> reject;
  /// For a shared() source: reads what every destination holds again (the
  /// tokens other processes committed since) and hands it to
  /// ResumeDestination; called when the source takes over part of its input.
  std::function<Status()> resume_again;
  /// A line for the user (best effort): what the source did that the user
  /// should know (a rebalance, a new column).
  std::function<void(const std::string&)> note;
};

/// What one Read call ended with.
enum class SourceState {
  kMore,  ///< rows may follow at once: call Read again
  kIdle,  ///< nothing arrived before the deadline (an unbounded input waiting)
  kEnd,   ///< the input is exhausted
  /// The input gained columns (Source::added_columns) and the source may
  /// evolve the table: every row before the change has been handed over;
  /// the job commits, adds the columns to the table, opens the sink and the
  /// source again (Open) with the wider schema, and reads on.
  kSchemaChange,
};

class Source {
 public:
  virtual ~Source() = default;

  /// The input as users name it in messages: a path, `<stdin>`.
  virtual std::string name() const = 0;
  /// A bounded input (a file) is read to its end and committed once; an
  /// unbounded one (standard input, a topic) commits every trigger.
  virtual bool bounded() const = 0;

  /// Types the rows the source decodes; called once, before the first Read.
  virtual Status Open(SchemaPtr schema, SourceOutput output) = 0;

  /// Reads on until `deadline`, the end of the input or `cancel`, handing
  /// what it decodes to the output. A bounded source may ignore the deadline.
  virtual Result<SourceState> Read(SourceClock::time_point deadline, const Cancellation* cancel) = 0;

  /// The source position (a JSON object) that covers every row at or
  /// before row position `upto`. Called only for commits that carry a sink
  /// token, so a source may do real work here (a file hashes what it covers).
  virtual Result<std::string> Describe(int64_t upto) = 0;

  /// A commit of this sink, made by an earlier run, stored `stored`
  /// (`floe.source-position`; empty for a commit made before floe stored
  /// source positions, when `stored_input` is that commit's `floe.input`).
  /// Returns an error (kInvalidArgument, naming both inputs) unless the rows
  /// it covers are the same as this input's rows at or before `position`:
  /// then the job skips them.
  virtual Status Resume(std::string_view stored, std::string_view stored_input, int64_t position) = 0;

  /// A source whose positions are ordinals of one run rather than places in
  /// its input (Kafka: rows of several partitions interleave differently in
  /// every run) resumes and describes each destination on its own: the
  /// destination `table` holds `stored`, and the returned filter tells the
  /// rows of this run it already holds (null: those at or before
  /// `position`, as Resume). The defaults are Resume and Describe.
  virtual bool per_destination() const { return false; }
  virtual Result<std::function<bool(int64_t)>> ResumeDestination(std::string_view table, std::string_view stored,
                                                                  std::string_view stored_input, int64_t position) {
    if (Status st = Resume(stored, stored_input, position); !st) return std::unexpected<Error>(st.error());
    return std::function<bool(int64_t)>();
  }
  virtual Result<std::string> DescribeDestination(std::string_view table, int64_t upto) { return Describe(upto); }

  /// Several processes with one sink_id share the input, each reading its
  /// own part (Kafka partitions of a consumer group). Then a commit's source
  /// position is made against the newest token in the table as each commit
  /// attempt reads it: DescribeShared merges this process's part (up to
  /// `upto`) into `newest` (empty: the table holds none) and fails when
  /// another process committed part of what this one covers since this one
  /// took it over. Only for per_destination() sources.
  virtual bool shared() const { return false; }
  virtual Result<std::string> DescribeShared(std::string_view table, int64_t upto, std::string_view newest) {
    (void)newest;
    return DescribeDestination(table, upto);
  }

  /// Called after each commit of the job (every destination's snapshot is
  /// published): e.g. Kafka commits the group's offsets, for lag monitoring.
  virtual Status OnCommitted() { return Ok(); }

  /// After kSchemaChange: the columns the input gained (new optional
  /// top-level columns: names and types; ids are the table's to give).
  virtual std::vector<NestedField> added_columns() const { return {}; }

  /// Whether the source asks for a commit now, before the trigger (an
  /// unbounded source that read a whole PostgreSQL snapshot commits it
  /// before it streams changes). Read once after every Read.
  virtual bool commit_due() { return false; }

  /// The position up to which the input has been consumed whole (standard
  /// input: the lines handed to the decoder), which may lie past the last
  /// row (blank lines, rejected rows); 0 when only the rows tell.
  virtual int64_t consumed() const { return 0; }

  /// Whether the source stopped because its input is not the one the
  /// stored position covered (a check it could only make while reading, as
  /// standard input replaying a stream): a usage error, like a refused
  /// Resume.
  virtual bool input_refused() const { return false; }
};

}  // namespace floe::sink
