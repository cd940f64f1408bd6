// The streaming job (sink/streaming_job.h) driven directly, in-process, with
// a test source: commits at every trigger carry the source's position; after
// a simulated crash (the source fails mid-window) a relaunch with the same
// sink_id is handed the committed position and resumes after it, so the
// table ends with every row once; another input under the same sink_id is
// refused before anything is written; cancellation ends an unbounded source
// cleanly with what it handed over committed.
#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

#include "floe/catalog/catalog.h"
#include "floe/sink/streaming_job.h"
#include "floe/table/scan.h"
#include "floe/table/table_reader.h"
#include "floe/types/json_value.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::sink {
namespace streaming_job_test {

namespace fs = std::filesystem;
using nlohmann::json;

// Rows {id, name} numbered 1..n (position = id), `per_read` per Read. Its
// position: {"source":"test","stream":S,"line":N}.
class TestSource : public Source {
 public:
  struct Log {
    std::optional<int64_t> resumed_from;  ///< the position Resume accepted
    std::atomic<int> reads{0};
  };
  TestSource(std::string stream, int64_t n, int64_t per_read, Log* log)
      : stream_(std::move(stream)), n_(n), per_read_(per_read), log_(log) {}

  /// Fails the Read that would hand out row `row` (after handing out the
  /// rows before it in that Read).
  void FailAt(int64_t row) { fail_at_ = row; }
  /// Stays open (kIdle) after the last row instead of ending.
  void StayOpen() { stay_open_ = true; }

  std::string name() const override { return "test:" + stream_; }
  bool bounded() const override { return false; }
  Status Open(SchemaPtr schema, SourceOutput out) override {
    schema_ = std::move(schema);
    out_ = std::move(out);
    return Ok();
  }
  Result<SourceState> Read(SourceClock::time_point deadline, const Cancellation* cancel) override {
    ++log_->reads;
    if (next_ > n_) {
      if (!stay_open_) return SourceState::kEnd;
      while (SourceClock::now() < deadline && !(cancel && cancel->cancelled())) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      return SourceState::kIdle;
    }
    Batch b(schema_);
    for (int64_t i = 0; i < per_read_ && next_ <= n_; ++i, ++next_) {
      if (next_ == fail_at_) {
        if (b.num_rows > 0) FLOE_RETURN_IF_ERROR(out_.emit(std::move(b)));
        return IoError("test source: connection lost at row {}", next_);
      }
      b.columns[0].Append<int64_t>(next_);
      b.columns[1].AppendBytes("row" + std::to_string(next_));
      b.row_kinds.push_back(RowKind::kInsert);
      b.sequence_numbers.push_back(next_);
      b.positions.push_back(next_);
      ++b.num_rows;
    }
    FLOE_RETURN_IF_ERROR(out_.emit(std::move(b)));
    return SourceState::kMore;
  }
  Result<std::string> Describe(int64_t upto) override {
    return json{{"source", "test"}, {"stream", stream_}, {"line", upto}}.dump();
  }
  Status Resume(std::string_view stored, std::string_view, int64_t position) override {
    json j = json::parse(stored, nullptr, false);
    if (j.is_discarded() || j.value("source", "") != "test" || j.value("stream", "") != stream_) {
      return InvalidArgument("test source {} cannot resume {}", stream_, stored);
    }
    EXPECT_EQ(j.value("line", int64_t{-1}), position);
    log_->resumed_from = position;
    next_ = position + 1;  // the source itself starts after the committed part
    return Ok();
  }

