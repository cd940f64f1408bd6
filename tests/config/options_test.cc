#include "floe/config/options.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::config {
namespace options_test {

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
  EXPECT_OK(CheckOptions({{"write.parquet.bloom-filter-enabled.column.id", "TRUE"},
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
  EXPECT_EQ(**r.Get(keys::kCompressionCodec), "snappy");
  EXPECT_EQ(**r.Get(keys::kTargetFileSizeBytes), 99);
  EXPECT_EQ(**r.Get(keys::kUpsertEnabled), true);  // from the table property it overrides
  Resolver defaults({&table});
  EXPECT_EQ(*defaults.Value(keys::kParquetPageRowLimit), 20000);
  EXPECT_FALSE(*defaults.Get(keys::kSnapshotId));
  std::map<std::string, std::string> bad{{"limit", "x"}};
  EXPECT_FALSE(Resolver(bad).Get(keys::kLimit));
  // Ranges are checked when a value is read, too.
  std::map<std::string, std::string> low{{"write.parquet.page-row-limit", "0"}};
  EXPECT_FALSE(Resolver(low).Value(keys::kParquetPageRowLimit));
  // The session spelling of a read option is the session layer's.
  std::map<std::string, std::string> hint;
  std::map<std::string, std::string> sess{{"connector.iceberg.split-size", "77"}};
  EXPECT_EQ(*Resolver({&hint, &sess, &table}).Value(keys::kSplitSize), 77);
  // Enums come back in their declared spelling; column options per column.
  std::map<std::string, std::string> cols{{"write.parquet.compression-codec", "SNAPPY"},
                                          {"write.parquet.bloom-filter-enabled.column.a", "true"},
                                          {"write.parquet.bloom-filter-enabled.column.b.c", "FALSE"}};
  std::map<std::string, std::string> cols2{{"write.parquet.bloom-filter-enabled.column.a", "false"}};
  EXPECT_EQ(*Resolver(cols).Value(keys::kCompressionCodec), "snappy");
  auto bloom = Resolver(std::vector<const std::map<std::string, std::string>*>{&cols2, &cols}).GetColumns(keys::kParquetBloomFilterEnabledColumn);
  ASSERT_OK(bloom);
  EXPECT_EQ(*bloom, (std::map<std::string, bool>{{"a", false}, {"b.c", false}}));
}

TEST(Options, RangesRulesAndConflicts) {
  const uint32_t w = uint32_t(Scope::kWrite), r = uint32_t(Scope::kRead), c = uint32_t(Scope::kCatalog);
  EXPECT_FALSE(CheckOptions({{"write-parallelism", "0"}}, w, "--set"));
  EXPECT_FALSE(CheckOptions({{"write-parallelism", "1025"}}, w, "--set"));
  EXPECT_OK(CheckOptions({{"write-parallelism", "3"}}, w, "--set"));
  EXPECT_FALSE(CheckOptions({{"limit", "-2"}}, r, "--set"));
  EXPECT_FALSE(CheckOptions({{"snapshot-id", "1"}, {"tag", "t"}}, r, "--set"));
  EXPECT_FALSE(CheckOptions({{"type", "hive"}}, c, "--catalog"));
  EXPECT_FALSE(CheckOptions({{"property-version", "2"}}, c, "--catalog"));
  EXPECT_OK(CheckOptions({{"property-version", "1"}, {"type", "iceberg"}}, c, "--catalog"));
  auto st = CheckOptions({{"catalog-impl", "x.Y"}, {"catalog-type", "hadoop"}}, c, "--catalog");
  ASSERT_FALSE(st);
  auto metrics = CheckOptions({{"write.metadata.metrics.default", "truncate(0)"}}, uint32_t(Scope::kTable), "x");
  EXPECT_FALSE(metrics);
}

// Not-implemented options are refused with kUnsupported naming the option and
// where it will come from; stored-only table properties only when a table is made.
TEST(Options, SupportStatusIsEnforced) {
  const uint32_t all = ~0u;
  for (const auto& d : AllOptions()) {
    if (d.support == Support::kImplemented || d.is_prefix()) continue;
    std::string value = d.default_value.empty() ? (d.type == OptionType::kEnum ? std::string(d.enum_values[0]) : "1")
                                                : std::string(d.default_value);
    if (d.type == OptionType::kString && d.default_value.empty()) value = "x";
    auto st = CheckOptions({{std::string(d.key), value}}, all, "--set");
    ASSERT_FALSE(st) << d.key;
    EXPECT_EQ(st.error().kind, ErrorKind::kUnsupported) << st.error().message;
    EXPECT_NE(st.error().message.find(d.key), std::string::npos) << st.error().message;
    EXPECT_FALSE(d.missing.empty()) << d.key;
    if (d.support == Support::kStoredOnly) {
      EXPECT_TRUE(CheckOptions({{std::string(d.key), value}}, all, "table_properties", Use::kNewTable)) << d.key;
    }
  }
  auto hive = CheckOptions({{"catalog-type", "hive"}}, uint32_t(Scope::kCatalog), "--catalog");
  ASSERT_FALSE(hive);
  EXPECT_EQ(hive.error().kind, ErrorKind::kUnsupported);
  EXPECT_NE(hive.error().message.find("catalog-type=rest"), std::string::npos) << hive.error().message;
}

using test::ReadFile;

// Every source file of the library outside the registry, with its text.
std::vector<std::pair<std::string, std::string>> LibrarySources() {
  std::vector<std::pair<std::string, std::string>> out;
  const std::filesystem::path root = std::filesystem::path(FLOE_SOURCE_DIR) / "src" / "floe";
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    const auto ext = e.path().extension();
    if (!e.is_regular_file() || (ext != ".cc" && ext != ".h")) continue;
    if (e.path().parent_path().filename() == "config") continue;
    out.emplace_back(e.path().lexically_relative(root).string(), ReadFile(e.path()));
  }
  return out;
}

// Every keys:: constant is declared, and every implemented option has a reader
// in the library: its key constant is used outside the registry.
TEST(Options, EveryImplementedOptionHasAReader) {
  const std::string header =
      ReadFile(std::filesystem::path(FLOE_SOURCE_DIR) / "src/floe/config/options.h");
  const std::regex decl(R"re(Key<[a-z0-9_:]+> (k[A-Za-z0-9]+)\{"([^"]+)"\})re");
  int declared = 0;
  for (auto it = std::sregex_iterator(header.begin(), header.end(), decl); it != std::sregex_iterator(); ++it) {
    ++declared;
    const std::string ident = (*it)[1], name = (*it)[2];
    const OptionDef* def = nullptr;
    for (const auto& d : AllOptions()) {
      if (d.key == name) def = &d;
    }
    ASSERT_NE(def, nullptr) << ident << " (" << name << ") is not in the registry";
    EXPECT_EQ(def->ident, ident);
  }
  EXPECT_EQ(declared, static_cast<int>(AllOptions().size()));
  const auto sources = LibrarySources();
  auto used = [&](std::string_view ident) {
    for (const auto& [path, text] : sources) {
      if (text.find(std::string(ident)) != std::string::npos) return true;
    }
    return false;
  };
  for (const auto& d : AllOptions()) {
    if (d.support != Support::kImplemented) continue;
    // A table property is also read through the job option that overrides it.
    bool read = used(d.ident);
    for (const auto& o : AllOptions()) read = read || (o.overrides == d.key && used(o.ident));
    EXPECT_TRUE(read) << d.key << " is marked implemented but " << d.ident << " is read nowhere in src/floe";
  }
}

// No option name is written as a string literal at its place of use: code
// reads options through keys::. (Names that are also Iceberg JSON field names,
// and one-word names, are left out: they occur as JSON keys.)
TEST(Options, NoOptionKeyLiteralOutsideTheRegistry) {
  // (compression-codec is also a Puffin footer field: iceberg/puffin.cc.)
  const std::set<std::string_view> json_fields = {"format-version", "snapshot-id", "compression-codec"};
  const auto sources = LibrarySources();
  for (const auto& d : AllOptions()) {
    if (json_fields.contains(d.key) || d.key.find_first_of(".-_") == std::string_view::npos) continue;
    const std::string quoted = "\"" + std::string(d.key) + (d.is_prefix() ? "" : "\"");
    for (const auto& [path, text] : sources) {
      EXPECT_EQ(text.find(quoted), std::string::npos) << path << " spells option " << d.key << " as a literal";
    }
  }
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

}  // namespace options_test
}  // namespace floe::config
