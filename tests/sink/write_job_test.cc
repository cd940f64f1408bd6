// sink::WriteJob, the library write job behind `floe write`: it creates a
// table on first write and commits one snapshot; every way a write can fail
// after data files were written (a bad row mid-input, a failing Write, a
// refused row kind, destruction without a commit, a lost commit race with no
// retries) leaves the table's folder exactly as it was and drops a table the
// job created; a commit whose outcome is unknown keeps every file. Also the
// decoder format registry.
#include "floe/sink/write_job.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "floe/catalog/forwarding_catalog.h"
#include "floe/format/format_registry.h"
#include "floe/format/jsonl_reader.h"
#include "floe/io/file.h"
#include "floe/table/append_files.h"
#include "floe/types/sql_schema.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::sink {
namespace write_job_test {

namespace fs = std::filesystem;

SchemaPtr Sql(const char* text) {
  auto s = ParseSqlColumns(text);
  EXPECT_TRUE(s) << s.error().message;
  return std::make_shared<Schema>(std::move(*s));
}

/// `n` JSONL rows {"id": first.., "region": "eu"|"us"}.
std::string JsonRows(int64_t first, int64_t n) {
  std::string out;
  for (int64_t i = first; i < first + n; ++i) {
    out += fmt::format("{{\"id\": {}, \"region\": \"{}\"}}\n", i, i % 2 ? "eu" : "us");
  }
  return out;
}

/// One batch of `schema` decoded from JSONL.
Batch Rows(SchemaPtr schema, const std::string& jsonl) {
  format::DecodeOptions o;
  o.batch_rows = 1 << 20;
  auto r = format::JsonlReader::FromString(schema, jsonl, o);
  EXPECT_TRUE(r) << r.error().ToString();
  Batch b(schema);
  auto more = (*r)->Next(&b);
  EXPECT_TRUE(more && *more);
  return b;
}

/// Every path under `root` (folders end in '/') with file sizes: two equal
/// trees hold the same files with the same sizes.
std::set<std::string> Tree(const fs::path& root) {
  std::set<std::string> out;
  if (!fs::exists(root)) return out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    std::string rel = fs::relative(e.path(), root).string();
    out.insert(e.is_directory() ? rel + "/" : fmt::format("{} {}", rel, e.file_size()));
  }
  return out;
}

int CountParquet(const fs::path& root) {
  int n = 0;
  if (!fs::exists(root)) return 0;
  for (const auto& e : fs::recursive_directory_iterator(root))
    n += e.path().extension() == ".parquet";
  return n;
}

/// A catalog that forwards to another, except that CommitTable publishes the
/// commit and then reports kCommitStateUnknown (a lost response).
class UnknownOutcomeCatalog : public catalog::ForwardingCatalog {
 public:
  using ForwardingCatalog::ForwardingCatalog;
  Result<catalog::LoadedTable> CommitTable(const catalog::LoadedTable& base,
                                           iceberg::TableMetadata updated) override {
    FLOE_RETURN_IF_ERROR(inner()->CommitTable(base, std::move(updated)));
    return CommitStateUnknown("the catalog did not answer");
  }
};

class WriteJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_write_job_test_");
    catalog_ = std::move(*catalog::OpenHadoopCatalog("t", dir_.string()));
    schema_ = Sql("id BIGINT NOT NULL, region STRING");
  }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  WriteConfig Config(const std::string& table, std::map<std::string, std::string> write = {}) {
    WriteConfig c;
    c.table = table;
    c.catalog_properties["warehouse"] = dir_.string();
    c.partition_fields = {"region"};
    c.write_properties = std::move(write);
    return c;
  }

  /// Makes db.<name> with one committed row.
  void MakeTable(const std::string& name,
                 std::map<std::string, std::string> table_properties = {}) {
    WriteConfig c = Config("db." + name);
    c.table_properties = std::move(table_properties);
    auto job = WriteJob::Open(c, catalog_.get(), schema_);
    ASSERT_TRUE(job) << job.error().ToString();
    ASSERT_OK((*job)->Write(Rows(schema_, JsonRows(0, 1))));
    auto r = (*job)->Commit();
    ASSERT_TRUE(r) << r.error().ToString();
  }

  fs::path TableDir(const std::string& name) { return dir_ / "db" / name; }

  fs::path dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
  SchemaPtr schema_;
};

