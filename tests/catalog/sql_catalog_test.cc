// The SQL catalog beyond the shared suite: the exact JdbcCatalog tables and
// columns, catalogs made by hand with JdbcCatalog's DDL (V0, views), the
// jdbc.* options, metadata file names, and PostgreSQL-only failures (a
// connection lost during a commit).

#include "floe/catalog/sql_catalog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "floe/catalog/commit_retry.h"
#include "floe/catalog/sql_db.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/io/location.h"
#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/postgres.h"

namespace floe::catalog {
namespace sql_catalog_test {

namespace fs = std::filesystem;
using test::HasErrorMessage;
using test::IsError;
using test::IsOk;

class SqlCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_sql_catalog_");
    db_path_ = (dir_ / "catalog.db").string();
  }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  std::map<std::string, std::string> Options(std::map<std::string, std::string> extra = {}) {
    std::map<std::string, std::string> o{{"uri", "jdbc:sqlite:file:" + db_path_},
                                         {"warehouse", (dir_ / "wh").string()}};
    for (auto& [k, v] : extra) o[k] = v;
    return o;
  }

  static TableDefinition Def() {
    TableDefinition d;
    d.schema = Schema({{1, "id", true, LongType(), {}}}, 0, {1});
    return d;
  }
  static Namespace Ns(std::string_view s) { return *ParseNamespace(s); }
  static TableIdentifier Id(std::string_view s) { return *ParseTableIdentifier(s); }

  // PRAGMA table_info rows as "name type notnull pk".
  std::vector<std::string> TableInfo(std::string_view table) {
    auto db = sql::OpenSqlite(db_path_);
    EXPECT_OK(db);
    if (!db) return {};
    auto rows = (*db)->Query(
        fmt::format("SELECT name, type, \"notnull\", pk FROM pragma_table_info('{}')", table));
    EXPECT_OK(rows);
    std::vector<std::string> out;
    for (const auto& r : *rows)
      out.push_back(fmt::format("{} {} {} {}", *r[0], *r[1], *r[2], *r[3]));
    return out;
  }

  Status Sql(std::string_view statement) {
    FLOE_ASSIGN_OR_RETURN(auto db, sql::OpenSqlite(db_path_));
    FLOE_RETURN_IF_ERROR((*db).Execute(statement));
    return Ok();
  }

  fs::path dir_;
  std::string db_path_;
};

// The tables floe creates are JdbcCatalog's, column for column (names, types,
// NOT NULL, primary key order), with V1's iceberg_type last.
TEST_F(SqlCatalogTest, CreatesExactlyJdbcCatalogsTables) {
  ASSERT_OK_AND_ASSIGN(auto cat, OpenSqlCatalog("cat", Options()));
  EXPECT_EQ(TableInfo("iceberg_tables"), (std::vector<std::string>{
                                             "catalog_name VARCHAR(255) 1 1",
                                             "table_namespace VARCHAR(255) 1 2",
                                             "table_name VARCHAR(255) 1 3",
                                             "metadata_location VARCHAR(1000) 0 0",
                                             "previous_metadata_location VARCHAR(1000) 0 0",
                                             "iceberg_type VARCHAR(5) 0 0",
                                         }));
  EXPECT_EQ(TableInfo("iceberg_namespace_properties"), (std::vector<std::string>{
                                                           "catalog_name VARCHAR(255) 1 1",
                                                           "namespace VARCHAR(255) 1 2",
                                                           "property_key VARCHAR(255) 0 3",
                                                           "property_value VARCHAR(1000) 0 0",
                                                       }));
  // V0 on request: no iceberg_type.
  db_path_ = (dir_ / "v0.db").string();
  ASSERT_OK(OpenSqlCatalog("cat", Options({{"jdbc.schema-version", "V0"}})));
  EXPECT_EQ(TableInfo("iceberg_tables").size(), 5u);
}

