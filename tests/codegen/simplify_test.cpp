// The simplification pass on small IR written here, against the IR it must leave (golden text),
// and on the compiled kernels: fewer scalar instructions than the unsimplified program would run
// is what bench/README's table shows; here, that the kernels still compute the same.
#include "codegen/ir.h"
#include "codegen/simplify.h"
#include "codegen_test_util.h"
#include "kernels/check.h"
#include "kernels/matmul.h"

#include <gtest/gtest.h>

namespace cubekit::codegen {
namespace {

// A kernel with one buffer and the variables every kernel has; `body` built by the test.
struct Small {
  Kernel k;
  int ub;
  Small() {
    k.name = "t";
    k.new_var("block_idx");
    k.new_var("block_num");
    ub = k.new_buffer("X", Space::UB, 1024, 1);
    k.buffers[size_t(ub)].base = 0, k.buffers[size_t(ub)].stride = 1024;
  }
  Node copy(const Affine& offset) {
    return instr("vdup.f16", Pipe::V, {{-1, ub, offset}}, {mem_arg(0), num(0), kw("repeat", imm(1))});
  }
  std::string simplified() {
    simplify(k);
    return k.str();
  }
};

TEST(Simplify, FoldsWhatTheShapeDecides) {
  Small s;
  int w = s.k.new_var("w"), mo = s.k.new_var("mo"), rest = s.k.new_var("rest"), no = s.k.new_var("no");
  std::vector<Node> body = {
      let(rest, Affine::var(kBlockIdx) + Affine::var(w, 4), LetOp::Add, 0),
      let(mo, Affine::var(rest), LetOp::Rem, 1),   // x % 1 = 0
      let(rest, Affine::var(rest), LetOp::Div, 1),  // x / 1 = x: nothing to do
      let(no, Affine::var(kBlockIdx), LetOp::Add, 0),  // a copy of a variable
      when(Affine::var(mo), 3, {s.copy(Affine(64))}, {s.copy(Affine::var(no, 32) + Affine::var(rest, 2))}),
  };
  s.k.body = {loop(w, Affine(0), Affine(1), Affine(1), std::move(body))};  // one trip
  EXPECT_EQ(s.simplified(),
            "kernel t (block_dim 1)\n"
            "  buffer X in ub: 1024 bytes x 1 at 0 (stride 1024)\n"
            "  vdup.f16 X[34*block_idx], 0, repeat=1\n");
}

TEST(Simplify, KeepsWhatTheRunDecides) {
  Small s;
  int i = s.k.new_var("i"), t = s.k.new_var("t");
  // A loop of several trips and a branch on its variable stay; a variable defined twice is not
  // replaced by either definition.
  s.k.body = {loop(i, Affine(0), Affine(4), Affine(1),
                   {let(t, Affine::var(i), LetOp::Add, 0), let(t, Affine::var(t), LetOp::Div, 2),
                    when(Affine::var(i), 1, {s.copy(Affine::var(t, 32))}, {})}),
              loop(i, Affine(0), Affine(0), Affine(1), {s.copy(Affine(0))})};  // no trip: gone
  EXPECT_EQ(s.simplified(),
            "kernel t (block_dim 1)\n"
            "  buffer X in ub: 1024 bytes x 1 at 0 (stride 1024)\n"
            "  for i = 0; i < 4; i += 1\n"
            "    t = (i) + 0\n"
            "    t = (t) / 2\n"
            "    if i == 1\n"
            "      vdup.f16 X[32*t], 0, repeat=1\n");
}

// The naive 40^3 matmul: one core, one tile, one chunk of k: only the loops over fractals stay,
// and nothing divides or takes a remainder by 1.
TEST(Simplify, TheNaiveSmallMatmulKeepsOnlyItsFractalLoops) {
  kernels::MatmulOptions o = test::mm(40, 40, 40);
  o.schedule = kernels::MatmulOptions::Schedule::Naive;
  kernels::KernelRun run = kernels::compile_and_run(kernels::matmul(o, test::chip()).out, test::chip(), {.seed = 1});
  EXPECT_TRUE(run.sim.report.clean()) << test::describe(run);
  EXPECT_TRUE(run.check.pass);
  int branches = 0;
  for (const Instr& in : run.program.code) {
    std::string_view m = spec_of(in).mnemonic;
    branches += m == "beq" || m == "bne" || m == "blt" || m == "ble" || m == "bgt" || m == "bge";
    if (m == "div" || m == "rem") {
      EXPECT_NE(in.ops[2].imm, 1) << print_instr(run.program, in);
    }
  }
  EXPECT_EQ(branches, 3) << print_program(run.program);  // load2d of A's and B's fractal rows, the store's
  EXPECT_LE(run.sim.report.scalar_instructions, 40);      // 98 before the pass
}

}  // namespace
}  // namespace cubekit::codegen
