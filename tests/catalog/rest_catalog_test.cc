// The REST catalog client against tests/catalog/rest_test_server.mjs behind
// the validating proxy (every request and answer checked against the
// OpenAPI document; each test ends with zero violations): the handshake and
// its merge, namespaces and their properties, paging, tables, commits
// (conflicts, and commit state unknown for 5xx, a time-out and a dropped
// connection after the commit landed), tokens (refresh, 401 retry), extra
// headers, endpoints, and secrets kept out of error texts.
#include "floe/catalog/rest_catalog.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "catalog/rest_fixture.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/iceberg/partition_spec.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::catalog {
namespace rest_catalog_test {

using nlohmann::json;
using test::HasErrorMessage;
using test::IsError;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using Props = std::map<std::string, std::string>;

class RestCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::FreshTestDir("rest_catalog"); }
  void TearDown() override {
    if (server_) {
      json v = server_->Violations();
      EXPECT_EQ(v["violations"].size(), 0u) << v.dump(1);
      EXPECT_GT(v["exchanges"].get<int>(), 0);
    }
    server_.reset();
    test::RemoveTestDirIfPassed(dir_);
  }

  void StartServer(std::vector<std::string> extra = {}) {
    server_ = std::make_unique<test::RestServer>(dir_ / "wh", std::move(extra));
    ASSERT_TRUE(server_->ok()) << "the test REST server or the validating proxy did not start";
  }

  Result<std::unique_ptr<Catalog>> Open(Props extra = {}, bool direct = false) {
    Props o = {{"uri", direct ? server_->direct_uri() : server_->uri()}, {"warehouse", "main-wh"}};
    for (const auto& [k, v] : extra) o[k] = v;
    return OpenRestCatalog("rc", o);
  }

  static TableDefinition Definition() {
    TableDefinition d;
    d.schema = Schema({{1, "id", true, LongType(), {}}, {2, "region", false, StringType(), {}}});
    d.spec = *iceberg::PartitionSpecBuilder(d.schema).Identity("region").Build(0);
    d.properties = {{"owner", "floe"}};
    return d;
  }

  // The next metadata of `t`: one appended snapshot on main.
  static iceberg::TableMetadata Appended(const LoadedTable& t) {
    iceberg::TableMetadata m = t.metadata;
    iceberg::Snapshot s;
    s.snapshot_id = iceberg::NewSnapshotId();
    if (m.current_snapshot_id) s.parent_snapshot_id = m.current_snapshot_id;
    s.sequence_number = m.last_sequence_number + 1;
    s.timestamp_ms = iceberg::NowMillis();
    s.manifest_list = m.location + "/metadata/snap-" + std::to_string(s.snapshot_id) + ".avro";
    s.operation = iceberg::SnapshotOperation::kAppend;
    s.schema_id = m.current_schema_id;
    Status st = iceberg::AddSnapshot(&m, s, s.timestamp_ms);
    EXPECT_TRUE(st) << st.error().ToString();
    return m;
  }

  std::filesystem::path dir_;
  std::unique_ptr<test::RestServer> server_;
};

TEST_F(RestCatalogTest, HandshakeMergesDefaultsOptionsAndOverrides) {
  StartServer();
  server_->Control({{"config",
                     {{"defaults", {{"clients", "2"}, {"rest-page-size", "7"}}},
                      {"overrides", {{"prefix", "floe"}, {"scope", "server-scope"}}}}}});
  ASSERT_OK_AND_ASSIGN(auto c, Open({{"rest-page-size", "3"}, {"scope", "mine"}}));
  const Props* p = RestCatalogProperties(*c);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->at("clients"), "2");           // a default
  EXPECT_EQ(p->at("rest-page-size"), "3");    // the client beats a default
  EXPECT_EQ(p->at("scope"), "server-scope");  // an override beats the client
  EXPECT_EQ(p->at("prefix"), "floe");
  ASSERT_OK(c->CreateNamespace(Namespace{{"db"}}, {}));
  json reqs = server_->State()["requests"];
  EXPECT_EQ(reqs[0]["path"], "/v1/config");
  EXPECT_EQ(reqs[0]["query"], "?warehouse=main-wh");
  EXPECT_EQ(reqs[1]["path"], "/v1/floe/namespaces");  // the prefix from the config
}

