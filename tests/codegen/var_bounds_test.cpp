// VarBounds (codegen/var_bounds.h): which variables are never negative, trip counts that are surely
// positive, and the branches a loop's first and last iterations take. Each answer is checked
// against every value the variables take in the nest below (w, t and the Lets over them),
// enumerated here; an undecided answer is allowed only where both branches occur.
#include "codegen/var_bounds.h"

#include <gtest/gtest.h>

namespace cubekit::codegen {
namespace {

TEST(VarBounds, DecidesOnlyWhatEveryValueAgreesOn) {
  // for w in [0, 6): qi = w / 3; d = qi + -1 (may be negative); for t in [0, qi + 5): ...
  Kernel k;
  k.new_var("block_idx");
  k.new_var("block_num");
  const int w = k.new_var("w"), qi = k.new_var("qi"), d = k.new_var("d"), t = k.new_var("t");
  const Affine end = Affine::var(qi) + Affine(5);
  std::vector<Node> inner = {when_less(Affine::var(t) - Affine::var(qi) - Affine(1), 0, {}, {}),
                             when_less(Affine::var(t), 4, {}, {}), when(Affine::var(t), 0, {}, {}),
                             when_less(Affine::var(d) + Affine::var(t), 0, {}, {})};
  std::vector<Node> body = {loop(w, Affine(0), Affine(6), Affine(1),
                                 {let(qi, Affine::var(w), LetOp::Div, 3), let(d, Affine::var(qi), LetOp::Add, -1),
                                  loop(t, Affine(0), end, Affine(1), inner)})};
  const VarBounds b(k, body);
  EXPECT_TRUE(b.positive(end));
  EXPECT_FALSE(b.positive(Affine::var(d) + Affine(1)));  // d is -1 at w = 0
  EXPECT_FALSE(b.non_negative(Affine::var(d)));
  EXPECT_TRUE(b.non_negative(Affine::var(qi)));
  // Each If at t = 0 (the first iteration) and t = qi + 4 (the last), against every w.
  for (const Affine& at : {Affine(0), end - Affine(1)}) {
    for (const Node& n : inner) {
      bool taken[2] = {false, false};
      for (int64_t wv = 0; wv < 6; ++wv) {
        const int64_t qv = wv / 3, dv = qv - 1, tv = at.constant() ? at.c : qv + 4;
        const int64_t a = n.a.c + n.a.coefficient(t) * tv + n.a.coefficient(qi) * qv + n.a.coefficient(d) * dv;
        taken[n.compare == Compare::Lt ? a < n.b : a == n.b] = true;
      }
      const int got = b.decided(n, t, at);
      if (got >= 0) EXPECT_TRUE(taken[got] && !taken[1 - got]) << "decided a branch some value does not take";
      else EXPECT_TRUE((taken[0] && taken[1]) || n.a.coefficient(d) != 0) << "left open a branch every value agrees on";
    }
  }
  // The cases a flash nest needs: its first key step takes the softmax, its last the update only.
  EXPECT_EQ(b.decided(inner[0], t, Affine(0)), 1);
  EXPECT_EQ(b.decided(inner[0], t, end - Affine(1)), 0);
  EXPECT_EQ(b.decided(inner[1], t, end - Affine(1)), 0);
}

}  // namespace
}  // namespace cubekit::codegen
