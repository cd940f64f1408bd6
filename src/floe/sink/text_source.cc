// Sources over text input (text_source.h): a file read through its decoder,
// and standard input read as it arrives.
#include "floe/sink/text_source.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t on the stack and as a member
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "floe/format/format_registry.h"
#include "floe/format/string_input.h"
#include "floe/util/unique_fd.h"

namespace floe::sink {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::string_view kStdinName = "<stdin>";

// The first `lines` lines of a file (fewer when it has fewer): their bytes and
// the XXH3-64 digest of them. With `limit_bytes`, the first that many bytes
// (fewer when the file is shorter) instead.
struct Prefix {
  int64_t bytes = 0;
  uint64_t digest = 0;
};

Result<Prefix> HashPrefix(const std::string& path, int64_t lines, std::optional<int64_t> limit_bytes) {
  UniqueFd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (f.get() < 0) return IoError("{}: cannot open: {}", path, std::strerror(errno));
  XXH3_state_t* state = XXH3_createState();
  if (state == nullptr) return Internal("out of memory");
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> owned(state, XXH3_freeState);
  XXH3_64bits_reset(state);
  Prefix p;
  int64_t lines_seen = 0;
  std::string buf(size_t{1} << 20, '\0');
  bool done = limit_bytes ? *limit_bytes == 0 : lines == 0;
  while (!done) {
    size_t want = buf.size();
    if (limit_bytes) want = static_cast<size_t>(std::min<int64_t>(int64_t(want), *limit_bytes - p.bytes));
    const ssize_t n = ::read(f.get(), buf.data(), want);
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError("{}: read: {}", path, std::strerror(errno));
    }
    if (n == 0) break;  // end of file
    size_t take = static_cast<size_t>(n);
    if (!limit_bytes) {
      // Up to and including the line end of line `lines`.
      const char* at = buf.data();
      const char* end = buf.data() + n;
      while (at < end) {
        const void* nl = std::memchr(at, '\n', static_cast<size_t>(end - at));
        if (nl == nullptr) break;
        at = static_cast<const char*>(nl) + 1;
        if (++lines_seen == lines) {
          take = static_cast<size_t>(at - buf.data());
          done = true;
          break;
        }
      }
    } else if (p.bytes + n >= *limit_bytes) {
      done = true;
    }
    XXH3_64bits_update(state, buf.data(), take);
    p.bytes += static_cast<int64_t>(take);
  }
  p.digest = XXH3_64bits_digest(state);
  return p;
}

std::string Hex(uint64_t v) { return fmt::format("{:016x}", v); }

// What an earlier commit's source position says.
struct Committed {
  std::string kind;  ///< "file", "stdin", another source's kind; "" for a token of an earlier floe
  std::string name;  ///< for messages: the path, <stdin>, the kind or floe.input
  int64_t line = 0;
  std::optional<int64_t> bytes;  ///< with the digest: the committed part can be checked
  std::string digest;
};

Result<Committed> ParseStored(std::string_view stored, std::string_view stored_input, int64_t position) {
  Committed c;
  c.line = position;
  if (stored.empty()) {
    c.name = stored_input.empty() ? std::string("an unknown input") : std::string(stored_input);
    return c;
  }
  json j = json::parse(stored, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("source") || !j["source"].is_string()) {
    return Corrupt("the sink token's floe.source-position is not a source position: {}", stored);
  }
  c.kind = j["source"].get<std::string>();
  if (c.kind == "file") {
    c.name = j.value("path", std::string("a file"));
  } else if (c.kind == "stdin") {
    c.name = std::string(kStdinName);
  } else {
    c.name = "a " + c.kind + " source";
  }
  const auto bytes = j.find("bytes");
  const auto digest = j.find("xxh3");
  if (bytes != j.end() || digest != j.end()) {
    // The digest is what Hex() writes: 16 lower-case hex digits.
    const auto is_digest = [](const json& d) {
      if (!d.is_string() || d.get_ref<const std::string&>().size() != 16) return false;
      for (char ch : d.get_ref<const std::string&>()) {
        if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return false;
      }
      return true;
    };
    if (bytes == j.end() || !bytes->is_number_integer() || bytes->get<int64_t>() < 0 || digest == j.end() ||
        !is_digest(*digest)) {
      return Corrupt("the sink token's floe.source-position has a damaged 'bytes' or 'xxh3': {}", stored);
    }
    c.bytes = bytes->get<int64_t>();
    c.digest = digest->get<std::string>();
  }
  return c;
}

