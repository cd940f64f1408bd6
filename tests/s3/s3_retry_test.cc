// Retries and unknown outcomes, through a small fault-injecting HTTP proxy in
// front of the S3 test server: a 503 is retried with backoff; a conditional
// publish whose answer is lost is sent again, and the 412 that follows is
// told apart by reading the object back (our bytes: published; other bytes:
// another writer won); when every answer is lost the outcome is
// kCommitStateUnknown, never success or a plain failure.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>

#include "floe/s3/s3_file_io.h"
#include "testing/s3_server.h"

namespace floe::s3 {
namespace s3_retry_test {

// What the proxy does with one request (method, target), given how many
// requests came before it.
enum class Fault { kPass, kDropReply, kDropRequest, k503 };
using Rule = std::function<Fault(const std::string& method, int index)>;

class FaultProxy {
 public:
  FaultProxy(int upstream_port, Rule rule) : upstream_(upstream_port), rule_(std::move(rule)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 16);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    accept_ = std::thread([this] { Accept(); });
  }
  ~FaultProxy() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    accept_.join();
    std::lock_guard lock(mu_);
    for (auto& t : conns_) t.join();
  }
  int port() const { return port_; }

 private:
  void Accept() {
    while (!stop_) {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::lock_guard lock(mu_);
      conns_.emplace_back([this, c] { Serve(c); });
    }
  }

  // One HTTP/1.1 message (headers + Content-Length body) from `fd`.
  static bool ReadMessage(int fd, std::string* buf, std::string* msg, bool head_response = false) {
    while (true) {
      auto end = buf->find("\r\n\r\n");
      if (end != std::string::npos) {
        size_t length = 0;
        std::string lower = buf->substr(0, end);
        for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        auto cl = lower.find("content-length:");
        if (cl != std::string::npos && !head_response) length = std::stoul(lower.substr(cl + 15));
        if (buf->size() >= end + 4 + length) {
          *msg = buf->substr(0, end + 4 + length);
          buf->erase(0, end + 4 + length);
          return true;
        }
      }
      char tmp[65536];
      ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
      if (n <= 0) return false;
      buf->append(tmp, static_cast<size_t>(n));
    }
  }

  void Serve(int client) {
    int up = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(upstream_));
    if (::connect(up, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(client);
      ::close(up);
      return;
    }
    std::string cbuf, ubuf, req, resp;
    while (ReadMessage(client, &cbuf, &req)) {
      const std::string method = req.substr(0, req.find(' '));
      const Fault f = rule_(method, index_++);
      if (f == Fault::kDropRequest) break;
      if (f == Fault::k503) {
        const std::string body = "<Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>";
        std::string r = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: " + std::to_string(body.size()) +
                        "\r\n\r\n" + body;
        ::send(client, r.data(), r.size(), MSG_NOSIGNAL);
        continue;
      }
      ::send(up, req.data(), req.size(), MSG_NOSIGNAL);
      if (!ReadMessage(up, &ubuf, &resp, method == "HEAD")) break;
      if (f == Fault::kDropReply) break;  // applied upstream, the answer lost
      ::send(client, resp.data(), resp.size(), MSG_NOSIGNAL);
    }
    ::close(client);
    ::close(up);
  }

  int upstream_;
  Rule rule_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> index_{0};
  std::thread accept_;
  std::mutex mu_;
  std::vector<std::thread> conns_;
};

class S3RetryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto s = test::S3TestServer::Start();
    ASSERT_TRUE(s) << s.error().ToString();
    server_ = s->release();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(server_, nullptr); }

  // A FileIO through `proxy` (fast backoff), and one straight to the server.
  std::shared_ptr<S3Client> Through(const FaultProxy& proxy, int attempts = 4) {
    auto c = S3ConfigFromProperties(server_->CatalogProperties());
    EXPECT_TRUE(c);
    c->endpoint = "http://127.0.0.1:" + std::to_string(proxy.port());
    c->retry_min_wait_ms = 1;
    c->retry_max_wait_ms = 5;
    c->max_attempts = attempts;
    return std::make_shared<S3Client>(*c);
  }
  io::FileIOPtr Direct() {
    auto c = S3ConfigFromProperties(server_->CatalogProperties());
    EXPECT_TRUE(c);
    return MakeS3FileIO(std::make_shared<S3Client>(*c));
  }
  std::string L(const std::string& rel) const {
    return "s3://" + server_->bucket() + "/" + ::testing::UnitTest::GetInstance()->current_test_info()->name() +
           "/" + rel;
  }
  static test::S3TestServer* server_;
};

test::S3TestServer* S3RetryTest::server_ = nullptr;

