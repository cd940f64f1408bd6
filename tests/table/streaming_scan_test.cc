// StreamingScan (streaming_scan.h): every starting strategy (what it emits
// first, inclusive or not, an empty table), max-planning-snapshot-count per
// discovery, tolerated and fatal planning failures, a resumed position (no
// gap, no repeat), a rolled-back position named in the error, and the
// streaming read options as ScanOptions::FromOptions reads and checks them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "floe/config/duration.h"
#include "floe/table/append_files.h"
#include "floe/table/data_writer.h"
#include "floe/table/delete_writer.h"
#include "floe/table/row_delta.h"
#include "floe/table/streaming_scan.h"
#include "floe/table/table.h"
#include "floe/types/json_value.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::table {
namespace streaming_scan_test {

namespace fs = std::filesystem;
using test::HasErrorMessage;
using test::IsError;
using ::testing::ElementsAre;

class StreamingScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_streaming_");
    catalog_ = std::move(*catalog::OpenHadoopCatalog("t", dir_.string()));
    ASSERT_OK(catalog_->CreateNamespace(*catalog::ParseNamespace("db"), {}));
    UseNewTable("t");
  }
  // Creates db.<name> (id with identifier field id, name) and reads it from now on.
  void UseNewTable(const std::string& name) {
    catalog::TableDefinition def;
    def.schema =
        Schema({{1, "id", true, LongType(), {}}, {2, "name", false, StringType(), {}}}, 0, {1});
    auto t = catalog_->CreateTable(*catalog::ParseTableIdentifier("db." + name), def);
    ASSERT_OK(t);
    table_ = std::make_unique<Table>(catalog_.get(), std::move(*t));
  }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  DataWriterOptions Options() {
    auto o = DataWriterOptions::Resolve(table_->metadata(),
                                        config::Resolver(table_->metadata().properties));
    EXPECT_OK(o);
    return *o;
  }
  std::shared_ptr<OutputFileFactory> Factory(const DataWriterOptions& o) {
    return std::make_shared<OutputFileFactory>(table_->io(), o.data_location);
  }
  iceberg::DataFile WriteData(const std::vector<std::pair<int64_t, std::string>>& rows) {
    DataWriterOptions o = Options();
    auto w = MakeDataWriter(table_->metadata(), o, Factory(o));
    EXPECT_OK(w);
    Batch b(table_->metadata().CurrentSchema());
    for (const auto& [id, name] : rows) {
      b.columns[0].Append<int64_t>(id);
      b.columns[1].AppendBytes(name);
    }
    b.num_rows = static_cast<int64_t>(rows.size());
    EXPECT_OK((*w)->Write(b));
    auto files = (*w)->Close();
    EXPECT_OK(files);
    return files->front();
  }
  // Appends one row `id`, named "v<id>"; the snapshot id.
  int64_t Append(int64_t id) {
    EXPECT_OK(table_->Refresh());
    auto r =
        AppendFiles(table_.get()).AddDataFile(WriteData({{id, "v" + std::to_string(id)}})).Commit();
    EXPECT_OK(r);
    return r ? r->snapshot_id : 0;
  }
  // Updates row `id` to "u<id>" (equality delete + insert), as a CDC window.
  int64_t Update(int64_t id) {
    EXPECT_OK(table_->Refresh());
    DataWriterOptions o = Options();
    auto w = EqualityDeleteWriter::Make(Factory(o), o, *table_->metadata().DefaultSpec(),
                                        table_->metadata().CurrentSchema(), {1});
    EXPECT_OK(w);
    Batch keys((*w)->delete_schema());
    keys.columns[0].Append<int64_t>(id);
    keys.num_rows = 1;
    EXPECT_OK((*w)->Write(keys));
    auto deletes = (*w)->Close();
    EXPECT_OK(deletes);
    auto r = RowDelta(table_.get())
                 .AddDataFile(WriteData({{id, "u" + std::to_string(id)}}))
                 .AddDeleteFile(deletes->front())
                 .Commit();
    EXPECT_OK(r);
    return r ? r->snapshot_id : 0;
  }

  MetadataLoader Loader() {
    return [this]() -> Result<std::shared_ptr<const iceberg::TableMetadata>> {
      ++loads_;
      if (fail_loads_ > 0) {
        --fail_loads_;
        return IoError("injected metadata load failure {}", loads_);
      }
      FLOE_RETURN_IF_ERROR(table_->Refresh());
      return std::make_shared<const iceberg::TableMetadata>(table_->metadata());
    };
  }
  static ScanOptions Streaming(StartingStrategy s) {
    ScanOptions o;
    o.streaming = true;
    o.starting_strategy = s;
    return o;
  }
  Result<std::unique_ptr<StreamingScan>> Open(ScanOptions o,
                                              std::optional<StreamPosition> resume = std::nullopt) {
    return StreamingScan::Make(Loader(), table_->io(), std::move(o), resume);
  }

  // What was emitted, one line per snapshot: "<id>[T]: +I {...} -U {...} ...".
  struct Emitted {
    std::vector<int64_t> ids;
    std::vector<std::string> rows;  // "<kind> <json>"
  };
  // Discovers once and emits everything queued.
  Emitted Drain(StreamingScan* scan) {
    Emitted e;
    auto n = scan->Discover();
    EXPECT_OK(n);
    while (scan->pending() > 0) {
      auto s = scan->EmitNext([&](Batch&& b) {
        for (int64_t i = 0; i < b.num_rows; ++i) {
          static const char* kNames[] = {"+I", "-U", "+U", "-D"};
          std::string json;
          AppendJsonRow(b, i, &json);
          e.rows.push_back(std::string(kNames[static_cast<int>(b.row_kinds[i])]) + " " + json);
        }
        return Ok();
      });
      EXPECT_OK(s);
      if (!s || !*s) break;
      e.ids.push_back((*s)->snapshot_id);
      // The position moves to each snapshot once its rows are out.
      EXPECT_EQ(scan->position(), StreamPosition{(*s)->snapshot_id});
    }
    return e;
  }

  fs::path dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
  std::unique_ptr<Table> table_;
  int loads_ = 0;
  int fail_loads_ = 0;
};

