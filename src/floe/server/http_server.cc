// The HTTP/1.1 transport of `floe serve` (see http_server.h). One thread
// polls the listener and every connection with non-blocking sockets and
// parses requests as their bytes arrive; a request whose headers and body are
// complete goes to a worker, and its answer comes back to the loop (through a
// queue and a wake-up pipe) to be written. A connection is never read while
// its request is with a worker, so a request's bytes, the body and what a
// client sends ahead are bounded by the limits.
//
// The raw request target is kept for the path (never decoded here), so an
// encoded '/' or 0x1F inside a namespace or table name stays inside its
// segment; query parameters are decoded ('+' is a space).

#include "floe/server/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/util/unique_fd.h"

namespace floe::server {

namespace {

using Clock = std::chrono::steady_clock;

std::string_view Reason(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Content Too Large";
    case 419: return "Authentication Timeout";
    case 422: return "Unprocessable Content";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return status < 400 ? "OK" : "Error";
  }
}

/// The REST spec's ErrorModel for an error the transport answers itself.
std::string ErrorBody(int status, std::string_view type, std::string_view message) {
  nlohmann::ordered_json e = nlohmann::ordered_json::object();
  e["message"] = message;
  e["type"] = type;
  e["code"] = status;
  nlohmann::ordered_json body = nlohmann::ordered_json::object();
  body["error"] = std::move(e);
  return body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

/// A response as bytes: no body for HEAD (its Content-Length still says how
/// long the body would be) nor for 204.
std::string Serialize(const HttpResponse& r, bool head, bool close) {
  std::string out = fmt::format("HTTP/1.1 {} {}\r\n", r.status, Reason(r.status));
  const bool no_body = r.status == 204 || r.status < 200;
  if (!no_body) {
    if (!r.body.empty() && !r.content_type.empty())
      out += fmt::format("Content-Type: {}\r\n", r.content_type);
    out += fmt::format("Content-Length: {}\r\n", r.body.size());
  }
  if (close) out += "Connection: close\r\n";
  out += "\r\n";
  if (!no_body && !head) out += r.body;
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// A query key or value decoded ('+' a space; a malformed escape kept as it is).
std::string QueryDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexDigit(s[i + 1]) >= 0 && HexDigit(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexDigit(s[i + 1]) * 16 + HexDigit(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i] == '+' ? ' ' : s[i]);
    }
  }
  return out;
}

std::string Millis(std::chrono::milliseconds d) { return fmt::format("{} ms", d.count()); }

/// A transport error: the status, the ErrorModel type and the message.
struct Refusal {
  int status = 400;
  std::string type = "BadRequestException";
  std::string message;
};

Refusal Bad(std::string message) { return Refusal{400, "BadRequestException", std::move(message)}; }

/// One connection and the request it is reading or waiting on.
struct Conn {
  enum class Phase : uint8_t {
    kHead,    ///< reading a request line and headers (or waiting for them)
    kBody,    ///< reading the body
    kBusy,    ///< the request is with a worker
    kWrite,   ///< sending a response
    kLinger,  ///< answered and closing: reading what the client still sends
  };
  uint64_t id = 0;
  UniqueFd fd;
  Phase phase = Phase::kHead;
  Clock::time_point deadline;
  std::string in;       ///< received, not consumed
  size_t scanned = 0;   ///< how far `in` was searched for the end of the head
  bool started = false; ///< a byte of the current request has arrived
  // The request being read.
  HttpRequest request;
  bool head_method = false;
  bool keep_alive = true;
  bool chunked = false;
  uint64_t content_length = 0;
  // Chunked decoding.
  enum class Chunk : uint8_t { kSize, kData, kDataEnd, kTrailer } chunk = Chunk::kSize;
  uint64_t chunk_left = 0;
  size_t trailer_bytes = 0;
  // The response being sent.
  std::string out;
  size_t out_pos = 0;
  bool close_after = false;
};

/// What a worker hands back to the loop.
struct Done {
  uint64_t conn = 0;
  std::string bytes;
  bool close = false;
  bool drop = false;
};

