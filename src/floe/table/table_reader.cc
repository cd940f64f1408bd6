#include "floe/table/table_reader.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <unordered_map>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "floe/catalog/warnings.h"
#include "floe/config/options.h"
#include "floe/iceberg/deletion_vector.h"
#include "floe/iceberg/puffin.h"
#include "floe/iceberg/value.h"
#include "floe/io/file.h"
#include "floe/parquet/reader.h"
#include "floe/table/delete_filter.h"
#include "floe/types/column_ops.h"
#include "floe/util/nesting.h"
#include "floe/iceberg/reserved_ids.h"

namespace floe::table {

using iceberg::DataFile;
using iceberg::DataFileContent;
using iceberg::Value;

namespace {

// Reserved field ids of position delete files (Iceberg spec: Position Delete Files).
constexpr int32_t kDeleteFilePathId = iceberg::kDeleteFilePathFieldId;
constexpr int32_t kDeletePosId = iceberg::kDeleteFilePosFieldId;

// ---------------------------------------------------------- schema helpers

// The top-level field of `schema` that is or contains field `id`, or null.
const NestedField* TopLevelContaining(const Schema& schema, int32_t id) {
  for (const auto& f : schema.fields()) {
    if (f.id == id) return &f;
    if (f.type->is_nested()) {
      Schema inner(f.type->fields);
      if (inner.FindField(id)) return &f;
    }
  }
  return nullptr;
}

// The top-level field containing `id` in the plan's schema, or in the
// table's other schemas (newest first) for dropped columns.
const NestedField* FindTopLevelAnywhere(const ScanPlan& plan, int32_t id) {
  if (const NestedField* f = TopLevelContaining(*plan.table_schema, id)) return f;
  const auto& schemas = plan.metadata->schemas;
  for (auto it = schemas.rbegin(); it != schemas.rend(); ++it) {
    if (const NestedField* f = TopLevelContaining(**it, id)) return f;
  }
  return nullptr;
}

void CollectFilterIds(const expr::Expr& e, std::vector<int32_t>* ids) {
  if (e.is_predicate()) {
    ids->push_back(e.field_id);
    return;
  }
  for (const auto& c : e.children) CollectFilterIds(*c, ids);
}

// A copy of a bound filter whose predicates address the columns of `read`
// (bound against `table`, whose top-level order may differ).
expr::ExprPtr Rebase(const expr::ExprPtr& e, const Schema& table, const Schema& read) {
  if (e->is_predicate()) {
    auto out = std::make_shared<expr::Expr>(*e);
    if (!out->path.empty()) {
      int32_t top_id = table.fields()[out->path[0]].id;
      for (int i = 0; i < read.num_fields(); ++i) {
        if (read.fields()[i].id == top_id) out->path[0] = i;
      }
    }
    return out;
  }
  if (e->children.empty()) return e;
  auto out = std::make_shared<expr::Expr>(*e);
  for (auto& c : out->children) c = Rebase(c, table, read);
  return out;
}

bool IsTrue(const expr::Expr& e) { return e.op == expr::Op::kTrue; }

// A value of `type` from a partition value that may be stored in a narrower
// type (int -> long, float -> double after promotion).
std::optional<Value> Widen(const Type& type, const Value& v) {
  if (v.is_null() || v.Matches(type)) return v;
  if (std::holds_alternative<int32_t>(v.v)) {
    if (type.id == TypeId::kLong) return Value::Long(v.as_int());
  }
  if (std::holds_alternative<float>(v.v) && type.id == TypeId::kDouble) return Value::Double(v.as_float());
  return std::nullopt;
}

ColumnVector ConstantColumn(const TypePtr& type, const Value& v, int64_t n) {
  ColumnVector col(type);
  for (int64_t i = 0; i < n; ++i) {
    if (v.is_null() || !iceberg::AppendValue(&col, v)) col.AppendNull();
  }
  return col;
}

// ------------------------------------------------------------ name mapping

// `schema.name-mapping.default` (Iceberg spec: Column Projection, Name Mapping).
struct MappedField {
  std::optional<int32_t> field_id;
  std::vector<std::string> names;
  std::vector<MappedField> fields;
};

Result<std::vector<MappedField>> ParseMappedFields(const nlohmann::json& j) {
  if (!j.is_array()) return Corrupt("schema.name-mapping.default: expected a JSON array");
  std::vector<MappedField> out;
  for (const auto& e : j) {
    if (!e.is_object()) return Corrupt("schema.name-mapping.default: expected objects in the array");
    MappedField f;
    if (auto it = e.find("field-id"); it != e.end() && it->is_number_integer()) f.field_id = it->get<int32_t>();
    if (auto it = e.find("names"); it != e.end() && it->is_array()) {
      for (const auto& n : *it) {
        if (n.is_string()) f.names.push_back(n.get<std::string>());
      }
    }
    if (auto it = e.find("fields"); it != e.end() && !it->is_null()) {
      FLOE_ASSIGN_OR_RETURN(f.fields, ParseMappedFields(*it));
    }
    out.push_back(std::move(f));
  }
  return out;
}

Result<std::vector<MappedField>> ParseNameMapping(std::string_view text) {
  // ParseMappedFields recurses per level: refuse deep text first (issue 7).
  if (auto at = JsonNestingBeyond(text)) {
    return Corrupt("schema.name-mapping.default: JSON nested deeper than {} levels (at byte {})", kMaxJsonDepth, *at);
  }
  try {
    return ParseMappedFields(nlohmann::json::parse(text));
  } catch (const std::exception& e) {
    return Corrupt("schema.name-mapping.default is not valid JSON: {}", e.what());
  }
}

// Renames the fields of `fields` to the file's names given by the mapping,
// so that a reader matching by name finds them; fields the mapping does not
// name get a name no file has (they read as null).
std::vector<NestedField> RenameByMapping(const std::vector<NestedField>& fields,
                                         const std::vector<MappedField>& mapping,
                                         const std::vector<NestedField>* file_fields) {
  std::vector<NestedField> out;
  for (const auto& f : fields) {
    NestedField g = f;
    const MappedField* m = nullptr;
    for (const auto& mf : mapping) {
      if (mf.field_id && *mf.field_id == f.id) m = &mf;
    }
    std::string name = "\x01unmapped." + std::to_string(f.id);
    const NestedField* file_field = nullptr;
    if (m && file_fields) {
      for (const auto& n : m->names) {
        for (const auto& ff : *file_fields) {
          if (ff.name == n) {
            name = n;
            file_field = &ff;
          }
        }
        if (file_field) break;
      }
    }
    g.name = name;
    if (f.type->id == TypeId::kStruct && m) {
      auto t = std::make_shared<Type>(*f.type);
      t->fields = RenameByMapping(f.type->fields, m->fields,
                                  file_field && file_field->type->id == TypeId::kStruct ? &file_field->type->fields
                                                                                         : nullptr);
      g.type = t;
    }
    out.push_back(std::move(g));
  }
  return out;
}

// ---------------------------------------------------------- file opening

struct OpenedFile {
  std::unique_ptr<parquet::FileReader> reader;
  /// Top-level field ids of the projection that the file holds.
  std::set<int32_t> present;
  /// Ids of fields nested in the projection's columns (struct fields, list
  /// elements, map keys and values, at any depth) that the file lacks: they
  /// read as null from the Parquet reader, then as their initial-default.
  std::set<int32_t> absent_nested;
};

// The fields nested in `fields` (not the fields themselves) that `has` says
// the file lacks, into `out`.
void CollectAbsentNested(const std::vector<NestedField>& fields, const std::function<bool(const NestedField&)>& has,
                         std::set<int32_t>* out) {
  for (const auto& f : fields) {
    if (!f.type->is_nested()) continue;
    for (const auto& c : f.type->fields) {
      if (!has(c)) out->insert(c.id);
    }
    CollectAbsentNested(f.type->fields, has, out);
  }
}

// Warns once per file (per process) that its size is not the manifest's.
void WarnSizeDiffers(const std::string& path, int64_t actual, int64_t expected) {
  static std::mutex mu;
  static std::set<std::string> warned;
  {
    std::lock_guard lock(mu);
    if (!warned.insert(path).second) return;
  }
  catalog::Warn(fmt::format(
      "file {} has {} bytes but its manifest entry says file_size_in_bytes {}; read anyway: its footer parses "
      "and its row count is the manifest's (a file rewritten after its manifest was written; Impala and "
      "other writers leave such tables), and its pages are still checked",
      path, actual, expected));
}

// Opens a Parquet file projected to `projection` (by field id, or through
// the name mapping when the file has no field ids). The file must be the one
// its manifest entry describes (Iceberg spec: Data File Fields): its footer
// must parse and its row count be record_count, or a truncated, replaced or
// swapped file would read as other rows; its pages' checksums are checked
// as they are read. A size other than file_size_in_bytes alone does not
// refuse it: tables that other engines read record stale sizes (files
// rewritten after the manifest); it is warned about once per file, and named
// in the error when the file is refused for another reason.
// `whole_small_file`: a file of at most kWholeFileBytes is read with one
// read and parsed from memory (a small delete file: one read instead of one
// per footer part and column chunk).
constexpr int64_t kWholeFileBytes = 256 << 10;

Result<OpenedFile> OpenProjected(const ScanPlan& plan, const DataFile& file, io::FileIO& files,
                                 const SchemaPtr& projection, parquet::ReaderOptions options,
                                 bool by_name_fallback = false, bool whole_small_file = false) {
  const std::string& stored_path = file.file_path;
  auto in = files.NewInput(stored_path);
  if (!in) return Fail(in.error().WithContext(fmt::format("file {}", stored_path)));
  const int64_t actual_size = (*in)->Size();
  std::string whole;
  if (whole_small_file && actual_size > 0 && actual_size <= kWholeFileBytes) {
    whole.resize(static_cast<size_t>(actual_size));
    Status read = (*in)->ReadAt(0, whole.size(), reinterpret_cast<uint8_t*>(whole.data()));
    if (!read) return Fail(read.error().WithContext(fmt::format("file {}", stored_path)));
    in = MemoryInput(whole, stored_path);
  }
  // The file again (a second open with other reader options).
  auto reopen = [&]() -> Result<std::unique_ptr<InputFile>> {
    if (!whole.empty()) return MemoryInput(whole, stored_path);
    return files.NewInput(stored_path);
  };
  const bool size_differs = actual_size != file.file_size_in_bytes;
  const std::string size_note =
      size_differs ? fmt::format("; its {} bytes differ from its manifest entry's file_size_in_bytes {} too",
                                 actual_size, file.file_size_in_bytes)
                   : std::string();
  options.projection = projection;
  auto opened = parquet::FileReader::Open(std::move(*in), options);
  if (!opened) {
    if (!size_differs) return Fail(opened.error());
    Error e = opened.error();
    e.message += fmt::format(" (file {}{})", stored_path, size_note);
    return Fail(std::move(e));
  }
  if ((*opened)->num_rows() != file.record_count) {
    return Corrupt(
        "file {} holds {} rows but its manifest entry says record_count {} (replaced or damaged{})",
        stored_path, (*opened)->num_rows(), file.record_count, size_note);
  }
  if (size_differs) WarnSizeDiffers(stored_path, actual_size, file.file_size_in_bytes);
  OpenedFile out;
  out.reader = std::move(*opened);
  if (!out.reader->has_field_ids() && by_name_fallback) {
    // Position delete files have fixed column names (Iceberg spec: Position Delete Files).
    SchemaPtr file_schema = out.reader->file_schema();
    for (const auto& f : projection->fields()) {
      if (file_schema->FindTopLevel(f.name)) out.present.insert(f.id);
    }
    auto in2 = reopen();
    if (!in2) return Fail(in2.error().WithContext(fmt::format("file {}", stored_path)));
    options.match_by_name = true;
    FLOE_ASSIGN_OR_RETURN(out.reader, parquet::FileReader::Open(std::move(*in2), options));
    return out;
  }
  if (!out.reader->has_field_ids()) {
    auto it = plan.metadata->properties.find(std::string(config::keys::kNameMappingDefault.name));
    if (it == plan.metadata->properties.end()) {
      return Unsupported(
          "data file {} has no Parquet field ids and the table has no schema.name-mapping.default to "
          "map its columns",
          stored_path);
    }
    FLOE_ASSIGN_OR_RETURN(auto mapping, ParseNameMapping(it->second));
    SchemaPtr file_schema = out.reader->file_schema();
    auto renamed = std::make_shared<const Schema>(
        RenameByMapping(projection->fields(), mapping, &file_schema->fields()), projection->schema_id());
    for (int i = 0; i < renamed->num_fields(); ++i) {
      if (file_schema->FindTopLevel(renamed->fields()[i].name)) out.present.insert(projection->fields()[i].id);
    }
    // Struct fields the mapping does not find in the file were renamed to a
    // name no file has (RenameByMapping); the ids stay the table's.
    CollectAbsentNested(
        renamed->fields(), [](const NestedField& f) { return !f.name.starts_with("\x01unmapped."); },
        &out.absent_nested);
    auto in2 = reopen();
    if (!in2) return Fail(in2.error().WithContext(fmt::format("file {}", stored_path)));
    options.projection = renamed;
    options.match_by_name = true;
    auto reopened = parquet::FileReader::Open(std::move(*in2), options);
    if (!reopened) {
      return Fail(reopened.error().WithContext("field ids from schema.name-mapping.default"));
    }
    out.reader = std::move(*reopened);
    return out;
  }
  SchemaPtr file_schema = out.reader->file_schema();
  for (const auto& f : projection->fields()) {
    if (file_schema->FindField(f.id)) out.present.insert(f.id);
  }
  CollectAbsentNested(
      projection->fields(), [&](const NestedField& f) { return file_schema->FindField(f.id) != nullptr; },
      &out.absent_nested);
  return out;
}

// ------------------------------------------------------ initial defaults

// The non-null initial-default of field `id`, or nullptr.
const std::string* InitialDefault(const iceberg::FieldDefaults* defaults, int32_t id) {
  if (!defaults) return nullptr;
  auto it = defaults->find(id);
  if (it == defaults->end() || !it->second.initial_default || *it->second.initial_default == "null") return nullptr;
  return &*it->second.initial_default;
}

// `n` rows of a field that a data file lacks (Iceberg spec: Default values):
// its initial-default in every row, or null without one. A struct whose
// default is {} is a struct in every row, each of its fields read the same
// way (defaults of struct fields are tracked at the field level); a list or
// map default is repeated as given.
Result<ColumnVector> MissingFieldColumn(const NestedField& f, const iceberg::FieldDefaults* defaults, int64_t n) {
  const std::string* d = InitialDefault(defaults, f.id);
  if (!d) {
    ColumnVector col(f.type);
    for (int64_t i = 0; i < n; ++i) col.AppendNull();
    return col;
  }
  if (f.type->id == TypeId::kStruct) {
    ColumnVector col(f.type);
    col.length = n;
    for (size_t k = 0; k < f.type->fields.size(); ++k) {
      FLOE_ASSIGN_OR_RETURN(col.children[k], MissingFieldColumn(f.type->fields[k], defaults, n));
    }
    return col;
  }
  ColumnVector one(f.type);
  if (Status st = iceberg::AppendJsonText(&one, *d); !st) {
    return Fail(st.error().WithContext(fmt::format("initial-default of field {} ({})", f.id, f.name)));
  }
  const std::vector<int64_t> zeros(static_cast<size_t>(n), 0);
  return Take(one, zeros);
}

// Fills the fields nested in column `col` (of field `f`, read from a file)
// that the file lacks with their initial-defaults, at every depth: struct in
// struct, structs in list elements and map keys and values.
Status FillNestedDefaults(const NestedField& f, const std::set<int32_t>& absent,
                          const iceberg::FieldDefaults* defaults, ColumnVector* col) {
  if (!f.type->is_nested()) return Ok();
  const auto& fields = f.type->fields;
  for (size_t k = 0; k < fields.size() && k < col->children.size(); ++k) {
    ColumnVector& child = col->children[k];
    if (absent.contains(fields[k].id)) {
      if (InitialDefault(defaults, fields[k].id)) {
        FLOE_ASSIGN_OR_RETURN(child, MissingFieldColumn(fields[k], defaults, child.length));
      }
      continue;
    }
    FLOE_RETURN_IF_ERROR(FillNestedDefaults(fields[k], absent, defaults, &child));
  }
  return Ok();
}

}  // namespace

class DeleteCache {
 public:
  using PositionsByFile = std::unordered_map<std::string, std::vector<int64_t>>;
  std::mutex mu;  ///< guards positions, footers, vectors
  std::unordered_map<std::string, std::shared_ptr<const PositionsByFile>> positions;
  /// Puffin footers by path; deletion vectors by DeleteFileKey (path and offset).
  std::unordered_map<std::string, std::shared_ptr<const iceberg::PuffinFileMetadata>> footers;
  std::unordered_map<std::string, std::shared_ptr<const iceberg::DeletionVector>> vectors;

