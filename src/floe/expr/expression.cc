#include "floe/expr/expression.h"

#include "floe/expr/expr_internal.h"
#include "floe/util/civil_time.h"
#include "floe/util/strings.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace floe::expr {

// ---------------------------------------------------------------- literals

namespace {

bool ParseUuid(std::string_view s, std::string* out) {
  if (s.size() != 36) return false;
  out->clear();
  for (size_t i = 0; i < 36;) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
      ++i;
      continue;
    }
    int a = HexDigitValue(s[i]), b = HexDigitValue(s[i + 1]);
    if (a < 0 || b < 0) return false;
    out->push_back(static_cast<char>(a * 16 + b));
    i += 2;
  }
  return true;
}

std::string DecimalText(int128_t v, int32_t scale) {
  bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  } while (u);
  while (static_cast<int32_t>(digits.size()) <= scale) digits.push_back('0');
  std::reverse(digits.begin(), digits.end());
  if (scale > 0) digits.insert(digits.size() - scale, ".");
  return neg ? "-" + digits : digits;
}

int128_t Pow10(int n) {
  int128_t p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

}  // namespace

std::string Literal::ToString() const {
  if (is_null) return "NULL";
  switch (type) {
    case TypeId::kBoolean: return i ? "true" : "false";
    case TypeId::kFloat:
    case TypeId::kDouble: return fmt::format("{}", d);
    case TypeId::kDecimal: return DecimalText(dec, scale);
    case TypeId::kDate: return "DATE '" + civil::FormatDate(i, civil::YearStyle::kJava) + "'";
    case TypeId::kString: return fmt::format("'{}'", s);
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kBinary: {
      std::string hex = "X'";
      for (unsigned char c : s) hex += fmt::format("{:02x}", c);
      return hex + "'";
    }
    default: return fmt::format("{}", i);
  }
}

int Compare(const Literal& a, const Literal& b) {
  switch (a.type) {
    case TypeId::kFloat:
    case TypeId::kDouble: return a.d < b.d ? -1 : (a.d > b.d ? 1 : 0);
    case TypeId::kDecimal: return a.dec < b.dec ? -1 : (a.dec > b.dec ? 1 : 0);
    case TypeId::kString:
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kBinary: {
      int c = std::memcmp(a.s.data(), b.s.data(), std::min(a.s.size(), b.s.size()));
      if (c != 0) return c < 0 ? -1 : 1;
      return a.s.size() < b.s.size() ? -1 : (a.s.size() > b.s.size() ? 1 : 0);
    }
    default: return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
  }
}

std::string_view OpName(Op op) {
  switch (op) {
    case Op::kTrue: return "true";
    case Op::kFalse: return "false";
    case Op::kAnd: return "and";
    case Op::kOr: return "or";
    case Op::kNot: return "not";
    case Op::kLt: return "<";
    case Op::kLe: return "<=";
    case Op::kGt: return ">";
    case Op::kGe: return ">=";
    case Op::kEq: return "=";
    case Op::kNe: return "!=";
    case Op::kIsNull: return "is null";
    case Op::kNotNull: return "is not null";
    case Op::kIsNan: return "is nan";
    case Op::kNotNan: return "is not nan";
    case Op::kIn: return "in";
    case Op::kNotIn: return "not in";
    case Op::kStartsWith: return "starts with";
    case Op::kNotStartsWith: return "not starts with";
  }
  return "?";
}

std::string Expr::ToString() const {
  switch (op) {
    case Op::kTrue: return "true";
    case Op::kFalse: return "false";
    case Op::kAnd:
    case Op::kOr: {
      // One level of parentheses per chain, however the chain is shaped.
      std::string out = "(";
      for (const ExprPtr* t : internal::ChainTerms(*this)) {
        if (out.size() > 1) out += op == Op::kAnd ? " and " : " or ";
        out += (*t)->ToString();
      }
      return out + ")";
    }
    case Op::kNot: {
      size_t nots = 0;
      const Expr& inner = internal::SkipNots(*this, &nots);
      std::string out;
      for (size_t i = 0; i < nots; ++i) out += "not ";
      return out + inner.ToString();
    }
    case Op::kIsNull:
    case Op::kNotNull:
    case Op::kIsNan:
    case Op::kNotNan: return fmt::format("{} {}", column, OpName(op));
    case Op::kIn:
    case Op::kNotIn: {
      std::string vals;
      for (const auto& l : literals) vals += (vals.empty() ? "" : ", ") + l.ToString();
      return fmt::format("{} {} ({})", column, OpName(op), vals);
    }
    default: return fmt::format("{} {} {}", column, OpName(op), literals.empty() ? "" : literals[0].ToString());
  }
}