TEST_F(S3RetryTest, ServerErrorsAreRetriedWithBackoff) {
  ASSERT_TRUE(WriteFile(*Direct(), L("f"), "hello"));
  FaultProxy proxy(server_->port(), [](const std::string&, int i) { return i < 2 ? Fault::k503 : Fault::kPass; });
  auto client = Through(proxy);
  auto text = io::ReadFile(*MakeS3FileIO(client), L("f"));
  ASSERT_TRUE(text) << text.error().ToString();
  EXPECT_EQ(*text, "hello");
  EXPECT_EQ(client->requests(), 4);  // HEAD 503, HEAD 503, HEAD, GET

  // Attempts run out: the error says how often and what the store said.
  FaultProxy always(server_->port(), [](const std::string&, int) { return Fault::k503; });
  auto failing = Through(always, 3);
  auto st = MakeS3FileIO(failing)->ListFolder(L(""));  // a GET: S3's error body is read
  ASSERT_FALSE(st);
  EXPECT_EQ(failing->requests(), 3);
  EXPECT_NE(st.error().message.find("503"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("SlowDown"), std::string::npos) << st.error().message;
  EXPECT_TRUE(st.error().retryable);
}

TEST_F(S3RetryTest, APublishWhoseAnswerIsLostIsResolvedByReadingBack) {
  // The first PUT lands but its answer is lost; the second gets 412, and
  // the object holds our bytes: published.
  FaultProxy proxy(server_->port(), [](const std::string& m, int i) {
    return m == "PUT" && i == 0 ? Fault::kDropReply : Fault::kPass;
  });
  auto fio = MakeS3FileIO(Through(proxy));
  ASSERT_TRUE(fio->PublishIfAbsent(L("v1.metadata.json"), "ours", false));
  EXPECT_EQ(*io::ReadFile(*Direct(), L("v1.metadata.json")), "ours");

  // The request is lost before the store sees it: the retry publishes.
  FaultProxy lost(server_->port(), [](const std::string& m, int i) {
    return m == "PUT" && i == 0 ? Fault::kDropRequest : Fault::kPass;
  });
  ASSERT_TRUE(MakeS3FileIO(Through(lost))->PublishIfAbsent(L("v2.metadata.json"), "ours", false));
  EXPECT_EQ(*io::ReadFile(*Direct(), L("v2.metadata.json")), "ours");
}

TEST_F(S3RetryTest, ALostAnswerThenAnotherWritersObjectIsAlreadyExists) {
  ASSERT_TRUE(Direct()->PublishIfAbsent(L("v1.metadata.json"), "theirs", false));
  FaultProxy proxy(server_->port(), [](const std::string& m, int i) {
    return m == "PUT" && i == 0 ? Fault::kDropReply : Fault::kPass;
  });
  auto st = MakeS3FileIO(Through(proxy))->PublishIfAbsent(L("v1.metadata.json"), "ours", false);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kAlreadyExists) << st.error().ToString();
  EXPECT_EQ(*io::ReadFile(*Direct(), L("v1.metadata.json")), "theirs");
}

TEST_F(S3RetryTest, AMultipartCompletionWhoseAnswerIsLostIsResolvedByTheEtag) {
  // Requests: POST create, two part PUTs, POST complete (its answer lost),
  // then the complete again (412: the object exists), then a HEAD.
  std::atomic<int> posts{0};
  FaultProxy proxy(server_->port(), [&](const std::string& m, int) {
    return m == "POST" && ++posts == 2 ? Fault::kDropReply : Fault::kPass;
  });
  auto client = Through(proxy);
  S3Config c = client->config();
  c.part_size = 5 << 20;
  auto fio = MakeS3FileIO(std::make_shared<S3Client>(c));
  std::string data((5 << 20) + 100, 'y');
  data[7] = 'z';
  auto out = fio->NewOutput(L("big"), {});
  ASSERT_TRUE(out);
  ASSERT_TRUE((*out)->Write(data.data(), data.size()));
  auto st = (*out)->Commit();
  // The upload's token in the object's metadata tells that the object is
  // this upload's, on s3rver too (whose ETag, the MD5 of the whole object,
  // could not tell): success, never kAlreadyExists.
  ASSERT_TRUE(st) << st.error().ToString();
  EXPECT_EQ(posts.load(), 3);
  EXPECT_TRUE(*io::ReadFile(*Direct(), L("big")) == data);
}

TEST_F(S3RetryTest, EveryAnswerLostIsCommitStateUnknown) {
  FaultProxy proxy(server_->port(), [](const std::string& m, int) {
    return m == "PUT" ? Fault::kDropReply : Fault::kPass;
  });
  auto client = Through(proxy, 3);
  auto st = MakeS3FileIO(client)->PublishIfAbsent(L("v1.metadata.json"), "ours", false);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kCommitStateUnknown) << st.error().ToString();
  EXPECT_NE(st.error().message.find(L("v1.metadata.json")), std::string::npos) << st.error().message;
  EXPECT_EQ(client->requests("PUT"), 3);
}

}  // namespace s3_retry_test
}  // namespace floe::s3
