// HttpServer on loopback with raw sockets: keep-alive and requests sent
// ahead, chunked bodies, and every limit (HttpLimits): the body size (413,
// before the body is read when Content-Length says so), the time for headers
// and for a body (408), the open connections (503 at once), and that slow
// clients never delay anyone else.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "floe/server/http_server.h"
#include "floe/util/unique_fd.h"
#include "testing/files.h"

namespace floe::server {
namespace http_server_test {

using Clock = std::chrono::steady_clock;

struct Reply {
  int status = 0;
  std::string head, body;
  bool closed = false;  ///< the server closed the connection after it
};

class HttpServerTest : public testing::Test {
 protected:
  void SetUp() override { dir_ = floe::test::FreshTestDir("floe_http_server_"); }
  void TearDown() override {
    if (server_) server_->Stop();
    if (serving_.joinable()) serving_.join();
    floe::test::RemoveTestDirIfPassed(dir_);
  }

  void Start(HttpLimits limits = {}) {
    ServiceOptions o;
    o.catalog_options["warehouse"] = (dir_ / "wh").string();
    auto s = RestService::Make(o);
    ASSERT_TRUE(s) << s.error().ToString();
    service_ = std::move(*s);
    auto h = HttpServer::Bind(service_.get(), "127.0.0.1", 0, limits);
    ASSERT_TRUE(h) << h.error().ToString();
    server_ = std::move(*h);
    serving_ = std::thread([this] { EXPECT_TRUE(server_->Serve()); });
  }

  UniqueFd Connect() const {
    UniqueFd fd(::socket(AF_INET, SOCK_STREAM, 0));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(server_->port()));
    EXPECT_EQ(::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    return fd;
  }

  static void Send(const UniqueFd& fd, std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return;  // the server may close first (a refusal)
      bytes.remove_prefix(static_cast<size_t>(n));
    }
  }

