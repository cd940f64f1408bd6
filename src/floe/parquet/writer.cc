// WriterOptions::FromProperties (Iceberg's write.parquet.* properties) and the file
// writer: row groups, bloom filters, page indexes and the footer (Parquet README "File
// Format", PageIndex.md, BloomFilter.md).
#include "floe/parquet/writer.h"

#include "floe/config/options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "floe/parquet/column_writer_internal.h"
#include "floe/parquet/schema_mapping.h"
#include "floe/parquet/schema_mapping_internal.h"
#include "floe/parquet/thrift_internal.h"

namespace floe::parquet {

// ---------------------------------------------------------------------------------
// Options

Result<WriterOptions> WriterOptions::FromProperties(const std::map<std::string, std::string>& props) {
  // Every write.parquet.* key must be declared (the error lists the valid ones);
  // other keys belong to other layers and are not looked at here.
  std::map<std::string, std::string> ours;
  for (const auto& [key, value] : props) {
    if (key.starts_with(config::keys::kParquetPrefix)) ours.emplace(key, value);
  }
  if (Status st = config::CheckOptions(ours, uint32_t(config::Scope::kTable), "table properties",
                                       config::Use::kNewTable);
      !st) {
    return Fail(st.error());
  }
  return FromResolver(config::Resolver(props));
}

Result<WriterOptions> WriterOptions::FromResolver(const config::Resolver& r) {
  namespace k = config::keys;
  WriterOptions o;
  FLOE_ASSIGN_OR_RETURN(o.row_group_size_bytes, r.Value(k::kParquetRowGroupSizeBytes));
  FLOE_ASSIGN_OR_RETURN(o.page_size_bytes, r.Value(k::kParquetPageSizeBytes));
  FLOE_ASSIGN_OR_RETURN(o.page_row_limit, r.Value(k::kParquetPageRowLimit));
  FLOE_ASSIGN_OR_RETURN(o.dict_size_bytes, r.Value(k::kParquetDictSizeBytes));
  FLOE_ASSIGN_OR_RETURN(o.bloom_filter_max_bytes, r.Value(k::kParquetBloomFilterMaxBytes));
  FLOE_ASSIGN_OR_RETURN(o.dictionary_enabled, r.Value(k::kParquetDictionaryEnabled));
  // The job's compression-codec / -level win over the table's write.parquet.* ones.
  FLOE_ASSIGN_OR_RETURN(std::string codec, r.Value(k::kCompressionCodec));
  FLOE_ASSIGN_OR_RETURN(o.codec, ParseCodec(codec));
  FLOE_ASSIGN_OR_RETURN(auto level, r.Get(k::kCompressionLevel));
  o.compression_level = level.value_or(0);
  // Checked here, where a write resolves its options, not when the first
  // file opens (after the input was read).
  if (Status st = CheckCompressionLevel(o.codec, o.compression_level); !st) {
    return InvalidArgument("{} / {}: {}", k::kCompressionLevel.name, k::kParquetCompressionLevel.name,
                           st.error().message);
  }
  FLOE_ASSIGN_OR_RETURN(std::string version, r.Value(k::kParquetPageVersion));
  o.page_version = version == "v2" ? PageVersion::kV2 : PageVersion::kV1;
  FLOE_ASSIGN_OR_RETURN(o.bloom_filter_columns, r.GetColumns(k::kParquetBloomFilterEnabledColumn));
  FLOE_ASSIGN_OR_RETURN(o.bloom_filter_fpp, r.GetColumns(k::kParquetBloomFilterFppColumn));
  FLOE_ASSIGN_OR_RETURN(auto encodings, r.GetColumns(k::kParquetEncodingColumn));
  for (const auto& [column, name] : encodings) {
    o.column_encodings[column] = name == "plain"        ? ColumnEncoding::kPlain
                                 : name == "dictionary" ? ColumnEncoding::kDictionary
                                 : name == "delta"      ? ColumnEncoding::kDelta
                                                        : ColumnEncoding::kByteStreamSplit;
  }
  return o;
}

// ---------------------------------------------------------------------------------
// The file writer

namespace {
constexpr char kMagic[4] = {'P', 'A', 'R', '1'};

std::string IcebergName(const LeafColumn& leaf) {
  std::string out;
  for (const auto& p : leaf.iceberg_path) {
    if (!out.empty()) out += '.';
    out += p;
  }
  return out;
}

Status CheckDecimals(const LeafColumn& leaf, const LeafLevels& lv) {
  const Type& t = *leaf.type;
  if (t.id != TypeId::kDecimal) return Ok();
  int128_t limit = 1;
  for (int i = 0; i < t.precision; ++i) limit *= 10;
  const int128_t* v = lv.leaf->data<int128_t>();
  auto check = [&](int64_t i) -> Status {
    if (v[i] >= limit || v[i] <= -limit) {
      return InvalidArgument("column '{}': value at index {} does not fit {}", IcebergName(leaf), i,
                             t.ToString());
    }
    return Ok();
  };
  if (lv.identity) {
    for (int64_t i = 0; i < lv.num_rows; ++i) FLOE_RETURN_IF_ERROR(check(i));
  } else {
    for (int64_t i : lv.positions) FLOE_RETURN_IF_ERROR(check(i));
  }
  return Ok();
}

struct ChunkIndexes {
  std::optional<format::ColumnIndex> column_index;
  format::OffsetIndex offset_index;
  std::optional<BloomFilter> bloom;
};

}  // namespace

class FileWriterImpl {
 public:
  Status Init(std::unique_ptr<OutputFile> out, SchemaPtr schema, WriterOptions options) {
    out_ = std::move(out);
    schema_ = std::move(schema);
    opt_ = std::move(options);
    if (!schema_) return InvalidArgument("Parquet writer for {}: no schema", out_->path());
    FLOE_ASSIGN_OR_RETURN(pschema_, MapSchema(*schema_));
    if (pschema_.leaves.empty()) {
      return InvalidArgument("Parquet writer for {}: the schema has no columns", out_->path());
    }
    if (opt_.page_row_limit < 1 || opt_.page_size_bytes < 1 || opt_.row_group_size_bytes < 1 ||
        opt_.write_batch_rows < 1) {
      return InvalidArgument("Parquet writer for {}: sizes and limits must be positive",
                             out_->path());
    }
    if (opt_.codec == Codec::kDeflateRaw) {
      return InvalidArgument("Parquet writer for {}: deflate is not a Parquet codec", out_->path());
    }
    if (opt_.parallelism < 1) {
      return InvalidArgument("Parquet writer for {}: parallelism {} is not a positive thread count",
                             out_->path(), opt_.parallelism);
    }
    // More workers than the window can keep busy would only sit idle.
    const int workers = std::min(opt_.parallelism - 1, PagePool::kMaxWorkers);
    FLOE_ASSIGN_OR_RETURN(pool_, PagePool::Make(opt_.codec, opt_.compression_level, workers));
    // Resolve per-column options; every named column must exist.
    std::set<std::string> names;
    for (const auto& leaf : pschema_.leaves) names.insert(IcebergName(leaf));
    auto check_names = [&](const auto& m, std::string_view what) -> Status {
      for (const auto& [col, _] : m) {
        if (!names.count(col)) {
          return InvalidArgument("Parquet writer for {}: {} names column '{}', which is not a "
                                 "primitive column of the schema",
                                 out_->path(), what, col);
        }
      }
      return Ok();
    };
    namespace k = config::keys;
    FLOE_RETURN_IF_ERROR(check_names(opt_.bloom_filter_columns, k::kParquetBloomFilterEnabledColumn.name));
    FLOE_RETURN_IF_ERROR(check_names(opt_.bloom_filter_fpp, k::kParquetBloomFilterFppColumn.name));
    FLOE_RETURN_IF_ERROR(check_names(opt_.column_encodings, k::kParquetEncodingColumn.name));
    for (const auto& leaf : pschema_.leaves) {
      ColumnWriterConfig c;
      c.leaf = &leaf;
      std::string name = IcebergName(leaf);
      ColumnEncoding enc = ColumnEncoding::kDefault;
      if (auto it = opt_.column_encodings.find(name); it != opt_.column_encodings.end()) {
        enc = it->second;
      }
      const PhysicalType pt = leaf.physical;
      if (enc == ColumnEncoding::kDefault) {
        enc = opt_.dictionary_enabled && pt != PhysicalType::kBoolean ? ColumnEncoding::kDictionary
                                                                      : ColumnEncoding::kPlain;
      }
      bool ok = true;
      if (enc == ColumnEncoding::kDictionary) ok = pt != PhysicalType::kBoolean;
      if (enc == ColumnEncoding::kDelta) {
        ok = pt == PhysicalType::kInt32 || pt == PhysicalType::kInt64 ||
             pt == PhysicalType::kByteArray;
      }
      if (enc == ColumnEncoding::kByteStreamSplit) {
        ok = pt == PhysicalType::kFloat || pt == PhysicalType::kDouble ||
             pt == PhysicalType::kInt32 || pt == PhysicalType::kInt64 ||
             pt == PhysicalType::kFixedLenByteArray;
      }
      if (!ok) {
        return InvalidArgument("{}{}: the encoding does not apply to {} columns",
                               config::keys::kParquetEncodingColumn.name, name, leaf.type->ToString());
      }
      c.encoding = enc;
      c.page_version = opt_.page_version;
      c.page_size_bytes = opt_.page_size_bytes;
      c.page_row_limit = opt_.page_row_limit;
      c.dict_size_bytes = opt_.dict_size_bytes;
      c.codec = opt_.codec;
      c.pool = pool_.get();
      c.statistics = opt_.write_statistics;
      c.page_index = opt_.write_page_index;
      if (auto it = opt_.bloom_filter_columns.find(name); it != opt_.bloom_filter_columns.end()) {
        c.bloom_filter = it->second;
      }
      if (auto it = opt_.bloom_filter_fpp.find(name); it != opt_.bloom_filter_fpp.end()) {
        c.bloom_fpp = it->second;
      }
      c.bloom_max_bytes = opt_.bloom_filter_max_bytes;
      FLOE_ASSIGN_OR_RETURN(auto w, MakeColumnChunkWriter(c));
      writers_.push_back(std::move(w));
    }
    levels_.resize(pschema_.leaves.size());
    indexes_.emplace_back();
    FLOE_RETURN_IF_ERROR(out_->Write(kMagic, 4));
    return Ok();
  }