// What the rows say, as Java and PyIceberg read them.
TEST_F(SqlCatalogTest, RowsFollowTheJdbcCatalogEncoding) {
  ASSERT_OK_AND_ASSIGN(auto cat, OpenSqlCatalog("cat", Options()));
  ASSERT_OK(cat->CreateNamespace(Ns("a.b"), {{"owner", "me"}}));
  ASSERT_OK_AND_ASSIGN(auto t, cat->CreateTable(Id("a.b.t"), Def()));
  ASSERT_OK_AND_ASSIGN(
      auto t2, cat->CommitTable(t, *iceberg::UpdateProperties(t.metadata, {{"k", "v"}}, {})));
  ASSERT_OK_AND_ASSIGN(auto db, sql::OpenSqlite(db_path_));
  ASSERT_OK_AND_ASSIGN(
      auto rows, db->Query("SELECT catalog_name, table_namespace, table_name, metadata_location, "
                           "previous_metadata_location, iceberg_type FROM iceberg_tables"));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "cat");
  EXPECT_EQ(rows[0][1], "a.b");  // levels joined by '.'
  EXPECT_EQ(rows[0][2], "t");
  EXPECT_EQ(rows[0][3], t2.metadata_location);
  EXPECT_EQ(rows[0][4], t.metadata_location);
  EXPECT_EQ(rows[0][5], "TABLE");
  // <location>/metadata/<5-digit version>-<uuid>.metadata.json, from 00000.
  const std::string prefix = FileUri((dir_ / "wh/a/b/t/metadata/").string());
  EXPECT_TRUE(t.metadata_location.starts_with(prefix + "00000-")) << t.metadata_location;
  EXPECT_TRUE(t2.metadata_location.starts_with(prefix + "00001-")) << t2.metadata_location;
  EXPECT_TRUE(t2.metadata_location.ends_with(".metadata.json"));
  EXPECT_EQ(t2.metadata_location.size(), prefix.size() + 6 + 36 + 14);
  ASSERT_OK_AND_ASSIGN(auto props, db->Query("SELECT namespace, property_key, property_value FROM "
                                             "iceberg_namespace_properties ORDER BY property_key"));
  ASSERT_EQ(props.size(), 2u);
  EXPECT_EQ(props[0], (sql::Row{"a.b", "exists", "true"}));
  EXPECT_EQ(props[1], (sql::Row{"a.b", "owner", "me"}));
  // Another catalog name in the same database sees nothing.
  ASSERT_OK_AND_ASSIGN(auto other, OpenSqlCatalog("other", Options()));
  EXPECT_TRUE(other->ListNamespaces({})->empty());
  EXPECT_FALSE(*other->TableExists(Id("a.b.t")));
}

