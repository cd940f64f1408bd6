// A destination of the change sink: opening it (table, key, window, token)
// and the table cache (destination.h).
#include "floe/sink/destination.h"

#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>

#include "floe/catalog/identifier.h"
#include "floe/config/options.h"
#include "floe/sink/sink_token.h"
#include "floe/sink/write_job.h"
#include "floe/table/scan.h"
#include "floe/table/table_reader.h"

namespace floe::sink {

namespace k = config::keys;

void Destination::AbortWindow() {
  if (vectors) vectors->Abort();
  vectors.reset();
  if (changes) changes->Abort();
  if (append) append->Abort();
  append.reset();
  prepared.reset();
}

void Destination::ReleaseWindow() {
  vectors.reset();
  if (changes) changes->Release();
  if (append) append->Release();
  append.reset();
  prepared.reset();
  pending = 0;
  window_bytes = 0;
}

namespace {

// The field of `schema` at a dotted path (a key column), or an error naming it.
Result<const NestedField*> FieldAt(const Schema& schema, const std::string& col, std::string_view table) {
  auto path = NamePath(schema, col);
  if (!path) {
    if (table.empty()) {
      return InvalidArgument("option {}: no column '{}' in the table schema", k::kBeamEqualityColumns.name, col);
    }
    return InvalidArgument("option {}: table {} has no column '{}'", k::kBeamEqualityColumns.name, table, col);
  }
  const NestedField* f = &schema.fields()[static_cast<size_t>((*path)[0])];
  for (size_t i = 1; i < path->size(); ++i) f = &f->type->fields[static_cast<size_t>((*path)[i])];
  return f;
}

// The key columns of a new table become its identifier fields (required, and
// so is every struct on the way to one).
Status MakeKeyIdentifiers(catalog::TableDefinition* def, const SinkOptions& options, const std::string& name) {
  std::vector<int32_t> ids;
  if (options.equality_columns.empty()) {
    ids = def->schema.identifier_field_ids();
    if (ids.empty()) {
      return InvalidArgument(
          "table {} does not exist and no key is known: give equality_columns (or equality-field-columns), or "
          "declare PRIMARY KEY (...) NOT ENFORCED in the schema",
          name);
    }
  } else {
    for (const std::string& col : options.equality_columns) {
      FLOE_ASSIGN_OR_RETURN(const NestedField* f, FieldAt(def->schema, col, {}));
      ids.push_back(f->id);
    }
  }
  auto is_key = [&](int32_t id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); };
  std::function<bool(const Type&)> holds = [&](const Type& t) {
    for (const auto& c : t.fields) {
      if (is_key(c.id)) return true;
      if (c.type->id == TypeId::kStruct && holds(*c.type)) return true;
    }
    return false;
  };
  std::function<std::vector<NestedField>(const std::vector<NestedField>&)> require =
      [&](const std::vector<NestedField>& fields) {
        std::vector<NestedField> out = fields;
        for (auto& f : out) {
          if (is_key(f.id)) f.required = true;
          if (f.type->id == TypeId::kStruct) {
            f.type = StructType(require(f.type->fields));
            if (holds(*f.type)) f.required = true;
          }
        }
        return out;
      };
  def->schema = Schema(require(def->schema.fields()), def->schema.schema_id(), ids);
  return def->schema.Validate();
}

// The merge-on-read key of an opened destination.
Status OpenKey(Destination* d, const SinkOptions& options, const Schema& table_schema, const Schema& row_schema) {
  DestinationKey& key = d->key;
  if (!options.equality_columns.empty()) {
    for (const std::string& col : options.equality_columns) {
      FLOE_ASSIGN_OR_RETURN(const NestedField* f, FieldAt(table_schema, col, d->name));
      key.eq_ids.push_back(f->id);
    }
  } else {
    key.eq_ids = table_schema.identifier_field_ids();
    if (key.eq_ids.empty()) {
      return InvalidArgument("table {} has no identifier fields: give equality_columns (or "
                             "equality-field-columns) to name the key",
                             d->name);
    }
  }
  FLOE_ASSIGN_OR_RETURN(auto enc, KeyEncoder::Make(table_schema, key.eq_ids));
  key.encoder = std::move(enc);
  // The same columns by name in the incoming rows (absent ones are filled
  // with nulls by the projection: they fail the table's required check).
  for (int32_t id : key.eq_ids) {
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
    if (!find(table_schema.fields(), "")) continue;
    auto path = NamePath(row_schema, dotted);
    if (!path) continue;
    key.input_paths.push_back(*path);
    key.input_names.push_back(dotted);
  }
  const iceberg::PartitionSpec& spec = *d->t()->metadata().DefaultSpec();
  for (const auto& pf : spec.fields()) {
    if (std::find(key.eq_ids.begin(), key.eq_ids.end(), pf.source_id) == key.eq_ids.end()) {
      key.partition_scoped = false;
    }
  }
  if (!key.partition_scoped) {
    // A key may move between partitions: its deletes must reach them all.
    FLOE_ASSIGN_OR_RETURN(int32_t spec_id, table::EnsureUnpartitionedSpec(d->t()));
    key.global_spec_id = spec_id;
  }
  return Ok();
}

// The keys the table holds when the sink opens it (its key columns, read
// with the table's deletes applied): an INSERT of one of them replaces its row
// with an equality delete instead of adding a second row of the key. They go
// into the lateness tracker with no sequence number (nothing is late against
// them); the tracker then knows every key that may be live: these, and every
// key this sink applied since.
Status SeedLiveKeys(Destination* d) {
  const iceberg::TableMetadata& meta = d->t()->metadata();
  table::ScanOptions so;
  if (!d->branch.empty() && meta.refs.contains(d->branch)) {
    so.branch = d->branch;
  } else if (!meta.current_snapshot_id) {
    return Ok();  // no rows yet
  }
  // The top-level columns that hold the key (a struct holds a nested key).
  const SchemaPtr schema = meta.CurrentSchema();
  for (int32_t id : d->key.eq_ids) {
    for (const auto& f : schema->fields()) {
      std::function<bool(const NestedField&)> holds = [&](const NestedField& n) {
        if (n.id == id) return true;
        if (n.type->id != TypeId::kStruct) return false;
        return std::any_of(n.type->fields.begin(), n.type->fields.end(), holds);
      };
      if (holds(f) && std::find(so.columns.begin(), so.columns.end(), f.name) == so.columns.end()) {
        so.columns.push_back(f.name);
      }
    }
  }
  auto metadata = std::make_shared<const iceberg::TableMetadata>(meta);
  table::FileManifestSource manifests(*metadata, d->t()->io());
  FLOE_ASSIGN_OR_RETURN(table::ScanPlan plan, table::PlanScan(metadata, so, &manifests));
  table::TableReaderOptions ro;
  ro.threads = 1;
  FLOE_ASSIGN_OR_RETURN(auto reader, table::TableReader::Make(std::move(plan), d->t()->io(), ro));
  FLOE_ASSIGN_OR_RETURN(KeyEncoder enc, KeyEncoder::Make(*reader->schema(), d->key.eq_ids));
  std::string key, null_column;
  for (;;) {
    Batch b;
    FLOE_ASSIGN_OR_RETURN(bool more, reader->Next(&b));
    if (!more) break;
    for (int64_t i = 0; i < b.num_rows; ++i) {
      key.clear();
      if (!enc.Encode(b, i, &key, &null_column)) continue;  // a null key: not a key of this sink
      (void)d->late.Update(XXH3_64bits(key.data(), key.size()), std::numeric_limits<int64_t>::min(), 0, 0);
    }
  }
  return Ok();
}

// The head of `branch` (main when unset or missing), or nullopt.
std::optional<int64_t> BranchHead(const iceberg::TableMetadata& meta, const std::string& branch) {
  if (!branch.empty()) {
    if (auto it = meta.refs.find(branch); it != meta.refs.end()) return it->second.snapshot_id;
  }
  return meta.current_snapshot_id;
}

}  // namespace

