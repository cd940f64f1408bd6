// The S3 REST client (s3_client.h) over libcurl.
#include "floe/s3/s3_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <random>
#include <thread>

#include "floe/util/strings.h"

namespace floe::s3 {

namespace {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Transfer {
  std::string_view upload;  // the body still to send
  size_t sent = 0;
  S3Response* response = nullptr;
  // The stall check (OnProgress): when a byte last moved, and how many had.
  void* handle = nullptr;
  int64_t stall_ms = 0;
  std::chrono::steady_clock::time_point last_move;
  curl_off_t down = 0, up = 0;
  bool stalled = false;
};

// libcurl's progress callback, called about once a second while nothing
// moves: fails the transfer when no byte went either way for stall_ms once
// the connection is up (connecting has its own time-out). libcurl's own
// low-speed check averages over several seconds, so a request whose body
// went out at once was failed seconds after the time-out.
int OnProgress(void* user, curl_off_t, curl_off_t down, curl_off_t, curl_off_t up) {
  auto* t = static_cast<Transfer*>(user);
  const auto now = std::chrono::steady_clock::now();
  curl_off_t pretransfer = 0;
  curl_easy_getinfo(static_cast<CURL*>(t->handle), CURLINFO_PRETRANSFER_TIME_T, &pretransfer);
  if (pretransfer == 0 || down != t->down || up != t->up) {
    t->down = down;
    t->up = up;
    t->last_move = now;
    return 0;
  }
  if (now - t->last_move >= std::chrono::milliseconds(t->stall_ms)) {
    t->stalled = true;
    return 1;  // CURLE_ABORTED_BY_CALLBACK
  }
  return 0;
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  static_cast<Transfer*>(user)->response->body.append(data, size * n);
  return size * n;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  std::string_view line(data, size * n);
  auto colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() &&
           (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
      value.remove_suffix(1);
    }
    static_cast<Transfer*>(user)->response->headers[ToLower(line.substr(0, colon))] =
        std::string(value);
  } else if (line.starts_with("HTTP/")) {
    // A new response (after a 100 Continue): forget the earlier headers.
    static_cast<Transfer*>(user)->response->headers.clear();
  }
  return size * n;
}

size_t OnRead(char* buffer, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t take = std::min(size * n, t->upload.size() - t->sent);
  std::memcpy(buffer, t->upload.data() + t->sent, take);
  t->sent += take;
  return take;
}

std::mutex g_warn_mu;
std::function<void(const std::string&)>* g_warn = nullptr;

}  // namespace

S3Client::S3Client(S3Config config) : config_(std::move(config)) {
  GlobalInit();
  std::string ep = config_.endpoint;
  if (ep.empty()) ep = "https://s3." + config_.region + ".amazonaws.com";
  auto sep = ep.find("://");
  scheme_ = sep == std::string::npos ? "https" : ToLower(ep.substr(0, sep));
  std::string rest = sep == std::string::npos ? ep : ep.substr(sep + 3);
  hostport_ = rest.substr(0, rest.find('/'));
}

