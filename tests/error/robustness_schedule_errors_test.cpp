// Issue 10's user errors in schedules: cores() given a loop the Func does not have, or one it
// cannot hand to the cores (the vector path's innermost loop, a loop inside the cube), on both
// paths; and the schedules for bigger shapes that are no longer errors on smaller ones.
#include "codegen/lower.h"
#include "dsl/func.h"
#include "error_test_util.h"

namespace cubekit::test {
namespace {

using namespace cubekit::dsl;  // NOLINT: the DSL reads as in the kernels
using dsl::Level;

// out(r, c) = X(r, c) * 2 + R(r) on the vector path (R per row: tiles of whole rows), or, with
// `flat`, X(r, c) * 2 (tiles of elements).
struct Vec {
  Input X{"X", DType::f32, {64, 256}}, R{"R", DType::f32, {64}};
  Var r{"r"}, c{"c"}, other{"other"};
  RDom k{0, 256, "k"};
  Func out{"out"};
  explicit Vec(bool flat = false) {
    if (flat) out(r, c) = X(r, c) * 2.0f;
    else out(r, c) = X(r, c) * 2.0f + R(r);
  }
  void compile() const { codegen::compile(out, chip910()); }
};

// C(m, n) = sum_k A(m, k) * B(k, n), tiled 64 x 64 (k 256 per L1 fill, 64 per L0 fill).
struct Mm {
  Input A{"A", DType::f16, {128, 1024}}, B{"B", DType::f16, {1024, 128}};
  Func C{"C"};
  Var m{"m"}, n{"n"}, mo{"mo"}, mi{"mi"}, no{"no"}, ni{"ni"}, other{"other"};
  RDom k{0, 1024, "k"};
  RVar ko{"ko"}, ki{"ki"}, kio{"kio"}, kii{"kii"};
  Mm() { C(m, n) = sum(cast(DType::f32, A(m, k)) * cast(DType::f32, B(k, n))); }
  Mm& tiles() {
    C.split(m, mo, mi, 64).split(n, no, ni, 64).split(k, ko, ki, 256).split(ki, kio, kii, 64);
    C.reorder({kii, ni, mi, kio, ko, no, mo});
    return *this;
  }
  Mm& finish() {
    C.stage(A, Level::L1, ko).stage(B, Level::L1, ko).stage(A, Level::L0A, kio).stage(B, Level::L0B, kio);
    C.cube(mi, ni, kii).double_buffer();
    return *this;
  }
  void compile() const { codegen::compile(C, chip910()); }
};

class RobustnessScheduleError : public testing::TestWithParam<ApiCase> {};

TEST_P(RobustnessScheduleError, SaysWhatWhereAndHowToFix) {
  expect_user_error(GetParam().action, GetParam().expected, GetParam().name);
}

// What the cases change compiles as it is.
TEST(RobustnessScheduleBaseline, GoodCoresCompile) {
  EXPECT_NO_THROW({ Vec v; v.out.cores({v.r}); v.compile(); });
  EXPECT_NO_THROW({ Vec v(true); v.out.cores({v.c}); v.compile(); });  // flat: any loop spreads tiles of elements
  EXPECT_NO_THROW({ Mm x; x.tiles().C.cores({x.mo, x.no}); x.finish().compile(); });
}

const ApiCase kCores[] = {
    {"VectorCoresUnknownLoop", [] { Vec v; v.out.cores({v.other}); v.compile(); },
     {"out.cores(other): other is not a loop of out (its loops: r, c); give it r (spread over the cores in tiles of "
      "whole rows)"}},
    {"VectorCoresReductionLoop", [] { Vec v; v.out.cores({v.k}); v.compile(); },
     {"out.cores(k): k is not a loop of out (its loops: r, c); give it r"}},
    {"VectorCoresInnermostLoop", [] { Vec v; v.out.cores({v.c}); v.compile(); },
     {"out.cores(c): c is out's innermost loop, along its rows; the vector path hands whole rows to the cores: give it r "
      "(spread over the cores in tiles of whole rows)"}},
    {"VectorCoresFlatUnknownLoop", [] { Vec v(true); v.out.cores({v.other}); v.compile(); },
     {"out.cores(other): other is not a loop of out (its loops: r, c); give it r or c (spread over the cores in tiles "
      "of elements)"}},
    {"CubeCoresUnknownLoop", [] { Mm x; x.tiles().C.cores({x.other}); x.finish().compile(); },
     {"C.cores(other): other is not a loop of C (its loops: mo[2] > no[2] > ko[4] > kio[4] > mi[64] > ni[64] > "
      "kii[64]); cores take its outermost pure loops outside the cube (mo, no)"}},
    {"CubeCoresInnermostLoop", [] { Mm x; x.tiles().C.cores({x.ni}); x.finish().compile(); },
     {"C.cores(ni): the loops given to cores must be the outermost ones; the loops are mo[2] > no[2]"}},
    {"CubeCoresLoopInsideTheCube",
     [] {
       Mm x;  // every loop on the cube
       x.C.cores({x.m});
       x.C.stage(x.A, Level::L1, x.k).stage(x.B, Level::L1, x.k).stage(x.A, Level::L0A, x.k).stage(x.B, Level::L0B, x.k);
       x.C.cube(x.m, x.n, x.k);
       x.compile();
     },
     {"C.cores(m): m is inside the cube (cube(m, n, k)), which computes it on one core; cores take the tile loops "
      "outside it: split m or n to get some"}},
};
INSTANTIATE_TEST_SUITE_P(Cores, RobustnessScheduleError, testing::ValuesIn(kCores), api_case_name);

}  // namespace
}  // namespace cubekit::test