ExprPtr True() {
  static const ExprPtr kTrueExpr = [] {
    auto e = std::make_shared<Expr>();
    e->op = Op::kTrue;
    return e;
  }();
  return kTrueExpr;
}
ExprPtr False() {
  static const ExprPtr kFalseExpr = [] {
    auto e = std::make_shared<Expr>();
    e->op = Op::kFalse;
    return e;
  }();
  return kFalseExpr;
}
ExprPtr And(ExprPtr a, ExprPtr b) {
  if (a->op == Op::kFalse || b->op == Op::kFalse) return False();
  if (a->op == Op::kTrue) return b;
  if (b->op == Op::kTrue) return a;
  auto e = std::make_shared<Expr>();
  e->op = Op::kAnd;
  e->children = {std::move(a), std::move(b)};
  return e;
}
ExprPtr Or(ExprPtr a, ExprPtr b) {
  if (a->op == Op::kTrue || b->op == Op::kTrue) return True();
  if (a->op == Op::kFalse) return b;
  if (b->op == Op::kFalse) return a;
  auto e = std::make_shared<Expr>();
  e->op = Op::kOr;
  e->children = {std::move(a), std::move(b)};
  return e;
}
ExprPtr Not(ExprPtr a) {
  if (a->op == Op::kTrue) return False();
  if (a->op == Op::kFalse) return True();
  auto e = std::make_shared<Expr>();
  e->op = Op::kNot;
  e->children = {std::move(a)};
  return e;
}
ExprPtr Predicate(Op op, std::string column, std::vector<Literal> literals) {
  auto e = std::make_shared<Expr>();
  e->op = op;
  e->column = std::move(column);
  e->literals = std::move(literals);
  return e;
}

namespace internal {

std::vector<const ExprPtr*> ChainTerms(const Expr& root) {
  std::vector<const ExprPtr*> out, stack;
  for (auto it = root.children.rbegin(); it != root.children.rend(); ++it) stack.push_back(&*it);
  while (!stack.empty()) {
    const ExprPtr* p = stack.back();
    stack.pop_back();
    if ((*p)->op == root.op) {
      for (auto it = (*p)->children.rbegin(); it != (*p)->children.rend(); ++it) stack.push_back(&*it);
    } else {
      out.push_back(p);
    }
  }
  return out;
}

ExprPtr Balanced(Op op, std::vector<ExprPtr> terms) {
  if (terms.empty()) return op == Op::kAnd ? True() : False();
  // Pairs, then pairs of pairs: ceil(log2(n)) rounds, each halving the list.
  while (terms.size() > 1) {
    size_t kept = 0;
    for (size_t i = 0; i < terms.size(); i += 2) {
      if (i + 1 == terms.size()) {
        terms[kept++] = std::move(terms[i]);
      } else {
        terms[kept++] = op == Op::kAnd ? And(std::move(terms[i]), std::move(terms[i + 1]))
                                       : Or(std::move(terms[i]), std::move(terms[i + 1]));
      }
    }
    terms.resize(kept);
  }
  return std::move(terms[0]);
}

const Expr& SkipNots(const Expr& e, size_t* count) {
  const Expr* p = &e;
  *count = 0;
  while (p->op == Op::kNot) {
    p = p->children[0].get();
    ++*count;
  }
  return *p;
}

const ExprPtr& SkipNots(const ExprPtr& e, size_t* count) {
  const ExprPtr* p = &e;
  *count = 0;
  while ((*p)->op == Op::kNot) {
    p = &(*p)->children[0];
    ++*count;
  }
  return *p;
}

}  // namespace internal

// ---------------------------------------------------------------- parser

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

// ---------------------------------------------------------------- binding

