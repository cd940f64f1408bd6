// The filter text parser (grammar in expression.h): a tokenizer and a
// recursive-descent parser with a depth limit.
#include "floe/expr/expression.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "floe/expr/expr_internal.h"

namespace floe::expr {

namespace {

struct Token {
  enum Kind { kEnd, kIdent, kNumber, kString, kSymbol } kind = kEnd;
  std::string text;
  size_t pos = 0;
  bool quoted_ident = false;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<ExprPtr> ParseAll() {
    FLOE_RETURN_IF_ERROR(Advance());
    if (tok_.kind == Token::kEnd) return Error("an expression");
    FLOE_ASSIGN_OR_RETURN(auto e, ParseOr());
    if (tok_.kind != Token::kEnd) return Error("AND, OR or the end of the filter");
    return e;
  }

 private:
  // Each '(' and each NOT opens a nesting level; past kMaxFilterDepth the text
  // is refused at the token that went too deep.
  Status Enter() {
    if (++depth_ > kMaxFilterDepth) {
      return InvalidArgument("filter: nested deeper than {} levels (parentheses and NOT) at position {}",
                             kMaxFilterDepth, tok_.pos + 1);
    }
    return Ok();
  }

  std::unexpected<floe::Error> Error(std::string_view expected) const {
    std::string found = tok_.kind == Token::kEnd ? "the end" : fmt::format("'{}'", tok_.text);
    return InvalidArgument("filter: expected {} at position {}, found {}", expected, tok_.pos + 1, found);
  }

  bool IsKeyword(std::string_view kw) const {
    if (tok_.kind != Token::kIdent || tok_.quoted_ident || tok_.text.size() != kw.size()) return false;
    for (size_t i = 0; i < kw.size(); ++i) {
      if (std::toupper(static_cast<unsigned char>(tok_.text[i])) != kw[i]) return false;
    }
    return true;
  }
  bool IsSymbol(std::string_view s) const { return tok_.kind == Token::kSymbol && tok_.text == s; }

