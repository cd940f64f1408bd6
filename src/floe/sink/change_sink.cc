// ChangeSink: classify -> route -> strip/project -> the destination's window
// (append_window.h, or the CDC window of change_window.h) -> at each commit
// the windows' files -> one snapshot per destination carrying the
// exactly-once token (window_commit.h). Per-destination state, opening and
// the table cache are destination.h.
#include "floe/sink/change_sink.h"

#include <xxhash.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "floe/catalog/identifier.h"
#include "floe/config/options.h"
#include "floe/sink/change_rows.h"
#include "floe/sink/destination.h"
#include "floe/sink/projection.h"
#include "floe/sink/reject_log.h"
#include "floe/sink/sink_token.h"
#include "floe/sink/table_template.h"
#include "floe/sink/window_commit.h"
#include "floe/types/column_ops.h"
#include "floe/types/json_value.h"
#include "floe/util/crash_point.h"

namespace floe::sink {

namespace {

// Bytes of a batch's values (fixed-width values and string bytes), an estimate of its size.
int64_t ColumnBytes(const ColumnVector& c) {
  int64_t n = static_cast<int64_t>(c.values.size());
  for (const auto& child : c.children) n += ColumnBytes(child);
  return n;
}
int64_t BatchBytes(const Batch& b) {
  int64_t n = 0;
  for (const auto& c : b.columns) n += ColumnBytes(c);
  return n;
}

std::string RowJson(const Batch& batch, int64_t row) {
  std::string out;
  AppendJsonRow(batch, row, &out);
  while (!out.empty() && (out.back() == '\n')) out.pop_back();
  return out;
}

}  // namespace

class ChangeSink::Impl {
 public:
  Status Open(const WriteConfig& config, catalog::Catalog* catalog, SchemaPtr input_schema,
              ChangeSinkOptions options);
  Status Write(Batch&& batch);
  Status WriteInserts(Batch&& batch);
  Result<std::optional<Batch>> ReadCommitted(const Batch& rows, int64_t row, const std::vector<std::string>& cols);
  Status Reject(int64_t position, std::string_view reason, std::string text, std::string_view destination = {},
                std::string row_json = {});
  Status Commit(int64_t position);
  Status Heartbeat();
  Status ResumeAgain();
  int64_t pending_rows() const { return window_rows_; }
  SinkStats stats() const;
  ~Impl() { AbortAll(); }

  WriteConfig config_;
  SinkOptions options_;
  ChangeSinkOptions sink_options_;
  catalog::Catalog* catalog_ = nullptr;
  SchemaPtr input_schema_;
  std::optional<ControlColumns> control_;
  std::optional<TableTemplate> template_;
  std::map<std::string, std::unique_ptr<Destination>> destinations_;
  std::optional<TableCache> cache_;
  std::unique_ptr<RejectOutput> errors_;
  std::unique_ptr<RejectOutput> dead_letters_;
  int64_t last_position_ = 0;   ///< the largest input position seen
  int64_t arrival_seq_ = 0;    ///< the last arrival number (SinkOptions::arrival_order)
  int64_t window_rows_ = 0;
  int64_t unrouted_errors_ = 0;
  int64_t unrouted_read_ = 0;
  int64_t windows_committed_ = 0;  ///< triggers (the table cache counts in them)
  int64_t windows_published_ = 0;  ///< triggers that had a window to commit (the accounting)
  bool failed_ = false;
  bool inserts_ = false;  ///< inside WriteInserts: rows go to the destination's append window

