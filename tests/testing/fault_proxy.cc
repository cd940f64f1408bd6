#include "testing/fault_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <list>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <thread>

namespace floe::test {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

/// A message head: the start line and the headers, in order.
struct Head {
  std::string start_line;
  std::vector<std::pair<std::string, std::string>> headers;

  std::optional<std::string> Get(std::string_view name) const {
    const std::string want = Lower(name);
    for (const auto& [k, v] : headers) {
      if (Lower(k) == want) return v;
    }
    return std::nullopt;
  }
  /// The head as sent, without the headers named in `drop` (lower case).
  std::string Serialize(const std::set<std::string>& drop = {}) const {
    std::string out = start_line + "\r\n";
    for (const auto& [k, v] : headers) {
      if (!drop.contains(Lower(k))) out += k + ": " + v + "\r\n";
    }
    return out + "\r\n";
  }
};

/// A socket with a read buffer. Reads fail (false) on EOF, error or shutdown.
class Conn {
 public:
  explicit Conn(int fd) : fd_(fd) {}
  int fd() const { return fd_; }

  /// Whether everything read has been consumed and the peer closed (or the
  /// socket failed): a server connection gone stale while idle.
  bool PeerClosed() {
    if (!buf_.empty()) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) return false;
    char c;
    ssize_t n = ::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n <= 0;
  }

  bool Fill() {
    char tmp[65536];
    for (;;) {
      ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
      if (n > 0) {
        buf_.append(tmp, static_cast<size_t>(n));
        return true;
      }
      if (n < 0 && errno == EINTR) continue;
      return false;
    }
  }

  /// The head of a message (through the blank line); nullopt at EOF or when
  /// the head is not HTTP. `any_bytes` tells whether any byte came.
  std::optional<Head> ReadHead(bool* any_bytes = nullptr) {
    size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (buf_.size() > (1 << 20) || !Fill()) {
        if (any_bytes) *any_bytes = !buf_.empty();
        return std::nullopt;
      }
    }
    if (any_bytes) *any_bytes = true;
    std::string text = buf_.substr(0, end + 2);
    buf_.erase(0, end + 4);
    Head h;
    size_t pos = 0;
    bool first = true;
    while (pos < text.size()) {
      size_t nl = text.find("\r\n", pos);
      std::string line = text.substr(pos, nl - pos);
      pos = nl + 2;
      if (first) {
        h.start_line = line;
        first = false;
        continue;
      }
      size_t colon = line.find(':');
      if (colon == std::string::npos) return std::nullopt;
      h.headers.emplace_back(line.substr(0, colon),
                             std::string(Trim(std::string_view(line).substr(colon + 1))));
    }
    return h;
  }

  /// Appends exactly `n` bytes to `out`.
  bool ReadExact(size_t n, std::string* out) {
    while (buf_.size() < n) {
      if (!Fill()) return false;
    }
    out->append(buf_, 0, n);
    buf_.erase(0, n);
    return true;
  }

  /// Appends one line with its CRLF to `out`; the line without it in `line`.
  bool ReadLine(std::string* out, std::string* line) {
    size_t nl;
    while ((nl = buf_.find("\r\n")) == std::string::npos) {
      if (buf_.size() > (1 << 16) || !Fill()) return false;
    }
    *line = buf_.substr(0, nl);
    out->append(buf_, 0, nl + 2);
    buf_.erase(0, nl + 2);
    return true;
  }

  /// Everything until the peer closes.
  void ReadToClose(std::string* out) {
    while (Fill()) {
    }
    out->append(buf_);
    buf_.clear();
  }

  /// A chunked body, framing kept, through the trailer's blank line.
  bool ReadChunked(std::string* out) {
    std::string line;
    for (;;) {
      if (!ReadLine(out, &line)) return false;
      size_t size = 0;
      try {
        size = std::stoull(line.substr(0, line.find(';')), nullptr, 16);
      } catch (...) {
        return false;
      }
      if (size == 0) {
        do {
          if (!ReadLine(out, &line)) return false;
        } while (!line.empty());
        return true;
      }
      if (!ReadExact(size + 2, out)) return false;
    }
  }

  bool Send(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

 private:
  int fd_;
  std::string buf_;
};

