// The example plugins (examples/plugins) through the sink adapter: the JSONL
// sink writes the retract stream line by line; the PostgreSQL upsert sink,
// against a throwaway cluster, ends with exactly the upsert state of the
// change stream, commits per checkpoint, and a replayed commit is a no-op.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "floe/plugin/plugin_sink.h"
#include "plugin_test_util.h"
#include "testing/matchers.h"
#include "testing/postgres.h"

namespace floe::plugin {
namespace examples_test {

using floe::test::HasErrorMessage;
using test::IdNameBatch;
using test::Lines;
using test::PluginFile;
using test::Row;
using ::testing::ElementsAre;

TEST(JsonlSinkExample, WritesTheRetractStream) {
  ASSERT_OK(LoadPlugin(PluginFile("floe_jsonl_sink")));
  auto dir = floe::test::FreshTestDir("plugin_jsonl");
  std::string out = (dir / "out.jsonl").string();
  {
    SinkSpec spec;
    spec.class_name = "com.example.JsonlSink";
    spec.parameter = "path=" + out;
    spec.schema = test::IdNameSchema();
    ASSERT_OK_AND_ASSIGN(auto sink, PluginSink::Open(spec));
    ASSERT_OK(sink->Write(IdNameBatch({{1, "a"},
                                       {1, "a", RowKind::kUpdateBefore},
                                       {1, "b\"q", RowKind::kUpdateAfter},
                                       {2, ""},
                                       {2, "", RowKind::kDelete}})));
    ASSERT_OK(sink->Flush(true));
    ASSERT_OK(sink->Close());
  }
  EXPECT_THAT(Lines(out), ElementsAre(R"({"op":true,"row":{"id":1,"name":"a"}})",
                                      R"({"op":false,"row":{"id":1,"name":"a"}})",
                                      R"({"op":true,"row":{"id":1,"name":"b\"q"}})",
                                      R"({"op":true,"row":{"id":2,"name":null}})",
                                      R"({"op":false,"row":{"id":2,"name":null}})"));
  floe::test::RemoveTestDirIfPassed(dir);
}

TEST(JsonlSinkExample, BadParameterNamesTheClassAndCall) {
  ASSERT_OK(LoadPlugin(PluginFile("floe_jsonl_sink")));
  SinkSpec spec;
  spec.class_name = "com.example.JsonlSink";
  spec.parameter = "file=/tmp/x";
  spec.schema = test::IdNameSchema();
  EXPECT_THAT(
      PluginSink::Open(spec),
      HasErrorMessage("floe.PluginException: com.example.JsonlSink: open: the parameter must be "
                      "path=FILE, got: file=/tmp/x"));
}

class PgUpsertSinkExample : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(LoadPlugin(PluginFile("floe_pg_upsert_sink")));
    ASSERT_OK_AND_ASSIGN(std::string uri, floe::test::FreshPostgresDatabase());
    // jdbc:postgresql://127.0.0.1:PORT/NAME
    auto colon = uri.rfind(':');
    auto slash = uri.rfind('/');
    port_ = uri.substr(colon + 1, slash - colon - 1);
    db_ = uri.substr(slash + 1);
    ASSERT_OK(
        floe::test::PostgresSql(db_, "CREATE TABLE users (id bigint PRIMARY KEY, name text)"));
  }

  Result<std::unique_ptr<PluginSink>> Open() {
    SinkSpec spec;
    spec.class_name = "com.example.PgUpsertSink";
    spec.parameter =
        "host=127.0.0.1 port=" + port_ + " dbname=" + db_ + " user=postgres table=users key=id";
    spec.schema = test::IdNameSchema();
    return PluginSink::Open(spec);
  }

  std::string Table() {
    auto out = floe::test::PostgresSql(db_, "SELECT id, name FROM users ORDER BY id");
    return out ? *out : out.error().ToString();
  }

  // The upsert state a change stream leaves: +I/+U put the row, -D removes
  // it, -U does nothing (the +U that follows replaces it).
  static void Apply(std::map<int64_t, std::string>* state, const std::vector<Row>& rows) {
    for (const auto& r : rows) {
      if (r.kind == RowKind::kInsert || r.kind == RowKind::kUpdateAfter) (*state)[r.id] = r.name;
      if (r.kind == RowKind::kDelete) state->erase(r.id);
    }
  }
  static std::string Text(const std::map<int64_t, std::string>& state) {
    std::string out;
    for (const auto& [id, name] : state) out += std::to_string(id) + "|" + name + "\n";
    return out;
  }

  std::string port_, db_;
};

