// The fault proxy itself (tests/testing/fault_proxy.h), between libcurl (the
// client the S3 FileIO uses) and a small in-test HTTP server that records
// what reaches it: every action does what it says and nothing else, requests
// keep their connection (keep-alive), chunked and Content-Length bodies and
// answers that end at close go through unchanged, and the rules' matchers,
// skip, times and seeded probability select the requests they should.
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "testing/fault_proxy.h"

namespace fault_proxy_test {

using floe::test::FaultAction;
using floe::test::FaultProxy;
using floe::test::FaultRule;

/// A tiny HTTP/1.1 object server: PUT /obj/NAME stores the (de-chunked)
/// body, GET / HEAD /obj/NAME answers it (404 when absent), GET /chunked
/// answers in chunks, GET /close answers without a length and closes. Every
/// request is recorded with the number of its connection.
class Upstream {
 public:
  struct Seen {
    int connection;
    std::string method, target;
    std::map<std::string, std::string> headers;  // lower-case names
    std::string body;
  };

  Upstream() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd_, 16), 0);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    acceptor_ = std::thread([this] {
      for (int n = 0;; ++n) {
        int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        std::lock_guard lock(mu_);
        if (stopping_) {
          ::close(c);
          return;
        }
        clients_.push_back(c);
        threads_.emplace_back([this, c, n] { Serve(c, n); });
      }
    });
  }
  ~Upstream() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
      for (int c : clients_) ::shutdown(c, SHUT_RDWR);
    }
    ::shutdown(fd_, SHUT_RDWR);
    acceptor_.join();
    for (auto& t : threads_) t.join();
    for (int c : clients_) ::close(c);
    ::close(fd_);
  }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  std::vector<Seen> seen() {
    std::lock_guard lock(mu_);
    return seen_;
  }
  int connections() {
    std::lock_guard lock(mu_);
    return static_cast<int>(clients_.size());
  }
  std::string object(const std::string& name) {
    std::lock_guard lock(mu_);
    return objects_.contains(name) ? objects_[name] : "<absent>";
  }

 private:
  // Reads until `buf` holds `n` bytes; false at EOF.
  static bool Need(int c, std::string& buf, size_t n) {
    char tmp[65536];
    while (buf.size() < n) {
      ssize_t r = ::recv(c, tmp, sizeof tmp, 0);
      if (r <= 0) return false;
      buf.append(tmp, static_cast<size_t>(r));
    }
    return true;
  }
  static bool NeedLine(int c, std::string& buf, std::string* line) {
    size_t nl;
    while ((nl = buf.find("\r\n")) == std::string::npos) {
      if (!Need(c, buf, buf.size() + 1)) return false;
    }
    *line = buf.substr(0, nl);
    buf.erase(0, nl + 2);
    return true;
  }
  static void Send(int c, const std::string& s) {
    (void)::send(c, s.data(), s.size(), MSG_NOSIGNAL);
  }

  void Serve(int c, int connection) {
    std::string buf;
    for (;;) {
      Seen s;
      s.connection = connection;
      std::string line;
      if (!NeedLine(c, buf, &line)) return;
      s.method = line.substr(0, line.find(' '));
      s.target = line.substr(line.find(' ') + 1, line.rfind(' ') - line.find(' ') - 1);
      for (;;) {
        if (!NeedLine(c, buf, &line)) return;
        if (line.empty()) break;
        std::string k = line.substr(0, line.find(':'));
        for (char& ch : k) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        s.headers[k] = line.substr(line.find(':') + 2);
      }
      if (s.headers["transfer-encoding"] == "chunked") {
        for (;;) {
          if (!NeedLine(c, buf, &line)) return;
          size_t size = std::stoul(line, nullptr, 16);
          if (size == 0) {
            if (!NeedLine(c, buf, &line)) return;
            break;
          }
          if (!Need(c, buf, size + 2)) return;
          s.body += buf.substr(0, size);
          buf.erase(0, size + 2);
        }
      } else if (s.headers.contains("content-length")) {
        size_t n = std::stoul(s.headers["content-length"]);
        if (!Need(c, buf, n)) return;
        s.body = buf.substr(0, n);
        buf.erase(0, n);
      }
      std::string answer;
      bool close = false;
      {
        std::lock_guard lock(mu_);
        seen_.push_back(s);
        const std::string name = s.target.substr(0, s.target.find('?'));
        if (s.method == "PUT" && name.starts_with("/obj/")) {
          objects_[name.substr(5)] = s.body;
          answer = "HTTP/1.1 200 OK\r\nETag: \"e\"\r\nContent-Length: 0\r\n\r\n";
        } else if ((s.method == "GET" || s.method == "HEAD") && name.starts_with("/obj/")) {
          auto it = objects_.find(name.substr(5));
          if (it == objects_.end()) {
            answer = "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\n";
            if (s.method == "GET") answer += "not found";
          } else {
            answer = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(it->second.size()) +
                     "\r\n\r\n";
            if (s.method == "GET") answer += it->second;
          }
        } else if (s.target == "/chunked") {
          answer =
              "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n "
              "world\r\n0\r\n\r\n";
        } else if (s.target == "/close") {
          answer = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end";
          close = true;
        } else {
          answer = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
        }
      }
      Send(c, answer);
      if (close) {
        ::shutdown(c, SHUT_RDWR);
        return;
      }
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::thread acceptor_;
  std::mutex mu_;
  bool stopping_ = false;
  std::vector<int> clients_;
  std::list<std::thread> threads_;
  std::vector<Seen> seen_;
  std::map<std::string, std::string> objects_;
};

struct Answer {
  CURLcode code = CURLE_OK;
  long status = 0;
  std::string body;
};

/// One client with a kept connection (one easy handle reused).
class Client {
 public:
  Client() : curl_(curl_easy_init()) {}
  ~Client() { curl_easy_cleanup(curl_); }

  /// `chunked`: upload without a length (Transfer-Encoding: chunked).
  Answer Do(const std::string& method, const std::string& url, const std::string& body = "",
            std::vector<std::string> headers = {}, bool chunked = false) {
    Answer a;
    curl_easy_reset(curl_);
    curl_easy_setopt(curl_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, &Client::Collect);
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &a.body);
    upload_ = body;
    upload_pos_ = 0;
    if (method == "PUT") {
      curl_easy_setopt(curl_, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(curl_, CURLOPT_READFUNCTION, &Client::Feed);
      curl_easy_setopt(curl_, CURLOPT_READDATA, this);
      if (chunked) {
        headers.push_back("Transfer-Encoding: chunked");
      } else {
        curl_easy_setopt(curl_, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(body.size()));
      }
    } else if (method == "HEAD") {
      curl_easy_setopt(curl_, CURLOPT_NOBODY, 1L);
    }
    curl_slist* list = nullptr;
    for (const auto& h : headers) list = curl_slist_append(list, h.c_str());
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, list);
    a.code = curl_easy_perform(curl_);
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &a.status);
    curl_slist_free_all(list);
    return a;
  }

 private:
  static size_t Collect(char* p, size_t size, size_t n, void* out) {
    static_cast<std::string*>(out)->append(p, size * n);
    return size * n;
  }
  static size_t Feed(char* p, size_t size, size_t n, void* self_v) {
    auto* self = static_cast<Client*>(self_v);
    // Small pieces, so a chunked upload has several chunks.
    size_t k = std::min({size * n, self->upload_.size() - self->upload_pos_, size_t{7000}});
    std::memcpy(p, self->upload_.data() + self->upload_pos_, k);
    self->upload_pos_ += k;
    return k;
  }

  CURL* curl_;
  std::string upload_;
  size_t upload_pos_ = 0;
};