// The refusal of another input: kInvalidArgument naming both, nothing written.
Status Refuse(const Committed& c, const std::string& now, std::string_view why) {
  return InvalidArgument(
      "this sink_id committed lines 1..{} of {} before, and this run's input {} {}: a relaunch with the same "
      "sink_id resumes only the same input, and nothing was written. To load another input, use a new sink_id",
      c.line, c.name, now, why);
}

// What both text sources check first: a token of an earlier floe (no source
// position) is this input when its floe.input names it; a token of a source
// of another kind is another input. Text inputs are compared by content
// afterwards (a file and standard input carrying the same lines are the same
// stream). True when the token is settled (accepted) here.
Result<bool> CheckKind(const Committed& c, std::string_view stored_input, const std::string& name,
                       const std::string& now) {
  if (c.kind.empty()) {
    if (stored_input == name) return true;
    return Fail(Refuse(c, now, "is another one").error());
  }
  if (c.kind != "file" && c.kind != "stdin") return Fail(Refuse(c, now, "is another one").error());
  return false;
}

// Common to both sources: the output with positions offset, and the count.
class TextSourceBase : public Source {
 public:
  TextSourceBase(std::string path, TextSourceOptions options) : path_(std::move(path)), options_(std::move(options)) {}

  Status Open(SchemaPtr schema, SourceOutput output) override {
    schema_ = std::move(schema);
    output_ = std::move(output);
    options_.decode.with_positions = true;
    options_.decode.reject = [this](format::RejectedRow&& r) -> Status {
      r.position += line_base_;
      return output_.reject(std::move(r));
    };
    return OpenInput();
  }
 protected:
  virtual Status OpenInput() = 0;

  // Decodes everything `decoder` holds (one batch when `one_batch`).
  Result<bool> Drain(format::RowDecoder* decoder, bool one_batch) {
    Batch batch;
    for (;;) {
      auto more = decoder->Next(&batch);
      if (!more) return Fail(more.error().WithContext(name()));
      if (!*more) return false;
      if (line_base_ != 0) {
        for (int64_t& p : batch.positions) p += line_base_;
      }
      FLOE_RETURN_IF_ERROR(output_.emit(std::move(batch)));
      batch = Batch();
      if (one_batch) return true;
    }
  }

  std::string path_;
  TextSourceOptions options_;
  SchemaPtr schema_;
  SourceOutput output_;
  int64_t line_base_ = 0;  ///< lines before the chunk being decoded
};

// A file (or standard input in a format read as one stream), read through its
// decoder a batch per Read.
class DecoderSource final : public TextSourceBase {
 public:
  DecoderSource(std::string path, TextSourceOptions options) : TextSourceBase(std::move(path), std::move(options)) {
    is_stdin_ = path_ == "-";
    if (!is_stdin_) {
      std::error_code ec;
      fs::path abs = fs::weakly_canonical(fs::absolute(path_, ec), ec);
      absolute_ = ec ? path_ : abs.string();
    }
  }
  std::string name() const override { return is_stdin_ ? std::string(kStdinName) : path_; }
  bool bounded() const override { return true; }

  Result<SourceState> Read(SourceClock::time_point, const Cancellation*) override {
    FLOE_ASSIGN_OR_RETURN(bool more, Drain(decoder_.get(), true));
    return more ? SourceState::kMore : SourceState::kEnd;
  }

  Result<std::string> Describe(int64_t upto) override {
    json j;
    if (is_stdin_) {
      // Read by the decoder itself: standard input in this format is not
      // hashed, so a relaunch on it is trusted to replay the same stream.
      j["source"] = "stdin";
      j["line"] = upto;
      return j.dump();
    }
    FLOE_ASSIGN_OR_RETURN(Prefix p, HashPrefix(path_, upto, std::nullopt));
    j["source"] = "file";
    j["path"] = absolute_;
    j["line"] = upto;
    j["bytes"] = p.bytes;
    j["xxh3"] = Hex(p.digest);
    return j.dump();
  }

  Status Resume(std::string_view stored, std::string_view stored_input, int64_t position) override {
    FLOE_ASSIGN_OR_RETURN(Committed c, ParseStored(stored, stored_input, position));
    const std::string now = is_stdin_ ? std::string(kStdinName) : absolute_;
    FLOE_ASSIGN_OR_RETURN(bool settled, CheckKind(c, stored_input, name(), now));
    if (settled || is_stdin_ || !c.bytes) return Ok();  // nothing to compare: trusted (text_source.h)
    FLOE_ASSIGN_OR_RETURN(Prefix p, HashPrefix(path_, 0, *c.bytes));
    if (p.bytes < *c.bytes) {
      return Refuse(c, now, fmt::format("is shorter ({} bytes) than the part committed ({} bytes)", p.bytes, *c.bytes));
    }
    if (Hex(p.digest) != c.digest) {
      return Refuse(c, now, fmt::format("does not begin with the lines committed: its first {} bytes are not the "
                                        "ones committed",
                                        *c.bytes));
    }
    return Ok();
  }