 private:
  std::string stream_;
  int64_t n_, per_read_;
  Log* log_;
  int64_t next_ = 1;
  int64_t fail_at_ = -1;
  bool stay_open_ = false;
  SchemaPtr schema_;
  SourceOutput out_;
};

class StreamingJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_streaming_job_");
    catalog_ = std::move(*catalog::OpenHadoopCatalog("t", dir_.string()));
    ASSERT_OK(catalog_->CreateNamespace(*catalog::ParseNamespace("db"), {}));
    catalog::TableDefinition def;
    def.schema = Schema({{1, "id", true, LongType(), {}}, {2, "name", false, StringType(), {}}}, 0, {1});
    ASSERT_OK(catalog_->CreateTable(*catalog::ParseTableIdentifier("db.t"), def));
    schema_ = std::make_shared<const Schema>(def.schema);
  }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  Result<std::unique_ptr<StreamingJob>> Open(std::unique_ptr<Source> source, StreamingJobOptions jo = {}) {
    WriteConfig cfg;
    FLOE_RETURN_IF_ERROR(cfg.Set("table", "db.t"));
    FLOE_RETURN_IF_ERROR(cfg.Set("mode", "merge-on-read"));
    FLOE_RETURN_IF_ERROR(cfg.Set("sink_id", "job-1"));
    ChangeSinkOptions opt;
    opt.changes_in_batch = true;
    opt.spill_dir = dir_.string();
    if (!jo.trigger) jo.trigger = std::chrono::milliseconds(0);  // a commit after every Read
    return StreamingJob::Open(cfg, catalog_.get(), schema_, opt, std::move(source), std::move(jo));
  }

  iceberg::TableMetadata Metadata() {
    auto t = catalog_->RefreshTable(*catalog::ParseTableIdentifier("db.t"));
    EXPECT_OK(t);
    return t->metadata;
  }

  // The ids in the table's current snapshot, in order (duplicates kept).
  std::vector<int64_t> Ids() {
    auto md = std::make_shared<const iceberg::TableMetadata>(Metadata());
    std::vector<int64_t> ids;
    if (!md->current_snapshot_id) return ids;
    table::FileManifestSource source(*md, catalog_->io());
    auto plan = table::PlanScan(md, {}, &source);
    EXPECT_OK(plan);
    auto batches = table::ReadAll(*plan, catalog_->io());
    EXPECT_OK(batches);
    for (const auto& b : *batches) {
      for (int64_t i = 0; i < b.num_rows; ++i) ids.push_back(b.columns[0].data<int64_t>()[i]);
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  static std::vector<int64_t> Range(int64_t from, int64_t to) {
    std::vector<int64_t> v;
    for (int64_t i = from; i <= to; ++i) v.push_back(i);
    return v;
  }

  fs::path dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
  SchemaPtr schema_;
};

TEST_F(StreamingJobTest, ResumesFromTheCommittedPositionAfterACrash) {
  // Run 1: commits after every Read of 10 rows; the source fails at row 55,
  // after handing over 51..54 of an open window.
  TestSource::Log first;
  auto src = std::make_unique<TestSource>("orders", 100, 10, &first);
  src->FailAt(55);
  auto job = Open(std::move(src));
  ASSERT_OK(job);
  Status st = (*job)->Run();
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("connection lost at row 55"), std::string::npos) << st.error().message;
  EXPECT_FALSE(first.resumed_from) << "nothing to resume on the first run";
  job->reset();  // the crash: the open window (51..54) is gone
  EXPECT_EQ(Ids(), Range(1, 50));
  const iceberg::TableMetadata md = Metadata();
  const iceberg::Snapshot* head = md.CurrentSnapshot();
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->summary.at("floe.sink-id"), "job-1");
  EXPECT_EQ(head->summary.at("floe.input-position"), "50");
  EXPECT_EQ(json::parse(head->summary.at("floe.source-position")),
            (json{{"source", "test"}, {"stream", "orders"}, {"line", 50}}));
  EXPECT_EQ(head->summary.at("floe.input"), "test:orders");

  // Run 2, the relaunch: handed position 50, it resumes at 51.
  TestSource::Log second;
  job = Open(std::make_unique<TestSource>("orders", 100, 10, &second));
  ASSERT_OK(job);
  EXPECT_EQ(second.resumed_from, std::optional<int64_t>(50)) << "Resume is part of opening the job";
  ASSERT_OK((*job)->Run());
  const SinkStats stats = (*job)->sink().stats();
  EXPECT_EQ(stats.read, 50);
  EXPECT_EQ(stats.applied, 50);
  EXPECT_EQ(stats.skipped, 0);
  EXPECT_FALSE((*job)->input_refused());
  job->reset();
  EXPECT_EQ(Ids(), Range(1, 100));
  EXPECT_EQ(Metadata().CurrentSnapshot()->summary.at("floe.commit-number"),
            std::to_string(5 /* run 1 */ + 5 /* run 2 */));
}

