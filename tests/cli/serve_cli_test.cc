// `floe serve` as clients see it: npm's iceberg-js through the OpenAPI
// validating proxy of shared/interop (0 violations), and raw HTTP with curl
// for every error path (404, 409 on create and on a stale commit, 400 on an
// unknown update, 401 without or with a wrong token, the OAuth token
// exchange), paging, commits racing from several clients and two servers
// (each applied exactly once or answered 409), a table written by `floe
// write` loaded through the server and read by verify_table.mjs from the
// metadata the server returned, the FLOE_SERVE_FAULT commit faults, and a
// clean stop on SIGTERM.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_util.h"

namespace serve_cli_test {

namespace fs = std::filesystem;
using namespace floe_cli_test;  // NOLINT: test helpers

std::string Interop(const std::string& script) {
  return "node " + Shell(SharedDir() + "/interop/" + script);
}

/// A free TCP port on 127.0.0.1 (for the node proxy, which takes a number).
int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

/// A background process started through /bin/sh, stdout and stderr in files;
/// ended with SIGTERM by its pid.
class Background {
 public:
  Background(const fs::path& dir, const std::string& name, const std::string& cmd)
      : out_(dir / (name + ".out")), err_(dir / (name + ".err")) {
    pid_ = ::fork();
    if (pid_ == 0) {
      std::string full = "cd " + Shell(dir.string()) + " && exec " + cmd + " >" +
                         Shell(out_.string()) + " 2>" + Shell(err_.string());
      ::execl("/bin/sh", "sh", "-c", full.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }
  ~Background() { (void)Stop(); }

  /// Waits until stdout has a line matching `pattern`; returns its first group.
  std::string WaitFor(const std::string& pattern) {
    std::regex re(pattern);
    for (int i = 0; i < 300; ++i) {
      std::smatch m;
      std::string out = ReadFile(out_);
      if (std::regex_search(out, m, re)) return m[1];
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        ADD_FAILURE() << "exited before printing " << pattern << ": " << ReadFile(err_);
        return "";
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ADD_FAILURE() << "no line matching " << pattern << " in 15 s: " << ReadFile(err_);
    return "";
  }

  /// SIGTERM, then the exit status (-1 if it died of a signal).
  int Stop() {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string err() const { return ReadFile(err_); }

 private:
  fs::path out_, err_;
  pid_t pid_ = -1;
};

struct Http {
  int status = 0;
  std::string body;
  int curl_rc = 0;
};

class ServeCli : public testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("floe_serve_"); }
  void TearDown() override {
    servers_.clear();
    RemoveTestDirIfPassed(dir_);
  }

  RunResult Sh(const std::string& cmd) { return RunIn(dir_, cmd); }
  RunResult Floe(const std::string& args) { return FloeRun(dir_, args); }

  /// Starts `floe serve` over the hadoop warehouse ./wh; returns its base URL.
  std::string Serve(const std::string& extra = "", const std::string& env = "") {
    servers_.push_back(std::make_unique<Background>(
        dir_, "serve" + std::to_string(servers_.size()),
        env + Shell(FLOE_BIN) + " serve --catalog warehouse=" + Shell((dir_ / "wh").string()) +
            " --listen 127.0.0.1:0 " + extra));
    std::string port =
        servers_.back()->WaitFor(R"re(floe serve: listening on http://127\.0\.0\.1:(\d+))re");
    return "http://127.0.0.1:" + port;
  }

  Http Curl(const std::string& method, const std::string& url, const std::string& body = "",
            const std::string& headers = "") {
    std::string cmd = "curl -s -o .body -w '%{http_code}' -X " + method + " " + headers;
    if (method == "HEAD") cmd = "curl -s -o .body -w '%{http_code}' -I " + headers;
    if (!body.empty()) cmd += " -H 'Content-Type: application/json' --data-binary " + Shell(body);
    RunResult r = Sh(cmd + " " + Shell(url));
    Http h;
    h.curl_rc = r.rc;
    h.status = std::atoi(r.out.c_str());
    h.body = ReadFile(dir_ / ".body");
    return h;
  }

  fs::path dir_;
  std::vector<std::unique_ptr<Background>> servers_;
};

constexpr const char* kSchema =
    R"({"type":"struct","fields":[{"id":1,"name":"id","required":true,"type":"long"},{"id":2,"name":"s","required":false,"type":"string"}]})";

std::string CreateTableBody(const std::string& name) {
  return R"({"name":")" + name + R"(","schema":)" + kSchema + "}";
}

TEST_F(ServeCli, IcebergJsThroughTheValidatingProxyFindsNoViolation) {
  std::string url = Serve();
  int port = FreePort();
  Background proxy(dir_, "proxy",
                   Interop("rest_validating_proxy.mjs") + " " + std::to_string(port) + " " + url);
  ASSERT_FALSE(proxy.WaitFor(R"re((oas-proxy) )re").empty());
  std::string client = "FLOE_SHARED=" + Shell(SharedDir()) + " node " +
                       Shell(std::string(FLOE_SOURCE_DIR) + "/tests/cli/serve_iceberg_js.mjs") +
                       " http://127.0.0.1:" + std::to_string(port);
  const std::string expected =
      "list-empty: []\n"
      "list: [{\"namespace\":[\"sales\"]}]\n"
      "list-children: [{\"namespace\":[\"sales\",\"eu\"]}]\n"
      "exists: true\nexists-missing: false\nload-namespace: true\n"
      "create: {\"format\":2,\"fields\":[\"id\",\"amount\",\"at\"]}\n"
      "load: {\"uuid\":true,\"owner\":\"test\"}\n"
      "list-tables: [{\"namespace\":[\"sales\",\"eu\"],\"name\":\"orders\"}]\n"
      "table-exists: true\n"
      "commit: {\"stage\":\"two\",\"location\":true}\n"
      "create-again: 409\nafter-drop: []\ndrop-non-empty: 409\nlist-end: []\n";
  // Without a prefix (/v1/namespaces) and with one (/v1/wh/namespaces).
  for (std::string args : {"", " wh"}) {
    RunResult r = Sh(client + args);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out, expected) << "prefix:" << args;
  }
  Http v = Curl("GET", "http://127.0.0.1:" + std::to_string(port) + "/__oas/violations");
  EXPECT_NE(v.body.find("\"violations\":[]"), std::string::npos) << v.body;
  EXPECT_EQ(v.body.find("\"exchanges\":0"), std::string::npos) << v.body;
  EXPECT_EQ(servers_[0]->Stop(), 0) << "SIGTERM stops cleanly: " << servers_[0]->err();
}

TEST_F(ServeCli, ErrorPathsAnswerTheSpecsErrorModel) {
  std::string v1 = Serve() + "/v1";
  Http h = Curl("GET", v1 + "/config");
  EXPECT_EQ(h.status, 200);
  EXPECT_NE(h.body.find("\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}\""),
            std::string::npos)
      << h.body;
  EXPECT_EQ(h.body.find("views"), std::string::npos) << "unsupported routes are not advertised";

  h = Curl("GET", v1 + "/namespaces/db");
  EXPECT_EQ(h.status, 404);
  EXPECT_NE(h.body.find(R"("type":"NoSuchNamespaceException","code":404)"), std::string::npos)
      << h.body;
  EXPECT_EQ(Curl("HEAD", v1 + "/namespaces/db").status, 404);
  EXPECT_EQ(Curl("POST", v1 + "/namespaces", R"({"namespace":["db"]})").status, 200);
  h = Curl("POST", v1 + "/namespaces", R"({"namespace":["db"]})");
  EXPECT_EQ(h.status, 409);
  EXPECT_NE(h.body.find("AlreadyExistsException"), std::string::npos) << h.body;
  EXPECT_EQ(Curl("HEAD", v1 + "/namespaces/db").status, 204);
  h = Curl("POST", v1 + "/namespaces", R"({"namespace":["a/../b"]})");
  EXPECT_EQ(h.status, 400) << h.body;

  h = Curl("GET", v1 + "/namespaces/db/tables/t");
  EXPECT_EQ(h.status, 404);
  EXPECT_NE(h.body.find("NoSuchTableException"), std::string::npos) << h.body;
  h = Curl("GET", v1 + "/namespaces/nope/tables");
  EXPECT_EQ(h.status, 404);
  EXPECT_NE(h.body.find("NoSuchNamespaceException"), std::string::npos) << h.body;
  h = Curl("POST", v1 + "/namespaces/db/tables",
           R"({"name":"t","stage-create":true,"schema":)" + std::string(kSchema) + "}");
  EXPECT_EQ(h.status, 400);
  EXPECT_NE(h.body.find("stage-create"), std::string::npos) << h.body;
  ASSERT_EQ(Curl("POST", v1 + "/namespaces/db/tables", CreateTableBody("t")).status, 200);
  h = Curl("POST", v1 + "/namespaces/db/tables", CreateTableBody("t"));
  EXPECT_EQ(h.status, 409);
  EXPECT_NE(h.body.find("AlreadyExistsException"), std::string::npos) << h.body;
  EXPECT_EQ(Curl("HEAD", v1 + "/namespaces/db/tables/t").status, 204);

  // Commits: unknown action 400, stale requirement 409, good 200.
  h = Curl("POST", v1 + "/namespaces/db/tables/t",
           R"({"requirements":[],"updates":[{"action":"explode"}]})");
  EXPECT_EQ(h.status, 400);
  EXPECT_NE(h.body.find("unknown update action 'explode'"), std::string::npos) << h.body;
  const std::string set_a =
      R"({"requirements":[{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null}],"updates":[{"action":"set-properties","updates":{"a":"1"}}]})";
  h = Curl("POST", v1 + "/namespaces/db/tables/t", set_a);
  EXPECT_EQ(h.status, 200) << h.body;
  EXPECT_NE(h.body.find("\"metadata-location\""), std::string::npos);
  h = Curl(
      "POST", v1 + "/namespaces/db/tables/t",
      R"({"requirements":[{"type":"assert-current-schema-id","current-schema-id":3}],"updates":[]})");
  EXPECT_EQ(h.status, 409);
  EXPECT_NE(h.body.find(R"("type":"CommitFailedException")"), std::string::npos) << h.body;
  EXPECT_NE(h.body.find("expected 3, found 0"), std::string::npos) << h.body;
  h = Curl("POST", v1 + "/namespaces/db/tables/gone", set_a);
  EXPECT_EQ(h.status, 404);

  EXPECT_EQ(
      Curl("POST", v1 + "/namespaces/db/tables/t/metrics", R"({"report-type":"commit-report"})")
          .status,
      204);
  h = Curl("GET", v1 + "/namespaces/db/views");
  EXPECT_EQ(h.status, 406);
  EXPECT_NE(h.body.find("UnsupportedOperationException"), std::string::npos) << h.body;
  EXPECT_EQ(
      Curl("POST", v1 + "/namespaces/db/properties", R"({"updates":{"k":"v"},"removals":["k"]})")
          .status,
      422);

  // The hadoop catalog cannot rename (as Java's HadoopCatalog): the
  // backend's refusal is a 406 naming it; an unknown source is still 404.
  h = Curl(
      "POST", v1 + "/tables/rename",
      R"({"source":{"namespace":["db"],"name":"t"},"destination":{"namespace":["db"],"name":"u"}})");
  EXPECT_EQ(h.status, 406);
  EXPECT_NE(h.body.find("UnsupportedOperationException"), std::string::npos) << h.body;
  h = Curl("DELETE", v1 + "/namespaces/db");
  EXPECT_EQ(h.status, 409);
  EXPECT_NE(h.body.find("NamespaceNotEmptyException"), std::string::npos) << h.body;
  EXPECT_EQ(Curl("DELETE", v1 + "/namespaces/db/tables/t?purgeRequested=true").status, 204);
  EXPECT_FALSE(fs::exists(dir_ / "wh/db/t"));
  EXPECT_EQ(Curl("DELETE", v1 + "/namespaces/db/tables/t").status, 404);
  EXPECT_EQ(Curl("DELETE", v1 + "/namespaces/db").status, 204);
}

// A 406 (an operation the backend refuses: rename on the hadoop catalog,
// views) passes the validating proxy: the OpenAPI document's
// UnsupportedOperationResponse is a bare ErrorModel, which the body carries at
// its top level next to the {"error": ...} wrapper that clients parse.
TEST_F(ServeCli, UnsupportedOperationsAreErrorModelsThroughTheValidatingProxy) {
  std::string url = Serve();
  int port = FreePort();
  Background proxy(dir_, "proxy",
                   Interop("rest_validating_proxy.mjs") + " " + std::to_string(port) + " " + url);
  ASSERT_FALSE(proxy.WaitFor(R"re((oas-proxy) )re").empty());
  const std::string v1 = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  ASSERT_EQ(Curl("POST", v1 + "/namespaces", R"({"namespace":["db"]})").status, 200);
  ASSERT_EQ(Curl("POST", v1 + "/namespaces/db/tables", CreateTableBody("t")).status, 200);
  Http h = Curl(
      "POST", v1 + "/tables/rename",
      R"({"source":{"namespace":["db"],"name":"t"},"destination":{"namespace":["db"],"name":"u"}})");
  EXPECT_EQ(h.status, 406);
  EXPECT_NE(h.body.find(R"("error":{)"), std::string::npos) << h.body;
  EXPECT_NE(h.body.find(R"("code":406)"), std::string::npos) << h.body;
  h = Curl("GET", v1 + "/namespaces/db/views");
  EXPECT_EQ(h.status, 406);
  Http v = Curl("GET", "http://127.0.0.1:" + std::to_string(port) + "/__oas/violations");
  EXPECT_NE(v.body.find("\"violations\":[]"), std::string::npos) << v.body;
  EXPECT_EQ(v.body.find("\"exchanges\":0"), std::string::npos) << v.body;
}

TEST_F(ServeCli, BearerTokensAndTheOAuthTokenEndpoint) {
  WriteFile(dir_ / "tokens", "static-token-1\n");
  WriteFile(dir_ / "clients", "spark:s3cret\n");
  std::string base = Serve("--token-file tokens --credentials-file clients");
  std::string v1 = base + "/v1";
  Http h = Curl("GET", v1 + "/config");
  EXPECT_EQ(h.status, 401);
  EXPECT_NE(h.body.find("NotAuthorizedException"), std::string::npos) << h.body;
  EXPECT_EQ(Curl("GET", v1 + "/namespaces", "", "-H 'Authorization: Bearer wrong'").status, 401);
  EXPECT_EQ(Curl("GET", v1 + "/namespaces", "", "-H 'Authorization: Bearer static-token-1'").status,
            200);

  auto token = [&](const std::string& form) {
    RunResult r = Sh("curl -s -o .body -w '%{http_code}' -X POST --data " + Shell(form) + " " +
                     Shell(v1 + "/oauth/tokens"));
    return std::make_pair(std::atoi(r.out.c_str()), ReadFile(dir_ / ".body"));
  };
  auto bad =
      token("grant_type=client_credentials&client_id=spark&client_secret=nope&scope=catalog");
  EXPECT_EQ(bad.first, 401);
  EXPECT_NE(bad.second.find("invalid_client"), std::string::npos) << bad.second;
  EXPECT_EQ(token("grant_type=password&client_id=spark&client_secret=s3cret").first, 400);
  auto good =
      token("grant_type=client_credentials&client_id=spark&client_secret=s3cret&scope=catalog");
  ASSERT_EQ(good.first, 200) << good.second;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(good.second, m, std::regex(R"re("access_token":"([0-9a-f]+)")re")))
      << good.second;
  EXPECT_NE(good.second.find(R"("token_type":"bearer")"), std::string::npos);
  EXPECT_NE(good.second.find(R"("expires_in":3600)"), std::string::npos);
  h = Curl("POST", v1 + "/namespaces", R"({"namespace":["db"]})",
           "-H " + Shell("Authorization: Bearer " + m[1].str()));
  EXPECT_EQ(h.status, 200) << h.body;
}

TEST_F(ServeCli, PagingWalksEveryNamespaceAndTableOnce) {
  std::string v1 = Serve() + "/v1";
  for (std::string ns : {"e", "a", "d", "c", "b"}) {
    ASSERT_EQ(Curl("POST", v1 + "/namespaces", R"({"namespace":[")" + ns + R"("]})").status, 200);
  }
  for (std::string t : {"t3", "t1", "t2"})
    ASSERT_EQ(Curl("POST", v1 + "/namespaces/a/tables", CreateTableBody(t)).status, 200);
  std::vector<std::string> pages;
  std::string token;
  for (int i = 0; i < 10; ++i) {
    Http h = Curl("GET", v1 + "/namespaces?pageSize=2&pageToken=" + token);
    ASSERT_EQ(h.status, 200) << h.body;
    pages.push_back(h.body);
    std::smatch m;
    if (!std::regex_search(h.body, m, std::regex(R"re("next-page-token":"([^"]*)")re"))) break;
    token = m[1];
  }
  ASSERT_EQ(pages.size(), 3u);
  EXPECT_EQ(pages[0], R"({"namespaces":[["a"],["b"]],"next-page-token":"b"})");
  EXPECT_EQ(pages[1], R"({"namespaces":[["c"],["d"]],"next-page-token":"d"})");
  EXPECT_EQ(pages[2], R"({"namespaces":[["e"]],"next-page-token":null})");
  EXPECT_EQ(Curl("GET", v1 + "/namespaces").body,
            R"({"namespaces":[["a"],["b"],["c"],["d"],["e"]],"next-page-token":null})");
  Http t = Curl("GET", v1 + "/namespaces/a/tables?pageToken=&pageSize=2");
  EXPECT_NE(t.body.find(R"("name":"t1"},{"namespace":["a"],"name":"t2"}],"next-page-token":"t2")"),
            std::string::npos)
      << t.body;
  t = Curl("GET", v1 + "/namespaces/a/tables?pageToken=t2&pageSize=2");
  EXPECT_EQ(t.body, R"({"identifiers":[{"namespace":["a"],"name":"t3"}],"next-page-token":null})");
  EXPECT_EQ(Curl("GET", v1 + "/namespaces?pageToken=&pageSize=0").status, 400);
  // A nested namespace through `parent` with the 0x1F separator.
  ASSERT_EQ(Curl("POST", v1 + "/namespaces", R"({"namespace":["a","x"]})").status, 200);
  ASSERT_EQ(Curl("POST", v1 + "/namespaces", R"({"namespace":["a","x","y"]})").status, 200);
  EXPECT_EQ(Curl("GET", v1 + "/namespaces?parent=a%1Fx").body,
            R"({"namespaces":[["a","x","y"]],"next-page-token":null})");
  EXPECT_EQ(Curl("HEAD", v1 + "/namespaces/a%1Fx%1Fy").status, 204);
}

TEST_F(ServeCli, ConcurrentCommitsFromTwoServersApplyEachOnceOrAnswer409) {
  std::string a = Serve() + "/v1";
  std::string b = Serve() + "/v1";
  ASSERT_EQ(Curl("POST", a + "/namespaces", R"({"namespace":["db"]})").status, 200);
  ASSERT_EQ(Curl("POST", a + "/namespaces/db/tables", CreateTableBody("t")).status, 200);
  // Two clients per server, 8 commits each, each setting its own key; the
  // servers race on the warehouse's compare-and-swap.
  std::vector<std::string> loops;
  for (int c = 0; c < 4; ++c) {
    std::string url = (c % 2 ? a : b) + "/namespaces/db/tables/t";
    std::string loop =
        "for i in 1 2 3 4 5 6 7 8; do curl -s -o /dev/null -w '%{http_code} c" + std::to_string(c) +
        "_'$i'\\n' -X POST -H 'Content-Type: application/json' --data-binary " +
        "'{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"c" +
        std::to_string(c) + "_'$i'\":\"x\"}}]}' " + Shell(url) + "; done";
    loops.push_back(loop);
  }
  std::string all;
  for (const auto& l : loops)
    all += "(" + l + ") > codes" + std::to_string(&l - loops.data()) + " & ";
  RunResult r = Sh("( " + all + "wait; cat codes* )");
  ASSERT_EQ(r.rc, 0) << r.err;
  int ok = 0, conflicts = 0;
  std::vector<std::string> applied;
  std::stringstream ss(r.out);
  for (std::string line; std::getline(ss, line);) {
    if (line.starts_with("200 ")) {
      ++ok;
      applied.push_back(line.substr(4));
    } else if (line.starts_with("409 ")) {
      ++conflicts;
    } else {
      ADD_FAILURE() << "unexpected answer: " << line;
    }
  }
  EXPECT_EQ(ok + conflicts, 32);
  Http t = Curl("GET", a + "/namespaces/db/tables/t");
  for (const auto& key : applied)
    EXPECT_NE(t.body.find("\"" + key + "\":\"x\""), std::string::npos) << key;
  // Exactly once: one metadata version per successful commit, after v1.
  int versions = 0;
  for (const auto& e : fs::directory_iterator(dir_ / "wh/db/t/metadata"))
    versions += e.path().string().ends_with(".metadata.json");
  EXPECT_EQ(versions, 1 + ok);
  EXPECT_GT(ok, 0);
}

TEST_F(ServeCli, TableWrittenByFloeLoadsThroughTheServerAndVerifyTableReadsItsMetadata) {
  WriteFile(dir_ / "in.jsonl", "{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"b\"}\n");
  RunResult w = Floe(
      "write --table db.t --catalog warehouse=./wh --schema 'id BIGINT NOT NULL, s STRING' --input "
      "in.jsonl");
  ASSERT_EQ(w.rc, 0) << w.err;
  std::string v1 = Serve() + "/v1";
  Http h = Curl("GET", v1 + "/namespaces/db/tables/t");
  ASSERT_EQ(h.status, 200) << h.body;
  size_t at = h.body.find("\"metadata\":");
  size_t end = h.body.rfind(",\"config\":");
  ASSERT_NE(at, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  // The served metadata, as a file verify_table.mjs reads on its own.
  fs::path served = dir_ / "wh/db/t/metadata/served.metadata.json";
  WriteFile(served, h.body.substr(at + 11, end - at - 11));
  RunResult v = Node(dir_, "verify_table.mjs", {served.string(), "--strict"});
  ASSERT_EQ(v.rc, 0) << v.err;
  EXPECT_EQ(v.out, "{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"b\"}\n");
}

TEST_F(ServeCli, FaultSwitchAppliesTheCommitThenFailsTheReply) {
  std::string v1 = Serve("", "env FLOE_SERVE_FAULT=commit-500:1 ") + "/v1";
  ASSERT_EQ(Curl("POST", v1 + "/namespaces", R"({"namespace":["db"]})").status, 200);
  ASSERT_EQ(Curl("POST", v1 + "/namespaces/db/tables", CreateTableBody("t")).status, 200);
  const std::string commit =
      R"({"requirements":[],"updates":[{"action":"set-properties","updates":{"k":"v"}}]})";
  Http h = Curl("POST", v1 + "/namespaces/db/tables/t", commit);
  EXPECT_EQ(h.status, 500);
  EXPECT_NE(h.body.find("CommitStateUnknownException"), std::string::npos) << h.body;
  EXPECT_TRUE(fs::exists(dir_ / "wh/db/t/metadata/v2.metadata.json")) << "the commit landed";
  EXPECT_EQ(Curl("POST", v1 + "/namespaces/db/tables/t", commit).status, 200)
      << "only the first commit fails";

  std::string v1b = Serve("", "env FLOE_SERVE_FAULT=commit-drop-reply:2 ") + "/v1";
  EXPECT_EQ(Curl("POST", v1b + "/namespaces/db/tables/t", commit).status, 200);
  h = Curl("POST", v1b + "/namespaces/db/tables/t", commit);
  EXPECT_EQ(h.status, 0) << "no reply at all";
  EXPECT_EQ(h.curl_rc, 52) << "curl: empty reply from server";
  EXPECT_TRUE(fs::exists(dir_ / "wh/db/t/metadata/v5.metadata.json"))
      << "the dropped commit landed";
  EXPECT_EQ(Curl("GET", v1b + "/namespaces/db/tables/t").status, 200) << "the server still answers";
}

TEST_F(ServeCli, BadArgumentsAreNamed) {
  RunResult r = Floe("serve --listen nowhere");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--listen 'nowhere'"), std::string::npos) << r.err;
  r = Floe("serve --listen 127.0.0.1:0 --token-file missing-file");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("--token-file missing-file"), std::string::npos) << r.err;
  WriteFile(dir_ / "clients", "no-colon-here\n");
  r = Floe("serve --listen 127.0.0.1:0 --credentials-file clients");
  EXPECT_NE(r.err.find("line 1: expected CLIENT_ID:SECRET"), std::string::npos) << r.err;
  r = Sh("FLOE_SERVE_FAULT=bogus " + Shell(FLOE_BIN) + " serve --listen 127.0.0.1:0");
  EXPECT_NE(r.err.find("FLOE_SERVE_FAULT 'bogus'"), std::string::npos) << r.err;
}

}  // namespace serve_cli_test

namespace serve_cli_test {

std::string SortedLines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l + "\n");
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l;
  return out;
}

// floe's own REST client drives `floe serve` through the validating proxy:
// writes (creating the namespace's table, appending, a branch), a scan,
// expire, and a write made directly to the warehouse by another process,
// which the server must answer at once (it serves the current table, never
// a cached one). verify_table.mjs reads the table the server's last answer
// names, and the proxy saw no violation.
TEST_F(ServeCli, FloesRestClientWritesThroughTheServerAndSeesOtherWriters) {
  std::string url = Serve();
  int port = FreePort();
  Background proxy(dir_, "proxy",
                   Interop("rest_validating_proxy.mjs") + " " + std::to_string(port) + " " + url);
  ASSERT_FALSE(proxy.WaitFor(R"re((oas-proxy) )re").empty());
  const std::string rest = "--catalog catalog-type=rest --catalog uri=http://127.0.0.1:" + std::to_string(port);
  const std::string direct = "--catalog warehouse=./wh";
  ASSERT_EQ(Floe("create-namespace db " + rest).rc, 0);
  WriteFile(dir_ / "a.jsonl", "{\"id\":1,\"s\":\"a\"}\n");
  WriteFile(dir_ / "b.jsonl", "{\"id\":2,\"s\":\"b\"}\n");
  WriteFile(dir_ / "c.jsonl", "{\"id\":3,\"s\":\"c\"}\n");
  const std::string schema = " --schema 'id BIGINT NOT NULL, s STRING'";
  RunResult w = Floe("write --table db.t --input a.jsonl" + schema + " " + rest);
  ASSERT_EQ(w.rc, 0) << w.err;
  RunResult scan1 = Floe("scan --table db.t " + rest);
  ASSERT_EQ(scan1.rc, 0) << scan1.err;
  // Another process writes to the warehouse directly, not through the server.
  w = Floe("write --table db.t --input b.jsonl " + direct);
  ASSERT_EQ(w.rc, 0) << w.err;
  RunResult scan2 = Floe("scan --table db.t " + rest);
  ASSERT_EQ(scan2.rc, 0) << scan2.err;
  EXPECT_EQ(SortedLines(scan2.out), "{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"b\"}\n")
      << "the server answered a stale table";
  // And a commit through the server builds on it.
  w = Floe("write --table db.t --input c.jsonl " + rest);
  ASSERT_EQ(w.rc, 0) << w.err;
  ASSERT_EQ(Floe("tag --table db.t v1 " + rest).rc, 0);
  RunResult snaps = Floe("snapshots db.t " + rest);
  ASSERT_EQ(snaps.rc, 0) << snaps.err;
  EXPECT_EQ(std::count(snaps.out.begin(), snaps.out.end(), '\n'), 3) << snaps.out;
  RunResult tables = Floe("tables " + rest);
  EXPECT_EQ(tables.out, "db.t\n") << tables.err;
  RunResult namespaces = Floe("namespaces " + rest);
  EXPECT_EQ(namespaces.out, "db\n") << namespaces.err;
  ASSERT_EQ(Floe("branch --table db.t dev " + rest).rc, 0);
  // Expire through the server (a remove-snapshots commit): the two older
  // snapshots go, the heads of main, dev and v1 stay.
  RunResult expire = Floe("expire --table db.t --retain-last 1 --older-than 99999999999999 " + rest);
  ASSERT_EQ(expire.rc, 0) << expire.err;
  snaps = Floe("snapshots db.t " + rest);
  EXPECT_EQ(std::count(snaps.out.begin(), snaps.out.end(), '\n'), 1) << snaps.out;
  RunResult describe = Floe("describe db.t " + rest);
  ASSERT_EQ(describe.rc, 0) << describe.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(describe.out, m, std::regex(R"re("metadata-location": "([^"]+)")re")))
      << describe.out;
  std::string metadata = m[1];
  if (metadata.starts_with("file:")) metadata = metadata.substr(5);
  RunResult v = Node(dir_, "verify_table.mjs", {metadata, "--strict"});
  ASSERT_EQ(v.rc, 0) << v.err;
  EXPECT_EQ(SortedLines(v.out), "{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"b\"}\n{\"id\":3,\"s\":\"c\"}\n");
  Http violations = Curl("GET", "http://127.0.0.1:" + std::to_string(port) + "/__oas/violations");
  EXPECT_NE(violations.body.find("\"violations\":[]"), std::string::npos) << violations.body;
}

}  // namespace serve_cli_test

namespace serve_cli_test {

TEST_F(ServeCli, CacheOptionsAreRefusedBecauseTheServerNeverCaches) {
  for (const char* opt : {"cache-enabled=true", "cache.expiration-interval-ms=1000"}) {
    RunResult r = Floe(std::string("serve --catalog warehouse=./wh --listen 127.0.0.1:0 --catalog ") + opt);
    EXPECT_EQ(r.rc, 2) << opt << r.err;
    EXPECT_NE(r.err.find("floe serve never caches tables"), std::string::npos) << r.err;
  }
}

}  // namespace serve_cli_test

namespace serve_cli_test {

/// A TCP connection to 127.0.0.1:port (-1 when refused).
int ConnectTo(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

void SendAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

/// One GET /v1/config on a new connection: the status line, or "" when no
/// answer came within `limit`.
std::string TimedGet(int port, std::chrono::milliseconds limit) {
  int fd = ConnectTo(port);
  if (fd < 0) return "";
  timeval tv{static_cast<time_t>(limit.count() / 1000),
             static_cast<suseconds_t>((limit.count() % 1000) * 1000)};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  SendAll(fd, "GET /v1/config HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  std::string got;
  char buf[4096];
  while (got.find("\r\n") == std::string::npos) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return got.substr(0, got.find("\r\n"));
}

// Slow clients (a byte every 100 ms, loopback: half still sending their
// headers, half their body) must not stop the server answering anyone else:
// each other request is answered within 1 s, under 12 and under 40 of them.
// They used to hold one of the server's 8 worker threads each for as long
// as they kept sending.
TEST_F(ServeCli, SlowClientsDoNotDelayOtherClients) {
  std::string url = Serve();
  const int port = std::stoi(url.substr(url.rfind(':') + 1));
  for (int slow_count : {12, 40}) {
    std::atomic<bool> done{false};
    std::atomic<int> started{0};
    std::vector<std::thread> slow;
    for (int i = 0; i < slow_count; ++i) {
      slow.emplace_back([&, i] {
        int fd = ConnectTo(port);
        if (fd < 0) {
          ++started;
          return;
        }
        std::string bytes;
        size_t sent = 0;
        if (i % 2) {
          bytes = "GET /v1/config HTTP/1.1\r\nX-Slow: " + std::string(400, 'x');
        } else {
          const std::string head = "POST /v1/namespaces HTTP/1.1\r\nContent-Length: 400\r\n\r\n";
          bytes = head + std::string(400, ' ');
          SendAll(fd, head);
          sent = head.size();
        }
        SendAll(fd, bytes.substr(sent++, 1));
        ++started;
        while (!done.load() && sent < bytes.size()) {
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
          SendAll(fd, bytes.substr(sent++, 1));
        }
        ::close(fd);
      });
    }
    while (started.load() < slow_count) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    for (int i = 0; i < 3; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      std::string status = TimedGet(port, std::chrono::milliseconds(2500));
      const auto took = std::chrono::steady_clock::now() - t0;
      EXPECT_EQ(status, "HTTP/1.1 200 OK") << slow_count << " slow clients, request " << i;
      EXPECT_LT(took, std::chrono::seconds(1)) << slow_count << " slow clients, request " << i;
    }
    done = true;
    for (auto& t : slow) t.join();
  }
  EXPECT_EQ(servers_[0]->Stop(), 0) << servers_[0]->err();
}

TEST_F(ServeCli, NonLoopbackAddressesNeedAuthenticationOrTheFlagThatWaivesIt) {
  const std::string floe = "timeout 20 " + Shell(FLOE_BIN) + " serve --catalog warehouse=./wh";
  for (const char* listen : {"0.0.0.0:0", "[::]:0", "192.0.2.1:0"}) {
    RunResult r = Sh(floe + " --listen " + listen);
    EXPECT_EQ(r.rc, 2) << listen << ": " << r.err;
    EXPECT_NE(r.err.find(std::string("--listen ") + listen +
                         ": serving an address other than loopback without authentication is "
                         "refused"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("--allow-unauthenticated"), std::string::npos) << r.err;
  }
  WriteFile(dir_ / "tokens", "static-token-1\n");
  RunResult r = Sh(floe + " --listen 127.0.0.1:0 --token-file tokens --allow-unauthenticated");
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--allow-unauthenticated with --token-file"), std::string::npos) << r.err;

  // Loopback without authentication serves, and says that it is off.
  Serve();
  EXPECT_NE(servers_[0]->err().find("floe serve: authentication is off (no --token-file or "
                                    "--credentials-file): every client that reaches 127.0.0.1:"),
            std::string::npos)
      << servers_[0]->err();
  // With a token, nothing is said; all addresses with the flag serve (this
  // test talks to it on loopback only).
  Serve("--token-file tokens");
  EXPECT_EQ(servers_[1]->err().find("authentication is off"), std::string::npos);
  servers_.push_back(std::make_unique<Background>(
      dir_, "serve_any",
      Shell(FLOE_BIN) + " serve --catalog warehouse=./wh --listen 0.0.0.0:0 --allow-unauthenticated"));
  std::string port = servers_.back()->WaitFor(R"re(listening on http://0\.0\.0\.0:(\d+))re");
  EXPECT_EQ(Curl("GET", "http://127.0.0.1:" + port + "/v1/config").status, 200);
  EXPECT_NE(servers_.back()->err().find("authentication is off"), std::string::npos);
}

TEST_F(ServeCli, LimitOptionsAreCheckedAndApplied) {
  struct Case {
    std::string args, message;
  };
  for (const Case& c : std::vector<Case>{
           {"--max-connections 0", "--max-connections 0: must be between 1 and 100000"},
           {"--header-timeout soon", "--header-timeout 'soon'"},
           {"--body-timeout 0", "--body-timeout '0': must be more than 0"},
           {"--idle-timeout 2days", "--idle-timeout '2days'"},
           {"--max-body-size 10X", "--max-body-size '10X': expected a number of bytes"},
           {"--max-body-size 5G", "--max-body-size '5G': must be more than 0 and at most 4GiB"},
       }) {
    RunResult r = Floe("serve --catalog warehouse=./wh --listen 127.0.0.1:0 " + c.args);
    EXPECT_EQ(r.rc, 2) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << ": " << r.err;
  }
  RunResult r = Floe("serve --catalog warehouse=./wh --listen 127.0.0.1:0 --allow-location-prefix ''");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("--allow-location-prefix '': the location is empty"), std::string::npos)
      << r.err;

  // A body over --max-body-size is 413; a 100,000-deep JSON body is 400 and
  // the server lives on.
  std::string v1 = Serve("--max-body-size 1K") + "/v1";
  Http h = Curl("POST", v1 + "/namespaces",
                R"({"namespace":["db"],"properties":{"k":")" + std::string(2000, 'x') + "\"}}");
  EXPECT_EQ(h.status, 413) << h.body;
  EXPECT_NE(h.body.find("limit of 1024 bytes"), std::string::npos) << h.body;
  std::string v1b = Serve() + "/v1";
  WriteFile(dir_ / "deep.json", R"({"name":"d","schema":)" + std::string(100000, '[') +
                                    std::string(100000, ']') + "}");
  RunResult deep = Sh("curl -s -o .body -w '%{http_code}' -H 'Content-Type: application/json' "
                      "--data-binary @deep.json " + Shell(v1b + "/namespaces/db/tables"));
  EXPECT_EQ(deep.out, "400") << ReadFile(dir_ / ".body");
  EXPECT_NE(ReadFile(dir_ / ".body").find("nests JSON deeper than 1000 levels"), std::string::npos);
  EXPECT_EQ(Curl("GET", v1b + "/config").status, 200) << "the server still answers";
}

}  // namespace serve_cli_test