TEST_F(WriteJobTest, CreatesTheTableAndCommits) {
  // The job opens its own catalog from the configuration here.
  auto job = WriteJob::Open(Config("db.t"), schema_);
  ASSERT_TRUE(job) << job.error().ToString();
  EXPECT_TRUE((*job)->created_table());
  ASSERT_OK((*job)->Write(Rows(schema_, JsonRows(0, 3))));
  const Batch second = Rows(schema_, JsonRows(3, 2));
  ASSERT_OK((*job)->Write(second));  // the const& overload copies
  EXPECT_EQ(second.num_rows, 2);
  auto r = (*job)->Commit({{"floe.input", "test"}});
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->table, "db.t");
  EXPECT_EQ(r->rows, 5);
  EXPECT_EQ(r->files, 2);  // one per region
  EXPECT_GT(r->bytes, 0);
  ASSERT_TRUE(r->commit);
  EXPECT_EQ(r->commit->operation, "append");
  EXPECT_EQ(r->commit->sequence_number, 1);
  EXPECT_EQ(r->commit->summary.at("floe.input"), "test");
  EXPECT_EQ(r->commit->summary.at("total-records"), "5");
  // A committed job's destructor keeps everything.
  job->reset();
  auto loaded = catalog_->LoadTable(*catalog::ParseTableIdentifier("db.t"));
  ASSERT_TRUE(loaded) << loaded.error().ToString();
  EXPECT_EQ(loaded->metadata.CurrentSnapshot()->snapshot_id, r->commit->snapshot_id);
  EXPECT_EQ(CountParquet(TableDir("t") / "data"), 2);
}

TEST_F(WriteJobTest, RunsTheDecoderPipelineAndSecondWriteAppends) {
  MakeTable("p");
  auto job = WriteJob::Open(Config("db.p", {{"write-parallelism", "2"}}), catalog_.get(), nullptr);
  ASSERT_TRUE(job) << job.error().ToString();
  EXPECT_FALSE((*job)->created_table());
  EXPECT_EQ(*(*job)->input_schema(), *(*job)->table().metadata().CurrentSchema());
  format::DecodeOptions o;
  o.batch_rows = 7;
  auto reader = format::JsonlReader::FromString((*job)->input_schema(), JsonRows(1, 100), o);
  ASSERT_OK(reader);
  auto stats = (*job)->Run([&](Batch* b) { return (*reader)->Next(b); }, "rows.jsonl");
  ASSERT_TRUE(stats) << stats.error().ToString();
  EXPECT_EQ(stats->rows, 100);
  auto r = (*job)->Commit();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->commit->summary.at("total-records"), "101");
  EXPECT_EQ(r->commit->sequence_number, 2);
}

// A bad row after several data files were rolled, with one and two workers.
TEST_F(WriteJobTest, BadRowMidInputLeavesTheTableAsItWas) {
  for (const char* workers : {"1", "2"}) {
    SCOPED_TRACE(std::string("write-parallelism=") + workers);
    MakeTable(std::string("bad") + workers);
    const std::string name = std::string("db.bad") + workers;
    const auto before = Tree(TableDir(name.substr(3)));
    auto job = WriteJob::Open(
        Config(name, {{"write-parallelism", workers}, {"target-file-size-bytes", "1"}}),
        catalog_.get(), nullptr);
    ASSERT_TRUE(job) << job.error().ToString();
    format::DecodeOptions o;
    o.batch_rows = 1000;
    std::string input = JsonRows(1, 20000) + "{\"id\": \"not a number\"}\n";
    auto reader = format::JsonlReader::FromString((*job)->input_schema(), input, o);
    ASSERT_OK(reader);
    int max_files = 0;
    auto stats = (*job)->Run(
        [&](Batch* b) {
          max_files = std::max(max_files, CountParquet(TableDir(name.substr(3)) / "data"));
          return (*reader)->Next(b);
        },
        "big.jsonl");
    ASSERT_FALSE(stats);
    EXPECT_EQ(stats.error().kind, ErrorKind::kInvalidArgument);
    EXPECT_TRUE(stats.error().message.starts_with("big.jsonl: line 20001"))
        << stats.error().message;
    EXPECT_GT(max_files, 2)
        << "no data files were rolled before the bad row: the test proves nothing";
    EXPECT_EQ(Tree(TableDir(name.substr(3))), before);
    // The job is failed: nothing more is written or committed.
    EXPECT_FALSE((*job)->Write(Rows(schema_, JsonRows(0, 1))));
    EXPECT_FALSE((*job)->Commit());
  }
}

