// The journal mode of SQLite catalog files: a file floe creates is put in WAL
// mode (one fsync of the log per commit instead of the rollback journal's
// several; a setting stored in the file, which every SQLite client since
// 3.7.0 follows), and a file that existed before floe opened it keeps the
// mode its creator chose. Other SQLite connections read and write a WAL
// catalog while floe has it open.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "floe/catalog/sql_catalog.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::catalog {
namespace sqlite_journal_test {

namespace fs = std::filesystem;
using test::IsOk;

class SqliteJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_sqlite_journal_");
    db_path_ = (dir_ / "catalog.db").string();
  }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  std::map<std::string, std::string> Options() const {
    return {{"uri", "jdbc:sqlite:file:" + db_path_}, {"warehouse", (dir_ / "wh").string()}};
  }

  /// Runs `sql` on its own connection (another SQLite client than floe's);
  /// the first column of the last row, or "error: ..." when it failed.
  std::string Sqlite(const std::string& sql) const {
    sqlite3* db = nullptr;
    std::string out;
    if (sqlite3_open_v2(db_path_.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        nullptr) != SQLITE_OK) {
      out = std::string("error: ") + (db ? sqlite3_errmsg(db) : "cannot open");
      sqlite3_close_v2(db);
      return out;
    }
    sqlite3_busy_timeout(db, 10000);
    auto callback = [](void* o, int n, char** values, char**) {
      *static_cast<std::string*>(o) = n > 0 && values[0] ? values[0] : "NULL";
      return 0;
    };
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), callback, &out, &err) != SQLITE_OK) {
      out = std::string("error: ") + (err ? err : "?");
      sqlite3_free(err);
    }
    sqlite3_close_v2(db);
    return out;
  }

  static TableDefinition Def() {
    TableDefinition d;
    d.schema = Schema({{1, "id", true, LongType(), {}}}, 0, {1});
    return d;
  }

  fs::path dir_;
  std::string db_path_;
};

TEST_F(SqliteJournalTest, ACatalogFileFloeCreatesIsInWalMode) {
  ASSERT_FALSE(fs::exists(db_path_));
  ASSERT_OK_AND_ASSIGN(auto cat, OpenSqlCatalog("cat", Options()));
  ASSERT_OK(cat->CreateNamespace(*ParseNamespace("db"), {}));
  ASSERT_OK_AND_ASSIGN(auto t, cat->CreateTable(*ParseTableIdentifier("db.t"), Def()));
  // Another connection, while floe's is open: the mode is in the file, and
  // it reads the row floe committed.
  EXPECT_EQ(Sqlite("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(Sqlite("SELECT metadata_location FROM iceberg_tables WHERE table_name = 't'"),
            t.metadata_location);
  // ... and writes, which floe then sees.
  EXPECT_EQ(
      Sqlite("INSERT INTO iceberg_namespace_properties VALUES ('cat', 'other', 'exists', 'true'); "
             "SELECT count(*) FROM iceberg_namespace_properties"),
      "2");
  ASSERT_OK_AND_ASSIGN(bool other, cat->NamespaceExists(*ParseNamespace("other")));
  EXPECT_TRUE(other);
  cat.reset();
  // Still WAL when reopened (by floe or anyone).
  ASSERT_OK_AND_ASSIGN(cat, OpenSqlCatalog("cat", Options()));
  ASSERT_OK(cat->LoadTable(*ParseTableIdentifier("db.t")));
  EXPECT_EQ(Sqlite("PRAGMA journal_mode"), "wal");
}

TEST_F(SqliteJournalTest, AnExistingCatalogFileKeepsItsJournalMode) {
  // A file made by another client (Java's JdbcCatalog and PyIceberg leave
  // SQLite's default, the rollback journal), with something in it already.
  ASSERT_EQ(Sqlite("PRAGMA journal_mode"), "delete");  // creates the file
  ASSERT_EQ(Sqlite("CREATE TABLE other_app(x); PRAGMA journal_mode"), "delete");
  ASSERT_OK_AND_ASSIGN(auto cat, OpenSqlCatalog("cat", Options()));
  ASSERT_OK(cat->CreateNamespace(*ParseNamespace("db"), {}));
  ASSERT_OK(cat->CreateTable(*ParseTableIdentifier("db.t"), Def()));
  EXPECT_EQ(Sqlite("PRAGMA journal_mode"), "delete");
  EXPECT_FALSE(fs::exists(db_path_ + "-wal"));
}

}  // namespace sqlite_journal_test
}  // namespace floe::catalog