Status RefreshKeyIndex(Destination* d) {
  const iceberg::TableMetadata& meta = d->t()->metadata();
  const std::optional<int64_t> head = BranchHead(meta, d->branch);
  if (d->index.built && d->index.snapshot_id == head) {
    if (d->index_pending.empty()) return Ok();
    std::vector<iceberg::DataFile> files = std::move(d->index_pending);
    d->index_pending.clear();
    Status st = IndexDataFiles(*d->t(), files, meta.default_spec_id, d->key.eq_ids, d->seq_column, &d->index);
    if (st) return Ok();
    // Read the whole table again below.
  }
  d->index_pending.clear();
  const auto start = std::chrono::steady_clock::now();
  auto since = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  };
  if (d->index.built) {
    // Another writer committed (or this sink's commit landed on another's):
    // only the files that changed are read.
    FLOE_ASSIGN_OR_RETURN(bool caught_up,
                          CatchUpKeyIndex(*d->t(), d->branch, d->key.eq_ids, d->seq_column, &d->index));
    if (caught_up) {
      d->stats.index_catch_ups++;
      d->stats.index_catch_up_ms = since();
      return Ok();
    }
  }
  FLOE_RETURN_IF_ERROR(BuildKeyIndex(*d->t(), d->branch, d->key.eq_ids, d->seq_column, &d->index));
  d->stats.index_builds++;
  d->stats.index_build_ms = since();
  return Ok();
}

