// PagePool: page compression and header serialization on worker threads, with a
// deterministic retire order (see page_pool_internal.h).
#include "floe/parquet/page_pool_internal.h"

#include "floe/parquet/page_crc_internal.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <exception>
#include <system_error>

namespace floe::parquet {

namespace {

CompressorFactory& TestFactory() {
  static CompressorFactory factory;
  return factory;
}

Result<std::unique_ptr<Compressor>> NewCompressor(Codec codec, int level) {
  if (TestFactory()) return TestFactory()(codec, level);
  return MakeCompressor(codec, level);
}

// Free buffers kept for reuse: about one window's worth.
constexpr size_t kMaxFreeBuffers = PagePool::kMaxPagesInFlight * 2;

// Worker threads of all pools in the process. A partitioned write keeps one file
// (one pool) open per partition, so per-pool threads alone would grow with the
// partition count; past the budget a pool gets fewer workers (down to none, when
// the caller compresses its own pages), which changes no byte of the output.
std::atomic<int>& LiveWorkers() {
  static std::atomic<int> n{0};
  return n;
}
/// Reserves up to `want` workers from the budget; returns how many.
int ReserveWorkers(int want) {
  auto& live = LiveWorkers();
  int cur = live.load();
  while (true) {
    const int got = std::max(0, std::min(want, PagePool::WorkerBudget() - cur));
    if (got == 0) return 0;
    if (live.compare_exchange_weak(cur, cur + got)) return got;
  }
}

}  // namespace

int PagePool::LiveWorkersForTesting() { return LiveWorkers().load(); }

int PagePool::WorkerBudget() {
  static const int budget =
      std::max(kMaxWorkers + 1, 2 * static_cast<int>(std::thread::hardware_concurrency()));
  return budget;
}

void SetCompressorFactoryForTesting(CompressorFactory factory) {
  TestFactory() = std::move(factory);
}

Result<std::unique_ptr<PagePool>> PagePool::Make(Codec codec, int level, int threads) {
  std::unique_ptr<PagePool> pool(new PagePool());
  pool->codec_ = codec;
  FLOE_ASSIGN_OR_RETURN(pool->caller_compressor_, NewCompressor(codec, level));
  threads = ReserveWorkers(std::max(0, threads));
  pool->reserved_workers_ = threads;  // released by Stop(), which every path reaches
  for (int i = 0; i < threads; ++i) {
    FLOE_ASSIGN_OR_RETURN(auto c, NewCompressor(codec, level));
    pool->worker_compressors_.push_back(std::move(c));
  }
  try {
    for (int i = 0; i < threads; ++i) {
      Compressor* c = pool->worker_compressors_[static_cast<size_t>(i)].get();
      pool->workers_.emplace_back([p = pool.get(), c] { p->WorkerLoop(c); });
    }
  } catch (const std::system_error& e) {
    pool->Stop();
    return Internal("Parquet writer: cannot start {} compression threads: {}", threads, e.what());
  }
  return pool;
}

PagePool::~PagePool() { Stop(); }

void PagePool::Stop() {
  if (stopped_) return;
  stopped_ = true;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
    queue_.clear();  // never run; their owners are being dropped
  }
  work_cv_.notify_all();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
  LiveWorkers().fetch_sub(reserved_workers_);
  reserved_workers_ = 0;
  window_.clear();
  window_bytes_ = 0;
}

void PagePool::Execute(PageJob* job, Compressor* compressor) {
  // Layout of job->out: [free][header][prefix][compressed body]. The header goes
  // right in front of the prefix when it fits the room left for it (always, but for
  // huge statistics), else the page is assembled once more.
  try {
    const auto& h = job->header;
    size_t stats_bytes = 0;
    auto add_stats = [&](const format::Statistics& s) {
      stats_bytes += s.min_value.size() + s.max_value.size() + s.min.size() + s.max.size();
    };
    if (h.__isset.data_page_header && h.data_page_header.__isset.statistics) {
      add_stats(h.data_page_header.statistics);
    }
    if (h.__isset.data_page_header_v2 && h.data_page_header_v2.__isset.statistics) {
      add_stats(h.data_page_header_v2.statistics);
    }
    const size_t room = 128 + stats_bytes + 32;
    const size_t body_size = job->body.size() - job->body_begin;
    const size_t prefix_size = job->prefix.size();
    Buffer& out = job->out;
    out.Clear();
    out.Resize(room + prefix_size);
    if (prefix_size) std::memcpy(out.data() + room, job->prefix.data(), prefix_size);
    if (Status st = compressor->Compress(job->body.data() + job->body_begin, body_size, &out); !st) {
      job->status = std::move(st);
      return;
    }
    const int64_t usize = static_cast<int64_t>(prefix_size + body_size);
    const int64_t csize = static_cast<int64_t>(out.size() - room);
    if (usize > INT32_MAX || csize > INT32_MAX) {
      job->status = InvalidArgument("a page of {} bytes exceeds Parquet's 2 GiB page limit", usize);
      return;
    }
    job->header.__set_uncompressed_page_size(static_cast<int32_t>(usize));
    job->header.__set_compressed_page_size(static_cast<int32_t>(csize));
    // Every page gets its checksum (prefix and compressed body: the bytes after the
    // header), so that a reader detects damaged bytes instead of decoding other rows.
    // Computed here, on the worker thread, from the job's own bytes only.
    job->header.__set_crc(static_cast<int32_t>(PageCrc(out.data() + room, out.size() - room)));
    Buffer header;
    if (Status st = SerializeThrift(job->header, &header); !st) {
      job->status = std::move(st);
      return;
    }
    job->header_size = static_cast<int64_t>(header.size());
    job->uncompressed_size = usize;
    if (header.size() <= room) {
      job->out_begin = room - header.size();
      std::memcpy(out.data() + job->out_begin, header.data(), header.size());
    } else {
      header.Append(out.data() + room, out.size() - room);
      job->out = std::move(header);
      job->out_begin = 0;
    }
    job->status = Ok();
  } catch (const std::exception& e) {
    job->status = Internal("page compression failed: {}", e.what());
  }
}