TEST_F(StreamingScanTest, TableScanThenIncrementalEmitsTheHeadsRowsThenLaterSnapshots) {
  Append(1);
  int64_t s2 = Append(2);
  ASSERT_OK_AND_ASSIGN(auto scan, Open(Streaming(StartingStrategy::kTableScanThenIncremental)));
  EXPECT_EQ(scan->position(), std::nullopt);  // nothing to checkpoint before the scan
  Emitted first = Drain(scan.get());
  EXPECT_THAT(first.ids, ElementsAre(s2));
  EXPECT_THAT(first.rows, ::testing::UnorderedElementsAre("+I {\"id\":1,\"name\":\"v1\"}",
                                                          "+I {\"id\":2,\"name\":\"v2\"}"));
  int64_t s3 = Update(1);
  Emitted next = Drain(scan.get());
  EXPECT_THAT(next.ids, ElementsAre(s3));
  EXPECT_THAT(next.rows,
              ElementsAre("-U {\"id\":1,\"name\":\"v1\"}", "+U {\"id\":1,\"name\":\"u1\"}"));
  EXPECT_TRUE(Drain(scan.get()).ids.empty());
}

TEST_F(StreamingScanTest, IncrementalStrategiesStartInclusive) {
  int64_t s1 = Append(1);
  int64_t s2 = Append(2);
  int64_t s3 = Append(3);
  {
    ASSERT_OK_AND_ASSIGN(auto scan,
                         Open(Streaming(StartingStrategy::kIncrementalFromLatestSnapshot)));
    EXPECT_EQ(scan->position(), StreamPosition{s2});
    EXPECT_THAT(Drain(scan.get()).ids, ElementsAre(s3));
  }
  {
    ASSERT_OK_AND_ASSIGN(auto scan,
                         Open(Streaming(StartingStrategy::kIncrementalFromEarliestSnapshot)));
    EXPECT_EQ(scan->position(), StreamPosition{});
    Emitted e = Drain(scan.get());
    EXPECT_THAT(e.ids, ElementsAre(s1, s2, s3));
    EXPECT_THAT(e.rows,
                ElementsAre("+I {\"id\":1,\"name\":\"v1\"}", "+I {\"id\":2,\"name\":\"v2\"}",
                            "+I {\"id\":3,\"name\":\"v3\"}"));
  }
  {
    ScanOptions o = Streaming(StartingStrategy::kIncrementalFromSnapshotId);
    o.start_snapshot_id = s2;
    ASSERT_OK_AND_ASSIGN(auto scan, Open(o));
    EXPECT_THAT(Drain(scan.get()).ids, ElementsAre(s2, s3));
  }
  {
    // The oldest ancestor committed at or after the timestamp (commits in
    // one millisecond share it: expected from the metadata, not a clock).
    ASSERT_OK(table_->Refresh());
    const int64_t ts = table_->metadata().SnapshotById(s2)->timestamp_ms;
    std::vector<int64_t> want;
    for (int64_t id : {s1, s2, s3}) {
      if (table_->metadata().SnapshotById(id)->timestamp_ms >= ts) want.push_back(id);
    }
    ScanOptions o = Streaming(StartingStrategy::kIncrementalFromSnapshotTimestamp);
    o.start_snapshot_timestamp = ts;
    ASSERT_OK_AND_ASSIGN(auto scan, Open(o));
    EXPECT_EQ(Drain(scan.get()).ids, want);
    o.start_snapshot_timestamp = table_->metadata().SnapshotById(s3)->timestamp_ms + 1;
    EXPECT_THAT(Open(o), ::testing::AllOf(IsError(ErrorKind::kNotFound),
                                          HasErrorMessage("start-snapshot-timestamp")));
  }
  {
    ScanOptions o = Streaming(StartingStrategy::kIncrementalFromSnapshotId);
    o.start_snapshot_id = 12345;
    EXPECT_THAT(Open(o), ::testing::AllOf(IsError(ErrorKind::kNotFound), HasErrorMessage("12345")));
  }
}

