// The Parquet writer's compression threads (WriterOptions::parallelism): the file is
// byte-identical for 1, 2 and 4 threads over every codec, both page versions,
// dictionary on and off, nested types, nulls, several pages and row groups, bloom
// filters and the page index; a compressor failing on a worker thread or a failing
// output file surfaces as an error from Write or Close and leaves no file behind;
// Abort with pages in flight joins the threads and leaves nothing. (The outside
// readers check files written with parallelism 4 in interop_write_test.cc.)
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "floe/parquet/page_pool_internal.h"
#include "floe/parquet/writer.h"
#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/schema.h"
#include "writer_test_util.h"

namespace floe::parquet {
namespace writer_parallel_test {

namespace fs = std::filesystem;
using testing::RandomFiller;

using test::Field;

SchemaPtr MatrixSchema() {
  std::vector<NestedField> f;
  f.push_back(Field(1, "b", BooleanType()));
  f.push_back(Field(2, "i", IntType()));
  f.push_back(Field(3, "l", LongType(), true));
  f.push_back(Field(4, "f", FloatType()));
  f.push_back(Field(5, "d", DoubleType()));
  f.push_back(Field(6, "dec9", DecimalType(9, 2)));
  f.push_back(Field(7, "dec38", DecimalType(38, 10)));
  f.push_back(Field(8, "dt", DateType()));
  f.push_back(Field(9, "ts", TimestampType()));
  f.push_back(Field(10, "s", StringType()));
  f.push_back(Field(11, "u", UuidType()));
  f.push_back(Field(12, "fx", FixedType(5)));
  f.push_back(Field(13, "bin", BinaryType()));
  f.push_back(
      Field(14, "st", StructType({Field(15, "x", IntType(), true), Field(16, "y", StringType())})));
  f.push_back(Field(17, "li", ListType(18, false, IntType())));
  f.push_back(Field(19, "mp", MapType(20, StringType(), 21, false, LongType())));
  auto inner = ListType(24, false, StringType());
  f.push_back(
      Field(22, "deep",
            ListType(23, false,
                     StructType({Field(25, "a", inner), Field(26, "z", DecimalType(20, 3))}))));
  return std::make_shared<Schema>(std::move(f));
}

std::vector<Batch> MatrixBatches(const SchemaPtr& schema, uint64_t seed) {
  std::vector<Batch> out;
  for (int i = 0; i < 4; ++i) {
    Batch b(schema);
    RandomFiller filler(seed * 10 + i, i == 2 ? 0.6 : 0.15);
    if (i == 3) filler.SetBigStrings(50, 3000);
    filler.Fill(&b, i == 1 ? 700 : 300);
    out.push_back(std::move(b));
  }
  return out;
}

using test::ReadFile;

// Restores the real compressors when a test ends.
struct FactoryGuard {
  ~FactoryGuard() { SetCompressorFactoryForTesting(nullptr); }
};

// Compresses like zstd until a shared countdown reaches zero, then fails.
class FailingCompressor final : public Compressor {
 public:
  FailingCompressor(std::unique_ptr<Compressor> inner, std::atomic<int>* countdown)
      : inner_(std::move(inner)), countdown_(countdown) {}
  Status Compress(const uint8_t* data, size_t size, Buffer* out) override {
    if (countdown_->fetch_sub(1) <= 0) return Internal("injected compressor failure");
    return inner_->Compress(data, size, out);
  }

 private:
  std::unique_ptr<Compressor> inner_;
  std::atomic<int>* countdown_;
};

// An output file that fails once it has taken `limit` bytes.
class FailingOutput final : public OutputFile {
 public:
  FailingOutput(std::unique_ptr<OutputFile> inner, int64_t limit) : inner_(std::move(inner)), limit_(limit) {}
  Status Write(const void* data, size_t size) override {
    if (inner_->Tell() + static_cast<int64_t>(size) > limit_) return IoError("injected write failure");
    return inner_->Write(data, size);
  }
  int64_t Tell() const override { return inner_->Tell(); }
  Status Commit() override { return inner_->Commit(); }
  void Abort() override { inner_->Abort(); }
  const std::string& path() const override { return inner_->path(); }

