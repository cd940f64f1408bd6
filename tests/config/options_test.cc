#include "floe/config/options.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

namespace floe::config {
namespace {

TEST(Options, EveryKeyIsDeclaredOncePerScope) {
  std::set<std::pair<std::string, uint32_t>> seen;
  for (const auto& d : AllOptions()) {
    for (uint32_t bit = 1; bit <= 16; bit <<= 1) {
      if (d.scopes & bit) EXPECT_TRUE(seen.insert({std::string(d.key), bit}).second) << d.key;
    }
    if (!d.default_value.empty()) EXPECT_TRUE(CheckValue(d, d.key, d.default_value)) << d.key;
    if (!d.overrides.empty()) EXPECT_NE(FindOption(d.overrides, uint32_t(Scope::kTable)), nullptr) << d.key;
  }
}

TEST(Options, UnknownOptionNamesItAndListsValidOnes) {
  auto st = CheckOptions({{"target-file-size", "10"}}, uint32_t(Scope::kWrite), "--set");
  ASSERT_FALSE(st);
  const std::string& m = st.error().message;
  EXPECT_NE(m.find("--set: unknown option 'target-file-size'"), std::string::npos) << m;
  // The closest name comes first.
  EXPECT_NE(m.find("valid options are: target-file-size-bytes"), std::string::npos) << m;
}

TEST(Options, WrongTypesAreErrors) {
  EXPECT_FALSE(CheckOptions({{"write.parquet.page-row-limit", "many"}}, uint32_t(Scope::kTable), "x"));
  auto st = CheckOptions({{"write.parquet.compression-codec", "lzo"}}, uint32_t(Scope::kTable), "x");
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("not one of: zstd, snappy"), std::string::npos);
  EXPECT_TRUE(CheckOptions({{"write.parquet.bloom-filter-enabled.column.id", "TRUE"},
                            {"write.parquet.compression-codec", "SNAPPY"}},
                           uint32_t(Scope::kTable), "x"));
  // A prefix option needs a column name after the prefix.
  EXPECT_FALSE(CheckOptions({{"write.parquet.bloom-filter-enabled.column.", "true"}},
                            uint32_t(Scope::kTable), "x"));
}

TEST(Options, FlinkPrecedence) {
  std::map<std::string, std::string> statement{{"compression-codec", "snappy"}};
  std::map<std::string, std::string> session{{"compression-codec", "gzip"}, {"target-file-size-bytes", "99"}};
  std::map<std::string, std::string> table{{"write.parquet.compression-codec", "lz4"},
                                           {"write.target-file-size-bytes", "1000"},
                                           {"write.upsert.enabled", "true"}};
  Resolver r({&statement, &session, &table});
  EXPECT_EQ(**r.Get("compression-codec"), "snappy");
  EXPECT_EQ(**r.GetLong("target-file-size-bytes"), 99);
  EXPECT_EQ(**r.GetBool("upsert-enabled"), true);  // from the table property it overrides
  Resolver defaults({&table});
  EXPECT_EQ(**defaults.GetLong("write.parquet.page-row-limit"), 20000);
  EXPECT_FALSE(*defaults.Get("snapshot-id"));
  std::map<std::string, std::string> bad{{"limit", "x"}};
  EXPECT_FALSE(Resolver({&bad}).GetLong("limit"));
}

TEST(Options, DocsAreGeneratedFromTheRegistry) {
  std::string path = std::string(FLOE_SOURCE_DIR) + "/docs/options.md";
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string want = RenderMarkdown();
  if (ss.str() != want) {
    std::ofstream(std::string(FLOE_BINARY_DIR) + "/options.md.new") << want;
  }
  EXPECT_EQ(ss.str(), want) << "docs/options.md is stale: copy " FLOE_BINARY_DIR
                               "/options.md.new over it (or run `floe options --markdown`)";
}

}  // namespace
}  // namespace floe::config