Result<Literal> LiteralFromText(std::string_view text, const Type& type) {
  Literal l;
  l.type = type.id;
  switch (type.id) {
    // Filter literals take the spellings data files take (civil::Spelling::kNatural).
    case TypeId::kDate: {
      if (!civil::ParseDate(text, civil::Spelling::kNatural, &l.i)) {
        return InvalidArgument("'{}' is not a date (YYYY-MM-DD)", text);
      }
      return l;
    }
    case TypeId::kTime: {
      int64_t nanos = 0;
      if (!civil::ParseTime(text, civil::Spelling::kNatural, &nanos)) {
        return InvalidArgument("'{}' is not a time (HH:MM:SS[.ffffff])", text);
      }
      l.i = nanos / 1000;
      return l;
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      // A zone is allowed for every timestamp type: the instant is compared in UTC.
      civil::TimestampParts parts;
      if (!civil::ParseTimestamp(text, civil::Spelling::kNatural, &parts)) {
        return InvalidArgument("'{}' is not a timestamp (YYYY-MM-DD[THH:MM:SS[.f]][Z|+HH:MM])", text);
      }
      // Fraction digits below the unit are dropped (floored: the time of day is >= 0).
      bool ns = IsNanosTimestamp(type.id);
      if (!civil::EpochUnits(parts, ns ? 9 : 6, &l.i)) {
        return InvalidArgument("timestamp '{}' is out of range for {}", text, type.ToString());
      }
      return l;
    }
    case TypeId::kUuid:
      if (!ParseUuid(text, &l.s)) return InvalidArgument("'{}' is not a UUID", text);
      return l;
    case TypeId::kBinary:
    case TypeId::kFixed: {
      if (text.size() % 2) return InvalidArgument("'{}' is not hex (odd length)", text);
      for (size_t i = 0; i < text.size(); i += 2) {
        int a = HexDigitValue(text[i]), b = HexDigitValue(text[i + 1]);
        if (a < 0 || b < 0) return InvalidArgument("'{}' is not hex", text);
        l.s.push_back(static_cast<char>(a * 16 + b));
      }
      if (type.id == TypeId::kFixed && static_cast<int32_t>(l.s.size()) != type.length) {
        return InvalidArgument("'{}' is not {} bytes", text, type.length);
      }
      return l;
    }
    case TypeId::kString: l.s = std::string(text); return l;
    default: return InvalidArgument("no text form for {}", type.ToString());
  }
}

