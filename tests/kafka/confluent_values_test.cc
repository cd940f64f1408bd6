// The Schema Registry client (kafka/schema_registry.h) against the registry
// fixture (tests/testing/schema_registry.mjs): one fetch per id per process,
// basic auth, 404 / 401 / unreachable / non-Avro schemas as errors naming the
// URL and id; and the Avro formats' values (kafka/confluent_values.h) of
// messages that avsc encoded, as the JSON lines the decoders read, with the
// damaged ones rejected with their reason.
#include "floe/kafka/confluent_values.h"

#include <gtest/gtest.h>

#include "floe/avro/confluent.h"
#include "testing/files.h"
#include "testing/matchers.h"
#include "testing/schema_registry.h"

namespace floe::kafka {
namespace confluent_values_test {

using test::HasErrorMessage;
using test::IsError;

class ConfluentValues : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_confluent_");
    auto r = test::SchemaRegistryServer::Start("reader", "s3cret");
    ASSERT_OK(r);
    registry_ = std::move(*r);
  }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  SchemaRegistryOptions Options() const {
    SchemaRegistryOptions o;
    o.url = registry_->url();
    o.user_info = "reader:s3cret";
    o.attempts = 1;
    return o;
  }

  /// avsc-encoded messages of `rows` (one JSON value a line) with `schema`.
  std::vector<std::string> Encode(const std::string& name, const std::string& schema, const std::string& rows) {
    test::WriteFile(dir_ / (name + ".avsc"), schema);
    test::WriteFile(dir_ / (name + ".jsonl"), rows);
    auto files = registry_->Encode(name + "-value", dir_ / name,
                                   "--schema " + test::ShellQuote((dir_ / (name + ".avsc")).string()) + " --rows " +
                                       test::ShellQuote((dir_ / (name + ".jsonl")).string()));
    EXPECT_OK(files);
    std::vector<std::string> values;
    if (files) {
      for (const auto& f : *files) values.push_back(test::ReadFile(f));
    }
    return values;
  }

  std::filesystem::path dir_;
  std::unique_ptr<test::SchemaRegistryServer> registry_;
};

constexpr const char* kSchema = R"({"type":"record","name":"Row","namespace":"t","fields":[
  {"name":"id","type":"long"},
  {"name":"name","type":["null","string"],"default":null},
  {"name":"day","type":{"type":"int","logicalType":"date"}},
  {"name":"at","type":{"type":"long","logicalType":"timestamp-micros"}},
  {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
  {"name":"tags","type":{"type":"array","items":"string"}}]})";

TEST_F(ConfluentValues, AvscMessagesBecomeJsonlRows) {
  auto values = Encode("rows", kSchema,
                       R"({"id":"9007199254740993","name":{"string":"é\"x"},"day":17486,"at":"1510871468123456","price":"3039","tags":["a"]})"
                       "\n"
                       R"({"id":-1,"name":null,"day":-1,"at":-1,"price":"ff","tags":[]})"
                       "\n");
  ASSERT_EQ(values.size(), 2u);
  ASSERT_OK_AND_ASSIGN(auto v, ConfluentAvroValues::Make(Options(), avro::JsonDialect::kRow));
  std::string out, why;
  ASSERT_OK(v->Append(values[0], &out, &why));
  EXPECT_EQ(why, "");
  out += '\n';
  ASSERT_OK(v->Append(values[1], &out, &why));
  EXPECT_EQ(out,
            R"({"id":9007199254740993,"name":"é\"x","day":"2017-11-16","at":"2017-11-16T22:31:08.123456","price":"123.45","tags":["a"]})"
            "\n"
            R"({"id":-1,"name":null,"day":"1969-12-31","at":"1969-12-31T23:59:59.999999","price":"-0.01","tags":[]})");
  // Fetched once, though two values (and a second source below) use it.
  ASSERT_OK_AND_ASSIGN(auto again, ConfluentAvroValues::Make(Options(), avro::JsonDialect::kRow));
  ASSERT_OK(again->Append(values[0], &out, &why));
  EXPECT_EQ(registry_->Requests("GET /schemas/ids/1"), 1);
}

