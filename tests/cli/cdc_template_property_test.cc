// The property test through a table template: random streams (cdc_model.h)
// keyed by (id, region) and written to `db.t_{region}`, so every key lives in
// one destination; after every run the destinations together hold exactly
// the model's table (floe scan and verify_table.mjs), and the accounting
// summed over destinations matches the model's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "cli/cdc_model.h"
#include "testing/scale.h"

namespace cdc_template_property_test {

using namespace cdc_test;  // NOLINT: test helpers
using floe_cli_test::FreshTestDir;
using floe_cli_test::RemoveTestDirIfPassed;
using floe_cli_test::WriteFile;
using floe_cli_test::SharedDir;

TEST(CdcProperty, TemplateDestinationsTogetherMatchTheModel) {
  // FLOE_TEST_SCALE (testing/scale.h): fewer seeds under the sanitizers.
  const int seeds = std::getenv("FLOE_CDC_SEEDS") ? std::max(1, std::atoi(std::getenv("FLOE_CDC_SEEDS")))
                                                  : static_cast<int>(floe::test::Scaled(10, 2));
  const fs::path root = FreshTestDir("floe_cdc_template_property_");
  for (int seed = 1; seed <= seeds; ++seed) {
    std::mt19937_64 rng(static_cast<uint64_t>(seed) * 7919);
    Options o;
    o.composite_key = true;
    o.partition = rng() % 2 ? Options::kBucket : Options::kNone;
    o.upsert = rng() % 3 == 0;
    o.error_output = true;
    const fs::path dir = root / ("seed_" + std::to_string(seed));
    fs::create_directories(dir);
    Generator gen(static_cast<uint64_t>(seed), o, 6);
    const std::vector<Change> lines = gen.Stream(30 + static_cast<int>(rng() % 50));
    std::vector<size_t> cuts = {1 + rng() % lines.size(), lines.size()};
    std::sort(cuts.begin(), cuts.end());
    Model model(o.upsert, true);
    Lineage lineage;
    const std::string what = "seed " + std::to_string(seed) + " (" + o.Describe() + "), folder " + dir.string();
    bool ok = true;
    for (size_t cut : cuts) {
      WriteFile(dir / "in.jsonl", InputText(lines, cut, false));
      std::string args = WriteArgs(o, "tpl", "in.jsonl");
      const size_t at = args.find("--table db.t ");
      ASSERT_NE(at, std::string::npos);
      args.replace(at, 13, "--table 'db.t_{region}' ");
      RunResult r = FloeRun(dir, "write " + args);
      if (r.rc != 0) {
        ADD_FAILURE() << what << ": floe write failed: " << r.err;
        ok = false;
        break;
      }
      const std::vector<Change> prefix(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(cut));
      const RunExpect e = model.Run(prefix, {static_cast<int64_t>(cut)}, &lineage, nullptr);
      const nlohmann::json acc = Accounting(r.out);
      ASSERT_FALSE(acc.is_null()) << r.out;
      EXPECT_EQ(acc.value("read", int64_t{-1}), e.read) << what << "\n" << r.out;
      EXPECT_EQ(acc.value("applied", int64_t{-1}), e.applied) << what << "\n" << r.out;
      EXPECT_EQ(acc.value("errors", int64_t{-1}), e.errors) << what << "\n" << r.out;
      EXPECT_EQ(acc.value("skipped", int64_t{-1}), e.skipped) << what << "\n" << r.out;
      EXPECT_EQ(acc.value("dead_letter", int64_t{0}) + acc.value("dropped", int64_t{0}), e.late) << what;
      // The destinations together: floe scan and the spec-only reader.
      std::vector<std::string> scanned, verified;
      for (const std::string region : {"eu", "us"}) {
        const fs::path table = dir / "wh" / "db" / ("t_" + region);
        if (!fs::exists(table / "metadata")) continue;
        RunResult s = FloeRun(dir, "scan --catalog warehouse=./wh --table db.t_" + region);
        ASSERT_EQ(s.rc, 0) << s.err;
        for (auto& line : SortedLines(s.out)) {
          // Each destination holds only its own region's rows.
          EXPECT_NE(line.find("\"region\":\"" + region + "\""), std::string::npos) << what << ": " << line;
          scanned.push_back(line);
        }
        RunResult v = Node(dir, "verify_table.mjs", {table.string(), "--strict"});
        ASSERT_EQ(v.rc, 0) << v.err;
        for (auto& line : SortedLines(v.out)) verified.push_back(line);
      }
      std::sort(scanned.begin(), scanned.end());
      std::sort(verified.begin(), verified.end());
      const std::vector<std::string> want = model.Rows();
      if (scanned != want || verified != want) {
        ADD_FAILURE() << what << ", lines 1.." << cut << ": the destinations disagree with the model\nmodel:\n"
                      << Joined(want) << "floe scan:\n"
                      << Joined(scanned) << "verify_table:\n"
                      << Joined(verified);
        ok = false;
        break;
      }
    }
    if (!ok) break;
  }
  RemoveTestDirIfPassed(root);
}

}  // namespace cdc_template_property_test
