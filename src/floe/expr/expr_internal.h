/// \file
/// Internal to the expr module (shared by expression*.cc): walking AND / OR
/// chains and NOT runs without recursion per node, and byte comparison. A filter such as `a = 1 OR a = 2 OR ... ` with ten
/// thousand terms, or a tree built one `And()` at a time, must not cost one
/// stack frame per term in any walk (issue 7: stack overflow on deep input).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <vector>

#include "floe/expr/expression.h"

namespace floe::expr::internal {

/// The operands of the chain of `root.op` (kAnd or kOr) rooted at `root`, left
/// to right: every descendant reached through nodes of that same op, collected
/// with an explicit stack. Pointers into the tree, valid while it lives.
std::vector<const ExprPtr*> ChainTerms(const Expr& root);

/// Joins `terms` with `op` (kAnd or kOr) into a balanced tree of binary nodes,
/// its height the logarithm of the term count; And() / Or() fold constants on
/// the way. No terms: the identity (true for AND, false for OR).
ExprPtr Balanced(Op op, std::vector<ExprPtr> terms);

/// Follows a run of NOT nodes from `e`: the first node that is not a NOT, and
/// in `*count` how many NOTs were skipped.
const Expr& SkipNots(const Expr& e, size_t* count);
const ExprPtr& SkipNots(const ExprPtr& e, size_t* count);

/// Unsigned bytewise order of `a` and `b` (a prefix first), as memcmp's sign.
inline int CompareBytes(std::string_view a, std::string_view b) {
  int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

}  // namespace floe::expr::internal
