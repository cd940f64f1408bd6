// S3 configuration from catalog properties (Iceberg's S3FileIO names) and the
// AWS_* environment fallback: each property changes what the client does.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "floe/s3/s3_file_io.h"
#include "testing/fault_proxy.h"
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

TEST(S3Config, RetryAndTimeoutPropertiesSetTheClient) {
  const std::map<std::string, std::string> creds = {{"s3.access-key-id", "PK"},
                                                    {"s3.secret-access-key", "PS"}};
  auto defaults = S3ConfigFromProperties(creds);
  ASSERT_TRUE(defaults) << defaults.error().ToString();
  EXPECT_EQ(defaults->max_attempts, 5);
  EXPECT_EQ(defaults->retry_min_wait_ms, 50);
  EXPECT_EQ(defaults->retry_max_wait_ms, 5000);
  EXPECT_EQ(defaults->connect_timeout_ms, 10000);
  EXPECT_EQ(defaults->stall_timeout_ms, 60000);

  auto with = [&](std::map<std::string, std::string> extra) {
    extra.insert(creds.begin(), creds.end());
    return S3ConfigFromProperties(extra);
  };
  auto set = with({{"s3.retry.num-retries", "2"},
                   {"s3.retry.min-wait-ms", "7"},
                   {"s3.retry.max-wait-ms", "70"},
                   {"s3.connection-timeout-ms", "1500"},
                   {"s3.socket-timeout-ms", "3000"}});
  ASSERT_TRUE(set) << set.error().ToString();
  EXPECT_EQ(set->max_attempts, 3);
  EXPECT_EQ(set->retry_min_wait_ms, 7);
  EXPECT_EQ(set->retry_max_wait_ms, 70);
  EXPECT_EQ(set->connect_timeout_ms, 1500);
  EXPECT_EQ(set->stall_timeout_ms, 3000);
  auto never = with({{"s3.retry.num-retries", "0"}});
  ASSERT_TRUE(never);
  EXPECT_EQ(never->max_attempts, 1);

  // Bad values are refused naming the option and the value.
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"s3.retry.num-retries", "-1"},
           {"s3.retry.num-retries", "many"},
           {"s3.retry.min-wait-ms", "-5"},
           {"s3.socket-timeout-ms", "10"},
           {"s3.connection-timeout-ms", "0"}}) {
    auto bad = with({{key, value}});
    ASSERT_FALSE(bad) << key << "=" << value;
    EXPECT_NE(bad.error().message.find(key), std::string::npos) << bad.error().message;
  }
  auto inverted = with({{"s3.retry.min-wait-ms", "100"}, {"s3.retry.max-wait-ms", "10"}});
  ASSERT_FALSE(inverted);
  EXPECT_NE(inverted.error().message.find("s3.retry.max-wait-ms=10"), std::string::npos)
      << inverted.error().message;
  EXPECT_NE(inverted.error().message.find("s3.retry.min-wait-ms=100"), std::string::npos)
      << inverted.error().message;
}

TEST(S3Config, RetryWaitsStayBetweenTheMinimumAndTheDoublingCap) {
  S3Config c;
  c.retry_min_wait_ms = 10;
  c.retry_max_wait_ms = 50;
  std::set<int64_t> first;
  for (int i = 0; i < 400; ++i) {
    const int64_t w1 = RetryWaitMs(c, 1);
    EXPECT_GE(w1, 10);
    EXPECT_LE(w1, 20);  // min * 2
    first.insert(w1);
    const int64_t w3 = RetryWaitMs(c, 3);
    EXPECT_GE(w3, 10);
    EXPECT_LE(w3, 50);  // min * 8, capped at max
    EXPECT_LE(RetryWaitMs(c, 30), 50);
  }
  EXPECT_GT(first.size(), 3u) << "the waits are jittered";
  c.retry_min_wait_ms = 0;
  c.retry_max_wait_ms = 0;
  EXPECT_EQ(RetryWaitMs(c, 5), 0);
  // Huge settings do not overflow the doubling.
  c.retry_min_wait_ms = int64_t{1} << 60;
  c.retry_max_wait_ms = int64_t{1} << 61;
  const int64_t huge = RetryWaitMs(c, 20);
  EXPECT_GE(huge, c.retry_min_wait_ms);
  EXPECT_LE(huge, c.retry_max_wait_ms);
}