 private:
  Result<Destination*> DestinationFor(const std::string& name);
  Status AddRows(Destination* d, Batch&& rows, const std::vector<RowKind>& kinds, const std::vector<int64_t>& seqs);
  Status AddAppend(Destination* d, Batch&& rows, const std::vector<uint64_t>& phash);
  Status AddChanges(Destination* d, Batch&& rows, const std::vector<RowKind>& kinds, const std::vector<int64_t>& seqs,
                    const std::vector<uint64_t>& phash);
  Status SpillIfOver();
  /// A late change: to the dead-letter output, or dropped past the allowed lateness.
  Status Late(Destination* d, int64_t position, RowKind kind, int64_t seq, const LateTracker::Entry& committed,
              const Batch& rows, int64_t row);
  int ShardOf(uint64_t hash, int64_t row, const std::vector<uint64_t>& phash) const;
  /// The writers a window's shards are spread over (autosharding,
  /// direct_write_byte_limit).
  int WritersFor(const Destination& d) const;
  /// Phase 1 of a commit: the window's files, nothing published.
  Status PrepareDestination(Destination* d);
  void UpdateKeyIndex(Destination* d, const WindowFiles& files, int64_t snapshot_id);
  /// Phase 2: one snapshot of the prepared files and the token.
  Status CommitDestination(Destination* d, int64_t position, bool heartbeat);
  /// The source position of `position` (ChangeSinkOptions::describe_position),
  /// once per position: every destination of a window stores the same.
  Result<std::string> DescribePosition(int64_t position);
  std::optional<std::pair<int64_t, std::string>> described_;
  /// Removes every open window's files and drops the tables this sink
  /// created and never committed to.
  void AbortAll();
  Status Fail(Error e) {
    failed_ = true;
    return std::unexpected<Error>(std::move(e));
  }
};

Status ChangeSink::Impl::Open(const WriteConfig& config, catalog::Catalog* catalog, SchemaPtr input_schema,
                              ChangeSinkOptions options) {
  config_ = config;
  catalog_ = catalog;
  sink_options_ = std::move(options);
  FLOE_ASSIGN_OR_RETURN(options_, SinkOptions::Resolve(config));
  cache_.emplace(catalog_, &options_, &config_.write_properties);
  if (options_.mode == WriteMode::kAppend && sink_options_.changes_in_batch) {
    return InvalidArgument("a change stream input (row kinds from the input) needs mode merge-on-read");
  }
  FLOE_ASSIGN_OR_RETURN(TableTemplate tmpl, TableTemplate::Parse(config.table));
  if (tmpl.is_template()) {
    template_ = std::move(tmpl);
  } else {
    FLOE_RETURN_IF_ERROR(catalog::ParseTableIdentifier(config.table));
  }
  if (!input_schema) {
    if (template_) {
      return InvalidArgument("table template '{}': give the input schema (the destinations may not exist)",
                             config.table);
    }
    FLOE_ASSIGN_OR_RETURN(auto id, catalog::ParseTableIdentifier(config.table));
    FLOE_ASSIGN_OR_RETURN(bool exists, catalog->TableExists(id));
    if (!exists) return NotFound("table {} does not exist; {}", config.table, sink_options_.missing_table_hint);
    FLOE_ASSIGN_OR_RETURN(auto loaded, catalog->LoadTable(id));
    SchemaPtr table_schema = loaded.metadata.CurrentSchema();
    std::vector<NestedField> fields = table_schema->fields();
    int32_t next_id = table_schema->HighestFieldId();
    if (options_.mode == WriteMode::kMergeOnRead && !sink_options_.changes_in_batch) {
      if (!options_.change_type_column.empty() && table_schema->IndexOf(options_.change_type_column) < 0) {
        fields.push_back({++next_id, options_.change_type_column, false, StringType(), ""});
      }
      if (!options_.arrival_order && options_.sequence_column.find('.') == std::string::npos &&
          table_schema->IndexOf(options_.sequence_column) < 0) {
        fields.push_back({++next_id, options_.sequence_column, false, LongType(), ""});
      }
    }
    input_schema = std::make_shared<Schema>(std::move(fields), 0, table_schema->identifier_field_ids());
  }
  input_schema_ = input_schema;
  if (template_) FLOE_RETURN_IF_ERROR(template_->Bind(*input_schema_));
  if (options_.mode == WriteMode::kMergeOnRead && !sink_options_.changes_in_batch) {
    const std::vector<std::string> keep =
        config.projection.kind == ProjectionKind::kKeep ? config.projection.fields : std::vector<std::string>{};
    FLOE_ASSIGN_OR_RETURN(control_, ControlColumns::Make(input_schema_, options_, keep));
  }
  if (sink_options_.describe_shared && !options_.sink_id.empty() &&
      (!options_.errors.output.empty() || !options_.errors.table.empty() || options_.errors.has_dead_letter())) {
    // Their entries are kept once by input position, and positions are a
    // process's own.
    return Unsupported(
        "error_handling: an error or dead-letter output is not implemented yet for a sink whose sink_id several "
        "processes share (a Kafka source with partition_assignment: group); without one, a row that cannot be "
        "applied stops the run");
  }
  if (!options_.errors.output.empty()) {
    FLOE_ASSIGN_OR_RETURN(errors_, RejectLog::Open(options_.errors.output));
  } else if (!options_.errors.table.empty()) {
    FLOE_ASSIGN_OR_RETURN(errors_, RejectTable::Open(catalog, config, options_.errors.table, options_.sink_id));
  }
  if (!options_.errors.dead_letter.empty()) {
    FLOE_ASSIGN_OR_RETURN(dead_letters_, RejectLog::Open(options_.errors.dead_letter));
  } else if (!options_.errors.dead_letter_table.empty()) {
    FLOE_ASSIGN_OR_RETURN(dead_letters_,
                          RejectTable::Open(catalog, config, options_.errors.dead_letter_table, options_.sink_id));
  }
  // A fixed destination is opened now: its errors (no table, bad keys) come first.
  if (!template_) FLOE_RETURN_IF_ERROR(DestinationFor(config.table));
  return Ok();
}

Result<Destination*> ChangeSink::Impl::DestinationFor(const std::string& name) {
  auto it = destinations_.find(name);
  if (it != destinations_.end()) {
    FLOE_RETURN_IF_ERROR(cache_->Ensure(it->second.get(), destinations_, windows_committed_));
    return it->second.get();
  }
  DestinationContext ctx;
  ctx.config = &config_;
  ctx.options = &options_;
  ctx.sink_options = &sink_options_;
  ctx.catalog = catalog_;
  ctx.row_schema = control_ ? control_->stripped_schema() : input_schema_;
  bool fatal = false;
  auto opened = OpenDestination(name, ctx, &fatal);
  if (!opened) {
    if (fatal) failed_ = true;  // a refused input stops the sink, whatever the destination
    return std::unexpected<Error>(std::move(opened).error());
  }
  Destination* raw = opened->get();
  cache_->Opened(raw, windows_committed_);
  destinations_.emplace(name, std::move(*opened));
  FLOE_RETURN_IF_ERROR(cache_->Ensure(raw, destinations_, windows_committed_));  // the cache size
  return raw;
}

Status ChangeSink::Impl::Reject(int64_t position, std::string_view reason, std::string text,
                                std::string_view destination, std::string row_json) {
  if (!errors_) {
    return Fail(InvalidArgument("input position {}{}: {} (no error output is configured: set error_handling "
                                "output: FILE.jsonl to collect such rows)",
                                position, destination.empty() ? "" : fmt::format(" ({})", destination), reason)
                    .error());
  }
  errors_->Add(position, destination, reason, std::move(row_json), std::move(text));
  return Ok();
}

Status ChangeSink::Impl::Write(Batch&& batch) {
  if (failed_) return InvalidArgument("the sink failed earlier; nothing more can be written");
  const int64_t n = batch.num_rows;
  if (n == 0) return Ok();
  if (batch.positions.empty()) {
    batch.positions.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) batch.positions[static_cast<size_t>(i)] = last_position_ + 1 + i;
  }
  for (int64_t p : batch.positions) last_position_ = std::max(last_position_, p);
  const bool mor = options_.mode == WriteMode::kMergeOnRead;

