// The text sources' resume rule (sink/text_source.h), source by source: a
// stored position the file still begins with is accepted (the file grew, or
// was copied elsewhere), one whose committed bytes changed is refused naming
// both inputs, and a damaged floe.source-position (not JSON, no digest, a
// digest that is not one, negative bytes, a source of another kind) is an
// error naming what is wrong, never a resume from a guessed position.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "floe/sink/text_source.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::sink {
namespace text_source_test {

namespace fs = std::filesystem;
using nlohmann::json;

class TextSourceTest : public testing::Test {
 protected:
  void SetUp() override { dir_ = test::FreshTestDir("floe_text_source_"); }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  std::unique_ptr<Source> Open(const fs::path& path) {
    auto source = OpenTextSource(path.string(), TextSourceOptions{});
    EXPECT_TRUE(source) << source.error().message;
    return source ? std::move(*source) : nullptr;
  }
  // The position a commit of the first `lines` lines of `path` stores.
  std::string Committed(const fs::path& path, int64_t lines) {
    auto source = Open(path);
    auto described = source->Describe(lines);
    EXPECT_TRUE(described) << described.error().message;
    return described ? *described : "";
  }

  fs::path dir_;
};

constexpr std::string_view kThree = "{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n";

TEST_F(TextSourceTest, APositionNamesTheFileItsLinesAndTheirDigest) {
  test::WriteFile(dir_ / "in.jsonl", std::string(kThree));
  json j = json::parse(Committed(dir_ / "in.jsonl", 2));
  EXPECT_EQ(j.at("source"), "file");
  EXPECT_EQ(j.at("path"), fs::weakly_canonical(dir_ / "in.jsonl").string());
  EXPECT_EQ(j.at("line"), 2);
  EXPECT_EQ(j.at("bytes"), 18);  // the first two lines, newlines included
  EXPECT_EQ(j.at("xxh3").get<std::string>().size(), 16u);
}

TEST_F(TextSourceTest, AFileThatGrewOrMovedResumesAndAChangedOneIsRefused) {
  test::WriteFile(dir_ / "in.jsonl", std::string(kThree));
  const std::string stored = Committed(dir_ / "in.jsonl", 3);

  test::WriteFile(dir_ / "in.jsonl", std::string(kThree) + "{\"id\":4}\n");
  EXPECT_OK(Open(dir_ / "in.jsonl")->Resume(stored, "in.jsonl", 3));
  test::WriteFile(dir_ / "copy.jsonl", std::string(kThree));
  EXPECT_OK(Open(dir_ / "copy.jsonl")->Resume(stored, "in.jsonl", 3));

  test::WriteFile(dir_ / "in.jsonl", "{\"id\":1}\n{\"id\":7}\n{\"id\":3}\n{\"id\":4}\n");
  Status changed = Open(dir_ / "in.jsonl")->Resume(stored, "in.jsonl", 3);
  ASSERT_FALSE(changed);
  EXPECT_EQ(changed.error().kind, ErrorKind::kInvalidArgument);
  EXPECT_NE(changed.error().message.find("does not begin with the lines committed"), std::string::npos)
      << changed.error().message;

  test::WriteFile(dir_ / "short.jsonl", "{\"id\":1}\n");
  Status shorter = Open(dir_ / "short.jsonl")->Resume(stored, "in.jsonl", 3);
  ASSERT_FALSE(shorter);
  EXPECT_NE(shorter.error().message.find("is shorter"), std::string::npos) << shorter.error().message;
  EXPECT_NE(shorter.error().message.find("short.jsonl"), std::string::npos) << shorter.error().message;
}

TEST_F(TextSourceTest, ADamagedSourcePositionIsAnErrorNamingIt) {
  test::WriteFile(dir_ / "in.jsonl", std::string(kThree));
  json good = json::parse(Committed(dir_ / "in.jsonl", 3));
  struct Case {
    std::string what;
    std::string stored;
    ErrorKind kind;
    std::string says;
  };
  json no_digest = good;
  no_digest.erase("xxh3");
  json bad_digest = good;
  bad_digest["xxh3"] = "not-a-digest";
  json negative = good;
  negative["bytes"] = -5;
  json fractional = good;
  fractional["bytes"] = 1.5;
  json kafka = {{"source", "kafka"}, {"topic", "orders"}, {"partitions", json::object()}};
  const std::vector<Case> cases = {
      {"not JSON", "{\"source\":\"file\",", ErrorKind::kCorrupt, "is not a source position"},
      {"no source", "{\"path\":\"x\"}", ErrorKind::kCorrupt, "is not a source position"},
      {"an array", "[1,2]", ErrorKind::kCorrupt, "is not a source position"},
      {"bytes without a digest", no_digest.dump(), ErrorKind::kCorrupt, "damaged 'bytes' or 'xxh3'"},
      {"a digest that is not one", bad_digest.dump(), ErrorKind::kCorrupt, "damaged 'bytes' or 'xxh3'"},
      {"negative bytes", negative.dump(), ErrorKind::kCorrupt, "damaged 'bytes' or 'xxh3'"},
      {"fractional bytes", fractional.dump(), ErrorKind::kCorrupt, "damaged 'bytes' or 'xxh3'"},
      {"another kind of source", kafka.dump(), ErrorKind::kInvalidArgument, "a kafka source"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Status st = Open(dir_ / "in.jsonl")->Resume(c.stored, "in.jsonl", 3);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().kind, c.kind) << st.error().message;
    EXPECT_NE(st.error().message.find(c.says), std::string::npos) << st.error().message;
  }
}

}  // namespace text_source_test
}  // namespace floe::sink