struct Job {
  uint64_t conn = 0;
  HttpRequest request;
  bool head = false;
  bool keep_alive = true;
};

}  // namespace

struct HttpServer::Impl {
  RestService* service = nullptr;
  HttpLimits limits;
  UniqueFd listener;
  int port = 0;
  UniqueFd wake_read, wake_write;
  std::atomic<bool> stopping{false};
  std::atomic<int> open{0};

  // Workers: jobs in, answers out.
  std::mutex jobs_mu;
  std::condition_variable jobs_cv;
  std::deque<Job> jobs;
  bool jobs_closed = false;
  std::mutex done_mu;
  std::vector<Done> done;

  // The loop's own state (only the loop thread touches it).
  std::map<uint64_t, Conn> conns;
  uint64_t next_id = 1;
  Clock::time_point accept_paused_until{};

  void Wake() {
    char c = 'x';
    // A full pipe already wakes the loop: nothing is lost when this fails.
    [[maybe_unused]] ssize_t n = ::write(wake_write.get(), &c, 1);
  }

  void WorkerLoop() {
    while (true) {
      Job job;
      {
        std::unique_lock lock(jobs_mu);
        jobs_cv.wait(lock, [&] { return jobs_closed || !jobs.empty(); });
        if (jobs.empty()) return;
        job = std::move(jobs.front());
        jobs.pop_front();
      }
      HttpResponse r = service->Handle(job.request);
      Done d;
      d.conn = job.conn;
      d.drop = r.drop_connection;
      d.close = !job.keep_alive || stopping.load();
      if (!d.drop) d.bytes = Serialize(r, job.head, d.close);
      {
        std::lock_guard lock(done_mu);
        done.push_back(std::move(d));
      }
      Wake();
    }
  }

  // --- the loop ------------------------------------------------------------

  void Close(std::map<uint64_t, Conn>::iterator it) {
    conns.erase(it);
    open.store(static_cast<int>(conns.size()));
  }

  /// Starts sending `bytes`; the connection closes after them when `close`.
  void Send(Conn& c, std::string bytes, bool close) {
    c.out = std::move(bytes);
    c.out_pos = 0;
    c.close_after = close;
    c.phase = Conn::Phase::kWrite;
    c.deadline = Clock::now() + limits.body_timeout;
  }

  void Refuse(Conn& c, const Refusal& r) {
    HttpResponse resp;
    resp.status = r.status;
    resp.body = ErrorBody(r.status, r.type, r.message);
    Send(c, Serialize(resp, c.head_method, /*close=*/true), /*close=*/true);
  }

  /// Ready for the connection's next request.
  void NextRequest(Conn& c) {
    c.phase = Conn::Phase::kHead;
    c.started = false;
    c.scanned = 0;
    c.request = HttpRequest{};
    c.head_method = false;
    c.keep_alive = true;
    c.chunked = false;
    c.content_length = 0;
    c.chunk = Conn::Chunk::kSize;
    c.chunk_left = 0;
    c.trailer_bytes = 0;
    c.out.clear();
    c.out_pos = 0;
    c.deadline = Clock::now() + limits.idle_timeout;
  }

