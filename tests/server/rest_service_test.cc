// RestService without a socket: routes that only a raw request reaches
// (encoded separators in names, wrong methods, unknown paths), one-table
// transactions, and the FLOE_SERVE_FAULT syntax.
#include <gtest/gtest.h>

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
