// Metrics pruning: whether a file may hold matching rows, from its column
// bounds and counts (negation normal form first).
#include "floe/expr/expression.h"

#include <cmath>
#include <cstring>

#include "floe/expr/expr_internal.h"

namespace floe::expr {

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
        if (internal::CompareBytes(lp, p) > 0) return false;
      }
      if (upper) {
        std::string_view up = std::string_view(upper->s).substr(0, p.size());
        if (internal::CompareBytes(up, p) < 0) return false;
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