S3Client::~S3Client() {
  for (void* h : idle_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* S3Client::Acquire() {
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      void* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  return curl_easy_init();
}

void S3Client::Release(void* handle) {
  std::lock_guard lock(mu_);
  // A handle keeps its connection open for the next request; a few are kept.
  if (idle_.size() < 16) {
    idle_.push_back(handle);
  } else {
    curl_easy_cleanup(static_cast<CURL*>(handle));
  }
}

int64_t S3Client::requests(std::string_view method) const {
  if (method == "GET") return gets_.load();
  if (method == "HEAD") return heads_.load();
  if (method == "PUT") return puts_.load();
  if (method == "POST") return posts_.load();
  if (method == "DELETE") return deletes_.load();
  return 0;
}

std::pair<std::string, std::string> S3Client::UrlOf(const S3Request& r) const {
  std::string host = hostport_;
  std::string path;
  if (config_.path_style || r.bucket.empty()) {
    path = "/" + r.bucket;
    if (!r.key.empty()) path += "/" + r.key;
  } else {
    host = r.bucket + "." + hostport_;
    path = "/" + r.key;
  }
  std::string url = scheme_ + "://" + host + UriEncode(path, true);
  std::string q = CanonicalQueryString(r.query);
  if (!q.empty()) url += "?" + q;
  return {url, host};
}

Exchange S3Client::SendOnce(const S3Request& r) {
  Exchange ex;
  ex.attempts = 1;
  ++requests_;
  if (r.method == "GET") ++gets_;
  if (r.method == "HEAD") ++heads_;
  if (r.method == "PUT") ++puts_;
  if (r.method == "POST") ++posts_;
  if (r.method == "DELETE") ++deletes_;

  auto [url, host] = UrlOf(r);
  SigningRequest s;
  s.method = r.method;
  s.path = config_.path_style || r.bucket.empty()
               ? "/" + r.bucket + (r.key.empty() ? "" : "/" + r.key)
               : "/" + r.key;
  s.query = r.query;
  // The real SHA-256 of the body: the store can check that what arrived is
  // what was signed (UNSIGNED-PAYLOAD would give that up).
  s.payload_sha256 = Sha256Hex(r.body);
  const std::string date = AmzDate(static_cast<int64_t>(std::time(nullptr)));
  s.headers = r.headers;
  s.headers.emplace_back("host", host);
  s.headers.emplace_back("x-amz-date", date);
  s.headers.emplace_back("x-amz-content-sha256", s.payload_sha256);
  if (!config_.credentials.session_token.empty()) {
    s.headers.emplace_back("x-amz-security-token", config_.credentials.session_token);
  }
  std::vector<std::string> lines;
  for (const auto& [k, v] : s.headers) lines.push_back(k + ": " + v);
  if (!config_.credentials.access_key_id.empty()) {
    Signature sig = SignV4(s, config_.credentials, date, config_.region);
    lines.push_back("Authorization: " + sig.authorization);
  }
  lines.push_back("Expect:");  // no 100-continue round trip
  curl_slist* list = nullptr;
  for (const auto& l : lines) list = curl_slist_append(list, l.c_str());

  CURL* c = static_cast<CURL*>(Acquire());
  if (!c) {
    curl_slist_free_all(list);
    ex.failure = "cannot create a libcurl handle";
    return ex;
  }
  curl_easy_reset(c);
  char errbuf[CURL_ERROR_SIZE] = {0};
  Transfer t;
  t.upload = r.body;
  t.response = &ex.response;
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(config_.connect_timeout_ms));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(config_.request_timeout_ms));
  // A peer that stops moving bytes (OnProgress).
  t.handle = c;
  t.stall_ms = std::max<int64_t>(1, config_.stall_timeout_ms);
  t.last_move = std::chrono::steady_clock::now();
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, OnProgress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
  if (r.method == "HEAD") {
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else if (r.method == "PUT" || r.method == "POST") {
    // Streamed from the caller's buffer (no copy), with its length known.
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_READFUNCTION, OnRead);
    curl_easy_setopt(c, CURLOPT_READDATA, &t);
    curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
    if (r.method == "POST") curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "POST");
  } else if (r.method != "GET") {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  }
  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    long sent = 0;
    curl_easy_getinfo(c, CURLINFO_REQUEST_SIZE, &sent);
    // libcurl's text names the host and the failure, never a header value.
    ex.failure = errbuf[0] ? std::string(errbuf) : std::string(curl_easy_strerror(rc));
    if (t.stalled) {
      ex.failure = fmt::format("the store stalled: no byte moved for {} ms (s3.socket-timeout-ms={})",
                               config_.stall_timeout_ms, config_.stall_timeout_ms);
    } else if (rc == CURLE_OPERATION_TIMEDOUT) {
      // Which limit it was is in libcurl's text; the options that set them here.
      ex.failure += fmt::format(
          "; s3.connection-timeout-ms={}, s3.socket-timeout-ms={} (no byte moved), {} ms for a whole "
          "request",
          config_.connect_timeout_ms, config_.stall_timeout_ms, config_.request_timeout_ms);
    }
    ex.maybe_applied = sent > 0 || t.sent > 0;
    // A handle whose connection broke is not reused.
    curl_easy_cleanup(c);
  } else {
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    ex.ok = true;
    ex.response.status = status;
    // After a 5xx the connection is not reused: a store that failed in the
    // middle of a request may not have read the rest of its body (s3rver on a
    // full disk), and the next request on it would hang until reset.
    if (status >= 500) {
      curl_easy_cleanup(c);
    } else {
      Release(c);
    }
  }
  curl_slist_free_all(list);
  return ex;
}