  /// The equality deletes of one set of equality ids (and key types): one
  /// index of every such file read so far, and each file's ordinal in it.
  struct EqualitySlot {
    std::unique_ptr<EqualityDeleteIndex> index;
    std::unordered_map<std::string, uint32_t> ordinals;  ///< by file path
  };
  /// Guards eq and every slot: shared to Apply an index, exclusive to grow one.
  std::shared_mutex eq_mu;
  std::unordered_map<std::string, EqualitySlot> eq;
};

std::shared_ptr<DeleteCache> MakeDeleteCache() { return std::make_shared<DeleteCache>(); }

namespace {

// ----------------------------------------------------------------- deletes

// Every row of a position delete file, by data file path.
Result<std::shared_ptr<const DeleteCache::PositionsByFile>> ReadAllPositions(const ScanPlan& plan,
                                                                             const DeleteFileTask& d,
                                                                             io::FileIO& files) {
  auto schema = std::make_shared<const Schema>(std::vector<NestedField>{
      NestedField{kDeleteFilePathId, "file_path", true, StringType(), ""},
      NestedField{kDeletePosId, "pos", true, LongType(), ""}});
  FLOE_ASSIGN_OR_RETURN(OpenedFile f, OpenProjected(plan, d.file, files, schema, {}, true, true));
  if (!f.present.contains(kDeleteFilePathId) || !f.present.contains(kDeletePosId)) {
    return Corrupt("position delete file {} lacks the file_path (id {}) or pos (id {}) column", d.file.file_path,
                   kDeleteFilePathId, kDeletePosId);
  }
  auto out = std::make_shared<DeleteCache::PositionsByFile>();
  Batch b;
  std::string last;
  std::vector<int64_t>* target = nullptr;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool more, f.reader->Next(&b));
    if (!more) break;
    const ColumnVector& paths = b.columns[0];
    const ColumnVector& pos = b.columns[1];
    for (int64_t i = 0; i < b.num_rows; ++i) {
      if (paths.IsNull(i) || pos.IsNull(i)) {
        return Corrupt("position delete file {}: row {} has a null file_path or pos", d.file.file_path, i);
      }
      std::string_view p = paths.bytes(i);
      if (!target || p != last) {
        last.assign(p);
        target = &(*out)[last];
      }
      target->push_back(pos.data<int64_t>()[i]);
    }
  }
  return std::shared_ptr<const DeleteCache::PositionsByFile>(std::move(out));
}