namespace {

enum class Fit { kOk, kAboveMax, kBelowMin };

// Coerces a parsed literal to the column type. kAboveMax/kBelowMin report a
// value outside the type's range (the predicate is then folded).
Result<Fit> Coerce(const Literal& in, const Type& type, const std::string& col, Literal* out) {
  auto mismatch = [&]() {
    return InvalidArgument("filter: column '{}' of type {} cannot be compared with {}", col,
                           type.ToString(), in.ToString());
  };
  *out = Literal{};
  out->type = type.id;
  switch (type.id) {
    case TypeId::kBoolean:
      if (in.type != TypeId::kBoolean) return mismatch();
      out->i = in.i;
      return Fit::kOk;
    case TypeId::kInt:
    case TypeId::kLong: {
      int64_t lo = type.id == TypeId::kInt ? INT32_MIN : INT64_MIN;
      int64_t hi = type.id == TypeId::kInt ? INT32_MAX : INT64_MAX;
      if (in.type == TypeId::kLong) {
        out->i = in.i;
      } else if (in.type == TypeId::kDecimal) {
        // 12.0 is fine; 12.5 compares like a real number: fold via double bounds below.
        int128_t p = Pow10(in.scale);
        if (in.dec % p != 0) {
          // Non-integral: represent through the next integer and let the
          // caller adjust the operator (x < 12.5 <=> x <= 12 ...).
          return InvalidArgument("filter: column '{}' is {}, the value {} is not a whole number", col,
                                 type.ToString(), in.ToString());
        }
        int128_t v = in.dec / p;
        if (v > hi) return Fit::kAboveMax;
        if (v < lo) return Fit::kBelowMin;
        out->i = static_cast<int64_t>(v);
        return Fit::kOk;
      } else {
        return mismatch();
      }
      if (out->i > hi) return Fit::kAboveMax;
      if (out->i < lo) return Fit::kBelowMin;
      return Fit::kOk;
    }
    case TypeId::kFloat:
    case TypeId::kDouble:
      if (in.type == TypeId::kLong) out->d = static_cast<double>(in.i);
      else if (in.type == TypeId::kDouble) out->d = in.d;
      else if (in.type == TypeId::kDecimal) out->d = static_cast<double>(in.dec) / static_cast<double>(Pow10(in.scale));
      else if (in.type == TypeId::kString && (in.s == "NaN" || in.s == "Infinity" || in.s == "-Infinity")) {
        out->d = in.s == "NaN" ? std::nan("") : (in.s[0] == '-' ? -INFINITY : INFINITY);
      } else return mismatch();
      if (type.id == TypeId::kFloat) out->d = static_cast<float>(out->d);
      return Fit::kOk;
    case TypeId::kDecimal: {
      int128_t v;
      int32_t s;
      if (in.type == TypeId::kLong) { v = in.i; s = 0; }
      else if (in.type == TypeId::kDecimal) { v = in.dec; s = in.scale; }
      else return mismatch();
      if (s > type.scale) {
        return InvalidArgument("filter: the value {} has more than {} decimal places for column '{}' ({})",
                               in.ToString(), type.scale, col, type.ToString());
      }
      v *= Pow10(type.scale - s);
      int128_t limit = Pow10(type.precision);
      if (v >= limit) return Fit::kAboveMax;
      if (v <= -limit) return Fit::kBelowMin;
      out->dec = v;
      out->scale = type.scale;
      return Fit::kOk;
    }
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      if (in.type == TypeId::kString) {
        auto parsed = LiteralFromText(in.s, type);
        if (!parsed) return Fail(parsed.error().WithContext(fmt::format("filter: column '{}'", col)));
        *out = std::move(*parsed);
        return Fit::kOk;
      }
      if (in.type == type.id) {
        out->i = in.i;
        return Fit::kOk;
      }
      if (type.id != TypeId::kDate && type.id != TypeId::kTime) {
        bool ns = IsNanosTimestamp(type.id);
        if (in.type == TypeId::kTimestamp || in.type == TypeId::kTimestampTz) {
          out->i = ns ? in.i * 1000 : in.i;
          return Fit::kOk;
        }
        if (in.type == TypeId::kDate) {  // midnight of that day
          out->i = in.i * 86400LL * (ns ? 1000000000LL : 1000000LL);
          return Fit::kOk;
        }
      }
      return mismatch();
    case TypeId::kString:
      if (in.type != TypeId::kString) return mismatch();
      out->s = in.s;
      return Fit::kOk;
    case TypeId::kUuid:
      if (in.type == TypeId::kUuid) out->s = in.s;
      else if (in.type == TypeId::kString) {
        FLOE_ASSIGN_OR_RETURN(*out, LiteralFromText(in.s, type));
      } else return mismatch();
      return Fit::kOk;
    case TypeId::kFixed:
    case TypeId::kBinary:
      if (in.type != TypeId::kBinary && in.type != TypeId::kString) return mismatch();
      out->s = in.s;
      if (type.id == TypeId::kFixed && static_cast<int32_t>(out->s.size()) != type.length) {
        return InvalidArgument("filter: column '{}' is {}, the value has {} bytes", col, type.ToString(),
                               out->s.size());
      }
      return Fit::kOk;
    default:
      return InvalidArgument("filter: column '{}' of type {} cannot be filtered", col, type.ToString());
  }
}

bool NamesEqual(std::string_view a, std::string_view b, bool cs) {
  if (cs) return a == b;
  return EqualsIgnoreCase(a, b);
}

Result<ExprPtr> BindPredicate(const Expr& e, const Schema& schema, bool cs) {
  // Resolve the dotted path through structs.
  const std::vector<NestedField>* fields = &schema.fields();
  std::vector<int> path;
  const NestedField* field = nullptr;
  std::string_view rest = e.column;
  // Try the whole name first at each level (names may contain dots).
  while (true) {
    int found = -1;
    size_t used = 0;
    for (size_t i = 0; i < fields->size(); ++i) {
      const auto& name = (*fields)[i].name;
      if (NamesEqual(name, rest, cs)) { found = static_cast<int>(i); used = rest.size(); break; }
      if (rest.size() > name.size() && rest[name.size()] == '.' && NamesEqual(name, rest.substr(0, name.size()), cs)) {
        if (found < 0 || name.size() > used) { found = static_cast<int>(i); used = name.size(); }
      }
    }
    if (found < 0) {
      std::string names;
      for (const auto& f : *fields) names += (names.empty() ? "" : ", ") + f.name;
      return NotFound("filter: column '{}' does not exist (columns: {})", e.column, names);
    }
    path.push_back(found);
    field = &(*fields)[found];
    if (used == rest.size()) break;
    rest = rest.substr(used + 1);
    if (field->type->id != TypeId::kStruct) {
      return InvalidArgument("filter: '{}' is not a struct, so '{}' cannot be resolved", field->name, e.column);
    }
    fields = &field->type->fields;
  }
  const Type& type = *field->type;
  if (type.is_nested()) {
    return InvalidArgument("filter: column '{}' is {}; only primitive columns can be filtered", e.column,
                           type.ToString());
  }
  if ((e.op == Op::kIsNan || e.op == Op::kNotNan) && type.id != TypeId::kFloat && type.id != TypeId::kDouble) {
    return InvalidArgument("filter: IS NAN needs a float or double column, '{}' is {}", e.column, type.ToString());
  }
  if ((e.op == Op::kStartsWith || e.op == Op::kNotStartsWith) && type.id != TypeId::kString) {
    return InvalidArgument("filter: LIKE needs a string column, '{}' is {}", e.column, type.ToString());
  }
  auto bound = std::make_shared<Expr>(e);
  bound->field_id = field->id;
  bound->field_type = field->type;
  bound->path = path;
  bound->literals.clear();
  // Coerce literals, folding out-of-range values (Iceberg binding rules).
  for (const auto& lit : e.literals) {
    Literal out;
    FLOE_ASSIGN_OR_RETURN(Fit fit, Coerce(lit, type, e.column, &out));
    if (fit == Fit::kOk) {
      bound->literals.push_back(std::move(out));
      continue;
    }
    bool above = fit == Fit::kAboveMax;
    auto not_null = std::make_shared<Expr>(*bound);
    not_null->op = Op::kNotNull;
    not_null->literals.clear();
    switch (e.op) {
      case Op::kLt:
      case Op::kLe: return above ? ExprPtr(not_null) : False();
      case Op::kGt:
      case Op::kGe: return above ? False() : ExprPtr(not_null);
      case Op::kEq: return False();
      case Op::kNe: return ExprPtr(not_null);
      case Op::kIn: continue;     // that value can never match
      case Op::kNotIn: continue;  // nor be excluded
      default: return InvalidArgument("filter: value out of range for column '{}'", e.column);
    }
  }
  if (e.op == Op::kIn && bound->literals.empty()) return False();
  if (e.op == Op::kNotIn && bound->literals.empty()) {
    auto nn = std::make_shared<Expr>(*bound);
    nn->op = Op::kNotNull;
    return ExprPtr(nn);
  }
  return ExprPtr(bound);
}

}  // namespace