Status ReplanVectorDeletes(Destination* d, WindowFiles* files) {
  FLOE_RETURN_IF_ERROR(RefreshKeyIndex(d));
  const KeyIndex& index = d->index;
  struct Target {
    uint32_t file;
    int64_t pos;
    size_t key;  ///< in files->AppliedKey
  };
  std::vector<Target> targets;
  for (size_t i = 0; i < files->applied_count(); ++i) {
    const std::string_view key = files->AppliedKey(i);
    const auto hit = index.Find(XXH3_64bits(key.data(), key.size()));
    if (!hit) continue;  // not live (another writer may have deleted it)
    if (hit->ambiguous) {
      return CommitFailed("table {}: after another writer's commit two live rows share the hash of a key this "
                          "window changes; the window is not committed (restart the sink, which re-reads the "
                          "table)",
                          d->name);
    }
    // (The window kept sequence numbers when the index has them.)
    if (index.has_sequence() && i < files->applied_seqs.size() && hit->seq != KeyIndex::kNoSeq &&
        hit->seq >= files->applied_seqs[i]) {
      return CommitFailed("table {}: another writer committed a change of a key this window changes, with "
                          "sequence number {} (this window's: {}), after this sink read the table; the window is "
                          "not committed (restart the sink, which re-reads the table and finds the change late)",
                          d->name, hit->seq, files->applied_seqs[i]);
    }
    targets.push_back({hit->file, hit->pos, i});
  }
  std::sort(targets.begin(), targets.end(),
            [](const Target& a, const Target& b) { return a.file != b.file ? a.file < b.file : a.pos < b.pos; });
  files->vector_deletes.clear();
  files->referenced.clear();
  files->unindexed.clear();
  for (size_t i = 0; i < targets.size();) {
    size_t j = i;
    while (j < targets.size() && targets[j].file == targets[i].file) ++j;
    const KeyIndex::FileRef& ref = index.file(targets[i].file);
    // The keys at the positions, read back (the index holds hashes only).
    FLOE_ASSIGN_OR_RETURN(std::vector<std::string> keys, ReadFileKeys(*d->t(), ref.file, ref.spec_id, d->key.eq_ids));
    WindowFiles::VectorDeletes v{ref.file.file_path, {}};
    for (size_t c = i; c < j; ++c) {
      const Target& t = targets[c];
      const std::string_view key = files->AppliedKey(t.key);
      if (static_cast<size_t>(t.pos) >= keys.size() || keys[static_cast<size_t>(t.pos)] != key) {
        return CommitFailed("table {}: after another writer's commit a key this window changes shares its hash with "
                            "the row at position {} of data file {}; the window is not committed (restart the "
                            "sink, which re-reads the table)",
                            d->name, t.pos, ref.file.file_path);
      }
      if (v.positions.empty() || v.positions.back() != t.pos) v.positions.push_back(t.pos);
      files->unindexed.push_back(XXH3_64bits(key.data(), key.size()));
    }
    files->referenced.push_back(ref.file.file_path);
    files->vector_deletes.push_back(std::move(v));
    i = j;
  }
  return Ok();
}

