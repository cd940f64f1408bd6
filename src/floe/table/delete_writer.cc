#include "floe/table/delete_writer.h"

#include <algorithm>

#include "floe/table/delete_filter.h"

namespace floe::table {

using iceberg::DataFile;
using iceberg::DataFileContent;
using iceberg::Values;

namespace {

// Rows per batch handed to the Parquet writer when flushing position deletes.
constexpr int64_t kPositionBatchRows = 65536;

// Keeps the fields of `fields` that are selected or have selected descendants.
std::vector<NestedField> ProjectFields(const std::vector<NestedField>& fields,
                                       const std::vector<int32_t>& ids, size_t* found) {
  std::vector<NestedField> out;
  for (const auto& f : fields) {
    if (std::find(ids.begin(), ids.end(), f.id) != ids.end()) {
      out.push_back(f);
      ++*found;
      continue;
    }
    if (f.type->id == TypeId::kStruct) {
      auto children = ProjectFields(f.type->fields, ids, found);
      if (!children.empty()) {
        NestedField g = f;
        g.type = StructType(std::move(children));
        out.push_back(std::move(g));
      }
    }
  }
  return out;
}

Result<ColumnVector> ProjectColumn(const ColumnVector& src, const TypePtr& type, std::string_view name) {
  if (!src.type) return InvalidArgument("column '{}' is untyped", name);
  if (*src.type == *type) return src;
  if (src.type->id != TypeId::kStruct || type->id != TypeId::kStruct) {
    return InvalidArgument("column '{}' is {}, the projection wants {}", name, src.type->ToString(),
                           type->ToString());
  }
  ColumnVector out;
  out.type = type;
  out.length = src.length;
  out.validity = src.validity;
  for (const auto& f : type->fields) {
    size_t k = 0;
    while (k < src.type->fields.size() && src.type->fields[k].id != f.id) ++k;
    if (k == src.type->fields.size() || k >= src.children.size()) {
      return InvalidArgument("column '{}' has no field id {} ('{}')", name, f.id, f.name);
    }
    FLOE_ASSIGN_OR_RETURN(ColumnVector c, ProjectColumn(src.children[k], f.type, f.name));
    out.children.push_back(std::move(c));
  }
  return out;
}

// Every primitive field of `fields` is in `table` with the same type.
Status CheckIsProjection(const std::vector<NestedField>& fields, const Schema& table) {
  for (const auto& f : fields) {
    const NestedField* t = table.FindField(f.id);
    if (!t) return InvalidArgument("delete schema field '{}' (id {}) is not in the table schema", f.name, f.id);
    if (f.type->id == TypeId::kStruct && t->type->id == TypeId::kStruct) {
      FLOE_RETURN_IF_ERROR(CheckIsProjection(f.type->fields, table));
    } else if (!(*f.type == *t->type)) {
      return InvalidArgument("delete schema field '{}' (id {}) is {}, the table says {}", f.name, f.id,
                             f.type->ToString(), t->type->ToString());
    }
  }
  return Ok();
}

}  // namespace

SchemaPtr PositionDeleteSchema() {
  static const SchemaPtr kSchema = std::make_shared<const Schema>(std::vector<NestedField>{
      NestedField{kDeleteFilePathFieldId, "file_path", true, StringType(), ""},
      NestedField{kDeleteFilePosFieldId, "pos", true, LongType(), ""},
  });
  return kSchema;
}

Result<SchemaPtr> ProjectSchema(const Schema& schema, const std::vector<int32_t>& field_ids) {
  for (int32_t id : field_ids) {
    if (!schema.FindField(id)) return NotFound("field id {} is not in the schema", id);
  }
  size_t found = 0;
  auto fields = ProjectFields(schema.fields(), field_ids, &found);
  if (found < field_ids.size()) {
    return InvalidArgument("field ids [{}] include a field inside a list or map, which cannot be projected",
                           fmt::join(field_ids, ", "));
  }
  return std::make_shared<const Schema>(std::move(fields), schema.schema_id());
}

Result<Batch> ProjectBatch(const Batch& rows, SchemaPtr projected) {
  if (!rows.schema || !projected) return InvalidArgument("projection: missing schema");
  Batch out(projected);
  out.num_rows = rows.num_rows;
  out.columns.clear();
  for (const auto& f : projected->fields()) {
    size_t k = 0;
    while (k < rows.schema->fields().size() && rows.schema->fields()[k].id != f.id) ++k;
    if (k == rows.schema->fields().size() || k >= rows.columns.size()) {
      return InvalidArgument("projection: the rows have no column '{}' (id {})", f.name, f.id);
    }
    FLOE_ASSIGN_OR_RETURN(ColumnVector c, ProjectColumn(rows.columns[k], f.type, f.name));
    out.columns.push_back(std::move(c));
  }
  return out;
}

// ---------------------------------------------------------------- position deletes

Result<std::unique_ptr<PositionDeleteWriter>> PositionDeleteWriter::Make(
    std::shared_ptr<OutputFileFactory> factory, const DataWriterOptions& options,
    const iceberg::PartitionSpec& spec, SchemaPtr table_schema) {
  ContentFileOptions content;
  content.content = DataFileContent::kPositionDeletes;
  content.metrics_overrides[kDeleteFilePathFieldId] = iceberg::MetricsMode::Full();
  content.metrics_overrides[kDeleteFilePosFieldId] = iceberg::MetricsMode::Full();
  FLOE_ASSIGN_OR_RETURN(auto settings, FileSettings::Make(PositionDeleteSchema(), options, std::move(content)));
  auto w = std::unique_ptr<PositionDeleteWriter>(new PositionDeleteWriter());
  FLOE_ASSIGN_OR_RETURN(w->writer_, PartitionedWriter::Make(std::move(factory), std::move(settings), spec,
                                                            table_schema));
  w->spec_ = spec;
  w->table_schema_ = std::move(table_schema);
  return w;
}

PositionDeleteWriter::~PositionDeleteWriter() {
  if (!closed_) Abort();
}

Result<std::map<std::string, std::vector<int64_t>, std::less<>>*> PositionDeleteWriter::BufferFor(
    const Values& partition) {
  if (auto it = index_.find(partition); it != index_.end()) return &buffers_[it->second].positions;
  // Checks the tuple against the spec before anything is buffered for it.
  FLOE_RETURN_IF_ERROR(PartitionPath(spec_, *table_schema_, partition));
  buffers_.push_back(PartitionBuffer{partition, {}});
  index_.emplace(partition, buffers_.size() - 1);
  return &buffers_.back().positions;
}

Status PositionDeleteWriter::Delete(std::string_view path, int64_t pos, const Values& partition) {
  return Delete(path, std::span<const int64_t>(&pos, 1), partition);
}

Status PositionDeleteWriter::Delete(std::string_view path, std::span<const int64_t> positions,
                                    const Values& partition) {
  if (closed_) return InvalidArgument("position delete writer: Delete after Close or Abort");
  if (path.empty()) return InvalidArgument("position delete: the data file path is empty");
  for (int64_t p : positions) {
    if (p < 0) return InvalidArgument("position delete of {}: position {} is negative", path, p);
  }
  FLOE_ASSIGN_OR_RETURN(auto* by_path, BufferFor(partition));
  auto it = by_path->find(path);
  if (it == by_path->end()) it = by_path->emplace(std::string(path), std::vector<int64_t>()).first;
  it->second.insert(it->second.end(), positions.begin(), positions.end());
  buffered_ += static_cast<int64_t>(positions.size());
  return Ok();
}

Result<std::vector<DataFile>> PositionDeleteWriter::Close() {
  if (closed_) return InvalidArgument("position delete writer: already closed");
  const SchemaPtr schema = PositionDeleteSchema();
  auto flush = [&](const Values& partition, Batch* batch) -> Status {
    if (batch->num_rows == 0) return Ok();
    FLOE_RETURN_IF_ERROR(writer_->WriteToPartition(partition, *batch));
    batch->Clear();
    return Ok();
  };
  Status st = Ok();
  for (auto& buf : buffers_) {
    Batch batch(schema);
    for (auto& [path, positions] : buf.positions) {
      std::sort(positions.begin(), positions.end());
      positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
      for (int64_t p : positions) {
        batch.columns[0].AppendBytes(path);
        batch.columns[1].Append<int64_t>(p);
        if (++batch.num_rows >= kPositionBatchRows) {
          if (st = flush(buf.partition, &batch); !st) break;
        }
      }
      if (!st) break;
      positions = {};  // free as we go
    }
    if (st) st = flush(buf.partition, &batch);
    if (!st) break;
  }
  buffers_.clear();
  index_.clear();
  closed_ = true;
  if (!st) {
    writer_->Abort();
    return Fail(std::move(st).error());
  }
  FLOE_ASSIGN_OR_RETURN(auto files, writer_->Close());
  for (auto& f : files) {
    // Full bounds on file_path: equal bounds mean every row names one data file.
    auto lo = f.lower_bounds.find(kDeleteFilePathFieldId);
    auto hi = f.upper_bounds.find(kDeleteFilePathFieldId);
    if (lo != f.lower_bounds.end() && hi != f.upper_bounds.end() && lo->second == hi->second) {
      f.referenced_data_file = lo->second;
    }
  }
  return files;
}

void PositionDeleteWriter::Abort() {
  buffers_.clear();
  index_.clear();
  if (writer_) writer_->Abort();
  closed_ = true;
}

// ---------------------------------------------------------------- equality deletes

Result<std::unique_ptr<EqualityDeleteWriter>> EqualityDeleteWriter::Make(
    std::shared_ptr<OutputFileFactory> factory, const DataWriterOptions& options,
    const iceberg::PartitionSpec& spec, SchemaPtr table_schema, std::vector<int32_t> equality_ids,
    SchemaPtr delete_schema, std::optional<int32_t> sort_order_id) {
  if (!table_schema) return InvalidArgument("equality delete writer: no table schema");
  if (equality_ids.empty()) return InvalidArgument("equality delete writer: no equality field ids");
  for (int32_t id : equality_ids) {
    const NestedField* f = table_schema->FindField(id);
    if (!f) return NotFound("equality field id {} is not in the table schema", id);
    if (f->type->is_nested()) {
      return InvalidArgument("equality field '{}' (id {}) is {}, not a primitive column", f->name, id,
                             f->type->ToString());
    }
    if (f->type->id == TypeId::kFloat || f->type->id == TypeId::kDouble) {
      return InvalidArgument("equality field '{}' (id {}) is {}: float and double columns cannot be "
                             "equality fields",
                             f->name, id, f->type->ToString());
    }
    FLOE_RETURN_IF_ERROR(FieldPath(*table_schema, id));  // not inside a list or map
  }
  if (!delete_schema) {
    FLOE_ASSIGN_OR_RETURN(delete_schema, ProjectSchema(*table_schema, equality_ids));
  } else {
    FLOE_RETURN_IF_ERROR(CheckIsProjection(delete_schema->fields(), *table_schema));
    for (int32_t id : equality_ids) {
      if (!delete_schema->FindField(id)) {
        return InvalidArgument("equality field id {} is not in the delete schema", id);
      }
    }
  }
  ContentFileOptions content;
  content.content = DataFileContent::kEqualityDeletes;
  content.equality_ids = equality_ids;
  content.sort_order_id = sort_order_id;
  FLOE_ASSIGN_OR_RETURN(auto settings, FileSettings::Make(delete_schema, options, std::move(content)));
  auto w = std::unique_ptr<EqualityDeleteWriter>(new EqualityDeleteWriter());
  FLOE_ASSIGN_OR_RETURN(w->writer_, PartitionedWriter::Make(std::move(factory), std::move(settings), spec,
                                                            std::move(table_schema)));
  w->delete_schema_ = std::move(delete_schema);
  w->equality_ids_ = std::move(equality_ids);
  return w;
}

}  // namespace floe::table
