// The S3 FileIO (s3_file_io.h).
#include "floe/s3/s3_file_io.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <future>
#include <mutex>
#include <random>
#include <thread>

#include "floe/config/options.h"
#include "floe/util/strings.h"
#include "floe/util/uuid.h"

namespace floe::s3 {

namespace {

std::string TrimSlashes(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

// The key prefix of the folder `key` ("" is the bucket's root).
std::string FolderPrefix(const std::string& key) {
  std::string k = TrimSlashes(key);
  return k.empty() ? k : k + "/";
}

// `location` without trailing slashes, for spelling listed entries under it.
std::string ListedRoot(std::string_view location) {
  std::string s(location);
  while (s.size() > 1 && s.back() == '/' && !s.ends_with("://")) s.pop_back();
  return s;
}

// Decodes %XY escapes (a listing with encoding-type=url; `+` is a space there).
std::string PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
    } else if (s[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// One entry of a listing page.
struct ListEntry {
  std::string key;
  int64_t size = 0;
  int64_t modified_ms = 0;
};
struct ListPage {
  std::vector<ListEntry> objects;
  std::vector<std::string> prefixes;  // common prefixes (with their trailing slash)
  std::optional<std::string> next;    // continuation token
};

// ---------------------------------------------------------------- the FileIO

class S3FileIOImpl;

class S3InputFile final : public InputFile {
 public:
  S3InputFile(std::shared_ptr<S3Client> client, std::string location, S3Location loc, int64_t size)
      : client_(std::move(client)),
        location_(std::move(location)),
        loc_(std::move(loc)),
        size_(size) {}

  int64_t Size() const override { return size_; }
  const std::string& path() const override { return location_; }

  Status ReadAt(int64_t offset, size_t size, uint8_t* out) const override {
    if (size == 0) return Ok();
    if (offset < 0 || offset + static_cast<int64_t>(size) > size_) {
      return Corrupt("{}: read of {} bytes at offset {} is past the end ({} bytes)", location_,
                     size, offset, size_);
    }
    const int64_t end = offset + static_cast<int64_t>(size);
    std::lock_guard lock(mu_);
    for (const auto& w : windows_) {
      if (offset >= w.start && end <= w.start + static_cast<int64_t>(w.data.size())) {
        std::memcpy(out, w.data.data() + (offset - w.start), size);
        return Ok();
      }
    }
    const int64_t ahead = client_->config().read_ahead;
    if (static_cast<int64_t>(size) >= ahead) {
      // A large read (a column chunk): fetched as asked, not kept.
      FLOE_ASSIGN_OR_RETURN(std::string data, Fetch(offset, end));
      std::memcpy(out, data.data(), size);
      return Ok();
    }
    // A small read: the window of `ahead` bytes from here, or the last
    // `ahead` bytes of the file when the read is near its end (the footer).
    int64_t start = offset;
    if (start + ahead > size_) start = std::max<int64_t>(0, size_ - ahead);
    const int64_t stop = std::min(size_, start + ahead);
    FLOE_ASSIGN_OR_RETURN(std::string data, Fetch(start, stop));
    std::memcpy(out, data.data() + (offset - start), size);
    if (windows_.size() >= 2) windows_.pop_front();
    windows_.push_back(Window{start, std::move(data)});
    return Ok();
  }

 private:
  struct Window {
    int64_t start = 0;
    std::string data;
  };

  // Bytes [begin, end) with an explicit range (never a suffix range).
  Result<std::string> Fetch(int64_t begin, int64_t end) const {
    S3Request r;
    r.method = "GET";
    r.bucket = loc_.bucket;
    r.key = loc_.key;
    r.headers.emplace_back("range", fmt::format("bytes={}-{}", begin, end - 1));
    Exchange ex = client_->Send(r);
    if (!ex.ok) return Fail(TransportErrorOf(ex, "cannot read", loc_.bucket, loc_.key));
    if (ex.response.status == 416) {
      return Corrupt("{}: bytes {}-{} are past the end of the object (it changed or was truncated)",
                     location_, begin, end - 1);
    }
    if (ex.response.status != 206 && ex.response.status != 200) {
      return Fail(ErrorOf(ex.response, "cannot read", loc_.bucket, loc_.key));
    }
    std::string body = std::move(ex.response.body);
    if (ex.response.status == 200) {
      // A store that ignores Range sends the whole object.
      if (static_cast<int64_t>(body.size()) < end) {
        return Corrupt("{}: the object has {} bytes, {} expected", location_, body.size(), size_);
      }
      body = body.substr(static_cast<size_t>(begin), static_cast<size_t>(end - begin));
    }
    if (static_cast<int64_t>(body.size()) != end - begin) {
      return Corrupt(
          "{}: asked for bytes {}-{}, got {} bytes (the object changed or was truncated)",
          location_, begin, end - 1, body.size());
    }
    return body;
  }

  std::shared_ptr<S3Client> client_;
  std::string location_;
  S3Location loc_;
  int64_t size_;
  mutable std::mutex mu_;
  mutable std::deque<Window> windows_;
};

// The wait before attempt `attempt + 1` of a request sent by hand (as
// S3Client::Send).
void Backoff(const S3Config& c, int attempt) {
  std::this_thread::sleep_for(std::chrono::milliseconds(RetryWaitMs(c, attempt)));
}

// What an attempt that failed came to, for messages: "HTTP 500 InternalError:
// ..." or libcurl's text.
std::string AttemptFailure(const Exchange& ex) {
  return ex.ok ? ResponseSummary(ex.response) : "no answer: " + ex.failure;
}

// A single PUT of a whole object. With `if_absent`, `If-None-Match: *`:
// 412 is kAlreadyExists; an unknown outcome is resolved as s3_file_io.h says.
// A 412 after an attempt whose outcome is unknown finds either our bytes
// (ours: done), other bytes (another writer's: kAlreadyExists), or a strict
// prefix of ours, the empty object included: what a store whose writes are
// not atomic keeps of an attempt it failed (a full disk, a request cut off
// after a stall). Such an object is removed when `remove_cut_off` (an
// output's object, whose name nobody else writes: kIo naming the first
// failure), else left (a metadata version, which a concurrent writer may be
// writing on such a store: kCommitStateUnknown).
Status PutObject(S3Client& client, const S3Location& loc, std::string_view data, bool if_absent,
                 std::string_view what, bool remove_cut_off = false) {
  S3Request r;
  r.method = "PUT";
  r.bucket = loc.bucket;
  r.key = loc.key;
  r.body = data;
  if (!if_absent) {
    Exchange ex = client.Send(r);
    if (!ex.ok) return Fail(TransportErrorOf(ex, what, loc.bucket, loc.key));
    if (ex.response.status / 100 != 2) return Fail(ErrorOf(ex.response, what, loc.bucket, loc.key));
    return Ok();
  }
  r.headers.emplace_back("if-none-match", "*");
  bool uncertain = false;
  std::string first;  // the first failed attempt, as the store or libcurl told it
  std::string last;
  const int attempts = std::max(1, client.config().max_attempts);
  const std::string uri = S3Uri(loc.bucket, loc.key);
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    Exchange ex = client.Send(r, Retry::kNever);
    if (ex.ok && ex.response.status / 100 == 2) return Ok();
    if (ex.ok && ex.response.status == 412) {
      if (!uncertain) return Fail(ErrorOf(ex.response, what, loc.bucket, loc.key));
      // An earlier attempt may have written it: ours only if it holds our bytes.
      S3Request g;
      g.method = "GET";
      g.bucket = loc.bucket;
      g.key = loc.key;
      Exchange got = client.Send(g);
      if (!got.ok || got.response.status != 200) {
        return CommitStateUnknown(
            "{} {}: an earlier attempt may have written it, and it cannot be read back to tell", what,
            uri);
      }
      const std::string& stored = got.response.body;
      if (stored == data) return Ok();
      if (!data.starts_with(stored)) return Fail(ErrorOf(ex.response, what, loc.bucket, loc.key));
      const std::string kept = fmt::format(
          "{} {}: the store failed the write (attempt 1: {}) and kept {} of its {} bytes (a full store, "
          "or a request cut off after a stall)",
          what, uri, first, stored.size(), data.size());
      if (!remove_cut_off) {
        return CommitStateUnknown(
            "{}; that object is left as it is (on a store whose writes are not atomic, another writer "
            "may be writing it)",
            kept);
      }
      S3Request d;
      d.method = "DELETE";
      d.bucket = loc.bucket;
      d.key = loc.key;
      Exchange del = client.Send(d);
      const bool removed = del.ok && (del.response.status / 100 == 2 || del.response.status == 404);
      return Fail(Error{ErrorKind::kIo,
                        removed ? kept + "; floe removed that object"
                                : fmt::format("{}; removing that object failed too ({})", kept,
                                              AttemptFailure(del)),
                        false});
    }
    if (ex.ok && ex.response.status < 500 && ex.response.status != 429) {
      return Fail(ErrorOf(ex.response, what, loc.bucket, loc.key));
    }
    uncertain = uncertain || ex.maybe_applied;
    if (first.empty()) first = AttemptFailure(ex);
    last = ex.ok ? ErrorOf(ex.response, what, loc.bucket, loc.key).message
                 : TransportErrorOf(ex, what, loc.bucket, loc.key).message;
    if (attempt < attempts) Backoff(client.config(), attempt);
  }
  if (uncertain) {
    return CommitStateUnknown("{} {}: the outcome is unknown after {} attempts (last: {})", what, uri,
                              attempts, last);
  }
  return IoError("{}", last);
}

// An output's Commit is not a table commit (OutputFile::Commit knows no
// kCommitStateUnknown): an object write whose outcome is unknown is an I/O
// error, so that the caller removes what it wrote (the object, if it
// landed, is referenced by nothing yet). Reported as kCommitStateUnknown, it
// would make the table layer keep every file of a write that never
// committed.
Status AsOutputError(Status st) {
  if (st || st.error().kind != ErrorKind::kCommitStateUnknown) return st;
  return Fail(Error{
      ErrorKind::kIo,
      fmt::format("{} (the object may or may not have been written)", st.error().message), false});
}

// The user metadata entry that marks the object a multipart upload made.
constexpr const char* kUploadTokenHeader = "x-amz-meta-floe-upload";

class S3OutputFile final : public OutputFile {
 public:
  S3OutputFile(std::shared_ptr<S3Client> client, std::string location, S3Location loc,
               bool overwrite)
      : client_(std::move(client)),
        location_(std::move(location)),
        loc_(std::move(loc)),
        overwrite_(overwrite) {}

  ~S3OutputFile() override {
    if (!done_) Abort();
  }

  Status Write(const void* data, size_t size) override {
    if (done_) return Internal("{}: write after commit or abort", location_);
    if (failed_) return Fail(*failed_);
    const auto* p = static_cast<const char*>(data);
    const size_t part = static_cast<size_t>(client_->config().part_size);
    while (size > 0) {
      size_t take = std::min(size, part - buffer_.size());
      if (buffer_.capacity() < part) buffer_.reserve(part);
      buffer_.append(p, take);
      p += take;
      size -= take;
      written_ += static_cast<int64_t>(take);
      if (buffer_.size() >= part) FLOE_RETURN_IF_ERROR(SendPart());
    }
    return Ok();
  }

  int64_t Tell() const override { return written_; }
  const std::string& path() const override { return location_; }

  Status Commit() override {
    if (done_) return Internal("{}: commit after commit or abort", location_);
    if (failed_) {
      Abort();
      return Fail(*failed_);
    }
    if (upload_id_.empty()) {
      done_ = true;
      Status st = PutObject(*client_, loc_, buffer_, !overwrite_, "cannot write",
                            /*remove_cut_off=*/true);
      buffer_ = std::string();
      return AsOutputError(std::move(st));
    }
    if (!buffer_.empty()) {
      if (Status st = SendPart(); !st) {
        Abort();
        return st;
      }
    }
    while (!inflight_.empty()) {
      if (Status st = WaitOldest(); !st) {
        Abort();
        return st;
      }
    }
    std::string xml = "<CompleteMultipartUpload>";
    for (size_t i = 0; i < etags_.size(); ++i) {
      xml += fmt::format("<Part><PartNumber>{}</PartNumber><ETag>{}</ETag></Part>", i + 1,
                         XmlEscape(etags_[i]));
    }
    xml += "</CompleteMultipartUpload>";
    S3Request r;
    r.method = "POST";
    r.bucket = loc_.bucket;
    r.key = loc_.key;
    r.query = {{"uploadId", upload_id_}};
    r.body = xml;
    if (!overwrite_) r.headers.emplace_back("if-none-match", "*");
    Status st = Complete(r);
    if (!st) {
      // An upload that may have completed is not aborted (nothing to abort).
      if (st.error().kind != ErrorKind::kCommitStateUnknown) AbortUpload();
      done_ = true;
      return AsOutputError(std::move(st));
    }
    done_ = true;
    return Ok();
  }

  void Abort() override {
    if (done_) return;
    done_ = true;
    buffer_ = std::string();
    while (!inflight_.empty()) (void)WaitOldest();
    if (!upload_id_.empty()) AbortUpload();
  }

 private:
  // Starts the upload of the buffered bytes as the next part (the multipart
  // upload is created with the first part); waits for the oldest part when
  // max_parts_in_flight are uploading.
  Status SendPart() {
    if (upload_id_.empty()) {
      S3Request r;
      r.method = "POST";
      r.bucket = loc_.bucket;
      r.key = loc_.key;
      r.query = {{"uploads", ""}};
      // Marks the object this upload makes, so that a completion whose
      // answer was lost can be recognised (Commit).
      upload_token_ = RandomUuid();
      r.headers.emplace_back(kUploadTokenHeader, upload_token_);
      Exchange ex = client_->Send(r);
      if (!ex.ok)
        return Remember(TransportErrorOf(ex, "cannot start the upload of", loc_.bucket, loc_.key));
      if (ex.response.status / 100 != 2) {
        return Remember(ErrorOf(ex.response, "cannot start the upload of", loc_.bucket, loc_.key));
      }
      auto id = XmlText(ex.response.body, "UploadId");
      if (!id || id->empty()) {
        return Remember(
            Error{ErrorKind::kIo,
                  fmt::format("cannot start the upload of {}: the answer has no UploadId",
                              S3Uri(loc_.bucket, loc_.key)),
                  false});
      }
      upload_id_ = *id;
    }
    while (static_cast<int>(inflight_.size()) >=
           std::max(1, client_->config().max_parts_in_flight)) {
      FLOE_RETURN_IF_ERROR(WaitOldest());
    }
    const int number = ++parts_;
    auto data = std::make_shared<std::string>(std::move(buffer_));
    buffer_ = std::string();
    auto client = client_;
    S3Location loc = loc_;
    std::string upload = upload_id_;
    inflight_.push_back(std::async(
        std::launch::async, [client, loc, upload, number, data]() -> Result<std::string> {
          S3Request r;
          r.method = "PUT";
          r.bucket = loc.bucket;
          r.key = loc.key;
          r.query = {{"partNumber", std::to_string(number)}, {"uploadId", upload}};
          r.body = *data;
          // A part sent again replaces itself: retried as idempotent.
          Exchange ex = client->Send(r);
          const std::string what = fmt::format("cannot upload part {} of", number);
          if (!ex.ok) return Fail(TransportErrorOf(ex, what, loc.bucket, loc.key));
          if (ex.response.status / 100 != 2)
            return Fail(ErrorOf(ex.response, what, loc.bucket, loc.key));
          std::string etag = ex.response.Header("etag");
          if (etag.empty()) {
            return IoError("{} {}: the answer has no ETag", what, S3Uri(loc.bucket, loc.key));
          }
          return etag;
        }));
    return Ok();
  }

  // CompleteMultipartUpload. An answer that is lost (or a 5xx) leaves the
  // outcome unknown: it is sent again, and a 412 or NoSuchUpload after that
  // is resolved by the object's ETag, which for a multipart object is the
  // MD5 of its parts' MD5s and their count: equal means this upload made it.
  Status Complete(const S3Request& r) {
    const std::string what = "cannot complete the upload of";
    bool uncertain = false;
    std::string last;
    const int attempts = std::max(1, client_->config().max_attempts);
    for (int attempt = 1; attempt <= attempts; ++attempt) {
      Exchange ex = client_->Send(r, Retry::kNever);
      // S3 may answer 200 and put the error in the body.
      const bool error_body =
          ex.ok && ex.response.status / 100 == 2 && ex.response.body.find("<Error>") != std::string::npos;
      if (ex.ok && ex.response.status / 100 == 2 && !error_body) return Ok();
      if (ex.ok && !error_body && ex.response.status < 500 && ex.response.status != 429) {
        if (uncertain && (ex.response.status == 412 || ex.response.status == 404)) {
          S3Request h;
          h.method = "HEAD";
          h.bucket = loc_.bucket;
          h.key = loc_.key;
          Exchange head = client_->Send(h);
          if (head.ok && head.response.status == 200) {
            // This upload's token in the object's metadata: ours, on any
            // store that keeps user metadata (s3rver included).
            if (!upload_token_.empty() &&
                head.response.Header(kUploadTokenHeader) == upload_token_) {
              return Ok();
            }
            const std::string etag = head.response.Header("etag");
            if (SameEtag(etag, MultipartEtag())) return Ok();
            // A store whose ETags are not S3's multipart form (s3rver: the
            // MD5 of the whole object) cannot tell whose object it is.
            if (etag.find('-') == std::string::npos) {
              return CommitStateUnknown(
                  "{} {}: an earlier attempt may have completed it, and the store's ETag ({}) is not in S3's "
                  "multipart form, so whose object it is cannot be told",
                  what, S3Uri(loc_.bucket, loc_.key), etag);
            }
          }
          if (ex.response.status == 404) {
            return CommitStateUnknown("{} {}: an earlier attempt may have completed it, and the object cannot tell",
                                      what, S3Uri(loc_.bucket, loc_.key));
          }
        }
        return Fail(ErrorOf(ex.response, what, loc_.bucket, loc_.key));
      }
      uncertain = uncertain || ex.maybe_applied || error_body;
      last = ex.ok ? ErrorOf(ex.response, what, loc_.bucket, loc_.key).message
                   : TransportErrorOf(ex, what, loc_.bucket, loc_.key).message;
      if (attempt < attempts) Backoff(client_->config(), attempt);
    }
    if (uncertain) {
      return CommitStateUnknown("{} {}: the outcome is unknown after {} attempts (last: {})", what,
                                S3Uri(loc_.bucket, loc_.key), attempts, last);
    }
    return IoError("{}", last);
  }

  static bool SameEtag(std::string a, std::string b) {
    auto strip = [](std::string& s) { std::erase(s, '"'); };
    strip(a);
    strip(b);
    return !a.empty() && a == b;
  }

  // The ETag S3 gives the completed object: hex MD5 of the concatenated
  // binary MD5s of the parts, then `-<parts>`.
  std::string MultipartEtag() const {
    std::string raw;
    for (std::string e : etags_) {
      std::erase(e, '"');
      for (size_t i = 0; i + 1 < e.size(); i += 2) {
        raw.push_back(static_cast<char>(std::stoi(e.substr(i, 2), nullptr, 16)));
      }
    }
    return Md5Hex(raw) + "-" + std::to_string(etags_.size());
  }

  Status WaitOldest() {
    Result<std::string> r = inflight_.front().get();
    inflight_.pop_front();
    if (!r) return Remember(r.error());
    etags_.push_back(std::move(*r));
    return Ok();
  }

  Status Remember(Error e) {
    if (!failed_) failed_ = e;
    return Fail(std::move(e));
  }

  void AbortUpload() {
    S3Request r;
    r.method = "DELETE";
    r.bucket = loc_.bucket;
    r.key = loc_.key;
    r.query = {{"uploadId", upload_id_}};
    Exchange ex = client_->Send(r);
    if (ex.ok && (ex.response.status / 100 == 2 || ex.response.status == 404)) return;
    std::string why =
        ex.ok ? ErrorOf(ex.response, "abort", loc_.bucket, loc_.key).message : ex.failure;
    S3Warn(fmt::format(
        "the multipart upload {} of {} could not be aborted ({}); its parts stay in the bucket, "
        "invisible, until a lifecycle rule for incomplete multipart uploads removes them",
        upload_id_, S3Uri(loc_.bucket, loc_.key), why));
  }

  std::shared_ptr<S3Client> client_;
  std::string location_;
  S3Location loc_;
  bool overwrite_;
  bool done_ = false;
  std::string buffer_;
  int64_t written_ = 0;
  std::string upload_id_;
  std::string upload_token_;  // a random id in the object's metadata
  int parts_ = 0;
  std::deque<std::future<Result<std::string>>> inflight_;
  std::vector<std::string> etags_;
  std::optional<Error> failed_;
};

class S3FileIOImpl final : public io::FileIO {
 public:
  explicit S3FileIOImpl(std::shared_ptr<S3Client> client) : client_(std::move(client)) {}

  std::string_view name() const override { return "s3"; }

  Result<std::unique_ptr<InputFile>> NewInput(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(S3Location loc, ParseFile(location));
    S3Request r;
    r.method = "HEAD";
    r.bucket = loc.bucket;
    r.key = loc.key;
    Exchange ex = client_->Send(r);
    if (!ex.ok) return Fail(TransportErrorOf(ex, "cannot open", loc.bucket, loc.key));
    if (ex.response.status == 404) return NotFound("{} does not exist", location);
    if (ex.response.status / 100 != 2)
      return Fail(ErrorOf(ex.response, "cannot open", loc.bucket, loc.key));
    int64_t size = 0;
    const std::string len = ex.response.Header("content-length");
    auto [p, ec] = std::from_chars(len.data(), len.data() + len.size(), size);
    if (ec != std::errc() || size < 0) {
      return IoError("cannot open {}: the store gave no Content-Length", location);
    }
    return std::unique_ptr<InputFile>(
        new S3InputFile(client_, std::string(location), std::move(loc), size));
  }

  Result<std::unique_ptr<OutputFile>> NewOutput(std::string_view location,
                                                const io::OutputOptions& o) override {
    FLOE_ASSIGN_OR_RETURN(S3Location loc, ParseFile(location));
    // No existence check here: data files have unique names, and Commit's
    // If-None-Match catches an existing object without an extra request.
    return std::unique_ptr<OutputFile>(
        new S3OutputFile(client_, std::string(location), std::move(loc), o.overwrite));
  }

  Status PublishIfAbsent(std::string_view location, std::string_view data, bool sync) override {
    FLOE_ASSIGN_OR_RETURN(S3Location loc, ParseFile(location));
    return PutObject(*client_, loc, data, /*if_absent=*/true, "cannot publish");
  }

  Status Delete(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(S3Location loc, ParseFile(location));
    S3Request r;
    r.method = "DELETE";
    r.bucket = loc.bucket;
    r.key = loc.key;
    Exchange ex = client_->Send(r);
    if (!ex.ok) return Fail(TransportErrorOf(ex, "cannot delete", loc.bucket, loc.key));
    if (ex.response.status / 100 == 2 || ex.response.status == 404) return Ok();
    return Fail(ErrorOf(ex.response, "cannot delete", loc.bucket, loc.key));
  }

  Result<bool> Exists(std::string_view location) override {
    auto st = Stat(location);
    if (st) return true;
    if (st.error().kind == ErrorKind::kNotFound) return false;
    return Fail(std::move(st).error());
  }

  Result<io::FileInfo> Stat(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(location));
    if (!loc.key.empty() && !loc.key.ends_with("/")) {
      S3Request r;
      r.method = "HEAD";
      r.bucket = loc.bucket;
      r.key = loc.key;
      Exchange ex = client_->Send(r);
      if (!ex.ok) return Fail(TransportErrorOf(ex, "cannot look at", loc.bucket, loc.key));
      if (ex.response.status / 100 == 2) {
        io::FileInfo info;
        info.location = std::string(location);
        info.kind = io::EntryKind::kFile;
        const std::string len = ex.response.Header("content-length");
        std::from_chars(len.data(), len.data() + len.size(), info.size);
        info.modified_ms = ParseS3Time(ex.response.Header("last-modified"));
        return info;
      }
      if (ex.response.status != 404)
        return Fail(ErrorOf(ex.response, "cannot look at", loc.bucket, loc.key));
    }
    // A folder: some key below it.
    FLOE_ASSIGN_OR_RETURN(ListPage page,
                          List(loc.bucket, FolderPrefix(loc.key), false, 1, std::nullopt));
    if (page.objects.empty() && page.prefixes.empty())
      return NotFound("{} does not exist", location);
    return io::FileInfo{ListedRoot(location), io::EntryKind::kFolder, 0, 0};
  }

  Status ListFiles(std::string_view location,
                   const std::function<Status(const io::FileInfo&)>& visit) override {
    FLOE_ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(location));
    const std::string prefix = FolderPrefix(loc.key);
    const std::string root = ListedRoot(location);
    std::optional<std::string> token;
    do {
      FLOE_ASSIGN_OR_RETURN(
          ListPage page, List(loc.bucket, prefix, false, client_->config().list_page_size, token));
      for (const auto& o : page.objects) {
        if (o.key.ends_with("/")) continue;  // a folder marker
        io::FileInfo f;
        f.location = root + "/" + o.key.substr(prefix.size());
        f.kind = io::EntryKind::kFile;
        f.size = o.size;
        f.modified_ms = o.modified_ms;
        FLOE_RETURN_IF_ERROR(visit(f));
      }
      token = page.next;
    } while (token);
    return Ok();
  }