TEST_F(StreamingScanTest, AnEmptyTableReadsEveryFutureSnapshot) {
  for (auto s : {StartingStrategy::kIncrementalFromLatestSnapshot,
                 StartingStrategy::kIncrementalFromEarliestSnapshot,
                 StartingStrategy::kTableScanThenIncremental}) {
    UseNewTable("e" + std::to_string(static_cast<int>(s)));  // a fresh, empty table
    ASSERT_OK_AND_ASSIGN(auto scan, Open(Streaming(s)));
    EXPECT_EQ(scan->position(), StreamPosition{}) << StartingStrategyName(s);
    EXPECT_TRUE(Drain(scan.get()).ids.empty());
    int64_t s1 = Append(1);
    int64_t s2 = Append(2);
    EXPECT_THAT(Drain(scan.get()).ids, ElementsAre(s1, s2)) << StartingStrategyName(s);
  }
}

TEST_F(StreamingScanTest, MaxPlanningSnapshotCountBoundsEachDiscovery) {
  ScanOptions o = Streaming(StartingStrategy::kIncrementalFromEarliestSnapshot);
  o.max_planning_snapshot_count = 2;
  int64_t s1 = Append(1), s2 = Append(2), s3 = Append(3);
  ASSERT_OK_AND_ASSIGN(auto scan, Open(o));
  ASSERT_OK_AND_ASSIGN(int n, scan->Discover());
  EXPECT_EQ(n, 2);
  EXPECT_EQ(scan->pending(), 2u);
  // A second discovery queues after the last one queued, still at most 2.
  ASSERT_OK_AND_ASSIGN(n, scan->Discover());
  EXPECT_EQ(n, 1);
  std::vector<int64_t> ids;
  while (scan->pending() > 0) {
    ASSERT_OK_AND_ASSIGN(auto s, scan->EmitNext([](Batch&&) { return Ok(); }));
    ASSERT_TRUE(s);
    ids.push_back(s->snapshot_id);
  }
  EXPECT_THAT(ids, ElementsAre(s1, s2, s3));
}

TEST_F(StreamingScanTest, PlanningFailuresAreToleratedUpToTheLimitInARow) {
  Append(1);
  ScanOptions o = Streaming(StartingStrategy::kIncrementalFromEarliestSnapshot);
  o.max_allowed_planning_failures = 2;
  ASSERT_OK_AND_ASSIGN(auto scan, Open(o));
  // Two failures in a row are tolerated, and a success resets the count.
  fail_loads_ = 2;
  for (int i = 1; i <= 2; ++i) {
    ASSERT_OK_AND_ASSIGN(int n, scan->Discover());
    EXPECT_EQ(n, 0);
    EXPECT_EQ(scan->consecutive_failures(), i);
    ASSERT_TRUE(scan->last_failure());
  }
  ASSERT_OK_AND_ASSIGN(int n, scan->Discover());
  EXPECT_EQ(n, 1);
  EXPECT_EQ(scan->consecutive_failures(), 0);
  // The third failure in a row fails the read, naming the option.
  fail_loads_ = 3;
  ASSERT_OK(scan->Discover());
  ASSERT_OK(scan->Discover());
  EXPECT_THAT(
      scan->Discover(),
      ::testing::AllOf(IsError(ErrorKind::kIo), HasErrorMessage("max-allowed-planning-failures=2"),
                       HasErrorMessage("injected metadata load failure")));
  // -1 tolerates any number.
  o.max_allowed_planning_failures = -1;
  ASSERT_OK_AND_ASSIGN(auto patient, Open(o));
  fail_loads_ = 10;
  for (int i = 0; i < 10; ++i) ASSERT_OK(patient->Discover());
  EXPECT_EQ(patient->consecutive_failures(), 10);
  // 0 tolerates none.
  o.max_allowed_planning_failures = 0;
  ASSERT_OK_AND_ASSIGN(auto strict, Open(o));
  fail_loads_ = 1;
  EXPECT_THAT(strict->Discover(), IsError(ErrorKind::kIo));
}