Status LoadPositionDeletes(const ScanPlan& plan, const DeleteFileTask& d, const std::string& data_path,
                           io::FileIO& files, PositionDeletes* out, DeleteCache* cache) {
  std::shared_ptr<const DeleteCache::PositionsByFile> all;
  {
    std::lock_guard lock(cache->mu);
    if (auto it = cache->positions.find(d.file.file_path); it != cache->positions.end()) all = it->second;
  }
  if (!all) {
    FLOE_ASSIGN_OR_RETURN(all, ReadAllPositions(plan, d, files));
    std::lock_guard lock(cache->mu);
    cache->positions.emplace(d.file.file_path, all);
  }
  if (auto it = all->find(data_path); it != all->end()) out->AddAll(it->second);
  return Ok();
}

// The equality deletes of one set of equality ids that apply to one data
// file: the scan's shared index of those ids, and which of its files apply.
struct EqualityGroup {
  std::vector<int32_t> ids;
  SchemaPtr key_schema;           ///< top-level fields holding the ids
  DeleteCache::EqualitySlot* slot = nullptr;
  std::vector<uint8_t> applies;   ///< by ordinal in slot->index
};

Result<std::vector<Batch>> ReadEqualityRows(const ScanPlan& plan, const DeleteFileTask& d, io::FileIO& files,
                                            const SchemaPtr& key_schema) {
  FLOE_ASSIGN_OR_RETURN(OpenedFile f, OpenProjected(plan, d.file, files, key_schema, {}, false, true));
  std::vector<Batch> out;
  while (true) {
    Batch b;
    FLOE_ASSIGN_OR_RETURN(bool more, f.reader->Next(&b));
    if (!more) break;
    b.schema = key_schema;
    out.push_back(std::move(b));
  }
  return out;
}

