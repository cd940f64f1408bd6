// The CDC window (change_window.h): key states in, data and equality delete
// files out.
#include "floe/sink/change_window.h"

#include <algorithm>

namespace floe::sink {

namespace {
// Rows decoded before a batch goes to a writer.
constexpr int64_t kOutputBatchRows = 8192;
}  // namespace

ChangeWindow::ChangeWindow(SchemaPtr schema, size_t spill_chunk)
    : codec_(std::move(schema)), spill_chunk_(spill_chunk) {}

ChangeWindow::~ChangeWindow() = default;

Result<std::unique_ptr<ChangeWindow>> ChangeWindow::Make(SchemaPtr table_schema, size_t state_limit,
                                                         size_t spill_chunk, std::string spill_dir) {
  std::unique_ptr<ChangeWindow> w(new ChangeWindow(std::move(table_schema), spill_chunk));
  w->states_.SetLimit(state_limit);
  SpillSorterOptions so;
  so.spill_dir = std::move(spill_dir);
  FLOE_ASSIGN_OR_RETURN(w->sorter_, SpillSorter::Make(so));
  return w;
}

Status ChangeWindow::Add(uint64_t hash, uint16_t shard, std::string_view key, const ChangeOrder& order, RowKind kind,
                         bool kept, std::string_view row, int64_t position, int64_t* spilled_runs) {
  if (states_.WouldExceed(key.size(), row.size())) {
    // Full: spill the states, keeping the table's memory for the next ones.
    FLOE_RETURN_IF_ERROR(SpillStates(/*keep_memory=*/true, spilled_runs));
  }
  states_.Add(hash, shard, key, order, kind, kept, row, position);
  return Ok();
}

Status ChangeWindow::SpillStates(bool keep_memory, int64_t* spilled_runs) {
  // The states go out in runs of at most spill_chunk_ bytes, so the sorter's
  // copy never doubles the memory the states hold.
  std::string key, payload;
  for (const KeyState& st : states_.states()) {
    states_.ToRecord(st, &key, &payload);
    FLOE_RETURN_IF_ERROR(sorter_->Add(key, payload));
    if (sorter_->memory_used() >= spill_chunk_) {
      FLOE_RETURN_IF_ERROR(sorter_->Spill());
      ++*spilled_runs;
    }
  }
  if (keep_memory) {
    states_.Reset();
  } else {
    states_.Clear();
  }
  if (sorter_->memory_used() > 0) {
    FLOE_RETURN_IF_ERROR(sorter_->Spill());
    ++*spilled_runs;
  }
  ++spills_;
  return Ok();
}

// Collapses each key's changes (change_sink.h) and writes the window's data
// and equality delete files, writer after writer.
Result<WindowFiles> ChangeWindow::Prepare(const ChangeFlush& f, ChangeFlushStats* stats) {
  const iceberg::TableMetadata& meta = f.table->metadata();
  const std::string name = f.table->id().ToString();
  const SchemaPtr schema = meta.CurrentSchema();
  FLOE_ASSIGN_OR_RETURN(SchemaPtr eq_schema, table::ProjectSchema(*schema, *f.eq_ids));
  const int writers_wanted = std::max(1, f.writers);
  auto writer_of_shard = [&](int shard) {
    return static_cast<int>(int64_t{shard} * writers_wanted / std::max(1, f.num_shards));
  };

  Batch out(schema), del_rows(schema);
  table::PartitionedWriter* writer = nullptr;
  table::EqualityDeleteWriter* delete_writer = nullptr;
  int current = -1;
  auto flush_out = [&]() -> Status {
    if (out.num_rows == 0) return Ok();
    FLOE_RETURN_IF_ERROR(writer->Write(out));
    stats->rows_written += out.num_rows;
    out = Batch(schema);
    return Ok();
  };
  auto flush_del = [&]() -> Status {
    if (del_rows.num_rows == 0) return Ok();
    FLOE_ASSIGN_OR_RETURN(Batch keys, table::ProjectBatch(del_rows, eq_schema));
    if (f.delete_spec_id) {
      FLOE_RETURN_IF_ERROR(delete_writer->Write(keys));
    } else {
      FLOE_RETURN_IF_ERROR(delete_writer->Write(keys, del_rows));
    }
    stats->deletes_written += del_rows.num_rows;
    del_rows = Batch(schema);
    return Ok();
  };
  auto open_writer = [&](int w) -> Status {
    FLOE_RETURN_IF_ERROR(flush_out());
    FLOE_RETURN_IF_ERROR(flush_del());
    auto factory = std::make_shared<table::OutputFileFactory>(f.table->io(), f.writer_options->data_location, 0,
                                                              static_cast<int64_t>(w));
    FLOE_ASSIGN_OR_RETURN(auto dw, table::MakeDataWriter(meta, *f.writer_options, factory));
    const iceberg::PartitionSpec* delete_spec = f.delete_spec_id ? meta.SpecById(*f.delete_spec_id) : meta.DefaultSpec();
    if (!delete_spec) return Internal("table {}: the spec of its deletes is gone", name);
    FLOE_ASSIGN_OR_RETURN(auto ew, table::EqualityDeleteWriter::Make(factory, *f.writer_options, *delete_spec,
                                                                     schema, *f.eq_ids));
    writer = dw.get();
    delete_writer = ew.get();
    writers_.push_back(std::move(dw));
    delete_writers_.push_back(std::move(ew));
    current = w;
    return Ok();
  };

  auto equality_delete = [&](std::string_view row) -> Status {
    auto used = codec_.Decode(row, &del_rows);
    if (!used) return Fail(used.error().WithContext("a buffered change"));
    if (del_rows.num_rows >= kOutputBatchRows) FLOE_RETURN_IF_ERROR(flush_del());
    return Ok();
  };
  // Position delete candidates (key_index.h): verified against the data
  // file's key at the position before they are written.
  struct Candidate {
    uint32_t file;
    int64_t pos;
    uint64_t hash;
    size_t offset, key_size, row_size;  ///< key then row in cand_bytes
  };
  std::vector<Candidate> candidates;
  std::string cand_bytes;
  std::string current_key;  ///< the key bytes of the state resolved (when not inline)
  std::vector<std::string> referenced;
  std::vector<uint64_t> unindexed, window_keys;
  std::vector<WindowFiles::VectorDeletes> files_vectors;
  std::string applied_keys;
  std::vector<uint64_t> applied_ends;
  std::vector<int64_t> applied_seqs;

  // One key's collapsed changes: at most one delete and one row.
  auto resolve = [&](const KeyState& st, std::string_view row) -> Status {
    // Every applied change is committed with the window, an UPDATE_BEFORE
    // that upsert drops too: a relaunch remembers the sequence numbers of all
    // the input it skips, and this process must remember the same.
    // (Remembered now, not after the commit: a window whose commit fails
    // fails the sink, so nothing reads the tracker afterwards.)
    // A key that may be live (the table held it when the sink opened it, or
    // the sink applied it since) gets a delete even when its first change
    // here is an INSERT: one row per key, whatever the arrival order.
    const bool maybe_live = f.late->Update(st.hash, st.newest.seq, st.newest.cls, f.flush_ms);
    if (f.index) window_keys.push_back(st.hash);
    if (!st.kept) return Ok();
    if (f.index && f.deletion_vectors) {
      applied_keys += current_key;
      applied_ends.push_back(applied_keys.size());
      if (f.index->has_sequence()) applied_seqs.push_back(st.newest.seq);
    }
    if (f.index) {
      // The index knows whether the key is live and where: a position
      // delete (verified below), an equality delete for an ambiguous hash,
      // nothing for a key the table does not hold.
      if (auto hit = f.index->Find(st.hash)) {
        if (hit->ambiguous) {
          FLOE_RETURN_IF_ERROR(equality_delete(row));
        } else {
          const std::string_view key(current_key);
          candidates.push_back({hit->file, hit->pos, st.hash, cand_bytes.size(), key.size(), row.size()});
          cand_bytes.append(key);
          cand_bytes.append(row);
        }
      }
    } else if (f.upsert || st.first_kind != RowKind::kInsert || maybe_live) {
      FLOE_RETURN_IF_ERROR(equality_delete(row));
    }
    if (st.last_kind == RowKind::kInsert || st.last_kind == RowKind::kUpdateAfter) {
      auto used = codec_.Decode(row, &out);
      if (!used) return Fail(used.error().WithContext("a buffered change"));
      if (out.num_rows >= kOutputBatchRows) FLOE_RETURN_IF_ERROR(flush_out());
    }
    return Ok();
  };

  // The window resolved into positions deleted per live data file: each
  // candidate's key is read back from its data file (a hash collision must
  // never delete another key's row: it becomes an equality delete), then the
  // sorted positions of each data file go to a position delete file of its
  // own (Iceberg's write.delete.granularity=file), or, on a format version 3
  // table, to the commit, which writes them as deletion vectors.
  auto write_positions = [&]() -> Status {
    if (candidates.empty()) return Ok();
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
      return a.file != b.file ? a.file < b.file : a.pos < b.pos;
    });
    std::vector<int64_t> positions;
    for (size_t i = 0; i < candidates.size();) {
      size_t j = i;
      while (j < candidates.size() && candidates[j].file == candidates[i].file) ++j;
      const KeyIndex::FileRef& ref = f.index->file(candidates[i].file);
      FLOE_ASSIGN_OR_RETURN(std::vector<std::string> keys, ReadFileKeys(*f.table, ref.file, ref.spec_id, *f.eq_ids));
      positions.clear();
      for (size_t c = i; c < j; ++c) {
        const Candidate& cand = candidates[c];
        const std::string_view key(cand_bytes.data() + cand.offset, cand.key_size);
        const std::string_view row(cand_bytes.data() + cand.offset + cand.key_size, cand.row_size);
        if (static_cast<size_t>(cand.pos) < keys.size() && keys[static_cast<size_t>(cand.pos)] == key) {
          if (positions.empty() || positions.back() != cand.pos) positions.push_back(cand.pos);
          unindexed.push_back(cand.hash);
        } else {
          // Another key of the same hash holds the slot (it stays indexed).
          FLOE_RETURN_IF_ERROR(equality_delete(row));
        }
      }
      if (!positions.empty() && f.deletion_vectors) {
        files_vectors.push_back({ref.file.file_path, positions});
        referenced.push_back(ref.file.file_path);
        stats->deletes_written += static_cast<int64_t>(positions.size());
      } else if (!positions.empty()) {
        const iceberg::PartitionSpec* spec = meta.SpecById(ref.spec_id);
        if (!spec) return Internal("table {}: the spec {} of data file {} is gone", name, ref.spec_id, ref.file.file_path);
        // Per data file: a writer of its own; per partition: one writer per
        // spec (it groups by partition).
        table::PositionDeleteWriter* pw = nullptr;
        if (!f.delete_per_file) {
          for (size_t w = 0; w < position_writers_.size(); ++w) {
            if (position_specs_[w] == ref.spec_id) pw = position_writers_[w].get();
          }
        }
        if (!pw) {
          auto factory = std::make_shared<table::OutputFileFactory>(
              f.table->io(), f.writer_options->data_location, 0, static_cast<int64_t>(writers_wanted));
          FLOE_ASSIGN_OR_RETURN(auto made, table::PositionDeleteWriter::Make(factory, *f.writer_options, *spec, schema));
          pw = made.get();
          position_writers_.push_back(std::move(made));
          position_specs_.push_back(ref.spec_id);
        }
        FLOE_RETURN_IF_ERROR(pw->Delete(ref.file.file_path, positions, ref.file.partition));
        referenced.push_back(ref.file.file_path);
        stats->deletes_written += static_cast<int64_t>(positions.size());
      }
      i = j;
    }
    return Ok();
  };

  auto write_all = [&]() -> Status {
    if (spills_ == 0) {
      // All in memory: the states grouped by writer (their order within a
      // writer does not matter).
      const auto& states = states_.states();
      std::vector<uint32_t> order(states.size());
      if (writers_wanted <= 1) {
        for (size_t i = 0; i < states.size(); ++i) order[i] = static_cast<uint32_t>(i);
      } else {
        std::vector<size_t> start(static_cast<size_t>(writers_wanted) + 1, 0);
        for (const KeyState& st : states) ++start[static_cast<size_t>(writer_of_shard(st.shard)) + 1];
        for (size_t w = 1; w < start.size(); ++w) start[w] += start[w - 1];
        for (size_t i = 0; i < states.size(); ++i) {
          order[start[static_cast<size_t>(writer_of_shard(states[i].shard))]++] = static_cast<uint32_t>(i);
        }
      }
      for (uint32_t i : order) {
        const KeyState& st = states[i];
        const int w = writer_of_shard(st.shard);
        if (w != current) FLOE_RETURN_IF_ERROR(open_writer(w));
        if (f.index) current_key.assign(states_.key(st));
        FLOE_RETURN_IF_ERROR(resolve(st, states_.row(st)));
      }
    } else {
      // Spilled: the rest joins the runs; a key's states from several runs
      // arrive together and combine.
      FLOE_RETURN_IF_ERROR(SpillStates(false, &stats->spilled_runs));
      FLOE_ASSIGN_OR_RETURN(auto stream, sorter_->Finish());
      KeyState cur;
      std::string cur_key, cur_row;
      bool have = false;
      std::string_view rkey, payload;
      for (;;) {
        FLOE_ASSIGN_OR_RETURN(bool more, stream->Next(&rkey, &payload));
        if (!more) break;
        KeyState st;
        std::string_view key_bytes, row;
        FLOE_RETURN_IF_ERROR(KeyTable::FromRecord(rkey, payload, &st, &key_bytes, &row));
        if (have && rkey == cur_key) {
          std::string_view combined = cur_row;
          KeyTable::Combine(&cur, &combined, st, row);
          if (combined.data() != cur_row.data()) cur_row.assign(combined);
          continue;
        }
        if (have) FLOE_RETURN_IF_ERROR(resolve(cur, cur_row));
        cur = st;
        cur_key.assign(rkey);
        current_key.assign(key_bytes);
        cur_row.assign(row);
        have = true;
        const int w = writer_of_shard(st.shard);
        if (w != current) FLOE_RETURN_IF_ERROR(open_writer(w));
      }
      if (have) FLOE_RETURN_IF_ERROR(resolve(cur, cur_row));
    }
    FLOE_RETURN_IF_ERROR(write_positions());
    states_.Clear();
    spills_ = 0;
    if (current >= 0) {
      FLOE_RETURN_IF_ERROR(flush_out());
      FLOE_RETURN_IF_ERROR(flush_del());
    }
    return Ok();
  };

  WindowFiles files;
  Status st = write_all();
  // Closes every writer of `writers` into `out` (stops at the first error).
  auto close_all = [&st](auto& writers, std::vector<iceberg::DataFile>* out) {
    for (auto& w : writers) {
      if (!st) return;
      auto closed = w->Close();
      if (!closed) {
        st = std::unexpected<Error>(std::move(closed).error());
        return;
      }
      for (auto& file : *closed) out->push_back(std::move(file));
    }
  };
  close_all(writers_, &files.data);
  close_all(delete_writers_, &files.deletes);
  for (size_t i = 0; i < position_writers_.size() && st; ++i) {
    auto closed = position_writers_[i]->Close();
    if (!closed) {
      st = std::unexpected<Error>(std::move(closed).error());
      break;
    }
    for (auto& file : *closed) files.position_deletes.emplace_back(std::move(file), position_specs_[i]);
  }
  files.vector_deletes = std::move(files_vectors);
  files.applied_keys = std::move(applied_keys);
  files.applied_ends = std::move(applied_ends);
  files.applied_seqs = std::move(applied_seqs);
  files.deletion_vectors = f.deletion_vectors && f.index;
  files.referenced = std::move(referenced);
  files.unindexed = std::move(unindexed);
  std::sort(window_keys.begin(), window_keys.end());
  files.keys = std::move(window_keys);
  if (!st) {
    Abort();
    return std::unexpected<Error>(std::move(st).error());
  }
  return files;
}

void ChangeWindow::Abort() {
  for (auto& w : writers_) w->Abort();
  for (auto& w : delete_writers_) w->Abort();
  for (auto& w : position_writers_) w->Abort();
  Release();
}

void ChangeWindow::Release() {
  writers_.clear();
  delete_writers_.clear();
  position_writers_.clear();
  position_specs_.clear();
}

}  // namespace floe::sink