TEST_F(StreamingScanTest, AResumedPositionGoesOnWithoutGapOrRepeat) {
  int64_t s1 = Append(1);
  int64_t s2 = Append(2);
  ASSERT_OK_AND_ASSIGN(auto scan,
                       Open(Streaming(StartingStrategy::kIncrementalFromEarliestSnapshot)));
  ASSERT_OK(scan->Discover());
  ASSERT_OK_AND_ASSIGN(auto first, scan->EmitNext([](Batch&&) { return Ok(); }));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->snapshot_id, s1);
  std::optional<StreamPosition> checkpoint = scan->position();
  ASSERT_EQ(checkpoint, StreamPosition{s1});
  scan.reset();  // the reader dies with s2 queued, not emitted
  int64_t s3 = Update(2);
  // Resumed: the strategy is not consulted (LATEST would skip s2).
  ASSERT_OK_AND_ASSIGN(
      auto resumed, Open(Streaming(StartingStrategy::kIncrementalFromLatestSnapshot), checkpoint));
  Emitted e = Drain(resumed.get());
  EXPECT_THAT(e.ids, ElementsAre(s2, s3));
  EXPECT_THAT(e.rows, ElementsAre("+I {\"id\":2,\"name\":\"v2\"}", "-U {\"id\":2,\"name\":\"v2\"}",
                                  "+U {\"id\":2,\"name\":\"u2\"}"));
}

TEST_F(StreamingScanTest, ARolledBackPositionIsAnErrorNamingIt) {
  Append(1);
  int64_t s2 = Append(2);
  int64_t s3 = Append(3);
  ASSERT_OK_AND_ASSIGN(auto scan,
                       Open(Streaming(StartingStrategy::kIncrementalFromEarliestSnapshot)));
  ASSERT_EQ(Drain(scan.get()).ids.size(), 3u);
  // main rolled back to s2: the read's position s3 is gone from its history.
  ASSERT_OK(table_->Refresh());
  ASSERT_OK(SetRef(table_.get(), "main", false, s2));
  EXPECT_THAT(scan->Discover(), ::testing::AllOf(IsError(ErrorKind::kInvalidArgument),
                                                 HasErrorMessage("snapshot " + std::to_string(s3)),
                                                 HasErrorMessage("no longer an ancestor")));
  // A checkpoint holding it fails at once too.
  EXPECT_THAT(Open(Streaming(StartingStrategy::kIncrementalFromLatestSnapshot), StreamPosition{s3}),
              HasErrorMessage(std::to_string(s3)));
}

TEST_F(StreamingScanTest, RunWaitsTheMonitorIntervalBetweenDiscoveries) {
  ScanOptions o = Streaming(StartingStrategy::kIncrementalFromLatestSnapshot);
  o.monitor_interval = std::chrono::milliseconds(250);
  ASSERT_OK_AND_ASSIGN(auto scan, Open(o));
  // Each wait commits a snapshot, so the next discovery finds it: no clock.
  std::vector<std::chrono::nanoseconds> waits;
  std::vector<int64_t> committed;
  scan->set_sleep_for([&](std::chrono::nanoseconds d) {
    waits.push_back(d);
    committed.push_back(Append(static_cast<int64_t>(waits.size())));
  });
  std::vector<int64_t> emitted;
  ASSERT_OK(scan->Run([](Batch&&) { return Ok(); },
                      [&](const EmittedSnapshot& s) -> Result<bool> {
                        emitted.push_back(s.snapshot_id);
                        return emitted.size() < 3;
                      }));
  EXPECT_EQ(emitted, committed);
  EXPECT_EQ(waits, std::vector<std::chrono::nanoseconds>(3, std::chrono::milliseconds(250)));
}

