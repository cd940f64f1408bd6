#include "floe/iceberg/table_metadata.h"

#include "floe/util/uuid.h"

#include <algorithm>
#include <functional>
#include <random>
#include <set>

#include "floe/iceberg/schema_json_internal.h"
#include "floe/iceberg/snapshot_json_internal.h"
#include "floe/iceberg/spec_json_internal.h"
#include "floe/iceberg/value.h"
#include "floe/util/buffer.h"
#include "floe/util/codec.h"
#include "floe/iceberg/reserved_ids.h"

namespace floe::iceberg {

namespace ji = json_internal;

namespace {


bool HasScheme(std::string_view uri) {
  auto colon = uri.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  for (size_t i = 0; i < colon; ++i) {
    char c = uri[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'));
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string_view SnapshotOperationName(SnapshotOperation op) {
  switch (op) {
    case SnapshotOperation::kAppend: return "append";
    case SnapshotOperation::kReplace: return "replace";
    case SnapshotOperation::kOverwrite: return "overwrite";
    case SnapshotOperation::kDelete: return "delete";
  }
  return "append";
}

Result<SnapshotOperation> ParseSnapshotOperation(std::string_view text) {
  if (text == "append") return SnapshotOperation::kAppend;
  if (text == "replace") return SnapshotOperation::kReplace;
  if (text == "overwrite") return SnapshotOperation::kOverwrite;
  if (text == "delete") return SnapshotOperation::kDelete;
  return InvalidArgument("snapshot operation '{}' is not append, replace, overwrite or delete", text);
}

// ---------------------------------------------------------------------------
// Lookups

const Snapshot* TableMetadata::SnapshotById(int64_t id) const {
  for (const auto& s : snapshots) {
    if (s.snapshot_id == id) return &s;
  }
  return nullptr;
}

const Snapshot* TableMetadata::CurrentSnapshot() const {
  return current_snapshot_id ? SnapshotById(*current_snapshot_id) : nullptr;
}

Result<const Snapshot*> TableMetadata::SnapshotByRef(std::string_view ref_name) const {
  auto it = refs.find(std::string(ref_name));
  if (it == refs.end()) {
    if (ref_name == kMainBranch && refs.empty()) {
      if (const Snapshot* s = CurrentSnapshot()) return s;
    }
    return NotFound("table {}: no branch or tag named '{}'", location, ref_name);
  }
  const Snapshot* s = SnapshotById(it->second.snapshot_id);
  if (!s) {
    return NotFound("table {}: ref '{}' names snapshot {} which does not exist", location, ref_name,
                    it->second.snapshot_id);
  }
  return s;
}

Result<const Snapshot*> TableMetadata::SnapshotAsOf(int64_t timestamp_ms) const {
  const SnapshotLogEntry* found = nullptr;
  for (const auto& e : snapshot_log) {
    if (e.timestamp_ms <= timestamp_ms) found = &e;
  }
  if (!found) {
    return NotFound("table {}: no snapshot-log entry at or before {} ms", location, timestamp_ms);
  }
  const Snapshot* s = SnapshotById(found->snapshot_id);
  if (!s) {
    return NotFound("table {}: snapshot {} (current at {} ms) has expired", location,
                    found->snapshot_id, timestamp_ms);
  }
  return s;
}

std::vector<const Snapshot*> TableMetadata::Ancestors(int64_t snapshot_id) const {
  std::vector<const Snapshot*> out;
  std::set<int64_t> seen;
  const Snapshot* s = SnapshotById(snapshot_id);
  while (s && seen.insert(s->snapshot_id).second) {
    out.push_back(s);
    s = s->parent_snapshot_id ? SnapshotById(*s->parent_snapshot_id) : nullptr;
  }
  return out;
}

SchemaPtr TableMetadata::SchemaById(int32_t schema_id) const {
  for (const auto& s : schemas) {
    if (s->schema_id() == schema_id) return s;
  }
  return nullptr;
}

SchemaPtr TableMetadata::CurrentSchema() const { return SchemaById(current_schema_id); }

const PartitionSpec* TableMetadata::SpecById(int32_t spec_id) const {
  for (const auto& s : specs) {
    if (s.spec_id() == spec_id) return &s;
  }
  return nullptr;
}

const PartitionSpec* TableMetadata::DefaultSpec() const { return SpecById(default_spec_id); }

const SortOrder* TableMetadata::SortOrderById(int32_t order_id) const {
  for (const auto& o : sort_orders) {
    if (o.order_id() == order_id) return &o;
  }
  return nullptr;
}

bool TableMetadata::operator==(const TableMetadata& o) const {
  if (schemas.size() != o.schemas.size()) return false;
  for (size_t i = 0; i < schemas.size(); ++i) {
    if (!(*schemas[i] == *o.schemas[i])) return false;
  }
  return format_version == o.format_version && table_uuid == o.table_uuid &&
         location == o.location && last_sequence_number == o.last_sequence_number &&
         last_updated_ms == o.last_updated_ms && last_column_id == o.last_column_id &&
         current_schema_id == o.current_schema_id && field_defaults == o.field_defaults &&
         specs == o.specs && default_spec_id == o.default_spec_id &&
         last_partition_id == o.last_partition_id && sort_orders == o.sort_orders &&
         default_sort_order_id == o.default_sort_order_id && properties == o.properties &&
         current_snapshot_id == o.current_snapshot_id && snapshots == o.snapshots &&
         refs == o.refs && snapshot_log == o.snapshot_log && metadata_log == o.metadata_log &&
         statistics == o.statistics && partition_statistics == o.partition_statistics &&
         next_row_id == o.next_row_id;
}

// ---------------------------------------------------------------------------
// Validation

Status TableMetadata::Validate() const {
  const std::string t = fmt::format("table metadata ({})", location);
  if (schemas.empty()) return Corrupt("{}: 'schemas' is empty", t);
  std::set<int32_t> ids;
  for (const auto& s : schemas) {
    if (!ids.insert(s->schema_id()).second) {
      return Corrupt("{}: schema id {} appears twice in 'schemas'", t, s->schema_id());
    }
  }
  if (!CurrentSchema()) {
    return Corrupt("{}: 'current-schema-id' {} is not in 'schemas'", t, current_schema_id);
  }
  if (specs.empty()) return Corrupt("{}: 'partition-specs' is empty", t);
  ids.clear();
  for (const auto& s : specs) {
    if (!ids.insert(s.spec_id()).second) {
      return Corrupt("{}: spec id {} appears twice in 'partition-specs'", t, s.spec_id());
    }
  }
  if (!DefaultSpec()) {
    return Corrupt("{}: 'default-spec-id' {} is not in 'partition-specs'", t, default_spec_id);
  }
  ids.clear();
  for (const auto& o : sort_orders) {
    if (!ids.insert(o.order_id()).second) {
      return Corrupt("{}: order id {} appears twice in 'sort-orders'", t, o.order_id());
    }
  }
  if (!SortOrderById(default_sort_order_id)) {
    return Corrupt("{}: 'default-sort-order-id' {} is not in 'sort-orders'", t,
                   default_sort_order_id);
  }
  std::set<int64_t> snapshot_ids;
  for (const auto& s : snapshots) {
    if (!snapshot_ids.insert(s.snapshot_id).second) {
      return Corrupt("{}: snapshot id {} appears twice in 'snapshots'", t, s.snapshot_id);
    }
    if (format_version >= 2 && s.sequence_number > last_sequence_number) {
      return Corrupt("{}: snapshot {} has sequence-number {} above last-sequence-number {}", t,
                     s.snapshot_id, s.sequence_number, last_sequence_number);
    }
  }
  if (current_snapshot_id && !SnapshotById(*current_snapshot_id)) {
    return Corrupt("{}: 'current-snapshot-id' {} is not in 'snapshots'", t, *current_snapshot_id);
  }
  for (const auto& [name, ref] : refs) {
    if (!SnapshotById(ref.snapshot_id)) {
      return Corrupt("{}: ref '{}' names snapshot {} which is not in 'snapshots'", t, name,
                     ref.snapshot_id);
    }
    if (!ref.is_branch() && (ref.min_snapshots_to_keep || ref.max_snapshot_age_ms)) {
      return Corrupt("{}: tag '{}' cannot have min-snapshots-to-keep or max-snapshot-age-ms", t,
                     name);
    }
  }
  auto main = refs.find(std::string(kMainBranch));
  if (main != refs.end()) {
    if (!main->second.is_branch()) return Corrupt("{}: ref 'main' must be a branch", t);
    if (!current_snapshot_id) {
      return Corrupt("{}: refs.main names snapshot {} but there is no current-snapshot-id", t,
                     main->second.snapshot_id);
    }
    if (main->second.snapshot_id != *current_snapshot_id) {
      return Corrupt("{}: current-snapshot-id {} does not match refs.main snapshot-id {}", t,
                     *current_snapshot_id, main->second.snapshot_id);
    }
  }
  return Ok();
}

Status ValidateForWrite(const TableMetadata& m) {
  const std::string t = fmt::format("table metadata ({})", m.location);
  if (m.format_version != 2 && m.format_version != 3) {
    return Unsupported("{}: floe writes format version 2 and 3 metadata, not {}", t, m.format_version);
  }
  if (m.table_uuid.size() != 36) return InvalidArgument("{}: 'table-uuid' '{}' is not a uuid", t, m.table_uuid);
  if (m.location.empty() || !HasScheme(m.location)) {
    return InvalidArgument("{}: 'location' must be an absolute URI with a scheme", t);
  }
  auto st = m.Validate();
  if (!st) return InvalidArgument("{}", st.error().message);
  if (m.format_version == 2) {
    // v3 fields have no place in v2 metadata (the writer below would drop them).
    if (m.next_row_id) return InvalidArgument("{}: 'next-row-id' is a v3 field", t);
    for (const auto& s : m.snapshots) {
      if (s.first_row_id || s.added_rows || s.key_id) {
        return InvalidArgument("{}: snapshot {} has v3 fields (first-row-id / added-rows / key-id)",
                               t, s.snapshot_id);
      }
    }
  } else {
    // Row lineage (Iceberg spec: Row Lineage, Snapshot Row IDs): next-row-id
    // is required and lies past every snapshot's assigned range; a snapshot
    // committed before an upgrade to v3 has neither field.
    if (!m.next_row_id || *m.next_row_id < 0) {
      return InvalidArgument("{}: a format version 3 table needs 'next-row-id' (>= 0)", t);
    }
    for (const auto& s : m.snapshots) {
      if (s.first_row_id.has_value() != s.added_rows.has_value()) {
        return InvalidArgument("{}: snapshot {} has only one of first-row-id and added-rows", t, s.snapshot_id);
      }
      if (s.first_row_id && (*s.first_row_id < 0 || *s.added_rows < 0 ||
                             *s.first_row_id > *m.next_row_id - *s.added_rows)) {
        return InvalidArgument("{}: snapshot {} assigns row ids [{}, +{}) past next-row-id {}", t, s.snapshot_id,
                               *s.first_row_id, *s.added_rows, *m.next_row_id);
      }
      if (s.key_id) {
        return Unsupported("{}: snapshot {} has a key-id; floe does not write encrypted tables", t, s.snapshot_id);
      }
    }
  }
  for (const auto& s : m.schemas) {
    FLOE_RETURN_IF_ERROR(s->Validate());
    // Types the spec adds in format version 3 have no place in a v2 table.
    std::function<Status(const std::vector<NestedField>&, const std::string&)> v3_types =
        [&](const std::vector<NestedField>& fields, const std::string& prefix) -> Status {
      for (const auto& f : fields) {
        const std::string name = prefix.empty() ? f.name : prefix + "." + f.name;
        if (m.format_version < 3 && IsNanosTimestamp(f.type->id)) {
          return InvalidArgument(
              "{}: column '{}' is {}, a format version 3 type; a format version 2 table cannot hold it (use "
              "timestamp / timestamptz, microseconds, or create the table with format-version=3)",
              t, name, f.type->ToString());
        }
        FLOE_RETURN_IF_ERROR(v3_types(f.type->fields, name));
      }
      return Ok();
    };
    FLOE_RETURN_IF_ERROR(v3_types(s->fields(), ""));
    int32_t highest = s->HighestFieldId();
    if (highest > m.last_column_id) {
      return InvalidArgument("{}: schema {} uses field id {} above last-column-id {}", t,
                             s->schema_id(), highest, m.last_column_id);
    }
    if (highest > kMaxUserFieldId) {
      return InvalidArgument("{}: schema {} uses reserved field id {}", t, s->schema_id(), highest);
    }
  }
  for (const auto& [schema_id, defaults] : m.field_defaults) {
    SchemaPtr schema = m.SchemaById(schema_id);
    if (!schema) return InvalidArgument("{}: field defaults for schema {} which does not exist", t, schema_id);
    for (const auto& [field_id, d] : defaults) {
      const NestedField* field = schema->FindField(field_id);
      if (!field) {
        return InvalidArgument("{}: schema {} has no field {} for its default", t, schema_id, field_id);
      }
      for (const auto& text : {d.initial_default, d.write_default}) {
        if (!text) continue;
        ColumnVector probe(field->type);
        if (auto st = AppendJsonText(&probe, *text); !st) {
          return InvalidArgument("{}: default of field '{}': {}", t, field->name, st.error().message);
        }
      }
    }
  }
  FLOE_RETURN_IF_ERROR(m.DefaultSpec()->Validate(*m.CurrentSchema()));
  std::map<int32_t, std::pair<int32_t, std::string>> partition_ids;
  for (const auto& spec : m.specs) {
    for (const auto& f : spec.fields()) {
      if (f.field_id > m.last_partition_id) {
        return InvalidArgument("{}: partition field '{}' has id {} above last-partition-id {}", t,
                               f.name, f.field_id, m.last_partition_id);
      }
      auto key = std::make_pair(f.source_id, f.transform.ToString());
      auto [it, inserted] = partition_ids.emplace(f.field_id, key);
      if (!inserted && it->second != key) {
        return InvalidArgument(
            "{}: partition field id {} means different fields in different specs", t, f.field_id);
      }
    }
  }
  FLOE_RETURN_IF_ERROR(m.SortOrderById(m.default_sort_order_id)->Validate(*m.CurrentSchema()));
  for (const auto& s : m.snapshots) {
    std::string ctx = fmt::format("{}: snapshot {}", t, s.snapshot_id);
    if (s.snapshot_id <= 0) return InvalidArgument("{}: snapshot ids must be positive", ctx);
    if (s.manifest_list.empty()) return InvalidArgument("{}: 'manifest-list' is required", ctx);
    if (!HasScheme(s.manifest_list)) {
      return InvalidArgument("{}: manifest-list '{}' must be an absolute URI with a scheme", ctx,
                             s.manifest_list);
    }
    if (!s.operation) return InvalidArgument("{}: the summary needs an 'operation'", ctx);
    if (s.summary.contains("operation")) {
      return InvalidArgument("{}: 'operation' belongs in the operation field, not the summary map", ctx);
    }
    if (s.parent_snapshot_id && *s.parent_snapshot_id == s.snapshot_id) {
      return InvalidArgument("{}: a snapshot cannot be its own parent", ctx);
    }
    if (s.schema_id && !m.SchemaById(*s.schema_id)) {
      return InvalidArgument("{}: schema-id {} is not in 'schemas'", ctx, *s.schema_id);
    }
  }
  int64_t prev = std::numeric_limits<int64_t>::min();
  for (const auto& e : m.snapshot_log) {
    if (e.timestamp_ms < prev) return InvalidArgument("{}: 'snapshot-log' is not in time order", t);
    prev = e.timestamp_ms;
  }
  if (!m.snapshot_log.empty() && m.last_updated_ms < prev) {
    return InvalidArgument("{}: last-updated-ms {} is before the last snapshot-log entry {}", t,
                           m.last_updated_ms, prev);
  }
  prev = std::numeric_limits<int64_t>::min();
  for (const auto& e : m.metadata_log) {
    if (e.timestamp_ms < prev) return InvalidArgument("{}: 'metadata-log' is not in time order", t);
    prev = e.timestamp_ms;
  }
  if (!m.metadata_log.empty() && m.last_updated_ms < prev) {
    return InvalidArgument("{}: last-updated-ms {} is before the last metadata-log entry {}", t,
                           m.last_updated_ms, prev);
  }
  return Ok();
}

// ---------------------------------------------------------------------------
// Reading

Result<Snapshot> SnapshotFromJson(const Json& j, int32_t format_version, size_t index) {
  if (!j.is_object()) return Corrupt("snapshots[{}] must be an object", index);
  Snapshot s;
  FLOE_ASSIGN_OR_RETURN(s.snapshot_id, ji::GetSnapshotId(j, "snapshot-id", fmt::format("snapshots[{}]", index)));
  std::string ctx = fmt::format("snapshot {}", s.snapshot_id);
  FLOE_ASSIGN_OR_RETURN(s.parent_snapshot_id, ji::GetOptionalSnapshotId(j, "parent-snapshot-id", ctx));
  if (format_version >= 2) {
    FLOE_ASSIGN_OR_RETURN(s.sequence_number, ji::GetLong(j, "sequence-number", ctx));
  } else {
    FLOE_ASSIGN_OR_RETURN(auto seq, ji::GetOptionalLong(j, "sequence-number", ctx));
    s.sequence_number = seq.value_or(0);
  }
  FLOE_ASSIGN_OR_RETURN(s.timestamp_ms, ji::GetLong(j, "timestamp-ms", ctx));
  FLOE_ASSIGN_OR_RETURN(auto list, ji::GetOptionalString(j, "manifest-list", ctx));
  if (list) {
    // An empty location would read as a snapshot without manifests: an empty table.
    if (list->empty()) return Corrupt("{}: 'manifest-list' is empty", ctx);
    s.manifest_list = *list;
  } else if (const Json* manifests = ji::Find(j, "manifests"); manifests && format_version == 1) {
    if (!manifests->is_array()) return Corrupt("{}: 'manifests' must be an array", ctx);
    for (const auto& m : *manifests) {
      if (!m.is_string()) return Corrupt("{}: 'manifests' entries must be strings", ctx);
      s.manifests.push_back(m.get<std::string>());
    }
  } else {
    return Corrupt("{}: 'manifest-list' is required but missing", ctx);
  }
  FLOE_ASSIGN_OR_RETURN(s.summary, ji::GetStringMap(j, "summary", ctx));
  auto op = s.summary.find("operation");
  if (op != s.summary.end()) {
    auto parsed = ParseSnapshotOperation(op->second);
    if (!parsed) return Corrupt("{}: {}", ctx, parsed.error().message);
    s.operation = *parsed;
    s.summary.erase(op);
  } else if (format_version >= 2) {
    return Corrupt("{}: the summary has no 'operation'", ctx);
  }
  FLOE_ASSIGN_OR_RETURN(s.schema_id, ji::GetOptionalInt(j, "schema-id", ctx));
  // Row lineage and the encryption key id are v3 fields: in v1 / v2 metadata
  // they are unknown keys, ignored like any other (floe writes v2 and could
  // not write them back).
  if (format_version >= 3) {
    FLOE_ASSIGN_OR_RETURN(s.first_row_id, ji::GetOptionalLong(j, "first-row-id", ctx));
    FLOE_ASSIGN_OR_RETURN(s.added_rows, ji::GetOptionalLong(j, "added-rows", ctx));
    FLOE_ASSIGN_OR_RETURN(s.key_id, ji::GetOptionalString(j, "key-id", ctx));
  }
  return s;
}

Result<SnapshotRef> RefFromJson(const Json& j, const std::string& name) {
  std::string ctx = fmt::format("refs.{}", name);
  if (!j.is_object()) return Corrupt("{} must be an object", ctx);
  SnapshotRef ref;
  FLOE_ASSIGN_OR_RETURN(ref.snapshot_id, ji::GetSnapshotId(j, "snapshot-id", ctx));
  FLOE_ASSIGN_OR_RETURN(std::string type, ji::GetString(j, "type", ctx));
  if (type == "branch" || type == "BRANCH") {
    ref.type = SnapshotRefType::kBranch;
  } else if (type == "tag" || type == "TAG") {
    ref.type = SnapshotRefType::kTag;
  } else {
    return Corrupt("{}: 'type' must be \"branch\" or \"tag\", got \"{}\"", ctx, type);
  }
  FLOE_ASSIGN_OR_RETURN(ref.min_snapshots_to_keep, ji::GetOptionalInt(j, "min-snapshots-to-keep", ctx));
  FLOE_ASSIGN_OR_RETURN(ref.max_snapshot_age_ms, ji::GetOptionalLong(j, "max-snapshot-age-ms", ctx));
  FLOE_ASSIGN_OR_RETURN(ref.max_ref_age_ms, ji::GetOptionalLong(j, "max-ref-age-ms", ctx));
  return ref;
}

namespace {

Result<std::vector<std::string>> OpaqueList(const Json& root, std::string_view key) {
  std::vector<std::string> out;
  const Json* arr = ji::Find(root, key);
  if (!arr || arr->is_null()) return out;
  if (!arr->is_array()) return Corrupt("table metadata: '{}' must be an array", key);
  for (const auto& e : *arr) {
    FLOE_ASSIGN_OR_RETURN(std::string text, ji::Dump(e));
    out.push_back(std::move(text));
  }
  return out;
}

}  // namespace

Result<TableMetadata> TableMetadataFromJson(std::string_view json) {
  // A metadata file may be gzip-compressed (Iceberg spec: Table Metadata; App. F).
  if (json.size() >= 2 && static_cast<unsigned char>(json[0]) == 0x1f &&
      static_cast<unsigned char>(json[1]) == 0x8b) {
    Buffer inflated;
    auto st = DecompressAppend(Codec::kGzip, reinterpret_cast<const uint8_t*>(json.data()),
                               json.size(), &inflated, size_t{1} << 30);
    if (!st) return Corrupt("gzip table metadata: {}", st.error().message);
    std::string text(reinterpret_cast<const char*>(inflated.data()), inflated.size());
    if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f) {
      return Corrupt("table metadata is gzip-compressed twice");
    }
    return TableMetadataFromJson(text);
  }
  FLOE_ASSIGN_OR_RETURN(Json j, ji::Parse(json, "table metadata"));
  if (!j.is_object()) return Corrupt("table metadata must be a JSON object, got {}", ji::KindName(j));
  const std::string_view ctx = "table metadata";
  TableMetadata m;
  FLOE_ASSIGN_OR_RETURN(m.format_version, ji::GetInt(j, "format-version", ctx));
  if (m.format_version < 1) return Corrupt("table metadata: format-version {} is not valid", m.format_version);
  if (m.format_version > 3) {
    return Unsupported("table metadata: format-version {} is not supported (1, 2 and 3 are)",
                       m.format_version);
  }
  const bool v1 = m.format_version == 1;
  if (v1) {
    FLOE_ASSIGN_OR_RETURN(auto uuid, ji::GetOptionalString(j, "table-uuid", ctx));
    m.table_uuid = uuid.value_or("");
  } else {
    FLOE_ASSIGN_OR_RETURN(m.table_uuid, ji::GetString(j, "table-uuid", ctx));
  }
  FLOE_ASSIGN_OR_RETURN(m.location, ji::GetString(j, "location", ctx));
  if (v1) {
    FLOE_ASSIGN_OR_RETURN(auto seq, ji::GetOptionalLong(j, "last-sequence-number", ctx));
    m.last_sequence_number = seq.value_or(0);
  } else {
    FLOE_ASSIGN_OR_RETURN(m.last_sequence_number, ji::GetLong(j, "last-sequence-number", ctx));
  }
  FLOE_ASSIGN_OR_RETURN(m.last_updated_ms, ji::GetLong(j, "last-updated-ms", ctx));
  FLOE_ASSIGN_OR_RETURN(m.last_column_id, ji::GetInt(j, "last-column-id", ctx));

  // Schemas: `schemas` + `current-schema-id`, or v1 `schema`.
  if (const Json* schemas = ji::Find(j, "schemas"); schemas && !(v1 && schemas->is_null())) {
    if (!schemas->is_array()) return Corrupt("table metadata: 'schemas' must be an array");
    for (const auto& sj : *schemas) {
      FieldDefaults defaults;
      FLOE_ASSIGN_OR_RETURN(Schema s, SchemaFromJsonValue(sj, &defaults));
      if (!defaults.empty()) m.field_defaults[s.schema_id()] = std::move(defaults);
      m.schemas.push_back(std::make_shared<const Schema>(std::move(s)));
    }
    if (v1 && !ji::Find(j, "current-schema-id")) {
      m.current_schema_id = m.schemas.empty() ? 0 : m.schemas.back()->schema_id();
    } else {
      FLOE_ASSIGN_OR_RETURN(m.current_schema_id, ji::GetInt(j, "current-schema-id", ctx));
    }
  } else if (v1) {
    const Json* schema = ji::Find(j, "schema");
    if (!schema) return Corrupt("table metadata: v1 needs 'schema' or 'schemas'");
    FieldDefaults defaults;
    FLOE_ASSIGN_OR_RETURN(Schema s, SchemaFromJsonValue(*schema, &defaults));
    m.current_schema_id = s.schema_id();
    if (!defaults.empty()) m.field_defaults[s.schema_id()] = std::move(defaults);
    m.schemas.push_back(std::make_shared<const Schema>(std::move(s)));
  } else {
    return Corrupt("table metadata: 'schemas' is required but missing");
  }

  // Partition specs: `partition-specs` + `default-spec-id`, or v1 `partition-spec`.
  if (const Json* specs = ji::Find(j, "partition-specs"); specs && !(v1 && specs->is_null())) {
    if (!specs->is_array()) return Corrupt("table metadata: 'partition-specs' must be an array");
    for (const auto& sj : *specs) {
      FLOE_ASSIGN_OR_RETURN(PartitionSpec spec, PartitionSpecFromJsonValue(sj));
      m.specs.push_back(std::move(spec));
    }
    if (v1 && !ji::Find(j, "default-spec-id")) {
      m.default_spec_id = m.specs.empty() ? 0 : m.specs.back().spec_id();
    } else {
      FLOE_ASSIGN_OR_RETURN(m.default_spec_id, ji::GetInt(j, "default-spec-id", ctx));
    }
  } else if (v1) {
    const Json* fields = ji::Find(j, "partition-spec");
    if (!fields) return Corrupt("table metadata: v1 needs 'partition-spec' or 'partition-specs'");
    FLOE_ASSIGN_OR_RETURN(PartitionSpec spec, PartitionFieldsFromJsonValue(*fields, 0, "partition-spec"));
    m.specs.push_back(std::move(spec));
    m.default_spec_id = 0;
  } else {
    return Corrupt("table metadata: 'partition-specs' is required but missing");
  }
  if (v1) {
    FLOE_ASSIGN_OR_RETURN(auto last, ji::GetOptionalInt(j, "last-partition-id", ctx));
    int32_t computed = kUnpartitionedLastPartitionId;
    for (const auto& s : m.specs) computed = std::max(computed, s.LastAssignedFieldId());
    m.last_partition_id = last.value_or(computed);
  } else {
    FLOE_ASSIGN_OR_RETURN(m.last_partition_id, ji::GetInt(j, "last-partition-id", ctx));
  }

  // Sort orders (v1 may omit them: unsorted).
  if (const Json* orders = ji::Find(j, "sort-orders"); orders && !orders->is_null()) {
    if (!orders->is_array()) return Corrupt("table metadata: 'sort-orders' must be an array");
    for (const auto& oj : *orders) {
      FLOE_ASSIGN_OR_RETURN(SortOrder order, SortOrderFromJsonValue(oj));
      m.sort_orders.push_back(std::move(order));
    }
    FLOE_ASSIGN_OR_RETURN(m.default_sort_order_id, ji::GetInt(j, "default-sort-order-id", ctx));
  } else if (v1) {
    m.sort_orders.push_back(SortOrder::Unsorted());
    m.default_sort_order_id = 0;
  } else {
    return Corrupt("table metadata: 'sort-orders' is required but missing");
  }

  FLOE_ASSIGN_OR_RETURN(m.properties, ji::GetStringMap(j, "properties", ctx));
  FLOE_ASSIGN_OR_RETURN(m.current_snapshot_id, ji::GetOptionalSnapshotId(j, "current-snapshot-id", ctx));
  if (m.current_snapshot_id == -1) m.current_snapshot_id.reset();  // Java's "no snapshot" (App. F)

  if (const Json* snapshots = ji::Find(j, "snapshots"); snapshots && !snapshots->is_null()) {
    if (!snapshots->is_array()) return Corrupt("table metadata: 'snapshots' must be an array");
    for (size_t i = 0; i < snapshots->size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(Snapshot s, SnapshotFromJson((*snapshots)[i], m.format_version, i));
      m.snapshots.push_back(std::move(s));
    }
  }
  if (const Json* refs = ji::Find(j, "refs"); refs && !refs->is_null()) {
    if (!refs->is_object()) return Corrupt("table metadata: 'refs' must be an object");
    for (auto it = refs->begin(); it != refs->end(); ++it) {
      FLOE_ASSIGN_OR_RETURN(SnapshotRef ref, RefFromJson(*it, it.key()));
      m.refs.emplace(it.key(), ref);
    }
  }
  if (m.current_snapshot_id && !m.refs.contains(std::string(kMainBranch))) {
    // "There is always a main branch reference pointing to the
    // current-snapshot-id even if the refs map is null" (spec: Table Metadata
    // Fields): metadata written before refs existed, or whose refs map holds
    // only other refs, reads main as the current snapshot.
    SnapshotRef main;
    main.snapshot_id = *m.current_snapshot_id;
    m.refs.emplace(std::string(kMainBranch), main);
  }
  if (const Json* log = ji::Find(j, "snapshot-log"); log && !log->is_null()) {
    if (!log->is_array()) return Corrupt("table metadata: 'snapshot-log' must be an array");
    for (size_t i = 0; i < log->size(); ++i) {
      std::string where = fmt::format("snapshot-log[{}]", i);
      SnapshotLogEntry e;
      FLOE_ASSIGN_OR_RETURN(e.timestamp_ms, ji::GetLong((*log)[i], "timestamp-ms", where));
      FLOE_ASSIGN_OR_RETURN(e.snapshot_id, ji::GetSnapshotId((*log)[i], "snapshot-id", where));
      m.snapshot_log.push_back(e);
    }
  }
  if (const Json* log = ji::Find(j, "metadata-log"); log && !log->is_null()) {
    if (!log->is_array()) return Corrupt("table metadata: 'metadata-log' must be an array");
    for (size_t i = 0; i < log->size(); ++i) {
      std::string where = fmt::format("metadata-log[{}]", i);
      MetadataLogEntry e;
      FLOE_ASSIGN_OR_RETURN(e.timestamp_ms, ji::GetLong((*log)[i], "timestamp-ms", where));
      FLOE_ASSIGN_OR_RETURN(e.metadata_file, ji::GetString((*log)[i], "metadata-file", where));
      m.metadata_log.push_back(std::move(e));
    }
  }
  FLOE_ASSIGN_OR_RETURN(m.statistics, OpaqueList(j, "statistics"));
  FLOE_ASSIGN_OR_RETURN(m.partition_statistics, OpaqueList(j, "partition-statistics"));
  if (m.format_version >= 3) {  // v3 row lineage; an unknown key before v3
    FLOE_ASSIGN_OR_RETURN(m.next_row_id, ji::GetOptionalLong(j, "next-row-id", ctx));
  }
  FLOE_RETURN_IF_ERROR(m.Validate());
  return m;
}

// ---------------------------------------------------------------------------
// Writing (v2)

Json SnapshotToJson(const Snapshot& s) {
  Json j = Json::object();
  j["sequence-number"] = s.sequence_number;
  j["snapshot-id"] = s.snapshot_id;
  if (s.parent_snapshot_id) j["parent-snapshot-id"] = *s.parent_snapshot_id;
  j["timestamp-ms"] = s.timestamp_ms;
  Json summary = Json::object();
  summary["operation"] = SnapshotOperationName(*s.operation);
  for (const auto& [k, v] : s.summary) summary[k] = v;
  j["summary"] = std::move(summary);
  j["manifest-list"] = s.manifest_list;
  if (s.schema_id) j["schema-id"] = *s.schema_id;
  if (s.first_row_id) j["first-row-id"] = *s.first_row_id;
  if (s.added_rows) j["added-rows"] = *s.added_rows;
  return j;
}

Json RefToJson(const SnapshotRef& r) {
  Json j = Json::object();
  j["snapshot-id"] = r.snapshot_id;
  j["type"] = r.is_branch() ? "branch" : "tag";
  if (r.min_snapshots_to_keep) j["min-snapshots-to-keep"] = *r.min_snapshots_to_keep;
  if (r.max_snapshot_age_ms) j["max-snapshot-age-ms"] = *r.max_snapshot_age_ms;
  if (r.max_ref_age_ms) j["max-ref-age-ms"] = *r.max_ref_age_ms;
  return j;
}

Result<std::string> TableMetadataToJson(const TableMetadata& m, int indent) {
  FLOE_RETURN_IF_ERROR(ValidateForWrite(m));
  Json j = Json::object();
  j["format-version"] = m.format_version;
  j["table-uuid"] = m.table_uuid;
  j["location"] = m.location;
  j["last-sequence-number"] = m.last_sequence_number;
  j["last-updated-ms"] = m.last_updated_ms;
  j["last-column-id"] = m.last_column_id;
  j["current-schema-id"] = m.current_schema_id;
  Json schemas = Json::array();
  for (const auto& s : m.schemas) {
    auto d = m.field_defaults.find(s->schema_id());
    schemas.push_back(SchemaToJsonValue(*s, d == m.field_defaults.end() ? nullptr : &d->second));
  }
  j["schemas"] = std::move(schemas);
  j["default-spec-id"] = m.default_spec_id;
  Json specs = Json::array();
  for (const auto& s : m.specs) specs.push_back(PartitionSpecToJsonValue(s));
  j["partition-specs"] = std::move(specs);
  j["last-partition-id"] = m.last_partition_id;
  j["default-sort-order-id"] = m.default_sort_order_id;
  Json orders = Json::array();
  for (const auto& o : m.sort_orders) orders.push_back(SortOrderToJsonValue(o));
  j["sort-orders"] = std::move(orders);
  Json props = Json::object();
  for (const auto& [k, v] : m.properties) props[k] = v;
  j["properties"] = std::move(props);
  if (m.current_snapshot_id) j["current-snapshot-id"] = *m.current_snapshot_id;
  Json refs = Json::object();
  for (const auto& [name, ref] : m.refs) refs[name] = RefToJson(ref);
  j["refs"] = std::move(refs);
  Json snapshots = Json::array();
  for (const auto& s : m.snapshots) snapshots.push_back(SnapshotToJson(s));
  j["snapshots"] = std::move(snapshots);
  Json stats = Json::array();
  for (const auto& s : m.statistics) stats.push_back(Json::parse(s, nullptr, false));
  j["statistics"] = std::move(stats);
  Json pstats = Json::array();
  for (const auto& s : m.partition_statistics) pstats.push_back(Json::parse(s, nullptr, false));
  j["partition-statistics"] = std::move(pstats);
  Json slog = Json::array();
  for (const auto& e : m.snapshot_log) {
    Json ej = Json::object();
    ej["timestamp-ms"] = e.timestamp_ms;
    ej["snapshot-id"] = e.snapshot_id;
    slog.push_back(std::move(ej));
  }
  j["snapshot-log"] = std::move(slog);
  Json mlog = Json::array();
  for (const auto& e : m.metadata_log) {
    Json ej = Json::object();
    ej["timestamp-ms"] = e.timestamp_ms;
    ej["metadata-file"] = e.metadata_file;
    mlog.push_back(std::move(ej));
  }
  j["metadata-log"] = std::move(mlog);
  if (m.format_version >= 3) j["next-row-id"] = *m.next_row_id;
  return ji::Dump(j, indent);
}

// ---------------------------------------------------------------------------
// Spec check of written JSON text (independent of the reader above).

Status CheckV2MetadataJson(std::string_view json) {
  Json j = Json::parse(json.begin(), json.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return InvalidArgument("metadata is not a JSON object");
  auto need = [&](const Json& obj, std::string_view key, std::string_view what,
                  auto pred) -> Status {
    auto it = obj.find(std::string(key));
    if (it == obj.end()) return InvalidArgument("required field '{}' is missing ({})", key, what);
    if (!pred(*it)) return InvalidArgument("field '{}' must be {} ({})", key, what, it->dump());
    return Ok();
  };
  auto is_int = [](const Json& v) { return v.is_number_integer(); };
  auto is_str = [](const Json& v) { return v.is_string(); };
  auto is_arr = [](const Json& v) { return v.is_array(); };
  auto is_obj = [](const Json& v) { return v.is_object(); };
  auto is_bool = [](const Json& v) { return v.is_boolean(); };
  FLOE_RETURN_IF_ERROR(need(j, "format-version", "the integer 2 or 3", [](const Json& v) {
    return v.is_number_integer() && (v.get<int>() == 2 || v.get<int>() == 3);
  }));
  if (j["format-version"].get<int>() == 3) {
    FLOE_RETURN_IF_ERROR(need(j, "next-row-id", "a bare JSON integer (format version 3)",
                              [](const Json& v) { return v.is_number_integer(); }));
  }
  FLOE_RETURN_IF_ERROR(need(j, "table-uuid", "a uuid string",
                            [](const Json& v) { return v.is_string() && v.get<std::string>().size() == 36; }));
  FLOE_RETURN_IF_ERROR(need(j, "location", "a string", is_str));
  for (const char* key : {"last-sequence-number", "last-updated-ms", "last-column-id",
                          "current-schema-id", "default-spec-id", "last-partition-id",
                          "default-sort-order-id"}) {
    FLOE_RETURN_IF_ERROR(need(j, key, "a bare JSON integer", is_int));
  }
  for (const char* key : {"schemas", "partition-specs", "sort-orders"}) {
    FLOE_RETURN_IF_ERROR(need(j, key, "a non-empty array",
                              [](const Json& v) { return v.is_array() && !v.empty(); }));
  }
  for (const char* key : {"schema", "partition-spec"}) {
    if (j.contains(key)) return InvalidArgument("v1 field '{}' must be omitted in v2", key);
  }
  for (const auto& s : j["schemas"]) {
    FLOE_RETURN_IF_ERROR(need(s, "type", "\"struct\"", [](const Json& v) { return v == "struct"; }));
    FLOE_RETURN_IF_ERROR(need(s, "schema-id", "an integer", is_int));
    FLOE_RETURN_IF_ERROR(need(s, "fields", "an array", is_arr));
    for (const auto& f : s["fields"]) {
      FLOE_RETURN_IF_ERROR(need(f, "id", "an integer", is_int));
      FLOE_RETURN_IF_ERROR(need(f, "name", "a string", is_str));
      FLOE_RETURN_IF_ERROR(need(f, "required", "a boolean", is_bool));
      FLOE_RETURN_IF_ERROR(need(f, "type", "a type", [](const Json& v) { return v.is_string() || v.is_object(); }));
    }
  }
  bool schema_found = false;
  for (const auto& s : j["schemas"]) schema_found |= s["schema-id"] == j["current-schema-id"];
  if (!schema_found) return InvalidArgument("current-schema-id names no schema");
  bool spec_found = false;
  for (const auto& s : j["partition-specs"]) {
    FLOE_RETURN_IF_ERROR(need(s, "spec-id", "an integer", is_int));
    FLOE_RETURN_IF_ERROR(need(s, "fields", "an array", is_arr));
    spec_found |= s["spec-id"] == j["default-spec-id"];
    for (const auto& f : s["fields"]) {
      for (const char* key : {"source-id", "field-id"}) {
        FLOE_RETURN_IF_ERROR(need(f, key, "an integer", is_int));
      }
      FLOE_RETURN_IF_ERROR(need(f, "name", "a string", is_str));
      FLOE_RETURN_IF_ERROR(need(f, "transform", "a string", is_str));
      if (f["field-id"].get<int64_t>() < kFirstPartitionFieldId ||
          f["field-id"].get<int64_t>() > j["last-partition-id"].get<int64_t>()) {
        return InvalidArgument("partition field-id {} is outside 1000..last-partition-id",
                               f["field-id"].dump());
      }
    }
  }
  if (!spec_found) return InvalidArgument("default-spec-id names no spec");
  bool order_found = false;
  for (const auto& o : j["sort-orders"]) {
    FLOE_RETURN_IF_ERROR(need(o, "order-id", "an integer", is_int));
    FLOE_RETURN_IF_ERROR(need(o, "fields", "an array", is_arr));
    order_found |= o["order-id"] == j["default-sort-order-id"];
    if (o["order-id"] == 0 && !o["fields"].empty()) return InvalidArgument("order 0 must be unsorted");
    for (const auto& f : o["fields"]) {
      FLOE_RETURN_IF_ERROR(need(f, "source-id", "an integer", is_int));
      FLOE_RETURN_IF_ERROR(need(f, "transform", "a string", is_str));
      FLOE_RETURN_IF_ERROR(need(f, "direction", "asc or desc",
                                [](const Json& v) { return v == "asc" || v == "desc"; }));
      FLOE_RETURN_IF_ERROR(need(f, "null-order", "nulls-first or nulls-last",
                                [](const Json& v) { return v == "nulls-first" || v == "nulls-last"; }));
    }
  }
  if (!order_found) return InvalidArgument("default-sort-order-id names no sort order");
  std::set<int64_t> snapshot_ids;
  if (j.contains("snapshots")) {
    FLOE_RETURN_IF_ERROR(need(j, "snapshots", "an array", is_arr));
    for (const auto& s : j["snapshots"]) {
      FLOE_RETURN_IF_ERROR(need(s, "snapshot-id", "a positive integer",
                                [](const Json& v) { return v.is_number_integer() && v.get<int64_t>() > 0; }));
      for (const char* key : {"sequence-number", "timestamp-ms"}) {
        FLOE_RETURN_IF_ERROR(need(s, key, "a bare JSON integer", is_int));
      }
      if (s["sequence-number"].get<int64_t>() > j["last-sequence-number"].get<int64_t>()) {
        return InvalidArgument("snapshot {} has a sequence-number above last-sequence-number",
                               s["snapshot-id"].dump());
      }
      if (s.contains("parent-snapshot-id")) {
        FLOE_RETURN_IF_ERROR(need(s, "parent-snapshot-id", "an integer", is_int));
      }
      if (s.contains("manifests")) return InvalidArgument("v1 snapshot field 'manifests' in v2");
      FLOE_RETURN_IF_ERROR(need(s, "manifest-list", "a string", is_str));
      FLOE_RETURN_IF_ERROR(need(s, "summary", "an object", is_obj));
      FLOE_RETURN_IF_ERROR(need(s["summary"], "operation", "append, replace, overwrite or delete",
                                [](const Json& v) {
                                  return v == "append" || v == "replace" || v == "overwrite" || v == "delete";
                                }));
      for (const auto& v : s["summary"]) {
        if (!v.is_string()) return InvalidArgument("snapshot summary values must be strings");
      }
      snapshot_ids.insert(s["snapshot-id"].get<int64_t>());
    }
  }
  const Json* main = nullptr;
  if (j.contains("refs")) {
    FLOE_RETURN_IF_ERROR(need(j, "refs", "an object", is_obj));
    for (auto it = j["refs"].begin(); it != j["refs"].end(); ++it) {
      FLOE_RETURN_IF_ERROR(need(*it, "snapshot-id", "an integer", is_int));
      FLOE_RETURN_IF_ERROR(need(*it, "type", "branch or tag",
                                [](const Json& v) { return v == "branch" || v == "tag"; }));
      if (!snapshot_ids.contains((*it)["snapshot-id"].get<int64_t>())) {
        return InvalidArgument("ref '{}' names a snapshot that is not in 'snapshots'", it.key());
      }
      if (it.key() == "main") main = &*it;
    }
  }
  if (j.contains("current-snapshot-id")) {
    FLOE_RETURN_IF_ERROR(need(j, "current-snapshot-id", "an integer", is_int));
    if (!main || (*main)["snapshot-id"] != j["current-snapshot-id"]) {
      return InvalidArgument("current-snapshot-id does not equal refs.main.snapshot-id");
    }
  } else if (main) {
    return InvalidArgument("refs.main is set but current-snapshot-id is omitted");
  }
  for (const char* log : {"snapshot-log", "metadata-log"}) {
    if (!j.contains(log)) continue;
    int64_t prev = std::numeric_limits<int64_t>::min();
    for (const auto& e : j[log]) {
      FLOE_RETURN_IF_ERROR(need(e, "timestamp-ms", "an integer", is_int));
      int64_t ts = e["timestamp-ms"].get<int64_t>();
      if (ts < prev) return InvalidArgument("'{}' is not in ascending time order", log);
      if (ts > j["last-updated-ms"].get<int64_t>()) {
        return InvalidArgument("'{}' has an entry after last-updated-ms", log);
      }
      prev = ts;
    }
  }
  return Ok();
}

// ---------------------------------------------------------------------------
// Building metadata for commits.

namespace {

// floe::RandomU64 reseeds after fork(), so processes never share ids.
void RandomUuidBits(uint64_t* msb, uint64_t* lsb) {
  *msb = RandomU64();
  *lsb = RandomU64();
  *msb = (*msb & ~0xF000ULL) | 0x4000ULL;                            // version 4
  *lsb = (*lsb & ~0xC000000000000000ULL) | 0x8000000000000000ULL;  // IETF variant
}

// Java's TypeUtil.assignFreshIds order: a struct's fields take ids first, then
// each field's nested type is numbered, recursively.
TypePtr FreshType(const Type& type, int32_t* next, std::map<int32_t, int32_t>* ids);

std::vector<NestedField> FreshFields(const std::vector<NestedField>& fields, int32_t* next,
                                     std::map<int32_t, int32_t>* ids) {
  std::vector<NestedField> out = fields;
  for (auto& f : out) {
    int32_t id = (*next)++;
    (*ids)[f.id] = id;
    f.id = id;
  }
  for (auto& f : out) f.type = FreshType(*f.type, next, ids);
  return out;
}

TypePtr FreshType(const Type& type, int32_t* next, std::map<int32_t, int32_t>* ids) {
  switch (type.id) {
    case TypeId::kStruct: return StructType(FreshFields(type.fields, next, ids));
    case TypeId::kList: {
      int32_t id = (*next)++;
      (*ids)[type.element().id] = id;
      return ListType(id, type.element().required, FreshType(*type.element().type, next, ids));
    }
    case TypeId::kMap: {
      int32_t key_id = (*next)++;
      int32_t value_id = (*next)++;
      (*ids)[type.key().id] = key_id;
      (*ids)[type.value().id] = value_id;
      return MapType(key_id, FreshType(*type.key().type, next, ids), value_id,
                     type.value().required, FreshType(*type.value().type, next, ids));
    }
    default: return std::make_shared<const Type>(type);
  }
}

}  // namespace

std::string NewUuid() {
  uint64_t msb, lsb;
  RandomUuidBits(&msb, &lsb);
  std::string bytes(16, '\0');
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<char>(msb >> (56 - 8 * i));
    bytes[8 + i] = static_cast<char>(lsb >> (56 - 8 * i));
  }
  return FormatUuid(bytes);
}

int64_t NewSnapshotId() {
  uint64_t msb, lsb;
  RandomUuidBits(&msb, &lsb);
  int64_t id = static_cast<int64_t>((msb ^ lsb) & 0x7FFFFFFFFFFFFFFFULL);
  return id == 0 ? 1 : id;
}

Result<TableMetadata> NewTableMetadata(const NewTableOptions& o) {
  FLOE_RETURN_IF_ERROR(o.schema.Validate());
  FLOE_RETURN_IF_ERROR(o.spec.Validate(o.schema));
  FLOE_RETURN_IF_ERROR(o.sort_order.is_unsorted() ? Status(Ok())
                                                  : SortOrder(1, o.sort_order.fields()).Validate(o.schema));
  std::map<int32_t, int32_t> ids;
  int32_t next = 1;
  std::vector<NestedField> fields = FreshFields(o.schema.fields(), &next, &ids);
  std::vector<int32_t> identifiers;
  for (int32_t id : o.schema.identifier_field_ids()) identifiers.push_back(ids.at(id));
  auto schema = std::make_shared<const Schema>(std::move(fields), 0, std::move(identifiers));

  std::vector<PartitionField> spec_fields;
  int32_t partition_id = kFirstPartitionFieldId;
  for (const auto& f : o.spec.fields()) {
    spec_fields.push_back({ids.at(f.source_id), partition_id++, f.name, f.transform});
  }
  std::vector<SortField> sort_fields;
  for (const auto& f : o.sort_order.fields()) {
    SortField sf = f;
    sf.source_id = ids.at(f.source_id);
    sort_fields.push_back(sf);
  }

  if (o.format_version != 2 && o.format_version != 3) {
    return Unsupported("floe creates format version 2 and 3 tables, not {}", o.format_version);
  }
  TableMetadata m;
  m.format_version = o.format_version;
  if (m.format_version >= 3) m.next_row_id = 0;
  m.table_uuid = o.table_uuid.empty() ? NewUuid() : o.table_uuid;
  m.location = o.location;
  while (m.location.size() > 1 && m.location.back() == '/') m.location.pop_back();
  m.last_sequence_number = 0;
  m.last_updated_ms = o.now_ms;
  m.last_column_id = next - 1;
  m.schemas.push_back(schema);
  m.current_schema_id = 0;
  m.specs.push_back(PartitionSpec(0, std::move(spec_fields)));
  m.default_spec_id = 0;
  m.last_partition_id = m.specs[0].LastAssignedFieldId();
  m.sort_orders.push_back(SortOrder::Unsorted());
  if (!sort_fields.empty()) m.sort_orders.push_back(SortOrder(1, std::move(sort_fields)));
  m.default_sort_order_id = m.sort_orders.size() > 1 ? 1 : 0;
  m.properties = o.properties;
  FLOE_RETURN_IF_ERROR(ValidateForWrite(m));
  return m;
}

Status AddSnapshot(TableMetadata* m, Snapshot snapshot, int64_t now_ms, std::string_view branch) {
  std::string ctx = fmt::format("table {}: snapshot {}", m->location, snapshot.snapshot_id);
  if (snapshot.snapshot_id <= 0) return InvalidArgument("{}: snapshot ids must be positive", ctx);
  if (m->SnapshotById(snapshot.snapshot_id)) return AlreadyExists("{}: the id is already used", ctx);
  if (snapshot.sequence_number != m->last_sequence_number + 1) {
    return InvalidArgument("{}: sequence number {} is not last-sequence-number + 1 ({})", ctx,
                           snapshot.sequence_number, m->last_sequence_number + 1);
  }
  if (!snapshot.operation) return InvalidArgument("{}: the summary needs an operation", ctx);
  auto ref = m->refs.find(std::string(branch));
  if (ref != m->refs.end() && !ref->second.is_branch()) {
    return InvalidArgument("{}: '{}' is a tag, not a branch", ctx, branch);
  }
  std::optional<int64_t> head;
  if (ref != m->refs.end()) head = ref->second.snapshot_id;
  if (ref == m->refs.end()) {
    // A new branch starts from any existing snapshot (or from nothing).
    if (snapshot.parent_snapshot_id && !m->SnapshotById(*snapshot.parent_snapshot_id)) {
      return InvalidArgument("{}: parent {} does not exist", ctx, *snapshot.parent_snapshot_id);
    }
  } else if (snapshot.parent_snapshot_id != head) {
    return InvalidArgument("{}: parent {} is not the head of branch '{}' ({})", ctx,
                           snapshot.parent_snapshot_id ? std::to_string(*snapshot.parent_snapshot_id) : "none",
                           branch, head ? std::to_string(*head) : "none");
  }
  if (!snapshot.schema_id) snapshot.schema_id = m->current_schema_id;
  if (m->format_version >= 3) {
    // Iceberg spec: Snapshot Row IDs. The snapshot's range starts at the
    // table's next-row-id, which moves past it (whatever the branch).
    if (!snapshot.first_row_id || !snapshot.added_rows || *snapshot.added_rows < 0) {
      return InvalidArgument("{}: a format version 3 snapshot needs first-row-id and added-rows", ctx);
    }
    if (*snapshot.first_row_id != m->next_row_id.value_or(0)) {
      return InvalidArgument("{}: first-row-id {} is not the table's next-row-id {}", ctx, *snapshot.first_row_id,
                             m->next_row_id.value_or(0));
    }
    m->next_row_id = *snapshot.first_row_id + *snapshot.added_rows;
  } else if (snapshot.first_row_id || snapshot.added_rows) {
    return InvalidArgument("{}: first-row-id and added-rows are format version 3 fields", ctx);
  }
  const int64_t id = snapshot.snapshot_id;
  const int64_t ts = snapshot.timestamp_ms;
  m->last_sequence_number = snapshot.sequence_number;
  m->snapshots.push_back(std::move(snapshot));
  if (ref == m->refs.end()) {
    SnapshotRef r;
    r.snapshot_id = id;
    m->refs.emplace(std::string(branch), r);
  } else {
    ref->second.snapshot_id = id;
  }
  m->last_updated_ms = std::max({m->last_updated_ms, now_ms, ts});
  if (branch == kMainBranch) {
    m->current_snapshot_id = id;
    m->snapshot_log.push_back({std::max(ts, m->snapshot_log.empty() ? ts : m->snapshot_log.back().timestamp_ms), id});
  }
  return Ok();
}

void AddMetadataLogEntry(TableMetadata* m, std::string previous_metadata_file,
                         int64_t previous_last_updated_ms, size_t max_entries) {
  m->metadata_log.push_back({previous_last_updated_ms, std::move(previous_metadata_file)});
  if (m->metadata_log.size() > max_entries) {
    m->metadata_log.erase(m->metadata_log.begin(),
                          m->metadata_log.begin() + static_cast<std::ptrdiff_t>(m->metadata_log.size() - max_entries));
  }
}

}  // namespace floe::iceberg