 private:
  Status OpenInput() override {
    auto decoder = format::OpenDecoder(options_.format, schema_, path_, options_.decode);
    if (!decoder) return Fail(decoder.error().WithContext(name()));
    decoder_ = std::move(*decoder);
    return Ok();
  }

  bool is_stdin_ = false;
  std::string absolute_;
  std::unique_ptr<format::RowDecoder> decoder_;
};

// Standard input (or any descriptor) in a line format, read as it arrives.
// The lines handed to the decoder are hashed as they go (XXH3-64, the same
// digest a file's source position carries), so a relaunch on standard input
// is checked too: when the replayed stream reaches the committed line, its
// digest so far must be the committed one, or the run stops before a row
// after that line is handed out.
class StreamSource final : public TextSourceBase {
 public:
  StreamSource(std::string path, TextSourceOptions options) : TextSourceBase(std::move(path), std::move(options)) {
    XXH3_64bits_reset(&hash_);
  }
  std::string name() const override { return std::string(kStdinName); }
  bool bounded() const override { return false; }
  int64_t consumed() const override { return lines_done_; }
  bool input_refused() const override { return refused_; }

  Result<SourceState> Read(SourceClock::time_point deadline, const Cancellation* cancel) override {
    if (eof_) return SourceState::kEnd;
    const int fd = options_.decode.stdin_fd;
    for (;;) {
      if (cancel != nullptr && cancel->cancelled()) return SourceState::kIdle;
      const auto now = SourceClock::now();
      int timeout_ms = 0;
      if (deadline > now) {
        timeout_ms = static_cast<int>(std::min<int64_t>(
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1, 1 << 30));
      }
      struct pollfd fds[2] = {{fd, POLLIN, 0}, {cancel != nullptr ? cancel->wake_fd() : -1, POLLIN, 0}};
      const int nfds = fds[1].fd >= 0 ? 2 : 1;
      const int r = ::poll(fds, nfds, timeout_ms);
      if (r < 0) {
        if (errno == EINTR) continue;
        return IoError("{}: poll: {}", name(), std::strerror(errno));
      }
      if (r == 0 || !(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
        if (SourceClock::now() >= deadline || (nfds == 2 && fds[1].revents != 0)) return SourceState::kIdle;
        continue;
      }
      const size_t old = pending_.size();
      pending_.resize(old + kReadBytes);
      const ssize_t n = ::read(fd, pending_.data() + old, kReadBytes);
      pending_.resize(old + static_cast<size_t>(std::max<ssize_t>(n, 0)));
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        return IoError("{}: read: {}", name(), std::strerror(errno));
      }
      if (n == 0) {
        // End of input: a last line without its line end is still a line.
        eof_ = true;
        FLOE_RETURN_IF_ERROR(DecodeChunk(std::move(pending_)));
        pending_.clear();
        if (verify_ && lines_done_ < verify_->line) {
          refused_ = true;
          return Fail(Refuse(*verify_, std::string(kStdinName),
                             fmt::format("ended after {} lines, before the end of the part committed", lines_done_))
                          .error());
        }
        return SourceState::kEnd;
      }
      // Only the new bytes are searched: a long line costs linear time.
      const void* nl = ::memrchr(pending_.data() + old, '\n', static_cast<size_t>(n));
      if (nl != nullptr) {
        const size_t cut = static_cast<size_t>(static_cast<const char*>(nl) - pending_.data()) + 1;
        std::string chunk = pending_.substr(0, cut);
        pending_.erase(0, cut);
        FLOE_RETURN_IF_ERROR(DecodeChunk(std::move(chunk)));
      }
      if (pending_.size() > options_.decode.max_line_bytes) {
        // The line limit, as the decoders of files state it.
        return InvalidArgument("{}: line {}: the line is longer than {} bytes (max_line_bytes)", name(),
                               lines_done_ + 1, options_.decode.max_line_bytes);
      }
      if (nl != nullptr) return SourceState::kMore;
    }
  }

