// One conformance suite for every catalog backend: the same cases run against
// each entry of Backends(), and each backend's capabilities decide the
// expected outcome where catalogs legitimately differ (the hadoop catalog
// stores no namespace properties and cannot rename or register tables, as
// Java's HadoopCatalog). To add a backend ("rest over X"), add one entry.

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <regex>
#include <thread>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "floe/catalog/catalog.h"
#include "floe/catalog/commit_retry.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/io/file_io.h"
#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/postgres.h"
#include "testing/race.h"

namespace floe::catalog {
namespace catalog_suite_test {

namespace fs = std::filesystem;
using test::IsError;
using test::IsOk;

using Options = std::map<std::string, std::string>;

struct Backend {
  std::string name;
  /// Catalog options for a fresh, empty catalog in the test's folder.
  std::function<Result<Options>(const fs::path& dir)> make;
  bool namespace_properties = true;
  bool rename = true;
  bool register_table = true;
};

void PrintTo(const Backend& b, std::ostream* os) { *os << b.name; }

// `floe serve` processes started by the rest-over-X backends of the running
// test; stopped (SIGTERM, then waited for) by the fixture's TearDown.
std::vector<pid_t>& Servers() {
  static std::vector<pid_t> servers;
  return servers;
}

void StopServers() {
  for (pid_t pid : Servers()) {
    ::kill(pid, SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
  Servers().clear();
}

// Starts `floe serve` over the catalog `backend` (its options), with
// `env` (NAME=VALUE, e.g. a FLOE_SERVE_FAULT) set; returns the REST catalog
// options of a client.
Result<Options> Serve(const fs::path& dir, const Options& backend, const std::string& env = "") {
  const std::string out = (dir / "serve.out").string();
  std::vector<std::string> args = {FLOE_BINARY_DIR "/floe", "serve", "--listen", "127.0.0.1:0"};
  for (const auto& [k, v] : backend) {
    args.push_back("--catalog");
    args.push_back(k + "=" + v);
  }
  pid_t pid = ::fork();
  if (pid < 0) return IoError("fork failed");
  if (pid == 0) {
    int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    if (!env.empty()) ::putenv(const_cast<char*>(env.c_str()));
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  Servers().push_back(pid);
  const std::regex listening(R"re(listening on (http://127\.0\.0\.1:\d+))re");
  for (int i = 0; i < 400; ++i) {
    std::smatch m;
    std::string text = test::ReadFile(out);
    if (std::regex_search(text, m, listening)) return Options{{"catalog-type", "rest"}, {"uri", m[1]}};
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      Servers().pop_back();
      return IoError("floe serve exited before listening: {}", text);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return IoError("floe serve did not print its address in 10 s");
}

Options Sqlite(const fs::path& dir) {
  return Options{{"catalog-type", "sql"},
                 {"uri", "jdbc:sqlite:file:" + (dir / "catalog.db").string()},
                 {"warehouse", (dir / "wh").string()}};
}
Result<Options> Postgres(const fs::path& dir) {
  FLOE_ASSIGN_OR_RETURN(std::string uri, test::FreshPostgresDatabase());
  return Options{{"catalog-type", "sql"}, {"uri", uri}, {"jdbc.user", "postgres"}, {"warehouse", (dir / "wh").string()}};
}

std::vector<Backend> Backends() {
  return {
      {"hadoop",
       [](const fs::path& dir) -> Result<Options> {
         return Options{{"catalog-type", "hadoop"}, {"warehouse", (dir / "wh").string()}};
       },
       false, false, false},
      {"sqlite",
       [](const fs::path& dir) -> Result<Options> {
         return Options{{"catalog-type", "sql"},
                        {"uri", "jdbc:sqlite:file:" + (dir / "catalog.db").string()},
                        {"warehouse", (dir / "wh").string()}};
       }},
      {"postgres",
       [](const fs::path& dir) -> Result<Options> {
         FLOE_ASSIGN_OR_RETURN(std::string uri, test::FreshPostgresDatabase());
         return Options{{"catalog-type", "sql"},
                        {"uri", uri},
                        {"jdbc.user", "postgres"},
                        {"warehouse", (dir / "wh").string()}};
       }},
      // REST over each backend: the same cases through floe's REST client
      // and floe serve. Over hadoop the server answers 406 where the hadoop
      // catalog cannot act, which the client reports as kUnsupported.
      {"rest_over_hadoop",
       [](const fs::path& dir) -> Result<Options> {
         return Serve(dir, Options{{"warehouse", (dir / "wh").string()}});
       },
       false, false, false},
      {"rest_over_sqlite", [](const fs::path& dir) -> Result<Options> { return Serve(dir, Sqlite(dir)); }},
      {"rest_over_postgres",
       [](const fs::path& dir) -> Result<Options> {
         FLOE_ASSIGN_OR_RETURN(Options pg, Postgres(dir));
         return Serve(dir, pg);
       }},
  };
}

class CatalogSuite : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_catalog_suite_");
    ASSERT_OK_AND_ASSIGN(options_, GetParam().make(dir_));
    ASSERT_OK_AND_ASSIGN(catalog_, Open());
  }
  void TearDown() override {
    catalog_.reset();
    StopServers();
    test::RemoveTestDirIfPassed(dir_);
  }

  Result<std::unique_ptr<Catalog>> Open() { return OpenCatalog("suite", options_); }

  static TableDefinition Def() {
    TableDefinition d;
    d.schema =
        Schema({{1, "id", true, LongType(), {}}, {2, "name", false, StringType(), {}}}, 0, {1});
    d.properties = {{"format-version", "2"}};
    return d;
  }
  static Namespace Ns(std::string_view s) { return *ParseNamespace(s); }
  static TableIdentifier Id(std::string_view s) { return *ParseTableIdentifier(s); }

  // The metadata files in the table's metadata folder.
  int MetadataFiles(const LoadedTable& t) {
    int n = 0;
    auto entries = catalog_->io()->ListFolder(t.metadata.location + "/metadata");
    if (!entries) return -1;
    for (const auto& e : *entries) n += e.location.ends_with(".metadata.json");
    return n;
  }

  fs::path dir_;
  Options options_;
  std::unique_ptr<Catalog> catalog_;
};

TEST_P(CatalogSuite, Namespaces) {
  ASSERT_OK(catalog_->CreateNamespace(Ns("db"), {}));
  EXPECT_THAT(catalog_->CreateNamespace(Ns("db"), {}), IsError(ErrorKind::kAlreadyExists));
  ASSERT_OK(catalog_->CreateNamespace(Ns("db.inner"), {}));
  ASSERT_OK(catalog_->CreateNamespace(Ns("db.inner.deep"), {}));
  ASSERT_OK(catalog_->CreateNamespace(Ns("other"), {}));
  ASSERT_OK(catalog_->CreateNamespace(Ns("dbx"), {}));  // shares a prefix with db, not a child

  ASSERT_OK_AND_ASSIGN(auto top, catalog_->ListNamespaces({}));
  EXPECT_EQ(top, (std::vector<Namespace>{Ns("db"), Ns("dbx"), Ns("other")}));
  ASSERT_OK_AND_ASSIGN(auto under_db, catalog_->ListNamespaces(Ns("db")));
  EXPECT_EQ(under_db, (std::vector<Namespace>{Ns("db.inner")}));
  ASSERT_OK_AND_ASSIGN(auto under_inner, catalog_->ListNamespaces(Ns("db.inner")));
  EXPECT_EQ(under_inner, (std::vector<Namespace>{Ns("db.inner.deep")}));
  EXPECT_THAT(catalog_->ListNamespaces(Ns("missing")), IsError(ErrorKind::kNotFound));

  EXPECT_TRUE(*catalog_->NamespaceExists(Ns("db.inner")));
  EXPECT_FALSE(*catalog_->NamespaceExists(Ns("missing")));
  EXPECT_FALSE(*catalog_->NamespaceExists(Ns("db.missing")));

  // Non-empty namespaces are refused: a child namespace, then a table.
  EXPECT_THAT(catalog_->DropNamespace(Ns("db.inner")), IsError(ErrorKind::kInvalidArgument));
  ASSERT_OK(catalog_->DropNamespace(Ns("db.inner.deep")));
  ASSERT_OK(catalog_->CreateTable(Id("db.inner.t"), Def()));
  EXPECT_THAT(catalog_->DropNamespace(Ns("db.inner")), IsError(ErrorKind::kInvalidArgument));
  ASSERT_OK(catalog_->DropTable(Id("db.inner.t"), false));
  ASSERT_OK(catalog_->DropNamespace(Ns("db.inner")));
  EXPECT_FALSE(*catalog_->NamespaceExists(Ns("db.inner")));
  EXPECT_THAT(catalog_->DropNamespace(Ns("db.inner")), IsError(ErrorKind::kNotFound));
  ASSERT_OK_AND_ASSIGN(under_db, catalog_->ListNamespaces(Ns("db")));
  EXPECT_TRUE(under_db.empty());
}

TEST_P(CatalogSuite, NamespaceProperties) {
  if (!GetParam().namespace_properties) {
    EXPECT_THAT(catalog_->CreateNamespace(Ns("db"), {{"owner", "a"}}),
                IsError(ErrorKind::kUnsupported));
    ASSERT_OK(catalog_->CreateNamespace(Ns("db"), {}));
    EXPECT_THAT(catalog_->UpdateNamespaceProperties(Ns("db"), {{"k", "v"}}, {}),
                IsError(ErrorKind::kUnsupported));
    ASSERT_OK_AND_ASSIGN(auto props, catalog_->LoadNamespaceProperties(Ns("db")));
    EXPECT_TRUE(props.contains("location"));
    EXPECT_THAT(catalog_->LoadNamespaceProperties(Ns("missing")), IsError(ErrorKind::kNotFound));
    return;
  }
  ASSERT_OK(catalog_->CreateNamespace(Ns("db"), {{"owner", "a"}, {"comment", "c"}}));
  ASSERT_OK_AND_ASSIGN(auto props, catalog_->LoadNamespaceProperties(Ns("db")));
  EXPECT_EQ(props.at("owner"), "a");
  EXPECT_EQ(props.at("comment"), "c");
  EXPECT_TRUE(props.contains("location"));
  EXPECT_FALSE(props.contains("exists"));  // JdbcCatalog's reserved marker stays hidden

  ASSERT_OK_AND_ASSIGN(auto changes,
                       catalog_->UpdateNamespaceProperties(Ns("db"), {{"owner", "b"}, {"k", "1"}},
                                                           {"comment", "gone"}));
  EXPECT_EQ(changes.updated, (std::vector<std::string>{"k", "owner"}));
  EXPECT_EQ(changes.removed, (std::vector<std::string>{"comment"}));
  EXPECT_EQ(changes.missing, (std::vector<std::string>{"gone"}));
  ASSERT_OK_AND_ASSIGN(props, catalog_->LoadNamespaceProperties(Ns("db")));
  EXPECT_EQ(props.at("owner"), "b");
  EXPECT_EQ(props.at("k"), "1");
  EXPECT_FALSE(props.contains("comment"));

  EXPECT_THAT(catalog_->UpdateNamespaceProperties(Ns("db"), {{"k", "2"}}, {"k"}),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(catalog_->UpdateNamespaceProperties(Ns("missing"), {{"k", "2"}}, {}),
              IsError(ErrorKind::kNotFound));
  EXPECT_THAT(catalog_->LoadNamespaceProperties(Ns("missing")), IsError(ErrorKind::kNotFound));
  // Removing every property keeps the namespace.
  ASSERT_OK(catalog_->UpdateNamespaceProperties(Ns("db"), {}, {"owner", "k"}));
  EXPECT_TRUE(*catalog_->NamespaceExists(Ns("db")));
}

TEST_P(CatalogSuite, Tables) {
  ASSERT_OK(catalog_->CreateNamespace(Ns("db"), {}));
  ASSERT_OK_AND_ASSIGN(auto created, catalog_->CreateTable(Id("db.events"), Def()));
  EXPECT_TRUE(created.metadata.location.starts_with("file:/")) << created.metadata.location;
  EXPECT_TRUE(created.metadata.location.ends_with("/wh/db/events")) << created.metadata.location;
  EXPECT_THAT(catalog_->CreateTable(Id("db.events"), Def()), IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(catalog_->CreateTable(Id("nope.t"), Def()), IsError(ErrorKind::kNotFound));
  ASSERT_OK(catalog_->CreateTable(Id("db.alpha"), Def()));

  ASSERT_OK_AND_ASSIGN(auto loaded, catalog_->LoadTable(Id("db.events")));
  EXPECT_EQ(loaded.metadata.table_uuid, created.metadata.table_uuid);
  EXPECT_EQ(loaded.metadata_location, created.metadata_location);
  ASSERT_OK_AND_ASSIGN(auto tables, catalog_->ListTables(Ns("db")));
  EXPECT_EQ(tables, (std::vector<TableIdentifier>{Id("db.alpha"), Id("db.events")}));
  EXPECT_THAT(catalog_->ListTables(Ns("nope")), IsError(ErrorKind::kNotFound));
  EXPECT_TRUE(*catalog_->TableExists(Id("db.events")));
  EXPECT_FALSE(*catalog_->TableExists(Id("db.nope")));
  EXPECT_THAT(catalog_->LoadTable(Id("db.nope")), IsError(ErrorKind::kNotFound));

  ASSERT_OK(catalog_->DropTable(Id("db.events"), false));
  EXPECT_FALSE(*catalog_->TableExists(Id("db.events")));
  EXPECT_THAT(catalog_->LoadTable(Id("db.events")), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(catalog_->DropTable(Id("db.events"), false), IsError(ErrorKind::kNotFound));
  // A table of the same name can be made again, once its folder holds no
  // table metadata: a drop without purge leaves a sql catalog's table folder,
  // and a new table there would take the old one's files for its own
  // (orphan removal, purge). The hadoop catalog's drop removes the folder.
  auto again = catalog_->CreateTable(Id("db.events"), Def());
  const bool leaves_folder = GetParam().name.find("hadoop") == std::string::npos;
  if (leaves_folder) {
    EXPECT_THAT(again, IsError(ErrorKind::kInvalidArgument));
    if (!again) {
      EXPECT_NE(again.error().message.find("already holds another table's metadata"), std::string::npos)
          << again.error().message;
    }
    fs::remove_all(dir_ / "wh" / "db" / "events");
    ASSERT_OK(catalog_->CreateTable(Id("db.events"), Def()));
  } else {
    ASSERT_OK(again);
  }
}

// Issue 23 item 2: tables inside tables. `ns.t.sub.x` and `ns.t.data.y` while
// ns.t is a table put their files in ns.t's folder, where orphan removal,
// purge and the hadoop drop took them for ns.t's. Every backend refuses a
// namespace or table inside a table's folder, a table around a table, and a
// table where another table's metadata already is.
TEST_P(CatalogSuite, TablesInsideTablesAreRefused) {
  ASSERT_OK(catalog_->CreateNamespace(Ns("ns"), {}));
  ASSERT_OK_AND_ASSIGN(auto t, catalog_->CreateTable(Id("ns.t"), Def()));
  // A namespace inside the table's folder.
  auto sub = catalog_->CreateNamespace(Ns("ns.t.sub"), {});
  EXPECT_THAT(sub, IsError(ErrorKind::kInvalidArgument));
  if (!sub) {
    EXPECT_NE(sub.error().message.find("is the folder of a table"), std::string::npos) << sub.error().message;
  }
  // A table in the table's data folder (the hadoop catalog sees a namespace
  // ns.t.data there; the others have no such namespace).
  EXPECT_THAT(catalog_->CreateTable(Id("ns.t.data.y"), Def()), testing::Not(IsOk()));
  EXPECT_FALSE(fs::exists(dir_ / "wh" / "ns" / "t" / "data" / "y"));
  // A table around an existing table: ns.a.x exists, ns.a would hold it.
  ASSERT_OK(catalog_->CreateNamespace(Ns("ns.a"), {}));
  ASSERT_OK(catalog_->CreateTable(Id("ns.a.x"), Def()));
  auto around = catalog_->CreateTable(Id("ns.a"), Def());
  EXPECT_THAT(around, IsError(ErrorKind::kInvalidArgument));
  if (!around) {
    EXPECT_NE(around.error().message.find("holds another table"), std::string::npos) << around.error().message;
  }
  // A table at another table's location (a custom location; the hadoop
  // catalog allows none).
  TableDefinition same = Def();
  same.location = t.metadata.location;
  EXPECT_THAT(catalog_->CreateTable(Id("ns.u"), same), testing::Not(IsOk()));
  EXPECT_FALSE(*catalog_->TableExists(Id("ns.u")));
  TableDefinition inside = Def();
  inside.location = t.metadata.location + "/data/v";
  EXPECT_THAT(catalog_->CreateTable(Id("ns.v"), inside), testing::Not(IsOk()));
  EXPECT_FALSE(*catalog_->TableExists(Id("ns.v")));
  // Beside the table is fine.
  ASSERT_OK(catalog_->CreateTable(Id("ns.t2"), Def()));
}

TEST_P(CatalogSuite, Rename) {
  ASSERT_OK(catalog_->CreateNamespace(Ns("db"), {}));
  ASSERT_OK(catalog_->CreateNamespace(Ns("other"), {}));
  ASSERT_OK_AND_ASSIGN(auto t, catalog_->CreateTable(Id("db.t"), Def()));
  ASSERT_OK(catalog_->CreateTable(Id("db.taken"), Def()));
  if (!GetParam().rename) {
    EXPECT_THAT(catalog_->RenameTable(Id("db.t"), Id("other.t2")),
                IsError(ErrorKind::kUnsupported));
    return;
  }
  ASSERT_OK(catalog_->RenameTable(Id("db.t"), Id("other.t2")));
  EXPECT_THAT(catalog_->LoadTable(Id("db.t")), IsError(ErrorKind::kNotFound));
  ASSERT_OK_AND_ASSIGN(auto moved, catalog_->LoadTable(Id("other.t2")));
  EXPECT_EQ(moved.metadata.table_uuid, t.metadata.table_uuid);
  EXPECT_EQ(*catalog_->ListTables(Ns("other")), (std::vector<TableIdentifier>{Id("other.t2")}));
  // Onto an existing table, from a missing table, into a missing namespace.
  EXPECT_THAT(catalog_->RenameTable(Id("other.t2"), Id("db.taken")),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(catalog_->RenameTable(Id("db.t"), Id("db.t3")), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(catalog_->RenameTable(Id("other.t2"), Id("nope.t")), IsError(ErrorKind::kNotFound));
  EXPECT_TRUE(*catalog_->TableExists(Id("other.t2")));
  EXPECT_TRUE(*catalog_->TableExists(Id("db.taken")));
  // The renamed table still commits.
  ASSERT_OK(
      catalog_->CommitTable(moved, *iceberg::UpdateProperties(moved.metadata, {{"k", "1"}}, {})));
}

TEST_P(CatalogSuite, Register) {
  ASSERT_OK(catalog_->CreateNamespace(Ns("db"), {}));
  ASSERT_OK_AND_ASSIGN(auto t, catalog_->CreateTable(Id("db.t"), Def()));
  if (!GetParam().register_table) {
    EXPECT_THAT(catalog_->RegisterTable(Id("db.r"), t.metadata_location),
                IsError(ErrorKind::kUnsupported));
    return;
  }
  ASSERT_OK_AND_ASSIGN(auto registered, catalog_->RegisterTable(Id("db.r"), t.metadata_location));
  EXPECT_EQ(registered.metadata.table_uuid, t.metadata.table_uuid);
  ASSERT_OK_AND_ASSIGN(auto loaded, catalog_->LoadTable(Id("db.r")));
  EXPECT_EQ(loaded.metadata_location, t.metadata_location);
  EXPECT_THAT(catalog_->RegisterTable(Id("db.r"), t.metadata_location),
              IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(catalog_->RegisterTable(Id("nope.r"), t.metadata_location),
              IsError(ErrorKind::kNotFound));
  // Something that is not table metadata is refused, and nothing is registered.
  ASSERT_TRUE(test::WriteFile(dir_ / "junk.json", "{\"not\": \"metadata\"}"));
  EXPECT_THAT(catalog_->RegisterTable(Id("db.junk"), (dir_ / "junk.json").string()),
              testing::Not(IsOk()));
  EXPECT_THAT(catalog_->RegisterTable(Id("db.gone"), (dir_ / "missing.json").string()),
              testing::Not(IsOk()));
  EXPECT_FALSE(*catalog_->TableExists(Id("db.junk")));
  EXPECT_FALSE(*catalog_->TableExists(Id("db.gone")));
}

// Two commits from one base: the second loses, the table shows the first,
// and the loser's metadata file is gone.
// `m` with one more snapshot on main (its manifest list is never read by a
// catalog, so none is written).
iceberg::TableMetadata Appended(const iceberg::TableMetadata& base) {
  iceberg::TableMetadata m = base;
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

// Two appends from one base: the second loses (kCommitFailed, so the caller
// reloads and re-applies) and the table shows the first. Every catalog
// refuses it: a version swap (hadoop, sql) or the assert-ref-snapshot-id
// requirement of the commit (rest).
TEST_P(CatalogSuite, CommitConflict) {
  ASSERT_OK(catalog_->CreateNamespace(Ns("db"), {}));
  ASSERT_OK_AND_ASSIGN(auto base, catalog_->CreateTable(Id("db.t"), Def()));
  ASSERT_OK_AND_ASSIGN(auto first, catalog_->CommitTable(base, Appended(base.metadata)));
  EXPECT_NE(first.metadata_location, base.metadata_location);
  ASSERT_EQ(first.metadata.metadata_log.size(), 1u);
  EXPECT_EQ(first.metadata.metadata_log[0].metadata_file.substr(
                first.metadata.metadata_log[0].metadata_file.rfind('/')),
            base.metadata_location.substr(base.metadata_location.rfind('/')));
  auto second = catalog_->CommitTable(base, Appended(base.metadata));
  EXPECT_THAT(second, IsError(ErrorKind::kCommitFailed));
  ASSERT_OK_AND_ASSIGN(auto now, catalog_->RefreshTable(Id("db.t")));
  EXPECT_EQ(now.metadata.current_snapshot_id, first.metadata.current_snapshot_id);
  EXPECT_EQ(now.metadata_location, first.metadata_location);
  EXPECT_EQ(MetadataFiles(now), 2);
  // Changes that touch no ref: a version swap refuses a stale base, while a
  // REST commit asserts only what the change depends on (the table's uuid),
  // so the server applies it on top of the current version (the REST spec's
  // requirements; Java's REST client sends the same).
  auto props = catalog_->CommitTable(base, *iceberg::UpdateProperties(base.metadata, {{"k", "2"}}, {}));
  if (GetParam().name.starts_with("rest")) {
    ASSERT_OK(props);
    EXPECT_EQ(props->metadata.current_snapshot_id, first.metadata.current_snapshot_id) << "the append stays";
    EXPECT_EQ(props->metadata.properties.at("k"), "2");
  } else {
    EXPECT_THAT(props, IsError(ErrorKind::kCommitFailed));
  }
  // A commit on a dropped table fails (rest: the table is not found).
  ASSERT_OK_AND_ASSIGN(now, catalog_->RefreshTable(Id("db.t")));
  ASSERT_OK(catalog_->DropTable(Id("db.t"), false));
  auto dropped = catalog_->CommitTable(now, Appended(now.metadata));
  ASSERT_FALSE(dropped);
  EXPECT_TRUE(dropped.error().kind == ErrorKind::kCommitFailed || dropped.error().kind == ErrorKind::kNotFound)
      << dropped.error().ToString();
}

TEST_P(CatalogSuite, DropIfUnchanged) {
  ASSERT_OK(catalog_->CreateNamespace(Ns("db"), {}));
  ASSERT_OK_AND_ASSIGN(auto t, catalog_->CreateTable(Id("db.t"), Def()));
  ASSERT_OK_AND_ASSIGN(bool dropped, catalog_->DropIfUnchanged(t));
  EXPECT_TRUE(dropped);
  EXPECT_FALSE(*catalog_->TableExists(Id("db.t")));
  EXPECT_TRUE(*catalog_->NamespaceExists(Ns("db")));
  // Someone committed after the create: the table stays.
  ASSERT_OK_AND_ASSIGN(t, catalog_->CreateTable(Id("db.t"), Def()));
  ASSERT_OK(catalog_->CommitTable(t, *iceberg::UpdateProperties(t.metadata, {{"k", "1"}}, {})));
  ASSERT_OK_AND_ASSIGN(dropped, catalog_->DropIfUnchanged(t));
  EXPECT_FALSE(dropped);
  ASSERT_OK_AND_ASSIGN(auto now, catalog_->LoadTable(Id("db.t")));
  EXPECT_EQ(now.metadata.properties.at("k"), "1");
}

// Eight processes commit to one table at once, retrying lost races: every
// change lands exactly once (no lost update, no failure from a busy lock).
TEST_P(CatalogSuite, ConcurrentCommitsFromManyProcesses) {
  constexpr int kProcesses = 8;
  constexpr int kCommits = 5;
  ASSERT_OK(catalog_->CreateNamespace(Ns("db"), {}));
  ASSERT_OK(catalog_->CreateTable(Id("db.race"), Def()));
  catalog_.reset();  // no connection crosses fork()
  RetryPolicy policy;
  policy.num_retries = 1000;
  policy.min_wait_ms = 1;
  policy.max_wait_ms = 20;
  policy.total_timeout_ms = 120000;
  EXPECT_TRUE(test::RaceProcesses(kProcesses, [&](int who) -> Status {
    FLOE_ASSIGN_OR_RETURN(auto cat, Open());
    for (int i = 0; i < kCommits; ++i) {
      FLOE_RETURN_IF_ERROR(RunWithRetries(policy, [&](int) -> Status {
        FLOE_ASSIGN_OR_RETURN(auto t, cat->LoadTable(Id("db.race")));
        FLOE_ASSIGN_OR_RETURN(
            auto updated,
            iceberg::UpdateProperties(t.metadata, {{fmt::format("p{}_{}", who, i), "1"}}, {}));
        FLOE_RETURN_IF_ERROR(cat->CommitTable(t, std::move(updated)));
        return Ok();
      }));
    }
    return Ok();
  }));
  ASSERT_OK_AND_ASSIGN(catalog_, Open());
  ASSERT_OK_AND_ASSIGN(auto t, catalog_->LoadTable(Id("db.race")));
  for (int who = 1; who <= kProcesses; ++who) {
    for (int i = 0; i < kCommits; ++i) {
      EXPECT_TRUE(t.metadata.properties.contains(fmt::format("p{}_{}", who, i))) << who << " " << i;
    }
  }
  // One metadata file per winning commit, plus the first: losers left none.
  EXPECT_EQ(MetadataFiles(t), kProcesses * kCommits + 1);
  EXPECT_EQ(t.metadata.metadata_log.size(), static_cast<size_t>(kProcesses * kCommits));
}

// Commit state unknown, injected: a server that commits and then drops the
// reply (FLOE_SERVE_FAULT=commit-drop-reply), over each backend of floe
// serve. The client cannot tell, so it reports kCommitStateUnknown (never
// kCommitFailed, which would make the caller retry or delete files), and
// the table shows the commit. (The SQL catalog's own lost reply, a
// connection dropped during its UPDATE, is SqlCatalogPostgresTest.)
class LostReplySuite : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { dir_ = test::FreshTestDir("floe_lost_reply_"); }
  void TearDown() override {
    StopServers();
    test::RemoveTestDirIfPassed(dir_);
  }
  fs::path dir_;
};

TEST_P(LostReplySuite, ACommitWhoseReplyIsLostIsCommitStateUnknown) {
  Options backend;
  if (GetParam() == "hadoop") backend = Options{{"warehouse", (dir_ / "wh").string()}};
  if (GetParam() == "sqlite") backend = Sqlite(dir_);
  if (GetParam() == "postgres") {
    ASSERT_OK_AND_ASSIGN(backend, Postgres(dir_));
  }
  ASSERT_OK_AND_ASSIGN(Options rest, Serve(dir_, backend, "FLOE_SERVE_FAULT=commit-drop-reply:2"));
  ASSERT_OK_AND_ASSIGN(auto catalog, OpenCatalog("c", rest));
  ASSERT_OK(catalog->CreateNamespace(*ParseNamespace("db"), {}));
  TableDefinition def;
  def.schema = Schema({{1, "id", true, LongType(), {}}}, 0, {1});
  ASSERT_OK_AND_ASSIGN(auto t, catalog->CreateTable(*ParseTableIdentifier("db.t"), def));
  ASSERT_OK_AND_ASSIGN(auto first, iceberg::UpdateProperties(t.metadata, {{"first", "1"}}, {}));
  ASSERT_OK_AND_ASSIGN(auto t1, catalog->CommitTable(t, first));  // commit 1: answered
  ASSERT_OK_AND_ASSIGN(auto second, iceberg::UpdateProperties(t1.metadata, {{"second", "2"}}, {}));
  auto lost = catalog->CommitTable(t1, second);  // commit 2: applied, reply dropped
  ASSERT_FALSE(lost);
  EXPECT_EQ(lost.error().kind, ErrorKind::kCommitStateUnknown) << lost.error().ToString();
  ASSERT_OK_AND_ASSIGN(auto now, catalog->RefreshTable(t.id));
  EXPECT_EQ(now.metadata.properties.count("second"), 1u) << "the server applied the commit";
  // Backend agrees, read without the server.
  ASSERT_OK_AND_ASSIGN(auto direct, OpenCatalog("floe", backend));  // serve's catalog name
  ASSERT_OK_AND_ASSIGN(auto d, direct->LoadTable(t.id));
  EXPECT_EQ(d.metadata_location, now.metadata_location);
}

INSTANTIATE_TEST_SUITE_P(RestOver, LostReplySuite, ::testing::Values("hadoop", "sqlite", "postgres"));

INSTANTIATE_TEST_SUITE_P(Backends, CatalogSuite, ::testing::ValuesIn(Backends()),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param.name;
                         });

}  // namespace catalog_suite_test
}  // namespace floe::catalog
