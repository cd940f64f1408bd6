// Manifests and manifest lists as Avro files (Iceberg spec: Manifests,
// Manifest Lists, Sequence Number Inheritance, Appendix A and E). See
// manifest_io.h for the conventions.
#include "floe/iceberg/manifest_io.h"

#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <utility>

#include "floe/avro/container.h"
#include "floe/avro/iceberg_schema.h"
#include "floe/avro/schema.h"
#include "floe/avro/value.h"
#include "floe/iceberg/schema_json.h"
#include "floe/iceberg/value.h"

namespace floe::iceberg {
namespace {

using avro::AvroType;
using AvroValue = avro::Value;
using avro::NodePtr;
using Kind = AvroValue::Kind;

// ------------------------------------------------------------ field ids

// manifest_entry (Iceberg spec: Manifest Entry Fields).
constexpr int32_t kStatus = 0, kSnapshotId = 1, kDataFile = 2, kSequenceNumber = 3, kFileSequenceNumber = 4;
// data_file (Iceberg spec: Data File Fields).
constexpr int32_t kContent = 134, kFilePath = 100, kFileFormat = 101, kPartition = 102, kRecordCount = 103,
                  kFileSize = 104, kColumnSizes = 108, kValueCounts = 109, kNullValueCounts = 110,
                  kNanValueCounts = 137, kLowerBounds = 125, kUpperBounds = 128, kKeyMetadata = 131,
                  kSplitOffsets = 132, kEqualityIds = 135, kSortOrderId = 140, kFirstRowId = 142,
                  kReferencedDataFile = 143, kContentOffset = 144, kContentSize = 145;
// manifest_file (Iceberg spec: Manifest Lists).
constexpr int32_t kManifestPath = 500, kManifestLength = 501, kSpecId = 502, kAddedSnapshotId = 503,
                  kAddedFiles = 504, kExistingFiles = 505, kDeletedFiles = 506, kPartitions = 507,
                  kPartitionSummary = 508, kContainsNull = 509, kLowerBound = 510, kUpperBound = 511,
                  kAddedRows = 512, kExistingRows = 513, kDeletedRows = 514, kListSequenceNumber = 515,
                  kMinSequenceNumber = 516, kListContent = 517, kContainsNan = 518, kListKeyMetadata = 519,
                  kListFirstRowId = 520;

NestedField Req(int32_t id, std::string name, TypePtr type) { return NestedField{id, std::move(name), true, type, {}}; }
NestedField Opt(int32_t id, std::string name, TypePtr type) { return NestedField{id, std::move(name), false, type, {}}; }
TypePtr IntLongMap(int32_t kid, int32_t vid) { return MapType(kid, IntType(), vid, true, LongType()); }
TypePtr IntBinaryMap(int32_t kid, int32_t vid) { return MapType(kid, IntType(), vid, true, BinaryType()); }

/// The v2 or v3 manifest_entry struct for a partition type (field order as
/// Java writes it).
TypePtr ManifestEntryType(const TypePtr& partition_type, int32_t format_version) {
  std::vector<NestedField> fields = {
      Req(kContent, "content", IntType()),
      Req(kFilePath, "file_path", StringType()),
      Req(kFileFormat, "file_format", StringType()),
      Req(kPartition, "partition", partition_type),
      Req(kRecordCount, "record_count", LongType()),
      Req(kFileSize, "file_size_in_bytes", LongType()),
      Opt(kColumnSizes, "column_sizes", IntLongMap(117, 118)),
      Opt(kValueCounts, "value_counts", IntLongMap(119, 120)),
      Opt(kNullValueCounts, "null_value_counts", IntLongMap(121, 122)),
      Opt(kNanValueCounts, "nan_value_counts", IntLongMap(138, 139)),
      Opt(kLowerBounds, "lower_bounds", IntBinaryMap(126, 127)),
      Opt(kUpperBounds, "upper_bounds", IntBinaryMap(129, 130)),
      Opt(kKeyMetadata, "key_metadata", BinaryType()),
      Opt(kSplitOffsets, "split_offsets", ListType(133, true, LongType())),
      Opt(kEqualityIds, "equality_ids", ListType(136, true, IntType())),
      Opt(kSortOrderId, "sort_order_id", IntType()),
  };
  if (format_version >= 3) fields.push_back(Opt(kFirstRowId, "first_row_id", LongType()));
  fields.push_back(Opt(kReferencedDataFile, "referenced_data_file", StringType()));
  if (format_version >= 3) {
    fields.push_back(Opt(kContentOffset, "content_offset", LongType()));
    fields.push_back(Opt(kContentSize, "content_size_in_bytes", LongType()));
  }
  TypePtr data_file = StructType(std::move(fields));
  return StructType({
      Req(kStatus, "status", IntType()),
      Opt(kSnapshotId, "snapshot_id", LongType()),
      Opt(kSequenceNumber, "sequence_number", LongType()),
      Opt(kFileSequenceNumber, "file_sequence_number", LongType()),
      Req(kDataFile, "data_file", data_file),
  });
}

/// The v2 or v3 manifest_file struct. The count names are the spec's
/// (`added_files_count`); Java still writes the v1 names
/// (`added_data_files_count`), which readers resolve by field id.
TypePtr ManifestFileType(int32_t format_version) {
  TypePtr summary = StructType({
      Req(kContainsNull, "contains_null", BooleanType()),
      Opt(kContainsNan, "contains_nan", BooleanType()),
      Opt(kLowerBound, "lower_bound", BinaryType()),
      Opt(kUpperBound, "upper_bound", BinaryType()),
  });
  std::vector<NestedField> fields = {
      Req(kManifestPath, "manifest_path", StringType()),
      Req(kManifestLength, "manifest_length", LongType()),
      Req(kSpecId, "partition_spec_id", IntType()),
      Req(kListContent, "content", IntType()),
      Req(kListSequenceNumber, "sequence_number", LongType()),
      Req(kMinSequenceNumber, "min_sequence_number", LongType()),
      Req(kAddedSnapshotId, "added_snapshot_id", LongType()),
      Req(kAddedFiles, "added_files_count", IntType()),
      Req(kExistingFiles, "existing_files_count", IntType()),
      Req(kDeletedFiles, "deleted_files_count", IntType()),
      Req(kAddedRows, "added_rows_count", LongType()),
      Req(kExistingRows, "existing_rows_count", LongType()),
      Req(kDeletedRows, "deleted_rows_count", LongType()),
      Opt(kPartitions, "partitions", ListType(kPartitionSummary, true, summary)),
      Opt(kListKeyMetadata, "key_metadata", BinaryType()),
  };
  if (format_version >= 3) fields.push_back(Opt(kListFirstRowId, "first_row_id", LongType()));
  return StructType(std::move(fields));
}

Status CheckWriteVersion(int32_t format_version, std::string_view what, const std::string& path) {
  if (format_version != 2 && format_version != 3) {
    return Unsupported("{} {}: floe writes format versions 2 and 3, not {}", what, path, format_version);
  }
  return Ok();
}

/// The record node inside an optional or required field type.
const NodePtr& Unwrapped(const NodePtr& n) {
  if (n->type == AvroType::kUnion) {
    auto b = n->OptionalBranch();
    if (b) return n->branches[*b];
  }
  return n;
}

avro::WriterOptions ToWriterOptions(const ManifestWriteOptions& o) {
  avro::WriterOptions w;
  w.codec = o.codec;
  w.level = o.level;
  w.sync_marker = o.sync_marker;
  return w;
}

// ------------------------------------------------- value conversions

/// 10^P by precision 0..38, in exact integer arithmetic.
const std::array<unsigned __int128, 39>& Pow10Table() {
  static const auto kTable = [] {
    std::array<unsigned __int128, 39> t{};
    unsigned __int128 p = 1;
    for (auto& v : t) {
      v = p;
      p *= 10;
    }
    return t;
  }();
  return kTable;
}

/// A partition value as the Avro value of its field (Appendix A).
Result<AvroValue> ToAvroValue(const Type& type, const Value& v) {
  if (v.is_null()) return AvroValue::Null();
  if (!v.Matches(type)) return InvalidArgument("value does not match partition type {}", type.ToString());
  switch (type.id) {
    case TypeId::kBoolean: return AvroValue::Boolean(v.as_bool());
    case TypeId::kInt:
    case TypeId::kDate: return AvroValue::Int(v.as_int());
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: return AvroValue::Long(v.as_long());
    case TypeId::kFloat: return AvroValue::Float(v.as_float());
    case TypeId::kDouble: return AvroValue::Double(v.as_double());
    case TypeId::kString: return AvroValue::String(v.as_bytes());
    case TypeId::kBinary: return AvroValue::Bytes(v.as_bytes());
    case TypeId::kFixed:
    case TypeId::kUuid: return AvroValue::Fixed(v.as_bytes());
    case TypeId::kDecimal: {
      // Fixed of the minimum width for the precision, big-endian two's complement.
      if (type.precision < 1 || type.precision > 38) return InvalidArgument("invalid {}", type.ToString());
      int32_t width = DecimalRequiredBytes(type.precision);
      int128_t u = v.as_decimal();
      auto limit = static_cast<int128_t>(Pow10Table()[type.precision]);
      if (u >= limit || u <= -limit) {
        return InvalidArgument("decimal value does not fit {}", type.ToString());
      }
      std::string bytes(static_cast<size_t>(width), '\0');
      auto bits = static_cast<unsigned __int128>(u);
      for (int i = width - 1; i >= 0; --i) {
        bytes[static_cast<size_t>(i)] = static_cast<char>(static_cast<uint8_t>(bits & 0xff));
        bits >>= 8;
      }
      return AvroValue::Fixed(std::move(bytes));
    }
    default: return InvalidArgument("partition type {} is not primitive", type.ToString());
  }
}

/// An Avro value read from a partition field as a value of `type`, accepting
/// the promotions of schema evolution and older writers' encodings.
Result<Value> FromAvroValue(const Type& type, const AvroValue& v) {
  if (v.is_null()) return Value::Null();
  auto wrong = [&]() {
    return Corrupt("a {} value cannot be read as {}", AvroValue::KindName(v.kind()), type.ToString());
  };
  bool integral = v.kind() == Kind::kInt || v.kind() == Kind::kLong;
  bool bytes = v.kind() == Kind::kBytes || v.kind() == Kind::kString || v.kind() == Kind::kFixed;
  switch (type.id) {
    case TypeId::kBoolean:
      if (v.kind() != Kind::kBoolean) return wrong();
      return Value::Boolean(v.boolean());
    case TypeId::kInt:
    case TypeId::kDate:
      if (!integral || v.long_value() < INT32_MIN || v.long_value() > INT32_MAX) return wrong();
      return Value::Int(static_cast<int32_t>(v.long_value()));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      if (!integral) return wrong();
      return Value::Long(v.long_value());
    case TypeId::kFloat:
      if (v.kind() != Kind::kFloat) return wrong();
      return Value::Float(v.float_value());
    case TypeId::kDouble:
      if (v.kind() == Kind::kFloat) return Value::Double(static_cast<double>(v.float_value()));
      if (v.kind() != Kind::kDouble) return wrong();
      return Value::Double(v.double_value());
    case TypeId::kString:
    case TypeId::kBinary:
      if (!bytes) return wrong();
      return Value::Bytes(v.bytes());
    case TypeId::kFixed:
      if (!bytes || static_cast<int32_t>(v.bytes().size()) != type.length) return wrong();
      return Value::Bytes(v.bytes());
    case TypeId::kUuid:
      if (v.kind() == Kind::kString && v.bytes().size() == 36) {
        // Some writers store a uuid partition value as its text.
        FLOE_ASSIGN_OR_RETURN(std::string b, ParseUuid(v.bytes()));
        return Value::Bytes(std::move(b));
      }
      if (!bytes || v.bytes().size() != 16) return wrong();
      return Value::Bytes(v.bytes());
    case TypeId::kDecimal: {
      if (v.kind() != Kind::kFixed && v.kind() != Kind::kBytes) return wrong();
      const std::string& b = v.bytes();
      if (b.empty() || b.size() > 16) return Corrupt("decimal of {} bytes", b.size());
      unsigned __int128 bits = (static_cast<uint8_t>(b[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
      for (char c : b) bits = (bits << 8) | static_cast<uint8_t>(c);
      return Value::Decimal(static_cast<int128_t>(bits));
    }
    default: return wrong();
  }
}

// ------------------------------------------------ partition summaries

/// -1, 0, 1 ordering of two non-null, non-NaN values of one primitive type
/// (Iceberg spec: bounds order; -0.0 before +0.0; strings and bytes unsigned).
int CompareValues(const Value& a, const Value& b) {
  return std::visit(
      [&](const auto& x) -> int {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return 0;
        } else {
          const T& y = std::get<T>(b.v);
          if constexpr (std::is_floating_point_v<T>) {
            if (x == y && x == 0) return static_cast<int>(std::signbit(y)) - static_cast<int>(std::signbit(x));
          }
          if constexpr (std::is_same_v<T, std::string>) {
            int c = x.compare(y);  // char_traits<char> compares as unsigned char
            return c < 0 ? -1 : c > 0 ? 1 : 0;
          } else {
            return x < y ? -1 : y < x ? 1 : 0;
          }
        }
      },
      a.v);
}

bool IsNan(const Value& v) {
  if (auto* f = std::get_if<float>(&v.v)) return std::isnan(*f);
  if (auto* d = std::get_if<double>(&v.v)) return std::isnan(*d);
  return false;
}

/// Running summary of one partition field (manifest_file.partitions).
struct FieldSummary {
  bool contains_null = false;
  bool contains_nan = false;
  std::optional<Value> lower;
  std::optional<Value> upper;

  void Update(const Value& v) {
    if (v.is_null()) {
      contains_null = true;
    } else if (IsNan(v)) {
      contains_nan = true;
    } else {
      if (!lower || CompareValues(v, *lower) < 0) lower = v;
      if (!upper || CompareValues(v, *upper) > 0) upper = v;
    }
  }
};

// ----------------------------------------------------- reading helpers

/// Field lookup by Iceberg field id in decoded records, by name when the
/// writer left ids out. Indexes are built once per schema node.
class FieldFinder {
 public:
  /// The value of field `id` (or named `name`) of `record`, or nullptr.
  const AvroValue* Find(const AvroValue& record, int32_t id, std::string_view name) {
    const NodePtr& node = record.record_schema();
    if (!node || record.kind() != Kind::kRecord) return nullptr;
    auto it = index_.find(node.get());
    if (it == index_.end()) {
      Index idx;
      for (size_t i = 0; i < node->fields.size(); ++i) {
        const auto& f = node->fields[i];
        if (auto fid = f.field_id()) idx.by_id.emplace(*fid, static_cast<int>(i));
        idx.by_name.emplace(f.name, static_cast<int>(i));
      }
      it = index_.emplace(node.get(), std::move(idx)).first;
    }
    const Index& idx = it->second;
    int pos = -1;
    if (auto i = idx.by_id.find(id); i != idx.by_id.end()) {
      pos = i->second;
    } else if (auto n = idx.by_name.find(std::string(name)); n != idx.by_name.end() &&
                                                            !node->fields[static_cast<size_t>(n->second)].field_id()) {
      pos = n->second;
    }
    if (pos < 0 || static_cast<size_t>(pos) >= record.children().size()) return nullptr;
    return &record.children()[static_cast<size_t>(pos)];
  }

 private:
  struct Index {
    std::map<int32_t, int> by_id;
    std::map<std::string, int> by_name;
  };
  std::map<const avro::Node*, Index> index_;
};

/// Does the record node (or the record inside an optional) have field `id` / `name`?
bool HasField(const avro::Node& record, int32_t id, std::string_view name) {
  for (const auto& f : record.fields) {
    auto fid = f.field_id();
    if (fid ? *fid == id : f.name == name) return true;
  }
  return false;
}

/// Typed accessors that name the field on error.
class RecordReader {
 public:
  RecordReader(FieldFinder* finder, const AvroValue& record, std::string context)
      : finder_(finder), record_(record), context_(std::move(context)) {}

  const AvroValue* Get(int32_t id, std::string_view name) const { return finder_->Find(record_, id, name); }

  Result<std::optional<int64_t>> OptLong(int32_t id, std::string_view name) const {
    const AvroValue* v = Get(id, name);
    if (!v || v->is_null()) return std::optional<int64_t>();
    if (v->kind() != Kind::kInt && v->kind() != Kind::kLong) return Bad(id, name, "an integer", *v);
    return std::optional<int64_t>(v->long_value());
  }
  Result<int64_t> ReqLong(int32_t id, std::string_view name) const {
    FLOE_ASSIGN_OR_RETURN(auto v, OptLong(id, name));
    if (!v) return Missing(id, name);
    return *v;
  }
  Result<std::optional<int32_t>> OptInt(int32_t id, std::string_view name) const {
    FLOE_ASSIGN_OR_RETURN(auto v, OptLong(id, name));
    if (!v) return std::optional<int32_t>();
    if (*v < INT32_MIN || *v > INT32_MAX) {
      return Corrupt("{}: field {} (id {}) value {} is out of the int range", context_, name, id, *v);
    }
    return std::optional<int32_t>(static_cast<int32_t>(*v));
  }
  Result<int32_t> ReqInt(int32_t id, std::string_view name) const {
    FLOE_ASSIGN_OR_RETURN(auto v, OptInt(id, name));
    if (!v) return Missing(id, name);
    return *v;
  }
  Result<std::optional<std::string>> OptBytes(int32_t id, std::string_view name) const {
    const AvroValue* v = Get(id, name);
    if (!v || v->is_null()) return std::optional<std::string>();
    if (v->kind() != Kind::kBytes && v->kind() != Kind::kString && v->kind() != Kind::kFixed) {
      return Bad(id, name, "bytes or a string", *v);
    }
    return std::optional<std::string>(v->bytes());
  }
  Result<std::string> ReqString(int32_t id, std::string_view name) const {
    FLOE_ASSIGN_OR_RETURN(auto v, OptBytes(id, name));
    if (!v) return Missing(id, name);
    return std::move(*v);
  }
  Result<std::optional<bool>> OptBool(int32_t id, std::string_view name) const {
    const AvroValue* v = Get(id, name);
    if (!v || v->is_null()) return std::optional<bool>();
    if (v->kind() != Kind::kBoolean) return Bad(id, name, "a boolean", *v);
    return std::optional<bool>(v->boolean());
  }
  /// An int-keyed map (array of key/value records, or an Avro map with numeric keys).
  template <typename T>
  Status IntMap(int32_t id, std::string_view name, std::map<int32_t, T>* out) const {
    const AvroValue* v = Get(id, name);
    if (!v || v->is_null()) return Ok();
    if (v->kind() != Kind::kArray) return Bad(id, name, "an array of key/value records", *v);
    for (const auto& item : v->children()) {
      if (item.kind() != Kind::kRecord || item.children().size() != 2) {
        return Bad(id, name, "key/value records", item);
      }
      const AvroValue& k = item.children()[0];
      const AvroValue& val = item.children()[1];
      if (k.kind() != Kind::kInt && k.kind() != Kind::kLong) return Bad(id, name, "int keys", k);
      if (k.long_value() < INT32_MIN || k.long_value() > INT32_MAX) return Bad(id, name, "int keys", k);
      if constexpr (std::is_same_v<T, int64_t>) {
        if (val.kind() != Kind::kInt && val.kind() != Kind::kLong) return Bad(id, name, "long values", val);
        (*out)[static_cast<int32_t>(k.long_value())] = val.long_value();
      } else {
        if (val.kind() != Kind::kBytes && val.kind() != Kind::kString && val.kind() != Kind::kFixed) {
          return Bad(id, name, "bytes values", val);
        }
        (*out)[static_cast<int32_t>(k.long_value())] = val.bytes();
      }
    }
    return Ok();
  }
  template <typename T>
  Status List(int32_t id, std::string_view name, std::vector<T>* out) const {
    const AvroValue* v = Get(id, name);
    if (!v || v->is_null()) return Ok();
    if (v->kind() != Kind::kArray) return Bad(id, name, "an array", *v);
    for (const auto& item : v->children()) {
      if (item.kind() != Kind::kInt && item.kind() != Kind::kLong) return Bad(id, name, "integer elements", item);
      if constexpr (std::is_same_v<T, int32_t>) {
        if (item.long_value() < INT32_MIN || item.long_value() > INT32_MAX) {
          return Bad(id, name, "int elements", item);
        }
      }
      out->push_back(static_cast<T>(item.long_value()));
    }
    return Ok();
  }

  std::unexpected<Error> Missing(int32_t id, std::string_view name) const {
    return Corrupt("{}: required field {} (id {}) is missing or null", context_, name, id);
  }
  std::unexpected<Error> Bad(int32_t id, std::string_view name, std::string_view want, const AvroValue& v) const {
    return Corrupt("{}: field {} (id {}) holds a {} value, expected {}", context_, name, id,
                   AvroValue::KindName(v.kind()), want);
  }
  const std::string& context() const { return context_; }

 private:
  FieldFinder* finder_;
  const AvroValue& record_;
  std::string context_;
};

/// A non-owning InputFile over a caller's file (ContainerReader owns its input).
class InputFileRef : public InputFile {
 public:
  explicit InputFileRef(const InputFile& f) : f_(f) {}
  int64_t Size() const override { return f_.Size(); }
  Status ReadAt(int64_t offset, size_t size, uint8_t* out) const override { return f_.ReadAt(offset, size, out); }
  const std::string& path() const override { return f_.path(); }

 private:
  const InputFile& f_;
};

Error AsCorrupt(Error e, std::string_view context) {
  if (e.kind != ErrorKind::kIo) e.kind = ErrorKind::kCorrupt;
  return std::move(e).WithContext(context);
}

Result<std::unique_ptr<avro::ContainerReader>> OpenAvro(const InputFile& file, std::string_view what) {
  auto r = avro::ContainerReader::Open(std::make_unique<InputFileRef>(file));
  if (!r) return Fail(AsCorrupt(std::move(r).error(), fmt::format("{} {}", what, file.path())));
  if (!r.value()->writer_schema().root() || r.value()->writer_schema().root()->type != AvroType::kRecord) {
    return Corrupt("{} {}: the Avro schema is not a record", what, file.path());
  }
  return std::move(r).value();
}

Result<std::optional<int64_t>> HeaderLong(const avro::ContainerReader& reader, std::string_view key,
                                          std::string_view what, const std::string& path) {
  auto text = reader.metadata(key);
  if (!text || *text == "null") return std::optional<int64_t>();
  int64_t v = 0;
  auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec == std::errc::result_out_of_range) {
    // As in table metadata (json_internal.h, AsSnapshotId): a long or nothing.
    return Corrupt("{} {}: header key {} is {}, which does not fit a long (a 64-bit signed integer)", what, path,
                   key, *text);
  }
  if (ec != std::errc() || p != text->data() + text->size()) {
    return Corrupt("{} {}: header key {} is \"{}\", not an integer", what, path, key, *text);
  }
  return std::optional<int64_t>(v);
}

}  // namespace

// ================================================================ ManifestWriter

struct ManifestWriter::State {
  std::unique_ptr<avro::ContainerWriter> writer;
  std::string path;
  PartitionSpec spec;
  TypePtr partition_type;
  ManifestContent content = ManifestContent::kData;
  int64_t snapshot_id = kUnassigned;
  NodePtr data_file_node;
  NodePtr partition_node;
  ManifestCounts counts;
  std::optional<int64_t> min_explicit_sequence;
  std::vector<FieldSummary> summaries;
  int32_t format_version = 2;
  bool closed = false;
};

ManifestWriter::ManifestWriter(std::unique_ptr<State> state) : state_(std::move(state)) {}
ManifestWriter::~ManifestWriter() = default;

int64_t ManifestWriter::entry_count() const { return state_->writer ? state_->writer->count() : 0; }

Result<std::unique_ptr<ManifestWriter>> ManifestWriter::Open(std::unique_ptr<OutputFile> file, const Schema& schema,
                                                             const PartitionSpec& spec, ManifestContent content,
                                                             int64_t snapshot_id,
                                                             const ManifestWriteOptions& options) {
  if (!file) return InvalidArgument("manifest writer: no output file");
  std::string path = file->path();
  auto ctx = [&](Error e) { return Fail(std::move(e).WithContext(fmt::format("manifest {}", path))); };
  if (snapshot_id < 0 && snapshot_id != kUnassigned) {
    return InvalidArgument("manifest {}: snapshot id {} is negative", path, snapshot_id);
  }
  FLOE_RETURN_IF_ERROR(CheckWriteVersion(options.format_version, "manifest", path));
  auto partition_type = spec.PartitionType(schema);
  if (!partition_type) return ctx(std::move(partition_type).error());
  auto avro_schema =
      avro::StructToAvroSchema(*ManifestEntryType(*partition_type, options.format_version), "manifest_entry");
  if (!avro_schema) return ctx(std::move(avro_schema).error());
  auto schema_json = SchemaToJson(schema);
  if (!schema_json) return ctx(std::move(schema_json).error());
  auto spec_json = PartitionFieldsToJson(spec);
  if (!spec_json) return ctx(std::move(spec_json).error());

  auto state = std::make_unique<State>();
  state->path = path;
  state->spec = spec;
  state->partition_type = *partition_type;
  state->content = content;
  state->snapshot_id = snapshot_id;
  state->format_version = options.format_version;
  const NodePtr& root = avro_schema->root();
  state->data_file_node = Unwrapped(root->fields[4].type);
  state->partition_node = Unwrapped(state->data_file_node->fields[3].type);
  state->summaries.resize(spec.fields().size());

  // Header keys in the order Java writes them (Iceberg spec: Manifests).
  avro::Metadata meta = {
      {"schema", *schema_json},
      {"schema-id", std::to_string(schema.schema_id())},
      {"partition-spec", *spec_json},
      {"partition-spec-id", std::to_string(spec.spec_id())},
      {"format-version", std::to_string(options.format_version)},
      {"content", std::string(ManifestContentName(content))},
  };
  auto writer = avro::ContainerWriter::Open(std::move(file), std::move(*avro_schema), std::move(meta),
                                            ToWriterOptions(options));
  if (!writer) return ctx(std::move(writer).error());
  state->writer = std::move(*writer);
  return std::unique_ptr<ManifestWriter>(new ManifestWriter(std::move(state)));
}

Status ManifestWriter::AddFile(DataFile file) { return Add(AddedEntry(std::move(file))); }

Status ManifestWriter::Add(const ManifestEntry& e) {
  State& s = *state_;
  const DataFile& f = e.data_file;
  if (s.closed) return InvalidArgument("manifest {}: Add after Close", s.path);
  auto ctx = [&](Error err) {
    return Fail(std::move(err).WithContext(fmt::format("manifest {}: entry for {}", s.path, f.file_path)));
  };
  if (auto st = f.Validate(); !st) return ctx(std::move(st).error());
  bool is_delete = f.content != DataFileContent::kData;
  if (is_delete != (s.content == ManifestContent::kDeletes)) {
    return InvalidArgument("manifest {} holds {} files; {} is a {} file (PITFALLS 63)", s.path,
                           ManifestContentName(s.content), f.file_path, is_delete ? "delete" : "data");
  }
  if (s.format_version < 3 && (f.first_row_id || f.content_offset || f.content_size_in_bytes)) {
    return InvalidArgument("manifest {}: file {} has v3 fields (first_row_id / content_offset / content_size), "
                           "which a v2 manifest cannot hold",
                           s.path, f.file_path);
  }
  if (f.file_format == FileFormat::kPuffin && s.format_version < 3) {
    return InvalidArgument("manifest {}: {} is a deletion vector (PUFFIN), which a format version {} table cannot "
                           "hold (deletion vectors are format version 3)",
                           s.path, f.file_path, s.format_version);
  }
  if (f.first_row_id && f.content != DataFileContent::kData) {
    return InvalidArgument("manifest {}: delete file {} has a first_row_id (only data files have one)", s.path,
                           f.file_path);
  }
  if (e.status != ManifestEntryStatus::kAdded &&
      (!e.snapshot_id || !e.sequence_number || !e.file_sequence_number)) {
    return InvalidArgument(
        "manifest {}: {} entry for {} needs an explicit snapshot id and sequence numbers (PITFALLS 71)", s.path,
        e.status == ManifestEntryStatus::kExisting ? "EXISTING" : "DELETED", f.file_path);
  }
  for (auto opt : {e.snapshot_id, e.sequence_number, e.file_sequence_number}) {
    if (opt && *opt < 0) {
      return InvalidArgument("manifest {}: entry for {} has a negative snapshot id or sequence number", s.path,
                             f.file_path);
    }
  }
  const auto& pfields = s.partition_type->fields;
  if (f.partition.size() != pfields.size()) {
    return InvalidArgument("manifest {}: file {} has {} partition values but spec {} has {} fields", s.path,
                           f.file_path, f.partition.size(), s.spec.spec_id(), pfields.size());
  }

  std::vector<AvroValue> partition;
  partition.reserve(pfields.size());
  for (size_t i = 0; i < pfields.size(); ++i) {
    auto v = ToAvroValue(*pfields[i].type, f.partition[i]);
    if (!v) {
      return InvalidArgument("manifest {}: file {}: partition field {} (id {}): {}", s.path, f.file_path,
                             pfields[i].name, pfields[i].id, v.error().message);
    }
    partition.push_back(std::move(*v));
  }
  auto long_map = [](const std::map<int32_t, int64_t>& m) {
    if (m.empty()) return AvroValue::Null();
    std::vector<AvroValue> items;
    for (const auto& [k, v] : m) items.push_back(AvroValue::Record(nullptr, {AvroValue::Int(k), AvroValue::Long(v)}));
    return AvroValue::Array(std::move(items));
  };
  auto bytes_map = [](const std::map<int32_t, std::string>& m) {
    if (m.empty()) return AvroValue::Null();
    std::vector<AvroValue> items;
    for (const auto& [k, v] : m) items.push_back(AvroValue::Record(nullptr, {AvroValue::Int(k), AvroValue::Bytes(v)}));
    return AvroValue::Array(std::move(items));
  };
  auto opt_long = [](std::optional<int64_t> v) { return v ? AvroValue::Long(*v) : AvroValue::Null(); };
  std::vector<AvroValue> split_offsets, equality_ids;
  for (int64_t o : f.split_offsets) split_offsets.push_back(AvroValue::Long(o));
  for (int32_t id : f.equality_ids) equality_ids.push_back(AvroValue::Int(id));

  std::vector<AvroValue> df = {
          AvroValue::Int(static_cast<int32_t>(f.content)),
          AvroValue::String(f.file_path),
          AvroValue::String(std::string(FileFormatName(f.file_format))),
          AvroValue::Record(s.partition_node, std::move(partition)),
          AvroValue::Long(f.record_count),
          AvroValue::Long(f.file_size_in_bytes),
          long_map(f.column_sizes),
          long_map(f.value_counts),
          long_map(f.null_value_counts),
          long_map(f.nan_value_counts),
          bytes_map(f.lower_bounds),
          bytes_map(f.upper_bounds),
          f.key_metadata ? AvroValue::Bytes(*f.key_metadata) : AvroValue::Null(),
          f.split_offsets.empty() ? AvroValue::Null() : AvroValue::Array(std::move(split_offsets)),
          f.equality_ids.empty() ? AvroValue::Null() : AvroValue::Array(std::move(equality_ids)),
          f.sort_order_id ? AvroValue::Int(*f.sort_order_id) : AvroValue::Null(),
  };
  {
    if (s.format_version >= 3) df.push_back(opt_long(f.first_row_id));
    df.push_back(f.referenced_data_file ? AvroValue::String(*f.referenced_data_file) : AvroValue::Null());
    if (s.format_version >= 3) {
      df.push_back(opt_long(f.content_offset));
      df.push_back(opt_long(f.content_size_in_bytes));
    }
  }
  AvroValue data_file = AvroValue::Record(s.data_file_node, std::move(df));
  AvroValue entry = AvroValue::Record(s.writer->schema().root(),
                                      {
                                          AvroValue::Int(static_cast<int32_t>(e.status)),
                                          opt_long(e.snapshot_id),
                                          opt_long(e.sequence_number),
                                          opt_long(e.file_sequence_number),
                                          std::move(data_file),
                                      });
  // Counts (Iceberg spec: Manifest Lists; PITFALLS 65, 66, 72), checked
  // before the entry is written so that a refused entry leaves nothing.
  ManifestCounts counts = s.counts;
  if (auto st = AddToCounts(e.status, f.record_count, &counts); !st)
    return ctx(std::move(st).error());
  if (auto st = s.writer->Append(entry); !st) return ctx(std::move(st).error());
  s.counts = counts;

  // Summaries.
  if (e.is_live() && e.sequence_number) {
    s.min_explicit_sequence = std::min(s.min_explicit_sequence.value_or(*e.sequence_number), *e.sequence_number);
  }
  for (size_t i = 0; i < pfields.size(); ++i) s.summaries[i].Update(f.partition[i]);
  return Ok();
}

Result<ManifestFile> ManifestWriter::Close() {
  State& s = *state_;
  if (s.closed) return InvalidArgument("manifest {}: closed twice", s.path);
  s.closed = true;
  ManifestFile m;
  m.manifest_path = s.path;
  m.partition_spec_id = s.spec.spec_id();
  m.content = s.content;
  m.sequence_number = kUnassigned;
  m.min_sequence_number = s.min_explicit_sequence.value_or(kUnassigned);
  m.added_snapshot_id = s.snapshot_id;
  m.added_files_count = s.counts.added_files;
  m.existing_files_count = s.counts.existing_files;
  m.deleted_files_count = s.counts.deleted_files;
  m.added_rows_count = s.counts.added_rows;
  m.existing_rows_count = s.counts.existing_rows;
  m.deleted_rows_count = s.counts.deleted_rows;
  const auto& pfields = s.partition_type->fields;
  for (size_t i = 0; i < pfields.size(); ++i) {
    const FieldSummary& fs = s.summaries[i];
    PartitionFieldSummary out;
    out.contains_null = fs.contains_null;
    out.contains_nan = fs.contains_nan;
    if (fs.lower) {
      FLOE_ASSIGN_OR_RETURN(out.lower_bound, ToBinary(*pfields[i].type, *fs.lower));
      FLOE_ASSIGN_OR_RETURN(out.upper_bound, ToBinary(*pfields[i].type, *fs.upper));
    }
    m.partitions.push_back(std::move(out));
  }
  auto length = s.writer->Close();
  if (!length) return Fail(std::move(length).error().WithContext(fmt::format("manifest {}", s.path)));
  m.manifest_length = *length;
  return m;
}

// ============================================================ ManifestListWriter

struct ManifestListWriter::State {
  std::unique_ptr<avro::ContainerWriter> writer;
  std::string path;
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  NodePtr root;
  NodePtr summary_node;
  int32_t format_version = 2;
  std::optional<int64_t> next_row_id;  ///< v3: the next id to assign
  bool closed = false;
};

ManifestListWriter::ManifestListWriter(std::unique_ptr<State> state) : state_(std::move(state)) {}
ManifestListWriter::~ManifestListWriter() = default;

Result<std::unique_ptr<ManifestListWriter>> ManifestListWriter::Open(std::unique_ptr<OutputFile> file,
                                                                     int64_t snapshot_id,
                                                                     std::optional<int64_t> parent_snapshot_id,
                                                                     int64_t sequence_number,
                                                                     const ManifestWriteOptions& options) {
  if (!file) return InvalidArgument("manifest list writer: no output file");
  std::string path = file->path();
  if (snapshot_id < 0) return InvalidArgument("manifest list {}: snapshot id {} is negative", path, snapshot_id);
  if (sequence_number < 0) {
    return InvalidArgument("manifest list {}: sequence number {} is negative", path, sequence_number);
  }
  FLOE_RETURN_IF_ERROR(CheckWriteVersion(options.format_version, "manifest list", path));
  if (options.format_version >= 3 && (!options.first_row_id || *options.first_row_id < 0)) {
    return InvalidArgument("manifest list {}: a format version 3 list needs the snapshot's first-row-id (>= 0)",
                           path);
  }
  if (options.format_version < 3 && options.first_row_id) {
    return InvalidArgument("manifest list {}: first-row-id is a format version 3 field", path);
  }
  auto schema = avro::StructToAvroSchema(*ManifestFileType(options.format_version), "manifest_file");
  if (!schema) return Fail(std::move(schema).error().WithContext(fmt::format("manifest list {}", path)));
  auto state = std::make_unique<State>();
  state->path = path;
  state->snapshot_id = snapshot_id;
  state->sequence_number = sequence_number;
  state->root = schema->root();
  state->summary_node = Unwrapped(state->root->fields[13].type)->items;
  state->format_version = options.format_version;
  state->next_row_id = options.first_row_id;
  // Java writes parent-snapshot-id as String.valueOf(null) = "null" for the
  // first snapshot; readers (floe's too) take "null" and a missing key alike.
  avro::Metadata meta = {
      {"snapshot-id", std::to_string(snapshot_id)},
      {"parent-snapshot-id", parent_snapshot_id ? std::to_string(*parent_snapshot_id) : std::string("null")},
      {"sequence-number", std::to_string(sequence_number)},
      {"format-version", std::to_string(options.format_version)},
  };
  if (options.format_version >= 3) meta.emplace_back("first-row-id", std::to_string(*options.first_row_id));
  auto writer =
      avro::ContainerWriter::Open(std::move(file), std::move(*schema), std::move(meta), ToWriterOptions(options));
  if (!writer) return Fail(std::move(writer).error().WithContext(fmt::format("manifest list {}", path)));
  state->writer = std::move(*writer);
  return std::unique_ptr<ManifestListWriter>(new ManifestListWriter(std::move(state)));
}

Result<ManifestFile> ManifestListWriter::Add(const ManifestFile& manifest) {
  State& s = *state_;
  if (s.closed) return InvalidArgument("manifest list {}: Add after Close", s.path);
  ManifestFile m = manifest;
  const std::string& mp = m.manifest_path;
  if (mp.empty()) return InvalidArgument("manifest list {}: a manifest has an empty path", s.path);
  if (m.first_row_id && s.format_version < 3) {
    return InvalidArgument("manifest list {}: manifest {} has first_row_id, a v3 field", s.path, mp);
  }
  if (m.first_row_id && m.content == ManifestContent::kDeletes) {
    return InvalidArgument("manifest list {}: delete manifest {} has a first_row_id (only data manifests have one)",
                           s.path, mp);
  }
  bool is_new = m.sequence_number == kUnassigned;
  if (is_new) m.sequence_number = s.sequence_number;
  if (m.added_snapshot_id == kUnassigned) m.added_snapshot_id = s.snapshot_id;
  if (m.min_sequence_number == kUnassigned) {
    m.min_sequence_number = m.sequence_number;
  } else if (is_new) {
    m.min_sequence_number = std::min(m.min_sequence_number, m.sequence_number);
  }
  if (m.sequence_number < 0 || m.sequence_number > s.sequence_number) {
    return InvalidArgument("manifest list {}: manifest {} has sequence number {}, above the snapshot's {}", s.path,
                           mp, m.sequence_number, s.sequence_number);
  }
  if (m.min_sequence_number < 0 || m.min_sequence_number > m.sequence_number) {
    return InvalidArgument("manifest list {}: manifest {} has min_sequence_number {} outside 0..{}", s.path, mp,
                           m.min_sequence_number, m.sequence_number);
  }
  if (m.added_snapshot_id < 0) {
    return InvalidArgument("manifest list {}: manifest {} has added_snapshot_id {}", s.path, mp,
                           m.added_snapshot_id);
  }
  if (m.manifest_length <= 0) {
    return InvalidArgument("manifest list {}: manifest {} has length {}", s.path, mp, m.manifest_length);
  }
  if (m.added_files_count < 0 || m.existing_files_count < 0 || m.deleted_files_count < 0 ||
      m.added_rows_count < 0 || m.existing_rows_count < 0 || m.deleted_rows_count < 0) {
    return InvalidArgument("manifest list {}: manifest {} has a negative file or row count", s.path, mp);
  }
  // v3: a data manifest without a first_row_id gets the next ids, one per
  // row it may assign (added and existing; Iceberg spec: First Row ID
  // Assignment). Existing manifests keep theirs.
  std::optional<int64_t> next_row_id = s.next_row_id;
  if (s.format_version >= 3 && m.content == ManifestContent::kData && !m.first_row_id) {
    m.first_row_id = *next_row_id;
    const int64_t rows = m.added_rows_count + m.existing_rows_count;
    if (rows < 0 || *next_row_id > INT64_MAX - rows) {
      return InvalidArgument("manifest list {}: manifest {}: row ids past a long", s.path, mp);
    }
    *next_row_id += rows;
  }

  std::vector<AvroValue> summaries;
  for (const auto& p : m.partitions) {
    summaries.push_back(AvroValue::Record(
        s.summary_node, {
                            AvroValue::Boolean(p.contains_null),
                            p.contains_nan ? AvroValue::Boolean(*p.contains_nan) : AvroValue::Null(),
                            p.lower_bound ? AvroValue::Bytes(*p.lower_bound) : AvroValue::Null(),
                            p.upper_bound ? AvroValue::Bytes(*p.upper_bound) : AvroValue::Null(),
                        }));
  }
  AvroValue record = AvroValue::Record(
      s.root, {
                  AvroValue::String(m.manifest_path),
                  AvroValue::Long(m.manifest_length),
                  AvroValue::Int(m.partition_spec_id),
                  AvroValue::Int(static_cast<int32_t>(m.content)),
                  AvroValue::Long(m.sequence_number),
                  AvroValue::Long(m.min_sequence_number),
                  AvroValue::Long(m.added_snapshot_id),
                  AvroValue::Int(m.added_files_count),
                  AvroValue::Int(m.existing_files_count),
                  AvroValue::Int(m.deleted_files_count),
                  AvroValue::Long(m.added_rows_count),
                  AvroValue::Long(m.existing_rows_count),
                  AvroValue::Long(m.deleted_rows_count),
                  AvroValue::Array(std::move(summaries)),
                  m.key_metadata ? AvroValue::Bytes(*m.key_metadata) : AvroValue::Null(),
              });
  if (s.format_version >= 3) {
    record.mutable_children().push_back(m.first_row_id ? AvroValue::Long(*m.first_row_id) : AvroValue::Null());
  }
  if (auto st = s.writer->Append(record); !st) {
    return Fail(std::move(st).error().WithContext(fmt::format("manifest list {}: manifest {}", s.path, mp)));
  }
  s.next_row_id = next_row_id;
  return m;
}

std::optional<int64_t> ManifestListWriter::next_row_id() const { return state_->next_row_id; }

Result<int64_t> ManifestListWriter::Close() {
  State& s = *state_;
  if (s.closed) return InvalidArgument("manifest list {}: closed twice", s.path);
  s.closed = true;
  auto length = s.writer->Close();
  if (!length) return Fail(std::move(length).error().WithContext(fmt::format("manifest list {}", s.path)));
  return *length;
}

// ================================================================== reading

Result<std::vector<ManifestFile>> ReadManifestList(const InputFile& file, ManifestListInfo* info) {
  const std::string& path = file.path();
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenAvro(file, "manifest list"));
  ManifestListInfo header;
  FLOE_ASSIGN_OR_RETURN(header.snapshot_id, HeaderLong(*reader, "snapshot-id", "manifest list", path));
  FLOE_ASSIGN_OR_RETURN(header.parent_snapshot_id, HeaderLong(*reader, "parent-snapshot-id", "manifest list", path));
  FLOE_ASSIGN_OR_RETURN(header.sequence_number, HeaderLong(*reader, "sequence-number", "manifest list", path));
  FLOE_ASSIGN_OR_RETURN(auto version, HeaderLong(*reader, "format-version", "manifest list", path));
  const avro::Node& root = *reader->writer_schema().root();
  if (version) {
    if (*version < 1 || *version > 3) {
      return Unsupported("manifest list {}: format-version {} is not supported (1..3)", path, *version);
    }
    header.format_version = static_cast<int32_t>(*version);
  } else {
    header.format_version = HasField(root, kListSequenceNumber, "sequence_number") ? 2 : 1;
  }
  if (info) *info = header;