// Marks delete file `d` as applying to the group's data file, reading it into
// the scan's index first unless an earlier data file did.
Status LoadEqualityDeletes(const ScanPlan& plan, const DeleteFileTask& d, io::FileIO& files,
                           EqualityGroup* g, DeleteCache* cache) {
  auto mark = [g](uint32_t ordinal) {
    if (g->applies.size() <= ordinal) g->applies.resize(ordinal + 1, 0);
    g->applies[ordinal] = 1;
  };
  {
    std::shared_lock lock(cache->eq_mu);
    if (auto it = g->slot->ordinals.find(d.file.file_path); it != g->slot->ordinals.end()) {
      mark(it->second);
      return Ok();
    }
  }
  // Read without the lock; another thread may add the same file meanwhile.
  FLOE_ASSIGN_OR_RETURN(std::vector<Batch> rows, ReadEqualityRows(plan, d, files, g->key_schema));
  std::unique_lock lock(cache->eq_mu);
  if (auto it = g->slot->ordinals.find(d.file.file_path); it != g->slot->ordinals.end()) {
    mark(it->second);
    return Ok();
  }
  auto ordinal = g->slot->index->Add(rows);
  if (!ordinal) return Fail(ordinal.error().WithContext(fmt::format("equality delete file {}", d.file.file_path)));
  g->slot->ordinals.emplace(d.file.file_path, *ordinal);
  mark(*ordinal);
  return Ok();
}

// The deletion vector `d` (a blob of a Puffin file), read once per scan.
Status LoadDeletionVector(const DeleteFileTask& d, const std::string& data_path, io::FileIO& files,
                          DeleteCache* cache, std::vector<std::shared_ptr<const iceberg::DeletionVector>>* out) {
  const DataFile& f = d.file;
  if (f.referenced_data_file && *f.referenced_data_file != data_path) {
    return Internal("{} was attached to data file {}", iceberg::DeletionVectorName(f), data_path);
  }
  const std::string key = DeleteFileKey(f);
  std::shared_ptr<const iceberg::PuffinFileMetadata> footer;
  {
    std::lock_guard lock(cache->mu);
    if (auto it = cache->vectors.find(key); it != cache->vectors.end()) {
      out->push_back(it->second);
      return Ok();
    }
    if (auto it = cache->footers.find(f.file_path); it != cache->footers.end()) footer = it->second;
  }
  auto in = files.NewInput(f.file_path);
  if (!in) return Fail(in.error().WithContext(iceberg::DeletionVectorName(f)));
  if (!footer) {
    auto read = iceberg::ReadPuffinFooter(**in, f.file_path);
    if (!read) return Fail(read.error().WithContext(iceberg::DeletionVectorName(f)));
    footer = std::make_shared<const iceberg::PuffinFileMetadata>(std::move(*read));
  }
  FLOE_ASSIGN_OR_RETURN(iceberg::DeletionVector dv, iceberg::ReadDeletionVector(**in, *footer, f));
  auto shared = std::make_shared<const iceberg::DeletionVector>(std::move(dv));
  {
    std::lock_guard lock(cache->mu);
    cache->footers.emplace(f.file_path, footer);
    cache->vectors.emplace(key, shared);
  }
  out->push_back(std::move(shared));
  return Ok();
}

