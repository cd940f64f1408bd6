// RestService without a socket: routes that only a raw request reaches
// (encoded separators in names, wrong methods, unknown paths), one-table
// transactions, bodies nested past the JSON limit on every route, the
// location rule (create-table, register-table, set-location) over the sql
// and hadoop backends, and the FLOE_SERVE_FAULT syntax.
#include <gtest/gtest.h>

#include <mutex>
#include <regex>

#include "floe/server/rest_service.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::server {
namespace rest_service_test {

using floe::test::HasErrorMessage;

class RestServiceTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = floe::test::FreshTestDir("floe_rest_service_");
    ServiceOptions o;
    o.catalog_options["warehouse"] = (dir_ / "wh").string();
    auto s = RestService::Make(o);
    ASSERT_TRUE(s) << s.error().ToString();
    service_ = std::move(*s);
  }
  void TearDown() override { floe::test::RemoveTestDirIfPassed(dir_); }

  HttpResponse Call(std::string method, std::string path, std::string body = "") {
    HttpRequest r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.body = std::move(body);
    return service_->Handle(r);
  }

  std::filesystem::path dir_;
  std::unique_ptr<RestService> service_;
};

constexpr const char* kTable =
    R"({"name":"t","schema":{"type":"struct","fields":[{"id":1,"name":"id","required":true,"type":"long"}]}})";

TEST_F(RestServiceTest, EncodedSeparatorsStayInsideTheirNameAndAreRefused) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["db"]})").status, 200);
  // %2F is a '/' inside the table name, not a path step: refused, never a
  // folder outside the namespace.
  HttpResponse r = Call("GET", "/v1/namespaces/db/tables/..%2F..%2Fx");
  EXPECT_EQ(r.status, 400) << r.body;
  r = Call("GET", "/v1/namespaces/db%1F..%1Fetc");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(Call("GET", "/v1/namespaces/db%zz").status, 400);
}

TEST_F(RestServiceTest, UnknownRoutesAndMethodsAnswerErrorModels) {
  HttpResponse r = Call("GET", "/v2/config");
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.body.find(R"("code":404)"), std::string::npos) << r.body;
  r = Call("PUT", "/v1/namespaces");
  EXPECT_EQ(r.status, 405);
  EXPECT_NE(r.body.find("method PUT"), std::string::npos) << r.body;
  EXPECT_EQ(Call("POST", "/v1/namespaces/db/tables/t/plan", "{}").status, 406);
  EXPECT_EQ(Call("POST", "/v1/namespaces", "not json").status, 400);
}

TEST_F(RestServiceTest, OneTableTransactionCommitsAndSeveralAreRefused) {
  ASSERT_EQ(Call("POST", "/v1/cat/namespaces", R"({"namespace":["db"]})").status, 200);
  ASSERT_EQ(Call("POST", "/v1/cat/namespaces/db/tables", kTable).status, 200);
  const std::string change =
      R"({"identifier":{"namespace":["db"],"name":"t"},"requirements":[],"updates":[{"action":"set-properties","updates":{"k":"v"}}]})";
  HttpResponse r =
      Call("POST", "/v1/cat/transactions/commit", R"({"table-changes":[)" + change + "]}");
  EXPECT_EQ(r.status, 204) << r.body;
  r = Call("GET", "/v1/cat/namespaces/db/tables/t");
  EXPECT_NE(r.body.find(R"("k":"v")"), std::string::npos) << r.body;
  r = Call("POST", "/v1/cat/transactions/commit",
           R"({"table-changes":[)" + change + "," + change + "]}");
  EXPECT_EQ(r.status, 406);
  EXPECT_NE(r.body.find("2 tables"), std::string::npos) << r.body;
}

