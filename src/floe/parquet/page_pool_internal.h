/// \file
/// Page compression off the encoding thread (internal to the parquet module). The
/// column chunk writers hand each finished data page to a PagePool as a PageJob: the
/// page's uncompressed bytes and its header without sizes. The pool compresses the
/// page, computes its CRC-32 (page_crc_internal.h) and serializes the header (Parquet README "Data
/// Pages"; PITFALLS 19-21) on one of its worker threads, each with its own Compressor, while the
/// caller goes on encoding.
///
/// Determinism: the output never depends on the thread count. A job's bytes depend
/// only on its input; pages are written in the order they were made; and the one
/// figure the caller reads back before a chunk ends (the buffered size, which decides
/// row groups and file rolling) moves from a job's uncompressed size to its final size
/// only when the job is *retired*. Retirement happens on the caller's thread in
/// program order: the oldest job leaves the window when a new job would overflow it
/// (kMaxPagesInFlight pages, kMaxBytesInFlight bytes), and a chunk retires all its
/// jobs when it ends. With no worker threads the caller runs each job itself when it
/// retires it. Memory stays bounded by the window.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "floe/parquet/thrift_internal.h"
#include "floe/util/buffer.h"
#include "floe/util/codec.h"
#include "floe/util/status.h"

namespace floe::parquet {

/// Bytes kept free in front of a page body so that V1 levels (and the page header)
/// can be put in front of the values without moving them.
inline constexpr size_t kPageHeadroom = 64;

/// A column's pages, raw and compressed, for estimating what its buffered
/// bytes will take in the file: the raw bytes of the pages in flight, and of
/// the pages compressed so far (both sizes; header included in `packed`).
struct PageSizes {
  int64_t inflight_raw = 0;
  int64_t retired_raw = 0;
  int64_t retired_packed = 0;
};

/// One page to compress. Filled by a chunk writer; owned by it until the chunk has
/// been written out.
struct PageJob {
  // ---- input (set before Submit) ----
  format::PageHeader header;  ///< everything but the two sizes and the crc
  Buffer body;                ///< bytes to compress are body[body_begin, end)
  size_t body_begin = 0;
  Buffer prefix;              ///< V2 levels: stored uncompressed before the payload
  int64_t* owner_bytes = nullptr;  ///< the chunk's buffered-bytes figure (see retire)
  PageSizes* sizes = nullptr;      ///< the column's raw / compressed accounting, or none

  // ---- output (valid once retired) ----
  Buffer out;            ///< header + prefix + compressed body at out[out_begin, end)
  size_t out_begin = 0;
  int64_t header_size = 0;
  int64_t uncompressed_size = 0;  ///< prefix + body: the header's uncompressed_page_size
  Status status;

  /// Bytes of the finished page (header included).
  const uint8_t* page_data() const { return out.data() + out_begin; }
  int64_t page_size() const { return static_cast<int64_t>(out.size() - out_begin); }
  /// What the job counts in the chunk's buffered bytes while it is in flight.
  int64_t estimate() const {
    return static_cast<int64_t>(prefix.size() + body.size() - body_begin);
  }

 private:
  friend class PagePool;
  enum class State : uint8_t { kNew, kQueued, kRunning, kDone };
  State state_ = State::kNew;
  bool retired_ = false;
};

/// Makes a compressor; tests replace it to inject failures.
using CompressorFactory = std::function<Result<std::unique_ptr<Compressor>>(Codec, int)>;
/// Replaces the factory every PagePool made afterwards uses (nullptr restores
/// MakeCompressor). For tests only; not synchronized with running writers.
void SetCompressorFactoryForTesting(CompressorFactory factory);

/// Compresses pages for the column writers of one file. Submit/Retire/Run and the
/// buffer recycling are called from the writer's thread only.
class PagePool {
 public:
  /// At most this many pages, and this many uncompressed bytes, in flight.
  static constexpr size_t kMaxPagesInFlight = 32;
  static constexpr int64_t kMaxBytesInFlight = 64 << 20;
  /// Worker threads at most (a window of 32 pages keeps no more busy).
  static constexpr int kMaxWorkers = 15;

  /// Up to `threads` worker threads (0: the caller does everything). All pools of
  /// the process share a budget of WorkerBudget() workers; a pool made past it
  /// gets fewer, down to none (same output, compressed on the caller's thread).
  static Result<std::unique_ptr<PagePool>> Make(Codec codec, int level, int threads);
  ~PagePool();
  PagePool(const PagePool&) = delete;
  PagePool& operator=(const PagePool&) = delete;

  /// Queues `job` after retiring the oldest jobs while the window is full. Returns
  /// the error of a retired job, or the pool's first error.
  Status Submit(PageJob* job);
  /// Waits for `job` (running it here if no worker has taken it), takes it out of the
  /// window and moves its owner's bytes from the estimate to the final size.
  Status Retire(PageJob* job);
  /// Runs `job` now on the caller's thread (dictionary pages); it is not counted in
  /// any window.
  Status Run(PageJob* job);
  /// Drops queued jobs and joins the workers; further Submits fail. Idempotent.
  void Stop();

  /// A buffer to build a page in (recycled capacity when there is one), empty.
  Buffer TakeBuffer();
  /// Gives a buffer's capacity back for reuse.
  void GiveBuffer(Buffer&& b);

  int threads() const { return static_cast<int>(workers_.size()); }
  /// Worker threads all pools of the process may have together: max(16, 2 x cores).
  static int WorkerBudget();
  /// Worker threads of all live pools (tests).
  static int LiveWorkersForTesting();

 private:
  PagePool() = default;
  void WorkerLoop(Compressor* compressor);
  static void Execute(PageJob* job, Compressor* compressor);

  Codec codec_ = Codec::kUncompressed;
  std::unique_ptr<Compressor> caller_compressor_;
  std::vector<std::unique_ptr<Compressor>> worker_compressors_;
  std::vector<std::thread> workers_;

  // Shared with the workers.
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<PageJob*> queue_;
  bool stop_ = false;

  // Caller's thread only.
  std::deque<PageJob*> window_;
  int64_t window_bytes_ = 0;
  std::optional<Error> first_error_;
  std::vector<Buffer> free_buffers_;
  bool stopped_ = false;
  int reserved_workers_ = 0;  ///< taken from the process budget; given back by Stop()
};

}  // namespace floe::parquet
