#include "floe/table/data_writer.h"

#include <algorithm>
#include <cctype>
#include <thread>

#include "floe/iceberg/schema_json.h"
#include "floe/parquet/schema_mapping.h"
#include "floe/types/column_ops.h"
#include "floe/util/strings.h"

namespace floe::table {

using iceberg::DataFile;
using iceberg::DataFileContent;
using iceberg::Values;

namespace {

// Rows written before the first size estimate of a file exists, and the
// smallest slice cut from a batch near the target size.
constexpr int64_t kFirstSliceRows = 1000;
constexpr int64_t kMinSliceRows = 64;

std::string TrimTrailingSlashes(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

void CollectLeaves(const std::vector<NestedField>& fields, const std::string& prefix, bool repeated,
                   std::vector<std::tuple<int32_t, std::string, TypePtr, bool>>* out) {
  for (const auto& f : fields) {
    std::string name = prefix.empty() ? f.name : prefix + "." + f.name;
    if (!f.type->is_nested()) {
      out->emplace_back(f.id, name, f.type, repeated);
    } else {
      CollectLeaves(f.type->fields, name, repeated || f.type->id != TypeId::kStruct, out);
    }
  }
}

}  // namespace

// ---------------------------------------------------------------- options

Result<DataWriterOptions> DataWriterOptions::Resolve(const iceberg::TableMetadata& metadata,
                                                     const config::Resolver& resolver) {
  namespace k = config::keys;
  DataWriterOptions o;
  FLOE_ASSIGN_OR_RETURN(std::string format, resolver.Value(k::kWriteFormat));
  if (format != "parquet") return Unsupported("write format '{}': floe writes parquet data files only", format);
  FLOE_ASSIGN_OR_RETURN(o.target_file_size_bytes, resolver.Value(k::kTargetFileSizeBytes));
  FLOE_ASSIGN_OR_RETURN(o.parquet, parquet::WriterOptions::FromResolver(resolver));
  // Encoder threads per data file (default: the number of cores).
  FLOE_ASSIGN_OR_RETURN(auto parallelism, resolver.Get(k::kWriteParallelism));
  o.parquet.parallelism =
      parallelism ? *parallelism : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  FLOE_ASSIGN_OR_RETURN(o.metrics, iceberg::MetricsConfig::FromProperties(metadata.properties));
  FLOE_ASSIGN_OR_RETURN(auto data_path, resolver.Get(k::kWriteDataPath));
  if (data_path && !data_path->empty()) {
    o.data_location = TrimTrailingSlashes(*data_path);
  } else {
    if (metadata.location.empty()) return InvalidArgument("table metadata has no location");
    o.data_location = TrimTrailingSlashes(metadata.location) + "/data";
  }
  // floe writes rows in the order they come (it does not sort by the table's
  // sort order), so its files claim order 0, the unsorted order (Iceberg
  // spec: Sorting): a reader may rely on a file's claimed order.
  o.sort_order_id = 0;
  return o;
}

// ---------------------------------------------------------------- file factory

OutputFileFactory::OutputFileFactory(io::FileIOPtr io, std::string data_location,
                                     int32_t partition_id, int64_t task_id, std::string operation_id)
    : io_(io ? std::move(io) : io::LocalFileIO()),
      data_location_(TrimTrailingSlashes(std::move(data_location))),
      partition_id_(partition_id),
      task_id_(task_id),
      operation_id_(std::move(operation_id)) {
  local_uri_ = io::SchemeOf(data_location_) == "file";
  if (local_uri_) {
    auto local = io::LocalPathOfUri(data_location_);
    local_root_ = AbsolutePath(local ? *local : data_location_);
  }
}

OutputFileFactory::OutputFileFactory(std::string data_location, LocationMapper mapper,
                                     int32_t partition_id, int64_t task_id, std::string operation_id)
    : OutputFileFactory(io::MappedFileIO(std::move(mapper), io::LocalFileIO()), std::move(data_location),
                        partition_id, task_id, std::move(operation_id)) {}

Result<OutputFileFactory::NewFile> OutputFileFactory::Open(std::string_view partition_path,
                                                           std::string_view suffix,
                                                           std::string_view extension) {
  const int64_t n = ++count_;
  std::string name = fmt::format("{:05d}-{}-{}-{:05d}{}{}.{}", partition_id_, task_id_,
                                 operation_id_, n, suffix.empty() ? "" : "-", suffix, extension);
  std::string rel = partition_path.empty() ? name : fmt::format("{}/{}", partition_path, name);
  NewFile f;
  if (local_uri_) {
    f.location = FileUri(local_root_ == "/" ? "/" + rel : local_root_ + "/" + rel);
  } else {
    f.location = data_location_ + "/" + rel;
  }
  // Missing folders (a new table's data folder, partition folders) are made
  // and remembered, so that a failed write removes them again.
  std::vector<std::string> made;
  io::OutputOptions o;
  o.overwrite = false;
  o.create_parents = true;
  o.created_folders = &made;
  auto out = io_->NewOutput(f.location, o);
  if (!made.empty()) {
    std::lock_guard lock(mu_);
    created_.insert(made.begin(), made.end());
  }
  if (!out) {
    ReleaseFolders(f.location);
    return Fail(std::move(out).error());
  }
  f.output = std::move(*out);
  if (auto local = io_->LocalPath(f.location)) f.local_path = std::move(*local);
  return f;
}

void OutputFileFactory::Remove(const std::string& location) {
  (void)io_->Delete(location);  // already gone is fine
  ReleaseFolders(location);
}

void OutputFileFactory::ReleaseFolders(const std::string& location) {
  std::lock_guard lock(mu_);
  io_->ReleaseFolders(location, &created_);
}

std::vector<std::string> OutputFileFactory::created_folders() const {
  std::lock_guard lock(mu_);
  return {created_.begin(), created_.end()};
}

// ---------------------------------------------------------------- file settings

Result<std::shared_ptr<const FileSettings>> FileSettings::Make(SchemaPtr file_schema,
                                                               const DataWriterOptions& options,
                                                               ContentFileOptions content) {
  if (!file_schema) return InvalidArgument("file writer: no schema");
  if (options.format != iceberg::FileFormat::kParquet) {
    return Unsupported("file format {}: floe writes parquet only", iceberg::FileFormatName(options.format));
  }
  if (options.target_file_size_bytes <= 0) {
    return InvalidArgument("target file size {} is not positive", options.target_file_size_bytes);
  }
  FLOE_RETURN_IF_ERROR(parquet::MapSchema(*file_schema));
  auto s = std::shared_ptr<FileSettings>(new FileSettings());
  s->schema_ = file_schema;
  s->parquet_ = options.parquet;
  FLOE_ASSIGN_OR_RETURN(s->parquet_.key_value_metadata["iceberg.schema"],
                        iceberg::SchemaToJson(*file_schema));
  s->target_ = options.target_file_size_bytes;
  std::vector<std::tuple<int32_t, std::string, TypePtr, bool>> leaves;
  CollectLeaves(file_schema->fields(), "", false, &leaves);
  for (auto& [id, name, type, repeated] : leaves) {
    Leaf leaf;
    auto o = content.metrics_overrides.find(id);
    leaf.mode = o != content.metrics_overrides.end() ? o->second : options.metrics.ModeFor(name);
    leaf.name = std::move(name);
    leaf.type = std::move(type);
    leaf.repeated = repeated;
    s->leaves_.emplace(id, std::move(leaf));
  }
  for (int32_t id : content.equality_ids) {
    if (!file_schema->FindField(id)) {
      return InvalidArgument("equality field id {} is not in the delete file's schema", id);
    }
  }
  s->content_ = std::move(content);
  return std::shared_ptr<const FileSettings>(std::move(s));
}

Result<DataFile> FileSettings::ToDataFile(const parquet::WriteResult& result, std::string location,
                                          Values partition) const {
  DataFile f;
  f.content = content_.content;
  f.file_path = std::move(location);
  f.file_format = iceberg::FileFormat::kParquet;
  f.partition = std::move(partition);
  f.record_count = result.num_rows;
  f.file_size_in_bytes = result.file_size_bytes;
  f.split_offsets = result.row_group_offsets;
  for (const auto& m : result.columns) {
    auto it = leaves_.find(m.field_id);
    if (it == leaves_.end()) {
      return Internal("{}: Parquet leaf {} has field id {}, which is not a leaf of the schema", f.file_path,
                      fmt::join(m.path, "."), m.field_id);
    }
    const Leaf& leaf = it->second;
    iceberg::ColumnMetrics raw;
    raw.column_size = m.compressed_size;
    raw.value_count = m.value_count;
    raw.null_count = m.null_count;
    raw.nan_count = m.nan_count;
    if (!leaf.repeated) {  // Java keeps no bounds for leaves in lists and maps
      raw.lower_bound = m.lower_bound;
      raw.upper_bound = m.upper_bound;
    }
    iceberg::ColumnMetrics out = iceberg::ApplyMetricsMode(leaf.mode, *leaf.type, std::move(raw));
    const int32_t id = m.field_id;
    if (out.column_size) f.column_sizes[id] = *out.column_size;
    if (out.value_count) f.value_counts[id] = *out.value_count;
    if (out.null_count) f.null_value_counts[id] = *out.null_count;
    if (out.nan_count) f.nan_value_counts[id] = *out.nan_count;
    if (out.lower_bound) f.lower_bounds[id] = std::move(*out.lower_bound);
    if (out.upper_bound) f.upper_bounds[id] = std::move(*out.upper_bound);
  }
  f.equality_ids = content_.equality_ids;
  if (content_.content != DataFileContent::kPositionDeletes) f.sort_order_id = content_.sort_order_id;
  FLOE_RETURN_IF_ERROR(f.Validate());
  return f;
}

// ---------------------------------------------------------------- rolling writer

RollingFileWriter::RollingFileWriter(std::shared_ptr<OutputFileFactory> factory,
                                     std::shared_ptr<const FileSettings> settings, Values partition,
                                     std::string partition_path)
    : factory_(std::move(factory)),
      settings_(std::move(settings)),
      partition_(std::move(partition)),
      partition_path_(std::move(partition_path)) {}

RollingFileWriter::~RollingFileWriter() {
  if (!closed_) Abort();
}

Status RollingFileWriter::OpenFile() {
  const bool deletes = settings_->content().content != DataFileContent::kData;
  FLOE_ASSIGN_OR_RETURN(auto nf, factory_->Open(partition_path_, deletes ? "deletes" : ""));
  location_ = std::move(nf.location);
  auto writer = parquet::FileWriter::Open(std::move(nf.output), settings_->schema(), settings_->parquet());
  if (!writer) {
    factory_->ReleaseFolders(location_);  // the output was dropped with its temporary file
    return Fail(std::move(writer).error());
  }
  writer_ = std::move(*writer);
  rows_in_file_ = 0;
  return Ok();
}

Status RollingFileWriter::CloseFile() {
  auto result = writer_->Close();
  writer_.reset();
  if (!result) {
    factory_->ReleaseFolders(location_);  // the writer aborted the unfinished file
    return Fail(std::move(result).error());
  }
  // The file exists from here on: remember it before anything else can fail.
  done_locations_.push_back(location_);
  FLOE_ASSIGN_OR_RETURN(DataFile f, settings_->ToDataFile(*result, location_, partition_));
  done_.push_back(std::move(f));
  rows_in_file_ = 0;
  return Ok();
}

Status RollingFileWriter::WriteSlice(const Batch& batch) {
  FLOE_RETURN_IF_ERROR(writer_->Write(batch));
  rows_in_file_ += batch.num_rows;
  rows_written_ += batch.num_rows;
  const int64_t target = settings_->target_file_size_bytes();
  if (writer_->EstimatedFileSize() >= target) {
    // Files roll on their size as written: bytes not compressed yet were
    // counted at the ratio seen so far (raw before the first page), so first
    // compress what is buffered and measure. A file well short of the target
    // takes more rows (Write sizes the next slice from the measured bytes per
    // row); files closed on raw bytes came out at a quarter of the target with
    // zstd.
    FLOE_RETURN_IF_ERROR(writer_->SettlePages());
    if (writer_->EstimatedFileSize() >= target - target / 20) FLOE_RETURN_IF_ERROR(CloseFile());
  }
  return Ok();
}

Status RollingFileWriter::Write(const Batch& batch) {
  if (closed_) return InvalidArgument("rolling writer: Write after Close or Abort");
  const int64_t n = batch.num_rows;
  int64_t pos = 0;
  while (pos < n) {
    if (!writer_) FLOE_RETURN_IF_ERROR(OpenFile());
    int64_t take = n - pos;
    if (rows_in_file_ == 0) {
      take = std::min(take, kFirstSliceRows);
    } else {
      // Rows that should still fit, from this file's bytes per row so far.
      const int64_t size = writer_->EstimatedFileSize();
      const int64_t per_row = std::max<int64_t>(1, size / rows_in_file_);
      const int64_t room = (settings_->target_file_size_bytes() - size) / per_row;
      take = std::min(take, std::max(room, kMinSliceRows));
    }
    if (pos == 0 && take == n) {
      FLOE_RETURN_IF_ERROR(WriteSlice(batch));
    } else {
      Batch slice(batch.schema);
      AppendRange(batch, pos, pos + take, &slice);
      FLOE_RETURN_IF_ERROR(WriteSlice(slice));
    }
    pos += take;
  }
  return Ok();
}

Result<std::vector<DataFile>> RollingFileWriter::Close() {
  if (closed_) return InvalidArgument("rolling writer: already closed");
  if (writer_) {
    if (Status st = CloseFile(); !st) {
      Abort();
      return Fail(std::move(st).error());
    }
  }
  closed_ = true;
  return done_;
}

void RollingFileWriter::Abort() {
  if (writer_) {
    writer_->Abort();
    writer_.reset();
    factory_->ReleaseFolders(location_);  // the folder made for the file never finished
  }
  for (const auto& p : done_locations_) factory_->Remove(p);
  done_locations_.clear();
  done_.clear();
  closed_ = true;
}

// ---------------------------------------------------------------- partitioned writer

Result<std::unique_ptr<PartitionedWriter>> PartitionedWriter::Make(
    std::shared_ptr<OutputFileFactory> factory, std::shared_ptr<const FileSettings> settings,
    const iceberg::PartitionSpec& spec, SchemaPtr table_schema) {
  if (!factory || !settings || !table_schema) {
    return InvalidArgument("partitioned writer: factory, settings and table schema are required");
  }
  // The spec must be writable against the table schema.
  FLOE_RETURN_IF_ERROR(PartitionKeyer::Make(spec, table_schema));
  auto w = std::unique_ptr<PartitionedWriter>(new PartitionedWriter());
  w->factory_ = std::move(factory);
  w->settings_ = std::move(settings);
  w->spec_ = spec;
  w->table_schema_ = std::move(table_schema);
  return w;
}

PartitionedWriter::~PartitionedWriter() {
  if (!closed_) Abort();
}

Result<const PartitionKeyer*> PartitionedWriter::KeyerFor(const SchemaPtr& schema) {
  if (!schema) return InvalidArgument("partitioned writer: the batch has no schema");
  for (const auto& [s, k] : keyers_) {
    if (s == schema || *s == *schema) return &k;
  }
  auto k = PartitionKeyer::Make(spec_, schema);
  if (!k) {
    return Fail(std::move(k).error().WithContext(
        "cannot compute partitions from these rows (pass the full rows as the partition source)"));
  }
  keyers_.emplace_back(schema, std::move(*k));
  return &keyers_.back().second;
}

Result<size_t> PartitionedWriter::WriterFor(const Values& partition) {
  if (auto it = index_.find(partition); it != index_.end()) return it->second;
  FLOE_ASSIGN_OR_RETURN(std::string path, PartitionPath(spec_, *table_schema_, partition));
  writers_.push_back(std::make_unique<RollingFileWriter>(factory_, settings_, partition, std::move(path)));
  pending_.emplace_back(settings_->schema());
  index_.emplace(partition, writers_.size() - 1);
  return writers_.size() - 1;
}

Status PartitionedWriter::FlushPending(size_t index) {
  Batch& p = pending_[index];
  if (p.num_rows == 0) return Ok();
  FLOE_RETURN_IF_ERROR(writers_[index]->Write(p));
  p.Clear();
  return Ok();
}

Status PartitionedWriter::WriteGroups(const Batch& rows, const std::vector<PartitionGroup>& groups) {
  for (const auto& g : groups) {
    FLOE_ASSIGN_OR_RETURN(size_t w, WriterFor(g.partition));
    const int64_t n = static_cast<int64_t>(g.rows.size());
    Batch& p = pending_[w];
    if (n >= kPendingRows || (groups.size() == 1 && p.num_rows == 0)) {
      // Large groups go straight to the file (after what is pending, to keep order).
      FLOE_RETURN_IF_ERROR(FlushPending(w));
      // (Not `groups.size() == 1 ? rows : Take(...)`: a conditional with a
      // prvalue operand copies the whole batch.)
      if (groups.size() == 1) {
        FLOE_RETURN_IF_ERROR(writers_[w]->Write(rows));
      } else {
        FLOE_RETURN_IF_ERROR(writers_[w]->Write(Take(rows, g.rows)));
      }
      continue;
    }
    if (rows.columns.size() != p.columns.size()) {
      return InvalidArgument("partitioned writer: batch has {} columns, the file schema {}",
                             rows.columns.size(), p.columns.size());
    }
    for (size_t c = 0; c < p.columns.size(); ++c) {
      if (!rows.columns[c].type || !(*rows.columns[c].type == *p.columns[c].type)) {
        return InvalidArgument("partitioned writer: column '{}' of the batch is {}, the file schema says {}",
                               settings_->schema()->fields()[c].name,
                               rows.columns[c].type ? rows.columns[c].type->ToString() : "untyped",
                               p.columns[c].type->ToString());
      }
      AppendRows(rows.columns[c], g.rows, &p.columns[c]);
    }
    p.num_rows += n;
    if (p.num_rows >= kPendingRows) FLOE_RETURN_IF_ERROR(FlushPending(w));
  }
  return Ok();
}

Status PartitionedWriter::Write(const Batch& rows) {
  if (closed_) return InvalidArgument("partitioned writer: Write after Close or Abort");
  if (rows.num_rows == 0) return Ok();
  FLOE_ASSIGN_OR_RETURN(const PartitionKeyer* keyer, KeyerFor(rows.schema));
  FLOE_ASSIGN_OR_RETURN(auto groups, keyer->Group(rows));
  return WriteGroups(rows, groups);
}

Status PartitionedWriter::Write(const Batch& rows, const Batch& partition_source) {
  if (closed_) return InvalidArgument("partitioned writer: Write after Close or Abort");
  if (rows.num_rows != partition_source.num_rows) {
    return InvalidArgument("partitioned writer: {} rows but {} partition source rows", rows.num_rows,
                           partition_source.num_rows);
  }
  if (rows.num_rows == 0) return Ok();
  FLOE_ASSIGN_OR_RETURN(const PartitionKeyer* keyer, KeyerFor(partition_source.schema));
  FLOE_ASSIGN_OR_RETURN(auto groups, keyer->Group(partition_source));
  return WriteGroups(rows, groups);
}

Status PartitionedWriter::WriteToPartition(const Values& partition, const Batch& rows) {
  if (closed_) return InvalidArgument("partitioned writer: Write after Close or Abort");
  if (rows.num_rows == 0) return Ok();
  FLOE_ASSIGN_OR_RETURN(size_t w, WriterFor(partition));
  FLOE_RETURN_IF_ERROR(FlushPending(w));
  return writers_[w]->Write(rows);
}

Result<std::vector<DataFile>> PartitionedWriter::Close() {
  if (closed_) return InvalidArgument("partitioned writer: already closed");
  std::vector<DataFile> all;
  for (size_t i = 0; i < writers_.size(); ++i) {
    if (Status st = FlushPending(i); !st) {
      Abort();
      return Fail(std::move(st).error());
    }
  }
  for (auto& w : writers_) {
    auto files = w->Close();
    if (!files) {
      Abort();
      return Fail(std::move(files).error());
    }
    for (auto& f : *files) all.push_back(std::move(f));
  }
  closed_ = true;
  return all;
}

void PartitionedWriter::Abort() {
  for (auto& p : pending_) p.Clear();
  for (auto& w : writers_) w->Abort();
  closed_ = true;
}

Result<std::unique_ptr<PartitionedWriter>> MakeDataWriter(const iceberg::TableMetadata& metadata,
                                                          const DataWriterOptions& options,
                                                          std::shared_ptr<OutputFileFactory> factory) {
  SchemaPtr schema = metadata.CurrentSchema();
  if (!schema) return NotFound("table metadata has no current schema {}", metadata.current_schema_id);
  const iceberg::PartitionSpec* spec = metadata.DefaultSpec();
  if (!spec) return NotFound("table metadata has no default spec {}", metadata.default_spec_id);
  ContentFileOptions content;
  content.content = DataFileContent::kData;
  content.sort_order_id = options.sort_order_id;
  FLOE_ASSIGN_OR_RETURN(auto settings, FileSettings::Make(schema, options, std::move(content)));
  return PartitionedWriter::Make(std::move(factory), std::move(settings), *spec, schema);
}

}  // namespace floe::table