  Status Write(const Batch& batch) {
    if (closed_) return InvalidArgument("Parquet writer for {}: Write after Close/Abort", out_->path());
    if (batch.columns.size() != static_cast<size_t>(schema_->num_fields())) {
      return InvalidArgument("Parquet writer for {}: batch has {} columns, schema has {}",
                             out_->path(), batch.columns.size(), schema_->num_fields());
    }
    for (size_t i = 0; i < batch.columns.size(); ++i) {
      const auto& f = schema_->fields()[i];
      if (!batch.columns[i].type || !(*batch.columns[i].type == *f.type)) {
        return InvalidArgument("Parquet writer for {}: column '{}' of the batch is {}, schema says {}",
                               out_->path(), f.name,
                               batch.columns[i].type ? batch.columns[i].type->ToString() : "untyped",
                               f.type->ToString());
      }
    }
    if (Status st = batch.Validate(); !st) {
      return InvalidArgument("Parquet writer for {}: malformed batch: {}", out_->path(),
                             st.error().message);
    }
    const int64_t n = batch.num_rows;
    if (n == 0) return Ok();
    for (size_t l = 0; l < pschema_.leaves.size(); ++l) {
      const LeafColumn& leaf = pschema_.leaves[l];
      if (Status st = ShredLeaf(leaf, batch.columns[leaf.top_level_index], n, &levels_[l]); !st) {
        return Fail(std::move(st).error().WithContext(out_->path()));
      }
      FLOE_RETURN_IF_ERROR(CheckDecimals(leaf, levels_[l]));
    }
    for (int64_t a = 0; a < n;) {
      int64_t b = std::min(n, a + opt_.write_batch_rows);
      for (size_t l = 0; l < writers_.size(); ++l) {
        FLOE_RETURN_IF_ERROR(writers_[l]->Write(levels_[l], a, b));
      }
      rg_rows_ += b - a;
      a = b;
      if (BufferedBytes() >= opt_.row_group_size_bytes) FLOE_RETURN_IF_ERROR(FlushRowGroup());
    }
    return Ok();
  }

