// Row evaluation: a bound expression over a batch, three-valued per row.
#include "floe/expr/expression.h"

#include <cmath>
#include <cstring>

#include "floe/expr/expr_internal.h"

namespace floe::expr {

namespace {

// Three-valued results per row.
constexpr uint8_t kF = 0, kT = 1, kU = 2;


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
      int c = internal::CompareBytes(col.bytes(i), p.s);
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

}  // namespace floe::expr
