// Text of literals and expressions (Literal::ToString, OpName, Expr::ToString).
#include "floe/expr/expression.h"

#include <algorithm>

#include "floe/expr/expr_internal.h"
#include "floe/util/civil_time.h"

namespace floe::expr {

namespace {

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

}  // namespace floe::expr