  int64_t BufferedBytes() const {
    int64_t t = 0;
    for (const auto& w : writers_) t += w->BufferedBytes();
    return t;
  }

  /// What the file would take if closed now: what is written, the open row
  /// group's chunks at their columns' compression ratios so far, and a
  /// footer allowance.
  int64_t EstimatedFileSize() const {
    int64_t t = 0;
    for (const auto& w : writers_) t += w->EstimatedBytes();
    return out_->Tell() + t + 64 * static_cast<int64_t>(writers_.size()) + 64;
  }

  Status SettlePages() {
    for (const auto& w : writers_) FLOE_RETURN_IF_ERROR(w->Settle());
    return Ok();
  }

  Status FlushRowGroup() {
    if (rg_rows_ == 0) return Ok();
    format::RowGroup rg;
    std::vector<format::ColumnChunk> chunks;
    int64_t total_uncompressed = 0, total_compressed = 0;
    const int64_t rg_start = out_->Tell();
    auto& idx = indexes_.back();
    idx.resize(writers_.size());
    for (size_t l = 0; l < writers_.size(); ++l) {
      ChunkOutput co;
      FLOE_RETURN_IF_ERROR(writers_[l]->FinishChunk(&co));
      const int64_t start = out_->Tell();
      if (co.dictionary_size > 0) {
        FLOE_RETURN_IF_ERROR(out_->Write(co.dictionary_data, static_cast<size_t>(co.dictionary_size)));
      }
      for (const ByteSpan& page : co.data_pages) {
        FLOE_RETURN_IF_ERROR(out_->Write(page.data, static_cast<size_t>(page.size)));
      }
      format::ColumnMetaData m = std::move(co.meta);
      m.__set_data_page_offset(m.data_page_offset + start);
      if (m.__isset.dictionary_page_offset) m.__set_dictionary_page_offset(start);
      total_uncompressed += m.total_uncompressed_size;
      total_compressed += m.total_compressed_size;
      format::ColumnChunk cc;
      cc.__set_file_offset(0);  // deprecated; readers use the page offsets (PITFALLS 5)
      cc.__set_meta_data(m);
      chunks.push_back(std::move(cc));
      for (auto& loc : co.offset_index.page_locations) loc.offset += start;
      idx[l].offset_index = std::move(co.offset_index);
      idx[l].column_index = std::move(co.column_index);
      idx[l].bloom = std::move(co.bloom);
    }
    rg.__set_columns(chunks);
    rg.__set_total_byte_size(total_uncompressed);
    rg.__set_num_rows(rg_rows_);
    rg.__set_file_offset(rg_start);
    rg.__set_total_compressed_size(total_compressed);
    rg.__set_ordinal(static_cast<int16_t>(row_groups_.size()));
    row_groups_.push_back(std::move(rg));
    row_group_offsets_.push_back(rg_start);
    num_rows_ += rg_rows_;
    rg_rows_ = 0;
    indexes_.emplace_back();
    return Ok();
  }