TEST_F(RestCatalogTest, NamespacesWithPropertiesAndLevels) {
  StartServer();
  ASSERT_OK_AND_ASSIGN(auto c, Open());
  Namespace a{{"a"}}, ab{{"a", "b c"}};
  ASSERT_OK(c->CreateNamespace(a, {{"owner", "ann"}, {"gone", "x"}}));
  ASSERT_OK(c->CreateNamespace(ab, {}));
  EXPECT_THAT(c->CreateNamespace(a, {}), IsError(ErrorKind::kAlreadyExists));
  ASSERT_OK_AND_ASSIGN(Props props, c->LoadNamespaceProperties(a));
  EXPECT_EQ(props, (Props{{"owner", "ann"}, {"gone", "x"}}));
  ASSERT_OK_AND_ASSIGN(auto changes,
                       c->UpdateNamespaceProperties(a, {{"owner", "bob"}}, {"gone", "never"}));
  EXPECT_EQ(changes.updated, std::vector<std::string>{"owner"});
  EXPECT_EQ(changes.removed, std::vector<std::string>{"gone"});
  EXPECT_EQ(changes.missing, std::vector<std::string>{"never"});
  EXPECT_THAT(c->UpdateNamespaceProperties(a, {{"k", "v"}}, {"k"}),
              IsError(ErrorKind::kInvalidArgument));
  ASSERT_OK_AND_ASSIGN(auto top, c->ListNamespaces({}));
  EXPECT_EQ(top, std::vector<Namespace>{a});
  ASSERT_OK_AND_ASSIGN(auto children, c->ListNamespaces(a));
  EXPECT_EQ(children, std::vector<Namespace>{ab});
  ASSERT_OK_AND_ASSIGN(auto none, c->ListNamespaces(ab));
  EXPECT_TRUE(none.empty());
  json reqs = server_->State()["requests"];
  EXPECT_EQ(reqs.back()["query"], "?parent=a%1Fb%20c&pageToken=");  // levels joined by 0x1F
  EXPECT_THAT(c->NamespaceExists(ab), ::testing::Optional(true));
  EXPECT_THAT(c->DropNamespace(a),
              AllOf(IsError(ErrorKind::kInvalidArgument), HasErrorMessage("409"),
                    HasErrorMessage("Namespace is not empty")));
  ASSERT_OK(c->DropNamespace(ab));
  EXPECT_THAT(c->NamespaceExists(ab), ::testing::Optional(false));
  EXPECT_THAT(c->LoadNamespaceProperties(ab),
              AllOf(IsError(ErrorKind::kNotFound),
                    HasErrorMessage("GET /v1/floe/namespaces/a%1Fb%20c answered 404")));
}

TEST_F(RestCatalogTest, ListsFollowPagesAcrossThreeRequests) {
  StartServer();
  ASSERT_OK_AND_ASSIGN(auto c, Open({{"rest-page-size", "2"}}));
  for (std::string n : {"n1", "n2", "n3", "n4", "n5"})
    ASSERT_OK(c->CreateNamespace(Namespace{{n}}, {}));
  for (std::string t : {"t1", "t2", "t3", "t4", "t5"}) {
    ASSERT_OK(c->CreateTable(TableIdentifier{Namespace{{"n1"}}, t}, Definition()));
  }
  ASSERT_OK_AND_ASSIGN(auto namespaces, c->ListNamespaces({}));
  EXPECT_EQ(namespaces.size(), 5u);
  ASSERT_OK_AND_ASSIGN(auto tables, c->ListTables(Namespace{{"n1"}}));
  ASSERT_EQ(tables.size(), 5u);
  EXPECT_EQ(tables[4].name, "t5");
  int ns_pages = 0, table_pages = 0;
  json state = server_->State();
  for (const auto& r : state["requests"]) {
    if (r["method"] != "GET") continue;
    if (r["path"] == "/v1/floe/namespaces") ++ns_pages;
    if (r["path"] == "/v1/floe/namespaces/n1/tables") ++table_pages;
    if (r["path"] == "/v1/floe/namespaces")
      EXPECT_NE(r["query"].get<std::string>().find("pageSize=2"), std::string::npos);
  }
  EXPECT_EQ(ns_pages, 3);
  EXPECT_EQ(table_pages, 3);
}

