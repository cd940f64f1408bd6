/// \file
/// libFuzzer target: arbitrary bytes read as an Iceberg manifest list, as a
/// manifest (data and deletes, with and without column metrics, the header's
/// spec and schema or the table's) and as a v1 manifest a snapshot lists
/// directly. Any input must give entries or a clean error, never a crash, a
/// hang or an allocation beyond the Avro reader's bounds. Seeds: real
/// manifests and lists written by Spark, Java and Trino, and by floe
/// (tests/fuzz_seeds/manifest_fuzz/, see PROVENANCE.md).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file.h"

namespace {

using namespace floe;
using namespace floe::iceberg;

NestedField F(int32_t id, std::string name, TypePtr t) {
  return NestedField{id, std::move(name), false, std::move(t), ""};
}

/// A table whose spec 1 partitions by most transforms; a manifest of another
/// spec id is typed by its header's `partition-spec` and `schema`.
const TableMetadata& Table() {
  static const TableMetadata metadata = [] {
    TableMetadata md;
    md.format_version = 2;
    md.location = "s3://bucket/t";
    md.schemas = {std::make_shared<Schema>(std::vector<NestedField>{
        F(1, "id", LongType()), F(2, "data", StringType()), F(3, "ts", TimestampTzType()),
        F(4, "d", DecimalType(9, 2)), F(5, "u", UuidType()), F(6, "f", FloatType())})};
    auto t = [](const char* text) { return *Transform::Parse(text); };
    md.specs = {PartitionSpec::Unpartitioned(0),
                PartitionSpec(1, {{1, 1000, "id_bucket", t("bucket[16]")},
                                  {2, 1001, "data_trunc", t("truncate[4]")},
                                  {3, 1002, "ts_day", t("day")},
                                  {4, 1003, "d", t("identity")},
                                  {5, 1004, "u", t("identity")},
                                  {6, 1005, "f", t("identity")}})};
    md.default_spec_id = 1;
    md.last_partition_id = 1005;
    md.last_column_id = 6;
    md.last_sequence_number = 100;
    return md;
  }();
  return metadata;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  auto input = MemoryInput(bytes, "fuzz.avro");
  ManifestListInfo list_info;
  (void)ReadManifestList(*input, &list_info);

  ManifestFile entry;
  entry.manifest_path = "fuzz.avro";
  entry.manifest_length = static_cast<int64_t>(size);
  entry.sequence_number = 7;
  entry.min_sequence_number = 3;
  entry.added_snapshot_id = 42;
  for (int32_t spec_id : {1, 9}) {  // the table's spec, or the header's
    for (ManifestContent content : {ManifestContent::kData, ManifestContent::kDeletes}) {
      entry.partition_spec_id = spec_id;
      entry.content = content;
      ManifestInfo info;
      ManifestReadOptions options;
      options.include_column_stats = content == ManifestContent::kData;
      options.skip_deleted = spec_id == 9;
      (void)ReadManifest(*input, entry, Table(), options, &info);
    }
  }
  (void)ReadManifestForPlanning(*input, entry, Table());
  (void)DescribeV1Manifest(*input, Table(), 5);
  return 0;
}