void PagePool::WorkerLoop(Compressor* compressor) {
  std::unique_lock lock(mu_);
  while (true) {
    work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    PageJob* job = queue_.front();
    queue_.pop_front();
    job->state_ = PageJob::State::kRunning;
    lock.unlock();
    Execute(job, compressor);
    lock.lock();
    job->state_ = PageJob::State::kDone;
    done_cv_.notify_all();
  }
}

Status PagePool::Submit(PageJob* job) {
  if (first_error_) return Fail(*first_error_);
  if (stopped_) return Internal("Parquet writer: page compression already stopped");
  const int64_t bytes = job->estimate();
  while (!window_.empty() &&
         (window_.size() >= kMaxPagesInFlight || window_bytes_ + bytes > kMaxBytesInFlight)) {
    FLOE_RETURN_IF_ERROR(Retire(window_.front()));
  }
  job->retired_ = false;
  job->status = Ok();
  *job->owner_bytes += bytes;
  if (job->sizes) job->sizes->inflight_raw += bytes;
  window_.push_back(job);
  window_bytes_ += bytes;
  if (workers_.empty()) {
    job->state_ = PageJob::State::kQueued;  // run by Retire
    return Ok();
  }
  {
    std::lock_guard lock(mu_);
    job->state_ = PageJob::State::kQueued;
    queue_.push_back(job);
  }
  work_cv_.notify_one();
  return Ok();
}

Status PagePool::Retire(PageJob* job) {
  if (job->retired_) return job->status;
  if (auto it = std::find(window_.begin(), window_.end(), job); it != window_.end()) {
    window_bytes_ -= job->estimate();
    window_.erase(it);
  }
  bool run_here = false;
  {
    std::unique_lock lock(mu_);
    if (job->state_ == PageJob::State::kQueued) {
      // No worker took it yet: take it out of the queue and run it here.
      if (auto it = std::find(queue_.begin(), queue_.end(), job); it != queue_.end()) queue_.erase(it);
      job->state_ = PageJob::State::kRunning;
      run_here = true;
    } else {
      done_cv_.wait(lock, [&] { return job->state_ == PageJob::State::kDone; });
    }
  }
  if (run_here) {
    Execute(job, caller_compressor_.get());
    job->state_ = PageJob::State::kDone;
  }
  job->retired_ = true;
  *job->owner_bytes += job->page_size() - job->estimate();
  if (job->sizes) {
    job->sizes->inflight_raw -= job->estimate();
    if (job->status) {
      job->sizes->retired_raw += job->estimate();
      job->sizes->retired_packed += job->page_size();
    }
  }
  // The uncompressed body is no longer needed.
  GiveBuffer(std::move(job->body));
  job->body_begin = 0;
  GiveBuffer(std::move(job->prefix));
  if (!job->status && !first_error_) first_error_ = job->status.error();
  if (!job->status) {
    *job->owner_bytes -= job->page_size();  // nothing usable
    job->out.Clear();
    job->out_begin = 0;
  }
  return job->status;
}

Status PagePool::Run(PageJob* job) {
  if (first_error_) return Fail(*first_error_);
  Execute(job, caller_compressor_.get());
  job->state_ = PageJob::State::kDone;
  job->retired_ = true;
  if (!job->status && !first_error_) first_error_ = job->status.error();
  return job->status;
}

Buffer PagePool::TakeBuffer() {
  if (free_buffers_.empty()) return Buffer();
  Buffer b = std::move(free_buffers_.back());
  free_buffers_.pop_back();
  b.Clear();
  return b;
}

void PagePool::GiveBuffer(Buffer&& b) {
  if (b.capacity() == 0 || free_buffers_.size() >= kMaxFreeBuffers) {
    Buffer drop = std::move(b);
    return;
  }
  free_buffers_.push_back(std::move(b));
  free_buffers_.back().Clear();
}

}  // namespace floe::parquet