TEST_F(RestCatalogTest, TablesCreateLoadListRenameDropRegister) {
  StartServer();
  ASSERT_OK_AND_ASSIGN(auto c, Open());
  Namespace db{{"db"}};
  ASSERT_OK(c->CreateNamespace(db, {}));
  TableIdentifier t{db, "events"};
  EXPECT_THAT(c->CreateTable(TableIdentifier{Namespace{{"nope"}}, "x"}, Definition()),
              IsError(ErrorKind::kNotFound));
  ASSERT_OK_AND_ASSIGN(LoadedTable created, c->CreateTable(t, Definition()));
  EXPECT_EQ(created.metadata.properties.at("owner"), "floe");
  EXPECT_EQ(created.metadata.DefaultSpec()->fields().size(), 1u);
  EXPECT_TRUE(created.metadata_location.starts_with("file:"));
  EXPECT_THAT(c->CreateTable(t, Definition()),
              AllOf(IsError(ErrorKind::kAlreadyExists),
                    HasErrorMessage("Table already exists: db.events")));
  ASSERT_OK_AND_ASSIGN(LoadedTable loaded, c->LoadTable(t));
  EXPECT_EQ(loaded.metadata_location, created.metadata_location);
  EXPECT_EQ(RestTableConfig(*c, t).at("floe.test.table-config"),
            "yes");  // the LoadTableResult's config
  EXPECT_THAT(c->TableExists(t), ::testing::Optional(true));
  EXPECT_THAT(c->LoadTable(TableIdentifier{db, "nope"}),
              AllOf(IsError(ErrorKind::kNotFound), HasErrorMessage("load table db.nope"),
                    HasErrorMessage("GET /v1/floe/namespaces/db/tables/nope answered 404"),
                    HasErrorMessage("(NoSuchTableException)")));

  TableIdentifier moved{db, "moved"};
  ASSERT_OK(c->RenameTable(t, moved));
  EXPECT_THAT(c->TableExists(t), ::testing::Optional(false));
  EXPECT_THAT(c->RenameTable(t, moved), IsError(ErrorKind::kNotFound));
  ASSERT_OK(c->CreateTable(t, Definition()));
  EXPECT_THAT(c->RenameTable(t, moved), IsError(ErrorKind::kAlreadyExists));
  ASSERT_OK_AND_ASSIGN(auto list, c->ListTables(db));
  EXPECT_EQ(list, (std::vector<TableIdentifier>{t, moved}));

  ASSERT_OK(c->DropTable(moved, false));
  EXPECT_THAT(c->TableExists(moved), ::testing::Optional(false));
  ASSERT_OK_AND_ASSIGN(LoadedTable registered,
                       c->RegisterTable(TableIdentifier{db, "again"}, loaded.metadata_location));
  EXPECT_EQ(registered.metadata.table_uuid, created.metadata.table_uuid);
  EXPECT_THAT(c->RegisterTable(t, loaded.metadata_location), IsError(ErrorKind::kAlreadyExists));
  json reqs = server_->State()["requests"];
  bool saw_purge_flag = false;
  for (const auto& r : reqs)
    saw_purge_flag |= r["method"] == "DELETE" && r["query"] == "?purgeRequested=false";
  EXPECT_TRUE(saw_purge_flag);
}