 private:
  std::unique_ptr<OutputFile> inner_;
  int64_t limit_;
};

class WriterParallel : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::FreshTestDir("floe_pq_parallel_"); }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  // Writes `batches` to `name` with `options`; the file's bytes, or "" on failure.
  std::string Write(const std::string& name, const SchemaPtr& schema, const std::vector<Batch>& batches,
                    const WriterOptions& options, WriteResult* result) {
    auto out = OpenLocalOutput((dir_ / name).string(), true);
    EXPECT_OK(out);
    auto w = FileWriter::Open(std::move(*out), schema, options);
    EXPECT_TRUE(w) << w.error().ToString();
    if (!w) return "";
    for (const Batch& b : batches) {
      auto st = (*w)->Write(b);
      EXPECT_TRUE(st) << name << ": " << st.error().ToString();
      if (!st) return "";
    }
    auto r = (*w)->Close();
    EXPECT_TRUE(r) << name << ": " << r.error().ToString();
    if (!r) return "";
    *result = std::move(*r);
    return ReadFile(dir_ / name);
  }

  fs::path dir_;
};

void ExpectSameMetrics(const WriteResult& a, const WriteResult& b, const std::string& what) {
  EXPECT_EQ(a.file_size_bytes, b.file_size_bytes) << what;
  EXPECT_EQ(a.num_rows, b.num_rows) << what;
  EXPECT_EQ(a.row_group_offsets, b.row_group_offsets) << what;
  ASSERT_EQ(a.columns.size(), b.columns.size()) << what;
  for (size_t i = 0; i < a.columns.size(); ++i) {
    const auto& x = a.columns[i];
    const auto& y = b.columns[i];
    EXPECT_EQ(x.field_id, y.field_id) << what;
    EXPECT_EQ(x.compressed_size, y.compressed_size) << what << " column " << x.field_id;
    EXPECT_EQ(x.value_count, y.value_count) << what;
    EXPECT_EQ(x.null_count, y.null_count) << what;
    EXPECT_EQ(x.nan_count, y.nan_count) << what;
    EXPECT_EQ(x.lower_bound, y.lower_bound) << what;
    EXPECT_EQ(x.upper_bound, y.upper_bound) << what;
  }
}