  // 1. Classify: each row's kind and sequence number, or why it is invalid.
  std::vector<RowKind> kinds(static_cast<size_t>(n), RowKind::kInsert);
  std::vector<int64_t> seqs(static_cast<size_t>(n), 0);
  std::vector<uint8_t> valid(static_cast<size_t>(n), 1);
  int64_t invalid = 0;
  auto reject_row = [&](int64_t i, std::string_view reason) -> Status {
    valid[static_cast<size_t>(i)] = 0;
    ++invalid;
    ++unrouted_errors_;
    ++unrouted_read_;
    return Reject(batch.positions[static_cast<size_t>(i)], reason, {}, {}, RowJson(batch, i));
  };
  if (!mor) {
    for (size_t i = 0; i < batch.row_kinds.size(); ++i) {
      if (batch.row_kinds[i] != RowKind::kInsert) {
        return Fail(InvalidArgument("input position {}: a {} row needs mode merge-on-read (mode is append)",
                                    batch.positions[i], RowKindName(batch.row_kinds[i]))
                        .error());
      }
    }
  } else if (sink_options_.changes_in_batch) {
    if (static_cast<int64_t>(batch.row_kinds.size()) != n || static_cast<int64_t>(batch.sequence_numbers.size()) != n) {
      return Fail(Internal("change sink: a change batch without row kinds or sequence numbers").error());
    }
    kinds = batch.row_kinds;
    seqs = batch.sequence_numbers;
  } else {
    std::vector<int64_t> refused;
    control_->ReadAll(batch, &kinds, &seqs, &refused);
    for (int64_t i : refused) {
      auto rc = control_->Read(batch, i, options_);
      if (rc) return Fail(Internal("change sink: row {} read as valid one by one but not in its batch", i).error());
      FLOE_RETURN_IF_ERROR(reject_row(i, rc.error().message));
    }
    if (options_.arrival_order) {
      for (int64_t i = 0; i < n; ++i) {
        if (valid[static_cast<size_t>(i)]) seqs[static_cast<size_t>(i)] = ++arrival_seq_;
      }
    }
  }

  // 2. Route: destination names (templates read the input rows, before keep/drop/only).
  std::map<std::string, std::vector<int64_t>> routes;
  if (template_) {
    for (int64_t i = 0; i < n; ++i) {
      if (!valid[static_cast<size_t>(i)]) continue;
      auto name = template_->Evaluate(batch, i);
      if (!name) {
        FLOE_RETURN_IF_ERROR(reject_row(i, "no destination: " + name.error().message));
        continue;
      }
      routes[*name].push_back(i);
    }
  }
  std::vector<int64_t> positions = batch.positions;

  // 3. Strip the control columns, then per destination project and buffer.
  Batch stripped = control_ ? control_->Strip(std::move(batch)) : std::move(batch);
  stripped.row_kinds.clear();
  stripped.sequence_numbers.clear();
  auto deliver = [&](const std::string& name, Batch&& rows, const std::vector<int64_t>& idx) -> Status {
    auto d = DestinationFor(name);
    if (!d) {
      // A destination that cannot be opened: its rows are errors (a template) or the job fails.
      if (!template_) return Fail(std::move(d).error());
      for (size_t j = 0; j < idx.size(); ++j) {
        ++unrouted_errors_;
        ++unrouted_read_;
        FLOE_RETURN_IF_ERROR(Reject(positions[static_cast<size_t>(idx[j])],
                                    fmt::format("destination {}: {}", name, d.error().message), {}, name,
                                    RowJson(rows, static_cast<int64_t>(j))));
      }
      return Ok();
    }
    // A null key is an invalid row (before projection, which would refuse
    // it in the table's required key column).
    std::vector<int64_t> keyed;
    const size_t check = (*d)->key.input_paths.empty() ? 0 : idx.size();
    for (size_t j = 0; j < check; ++j) {
      for (size_t c = 0; c < (*d)->key.input_paths.size(); ++c) {
        if (IsNullAt(rows, (*d)->key.input_paths[c], static_cast<int64_t>(j))) {
          ++(*d)->stats.read;
          ++(*d)->stats.errors;
          FLOE_RETURN_IF_ERROR(Reject(positions[static_cast<size_t>(idx[j])],
                                      fmt::format("key column '{}' is null", (*d)->key.input_names[c]), {}, name,
                                      RowJson(rows, static_cast<int64_t>(j))));
          keyed.push_back(static_cast<int64_t>(j));
          break;
        }
      }
    }
    std::vector<int64_t> kept_idx;
    if (!keyed.empty()) {
      std::vector<int64_t> take;
      size_t b = 0;
      for (size_t j = 0; j < idx.size(); ++j) {
        if (b < keyed.size() && keyed[b] == static_cast<int64_t>(j)) {
          ++b;
          continue;
        }
        take.push_back(static_cast<int64_t>(j));
        kept_idx.push_back(idx[j]);
      }
      rows = Take(rows, take);
    }
    const std::vector<int64_t>& live = keyed.empty() ? idx : kept_idx;
    if (live.empty()) return Ok();
    Batch projected;
    if (Status st = (*d)->projector->Apply(std::move(rows), &projected, positions[size_t(live[0])]);
        !st) {
      return Fail(st.error().WithContext(name));
    }
    std::vector<RowKind> k2;
    std::vector<int64_t> s2;
    k2.reserve(live.size());
    s2.reserve(live.size());
    for (int64_t i : live) {
      k2.push_back(kinds[static_cast<size_t>(i)]);
      s2.push_back(seqs[static_cast<size_t>(i)]);
    }
    return AddRows(*d, std::move(projected), k2, s2);
  };
  if (template_) {
    for (auto& [name, idx] : routes) {
      Batch part = Take(stripped, idx);
      FLOE_RETURN_IF_ERROR(deliver(name, std::move(part), idx));
    }
  } else {
    std::vector<int64_t> idx;
    idx.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      if (valid[static_cast<size_t>(i)]) idx.push_back(i);
    }
    if (invalid == 0) {
      FLOE_RETURN_IF_ERROR(deliver(config_.table, std::move(stripped), idx));
    } else if (!idx.empty()) {
      FLOE_RETURN_IF_ERROR(deliver(config_.table, Take(stripped, idx), idx));
    }
  }
  return SpillIfOver();
}

Status ChangeSink::Impl::WriteInserts(Batch&& batch) {
  if (options_.mode != WriteMode::kMergeOnRead || template_ || !sink_options_.changes_in_batch) {
    return Fail(Internal("change sink: WriteInserts needs merge-on-read, one table and change batches").error());
  }
  for (RowKind k : batch.row_kinds) {
    if (k != RowKind::kInsert) return Fail(Internal("change sink: WriteInserts of a {} row", RowKindName(k)).error());
  }
  inserts_ = true;
  Status st = Write(std::move(batch));
  inserts_ = false;
  return st;
}