TEST_F(RestCatalogTest, CommitAppliesAndConflictsAreCommitFailed) {
  StartServer();
  ASSERT_OK_AND_ASSIGN(auto c, Open());
  ASSERT_OK(c->CreateNamespace(Namespace{{"db"}}, {}));
  TableIdentifier t{Namespace{{"db"}}, "t"};
  ASSERT_OK_AND_ASSIGN(LoadedTable base, c->CreateTable(t, Definition()));
  iceberg::TableMetadata next = Appended(base);
  ASSERT_OK_AND_ASSIGN(LoadedTable committed, c->CommitTable(base, next));
  EXPECT_EQ(committed.metadata.current_snapshot_id, next.current_snapshot_id);
  EXPECT_NE(committed.metadata_location, base.metadata_location);
  ASSERT_OK_AND_ASSIGN(LoadedTable reloaded, c->LoadTable(t));
  EXPECT_EQ(reloaded.metadata.snapshots, next.snapshots);  // ids beyond 2^53 intact

  // A stale base: the server's assert-ref-snapshot-id fails.
  EXPECT_THAT(c->CommitTable(base, Appended(base)),
              AllOf(IsError(ErrorKind::kCommitFailed), HasErrorMessage("409"),
                    HasErrorMessage("ref main")));
  // An injected 409 on a current base.
  server_->Control({{"commitFault", "409"}, {"faultCount", 1}});
  EXPECT_THAT(c->CommitTable(reloaded, Appended(reloaded)), IsError(ErrorKind::kCommitFailed));
  ASSERT_OK(c->CommitTable(reloaded, Appended(reloaded)));
  EXPECT_EQ(server_->State()["commits"], 2);
}

TEST_F(RestCatalogTest, CommitStateUnknownWhenTheAnswerIsLost) {
  StartServer();
  ASSERT_OK_AND_ASSIGN(auto c, Open({{"rest.client.socket-timeout-ms", "1000"}}));
  ASSERT_OK_AND_ASSIGN(auto direct,
                       Open({{"rest.client.socket-timeout-ms", "1000"}}, /*direct=*/true));
  ASSERT_OK(c->CreateNamespace(Namespace{{"db"}}, {}));
  TableIdentifier t{Namespace{{"db"}}, "t"};
  ASSERT_OK(c->CreateTable(t, Definition()));
  server_->Control({{"slowMs", 2500}});
  int commits = 0;
  for (std::string fault : {"500", "502", "504", "drop", "slow"}) {
    SCOPED_TRACE(fault);
    Catalog& cat = fault == "drop" ? *direct : *c;  // the proxy would turn a drop into a 502
    ASSERT_OK_AND_ASSIGN(LoadedTable base, cat.LoadTable(t));
    server_->Control({{"commitFault", fault}, {"faultCount", 1}});
    auto r = cat.CommitTable(base, Appended(base));
    EXPECT_THAT(r, IsError(ErrorKind::kCommitStateUnknown));
    if (!r) {
      EXPECT_FALSE(r.error().retryable);
    }
    // It did land: the caller must keep its files.
    EXPECT_EQ(server_->State()["commits"], ++commits);
  }
  if (HasFailure()) return;
  // Waits for the slow reply to be sent (the server counts the replies it
  // holds back) before the test ends.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (server_->State()["slowPending"].get<int>() > 0 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(server_->State()["slowPending"], 0);
}

TEST_F(RestCatalogTest, ReadsRetryBusyServer) {
  StartServer();
  ASSERT_OK_AND_ASSIGN(auto c, Open());
  server_->Control({{"busy", 2}});
  ASSERT_OK_AND_ASSIGN(auto ns, c->ListNamespaces({}));
  EXPECT_TRUE(ns.empty());
}