  /// Parses the request line and headers (`head` without its blank line).
  std::optional<Refusal> ParseHead(Conn& c, std::string_view head) {
    std::vector<std::string_view> lines;
    size_t start = 0;
    while (start < head.size()) {
      size_t nl = head.find('\n', start);
      std::string_view line = head.substr(start, nl == std::string_view::npos ? head.npos : nl - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      lines.push_back(line);
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
    if (lines.empty()) return Bad("the request has no request line");
    std::string_view rl = lines[0];
    size_t sp1 = rl.find(' ');
    size_t sp2 = sp1 == rl.npos ? rl.npos : rl.find(' ', sp1 + 1);
    if (sp1 == rl.npos || sp2 == rl.npos || rl.find(' ', sp2 + 1) != rl.npos || sp1 == 0) {
      return Bad("the request line is not METHOD TARGET HTTP-VERSION");
    }
    std::string_view method = rl.substr(0, sp1);
    std::string_view target = rl.substr(sp1 + 1, sp2 - sp1 - 1);
    std::string_view version = rl.substr(sp2 + 1);
    for (char ch : method) {
      if (!std::isupper(static_cast<unsigned char>(ch)))
        return Bad(fmt::format("the request method '{}' is not a method", method));
    }
    if (target.empty() || target[0] != '/') return Bad("the request target must start with '/'");
    if (version != "HTTP/1.1" && version != "HTTP/1.0") {
      return Refusal{505, "BadRequestException",
                     fmt::format("HTTP version '{}' is not supported (HTTP/1.1 and 1.0 are)", version)};
    }
    c.request.method = std::string(method);
    c.head_method = method == "HEAD";
    size_t q = target.find('?');
    c.request.path = std::string(target.substr(0, q));
    if (q != target.npos) {
      std::string_view query = target.substr(q + 1);
      size_t s = 0;
      while (s <= query.size()) {
        size_t amp = query.find('&', s);
        std::string_view pair = query.substr(s, amp == query.npos ? query.npos : amp - s);
        if (!pair.empty()) {
          size_t eq = pair.find('=');
          std::string k = QueryDecode(pair.substr(0, eq));
          std::string v = eq == pair.npos ? std::string() : QueryDecode(pair.substr(eq + 1));
          c.request.query.emplace(std::move(k), std::move(v));
        }
        if (amp == query.npos) break;
        s = amp + 1;
      }
    }
    std::vector<std::string_view> lengths, encodings, connection;
    bool expect_continue = false;
    for (size_t i = 1; i < lines.size(); ++i) {
      std::string_view line = lines[i];
      if (line.empty()) break;  // the blank line that ends the head
      if (line.front() == ' ' || line.front() == '\t')
        return Bad("folded header lines are not accepted");
      size_t colon = line.find(':');
      if (colon == line.npos || colon == 0) return Bad(fmt::format("header line {} has no name", i));
      std::string_view raw_name = line.substr(0, colon);
      if (raw_name.find_first_of(" \t") != raw_name.npos)
        return Bad(fmt::format("header name '{}' contains white space", raw_name));
      std::string name = Lower(raw_name);
      std::string_view value = Trim(line.substr(colon + 1));
      if (name == "content-length") lengths.push_back(value);
      if (name == "transfer-encoding") encodings.push_back(value);
      if (name == "connection") connection.push_back(value);
      if (name == "expect" && Lower(value) == "100-continue") expect_continue = true;
      c.request.headers.emplace(std::move(name), std::string(value));
    }
    c.keep_alive = version == "HTTP/1.1";
    for (std::string_view v : connection) {
      std::string l = Lower(v);
      if (l.find("close") != std::string::npos) c.keep_alive = false;
      if (l.find("keep-alive") != std::string::npos && version == "HTTP/1.0") c.keep_alive = true;
    }
    if (!encodings.empty()) {
      if (!lengths.empty())
        return Bad("a request must not have both Transfer-Encoding and Content-Length");
      if (encodings.size() != 1 || Lower(encodings[0]) != "chunked") {
        return Refusal{501, "BadRequestException",
                       "only Transfer-Encoding: chunked is supported for request bodies"};
      }
      c.chunked = true;
    } else if (!lengths.empty()) {
      for (std::string_view v : lengths) {
        if (v != lengths[0]) return Bad("the request has several different Content-Length headers");
      }
      std::string_view v = lengths[0];
      auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), c.content_length);
      if (v.empty() || ec != std::errc() || ptr != v.data() + v.size())
        return Bad(fmt::format("Content-Length '{}' is not a number of bytes", v));
      if (c.content_length > limits.max_body_bytes) return TooLarge(c.content_length);
    }
    const bool has_body = c.chunked || c.content_length > 0;
    if (expect_continue && has_body && version == "HTTP/1.1") {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      // Tiny, on a connection with nothing else to send: it fits the socket
      // buffer; a client that gets no 100 sends its body after a pause anyway.
      [[maybe_unused]] ssize_t n =
          ::send(c.fd.get(), kContinue.data(), kContinue.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    return std::nullopt;
  }

  Refusal TooLarge(uint64_t size) const {
    return Refusal{413, "BadRequestException",
                   fmt::format("the request body ({} bytes or more) is larger than the server's "
                               "limit of {} bytes (floe serve --max-body-size)",
                               size, limits.max_body_bytes)};
  }

  /// Decodes the chunks `c.in` holds into the body, consuming them; sets
  /// `*complete` when the body is complete. A refusal when the chunks are
  /// malformed or the body too large.
  std::optional<Refusal> FeedChunked(Conn& c, bool* complete) {
    size_t pos = 0;
    *complete = false;
    auto fail = [](Refusal r) { return std::optional<Refusal>(std::move(r)); };
    while (true) {
      if (c.chunk == Conn::Chunk::kSize || c.chunk == Conn::Chunk::kTrailer) {
        size_t nl = c.in.find('\n', pos);
        if (nl == std::string::npos) {
          if (c.in.size() - pos > 4096 && c.chunk == Conn::Chunk::kSize)
            return fail(Bad("a chunk-size line is longer than 4096 bytes"));
          if (c.trailer_bytes + (c.in.size() - pos) > limits.max_header_bytes)
            return fail(Refusal{431, "BadRequestException", "the chunked body's trailer is too long"});
          break;
        }
        std::string_view line(c.in.data() + pos, nl - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        pos = nl + 1;
        if (c.chunk == Conn::Chunk::kTrailer) {
          c.trailer_bytes += line.size() + 2;
          if (c.trailer_bytes > limits.max_header_bytes)
            return fail(Refusal{431, "BadRequestException", "the chunked body's trailer is too long"});
          if (line.empty()) {
            c.in.erase(0, pos);
            *complete = true;
            return std::nullopt;
          }
          continue;
        }
        std::string_view digits = Trim(line.substr(0, line.find(';')));
        uint64_t size = 0;
        auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), size, 16);
        if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size())
          return fail(Bad(fmt::format("chunk size '{}' is not a hexadecimal number", digits)));
        if (size == 0) {
          c.chunk = Conn::Chunk::kTrailer;
          continue;
        }
        if (size > limits.max_body_bytes - c.request.body.size())
          return fail(TooLarge(c.request.body.size() + size));
        c.chunk_left = size;
        c.chunk = Conn::Chunk::kData;
      } else if (c.chunk == Conn::Chunk::kData) {
        size_t n = static_cast<size_t>(std::min<uint64_t>(c.chunk_left, c.in.size() - pos));
        c.request.body.append(c.in, pos, n);
        pos += n;
        c.chunk_left -= n;
        if (c.chunk_left > 0) break;
        c.chunk = Conn::Chunk::kDataEnd;
      } else {  // kDataEnd: the CRLF after a chunk's data
        if (pos >= c.in.size()) break;
        if (c.in[pos] == '\n') {
          pos += 1;
        } else if (c.in[pos] == '\r') {
          if (pos + 1 >= c.in.size()) break;
          if (c.in[pos + 1] != '\n') return fail(Bad("a chunk's data is not followed by CRLF"));
          pos += 2;
        } else {
          return fail(Bad("a chunk's data is longer than its size"));
        }
        c.chunk = Conn::Chunk::kSize;
      }
    }
    c.in.erase(0, pos);
    return std::nullopt;
  }