TEST_F(WriterParallel, FilesAreByteIdenticalForOneTwoAndFourThreads) {
  auto schema = MatrixSchema();
  uint64_t seed = 1;
  int cases = 0;
  for (Codec codec : {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip, Codec::kZstd,
                      Codec::kLz4Raw, Codec::kBrotli}) {
    for (PageVersion pv : {PageVersion::kV1, PageVersion::kV2}) {
      for (bool dict : {true, false}) {
        WriterOptions o;
        o.codec = codec;
        o.page_version = pv;
        o.dictionary_enabled = dict;
        o.page_row_limit = 50;               // several pages per chunk
        o.row_group_size_bytes = 60000;      // several row groups
        o.write_batch_rows = 128;
        o.dict_size_bytes = dict && codec == Codec::kZstd ? 400 : 2097152;  // fallback too
        o.bloom_filter_columns["s"] = true;
        o.bloom_filter_columns["l"] = true;
        o.bloom_filter_columns["deep.element.a.element"] = true;
        auto batches = MatrixBatches(schema, seed++);
        std::string name = fmt::format("{}_{}_{}", CodecName(codec), pv == PageVersion::kV1 ? "v1" : "v2",
                                       dict ? "dict" : "plain");
        WriteResult base;
        o.parallelism = 1;
        std::string one = Write(name + "_p1.parquet", schema, batches, o, &base);
        ASSERT_FALSE(one.empty()) << name;
        ASSERT_GT(base.row_group_offsets.size(), 1u) << name << ": wanted several row groups";
        for (int p : {2, 4}) {
          o.parallelism = p;
          WriteResult r;
          std::string other = Write(fmt::format("{}_p{}.parquet", name, p), schema, batches, o, &r);
          EXPECT_TRUE(other == one) << name << ": parallelism " << p << " wrote a different file ("
                                    << other.size() << " bytes vs " << one.size() << ")";
          ExpectSameMetrics(base, r, fmt::format("{} p{}", name, p));
        }
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 24);
}

// Many pages in flight at once: big batches, small pages, the window (32 pages) fills
// many times over.
TEST_F(WriterParallel, ManyPagesInFlightStayInOrder) {
  auto schema = std::make_shared<Schema>(std::vector<NestedField>{
      Field(1, "id", LongType(), true), Field(2, "s", StringType()), Field(3, "d", DoubleType())});
  Batch b(schema);
  RandomFiller filler(7, 0.05);
  filler.Fill(&b, 60000);
  WriterOptions o;
  o.page_row_limit = 100;
  o.write_batch_rows = 60000;
  WriteResult base;
  o.parallelism = 1;
  std::string one = Write("p1.parquet", schema, {b}, o, &base);
  ASSERT_FALSE(one.empty());
  for (int p : {2, 3, 8}) {
    o.parallelism = p;
    WriteResult r;
    std::string other = Write(fmt::format("p{}.parquet", p), schema, {b}, o, &r);
    EXPECT_TRUE(other == one) << "parallelism " << p;
    ExpectSameMetrics(base, r, fmt::format("p{}", p));
  }
}

// A partitioned write keeps one file open per partition: the pools share one
// budget of worker threads, and a pool past it compresses on the caller's
// thread, with the same bytes.
TEST_F(WriterParallel, OpenFilesShareOneWorkerBudget) {
  auto schema = std::make_shared<Schema>(std::vector<NestedField>{
      Field(1, "id", LongType(), true), Field(2, "s", StringType()), Field(3, "d", DoubleType())});
  Batch b(schema);
  RandomFiller filler(11, 0.1);
  filler.Fill(&b, 5000);
  WriterOptions o;
  o.page_row_limit = 500;
  o.parallelism = 1;
  WriteResult base;
  const std::string one = Write("base.parquet", schema, {b}, o, &base);
  ASSERT_FALSE(one.empty());
  ASSERT_EQ(PagePool::LiveWorkersForTesting(), 0);
  const int files = PagePool::WorkerBudget() + 8;
  o.parallelism = 4;
  std::vector<std::unique_ptr<FileWriter>> writers;
  for (int i = 0; i < files; ++i) {
    auto out = OpenLocalOutput((dir_ / fmt::format("f{}.parquet", i)).string(), true);
    ASSERT_OK(out);
    auto w = FileWriter::Open(std::move(*out), schema, o);
    ASSERT_TRUE(w) << w.error().ToString();
    writers.push_back(std::move(*w));
    EXPECT_LE(PagePool::LiveWorkersForTesting(), PagePool::WorkerBudget()) << i;
  }
  EXPECT_EQ(PagePool::LiveWorkersForTesting(), PagePool::WorkerBudget());
  for (auto& w : writers) ASSERT_OK(w->Write(b));
  for (int i = 0; i < files; ++i) {
    auto r = writers[static_cast<size_t>(i)]->Close();
    ASSERT_TRUE(r) << r.error().ToString();
    writers[static_cast<size_t>(i)].reset();
    EXPECT_TRUE(ReadFile(dir_ / fmt::format("f{}.parquet", i)) == one) << i;
    ExpectSameMetrics(base, *r, fmt::format("f{}", i));
  }
  EXPECT_EQ(PagePool::LiveWorkersForTesting(), 0);
}

TEST_F(WriterParallel, CompressorFailureOnAnyThreadIsAnErrorAndLeavesNoFile) {
  FactoryGuard guard;
  auto schema = MatrixSchema();
  auto batches = MatrixBatches(schema, 99);
  for (int p : {1, 2, 4}) {
    for (int fail_after : {0, 5, 40, 300}) {
      std::atomic<int> countdown{fail_after};
      SetCompressorFactoryForTesting([&](Codec c, int level) -> Result<std::unique_ptr<Compressor>> {
        FLOE_ASSIGN_OR_RETURN(auto inner, MakeCompressor(c, level));
        return std::unique_ptr<Compressor>(new FailingCompressor(std::move(inner), &countdown));
      });
      WriterOptions o;
      o.parallelism = p;
      o.page_row_limit = 50;
      o.write_batch_rows = 64;
      const std::string name = fmt::format("fail_p{}_{}.parquet", p, fail_after);
      auto out = OpenLocalOutput((dir_ / name).string(), true);
      ASSERT_OK(out);
      auto w = FileWriter::Open(std::move(*out), schema, o);
      ASSERT_TRUE(w) << w.error().ToString();
      std::optional<Error> error;
      for (const Batch& b : batches) {
        if (auto st = (*w)->Write(b); !st) {
          error = st.error();
          break;
        }
      }
      if (!error) {
        auto r = (*w)->Close();
        ASSERT_FALSE(r) << name << ": the compressor failed but Close succeeded";
        error = r.error();
      } else {
        (*w)->Abort();
      }
      EXPECT_NE(error->message.find("injected compressor failure"), std::string::npos)
          << name << ": " << error->ToString();
      w->reset();
      EXPECT_TRUE(fs::is_empty(dir_)) << name << ": files left behind";
    }
  }
}

TEST_F(WriterParallel, FailingOutputFileIsAnErrorAndLeavesNoFile) {
  auto schema = MatrixSchema();
  auto batches = MatrixBatches(schema, 5);
  for (int p : {1, 4}) {
    for (int64_t limit : {int64_t{10}, int64_t{20000}, int64_t{200000}}) {
      WriterOptions o;
      o.parallelism = p;
      o.page_row_limit = 50;
      o.row_group_size_bytes = 30000;
      const std::string name = fmt::format("out_p{}_{}.parquet", p, limit);
      auto out = OpenLocalOutput((dir_ / name).string(), true);
      ASSERT_OK(out);
      auto w = FileWriter::Open(std::unique_ptr<OutputFile>(new FailingOutput(std::move(*out), limit)),
                                schema, o);
      std::optional<Error> error;
      if (!w) {
        error = w.error();
      } else {
        for (const Batch& b : batches) {
          if (auto st = (*w)->Write(b); !st) {
            error = st.error();
            (*w)->Abort();
            break;
          }
        }
        if (!error) {
          auto r = (*w)->Close();
          ASSERT_FALSE(r) << name;
          error = r.error();
        }
      }
      EXPECT_NE(error->message.find("injected write failure"), std::string::npos) << error->ToString();
      EXPECT_TRUE(fs::is_empty(dir_)) << name << ": files left behind";
    }
  }
}

TEST_F(WriterParallel, AbortWithPagesInFlightLeavesNothing) {
  auto schema = MatrixSchema();
  auto batches = MatrixBatches(schema, 11);
  for (int p : {1, 2, 4}) {
    for (bool destroy_only : {false, true}) {
      WriterOptions o;
      o.parallelism = p;
      o.page_row_limit = 20;
      o.codec = Codec::kBrotli;  // slow: pages are still queued when Abort comes
      auto out = OpenLocalOutput((dir_ / "aborted.parquet").string(), true);
      ASSERT_OK(out);
      auto w = FileWriter::Open(std::move(*out), schema, o);
      ASSERT_OK(w);
      for (const Batch& b : batches) ASSERT_OK((*w)->Write(b));
      if (!destroy_only) {
        (*w)->Abort();
        EXPECT_FALSE((*w)->Write(batches[0])) << "Write after Abort";
        EXPECT_FALSE((*w)->Close()) << "Close after Abort";
      }
      w->reset();  // joins the threads
      EXPECT_TRUE(fs::is_empty(dir_)) << "p" << p << ": files left behind";
    }
  }
}

TEST_F(WriterParallel, BadParallelismIsAnError) {
  auto schema = MatrixSchema();
  WriterOptions o;
  o.parallelism = 0;
  auto out = OpenLocalOutput((dir_ / "x.parquet").string(), true);
  ASSERT_OK(out);
  auto w = FileWriter::Open(std::move(*out), schema, o);
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().message.find("parallelism 0"), std::string::npos) << w.error().message;
  EXPECT_TRUE(fs::is_empty(dir_));
}

}  // namespace writer_parallel_test
}  // namespace floe::parquet