  Result<WriteResult> Close() {
    if (closed_) return InvalidArgument("Parquet writer for {}: already closed", out_->path());
    Status st = Finish();
    if (!st) {
      Abort();
      return Fail(std::move(st).error());
    }
    closed_ = true;
    pool_->Stop();
    WriteResult r;
    r.file_size_bytes = file_size_;
    r.num_rows = num_rows_;
    r.row_group_offsets = row_group_offsets_;
    for (const auto& w : writers_) {
      ColumnMetrics m;
      w->FillMetrics(&m);
      r.columns.push_back(std::move(m));
    }
    return r;
  }

  void Abort() {
    if (pool_) pool_->Stop();  // no compression thread outlives the writer
    if (!closed_ && out_) out_->Abort();
    closed_ = true;
  }

 private:
  Status Finish() {
    FLOE_RETURN_IF_ERROR(FlushRowGroup());
    // Bloom filters, then column indexes, then offset indexes (Parquet PageIndex.md).
    for (size_t g = 0; g < row_groups_.size(); ++g) {
      for (size_t l = 0; l < writers_.size(); ++l) {
        auto& ix = indexes_[g][l];
        if (!ix.bloom) continue;
        Buffer b;
        format::BloomFilterHeader h;
        h.__set_numBytes(static_cast<int32_t>(ix.bloom->num_bytes()));
        format::BloomFilterAlgorithm alg;
        alg.__set_BLOCK(format::SplitBlockAlgorithm());
        h.__set_algorithm(alg);
        format::BloomFilterHash hash;
        hash.__set_XXHASH(format::XxHash());
        h.__set_hash(hash);
        format::BloomFilterCompression comp;
        comp.__set_UNCOMPRESSED(format::Uncompressed());
        h.__set_compression(comp);
        FLOE_RETURN_IF_ERROR(SerializeThrift(h, &b));
        b.Append(ix.bloom->data(), ix.bloom->num_bytes());
        auto& m = row_groups_[g].columns[l].meta_data;
        m.__set_bloom_filter_offset(out_->Tell());
        m.__set_bloom_filter_length(static_cast<int32_t>(b.size()));
        row_groups_[g].columns[l].__isset.meta_data = true;
        FLOE_RETURN_IF_ERROR(out_->Write(b.data(), b.size()));
      }
    }
    if (opt_.write_page_index) {
      for (size_t g = 0; g < row_groups_.size(); ++g) {
        for (size_t l = 0; l < writers_.size(); ++l) {
          auto& ix = indexes_[g][l];
          if (!ix.column_index) continue;
          Buffer b;
          FLOE_RETURN_IF_ERROR(SerializeThrift(*ix.column_index, &b));
          auto& cc = row_groups_[g].columns[l];
          cc.__set_column_index_offset(out_->Tell());
          cc.__set_column_index_length(static_cast<int32_t>(b.size()));
          FLOE_RETURN_IF_ERROR(out_->Write(b.data(), b.size()));
        }
      }
      for (size_t g = 0; g < row_groups_.size(); ++g) {
        for (size_t l = 0; l < writers_.size(); ++l) {
          auto& ix = indexes_[g][l];
          Buffer b;
          FLOE_RETURN_IF_ERROR(SerializeThrift(ix.offset_index, &b));
          auto& cc = row_groups_[g].columns[l];
          cc.__set_offset_index_offset(out_->Tell());
          cc.__set_offset_index_length(static_cast<int32_t>(b.size()));
          FLOE_RETURN_IF_ERROR(out_->Write(b.data(), b.size()));
        }
      }
    }
    format::FileMetaData fm;
    fm.__set_version(1);
    fm.__set_schema(ToSchemaElements(pschema_));
    fm.__set_num_rows(num_rows_);
    fm.__set_row_groups(row_groups_);
    std::vector<format::KeyValue> kvs;
    for (const auto& [k, v] : opt_.key_value_metadata) {
      format::KeyValue kv;
      kv.__set_key(k);
      kv.__set_value(v);
      kvs.push_back(std::move(kv));
    }
    if (!kvs.empty()) fm.__set_key_value_metadata(kvs);
    fm.__set_created_by("floe version 0.1.0");
    if (opt_.write_statistics) {
      std::vector<format::ColumnOrder> orders(writers_.size());
      for (auto& o : orders) o.__set_TYPE_ORDER(format::TypeDefinedOrder());
      fm.__set_column_orders(orders);
    }
    Buffer footer;
    FLOE_RETURN_IF_ERROR(SerializeThrift(fm, &footer));
    uint32_t len = static_cast<uint32_t>(footer.size());
    footer.Append(&len, 4);
    footer.Append(kMagic, 4);
    FLOE_RETURN_IF_ERROR(out_->Write(footer.data(), footer.size()));
    file_size_ = out_->Tell();
    FLOE_RETURN_IF_ERROR(out_->Commit());
    return Ok();
  }

