// The Flink SQL lexer: one pass over the bytes, counting lines and UTF-8
// characters for positions.
#include "floe/sql/lexer.h"

#include <fmt/format.h>

#include "floe/util/strings.h"

namespace floe::sql {

std::string PosText(Pos p) { return fmt::format("line {}, column {}", p.line, p.column); }

bool Token::Is(std::string_view keyword) const {
  return kind == TokenKind::kIdentifier && EqualsIgnoreCase(value, keyword);
}

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

std::string QuoteString(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

namespace {

constexpr bool IsDigit(char c) { return c >= '0' && c <= '9'; }
constexpr bool IsIdentStart(char c) {
  // Bytes >= 0x80 are UTF-8 letters of other scripts: Calcite's identifiers
  // take Unicode letters.
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
constexpr bool IsIdentPart(char c) { return IsIdentStart(c) || IsDigit(c) || c == '$'; }

/// How much of the text before an error the message quotes: Calcite quotes
/// all of it; a huge unterminated string would make a huge message.
constexpr size_t kMaxQuoted = 60;

class Lexer {
 public:
  Lexer(std::string_view text, const LexOptions& options)
      : text_(text), options_(options), line_(options.start.line), column_(options.start.column) {}

  Result<std::vector<Token>> Run() {
    std::vector<Token> out;
    while (true) {
      SkipSpaceAndComments();
      if (failed_) return Fail(error_);
      if (pending_unterminated_) {
        out.push_back(Unterminated());
        continue;
      }
      if (i_ >= text_.size()) break;
      FLOE_ASSIGN_OR_RETURN(Token t, Next());
      out.push_back(std::move(t));
    }
    Token eof;
    eof.kind = TokenKind::kEof;
    eof.pos = eof.end = Here();
    eof.offset = eof.end_offset = text_.size();
    out.push_back(std::move(eof));
    return out;
  }

 private:
  Pos Here() const { return Pos{line_, column_}; }

  /// Moves past one byte, counting lines and characters: the column moves
  /// when the next byte starts a character (a UTF-8 continuation byte starts none).
  void Advance() {
    char c = text_[i_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
      return;
    }
    bool continuation = i_ < text_.size() && (static_cast<unsigned char>(text_[i_]) & 0xC0) == 0x80;
    if (!continuation) ++column_;
  }

  /// The position of the last character consumed (for a token's end).
  Pos last_ = {};

  void AdvanceN(size_t n) {
    for (size_t k = 0; k < n; ++k) {
      last_ = Here();
      Advance();
    }
  }

  char At(size_t k) const { return i_ + k < text_.size() ? text_[i_ + k] : '\0'; }

  std::string Quoted(size_t from) const {
    std::string_view s = text_.substr(from, i_ - from);
    std::string out;
    if (s.size() > kMaxQuoted) {
      out = std::string(s.substr(0, kMaxQuoted)) + "...";
    } else {
      out = std::string(s);
    }
    // JavaCC escapes the quoted text (add_escapes): quotes and control characters.
    std::string esc;
    for (char c : out) {
      switch (c) {
        case '"': esc += "\\\""; break;
        case '\'': esc += "\\'"; break;
        case '\\': esc += "\\\\"; break;
        case '\n': esc += "\\n"; break;
        case '\r': esc += "\\r"; break;
        case '\t': esc += "\\t"; break;
        default: esc += c;
      }
    }
    return esc;
  }

  /// Calcite's TokenMgrError text for input that ends inside a token.
  std::unexpected<Error> EofError(size_t from) const {
    return InvalidArgument("Lexical error at {}.  Encountered: <EOF> after : \"{}\"",
                           PosText(Here()), Quoted(from));
  }

  void SkipSpaceAndComments() {
    while (i_ < text_.size()) {
      char c = text_[i_];
      if (IsAsciiSpace(c)) {
        AdvanceN(1);
      } else if (c == '-' && At(1) == '-') {
        while (i_ < text_.size() && text_[i_] != '\n') AdvanceN(1);
      } else if (c == '/' && At(1) == '*' && At(2) != '+') {
        size_t from = i_;
        Pos start = Here();
        AdvanceN(2);
        while (i_ < text_.size() && !(text_[i_] == '*' && At(1) == '/')) AdvanceN(1);
        if (i_ >= text_.size()) {
          if (options_.lenient) {
            pending_unterminated_ = true;
            unterminated_from_ = from;
            unterminated_pos_ = start;
            return;
          }
          failed_ = true;
          error_ = EofError(from).error();
          return;
        }
        AdvanceN(2);
      } else {
        return;
      }
    }
  }

  /// A comment left open at the end (lenient mode): one token up to the end.
  Token Unterminated() {
    pending_unterminated_ = false;
    Token t;
    t.pos = unterminated_pos_;
    t.offset = unterminated_from_;
    t.kind = TokenKind::kUnterminated;
    t.value = std::string(text_.substr(unterminated_from_));
    t.end = last_;
    t.end_offset = text_.size();
    return t;
  }

  Result<Token> Next() {
    Token t;
    t.pos = Here();
    t.offset = i_;
    char c = text_[i_];
    if ((c == 'X' || c == 'x') && At(1) == '\'') {
      AdvanceN(1);
      FLOE_RETURN_IF_ERROR(Quote('\'', t));
      if (t.kind == TokenKind::kString) t.kind = TokenKind::kBinaryString;
    } else if (IsIdentStart(c)) {
      while (i_ < text_.size() && IsIdentPart(text_[i_])) AdvanceN(1);
      t.kind = TokenKind::kIdentifier;
      t.value = std::string(text_.substr(t.offset, i_ - t.offset));
    } else if (c == '`') {
      FLOE_RETURN_IF_ERROR(Quote('`', t));
    } else if (c == '\'') {
      FLOE_RETURN_IF_ERROR(Quote('\'', t));
    } else if (IsDigit(c) || (c == '.' && IsDigit(At(1)))) {
      Number(t);
    } else if (c == '/' && At(1) == '*' && At(2) == '+') {
      AdvanceN(3);
      size_t body = i_;
      while (i_ < text_.size() && !(text_[i_] == '*' && At(1) == '/')) AdvanceN(1);
      if (i_ >= text_.size()) {
        if (!options_.lenient) return EofError(t.offset);
        t.kind = TokenKind::kUnterminated;
        t.value = std::string(text_.substr(t.offset));
      } else {
        t.kind = TokenKind::kHint;
        t.value = std::string(text_.substr(body, i_ - body));
        AdvanceN(2);
      }
    } else {
      static constexpr std::string_view kTwo[] = {"<>", "<=", ">=", "!=", "||"};
      for (std::string_view two : kTwo) {
        if (c == two[0] && At(1) == two[1]) {
          AdvanceN(2);
          t.kind = TokenKind::kSymbol;
          t.value = std::string(two);
          break;
        }
      }
      if (t.kind != TokenKind::kSymbol) {
        static constexpr std::string_view kOne = "(),;.=<>+-*/%[]?:";
        if (kOne.find(c) != std::string_view::npos) {
          AdvanceN(1);
          t.kind = TokenKind::kSymbol;
          t.value = std::string(1, c);
        } else {
          // Calcite's lexical error for a character no token starts with.
          size_t len = 1;
          while (i_ + len < text_.size() &&
                 (static_cast<unsigned char>(text_[i_ + len]) & 0xC0) == 0x80) {
            ++len;
          }
          std::string ch(text_.substr(i_, len));
          if (!options_.lenient) {
            return InvalidArgument("Lexical error at {}.  Encountered: \"{}\" ({}), after : \"\"",
                                   PosText(Here()), Printable(ch),
                                   static_cast<int>(static_cast<unsigned char>(c)));
          }
          AdvanceN(len);
          t.kind = TokenKind::kUnknown;
          t.value = ch;
        }
      }
    }
    t.end = last_;
    t.end_offset = i_;
    return t;
  }

  static std::string Printable(const std::string& ch) {
    if (ch.size() == 1 && static_cast<unsigned char>(ch[0]) < 0x20) {
      return fmt::format("\\u{:04x}", static_cast<int>(ch[0]));
    }
    return ch;
  }

  /// A quoted token ('...' or `...`); the quote character doubled stands for itself.
  Status Quote(char q, Token& t) {
    size_t from = t.offset;
    AdvanceN(1);
    std::string value;
    while (true) {
      if (i_ >= text_.size()) {
        if (!options_.lenient) return EofError(from);
        t.kind = TokenKind::kUnterminated;
        t.value = std::string(text_.substr(from));
        return Ok();
      }
      char c = text_[i_];
      if (c == q) {
        if (At(1) == q) {
          value += q;
          AdvanceN(2);
          continue;
        }
        AdvanceN(1);
        break;
      }
      value += c;
      AdvanceN(1);
    }
    t.kind = q == '`' ? TokenKind::kQuotedIdentifier : TokenKind::kString;
    t.value = std::move(value);
    return Ok();
  }

  void Number(Token& t) {
    bool dot = false, exp = false;
    while (i_ < text_.size() && IsDigit(text_[i_])) AdvanceN(1);
    if (At(0) == '.' && !(At(1) == '.')) {
      dot = true;
      AdvanceN(1);
      while (i_ < text_.size() && IsDigit(text_[i_])) AdvanceN(1);
    }
    if ((At(0) == 'e' || At(0) == 'E') &&
        (IsDigit(At(1)) || ((At(1) == '+' || At(1) == '-') && IsDigit(At(2))))) {
      exp = true;
      AdvanceN(2);
      while (i_ < text_.size() && IsDigit(text_[i_])) AdvanceN(1);
    }
    t.kind = exp ? TokenKind::kApprox : dot ? TokenKind::kDecimal : TokenKind::kInteger;
    t.value = std::string(text_.substr(t.offset, i_ - t.offset));
  }

  std::string_view text_;
  LexOptions options_;
  size_t i_ = 0;
  int32_t line_;
  int32_t column_;
  bool failed_ = false;
  Error error_;
  bool pending_unterminated_ = false;
  size_t unterminated_from_ = 0;
  Pos unterminated_pos_;
};

}  // namespace

Result<std::vector<Token>> Tokenize(std::string_view text, const LexOptions& options) {
  return Lexer(text, options).Run();
}

}  // namespace floe::sql