  /// Reads one response (its Content-Length), waiting at most `limit`.
  static Reply Read(const UniqueFd& fd, std::string* buffer,
                    std::chrono::milliseconds limit = std::chrono::milliseconds(5000)) {
    Reply r;
    const auto until = Clock::now() + limit;
    while (true) {
      size_t end = buffer->find("\r\n\r\n");
      if (end != std::string::npos) {
        r.head = buffer->substr(0, end);
        size_t cl = r.head.find("Content-Length: ");
        size_t len = cl == std::string::npos ? 0 : std::stoul(r.head.substr(cl + 16));
        if (buffer->size() >= end + 4 + len) {
          r.status = std::stoi(r.head.substr(9, 3));
          r.body = buffer->substr(end + 4, len);
          buffer->erase(0, end + 4 + len);
          if (r.head.find("Connection: close") == std::string::npos) return r;
        }
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
      if (left.count() <= 0) return r;
      pollfd p{fd.get(), POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return r;
      char buf[4096];
      ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
      if (n <= 0) {
        r.closed = true;
        return r;
      }
      buffer->append(buf, static_cast<size_t>(n));
    }
  }
  static Reply Read(const UniqueFd& fd) {
    std::string buffer;
    return Read(fd, &buffer);
  }

  /// Waits until the server holds `n` connections (it accepts on its own thread).
  void WaitForConnections(int n) const {
    for (int i = 0; i < 500 && server_->open_connections() != n; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(server_->open_connections(), n);
  }

  std::filesystem::path dir_;
  std::unique_ptr<RestService> service_;
  std::unique_ptr<HttpServer> server_;
  std::thread serving_;
};

constexpr const char* kConfig = "GET /v1/config HTTP/1.1\r\nHost: x\r\n\r\n";

TEST_F(HttpServerTest, KeepAliveRequestsSentAheadAndChunkedBodiesAreAnswered) {
  Start();
  UniqueFd fd = Connect();
  const std::string ns = R"({"namespace":["db"]})";
  // Three requests in one write: a chunked body between two GETs.
  Send(fd, std::string(kConfig) +
               "POST /v1/namespaces HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
               "5\r\n" + ns.substr(0, 5) + "\r\n" + fmt::format("{:x}", ns.size() - 5) +
               ";ext=1\r\n" + ns.substr(5) + "\r\n0\r\n\r\n" +
               "HEAD /v1/namespaces/db HTTP/1.1\r\nHost: x\r\n\r\n");
  std::string buffer;
  Reply a = Read(fd, &buffer);
  EXPECT_EQ(a.status, 200) << a.head;
  EXPECT_NE(a.body.find("endpoints"), std::string::npos) << a.body;
  Reply b = Read(fd, &buffer);
  EXPECT_EQ(b.status, 200) << b.head << b.body;
  EXPECT_EQ(b.body, R"({"namespace":["db"],"properties":{}})");
  Reply c = Read(fd, &buffer);
  EXPECT_EQ(c.status, 204) << c.head;
  // Query parameters are decoded; the path is not.
  Send(fd, "GET /v1/namespaces?pageToken=&pageSize=1 HTTP/1.1\r\nConnection: close\r\n\r\n");
  Reply d = Read(fd, &buffer);
  EXPECT_EQ(d.status, 200) << d.head;
  EXPECT_EQ(d.body, R"({"namespaces":[["db"]],"next-page-token":null})");
  EXPECT_NE(d.head.find("Connection: close"), std::string::npos);
}

TEST_F(HttpServerTest, BodiesOverTheLimitAre413WithTheErrorModel) {
  HttpLimits limits;
  limits.max_body_bytes = 1000;
  Start(limits);
  // Content-Length over the limit: refused before any of the body is sent.
  UniqueFd fd = Connect();
  Send(fd, "POST /v1/namespaces HTTP/1.1\r\nContent-Length: 1001\r\nExpect: 100-continue\r\n\r\n");
  Reply r = Read(fd);
  EXPECT_EQ(r.status, 413) << r.head;
  EXPECT_NE(r.body.find(R"("code":413)"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("limit of 1000 bytes (floe serve --max-body-size)"), std::string::npos)
      << r.body;
  EXPECT_NE(r.head.find("Connection: close"), std::string::npos) << r.head;
  // Chunked: refused at the chunk that passes the limit, whatever follows.
  UniqueFd chunked = Connect();
  Send(chunked, "POST /v1/namespaces HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
  const std::string chunk = fmt::format("{:x}\r\n{}\r\n", 400, std::string(400, ' '));
  for (int i = 0; i < 3; ++i) Send(chunked, chunk);
  r = Read(chunked);
  EXPECT_EQ(r.status, 413) << r.head;
  // At the limit, the request is answered on its merits.
  UniqueFd ok = Connect();
  std::string body = R"({"namespace":["db"]})";
  body += std::string(1000 - body.size(), ' ');
  Send(ok, "POST /v1/namespaces HTTP/1.1\r\nContent-Length: 1000\r\n\r\n" + body);
  r = Read(ok);
  EXPECT_EQ(r.status, 200) << r.head << r.body;
}

TEST_F(HttpServerTest, MalformedOrOversizedHeadsAreAnsweredAndClosed) {
  Start();
  struct Case {
    std::string bytes;
    int status;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"GET /v1/config\r\n\r\n", 400, "not METHOD TARGET HTTP-VERSION"},
           {"GET v1/config HTTP/1.1\r\n\r\n", 400, "must start with '/'"},
           {"GET /v1/config HTTP/2.0\r\n\r\n", 505, "HTTP version 'HTTP/2.0'"},
           {"POST /v1/namespaces HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
            400, "both Transfer-Encoding and Content-Length"},
           {"POST /v1/namespaces HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "only Transfer-Encoding: chunked"},
           {"POST /v1/namespaces HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400, "Content-Length '-1'"},
           {"GET /v1/config HTTP/1.1\r\nX: " + std::string(70 * 1024, 'x') + "\r\n\r\n", 431,
            "longer than 65536 bytes"},
       }) {
    UniqueFd fd = Connect();
    Send(fd, c.bytes);
    Reply r = Read(fd);
    EXPECT_EQ(r.status, c.status) << c.bytes.substr(0, 60) << r.head;
    EXPECT_NE(r.body.find(c.message), std::string::npos) << r.body;
    EXPECT_TRUE(r.closed) << c.bytes.substr(0, 60);
  }
}

TEST_F(HttpServerTest, HeadersAndBodiesThatTakeTooLongAre408) {
  HttpLimits limits;
  limits.header_timeout = std::chrono::milliseconds(300);
  limits.body_timeout = std::chrono::milliseconds(300);
  Start(limits);
  UniqueFd head = Connect();
  UniqueFd body = Connect();
  Send(head, "GET /v1/config HTTP/1.1\r\nHo");
  Send(body, "POST /v1/namespaces HTTP/1.1\r\nContent-Length: 50\r\n\r\n{\"name");
  const auto start = Clock::now();
  Reply h = Read(head);
  Reply b = Read(body);
  EXPECT_EQ(h.status, 408) << h.head;
  EXPECT_NE(h.body.find("headers did not arrive within 300 ms (floe serve --header-timeout)"),
            std::string::npos)
      << h.body;
  EXPECT_EQ(b.status, 408) << b.head;
  EXPECT_NE(b.body.find("body did not arrive within 300 ms (floe serve --body-timeout)"),
            std::string::npos)
      << b.body;
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(3));
  WaitForConnections(0);
}

TEST_F(HttpServerTest, ConnectionsOverTheCapAreRefusedAtOnce) {
  HttpLimits limits;
  limits.max_connections = 2;
  Start(limits);
  UniqueFd a = Connect(), b = Connect();
  WaitForConnections(2);
  UniqueFd c = Connect();
  Send(c, kConfig);
  Reply r = Read(c);
  EXPECT_EQ(r.status, 503) << r.head;
  EXPECT_NE(r.body.find("ServiceUnavailableException"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("floe serve --max-connections"), std::string::npos) << r.body;
  // The two held connections are still served, and one closing makes room.
  Send(a, kConfig);
  EXPECT_EQ(Read(a).status, 200);
  b.Close();
  WaitForConnections(1);
  UniqueFd d = Connect();
  Send(d, kConfig);
  EXPECT_EQ(Read(d).status, 200);
}

TEST_F(HttpServerTest, FortySlowClientsDelayNoOtherRequest) {
  Start();
  constexpr int kSlow = 40;
  std::atomic<bool> done{false};
  std::atomic<int> started{0};
  std::vector<std::thread> slow;
  for (int i = 0; i < kSlow; ++i) {
    slow.emplace_back([&, i] {
      UniqueFd fd = Connect();
      // Half drip their headers, half their body, a byte at a time.
      const std::string bytes =
          i % 2 ? std::string("GET /v1/config HTTP/1.1\r\nX-Slow: ") + std::string(200, 'x')
                : std::string("POST /v1/namespaces HTTP/1.1\r\nContent-Length: 200\r\n\r\n") +
                      std::string(200, ' ');
      size_t sent = 0;
      if (i % 2 == 0) {
        size_t head = bytes.find("\r\n\r\n") + 4;
        Send(fd, bytes.substr(0, head));
        sent = head;
      }
      Send(fd, bytes.substr(sent++, 1));
      ++started;
      while (!done.load() && sent < bytes.size()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        Send(fd, bytes.substr(sent++, 1));
      }
    });
  }
  for (int i = 0; i < 500 && started.load() < kSlow; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  WaitForConnections(kSlow);
  for (int i = 0; i < 5; ++i) {
    const auto t0 = Clock::now();
    UniqueFd fd = Connect();
    Send(fd, kConfig);
    std::string buffer;
    Reply r = Read(fd, &buffer, std::chrono::milliseconds(2000));
    EXPECT_EQ(r.status, 200);
    EXPECT_LT(Clock::now() - t0, std::chrono::seconds(1)) << "request " << i;
  }
  done = true;
  for (auto& t : slow) t.join();
}

}  // namespace http_server_test
}  // namespace floe::server
