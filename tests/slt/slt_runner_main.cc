// slt_runner: runs one floe .slt file (src/floe/sqlengine/slt_runner.h);
// CTest runs it once per tests/sql/slt/*.slt.
//   slt_runner FILE.slt [--test-dir DIR] [--override]
// Exit 0 when every record passed (or was skipped), 1 otherwise.
#include <cstdio>
#include <cstring>
#include <string>

#include "floe/plugin/plugin_registry.h"
#include "floe/sqlengine/slt_runner.h"

int main(int argc, char** argv) {
  std::string file;
  floe::sqlengine::SltOptions options;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--override") == 0) {
      options.override_results = true;
    } else if (std::strcmp(argv[i], "--test-dir") == 0 && i + 1 < argc) {
      options.test_dir = argv[++i];
    } else if (file.empty() && argv[i][0] != '-') {
      file = argv[i];
    } else {
      std::fprintf(stderr, "usage: slt_runner FILE.slt [--test-dir DIR] [--override]\n");
      return 2;
    }
  }
  if (file.empty()) {
    std::fprintf(stderr, "usage: slt_runner FILE.slt [--test-dir DIR] [--override]\n");
    return 2;
  }
  if (options.test_dir.empty()) options.test_dir = "/tmp/floe_slt";
  // `require plugin X`: the class can be found (loaded, or on FLOE_PLUGIN_PATH).
  options.has_plugin = [](const std::string& name) {
    return floe::plugin::FindSinkClass(name).has_value();
  };
  auto outcome = floe::sqlengine::RunSltFile(file, options);
  if (!outcome) {
    std::fprintf(stderr, "%s: %s\n", file.c_str(), outcome.error().message.c_str());
    return 1;
  }
  for (const auto& f : outcome->failures) std::fprintf(stderr, "FAILED %s\n\n", f.c_str());
  std::printf("%s: %d passed, %d failed, %d skipped%s\n", file.c_str(), outcome->passed,
              outcome->failed, outcome->skipped,
              outcome->rewritten ? " (expected output rewritten)" : "");
  return outcome->failed == 0 ? 0 : 1;
}
