// Manifest model (sequence-number inheritance, counts), metrics modes and
// bound truncation (PITFALLS 69-74, 92), and Java-compatible name sanitizing.
#include "floe/iceberg/manifest.h"
#include "floe/iceberg/metrics_config.h"
#include "floe/types/names.h"

#include <gtest/gtest.h>

#include <cmath>

#include "testing/matchers.h"

namespace floe::iceberg {
namespace manifest_metrics_test {

DataFile File(std::string path, int64_t rows) {
  DataFile f;
  f.file_path = std::move(path);
  f.record_count = rows;
  f.file_size_in_bytes = 100;
  return f;
}

ManifestFile ListEntry(int64_t seq, int64_t snapshot) {
  ManifestFile m;
  m.manifest_path = "s3://b/t/metadata/m0.avro";
  m.sequence_number = seq;
  m.added_snapshot_id = snapshot;
  return m;
}

TEST(Manifest, AddedEntriesInheritFromTheManifestList) {
  ManifestEntry e = AddedEntry(File("s3://b/t/data/a.parquet", 10));
  EXPECT_FALSE(e.snapshot_id);
  EXPECT_FALSE(e.sequence_number);
  EXPECT_FALSE(e.file_sequence_number);
  ManifestFile m = ListEntry(7, 42);
  ASSERT_OK(InheritFromManifest(m, 2, &e));
  EXPECT_EQ(e.snapshot_id, 42);
  EXPECT_EQ(e.sequence_number, 7);
  EXPECT_EQ(e.file_sequence_number, 7);

  // Explicit values are never replaced.
  ManifestEntry explicit_seq = AddedEntry(File("s3://b/t/data/b.parquet", 1));
  explicit_seq.sequence_number = 3;
  ASSERT_OK(InheritFromManifest(m, 2, &explicit_seq));
  EXPECT_EQ(explicit_seq.sequence_number, 3);
  EXPECT_EQ(explicit_seq.file_sequence_number, 7);
}

TEST(Manifest, ExistingAndDeletedEntriesNeedExplicitSequenceNumbers) {
  ManifestFile m = ListEntry(7, 42);
  ManifestEntry existing;
  existing.status = ManifestEntryStatus::kExisting;
  existing.data_file = File("s3://b/t/data/a.parquet", 10);
  existing.sequence_number = 2;
  auto st = InheritFromManifest(m, 2, &existing);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(st.error().message.find("EXISTING entry for s3://b/t/data/a.parquet has a null file_sequence_number"),
            std::string::npos)
      << st.error().message;
  // A v1 manifest reads missing sequence numbers as 0.
  ManifestEntry v1 = existing;
  ASSERT_OK(InheritFromManifest(m, 1, &v1));
  EXPECT_EQ(v1.sequence_number, 2);
  EXPECT_EQ(v1.file_sequence_number, 0);

  // Carrying an entry forward: only after inheritance, and DELETED records the deleter.
  ManifestEntry added = AddedEntry(File("s3://b/t/data/c.parquet", 5));
  EXPECT_FALSE(ExistingEntry(added));
  ASSERT_OK(InheritFromManifest(m, 2, &added));
  auto carried = ExistingEntry(added);
  ASSERT_OK(carried);
  EXPECT_EQ(carried->status, ManifestEntryStatus::kExisting);
  EXPECT_EQ(carried->sequence_number, 7);
  EXPECT_EQ(carried->snapshot_id, 42);
  auto deleted = DeletedEntry(added, 99);
  ASSERT_OK(deleted);
  EXPECT_EQ(deleted->status, ManifestEntryStatus::kDeleted);
  EXPECT_EQ(deleted->snapshot_id, 99);
  EXPECT_EQ(deleted->sequence_number, 7);
  EXPECT_FALSE(ExistingEntry(*deleted));
}

TEST(Manifest, CountsAndMinSequenceNumber) {
  std::vector<ManifestEntry> entries;
  entries.push_back(AddedEntry(File("s3://b/t/data/new.parquet", 10)));  // inherits 9
  ManifestEntry old;
  old.status = ManifestEntryStatus::kExisting;
  old.snapshot_id = 1;
  old.sequence_number = 3;
  old.file_sequence_number = 3;
  old.data_file = File("s3://b/t/data/old.parquet", 20);
  entries.push_back(old);
  ManifestEntry gone = old;
  gone.status = ManifestEntryStatus::kDeleted;
  gone.sequence_number = 1;  // deleted entries do not lower min_sequence_number
  gone.data_file = File("s3://b/t/data/gone.parquet", 5);
  entries.push_back(gone);
  ManifestFile m = ListEntry(9, 50);
  ASSERT_OK(SetCounts(entries, &m));
  EXPECT_EQ(m.added_files_count, 1);
  EXPECT_EQ(m.existing_files_count, 1);
  EXPECT_EQ(m.deleted_files_count, 1);
  EXPECT_EQ(m.added_rows_count, 10);
  EXPECT_EQ(m.existing_rows_count, 20);
  EXPECT_EQ(m.deleted_rows_count, 5);
  EXPECT_EQ(m.min_sequence_number, 3);
  EXPECT_OK(ValidateManifest(m, entries));
  EXPECT_EQ(CountEntries({entries[0]}, 9)->min_sequence_number, 9);

  ManifestFile wrong = m;
  wrong.added_rows_count = 11;
  EXPECT_FALSE(ValidateManifest(wrong, entries));
  entries.push_back(AddedEntry(File("s3://b/t/data/new.parquet", 0)));
  ASSERT_OK(SetCounts(entries, &m));
  auto dup = ValidateManifest(m, entries);
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.error().message.find("is live twice"), std::string::npos);
  entries.pop_back();
  DataFile del = File("s3://b/t/data/del.parquet", 1);
  del.content = DataFileContent::kPositionDeletes;
  entries.push_back(AddedEntry(del));
  ASSERT_OK(SetCounts(entries, &m));
  auto mixed = ValidateManifest(m, entries);
  ASSERT_FALSE(mixed);
  EXPECT_NE(mixed.error().message.find("holds data but lists delete file"), std::string::npos);
}

TEST(Manifest, DataFileRulesAndNames) {
  DataFile eq = File("s3://b/t/data/eq.parquet", 1);
  eq.content = DataFileContent::kEqualityDeletes;
  EXPECT_FALSE(eq.Validate());
  eq.equality_ids = {1};
  EXPECT_OK(eq.Validate());
  DataFile pos = File("s3://b/t/data/pos.parquet", 1);
  pos.content = DataFileContent::kPositionDeletes;
  pos.sort_order_id = 0;
  EXPECT_FALSE(pos.Validate());
  DataFile d = File("s3://b/t/data/d.parquet", 1);
  d.split_offsets = {100, 4};
  EXPECT_FALSE(d.Validate());
  d.split_offsets = {4, 100};
  d.value_counts[1] = 2;
  d.null_value_counts[1] = 3;
  EXPECT_FALSE(d.Validate());
  EXPECT_EQ(FileFormatName(FileFormat::kParquet), "PARQUET");
  EXPECT_EQ(*ParseFileFormat("parquet"), FileFormat::kParquet);
  EXPECT_EQ(*ParseFileFormat("AVRO"), FileFormat::kAvro);
  EXPECT_FALSE(ParseFileFormat("csv"));
  EXPECT_EQ(*ParseManifestContent("deletes"), ManifestContent::kDeletes);
  EXPECT_FALSE(ParseManifestContent("delete"));
}

TEST(Metrics, ModesAndProperties) {
  EXPECT_EQ(MetricsConfig().ModeFor("x"), MetricsMode::Truncate(16));
  EXPECT_EQ(*MetricsMode::Parse("Truncate(8)"), MetricsMode::Truncate(8));
  EXPECT_EQ(*MetricsMode::Parse("counts"), MetricsMode::Counts());
  EXPECT_EQ(*MetricsMode::Parse("NONE"), MetricsMode::None());
  EXPECT_EQ(*MetricsMode::Parse("full"), MetricsMode::Full());
  EXPECT_FALSE(MetricsMode::Parse("truncate(0)"));
  EXPECT_FALSE(MetricsMode::Parse("truncate(x)"));
  EXPECT_FALSE(MetricsMode::Parse("some"));
  auto config = MetricsConfig::FromProperties({{"write.metadata.metrics.default", "counts"},
                                               {"write.metadata.metrics.column.name", "full"},
                                               {"write.metadata.metrics.column.loc.city", "truncate(4)"},
                                               {"other", "x"}});
  ASSERT_TRUE(config) << config.error().ToString();
  EXPECT_EQ(config->ModeFor("id"), MetricsMode::Counts());
  EXPECT_EQ(config->ModeFor("name"), MetricsMode::Full());
  EXPECT_EQ(config->ModeFor("loc.city"), MetricsMode::Truncate(4));
  Schema schema({{1, "name", false, StringType(), {}},
                 {2, "loc", false, StructType({{3, "city", false, StringType(), {}}}), {}}});
  EXPECT_OK(config->ValidateColumns(schema));
  auto missing = MetricsConfig::FromProperties({{"write.metadata.metrics.column.nope", "full"}});
  ASSERT_OK(missing);
  EXPECT_FALSE(missing->ValidateColumns(schema));
  auto bad = MetricsConfig::FromProperties({{"write.metadata.metrics.default", "truncate(-1)"}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("write.metadata.metrics.default"), std::string::npos);
}

TEST(Metrics, ApplyingModes) {
  ColumnMetrics raw{100, 10, 2, std::nullopt, std::string("aaaaaaaaaaaaaaaaaaaaaa"),
                    std::string("zzzzzzzzzzzzzzzzzzzzzz")};
  EXPECT_EQ(ApplyMetricsMode(MetricsMode::None(), *StringType(), raw), ColumnMetrics{});
  ColumnMetrics counts = ApplyMetricsMode(MetricsMode::Counts(), *StringType(), raw);
  EXPECT_EQ(counts.value_count, 10);
  EXPECT_EQ(counts.null_count, 2);
  EXPECT_EQ(counts.column_size, 100);
  EXPECT_FALSE(counts.lower_bound);
  EXPECT_FALSE(counts.upper_bound);
  EXPECT_EQ(ApplyMetricsMode(MetricsMode::Full(), *StringType(), raw), raw);
  ColumnMetrics t = ApplyMetricsMode(MetricsMode::Truncate(16), *StringType(), raw);
  EXPECT_EQ(t.lower_bound, std::string(16, 'a'));
  EXPECT_EQ(t.upper_bound, std::string(15, 'z') + "{");
  // Truncate leaves non-string/binary bounds whole.
  ColumnMetrics longs{std::nullopt, 1, 0, std::nullopt, std::string(8, '\x01'), std::string(8, '\x02')};
  EXPECT_EQ(ApplyMetricsMode(MetricsMode::Truncate(1), *LongType(), longs), longs);
  ColumnMetrics bin{std::nullopt, 1, 0, std::nullopt, std::string("\x01\x02\x03", 3), std::string("\x01\xff\xff", 3)};
  ColumnMetrics tb = ApplyMetricsMode(MetricsMode::Truncate(2), *BinaryType(), bin);
  EXPECT_EQ(tb.lower_bound, std::string("\x01\x02", 2));
  EXPECT_EQ(tb.upper_bound, std::string("\x02", 1));
}

TEST(Metrics, TruncationEdgeCases) {
  // Short values are kept whole.
  EXPECT_EQ(TruncateStringUpper("abc", 3), "abc");
  EXPECT_EQ(TruncateStringLower("abc", 5), "abc");
  // Multi-byte code points count once: é (2 bytes), 😀 (4 bytes).
  EXPECT_EQ(TruncateStringLower("\xC3\xA9\xC3\xA9\xC3\xA9", 2), "\xC3\xA9\xC3\xA9");
  EXPECT_EQ(TruncateStringUpper("\xC3\xA9\xC3\xA9\xC3\xA9", 2), "\xC3\xA9\xC3\xAA");
  EXPECT_EQ(TruncateStringUpper("a\xF0\x9F\x98\x80z", 2), "a\xF0\x9F\x98\x81");
  // U+007F -> U+0080 grows from 1 to 2 bytes.
  EXPECT_EQ(TruncateStringUpper("a\x7Fz", 2), "a\xC2\x80");
  // U+D7FF -> U+E000: surrogates are skipped.
  EXPECT_EQ(TruncateStringUpper("\xED\x9F\xBFz", 1), "\xEE\x80\x80");
  // The max code point cannot grow: the previous one is incremented instead.
  EXPECT_EQ(TruncateStringUpper("a\xF4\x8F\xBF\xBFz", 2), "b");
  EXPECT_EQ(TruncateStringUpper("\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBFz", 2), std::nullopt);
  // Every upper bound is >= the value it bounds (byte order = code point order in UTF-8).
  for (std::string v : {"abc\xC3\xBF" "def", "\xEF\xBF\xBFxyz", "zz\x7F\x7F"}) {
    auto up = TruncateStringUpper(v, 3);
    ASSERT_TRUE(up);
    EXPECT_GT(*up, v.substr(0, up->size())) << v;
    EXPECT_GE(*up, v.substr(0, std::min(v.size(), up->size())));
  }
  EXPECT_EQ(TruncateBinaryUpper(std::string("\x01\x02\x03", 3), 2), std::string("\x01\x03", 2));
  EXPECT_EQ(TruncateBinaryUpper(std::string("\xff\xff\x01", 3), 2), std::nullopt);
  EXPECT_EQ(TruncateBinaryUpper(std::string("\x01\x02", 2), 2), std::string("\x01\x02", 2));
}

TEST(Names, SanitizeLikeJava) {
  EXPECT_EQ(SanitizeName("Breed Name"), "Breed_x20Name");
  EXPECT_EQ(SanitizeName("a b"), "a_x20b");
  EXPECT_EQ(SanitizeName("1st"), "_1st");
  EXPECT_EQ(SanitizeName("a.b-c"), "a_x2Eb_x2Dc");
  EXPECT_EQ(SanitizeName("$x"), "_x24x");
  EXPECT_EQ(SanitizeName("ok_name9"), "ok_name9");
  EXPECT_EQ(SanitizeName("_"), "_");
  EXPECT_EQ(SanitizeName("caf\xC3\xA9"), "caf_xE9");
  EXPECT_TRUE(IsValidAvroName("__happy__"));
  EXPECT_FALSE(IsValidAvroName("9"));
  EXPECT_FALSE(IsValidAvroName(""));
}

}  // namespace manifest_metrics_test
}  // namespace floe::iceberg

