// ChangeSink: classify -> route -> strip/project -> buffer (sorted, spilling)
// -> per window: collapse each key's changes -> data + equality delete files
// -> one snapshot per destination carrying the exactly-once token.
#include "floe/sink/change_sink.h"

#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "floe/catalog/identifier.h"
#include "floe/config/options.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/sink/change_rows.h"
#include "floe/sink/key_table.h"
#include "floe/sink/projection.h"
#include "floe/sink/reject_log.h"
#include "floe/sink/row_codec.h"
#include "floe/sink/sink_token.h"
#include "floe/sink/spill_sorter.h"
#include "floe/sink/table_template.h"
#include "floe/sink/write_job.h"
#include "floe/table/append_files.h"
#include "floe/table/data_writer.h"
#include "floe/table/delete_writer.h"
#include "floe/table/partition_key.h"
#include "floe/table/row_delta.h"
#include "floe/types/column_ops.h"
#include "floe/types/json_value.h"
#include "floe/util/crash_point.h"
#include "floe/util/huge_pages.h"

namespace floe::sink {

namespace {

namespace k = config::keys;

// Sort key layout: shard (2, big-endian) | key hash (8, big-endian) |
// sequence number (8, big-endian, sign flipped) | change class (1: 0 for
// UPDATE_BEFORE and DELETE, 1 for INSERT and UPDATE_AFTER) | arrival (8,
// big-endian) | key bytes (the equality columns). A key's changes are the
// records of one (shard, hash), split by key bytes in the rare case of a hash
// collision. The class orders a key's changes that share a sequence number:
// an update's before-image precedes its after-image, whatever order they
// arrived in. Sorting on the hash and sequence number first keeps almost
// every comparison inside the first 18 bytes.
constexpr size_t kGroupBytes = 10;
constexpr size_t kOrderBytes = 17;  ///< sequence number and class
constexpr size_t kKeyOffset = kGroupBytes + kOrderBytes + 8;
constexpr size_t kHashOffset = 2;
// Payload: kind (1) | position (8, little-endian) | encoded row.
constexpr size_t kPayloadHeader = 9;
// Rows decoded before a batch goes to a writer.
constexpr int64_t kOutputBatchRows = 8192;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The newest committed sequence number of each key (by 64-bit hash), with
// the time of that commit. Open addressing, linear probing.
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
  const Entry* Find(uint64_t hash) const {
    if (size_ == 0) return nullptr;
    hash = hash ? hash : 1;
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].hash == 0) return nullptr;
      if (slots_[i].hash == hash) return &slots_[i].entry;
    }
  }
  void Update(uint64_t hash, int64_t seq, int cls, int64_t commit_ms) {
    Put(hash ? hash : 1, Entry{seq, commit_ms * 2 + (cls & 1)});
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    Entry entry{};
  };
  void Put(uint64_t hash, Entry e) {
    if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].hash == 0) {
        slots_[i] = {hash, e};
        ++size_;
        return;
      }
      if (slots_[i].hash == hash) {
        if (!slots_[i].entry.Covers(e.seq, static_cast<int>(e.packed & 1)) ||
            (slots_[i].entry.seq == e.seq && slots_[i].entry.cls() == (e.packed & 1))) {
          slots_[i].entry = e;
        }
        return;
      }
    }
  }
  void Grow() {
    auto old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    size_ = 0;
    for (const Slot& s : old) {
      if (s.hash) Put(s.hash, s.entry);
    }
  }
  std::vector<Slot, HugePageAllocator<Slot>> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

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

int ClassOf(RowKind kind) { return kind == RowKind::kUpdateBefore || kind == RowKind::kDelete ? 0 : 1; }

std::string RowJson(const Batch& batch, int64_t row) {
  std::string out;
  AppendJsonRow(batch, row, &out);
  while (!out.empty() && (out.back() == '\n')) out.pop_back();
  return out;
}

}  // namespace

// ----------------------------------------------------------------- destination

// One destination table: its buffer, writers, token and accounting.
class Destination {
 public:
  std::string name;
  std::unique_ptr<table::Table> table;
  std::optional<catalog::LoadedTable> created;
  std::optional<Projector> projector;
  table::DataWriterOptions writer_options;
  std::string branch;
  bool upsert = false;
  // merge-on-read
  std::vector<int32_t> eq_ids;
  std::optional<KeyEncoder> keys;
  bool partition_scoped = true;
  std::optional<int32_t> global_spec_id;  ///< deletes use this unpartitioned spec (not partition_scoped)
  std::optional<table::PartitionKeyer> keyer;  ///< shards_per_partition < num_shards
  std::unique_ptr<RowCodec> codec;
  std::unique_ptr<SpillSorter> sorter;
  KeyTable key_states;    ///< this window's keys, collapsed as changes arrive
  int64_t window_spills = 0;
  LateTracker late;
  // append
  std::vector<std::unique_ptr<table::PartitionedWriter>> append_writers;  ///< one per shard
  std::shared_ptr<table::OutputFileFactory> append_factory;
  // exactly-once
  int64_t commit_number = 0;
  int64_t committed_position = 0;
  int64_t last_commit_ms = 0;
  DestinationStats stats;
  int64_t pending = 0;  ///< rows buffered this window
  int64_t arrival = 0;
  int64_t window_bytes = 0;  ///< bytes buffered this window (autosharding, direct_write_byte_limit)
  std::string scratch_key;
  int64_t loaded_ms = 0;       ///< when the table was last loaded
  int32_t schema_id = 0, spec_id = 0;  ///< the layout the sink writes
  int64_t loaded_window = -1;  ///< the window it was last loaded for
  int64_t last_used = 0;       ///< use counter, for the cache's LRU
  /// A window's files between its two commit phases.
  struct Window {
    std::vector<iceberg::DataFile> data, deletes;
    std::vector<std::unique_ptr<table::PartitionedWriter>> writers;
    std::vector<std::unique_ptr<table::EqualityDeleteWriter>> delete_writers;
    bool prepared = false;
  };
  Window window;
  /// The key columns in the rows as they arrive (stripped input schema).
  std::vector<std::vector<int>> input_key_paths;
  std::vector<std::string> input_key_names;
};

