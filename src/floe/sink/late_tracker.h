/// \file
/// Lateness across windows (change_sink.h, "Late changes"): the newest
/// committed change of each key of a destination, by a 64-bit hash of the
/// key's bytes, with the time of its commit. A change at or before the
/// newest committed one of its key is late. Open addressing with linear
/// probing, about 24 bytes per key committed by this process.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "floe/types/column_vector.h"
#include "floe/util/huge_pages.h"

namespace floe::sink {

/// The wall clock in milliseconds since the epoch (commit times, lateness,
/// the table cache's refresh times).
inline int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// A change's class, which orders the changes of one key that share a
/// sequence number: 0 for UPDATE_BEFORE and DELETE, 1 for INSERT and
/// UPDATE_AFTER (an update's before-image precedes its after-image).
inline int ChangeClass(RowKind kind) {
  return kind == RowKind::kUpdateBefore || kind == RowKind::kDelete ? 0 : 1;
}

class LateTracker {
 public:
  struct Entry {
    int64_t seq;
    int64_t packed;  ///< commit time (ms) * 2 + change class
    int64_t commit_ms() const { return packed >> 1; }
    int cls() const { return static_cast<int>(packed & 1); }
    /// Whether a change (seq, cls) is at or before this committed one.
    bool Covers(int64_t s, int c) const { return s < seq || (s == seq && c <= cls()); }
  };

  /// The key's newest committed change, or null.
  const Entry* Find(uint64_t hash) const {
    if (size_ == 0) return nullptr;
    hash = hash ? hash : 1;
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].hash == 0) return nullptr;
      if (slots_[i].hash == hash) return &slots_[i].entry;
    }
  }
  /// Records a committed change of the key (kept when it is the newest);
  /// returns whether the key was known before.
  bool Update(uint64_t hash, int64_t seq, int cls, int64_t commit_ms) {
    return Put(hash ? hash : 1, Entry{seq, commit_ms * 2 + (cls & 1)});
  }
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    Entry entry{};
  };
  bool Put(uint64_t hash, Entry e);  ///< whether the key was there
  void Grow();

  std::vector<Slot, HugePageAllocator<Slot>> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace floe::sink