Exchange S3Client::Send(const S3Request& request, Retry retry) {
  bool maybe_applied = false;
  const int attempts = std::max(1, config_.max_attempts);
  for (int attempt = 1;; ++attempt) {
    Exchange ex = SendOnce(request);
    ex.attempts = attempt;
    bool transient = false;
    if (!ex.ok) {
      transient = true;
      maybe_applied = maybe_applied || ex.maybe_applied;
      // A request that may have reached the store is sent again only when
      // that is harmless.
      if (ex.maybe_applied && retry == Retry::kNever) {
        ex.maybe_applied = true;
        return ex;
      }
    } else if (ex.response.status >= 500 || ex.response.status == 429) {
      transient = true;
      // S3 documents a 5xx as "not applied" for most calls, but an internal
      // error of a write may still have landed: a conditional write's
      // caller is told.
      maybe_applied = maybe_applied || ex.response.status >= 500;
      if (retry == Retry::kNever) {
        ex.maybe_applied = ex.response.status >= 500;
        return ex;
      }
    }
    ex.maybe_applied = maybe_applied;
    if (!transient || attempt >= attempts) return ex;
    std::this_thread::sleep_for(std::chrono::milliseconds(RetryWaitMs(config_, attempt)));
  }
}

int64_t RetryWaitMs(const S3Config& config, int retry) {
  // Full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter")
  // above a floor: a uniform wait up to the exponential cap.
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const int64_t low = std::max<int64_t>(0, config.retry_min_wait_ms);
  const int64_t high = std::max(low, config.retry_max_wait_ms);
  const int shift = std::clamp(retry, 0, 20);
  const int64_t base = std::max<int64_t>(low, 1);
  // min * 2^retry, without overflowing: past `high` it is `high`.
  const int64_t cap = base > (high >> shift) ? high : std::max(low, base << shift);
  std::uniform_int_distribution<int64_t> wait(low, cap);
  return wait(rng);
}

std::string S3Uri(std::string_view bucket, std::string_view key) {
  return "s3://" + std::string(bucket) + "/" + std::string(key);
}

std::string ResponseSummary(const S3Response& response) {
  std::string code = XmlText(response.body, "Code").value_or("");
  std::string message = XmlText(response.body, "Message").value_or("");
  std::string detail = fmt::format("HTTP {}", response.status);
  if (!code.empty()) detail += " " + code;
  if (!message.empty()) detail += ": " + message;
  return detail;
}

Error ErrorOf(const S3Response& response, std::string_view what, std::string_view bucket,
              std::string_view key) {
  const std::string detail = ResponseSummary(response);
  const std::string uri = S3Uri(bucket, key);
  const int64_t s = response.status;
  if (s == 404)
    return Error{ErrorKind::kNotFound, fmt::format("{} {}: not found ({})", what, uri, detail),
                 false};
  if (s == 412) {
    return Error{
        ErrorKind::kAlreadyExists,
        fmt::format("{} {}: a precondition failed, the object exists ({})", what, uri, detail),
        false};
  }
  if (s == 403) {
    return Error{
        ErrorKind::kIo,
        fmt::format("{} {}: access denied ({}); check s3.access-key-id / s3.secret-access-key "
                    "(or AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY), client.region and the "
                    "bucket's permissions",
                    what, uri, detail),
        false};
  }
  const bool retryable = s >= 500 || s == 429;
  return Error{ErrorKind::kIo, fmt::format("{} {}: {}", what, uri, detail), retryable};
}