TEST_F(WriteJobTest, FailingWriteOfANewTableDropsIt) {
  auto job =
      WriteJob::Open(Config("db.n", {{"target-file-size-bytes", "1"}}), catalog_.get(), schema_);
  ASSERT_TRUE(job) << job.error().ToString();
  ASSERT_TRUE((*job)->created_table());
  ASSERT_OK((*job)->Write(Rows(schema_, JsonRows(0, 20000))));
  EXPECT_GT(CountParquet(TableDir("n") / "data"), 0);
  Batch bad = Rows(schema_, JsonRows(20000, 3));
  bad.columns[0].SetValid(1, false);  // a null id, which is NOT NULL
  Status st = (*job)->Write(bad);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("row 20002, column 'id': null in NOT NULL column"),
            std::string::npos)
      << st.error().message;
  EXPECT_FALSE(fs::exists(TableDir("n"))) << "the new table's folder is left";
  EXPECT_FALSE(*catalog_->TableExists(*catalog::ParseTableIdentifier("db.n")));
}

TEST_F(WriteJobTest, DestructionWithoutCommitUndoesTheWrite) {
  MakeTable("e");
  const auto before = Tree(TableDir("e"));
  {
    auto job =
        WriteJob::Open(Config("db.e", {{"target-file-size-bytes", "1"}}), catalog_.get(), nullptr);
    ASSERT_TRUE(job) << job.error().ToString();
    ASSERT_OK((*job)->Write(Rows(schema_, JsonRows(0, 20000))));
    EXPECT_GT(CountParquet(TableDir("e") / "data"), 2);
  }
  EXPECT_EQ(Tree(TableDir("e")), before);
  {
    auto job = WriteJob::Open(Config("db.fresh"), catalog_.get(), schema_);
    ASSERT_TRUE(job) << job.error().ToString();
    ASSERT_OK((*job)->Write(Rows(schema_, JsonRows(0, 10))));
    (*job)->Abort();  // explicitly, then destroyed: undone once
    EXPECT_FALSE(fs::exists(TableDir("fresh")));
  }
  EXPECT_FALSE(*catalog_->TableExists(*catalog::ParseTableIdentifier("db.fresh")));
}

TEST_F(WriteJobTest, RefusesRowKindsOtherThanInsert) {
  auto job = WriteJob::Open(Config("db.k"), catalog_.get(), schema_);
  ASSERT_TRUE(job) << job.error().ToString();
  Batch inserts = Rows(schema_, JsonRows(0, 2));
  inserts.row_kinds = {RowKind::kInsert, RowKind::kInsert};
  ASSERT_OK((*job)->Write(std::move(inserts)));
  Batch changes = Rows(schema_, JsonRows(2, 3));
  changes.row_kinds = {RowKind::kInsert, RowKind::kUpdateBefore, RowKind::kDelete};
  Status st = (*job)->Write(std::move(changes));
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kUnsupported);
  EXPECT_NE(st.error().message.find("row 4 is UPDATE_BEFORE"), std::string::npos)
      << st.error().message;
  EXPECT_NE(st.error().message.find("merge-on-read"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("not implemented yet"), std::string::npos)
      << st.error().message;
  EXPECT_FALSE(fs::exists(TableDir("k")));
}

TEST_F(WriteJobTest, LostCommitRaceWithoutRetriesLeavesTheTableAsTheWinnerLeftIt) {
  MakeTable("race", {{"commit.retry.num-retries", "0"}});
  auto job =
      WriteJob::Open(Config("db.race", {{"target-file-size-bytes", "1"}}), catalog_.get(), nullptr);
  ASSERT_TRUE(job) << job.error().ToString();
  // Another writer commits after the job loaded the table.
  MakeTable("race");
  const auto after_winner = Tree(TableDir("race"));
  ASSERT_OK((*job)->Write(Rows(schema_, JsonRows(0, 20000))));
  EXPECT_GT(CountParquet(TableDir("race") / "data" / "region=eu"), 2);  // a folder the job made
  auto r = (*job)->Commit();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kCommitFailed);
  EXPECT_TRUE(r.error().message.starts_with("db.race: ")) << r.error().message;
  EXPECT_EQ(Tree(TableDir("race")), after_winner);
}