  Result<std::string> Describe(int64_t upto) override {
    json j;
    j["source"] = "stdin";
    j["line"] = upto;
    if (upto == lines_done_) {
      j["bytes"] = bytes_done_;
      j["xxh3"] = Hex(XXH3_64bits_digest(&hash_));
    } else if (verify_ && upto == verify_->line && verify_->bytes) {
      // Not replayed that far yet (a heartbeat): the committed part as stored.
      j["bytes"] = *verify_->bytes;
      j["xxh3"] = verify_->digest;
    }
    return j.dump();
  }

  Status Resume(std::string_view stored, std::string_view stored_input, int64_t position) override {
    FLOE_ASSIGN_OR_RETURN(Committed c, ParseStored(stored, stored_input, position));
    FLOE_ASSIGN_OR_RETURN(bool settled, CheckKind(c, stored_input, name(), std::string(kStdinName)));
    if (settled) return Ok();
    // Checked when the stream reaches the committed line; of several tokens
    // (destinations) the furthest is checked, the others are its prefixes.
    if (c.bytes && c.line > 0 && (!verify_ || c.line > verify_->line)) verify_ = std::move(c);
    return Ok();
  }

 private:
  static constexpr size_t kReadBytes = size_t{1} << 20;

  Status OpenInput() override { return Ok(); }

  // Hashes `data` into the running digest, checking the committed part
  // where the stream passes its end.
  Status Hash(std::string_view data, int64_t lines) {
    if (verify_ && !verified_ && lines_done_ + lines >= verify_->line) {
      // The committed part ends inside `data`: at the end of line verify_->line.
      size_t at = 0;
      for (int64_t l = lines_done_; l < verify_->line; ++l) {
        const void* nl = std::memchr(data.data() + at, '\n', data.size() - at);
        at = nl == nullptr ? data.size() : static_cast<size_t>(static_cast<const char*>(nl) - data.data()) + 1;
      }
      XXH3_state_t probe;
      XXH3_copyState(&probe, &hash_);
      XXH3_64bits_update(&probe, data.data(), at);
      const int64_t bytes = bytes_done_ + static_cast<int64_t>(at);
      if (bytes != *verify_->bytes || Hex(XXH3_64bits_digest(&probe)) != verify_->digest) {
        refused_ = true;
        return Refuse(*verify_, std::string(kStdinName),
                      fmt::format("does not begin with the lines committed (its first {} lines are {} bytes, the "
                                  "committed ones {} bytes{})",
                                  verify_->line, bytes, *verify_->bytes,
                                  bytes == *verify_->bytes ? ", with another digest" : ""));
      }
      verified_ = true;
    }
    XXH3_64bits_update(&hash_, data.data(), data.size());
    bytes_done_ += static_cast<int64_t>(data.size());
    return Ok();
  }

  Status DecodeChunk(std::string chunk) {
    if (chunk.empty()) return Ok();
    const int64_t lines =
        static_cast<int64_t>(std::count(chunk.begin(), chunk.end(), '\n')) + (chunk.back() == '\n' ? 0 : 1);
    FLOE_RETURN_IF_ERROR(Hash(chunk, lines));
    line_base_ = lines_done_;
    auto decoder = format::OpenDecoderFromString(options_.format, schema_, std::move(chunk), options_.decode);
    if (!decoder) return Fail(decoder.error().WithContext(name()));
    FLOE_ASSIGN_OR_RETURN(bool ignored, Drain(decoder->get(), false));
    (void)ignored;  // always false: the chunk is decoded to its end
    lines_done_ += lines;
    line_base_ = 0;
    return Ok();
  }

  std::string pending_;
  int64_t lines_done_ = 0;  ///< complete lines handed to the decoder
  int64_t bytes_done_ = 0;  ///< their bytes
  XXH3_state_t hash_;       ///< their digest so far
  std::optional<Committed> verify_;  ///< the committed part a relaunch must replay
  bool verified_ = false;
  bool refused_ = false;
  bool eof_ = false;
};

}  // namespace

Result<std::unique_ptr<Source>> OpenTextSource(const std::string& path, TextSourceOptions options) {
  if (!format::HasDecoder(options.format)) {
    return InvalidArgument("input format '{}': valid formats are {}", options.format, format::FormatNamesText());
  }
  if (path == "-" && format::SupportsStringInput(options.format)) {
    return std::unique_ptr<Source>(new StreamSource(path, std::move(options)));
  }
  return std::unique_ptr<Source>(new DecoderSource(path, std::move(options)));
}

}  // namespace floe::sink