namespace floe::iceberg {
namespace manifest_metrics_test {

TEST(PartitionSummary, BoundsSkipNullsAndNaN) {
  auto type = StructType({{1000, "d", false, DateType(), {}},
                          {1001, "x", false, DoubleType(), {}},
                          {1002, "s", false, StringType(), {}}});
  PartitionSummaryBuilder b(type);
  ASSERT_OK(b.Add({Value::Date(5), Value::Double(2.5), Value::String("b")}));
  ASSERT_OK(b.Add({Value::Date(-3), Value::Double(std::nan("")), Value::Null()}));
  ASSERT_OK(b.Add({Value::Date(9), Value::Double(-0.0), Value::String("\xC3\xA9")}));
  ASSERT_OK(b.Add({Value::Date(1), Value::Double(0.0), Value::String("a")}));
  EXPECT_FALSE(b.Add({Value::Date(1)}));                                          // wrong arity
  EXPECT_FALSE(b.Add({Value::Long(1), Value::Double(0.0), Value::String("a")}));  // wrong form
  auto s = b.Finish();
  ASSERT_TRUE(s) << s.error().ToString();
  ASSERT_EQ(s->size(), 3u);
  EXPECT_FALSE((*s)[0].contains_null);
  EXPECT_EQ((*s)[0].contains_nan, false);
  EXPECT_EQ(*FromBinary(*DateType(), *(*s)[0].lower_bound), Value::Date(-3));
  EXPECT_EQ(*FromBinary(*DateType(), *(*s)[0].upper_bound), Value::Date(9));
  EXPECT_EQ((*s)[1].contains_nan, true);
  EXPECT_EQ(*FromBinary(*DoubleType(), *(*s)[1].lower_bound), Value::Double(-0.0));
  EXPECT_EQ(*FromBinary(*DoubleType(), *(*s)[1].upper_bound), Value::Double(2.5));
  EXPECT_TRUE((*s)[2].contains_null);
  EXPECT_EQ((*s)[2].lower_bound, "a");
  EXPECT_EQ((*s)[2].upper_bound, "\xC3\xA9");  // bytes compare unsigned

  PartitionSummaryBuilder all_null(StructType({{1000, "p", false, IntType(), {}}}));
  ASSERT_OK(all_null.Add({Value::Null()}));
  auto n = all_null.Finish();
  EXPECT_TRUE((*n)[0].contains_null);
  EXPECT_FALSE((*n)[0].lower_bound);
}

TEST(CompareValues, IcebergOrdering) {
  EXPECT_LT(CompareValues(*DoubleType(), Value::Double(-0.0), Value::Double(0.0)), 0);
  EXPECT_GT(CompareValues(*DoubleType(), Value::Double(std::nan("")), Value::Double(1e308)), 0);
  EXPECT_LT(CompareValues(*FloatType(), Value::Float(-1.0f), Value::Float(1.0f)), 0);
  EXPECT_LT(CompareValues(*StringType(), Value::String("z"), Value::String("\xC3\xA9")), 0);
  EXPECT_LT(CompareValues(*DecimalType(9, 2), Value::Decimal(-5), Value::Decimal(3)), 0);
  EXPECT_EQ(CompareValues(*LongType(), Value::Long(7), Value::Long(7)), 0);
  EXPECT_LT(CompareValues(*BooleanType(), Value::Boolean(false), Value::Boolean(true)), 0);
}

}  // namespace manifest_metrics_test
}  // namespace floe::iceberg