TEST_F(WriteJobTest, LostRaceOnATableItCreatedKeepsTheTableTheWinnerCommittedTo) {
  WriteConfig c = Config("db.both");
  c.table_properties["commit.retry.num-retries"] = "0";
  auto job = WriteJob::Open(c, catalog_.get(), schema_);
  ASSERT_TRUE(job) << job.error().ToString();
  ASSERT_TRUE((*job)->created_table());
  ASSERT_OK((*job)->Write(Rows(schema_, JsonRows(0, 10))));
  MakeTable("both");  // appends to the table the job created
  const auto after_winner = Tree(TableDir("both"));
  auto r = (*job)->Commit();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kCommitFailed);
  EXPECT_EQ(Tree(TableDir("both")), after_winner);
  EXPECT_TRUE(*catalog_->TableExists(*catalog::ParseTableIdentifier("db.both")));
}

TEST_F(WriteJobTest, UnknownCommitOutcomeKeepsEveryFile) {
  UnknownOutcomeCatalog unknown(catalog_.get());
  auto job = WriteJob::Open(Config("db.u"), &unknown, schema_);
  ASSERT_TRUE(job) << job.error().ToString();
  ASSERT_OK((*job)->Write(Rows(schema_, JsonRows(0, 10))));
  auto r = (*job)->Commit();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kCommitStateUnknown);
  const auto after = Tree(TableDir("u"));
  job->reset();  // destruction must not clean up either
  EXPECT_EQ(Tree(TableDir("u")), after);
  // The commit did land: the snapshot's data files are all there.
  auto loaded = catalog_->LoadTable(*catalog::ParseTableIdentifier("db.u"));
  ASSERT_TRUE(loaded) << loaded.error().ToString();
  ASSERT_NE(loaded->metadata.CurrentSnapshot(), nullptr);
  table::Table t(catalog_.get(), *loaded);
  auto entries = table::LiveEntries(t, *loaded->metadata.CurrentSnapshot());
  ASSERT_TRUE(entries) << entries.error().ToString();
  ASSERT_EQ(entries->size(), 2u);
  for (const auto& e : *entries)
    EXPECT_TRUE(fs::exists(*t.LocalPath(e.data_file.file_path))) << e.data_file.file_path;
}

TEST_F(WriteJobTest, EmptyWriteCommitsNothingUnlessItOverwrites) {
  MakeTable("o");
  auto empty = WriteJob::Open(Config("db.o"), catalog_.get(), nullptr);
  ASSERT_TRUE(empty) << empty.error().ToString();
  auto r = (*empty)->Commit();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_FALSE(r->commit);
  EXPECT_EQ(r->files, 0);
  auto over =
      WriteJob::Open(Config("db.o", {{"overwrite-enabled", "true"}}), catalog_.get(), nullptr);
  ASSERT_TRUE(over) << over.error().ToString();
  EXPECT_TRUE((*over)->overwrite());
  r = (*over)->Commit();
  ASSERT_TRUE(r) << r.error().ToString();
  ASSERT_TRUE(r->commit);
  // As before the job existed: an overwrite that wrote no partition of a
  // partitioned table replaces none, and is still committed.
  EXPECT_EQ(r->commit->operation, "delete");
  EXPECT_EQ(r->commit->summary.at("total-records"), "1");
  EXPECT_EQ(r->commit->summary.count("deleted-records"), 0u);
}

TEST_F(WriteJobTest, OverwriteReplacesWrittenPartitionsOnABranch) {
  MakeTable("b");  // id 0: region us
  auto job = WriteJob::Open(Config("db.b", {{"overwrite-enabled", "true"}}), catalog_.get(),
                            nullptr, WriteJobOptions{.branch = "dev"});
  ASSERT_TRUE(job) << job.error().ToString();
  ASSERT_OK((*job)->Write(
      Rows(schema_, "{\"id\": 5, \"region\": \"us\"}\n{\"id\": 6, \"region\": \"us\"}\n")));
  auto r = (*job)->Commit();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->commit->operation, "overwrite");
  EXPECT_EQ(r->commit->summary.at("deleted-records"), "1");
  EXPECT_EQ(r->commit->summary.at("total-records"), "2");
  const auto& md = (*job)->table().metadata();
  EXPECT_EQ(md.refs.at("dev").snapshot_id, r->commit->snapshot_id);
  EXPECT_NE(*md.current_snapshot_id, r->commit->snapshot_id);  // main unchanged
}

