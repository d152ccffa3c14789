// dsl/expr.h's rewrites of expressions, checked on the nodes they leave.
#include "dsl/expr.h"
#include "dsl/func.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

namespace cubekit::dsl {
namespace {

std::vector<double> constants(const Expr& e) {
  std::vector<double> out;
  std::function<void(const Expr&)> walk = [&](const Expr& x) {
    if (x.node().op == Op::Const) out.push_back(x.node().value);
    for (const Expr& a : x.node().args) walk(a);
  };
  walk(e);
  return out;
}

// kernels::attention raises a score_mod's -inf to the masked score this way.
TEST(RaiseFloatConstants, RaisesTheFloatConstantsBelowTheFloorOnly) {
  Input x("x", DType::f32, {8});
  Var i("i");
  const double inf = std::numeric_limits<double>::infinity();
  Expr e = select(i < 3, Expr(-inf), x(i) * 2.0 - 1e35) + cast(DType::f32, i - 5);
  Expr raised = raise_float_constants(e, -1e30);
  // -inf raised; 1e35 (x * 2 - 1e35 subtracts it) and the integer 5 left as they are.
  EXPECT_EQ(constants(raised), (std::vector<double>{3, -1e30, 2, 1e35, 5}));
  EXPECT_EQ(constants(e), (std::vector<double>{3, -inf, 2, 1e35, 5}));  // e itself unchanged
  Expr none = x(i) * 2.0;
  EXPECT_EQ(raise_float_constants(none, -1e30).get(), none.get());  // nothing to raise: the same node
}

// Shapes are int64_t: an int64_t converts to an Expr as an int does (it was ambiguous: the conv of
// docs/schedules.md written with int64_t strides did not compile).
TEST(Arith, AnInt64IsAnInteger) {
  Var y("y");
  const int64_t stride = 2, pad = 1;
  EXPECT_EQ((Expr(y) * stride - pad).str(), (Expr(y) * 2 - 1).str());
}

// Grouped-query code reads K at h / g; at g = 1 that is h, the form flash() recognises.
TEST(Arith, AnIntegerOverOneIsItself) {
  Var h("h");
  Expr e = Expr(h) / 1;
  EXPECT_EQ(e.node().op, Op::Var);
  EXPECT_EQ(e.str(), "h");
  Input x("x", DType::f32, {8});
  EXPECT_EQ((x(h) / 1.0).node().op, Op::Div);  // a float's stays: x / 1 is no rewrite the DSL promises there
  EXPECT_EQ((Expr(h) / 2).node().op, Op::Div);
}

}  // namespace
}  // namespace cubekit::dsl