  FieldFinder finder;
  std::vector<ManifestFile> out;
  AvroValue rec;
  for (int64_t index = 0;; ++index) {
    auto more = reader->Next(&rec);
    if (!more) return Fail(AsCorrupt(std::move(more).error(), fmt::format("manifest list {}", path)));
    if (!*more) break;
    RecordReader r(&finder, rec, fmt::format("manifest list {}: record {}", path, index));
    ManifestFile m;
    FLOE_ASSIGN_OR_RETURN(m.manifest_path, r.ReqString(kManifestPath, "manifest_path"));
    FLOE_ASSIGN_OR_RETURN(m.manifest_length, r.ReqLong(kManifestLength, "manifest_length"));
    FLOE_ASSIGN_OR_RETURN(m.partition_spec_id, r.ReqInt(kSpecId, "partition_spec_id"));
    FLOE_ASSIGN_OR_RETURN(auto content, r.OptInt(kListContent, "content"));
    if (content && *content != 0 && *content != 1) {
      return Corrupt("{}: content {} is not 0 (data) or 1 (deletes)", r.context(), *content);
    }
    m.content = static_cast<ManifestContent>(content.value_or(0));
    // v1 lists have no sequence numbers: they read as 0 (Appendix E).
    FLOE_ASSIGN_OR_RETURN(auto seq, r.OptLong(kListSequenceNumber, "sequence_number"));
    FLOE_ASSIGN_OR_RETURN(auto min_seq, r.OptLong(kMinSequenceNumber, "min_sequence_number"));
    if (header.format_version >= 2 && (!seq || !min_seq)) {
      return r.Missing(seq ? kMinSequenceNumber : kListSequenceNumber,
                       seq ? "min_sequence_number" : "sequence_number");
    }
    m.sequence_number = seq.value_or(0);
    m.min_sequence_number = min_seq.value_or(0);
    FLOE_ASSIGN_OR_RETURN(m.added_snapshot_id, r.ReqLong(kAddedSnapshotId, "added_snapshot_id"));
    FLOE_ASSIGN_OR_RETURN(auto af, r.OptInt(kAddedFiles, "added_files_count"));
    FLOE_ASSIGN_OR_RETURN(auto ef, r.OptInt(kExistingFiles, "existing_files_count"));
    FLOE_ASSIGN_OR_RETURN(auto df, r.OptInt(kDeletedFiles, "deleted_files_count"));
    FLOE_ASSIGN_OR_RETURN(auto ar, r.OptLong(kAddedRows, "added_rows_count"));
    FLOE_ASSIGN_OR_RETURN(auto er, r.OptLong(kExistingRows, "existing_rows_count"));
    FLOE_ASSIGN_OR_RETURN(auto dr, r.OptLong(kDeletedRows, "deleted_rows_count"));
    m.added_files_count = af.value_or(0);
    m.existing_files_count = ef.value_or(0);
    m.deleted_files_count = df.value_or(0);
    m.added_rows_count = ar.value_or(0);
    m.existing_rows_count = er.value_or(0);
    m.deleted_rows_count = dr.value_or(0);
    if (const AvroValue* parts = r.Get(kPartitions, "partitions"); parts && !parts->is_null()) {
      if (parts->kind() != Kind::kArray) return r.Bad(kPartitions, "partitions", "an array", *parts);
      for (const auto& p : parts->children()) {
        if (p.kind() != Kind::kRecord) return r.Bad(kPartitions, "partitions", "summary records", p);
        RecordReader pr(&finder, p, r.context() + ": partitions");
        PartitionFieldSummary sum;
        FLOE_ASSIGN_OR_RETURN(auto cn, pr.OptBool(kContainsNull, "contains_null"));
        if (!cn) return pr.Missing(kContainsNull, "contains_null");
        sum.contains_null = *cn;
        FLOE_ASSIGN_OR_RETURN(sum.contains_nan, pr.OptBool(kContainsNan, "contains_nan"));
        FLOE_ASSIGN_OR_RETURN(sum.lower_bound, pr.OptBytes(kLowerBound, "lower_bound"));
        FLOE_ASSIGN_OR_RETURN(sum.upper_bound, pr.OptBytes(kUpperBound, "upper_bound"));
        m.partitions.push_back(std::move(sum));
      }
    }
    FLOE_ASSIGN_OR_RETURN(m.key_metadata, r.OptBytes(kListKeyMetadata, "key_metadata"));
    FLOE_ASSIGN_OR_RETURN(m.first_row_id, r.OptLong(kListFirstRowId, "first_row_id"));
    out.push_back(std::move(m));
  }
  return out;
}

namespace {

/// The partition type of `spec` for reading: each field's source type from
/// the current schema, then the manifest's own schema, then any table
/// schema; a field whose source is gone (or whose transform is unknown)
/// takes the type the writer used for it.
Result<TypePtr> ReadPartitionType(const PartitionSpec& spec, const TableMetadata& metadata,
                                  const std::optional<Schema>& header_schema, const avro::Node* writer_partition,
                                  const std::string& path) {
  std::vector<const Schema*> schemas;
  if (auto cur = metadata.CurrentSchema()) schemas.push_back(cur.get());
  if (header_schema) schemas.push_back(&*header_schema);
  for (auto it = metadata.schemas.rbegin(); it != metadata.schemas.rend(); ++it) schemas.push_back(it->get());
  std::vector<NestedField> fields;
  for (const auto& pf : spec.fields()) {
    TypePtr type;
    for (const Schema* s : schemas) {
      const NestedField* src = s->FindField(pf.source_id);
      if (!src) continue;
      auto t = pf.transform.ResultType(src->type);
      if (t) {
        type = *t;
        break;
      }
    }
    if (!type && writer_partition) {
      for (const auto& wf : writer_partition->fields) {
        auto id = wf.field_id();
        if (id ? *id != pf.field_id : wf.name != pf.name) continue;
        const avro::Node& n = *Unwrapped(wf.type);
        auto t = avro::FromAvroType(n);
        if (t) type = *t;
        break;
      }
    }
    if (!type) {
      return Corrupt("manifest {}: partition field {} (id {}, source id {}) has no type: its source is in no "
                     "schema and the manifest does not store it",
                     path, pf.name, pf.field_id, pf.source_id);
    }
    fields.push_back(NestedField{pf.field_id, pf.name, false, type, {}});
  }
  return StructType(std::move(fields));
}

}  // namespace

Result<std::vector<ManifestEntry>> ReadManifest(const InputFile& file, const ManifestFile& list_entry,
                                                const TableMetadata& metadata, const ManifestReadOptions& options,
                                                ManifestInfo* info) {
  const std::string& path = file.path();
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenAvro(file, "manifest"));
  const avro::Node& root = *reader->writer_schema().root();