  Status Advance() {
    size_t& p = pos_;
    while (p < text_.size() && std::isspace(static_cast<unsigned char>(text_[p]))) ++p;
    tok_ = Token{};
    tok_.pos = p;
    if (p >= text_.size()) return Ok();
    char c = text_[p];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = p;
      while (p < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[p])) ||
                                  text_[p] == '_' || text_[p] == '.')) {
        ++p;
      }
      tok_.kind = Token::kIdent;
      tok_.text = std::string(text_.substr(start, p - start));
      return Ok();
    }
    if (c == '`' || c == '"') {
      size_t start = ++p;
      while (p < text_.size() && text_[p] != c) ++p;
      if (p >= text_.size()) return InvalidArgument("filter: unterminated quoted name at position {}", start);
      tok_.kind = Token::kIdent;
      tok_.quoted_ident = true;
      tok_.text = std::string(text_.substr(start, p - start));
      ++p;
      // A quoted name may continue as a dotted path.
      while (p < text_.size() && text_[p] == '.') {
        size_t s2 = ++p;
        while (p < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[p])) || text_[p] == '_')) ++p;
        tok_.text += "." + std::string(text_.substr(s2, p - s2));
      }
      return Ok();
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        ((c == '-' || c == '+' || c == '.') && p + 1 < text_.size() &&
         (std::isdigit(static_cast<unsigned char>(text_[p + 1])) || text_[p + 1] == '.'))) {
      size_t start = p++;
      while (p < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[p])) || text_[p] == '.' ||
                                  ((text_[p] == '-' || text_[p] == '+') &&
                                   (text_[p - 1] == 'e' || text_[p - 1] == 'E')))) {
        ++p;
      }
      tok_.kind = Token::kNumber;
      tok_.text = std::string(text_.substr(start, p - start));
      return Ok();
    }
    if (c == '\'') {
      std::string s;
      ++p;
      while (true) {
        if (p >= text_.size()) return InvalidArgument("filter: unterminated string at position {}", tok_.pos + 1);
        if (text_[p] == '\'') {
          if (p + 1 < text_.size() && text_[p + 1] == '\'') {
            s.push_back('\'');
            p += 2;
            continue;
          }
          ++p;
          break;
        }
        s.push_back(text_[p++]);
      }
      tok_.kind = Token::kString;
      tok_.text = std::move(s);
      return Ok();
    }
    for (std::string_view sym : {"<=", ">=", "<>", "!=", "==", "=", "<", ">", "(", ")", ","}) {
      if (text_.substr(p).starts_with(sym)) {
        tok_.kind = Token::kSymbol;
        tok_.text = std::string(sym);
        p += sym.size();
        return Ok();
      }
    }
    return InvalidArgument("filter: unexpected character '{}' at position {}", c, p + 1);
  }

  // A chain of terms joined by OR (or AND) is read in a loop and built as a
  // balanced tree: its length costs no stack, here or in any later walk.
  Result<ExprPtr> ParseOr() {
    std::vector<ExprPtr> terms;
    FLOE_ASSIGN_OR_RETURN(auto first, ParseAnd());
    terms.push_back(std::move(first));
    while (IsKeyword("OR")) {
      FLOE_RETURN_IF_ERROR(Advance());
      FLOE_ASSIGN_OR_RETURN(auto next, ParseAnd());
      terms.push_back(std::move(next));
    }
    return internal::Balanced(Op::kOr, std::move(terms));
  }

  Result<ExprPtr> ParseAnd() {
    std::vector<ExprPtr> terms;
    FLOE_ASSIGN_OR_RETURN(auto first, ParseNot());
    terms.push_back(std::move(first));
    while (IsKeyword("AND")) {
      FLOE_RETURN_IF_ERROR(Advance());
      FLOE_ASSIGN_OR_RETURN(auto next, ParseNot());
      terms.push_back(std::move(next));
    }
    return internal::Balanced(Op::kAnd, std::move(terms));
  }

  // NOT NOT ... x: read in a loop, but each NOT counts as a nesting level.
  Result<ExprPtr> ParseNot() {
    int nots = 0;
    while (IsKeyword("NOT")) {
      FLOE_RETURN_IF_ERROR(Enter());
      ++nots;
      FLOE_RETURN_IF_ERROR(Advance());
    }
    FLOE_ASSIGN_OR_RETURN(auto e, ParsePrimary());
    depth_ -= nots;
    for (int i = 0; i < nots; ++i) e = Not(std::move(e));
    return e;
  }

  // A literal in the current token (and a typed prefix such as DATE).
  Result<std::optional<Literal>> TryLiteral() {
    Literal l;
    if (tok_.kind == Token::kNumber) {
      FLOE_ASSIGN_OR_RETURN(l, NumberLiteral(tok_.text));
      FLOE_RETURN_IF_ERROR(Advance());
      return std::optional<Literal>(l);
    }
    if (tok_.kind == Token::kString) {
      l = Literal::String(tok_.text);
      FLOE_RETURN_IF_ERROR(Advance());
      return std::optional<Literal>(l);
    }
    if (IsKeyword("TRUE") || IsKeyword("FALSE")) {
      l = Literal::Boolean(IsKeyword("TRUE"));
      FLOE_RETURN_IF_ERROR(Advance());
      return std::optional<Literal>(l);
    }
    for (auto [kw, type] : {std::pair{"DATE", TypeId::kDate}, {"TIME", TypeId::kTime},
                            {"TIMESTAMP", TypeId::kTimestamp}, {"TIMESTAMPTZ", TypeId::kTimestampTz},
                            {"TIMESTAMP_LTZ", TypeId::kTimestampTz}, {"UUID", TypeId::kUuid},
                            {"X", TypeId::kBinary}}) {
      if (!IsKeyword(kw)) continue;
      size_t save = pos_;
      Token saved = tok_;
      FLOE_RETURN_IF_ERROR(Advance());
      if (tok_.kind != Token::kString) {  // a column named like the keyword
        pos_ = save;
        tok_ = saved;
        return std::optional<Literal>();
      }
      Type t;
      t.id = type;
      auto lit = LiteralFromText(tok_.text, t);
      if (!lit) return InvalidArgument("filter: {} at position {}", lit.error().message, tok_.pos + 1);
      FLOE_RETURN_IF_ERROR(Advance());
      return std::optional<Literal>(*lit);
    }
    return std::optional<Literal>();
  }

  static Result<Literal> NumberLiteral(const std::string& t) {
    bool has_exp = t.find_first_of("eE") != std::string::npos;
    auto dot = t.find('.');
    if (!has_exp && dot == std::string::npos) {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(t.data() + (t[0] == '+'), t.data() + t.size(), v);
      if (ec == std::errc() && p == t.data() + t.size()) return Literal::Long(v);
      // Too large for a long: keep it exact as a decimal.
    }
    if (!has_exp) {
      int128_t unscaled = 0;
      int32_t scale = 0;
      bool neg = t[0] == '-';
      bool seen_dot = false;
      int digits = 0;
      for (size_t i = (t[0] == '-' || t[0] == '+'); i < t.size(); ++i) {
        if (t[i] == '.') {
          if (seen_dot) return InvalidArgument("filter: bad number '{}'", t);
          seen_dot = true;
          continue;
        }
        if (!std::isdigit(static_cast<unsigned char>(t[i]))) return InvalidArgument("filter: bad number '{}'", t);
        if (++digits > 38) return InvalidArgument("filter: number '{}' has more than 38 digits", t);
        unscaled = unscaled * 10 + (t[i] - '0');
        if (seen_dot) ++scale;
      }
      if (digits == 0) return InvalidArgument("filter: bad number '{}'", t);
      return Literal::Decimal(neg ? -unscaled : unscaled, scale);
    }
    char* end = nullptr;
    double d = std::strtod(t.c_str(), &end);
    if (end != t.c_str() + t.size()) return InvalidArgument("filter: bad number '{}'", t);
    return Literal::Double(d);
  }

  Result<std::vector<Literal>> LiteralList() {
    if (!IsSymbol("(")) return Error("'('");
    FLOE_RETURN_IF_ERROR(Advance());
    std::vector<Literal> out;
    while (true) {
      FLOE_ASSIGN_OR_RETURN(auto l, TryLiteral());
      if (!l) return Error("a literal value");
      out.push_back(std::move(*l));
      if (IsSymbol(",")) {
        FLOE_RETURN_IF_ERROR(Advance());
        continue;
      }
      if (IsSymbol(")")) break;
      return Error("',' or ')'");
    }
    FLOE_RETURN_IF_ERROR(Advance());
    return out;
  }

  static Op Flip(Op op) {
    switch (op) {
      case Op::kLt: return Op::kGt;
      case Op::kLe: return Op::kGe;
      case Op::kGt: return Op::kLt;
      case Op::kGe: return Op::kLe;
      default: return op;
    }
  }

  std::optional<Op> ComparisonOp() const {
    if (tok_.kind != Token::kSymbol) return std::nullopt;
    if (tok_.text == "=" || tok_.text == "==") return Op::kEq;
    if (tok_.text == "!=" || tok_.text == "<>") return Op::kNe;
    if (tok_.text == "<") return Op::kLt;
    if (tok_.text == "<=") return Op::kLe;
    if (tok_.text == ">") return Op::kGt;
    if (tok_.text == ">=") return Op::kGe;
    return std::nullopt;
  }

  Result<ExprPtr> ParsePrimary() {
    if (IsSymbol("(")) {
      FLOE_RETURN_IF_ERROR(Enter());
      FLOE_RETURN_IF_ERROR(Advance());
      FLOE_ASSIGN_OR_RETURN(auto e, ParseOr());
      if (!IsSymbol(")")) return Error("')'");
      FLOE_RETURN_IF_ERROR(Advance());
      --depth_;
      return e;
    }
    if (IsKeyword("TRUE") || IsKeyword("FALSE")) {
      bool v = IsKeyword("TRUE");
      FLOE_RETURN_IF_ERROR(Advance());
      if (!ComparisonOp()) return v ? True() : False();
      return Error("a column name");
    }
    // value op column
    FLOE_ASSIGN_OR_RETURN(auto lhs_lit, TryLiteral());
    if (lhs_lit) {
      auto op = ComparisonOp();
      if (!op) return Error("a comparison operator");
      FLOE_RETURN_IF_ERROR(Advance());
      if (tok_.kind != Token::kIdent) return Error("a column name");
      std::string col = tok_.text;
      FLOE_RETURN_IF_ERROR(Advance());
      return Predicate(Flip(*op), col, {*lhs_lit});
    }
    if (tok_.kind != Token::kIdent) return Error("a column name, NOT or '('");
    std::string col = tok_.text;
    FLOE_RETURN_IF_ERROR(Advance());
    if (auto op = ComparisonOp()) {
      FLOE_RETURN_IF_ERROR(Advance());
      FLOE_ASSIGN_OR_RETURN(auto rhs, TryLiteral());
      if (!rhs) return Error("a literal value");
      return Predicate(*op, col, {*rhs});
    }
    if (IsKeyword("IS")) {
      FLOE_RETURN_IF_ERROR(Advance());
      bool negate = false;
      if (IsKeyword("NOT")) {
        negate = true;
        FLOE_RETURN_IF_ERROR(Advance());
      }
      if (IsKeyword("NULL")) {
        FLOE_RETURN_IF_ERROR(Advance());
        return Predicate(negate ? Op::kNotNull : Op::kIsNull, col);
      }
      if (IsKeyword("NAN")) {
        FLOE_RETURN_IF_ERROR(Advance());
        return Predicate(negate ? Op::kNotNan : Op::kIsNan, col);
      }
      return Error("NULL or NAN");
    }
    bool negate = false;
    if (IsKeyword("NOT")) {
      negate = true;
      FLOE_RETURN_IF_ERROR(Advance());
    }
    if (IsKeyword("IN")) {
      FLOE_RETURN_IF_ERROR(Advance());
      FLOE_ASSIGN_OR_RETURN(auto list, LiteralList());
      return Predicate(negate ? Op::kNotIn : Op::kIn, col, std::move(list));
    }
    if (IsKeyword("LIKE")) {
      FLOE_RETURN_IF_ERROR(Advance());
      if (tok_.kind != Token::kString) return Error("a 'prefix%' pattern");
      std::string pat = tok_.text;
      size_t at = tok_.pos;
      if (pat.empty() || pat.back() != '%' || pat.find_first_of("%_") != pat.size() - 1) {
        return InvalidArgument("filter: only prefix patterns 'abc%' are supported by LIKE (position {})", at + 1);
      }
      pat.pop_back();
      FLOE_RETURN_IF_ERROR(Advance());
      return Predicate(negate ? Op::kNotStartsWith : Op::kStartsWith, col, {Literal::String(pat)});
    }
    if (IsKeyword("BETWEEN")) {
      FLOE_RETURN_IF_ERROR(Advance());
      FLOE_ASSIGN_OR_RETURN(auto lo, TryLiteral());
      if (!lo) return Error("a literal value");
      if (!IsKeyword("AND")) return Error("AND");
      FLOE_RETURN_IF_ERROR(Advance());
      FLOE_ASSIGN_OR_RETURN(auto hi, TryLiteral());
      if (!hi) return Error("a literal value");
      auto e = And(Predicate(Op::kGe, col, {*lo}), Predicate(Op::kLe, col, {*hi}));
      return negate ? Not(e) : e;
    }
    return Error(negate ? "IN, LIKE or BETWEEN" : "a comparison, IS, IN, LIKE or BETWEEN");
  }

  std::string_view text_;
  size_t pos_ = 0;
  Token tok_;
  int depth_ = 0;  ///< open parentheses and NOTs around the current token
};

}  // namespace

Result<ExprPtr> Parse(std::string_view text) { return Parser(text).ParseAll(); }

}  // namespace floe::expr