// A catalog made by hand with JdbcCatalog's V0 DDL (no iceberg_type), a row
// naming a table floe wrote elsewhere and no `exists` marker: floe lists
// the implicit namespaces, lists and loads the table, commits to it, and
// leaves the catalog's tables as they were (V0 stays V0 unless V1 is asked
// for explicitly).
TEST_F(SqlCatalogTest, UsesAHandMadeV0Catalog) {
  std::string metadata;
  {
    // A table written by floe through another catalog file.
    const std::string keep = db_path_;
    db_path_ = (dir_ / "source.db").string();
    ASSERT_OK_AND_ASSIGN(auto src, OpenSqlCatalog("src", Options()));
    ASSERT_OK(src->CreateNamespace(Ns("x"), {}));
    ASSERT_OK_AND_ASSIGN(auto t, src->CreateTable(Id("x.events"), Def()));
    metadata = t.metadata_location;
    db_path_ = keep;
  }
  ASSERT_OK(
      Sql("CREATE TABLE iceberg_tables(catalog_name VARCHAR(255) NOT NULL,table_namespace "
          "VARCHAR(255) NOT "
          "NULL,table_name VARCHAR(255) NOT NULL,metadata_location "
          "VARCHAR(1000),previous_metadata_location "
          "VARCHAR(1000),PRIMARY KEY (catalog_name, table_namespace, table_name))"));
  ASSERT_OK(Sql(
      "CREATE TABLE iceberg_namespace_properties(catalog_name VARCHAR(255) NOT NULL,namespace "
      "VARCHAR(255) NOT NULL,property_key VARCHAR(255),property_value VARCHAR(1000),PRIMARY KEY "
      "(catalog_name, namespace, property_key))"));
  ASSERT_OK(Sql(fmt::format(
      "INSERT INTO iceberg_tables VALUES ('java', 'db.sales', 'events', '{}', NULL)", metadata)));

  ASSERT_OK_AND_ASSIGN(auto cat,
                       OpenSqlCatalog("java", Options({{"jdbc.init-catalog-tables", "false"}})));
  EXPECT_EQ(*cat->ListNamespaces({}), (std::vector<Namespace>{Ns("db")}));
  EXPECT_EQ(*cat->ListNamespaces(Ns("db")), (std::vector<Namespace>{Ns("db.sales")}));
  EXPECT_TRUE(*cat->NamespaceExists(Ns("db")));
  EXPECT_EQ(*cat->ListTables(Ns("db.sales")),
            (std::vector<TableIdentifier>{Id("db.sales.events")}));
  ASSERT_OK_AND_ASSIGN(auto t, cat->LoadTable(Id("db.sales.events")));
  EXPECT_EQ(t.metadata_location, metadata);
  ASSERT_OK_AND_ASSIGN(
      auto t2, cat->CommitTable(t, *iceberg::UpdateProperties(t.metadata, {{"k", "v"}}, {})));
  EXPECT_TRUE(t2.metadata_location.substr(t2.metadata_location.rfind('/')).starts_with("/00001-"));
  ASSERT_OK(cat->CreateTable(Id("db.sales.more"), Def()));
  EXPECT_EQ(TableInfo("iceberg_tables").size(), 5u);  // still V0

  // Explicit V1 adds the column, as JdbcCatalog does; existing rows (NULL) stay tables.
  cat.reset();
  ASSERT_OK_AND_ASSIGN(cat, OpenSqlCatalog("java", Options({{"jdbc.schema-version", "V1"}})));
  EXPECT_EQ(TableInfo("iceberg_tables").size(), 6u);
  EXPECT_EQ(cat->ListTables(Ns("db.sales"))->size(), 2u);
  ASSERT_OK(cat->LoadTable(Id("db.sales.events")));
}