Result<std::optional<Batch>> ChangeSink::Impl::ReadCommitted(const Batch& rows, int64_t row,
                                                             const std::vector<std::string>& cols) {
  if (options_.mode != WriteMode::kMergeOnRead || template_) {
    return Internal("change sink: ReadCommitted needs merge-on-read and one table");
  }
  FLOE_ASSIGN_OR_RETURN(Destination * d, DestinationFor(config_.table));
  if (!d->position_deletes) {
    return Unsupported("{}: reading a committed row back needs the key index (delete_kind: position)", d->name);
  }
  FLOE_RETURN_IF_ERROR(cache_->Ensure(d, destinations_, windows_committed_));
  FLOE_RETURN_IF_ERROR(RefreshKeyIndex(d));
  const int64_t one[] = {row};
  Batch projected;
  FLOE_RETURN_IF_ERROR(d->projector->Apply(Take(rows, one), &projected, 1));
  std::string key, null_column;
  if (!d->key.encoder->Encode(projected, 0, &key, &null_column)) {
    return InvalidArgument("{}: key column '{}' is null", d->name, null_column);
  }
  const auto hit = d->index.Find(XXH3_64bits(key.data(), key.size()));
  if (!hit) return std::optional<Batch>();
  if (hit->ambiguous) {
    return Unsupported("{}: two live rows share the hash of this key; reading one back is not supported", d->name);
  }
  const SchemaPtr schema = d->t()->metadata().CurrentSchema();
  std::vector<std::string> with_key = cols;
  for (int32_t id : d->key.eq_ids) {
    const NestedField* f = schema->FindField(id);
    if (f && std::find(with_key.begin(), with_key.end(), f->name) == with_key.end()) with_key.push_back(f->name);
  }
  const KeyIndex::FileRef& ref = d->index.file(hit->file);
  FLOE_ASSIGN_OR_RETURN(Batch got, ReadFileRow(*d->t(), ref.file, ref.spec_id, with_key, hit->pos));
  FLOE_ASSIGN_OR_RETURN(KeyEncoder enc, KeyEncoder::Make(*got.schema, d->key.eq_ids));
  std::string stored;
  if (!enc.Encode(got, 0, &stored, &null_column) || stored != key) return std::optional<Batch>();  // another key's hash
  return std::optional<Batch>(std::move(got));
}

int ChangeSink::Impl::ShardOf(uint64_t hash, int64_t row, const std::vector<uint64_t>& phash) const {
  const uint64_t shards = static_cast<uint64_t>(options_.num_shards);
  if (shards <= 1) return 0;
  if (!phash.empty()) {
    const uint64_t spp = static_cast<uint64_t>(options_.shards_per_partition);
    return static_cast<int>((phash[static_cast<size_t>(row)] + (hash % spp)) % shards);
  }
  return static_cast<int>(hash % shards);
}

Status ChangeSink::Impl::AddRows(Destination* d, Batch&& rows, const std::vector<RowKind>& kinds,
                                 const std::vector<int64_t>& seqs) {
  const int64_t n = rows.num_rows;
  d->stats.read += n;
  // Partition hashes, for shards_per_partition.
  std::vector<uint64_t> phash;
  if (d->keyer) {
    FLOE_ASSIGN_OR_RETURN(auto groups, d->keyer->Group(rows));
    phash.assign(static_cast<size_t>(n), 0);
    for (const auto& g : groups) {
      const uint64_t h = table::PartitionTupleHash()(g.partition);
      for (int64_t r : g.rows) phash[static_cast<size_t>(r)] = h;
    }
  }
  const int64_t appended = d->append ? d->append->rows() : 0;
  if (inserts_) {
    if (d->pending > appended) {
      return Fail(Internal("{}: new keys written while the window holds changes (commit first)", d->name).error());
    }
    return AddAppend(d, std::move(rows), phash);
  }
  if (options_.mode == WriteMode::kAppend) return AddAppend(d, std::move(rows), phash);
  if (d->append) {
    return Fail(Internal("{}: changes written while the window holds new keys (commit first)", d->name).error());
  }
  return AddChanges(d, std::move(rows), kinds, seqs, phash);
}

Status ChangeSink::Impl::AddAppend(Destination* d, Batch&& rows, const std::vector<uint64_t>& phash) {
  const int64_t n = rows.num_rows;
  std::vector<int64_t> keep;
  keep.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (d->token.Holds(rows.positions[static_cast<size_t>(i)])) {
      ++d->stats.skipped;
    } else {
      keep.push_back(i);
    }
  }
  if (keep.empty()) return Ok();
  Batch kept = static_cast<int64_t>(keep.size()) == n ? std::move(rows) : Take(rows, keep);
  kept.row_kinds.clear();
  kept.sequence_numbers.clear();
  if (!d->append) {
    d->append = std::make_unique<AppendWindow>(d->t(), d->writer_options, std::max(1, options_.num_shards));
  }
  // Append shards: rows of a partition spread over shards_per_partition
  // writers by arrival; unpartitioned rows over all shards.
  std::vector<int64_t> shard_of;
  if (options_.num_shards > 1) {
    shard_of.resize(keep.size());
    // direct_write_byte_limit: the window's first bytes, up to the limit, go
    // to one writer; only a window that outgrows it spreads over the shards.
    const bool direct = options_.direct_write_byte_limit && d->window_bytes < *options_.direct_write_byte_limit;
    if (direct) d->window_bytes += BatchBytes(kept);
    for (size_t j = 0; j < keep.size(); ++j) {
      const uint64_t a = static_cast<uint64_t>(d->arrival++);
      shard_of[j] = direct ? 0 : ShardOf(XXH3_64bits(&a, sizeof(a)), keep[j], phash);
    }
  }
  FLOE_RETURN_IF_ERROR(d->append->Write(kept, shard_of));
  d->stats.applied += kept.num_rows;
  d->pending += kept.num_rows;
  window_rows_ += kept.num_rows;
  return Ok();
}

