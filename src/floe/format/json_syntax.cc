// Locating JSON syntax errors for messages (see json_syntax_internal.h).
// A small state machine over RFC 8259's grammar with an explicit stack of
// open containers, so hostile nesting costs heap, not stack.
#include "floe/format/json_syntax_internal.h"

#include <fmt/format.h>

#include <vector>

namespace floe::format::internal {

namespace {

bool IsWs(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// The word at `p` for a message: up to a delimiter, at most 24 bytes.
std::string Word(std::string_view s, size_t p) {
  size_t e = p;
  while (e < s.size() && e - p < 24 && !IsWs(s[e]) && s[e] != ',' && s[e] != ':' && s[e] != '}' &&
         s[e] != ']' && s[e] != '{' && s[e] != '[' && s[e] != '"') {
    ++e;
  }
  if (e == p) e = p + 1;
  return std::string(s.substr(p, e - p));
}

class Checker {
 public:
  explicit Checker(std::string_view s) : s_(s) {}

  std::optional<JsonSyntaxError> Run() {
    Skip();
    if (p_ >= s_.size()) return Err(p_, "no JSON value");
    // expect: a value; then after each value, what its container allows.
    enum class Want { kValue, kKeyOrClose, kKey, kColon, kCommaOrClose };
    Want want = Want::kValue;
    while (true) {
      Skip();
      if (p_ >= s_.size()) {
        if (stack_.empty() && want == Want::kCommaOrClose) return std::nullopt;
        return Err(p_, stack_.empty() || stack_.back() == '{' ? "the line ends inside an object"
                                                              : "the line ends inside an array");
      }
      const char c = s_[p_];
      switch (want) {
        case Want::kKeyOrClose:
          if (c == '}') {
            ++p_;
            stack_.pop_back();
            want = Want::kCommaOrClose;
            break;
          }
          [[fallthrough]];
        case Want::kKey:
          if (c != '"')
            return Err(p_, fmt::format("expected a quoted key, found '{}'", Word(s_, p_)));
          if (auto e = String()) return e;
          want = Want::kColon;
          break;
        case Want::kColon:
          if (c != ':')
            return Err(p_, fmt::format("expected ':' after the key, found '{}'", Word(s_, p_)));
          ++p_;
          want = Want::kValue;
          break;
        case Want::kValue: {
          if (c == '{') {
            stack_.push_back('{');
            ++p_;
            want = Want::kKeyOrClose;
            break;
          }
          if (c == '[') {
            stack_.push_back('[');
            ++p_;
            Skip();
            if (p_ < s_.size() && s_[p_] == ']') {
              ++p_;
              stack_.pop_back();
              want = Want::kCommaOrClose;
            }
            break;
          }
          if (c == '"') {
            if (auto e = String()) return e;
          } else if (c == '-' || IsDigit(c)) {
            if (auto e = Number()) return e;
          } else if (!Literal("true") && !Literal("false") && !Literal("null")) {
            return Err(p_, fmt::format("'{}' is not a JSON value", Word(s_, p_)));
          }
          want = Want::kCommaOrClose;
          break;
        }
        case Want::kCommaOrClose:
          if (stack_.empty()) return Err(p_, "trailing content after the JSON value");
          if (c == ',') {
            ++p_;
            want = stack_.back() == '{' ? Want::kKey : Want::kValue;
          } else if (c == (stack_.back() == '{' ? '}' : ']')) {
            ++p_;
            stack_.pop_back();
          } else {
            return Err(p_, fmt::format("expected ',' or '{}', found '{}'",
                                       stack_.back() == '{' ? '}' : ']', Word(s_, p_)));
          }
          break;
      }
    }
  }

 private:
  static std::optional<JsonSyntaxError> Err(size_t at, std::string what) {
    return JsonSyntaxError{at, std::move(what)};
  }
  void Skip() {
    while (p_ < s_.size() && IsWs(s_[p_])) ++p_;
  }
  // A literal that ends at a delimiter (so "nullx" and "tru" are not literals).
  bool Literal(std::string_view lit) {
    if (s_.substr(p_, lit.size()) != lit) return false;
    size_t e = p_ + lit.size();
    if (e < s_.size() && !IsWs(s_[e]) && s_[e] != ',' && s_[e] != '}' && s_[e] != ']') return false;
    p_ = e;
    return true;
  }
  std::optional<JsonSyntaxError> String() {
    const size_t start = p_++;
    while (p_ < s_.size()) {
      const char c = s_[p_];
      if (c == '"') {
        ++p_;
        return std::nullopt;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return Err(p_, "a control character inside a string (escape it)");
      if (c == '\\') {
        if (p_ + 1 >= s_.size()) break;
        const char e = s_[p_ + 1];
        if (e == 'u') {
          for (size_t i = 2; i < 6; ++i) {
            if (p_ + i >= s_.size() || !IsHex(s_[p_ + i]))
              return Err(p_, "a \\u escape needs four hex digits");
          }
          p_ += 6;
          continue;
        }
        if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
          return Err(p_, fmt::format("invalid escape '\\{}'", e));
        }
        p_ += 2;
        continue;
      }
      ++p_;
    }
    return Err(start, "unterminated string");
  }
  std::optional<JsonSyntaxError> Number() {
    const size_t start = p_;
    if (s_[p_] == '-') ++p_;
    if (p_ >= s_.size() || !IsDigit(s_[p_]))
      return Err(start, fmt::format("invalid number '{}'", Word(s_, start)));
    if (s_[p_] == '0' && p_ + 1 < s_.size() && IsDigit(s_[p_ + 1])) {
      return Err(start, fmt::format("invalid number '{}' (leading zero)", Word(s_, start)));
    }
    while (p_ < s_.size() && IsDigit(s_[p_])) ++p_;
    if (p_ < s_.size() && s_[p_] == '.') {
      ++p_;
      if (p_ >= s_.size() || !IsDigit(s_[p_]))
        return Err(start, fmt::format("invalid number '{}'", Word(s_, start)));
      while (p_ < s_.size() && IsDigit(s_[p_])) ++p_;
    }
    if (p_ < s_.size() && (s_[p_] == 'e' || s_[p_] == 'E')) {
      ++p_;
      if (p_ < s_.size() && (s_[p_] == '+' || s_[p_] == '-')) ++p_;
      if (p_ >= s_.size() || !IsDigit(s_[p_]))
        return Err(start, fmt::format("invalid number '{}'", Word(s_, start)));
      while (p_ < s_.size() && IsDigit(s_[p_])) ++p_;
    }
    if (p_ < s_.size() && !IsWs(s_[p_]) && s_[p_] != ',' && s_[p_] != '}' && s_[p_] != ']') {
      return Err(start, fmt::format("invalid number '{}'", Word(s_, start)));
    }
    return std::nullopt;
  }

  std::string_view s_;
  size_t p_ = 0;
  std::vector<char> stack_;
};

}  // namespace

std::optional<JsonSyntaxError> FindJsonSyntaxError(std::string_view text) {
  return Checker(text).Run();
}

std::optional<std::string> LeadingZeroError(std::string_view raw) {
  size_t i = !raw.empty() && raw[0] == '-' ? 1 : 0;
  if (i + 1 < raw.size() && raw[i] == '0' && IsDigit(raw[i + 1])) {
    return fmt::format("invalid number '{}' (leading zero)", raw.substr(0, 24));
  }
  return std::nullopt;
}

std::string SyntaxMessage(std::string_view line, size_t offset, std::string_view what) {
  size_t column = 1;
  for (size_t i = 0; i < offset && i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xc0) != 0x80) ++column;
  }
  return fmt::format("not valid JSON at column {}: {}", column, what);
}

}  // namespace floe::format::internal