  /// Moves a connection on with the bytes it has: a complete request goes to
  /// a worker; a bad one is answered.
  void Advance(Conn& c) {
    if (c.phase == Conn::Phase::kHead) {
      if (!c.started) {
        // Blank lines before a request line are ignored (RFC 9112 2.2).
        size_t skip = 0;
        while (skip < c.in.size() && (c.in[skip] == '\r' || c.in[skip] == '\n')) ++skip;
        c.in.erase(0, skip);
        if (c.in.empty()) return;
        c.started = true;
        c.deadline = Clock::now() + limits.header_timeout;
      }
      size_t end = std::string::npos;
      for (size_t i = c.scanned; i < c.in.size(); ++i) {
        if (c.in[i] != '\n') continue;
        if (i + 1 < c.in.size() && c.in[i + 1] == '\n') {
          end = i + 2;
          break;
        }
        if (i + 2 < c.in.size() && c.in[i + 1] == '\r' && c.in[i + 2] == '\n') {
          end = i + 3;
          break;
        }
      }
      if (end == std::string::npos) {
        c.scanned = c.in.size() >= 2 ? c.in.size() - 2 : 0;
        if (c.in.size() > limits.max_header_bytes) return Refuse(c, HeadersTooLarge());
        return;
      }
      if (end > limits.max_header_bytes) return Refuse(c, HeadersTooLarge());
      std::string head = c.in.substr(0, end);
      c.in.erase(0, end);
      if (auto refusal = ParseHead(c, head)) return Refuse(c, *refusal);
      c.phase = Conn::Phase::kBody;
      c.deadline = Clock::now() + limits.body_timeout;
    }
    if (c.phase == Conn::Phase::kBody) {
      if (c.chunked) {
        bool complete = false;
        if (auto refusal = FeedChunked(c, &complete)) return Refuse(c, *refusal);
        if (!complete) return;
      } else {
        if (c.in.size() < c.content_length) return;
        c.request.body = c.in.substr(0, static_cast<size_t>(c.content_length));
        c.in.erase(0, static_cast<size_t>(c.content_length));
      }
      c.phase = Conn::Phase::kBusy;
      Job job;
      job.conn = c.id;
      job.request = std::move(c.request);
      job.head = c.head_method;
      job.keep_alive = c.keep_alive;
      {
        std::lock_guard lock(jobs_mu);
        jobs.push_back(std::move(job));
      }
      jobs_cv.notify_one();
    }
  }