/// Reads the body a head announces: chunked, Content-Length, or (a response
/// without either, that may have one) to close. False when it ends early.
bool ReadBody(Conn& c, const Head& h, bool response, bool no_body, std::string* body,
              bool* to_close) {
  *to_close = false;
  if (no_body) return true;
  if (auto te = h.Get("Transfer-Encoding"); te && Lower(*te).find("chunked") != std::string::npos) {
    return c.ReadChunked(body);
  }
  if (auto cl = h.Get("Content-Length")) {
    size_t n = 0;
    try {
      n = std::stoull(*cl);
    } catch (...) {
      return false;
    }
    return c.ReadExact(n, body);
  }
  if (response) {
    *to_close = true;
    c.ReadToClose(body);
  }
  return true;
}

/// Makes the close of `fd` a reset (RST) rather than an orderly FIN.
void ArmReset(int fd) {
  linger l{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
}

std::string ErrorBody(int status, const std::string& code_in) {
  std::string code = code_in;
  std::string message = "The fault proxy answered this request itself.";
  if (code.empty()) {
    code = status == 500 ? "InternalError" : status == 503 ? "SlowDown" : "InjectedFault";
  }
  if (code == "InternalError") message = "We encountered an internal error. Please try again.";
  if (code == "SlowDown") message = "Please reduce your request rate.";
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>" +
         message + "</Message><RequestId>fault-proxy</RequestId></Error>";
}

std::string Reason(int status) {
  switch (status) {
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 429: return "Too Many Requests";
    default: return "Error";
  }
}

}  // namespace

std::string_view FaultActionName(FaultAction action) {
  switch (action) {
    case FaultAction::kPass: return "pass";
    case FaultAction::kDrop: return "drop";
    case FaultAction::kError: return "error";
    case FaultAction::kDelay: return "delay";
    case FaultAction::kDropReply: return "drop-reply";
    case FaultAction::kResetMidBody: return "reset-mid-body";
  }
  return "?";
}

struct FaultProxy::State {
  std::string host;
  int target_port = 0;
  int listen_fd = -1;
  int port = 0;
  std::thread acceptor;

  mutable std::mutex mu;
  std::condition_variable stop_cv;
  bool stopping = false;
  std::vector<FaultRule> rules;
  std::mt19937_64 rng;
  FaultCounters counters;
  std::vector<ProxiedRequest> log;

  struct Worker {
    std::thread thread;
    std::atomic<bool> done{false};
    int client_fd = -1;
    std::atomic<int> server_fd{-1};
  };
  std::list<Worker> workers;  // guarded by mu

  void AcceptLoop();
  void Serve(Worker* w);
  /// The action for one request, counted and logged; the index of its log
  /// entry.
  std::pair<FaultRule, size_t> Decide(const Head& request, int64_t body_bytes);
  int Connect();
  /// Sleeps `ms` unless the proxy stops first (false then).
  bool Sleep(int ms) {
    std::unique_lock lock(mu);
    return !stop_cv.wait_for(lock, std::chrono::milliseconds(ms), [&] { return stopping; });
  }
};

Result<std::unique_ptr<FaultProxy>> FaultProxy::Start(std::string_view target, uint64_t seed) {
  std::string t(target);
  if (t.starts_with("http://")) t = t.substr(7);
  while (!t.empty() && t.back() == '/') t.pop_back();
  size_t colon = t.rfind(':');
  if (colon == std::string::npos)
    return InvalidArgument("fault proxy target {} has no port", target);
  auto state = std::make_unique<State>();
  state->host = t.substr(0, colon);
  if (state->host == "localhost") state->host = "127.0.0.1";
  try {
    state->target_port = std::stoi(t.substr(colon + 1));
  } catch (...) {
    return InvalidArgument("fault proxy target {}: bad port", target);
  }
  in_addr probe{};
  if (::inet_pton(AF_INET, state->host.c_str(), &probe) != 1) {
    return InvalidArgument("fault proxy target {}: not an IPv4 address", target);
  }
  state->rng.seed(seed);

  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return IoError("fault proxy: socket: {}", std::strerror(errno));
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 128) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    return IoError("fault proxy: cannot listen on 127.0.0.1: {}", why);
  }
  state->listen_fd = fd;
  state->port = ntohs(a.sin_port);
  State* s = state.get();
  state->acceptor = std::thread([s] { s->AcceptLoop(); });
  return std::unique_ptr<FaultProxy>(new FaultProxy(std::move(state)));
}

FaultProxy::FaultProxy(std::unique_ptr<State> state) : state_(std::move(state)) {}