// ----------------------------------------------------------------------- impl

class ChangeSink::Impl {
 public:
  Status Open(const WriteConfig& config, catalog::Catalog* catalog, SchemaPtr input_schema,
              ChangeSinkOptions options);
  Status Write(Batch&& batch);
  Status Reject(int64_t position, std::string_view reason, std::string text, std::string_view destination = {},
                std::string row_json = {});
  Status Commit(int64_t position);
  Status Heartbeat();
  int64_t pending_rows() const;
  SinkStats stats() const;
  ~Impl() { AbortWindow(); }

  WriteConfig config_;
  SinkOptions options_;
  ChangeSinkOptions sink_options_;
  catalog::Catalog* catalog_ = nullptr;
  SchemaPtr input_schema_;
  std::optional<ControlColumns> control_;
  std::optional<TableTemplate> template_;
  std::map<std::string, std::unique_ptr<Destination>> destinations_;
  std::unique_ptr<RejectOutput> errors_;
  std::unique_ptr<RejectOutput> dead_letters_;
  int64_t last_position_ = 0;   ///< the largest input position seen
  int64_t window_rows_ = 0;
  int64_t unrouted_errors_ = 0;
  int64_t unrouted_read_ = 0;
  int64_t windows_committed_ = 0;
  bool failed_ = false;