Result<std::unique_ptr<Destination>> OpenDestination(const std::string& name, const DestinationContext& ctx,
                                                     bool* fatal) {
  const SinkOptions& options = *ctx.options;
  const ChangeSinkOptions& sink_options = *ctx.sink_options;
  const bool mor = options.mode == WriteMode::kMergeOnRead;
  auto d = std::make_unique<Destination>();
  d->name = name;
  d->stats.table = name;
  auto adjust = [&](catalog::TableDefinition* def) -> Status {
    return mor ? MakeKeyIdentifiers(def, options, name) : Ok();
  };
  WriteConfig cfg = *ctx.config;
  cfg.table = name;
  FLOE_ASSIGN_OR_RETURN(OpenedTable opened, OpenOrCreateTable(cfg, name, ctx.catalog, ctx.row_schema,
                                                              sink_options.missing_table_hint, adjust));
  d->table.table = std::move(opened.table);
  d->table.created = std::move(opened.created);
  d->projector = std::move(opened.projector);
  const iceberg::TableMetadata& meta = d->t()->metadata();
  config::Resolver resolver({&ctx.config->write_properties, &meta.properties});
  FLOE_ASSIGN_OR_RETURN(d->writer_options, table::DataWriterOptions::Resolve(meta, resolver));
  FLOE_ASSIGN_OR_RETURN(auto branch, resolver.Get(k::kBranch));
  if (!sink_options.branch.empty() && branch && *branch != sink_options.branch) {
    return InvalidArgument("the branch is given twice, as '{}' and as option {}='{}'; give it once",
                           sink_options.branch, k::kBranch.name, *branch);
  }
  d->branch = !sink_options.branch.empty() ? sink_options.branch : branch.value_or("");
  FLOE_ASSIGN_OR_RETURN(bool overwrite, resolver.Value(k::kOverwriteEnabled));
  if (overwrite) {
    return InvalidArgument("option {}: the change sink appends or merges; overwrite is a plain `floe write`",
                           k::kOverwriteEnabled.name);
  }
  // The table's own write.upsert.enabled makes this an upsert (Flink).
  FLOE_ASSIGN_OR_RETURN(auto table_upsert, config::Resolver(meta.properties).Get(k::kWriteUpsertEnabled));
  d->upsert = options.upsert || table_upsert.value_or(false);
  if (d->upsert && !mor) {
    return InvalidArgument("table {} has {}=true: writing it in mode append would duplicate keys; set mode: "
                           "merge-on-read",
                           name, k::kWriteUpsertEnabled.name);
  }
  const SchemaPtr table_schema = meta.CurrentSchema();
  if (mor) {
    FLOE_RETURN_IF_ERROR(OpenKey(d.get(), options, *table_schema, *ctx.row_schema));
    // Deletes by position need the key index (delete_kind position): position
    // delete files on format version 2 tables, deletion vectors on version 3
    // (the window's commit chooses by the table's version then).
    d->position_deletes = options.position_deletes && meta.format_version >= 2;
    // (Arrival order numbers changes per process: nothing to compare across runs.)
    d->seq_column = options.arrival_order ? std::string() : options.sequence_column;
    FLOE_ASSIGN_OR_RETURN(std::string granularity, resolver.Value(k::kWriteDeleteGranularity));
    d->delete_per_file = granularity != "partition";
    if (d->position_deletes) {
      if (Status st = RefreshKeyIndex(d.get()); !st) {
        return std::unexpected<Error>(st.error().WithContext("indexing the keys the table holds"));
      }
    } else if (!d->upsert) {
      // (Upsert deletes every key it writes: it needs no list of live keys.)
      if (Status st = SeedLiveKeys(d.get()); !st) {
        return std::unexpected<Error>(st.error().WithContext("reading the keys the table holds"));
      }
    }
    // A destination's key states take at most 3/4 of the budget (the rest is
    // for spilling, in runs of at most a quarter); several destinations share
    // it (ChangeSink's SpillIfOver).
    const size_t limit = static_cast<size_t>(options.sorter_memory_bytes / 4 * 3);
    const size_t chunk = static_cast<size_t>(std::max<int64_t>(options.sorter_memory_bytes / 4, 1 << 20));
    FLOE_ASSIGN_OR_RETURN(d->changes, ChangeWindow::Make(table_schema, limit, chunk, sink_options.spill_dir));
  }
  // Merge-on-read collapses a key's changes shard by shard, so a key's shard
  // must not depend on anything but the key: placing rows by partition is
  // only safe when the partition is a function of the key (partition_scoped);
  // otherwise a key moving partition would be split over shards and keep a
  // row in each.
  if (options.hash_distribution && options.shards_per_partition < options.num_shards &&
      !meta.DefaultSpec()->is_unpartitioned() && (!mor || d->key.partition_scoped)) {
    FLOE_ASSIGN_OR_RETURN(auto keyer, table::PartitionKeyer::Make(*meta.DefaultSpec(), table_schema));
    d->keyer = std::move(keyer);
  }
  // Exactly-once: where an earlier run of this sink left off.
  if (!options.sink_id.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto token, FindSinkToken(meta, options.sink_id, d->branch));
    if (token) {
      // The same input as the one the token covers, or nothing is written.
      if (sink_options.resume_destination) {
        auto held = sink_options.resume_destination(name, token->source_position, token->input, token->position);
        if (!held) {
          *fatal = true;
          return std::unexpected<Error>(held.error().WithContext(name));
        }
        d->token.held = std::move(*held);
      } else if (sink_options.resume) {
        Status st = sink_options.resume(token->source_position, token->input, token->position);
        if (!st) {
          *fatal = true;
          return std::unexpected<Error>(st.error().WithContext(name));  // which destination's token
        }
      }
      d->token.commit_number = token->commit_number;
      d->token.committed_position = token->position;
      d->token.last_commit_ms = token->timestamp_ms;
      d->stats.commit_number = token->commit_number;
    }
    FLOE_RETURN_IF_ERROR(RegisterSink(d->t(), options.sink_id));
  }
  if (d->token.last_commit_ms == 0) d->token.last_commit_ms = WallMs();
  d->stats.table_loads = 1;
  d->table.schema_id = d->t()->metadata().current_schema_id;
  d->table.spec_id = d->t()->metadata().default_spec_id;
  return d;
}