// The deletes of one data file, read: positions, deletion vectors, and
// equality deletes grouped by equality ids.
struct LoadedDeletes {
  PositionDeletes positions;
  std::vector<std::shared_ptr<const iceberg::DeletionVector>> vectors;
  std::vector<EqualityGroup> groups;
};

// The key of an equality index: the ids and the key columns' types (a file
// read with another type encodes other bytes).
std::string EqualitySlotKey(const std::vector<int32_t>& ids, const Schema& key_schema) {
  std::string out;
  for (int32_t id : ids) out += std::to_string(id) + ",";
  for (const auto& f : key_schema.fields()) out += "|" + std::to_string(f.id) + ":" + f.type->ToString();
  return out;
}

// Reads `deletes` (those of one data file) into `out`; the top-level field
// ids the equality deletes look at are appended to `extra_ids`.
Status LoadDeletes(const ScanPlan& plan, const std::vector<DeleteFileTaskPtr>& deletes,
                   const std::string& data_path, io::FileIO& files, DeleteCache* cache,
                   LoadedDeletes* out, std::vector<int32_t>* extra_ids) {
  for (const auto& d : deletes) {
    if (iceberg::IsDeletionVector(d->file)) {
      FLOE_RETURN_IF_ERROR(LoadDeletionVector(*d, data_path, files, cache, &out->vectors));
      continue;
    }
    if (d->file.content == DataFileContent::kPositionDeletes) {
      FLOE_RETURN_IF_ERROR(LoadPositionDeletes(plan, *d, data_path, files, &out->positions, cache));
      continue;
    }
    std::vector<int32_t> ids = d->file.equality_ids;
    EqualityGroup* g = nullptr;
    for (auto& x : out->groups) {
      if (x.ids == ids) g = &x;
    }
    if (!g) {
      EqualityGroup ng;
      ng.ids = ids;
      std::vector<NestedField> key_fields;
      for (int32_t id : ids) {
        const NestedField* top = FindTopLevelAnywhere(plan, id);
        if (!top) {
          return Corrupt("equality delete file {}: equality field id {} is in no schema of the table",
                         d->file.file_path, id);
        }
        bool dup = false;
        for (const auto& k : key_fields) dup |= k.id == top->id;
        if (!dup) key_fields.push_back(*top);
        extra_ids->push_back(top->id);
      }
      ng.key_schema = std::make_shared<const Schema>(std::move(key_fields));
      {
        std::unique_lock lock(cache->eq_mu);
        DeleteCache::EqualitySlot& slot = cache->eq[EqualitySlotKey(ids, *ng.key_schema)];
        if (!slot.index) {
          auto index = EqualityDeleteIndex::Make(ids, *ng.key_schema);
          if (!index) {
            return Fail(index.error().WithContext(fmt::format("equality delete file {}", d->file.file_path)));
          }
          slot.index = std::make_unique<EqualityDeleteIndex>(std::move(*index));
        }
        ng.slot = &slot;
      }
      out->groups.push_back(std::move(ng));
      g = &out->groups.back();
    }
    FLOE_RETURN_IF_ERROR(LoadEqualityDeletes(plan, *d, files, g, cache));
  }
  return Ok();
}

// Clears keep[i] for each row of `batch` (file rows first_row...) that the
// deletes remove.
Status ApplyDeletes(LoadedDeletes* deletes, DeleteCache* cache, const Schema& read_schema,
                    int64_t first_row, Batch* batch, std::span<uint8_t> keep) {
  if (!deletes->positions.empty()) deletes->positions.Apply(first_row, keep);
  for (const auto& v : deletes->vectors) v->Apply(first_row, keep);
  for (auto& g : deletes->groups) {
    // A view of the key columns, moved out of the batch and back.
    Batch keys;
    keys.schema = g.key_schema;
    keys.num_rows = batch->num_rows;
    std::vector<int> where;
    for (const auto& kf : g.key_schema->fields()) {
      int idx = 0;
      for (int i = 0; i < read_schema.num_fields(); ++i) {
        if (read_schema.fields()[i].id == kf.id) idx = i;
      }
      where.push_back(idx);
      keys.columns.push_back(std::move(batch->columns[idx]));
    }
    Status st = Ok();
    {
      std::shared_lock lock(cache->eq_mu);
      st = g.slot->index->Apply(keys, g.applies, keep);
    }
    for (size_t k = 0; k < where.size(); ++k) batch->columns[where[k]] = std::move(keys.columns[k]);
    FLOE_RETURN_IF_ERROR(st);
  }
  return Ok();
}

}  // namespace

// --------------------------------------------------------------- one range

