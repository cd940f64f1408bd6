// S3 configuration from catalog properties (Iceberg's S3FileIO names) and the
// AWS_* environment fallback: each property changes what the client does.
#include <gtest/gtest.h>

#include <cstdlib>

#include "floe/s3/s3_file_io.h"
#include "testing/s3_server.h"

namespace floe::s3 {
namespace s3_config_test {

// Sets or clears environment variables for one test, restoring them after.
class EnvGuard {
 public:
  EnvGuard(std::initializer_list<std::pair<const char*, const char*>> vars) {
    for (auto [k, v] : vars) {
      const char* old = std::getenv(k);
      saved_.emplace_back(k, old ? std::optional<std::string>(old) : std::nullopt);
      if (v) ::setenv(k, v, 1);
      else ::unsetenv(k);
    }
  }
  ~EnvGuard() {
    for (auto& [k, v] : saved_) {
      if (v) ::setenv(k.c_str(), v->c_str(), 1);
      else ::unsetenv(k.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(S3Config, PropertiesAndTheEnvironmentFallback) {
  EnvGuard env({{"AWS_ACCESS_KEY_ID", "ENVKEY"},
                {"AWS_SECRET_ACCESS_KEY", "ENVSECRET"},
                {"AWS_SESSION_TOKEN", "ENVTOKEN"},
                {"AWS_REGION", "eu-north-1"},
                {"AWS_DEFAULT_REGION", nullptr}});
  auto from_env = S3ConfigFromProperties({});
  ASSERT_TRUE(from_env) << from_env.error().ToString();
  EXPECT_EQ(from_env->credentials.access_key_id, "ENVKEY");
  EXPECT_EQ(from_env->credentials.secret_access_key, "ENVSECRET");
  EXPECT_EQ(from_env->credentials.session_token, "ENVTOKEN");
  EXPECT_EQ(from_env->region, "eu-north-1");
  EXPECT_FALSE(from_env->path_style);
  EXPECT_EQ(from_env->part_size, 32 << 20);
  // Without an endpoint: AWS's, virtual-host addressed, in the region.
  S3Request r;
  r.method = "GET";
  r.bucket = "b";
  r.key = "k";
  EXPECT_EQ(S3Client(*from_env).UrlOf(r).first, "https://b.s3.eu-north-1.amazonaws.com/k");

  // Properties win, the credentials as a set (no env token with property keys).
  auto props = S3ConfigFromProperties({{"s3.endpoint", "http://127.0.0.1:9/"},
                                       {"s3.access-key-id", "PK"},
                                       {"s3.secret-access-key", "PS"},
                                       {"s3.path-style-access", "true"},
                                       {"client.region", "ap-east-1"},
                                       {"s3.multipart.part-size-bytes", "6000000"}});
  ASSERT_TRUE(props) << props.error().ToString();
  EXPECT_EQ(props->credentials.access_key_id, "PK");
  EXPECT_EQ(props->credentials.session_token, "");
  EXPECT_EQ(props->region, "ap-east-1");
  EXPECT_EQ(props->part_size, 6000000);
  EXPECT_EQ(S3Client(*props).UrlOf(r).first, "http://127.0.0.1:9/b/k");
  auto token = S3ConfigFromProperties(
      {{"s3.access-key-id", "PK"}, {"s3.secret-access-key", "PS"}, {"s3.session-token", "PT"}});
  ASSERT_TRUE(token);
  EXPECT_EQ(token->credentials.session_token, "PT");

  // Errors name the option.
  auto half = S3ConfigFromProperties({{"s3.access-key-id", "PK"}});
  ASSERT_FALSE(half);
  EXPECT_NE(half.error().message.find("s3.secret-access-key"), std::string::npos);
  auto small = S3ConfigFromProperties({{"s3.multipart.part-size-bytes", "1000"}});
  ASSERT_FALSE(small);
  EXPECT_NE(small.error().message.find("s3.multipart.part-size-bytes"), std::string::npos);
  auto endpoint = S3ConfigFromProperties({{"s3.endpoint", "127.0.0.1:9000"}});
  ASSERT_FALSE(endpoint);
  EXPECT_NE(endpoint.error().message.find("s3.endpoint"), std::string::npos);
  auto path_style = S3ConfigFromProperties({{"s3.path-style-access", "maybe"}});
  ASSERT_FALSE(path_style);
  EXPECT_NE(path_style.error().message.find("s3.path-style-access"), std::string::npos);
}

TEST(S3Config, NoCredentialsAnywhereIsRefused) {
  EnvGuard env({{"AWS_ACCESS_KEY_ID", nullptr}, {"AWS_SECRET_ACCESS_KEY", nullptr}, {"AWS_SESSION_TOKEN", nullptr}});
  auto c = S3ConfigFromProperties({});
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("s3.access-key-id"), std::string::npos);
  EXPECT_NE(c.error().message.find("AWS_ACCESS_KEY_ID"), std::string::npos);
}

TEST(S3Config, PartSizePropertySetsTheMultipartParts) {
  auto server = test::S3TestServer::Start();
  ASSERT_TRUE(server) << server.error().ToString();
  auto props = (*server)->CatalogProperties();
  props["s3.multipart.part-size-bytes"] = "5242880";
  props["s3.session-token"] = "a-session-token";  // sent as x-amz-security-token; the test server ignores it
  auto config = S3ConfigFromProperties(props);
  ASSERT_TRUE(config);
  auto client = std::make_shared<S3Client>(*config);
  auto fio = MakeS3FileIO(client);
  const std::string loc = "s3://" + (*server)->bucket() + "/parts/f.bin";
  std::string data((11 << 20) + 1, 'x');
  auto out = fio->NewOutput(loc, {});
  ASSERT_TRUE(out);
  ASSERT_TRUE((*out)->Write(data.data(), data.size()));
  ASSERT_TRUE((*out)->Commit());
  EXPECT_EQ(client->requests("PUT"), 3);  // 5 MiB + 5 MiB + 1 MiB
  auto in = fio->NewInput(loc);
  ASSERT_TRUE(in);
  EXPECT_EQ((*in)->Size(), static_cast<int64_t>(data.size()));
}

}  // namespace s3_config_test
}  // namespace floe::s3
