// LateTracker's table (late_tracker.h).
#include "floe/sink/late_tracker.h"

namespace floe::sink {

bool LateTracker::Put(uint64_t hash, Entry e) {
  if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
  for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
    if (slots_[i].hash == 0) {
      slots_[i] = {hash, e};
      ++size_;
      return false;
    }
    if (slots_[i].hash == hash) {
      if (!slots_[i].entry.Covers(e.seq, static_cast<int>(e.packed & 1)) ||
          (slots_[i].entry.seq == e.seq && slots_[i].entry.cls() == (e.packed & 1))) {
        slots_[i].entry = e;
      }
      return true;
    }
  }
}

void LateTracker::Grow() {
  auto old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
  mask_ = slots_.size() - 1;
  size_ = 0;
  for (const Slot& s : old) {
    if (s.hash) (void)Put(s.hash, s.entry);
  }
}

}  // namespace floe::sink