FaultProxy::~FaultProxy() {
  {
    std::lock_guard lock(state_->mu);
    state_->stopping = true;
    for (auto& w : state_->workers) {
      if (!w.done) {  // its descriptors are open (closed under mu)
        ::shutdown(w.client_fd, SHUT_RDWR);
        int sfd = w.server_fd.load();
        if (sfd >= 0) ::shutdown(sfd, SHUT_RDWR);
      }
    }
  }
  state_->stop_cv.notify_all();
  // Wakes accept() (Linux returns EINVAL on a listening socket shut down).
  ::shutdown(state_->listen_fd, SHUT_RDWR);
  state_->acceptor.join();
  ::close(state_->listen_fd);
  std::list<State::Worker> workers;
  {
    std::lock_guard lock(state_->mu);
    workers.splice(workers.end(), state_->workers);
  }
  for (auto& w : workers) w.thread.join();
}

int FaultProxy::port() const { return state_->port; }
std::string FaultProxy::endpoint() const {
  return "http://127.0.0.1:" + std::to_string(state_->port);
}

void FaultProxy::AddRule(FaultRule rule) {
  std::lock_guard lock(state_->mu);
  state_->rules.push_back(std::move(rule));
}

void FaultProxy::ClearRules() {
  std::lock_guard lock(state_->mu);
  state_->rules.clear();
}

FaultCounters FaultProxy::counters() const {
  std::lock_guard lock(state_->mu);
  return state_->counters;
}

std::vector<ProxiedRequest> FaultProxy::requests() const {
  std::lock_guard lock(state_->mu);
  return state_->log;
}

int64_t FaultProxy::ForwardedCount(std::string_view method, std::string_view target_part) const {
  std::lock_guard lock(state_->mu);
  int64_t n = 0;
  for (const auto& r : state_->log) {
    if ((method.empty() || r.method == method) && r.target.find(target_part) != std::string::npos &&
        r.action != FaultAction::kDrop && r.action != FaultAction::kError) {
      ++n;
    }
  }
  return n;
}

void FaultProxy::ResetCounters() {
  std::lock_guard lock(state_->mu);
  state_->counters = {};
  state_->log.clear();
}

void FaultProxy::State::AcceptLoop() {
  for (;;) {
    int cfd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    std::lock_guard lock(mu);
    if (stopping) {
      if (cfd >= 0) ::close(cfd);
      return;
    }
    if (cfd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;
    }
    int one = 1;
    ::setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    // Reap the workers that finished.
    for (auto it = workers.begin(); it != workers.end();) {
      if (it->done) {
        it->thread.join();
        it = workers.erase(it);
      } else {
        ++it;
      }
    }
    ++counters.connections;
    Worker& w = workers.emplace_back();
    w.client_fd = cfd;
    w.thread = std::thread([this, wp = &w] { Serve(wp); });
  }
}

