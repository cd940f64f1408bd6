// RunPipeline: a decoder thread and the writer (caller) thread joined by a
// bounded queue.
#include "floe/sink/pipeline.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

namespace floe::sink {
namespace {

// A bounded multi-producer queue that can be closed (no more items) or
// cancelled (consumers and producers wake up and give up).
template <typename T>
class BoundedQueue {
 public:
  explicit BoundedQueue(size_t capacity) : capacity_(capacity) {}

  /// False when cancelled.
  bool Push(T item) {
    std::unique_lock lock(mu_);
    not_full_.wait(lock, [&] { return cancelled_ || items_.size() < capacity_; });
    if (cancelled_) return false;
    items_.push_back(std::move(item));
    not_empty_.notify_one();
    return true;
  }
  /// nullopt when closed and empty, or cancelled.
  std::optional<T> Pop() {
    std::unique_lock lock(mu_);
    not_empty_.wait(lock, [&] { return cancelled_ || closed_ || !items_.empty(); });
    if (cancelled_ || items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return item;
  }
  /// An item if one is ready, without waiting.
  std::optional<T> TryPop() {
    std::lock_guard lock(mu_);
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return item;
  }
  void Close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    not_empty_.notify_all();
  }
  void Cancel() {
    std::lock_guard lock(mu_);
    cancelled_ = true;
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable not_full_, not_empty_;
  std::deque<T> items_;
  size_t capacity_;
  bool closed_ = false;
  bool cancelled_ = false;
};

Result<PipelineStats> RunInline(const DecodeFn& decode, SchemaPtr input_schema, const Projector& projector,
                                const WriteFn& write) {
  PipelineStats stats;
  Batch in(input_schema);
  Batch out;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool more, decode(&in));
    if (!more) break;
    const int64_t n = in.num_rows;
    FLOE_RETURN_IF_ERROR(projector.Apply(std::move(in), &out, stats.rows + 1));
    FLOE_RETURN_IF_ERROR(write(out));
    stats.rows += n;
    ++stats.batches;
    in = Batch(input_schema);
  }
  return stats;
}

}  // namespace

Result<PipelineStats> RunPipeline(const DecodeFn& decode, SchemaPtr input_schema, const Projector& projector,
                                  const WriteFn& write, const PipelineOptions& options) {
  if (options.workers <= 1) return RunInline(decode, input_schema, projector, write);

  const size_t depth = static_cast<size_t>(std::max(1, options.queue_depth));
  BoundedQueue<Batch> full(depth);
  std::optional<Error> decode_error;

  std::thread decoder([&] {
    int64_t rows = 0;
    while (true) {
      Batch in(input_schema);
      auto more = decode(&in);
      if (!more) {
        decode_error = std::move(more).error();
        break;
      }
      if (!*more) break;
      Batch out;
      const int64_t n = in.num_rows;
      if (Status st = projector.Apply(std::move(in), &out, rows + 1); !st) {
        decode_error = std::move(st).error();
        break;
      }
      rows += n;
      if (!full.Push(std::move(out))) return;  // the writer failed
    }
    if (decode_error) {
      full.Cancel();
    } else {
      full.Close();
    }
  });

  PipelineStats stats;
  std::optional<Error> write_error;
  while (auto batch = full.Pop()) {
    if (Status st = write(*batch); !st) {
      write_error = std::move(st).error();
      full.Cancel();
      break;
    }
    stats.rows += batch->num_rows;
    ++stats.batches;
  }
  decoder.join();
  if (decode_error) return Fail(std::move(*decode_error));
  if (write_error) return Fail(std::move(*write_error));
  return stats;
}

}  // namespace floe::sink
