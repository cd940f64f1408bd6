// Row and file counts of a manifest are sums over its entries (Iceberg spec:
// Manifest Lists, added_rows_count ...). Entries whose record counts add up
// past a long are an error naming the manifest, never a wrapped (negative)
// count or undefined behaviour. Found by manifest_roundtrip_fuzz (UBSan:
// signed overflow in ManifestWriter::Add).
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>

#include "floe/iceberg/manifest.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/io/file.h"
#include "testing/matchers.h"

namespace floe::iceberg {
namespace manifest_count_overflow_test {

constexpr int64_t kHalf = std::numeric_limits<int64_t>::max() / 2 + 1;

DataFile File(std::string path, int64_t rows) {
  DataFile f;
  f.file_path = std::move(path);
  f.record_count = rows;
  f.file_size_in_bytes = 100;
  return f;
}

class StringOutput final : public OutputFile {
 public:
  explicit StringOutput(std::string* sink) : sink_(sink) {}
  Status Write(const void* data, size_t size) override {
    buf_.append(static_cast<const char*>(data), size);
    return Ok();
  }
  int64_t Tell() const override { return static_cast<int64_t>(buf_.size()); }
  Status Commit() override {
    *sink_ = buf_;
    return Ok();
  }
  void Abort() override { buf_.clear(); }
  const std::string& path() const override { return name_; }

 private:
  std::string* sink_;
  std::string buf_;
  std::string name_ = "m.avro";
};

TEST(ManifestCountOverflow, WriterRefusesAnEntryThatOverflowsTheRowCount) {
  std::string bytes;
  Schema schema({NestedField{1, "id", false, LongType(), ""}});
  auto w = ManifestWriter::Open(std::make_unique<StringOutput>(&bytes), schema,
                                PartitionSpec::Unpartitioned(0), ManifestContent::kData);
  ASSERT_TRUE(w) << w.error().ToString();
  ASSERT_OK((*w)->AddFile(File("s3://b/t/data/a.parquet", kHalf)));
  auto st = (*w)->AddFile(File("s3://b/t/data/b.parquet", kHalf));
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kInvalidArgument);
  EXPECT_NE(st.error().message.find("overflow"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("b.parquet"), std::string::npos) << st.error().message;
  // The refused entry left nothing behind: the manifest holds the first file only.
  EXPECT_EQ((*w)->entry_count(), 1);
  auto m = (*w)->Close();
  ASSERT_TRUE(m) << m.error().ToString();
  EXPECT_EQ(m->added_files_count, 1);
  EXPECT_EQ(m->added_rows_count, kHalf);
}

TEST(ManifestCountOverflow, CountsOfEntriesThatOverflowAreAnError) {
  std::vector<ManifestEntry> entries = {AddedEntry(File("s3://b/t/data/a.parquet", kHalf)),
                                        AddedEntry(File("s3://b/t/data/b.parquet", kHalf))};
  auto c = CountEntries(entries, 1);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("overflow"), std::string::npos) << c.error().message;
  ManifestFile m;
  m.manifest_path = "s3://b/t/metadata/m.avro";
  EXPECT_FALSE(SetCounts(entries, &m));
  auto v = ValidateManifest(m, entries);
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message.find("overflow"), std::string::npos) << v.error().message;
}

}  // namespace manifest_count_overflow_test
}  // namespace floe::iceberg
