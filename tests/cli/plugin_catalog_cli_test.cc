// A catalog plugin through the command line: `--catalog catalog-impl=<class>`
// finds the class on FLOE_PLUGIN_PATH; write, then scan in another process,
// go through the plugin (test.FileCatalog, tests/plugin/plugins/test_catalog.cc).

#include <algorithm>
#include <vector>

#include "cli/cli_util.h"

namespace floe_cli_test {
namespace plugin_catalog_cli_test {

class PluginCatalogCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("plugin_catalog_cli"); }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  RunResult Floe(const std::string& args, const std::string& plugin_path) {
    return RunIn(dir_, "FLOE_PLUGIN_PATH=" + Shell(plugin_path) + " " + Shell(FLOE_BIN) + " " +
                           args +
                           " --catalog catalog-impl=test.FileCatalog --catalog warehouse=wh");
  }
  static std::string Plugins() {
    return std::string(FLOE_BINARY_DIR) + "/plugins/libfloe_test_catalog.so";
  }

  static std::string Sorted(const std::string& text) {
    std::vector<std::string> lines;
    std::string line;
    for (char c : text) {
      if (c == '\n') {
        lines.push_back(line);
        line.clear();
      } else {
        line += c;
      }
    }
    std::sort(lines.begin(), lines.end());
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
  }

  fs::path dir_;
};

TEST_F(PluginCatalogCli, WriteAndScanThroughAPluginCatalog) {
  fs::create_directories(dir_ / "wh");
  WriteFile(dir_ / "a.jsonl", "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n");
  WriteFile(dir_ / "b.jsonl", "{\"id\":3,\"name\":\"c\"}\n");
  RunResult w1 =
      Floe("write --table shop.items --schema 'id BIGINT NOT NULL, name STRING' --input a.jsonl",
           Plugins());
  ASSERT_EQ(w1.rc, 0) << w1.err;
  RunResult w2 = Floe("write --table shop.items --input b.jsonl", Plugins());
  ASSERT_EQ(w2.rc, 0) << w2.err;
  RunResult scan = Floe("scan --table shop.items", Plugins());
  ASSERT_EQ(scan.rc, 0) << scan.err;
  EXPECT_EQ(Sorted(scan.out),
            "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n{\"id\":3,\"name\":\"c\"}\n");
  EXPECT_EQ(Floe("tables", Plugins()).out, "shop.items\n");
  // The plugin's own store points at floe's second metadata version.
  std::string store = ReadFile(dir_ / "wh" / "test_catalog.json");
  EXPECT_NE(store.find("/wh/shop/items/metadata/00002-"), std::string::npos) << store;
}

TEST_F(PluginCatalogCli, UnknownClassListsThePluginCatalogs) {
  RunResult r =
      RunIn(dir_, "FLOE_PLUGIN_PATH=" + Shell(Plugins()) + " " + Shell(FLOE_BIN) +
                      " tables --catalog catalog-impl=com.example.Nope --catalog warehouse=wh");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("catalog-impl 'com.example.Nope' is not a catalog floe knows"),
            std::string::npos)
      << r.err;
  EXPECT_NE(
      r.err.find(
          "Could not find any factory for identifier 'com.example.Nope' that implements 'floe "
          "catalog plugin'"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("\ntest.FileCatalog\n"), std::string::npos) << r.err;
}

TEST_F(PluginCatalogCli, WithoutThePluginPathTheClassIsUnknown) {
  RunResult r = Floe("tables", "");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("Could not find any factory for identifier 'test.FileCatalog'"),
            std::string::npos)
      << r.err;
}

}  // namespace plugin_catalog_cli_test
}  // namespace floe_cli_test