int FaultProxy::State::Connect() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(target_port));
  ::inet_pton(AF_INET, host.c_str(), &a.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

std::pair<FaultRule, size_t> FaultProxy::State::Decide(const Head& request, int64_t body_bytes) {
  std::string method, target;
  {
    std::string_view line = request.start_line;
    size_t sp1 = line.find(' ');
    size_t sp2 = line.find(' ', sp1 + 1);
    method = std::string(line.substr(0, sp1));
    if (sp1 != std::string_view::npos) target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
  }
  const size_t q = target.find('?');
  const std::string path = target.substr(0, q);
  const std::string query = q == std::string::npos ? "" : target.substr(q + 1);

  std::lock_guard lock(mu);
  ++counters.requests;
  FaultRule chosen;  // kPass
  for (auto& rule : rules) {
    if (!rule.method.empty() && rule.method != method) continue;
    if (!rule.path.empty() && path.find(rule.path) == std::string::npos) continue;
    if (!rule.query.empty() && query.find(rule.query) == std::string::npos) continue;
    if (!rule.header.empty() && !request.Get(rule.header)) continue;
    if (rule.skip > 0) {
      --rule.skip;
      continue;
    }
    if (rule.times == 0) continue;
    if (rule.probability < 1.0 &&
        std::uniform_real_distribution<double>(0.0, 1.0)(rng) >= rule.probability) {
      continue;
    }
    if (rule.times > 0) --rule.times;
    chosen = rule;
    break;
  }
  switch (chosen.action) {
    case FaultAction::kPass: break;
    case FaultAction::kDrop: ++counters.dropped; break;
    case FaultAction::kError: ++counters.errors; break;
    case FaultAction::kDelay: ++counters.delayed; break;
    case FaultAction::kDropReply: ++counters.dropped_replies; break;
    case FaultAction::kResetMidBody: ++counters.resets; break;
  }
  log.push_back({method, target, chosen.action, 0, body_bytes});
  return {chosen, log.size() - 1};
}

void FaultProxy::State::Serve(Worker* w) {
  Conn client(w->client_fd);
  std::optional<Conn> server;
  // Descriptors are closed under mu: the destructor shuts down the ones of
  // live workers, and must never reach a number the process reused.
  auto close_server = [&] {
    if (server) {
      std::lock_guard lock(mu);
      w->server_fd = -1;
      ::close(server->fd());
      server.reset();
    }
  };
  bool reset = false;
  for (;;) {
    std::optional<Head> req = client.ReadHead();
    if (!req) break;
    const std::string method = req->start_line.substr(0, req->start_line.find(' '));
    if (auto e = req->Get("Expect"); e && Lower(*e) == "100-continue") {
      if (!client.Send("HTTP/1.1 100 Continue\r\n\r\n")) break;
    }
    std::string body;
    bool unused;
    if (!ReadBody(client, *req, false, false, &body, &unused)) break;
    const bool client_close = Lower(req->Get("Connection").value_or("")) == "close";

    auto [rule, index] = Decide(*req, static_cast<int64_t>(body.size()));
    if (rule.action == FaultAction::kDrop) break;
    if (rule.action == FaultAction::kError) {
      const std::string xml = ErrorBody(rule.status, rule.code);
      std::string answer =
          "HTTP/1.1 " + std::to_string(rule.status) + " " + Reason(rule.status) +
          "\r\nContent-Type: application/xml\r\nContent-Length: " + std::to_string(xml.size()) +
          "\r\n";
      if (client_close) answer += "Connection: close\r\n";
      answer += "\r\n";
      if (method != "HEAD") answer += xml;
      if (!client.Send(answer) || client_close) break;
      continue;
    }

    // Forward, on a fresh server connection if the kept one went stale.
    if (server && server->PeerClosed()) close_server();
    if (!server) {
      int fd = Connect();
      if (fd < 0) {
        std::lock_guard lock(mu);
        ++counters.server_failures;
        break;
      }
      std::lock_guard lock(mu);
      if (stopping) {
        ::close(fd);
        break;
      }
      server.emplace(fd);
      w->server_fd = fd;
    }
    {
      std::lock_guard lock(mu);
      ++counters.forwarded;
    }
    if (!server->Send(req->Serialize({"expect"}) + body)) {
      std::lock_guard lock(mu);
      ++counters.server_failures;
      break;
    }
    std::optional<Head> resp;
    // An interim 1xx answer (the server's own 100 Continue) is passed over.
    for (;;) {
      resp = server->ReadHead();
      if (!resp || !resp->start_line.starts_with("HTTP/1.1 1")) break;
    }
    if (!resp) {
      std::lock_guard lock(mu);
      ++counters.server_failures;
      break;
    }
    int status = 0;
    if (resp->start_line.size() >= 12) status = std::atoi(resp->start_line.c_str() + 9);
    const bool no_body = method == "HEAD" || status == 204 || status == 304;
    std::string resp_body;
    bool to_close = false;
    const bool whole = ReadBody(*server, *resp, true, no_body, &resp_body, &to_close);
    {
      std::lock_guard lock(mu);
      log[index].server_status = status;
      if (!whole) ++counters.server_failures;
    }
    if (!whole) break;
    const bool server_close = to_close || Lower(resp->Get("Connection").value_or("")) == "close";
    if (server_close) close_server();

    if (rule.action == FaultAction::kDropReply) break;
    if (rule.action == FaultAction::kDelay && !Sleep(rule.delay_ms)) break;
    if (rule.action == FaultAction::kResetMidBody) {
      // The head and half the body (at least one byte short), then RST.
      (void)client.Send(resp->Serialize());
      (void)client.Send(std::string_view(resp_body).substr(0, resp_body.size() / 2));
      ArmReset(w->client_fd);
      reset = true;
      break;
    }
    {
      std::lock_guard lock(mu);
      ++counters.passed;
    }
    if (!client.Send(resp->Serialize() + resp_body)) break;
    if (server_close || client_close) break;
  }
  close_server();
  std::lock_guard lock(mu);
  if (!reset) ::shutdown(w->client_fd, SHUT_RDWR);
  ::close(w->client_fd);
  w->done = true;
}

}  // namespace floe::test