  // Format version (see the header comment for the rule).
  ManifestInfo mi;
  FLOE_ASSIGN_OR_RETURN(auto version, HeaderLong(*reader, "format-version", "manifest", path));
  if (version) {
    if (*version < 1 || *version > 3) {
      return Unsupported("manifest {}: format-version {} is not supported (1..3)", path, *version);
    }
    mi.format_version = static_cast<int32_t>(*version);
  } else {
    mi.format_version = HasField(root, kSequenceNumber, "sequence_number") ? std::max(2, metadata.format_version) : 1;
  }

  // Content: the list's; the header must agree when present.
  mi.content = list_entry.content;
  if (auto c = reader->metadata("content")) {
    auto parsed = ParseManifestContent(*c);
    if (!parsed) return Corrupt("manifest {}: header content: {}", path, parsed.error().message);
    if (*parsed != list_entry.content) {
      return Corrupt("manifest {}: header content is \"{}\" but the manifest list says {}", path, *c,
                     ManifestContentName(list_entry.content));
    }
  }

  // The spec: the table's by the list's spec id, else the header's.
  if (const PartitionSpec* spec = metadata.SpecById(list_entry.partition_spec_id)) {
    mi.spec = *spec;
  } else if (auto text = reader->metadata("partition-spec")) {
    auto spec = PartitionFieldsFromJson(*text, list_entry.partition_spec_id);
    if (!spec) return Corrupt("manifest {}: header partition-spec: {}", path, spec.error().message);
    mi.spec = std::move(*spec);
  } else {
    return Corrupt("manifest {}: partition spec {} is neither in the table metadata nor in the manifest header", path,
                   list_entry.partition_spec_id);
  }
  std::optional<Schema> header_schema;
  if (auto text = reader->metadata("schema")) {
    if (auto s = SchemaFromJson(*text)) header_schema = std::move(*s);
  }
  const avro::Node* writer_partition = nullptr;
  for (const auto& f : root.fields) {
    if (f.field_id() == kDataFile || (!f.field_id() && f.name == "data_file")) {
      const avro::Node& df = *Unwrapped(f.type);
      for (const auto& g : df.fields) {
        if (g.field_id() == kPartition || (!g.field_id() && g.name == "partition")) writer_partition = Unwrapped(g.type).get();
      }
    }
  }
  FLOE_ASSIGN_OR_RETURN(mi.partition_type, ReadPartitionType(mi.spec, metadata, header_schema, writer_partition, path));
  const auto& pfields = mi.partition_type->fields;