// Rows of type VIEW (JdbcCatalog's views) are invisible to table calls, but
// hold their name and keep their namespace.
TEST_F(SqlCatalogTest, ViewsAreNotTables) {
  ASSERT_OK_AND_ASSIGN(auto cat, OpenSqlCatalog("cat", Options()));
  ASSERT_OK(cat->CreateNamespace(Ns("db"), {}));
  ASSERT_OK(Sql(
      "INSERT INTO iceberg_tables VALUES ('cat', 'db', 'v', 'file:/nowhere/v.metadata.json', NULL, "
      "'VIEW')"));
  ASSERT_OK(
      Sql("INSERT INTO iceberg_tables VALUES ('cat', 'viewsonly', 'v', "
          "'file:/nowhere/v.metadata.json', NULL, "
          "'VIEW')"));
  EXPECT_TRUE(cat->ListTables(Ns("db"))->empty());
  EXPECT_FALSE(*cat->TableExists(Id("db.v")));
  EXPECT_THAT(cat->LoadTable(Id("db.v")), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(cat->DropTable(Id("db.v"), false), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(cat->CreateTable(Id("db.v"), Def()), IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(cat->CreateTable(Id("db.v"), Def()), HasErrorMessage("view db.v"));
  ASSERT_OK(cat->CreateTable(Id("db.t"), Def()));
  EXPECT_THAT(cat->RenameTable(Id("db.t"), Id("db.v")), IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(cat->RenameTable(Id("db.v"), Id("db.w")), IsError(ErrorKind::kNotFound));
  EXPECT_TRUE(*cat->NamespaceExists(Ns("viewsonly")));
  EXPECT_THAT(cat->DropNamespace(Ns("db")), IsError(ErrorKind::kInvalidArgument));
}

TEST_F(SqlCatalogTest, OptionsAreChecked) {
  EXPECT_THAT(OpenSqlCatalog("c", {{"warehouse", "/tmp/w"}}), HasErrorMessage("uri is required"));
  EXPECT_THAT(OpenSqlCatalog("c", {{"uri", "jdbc:sqlite:file:" + db_path_}}),
              HasErrorMessage("warehouse is required"));
  EXPECT_THAT(OpenSqlCatalog("c", Options({{"uri", "jdbc:mysql://h/db"}})),
              HasErrorMessage("jdbc:mysql://h/db"));
  EXPECT_THAT(OpenSqlCatalog("c", Options({{"uri", "jdbc:sqlite:file::memory:"}})),
              HasErrorMessage("in-memory"));
  EXPECT_THAT(OpenSqlCatalog("c", Options({{"uri", "jdbc:sqlite::memory:"}})),
              HasErrorMessage("in-memory"));
  EXPECT_THAT(OpenSqlCatalog("c", Options({{"jdbc.user", "u"}})),
              HasErrorMessage("do not apply to SQLite"));
  EXPECT_THAT(OpenSqlCatalog("c", Options({{"jdbc.schema-version", "V2"}})),
              HasErrorMessage("jdbc.schema-version"));
  // Missing tables with init off: a clear error, and nothing created.
  EXPECT_THAT(OpenSqlCatalog("c", Options({{"jdbc.init-catalog-tables", "false"}})),
              HasErrorMessage("jdbc.init-catalog-tables is false"));
  EXPECT_TRUE(TableInfo("iceberg_tables").empty());
  // A file that is not a database.
  ASSERT_TRUE(test::WriteFile(db_path_, std::string(4096, 'x')));
  EXPECT_THAT(OpenSqlCatalog("c", Options()), IsError(ErrorKind::kCorrupt));
  // jdbc:sqlite:PATH without file: works too.
  ASSERT_OK(OpenSqlCatalog("c", Options({{"uri", "jdbc:sqlite:" + (dir_ / "plain.db").string()}})));
  EXPECT_TRUE(fs::exists(dir_ / "plain.db"));
}

// Issue 23 item 6: a catalog file locked by another process blocked a write
// for 302 s (the 60 s busy timeout, five times over the commit retries) and
// then said another writer had changed the table. Now the wait is the
// catalog property jdbc.busy_timeout, waited once, and the error says the
// catalog database is locked and by whom.
TEST_F(SqlCatalogTest, ALockedCatalogFileFailsOnceNamingTheLock) {
  ASSERT_OK_AND_ASSIGN(auto cat, OpenSqlCatalog("cat", Options({{"jdbc.busy_timeout", "200"}})));
  ASSERT_OK(cat->CreateNamespace(Ns("db"), {}));
  ASSERT_OK_AND_ASSIGN(auto t, cat->CreateTable(Id("db.t"), Def()));
  // Another connection holds the write lock (as an open transaction in a
  // sqlite3 shell would).
  ASSERT_OK_AND_ASSIGN(auto holder, sql::OpenSqlite(db_path_));
  ASSERT_OK(holder->Begin(/*for_write=*/true));
  RetryPolicy policy;  // the defaults: 4 retries
  policy.min_wait_ms = 0;
  policy.max_wait_ms = 0;
  int attempts = 0;
  const auto start = std::chrono::steady_clock::now();
  Status st = RunWithRetries(policy, [&](int) -> Status {
    ++attempts;
    FLOE_ASSIGN_OR_RETURN(auto next, iceberg::UpdateProperties(t.metadata, {{"k", "v"}}, {}));
    FLOE_RETURN_IF_ERROR(cat->CommitTable(t, std::move(next)));
    return Ok();
  });
  const auto elapsed_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  holder->Rollback();
  ASSERT_FALSE(st);
  EXPECT_EQ(attempts, 1);  // not retried: a retry would wait the timeout again
  EXPECT_EQ(st.error().kind, ErrorKind::kCommitFailed);
  EXPECT_FALSE(st.error().retryable);
  const std::string& m = st.error().message;
  EXPECT_NE(m.find("the SQLite catalog database " + db_path_ + " is locked"), std::string::npos) << m;
  EXPECT_NE(m.find("jdbc.busy_timeout = 200 ms"), std::string::npos) << m;
  EXPECT_NE(m.find("holds a write lock"), std::string::npos) << m;  // from /proc/locks
  EXPECT_NE(m.find("this process"), std::string::npos) << m;
  EXPECT_EQ(m.find("changed the table"), std::string::npos) << m;
  EXPECT_GE(elapsed_ms, 150);
  EXPECT_LT(elapsed_ms, 5000);
  // Nothing was written; with the lock released the commit goes through.
  ASSERT_OK_AND_ASSIGN(auto again, cat->LoadTable(Id("db.t")));
  EXPECT_EQ(again.metadata_location, t.metadata_location);
  ASSERT_OK(cat->CommitTable(t, *iceberg::UpdateProperties(t.metadata, {{"k", "v"}}, {})));
  // The option is checked.
  EXPECT_THAT(OpenSqlCatalog("c", Options({{"jdbc.busy_timeout", "-1"}})), HasErrorMessage("jdbc.busy_timeout"));
  EXPECT_THAT(OpenSqlCatalog("c", Options({{"jdbc.busy_timeout", "soon"}})), HasErrorMessage("jdbc.busy_timeout"));
}

TEST(PostgresUriTest, ParsesJdbcUris) {
  ASSERT_OK_AND_ASSIGN(
      auto p, sql::ParsePostgresUri("jdbc:postgresql://db.example:6543/cat?user=u&sslmode=require"
                                    "&currentSchema=ice&ApplicationName=a%20b"));
  EXPECT_EQ(p.keywords,
            (std::vector<std::pair<std::string, std::string>>{{"host", "db.example"},
                                                              {"port", "6543"},
                                                              {"dbname", "cat"},
                                                              {"user", "u"},
                                                              {"sslmode", "require"},
                                                              {"application_name", "a b"},
                                                              {"options", "-c search_path=ice"}}));
  ASSERT_OK_AND_ASSIGN(p, sql::ParsePostgresUri("jdbc:postgresql://[::1]/cat"));
  EXPECT_EQ(p.keywords[0], (std::pair<std::string, std::string>{"host", "::1"}));
  EXPECT_THAT(sql::ParsePostgresUri("jdbc:postgresql://h:99999/cat"), HasErrorMessage("port"));
  EXPECT_THAT(sql::ParsePostgresUri("jdbc:postgresql://h:5432/"),
              HasErrorMessage("no database name"));
  EXPECT_THAT(sql::ParsePostgresUri("jdbc:postgresql://h/cat?loginTimeout=3"),
              HasErrorMessage("loginTimeout"));
  EXPECT_THAT(sql::ParsePostgresUri("jdbc:postgresql://u:p@h/cat"), HasErrorMessage("jdbc.user"));
}

// A commit whose connection is lost while its UPDATE waits (the backend is
// terminated from another session while a lock this test holds blocks it):
// commit state unknown, and the new metadata file stays.
TEST(SqlCatalogPostgresTest, LostConnectionDuringCommitIsStateUnknown) {
  auto dir = test::FreshTestDir("floe_sql_catalog_pg_");
  ASSERT_OK_AND_ASSIGN(std::string uri, test::FreshPostgresDatabase());
  std::map<std::string, std::string> options{
      {"uri", uri}, {"jdbc.user", "postgres"}, {"warehouse", (dir / "wh").string()}};
  ASSERT_OK_AND_ASSIGN(auto cat, OpenSqlCatalog("cat", options));
  ASSERT_OK(cat->CreateNamespace(*ParseNamespace("db"), {}));
  TableDefinition def;
  def.schema = Schema({{1, "id", true, LongType(), {}}}, 0, {1});
  ASSERT_OK_AND_ASSIGN(auto t, cat->CreateTable(*ParseTableIdentifier("db.t"), def));

  // A second session holds the row lock.
  ASSERT_OK_AND_ASSIGN(auto params, sql::ParsePostgresUri(uri + "?user=postgres"));
  ASSERT_OK_AND_ASSIGN(auto holder, sql::OpenPostgres(params));
  ASSERT_OK_AND_ASSIGN(auto killer, sql::OpenPostgres(params));
  ASSERT_OK(holder->Begin(true));
  ASSERT_OK(holder->Query("SELECT 1 FROM iceberg_tables WHERE table_name = 't' FOR UPDATE"));

  Result<LoadedTable> result = Internal("not run");
  std::thread committer([&] {
    result = cat->CommitTable(t, *iceberg::UpdateProperties(t.metadata, {{"k", "v"}}, {}));
  });
  // Wait for the commit's UPDATE to block on the lock, then end its session.
  bool terminated = false;
  for (int i = 0; i < 500 && !terminated; ++i) {
    auto rows = killer->Query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND "
        "query LIKE "
        "'UPDATE iceberg_tables SET metadata_location%'");
    ASSERT_OK(rows);
    terminated = !rows->empty();
    if (!terminated) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  holder->Rollback();
  committer.join();
  ASSERT_TRUE(terminated) << "the commit never waited on the lock";
  EXPECT_THAT(result, IsError(ErrorKind::kCommitStateUnknown));
  // The metadata file the commit wrote is kept (the swap may have landed).
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir / "wh/db/t/metadata"))
    files += e.path().string().ends_with(".json");
  EXPECT_EQ(files, 2);
  // The catalog reconnects for the next call; the table is still the old version.
  ASSERT_OK_AND_ASSIGN(auto now, cat->LoadTable(*ParseTableIdentifier("db.t")));
  EXPECT_EQ(now.metadata_location, t.metadata_location);
  test::RemoveTestDirIfPassed(dir);
}

}  // namespace sql_catalog_test
}  // namespace floe::catalog