TEST_F(PgUpsertSinkExample, EndsWithTheUpsertStateOfTheSource) {
  const std::vector<Row> first = {{1, "a"},
                                  {2, "b"},
                                  {3, "c"},
                                  {2, "b", RowKind::kUpdateBefore},
                                  {2, "bb", RowKind::kUpdateAfter},
                                  {3, "c", RowKind::kDelete},
                                  {4, "d"}};
  const std::vector<Row> second = {
      {1, "a", RowKind::kUpdateBefore}, {1, "aa", RowKind::kUpdateAfter},
      {4, "d", RowKind::kDelete},       {5, "e"},
      {5, "e", RowKind::kDelete},       {5, "ee"}};
  std::map<int64_t, std::string> model;
  ASSERT_OK_AND_ASSIGN(auto sink, Open());
  ASSERT_OK(sink->Write(IdNameBatch(first)));
  ASSERT_OK_AND_ASSIGN(std::string blob1, sink->PrepareCommit(1));
  EXPECT_EQ(Table(), "") << "nothing is visible before commit";
  ASSERT_OK(sink->Commit(1, blob1));
  Apply(&model, first);
  EXPECT_EQ(Table(), Text(model));

  ASSERT_OK(sink->Write(IdNameBatch(second)));
  ASSERT_OK_AND_ASSIGN(std::string blob2, sink->PrepareCommit(2));
  EXPECT_EQ(Table(), Text(model)) << "checkpoint 2 is not visible before its commit";
  ASSERT_OK(sink->Commit(2, blob2));
  ASSERT_OK(sink->Close());
  Apply(&model, second);
  EXPECT_EQ(Table(), "1|aa\n2|bb\n5|ee\n");
  EXPECT_EQ(Table(), Text(model));

  // After a restart: a replayed commit of a committed checkpoint is a no-op;
  // one whose prepared transaction died with its session says so.
  ASSERT_OK_AND_ASSIGN(auto again, Open());
  ASSERT_OK(again->Commit(2, blob2));
  EXPECT_THAT(
      again->Commit(3, "users#0 3"),
      HasErrorMessage(
          "floe.PluginException: com.example.PgUpsertSink: commit: checkpoint 3 was prepared "
          "in a session that ended before COMMIT (last committed: 2)"));
  EXPECT_EQ(Table(), Text(model));
}

TEST_F(PgUpsertSinkExample, CloseWithoutCommitKeepsNothing) {
  {
    ASSERT_OK_AND_ASSIGN(auto sink, Open());
    ASSERT_OK(sink->Write(IdNameBatch({{9, "z"}})));
    ASSERT_OK(sink->PrepareCommit(1));
    ASSERT_OK(sink->Close());
  }
  EXPECT_EQ(Table(), "");
}

TEST_F(PgUpsertSinkExample, ServerErrorNamesTheClassAndCall) {
  ASSERT_OK(floe::test::PostgresSql(
      db_, "ALTER TABLE users ADD CONSTRAINT short CHECK (length(name) < 3)"));
  ASSERT_OK_AND_ASSIGN(auto sink, Open());
  auto st = sink->Write(IdNameBatch({{1, "ok"}, {2, "too long"}}));
  EXPECT_THAT(st, HasErrorMessage(
                      "floe.PluginException: com.example.PgUpsertSink: invoke: INSERT INTO users"));
  EXPECT_THAT(st, HasErrorMessage("violates check constraint \"short\""));
  ASSERT_OK(sink->Abort(1));
  ASSERT_OK(sink->Close());
  EXPECT_EQ(Table(), "");
}

}  // namespace examples_test
}  // namespace floe::plugin
