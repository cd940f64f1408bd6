/// \file
/// The change sink's per-key window state (merge-on-read): changes are
/// collapsed as they arrive, so memory and sorting grow with the keys of a
/// window, not with its changes. For each key the table keeps what the
/// collapse needs (change_sink.h): the order and kind of its first and last
/// change, the newest change (for lateness), how many changes were applied,
/// and the row image of its last change. Past the memory budget the states
/// are written to a SpillSorter as records keyed by (shard, hash, key bytes);
/// states of one key from several runs combine (first = min, last = max).
#pragma once

#include <cstdint>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "floe/types/column_vector.h"
#include "floe/util/huge_pages.h"
#include "floe/util/status.h"

namespace floe::sink {

/// Where a change sits in its key's history: sequence number, then class
/// (0: UPDATE_BEFORE, DELETE; 1: INSERT, UPDATE_AFTER), then arrival.
struct ChangeOrder {
  int64_t seq = 0;
  uint8_t cls = 0;
  uint64_t arrival = 0;
  friend bool operator<(const ChangeOrder& a, const ChangeOrder& b) {
    if (a.seq != b.seq) return a.seq < b.seq;
    if (a.cls != b.cls) return a.cls < b.cls;
    return a.arrival < b.arrival;
  }
};

/// One key's collapsed changes. The fields a lookup and an update touch
/// come first (the first cache line): hash, key, the row's place.
struct KeyState {
  static constexpr size_t kInlineKey = 16;
  uint64_t hash = 0;
  // Key bytes (inline when they fit, else in the table's arena) and the last
  // change's row (in the row arena).
  union {
    char inline_key[kInlineKey];
    uint64_t key_offset;
  };
  uint32_t key_size = 0;
  uint32_t row_size = 0, row_capacity = 0;
  uint32_t applied = 0;
  uint64_t row_offset = 0;
  uint16_t shard = 0;
  bool kept = false;  ///< first/last are set (upsert drops UPDATE_BEFORE rows)
  RowKind first_kind = RowKind::kInsert, last_kind = RowKind::kInsert;
  int64_t last_position = 0;
  ChangeOrder first, last, newest;
};

class KeyTable {
 public:
  /// Records a change of the key `key` (bytes of its equality columns).
  /// `kept` false: the change counts (applied, newest) but is not a row
  /// image (an UPDATE_BEFORE under upsert).
  void Add(uint64_t hash, uint16_t shard, std::string_view key, const ChangeOrder& order, RowKind kind, bool kept,
           std::string_view row, int64_t position);

  size_t size() const { return states_.size(); }
  bool empty() const { return states_.empty(); }
  /// Bytes in use (states, index, arenas; reserved but untouched memory is
  /// not resident and not counted).
  size_t memory_used() const;
  const std::vector<KeyState, HugePageAllocator<KeyState>>& states() const { return states_; }
  std::string_view key(const KeyState& s) const {
    return s.key_size <= KeyState::kInlineKey ? std::string_view(s.inline_key, s.key_size)
                                              : std::string_view(keys_).substr(s.key_offset, s.key_size);
  }
  /// Prefetch hints for a key about to be added (hash known ahead): first
  /// its index slot, a few rows later its state.
  void PrefetchSlot(uint64_t hash) const {
    if (!index_.empty()) __builtin_prefetch(&index_[hash & mask_]);
  }
  void PrefetchState(uint64_t hash) const {
    if (const KeyState* s = Probe(hash)) {
      const char* p = reinterpret_cast<const char*>(s);
      __builtin_prefetch(p);
      __builtin_prefetch(p + 64);
    }
  }
  /// Then the key's row image (its state must be in cache by now).
  void PrefetchRow(uint64_t hash) const {
    if (const KeyState* s = Probe(hash); s && s->kept) __builtin_prefetch(rows_.data() + s->row_offset);
  }
  std::string_view row(const KeyState& s) const { return std::string_view(rows_.data() + s.row_offset, s.row_size); }
  /// Empties the table and gives its memory back.
  void Clear();
  /// Empties the table, keeping its memory for the next states (a spill in
  /// the middle of a window: no regrowth, no fresh pages).
  void Reset();
  /// The table never grows past this many bytes: Add's caller asks
  /// WouldExceed first and spills instead.
  /// The states and rows are reserved up to the limit at once: the memory
  /// is mapped lazily (only touched pages count), and the tables never move.
  void SetLimit(size_t bytes);
  /// Whether adding a state for a new key with this row would grow the
  /// table past its limit.
  bool WouldExceed(size_t key_size, size_t row_size) const;

  /// A state as a spill record: key = shard (2, big-endian) | hash (8,
  /// big-endian) | key bytes; payload = the state's fields | row.
  void ToRecord(const KeyState& s, std::string* key, std::string* payload) const;
  /// Parses a record back (the key and row views point into `payload` /
  /// `key`); kCorrupt when the payload is cut.
  static Status FromRecord(std::string_view key, std::string_view payload, KeyState* state, std::string_view* key_bytes,
                           std::string_view* row);
  /// Combines `other` (a later run's state of the same key) into `into`,
  /// whose row is `*into_row`; the row of the combined last change is set
  /// in `*into_row` (a view of `other_row` when `other` is later).
  static void Combine(KeyState* into, std::string_view* into_row, const KeyState& other, std::string_view other_row);

 private:
  size_t Find(uint64_t hash, std::string_view key) const;
  /// The state whose index tag matches `hash` on its probe path (a hint:
  /// the key is not compared), or null.
  const KeyState* Probe(uint64_t hash) const {
    if (index_.empty()) return nullptr;
    const uint64_t tag = hash >> 32;
    for (size_t i = hash & mask_, n = 0; n < 8; i = (i + 1) & mask_, ++n) {
      const uint64_t v = index_[i];
      if (v == 0) return nullptr;
      if ((v >> 32) == tag) return &states_[(v & 0xffffffffu) - 1];
    }
    return nullptr;
  }
  void Grow();

  std::vector<KeyState, HugePageAllocator<KeyState>> states_;
  /// Open addressing: (hash high 32 bits << 32) | (state index + 1); 0 = empty.
  std::vector<uint64_t, HugePageAllocator<uint64_t>> index_;
  size_t mask_ = 0;
  std::string keys_;
  std::vector<char, HugePageAllocator<char>> rows_;
  size_t limit_ = SIZE_MAX;
};

}  // namespace floe::sink
