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
  std::sort(positions_.begin(), positions_.end());
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

Status EqualityDeletes::EncodeKeys(const Batch& batch, std::vector<std::string>* keys) const {
  const int64_t n = batch.num_rows;
  keys->assign(static_cast<size_t>(n), std::string());
  for (const auto& path : paths_) {
    if (path[0] >= static_cast<int>(batch.columns.size())) {
      return Internal("equality key column is missing from the batch");
    }
    // Walk down structs, folding parent nulls into the field's validity.
    const ColumnVector* col = &batch.columns[path[0]];
    std::vector<uint8_t> valid(static_cast<size_t>(n), 1);
    for (size_t level = 0;; ++level) {
      if (col->has_nulls()) {
        for (int64_t i = 0; i < n; ++i) valid[i] &= col->validity[i];
      }
      if (level + 1 >= path.size()) break;
      col = &col->children[path[level + 1]];
    }
    const TypeId id = col->type->id;
    const int width = FixedValueWidth(*col->type);
    for (int64_t i = 0; i < n; ++i) {
      std::string& k = (*keys)[i];
      if (!valid[i]) {
        k.push_back('\0');
        continue;
      }
      k.push_back('\1');
      if (id == TypeId::kString || id == TypeId::kBinary) {
        std::string_view b = col->bytes(i);
        uint64_t len = b.size();
        k.append(reinterpret_cast<const char*>(&len), sizeof(len));
        k.append(b);
      } else if (id == TypeId::kFloat || id == TypeId::kDouble) {
        // Not valid equality keys per the spec; compared by value here
        // (every NaN equal, -0.0 == 0.0) so that such deletes stay sane.
        double d = id == TypeId::kFloat ? col->data<float>()[i] : col->data<double>()[i];
        if (std::isnan(d)) d = std::nan("");
        if (d == 0) d = 0;
        k.append(reinterpret_cast<const char*>(&d), sizeof(d));
      } else {
        k.append(reinterpret_cast<const char*>(col->values.data()) + static_cast<size_t>(i) * width,
                 static_cast<size_t>(width));
      }
    }
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
  out.slots_.resize(1024);
  return out;
}

size_t EqualityDeleteIndex::FindSlot(std::string_view key, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = static_cast<size_t>(hash) & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.first == kEmpty) return i;
    if (s.hash == hash && s.key_length == key.size() &&
        std::memcmp(arena_.data() + s.key_offset, key.data(), key.size()) == 0) {
      return i;
    }
  }
}

void EqualityDeleteIndex::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.size() * 2, Slot{});
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.first == kEmpty) continue;
    size_t i = static_cast<size_t>(s.hash) & mask;
    while (slots_[i].first != kEmpty) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

Result<uint32_t> EqualityDeleteIndex::Add(const std::vector<Batch>& batches) {
  if (files_ == kEmpty - 1) return Internal("EqualityDeleteIndex: too many delete files");
  const uint32_t ordinal = files_++;
  std::vector<std::string> keys;
  for (const Batch& b : batches) {
    FLOE_RETURN_IF_ERROR(encoder_.Keys(b, &keys));
    for (const auto& k : keys) {
      if ((used_ + 1) * 2 > slots_.size()) Grow();
      const uint64_t hash = XXH3_64bits(k.data(), k.size());
      Slot& s = slots_[FindSlot(k, hash)];
      if (s.first == kEmpty) {
        s.hash = hash;
        s.key_offset = arena_.size();
        s.key_length = static_cast<uint32_t>(k.size());
        s.first = ordinal;
        arena_.append(k);
        ++used_;
        continue;
      }
      if (s.first == ordinal) continue;  // a key twice in one file
      if (s.more == kEmpty) {
        s.more = static_cast<uint32_t>(more_.size());
        more_.push_back({ordinal});
      } else if (more_[s.more].back() != ordinal) {
        more_[s.more].push_back(ordinal);
      }
    }
  }
  return ordinal;
}

Status EqualityDeleteIndex::Apply(const Batch& data, std::span<const uint8_t> applies,
                                  std::span<uint8_t> keep) const {
  if (used_ == 0) return Ok();
  auto applies_to = [&](uint32_t ordinal) { return ordinal < applies.size() && applies[ordinal] != 0; };
  std::vector<std::string> keys;
  FLOE_RETURN_IF_ERROR(encoder_.Keys(data, &keys));
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!keep[i]) continue;
    const Slot& s = slots_[FindSlot(keys[i], XXH3_64bits(keys[i].data(), keys[i].size()))];
    if (s.first == kEmpty) continue;
    bool deleted = applies_to(s.first);
    if (!deleted && s.more != kEmpty) {
      for (uint32_t o : more_[s.more]) {
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
