// KeyTable: per-key collapsed changes of a window, and their spill records.
#include "floe/sink/key_table.h"

#include <algorithm>
#include <cstring>

namespace floe::sink {

namespace {

// The fixed part of a state's spill payload.
struct Packed {
  uint8_t kept, first_kind, last_kind, first_cls, last_cls, newest_cls;
  uint16_t pad;
  uint32_t applied;
  int64_t first_seq, last_seq, newest_seq;
  uint64_t first_arrival, last_arrival, newest_arrival;
  int64_t last_position;
};

}  // namespace

size_t KeyTable::memory_used() const {
  return states_.size() * sizeof(KeyState) + index_.size() * sizeof(uint64_t) + keys_.size() + rows_.size();
}

void KeyTable::SetLimit(size_t bytes) {
  limit_ = bytes;
  states_.reserve(bytes / sizeof(KeyState));
  rows_.reserve(bytes);
}

void KeyTable::Clear() {
  decltype(states_)().swap(states_);
  decltype(index_)().swap(index_);
  std::string().swap(keys_);
  decltype(rows_)().swap(rows_);
  mask_ = 0;
  if (limit_ != SIZE_MAX) SetLimit(limit_);  // a fresh, untouched reservation
}

void KeyTable::Reset() {
  states_.clear();  // keeps the reservation
  std::fill(index_.begin(), index_.end(), 0);
  keys_.clear();
  rows_.clear();
}

bool KeyTable::WouldExceed(size_t key_size, size_t row_size) const {
  if (limit_ == SIZE_MAX || states_.empty()) return false;
  const size_t index = (states_.size() + 1) * 2 > index_.size() ? index_.size() : 0;  // a doubling adds as much
  const size_t key = key_size > KeyState::kInlineKey ? key_size : 0;
  return memory_used() + sizeof(KeyState) + index * sizeof(uint64_t) + key + row_size > limit_ ||
         states_.size() == states_.capacity() || rows_.size() + row_size > rows_.capacity();
}

size_t KeyTable::Find(uint64_t hash, std::string_view key) const {
  const uint64_t tag = hash >> 32;
  for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
    const uint64_t v = index_[i];
    if (v == 0) return i;
    if ((v >> 32) != tag) continue;
    const KeyState& s = states_[(v & 0xffffffffu) - 1];
    if (s.hash == hash && this->key(s) == key) return i;
  }
}

void KeyTable::Grow() {
  const size_t n = index_.empty() ? 4096 : index_.size() * 2;
  index_.assign(n, 0);
  mask_ = n - 1;
  for (size_t k = 0; k < states_.size(); ++k) {
    size_t i = states_[k].hash & mask_;
    while (index_[i] != 0) i = (i + 1) & mask_;
    index_[i] = ((states_[k].hash >> 32) << 32) | static_cast<uint64_t>(k + 1);
  }
}

void KeyTable::Add(uint64_t hash, uint16_t shard, std::string_view key, const ChangeOrder& order, RowKind kind,
                   bool kept, std::string_view row, int64_t position) {
  if ((states_.size() + 1) * 2 > index_.size()) Grow();
  const size_t slot = Find(hash, key);
  KeyState* s;
  if (index_[slot] == 0) {
    states_.emplace_back();
    index_[slot] = ((hash >> 32) << 32) | static_cast<uint64_t>(states_.size());
    s = &states_.back();
    s->hash = hash;
    s->shard = shard;
    s->key_size = static_cast<uint32_t>(key.size());
    if (key.size() <= KeyState::kInlineKey) {
      std::memcpy(s->inline_key, key.data(), key.size());
    } else {
      s->key_offset = keys_.size();
      keys_.append(key);
    }
    s->newest = order;
  } else {
    s = &states_[(index_[slot] & 0xffffffffu) - 1];
    if (s->newest < order) s->newest = order;
  }
  ++s->applied;
  if (!kept) return;
  if (!s->kept || order < s->first) {
    s->first = order;
    s->first_kind = kind;
  }
  if (!s->kept || s->last < order) {
    s->last = order;
    s->last_kind = kind;
    s->last_position = position;
    // The last image replaces the previous one in place when it fits (a key's
    // images are mostly of one size), else it is appended.
    if (s->kept && row.size() <= s->row_capacity) {
      std::memcpy(rows_.data() + s->row_offset, row.data(), row.size());
    } else {
      s->row_offset = rows_.size();
      s->row_capacity = static_cast<uint32_t>(row.size());
      rows_.insert(rows_.end(), row.begin(), row.end());
    }
    s->row_size = static_cast<uint32_t>(row.size());
  }
  s->kept = true;
}

