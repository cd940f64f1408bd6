#include "floe/table/delete_filter.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <xxhash.h>

namespace floe::table {

namespace {

bool FindPath(const std::vector<NestedField>& fields, int32_t id, std::vector<int>* path, bool* in_collection,
              bool under_collection) {
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto& f = fields[i];
    path->push_back(static_cast<int>(i));
    if (f.id == id) {
      *in_collection = under_collection;
      return true;
    }
    if (f.type->is_nested()) {
      bool coll = under_collection || f.type->id != TypeId::kStruct;
      if (FindPath(f.type->fields, id, path, in_collection, coll)) return true;
    }
    path->pop_back();
  }
  return false;
}

}  // namespace

Result<std::vector<int>> FieldPath(const Schema& schema, int32_t field_id) {
  std::vector<int> path;
  bool in_collection = false;
  if (!FindPath(schema.fields(), field_id, &path, &in_collection, false)) {
    return NotFound("field id {} is not in the schema", field_id);
  }
  if (in_collection) {
    return InvalidArgument("field id {} is inside a list or map and cannot be an equality field", field_id);
  }
  return path;
}

void PositionDeletes::AddAll(std::span<const int64_t> positions) {
  positions_.insert(positions_.end(), positions.begin(), positions.end());
  sorted_ = false;
}

void PositionDeletes::Sort() {
  if (sorted_) return;
  // One position delete file or vector per data file (floe's, Spark's) lists
  // its positions in order: a check, not a sort (the sort was 11 % of a scan
  // after 100 commits of updates).
  if (!std::is_sorted(positions_.begin(), positions_.end())) std::sort(positions_.begin(), positions_.end());
  positions_.erase(std::unique(positions_.begin(), positions_.end()), positions_.end());
  sorted_ = true;
}

void PositionDeletes::Apply(int64_t first_row, std::span<uint8_t> keep) {
  Sort();
  const int64_t end = first_row + static_cast<int64_t>(keep.size());
  auto it = std::lower_bound(positions_.begin(), positions_.end(), first_row);
  for (; it != positions_.end() && *it < end; ++it) keep[static_cast<size_t>(*it - first_row)] = 0;
}

Result<EqualityDeletes> EqualityDeletes::Make(std::vector<int32_t> field_ids, const Schema& schema) {
  if (field_ids.empty()) return InvalidArgument("an equality delete file needs equality_ids");
  EqualityDeletes out;
  for (int32_t id : field_ids) {
    FLOE_ASSIGN_OR_RETURN(auto path, FieldPath(schema, id));
    const NestedField* f = schema.FindField(id);
    if (f->type->is_nested()) {
      return InvalidArgument("equality field '{}' (id {}) is {}, not a primitive", f->name, id, f->type->ToString());
    }
    out.paths_.push_back(std::move(path));
  }
  out.field_ids_ = std::move(field_ids);
  return out;
}