  std::unique_ptr<OutputFile> out_;
  SchemaPtr schema_;
  WriterOptions opt_;
  ParquetSchema pschema_;
  std::vector<std::unique_ptr<ColumnChunkWriter>> writers_;
  // After writers_: destroyed (threads joined) before the jobs the writers own.
  std::unique_ptr<PagePool> pool_;
  std::vector<LeafLevels> levels_;
  std::vector<format::RowGroup> row_groups_;
  std::vector<std::vector<ChunkIndexes>> indexes_;  // per row group, per leaf
  std::vector<int64_t> row_group_offsets_;
  int64_t rg_rows_ = 0;
  int64_t num_rows_ = 0;
  int64_t file_size_ = 0;
  bool closed_ = false;
};

FileWriter::FileWriter(std::unique_ptr<FileWriterImpl> impl) : impl_(std::move(impl)) {}
FileWriter::~FileWriter() {
  if (impl_) impl_->Abort();
}

Result<std::unique_ptr<FileWriter>> FileWriter::Open(std::unique_ptr<OutputFile> out,
                                                     SchemaPtr schema, WriterOptions options) {
  if (!out) return InvalidArgument("Parquet writer: no output file");
  auto impl = std::make_unique<FileWriterImpl>();
  if (Status st = impl->Init(std::move(out), std::move(schema), std::move(options)); !st) {
    impl->Abort();
    return Fail(std::move(st).error());
  }
  return std::unique_ptr<FileWriter>(new FileWriter(std::move(impl)));
}

Status FileWriter::Write(const Batch& batch) { return impl_->Write(batch); }
int64_t FileWriter::EstimatedFileSize() const { return impl_->EstimatedFileSize(); }
Status FileWriter::SettlePages() { return impl_->SettlePages(); }
Result<WriteResult> FileWriter::Close() { return impl_->Close(); }
void FileWriter::Abort() { impl_->Abort(); }

}  // namespace floe::parquet