TEST_F(WriteJobTest, OpenErrorsNameWhatWasWrong) {
  auto missing =
      WriteJob::Open(Config("db.none"), catalog_.get(), nullptr,
                     WriteJobOptions{.branch = "", .missing_table_hint = "give it a schema"});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::kNotFound);
  EXPECT_EQ(missing.error().message, "table db.none does not exist; give it a schema");
  // A projection that does not fit the table fails Open and drops nothing that existed.
  MakeTable("x");
  const auto before = Tree(TableDir("x"));
  auto wrong = WriteJob::Open(Config("db.x"), catalog_.get(), Sql("id BIGINT NOT NULL, extra INT"));
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("the table has no column 'extra'"), std::string::npos)
      << wrong.error().message;
  EXPECT_EQ(Tree(TableDir("x")), before);
  // A bad option value of the job.
  auto bad =
      WriteJob::Open(Config("db.x", {{"target-file-size-bytes", "0"}}), catalog_.get(), nullptr);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("target-file-size-bytes"), std::string::npos)
      << bad.error().message;
  // A batch of another schema.
  auto job = WriteJob::Open(Config("db.x"), catalog_.get(), nullptr);
  ASSERT_TRUE(job) << job.error().ToString();
  Status st = (*job)->Write(Rows(Sql("a INT"), "{\"a\": 1}\n"));
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("is not the job's input schema"), std::string::npos)
      << st.error().message;
}

TEST(FormatRegistry, NamesAliasesDefaultsAndPlugins) {
  const std::vector<std::string> builtin = {"jsonl", "csv"};
  auto names = format::FormatNames();
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 2), builtin);
  EXPECT_TRUE(format::HasDecoder("json"));
  EXPECT_FALSE(format::HasDecoder("xml"));
  EXPECT_EQ(format::DefaultFormatFor("a.csv"), "csv");
  EXPECT_EQ(format::DefaultFormatFor("a.CSV"), "csv");
  EXPECT_EQ(format::DefaultFormatFor("a.jsonl"), "jsonl");
  EXPECT_EQ(format::DefaultFormatFor("-"), "jsonl");

  auto unknown = format::OpenDecoder("xml", Sql("a INT"), "-");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().kind, ErrorKind::kInvalidArgument);
  EXPECT_EQ(
      unknown.error().message.find("unknown input format 'xml': valid formats are jsonl, csv"), 0u)
      << unknown.error().message;

  // A plugin format: listed after the built-in ones, found by its alias.
  class Ones final : public format::RowDecoder {
   public:
    explicit Ones(SchemaPtr s) : schema_(std::move(s)) {}
    Result<bool> Next(Batch* b) override {
      *b = Batch(schema_);
      if (done_) return false;
      b->columns[0].Append<int32_t>(1);
      b->num_rows = 1;
      done_ = true;
      return true;
    }

   private:
    SchemaPtr schema_;
    bool done_ = false;
  };
  format::RegisterDecoder(
      "ones",
      [](SchemaPtr s, const std::string&,
         const format::DecodeOptions&) -> Result<std::unique_ptr<format::RowDecoder>> {
        return std::unique_ptr<format::RowDecoder>(std::make_unique<Ones>(std::move(s)));
      },
      {"one"});
  EXPECT_EQ(format::FormatNames().back(), "ones");
  auto d = format::OpenDecoder("one", Sql("a INT"), "-");
  ASSERT_TRUE(d) << d.error().ToString();
  Batch b;
  ASSERT_TRUE(*(*d)->Next(&b));
  EXPECT_EQ(b.num_rows, 1);
  EXPECT_FALSE(*(*d)->Next(&b));

  // The built-in decoders read files; open errors come back as they are.
  auto missing = format::OpenDecoder("csv", Sql("a INT"), "/nonexistent/x.csv");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("/nonexistent/x.csv"), std::string::npos)
      << missing.error().message;
}

}  // namespace write_job_test
}  // namespace floe::sink
