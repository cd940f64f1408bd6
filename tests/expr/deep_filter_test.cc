// Deep and long filters (floe issue 7): nesting beyond the limit is an error
// naming the limit and the position, never a stack overflow; flat AND / OR
// chains of any length parse, bind, evaluate and prune, and come out as
// balanced trees so that every later walk stays shallow.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "floe/expr/expression.h"
#include "testing/matchers.h"

namespace floe::expr {
namespace deep_filter_test {

Schema DeepSchema() {
  return Schema({{1, "id", true, LongType(), {}}, {2, "name", false, StringType(), {}}});
}

Batch Rows() {
  auto schema = std::make_shared<Schema>(DeepSchema());
  Batch b(schema);
  for (int64_t id : {1, 2, 3}) b.columns[0].Append<int64_t>(id);
  b.columns[1].AppendBytes("a"), b.columns[1].AppendNull(), b.columns[1].AppendBytes("c");
  b.num_rows = 3;
  return b;
}

// Height of a tree, without recursion (the test must not overflow either).
size_t Height(const ExprPtr& root) {
  size_t best = 0;
  std::vector<std::pair<const Expr*, size_t>> stack{{root.get(), 1}};
  while (!stack.empty()) {
    auto [e, h] = stack.back();
    stack.pop_back();
    best = std::max(best, h);
    for (const auto& c : e->children) stack.emplace_back(c.get(), h + 1);
  }
  return best;
}

std::vector<uint8_t> Eval(const ExprPtr& bound) {
  std::vector<uint8_t> sel;
  auto st = Evaluate(*bound, Rows(), &sel);
  EXPECT_TRUE(st) << st.error().ToString();
  return sel;
}

std::string Repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

FileMetrics IdRange(int64_t lo, int64_t hi) {
  FileMetrics m;
  m.record_count = 10;
  m.lower_bound = [lo](int32_t id) -> std::optional<Literal> {
    if (id == 1) return Literal::Long(lo);
    return std::nullopt;
  };
  m.upper_bound = [hi](int32_t id) -> std::optional<Literal> {
    if (id == 1) return Literal::Long(hi);
    return std::nullopt;
  };
  return m;
}

TEST(DeepFilter, ParenthesesBeyondTheLimitAreAnErrorNamingLimitAndPosition) {
  std::string text = Repeat("(", 5000) + "id = 1" + Repeat(")", 5000);
  auto parsed = Parse(text);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().kind, ErrorKind::kInvalidArgument);
  const std::string& msg = parsed.error().message;
  EXPECT_NE(msg.find(std::to_string(kMaxFilterDepth)), std::string::npos) << msg;
  // The first '(' past the limit is at 1-based position kMaxFilterDepth + 1.
  EXPECT_NE(msg.find(fmt::format("position {}", kMaxFilterDepth + 1)), std::string::npos) << msg;
}

TEST(DeepFilter, NestingUpToTheLimitWorks) {
  std::string text = Repeat("(", kMaxFilterDepth) + "id = 2" + Repeat(")", kMaxFilterDepth);
  auto parsed = Parse(text);
  ASSERT_TRUE(parsed) << parsed.error().ToString();
  auto bound = Bind(*parsed, DeepSchema());
  ASSERT_TRUE(bound) << bound.error().ToString();
  EXPECT_EQ(Eval(*bound), (std::vector<uint8_t>{0, 1, 0}));
  std::string over = "(" + text + ")";
  EXPECT_FALSE(Parse(over));
}

TEST(DeepFilter, ChainedNotBeyondTheLimitIsAnError) {
  auto parsed = Parse(Repeat("NOT ", 15000) + "id = 1");
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().message.find(std::to_string(kMaxFilterDepth)), std::string::npos)
      << parsed.error().message;
  // Within the limit: an odd count negates, an even count does not.
  for (int n : {kMaxFilterDepth - 1, kMaxFilterDepth}) {
    auto ok = Parse(Repeat("NOT ", n) + "id = 1");
    ASSERT_TRUE(ok) << ok.error().ToString();
    auto bound = Bind(*ok, DeepSchema());
    ASSERT_TRUE(bound) << bound.error().ToString();
    EXPECT_EQ(Eval(*bound),
              n % 2 ? (std::vector<uint8_t>{0, 1, 1}) : (std::vector<uint8_t>{1, 0, 0}));
  }
}

TEST(DeepFilter, ParenthesesAndNotShareOneLimit) {
  std::string half = Repeat("NOT (", kMaxFilterDepth / 2 + 1);
  auto parsed = Parse(half + "id = 1" + Repeat(")", kMaxFilterDepth / 2 + 1));
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().message.find("nested deeper than"), std::string::npos)
      << parsed.error().message;
}