TEST_F(ConfluentValues, DamagedValuesAreRejectedWithTheirReason) {
  auto values = Encode("rows", kSchema, R"({"id":1,"name":null,"day":0,"at":0,"price":"00","tags":[]})" "\n");
  ASSERT_EQ(values.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto v, ConfluentAvroValues::Make(Options(), avro::JsonDialect::kRow));
  const std::string good = values[0];
  auto rejected = [&](const std::string& value) {
    std::string out = "kept", why;
    EXPECT_OK(v->Append(value, &out, &why));
    EXPECT_EQ(out, "kept");
    return why;
  };
  EXPECT_NE(rejected(R"({"id":1})").find("not the magic byte 0x00"), std::string::npos);
  EXPECT_NE(rejected(good.substr(0, 3)).find("shorter than the 5-byte header"), std::string::npos);
  EXPECT_NE(rejected(good.substr(0, good.size() - 1)).find("schema id 1: field 'tags': avro: truncated"), std::string::npos)
      << rejected(good.substr(0, good.size() - 1));
  EXPECT_NE(rejected(good + "zz").find("schema id 1: avro: 2 bytes follow the datum"), std::string::npos);
  const std::string unknown = avro::ConfluentHeader(77) + good.substr(5);
  const std::string why = rejected(unknown);
  EXPECT_NE(why.find("schema registry " + registry_->url() + "/schemas/ids/77: no schema with id 77 (HTTP 404"),
            std::string::npos)
      << why;
  // The answer is kept: the second value of id 77 asks no more.
  rejected(unknown);
  EXPECT_EQ(registry_->Requests("GET /schemas/ids/77"), 1);
}

TEST_F(ConfluentValues, RegistryFailuresNameTheUrlAndId) {
  // Wrong credentials: the job's error, not the message's.
  SchemaRegistryOptions wrong = Options();
  wrong.user_info = "reader:wrong";
  ASSERT_OK_AND_ASSIGN(auto c, SchemaRegistryClient::Make(wrong));
  EXPECT_THAT(c->Get(1), testing::AllOf(IsError(ErrorKind::kIo),
                                         HasErrorMessage(registry_->url() + "/schemas/ids/1: HTTP 401 (Unauthorized)")));
  EXPECT_EQ(c->Get(1).error().message.find("wrong"), std::string::npos);  // never the password
  SchemaRegistryOptions none = Options();
  none.user_info.clear();
  ASSERT_OK_AND_ASSIGN(auto n, SchemaRegistryClient::Make(none));
  EXPECT_THAT(n->Get(1), HasErrorMessage("none were given"));
  // Credentials from the URL.
  SchemaRegistryOptions from_url = Options();
  from_url.user_info.clear();
  from_url.credentials_source = "URL";
  from_url.url = "http://reader:s3cret@" + registry_->url().substr(7);
  ASSERT_OK_AND_ASSIGN(auto u, SchemaRegistryClient::Make(from_url));
  EXPECT_THAT(u->Get(5), testing::AllOf(IsError(ErrorKind::kNotFound), HasErrorMessage("no schema with id 5")));
  EXPECT_EQ(u->shown_url(), registry_->url());
  // Nobody listening.
  SchemaRegistryOptions gone = Options();
  gone.url = "http://127.0.0.1:1";
  ASSERT_OK_AND_ASSIGN(auto g, SchemaRegistryClient::Make(gone));
  EXPECT_THAT(g->Get(3), testing::AllOf(IsError(ErrorKind::kIo), HasErrorMessage("schema registry http://127.0.0.1:1/schemas/ids/3: ")));
  // A schema of another type.
  const std::string post = "curl -s -u reader:s3cret -H 'Content-Type: application/json' -d " +
                           test::ShellQuote(R"({"schema":"syntax = \"proto3\";","schemaType":"PROTOBUF"})") + " " +
                           test::ShellQuote(registry_->url() + "/subjects/p-value/versions") + " > /dev/null";
  ASSERT_EQ(std::system(post.c_str()), 0);
  ASSERT_OK_AND_ASSIGN(auto p, SchemaRegistryClient::Make(Options()));
  EXPECT_THAT(p->Get(1), testing::AllOf(IsError(ErrorKind::kUnsupported), HasErrorMessage("schema id 1 is a PROTOBUF schema")));
  // The answer kept for those credentials is not handed to a client whose
  // credentials the registry refuses.
  EXPECT_THAT(c->Get(1), HasErrorMessage("HTTP 401"));
}

TEST(SchemaRegistryOptionsCheck, RefusesWhatIsNotImplementedOrMalformed) {
  SchemaRegistryOptions o;
  EXPECT_THAT(ValidateSchemaRegistryOptions(o), HasErrorMessage("no URL"));
  o.url = "registry:8081";
  EXPECT_THAT(ValidateSchemaRegistryOptions(o), HasErrorMessage("expected http://host:port"));
  o.url = "http://registry:8081";
  o.user_info = "nocolon";
  EXPECT_THAT(ValidateSchemaRegistryOptions(o), HasErrorMessage("must be user:password"));
  o.user_info = "a:b";
  o.credentials_source = "SASL_INHERIT";
  EXPECT_THAT(ValidateSchemaRegistryOptions(o), IsError(ErrorKind::kUnsupported));
  o.credentials_source = "url";
  EXPECT_THAT(ValidateSchemaRegistryOptions(o), HasErrorMessage("give one of them"));
  o.credentials_source = "user_info";
  EXPECT_OK(ValidateSchemaRegistryOptions(o));
}

}  // namespace confluent_values_test
}  // namespace floe::kafka
