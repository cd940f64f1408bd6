/// \file
/// libFuzzer property target: Iceberg manifest and manifest-list write -> read
/// is the identity (Iceberg spec: Manifests, Manifest Lists, Sequence Number
/// Inheritance). The input is a recipe read by a small deterministic byte
/// consumer: a partition spec over a table with a column of every primitive
/// type (random transforms), one data or delete manifest with random entries
/// (status, explicit or inherited snapshot ids and sequence numbers, partition
/// tuples with nulls, NaN and extremes, every metric map, key metadata, split
/// offsets, equality ids, sort order, referenced data file), and a manifest
/// list holding it and random other manifests (counts, partition summaries),
/// with a random Avro codec. Both files are written with floe's writers and
/// read back with its readers; the list must read back as written and every
/// entry as written after the spec's inheritance. Any difference, or an error
/// on valid input, prints a description and traps. This is the Avro
/// round trip of the manifests; avro/avro_roundtrip_fuzz.cc covers generic
/// Avro (a fuzzer links only its own module). Seeds:
/// tests/fuzz_seeds/manifest_roundtrip_fuzz/.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <bit>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "floe/iceberg/manifest.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/transform.h"
#include "floe/iceberg/value.h"
#include "floe/io/file.h"

namespace {

using namespace floe;
using namespace floe::iceberg;

/// Deterministic draws from the fuzz input; zeros once it is used up.
class Draw {
 public:
  Draw(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  uint8_t U8() {
    if (n_ == 0) return 0;
    --n_;
    return *p_++;
  }
  uint64_t Bits(int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | U8();
    return v;
  }
  uint32_t Below(uint32_t n) {
    return n <= 1 ? 0 : static_cast<uint32_t>(Bits(n > 256 ? 2 : 1) % n);
  }
  bool Chance(uint8_t in256) { return U8() < in256; }
  std::string Bytes(size_t max) {
    size_t len = Below(static_cast<uint32_t>(max + 1));
    std::string s;
    for (size_t i = 0; i < len; ++i) s.push_back(static_cast<char>(U8()));
    return s;
  }
  /// Printable ASCII (paths, strings).
  std::string Text(size_t max) {
    std::string s = Bytes(max);
    for (char& c : s) c = static_cast<char>(' ' + static_cast<unsigned char>(c) % 95);
    return s;
  }
  /// 0 .. max, extremes often.
  int64_t Count(int64_t max) {
    switch (U8() & 3) {
      case 0: return 0;
      case 1: return max;
      default: return static_cast<int64_t>(Bits(8) % (static_cast<uint64_t>(max) + 1));
    }
  }

 private:
  const uint8_t* p_;
  size_t n_;
};

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "manifest_roundtrip_fuzz: %s\n", what.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

NestedField F(int32_t id, std::string name, TypePtr t) {
  return NestedField{id, std::move(name), false, std::move(t), ""};
}

const Schema& TableSchema() {
  static const Schema schema(
      {F(1, "id", LongType()), F(2, "b", BooleanType()), F(3, "i", IntType()),
       F(4, "l", LongType()), F(5, "f", FloatType()), F(6, "d", DoubleType()),
       F(7, "dec", DecimalType(9, 2)), F(8, "big", DecimalType(38, 10)), F(9, "dt", DateType()),
       F(10, "t", TimeType()), F(11, "ts", TimestampType()), F(12, "tstz", TimestampTzType()),
       F(13, "s", StringType()), F(14, "u", UuidType()), F(15, "fx", FixedType(3)),
       F(16, "bin", BinaryType()), F(17, "tsns", Primitive(TypeId::kTimestampNs))},
      0);
  return schema;
}

PartitionSpec RandomSpec(Draw& d) {
  static const char* kTransforms[] = {
      "identity",    "bucket[1]",   "bucket[16]", "bucket[2147483647]",
      "truncate[1]", "truncate[4]", "year",       "month",
      "day",         "hour",        "void"};
  const Schema& schema = TableSchema();
  std::vector<PartitionField> fields;
  const uint32_t n = d.Below(6);
  for (uint32_t k = 0; k < n; ++k) {
    const NestedField& source = schema.fields()[d.Below(schema.fields().size())];
    auto t = Transform::Parse(kTransforms[d.Below(11)]);
    if (!t || !t->ResultType(source.type)) continue;
    PartitionField f{source.id, 1000 + static_cast<int32_t>(k), fmt::format("p{}", k), *t};
    fields.push_back(f);
    // Keep only fields the spec's rules allow (no two time transforms of one source, ...).
    if (!PartitionSpec(1, fields).Validate(schema)) fields.pop_back();
  }
  return PartitionSpec(d.Below(3) + 1, std::move(fields));
}

int128_t Pow10(int n) {
  int128_t v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

Value RandomValue(Draw& d, const Type& t) {
  if (d.Chance(30)) return Value::Null();
  const uint8_t pick = d.U8() & 7;
  switch (t.id) {
    case TypeId::kBoolean: return Value::Boolean(pick & 1);
    case TypeId::kInt:
    case TypeId::kDate:
      return Value::Int(pick == 0   ? std::numeric_limits<int32_t>::min()
                        : pick == 1 ? std::numeric_limits<int32_t>::max()
                                    : static_cast<int32_t>(d.Bits(4)));
    case TypeId::kFloat: {
      uint32_t bits = static_cast<uint32_t>(d.Bits(4));
      float v;
      std::memcpy(&v, &bits, 4);
      return Value::Float(pick == 0   ? std::numeric_limits<float>::quiet_NaN()
                          : pick == 1 ? -0.0f
                                      : v);
    }
    case TypeId::kDouble: {
      uint64_t bits = d.Bits(8);
      double v;
      std::memcpy(&v, &bits, 8);
      return Value::Double(pick == 0   ? std::numeric_limits<double>::quiet_NaN()
                           : pick == 1 ? -0.0
                                       : v);
    }
    case TypeId::kDecimal: {
      const int128_t limit = Pow10(t.precision);
      unsigned __int128 r = (static_cast<unsigned __int128>(d.Bits(8)) << 64) | d.Bits(8);
      int128_t v = pick == 0   ? limit - 1
                   : pick == 1 ? -(limit - 1)
                               : static_cast<int128_t>(r % static_cast<unsigned __int128>(limit));
      return Value::Decimal(v);
    }
    case TypeId::kString: return Value::String(d.Text(12));
    case TypeId::kUuid: {
      std::string b;
      for (int i = 0; i < 16; ++i) b.push_back(static_cast<char>(d.U8()));
      return Value::Bytes(b);
    }
    case TypeId::kFixed: {
      std::string b;
      for (int i = 0; i < t.length; ++i) b.push_back(static_cast<char>(d.U8()));
      return Value::Bytes(b);
    }
    case TypeId::kBinary: return Value::Bytes(d.Bytes(12));
    default:  // long, time, timestamps
      return Value::Long(pick == 0   ? std::numeric_limits<int64_t>::min()
                         : pick == 1 ? std::numeric_limits<int64_t>::max()
                                     : static_cast<int64_t>(d.Bits(8)));
  }
}

std::map<int32_t, int64_t> RandomCounts(Draw& d) {
  std::map<int32_t, int64_t> m;
  const uint32_t n = d.Below(5);
  for (uint32_t i = 0; i < n; ++i)
    m[1 + static_cast<int32_t>(d.Below(20))] = d.Count(1'000'000'000'000);
  return m;
}

std::map<int32_t, std::string> RandomBounds(Draw& d) {
  std::map<int32_t, std::string> m;
  const uint32_t n = d.Below(4);
  for (uint32_t i = 0; i < n; ++i) m[1 + static_cast<int32_t>(d.Below(20))] = d.Bytes(17);
  return m;
}

DataFile RandomFile(Draw& d, ManifestContent content, const Type& partition_type, int index) {
  DataFile f;
  f.content = content == ManifestContent::kData ? DataFileContent::kData
              : d.Chance(128)                   ? DataFileContent::kPositionDeletes
                                                : DataFileContent::kEqualityDeletes;
  f.file_path = fmt::format("s3://bucket/t/data/{}-{}.parquet", index, d.Text(20));
  static const FileFormat kFormats[] = {FileFormat::kParquet, FileFormat::kAvro, FileFormat::kOrc};
  f.file_format = kFormats[d.Below(3)];
  for (const auto& pf : partition_type.fields) f.partition.push_back(RandomValue(d, *pf.type));
  // Up to 200 entries whose counts must add up within a long (a sum that overflows is refused,
  // tests/iceberg/manifest_count_overflow_test.cc).
  f.record_count = d.Count(std::numeric_limits<int64_t>::max() / 256);
  f.file_size_in_bytes = d.Count(std::numeric_limits<int64_t>::max());
  f.column_sizes = RandomCounts(d);
  f.value_counts = RandomCounts(d);
  f.null_value_counts = RandomCounts(d);
  f.nan_value_counts = RandomCounts(d);
  // DataFile rules: no more nulls or NaNs than values.
  for (auto* m : {&f.null_value_counts, &f.nan_value_counts}) {
    for (auto& [id, n] : *m) {
      if (auto it = f.value_counts.find(id); it != f.value_counts.end())
        n = std::min(n, it->second);
    }
  }
  f.lower_bounds = RandomBounds(d);
  f.upper_bounds = RandomBounds(d);
  if (d.Chance(60)) f.key_metadata = d.Bytes(20);
  int64_t offset = 0;
  const uint32_t splits = d.Below(4);
  for (uint32_t i = 0; i < splits; ++i) f.split_offsets.push_back(offset += d.Count(1 << 30));
  if (f.content == DataFileContent::kEqualityDeletes) {
    const uint32_t n = 1 + d.Below(3);
    for (uint32_t i = 0; i < n; ++i)
      f.equality_ids.push_back(1 + static_cast<int32_t>(d.Below(17)));
  }
  if (f.content != DataFileContent::kPositionDeletes && d.Chance(100)) {
    f.sort_order_id = static_cast<int32_t>(d.Below(4));
  }
  if (f.content != DataFileContent::kData && d.Chance(100)) {
    f.referenced_data_file = "s3://bucket/t/data/" + d.Text(10);
  }
  return f;
}

std::string Show(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "null"; }

std::string DescribeEntry(const ManifestEntry& e, const Type& partition_type) {
  const DataFile& f = e.data_file;
  std::string parts;
  for (size_t k = 0; k < f.partition.size(); ++k) {
    parts += (parts.empty() ? "" : ",") +
             (k < partition_type.fields.size()
                  ? ValueToString(*partition_type.fields[k].type, f.partition[k])
                  : std::string("?"));
    // Values compare bit for bit: a float or double also shows its bits (NaN
    // payloads and signs print alike).
    if (std::holds_alternative<float>(f.partition[k].v)) {
      parts += fmt::format("(0x{:08x})", std::bit_cast<uint32_t>(f.partition[k].as_float()));
    } else if (std::holds_alternative<double>(f.partition[k].v)) {
      parts += fmt::format("(0x{:016x})", std::bit_cast<uint64_t>(f.partition[k].as_double()));
    }
  }
  return fmt::format(
      "status {} snapshot {} seq {} file_seq {} content {} path {} format {} partition [{}] "
      "records {} "
      "size {} sizes {} values {} nulls {} nans {} lower {} upper {} key_metadata {} splits {} eq "
      "{} "
      "sort {} ref {} first_row_id {} content_offset {} content_size {}",
      static_cast<int>(e.status), Show(e.snapshot_id), Show(e.sequence_number),
      Show(e.file_sequence_number), static_cast<int>(f.content), f.file_path,
      static_cast<int>(f.file_format), parts, f.record_count, f.file_size_in_bytes,
      f.column_sizes.size(), f.value_counts.size(), f.null_value_counts.size(),
      f.nan_value_counts.size(), f.lower_bounds.size(), f.upper_bounds.size(),
      f.key_metadata.has_value(), f.split_offsets.size(), f.equality_ids.size(),
      f.sort_order_id ? *f.sort_order_id : -1, f.referenced_data_file.value_or("null"),
      Show(f.first_row_id), Show(f.content_offset), Show(f.content_size_in_bytes));
}

std::string DescribeList(const ManifestFile& m) {
  return fmt::format(
      "path {} length {} spec {} content {} seq {} min_seq {} snapshot {} files {}/{}/{} rows "
      "{}/{}/{} "
      "partitions {} key_metadata {} first_row_id {}",
      m.manifest_path, m.manifest_length, m.partition_spec_id, static_cast<int>(m.content),
      m.sequence_number, m.min_sequence_number, m.added_snapshot_id, m.added_files_count,
      m.existing_files_count, m.deleted_files_count, m.added_rows_count, m.existing_rows_count,
      m.deleted_rows_count, m.partitions.size(), m.key_metadata.has_value(), Show(m.first_row_id));
}

class StringOutput final : public OutputFile {
 public:
  StringOutput(std::string* sink, std::string name) : sink_(sink), name_(std::move(name)) {}
  Status Write(const void* data, size_t size) override {
    buf_.append(static_cast<const char*>(data), size);
    return Ok();
  }
  int64_t Tell() const override { return static_cast<int64_t>(buf_.size()); }
  Status Commit() override {
    *sink_ = std::move(buf_);
    return Ok();
  }
  void Abort() override { buf_.clear(); }
  const std::string& path() const override { return name_; }

 private:
  std::string* sink_;
  std::string name_;
  std::string buf_;
};

ManifestFile RandomListEntry(Draw& d, int64_t list_sequence, int index) {
  ManifestFile m;
  m.manifest_path = fmt::format("s3://bucket/t/metadata/other-{}-{}.avro", index, d.Text(8));
  m.manifest_length = 1 + d.Count(std::numeric_limits<int64_t>::max() - 1);  // no file is empty
  m.partition_spec_id = static_cast<int32_t>(d.Below(5));
  m.content = d.Chance(128) ? ManifestContent::kData : ManifestContent::kDeletes;
  m.sequence_number = d.Chance(60) ? kUnassigned : d.Count(list_sequence);
  m.min_sequence_number = d.Chance(60) ? kUnassigned : d.Count(list_sequence);
  if (m.sequence_number != kUnassigned && m.min_sequence_number > m.sequence_number) {
    m.min_sequence_number = m.sequence_number;
  }
  m.added_snapshot_id = d.Chance(60) ? kUnassigned : d.Count(std::numeric_limits<int64_t>::max());
  m.added_files_count = static_cast<int32_t>(d.Count(std::numeric_limits<int32_t>::max()));
  m.existing_files_count = static_cast<int32_t>(d.Count(std::numeric_limits<int32_t>::max()));
  m.deleted_files_count = static_cast<int32_t>(d.Count(std::numeric_limits<int32_t>::max()));
  m.added_rows_count = d.Count(std::numeric_limits<int64_t>::max());
  m.existing_rows_count = d.Count(std::numeric_limits<int64_t>::max());
  m.deleted_rows_count = d.Count(std::numeric_limits<int64_t>::max());
  const uint32_t parts = d.Below(4);
  for (uint32_t i = 0; i < parts; ++i) {
    PartitionFieldSummary s;
    s.contains_null = d.U8() & 1;
    if (d.Chance(128)) s.contains_nan = d.U8() & 1;
    if (d.Chance(180)) s.lower_bound = d.Bytes(9);
    if (d.Chance(180)) s.upper_bound = d.Bytes(9);
    m.partitions.push_back(s);
  }
  if (d.Chance(40)) m.key_metadata = d.Bytes(12);
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Draw d(data, size);
  const Schema& schema = TableSchema();
  const PartitionSpec spec = RandomSpec(d);
  auto partition_type = spec.PartitionType(schema);
  if (!partition_type)
    Fail("a valid spec has no partition type: " + partition_type.error().ToString());
  const ManifestContent content =
      d.Chance(128) ? ManifestContent::kData : ManifestContent::kDeletes;

  ManifestWriteOptions options;
  static const Codec kCodecs[] = {Codec::kUncompressed, Codec::kDeflateRaw, Codec::kSnappy,
                                  Codec::kZstd};
  options.codec = kCodecs[d.Below(4)];
  const int64_t list_sequence = 1 + d.Count(int64_t{1} << 40);
  const int64_t list_snapshot = d.Count(std::numeric_limits<int64_t>::max());
  const std::optional<int64_t> parent =
      d.Chance(128) ? std::optional<int64_t>(d.Count(std::numeric_limits<int64_t>::max()))
                    : std::nullopt;
  const int64_t manifest_snapshot =
      d.Chance(128) ? kUnassigned : d.Count(std::numeric_limits<int64_t>::max());

  // The manifest.
  std::vector<ManifestEntry> entries;
  const uint32_t count = d.Below(d.Chance(30) ? 200 : 8);
  for (uint32_t i = 0; i < count; ++i) {
    ManifestEntry e;
    e.data_file = RandomFile(d, content, **partition_type, static_cast<int>(i));
    const uint8_t s = d.U8() % 3;
    e.status = s == 0   ? ManifestEntryStatus::kAdded
               : s == 1 ? ManifestEntryStatus::kExisting
                        : ManifestEntryStatus::kDeleted;
    if (e.status != ManifestEntryStatus::kAdded || d.Chance(60)) {
      e.snapshot_id = d.Count(std::numeric_limits<int64_t>::max());
      e.sequence_number = d.Count(list_sequence);
      e.file_sequence_number = d.Count(list_sequence);
    }
    entries.push_back(std::move(e));
  }
  std::string spec_text;
  for (const auto& f : spec.fields())
    spec_text += fmt::format(" {}:{}", f.source_id, f.transform.ToString());
  const std::string context =
      fmt::format("spec [{} ], content {}, codec {}, {} entries", spec_text,
                  static_cast<int>(content), CodecName(options.codec), entries.size());
  // FLOE_FUZZ_DESCRIBE=1 prints each recipe (to pick seeds that cover each type and codec).
  if (std::getenv("FLOE_FUZZ_DESCRIBE")) std::fprintf(stderr, "recipe: %s\n", context.c_str());
  std::string manifest_bytes;
  const std::string manifest_path = "s3://bucket/t/metadata/m0.avro";
  auto writer = ManifestWriter::Open(std::make_unique<StringOutput>(&manifest_bytes, manifest_path),
                                     schema, spec, content, manifest_snapshot, options);
  if (!writer)
    Fail("manifest writer refused to open: " + writer.error().ToString() + "\n" + context);
  for (size_t i = 0; i < entries.size(); ++i) {
    if (auto st = (*writer)->Add(entries[i]); !st) {
      Fail(fmt::format("manifest writer refused entry {} ({}): {}\n{}", i,
                       DescribeEntry(entries[i], **partition_type), st.error().ToString(),
                       context));
    }
  }
  auto closed = (*writer)->Close();
  if (!closed)
    Fail("manifest writer failed to close: " + closed.error().ToString() + "\n" + context);
  if (closed->manifest_length != static_cast<int64_t>(manifest_bytes.size()) ||
      closed->manifest_path != manifest_path) {
    Fail(fmt::format("Close describes {}; the file has {} bytes\n{}", DescribeList(*closed),
                     manifest_bytes.size(), context));
  }

  // The manifest list: the manifest at a random position among others.
  std::vector<ManifestFile> listed;
  std::string list_bytes;
  auto list_writer =
      ManifestListWriter::Open(std::make_unique<StringOutput>(&list_bytes, "snap.avro"),
                               list_snapshot, parent, list_sequence, options);
  if (!list_writer) Fail("manifest list writer refused to open: " + list_writer.error().ToString());
  const uint32_t others = d.Below(4);
  const uint32_t at = d.Below(others + 1);
  size_t manifest_index = 0;
  for (uint32_t i = 0; i <= others; ++i) {
    ManifestFile m = i == at ? *closed : RandomListEntry(d, list_sequence, static_cast<int>(i));
    auto added = (*list_writer)->Add(m);
    if (!added) {
      Fail(fmt::format("manifest list writer refused {}: {}\n{}", DescribeList(m),
                       added.error().ToString(), context));
    }
    if (i == at) manifest_index = listed.size();
    listed.push_back(*added);
  }
  auto list_length = (*list_writer)->Close();
  if (!list_length || *list_length != static_cast<int64_t>(list_bytes.size())) {
    Fail("manifest list writer failed to close or miscounted its length\n" + context);
  }
  ManifestListInfo info;
  auto read_list = ReadManifestList(*MemoryInput(list_bytes, "snap.avro"), &info);
  if (!read_list)
    Fail("floe's manifest list does not read: " + read_list.error().ToString() + "\n" + context);
  if (info.format_version != 2 || info.snapshot_id != list_snapshot ||
      info.parent_snapshot_id != parent || info.sequence_number != list_sequence) {
    Fail(
        fmt::format("manifest list header read as version {} snapshot {} parent {} sequence {}\n{}",
                    info.format_version, Show(info.snapshot_id), Show(info.parent_snapshot_id),
                    Show(info.sequence_number), context));
  }
  if (read_list->size() != listed.size())
    Fail("manifest list read back a different count\n" + context);
  for (size_t i = 0; i < listed.size(); ++i) {
    if (!((*read_list)[i] == listed[i])) {
      Fail(fmt::format("manifest list entry {}: wrote {}\nread {}\n{}", i, DescribeList(listed[i]),
                       DescribeList((*read_list)[i]), context));
    }
  }

  // The manifest, read through its list entry.
  TableMetadata metadata;
  metadata.format_version = 2;
  metadata.location = "s3://bucket/t";
  metadata.schemas = {std::make_shared<Schema>(schema)};
  metadata.specs = {PartitionSpec::Unpartitioned(0), spec};
  metadata.default_spec_id = spec.spec_id();
  metadata.last_partition_id = std::max(spec.LastAssignedFieldId(), kUnpartitionedLastPartitionId);
  metadata.last_sequence_number = list_sequence;
  const ManifestFile& entry = (*read_list)[manifest_index];
  ManifestInfo minfo;
  auto read =
      ReadManifest(*MemoryInput(manifest_bytes, manifest_path), entry, metadata, {}, &minfo);
  if (!read) Fail("floe's manifest does not read: " + read.error().ToString() + "\n" + context);
  if (minfo.format_version != 2 || minfo.content != content || !(minfo.spec == spec)) {
    Fail(fmt::format("manifest header read as version {} content {} spec {} fields\n{}",
                     minfo.format_version, static_cast<int>(minfo.content),
                     minfo.spec.fields().size(), context));
  }
  if (read->size() != entries.size()) {
    Fail(fmt::format("manifest read back {} entries, wrote {}\n{}", read->size(), entries.size(),
                     context));
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    // Sequence Number Inheritance: null snapshot ids and (ADDED) sequence numbers come from the
    // list.
    ManifestEntry want = entries[i];
    if (!want.snapshot_id) want.snapshot_id = entry.added_snapshot_id;
    if (!want.sequence_number) want.sequence_number = entry.sequence_number;
    if (!want.file_sequence_number) want.file_sequence_number = entry.sequence_number;
    if (!((*read)[i] == want)) {
      Fail(fmt::format("manifest entry {}:\nwant {}\nread {}\n{}", i,
                       DescribeEntry(want, **partition_type),
                       DescribeEntry((*read)[i], **partition_type), context));
    }
  }
  return 0;
}