void KeyTable::ToRecord(const KeyState& s, std::string* key, std::string* payload) const {
  key->clear();
  key->push_back(static_cast<char>(s.shard >> 8));
  key->push_back(static_cast<char>(s.shard & 0xff));
  for (int b = 0; b < 8; ++b) key->push_back(static_cast<char>((s.hash >> (56 - 8 * b)) & 0xff));
  key->append(this->key(s));
  Packed p{};
  p.kept = s.kept;
  p.first_kind = static_cast<uint8_t>(s.first_kind);
  p.last_kind = static_cast<uint8_t>(s.last_kind);
  p.first_cls = s.first.cls;
  p.last_cls = s.last.cls;
  p.newest_cls = s.newest.cls;
  p.applied = s.applied;
  p.first_seq = s.first.seq;
  p.last_seq = s.last.seq;
  p.newest_seq = s.newest.seq;
  p.first_arrival = s.first.arrival;
  p.last_arrival = s.last.arrival;
  p.newest_arrival = s.newest.arrival;
  p.last_position = s.last_position;
  payload->assign(reinterpret_cast<const char*>(&p), sizeof(p));
  if (s.kept) payload->append(row(s));
}

Status KeyTable::FromRecord(std::string_view key, std::string_view payload, KeyState* s, std::string_view* key_bytes,
                            std::string_view* row) {
  if (key.size() < 10 || payload.size() < sizeof(Packed)) {
    return Corrupt("a spilled key state is cut ({} key bytes, {} payload bytes)", key.size(), payload.size());
  }
  Packed p;
  std::memcpy(&p, payload.data(), sizeof(p));
  *s = KeyState();
  s->shard = static_cast<uint16_t>((static_cast<uint8_t>(key[0]) << 8) | static_cast<uint8_t>(key[1]));
  for (int b = 0; b < 8; ++b) s->hash = (s->hash << 8) | static_cast<uint8_t>(key[2 + b]);
  s->kept = p.kept != 0;
  s->first_kind = static_cast<RowKind>(p.first_kind);
  s->last_kind = static_cast<RowKind>(p.last_kind);
  s->first = {p.first_seq, p.first_cls, p.first_arrival};
  s->last = {p.last_seq, p.last_cls, p.last_arrival};
  s->newest = {p.newest_seq, p.newest_cls, p.newest_arrival};
  s->applied = p.applied;
  s->last_position = p.last_position;
  *key_bytes = key.substr(10);
  *row = payload.substr(sizeof(Packed));
  return Ok();
}

void KeyTable::Combine(KeyState* into, std::string_view* into_row, const KeyState& other, std::string_view other_row) {
  into->applied += other.applied;
  if (into->newest < other.newest) into->newest = other.newest;
  if (!other.kept) return;
  if (!into->kept || other.first < into->first) {
    into->first = other.first;
    into->first_kind = other.first_kind;
  }
  if (!into->kept || into->last < other.last) {
    into->last = other.last;
    into->last_kind = other.last_kind;
    into->last_position = other.last_position;
    *into_row = other_row;
  }
  into->kept = true;
}

}  // namespace floe::sink
