// The key index of a merge-on-read destination (key_index.h).
#include "floe/sink/key_index.h"

#include <xxhash.h>

#include <algorithm>
#include <functional>

#include "floe/sink/change_rows.h"
#include "floe/table/scan.h"
#include "floe/table/table_reader.h"
#include "floe/types/column_ops.h"

namespace floe::sink {

std::optional<KeyIndex::Hit> KeyIndex::Find(uint64_t hash) const {
  if (size_ == 0) return std::nullopt;
  hash = hash ? hash : 1;
  for (size_t i = Home(hash);; i = Next(i)) {
    const Slot& s = slots_[i];
    if (s.hash == 0) return std::nullopt;
    if (s.hash == hash) {
      Hit h;
      h.seq = s.seq;
      if (s.loc == kAmbiguous) {
        h.ambiguous = true;
      } else {
        h.file = static_cast<uint32_t>(s.loc >> kPosBits);
        h.pos = static_cast<int64_t>(s.loc & kPosMask);
      }
      return h;
    }
  }
}

void KeyIndex::Reserve(size_t keys) {
  const size_t want = keys + keys / 4 + 16;
  if (want > slots_.size()) Grow(want);
}

void KeyIndex::Grow(size_t capacity) {
  std::vector<Slot, HugePageAllocator<Slot>> old;
  old.swap(slots_);
  slots_.assign(capacity, Slot{});
  for (const Slot& s : old) {
    if (s.hash == 0) continue;
    size_t i = Home(s.hash);
    while (slots_[i].hash != 0) i = Next(i);
    slots_[i] = s;
  }
}

void KeyIndex::Put(uint64_t hash, uint32_t file, int64_t pos, int64_t seq) {
  hash = hash ? hash : 1;
  // At most 0.9 full: then 1.5 times larger.
  if ((size_ + 1) * 10 > slots_.size() * 9) Grow(std::max<size_t>(64, slots_.size() + slots_.size() / 2));
  const uint64_t loc = (uint64_t{file} << kPosBits) | (static_cast<uint64_t>(pos) & kPosMask);
  for (size_t i = Home(hash);; i = Next(i)) {
    Slot& s = slots_[i];
    if (s.hash == 0) {
      s = Slot{hash, loc, seq};
      ++size_;
      return;
    }
    if (s.hash == hash) {
      if (s.loc != loc) s.loc = kAmbiguous;
      s.seq = std::max(s.seq, seq);
      return;
    }
  }
}

void KeyIndex::Remove(uint64_t hash) {
  if (size_ == 0) return;
  hash = hash ? hash : 1;
  size_t i = Home(hash);
  for (;; i = Next(i)) {
    if (slots_[i].hash == 0) return;
    if (slots_[i].hash == hash) break;
  }
  // Backward-shift deletion: later slots of the run move up when their home
  // is not in (i, j].
  size_t j = i;
  for (;;) {
    j = Next(j);
    if (slots_[j].hash == 0) break;
    const size_t k = Home(slots_[j].hash);
    const bool in_range = i <= j ? (i < k && k <= j) : (i < k || k <= j);
    if (in_range) continue;
    slots_[i] = slots_[j];
    i = j;
  }
  slots_[i] = Slot{};
  --size_;
}

bool KeyIndex::Drop(const std::vector<char>& keep, const std::vector<std::vector<uint64_t>>& deleted) {
  std::vector<uint64_t> drop;
  for (const Slot& s : slots_) {
    if (s.hash == 0) continue;
    if (s.loc == kAmbiguous) return false;
    const uint64_t file = s.loc >> kPosBits;
    if (file >= keep.size() || !keep[file]) {
      drop.push_back(s.hash);
      continue;
    }
    if (file >= deleted.size()) continue;
    const std::vector<uint64_t>& bits = deleted[file];
    const uint64_t pos = s.loc & kPosMask;
    if (pos / 64 < bits.size() && (bits[pos / 64] >> (pos % 64) & 1) != 0) drop.push_back(s.hash);
  }
  for (uint64_t h : drop) Remove(h);
  return true;
}

uint32_t KeyIndex::AddFile(const iceberg::DataFile& file, int32_t spec_id) {
  auto [it, added] = file_ordinals_.emplace(file.file_path, static_cast<uint32_t>(files_.size()));
  if (added) {
    FileRef ref{file, spec_id};
    ref.file.column_sizes.clear();
    ref.file.value_counts.clear();
    ref.file.null_value_counts.clear();
    ref.file.nan_value_counts.clear();
    ref.file.lower_bounds.clear();
    ref.file.upper_bounds.clear();
    files_.push_back(std::move(ref));
  }
  return it->second;
}

size_t KeyIndex::memory_bytes() const {
  size_t bytes = slots_.capacity() * sizeof(Slot);
  for (const FileRef& f : files_) bytes += sizeof(FileRef) + f.file.file_path.capacity() + 64;
  return bytes;
}

void KeyIndex::Clear() {
  slots_ = {};
  size_ = 0;
  files_.clear();
  file_ordinals_.clear();
  snapshot_id.reset();
  built = false;
  has_sequence_ = false;
}

namespace {

// The top-level columns that hold the key (a struct holds a nested key), and
// the sequence column when the table has it at the top level.
std::vector<std::string> KeyColumns(const Schema& schema, const std::vector<int32_t>& eq_ids,
                                    const std::string& seq_column, bool* has_seq) {
  std::vector<std::string> cols;
  for (int32_t id : eq_ids) {
    for (const auto& f : schema.fields()) {
      std::function<bool(const NestedField&)> holds = [&](const NestedField& n) {
        if (n.id == id) return true;
        if (n.type->id != TypeId::kStruct) return false;
        return std::any_of(n.type->fields.begin(), n.type->fields.end(), holds);
      };
      if (holds(f) && std::find(cols.begin(), cols.end(), f.name) == cols.end()) cols.push_back(f.name);
    }
  }
  *has_seq = false;
  if (!seq_column.empty()) {
    for (const auto& f : schema.fields()) {
      if (f.name == seq_column && (f.type->id == TypeId::kLong || f.type->id == TypeId::kInt) &&
          std::find(cols.begin(), cols.end(), f.name) == cols.end()) {
        cols.push_back(f.name);
        *has_seq = true;
      }
    }
  }
  return cols;
}

int64_t SeqAt(const ColumnVector& c, TypeId type, int64_t i) {
  if (c.IsNull(i)) return KeyIndex::kNoSeq;
  return type == TypeId::kLong ? c.data<int64_t>()[i] : c.data<int32_t>()[i];
}

// Reads `plan` range by range, calling `row(ordinal of the task's file,
// batch, row)` for every live row (batch.positions set).
Status ReadRows(const table::Table& table, const table::ScanPlan& plan, const std::vector<uint32_t>& ordinals,
                const std::function<void(uint32_t, const Batch&)>& emit) {
  auto cache = table::MakeDeleteCache();
  for (const table::ScanSplit& split : plan.splits) {
    for (const table::FileRange& r : split) {
      const uint32_t ordinal = ordinals[static_cast<size_t>(r.file)];
      FLOE_RETURN_IF_ERROR(table::ReadFileRange(
          plan, plan.files[static_cast<size_t>(r.file)], r, *table.io(), 65536,
          [&](Batch&& b) -> Status {
            emit(ordinal, b);
            return Ok();
          },
          cache.get()));
    }
  }
  return Ok();
}

// The delete files a task's rows are read with, as one number (0: none):
// their paths and, for a deletion vector, where its blob is.
uint64_t DeleteFingerprint(const table::FileScanTask& t, bool equality_only = false) {
  if (t.deletes.empty()) return 0;
  std::vector<uint64_t> parts;
  for (const auto& d : t.deletes) {
    if (equality_only && d->file.content != iceberg::DataFileContent::kEqualityDeletes) continue;
    const std::string id = fmt::format("{}@{}", d->file.file_path, d->file.content_offset.value_or(-1));
    parts.push_back(XXH3_64bits(id.data(), id.size()));
  }
  if (parts.empty()) return 0;
  std::sort(parts.begin(), parts.end());
  const uint64_t h = XXH3_64bits(parts.data(), parts.size() * sizeof(uint64_t));
  return h ? h : 1;
}

// Adds every row of `batches` of `plan` to the index.
Status IndexPlan(const table::Table& table, table::ScanPlan& plan, const std::vector<int32_t>& eq_ids, bool has_seq,
                 const std::string& seq_column, KeyIndex* index) {
  plan.row_positions = true;
  if (has_seq) index->set_has_sequence(true);
  std::vector<uint32_t> ordinals;
  for (const table::FileScanTask& t : plan.files) {
    ordinals.push_back(index->AddFile(t.data_file, t.spec_id));
    index->SetFileState(ordinals.back(), DeleteFingerprint(t), DeleteFingerprint(t, true), true);
  }
  FLOE_ASSIGN_OR_RETURN(KeyEncoder enc, KeyEncoder::Make(*plan.projected_schema, eq_ids));
  int seq_index = -1;
  TypeId seq_type = TypeId::kLong;
  if (has_seq) {
    for (int i = 0; i < plan.projected_schema->num_fields(); ++i) {
      if (plan.projected_schema->fields()[i].name == seq_column) {
        seq_index = i;
        seq_type = plan.projected_schema->fields()[i].type->id;
      }
    }
  }
  std::string key, null_column;
  struct Pending {
    uint64_t hash;
    int64_t row;
  };
  std::vector<Pending> pending;
  return ReadRows(table, plan, ordinals, [&](uint32_t ordinal, const Batch& b) {
    // Hashes first, then the slots, prefetched a few keys ahead (the table
    // is far larger than the caches: a miss per key otherwise).
    pending.clear();
    for (int64_t i = 0; i < b.num_rows; ++i) {
      key.clear();
      if (!enc.Encode(b, i, &key, &null_column)) continue;  // a null key: not a key of this sink
      pending.push_back({XXH3_64bits(key.data(), key.size()), i});
    }
    constexpr size_t kAhead = 12;
    for (size_t j = 0; j < pending.size(); ++j) {
      if (j + kAhead < pending.size()) index->Prefetch(pending[j + kAhead].hash);
      const int64_t i = pending[j].row;
      const int64_t seq = seq_index >= 0 ? SeqAt(b.columns[static_cast<size_t>(seq_index)], seq_type, i)
                                         : KeyIndex::kNoSeq;
      index->Put(pending[j].hash, ordinal, b.positions[static_cast<size_t>(i)], seq);
    }
  });
}

// A plan of `files` (no deletes) of `table`'s current schema, reading `cols`.
Result<table::ScanPlan> FilesPlan(const table::Table& table, const std::vector<iceberg::DataFile>& files,
                                  int32_t spec_id, const std::vector<std::string>& cols) {
  auto metadata = std::make_shared<const iceberg::TableMetadata>(table.metadata());
  table::ScanOptions so;
  so.columns = cols;
  FLOE_ASSIGN_OR_RETURN(table::ScanPlan plan, table::PlanShape(metadata, so));
  for (const auto& f : files) {
    table::FileScanTask task;
    task.data_file = f;
    task.spec_id = spec_id;
    plan.files.push_back(std::move(task));
    table::FileRange r;
    r.file = static_cast<int64_t>(plan.files.size() - 1);
    r.start = 0;
    r.length = f.file_size_in_bytes;
    plan.splits.push_back({r});
  }
  return plan;
}

}  // namespace

Status BuildKeyIndex(const table::Table& table, const std::string& branch, const std::vector<int32_t>& eq_ids,
                     const std::string& seq_column, KeyIndex* index) {
  index->Clear();
  index->built = true;
  const iceberg::TableMetadata& meta = table.metadata();
  table::ScanOptions so;
  if (!branch.empty() && meta.refs.contains(branch)) {
    so.branch = branch;
  } else if (!meta.current_snapshot_id) {
    return Ok();  // no rows yet
  }
  bool has_seq = false;
  so.columns = KeyColumns(*meta.CurrentSchema(), eq_ids, seq_column, &has_seq);
  auto metadata = std::make_shared<const iceberg::TableMetadata>(meta);
  table::FileManifestSource manifests(*metadata, table.io());
  FLOE_ASSIGN_OR_RETURN(table::ScanPlan plan, table::PlanScan(metadata, so, &manifests));
  index->snapshot_id = plan.snapshot_id;
  int64_t rows = 0;
  for (const auto& t : plan.files) rows += t.data_file.record_count;
  index->Reserve(static_cast<size_t>(std::max<int64_t>(rows, 0)));
  return IndexPlan(table, plan, eq_ids, has_seq, seq_column, index);
}

Result<bool> CatchUpKeyIndex(const table::Table& table, const std::string& branch, const std::vector<int32_t>& eq_ids,
                             const std::string& seq_column, KeyIndex* index) {
  if (!index->built) return false;
  const iceberg::TableMetadata& meta = table.metadata();
  table::ScanOptions so;
  if (!branch.empty() && meta.refs.contains(branch)) {
    so.branch = branch;
  } else if (!meta.current_snapshot_id) {
    return false;  // no rows: nothing to catch up with
  }
  bool has_seq = false;
  so.columns = KeyColumns(*meta.CurrentSchema(), eq_ids, seq_column, &has_seq);
  if (has_seq != index->has_sequence()) return false;
  auto metadata = std::make_shared<const iceberg::TableMetadata>(meta);
  table::FileManifestSource manifests(*metadata, table.io());
  FLOE_ASSIGN_OR_RETURN(table::ScanPlan plan, table::PlanScan(metadata, so, &manifests));
  // A file whose rows the index holds as they are now is kept; one whose
  // position deletes (or deletion vector) changed, and nothing else, is kept
  // without its deleted positions (read from the delete files); the others
  // (new, or with other equality deletes) are read again.
  std::vector<char> keep(index->file_count(), 0);
  std::vector<table::FileScanTask> reread;
  std::vector<std::vector<uint64_t>> deleted;  // by ordinal: the positions deleted now, as bits
  for (table::FileScanTask& t : plan.files) {
    const auto ordinal = index->FindFile(t.data_file.file_path);
    const uint64_t fingerprint = DeleteFingerprint(t);
    if (ordinal && index->file(*ordinal).live && index->file(*ordinal).deletes == fingerprint) {
      keep[*ordinal] = 1;
    } else if (ordinal && index->file(*ordinal).live &&
               index->file(*ordinal).equality_deletes == DeleteFingerprint(t, true)) {
      keep[*ordinal] = 1;
      FLOE_ASSIGN_OR_RETURN(std::vector<int64_t> positions, table::DeletedPositions(plan, t, *table.io()));
      if (deleted.size() <= *ordinal) deleted.resize(*ordinal + 1);
      std::vector<uint64_t>& bits = deleted[*ordinal];
      bits.assign(static_cast<size_t>(std::max<int64_t>(t.data_file.record_count, 0) + 63) / 64, 0);
      for (int64_t p : positions) {
        if (p >= 0 && static_cast<size_t>(p / 64) < bits.size()) bits[static_cast<size_t>(p / 64)] |= uint64_t{1} << (p % 64);
      }
      index->SetFileState(*ordinal, fingerprint, index->file(*ordinal).equality_deletes, true);
    } else {
      reread.push_back(std::move(t));
    }
  }
  if (!index->Drop(keep, deleted)) return false;
  for (uint32_t i = 0; i < keep.size(); ++i) {
    if (!keep[i]) index->SetFileState(i, 0, 0, false);
  }
  plan.files = std::move(reread);
  plan.splits.clear();
  for (size_t i = 0; i < plan.files.size(); ++i) {
    table::FileRange r;
    r.file = static_cast<int64_t>(i);
    r.start = 0;
    r.length = plan.files[i].data_file.file_size_in_bytes;
    plan.splits.push_back({r});
  }
  FLOE_RETURN_IF_ERROR(IndexPlan(table, plan, eq_ids, has_seq, seq_column, index));
  index->snapshot_id = plan.snapshot_id;
  return true;
}

Status IndexDataFiles(const table::Table& table, const std::vector<iceberg::DataFile>& files, int32_t spec_id,
                      const std::vector<int32_t>& eq_ids, const std::string& seq_column, KeyIndex* index) {
  if (files.empty()) return Ok();
  bool has_seq = false;
  const auto cols = KeyColumns(*table.metadata().CurrentSchema(), eq_ids, seq_column, &has_seq);
  FLOE_ASSIGN_OR_RETURN(table::ScanPlan plan, FilesPlan(table, files, spec_id, cols));
  return IndexPlan(table, plan, eq_ids, has_seq, seq_column, index);
}

Result<std::vector<std::string>> ReadFileKeys(const table::Table& table, const iceberg::DataFile& file,
                                              int32_t spec_id, const std::vector<int32_t>& eq_ids) {
  bool has_seq = false;
  const auto cols = KeyColumns(*table.metadata().CurrentSchema(), eq_ids, "", &has_seq);
  FLOE_ASSIGN_OR_RETURN(table::ScanPlan plan, FilesPlan(table, {file}, spec_id, cols));
  plan.row_positions = true;
  FLOE_ASSIGN_OR_RETURN(KeyEncoder enc, KeyEncoder::Make(*plan.projected_schema, eq_ids));
  std::vector<std::string> keys(static_cast<size_t>(std::max<int64_t>(file.record_count, 0)));
  std::string key, null_column;
  FLOE_RETURN_IF_ERROR(ReadRows(table, plan, {0}, [&](uint32_t, const Batch& b) {
    for (int64_t i = 0; i < b.num_rows; ++i) {
      key.clear();
      const size_t pos = static_cast<size_t>(b.positions[static_cast<size_t>(i)]);
      if (pos >= keys.size()) keys.resize(pos + 1);
      if (enc.Encode(b, i, &key, &null_column)) keys[pos] = key;
    }
  }));
  return keys;
}

Result<Batch> ReadFileRow(const table::Table& table, const iceberg::DataFile& file, int32_t spec_id,
                          const std::vector<std::string>& cols, int64_t pos) {
  FLOE_ASSIGN_OR_RETURN(table::ScanPlan plan, FilesPlan(table, {file}, spec_id, cols));
  plan.row_positions = true;
  std::optional<Batch> found;
  FLOE_RETURN_IF_ERROR(ReadRows(table, plan, {0}, [&](uint32_t, const Batch& b) {
    for (int64_t i = 0; i < b.num_rows && !found; ++i) {
      if (b.positions[static_cast<size_t>(i)] == pos) {
        const int64_t one[] = {i};
        found = Take(b, one);
      }
    }
  }));
  if (!found) return NotFound("data file {} has no row at position {}", file.file_path, pos);
  return std::move(*found);
}

}  // namespace floe::sink