 private:
  Result<Destination*> DestinationFor(const std::string& name);
  Status OpenDestination(Destination* d);
  Status AddRows(Destination* d, Batch&& rows, const std::vector<RowKind>& kinds, const std::vector<int64_t>& seqs);
  Status AddAppend(Destination* d, Batch&& rows, const std::vector<int64_t>& keep);
  Status SpillIfOver();
  /// The table cache: loads, refreshes or keeps `d`'s table before its rows
  /// are buffered, and unloads the least recently used idle tables.
  Status EnsureTable(Destination* d);
  Status LoadTable(Destination* d);
  int64_t use_counter_ = 0;
  /// Spills `d`'s key states to its sorter as one sorted run.
  Status SpillKeys(Destination* d, bool keep_memory = false);
  /// A late change: to the dead-letter output, or dropped past the allowed lateness.
  Status Late(Destination* d, int64_t position, RowKind kind, int64_t seq, const LateTracker::Entry& committed,
              const Batch& rows, int64_t row);
  int ShardOf(const Destination& d, uint64_t hash, const Batch& rows, int64_t row, const std::vector<uint64_t>& phash) const;
  Status FlushDestination(Destination* d, std::vector<iceberg::DataFile>* data,
                          std::vector<iceberg::DataFile>* deletes,
                          std::vector<std::unique_ptr<table::PartitionedWriter>>* writers,
                          std::vector<std::unique_ptr<table::EqualityDeleteWriter>>* delete_writers);
  Status PrepareDestination(Destination* d);
  Status CommitDestination(Destination* d, int64_t position, bool heartbeat);
  /// The source position of `position` (ChangeSinkOptions::describe_position),
  /// once per position: every destination of a window stores the same.
  Result<std::string> DescribePosition(int64_t position);
  std::optional<std::pair<int64_t, std::string>> described_;
  void AbortPrepared(Destination* d);
  void AbortWindow();
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
      if (options_.sequence_column.find('.') == std::string::npos &&
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

Status ChangeSink::Impl::LoadTable(Destination* d) {
  const int32_t schema_id = d->schema_id, spec_id = d->spec_id;
  if (d->table) {
    FLOE_RETURN_IF_ERROR(d->table->Refresh());
  } else {
    FLOE_ASSIGN_OR_RETURN(auto id, catalog::ParseTableIdentifier(d->name));
    FLOE_ASSIGN_OR_RETURN(auto loaded, catalog_->LoadTable(id));
    d->table = std::make_unique<table::Table>(catalog_, std::move(loaded));
    d->table->SetOptionOverrides(config_.write_properties);  // commit.retry.* of this write
  }
  const iceberg::TableMetadata& meta = d->table->metadata();
  if (meta.current_schema_id != schema_id || meta.default_spec_id != spec_id) {
    return InvalidArgument("table {} changed its schema or partition spec while the sink was writing it; restart "
                           "the sink to write the new layout",
                           d->name);
  }
  ++d->stats.table_loads;
  d->loaded_ms = NowMs();
  d->loaded_window = windows_committed_;
  return Ok();
}

Status ChangeSink::Impl::EnsureTable(Destination* d) {
  d->last_used = ++use_counter_;
  const bool idle = d->pending == 0 && d->append_writers.empty();
  if (!d->table) {
    FLOE_RETURN_IF_ERROR(LoadTable(d));
  } else if (idle && !options_.table_cache && d->loaded_window < windows_committed_) {
    // No cache: each window starts from the catalog's current table.
    FLOE_RETURN_IF_ERROR(LoadTable(d));
  } else if (idle && options_.table_cache && options_.table_cache_refresh_seconds) {
    // Refreshes staggered over the interval by the destination's bucket.
    const int64_t interval_ms = *options_.table_cache_refresh_seconds * 1000;
    const int64_t bucket = static_cast<int64_t>(XXH3_64bits(d->name.data(), d->name.size()) %
                                                static_cast<uint64_t>(options_.table_cache_buckets));
    const int64_t offset = interval_ms * bucket / options_.table_cache_buckets;
    if (NowMs() - d->loaded_ms >= interval_ms + offset) FLOE_RETURN_IF_ERROR(LoadTable(d));
  }
  if (options_.table_cache && options_.table_cache_max_size) {
    // Unload the least recently used idle tables past the cache size.
    std::vector<Destination*> loaded;
    for (auto& [name, other] : destinations_) {
      if (other->table && other.get() != d) loaded.push_back(other.get());
    }
    std::sort(loaded.begin(), loaded.end(), [](Destination* a, Destination* b) { return a->last_used < b->last_used; });
    size_t count = loaded.size() + 1;
    for (Destination* victim : loaded) {
      if (count <= static_cast<size_t>(*options_.table_cache_max_size)) break;
      if (victim->pending == 0 && victim->append_writers.empty()) {
        victim->table.reset();
        --count;
      }
    }
  }
  return Ok();
}

Result<Destination*> ChangeSink::Impl::DestinationFor(const std::string& name) {
  auto it = destinations_.find(name);
  if (it != destinations_.end()) {
    FLOE_RETURN_IF_ERROR(EnsureTable(it->second.get()));
    return it->second.get();
  }
  auto d = std::make_unique<Destination>();
  d->name = name;
  d->stats.table = name;
  FLOE_RETURN_IF_ERROR(OpenDestination(d.get()));
  d->stats.table_loads = 1;
  d->loaded_ms = NowMs();
  d->loaded_window = windows_committed_;
  d->schema_id = d->table->metadata().current_schema_id;
  d->spec_id = d->table->metadata().default_spec_id;
  d->last_used = ++use_counter_;
  Destination* raw = d.get();
  destinations_.emplace(name, std::move(d));
  FLOE_RETURN_IF_ERROR(EnsureTable(raw));  // the cache size
  return raw;
}

Status ChangeSink::Impl::OpenDestination(Destination* d) {
  const SchemaPtr row_schema = control_ ? control_->stripped_schema() : input_schema_;
  const bool mor = options_.mode == WriteMode::kMergeOnRead;
  // The key columns of a new table become its identifier fields (required).
  auto adjust = [&](catalog::TableDefinition* def) -> Status {
    if (!mor) return Ok();
    std::vector<int32_t> ids;
    if (options_.equality_columns.empty()) {
      ids = def->schema.identifier_field_ids();
      if (ids.empty()) {
        return InvalidArgument(
            "table {} does not exist and no key is known: give equality_columns (or equality-field-columns), or "
            "declare PRIMARY KEY (...) NOT ENFORCED in the schema",
            d->name);
      }
    } else {
      for (const std::string& col : options_.equality_columns) {
        auto path = NamePath(def->schema, col);
        if (!path) return InvalidArgument("option {}: no column '{}' in the table schema", k::kBeamEqualityColumns.name, col);
        const NestedField* f = &def->schema.fields()[static_cast<size_t>((*path)[0])];
        for (size_t i = 1; i < path->size(); ++i) f = &f->type->fields[static_cast<size_t>((*path)[i])];
        ids.push_back(f->id);
      }
    }
    // Identifier fields are required (Iceberg spec); rows with a null key go to the error output.
    std::function<std::vector<NestedField>(const std::vector<NestedField>&)> require =
        [&](const std::vector<NestedField>& fields) {
          std::vector<NestedField> out = fields;
          for (auto& f : out) {
            if (std::find(ids.begin(), ids.end(), f.id) != ids.end()) f.required = true;
            if (f.type->id == TypeId::kStruct) {
              f.type = StructType(require(f.type->fields));
              // A struct on the way to a key is required too.
              std::function<bool(const Type&)> holds = [&](const Type& t) {
                for (const auto& c : t.fields) {
                  if (std::find(ids.begin(), ids.end(), c.id) != ids.end()) return true;
                  if (c.type->id == TypeId::kStruct && holds(*c.type)) return true;
                }
                return false;
              };
              if (holds(*f.type)) f.required = true;
            }
          }
          return out;
        };
    def->schema = Schema(require(def->schema.fields()), def->schema.schema_id(), ids);
    return def->schema.Validate();
  };
  WriteConfig cfg = config_;
  cfg.table = d->name;
  FLOE_ASSIGN_OR_RETURN(OpenedTable opened,
                        OpenOrCreateTable(cfg, d->name, catalog_, row_schema, sink_options_.missing_table_hint, adjust));
  d->table = std::move(opened.table);
  d->created = std::move(opened.created);
  d->projector = std::move(opened.projector);
  const iceberg::TableMetadata& meta = d->table->metadata();
  config::Resolver resolver({&config_.write_properties, &meta.properties});
  FLOE_ASSIGN_OR_RETURN(d->writer_options, table::DataWriterOptions::Resolve(meta, resolver));
  FLOE_ASSIGN_OR_RETURN(auto branch, resolver.Get(k::kBranch));
  if (!sink_options_.branch.empty() && branch && *branch != sink_options_.branch) {
    return InvalidArgument("the branch is given twice, as '{}' and as option {}='{}'; give it once",
                           sink_options_.branch, k::kBranch.name, *branch);
  }
  d->branch = !sink_options_.branch.empty() ? sink_options_.branch : branch.value_or("");
  FLOE_ASSIGN_OR_RETURN(bool overwrite, resolver.Value(k::kOverwriteEnabled));
  if (overwrite) {
    return InvalidArgument("option {}: the change sink appends or merges; overwrite is a plain `floe write`",
                           k::kOverwriteEnabled.name);
  }
  // The table's own write.upsert.enabled makes this an upsert (Flink).
  FLOE_ASSIGN_OR_RETURN(auto table_upsert, config::Resolver(meta.properties).Get(k::kWriteUpsertEnabled));
  d->upsert = options_.upsert || table_upsert.value_or(false);
  if (d->upsert && !mor) {
    return InvalidArgument("table {} has {}=true: writing it in mode append would duplicate keys; set mode: "
                           "merge-on-read",
                           d->name, k::kWriteUpsertEnabled.name);
  }
  const SchemaPtr table_schema = meta.CurrentSchema();
  if (mor) {
    if (!options_.equality_columns.empty()) {
      for (const std::string& col : options_.equality_columns) {
        auto path = NamePath(*table_schema, col);
        if (!path) {
          return InvalidArgument("option {}: table {} has no column '{}'", k::kBeamEqualityColumns.name, d->name, col);
        }
        const NestedField* f = &table_schema->fields()[static_cast<size_t>((*path)[0])];
        for (size_t i = 1; i < path->size(); ++i) f = &f->type->fields[static_cast<size_t>((*path)[i])];
        d->eq_ids.push_back(f->id);
      }
    } else {
      d->eq_ids = table_schema->identifier_field_ids();
      if (d->eq_ids.empty()) {
        return InvalidArgument("table {} has no identifier fields: give equality_columns (or "
                               "equality-field-columns) to name the key",
                               d->name);
      }
    }
    FLOE_ASSIGN_OR_RETURN(auto enc, KeyEncoder::Make(*table_schema, d->eq_ids));
    d->keys = std::move(enc);
    // The same columns by name in the incoming rows (absent ones are filled
    // with nulls by the projection: they fail the table's required check).
    for (int32_t id : d->eq_ids) {
      std::string dotted;
      std::function<bool(const std::vector<NestedField>&, const std::string&)> find =
          [&](const std::vector<NestedField>& fields, const std::string& prefix) {
            for (const auto& f : fields) {
              const std::string name = prefix.empty() ? f.name : prefix + "." + f.name;
              if (f.id == id) {
                dotted = name;
                return true;
              }
              if (f.type->id == TypeId::kStruct && find(f.type->fields, name)) return true;
            }
            return false;
          };
      if (!find(table_schema->fields(), "")) continue;
      auto path = NamePath(*row_schema, dotted);
      if (!path) continue;
      d->input_key_paths.push_back(*path);
      d->input_key_names.push_back(dotted);
    }
    const iceberg::PartitionSpec& spec = *meta.DefaultSpec();
    for (const auto& pf : spec.fields()) {
      if (std::find(d->eq_ids.begin(), d->eq_ids.end(), pf.source_id) == d->eq_ids.end()) {
        d->partition_scoped = false;
      }
    }
    if (!d->partition_scoped) {
      // A key may move between partitions: its deletes must reach them all.
      FLOE_ASSIGN_OR_RETURN(int32_t spec_id, table::EnsureUnpartitionedSpec(d->table.get()));
      d->global_spec_id = spec_id;
    }
    d->codec = std::make_unique<RowCodec>(table_schema);
    // A destination's key states take at most 3/4 of the budget (the rest is
    // for spilling); several destinations share it (SpillIfOver).
    d->key_states.SetLimit(static_cast<size_t>(options_.sorter_memory_bytes / 4 * 3));
    SpillSorterOptions so;
    so.spill_dir = sink_options_.spill_dir;
    FLOE_ASSIGN_OR_RETURN(d->sorter, SpillSorter::Make(so));
  }
  // Merge-on-read collapses a key's changes shard by shard, so a key's shard
  // must not depend on anything but the key: placing rows by partition is
  // only safe when the partition is a function of the key (partition_scoped);
  // otherwise a key moving partition would be split over shards and keep a
  // row in each.
  if (options_.hash_distribution && options_.shards_per_partition < options_.num_shards &&
      !meta.DefaultSpec()->is_unpartitioned() && (!mor || d->partition_scoped)) {
    FLOE_ASSIGN_OR_RETURN(auto keyer, table::PartitionKeyer::Make(*meta.DefaultSpec(), table_schema));
    d->keyer = std::move(keyer);
  }
  // Exactly-once: where an earlier run of this sink left off.
  if (!options_.sink_id.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto token, FindSinkToken(meta, options_.sink_id, d->branch));
    if (token) {
      // The same input as the one the token covers, or nothing is written.
      if (sink_options_.resume) {
        Status st = sink_options_.resume(token->source_position, token->input, token->position);
        if (!st) return Fail(st.error().WithContext(d->name));  // which destination's token
      }
      d->commit_number = token->commit_number;
      d->committed_position = token->position;
      d->last_commit_ms = token->timestamp_ms;
      d->stats.commit_number = token->commit_number;
    }
    FLOE_RETURN_IF_ERROR(RegisterSink(d->table.get(), options_.sink_id));
  }
  if (d->last_commit_ms == 0) d->last_commit_ms = NowMs();
  return Ok();
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
    for (int64_t i = 0; i < n; ++i) {
      auto rc = control_->Read(batch, i, options_);
      if (!rc) {
        FLOE_RETURN_IF_ERROR(reject_row(i, rc.error().message));
        continue;
      }
      kinds[static_cast<size_t>(i)] = rc->kind;
      seqs[static_cast<size_t>(i)] = rc->seq;
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
    const size_t check = (*d)->input_key_paths.empty() ? 0 : idx.size();
    for (size_t j = 0; j < check; ++j) {
      for (size_t c = 0; c < (*d)->input_key_paths.size(); ++c) {
        if (IsNullAt(rows, (*d)->input_key_paths[c], static_cast<int64_t>(j))) {
          ++(*d)->stats.read;
          ++(*d)->stats.errors;
          FLOE_RETURN_IF_ERROR(Reject(positions[static_cast<size_t>(idx[j])],
                                      fmt::format("key column '{}' is null", (*d)->input_key_names[c]), {}, name,
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

int ChangeSink::Impl::ShardOf(const Destination& d, uint64_t hash, const Batch& rows, int64_t row,
                              const std::vector<uint64_t>& phash) const {
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
  if (options_.mode == WriteMode::kAppend) {
    std::vector<int64_t> keep;
    keep.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      if (rows.positions[static_cast<size_t>(i)] <= d->committed_position) {
        ++d->stats.skipped;
      } else {
        keep.push_back(i);
      }
    }
    if (keep.empty()) return Ok();
    // Append shards: rows of a partition spread over shards_per_partition
    // writers by arrival; unpartitioned rows over all shards.
    if (options_.num_shards <= 1) {
      if (static_cast<int64_t>(keep.size()) == n) return AddAppend(d, std::move(rows), {});
      return AddAppend(d, Take(rows, keep), {});
    }
    std::vector<int64_t> shard_of(keep.size());
    // direct_write_byte_limit: the window's first bytes, up to the limit, go
    // to one writer; only a window that outgrows it spreads over the shards.
    const bool direct =
        options_.direct_write_byte_limit && d->window_bytes < *options_.direct_write_byte_limit;
    if (direct) d->window_bytes += BatchBytes(rows);
    for (size_t j = 0; j < keep.size(); ++j) {
      const uint64_t a = static_cast<uint64_t>(d->arrival++);
      shard_of[j] = direct ? 0 : ShardOf(*d, XXH3_64bits(&a, sizeof(a)), rows, keep[j], phash);
    }
    if (static_cast<int64_t>(keep.size()) == n) return AddAppend(d, std::move(rows), shard_of);
    return AddAppend(d, Take(rows, keep), shard_of);
  }

  // Merge-on-read: encode rows once, then collapse each change into its
  // key's state (key_table.h).
  std::string arena;
  std::vector<uint64_t> ends;
  d->codec->EncodeAll(rows, &arena, &ends);
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
    if (!d->keys->Encode(rows, i, &keys, &null_column)) {
      ++d->stats.errors;
      FLOE_RETURN_IF_ERROR(Reject(position, fmt::format("key column '{}' is null", null_column), {}, d->name,
                                  RowJson(rows, i)));
      continue;
    }
    const uint64_t hash = XXH3_64bits(keys.data() + begin, keys.size() - begin);
    if (position <= d->committed_position) {
      // Committed by an earlier run: skipped, but remembered for lateness.
      ++d->stats.skipped;
      d->late.Update(hash, seqs[si], ClassOf(kinds[si]), d->last_commit_ms);
      keys.resize(begin);
      continue;
    }
    todo.push_back({i, hash, static_cast<uint32_t>(begin), static_cast<uint32_t>(keys.size())});
  }
  // Pass 2: collapse each change into its key's state, prefetching the
  // index slot and then the state of the changes a few rows ahead.
  constexpr size_t kSlotAhead = 16, kStateAhead = 8;
  for (size_t j = 0; j < todo.size(); ++j) {
    if (j + kSlotAhead < todo.size()) d->key_states.PrefetchSlot(todo[j + kSlotAhead].hash);
    if (j + kStateAhead < todo.size()) d->key_states.PrefetchState(todo[j + kStateAhead].hash);
    const Todo& t = todo[j];
    const int64_t i = t.row;
    const size_t si = static_cast<size_t>(i);
    const int64_t position = rows.positions[si];
    const RowKind kind = kinds[si];
    const int cls = ClassOf(kind);
    if (const LateTracker::Entry* committed = d->late.Find(t.hash); committed && committed->Covers(seqs[si], cls)) {
      FLOE_RETURN_IF_ERROR(Late(d, position, kind, seqs[si], *committed, rows, i));
      continue;
    }
    const int shard = ShardOf(*d, t.hash, rows, i, phash);
    const uint64_t begin = i == 0 ? 0 : ends[si - 1];
    const std::string_view row(arena.data() + begin, ends[si] - begin);
    const bool kept = !(d->upsert && kind == RowKind::kUpdateBefore);  // upsert: after-images only
    if (d->key_states.WouldExceed(t.key_end - t.key_begin, row.size())) {
      // Full: spill the states, keeping the table's memory for the next ones.
      if (Status st = SpillKeys(d, /*keep_memory=*/true); !st) return Fail(st.error().WithContext(d->name));
    }
    d->key_states.Add(t.hash, static_cast<uint16_t>(shard), std::string_view(keys).substr(t.key_begin, t.key_end - t.key_begin),
                      ChangeOrder{seqs[si], static_cast<uint8_t>(cls), static_cast<uint64_t>(d->arrival++)}, kind, kept,
                      row, position);
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
  const int64_t lateness_s = std::max<int64_t>(0, (NowMs() - committed.commit_ms()) / 1000);
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

Status ChangeSink::Impl::AddAppend(Destination* d, Batch&& rows, const std::vector<int64_t>& shard_of) {
  const iceberg::TableMetadata& meta = d->table->metadata();
  const size_t shards = static_cast<size_t>(std::max(1, options_.num_shards));
  if (d->append_writers.empty()) {
    d->append_writers.resize(shards);
  }
  auto writer_for = [&](size_t s) -> Result<table::PartitionedWriter*> {
    if (!d->append_writers[s]) {
      auto factory = std::make_shared<table::OutputFileFactory>(d->table->io(), d->writer_options.data_location,
                                                                0, static_cast<int64_t>(s));
      FLOE_ASSIGN_OR_RETURN(d->append_writers[s], table::MakeDataWriter(meta, d->writer_options, factory));
    }
    return d->append_writers[s].get();
  };
  rows.row_kinds.clear();
  rows.sequence_numbers.clear();
  const int64_t n = rows.num_rows;
  if (shard_of.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto* w, writer_for(0));
    FLOE_RETURN_IF_ERROR(w->Write(rows));
  } else {
    std::vector<std::vector<int64_t>> by_shard(shards);
    for (int64_t i = 0; i < n; ++i) by_shard[static_cast<size_t>(shard_of[static_cast<size_t>(i)])].push_back(i);
    for (size_t s = 0; s < shards; ++s) {
      if (by_shard[s].empty()) continue;
      FLOE_ASSIGN_OR_RETURN(auto* w, writer_for(s));
      FLOE_RETURN_IF_ERROR(w->Write(Take(rows, by_shard[s])));
    }
  }
  d->stats.applied += n;
  d->pending += n;
  window_rows_ += n;
  return Ok();
}

Status ChangeSink::Impl::SpillKeys(Destination* d, bool keep_memory) {
  // The states go out in runs of at most a quarter of the budget, so the
  // sorter's copy never doubles the memory the states hold.
  const size_t chunk = static_cast<size_t>(std::max<int64_t>(options_.sorter_memory_bytes / 4, 1 << 20));
  std::string key, payload;
  for (const KeyState& st : d->key_states.states()) {
    d->key_states.ToRecord(st, &key, &payload);
    FLOE_RETURN_IF_ERROR(d->sorter->Add(key, payload));
    if (d->sorter->memory_used() >= chunk) {
      FLOE_RETURN_IF_ERROR(d->sorter->Spill());
      ++d->stats.spilled_runs;
    }
  }
  if (keep_memory) {
    d->key_states.Reset();
  } else {
    d->key_states.Clear();
  }
  if (d->sorter->memory_used() > 0) {
    FLOE_RETURN_IF_ERROR(d->sorter->Spill());
    ++d->stats.spilled_runs;
  }
  ++d->window_spills;
  return Ok();
}

Status ChangeSink::Impl::SpillIfOver() {
  if (options_.mode != WriteMode::kMergeOnRead) return Ok();
  for (;;) {
    size_t total = 0;
    Destination* largest = nullptr;
    for (auto& [name, d] : destinations_) {
      const size_t used = d->key_states.memory_used();
      total += used;
      if (!largest || used > largest->key_states.memory_used()) largest = d.get();
    }
    // The key states hold up to 3/4 of the budget; spilling uses the rest.
    if (static_cast<int64_t>(total) <= options_.sorter_memory_bytes / 4 * 3 || !largest ||
        largest->key_states.empty()) {
      return Ok();
    }
    if (Status st = SpillKeys(largest); !st) return Fail(st.error().WithContext(largest->name));
  }
}

int64_t ChangeSink::Impl::pending_rows() const { return window_rows_; }


// Collapses each key's changes (see the header) and writes the window's data
// and equality delete files, shard after shard.
Status ChangeSink::Impl::FlushDestination(Destination* d, std::vector<iceberg::DataFile>* data,
                                          std::vector<iceberg::DataFile>* deletes,
                                          std::vector<std::unique_ptr<table::PartitionedWriter>>* writers,
                                          std::vector<std::unique_ptr<table::EqualityDeleteWriter>>* delete_writers) {
  const iceberg::TableMetadata& meta = d->table->metadata();
  const SchemaPtr schema = meta.CurrentSchema();
  FLOE_ASSIGN_OR_RETURN(SchemaPtr eq_schema, table::ProjectSchema(*schema, d->eq_ids));
  const int64_t flush_ms = NowMs();
  // Autosharding: as many writers as the window's bytes need, at most num_shards.
  int writers_wanted = options_.num_shards;
  if (options_.autosharding) {
    const int64_t target = std::max<int64_t>(1, d->writer_options.target_file_size_bytes);
    writers_wanted = static_cast<int>(std::clamp<int64_t>((d->window_bytes + target - 1) / target, 1, options_.num_shards));
  }
  // direct_write_byte_limit: a window smaller than the limit is written by
  // one writer, not spread over the shards (fewer, larger files).
  if (options_.direct_write_byte_limit && d->window_bytes < *options_.direct_write_byte_limit) writers_wanted = 1;
  auto writer_of_shard = [&](int shard) {
    return static_cast<int>(int64_t{shard} * writers_wanted / std::max(1, options_.num_shards));
  };

  Batch out(schema), del_rows(schema);
  table::PartitionedWriter* writer = nullptr;
  table::EqualityDeleteWriter* delete_writer = nullptr;
  int current = -1;
  auto flush_out = [&]() -> Status {
    if (out.num_rows == 0) return Ok();
    FLOE_RETURN_IF_ERROR(writer->Write(out));
    d->stats.rows_written += out.num_rows;
    out = Batch(schema);
    return Ok();
  };
  auto flush_del = [&]() -> Status {
    if (del_rows.num_rows == 0) return Ok();
    FLOE_ASSIGN_OR_RETURN(Batch keys, table::ProjectBatch(del_rows, eq_schema));
    if (d->global_spec_id) {
      FLOE_RETURN_IF_ERROR(delete_writer->Write(keys));
    } else {
      FLOE_RETURN_IF_ERROR(delete_writer->Write(keys, del_rows));
    }
    d->stats.deletes_written += del_rows.num_rows;
    del_rows = Batch(schema);
    return Ok();
  };
  auto open_writer = [&](int w) -> Status {
    FLOE_RETURN_IF_ERROR(flush_out());
    FLOE_RETURN_IF_ERROR(flush_del());
    auto factory = std::make_shared<table::OutputFileFactory>(d->table->io(), d->writer_options.data_location, 0,
                                                              static_cast<int64_t>(w));
    FLOE_ASSIGN_OR_RETURN(auto dw, table::MakeDataWriter(meta, d->writer_options, factory));
    const iceberg::PartitionSpec* delete_spec =
        d->global_spec_id ? meta.SpecById(*d->global_spec_id) : meta.DefaultSpec();
    if (!delete_spec) return Internal("table {}: the spec of its deletes is gone", d->name);
    FLOE_ASSIGN_OR_RETURN(auto ew, table::EqualityDeleteWriter::Make(factory, d->writer_options, *delete_spec,
                                                                     schema, d->eq_ids));
    writer = dw.get();
    delete_writer = ew.get();
    writers->push_back(std::move(dw));
    delete_writers->push_back(std::move(ew));
    current = w;
    return Ok();
  };

  // One key's collapsed changes: at most one delete and one row.
  auto resolve = [&](const KeyState& st, std::string_view row) -> Status {
    // Every applied change is committed with the window, an UPDATE_BEFORE
    // that upsert drops too: a relaunch remembers the sequence numbers of all
    // the input it skips, and this process must remember the same.
    // (Remembered now, not after the commit: a window whose commit fails
    // fails the sink, so nothing reads the tracker afterwards.)
    d->late.Update(st.hash, st.newest.seq, st.newest.cls, flush_ms);
    if (!st.kept) return Ok();
    if (d->upsert || st.first_kind != RowKind::kInsert) {
      auto used = d->codec->Decode(row, &del_rows);
      if (!used) return Fail(used.error().WithContext("a buffered change"));
      if (del_rows.num_rows >= kOutputBatchRows) FLOE_RETURN_IF_ERROR(flush_del());
    }
    if (st.last_kind == RowKind::kInsert || st.last_kind == RowKind::kUpdateAfter) {
      auto used = d->codec->Decode(row, &out);
      if (!used) return Fail(used.error().WithContext("a buffered change"));
      if (out.num_rows >= kOutputBatchRows) FLOE_RETURN_IF_ERROR(flush_out());
    }
    return Ok();
  };

  if (d->window_spills == 0) {
    // All in memory: the states grouped by writer (their order within a
    // writer does not matter).
    const auto& states = d->key_states.states();
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
      FLOE_RETURN_IF_ERROR(resolve(st, d->key_states.row(st)));
    }
  } else {
    // Spilled: the rest joins the runs; a key's states from several runs
    // arrive together and combine.
    FLOE_RETURN_IF_ERROR(SpillKeys(d));
    FLOE_ASSIGN_OR_RETURN(auto stream, d->sorter->Finish());
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
      cur_row.assign(row);
      have = true;
      const int w = writer_of_shard(st.shard);
      if (w != current) FLOE_RETURN_IF_ERROR(open_writer(w));
    }
    if (have) FLOE_RETURN_IF_ERROR(resolve(cur, cur_row));
  }
  d->key_states.Clear();
  d->window_spills = 0;
  if (current >= 0) {
    FLOE_RETURN_IF_ERROR(flush_out());
    FLOE_RETURN_IF_ERROR(flush_del());
  }
  for (auto& w : *writers) {
    FLOE_ASSIGN_OR_RETURN(auto files, w->Close());
    for (auto& f : files) data->push_back(std::move(f));
  }
  for (auto& w : *delete_writers) {
    FLOE_ASSIGN_OR_RETURN(auto files, w->Close());
    for (auto& f : files) deletes->push_back(std::move(f));
  }
  return Ok();
}

void ChangeSink::Impl::AbortPrepared(Destination* d) {
  for (auto& w : d->window.writers) w->Abort();
  for (auto& w : d->window.delete_writers) w->Abort();
  for (auto& w : d->append_writers) {
    if (w) w->Abort();
  }
  d->append_writers.clear();
  d->window = Destination::Window();
}

// Phase 1 of a commit: the window's files (data, deletes), nothing published.
Status ChangeSink::Impl::PrepareDestination(Destination* d) {
  d->window = Destination::Window();
  Destination::Window& w = d->window;
  if (options_.mode == WriteMode::kMergeOnRead) {
    if (d->pending > 0) {
      if (Status st = FlushDestination(d, &w.data, &w.deletes, &w.writers, &w.delete_writers); !st) {
        AbortPrepared(d);
        return Fail(st.error().WithContext(d->name));
      }
    }
  } else {
    for (auto& aw : d->append_writers) {
      if (!aw) continue;
      auto files = aw->Close();
      if (!files) {
        AbortPrepared(d);
        return Fail(files.error().WithContext(d->name));
      }
      for (auto& f : *files) w.data.push_back(std::move(f));
    }
  }
  w.prepared = true;
  return Ok();
}

// Phase 2: one snapshot carrying the window's files and the token.
Status ChangeSink::Impl::CommitDestination(Destination* d, int64_t position, bool heartbeat) {
  if (!d->window.prepared) FLOE_RETURN_IF_ERROR(PrepareDestination(d));
  std::vector<iceberg::DataFile>& data = d->window.data;
  std::vector<iceberg::DataFile>& deletes = d->window.deletes;
  auto failed = [&](Error e) -> Status {
    AbortPrepared(d);
    return Fail(std::move(e).WithContext(d->name));
  };
  CrashPoint("sink.files-written");
  const int64_t now = NowMs();
  auto done = [&]() {
    d->pending = 0;
    d->window_bytes = 0;
    d->append_writers.clear();
    d->window = Destination::Window();
  };
  if (data.empty() && deletes.empty() && !heartbeat) {
    // Changes that cancel out (a key born and deleted in the window): nothing to publish.
    done();
    return Ok();
  }
  const int64_t number = d->commit_number + 1;
  std::string source_position;
  if (!options_.sink_id.empty() && sink_options_.describe_position) {
    auto described = DescribePosition(position);
    if (!described) return failed(described.error());
    source_position = std::move(*described);
  }
  auto commit = [&](auto& op) {
    for (auto& f : data) op.AddDataFile(f);
    for (const auto& [key, value] : sink_options_.summary) op.Set(key, value);
    for (const auto& [key, value] : options_.snapshot_properties) op.Set(key, value);
    if (!options_.sink_id.empty()) {
      op.Set(std::string(kSummarySinkId), options_.sink_id);
      op.Set(std::string(kSummaryCommitNumber), std::to_string(number));
      op.Set(std::string(kSummaryInputPosition), std::to_string(position));
      if (!source_position.empty()) op.Set(std::string(kSummarySourcePosition), source_position);
    }
    if (!d->branch.empty()) op.ToBranch(d->branch);
    if (!options_.sink_id.empty()) {
      // The token check, inside every attempt: a copy of this sink (a zombie,
      // a second launch) may have committed this number meanwhile; then this
      // commit must not land, and its files are not needed.
      op.Check([&](const table::SnapshotAttempt& attempt) -> Status {
        FLOE_ASSIGN_OR_RETURN(auto token, FindSinkToken(attempt.metadata, options_.sink_id, d->branch));
        if (token && token->commit_number >= number) {
          return AlreadyExists("sink '{}' commit {} is already in the table (snapshot {}): another process with the "
                               "same sink_id is writing it",
                               options_.sink_id, token->commit_number, token->snapshot_id);
        }
        return Ok();
      });
    }
    return op.Commit();
  };
  Result<table::CommitResult> committed;
  if (options_.mode == WriteMode::kMergeOnRead) {
    table::RowDelta op(d->table.get());
    for (auto& f : deletes) {
      if (d->global_spec_id) {
        op.AddDeleteFile(f, *d->global_spec_id);
      } else {
        op.AddDeleteFile(f);
      }
    }
    committed = commit(op);
  } else {
    table::AppendFiles op(d->table.get());
    committed = commit(op);
  }
  std::optional<int64_t> snapshot_id;
  if (committed) {
    snapshot_id = committed->snapshot_id;
  } else if (committed.error().kind == ErrorKind::kCommitStateUnknown && !options_.sink_id.empty()) {
    // Settle by the token: present means the commit landed.
    Error unknown = committed.error();
    if (Status st = d->table->Refresh(); !st) {
      return Fail(std::move(unknown).WithContext(d->name));  // still unknown: keep the files
    }
    auto token = FindSinkToken(d->table->metadata(), options_.sink_id, d->branch);
    if (!token) return Fail(std::move(unknown).WithContext(d->name));
    if (*token && (*token)->commit_number == number) {
      snapshot_id = (*token)->snapshot_id;
    } else {
      return failed(CommitFailed("commit {} of sink '{}' did not land (its outcome was unknown: {}; the table has no "
                                 "token for it)",
                                 number, options_.sink_id, unknown.message)
                        .error());
    }
  } else if (committed.error().kind == ErrorKind::kCommitStateUnknown) {
    // No token to settle it: the snapshot may be live, so its files stay.
    d->append_writers.clear();
    d->window = Destination::Window();
    return Fail(std::move(committed).error().WithContext(d->name));
  } else {
    return failed(committed.error());
  }
  d->commit_number = number;
  d->committed_position = position;
  d->last_commit_ms = now;
  d->stats.commits++;
  d->stats.commit_number = number;
  d->stats.snapshot_id = snapshot_id;
  d->stats.data_files += static_cast<int64_t>(data.size());
  d->stats.delete_files += static_cast<int64_t>(deletes.size());
  d->created.reset();  // committed: no longer ours to drop
  done();
  return Ok();
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
    if (d->pending == 0 && options_.mode == WriteMode::kAppend && d->append_writers.empty()) continue;
    if (d->pending == 0 && options_.mode == WriteMode::kMergeOnRead) continue;
    due.push_back(d.get());
  }
  // 1. Every destination's files first: resolving the window finds its late
  //    changes, which go to the dead-letter output.
  for (Destination* d : due) {
    if (Status st = PrepareDestination(d); !st) {
      for (Destination* other : due) AbortPrepared(other);
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
      for (Destination* other : due) AbortPrepared(other);
      return Fail(st.error());
    }
  }
  // 3. One snapshot per destination.
  for (Destination* d : due) FLOE_RETURN_IF_ERROR(CommitDestination(d, position, false));
  CrashPoint("sink.committed");
  window_rows_ = 0;
  ++windows_committed_;
  return Ok();
}

Status ChangeSink::Impl::Heartbeat() {
  if (!options_.token_heartbeat_seconds || options_.sink_id.empty()) return Ok();
  const int64_t now = NowMs();
  for (auto& [name, d] : destinations_) {
    if (d->pending > 0) continue;
    if (now - d->last_commit_ms < int64_t{*options_.token_heartbeat_seconds} * 1000) continue;
    FLOE_RETURN_IF_ERROR(EnsureTable(d.get()));
    FLOE_RETURN_IF_ERROR(CommitDestination(d.get(), std::max(last_position_, d->committed_position), true));
  }
  return Ok();
}

void ChangeSink::Impl::AbortWindow() {
  for (auto& [name, d] : destinations_) {
    AbortPrepared(d.get());
    // A table this sink created and never committed to is dropped again.
    if (d->created) (void)catalog_->DropIfUnchanged(*d->created);
    d->created.reset();
  }
}

SinkStats ChangeSink::Impl::stats() const {
  SinkStats s;
  s.unrouted_errors = unrouted_errors_;
  s.read = unrouted_read_;
  s.errors = unrouted_errors_;
  s.commits = windows_committed_;
  for (const auto& [name, d] : destinations_) {
    const DestinationStats& ds = d->stats;
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
Status ChangeSink::Reject(int64_t position, std::string_view reason, std::string text) {
  ++impl_->unrouted_errors_;
  ++impl_->unrouted_read_;
  impl_->last_position_ = std::max(impl_->last_position_, position);
  return impl_->Reject(position, reason, std::move(text));
}
Status ChangeSink::Commit(int64_t position) { return impl_->Commit(position); }
Status ChangeSink::Heartbeat() { return impl_->Heartbeat(); }
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
    dests.push_back(std::move(o));
  }
  j["destinations"] = std::move(dests);
  return j.dump();
}

}  // namespace floe::sink