class FaultProxyTest : public testing::Test {
 protected:
  void SetUp() override {
    auto p = FaultProxy::Start("http://" + upstream_.address(), 7);
    ASSERT_TRUE(p) << p.error().message;
    proxy_ = std::move(*p);
  }
  std::string Url(const std::string& target) { return proxy_->endpoint() + target; }

  Upstream upstream_;
  std::unique_ptr<FaultProxy> proxy_;
  Client client_;
};

TEST_F(FaultProxyTest, PassesRequestsOnOneKeptConnection) {
  for (int i = 0; i < 3; ++i) {
    const std::string name = "/obj/k" + std::to_string(i);
    Answer put = client_.Do("PUT", Url(name), "body " + std::to_string(i));
    ASSERT_EQ(put.code, CURLE_OK) << curl_easy_strerror(put.code);
    EXPECT_EQ(put.status, 200);
    Answer get = client_.Do("GET", Url(name));
    EXPECT_EQ(get.status, 200);
    EXPECT_EQ(get.body, "body " + std::to_string(i));
    Answer head = client_.Do("HEAD", Url(name));
    EXPECT_EQ(head.code, CURLE_OK);
    EXPECT_EQ(head.status, 200);
  }
  Answer missing = client_.Do("GET", Url("/obj/nope"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, "not found");

  const auto c = proxy_->counters();
  EXPECT_EQ(c.connections, 1) << "the client's connection was not kept";
  EXPECT_EQ(c.requests, 10);
  EXPECT_EQ(c.forwarded, 10);
  EXPECT_EQ(c.passed, 10);
  EXPECT_EQ(upstream_.connections(), 1) << "the server connection was not kept";
  EXPECT_EQ(upstream_.seen().size(), 10u);
  EXPECT_EQ(proxy_->ForwardedCount("PUT", "/obj/k1"), 1);
}

TEST_F(FaultProxyTest, ChunkedAndLongBodiesBothWays) {
  std::string big;
  for (int i = 0; big.size() < 300000; ++i) big += std::to_string(i) + ",";
  Answer put = client_.Do("PUT", Url("/obj/big"), big, {}, /*chunked=*/true);
  ASSERT_EQ(put.code, CURLE_OK) << curl_easy_strerror(put.code);
  EXPECT_EQ(put.status, 200);
  EXPECT_EQ(upstream_.seen().back().headers["transfer-encoding"], "chunked");
  EXPECT_EQ(upstream_.object("big"), big) << "the chunked upload arrived changed";

  Answer get = client_.Do("GET", Url("/obj/big"));
  EXPECT_EQ(get.body, big);
  Answer chunked = client_.Do("GET", Url("/chunked"));
  EXPECT_EQ(chunked.code, CURLE_OK);
  EXPECT_EQ(chunked.body, "hello world");
  // A body that ends when the server closes; the next request opens a new
  // server connection.
  Answer to_close = client_.Do("GET", Url("/close"));
  EXPECT_EQ(to_close.code, CURLE_OK);
  EXPECT_EQ(to_close.body, "until the end");
  Answer after = client_.Do("GET", Url("/obj/big"));
  EXPECT_EQ(after.body, big);
  EXPECT_EQ(upstream_.connections(), 2);
}

TEST_F(FaultProxyTest, AnswersExpectContinueItselfAndDoesNotPassItOn) {
  const std::string body(2 << 20, 'x');
  Answer put = client_.Do("PUT", Url("/obj/e"), body, {"Expect: 100-continue"});
  ASSERT_EQ(put.code, CURLE_OK) << curl_easy_strerror(put.code);
  EXPECT_EQ(put.status, 200);
  EXPECT_EQ(upstream_.object("e").size(), body.size());
  EXPECT_FALSE(upstream_.seen().back().headers.contains("expect"));
}

TEST_F(FaultProxyTest, DropClosesBeforeTheServerSeesTheRequest) {
  proxy_->AddRule({.method = "PUT", .path = "/obj/a", .action = FaultAction::kDrop, .times = 1});
  Answer first = client_.Do("PUT", Url("/obj/a"), "one");
  EXPECT_NE(first.code, CURLE_OK) << "a dropped request was answered";
  EXPECT_EQ(upstream_.seen().size(), 0u) << "a dropped request reached the server";
  EXPECT_EQ(upstream_.object("a"), "<absent>");
  Answer second = client_.Do("PUT", Url("/obj/a"), "two");
  EXPECT_EQ(second.code, CURLE_OK);
  EXPECT_EQ(upstream_.object("a"), "two");
  const auto c = proxy_->counters();
  EXPECT_EQ(c.dropped, 1);
  EXPECT_EQ(c.forwarded, 1);
  EXPECT_EQ(c.connections, 2) << "the client reconnects after the drop";
}

TEST_F(FaultProxyTest, ErrorBurstAnswersS3ErrorsThenPasses) {
  proxy_->AddRule({.path = "/obj/", .action = FaultAction::kError, .status = 503, .times = 2});
  for (int i = 0; i < 2; ++i) {
    Answer a = client_.Do("PUT", Url("/obj/b"), "x");
    EXPECT_EQ(a.code, CURLE_OK);
    EXPECT_EQ(a.status, 503);
    EXPECT_NE(a.body.find("<Code>SlowDown</Code>"), std::string::npos) << a.body;
  }
  proxy_->AddRule({.method = "GET", .action = FaultAction::kError, .status = 500, .times = 1});
  Answer put = client_.Do("PUT", Url("/obj/b"), "x");
  EXPECT_EQ(put.status, 200);
  Answer get = client_.Do("GET", Url("/obj/b"));
  EXPECT_EQ(get.status, 500);
  EXPECT_NE(get.body.find("<Code>InternalError</Code>"), std::string::npos) << get.body;
  EXPECT_EQ(client_.Do("GET", Url("/obj/b")).body, "x");
  EXPECT_EQ(upstream_.seen().size(), 2u) << "answered errors must not reach the server";
  EXPECT_EQ(proxy_->counters().errors, 3);
  EXPECT_EQ(proxy_->counters().connections, 1) << "an error answer keeps the connection";
}

TEST_F(FaultProxyTest, DelayHoldsTheAnswer) {
  ASSERT_EQ(client_.Do("PUT", Url("/obj/d"), "slow").status, 200);
  proxy_->AddRule({.method = "GET", .action = FaultAction::kDelay, .delay_ms = 300});
  const auto start = std::chrono::steady_clock::now();
  Answer a = client_.Do("GET", Url("/obj/d"));
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(a.body, "slow");
  // A lower bound only: the proxy sleeps at least this long.
  EXPECT_GE(waited, std::chrono::milliseconds(300));
  EXPECT_EQ(proxy_->counters().delayed, 1);
  EXPECT_EQ(proxy_->counters().passed, 2);
}

TEST_F(FaultProxyTest, DropReplyAppliesTheWriteButTheClientNeverHears) {
  proxy_->AddRule({.method = "PUT", .header = "If-None-Match", .action = FaultAction::kDropReply});
  Answer plain = client_.Do("PUT", Url("/obj/p"), "plain");
  EXPECT_EQ(plain.status, 200) << "a PUT without the header matched";
  Answer cond = client_.Do("PUT", Url("/obj/c"), "conditional", {"If-None-Match: *"});
  EXPECT_NE(cond.code, CURLE_OK) << "the answer was relayed";
  EXPECT_EQ(upstream_.object("c"), "conditional") << "the server did not apply the write";
  EXPECT_EQ(proxy_->counters().dropped_replies, 1);
  const auto log = proxy_->requests();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[1].action, FaultAction::kDropReply);
  EXPECT_EQ(log[1].server_status, 200);
}