namespace floe::catalog {
namespace sql_catalog_test {

// jdbc.user and jdbc.password reach PostgreSQL: the password role of the
// test cluster gets in only with its password, and no error text carries
// the password.
TEST(SqlCatalogPostgresTest, UserAndPasswordAuthenticate) {
  auto dir = test::FreshTestDir("floe_sql_catalog_auth_");
  ASSERT_OK_AND_ASSIGN(std::string uri, test::FreshPostgresDatabase());
  const std::string db = uri.substr(uri.rfind('/') + 1);
  const std::string role = test::kPasswordRole;
  ASSERT_OK(test::PostgresSql(db, "DROP ROLE IF EXISTS " + role + "; CREATE ROLE " + role +
                                      " LOGIN PASSWORD 'S3cret-pw'; GRANT ALL ON DATABASE " + db + " TO " + role +
                                      "; GRANT ALL ON SCHEMA public TO " + role));
  auto options = [&](std::map<std::string, std::string> extra) {
    extra["uri"] = uri;
    extra["warehouse"] = (dir / "wh").string();
    return extra;
  };
  auto wrong = OpenSqlCatalog("cat", options({{"jdbc.user", role}, {"jdbc.password", "wrong-pw"}}));
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("password authentication failed"), std::string::npos)
      << wrong.error().message;
  EXPECT_EQ(wrong.error().message.find("wrong-pw"), std::string::npos) << wrong.error().message;
  auto none = OpenSqlCatalog("cat", options({{"jdbc.user", role}}));
  ASSERT_FALSE(none);
  auto unknown = OpenSqlCatalog("cat", options({{"jdbc.user", "nobody_here"}}));
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("nobody_here"), std::string::npos) << unknown.error().message;

  ASSERT_OK_AND_ASSIGN(auto cat, OpenSqlCatalog("cat", options({{"jdbc.user", role}, {"jdbc.password", "S3cret-pw"}})));
  ASSERT_OK(cat->CreateNamespace(*ParseNamespace("db"), {}));
  ASSERT_OK_AND_ASSIGN(std::string owner,
                       test::PostgresSql(db, "SELECT tableowner FROM pg_tables WHERE tablename = 'iceberg_tables'"));
  EXPECT_NE(owner.find(role), std::string::npos) << owner;
  test::RemoveTestDirIfPassed(dir);
}

}  // namespace sql_catalog_test
}  // namespace floe::catalog