Error TransportErrorOf(const Exchange& ex, std::string_view what, std::string_view bucket,
                       std::string_view key) {
  return Error{
      ErrorKind::kIo,
      fmt::format("{} {}: no answer from the store after {} attempt{} ({})", what,
                  S3Uri(bucket, key), ex.attempts, ex.attempts == 1 ? "" : "s", ex.failure),
      true};
}

std::vector<std::string_view> XmlElements(std::string_view xml, std::string_view tag) {
  std::vector<std::string_view> out;
  const std::string open = "<" + std::string(tag);
  const std::string close = "</" + std::string(tag) + ">";
  size_t pos = 0;
  while (true) {
    size_t start = xml.find(open, pos);
    if (start == std::string_view::npos) break;
    size_t after = start + open.size();
    if (after >= xml.size()) break;
    // `<Key>` or `<Key attr=...>`, not `<KeyCount>`; `<Key/>` is empty.
    if (xml[after] != '>' && xml[after] != ' ' && xml[after] != '/') {
      pos = after;
      continue;
    }
    size_t gt = xml.find('>', after);
    if (gt == std::string_view::npos) break;
    if (xml[gt - 1] == '/') {
      out.emplace_back();
      pos = gt + 1;
      continue;
    }
    size_t end = xml.find(close, gt + 1);
    if (end == std::string_view::npos) break;
    out.push_back(xml.substr(gt + 1, end - gt - 1));
    pos = end + close.size();
  }
  return out;
}

std::optional<std::string> XmlText(std::string_view xml, std::string_view tag) {
  auto all = XmlElements(xml, tag);
  if (all.empty()) return std::nullopt;
  return XmlDecode(all.front());
}

std::string XmlDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out.push_back(text[i]);
      continue;
    }
    size_t semi = text.find(';', i);
    if (semi == std::string_view::npos) {
      out.push_back('&');
      continue;
    }
    std::string_view ent = text.substr(i + 1, semi - i - 1);
    if (ent == "amp")
      out += '&';
    else if (ent == "lt")
      out += '<';
    else if (ent == "gt")
      out += '>';
    else if (ent == "quot")
      out += '"';
    else if (ent == "apos")
      out += '\'';
    else if (ent.starts_with("#")) {
      uint32_t cp = 0;
      bool hex = ent.size() > 1 && (ent[1] == 'x' || ent[1] == 'X');
      for (char ch : ent.substr(hex ? 2 : 1)) {
        int d = (ch >= '0' && ch <= '9')        ? ch - '0'
                : hex && ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                : hex && ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                                : -1;
        if (d < 0) break;
        cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(d);
        if (cp > 0x10FFFF) break;
      }
      // UTF-8 of the code point.
      if (cp < 0x80) {
        out += static_cast<char>(cp);
      } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      }
    } else {
      out.append(text.substr(i, semi - i + 1));
    }
    i = semi;
  }
  return out;
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += fmt::format("&#{};", static_cast<int>(c));
        } else {
          out += c;
        }
    }
  }
  return out;
}

int64_t ParseS3Time(std::string_view text) {
  std::tm tm{};
  std::string s(text);
  const char* end = ::strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  int64_t ms = 0;
  if (end) {
    if (*end == '.') {
      int digits = 0;
      for (++end; *end >= '0' && *end <= '9'; ++end) {
        if (digits < 3) ms = ms * 10 + (*end - '0');
        ++digits;
      }
      for (; digits < 3; ++digits) ms *= 10;
    }
  } else {
    tm = {};
    end = ::strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S", &tm);
    if (!end) return 0;
  }
  return static_cast<int64_t>(::timegm(&tm)) * 1000 + ms;
}

void SetS3WarningHandler(std::function<void(const std::string&)> handler) {
  std::lock_guard lock(g_warn_mu);
  delete g_warn;
  g_warn = handler ? new std::function<void(const std::string&)>(std::move(handler)) : nullptr;
}

void S3Warn(const std::string& warning) {
  std::lock_guard lock(g_warn_mu);
  if (g_warn) (*g_warn)(warning);
}

}  // namespace floe::s3
