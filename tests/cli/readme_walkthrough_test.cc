// The README's walkthroughs run as written (issue 28): every fenced block
// marked `<!-- walkthrough: NAME -->` is run by bash, in order, in a fresh
// folder that has the repository's examples/ and the built `floe` on PATH; a
// block marked `<!-- walkthrough: NAME FILE -->` is saved as FILE there first
// (the SQL script `floe sql -f` reads). Two things are adapted, and only
// these: the REST server's port 8181 becomes a free one (tests run beside
// each other), and after a line that starts a server in the background
// (`... &`) the script waits until the server's port accepts connections
// (polling, up to 60 s) before its next line, as a reader at a terminal
// would. Each walkthrough's output is then checked against what the README
// says it shows.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <map>
#include <regex>
#include <string>
#include <vector>

#include "cli/cli_util.h"

namespace floe_cli_test {
namespace {

struct Walkthrough {
  std::vector<std::string> scripts;                   ///< sh blocks, in README order
  std::vector<std::pair<std::string, std::string>> files;  ///< (name, text) blocks
};

/// The marked blocks of README.md by walkthrough name.
std::map<std::string, Walkthrough> ReadmeWalkthroughs() {
  std::map<std::string, Walkthrough> out;
  std::istringstream in(ReadFile(fs::path(FLOE_SOURCE_DIR) / "README.md"));
  const std::regex marker(R"(^<!-- walkthrough: ([a-z0-9_-]+)(?: ([A-Za-z0-9_.-]+))?(?: \(.*\))? -->$)");
  std::string line;
  std::string name, file;
  bool want_block = false, in_block = false;
  std::string text;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!in_block && std::regex_match(line, m, marker)) {
      name = m[1];
      file = m[2];
      want_block = true;
      continue;
    }
    if (want_block && !in_block && line.rfind("```", 0) == 0) {
      in_block = true;
      text.clear();
      continue;
    }
    if (in_block && line == "```") {
      in_block = want_block = false;
      if (file.empty()) {
        out[name].scripts.push_back(text);
      } else {
        out[name].files.emplace_back(file, text);
      }
      continue;
    }
    if (in_block) text += line + "\n";
  }
  return out;
}

int FreeLoopbackPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof(a);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ::close(fd);
    return -1;
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

class ReadmeWalkthrough : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("floe_readme_");
    fs::create_directory_symlink(fs::path(FLOE_SOURCE_DIR) / "examples", dir_ / "examples");
  }
  void TearDown() override { RemoveTestDirIfPassed(dir_); }

  /// Runs walkthrough `name` as described above; stdout and stderr together.
  RunResult Run(const std::string& name) {
    static const std::map<std::string, Walkthrough> all = ReadmeWalkthroughs();
    auto it = all.find(name);
    if (it == all.end()) {
      ADD_FAILURE() << "README.md has no block marked <!-- walkthrough: " << name << " -->";
      return {};
    }
    for (const auto& [file, text] : it->second.files) WriteFile(dir_ / file, text);
    const int port = FreeLoopbackPort();
    EXPECT_GT(port, 0);
    std::string script =
        "set -euo pipefail\n"
        "export PATH=" + Shell(fs::path(FLOE_BIN).parent_path().string()) + ":\"$PATH\"\n"
        "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"
        "wait_for_port() { for _ in $(seq 600); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; "
        "sleep 0.1; done; echo \"nothing listens on port $1\" >&2; return 1; }\n";
    for (const std::string& block : it->second.scripts) {
      std::istringstream lines(std::regex_replace(block, std::regex("127\\.0\\.0\\.1:8181"),
                                                  "127.0.0.1:" + std::to_string(port)));
      std::string l;
      while (std::getline(lines, l)) {
        script += l + "\n";
        if (l.size() > 2 && l.ends_with(" &")) script += "wait_for_port " + std::to_string(port) + "\n";
      }
    }
    WriteFile(dir_ / "walkthrough.sh", script);
    RunResult r = RunIn(dir_, "bash walkthrough.sh 2>&1");
    r.out += r.err;
    return r;
  }

  fs::path dir_;
};

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(ReadmeWalkthrough, EveryMarkedWalkthroughIsTested) {
  std::vector<std::string> names;
  for (const auto& [name, w] : ReadmeWalkthroughs()) {
    names.push_back(name);
    EXPECT_FALSE(w.scripts.empty()) << name << ": no sh block";
  }
  EXPECT_EQ(names, (std::vector<std::string>{"catalogs", "cdc", "sql"}));
}

TEST_F(ReadmeWalkthrough, Catalogs) {
  RunResult r = Run("catalogs");
  ASSERT_EQ(r.rc, 0) << r.out;
  // The hadoop and the SQLite catalog list their table; the REST server
  // over the hadoop warehouse serves its row to `floe scan`.
  EXPECT_GE(Count(r.out, "db.t"), 2u) << r.out;
  EXPECT_NE(r.out.find("{\"id\":1}"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(dir_ / "catalog.db"));
  EXPECT_TRUE(fs::exists(dir_ / "sql-warehouse" / "db" / "t" / "metadata"));
}

TEST_F(ReadmeWalkthrough, Cdc) {
  RunResult r = Run("cdc");
  ASSERT_EQ(r.rc, 0) << r.out;
  // "the source table as it is now: ids 1, 2, 4, 5"
  std::vector<int> ids;
  std::istringstream lines(r.out);
  std::string l;
  const std::regex row(R"(^\{"id":([0-9]+),)");
  for (std::smatch m; std::getline(lines, l);) {
    if (std::regex_search(l, m, row)) ids.push_back(std::stoi(m[1]));
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<int>{1, 2, 4, 5})) << r.out;
  // The snapshot summary names the sink; the same command again skips everything.
  EXPECT_NE(r.out.find("floe.sink-id"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"skipped\":12"), std::string::npos) << r.out;
}

TEST_F(ReadmeWalkthrough, Sql) {
  RunResult r = Run("sql");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out.find("[ERROR]"), std::string::npos) << r.out;
  // The batch SELECT on the branch: region eu holds id 1 after the upsert
  // (id 3, amount 0, was filtered out by the INSERT's WHERE).
  EXPECT_NE(r.out.find("|  1 |   9.99 |\n+----+--------+\n1 row in set"), std::string::npos) << r.out;
  // The changelog from the first snapshot: two inserts, then the upsert of
  // id 1 as a retract pair; LIMIT 4 ends it.
  EXPECT_NE(r.out.find("+I[1, eu, 5.25]\n+I[2, us, 7.50]\n-U[1, eu, 5.25]\n+U[1, eu, 9.99]\n"
                       "Received a total of 4 rows"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace floe_cli_test