TEST_F(RestServiceTest, BodiesNestedPastTheJsonLimitAre400OnEveryRoute) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["db"]})").status, 200);
  ASSERT_EQ(Call("POST", "/v1/namespaces/db/tables", kTable).status, 200);
  // 100,000 levels (about 200 KB): before the limit this overflowed the
  // stack of the thread that answered (SIGSEGV, the server gone).
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string id = R"({"namespace":["db"],"name":"t"})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/v1/namespaces/db/tables", R"({"name":"d","schema":)" + deep + "}"},
      {"/v1/transactions/commit", R"({"table-changes":[{"identifier":)" + id +
                                      R"(,"requirements":[],"updates":[],"x":)" + deep + "}]}"},
      {"/v1/namespaces/db/tables/t", R"({"requirements":[],"updates":[],"x":)" + deep + "}"},
      {"/v1/namespaces", R"({"namespace":["e"],"x":)" + deep + "}"},
      {"/v1/namespaces/db/properties", R"({"updates":{},"x":)" + deep + "}"},
      {"/v1/namespaces/db/register", R"({"name":"r","metadata-location":"x","x":)" + deep + "}"},
      {"/v1/tables/rename", R"({"source":)" + id + R"(,"destination":)" + id + ",\"x\":" + deep + "}"},
      {"/v1/namespaces/db/tables/t/metrics", R"({"x":)" + deep + "}"},
      {"/v1/cat/namespaces/db/tables", R"({"name":"d","schema":)" + deep + "}"},
  };
  for (const auto& [path, body] : cases) {
    HttpResponse r = Call("POST", path, body);
    EXPECT_EQ(r.status, 400) << path << ": " << r.body;
    EXPECT_NE(r.body.find("nests JSON deeper than 1000 levels (at byte "), std::string::npos)
        << path << ": " << r.body;
    EXPECT_NE(r.body.find(R"("type":"BadRequestException","code":400)"), std::string::npos)
        << path << ": " << r.body;
  }
  // Any route, any method: the body is checked before routing.
  EXPECT_EQ(Call("GET", "/v1/config", deep).status, 400);
  // At the limit a body is parsed (and answered on its merits).
  const std::string at_limit = std::string(999, '[') + std::string(999, ']');
  HttpResponse ok =
      Call("POST", "/v1/namespaces/db/tables/t",
           R"({"requirements":[],"updates":[{"action":"set-properties","updates":{"k":"v"}}],"x":)" +
               at_limit + "}");
  EXPECT_EQ(ok.status, 200) << ok.body;
}