TEST(DeepFilter, FlatOrChainOfEightThousandTermsWorksEveryWay) {
  std::string text;
  for (int i = 0; i < 8000; ++i)
    text += fmt::format("{}id = {}", i ? " OR " : "", i * 2 + 2);  // 2, 4, 6...
  auto parsed = Parse(text);
  ASSERT_TRUE(parsed) << parsed.error().ToString();
  EXPECT_LE(Height(*parsed), 16u);  // balanced: log2(8000) < 13
  auto bound = Bind(*parsed, DeepSchema());
  ASSERT_TRUE(bound) << bound.error().ToString();
  EXPECT_LE(Height(*bound), 16u);
  EXPECT_EQ(Eval(*bound), (std::vector<uint8_t>{0, 1, 0}));
  EXPECT_FALSE(MayMatch(**bound, IdRange(-100, 1)));
  EXPECT_FALSE(MayMatch(**bound, IdRange(100001, 200000)));
  EXPECT_TRUE(MayMatch(**bound, IdRange(15990, 17000)));  // 15990 is in the list
  // NOT of the chain: negation normal form turns it into an AND chain, still shallow.
  auto negated = Bind(Not(*parsed), DeepSchema());
  ASSERT_TRUE(negated) << negated.error().ToString();
  EXPECT_EQ(Eval(*negated), (std::vector<uint8_t>{1, 0, 1}));
  ExprPtr nnf = RewriteNot(*negated);
  EXPECT_EQ(nnf->op, Op::kAnd);
  EXPECT_LE(Height(nnf), 16u);
  EXPECT_TRUE(MayMatch(**negated, IdRange(2, 4)));  // != cannot be ruled out by bounds
  EXPECT_FALSE((*bound)->ToString().empty());
}

TEST(DeepFilter, FlatAndChainOfTenThousandTermsWorksEveryWay) {
  std::string text;
  for (int i = 0; i < 10000; ++i) text += fmt::format("{}id > {}", i ? " AND " : "", -i);
  auto parsed = Parse(text);
  ASSERT_TRUE(parsed) << parsed.error().ToString();
  EXPECT_LE(Height(*parsed), 16u);
  auto bound = Bind(*parsed, DeepSchema());
  ASSERT_TRUE(bound) << bound.error().ToString();
  EXPECT_EQ(Eval(*bound), (std::vector<uint8_t>{1, 1, 1}));
  EXPECT_FALSE(MayMatch(**bound, IdRange(-20000, 0)));  // every term needs id > 0
  EXPECT_TRUE(MayMatch(**bound, IdRange(-5, 5)));
  auto with_null = Parse(text + " AND name IS NOT NULL");
  ASSERT_OK(with_null);
  auto b2 = Bind(*with_null, DeepSchema());
  ASSERT_TRUE(b2) << b2.error().ToString();
  EXPECT_EQ(Eval(*b2), (std::vector<uint8_t>{1, 0, 1}));
}

TEST(DeepFilter, LongChainsInsideNestingStayShallow) {
  // A chain at every level of a nest: the tree height grows with the nesting,
  // plus the logarithm of each chain, never with the chain length itself.
  std::string text = "id = 2";
  for (int level = 0; level < 50; ++level) {
    std::string chain;
    for (int i = 0; i < 200; ++i) chain += fmt::format(" OR id = {}", 1000 + level * 1000 + i);
    text = "(" + text + chain + ") AND id < 100000";
  }
  auto parsed = Parse(text);
  ASSERT_TRUE(parsed) << parsed.error().ToString();
  EXPECT_LE(Height(*parsed), 50u * 10u);
  auto bound = Bind(*parsed, DeepSchema());
  ASSERT_TRUE(bound) << bound.error().ToString();
  EXPECT_EQ(Eval(*bound), (std::vector<uint8_t>{0, 1, 0}));
}

TEST(DeepFilter, ProgrammaticLeftDeepChainsAreWalkedWithoutDeepRecursion) {
  // And(And(And(...))) built in code (as callers that add one filter at a
  // time do): Bind, Evaluate, MayMatch and RewriteNot flatten the chain.
  ExprPtr chain = Predicate(Op::kGt, "id", {Literal::Long(0)});
  for (int i = 1; i < 3000; ++i) chain = And(chain, Predicate(Op::kGt, "id", {Literal::Long(-i)}));
  auto bound = Bind(chain, DeepSchema());
  ASSERT_TRUE(bound) << bound.error().ToString();
  EXPECT_LE(Height(*bound), 16u);
  EXPECT_EQ(Eval(*bound), (std::vector<uint8_t>{1, 1, 1}));
  EXPECT_LE(Height(RewriteNot(Not(*bound))), 17u);
}

}  // namespace deep_filter_test
}  // namespace floe::expr