Result<ExprPtr> Bind(const ExprPtr& e, const Schema& schema, bool case_sensitive) {
  switch (e->op) {
    case Op::kTrue:
    case Op::kFalse: return e;
    case Op::kAnd:
    case Op::kOr: {
      // Recursion per chain, not per term; the result is balanced.
      std::vector<ExprPtr> bound;
      for (const ExprPtr* t : internal::ChainTerms(*e)) {
        FLOE_ASSIGN_OR_RETURN(auto b, Bind(*t, schema, case_sensitive));
        bound.push_back(std::move(b));
      }
      return internal::Balanced(e->op, std::move(bound));
    }
    case Op::kNot: {
      // NOT NOT x is x in three-valued logic too, so only the parity matters.
      size_t nots = 0;
      const ExprPtr& inner = internal::SkipNots(e, &nots);
      FLOE_ASSIGN_OR_RETURN(auto a, Bind(inner, schema, case_sensitive));
      return nots % 2 ? Not(a) : a;
    }
    default: return BindPredicate(*e, schema, case_sensitive);
  }
}

// ---------------------------------------------------------------- row evaluation

namespace {

// Three-valued results per row.
constexpr uint8_t kF = 0, kT = 1, kU = 2;

int CompareBytes(std::string_view a, std::string_view b) {
  int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

}  // namespace

namespace {

// Value of the literal in the column's physical representation.
struct Phys {
  int64_t i = 0;
  double d = 0;
  int128_t dec = 0;
  std::string_view s;
};

Phys ToPhys(const Literal& l) { return Phys{l.i, l.d, l.dec, l.s}; }

// Compares row i of `col` with literal `p`: <0, 0, >0; NaN compares as
// unordered (returns 2).
int CompareRow(const ColumnVector& col, int64_t i, const Phys& p) {
  switch (col.type->id) {
    case TypeId::kBoolean: {
      int64_t v = col.data<uint8_t>()[i];
      return v < p.i ? -1 : (v > p.i ? 1 : 0);
    }
    case TypeId::kInt:
    case TypeId::kDate: {
      int64_t v = col.data<int32_t>()[i];
      return v < p.i ? -1 : (v > p.i ? 1 : 0);
    }
    case TypeId::kFloat: {
      double v = col.data<float>()[i];
      if (std::isnan(v) || std::isnan(p.d)) return 2;
      return v < p.d ? -1 : (v > p.d ? 1 : 0);
    }
    case TypeId::kDouble: {
      double v = col.data<double>()[i];
      if (std::isnan(v) || std::isnan(p.d)) return 2;
      return v < p.d ? -1 : (v > p.d ? 1 : 0);
    }
    case TypeId::kDecimal: {
      int128_t v = col.data<int128_t>()[i];
      return v < p.dec ? -1 : (v > p.dec ? 1 : 0);
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid:
    case TypeId::kFixed: {
      int c = CompareBytes(col.bytes(i), p.s);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default: {
      int64_t v = col.data<int64_t>()[i];
      return v < p.i ? -1 : (v > p.i ? 1 : 0);
    }
  }
}

bool OpHolds(Op op, int c) {
  if (c == 2) return op == Op::kNe;  // NaN: only != holds
  switch (op) {
    case Op::kLt: return c < 0;
    case Op::kLe: return c <= 0;
    case Op::kGt: return c > 0;
    case Op::kGe: return c >= 0;
    case Op::kEq: return c == 0;
    case Op::kNe: return c != 0;
    default: return false;
  }
}

bool IsNanRow(const ColumnVector& col, int64_t i) {
  if (col.type->id == TypeId::kFloat) return std::isnan(col.data<float>()[i]);
  return std::isnan(col.data<double>()[i]);
}

Status EvalNode(const Expr& e, const Batch& batch, std::vector<uint8_t>* out) {
  const int64_t n = batch.num_rows;
  out->assign(static_cast<size_t>(n), kF);
  uint8_t* r = out->data();
  switch (e.op) {
    case Op::kTrue: std::fill(r, r + n, kT); return Ok();
    case Op::kFalse: return Ok();
    case Op::kNot: {
      size_t nots = 0;
      const Expr& inner = internal::SkipNots(e, &nots);
      FLOE_RETURN_IF_ERROR(EvalNode(inner, batch, out));
      r = out->data();
      if (nots % 2) {
        for (int64_t i = 0; i < n; ++i) r[i] = r[i] == kU ? kU : (r[i] == kT ? kF : kT);
      }
      return Ok();
    }
    case Op::kAnd:
    case Op::kOr: {
      // The whole chain at this level, term by term into one result.
      auto terms = internal::ChainTerms(e);
      FLOE_RETURN_IF_ERROR(EvalNode(**terms[0], batch, out));
      r = out->data();
      std::vector<uint8_t> other;
      for (size_t t = 1; t < terms.size(); ++t) {
        FLOE_RETURN_IF_ERROR(EvalNode(**terms[t], batch, &other));
        const uint8_t* o = other.data();
        if (e.op == Op::kAnd) {
          for (int64_t i = 0; i < n; ++i) r[i] = (r[i] == kF || o[i] == kF) ? kF : ((r[i] == kT && o[i] == kT) ? kT : kU);
        } else {
          for (int64_t i = 0; i < n; ++i) r[i] = (r[i] == kT || o[i] == kT) ? kT : ((r[i] == kF && o[i] == kF) ? kF : kU);
        }
      }
      return Ok();
    }
    default: break;
  }
  if (!e.field_type) return Internal("filter evaluated before binding: {}", e.ToString());
  if (e.path.empty() || e.path[0] >= static_cast<int>(batch.columns.size())) {
    return Internal("filter column '{}' is not in the batch", e.column);
  }
  // Walk the struct path; a null parent makes the field null.
  const ColumnVector* col = &batch.columns[e.path[0]];
  std::vector<uint8_t> valid(static_cast<size_t>(n), 1);
  for (size_t level = 0;; ++level) {
    if (col->has_nulls()) {
      for (int64_t i = 0; i < n; ++i) valid[i] &= col->validity[i];
    }
    if (level + 1 >= e.path.size()) break;
    col = &col->children[e.path[level + 1]];
  }
  const Op op = e.op;
  if (op == Op::kIsNull || op == Op::kNotNull) {
    for (int64_t i = 0; i < n; ++i) r[i] = ((valid[i] == 0) == (op == Op::kIsNull)) ? kT : kF;
    return Ok();
  }
  if (op == Op::kIsNan || op == Op::kNotNan) {
    for (int64_t i = 0; i < n; ++i) {
      r[i] = !valid[i] ? kU : ((IsNanRow(*col, i) == (op == Op::kIsNan)) ? kT : kF);
    }
    return Ok();
  }
  if (op == Op::kStartsWith || op == Op::kNotStartsWith) {
    std::string_view prefix = e.literals[0].s;
    for (int64_t i = 0; i < n; ++i) {
      if (!valid[i]) { r[i] = kU; continue; }
      r[i] = (col->bytes(i).starts_with(prefix) == (op == Op::kStartsWith)) ? kT : kF;
    }
    return Ok();
  }
  if (op == Op::kIn || op == Op::kNotIn) {
    std::vector<Phys> lits;
    for (const auto& l : e.literals) lits.push_back(ToPhys(l));
    for (int64_t i = 0; i < n; ++i) {
      if (!valid[i]) { r[i] = kU; continue; }
      bool hit = false;
      for (const auto& p : lits) {
        if (CompareRow(*col, i, p) == 0) { hit = true; break; }
      }
      r[i] = (hit == (op == Op::kIn)) ? kT : kF;
    }
    return Ok();
  }
  const Phys p = ToPhys(e.literals[0]);
  for (int64_t i = 0; i < n; ++i) {
    if (!valid[i]) { r[i] = kU; continue; }
    r[i] = OpHolds(op, CompareRow(*col, i, p)) ? kT : kF;
  }
  return Ok();
}

}  // namespace

Status Evaluate(const Expr& e, const Batch& batch, std::vector<uint8_t>* selected) {
  FLOE_RETURN_IF_ERROR(EvalNode(e, batch, selected));
  for (auto& v : *selected) v = v == kT ? 1 : 0;
  return Ok();
}

// ---------------------------------------------------------------- metrics

namespace {

// Pushes NOT down to predicates (negation normal form).
ExprPtr PushNot(const ExprPtr& e, bool negate) {
  switch (e->op) {
    case Op::kTrue: return negate ? False() : True();
    case Op::kFalse: return negate ? True() : False();
    case Op::kNot: {
      size_t nots = 0;
      const ExprPtr& inner = internal::SkipNots(e, &nots);
      return PushNot(inner, negate != (nots % 2 == 1));
    }
    case Op::kAnd:
    case Op::kOr: {
      std::vector<ExprPtr> pushed;
      for (const ExprPtr* t : internal::ChainTerms(*e)) pushed.push_back(PushNot(*t, negate));
      bool is_and = (e->op == Op::kAnd) != negate;
      return internal::Balanced(is_and ? Op::kAnd : Op::kOr, std::move(pushed));
    }
    default: {
      if (!negate) return e;
      auto out = std::make_shared<Expr>(*e);
      switch (e->op) {
        case Op::kLt: out->op = Op::kGe; break;
        case Op::kLe: out->op = Op::kGt; break;
        case Op::kGt: out->op = Op::kLe; break;
        case Op::kGe: out->op = Op::kLt; break;
        case Op::kEq: out->op = Op::kNe; break;
        case Op::kNe: out->op = Op::kEq; break;
        case Op::kIsNull: out->op = Op::kNotNull; break;
        case Op::kNotNull: out->op = Op::kIsNull; break;
        case Op::kIsNan: out->op = Op::kNotNan; break;
        case Op::kNotNan: out->op = Op::kIsNan; break;
        case Op::kIn: out->op = Op::kNotIn; break;
        case Op::kNotIn: out->op = Op::kIn; break;
        case Op::kStartsWith: out->op = Op::kNotStartsWith; break;
        case Op::kNotStartsWith: out->op = Op::kStartsWith; break;
        default: break;
      }
      return out;
    }
  }
}

bool MayMatchNnf(const Expr& e, const FileMetrics& m) {
  switch (e.op) {
    case Op::kTrue: return true;
    case Op::kFalse: return false;
    case Op::kAnd: {
      for (const ExprPtr* t : internal::ChainTerms(e)) {
        if (!MayMatchNnf(**t, m)) return false;
      }
      return true;
    }
    case Op::kOr: {
      for (const ExprPtr* t : internal::ChainTerms(e)) {
        if (MayMatchNnf(**t, m)) return true;
      }
      return false;
    }
    case Op::kNot: return true;  // not reached after PushNot
    default: break;
  }
  if (m.record_count == 0) return false;
  const int32_t id = e.field_id;
  auto values = m.value_count ? m.value_count(id) : std::nullopt;
  auto nulls = m.null_count ? m.null_count(id) : std::nullopt;
  auto nans = m.nan_count ? m.nan_count(id) : std::nullopt;
  bool all_null = values && nulls && *values == *nulls;
  bool all_nan = values && nans && nulls && *values == *nans + *nulls && *nans > 0;
  switch (e.op) {
    case Op::kIsNull: return !(nulls && *nulls == 0);
    case Op::kNotNull: return !all_null;
    case Op::kIsNan: return !(nans && *nans == 0) && !all_null;
    case Op::kNotNan: return !all_nan;
    case Op::kNe:
    case Op::kNotIn:
    case Op::kNotStartsWith: return !all_null;  // bounds cannot rule these out
    default: break;
  }
  if (all_null || all_nan) return false;
  auto lower = m.lower_bound ? m.lower_bound(id) : std::nullopt;
  auto upper = m.upper_bound ? m.upper_bound(id) : std::nullopt;
  bool floating = e.field_type->id == TypeId::kFloat || e.field_type->id == TypeId::kDouble;
  if (floating) {
    // NaN bounds would be meaningless; ignore them.
    if (lower && std::isnan(lower->d)) lower.reset();
    if (upper && std::isnan(upper->d)) upper.reset();
  }
  const Literal& v = e.literals[0];
  switch (e.op) {
    case Op::kLt: return !(lower && Compare(*lower, v) >= 0);
    case Op::kLe: return !(lower && Compare(*lower, v) > 0);
    case Op::kGt: return !(upper && Compare(*upper, v) <= 0);
    case Op::kGe: return !(upper && Compare(*upper, v) < 0);
    case Op::kEq: return !((lower && Compare(*lower, v) > 0) || (upper && Compare(*upper, v) < 0));
    case Op::kIn:
      for (const auto& l : e.literals) {
        if (!((lower && Compare(*lower, l) > 0) || (upper && Compare(*upper, l) < 0))) return true;
      }
      return false;
    case Op::kStartsWith: {
      const std::string& p = v.s;
      if (lower) {
        std::string_view lp = std::string_view(lower->s).substr(0, p.size());
        if (CompareBytes(lp, p) > 0) return false;
      }
      if (upper) {
        std::string_view up = std::string_view(upper->s).substr(0, p.size());
        if (CompareBytes(up, p) < 0) return false;
      }
      return true;
    }
    default: return true;
  }
}

}  // namespace

ExprPtr RewriteNot(const ExprPtr& e) { return PushNot(e, false); }

bool MayMatch(const Expr& e, const FileMetrics& metrics) {
  ExprPtr nnf = RewriteNot(std::make_shared<Expr>(e));
  return MayMatchNnf(*nnf, metrics);
}

}  // namespace floe::expr