// Merge-on-read: encode rows once, then collapse each change into its key's
// state (key_table.h) in the destination's CDC window.
Status ChangeSink::Impl::AddChanges(Destination* d, Batch&& rows, const std::vector<RowKind>& kinds,
                                    const std::vector<int64_t>& seqs, const std::vector<uint64_t>& phash) {
  const int64_t n = rows.num_rows;
  ChangeWindow& window = *d->changes;
  std::string& arena = d->scratch_rows;
  std::vector<uint64_t>& ends = d->scratch_ends;
  arena.clear();
  ends.clear();
  window.codec().EncodeAll(rows, &arena, &ends);
  // Pass 1: every row's key bytes and hash (null keys are invalid rows;
  // input an earlier run committed is skipped).
  std::string& keys = d->scratch_key;
  keys.clear();
  struct Todo {
    int64_t row;
    uint64_t hash;
    uint32_t key_begin, key_end;
  };
  std::vector<Todo> todo;
  todo.reserve(static_cast<size_t>(n));
  std::string null_column;
  for (int64_t i = 0; i < n; ++i) {
    const size_t si = static_cast<size_t>(i);
    const int64_t position = rows.positions[si];
    const size_t begin = keys.size();
    if (!d->key.encoder->Encode(rows, i, &keys, &null_column)) {
      ++d->stats.errors;
      FLOE_RETURN_IF_ERROR(Reject(position, fmt::format("key column '{}' is null", null_column), {}, d->name,
                                  RowJson(rows, i)));
      continue;
    }
    const uint64_t hash = XXH3_64bits(keys.data() + begin, keys.size() - begin);
    if (d->token.Holds(position)) {
      // Committed by an earlier run: skipped, but remembered for lateness.
      ++d->stats.skipped;
      (void)d->late.Update(hash, seqs[si], ChangeClass(kinds[si]), d->token.last_commit_ms);
      keys.resize(begin);
      continue;
    }
    todo.push_back({i, hash, static_cast<uint32_t>(begin), static_cast<uint32_t>(keys.size())});
  }
  // Pass 2: collapse each change into its key's state, prefetching the
  // index slot and then the state of the changes a few rows ahead.
  constexpr size_t kSlotAhead = 16, kStateAhead = 8;
  for (size_t j = 0; j < todo.size(); ++j) {
    if (j + kSlotAhead < todo.size()) window.PrefetchSlot(todo[j + kSlotAhead].hash);
    if (j + kStateAhead < todo.size()) window.PrefetchState(todo[j + kStateAhead].hash);
    const Todo& t = todo[j];
    const int64_t i = t.row;
    const size_t si = static_cast<size_t>(i);
    const int64_t position = rows.positions[si];
    const RowKind kind = kinds[si];
    const int cls = ChangeClass(kind);
    if (const LateTracker::Entry* committed = d->late.Find(t.hash); committed && committed->Covers(seqs[si], cls)) {
      FLOE_RETURN_IF_ERROR(Late(d, position, kind, seqs[si], *committed, rows, i));
      continue;
    }
    if (d->index.has_sequence()) {
      // The sequence number of the key's live row, from the table (another
      // process, or an earlier run, committed it): key_index.h.
      if (auto hit = d->index.Find(t.hash); hit && hit->seq != KeyIndex::kNoSeq) {
        const LateTracker::Entry row{hit->seq, d->token.last_commit_ms * 2 + 1};
        if (row.Covers(seqs[si], cls)) {
          FLOE_RETURN_IF_ERROR(Late(d, position, kind, seqs[si], row, rows, i));
          continue;
        }
      }
    }
    const int shard = ShardOf(t.hash, i, phash);
    const uint64_t begin = i == 0 ? 0 : ends[si - 1];
    const std::string_view row(arena.data() + begin, ends[si] - begin);
    const bool kept = !(d->upsert && kind == RowKind::kUpdateBefore);  // upsert: after-images only
    if (Status st = window.Add(t.hash, static_cast<uint16_t>(shard),
                               std::string_view(keys).substr(t.key_begin, t.key_end - t.key_begin),
                               ChangeOrder{seqs[si], static_cast<uint8_t>(cls), static_cast<uint64_t>(d->arrival++)},
                               kind, kept, row, position, &d->stats.spilled_runs);
        !st) {
      return Fail(st.error().WithContext(d->name));
    }
    ++d->stats.applied;
    d->window_bytes += static_cast<int64_t>(row.size());
    ++d->pending;
    ++window_rows_;
    // Memory stays bounded within a batch too.
    if ((window_rows_ & 4095) == 0) FLOE_RETURN_IF_ERROR(SpillIfOver());
  }
  return Ok();
}

Status ChangeSink::Impl::Late(Destination* d, int64_t position, RowKind kind, int64_t seq,
                              const LateTracker::Entry& committed, const Batch& rows, int64_t row) {
  const int64_t lateness_s = std::max<int64_t>(0, (WallMs() - committed.commit_ms()) / 1000);
  if (lateness_s > options_.allowed_lateness_seconds) {
    ++d->stats.dropped;
    return Ok();
  }
  ++d->stats.dead_letter;
  RejectOutput* log = dead_letters_ ? dead_letters_.get() : errors_.get();
  const std::string reason =
      fmt::format("late change: sequence number {} of a key whose change with sequence number {} was committed {} s ago",
                  seq, committed.seq, lateness_s);
  if (!log) {
    return Fail(InvalidArgument("input position {} ({}): {} (no dead-letter or error output is configured: set "
                                "error_handling dead_letter: FILE.jsonl)",
                                position, d->name, reason)
                    .error());
  }
  log->Add(position, d->name, reason, RowJson(rows, row), {},
           fmt::format("\"kind\":\"{}\",\"sequence_number\":{},\"lateness_seconds\":{}", RowKindName(kind), seq,
                       lateness_s));
  return Ok();
}

Status ChangeSink::Impl::SpillIfOver() {
  if (options_.mode != WriteMode::kMergeOnRead) return Ok();
  for (;;) {
    size_t total = 0;
    Destination* largest = nullptr;
    for (auto& [name, d] : destinations_) {
      const size_t used = d->changes->memory_used();
      total += used;
      if (!largest || used > largest->changes->memory_used()) largest = d.get();
    }
    // The key states hold up to 3/4 of the budget; spilling uses the rest.
    if (static_cast<int64_t>(total) <= options_.sorter_memory_bytes / 4 * 3 || !largest ||
        largest->changes->empty_in_memory()) {
      return Ok();
    }
    if (Status st = largest->changes->Spill(&largest->stats.spilled_runs); !st) {
      return Fail(st.error().WithContext(largest->name));
    }
  }
}

