// The JSONL error output shared by two sinks with one sink_id (two processes,
// or a zombie copy): every input position gets one entry, in position order,
// whichever copy flushes it first (issue 23: 89 entries for 64 positions, out
// of order). Two RejectLog objects on one path stand for the two processes
// (the file lock is per open file, so they exclude each other as processes do).
#include "floe/sink/reject_log.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "testing/files.h"

namespace floe::sink {
namespace reject_log_test {

std::vector<int64_t> Positions(const std::filesystem::path& path) {
  std::vector<int64_t> out;
  std::istringstream in(test::ReadFile(path));
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line)["position"].get<int64_t>());
  return out;
}

void AddRange(RejectLog* log, int64_t from, int64_t to) {
  for (int64_t p = from; p <= to; ++p) log->Add(p, "db.t", "bad row", "{\"id\":" + std::to_string(p) + "}");
}

TEST(RejectLogShared, TwoCopiesWriteEachPositionOnceInOrder) {
  const auto dir = test::FreshTestDir("floe_reject_log_");
  const std::string path = (dir / "errors.jsonl").string();
  auto a = RejectLog::Open(path);
  auto b = RejectLog::Open(path);
  ASSERT_TRUE(a.has_value() && b.has_value());
  // Both read the same input: the same entries, windows ending at other places.
  AddRange(a->get(), 1, 10);
  AddRange(b->get(), 1, 16);
  ASSERT_TRUE((*a)->Flush(10).has_value());
  ASSERT_TRUE((*b)->Flush(16).has_value());
  AddRange(a->get(), 11, 24);
  AddRange(b->get(), 17, 20);
  ASSERT_TRUE((*b)->Flush(20).has_value());
  ASSERT_TRUE((*a)->Flush(24).has_value());
  std::vector<int64_t> want;
  for (int64_t p = 1; p <= 24; ++p) want.push_back(p);
  EXPECT_EQ(Positions(path), want);
  // A relaunch skips what either wrote.
  auto c = RejectLog::Open(path);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ((*c)->last_position(), 24);
  test::RemoveTestDirIfPassed(dir);
}

}  // namespace reject_log_test
}  // namespace floe::sink