  FieldFinder finder;
  std::vector<ManifestEntry> out;
  AvroValue rec;
  // v3 row lineage: a live data file without a first_row_id inherits the
  // manifest's plus the rows of the live files before it that inherited
  // (Iceberg spec: First Row ID Inheritance). The manifest list reserves ids
  // for added and existing rows only, so DELETED entries take none.
  std::optional<int64_t> next_first_row_id = list_entry.first_row_id;
  for (int64_t index = 0;; ++index) {
    auto more = reader->Next(&rec);
    if (!more) return Fail(AsCorrupt(std::move(more).error(), fmt::format("manifest {}", path)));
    if (!*more) break;
    RecordReader r(&finder, rec, fmt::format("manifest {}: entry {}", path, index));
    ManifestEntry e;
    FLOE_ASSIGN_OR_RETURN(int32_t status, r.ReqInt(kStatus, "status"));
    if (status < 0 || status > 2) return Corrupt("{}: status {} is not 0, 1 or 2", r.context(), status);
    e.status = static_cast<ManifestEntryStatus>(status);
    if (options.skip_deleted && e.status == ManifestEntryStatus::kDeleted) continue;
    FLOE_ASSIGN_OR_RETURN(e.snapshot_id, r.OptLong(kSnapshotId, "snapshot_id"));
    FLOE_ASSIGN_OR_RETURN(e.sequence_number, r.OptLong(kSequenceNumber, "sequence_number"));
    FLOE_ASSIGN_OR_RETURN(e.file_sequence_number, r.OptLong(kFileSequenceNumber, "file_sequence_number"));
    const AvroValue* dfv = r.Get(kDataFile, "data_file");
    if (!dfv || dfv->kind() != Kind::kRecord) return r.Missing(kDataFile, "data_file");
    RecordReader d(&finder, *dfv, r.context() + ": data_file");
    DataFile& f = e.data_file;
    FLOE_ASSIGN_OR_RETURN(auto content, d.OptInt(kContent, "content"));
    if (content && (*content < 0 || *content > 2)) {
      return Corrupt("{}: content {} is not 0, 1 or 2", d.context(), *content);
    }
    f.content = static_cast<DataFileContent>(content.value_or(0));  // v1: data (Appendix E)
    FLOE_ASSIGN_OR_RETURN(f.file_path, d.ReqString(kFilePath, "file_path"));
    FLOE_ASSIGN_OR_RETURN(std::string format, d.ReqString(kFileFormat, "file_format"));
    auto ff = ParseFileFormat(format);
    if (!ff) return Corrupt("{}: file_format: {}", d.context(), ff.error().message);
    f.file_format = *ff;
    const AvroValue* pv = d.Get(kPartition, "partition");
    if (pfields.empty() && (!pv || pv->is_null())) {
      // Unpartitioned: some writers leave the empty record out.
    } else {
      if (!pv || pv->kind() != Kind::kRecord) return d.Missing(kPartition, "partition");
      for (const auto& pf : pfields) {
        const AvroValue* v = finder.Find(*pv, pf.id, pf.name);
        auto value = v ? FromAvroValue(*pf.type, *v) : Result<Value>(Value::Null());
        if (!value) {
          return Corrupt("{}: partition field {} (id {}): {}", d.context(), pf.name, pf.id, value.error().message);
        }
        f.partition.push_back(std::move(*value));
      }
    }
    FLOE_ASSIGN_OR_RETURN(f.record_count, d.ReqLong(kRecordCount, "record_count"));
    FLOE_ASSIGN_OR_RETURN(f.file_size_in_bytes, d.ReqLong(kFileSize, "file_size_in_bytes"));
    if (options.include_column_stats) {
      FLOE_RETURN_IF_ERROR(d.IntMap(kColumnSizes, "column_sizes", &f.column_sizes));
      FLOE_RETURN_IF_ERROR(d.IntMap(kValueCounts, "value_counts", &f.value_counts));
      FLOE_RETURN_IF_ERROR(d.IntMap(kNullValueCounts, "null_value_counts", &f.null_value_counts));
      FLOE_RETURN_IF_ERROR(d.IntMap(kNanValueCounts, "nan_value_counts", &f.nan_value_counts));
      FLOE_RETURN_IF_ERROR(d.IntMap(kLowerBounds, "lower_bounds", &f.lower_bounds));
      FLOE_RETURN_IF_ERROR(d.IntMap(kUpperBounds, "upper_bounds", &f.upper_bounds));
    }
    FLOE_ASSIGN_OR_RETURN(f.key_metadata, d.OptBytes(kKeyMetadata, "key_metadata"));
    FLOE_RETURN_IF_ERROR(d.List(kSplitOffsets, "split_offsets", &f.split_offsets));
    FLOE_RETURN_IF_ERROR(d.List(kEqualityIds, "equality_ids", &f.equality_ids));
    FLOE_ASSIGN_OR_RETURN(f.sort_order_id, d.OptInt(kSortOrderId, "sort_order_id"));
    FLOE_ASSIGN_OR_RETURN(f.referenced_data_file, d.OptBytes(kReferencedDataFile, "referenced_data_file"));
    FLOE_ASSIGN_OR_RETURN(f.first_row_id, d.OptLong(kFirstRowId, "first_row_id"));
    FLOE_ASSIGN_OR_RETURN(f.content_offset, d.OptLong(kContentOffset, "content_offset"));
    FLOE_ASSIGN_OR_RETURN(f.content_size_in_bytes, d.OptLong(kContentSize, "content_size_in_bytes"));

    bool is_delete = f.content != DataFileContent::kData;
    if (is_delete != (mi.content == ManifestContent::kDeletes)) {
      return Corrupt("{}: a {} file ({}) in a {} manifest", r.context(), is_delete ? "delete" : "data", f.file_path,
                     ManifestContentName(mi.content));
    }
    if (auto st = InheritFromManifest(list_entry, mi.format_version, &e); !st) {
      return Fail(std::move(st).error().WithContext(fmt::format("entry {}", index)));
    }
    if (!is_delete && e.is_live() && !f.first_row_id && next_first_row_id) {
      f.first_row_id = *next_first_row_id;
      *next_first_row_id += std::max<int64_t>(f.record_count, 0);
    }
    out.push_back(std::move(e));
  }
  if (info) *info = std::move(mi);
  return out;
}