// ------------------------------------------------------------------ cache

void TableCache::Opened(Destination* d, int64_t window) {
  d->table.loaded_ms = WallMs();
  d->table.loaded_window = window;
  d->table.last_used = ++use_counter_;
}

Status TableCache::Load(Destination* d, int64_t window) {
  DestinationTable& t = d->table;
  if (t.table) {
    FLOE_RETURN_IF_ERROR(t.table->Refresh());
  } else {
    FLOE_ASSIGN_OR_RETURN(auto id, catalog::ParseTableIdentifier(d->name));
    FLOE_ASSIGN_OR_RETURN(auto loaded, catalog_->LoadTable(id));
    t.table = std::make_unique<table::Table>(catalog_, std::move(loaded));
    t.table->SetOptionOverrides(*write_properties_);  // commit.retry.* of this write
  }
  const iceberg::TableMetadata& meta = t.table->metadata();
  if (meta.current_schema_id != t.schema_id || meta.default_spec_id != t.spec_id) {
    return InvalidArgument("table {} changed its schema or partition spec while the sink was writing it; restart "
                           "the sink to write the new layout",
                           d->name);
  }
  ++d->stats.table_loads;
  t.loaded_ms = WallMs();
  t.loaded_window = window;
  return Ok();
}

Status TableCache::Ensure(Destination* d, const std::map<std::string, std::unique_ptr<Destination>>& all,
                          int64_t window) {
  const SinkOptions& o = *options_;
  d->table.last_used = ++use_counter_;
  const bool idle = d->idle();
  if (!d->table.table) {
    FLOE_RETURN_IF_ERROR(Load(d, window));
  } else if (idle && !o.table_cache && d->table.loaded_window < window) {
    // No cache: each window starts from the catalog's current table.
    FLOE_RETURN_IF_ERROR(Load(d, window));
  } else if (idle && o.table_cache && o.table_cache_refresh_seconds) {
    // Refreshes staggered over the interval by the destination's bucket.
    const int64_t interval_ms = *o.table_cache_refresh_seconds * 1000;
    const int64_t bucket = static_cast<int64_t>(XXH3_64bits(d->name.data(), d->name.size()) %
                                                static_cast<uint64_t>(o.table_cache_buckets));
    const int64_t offset = interval_ms * bucket / o.table_cache_buckets;
    if (WallMs() - d->table.loaded_ms >= interval_ms + offset) FLOE_RETURN_IF_ERROR(Load(d, window));
  }
  if (o.table_cache && o.table_cache_max_size) {
    // Unload the least recently used idle tables past the cache size.
    std::vector<Destination*> loaded;
    for (const auto& [name, other] : all) {
      if (other->table.table && other.get() != d) loaded.push_back(other.get());
    }
    std::sort(loaded.begin(), loaded.end(),
              [](Destination* a, Destination* b) { return a->table.last_used < b->table.last_used; });
    size_t count = loaded.size() + 1;
    for (Destination* victim : loaded) {
      if (count <= static_cast<size_t>(*o.table_cache_max_size)) break;
      if (victim->idle()) {
        victim->table.table.reset();
        --count;
      }
    }
  }
  return Ok();
}

}  // namespace floe::sink