Status EqualityDeletes::FlatKeys(const Batch& batch, std::string* bytes, std::vector<size_t>* ends) const {
  const int64_t n = batch.num_rows;
  // Per key field: its column (down structs) and its validity with parent nulls folded in.
  struct Field {
    const ColumnVector* col;
    std::vector<uint8_t> valid;  ///< empty: every row valid
    TypeId id;
    int width;
  };
  std::vector<Field> fields;
  fields.reserve(paths_.size());
  for (const auto& path : paths_) {
    if (path[0] >= static_cast<int>(batch.columns.size())) {
      return Internal("equality key column is missing from the batch");
    }
    Field f{&batch.columns[path[0]], {}, TypeId::kBoolean, 0};
    for (size_t level = 0;; ++level) {
      if (f.col->has_nulls()) {
        if (f.valid.empty()) f.valid.assign(static_cast<size_t>(n), 1);
        for (int64_t i = 0; i < n; ++i) f.valid[i] &= f.col->validity[i];
      }
      if (level + 1 >= path.size()) break;
      f.col = &f.col->children[path[level + 1]];
    }
    f.id = f.col->type->id;
    f.width = FixedValueWidth(*f.col->type);
    fields.push_back(std::move(f));
  }
  bytes->clear();
  ends->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    for (const Field& f : fields) {
      if (!f.valid.empty() && !f.valid[i]) {
        bytes->push_back('\0');
        continue;
      }
      bytes->push_back('\1');
      if (f.id == TypeId::kString || f.id == TypeId::kBinary) {
        std::string_view b = f.col->bytes(i);
        uint64_t len = b.size();
        bytes->append(reinterpret_cast<const char*>(&len), sizeof(len));
        bytes->append(b);
      } else if (f.id == TypeId::kFloat || f.id == TypeId::kDouble) {
        // Not valid equality keys per the spec; compared by value here
        // (every NaN equal, -0.0 == 0.0) so that such deletes stay sane.
        double d = f.id == TypeId::kFloat ? f.col->data<float>()[i] : f.col->data<double>()[i];
        if (std::isnan(d)) d = std::nan("");
        if (d == 0) d = 0;
        bytes->append(reinterpret_cast<const char*>(&d), sizeof(d));
      } else {
        bytes->append(reinterpret_cast<const char*>(f.col->values.data()) + static_cast<size_t>(i) * f.width,
                      static_cast<size_t>(f.width));
      }
    }
    (*ends)[static_cast<size_t>(i)] = bytes->size();
  }
  return Ok();
}

Status EqualityDeletes::EncodeKeys(const Batch& batch, std::vector<std::string>* keys) const {
  std::string bytes;
  std::vector<size_t> ends;
  FLOE_RETURN_IF_ERROR(FlatKeys(batch, &bytes, &ends));
  keys->resize(ends.size());
  size_t start = 0;
  for (size_t i = 0; i < ends.size(); ++i) {
    (*keys)[i].assign(bytes, start, ends[i] - start);
    start = ends[i];
  }
  return Ok();
}

Status EqualityDeletes::AddDeletes(const Batch& deletes) {
  std::vector<std::string> keys;
  FLOE_RETURN_IF_ERROR(EncodeKeys(deletes, &keys));
  for (auto& k : keys) keys_.insert(std::move(k));
  return Ok();
}

Status EqualityDeletes::Apply(const Batch& data, std::span<uint8_t> keep) const {
  if (keys_.empty()) return Ok();
  std::vector<std::string> keys;
  FLOE_RETURN_IF_ERROR(EncodeKeys(data, &keys));
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keep[i] && keys_.contains(keys[i])) keep[i] = 0;
  }
  return Ok();
}

Result<EqualityDeleteIndex> EqualityDeleteIndex::Make(std::vector<int32_t> field_ids, const Schema& schema) {
  EqualityDeleteIndex out;
  FLOE_ASSIGN_OR_RETURN(out.encoder_, EqualityDeletes::Make(std::move(field_ids), schema));
  out.slots_.assign(1024, 0);
  return out;
}

bool EqualityDeleteIndex::Matches(const Entry& e, std::string_view key) const {
  if (e.key_length != key.size()) return false;
  const char* stored = key.size() <= kInline ? e.inline_key : arena_.data() + e.key_offset;
  return std::memcmp(stored, key.data(), key.size()) == 0;
}

size_t EqualityDeleteIndex::FindSlot(std::string_view key, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  const uint64_t tag = hash >> 32;
  for (size_t i = static_cast<size_t>(hash) & mask;; i = (i + 1) & mask) {
    const uint64_t slot = slots_[i];
    if (slot == 0) return i;
    if ((slot >> 32) == tag && Matches(entries_[(slot & 0xFFFFFFFFu) - 1], key)) return i;
  }
}