int ChangeSink::Impl::WritersFor(const Destination& d) const {
  // Autosharding: as many writers as the window's bytes need, at most num_shards.
  int writers = options_.num_shards;
  if (options_.autosharding) {
    const int64_t target = std::max<int64_t>(1, d.writer_options.target_file_size_bytes);
    writers = static_cast<int>(std::clamp<int64_t>((d.window_bytes + target - 1) / target, 1, options_.num_shards));
  }
  // direct_write_byte_limit: a window smaller than the limit is written by
  // one writer, not spread over the shards (fewer, larger files).
  if (options_.direct_write_byte_limit && d.window_bytes < *options_.direct_write_byte_limit) writers = 1;
  return writers;
}

Status ChangeSink::Impl::PrepareDestination(Destination* d) {
  WindowFiles files;
  if (options_.mode == WriteMode::kMergeOnRead) {
    // Rows of WriteInserts are in the append window; the rest are changes.
    if (d->pending > (d->append ? d->append->rows() : 0)) {
      ChangeFlush flush;
      flush.table = d->t();
      flush.writer_options = &d->writer_options;
      flush.eq_ids = &d->key.eq_ids;
      flush.delete_spec_id = d->key.global_spec_id;
      flush.upsert = d->upsert;
      flush.num_shards = options_.num_shards;
      flush.writers = WritersFor(*d);
      flush.late = &d->late;
      flush.flush_ms = WallMs();
      if (d->position_deletes) {
        // The index as of the table the window commits on (another writer's
        // commits seen by a reload are read in).
        if (Status st = RefreshKeyIndex(d); !st) {
          d->AbortWindow();
          return Fail(st.error().WithContext(d->name));
        }
        flush.index = &d->index;
        flush.delete_per_file = d->delete_per_file;
        // Format version 3: deletion vectors; version 2 with file granularity:
        // position delete files merged with the data file's live one. Both are
        // written at the commit, against the table as it is then.
        flush.deletion_vectors = d->t()->metadata().format_version >= 3 || d->delete_per_file;
      }
      ChangeFlushStats fs;
      auto prepared = d->changes->Prepare(flush, &fs);
      d->stats.rows_written += fs.rows_written;
      d->stats.deletes_written += fs.deletes_written;
      d->stats.spilled_runs += fs.spilled_runs;
      if (!prepared) {
        d->AbortWindow();
        return Fail(prepared.error().WithContext(d->name));
      }
      files = std::move(*prepared);
    }
  }
  if (d->append) {
    auto prepared = d->append->Prepare();
    if (!prepared) {
      d->AbortWindow();
      return Fail(prepared.error().WithContext(d->name));
    }
    files.data.insert(files.data.end(), std::make_move_iterator(prepared->begin()),
                      std::make_move_iterator(prepared->end()));
  }
  d->prepared = std::move(files);
  return Ok();
}

Status ChangeSink::Impl::CommitDestination(Destination* d, int64_t position, bool heartbeat) {
  if (!d->prepared) FLOE_RETURN_IF_ERROR(PrepareDestination(d));
  WindowFiles& files = *d->prepared;
  auto failed = [&](Error e) -> Status {
    d->AbortWindow();
    return Fail(std::move(e).WithContext(d->name));
  };
  CrashPoint("sink.files-written");
  const int64_t now = WallMs();
  if (files.data.empty() && files.deletes.empty() && files.position_deletes.empty() && files.vector_deletes.empty() &&
      !heartbeat) {
    // Changes that cancel out (a key born and deleted in the window): nothing to publish.
    d->ReleaseWindow();
    return Ok();
  }
  WindowCommit commit;
  commit.operation = options_.mode == WriteMode::kMergeOnRead ? WindowOperation::kRowDelta : WindowOperation::kAppend;
  commit.data = &files.data;
  commit.deletes = &files.deletes;
  commit.delete_spec_id = d->key.global_spec_id;
  commit.position_deletes = &files.position_deletes;
  if (d->position_deletes) {
    commit.referenced = &files.referenced;
    commit.read_snapshot = d->index.snapshot_id;
    commit.keys = &files.keys;
    commit.eq_ids = &d->key.eq_ids;
  }
  commit.branch = d->branch;
  commit.summary = {&sink_options_.summary, &options_.snapshot_properties};
  int64_t number = d->token.commit_number + 1;
  int64_t shared_snapshot = 0;
  if (!options_.sink_id.empty()) {
    WindowToken token;
    token.sink_id = options_.sink_id;
    token.commit_number = number;
    token.position = position;
    if (sink_options_.describe_shared) {
      token.shared = [this, d, position](std::string_view newest) {
        return sink_options_.describe_shared(d->name, position, newest);
      };
      token.shared_number = &number;
      token.shared_snapshot = &shared_snapshot;
    } else if (sink_options_.describe_destination) {
      auto described = sink_options_.describe_destination(d->name, position);
      if (!described) return failed(described.error());
      token.source_position = std::move(*described);
    } else if (sink_options_.describe_position) {
      auto described = DescribePosition(position);
      if (!described) return failed(described.error());
      token.source_position = std::move(*described);
    }
    commit.token = std::move(token);
  }
  // Format version 3: the window's positions become deletion vectors, each
  // merged with its data file's live vector as the table is loaded now
  // (version 2 with file granularity: a position delete file per data file,
  // merged with the live file-scoped one, which the commit removes). A
  // commit that meets another writer's changes fails as known-failed, not
  // retried by the commit (another vector for one of the data files, a vector
  // it replaces gone, a data file removed, rows of the window's keys added):
  // the window's deletes are then resolved again against the reloaded table
  // (the key index rebuilt, ReplanVectorDeletes), the vectors written again
  // and committed again — the window's data files stay, its new rows are
  // not in the table the index reads. The token is checked in every attempt
  // as ever; a failed attempt's Puffin file is removed.
  std::optional<table::DeletionVectorUpdate> vectors;
  auto write_vectors = [&]() -> Status {
    d->vectors = std::make_unique<table::DeletionVectorWriter>(
        d->t(), nullptr, d->branch.empty() ? std::string(iceberg::kMainBranch) : d->branch);
    d->vectors->set_position_files_on_v2(true);
    for (const auto& v : files.vector_deletes) FLOE_RETURN_IF_ERROR(d->vectors->Delete(v.data_file, v.positions));
    FLOE_ASSIGN_OR_RETURN(table::DeletionVectorUpdate u, d->vectors->Write());
    vectors = std::move(u);
    commit.vectors = &*vectors;
    return Ok();
  };
  constexpr int kVectorReplans = 4;
  Result<table::CommitResult> committed;
  for (int replan = 0;; ++replan) {
    if (!files.vector_deletes.empty()) {
      if (Status st = write_vectors(); !st) {
        return failed(std::move(st).error().WithContext("writing the window's deletion vectors"));
      }
      CrashPoint("sink.vectors-written");
    }
    committed = CommitWindow(d->t(), commit);
    if (committed || !files.deletion_vectors || committed.error().kind != ErrorKind::kCommitFailed) break;
    if (replan == kVectorReplans) {
      return failed(Error(committed.error())
                        .WithContext(fmt::format("another writer's changes still conflicted after {} re-plans",
                                                 kVectorReplans)));
    }
    // Re-plan: this attempt's vectors are removed, the table reloaded, the
    // deletes resolved again.
    if (d->vectors) d->vectors->Abort();
    d->vectors.reset();
    vectors.reset();
    commit.vectors = nullptr;
    ++d->stats.vector_replans;
    if (Status st = d->t()->Refresh(); !st) return failed(std::move(st).error());
    if (Status st = ReplanVectorDeletes(d, &files); !st) {
      return failed(std::move(st).error().WithContext("resolving the window's deletes again after another writer's commit"));
    }
    commit.read_snapshot = d->index.snapshot_id;
  }
  if (!committed) {
    if (committed.error().kind == ErrorKind::kCommitStateUnknown) {
      // Unsettled: the snapshot may be live, so its files stay.
      d->ReleaseWindow();
      return Fail(std::move(committed).error().WithContext(d->name));
    }
    return failed(std::move(committed).error());
  }
  d->token.commit_number = number;
  d->token.committed_position = position;
  d->token.last_commit_ms = now;
  d->stats.commits++;
  d->stats.commit_number = number;
  d->stats.snapshot_id = committed->snapshot_id;
  d->stats.data_files += static_cast<int64_t>(files.data.size());
  d->stats.delete_files += static_cast<int64_t>(files.deletes.size() + files.position_deletes.size() +
                                                (vectors ? vectors->added.size() : 0));
  if (d->position_deletes) UpdateKeyIndex(d, files, committed->snapshot_id);
  d->table.created.reset();  // committed: no longer ours to drop
  d->ReleaseWindow();
  return Ok();
}