TEST_F(RestCatalogTest, CredentialTokenIsRefreshedBeforeItExpires) {
  StartServer({"--credential", "floe-client:s3cr3t-value"});
  server_->Control({{"tokenTtl", 2}});
  ASSERT_OK_AND_ASSIGN(auto c, Open({{"credential", "floe-client:s3cr3t-value"}}));
  ASSERT_OK(c->ListNamespaces({}));
  std::this_thread::sleep_for(std::chrono::milliseconds(1800));
  ASSERT_OK(c->ListNamespaces({}));
  std::this_thread::sleep_for(std::chrono::milliseconds(1800));
  ASSERT_OK(c->ListNamespaces({}));
  json st = server_->State();
  EXPECT_EQ(st["unauthorized"], 0);  // never sent an expired token
  EXPECT_GE(st["tokensIssued"].get<int>(), 2);
  for (const auto& r : st["requests"]) {
    if (r["path"] == "/v1/oauth/tokens") continue;
    EXPECT_TRUE(r["headers"]["authorization"].get<std::string>().starts_with("Bearer tok-"));
  }
}

TEST_F(RestCatalogTest, ExpiredTokenIsRetriedOnceAfter401) {
  StartServer({"--credential", "floe-client:s3cr3t-value"});
  server_->Control({{"tokenTtl", 1}});
  ASSERT_OK_AND_ASSIGN(auto c, Open({{"credential", "floe-client:s3cr3t-value"},
                                     {"token-refresh-enabled", "false"}}));
  std::this_thread::sleep_for(std::chrono::milliseconds(1300));
  ASSERT_OK(c->ListNamespaces({}));
  json st = server_->State();
  EXPECT_EQ(st["unauthorized"], 1);
  EXPECT_EQ(st["tokensIssued"], 2);
}

TEST_F(RestCatalogTest, SecretsStayOutOfErrors) {
  StartServer({"--credential", "floe-client:s3cr3t-value", "--token", "good-token-1234"});
  auto bad_secret = Open({{"credential", "floe-client:wrong-s3cr3t"}});
  ASSERT_FALSE(bad_secret);
  EXPECT_THAT(bad_secret.error().message, Not(::testing::HasSubstr("wrong-s3cr3t")));
  EXPECT_THAT(bad_secret.error().message, ::testing::HasSubstr("invalid_client"));
  auto bad_token = Open({{"token", "bad-token-98765"}});
  ASSERT_FALSE(bad_token);
  EXPECT_EQ(bad_token.error().kind, ErrorKind::kInvalidArgument);
  EXPECT_THAT(bad_token.error().message,
              AllOf(HasSubstr("GET /v1/config answered 401"), Not(HasSubstr("bad-token-98765"))));
  ASSERT_OK_AND_ASSIGN(auto c, Open({{"token", "good-token-1234"}, {"header.X-Floe-Test", "abc"}}));
  ASSERT_OK(c->ListNamespaces({}));
  json state = server_->State();
  for (const auto& r : state["requests"]) {
    if (r["headers"].value("authorization", "") != "Bearer good-token-1234") continue;
    EXPECT_EQ(r["headers"]["x-floe-test"], "abc");
  }
  EXPECT_THAT(c->LoadTable(TableIdentifier{Namespace{{"db"}}, "t"}),
              AllOf(IsError(ErrorKind::kNotFound), Not(HasErrorMessage("good-token-1234"))));
}

TEST_F(RestCatalogTest, EndpointsListIsHonoured) {
  StartServer();
  server_->Control({{"config",
                     {{"defaults", json::object()},
                      {"overrides", {{"prefix", "floe"}}},
                      {"endpoints",
                       {"GET /v1/{prefix}/namespaces", "POST /v1/{prefix}/namespaces",
                        "GET /v1/{prefix}/namespaces/{namespace}"}}}}});
  ASSERT_OK_AND_ASSIGN(auto c, Open());
  ASSERT_OK(c->CreateNamespace(Namespace{{"db"}}, {}));
  // No HEAD route: exists falls back to GET.
  EXPECT_THAT(c->NamespaceExists(Namespace{{"db"}}), ::testing::Optional(true));
  EXPECT_THAT(
      c->RenameTable(TableIdentifier{Namespace{{"db"}}, "a"},
                     TableIdentifier{Namespace{{"db"}}, "b"}),
      AllOf(IsError(ErrorKind::kUnsupported), HasErrorMessage("POST /v1/{prefix}/tables/rename")));
  json state = server_->State();
  for (const auto& r : state["requests"]) EXPECT_NE(r["method"], "HEAD");
}

}  // namespace rest_catalog_test
}  // namespace floe::catalog

