/// \file
/// SpillSorter: an external, stable sort of (key, payload) byte records, the
/// buffer behind each shard of the CDC sink (issue 8: "sorted by (key,
/// sequence) within sorter_memory_mb, spilling sorted runs to disk past it").
///
/// In memory, records live back to back in one arena and are sorted through
/// 16-byte (key prefix, arena offset) entries, so a sort moves no strings and
/// allocates nothing per record. Both arena and entries are anonymous
/// mappings that Spill() unmaps, so the memory goes back to the system, not
/// to the allocator's free lists. Runs go to unnamed files (O_TMPFILE, or
/// mkstemp + unlink at once): no path ever names them, so nothing is left
/// behind on any exit, kill -9 included. A run is a sequence of blocks of
/// about 64 KiB, each checksummed (XXH3, so damaged run bytes are kCorrupt,
/// never wrong records) and, when asked, LZ4-compressed.
///
/// Memory: memory_used() counts the arena and the entries, which is what the
/// caller budgets. Finish() adds a fixed amount on top while it merges: two
/// block buffers per run (at most kMaxMergeFanIn runs at once) and one writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "floe/util/status.h"

namespace floe::sink {

struct SpillSorterOptions {
  std::string spill_dir;  ///< where runs go (default: $TMPDIR or /tmp)
  /// LZ4 on each run block (kept only where it saves an eighth or more).
  /// Off by default: on the sink's rows LZ4 halves the bytes spilled but
  /// makes spilling cost ~30% more CPU (spill_sorter_benchmark.cc), and the
  /// sink is CPU-bound while a local spill folder mostly writes to the page
  /// cache. Worth it when the spill folder's disk is slow or small.
  bool compress_runs = false;
};

/// Records are (key, payload) byte strings. Keys compare bytewise (memcmp,
/// shorter first on a tie of the common prefix); equal keys keep insertion
/// order (stable). The caller builds keys so that bytewise order is the order
/// it wants (e.g. big-endian integers with the sign bit flipped).
class SpillSorter {
 public:
  /// Runs merged at once; more runs are first merged in passes down to this.
  static constexpr int kMaxMergeFanIn = 64;
  /// The largest key + payload of one record.
  static constexpr size_t kMaxRecordBytes = size_t{1} << 30;

  /// Checks that `options.spill_dir` is a folder floe can write to.
  static Result<std::unique_ptr<SpillSorter>> Make(SpillSorterOptions options);
  ~SpillSorter();  ///< closes (and so removes) every run
  SpillSorter(const SpillSorter&) = delete;
  SpillSorter& operator=(const SpillSorter&) = delete;

  /// Copies one record in. kInvalidArgument past kMaxRecordBytes.
  Status Add(std::string_view key, std::string_view payload);
  /// Bytes held in memory (arena + entries: what counts against the budget;
  /// the caller decides when to spill).
  size_t memory_used() const;
  size_t records() const;  ///< added since construction or the last Finish
  int runs() const;        ///< spilled runs so far
  /// Bytes written to runs since construction or the last Finish (merge
  /// passes not counted): for progress reports and for measuring compression.
  uint64_t spilled_bytes() const;

  /// Sorts what is in memory and writes it as one run to an unnamed file in
  /// the spill folder; the memory is unmapped (memory_used() drops to 0). A
  /// write failure (disk full) is kIo naming the folder; the records then
  /// stay in memory.
  Status Spill();

  /// The sorted records of a Finish.
  class Stream {
   public:
    virtual ~Stream() = default;
    /// The next record; false at the end. The views stay valid until the
    /// next call. kCorrupt when a run's bytes were damaged.
    virtual Result<bool> Next(std::string_view* key, std::string_view* payload) = 0;
  };

  /// Every record added since construction or the last Finish, in order. The
  /// sorter is empty again afterwards and can be reused; the stream owns the
  /// records (the runs are removed once it is exhausted or destroyed). With
  /// runs, what is in memory is spilled as one more run first, and more than
  /// kMaxMergeFanIn runs are merged in passes, so the merge holds a bounded
  /// amount of memory. On an error the sorter is emptied all the same.
  Result<std::unique_ptr<Stream>> Finish();

 private:
  struct State;
  explicit SpillSorter(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace floe::sink