  Result<std::vector<io::FileInfo>> ListFolder(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(location));
    const std::string prefix = FolderPrefix(loc.key);
    const std::string root = ListedRoot(location);
    std::vector<io::FileInfo> out;
    bool any = false;
    std::optional<std::string> token;
    do {
      FLOE_ASSIGN_OR_RETURN(
          ListPage page, List(loc.bucket, prefix, true, client_->config().list_page_size, token));
      for (const auto& o : page.objects) {
        any = true;
        if (o.key == prefix) continue;  // the folder's own marker
        out.push_back(io::FileInfo{root + "/" + o.key.substr(prefix.size()), io::EntryKind::kFile,
                                   o.size, o.modified_ms});
      }
      for (const auto& p : page.prefixes) {
        any = true;
        std::string name = TrimSlashes(p.substr(prefix.size()));
        if (name.empty()) continue;
        out.push_back(io::FileInfo{root + "/" + name, io::EntryKind::kFolder, 0, 0});
      }
      token = page.next;
    } while (token);
    if (!any && !loc.key.empty()) return NotFound("folder {} does not exist", location);
    std::sort(out.begin(), out.end(),
              [](const io::FileInfo& a, const io::FileInfo& b) { return a.location < b.location; });
    return out;
  }

  Status CreateFolders(std::string_view location, std::vector<std::string>* created) override {
    FLOE_ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(location));
    if (loc.key.empty()) return Ok();  // the bucket
    const std::string prefix = FolderPrefix(loc.key);
    FLOE_ASSIGN_OR_RETURN(ListPage page, List(loc.bucket, prefix, false, 1, std::nullopt));
    if (!page.objects.empty() || !page.prefixes.empty()) return Ok();
    S3Location marker{loc.scheme, loc.bucket, prefix};
    Status st = PutObject(*client_, marker, "", /*if_absent=*/true, "cannot create the folder");
    if (!st && st.error().kind == ErrorKind::kAlreadyExists) return Ok();  // another writer made it
    FLOE_RETURN_IF_ERROR(st);
    if (created) created->push_back(ListedRoot(location));
    return Ok();
  }

  Result<bool> RemoveFolderIfEmpty(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(location));
    if (loc.key.empty()) return false;  // never the bucket
    const std::string prefix = FolderPrefix(loc.key);
    FLOE_ASSIGN_OR_RETURN(ListPage page, List(loc.bucket, prefix, false, 2, std::nullopt));
    bool marker = false;
    for (const auto& o : page.objects) {
      if (o.key == prefix) {
        marker = true;
      } else {
        return false;
      }
    }
    if (!page.prefixes.empty()) return false;
    if (marker) FLOE_RETURN_IF_ERROR(DeleteKey(loc.bucket, prefix));
    return true;
  }

  Status DeletePrefix(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(location));
    if (loc.key.empty()) {
      return InvalidArgument("refusing to delete everything in the bucket {}", loc.bucket);
    }
    const std::string prefix = FolderPrefix(loc.key);
    // Listed first, then deleted in batches: deleting while paging could
    // make the store skip keys.
    std::vector<std::string> keys;
    std::optional<std::string> token;
    do {
      FLOE_ASSIGN_OR_RETURN(
          ListPage page, List(loc.bucket, prefix, false, client_->config().list_page_size, token));
      for (auto& o : page.objects) keys.push_back(std::move(o.key));
      token = page.next;
    } while (token);
    return DeleteKeys(loc.bucket, keys);
  }

  void ReleaseFolders(std::string_view location, std::set<std::string>* created) override {
    if (!created || created->empty()) return;
    std::string dir = ListedRoot(location);
    while (true) {
      auto slash = dir.rfind('/');
      if (slash == std::string::npos || slash < 5) return;
      dir = dir.substr(0, slash);
      auto it = created->find(dir);
      if (it == created->end()) return;
      auto removed = RemoveFolderIfEmpty(dir);
      if (!removed || !*removed) return;
      created->erase(it);
    }
  }

  Result<std::string> Canonical(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(location));
    // s3a:// and s3n:// name the same objects as s3://.
    return TrimSlashes("s3://" + loc.bucket + "/" + loc.key);
  }

  Result<std::string> LocalPath(std::string_view location) override {
    return Unsupported("{} is in object storage, not on the local file system", location);
  }

  /// Deletes keys with DeleteObjects, delete_batch at a time.
  Status DeleteKeys(const std::string& bucket, const std::vector<std::string>& keys) {
    const size_t batch = static_cast<size_t>(std::clamp(client_->config().delete_batch, 1, 1000));
    for (size_t i = 0; i < keys.size(); i += batch) {
      const size_t n = std::min(batch, keys.size() - i);
      if (n == 1) {
        FLOE_RETURN_IF_ERROR(DeleteKey(bucket, keys[i]));
        continue;
      }
      std::string xml = "<Delete><Quiet>true</Quiet>";
      for (size_t j = i; j < i + n; ++j)
        xml += "<Object><Key>" + XmlEscape(keys[j]) + "</Key></Object>";
      xml += "</Delete>";
      S3Request r;
      r.method = "POST";
      r.bucket = bucket;
      r.query = {{"delete", ""}};
      r.headers.emplace_back("content-md5", Md5Base64(xml));
      r.headers.emplace_back("content-type", "application/xml");
      r.body = xml;
      Exchange ex = client_->Send(r);
      if (!ex.ok) return Fail(TransportErrorOf(ex, "cannot delete objects below", bucket, keys[i]));
      if (ex.response.status / 100 != 2) {
        return Fail(ErrorOf(ex.response, "cannot delete objects below", bucket, keys[i]));
      }
      // Quiet mode lists only the keys that failed.
      auto errors = XmlElements(ex.response.body, "Error");
      if (!errors.empty()) {
        std::string key = XmlText(errors.front(), "Key").value_or("");
        std::string code = XmlText(errors.front(), "Code").value_or("");
        std::string message = XmlText(errors.front(), "Message").value_or("");
        return IoError("cannot delete {} ({} of {} keys failed; {}: {})", S3Uri(bucket, key),
                       errors.size(), n, code, message);
      }
    }
    return Ok();
  }

  Status DeleteKey(const std::string& bucket, const std::string& key) {
    S3Request r;
    r.method = "DELETE";
    r.bucket = bucket;
    r.key = key;
    Exchange ex = client_->Send(r);
    if (!ex.ok) return Fail(TransportErrorOf(ex, "cannot delete", bucket, key));
    if (ex.response.status / 100 == 2 || ex.response.status == 404) return Ok();
    return Fail(ErrorOf(ex.response, "cannot delete", bucket, key));
  }

 private:
  // A location that must name an object (not the bucket).
  Result<S3Location> ParseFile(std::string_view location) const {
    FLOE_ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(location));
    if (loc.key.empty() || loc.key.ends_with("/")) {
      return InvalidArgument("{} names a folder, not a file", location);
    }
    return loc;
  }

  // One ListObjectsV2 page.
  Result<ListPage> List(const std::string& bucket, const std::string& prefix, bool delimited,
                        int max_keys, const std::optional<std::string>& token) {
    S3Request r;
    r.method = "GET";
    r.bucket = bucket;
    // encoding-type=url: keys come percent-encoded, so that any key (control
    // characters included) survives the XML; a store that ignores it says
    // so by leaving EncodingType out, and its keys are taken as they are.
    r.query = {{"list-type", "2"},
               {"prefix", prefix},
               {"max-keys", std::to_string(max_keys)},
               {"encoding-type", "url"}};
    if (delimited) r.query.emplace_back("delimiter", "/");
    if (token) r.query.emplace_back("continuation-token", *token);
    Exchange ex = client_->Send(r);
    if (!ex.ok) return Fail(TransportErrorOf(ex, "cannot list", bucket, prefix));
    if (ex.response.status / 100 != 2)
      return Fail(ErrorOf(ex.response, "cannot list", bucket, prefix));
    ListPage page;
    const std::string& xml = ex.response.body;
    const bool url_encoded = XmlText(xml, "EncodingType").value_or("") == "url";
    auto key_of = [&](std::string_view element, std::string_view tag) {
      std::string k = XmlText(element, tag).value_or("");
      return url_encoded ? PercentDecode(k) : k;
    };
    for (std::string_view c : XmlElements(xml, "Contents")) {
      ListEntry e;
      e.key = key_of(c, "Key");
      std::string size = XmlText(c, "Size").value_or("0");
      std::from_chars(size.data(), size.data() + size.size(), e.size);
      e.modified_ms = ParseS3Time(XmlText(c, "LastModified").value_or(""));
      if (!e.key.starts_with(prefix)) {
        return Corrupt("listing {}: the store returned the key {}, which is not below it",
                       S3Uri(bucket, prefix), e.key);
      }
      page.objects.push_back(std::move(e));
    }
    for (std::string_view c : XmlElements(xml, "CommonPrefixes")) {
      std::string p = key_of(c, "Prefix");
      if (!p.starts_with(prefix)) continue;
      page.prefixes.push_back(std::move(p));
    }
    if (XmlText(xml, "IsTruncated").value_or("false") == "true") {
      auto next = XmlText(xml, "NextContinuationToken");
      if (!next || next->empty() || (token && *next == *token)) {
        return Corrupt(
            "listing {}: the store says there is more but gives no new continuation token",
            S3Uri(bucket, prefix));
      }
      page.next = std::move(next);
    }
    return page;
  }

  std::shared_ptr<S3Client> client_;
};