// The key index after a commit of this sink: the rows it deleted are
// forgotten and the data files it wrote are read in (their positions); when
// another writer committed in between, it is rebuilt before the next window.
void ChangeSink::Impl::UpdateKeyIndex(Destination* d, const WindowFiles& files, int64_t snapshot_id) {
  const iceberg::Snapshot* snap = d->t()->metadata().SnapshotById(snapshot_id);
  if (!snap || snap->parent_snapshot_id != d->index.snapshot_id) {
    // Another writer committed in between: the next refresh catches the
    // index up with the table (CatchUpKeyIndex), this commit's files and
    // deletes with the others'.
    return;
  }
  for (uint64_t hash : files.unindexed) d->index.Remove(hash);
  d->index_pending.insert(d->index_pending.end(), files.data.begin(), files.data.end());
  d->index.snapshot_id = snapshot_id;
}

Result<std::string> ChangeSink::Impl::DescribePosition(int64_t position) {
  if (!described_ || described_->first != position) {
    FLOE_ASSIGN_OR_RETURN(std::string text, sink_options_.describe_position(position));
    described_.emplace(position, std::move(text));
  }
  return described_->second;
}

Status ChangeSink::Impl::Commit(int64_t position) {
  if (failed_) return InvalidArgument("the sink failed earlier; nothing can be committed");
  position = std::max(position, last_position_);
  last_position_ = position;
  std::vector<Destination*> due;
  for (auto& [name, d] : destinations_) {
    if (d->pending == 0 && (options_.mode == WriteMode::kMergeOnRead || !d->append)) continue;
    due.push_back(d.get());
  }
  // 1. Every destination's files first: resolving the window finds its late
  //    changes, which go to the dead-letter output.
  for (Destination* d : due) {
    if (Status st = PrepareDestination(d); !st) {
      for (Destination* other : due) other->AbortWindow();
      failed_ = true;
      return st;
    }
  }
  // 2. The error and dead-letter entries of the window, before any commit: a
  //    crash after a commit must not lose them (a relaunch skips the
  //    committed input), and one before re-creates them, which the outputs
  //    skip by position (reject_log.h).
  for (RejectOutput* log : {errors_.get(), dead_letters_.get()}) {
    if (!log) continue;
    if (Status st = log->Flush(position); !st) {
      for (Destination* other : due) other->AbortWindow();
      return Fail(st.error());
    }
  }
  // 3. One snapshot per destination.
  for (Destination* d : due) FLOE_RETURN_IF_ERROR(CommitDestination(d, position, false));
  CrashPoint("sink.committed");
  window_rows_ = 0;
  ++windows_committed_;
  if (!due.empty()) ++windows_published_;
  return Ok();
}

Status ChangeSink::Impl::Heartbeat() {
  if (!options_.token_heartbeat_seconds || options_.sink_id.empty()) return Ok();
  const int64_t now = WallMs();
  for (auto& [name, d] : destinations_) {
    if (d->pending > 0) continue;
    if (now - d->token.last_commit_ms < int64_t{*options_.token_heartbeat_seconds} * 1000) continue;
    FLOE_RETURN_IF_ERROR(cache_->Ensure(d.get(), destinations_, windows_committed_));
    FLOE_RETURN_IF_ERROR(CommitDestination(d.get(), std::max(last_position_, d->token.committed_position), true));
  }
  return Ok();
}