TEST_F(FaultProxyTest, ResetMidBodyCutsTheAnswer) {
  const std::string body(100000, 'r');
  ASSERT_EQ(client_.Do("PUT", Url("/obj/r"), body).status, 200);
  proxy_->AddRule({.method = "GET", .action = FaultAction::kResetMidBody, .times = 1});
  Answer cut = client_.Do("GET", Url("/obj/r"));
  EXPECT_NE(cut.code, CURLE_OK) << "a cut answer looked whole";
  EXPECT_LT(cut.body.size(), body.size());
  Answer whole = client_.Do("GET", Url("/obj/r"));
  EXPECT_EQ(whole.code, CURLE_OK);
  EXPECT_EQ(whole.body, body);
  EXPECT_EQ(proxy_->counters().resets, 1);
  EXPECT_EQ(proxy_->ForwardedCount("GET", "/obj/r"), 2) << "a reset answer was forwarded";
}

TEST_F(FaultProxyTest, QuerySkipAndTimesSelectRequests) {
  // Only part 2, and only its second and third attempt.
  proxy_->AddRule({.method = "PUT",
                   .query = "partNumber=2",
                   .action = FaultAction::kError,
                   .status = 500,
                   .skip = 1,
                   .times = 2});
  std::vector<long> part1, part2;
  for (int i = 0; i < 4; ++i) {
    part1.push_back(client_.Do("PUT", Url("/obj/m?partNumber=1&uploadId=u"), "a").status);
    part2.push_back(client_.Do("PUT", Url("/obj/m?partNumber=2&uploadId=u"), "b").status);
  }
  EXPECT_EQ(part1, (std::vector<long>{200, 200, 200, 200}));
  EXPECT_EQ(part2, (std::vector<long>{200, 500, 500, 200}));
}

