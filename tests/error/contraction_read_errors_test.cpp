// Contractions the cube path used to accept and compute wrongly, now user errors: a bound() or an
// RDom that takes part of an input's last dimension (its rows were read at the shorter length),
// and a second tile loop of m or n outside the cube (tiles overlapped, with races).
#include "codegen/lower.h"
#include "dsl/func.h"
#include "error_test_util.h"
#include "kernels/matmul.h"

namespace cubekit::test {
namespace {

using namespace cubekit::dsl;  // NOLINT: the DSL reads as in the kernels
using dsl::Level;

// C(m, n) = sum_k A(m, k) * B(k, n) over k in [0, `k_used`), A 256 x 128, B 128 x 256.
struct Part {
  Input A{"A", DType::f16, {256, 128}}, B{"B", DType::f16, {128, 256}};
  Var m{"m"}, n{"n"};
  Func C{"C"};
  explicit Part(int64_t k_used = 128) {
    RDom k{0, k_used, "k"};
    C(m, n) = sum(cast(DType::f32, A(m, k)) * cast(DType::f32, B(k, n)));
  }
  void compile() {
    C.schedule() = kernels::default_schedule(C, chip910());
    codegen::compile(C, chip910());
  }
};

// The same, 256 x 128 x 128, tiled 64 x 128 with the given extra split of m or n.
struct Split {
  Input A{"A", DType::f16, {256, 128}}, B{"B", DType::f16, {128, 128}};
  Var m{"m"}, n{"n"}, mo{"mo"}, mi{"mi"}, mo1{"mo1"}, mo2{"mo2"}, no{"no"}, ni{"ni"}, no1{"no1"}, no2{"no2"};
  RDom k{0, 128, "k"};
  RVar ko{"ko"}, ki{"ki"};
  Func C{"C"};
  Split() { C(m, n) = sum(cast(DType::f32, A(m, k)) * cast(DType::f32, B(k, n))); }
  void finish(const std::vector<LoopVar>& order) {
    C.split(k, ko, ki, 64).reorder(order);
    C.stage(A, Level::L1, ko).stage(B, Level::L1, ko).stage(A, Level::L0A, ko).stage(B, Level::L0B, ko);
    C.cube(mi, ni, ki);
    codegen::compile(C, chip910());
  }
};

class ContractionReadError : public testing::TestWithParam<ApiCase> {};

TEST_P(ContractionReadError, SaysWhatWhereAndHowToFix) {
  expect_user_error(GetParam().action, GetParam().expected, GetParam().name);
}

// What the cases change compiles: a bound on A's rows (its first dimension), one split of each.
TEST(ContractionReadBaseline, PartOfTheFirstDimensionAndOneSplitEachCompile) {
  EXPECT_NO_THROW({ Part p; p.C.bound(p.m, 0, 100); p.compile(); });
  EXPECT_NO_THROW({
    Split s;
    s.C.split(s.m, s.mo, s.mi, 64).split(s.n, s.no, s.ni, 64);
    s.finish({s.ki, s.ni, s.mi, s.ko, s.no, s.mo});
  });
}

const ApiCase kCases[] = {
    {"BoundOnAnInputsRows", [] { Part p; p.C.bound(p.n, 0, 60); p.compile(); },
     {"C: n covers 60 of the 256 elements of B's last dimension, along which its rows are stored; the cube path reads "
      "an input's rows whole: bound n to all 256 (C.bound(n, 0, 256)), or give B as an input of just the part it reads"}},
    {"ReductionOverPartOfAnInputsRows", [] { Part p(64); p.compile(); },
     {"C: k covers 64 of the 128 elements of A's last dimension, along which its rows are stored; the cube path reads "
      "an input's rows whole: make the RDom k cover all 128, or give A as an input of just the part it reads"}},
    {"SecondTileLoopOfM",
     [] {
       Split s;
       s.C.split(s.m, s.mo, s.mi, 64).split(s.mo, s.mo1, s.mo2, 2).split(s.n, s.no, s.ni, 128);
       s.finish({s.ki, s.ni, s.mi, s.ko, s.no, s.mo2, s.mo1});
     },
     {"C: m has 2 tile loops outside the cube (mo1, mo2); the cube path tiles it with one: split m once outside the "
      "cube (cores() spreads that loop's tiles over the cores)"}},
    {"SecondTileLoopOfN",
     [] {
       Split s;
       s.C.split(s.m, s.mo, s.mi, 64).split(s.n, s.no, s.ni, 32).split(s.no, s.no1, s.no2, 2);
       s.finish({s.ki, s.ni, s.mi, s.ko, s.mo, s.no2, s.no1});
     },
     {"C: n has 2 tile loops outside the cube (no1, no2); the cube path tiles it with one"}},
};
INSTANTIATE_TEST_SUITE_P(Contraction, ContractionReadError, testing::ValuesIn(kCases), api_case_name);

}  // namespace
}  // namespace cubekit::test