Status ChangeSink::Impl::ResumeAgain() {
  if (options_.sink_id.empty() || !sink_options_.resume_destination) return Ok();
  for (auto& [name, d] : destinations_) {
    // Read fresh from the catalog, not through the destination's table: its
    // loaded version (and the key index built on it) stays as it is.
    FLOE_ASSIGN_OR_RETURN(auto id, catalog::ParseTableIdentifier(name));
    FLOE_ASSIGN_OR_RETURN(auto loaded, catalog_->RefreshTable(id));
    FLOE_ASSIGN_OR_RETURN(auto token, FindSinkToken(loaded.metadata, options_.sink_id, d->branch));
    if (!token) continue;
    auto held = sink_options_.resume_destination(name, token->source_position, token->input, token->position);
    if (!held) return Fail(held.error().WithContext(name));
    d->token.held = std::move(*held);
    d->token.commit_number = std::max(d->token.commit_number, token->commit_number);
  }
  return Ok();
}

void ChangeSink::Impl::AbortAll() {
  for (auto& [name, d] : destinations_) {
    d->AbortWindow();
    // A table this sink created and never committed to is dropped again.
    if (d->table.created) (void)catalog_->DropIfUnchanged(*d->table.created);
    d->table.created.reset();
  }
}

SinkStats ChangeSink::Impl::stats() const {
  SinkStats s;
  s.unrouted_errors = unrouted_errors_;
  s.read = unrouted_read_;
  s.errors = unrouted_errors_;
  s.commits = windows_published_;
  for (const auto& [name, d] : destinations_) {
    DestinationStats ds = d->stats;
    if (d->position_deletes) {
      ds.index_keys = static_cast<int64_t>(d->index.size());
      ds.index_bytes = static_cast<int64_t>(d->index.memory_bytes());
    }
    s.read += ds.read;
    s.applied += ds.applied;
    s.errors += ds.errors;
    s.dead_letter += ds.dead_letter;
    s.dropped += ds.dropped;
    s.skipped += ds.skipped;
    s.destinations.push_back(ds);
  }
  return s;
}

// ------------------------------------------------------------------ ChangeSink

ChangeSink::ChangeSink(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ChangeSink::~ChangeSink() = default;

Result<std::unique_ptr<ChangeSink>> ChangeSink::Open(const WriteConfig& config, catalog::Catalog* catalog,
                                                     SchemaPtr input_schema, ChangeSinkOptions options) {
  if (!catalog) return InvalidArgument("change sink: no catalog");
  FLOE_RETURN_IF_ERROR(config.Validate());
  auto impl = std::make_unique<Impl>();
  FLOE_RETURN_IF_ERROR(impl->Open(config, catalog, std::move(input_schema), std::move(options)));
  return std::unique_ptr<ChangeSink>(new ChangeSink(std::move(impl)));
}

const SchemaPtr& ChangeSink::input_schema() const { return impl_->input_schema_; }
const SinkOptions& ChangeSink::options() const { return impl_->options_; }
Status ChangeSink::Write(Batch&& batch) { return impl_->Write(std::move(batch)); }
Status ChangeSink::WriteInserts(Batch&& batch) { return impl_->WriteInserts(std::move(batch)); }
Result<std::optional<Batch>> ChangeSink::ReadCommitted(const Batch& rows, int64_t row,
                                                       const std::vector<std::string>& cols) {
  return impl_->ReadCommitted(rows, row, cols);
}
Status ChangeSink::Reject(int64_t position, std::string_view reason, std::string text) {
  ++impl_->unrouted_errors_;
  ++impl_->unrouted_read_;
  impl_->last_position_ = std::max(impl_->last_position_, position);
  return impl_->Reject(position, reason, std::move(text));
}
Status ChangeSink::Commit(int64_t position) { return impl_->Commit(position); }
Status ChangeSink::Heartbeat() { return impl_->Heartbeat(); }
Status ChangeSink::ResumeAgain() { return impl_->ResumeAgain(); }
int64_t ChangeSink::pending_rows() const { return impl_->pending_rows(); }
SinkStats ChangeSink::stats() const { return impl_->stats(); }

std::string ChangeSink::StatsJson() const {
  const SinkStats s = stats();
  nlohmann::ordered_json j;
  j["read"] = s.read;
  j["applied"] = s.applied;
  j["errors"] = s.errors;
  j["dead_letter"] = s.dead_letter;
  j["dropped"] = s.dropped;
  j["skipped"] = s.skipped;
  j["unrouted_errors"] = s.unrouted_errors;
  j["commits"] = s.commits;
  nlohmann::ordered_json dests = nlohmann::ordered_json::array();
  for (const auto& d : s.destinations) {
    nlohmann::ordered_json o;
    o["table"] = d.table;
    o["read"] = d.read;
    o["applied"] = d.applied;
    o["errors"] = d.errors;
    o["dead_letter"] = d.dead_letter;
    o["dropped"] = d.dropped;
    o["skipped"] = d.skipped;
    o["commits"] = d.commits;
    o["spilled_runs"] = d.spilled_runs;
    o["table_loads"] = d.table_loads;
    o["commit_number"] = d.commit_number;
    o["snapshot_id"] = d.snapshot_id ? nlohmann::ordered_json(*d.snapshot_id) : nlohmann::ordered_json(nullptr);
    o["data_files"] = d.data_files;
    o["delete_files"] = d.delete_files;
    o["rows_written"] = d.rows_written;
    o["deletes_written"] = d.deletes_written;
    if (d.index_bytes > 0) {
      o["index_keys"] = d.index_keys;
      o["index_bytes"] = d.index_bytes;
      o["index_build_ms"] = d.index_build_ms;
      o["index_builds"] = d.index_builds;
      if (d.index_catch_ups > 0) {
        o["index_catch_ups"] = d.index_catch_ups;
        o["index_catch_up_ms"] = d.index_catch_up_ms;
      }
    }
    if (d.vector_replans > 0) o["vector_replans"] = d.vector_replans;
    dests.push_back(std::move(o));
  }
  j["destinations"] = std::move(dests);
  return j.dump();
}

}  // namespace floe::sink