  Refusal HeadersTooLarge() const {
    return Refusal{431, "BadRequestException",
                   fmt::format("the request line and headers are longer than {} bytes",
                               limits.max_header_bytes)};
  }

  /// Reads what the socket has. false when the connection is finished.
  bool Read(Conn& c) {
    char buf[64 * 1024];
    ssize_t n = ::recv(c.fd.get(), buf, sizeof buf, 0);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    if (n == 0) return false;  // the client closed (a half-sent request is dropped)
    if (c.phase == Conn::Phase::kLinger) return true;  // discarded
    c.in.append(buf, static_cast<size_t>(n));
    Advance(c);
    return true;
  }

  /// Sends what is pending. false when the connection is finished.
  bool Write(Conn& c) {
    while (c.out_pos < c.out.size()) {
      ssize_t n = ::send(c.fd.get(), c.out.data() + c.out_pos, c.out.size() - c.out_pos,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      c.out_pos += static_cast<size_t>(n);
    }
    if (c.close_after) {
      // Closing with unread bytes in the socket would reset the connection
      // and could destroy the answer before the client reads it: stop
      // sending, then discard what still comes for a moment.
      ::shutdown(c.fd.get(), SHUT_WR);
      c.phase = Conn::Phase::kLinger;
      c.deadline = Clock::now() + std::min<std::chrono::milliseconds>(
                                      limits.body_timeout, std::chrono::milliseconds(1000));
      c.out.clear();
      return true;
    }
    NextRequest(c);
    Advance(c);  // a request the client sent ahead
    return true;
  }

  void Accept() {
    while (true) {
      sockaddr_storage peer{};
      socklen_t len = sizeof peer;
      int fd = ::accept4(listener.get(), reinterpret_cast<sockaddr*>(&peer), &len,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
          // Out of descriptors: the listener stays readable; pause it instead
          // of spinning, until connections close.
          accept_paused_until = Clock::now() + std::chrono::milliseconds(100);
        }
        return;
      }
      UniqueFd sock(fd);
      if (static_cast<int>(conns.size()) >= limits.max_connections) {
        HttpResponse r;
        r.status = 503;
        r.body = ErrorBody(503, "ServiceUnavailableException",
                           fmt::format("the server has {} connections open, its limit "
                                       "(floe serve --max-connections); try again later",
                                       conns.size()));
        std::string bytes = Serialize(r, false, true);
        [[maybe_unused]] ssize_t n =
            ::send(sock.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        ::shutdown(sock.get(), SHUT_WR);
        continue;
      }
      int one = 1;
      // A response goes out as one write, but a client's request may come in
      // several: no Nagle delay on either side of this socket.
      (void)::setsockopt(sock.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      Conn c;
      c.id = next_id++;
      c.fd = std::move(sock);
      c.deadline = Clock::now() + limits.header_timeout;
      conns.emplace(c.id, std::move(c));
      open.store(static_cast<int>(conns.size()));
    }
  }

  /// The answers the workers finished.
  void TakeAnswers() {
    std::vector<Done> ready;
    {
      std::lock_guard lock(done_mu);
      ready.swap(done);
    }
    for (Done& d : ready) {
      auto it = conns.find(d.conn);
      if (it == conns.end()) continue;
      if (d.drop) {
        ::shutdown(it->second.fd.get(), SHUT_RDWR);
        Close(it);
        continue;
      }
      Send(it->second, std::move(d.bytes), d.close || stopping.load());
      if (!Write(it->second)) Close(it);
    }
  }

  /// Connections whose deadline passed: a request cut short is answered 408.
  void Expire() {
    const auto now = Clock::now();
    for (auto it = conns.begin(); it != conns.end();) {
      auto next = std::next(it);
      Conn& c = it->second;
      if (c.phase != Conn::Phase::kBusy && c.deadline <= now) {
        if (c.phase == Conn::Phase::kHead && c.started) {
          Refuse(c, Refusal{408, "BadRequestException",
                            fmt::format("the request's headers did not arrive within {} "
                                        "(floe serve --header-timeout)",
                                        Millis(limits.header_timeout))});
          if (!Write(c)) Close(it);
        } else if (c.phase == Conn::Phase::kBody) {
          Refuse(c, Refusal{408, "BadRequestException",
                            fmt::format("the request's body did not arrive within {} "
                                        "(floe serve --body-timeout)",
                                        Millis(limits.body_timeout))});
          if (!Write(c)) Close(it);
        } else {
          Close(it);  // idle, or a response the client does not read, or done lingering
        }
      }
      it = next;
    }
  }

  Status Loop() {
    std::vector<pollfd> fds;
    std::vector<uint64_t> ids;
    bool listening = true;
    while (true) {
      if (stopping.load()) {
        if (listening) {
          listener.Close();
          listening = false;
        }
        // Requests in flight are finished; connections waiting for or
        // reading a request are closed, and an answer still being sent gets
        // a few seconds more at most (a client that stopped reading does not
        // hold the stop for the whole --body-timeout).
        const auto stop_by = Clock::now() + std::chrono::seconds(5);
        for (auto it = conns.begin(); it != conns.end();) {
          auto next = std::next(it);
          Conn& c = it->second;
          if (c.phase == Conn::Phase::kHead || c.phase == Conn::Phase::kBody ||
              c.phase == Conn::Phase::kLinger) {
            Close(it);
          } else if (c.phase == Conn::Phase::kWrite) {
            c.deadline = std::min(c.deadline, stop_by);
          }
          it = next;
        }
        if (conns.empty()) return Ok();
      }
      fds.clear();
      ids.clear();
      fds.push_back(pollfd{wake_read.get(), POLLIN, 0});
      const auto now = Clock::now();
      const bool accepting = listening && now >= accept_paused_until;
      if (accepting) fds.push_back(pollfd{listener.get(), POLLIN, 0});
      auto wait = Clock::duration::max();
      if (listening && !accepting) wait = accept_paused_until - now;
      for (auto& [id, c] : conns) {
        short events = 0;
        if (c.phase == Conn::Phase::kWrite) {
          events = POLLOUT;
        } else if (c.phase != Conn::Phase::kBusy) {
          events = POLLIN;
        }
        if (events == 0) continue;
        wait = std::min(wait, c.deadline - now);
        fds.push_back(pollfd{c.fd.get(), events, 0});
        ids.push_back(id);
      }
      int timeout_ms = -1;
      if (wait != Clock::duration::max()) {
        auto ms = std::chrono::ceil<std::chrono::milliseconds>(std::max(wait, Clock::duration::zero()));
        timeout_ms = static_cast<int>(std::min<int64_t>(ms.count(), 60'000));
      }
      int n = ::poll(fds.data(), fds.size(), timeout_ms);
      if (n < 0 && errno != EINTR) return IoError("poll on port {}: {}", port, std::strerror(errno));
      if (n > 0) {
        if (fds[0].revents & POLLIN) {
          char buf[256];
          while (::read(wake_read.get(), buf, sizeof buf) > 0) {
          }
        }
        const size_t first_conn = accepting ? 2 : 1;
        for (size_t i = first_conn; i < fds.size(); ++i) {
          if (fds[i].revents == 0) continue;
          auto it = conns.find(ids[i - first_conn]);
          if (it == conns.end()) continue;
          Conn& c = it->second;
          bool alive = true;
          if (fds[i].revents & (POLLERR | POLLNVAL)) {
            alive = false;
          } else if (c.phase == Conn::Phase::kWrite) {
            alive = Write(c);
          } else if (fds[i].revents & (POLLIN | POLLHUP)) {
            alive = Read(c);
            // A refusal found while reading is sent at once.
            if (alive && c.phase == Conn::Phase::kWrite) alive = Write(c);
          }
          if (!alive) Close(it);
        }
        if (accepting && (fds[1].revents & POLLIN)) Accept();
      }
      TakeAnswers();
      Expire();
    }
  }
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() { Stop(); }

Result<std::unique_ptr<HttpServer>> HttpServer::Bind(RestService* service, const std::string& host,
                                                     int port, HttpLimits limits) {
  if (limits.max_connections < 1) return InvalidArgument("max_connections must be at least 1");
  auto impl = std::make_unique<Impl>();
  impl->service = service;
  impl->limits = limits;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service_port = std::to_string(port);
  int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service_port.c_str(), &hints, &found);
  if (rc != 0) {
    return IoError("cannot listen on {}:{}: {}", host, port, ::gai_strerror(rc));
  }
  std::string why = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    UniqueFd fd(::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
    if (fd.get() < 0) {
      why = std::strerror(errno);
      continue;
    }
    int one = 1;
    (void)::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd.get(), SOMAXCONN) != 0) {
      why = std::strerror(errno);
      continue;
    }
    impl->listener = std::move(fd);
    break;
  }
  ::freeaddrinfo(found);
  if (impl->listener.get() < 0) {
    return IoError("cannot listen on {}:{} ({}: in use, or not an address of this machine)", host,
                   port, why);
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  if (::getsockname(impl->listener.get(), reinterpret_cast<sockaddr*>(&bound), &len) != 0)
    return IoError("cannot read the port of {}:{}: {}", host, port, std::strerror(errno));
  impl->port = bound.ss_family == AF_INET6
                   ? ntohs(reinterpret_cast<const sockaddr_in6&>(bound).sin6_port)
                   : ntohs(reinterpret_cast<const sockaddr_in&>(bound).sin_port);
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_NONBLOCK | O_CLOEXEC) != 0)
    return IoError("cannot make the server's wake-up pipe: {}", std::strerror(errno));
  impl->wake_read = UniqueFd(pipe_fds[0]);
  impl->wake_write = UniqueFd(pipe_fds[1]);
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

int HttpServer::port() const { return impl_->port; }

int HttpServer::open_connections() const { return impl_->open.load(); }

Status HttpServer::Serve() {
  Impl& s = *impl_;
  std::vector<std::thread> workers;
  for (int i = 0; i < std::max(1, s.limits.workers); ++i)
    workers.emplace_back([&s] { s.WorkerLoop(); });
  Status served = s.Loop();
  {
    std::lock_guard lock(s.jobs_mu);
    s.jobs_closed = true;
  }
  s.jobs_cv.notify_all();
  for (auto& t : workers) t.join();
  s.conns.clear();
  s.open.store(0);
  return served;
}

void HttpServer::Stop() {
  impl_->stopping.store(true);
  impl_->Wake();
}

}  // namespace floe::server
