// libcurl transport for the REST catalog client (rest_http.h).

#include "floe/catalog/rest_http.h"

#include <curl/curl.h>

#include <mutex>

namespace floe::catalog::rest {

namespace {

// curl_global_init is not thread-safe and must run once before any handle.
void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t AppendBody(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

struct HandleCloser {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
struct ListCloser {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

}  // namespace

HttpOutcome SendHttp(const HttpRequest& request, const HttpTimeouts& timeouts) {
  GlobalInit();
  HttpOutcome out;
  std::unique_ptr<CURL, HandleCloser> h(curl_easy_init());
  if (!h) {
    out.failure.message = "cannot create a libcurl handle";
    return out;
  }
  CURL* c = h.get();
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeouts.connect_ms));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeouts.request_ms));
  // Only http(s), and never follow a redirect: a redirected POST could be
  // replayed somewhere else, and a commit must be sent exactly once.
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &out.response.body);
  if (request.method == "HEAD") {
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else if (request.method == "POST") {
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  } else if (request.method != "GET") {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  curl_slist* list = nullptr;
  for (const auto& [k, v] : request.headers) {
    std::string line = k + ": " + v;
    list = curl_slist_append(list, line.c_str());
  }
  // No "Expect: 100-continue" round trip for large bodies.
  list = curl_slist_append(list, "Expect:");
  std::unique_ptr<curl_slist, ListCloser> headers(list);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);

  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    long sent = 0;
    curl_easy_getinfo(c, CURLINFO_REQUEST_SIZE, &sent);
    out.failure.message = errbuf[0] ? std::string(errbuf) : std::string(curl_easy_strerror(rc));
    out.failure.timed_out = rc == CURLE_OPERATION_TIMEDOUT;
    out.failure.maybe_delivered = sent > 0;
    return out;
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  out.ok = true;
  out.response.status = status;
  return out;
}

std::string UrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char ch : text) {
    if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
        ch == '-' || ch == '_' || ch == '.' || ch == '~') {
      out.push_back(static_cast<char>(ch));
    } else {
      out.push_back('%');
      out.push_back(kHex[ch >> 4]);
      out.push_back(kHex[ch & 15]);
    }
  }
  return out;
}

}  // namespace floe::catalog::rest