Status ReadFileRange(const ScanPlan& plan, const FileScanTask& task, const FileRange& range,
                     io::FileIO& files, int64_t batch_rows,
                     const std::function<Status(Batch&&)>& emit, DeleteCache* cache) {
  const DataFile& file = task.data_file;
  const Schema& table_schema = *plan.table_schema;
  auto context = [&](Error e) { return Fail(std::move(e)); };

  // Deletes; for a changelog read also the other snapshot's deletes
  // (FileScanTask::changelog_deletes). Without a scan's cache, one for this range.
  std::shared_ptr<DeleteCache> own_cache;
  if (!cache) {
    own_cache = MakeDeleteCache();
    cache = own_cache.get();
  }
  std::vector<int32_t> extra_ids;
  LoadedDeletes base;
  FLOE_RETURN_IF_ERROR(
      LoadDeletes(plan, task.deletes, file.file_path, files, cache, &base, &extra_ids));
  const bool changelog = !task.changelog_deletes.empty();
  LoadedDeletes other;
  if (changelog) {
    FLOE_RETURN_IF_ERROR(LoadDeletes(plan, task.changelog_deletes, file.file_path, files, cache,
                                     &other, &extra_ids));
  }

  // The read schema: the projection, then the columns deletes and the filter need.
  std::vector<int32_t> filter_ids;
  CollectFilterIds(*plan.filter, &filter_ids);
  for (int32_t id : filter_ids) {
    if (const NestedField* top = TopLevelContaining(table_schema, id)) extra_ids.push_back(top->id);
  }
  std::vector<NestedField> read_fields = plan.projected_schema->fields();
  const size_t num_out = read_fields.size();
  for (int32_t id : extra_ids) {
    bool have = false;
    for (const auto& f : read_fields) have |= f.id == id;
    if (have) continue;
    const NestedField* top = nullptr;
    for (const auto& f : table_schema.fields()) {
      if (f.id == id) top = &f;
    }
    if (!top) top = FindTopLevelAnywhere(plan, id);
    if (top) read_fields.push_back(*top);
  }
  auto read_schema = std::make_shared<const Schema>(std::move(read_fields), table_schema.schema_id());
  expr::ExprPtr filter = IsTrue(*plan.filter) ? plan.filter : Rebase(plan.filter, table_schema, *read_schema);

  // Row groups of this range: those whose start offset lies in it.
  const int64_t range_end = range.start + range.length;
  const auto& offsets = file.split_offsets;
  parquet::ReaderOptions ro;
  ro.batch_rows = batch_rows;
  int num_row_groups = -1;
  // The planner's ranges follow the manifest's split_offsets only when each
  // lies inside the manifest's file size (split_planner.cc, SplitFile); the
  // ones outside would fall in no range, and their row groups be lost (a
  // file larger than its manifest says is read: OpenProjected).
  bool offsets_inside = true;
  for (int64_t off : offsets) offsets_inside = offsets_inside && off >= 0 && off < file.file_size_in_bytes;
  ro.skip_row_group = [&](const parquet::RowGroupStats& rg) {
    if (num_row_groups >= 0 && offsets_inside && static_cast<int>(offsets.size()) == num_row_groups) {
      int64_t off = offsets[rg.index];
      if (off < range.start || off >= range_end) return true;
    } else if (range.start != 0) {
      return true;  // offsets unusable: the range starting at 0 reads the whole file
    }
    if (IsTrue(*filter)) return false;
    expr::FileMetrics m;
    m.record_count = rg.num_rows;
    auto find = [&rg](int32_t id) { return rg.Find(id); };
    m.value_count = [find](int32_t id) -> std::optional<int64_t> {
      auto* c = find(id);
      if (!c) return std::nullopt;
      return c->num_values;
    };
    m.null_count = [find](int32_t id) -> std::optional<int64_t> {
      auto* c = find(id);
      if (!c) return std::nullopt;
      return c->null_count;
    };
    m.nan_count = [find](int32_t id) -> std::optional<int64_t> {
      auto* c = find(id);
      if (!c) return std::nullopt;
      return c->nan_count;
    };
    auto bound = [&, find](bool lower) {
      return [&, find, lower](int32_t id) -> std::optional<expr::Literal> {
        auto* c = find(id);
        if (!c) return std::nullopt;
        const auto& b = lower ? c->lower : c->upper;
        if (!b) return std::nullopt;
        const NestedField* f = read_schema->FindField(id);
        if (!f || f->type->is_nested()) return std::nullopt;
        auto v = iceberg::FromBinary(*f->type, *b);
        if (!v || v->is_null()) return std::nullopt;
        // Convert through a one-row column to share the literal forms of MayMatch.
        expr::Literal l;
        l.type = f->type->id;
        const Value& x = *v;
        if (std::holds_alternative<bool>(x.v)) l.i = x.as_bool();
        else if (std::holds_alternative<int32_t>(x.v)) l.i = x.as_int();
        else if (std::holds_alternative<int64_t>(x.v)) l.i = x.as_long();
        else if (std::holds_alternative<float>(x.v)) l.d = x.as_float();
        else if (std::holds_alternative<double>(x.v)) l.d = x.as_double();
        else if (std::holds_alternative<int128_t>(x.v)) { l.dec = x.as_decimal(); l.scale = f->type->scale; }
        else l.s = x.as_bytes();
        return l;
      };
    };
    m.lower_bound = bound(true);
    m.upper_bound = bound(false);
    return !expr::MayMatch(*filter, m);
  };
  FLOE_ASSIGN_OR_RETURN(OpenedFile opened, OpenProjected(plan, file, files, read_schema, ro));
  num_row_groups = opened.reader->num_row_groups();

  // Constants for columns the file lacks.
  struct Constant {
    int index;
    Value value;
  };
  std::vector<Constant> constants;
  const iceberg::PartitionSpec* spec = plan.metadata->SpecById(task.spec_id);
  const iceberg::FieldDefaults* defaults = nullptr;
  if (auto it = plan.metadata->field_defaults.find(table_schema.schema_id());
      it != plan.metadata->field_defaults.end()) {
    defaults = &it->second;
  }
  // Nested fields: present columns whose nested fields the file lacks, and
  // absent columns with a default ({} for a struct), filled per batch.
  std::vector<int> nested_present, nested_absent;
  for (int i = 0; i < read_schema->num_fields(); ++i) {
    const NestedField& f = read_schema->fields()[i];
    if (!f.type->is_nested()) continue;
    if (opened.present.contains(f.id)) {
      if (!opened.absent_nested.empty()) nested_present.push_back(i);
    } else if (InitialDefault(defaults, f.id)) {
      nested_absent.push_back(i);
    }
  }
  for (int i = 0; i < read_schema->num_fields(); ++i) {
    const NestedField& f = read_schema->fields()[i];
    if (opened.present.contains(f.id) || f.type->is_nested()) continue;
    std::optional<Value> v;
    if (spec) {
      const auto& pfs = spec->fields();
      for (size_t p = 0; p < pfs.size() && p < file.partition.size(); ++p) {
        if (pfs[p].source_id == f.id && pfs[p].transform.kind() == iceberg::TransformKind::kIdentity) {
          v = Widen(*f.type, file.partition[p]);
          break;
        }
      }
    }
    if (!v && defaults) {
      if (auto it = defaults->find(f.id); it != defaults->end() && it->second.initial_default) {
        auto d = iceberg::FromJsonText(*f.type, *it->second.initial_default);
        if (!d) {
          return context(d.error().WithContext(fmt::format("initial-default of field {} ({})", f.id, f.name)));
        }
        v = std::move(*d);
      }
    }
    if (v && !v->is_null()) constants.push_back({i, std::move(*v)});
  }

  Batch batch;
  std::vector<uint8_t> keep;
  std::vector<uint8_t> other_keep;
  std::vector<uint8_t> selected;
  while (true) {
    auto more = opened.reader->Next(&batch);
    if (!more) return Fail(more.error());
    if (!*more) break;
    const int64_t n = batch.num_rows;
    if (n == 0) continue;
    batch.schema = read_schema;
    for (const auto& c : constants) {
      batch.columns[c.index] = ConstantColumn(read_schema->fields()[c.index].type, c.value, n);
    }
    for (int i : nested_present) {
      if (Status st = FillNestedDefaults(read_schema->fields()[i], opened.absent_nested, defaults, &batch.columns[i]);
          !st) {
        return context(st.error());
      }
    }
    for (int i : nested_absent) {
      auto col = MissingFieldColumn(read_schema->fields()[i], defaults, n);
      if (!col) return context(col.error());
      batch.columns[i] = std::move(*col);
    }
    keep.assign(static_cast<size_t>(n), 1);
    FLOE_RETURN_IF_ERROR(
        ApplyDeletes(&base, cache, *read_schema, opened.reader->batch_first_row(), &batch, keep));
    if (changelog) {
      // Kept by the task's deletes and removed by the other set's.
      other_keep.assign(static_cast<size_t>(n), 1);
      FLOE_RETURN_IF_ERROR(
          ApplyDeletes(&other, cache, *read_schema, opened.reader->batch_first_row(), &batch, other_keep));
      for (int64_t i = 0; i < n; ++i) keep[i] &= !other_keep[i];
    }
    if (!IsTrue(*filter)) {
      FLOE_RETURN_IF_ERROR(expr::Evaluate(*filter, batch, &selected));
      for (int64_t i = 0; i < n; ++i) keep[i] &= selected[i];
    }
    int64_t kept = 0;
    for (auto k : keep) kept += k;
    if (kept == 0) continue;
    Batch out;
    out.schema = plan.projected_schema;
    out.num_rows = kept;
    const int64_t first_row = opened.reader->batch_first_row();
    if (kept == n) {
      for (size_t i = 0; i < num_out; ++i) out.columns.push_back(std::move(batch.columns[i]));
      if (plan.row_positions) {
        out.positions.resize(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) out.positions[static_cast<size_t>(i)] = first_row + i;
      }
    } else {
      auto idx = SelectedIndices(keep);
      for (size_t i = 0; i < num_out; ++i) out.columns.push_back(Take(batch.columns[i], idx));
      if (plan.row_positions) {
        out.positions.reserve(idx.size());
        for (auto i : idx) out.positions.push_back(first_row + static_cast<int64_t>(i));
      }
    }
    FLOE_RETURN_IF_ERROR(emit(std::move(out)));
    batch = Batch();
  }
  return Ok();
}