namespace floe::catalog {
namespace rest_catalog_test {

// oauth2-server-uri moves the token request to another endpoint, and scope
// is what the client asks for there.
TEST_F(RestCatalogTest, TokenEndpointAndScopeAreTheConfiguredOnes) {
  StartServer({"--credential", "floe-client:s3cr3t-value"});
  const std::string endpoint = server_->direct_uri() + "/v1/oauth/tokens?via=oauth2-server-uri";
  ASSERT_OK_AND_ASSIGN(auto c, Open({{"credential", "floe-client:s3cr3t-value"},
                                     {"oauth2-server-uri", endpoint},
                                     {"scope", "catalog tenant:7"}}));
  ASSERT_OK(c->ListNamespaces({}));
  json st = server_->State();
  int custom = 0, other = 0;
  for (const auto& r : st["requests"]) {
    if (r["path"] != "/v1/oauth/tokens") continue;
    (r["query"] == "?via=oauth2-server-uri" ? custom : other)++;
  }
  EXPECT_EQ(custom, 1);
  EXPECT_EQ(other, 0);
  ASSERT_EQ(st["tokenScopes"].size(), 1u);
  EXPECT_EQ(st["tokenScopes"][0], "catalog tenant:7");

  // The default scope is Iceberg's "catalog"; a token endpoint that does not
  // answer is an error naming it (never the secret).
  ASSERT_OK_AND_ASSIGN(auto d, Open({{"credential", "floe-client:s3cr3t-value"}}));
  ASSERT_OK(d->ListNamespaces({}));
  st = server_->State();
  EXPECT_EQ(st["tokenScopes"].back(), "catalog");
  auto bad = Open({{"credential", "floe-client:s3cr3t-value"}, {"oauth2-server-uri", "http://127.0.0.1:1/token"}});
  if (bad) {
    auto listed = (*bad)->ListNamespaces({});
    ASSERT_FALSE(listed);
    EXPECT_THAT(listed.error().message, AllOf(HasSubstr("127.0.0.1:1/token"), Not(HasSubstr("s3cr3t"))));
  } else {
    EXPECT_THAT(bad.error().message, AllOf(HasSubstr("127.0.0.1:1/token"), Not(HasSubstr("s3cr3t"))));
  }
}

// rest.client.connection-timeout-ms bounds the TCP connect: a listener
// whose accept queue is full drops the SYN, so the connect hangs until the
// time-out.
TEST_F(RestCatalogTest, ConnectionTimeoutBoundsTheConnect) {
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 0), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  std::vector<int> fillers;
  for (int i = 0; i < 4; ++i) {  // fill the accept queue (never accepted)
    int f = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    (void)::connect(f, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    fillers.push_back(f);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const std::string uri = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  auto started = std::chrono::steady_clock::now();
  auto c = OpenRestCatalog("rc", {{"uri", uri}, {"rest.client.connection-timeout-ms", "300"}});
  auto took = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(c);
  EXPECT_THAT(c.error().message, HasSubstr("/v1/config")) << c.error().message;
  // libcurl names it in its error buffer ("Connection timeout after 300 ms")
  // or, when it leaves the buffer empty, by its code ("Timeout was reached"):
  // which one depends on where in the connect the time ran out.
  EXPECT_THAT(c.error().message,
              ::testing::AnyOf(HasSubstr("Timeout was reached"), HasSubstr("timeout after"), HasSubstr("timed out after")))
      << c.error().message;
  // Which limit applied: the default (10 s) would take twice this bound;
  // 300 ms is far inside it on the slowest machine.
  EXPECT_LT(took, std::chrono::seconds(5)) << c.error().message;
  for (int f : fillers) ::close(f);
  ::close(listener);
}

}  // namespace rest_catalog_test
}  // namespace floe::catalog