TEST_F(FaultProxyTest, ProbabilityIsRepeatableForASeed) {
  auto run = [&](uint64_t seed) {
    auto p = FaultProxy::Start("http://" + upstream_.address(), seed);
    EXPECT_TRUE(p);
    (*p)->AddRule({.method = "GET", .action = FaultAction::kError, .probability = 0.3});
    std::string pattern;
    Client c;
    for (int i = 0; i < 60; ++i) {
      pattern += c.Do("GET", (*p)->endpoint() + "/chunked").status == 500 ? 'E' : '.';
    }
    return pattern;
  };
  const std::string a = run(11), b = run(11), c = run(12);
  EXPECT_EQ(a, b) << "the same seed chose other requests";
  EXPECT_NE(a, c) << "another seed chose the same requests";
  const auto errors = std::count(a.begin(), a.end(), 'E');
  EXPECT_GT(errors, 0) << a;
  EXPECT_LT(errors, 60) << a;
}

TEST_F(FaultProxyTest, StopsWithOpenConnectionsAndAWaitingAnswer) {
  ASSERT_EQ(client_.Do("PUT", Url("/obj/s"), "x").status, 200);
  proxy_->AddRule({.action = FaultAction::kDelay, .delay_ms = 60000});
  std::thread waiting([&] {
    Client c;
    Answer a = c.Do("GET", Url("/obj/s"));
    EXPECT_NE(a.code, CURLE_OK);
  });
  while (proxy_->counters().delayed == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  proxy_.reset();  // must not wait the minute out
  waiting.join();
}

}  // namespace fault_proxy_test