// ------------------------------------------------------------- TableReader

class TableReaderImpl {
 public:
  TableReaderImpl(ScanPlan plan, io::FileIOPtr files, TableReaderOptions options)
      : plan_(std::move(plan)), files_(std::move(files)), options_(options) {
    slots_.resize(plan_.splits.size());
  }

  ~TableReaderImpl() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  void Start() {
    const int threads = std::max(1, options_.threads);
    if (threads <= 1 || plan_.splits.size() <= 1) return;  // read on the caller's thread
    const int n = std::min<int>(threads, static_cast<int>(plan_.splits.size()));
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { Work(); });
  }

  SchemaPtr schema() const { return plan_.projected_schema; }

  Result<bool> Next(Batch* out) {
    if (plan_.limit >= 0 && returned_ >= plan_.limit) return false;
    while (true) {
      if (!pending_.empty()) {
        *out = std::move(pending_.front());
        pending_.pop_front();
        if (plan_.limit >= 0 && returned_ + out->num_rows > plan_.limit) {
          int64_t keep = plan_.limit - returned_;
          Batch cut(out->schema);
          AppendRange(*out, 0, keep, &cut);
          cut.num_rows = keep;
          *out = std::move(cut);
        }
        returned_ += out->num_rows;
        return true;
      }
      if (threads_.empty()) {
        if (next_split_ >= plan_.splits.size()) return false;
        size_t s = next_split_++;
        std::vector<Batch> batches;
        FLOE_RETURN_IF_ERROR(ReadSplit(s, &batches));
        for (auto& b : batches) pending_.push_back(std::move(b));
        continue;
      }
      // Parallel: wait for the next split in order (or any finished one).
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return error_ || consumed_ >= slots_.size() || Ready(); });
      if (error_) return Fail(*error_);
      if (consumed_ >= slots_.size()) return false;
      size_t s = TakeReady();
      for (auto& b : slots_[s].batches) pending_.push_back(std::move(b));
      slots_[s].batches.clear();
      ++consumed_;
      lock.unlock();
      cv_.notify_all();
    }
  }

 private:
  struct Slot {
    bool done = false;
    bool taken = false;
    std::vector<Batch> batches;
  };

  Status ReadSplit(size_t s, std::vector<Batch>* out) {
    int64_t rows = 0;
    for (const FileRange& r : plan_.splits[s]) {
      if (plan_.limit >= 0 && rows >= plan_.limit) break;  // this split alone reached the limit
      const FileScanTask& task = plan_.files[static_cast<size_t>(r.file)];
      FLOE_RETURN_IF_ERROR(ReadFileRange(
          plan_, task, r, *files_, options_.batch_rows,
          [&](Batch&& b) {
            rows += b.num_rows;
            out->push_back(std::move(b));
            return Ok();
          },
          cache_.get()));
    }
    return Ok();
  }

  bool Ready() const {
    if (options_.preserve_order) return slots_[consumed_].done;
    for (const auto& s : slots_) {
      if (s.done && !s.taken) return true;
    }
    return false;
  }

  size_t TakeReady() {
    size_t s = consumed_;
    if (!options_.preserve_order) {
      for (size_t i = 0; i < slots_.size(); ++i) {
        if (slots_[i].done && !slots_[i].taken) {
          s = i;
          break;
        }
      }
    }
    slots_[s].taken = true;
    return s;
  }

  void Work() {
    const size_t window = static_cast<size_t>(std::max(1, options_.threads)) * 2;
    while (true) {
      size_t s;
      {
        std::unique_lock lock(mu_);
        // Bounded read-ahead: at most `window` splits beyond the consumer.
        cv_.wait(lock, [&] { return stop_ || error_ || next_split_ >= slots_.size() || next_split_ < consumed_ + window; });
        if (stop_ || error_ || next_split_ >= slots_.size()) return;
        s = next_split_++;
      }
      std::vector<Batch> batches;
      Status st = ReadSplit(s, &batches);
      {
        std::lock_guard lock(mu_);
        if (!st) {
          if (!error_) error_ = st.error().WithContext(fmt::format("split {}", s));
        } else {
          slots_[s].batches = std::move(batches);
          slots_[s].done = true;
        }
      }
      cv_.notify_all();
    }
  }

  ScanPlan plan_;
  io::FileIOPtr files_;
  TableReaderOptions options_;
  std::shared_ptr<DeleteCache> cache_ = MakeDeleteCache();
  std::vector<Slot> slots_;
  std::deque<Batch> pending_;
  int64_t returned_ = 0;
  size_t next_split_ = 0;  // guarded by mu_ when threads run
  size_t consumed_ = 0;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::optional<Error> error_;
};

