// dsl/bounds.h's interval arithmetic against every value the variables take, evaluated here with
// Halide's integer semantics (Euclidean division, wrapping casts): the interval must hold every
// value (soundness), and where x appears once it is tight.
#include "dsl/bounds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

namespace cubekit::dsl {
namespace {

int64_t euclid(int64_t a, int64_t b) {  // Halide's a / b: the remainder is never negative
  int64_t q = a / b, r = a % b;
  if (r < 0) q += b > 0 ? -1 : 1;
  return q;
}

struct Case {
  const char* what;
  std::function<Expr(const Expr& x)> make;
  std::function<int64_t(int64_t x)> eval;
  bool tight = true;  // x once: interval arithmetic is exact
};

TEST(Bounds, HoldEveryValueAndAreTight) {
  Var v("x");
  const int64_t lo = -9, hi = 13;
  const Case cases[] = {
      {"x / 3", [](const Expr& x) { return x / 3; }, [](int64_t x) { return euclid(x, 3); }},
      {"(0 - x) / -2", [](const Expr& x) { return (0 - x) / -2; }, [](int64_t x) { return euclid(-x, -2); }},
      {"(x - 5) / -3", [](const Expr& x) { return (x - 5) / -3; }, [](int64_t x) { return euclid(x - 5, -3); }},
      {"x * -4 + 7", [](const Expr& x) { return x * -4 + 7; }, [](int64_t x) { return x * -4 + 7; }},
      {"min(x, 3) - max(x, 0)", [](const Expr& x) { return min(x, 3) - max(x, 0); },
       [](int64_t x) { return std::min<int64_t>(x, 3) - std::max<int64_t>(x, 0); }, false},
      {"-x", [](const Expr& x) { return -x; }, [](int64_t x) { return -x; }},
      {"abs(x - 2)", [](const Expr& x) { return abs(x - 2); }, [](int64_t x) { return std::abs(x - 2); }},
  };
  for (const Case& c : cases) {
    Interval got = bounds_of(c.make(v), [&](const VarImpl& var) -> std::optional<Interval> {
      if (&var == v.impl.get()) return Interval{lo, hi};
      return std::nullopt;
    });
    ASSERT_TRUE(got.bounded) << c.what;
    int64_t min = INT64_MAX, max = INT64_MIN;
    for (int64_t x = lo; x <= hi; ++x) min = std::min(min, c.eval(x)), max = std::max(max, c.eval(x));
    EXPECT_LE(got.min, min) << c.what;
    EXPECT_GE(got.max, max) << c.what;
    if (c.tight) {
      EXPECT_TRUE(got.min == min && got.max == max) << c.what << ": " << got.min << ".." << got.max;
    }
  }
}

// A value its type cannot hold wraps, as Halide's casts do: the interval is then the whole type.
TEST(Bounds, ConstantsAndSelectsStayInTheirType) {
  Var v("x");
  auto ranges = [&](const VarImpl&) -> std::optional<Interval> { return Interval{0, 7}; };
  Interval c = bounds_of(cast(DType::s8, Expr(200)), ranges);
  EXPECT_TRUE(c.bounded && c.min == -128 && c.max == 127);
  Interval s = bounds_of(select(v < 3, cast(DType::s8, v), cast(DType::s8, Expr(100))), ranges);
  EXPECT_TRUE(s.bounded && s.min == 0 && s.max == 100);
  EXPECT_FALSE(bounds_of(cast(DType::f32, v), ranges).bounded);  // not an index
}

}  // namespace
}  // namespace cubekit::dsl