// The same service over a SQLite catalog (a backend that stores any
// location it is given), with one allowed prefix and the log captured.
class RestLocationTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = floe::test::FreshTestDir("floe_rest_location_");
    std::filesystem::create_directories(dir_ / "wh");
    std::filesystem::create_directories(dir_ / "outside");
    std::filesystem::create_directories(dir_ / "allowed");
  }
  void TearDown() override { floe::test::RemoveTestDirIfPassed(dir_); }

  void Open(std::map<std::string, std::string> catalog) {
    ServiceOptions o;
    o.catalog_options = std::move(catalog);
    o.allowed_location_prefixes = {(dir_ / "allowed").string()};
    o.log = [this](std::string_view line) {
      std::lock_guard lock(log_mu_);
      log_ += std::string(line) + "\n";
    };
    auto s = RestService::Make(o);
    ASSERT_TRUE(s) << s.error().ToString();
    service_ = std::move(*s);
    ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["db"]})").status, 200);
  }
  void OpenSql() {
    Open({{"catalog-type", "sql"},
          {"uri", "jdbc:sqlite:file:" + (dir_ / "catalog.db").string()},
          {"warehouse", (dir_ / "wh").string()}});
  }

  HttpResponse Call(std::string method, std::string path, std::string body = "") {
    HttpRequest r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.body = std::move(body);
    return service_->Handle(r);
  }
  HttpResponse CreateAt(const std::string& name, const std::string& location) {
    return Call("POST", "/v1/namespaces/db/tables",
                R"({"name":")" + name + R"(","location":")" + location +
                    R"(","schema":{"type":"struct","fields":[{"id":1,"name":"id","required":true,"type":"long"}]}})");
  }
  HttpResponse Register(const std::string& name, const std::string& metadata) {
    return Call("POST", "/v1/namespaces/db/register",
                R"({"name":")" + name + R"(","metadata-location":")" + metadata + R"("})");
  }
  /// The metadata-location a load or create answer names.
  static std::string MetadataLocation(const HttpResponse& r) {
    std::smatch m;
    std::regex_search(r.body, m, std::regex(R"re("metadata-location":"([^"]+)")re"));
    return m[1];
  }

  std::filesystem::path dir_;
  std::unique_ptr<RestService> service_;
  std::mutex log_mu_;
  std::string log_;
};

TEST_F(RestLocationTest, CreateTableLocationsOutsideTheWarehouseAndAllowedPrefixesAre403) {
  OpenSql();
  namespace fs = std::filesystem;
  fs::create_directory_symlink(dir_ / "outside", dir_ / "wh" / "link");
  const std::string out = (dir_ / "outside").string();
  for (const std::string& location :
       {out + "/t", "file:" + out + "/t", (dir_ / "wh/../outside/t").string(),
        (dir_ / "allowedX/t").string(), (dir_ / "wh/link/t").string(), std::string("/etc/t"),
        std::string("s3://bucket/t")}) {
    HttpResponse r = CreateAt("t", location);
    EXPECT_EQ(r.status, 403) << location << ": " << r.body;
    EXPECT_NE(r.body.find("ForbiddenException"), std::string::npos) << r.body;
    EXPECT_NE(r.body.find("--allow-location-prefix"), std::string::npos) << r.body;
  }
  EXPECT_TRUE(fs::is_empty(dir_ / "outside")) << "nothing written outside";
  EXPECT_FALSE(fs::exists(dir_ / "allowedX"));
  // Inside the warehouse, or under the allowed prefix: created there.
  HttpResponse r = CreateAt("in_wh", (dir_ / "wh/custom/t").string());
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(fs::exists(dir_ / "wh/custom/t/metadata"));
  r = CreateAt("in_allowed", "file:" + (dir_ / "allowed/t").string());
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(fs::exists(dir_ / "allowed/t/metadata"));
}

TEST_F(RestLocationTest, RegisterTableRefusalsAreOneMessageWhateverTheFile) {
  OpenSql();
  namespace fs = std::filesystem;
  HttpResponse created = CreateAt("src", (dir_ / "wh/src").string());
  ASSERT_EQ(created.status, 200) << created.body;
  std::string metadata = MetadataLocation(created);
  if (metadata.starts_with("file:")) metadata = metadata.substr(5);
  // Outside: a missing file, a file that is not JSON, valid metadata.
  floe::test::WriteFile(dir_ / "outside/junk.json", "not json");
  fs::copy_file(metadata, dir_ / "outside/copy.metadata.json");
  // Inside: a missing file, a file that is not JSON, and valid metadata
  // that names a table location outside (its commits would write there).
  floe::test::WriteFile(dir_ / "wh/junk.json", "not json");
  std::string moved = floe::test::ReadFile(metadata);
  moved = std::regex_replace(moved, std::regex(R"re("location":\s*"[^"]+")re"),
                             "\"location\":\"file:" + (dir_ / "outside/t").string() + "\"");
  floe::test::WriteFile(dir_ / "wh/moved.metadata.json", moved);
  const std::vector<std::string> refused = {
      (dir_ / "outside/missing.metadata.json").string(), (dir_ / "outside/junk.json").string(),
      (dir_ / "outside/copy.metadata.json").string(),    "/etc/passwd",
      (dir_ / "wh/missing.metadata.json").string(),      (dir_ / "wh/junk.json").string(),
      (dir_ / "wh/moved.metadata.json").string(),
  };
  std::string first;
  for (const auto& location : refused) {
    HttpResponse r = Register("r", location);
    EXPECT_EQ(r.status, 400) << location << ": " << r.body;
    // The same words for every file (the location is the client's own).
    std::string body = r.body;
    body.replace(body.find(location), location.size(), "LOCATION");
    if (first.empty()) first = body;
    EXPECT_EQ(body, first) << location;
  }
  EXPECT_NE(first.find("the server's log says why"), std::string::npos) << first;
  EXPECT_EQ(Call("GET", "/v1/namespaces/db/tables/r").status, 404) << "nothing was registered";
  // The reasons are in the server's log, never in an answer.
  EXPECT_NE(log_.find("outside the warehouse"), std::string::npos) << log_;
  EXPECT_NE(log_.find("the table location in the file"), std::string::npos) << log_;
  // A good file under the warehouse registers; the namespace and the name
  // are answered as before (404, 409), without looking at the file.
  HttpResponse ok = Register("r", metadata);
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(Register("r", "/etc/passwd").status, 409);
  EXPECT_EQ(Call("POST", "/v1/namespaces/nope/register",
                 R"({"name":"r","metadata-location":"/etc/passwd"})")
                .status,
            404);
}

TEST_F(RestLocationTest, SetLocationOutsideIsRefusedAndTheHadoopCatalogRefusesAnyMove) {
  const std::string set = R"({"requirements":[],"updates":[{"action":"set-location","location":")";
  OpenSql();
  ASSERT_EQ(CreateAt("t", (dir_ / "wh/db/t").string()).status, 200);
  HttpResponse r = Call("POST", "/v1/namespaces/db/tables/t", set + "file:" + (dir_ / "outside/t").string() + "\"}]}");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_NE(r.body.find("set-location: location"), std::string::npos) << r.body;
  r = Call("POST", "/v1/namespaces/db/tables/t", set + "file:" + (dir_ / "allowed/t").string() + "\"}]}");
  EXPECT_EQ(r.status, 200) << r.body;

  // Hadoop: a table is its folder, so even a move inside the warehouse
  // would leave a table nobody can write: refused by the catalog, and the
  // table stays writable.
  service_.reset();
  Open({{"warehouse", (dir_ / "hadoop").string()}});
  ASSERT_EQ(Call("POST", "/v1/namespaces/db/tables",
                 R"({"name":"h","schema":{"type":"struct","fields":[{"id":1,"name":"id","required":true,"type":"long"}]}})")
                .status,
            200);
  r = Call("POST", "/v1/namespaces/db/tables/h", set + "file:" + (dir_ / "hadoop/db/other").string() + "\"}]}");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("would leave a table that can no longer be written"), std::string::npos)
      << r.body;
  r = Call("POST", "/v1/namespaces/db/tables/h",
           R"({"requirements":[],"updates":[{"action":"set-properties","updates":{"k":"v"}}]})");
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST(LocationPolicyTest, RootsCompareBySegmentAndSchemeSpelling) {
  auto p = LocationPolicy::Make("s3://bucket/wh", {"/data/tables", "s3a://other/x"});
  ASSERT_TRUE(p) << p.error().ToString();
  EXPECT_TRUE(p->Check("s3://bucket/wh/db/t"));
  EXPECT_TRUE(p->Check("s3a://bucket/wh"));
  EXPECT_TRUE(p->Check("s3n://other/x/t/"));
  EXPECT_TRUE(p->Check("/data/tables/t"));
  EXPECT_TRUE(p->Check("file:///data/tables/t"));
  EXPECT_FALSE(p->Check("s3://bucket/whx/t"));
  EXPECT_FALSE(p->Check("s3://bucket/wh/../secret"));
  EXPECT_FALSE(p->Check("gs://bucket/wh/t"));
  EXPECT_FALSE(p->Check("/data/tables/../etc"));
  EXPECT_FALSE(p->Check("/data/tablesX"));
  EXPECT_THAT(p->Check("/etc/x"),
              HasErrorMessage("location '/etc/x' is outside the warehouse s3://bucket/wh and the "
                              "allowed prefixes /data/tables, s3a://other/x"));
  // A backend without a warehouse (rest) and no prefix: nothing is allowed.
  auto none = LocationPolicy::Make("", {});
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->Check("/anything"));
  EXPECT_THAT(LocationPolicy::Make("", {""}), HasErrorMessage("--allow-location-prefix ''"));
}

TEST(ServeFaultTest, ParsesKindAndCount) {
  auto f = ServeFault::Parse("commit-drop-reply:3");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, ServeFault::Kind::kCommitDropReply);
  EXPECT_EQ(f->nth, 3);
  f = ServeFault::Parse("commit-500");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, ServeFault::Kind::kCommit500);
  EXPECT_EQ(f->nth, 1);
  EXPECT_THAT(ServeFault::Parse("commit-500:0"), HasErrorMessage("N must be a positive integer"));
  EXPECT_THAT(ServeFault::Parse("crash"),
              HasErrorMessage("expected commit-drop-reply[:N] or commit-500[:N]"));
}

}  // namespace rest_service_test
}  // namespace floe::server