void EqualityDeleteIndex::Grow() {
  slots_.assign(slots_.size() * 2, 0);
  const size_t mask = slots_.size() - 1;
  for (size_t e = 0; e < entries_.size(); ++e) {
    const uint64_t hash = entries_[e].hash;
    size_t i = static_cast<size_t>(hash) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = ((hash >> 32) << 32) | (e + 1);
  }
}

Result<uint32_t> EqualityDeleteIndex::Add(const std::vector<Batch>& batches) {
  if (files_ == kNone - 1) return Internal("EqualityDeleteIndex: too many delete files");
  const uint32_t ordinal = files_++;
  std::string bytes;
  std::vector<size_t> ends;
  for (const Batch& b : batches) {
    FLOE_RETURN_IF_ERROR(encoder_.FlatKeys(b, &bytes, &ends));
    size_t start = 0;
    for (size_t end : ends) {
      const std::string_view k(bytes.data() + start, end - start);
      start = end;
      if (entries_.size() >= UINT32_MAX - 1) return Internal("EqualityDeleteIndex: too many keys");
      if ((entries_.size() + 1) * 2 > slots_.size()) Grow();
      const uint64_t hash = XXH3_64bits(k.data(), k.size());
      const size_t at = FindSlot(k, hash);
      if (slots_[at] == 0) {
        Entry e;
        e.hash = hash;
        e.key_length = static_cast<uint32_t>(k.size());
        e.first = ordinal;
        if (k.size() <= kInline) {
          std::memcpy(e.inline_key, k.data(), k.size());
        } else {
          e.key_offset = arena_.size();
          arena_.append(k);
        }
        entries_.push_back(e);
        slots_[at] = ((hash >> 32) << 32) | entries_.size();
        continue;
      }
      Entry& e = entries_[(slots_[at] & 0xFFFFFFFFu) - 1];
      if (e.first == ordinal) continue;  // a key twice in one file
      if (e.more == kNone) {
        e.more = static_cast<uint32_t>(more_.size());
        more_.push_back({ordinal});
      } else if (more_[e.more].back() != ordinal) {
        more_[e.more].push_back(ordinal);
      }
    }
  }
  return ordinal;
}

Status EqualityDeleteIndex::Apply(const Batch& data, std::span<const uint8_t> applies,
                                  std::span<uint8_t> keep) const {
  if (entries_.empty()) return Ok();
  auto applies_to = [&](uint32_t ordinal) { return ordinal < applies.size() && applies[ordinal] != 0; };
  std::string bytes;
  std::vector<size_t> ends;
  FLOE_RETURN_IF_ERROR(encoder_.FlatKeys(data, &bytes, &ends));
  const size_t n = ends.size();
  // Hashes first, then probes with the slots of a few rows ahead prefetched
  // (the table is far larger than the caches: the probes are memory-bound).
  std::vector<uint64_t> hashes(n);
  for (size_t i = 0, start = 0; i < n; start = ends[i], ++i) {
    hashes[i] = XXH3_64bits(bytes.data() + start, ends[i] - start);
  }
  const size_t mask = slots_.size() - 1;
  constexpr size_t kAhead = 16;
  for (size_t i = 0; i < std::min(n, kAhead); ++i) __builtin_prefetch(&slots_[hashes[i] & mask]);
  for (size_t i = 0, start = 0; i < n; start = ends[i], ++i) {
    if (i + kAhead < n) __builtin_prefetch(&slots_[hashes[i + kAhead] & mask]);
    if (!keep[i]) continue;
    const std::string_view k(bytes.data() + start, ends[i] - start);
    const uint64_t slot = slots_[FindSlot(k, hashes[i])];
    if (slot == 0) continue;
    const Entry& e = entries_[(slot & 0xFFFFFFFFu) - 1];
    bool deleted = applies_to(e.first);
    if (!deleted && e.more != kNone) {
      for (uint32_t o : more_[e.more]) {
        if (applies_to(o)) {
          deleted = true;
          break;
        }
      }
    }
    if (deleted) keep[i] = 0;
  }
  return Ok();
}

}  // namespace floe::table
