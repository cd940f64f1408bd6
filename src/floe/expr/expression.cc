// The expression tree: literal comparison, the node constructors (which fold
// constants) and the chain helpers of expr_internal.h. Parsing, binding,
// evaluation, metrics pruning and printing live in expression_*.cc.
#include "floe/expr/expression.h"

#include "floe/expr/expr_internal.h"

namespace floe::expr {

int Compare(const Literal& a, const Literal& b) {
  switch (a.type) {
    case TypeId::kFloat:
    case TypeId::kDouble: return a.d < b.d ? -1 : (a.d > b.d ? 1 : 0);
    case TypeId::kDecimal: return a.dec < b.dec ? -1 : (a.dec > b.dec ? 1 : 0);
    case TypeId::kString:
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kBinary: {
      int c = internal::CompareBytes(a.s, b.s);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default: return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
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

}  // namespace floe::expr