TEST_F(StreamingJobTest, AnotherInputUnderTheSameSinkIdIsRefusedWhole) {
  TestSource::Log log;
  auto job = Open(std::make_unique<TestSource>("orders", 20, 10, &log));
  ASSERT_OK(job);
  ASSERT_OK((*job)->Run());
  job->reset();
  const int64_t snapshots = static_cast<int64_t>(Metadata().snapshots.size());

  TestSource::Log other_log;
  auto other = Open(std::make_unique<TestSource>("refunds", 20, 10, &other_log));
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().kind, ErrorKind::kInvalidArgument);
  EXPECT_NE(other.error().message.find("refunds"), std::string::npos) << other.error().message;
  EXPECT_NE(other.error().message.find("orders"), std::string::npos) << other.error().message;
  EXPECT_EQ(other_log.reads, 0);
  EXPECT_EQ(static_cast<int64_t>(Metadata().snapshots.size()), snapshots);
  EXPECT_EQ(Ids(), Range(1, 20));
}

TEST_F(StreamingJobTest, CancellationCommitsWhatAnUnboundedSourceHandedOver) {
  Cancellation cancel;
  TestSource::Log log;
  auto src = std::make_unique<TestSource>("orders", 30, 7, &log);
  src->StayOpen();
  StreamingJobOptions jo;
  jo.cancel = &cancel;
  jo.trigger = std::chrono::hours(1);  // no trigger fires: only the end commits
  int commits = 0;
  std::vector<JobProgress> reports;
  jo.on_commit = [&](const ChangeSink&) -> Status {
    ++commits;
    return Ok();
  };
  jo.on_progress = [&](const JobProgress& p) { reports.push_back(p); };
  auto job = Open(std::move(src), std::move(jo));
  ASSERT_OK(job);
  std::thread stopper([&] {
    // Cancel once the source has handed over everything and waits.
    while (log.reads < 6) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    cancel.Cancel();
  });
  Status st = (*job)->Run();
  stopper.join();
  ASSERT_OK(st);
  EXPECT_EQ(commits, 1);
  ASSERT_FALSE(reports.empty());
  EXPECT_TRUE(reports.back().final);
  EXPECT_EQ(reports.back().committed, 30);
  job->reset();
  EXPECT_EQ(Ids(), Range(1, 30));
}

// A stream that goes idle reports (floe write prints its accounting) after
// the commit that changed something, not after every trigger (issue 28: an
// idle `floe write` printed a full accounting line every second); a run
// that never changes anything still reports once, at its end.
TEST_F(StreamingJobTest, AnIdleStreamReportsOnlyTheCommitsThatChangedSomething) {
  // (The run without rows first: it commits nothing, so leaves no token that
  // the next run's source would be asked to resume.)
  for (int64_t rows : {0, 10}) {
    SCOPED_TRACE(rows);
    Cancellation cancel;
    TestSource::Log log;
    auto src = std::make_unique<TestSource>(rows ? "busy" : "empty", rows, 10, &log);
    src->StayOpen();
    StreamingJobOptions jo;
    jo.cancel = &cancel;
    jo.trigger = std::chrono::milliseconds(2);
    int reports = 0;
    jo.on_commit = [&](const ChangeSink&) -> Status {
      ++reports;
      return Ok();
    };
    auto job = Open(std::move(src), std::move(jo));
    ASSERT_OK(job);
    std::thread stopper([&] {
      // Many idle triggers after the rows: each Read waits for the next one.
      while (log.reads < 40) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      cancel.Cancel();
    });
    Status st = (*job)->Run();
    stopper.join();
    ASSERT_OK(st);
    EXPECT_EQ(reports, 1);
    EXPECT_GE(log.reads.load(), 40);
    job->reset();
    EXPECT_EQ(Ids(), Range(1, rows));
  }
}

}  // namespace streaming_job_test
}  // namespace floe::sink
