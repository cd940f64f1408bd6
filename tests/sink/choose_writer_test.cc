// sink::ChooseWriter: the one place that decides between the one-commit
// append job and the change sink, for `floe write` and `INSERT INTO` alike.
#include <gtest/gtest.h>

#include "floe/sink/write_config.h"

namespace floe::sink {
namespace choose_writer_test {

WriterKind Choose(std::initializer_list<std::pair<const char*, const char*>> sets, bool change_input = false,
                  const char* table = "db.t") {
  WriteConfig cfg;
  EXPECT_TRUE(cfg.SetTable(table, "test").has_value());
  for (const auto& [k, v] : sets) {
    auto st = cfg.Set(k, v);
    EXPECT_TRUE(st.has_value()) << k << "=" << v << ": " << (st ? "" : st.error().message);
  }
  return ChooseWriter(cfg, change_input);
}

TEST(ChooseWriter, PlainAppendsAndOverwritesAreTheJob) {
  EXPECT_EQ(Choose({}), WriterKind::kAppendJob);
  EXPECT_EQ(Choose({{"write-format", "parquet"}, {"target-file-size-bytes", "1000000"}}), WriterKind::kAppendJob);
  EXPECT_EQ(Choose({{"distribution-mode", "none"}}), WriterKind::kAppendJob);
  EXPECT_EQ(Choose({{"upsert-enabled", "false"}}), WriterKind::kAppendJob);
  EXPECT_EQ(Choose({{"overwrite-enabled", "true"}}), WriterKind::kAppendJob);
  // A dynamic overwrite keeps the job with hash distribution (one fan-out
  // writer already writes one file per partition).
  EXPECT_EQ(Choose({{"overwrite-enabled", "true"}, {"distribution-mode", "hash"}}), WriterKind::kAppendJob);
}

TEST(ChooseWriter, EverythingElseIsTheChangeSink) {
  EXPECT_EQ(Choose({}, /*change_input=*/true), WriterKind::kChangeSink);
  EXPECT_EQ(Choose({{"upsert-enabled", "true"}}), WriterKind::kChangeSink);
  EXPECT_EQ(Choose({{"upsert-enabled", "TRUE"}}), WriterKind::kChangeSink);
  EXPECT_EQ(Choose({{"equality-field-columns", "id"}}), WriterKind::kChangeSink);
  EXPECT_EQ(Choose({{"distribution-mode", "hash"}}), WriterKind::kChangeSink);
  EXPECT_EQ(Choose({{"mode", "merge-on-read"}}), WriterKind::kChangeSink);
  EXPECT_EQ(Choose({{"sink_id", "s1"}}), WriterKind::kChangeSink);
  EXPECT_EQ(Choose({{"triggering_frequency_seconds", "5"}}), WriterKind::kChangeSink);
  EXPECT_EQ(Choose({{"num_shards", "4"}}), WriterKind::kChangeSink);
  // A sink-only option wins over an overwrite, so the change sink refuses the
  // combination by name instead of the job ignoring the option.
  EXPECT_EQ(Choose({{"overwrite-enabled", "true"}, {"sink_id", "s1"}}), WriterKind::kChangeSink);
  EXPECT_EQ(Choose({}, false, "db.events_{region}"), WriterKind::kChangeSink);
}

}  // namespace choose_writer_test
}  // namespace floe::sink