Result<std::vector<ManifestEntry>> ReadManifestForPlanning(const InputFile& file, const ManifestFile& list_entry,
                                                           const TableMetadata& metadata) {
  ManifestReadOptions options;
  options.include_column_stats = false;
  options.skip_deleted = true;
  return ReadManifest(file, list_entry, metadata, options);
}

Result<ManifestFile> DescribeV1Manifest(const InputFile& file, const TableMetadata& metadata, int64_t snapshot_id) {
  const std::string& path = file.path();
  ManifestFile m;
  m.manifest_path = path;
  m.manifest_length = file.Size();
  m.added_snapshot_id = snapshot_id;
  m.partition_spec_id = metadata.default_spec_id;
  {
    FLOE_ASSIGN_OR_RETURN(auto reader, OpenAvro(file, "manifest"));
    FLOE_ASSIGN_OR_RETURN(auto spec_id, HeaderLong(*reader, "partition-spec-id", "manifest", path));
    if (spec_id) m.partition_spec_id = static_cast<int32_t>(*spec_id);
    if (auto c = reader->metadata("content")) {
      auto parsed = ParseManifestContent(*c);
      if (!parsed) return Corrupt("manifest {}: header content: {}", path, parsed.error().message);
      m.content = *parsed;
    }
  }
  FLOE_ASSIGN_OR_RETURN(auto entries, ReadManifest(file, m, metadata));
  FLOE_RETURN_IF_ERROR(SetCounts(entries, &m));
  return m;
}

}  // namespace floe::iceberg