TEST(StreamingOptions, FromOptionsReadsAndChecksTheStreamingOptions) {
  auto o = ScanOptions::FromOptions({{"streaming", "true"},
                                     {"monitor-interval", "500 ms"},
                                     {"starting-strategy", "INCREMENTAL_FROM_SNAPSHOT_ID"},
                                     {"start-snapshot-id", "42"},
                                     {"max-planning-snapshot-count", "7"},
                                     {"max-allowed-planning-failures", "-1"}},
                                    {});
  ASSERT_OK(o);
  EXPECT_TRUE(o->streaming);
  EXPECT_EQ(o->monitor_interval, std::chrono::milliseconds(500));
  EXPECT_EQ(o->starting_strategy, StartingStrategy::kIncrementalFromSnapshotId);
  EXPECT_EQ(o->start_snapshot_id, 42);
  EXPECT_EQ(o->max_planning_snapshot_count, 7);
  EXPECT_EQ(o->max_allowed_planning_failures, -1);
  // Defaults: Flink's.
  auto d = ScanOptions::FromOptions({{"streaming", "true"}}, {});
  ASSERT_OK(d);
  EXPECT_EQ(d->monitor_interval, std::chrono::seconds(60));
  EXPECT_EQ(d->starting_strategy, StartingStrategy::kIncrementalFromLatestSnapshot);
  EXPECT_EQ(d->max_allowed_planning_failures, 3);
  // The session spelling.
  auto s = ScanOptions::FromOptions({{"streaming", "true"}}, {},
                                    {{"connector.iceberg.monitor-interval", "2 min"}});
  ASSERT_OK(s);
  EXPECT_EQ(s->monitor_interval, std::chrono::minutes(2));

  auto refused = [](std::map<std::string, std::string> options, const std::string& message) {
    auto r = ScanOptions::FromOptions(options, {});
    EXPECT_THAT(r, HasErrorMessage(message)) << message;
  };
  refused({{"monitor-interval", "1s"}}, "needs 'streaming=true'");
  refused({{"starting-strategy", "TABLE_SCAN_THEN_INCREMENTAL"}}, "needs 'streaming=true'");
  refused({{"streaming", "true"}, {"start-snapshot-id", "1"}}, "INCREMENTAL_FROM_SNAPSHOT_ID");
  refused({{"streaming", "true"}, {"starting-strategy", "INCREMENTAL_FROM_SNAPSHOT_ID"}},
          "start-snapshot-id");
  refused({{"streaming", "true"}, {"starting-strategy", "INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP"}},
          "start-snapshot-timestamp");
  refused({{"streaming", "true"}, {"snapshot-id", "1"}}, "is for batch reads");
  refused({{"streaming", "true"}, {"end-snapshot-id", "1"}, {"start-snapshot-id", "1"}},
          "is for batch reads");
  refused({{"streaming", "true"}, {"monitor-interval", "soon"}}, "not a duration");
  refused({{"streaming", "true"}, {"monitor-interval", "0s"}}, "must be positive");
  refused({{"streaming", "true"}, {"max-planning-snapshot-count", "0"}},
          "max-planning-snapshot-count");
  // PlanScan does not plan a streaming read.
  ScanOptions so;
  so.streaming = true;
  auto md = std::make_shared<const iceberg::TableMetadata>();
  EXPECT_THAT(PlanScan(md, so, nullptr), HasErrorMessage("streaming"));
}

TEST(StreamingOptions, FlinkDurations) {
  using namespace std::chrono;
  EXPECT_EQ(*config::ParseDuration("1s"), seconds(1));
  EXPECT_EQ(*config::ParseDuration("500 ms"), milliseconds(500));
  EXPECT_EQ(*config::ParseDuration("1 min"), minutes(1));
  EXPECT_EQ(*config::ParseDuration("2m"), minutes(2));
  EXPECT_EQ(*config::ParseDuration("3 HOURS"), hours(3));
  EXPECT_EQ(*config::ParseDuration("1d"), hours(24));
  EXPECT_EQ(*config::ParseDuration("250"), milliseconds(250));  // no unit: ms
  EXPECT_EQ(*config::ParseDuration("7 us"), microseconds(7));
  EXPECT_EQ(*config::ParseDuration("9ns"), nanoseconds(9));
  for (const char* bad : {"", "s", "-1s", "1 fortnight", "1.5s", "99999999999999999999 d"}) {
    EXPECT_THAT(config::ParseDuration(bad), IsError(ErrorKind::kInvalidArgument)) << bad;
  }
}

}  // namespace streaming_scan_test
}  // namespace floe::table