std::optional<std::string> Env(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

}  // namespace

Result<S3Location> ParseS3Location(std::string_view location) {
  auto sep = location.find("://");
  if (sep == std::string_view::npos) {
    return InvalidArgument("'{}' is not an S3 location (s3://bucket/key)", location);
  }
  S3Location out;
  out.scheme = ToLower(location.substr(0, sep));
  if (out.scheme != "s3" && out.scheme != "s3a" && out.scheme != "s3n") {
    return InvalidArgument("'{}' is not an S3 location: the scheme must be s3, s3a or s3n",
                           location);
  }
  std::string_view rest = location.substr(sep + 3);
  auto slash = rest.find('/');
  out.bucket = std::string(rest.substr(0, slash));
  if (out.bucket.empty())
    return InvalidArgument("'{}' names no bucket (s3://bucket/key)", location);
  if (slash != std::string_view::npos) out.key = std::string(rest.substr(slash + 1));
  return out;
}

Result<S3Config> S3ConfigFromProperties(const std::map<std::string, std::string>& properties) {
  namespace k = config::keys;
  const config::Resolver props(properties);
  S3Config c;
  FLOE_ASSIGN_OR_RETURN(auto endpoint, props.Get(k::kS3Endpoint));
  if (endpoint) {
    if (!endpoint->starts_with("http://") && !endpoint->starts_with("https://")) {
      return InvalidArgument("s3.endpoint '{}' must start with http:// or https://", *endpoint);
    }
    c.endpoint = *endpoint;
    while (c.endpoint.ends_with("/")) c.endpoint.pop_back();
  }
  FLOE_ASSIGN_OR_RETURN(auto region, props.Get(k::kClientRegion));
  if (region) {
    c.region = *region;
  } else if (auto r = Env("AWS_REGION")) {
    c.region = *r;
  } else if (auto r2 = Env("AWS_DEFAULT_REGION")) {
    c.region = *r2;
  }
  FLOE_ASSIGN_OR_RETURN(auto key, props.Get(k::kS3AccessKeyId));
  FLOE_ASSIGN_OR_RETURN(auto secret, props.Get(k::kS3SecretAccessKey));
  FLOE_ASSIGN_OR_RETURN(auto token, props.Get(k::kS3SessionToken));
  if (key || secret) {
    if (!key || !secret) {
      return InvalidArgument(
          "s3.access-key-id and s3.secret-access-key must be given together ({} is missing)",
          key ? k::kS3SecretAccessKey.name : k::kS3AccessKeyId.name);
    }
    c.credentials = Credentials{*key, *secret, token.value_or("")};
  } else {
    // The AWS CLI's environment variables, as a set.
    c.credentials.access_key_id = Env("AWS_ACCESS_KEY_ID").value_or("");
    c.credentials.secret_access_key = Env("AWS_SECRET_ACCESS_KEY").value_or("");
    c.credentials.session_token = token.value_or(Env("AWS_SESSION_TOKEN").value_or(""));
  }
  if (c.credentials.access_key_id.empty() || c.credentials.secret_access_key.empty()) {
    // Anonymous requests would reach only public buckets, and fail later
    // with a 403 far from the cause.
    return InvalidArgument(
        "no S3 credentials: set the catalog properties s3.access-key-id and s3.secret-access-key (or the "
        "environment variables AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)");
  }
  FLOE_ASSIGN_OR_RETURN(c.path_style, props.Value(k::kS3PathStyleAccess));
  FLOE_ASSIGN_OR_RETURN(c.part_size, props.Value(k::kS3MultipartPartSizeBytes));
  FLOE_ASSIGN_OR_RETURN(const int32_t retries, props.Value(k::kS3RetryNumRetries));
  c.max_attempts = retries + 1;
  FLOE_ASSIGN_OR_RETURN(c.retry_min_wait_ms, props.Value(k::kS3RetryMinWaitMs));
  FLOE_ASSIGN_OR_RETURN(c.retry_max_wait_ms, props.Value(k::kS3RetryMaxWaitMs));
  if (c.retry_max_wait_ms < c.retry_min_wait_ms) {
    return InvalidArgument("s3.retry.max-wait-ms={} is below s3.retry.min-wait-ms={}",
                           c.retry_max_wait_ms, c.retry_min_wait_ms);
  }
  FLOE_ASSIGN_OR_RETURN(c.connect_timeout_ms, props.Value(k::kS3ConnectionTimeoutMs));
  FLOE_ASSIGN_OR_RETURN(c.stall_timeout_ms, props.Value(k::kS3SocketTimeoutMs));
  return c;
}

io::FileIOPtr MakeS3FileIO(std::shared_ptr<S3Client> client) {
  return std::make_shared<S3FileIOImpl>(std::move(client));
}

void RegisterS3FileIO() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto factory =
        [](const std::map<std::string, std::string>& properties) -> Result<io::FileIOPtr> {
      FLOE_ASSIGN_OR_RETURN(S3Config config, S3ConfigFromProperties(properties));
      return MakeS3FileIO(std::make_shared<S3Client>(std::move(config)));
    };
    for (const char* scheme : {"s3", "s3a", "s3n"}) io::RegisterFileIO(scheme, factory);
  });
}

}  // namespace floe::s3