Result<std::unique_ptr<TableReader>> TableReader::Make(ScanPlan plan, LocationMapper mapper,
                                                       TableReaderOptions options) {
  return Make(std::move(plan), io::MappedFileIO(std::move(mapper), io::LocalFileIO()), options);
}

Result<std::unique_ptr<TableReader>> TableReader::Make(ScanPlan plan, io::FileIOPtr files,
                                                       TableReaderOptions options) {
  if (!files) return InvalidArgument("TableReader: no FileIO");
  if (!plan.metadata || !plan.table_schema || !plan.projected_schema || !plan.filter) {
    return InvalidArgument("TableReader: the plan is incomplete (metadata, schemas and filter are required)");
  }
  if (options.batch_rows <= 0) return InvalidArgument("TableReader: batch_rows must be positive");
  auto impl = std::make_unique<TableReaderImpl>(std::move(plan), std::move(files), options);
  impl->Start();
  return std::unique_ptr<TableReader>(new TableReader(std::move(impl)));
}

TableReader::TableReader(std::unique_ptr<TableReaderImpl> impl) : impl_(std::move(impl)) {}
TableReader::~TableReader() = default;
SchemaPtr TableReader::schema() const { return impl_->schema(); }
Result<bool> TableReader::Next(Batch* out) { return impl_->Next(out); }

Result<std::vector<Batch>> ReadAll(const ScanPlan& plan, const LocationMapper& mapper, TableReaderOptions options) {
  return ReadAll(plan, io::MappedFileIO(mapper, io::LocalFileIO()), options);
}

Status ReadFileRange(const ScanPlan& plan, const FileScanTask& task, const FileRange& range,
                     const LocationMapper& mapper, int64_t batch_rows,
                     const std::function<Status(Batch&&)>& emit, DeleteCache* cache) {
  auto files = io::MappedFileIO(mapper, io::LocalFileIO());
  return ReadFileRange(plan, task, range, *files, batch_rows, emit, cache);
}

Result<std::vector<Batch>> ReadAll(const ScanPlan& plan, io::FileIOPtr files, TableReaderOptions options) {
  FLOE_ASSIGN_OR_RETURN(auto reader, TableReader::Make(plan, std::move(files), options));
  std::vector<Batch> out;
  while (true) {
    Batch b;
    FLOE_ASSIGN_OR_RETURN(bool more, reader->Next(&b));
    if (!more) break;
    out.push_back(std::move(b));
  }
  return out;
}

Result<std::vector<int64_t>> DeletedPositions(const ScanPlan& plan, const FileScanTask& task, io::FileIO& files) {
  DeleteCache cache;
  std::vector<int64_t> out;
  const std::string& path = task.data_file.file_path;
  for (const auto& d : task.deletes) {
    if (d->file.content != iceberg::DataFileContent::kPositionDeletes) continue;
    if (iceberg::IsDeletionVector(d->file)) {
      std::vector<std::shared_ptr<const iceberg::DeletionVector>> vectors;
      FLOE_RETURN_IF_ERROR(LoadDeletionVector(*d, path, files, &cache, &vectors));
      for (const auto& v : vectors) {
        std::vector<int64_t> p = v->Positions();
        out.insert(out.end(), p.begin(), p.end());
      }
    } else {
      FLOE_ASSIGN_OR_RETURN(auto all, ReadAllPositions(plan, *d, files));
      if (auto it = all->find(path); it != all->end()) out.insert(out.end(), it->second.begin(), it->second.end());
    }
  }
  if (!std::is_sorted(out.begin(), out.end())) std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace floe::table