TEST(S3Config, NumRetriesIsHowOftenAFailedRequestIsSentAgain) {
  auto server = test::S3TestServer::Start();
  ASSERT_TRUE(server) << server.error().ToString();
  auto proxy = test::FaultProxy::Start((*server)->endpoint());
  ASSERT_TRUE(proxy) << proxy.error().ToString();
  (*proxy)->AddRule({.method = "HEAD", .action = test::FaultAction::kError, .status = 503});
  for (const auto& [retries, requests] : std::vector<std::pair<std::string, int64_t>>{{"0", 1}, {"2", 3}}) {
    auto props = (*server)->CatalogProperties();
    props["s3.endpoint"] = (*proxy)->endpoint();
    props["s3.retry.num-retries"] = retries;
    props["s3.retry.min-wait-ms"] = "1";
    props["s3.retry.max-wait-ms"] = "2";
    auto config = S3ConfigFromProperties(props);
    ASSERT_TRUE(config) << config.error().ToString();
    auto client = std::make_shared<S3Client>(*config);
    auto st = MakeS3FileIO(client)->NewInput("s3://" + (*server)->bucket() + "/k");
    ASSERT_FALSE(st);
    EXPECT_TRUE(st.error().retryable);
    EXPECT_EQ(client->requests("HEAD"), requests) << "s3.retry.num-retries=" << retries;
  }
}

TEST(S3Config, RetryWaitsAreTakenBetweenTheAttempts) {
  auto server = test::S3TestServer::Start();
  ASSERT_TRUE(server) << server.error().ToString();
  auto proxy = test::FaultProxy::Start((*server)->endpoint());
  ASSERT_TRUE(proxy) << proxy.error().ToString();
  (*proxy)->AddRule({.method = "HEAD", .action = test::FaultAction::kError, .status = 503});
  auto props = (*server)->CatalogProperties();
  props["s3.endpoint"] = (*proxy)->endpoint();
  props["s3.retry.num-retries"] = "2";
  props["s3.retry.min-wait-ms"] = "150";
  props["s3.retry.max-wait-ms"] = "150";  // each wait exactly 150 ms
  auto config = S3ConfigFromProperties(props);
  ASSERT_TRUE(config) << config.error().ToString();
  const auto start = std::chrono::steady_clock::now();
  auto st = MakeS3FileIO(std::make_shared<S3Client>(*config))->NewInput("s3://" + (*server)->bucket() + "/k");
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(st);
  EXPECT_GE(took, std::chrono::milliseconds(300)) << "two waits of s3.retry.min-wait-ms";
}

TEST(S3Config, ConnectionTimeoutFailsAConnectThatHangs) {
  // A listener whose accept queue is full (backlog 0, one connection never
  // accepted): the kernel drops further SYNs, so a connect hangs.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(fd, 0), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
  std::vector<int> fillers;
  for (int i = 0; i < 2; ++i) {
    int c = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    (void)::connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a);
    fillers.push_back(c);
  }
  const std::string endpoint = "http://127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  auto config = S3ConfigFromProperties({{"s3.endpoint", endpoint},
                                        {"s3.access-key-id", "PK"},
                                        {"s3.secret-access-key", "PS"},
                                        {"s3.path-style-access", "true"},
                                        {"s3.retry.num-retries", "0"},
                                        {"s3.connection-timeout-ms", "300"}});
  ASSERT_TRUE(config) << config.error().ToString();
  const auto start = std::chrono::steady_clock::now();
  auto st = MakeS3FileIO(std::make_shared<S3Client>(*config))->NewInput("s3://b/k");
  const auto took = std::chrono::steady_clock::now() - start;
  for (int c : fillers) ::close(c);
  ::close(fd);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("s3.connection-timeout-ms=300"), std::string::npos) << st.error().message;
  EXPECT_LT(took, std::chrono::seconds(5)) << "the 10 s default";
}

TEST(S3Config, SocketTimeoutFailsAStalledRequestNamingTheOption) {
  auto server = test::S3TestServer::Start();
  ASSERT_TRUE(server) << server.error().ToString();
  auto props = (*server)->CatalogProperties();
  props["s3.socket-timeout-ms"] = "1000";
  props["s3.retry.num-retries"] = "0";
  auto config = S3ConfigFromProperties(props);
  ASSERT_TRUE(config) << config.error().ToString();
  auto fio = MakeS3FileIO(std::make_shared<S3Client>(*config));
  (*server)->Pause();
  // An upload whose body goes out at once, then nothing comes back: libcurl's
  // own low-speed check, averaging over seconds, failed it 7 s later.
  const auto start = std::chrono::steady_clock::now();
  Status st = io::WriteFile(*fio, "s3://" + (*server)->bucket() + "/k", std::string(3000, 'x'));
  const auto took = std::chrono::steady_clock::now() - start;
  (*server)->Resume();
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("the store stalled: no byte moved for 1000 ms (s3.socket-timeout-ms=1000)"),
            std::string::npos)
      << st.error().message;
  // About the time-out (checked about once a second), not the 60 s default.
  EXPECT_LT(took, std::chrono::seconds(5));
}

}  // namespace s3_config_test
}  // namespace floe::s3
