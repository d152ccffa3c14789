// User errors of the vector path and of fused epilogues: writing a Func the Vector unit cannot
// compute as scheduled (schedules/vector.cpp), tiles that do not fit UB (codegen/fit.cpp),
// epilogues a contraction cannot fuse (schedules/epilogue.cpp, codegen/fit.cpp), the
// options of the vector kernels and of the matmul epilogue (kernels/), and `cubekit kernel NAME`
// (tools/cmd_kernel.cpp). Each case starts from a Func that compiles (VectorBaseline) and breaks one
// thing; its message must name the Func or input, give the numbers, and say how to fix it where
// the message does.
#include "codegen/lower.h"
#include "dsl/func.h"
#include "emulator/chip_config.h"
#include "error_test_util.h"

#include <cmath>
#include "kernels/matmul.h"
#include "kernels/vector.h"

#include <sys/wait.h>

#include <cstdio>

namespace cubekit::test {
namespace {

using namespace cubekit::dsl;  // NOLINT: the DSL reads as in the kernels
using dsl::Level;


Expr f32(const Expr& e) { return cast(DType::f32, e); }

// A vector Func over 64 rows of 256 columns, and what it can read: full tiles (X, Y), one value
// per row (R) and one per column (G).
struct Vec {
  Input X{"X", DType::f16, {64, 256}}, Y{"Y", DType::f16, {64, 256}};
  Input R{"R", DType::f32, {64}}, G{"G", DType::f32, {256}};
  Var r{"r"}, c{"c"};
  RDom k{0, 256, "k"};
  Func out{"out"}, row_max{"row_max"};
  // out = X - max over the row: a per-row value broadcast over the columns.
  Vec& rowwise() {
    row_max(r) = maximum(f32(X(r, k)));
    out(r, c) = f32(X(r, c)) - row_max(r);
    return *this;
  }
  Vec& elementwise() {
    out(r, c) = X(r, c) + Y(r, c);
    return *this;
  }
  void compile(const ChipConfig& chip = chip910()) const { codegen::compile(out, chip); }
};


class VectorApiError : public testing::TestWithParam<ApiCase> {};

TEST_P(VectorApiError, SaysWhatWhereAndHowToFix) {
  expect_user_error(GetParam().action, GetParam().expected, GetParam().name);
}

TEST(VectorBaseline, GoodFuncsCompile) {
  EXPECT_NO_THROW(Vec().rowwise().compile());
  EXPECT_NO_THROW({ Vec v; v.rowwise().out.cores({v.r}).double_buffer().tile_rows(8); v.compile(); });
  EXPECT_NO_THROW(Vec().elementwise().compile());
  EXPECT_NO_THROW({ Vec v; v.out(v.r, v.c) = f32(v.X(v.r, v.c)) * v.G(v.c) + v.R(v.r); v.compile(); });
}

// ---- what the vector path computes (schedules/vector.cpp) -------------------------------------------

const ApiCase kVectorFuncs[] = {
    {"ReductionOverMiddleAxis",
     [] {
       Input X3("X3", DType::f32, {4, 8, 256}), X2("X2", DType::f32, {4, 256});
       Var a("a"), c("c");
       RDom j(0, 8, "j");
       Func out("out");
       out(a, c) = X2(a, c) + sum(X3(a, j, c));
       codegen::compile(out, chip910());
     },
     {"out: `sum(X3(a, j, c))` reduces j over [0, 8); the vector path reduces along the last dimension only, whole "
      "rows: j must index the last dimension and run over [0, 256)"}},
    {"ReductionAtAStridedIndex",  // the rows are X's 300 columns, not the output's 7 rows (a probe)
     [] {
       Input X("X", DType::f32, {7, 300});
       Var r("r");
       RDom k(0, 150, "k");
       Func out("out");
       out(r) = sum(X(r, k * 2));
       codegen::compile(out, chip910());
     },
     {"out: `sum(X(r, (k * 2)))` reduces k over [0, 150); the vector path reduces along the last dimension only, whole "
      "rows: k must index the last dimension and run over [0, 300)"}},
    {"ReductionReadingNoRow",  // a 1-D sum of a 1-D input was told k must run over [0, 1) (a probe)
     [] {
       Input X1("X1", DType::f32, {40});
       Var r("r");
       RDom k(0, 40, "k");
       Func out("out");
       out(r) = sum(X1(k));
       out.bound(r, 0, 1);
       codegen::compile(out, chip910());
     },
     {"out: `sum(X1(k))` reads the same values for every element of out (it indexes none of out's variables), and the "
      "vector path reduces a row of an input per value of out"}},
    {"ReductionOverPartOfRow",
     [] {
       Vec v;
       RDom half(0, 128, "half");
       v.row_max(v.r) = maximum(f32(v.X(v.r, half)));
       v.out(v.r, v.c) = f32(v.X(v.r, v.c)) - v.row_max(v.r);
       v.compile();
     },
     {"row_max: `maximum(cast(f32, X(r, half)))` reduces half over [0, 128); the vector path reduces along the last "
      "dimension only, whole rows: half must index the last dimension and run over [0, 256)"}},
    {"ReductionOverTwoRDoms",
     [] {
       Vec v;
       RDom k2(0, 256, "k2");
       v.row_max(v.r) = sum(f32(v.X(v.r, v.k)) * f32(v.Y(v.r, k2)));
       v.out(v.r, v.c) = f32(v.X(v.r, v.c)) - v.row_max(v.r);
       v.compile();
     },
     {"row_max: `sum((cast(f32, X(r, k)) * cast(f32, Y(r, k2))))` reduces over 2 variables; the vector path "
      "reduces along the last dimension only"}},
    {"NestedReduction",
     [] {
       Vec v;
       v.row_max(v.r) = sum(f32(v.X(v.r, v.k)) * maximum(f32(v.X(v.r, v.k))));
       v.out(v.r, v.c) = f32(v.X(v.r, v.c)) - v.row_max(v.r);
       v.compile();
     },
     {"row_max (in sum): `maximum(cast(f32, X(r, k)))` nests a reduction in a reduction; compute the inner one as "
      "its own Func"}},
    {"ReductionOfPerColumnValue",
     [] {
       Vec v;
       v.row_max(v.r) = sum(v.G(v.k));
       v.row_max.bound(v.r, 0, 64);
       v.out(v.r, v.c) = f32(v.X(v.r, v.c)) - v.row_max(v.r);
       v.compile();
     },
     {"row_max: `sum(G(k))` reduces a per-column value; a row reduction needs a full value, indexed (rows.., k)"}},
    {"InputIndexedUnreadably",
     [] {
       Vec v;
       Input T("T", DType::f16, {256, 64});
       v.out(v.r, v.c) = v.X(v.r, v.c) + T(v.c, v.r);
       v.compile();
     },
     {"out: T(c, r) is indexed in a way the vector path cannot read",
      "it reads tensors at (rows.., last), (rows..) or (last), where here rows are (r) and last is c"}},
    {"RowAndColumnCombined", [] { Vec v; v.out(v.r, v.c) = v.R(v.r) + v.G(v.c); v.compile(); },
     {"out: `(R(r) + G(c))` combines a per-row and a per-column value",
      "write it as part of an expression that also reads a full input"}},
    {"InputReadPerRowAndPerColumn",
     [] {
       Input X("X", DType::f32, {64, 64}), V("V", DType::f32, {64});
       Var r("r"), c("c");
       Func out("out");
       out(r, c) = X(r, c) * V(r) + V(c);
       codegen::compile(out, chip910());
     },
     {"out: input V is read both as a per-row and as a per-column value; read it one way (or pass it twice)"}},
    {"InputSizeDiffersFromBound",
     [] { Vec v; v.elementwise().out.bound(v.c, 0, 128); v.compile(); },
     {"out: input X has shape [64, 256] (16384 elements) but as a full operand of out (shape [64, 128]) it needs 8192: the "
      "vector path reads an input whole", "give X 8192 elements (a bound() of out as large as the input"}},
    {"ComparisonOutsideSelect",
     [] { Vec v; v.out(v.r, v.c) = f32(v.X(v.r, v.c)) * f32(v.X(v.r, v.c) > 0); v.compile(); },
     {"out: the comparison `(X(r, c) > 0)` is only computed inside select() on the vector path"}},
    {"LoopVariableAsValue", [] { Vec v; v.out(v.r, v.c) = v.X(v.r, v.c) + cast(DType::f16, v.c); v.compile(); },
     {"out: `c` uses the loop variable c as a value; the vector path computes on tensor values"}},
    {"FuncOverLastDimensionOnly",
     [] {
       Vec v;
       Func scale("scale");
       scale(v.c) = v.G(v.c) * 2.0f;
       v.out(v.r, v.c) = f32(v.X(v.r, v.c)) * scale(v.c);
       v.compile();
     },
     {"scale: a Func over the last dimension only is not supported on the vector path"}},
    {"FuncWithoutDefinition", [] { codegen::compile(Func("empty"), chip910()); }, {"empty has no definition"}},
    {"IntegerArithmetic",
     [] {
       Input S("S", DType::s32, {64, 256});
       Var r("r"), c("c");
       Func out("out");
       out(r, c) = S(r, c) + S(r, c);
       codegen::compile(out, chip910());
     },
     {"out: `(S(r, c) + S(r, c))` computes in s32; the vector unit computes in f16 and f32: cast to one of them first"}},
    {"ConversionWithoutInstruction",
     [] {
       Input S("S", DType::s8, {64, 256});
       Var r("r"), c("c");
       Func out("out");
       out(r, c) = cast(DType::f32, S(r, c));
       codegen::compile(out, chip910());
     },
     {"out: `cast(f32, S(r, c))` converts s8 to f32; the vector unit of ascend910 converts f16 <-> f32"}},
    {"ReadsAContraction",
     [] {
       Input A("A", DType::f16, {64, 32}), B("B", DType::f16, {32, 256});
       Var r("r"), c("c");
       RDom j(0, 32, "j");
       Func mm("mm"), out("out");
       mm(r, c) = sum(f32(A(r, j)) * f32(B(j, c)));
       out(r, c) = Expr(mm(r, c)) + 1.0f;
       codegen::compile(out, chip910());
     },
     {"out reads the contraction mm: compute out in mm's epilogue with out.epilogue_of(mm), or compile mm on its own"}},
};
INSTANTIATE_TEST_SUITE_P(VectorFuncs, VectorApiError, testing::ValuesIn(kVectorFuncs), api_case_name);

// ---- the vector schedule (schedules/vector.cpp) and UB (codegen/fit.cpp) --------------------

// out = X - the maximum of its row, f32 [rows, cols], compiled for the 910 with `schedule` on out.
void compile_centered(int64_t rows, int64_t cols, const std::function<void(Func&)>& schedule) {
  Input X("X", DType::f32, {rows, cols});
  Var r("r"), c("c");
  RDom k(0, cols, "k");
  Func m("m"), out("out");
  m(r) = maximum(X(r, k));
  out(r, c) = X(r, c) - m(r);
  schedule(out);
  codegen::compile(out, chip910());
}

const ApiCase kVectorSchedule[] = {
    {"ScheduleOnAStage",  // ran without a word, even multi_buffer(UB, 99) (a probe)
     [] {
       Input X("X", DType::f16, {8, 64});
       Var r("r"), c("c");
       Func e("e"), out("out");
       e(r, c) = X(r, c) * 2.0f;
       e.multi_buffer(Level::UB, 99);
       out(r, c) = e(r, c) + 1.0f;
       codegen::compile(out, chip910());
     },
     {"e.multi_buffer(UB, 99): e is computed in out's tiles, which read it, by out's schedule; a schedule of its own is "
      "not used: schedule out instead, or clear e's"}},
    {"SplitOnVectorFunc",
     [] { Vec v; Var ro("ro"), ri("ri"); v.rowwise().out.split(v.r, ro, ri, 8); v.compile(); },
     {"out.split(r, ro, ri, 8): out runs on the vector unit, which takes cores(), double_buffer(), multi_buffer(UB, n) and tile_rows(); "
      "this directive is for the cube path"}},
    {"StageOnVectorFunc", [] { Vec v; v.rowwise().out.stage(v.X, Level::UB, v.r); v.compile(); },
     {"out.stage(X, UB, r): out runs on the vector unit, which takes cores(), double_buffer(), multi_buffer(UB, n) and tile_rows()"}},
    {"StoreInOnVectorFunc", [] { Vec v; v.rowwise().out.store_in(Level::UB); v.compile(); },
     {"out.store_in(UB): out runs on the vector unit", "this directive is for the cube path"}},
    {"TileRowsBelowOne", [] { Vec v; v.rowwise().out.tile_rows(0); v.compile(); },
     {"out.tile_rows(0): give at least 1 row"}},
    {"TileRowsOnElementwiseFunc", [] { Vec v; v.elementwise().out.tile_rows(4); v.compile(); },
     {"out.tile_rows(4): out is elementwise (flat tiles of elements); tile_rows() applies to Funcs with per-row or "
      "per-column values"}},
    {"TileRowsOverflowUB", [] { compile_centered(512, 1024, [](Func& out) { out.double_buffer().tile_rows(256); }); },
     {"out: tiles of 256 rows of 1024 columns need 4727808 bytes of UB (in_X 1048576 x 2, out 1048576 x 2",
      "but ascend910 has 262144; use tile_rows(14) or fewer"}},
    {"RowTooLongForUB", [] { compile_centered(4, 1 << 16, [](Func&) {}); },
     {"out: tiles of 1 row of 65536 columns need 655648 bytes of UB (in_X 262144 x 1, out 262144 x 1",
      "but ascend910 has 262144; a whole row must fit: use shorter rows (a reduction along a longer row in two Funcs",
      "or fewer intermediate full-row Funcs"}},
    {"RowTooLongForUBWithCopies",
     [] { compile_centered(4, 1 << 14, [](Func& out) { out.multi_buffer(Level::UB, 3); }); },
     {"out: tiles of 1 row of 16384 columns need ", "a whole row must fit: use shorter rows",
      "or fewer intermediate full-row Funcs, or use multi_buffer(UB, 2) or fewer"}},
    {"ElementwiseTileOverflowUB",
     [] { Vec().elementwise().compile(chip_with("tiny_ub", [](ChipConfig& c) { c.set_buffer_size(Space::UB, 512); })); },
     {"out: tiles of 128 elements need 768 bytes of UB (in_X 256 x 1, in_Y 256 x 1, out 256 x 1; V: scratch) but "
      "tiny_ub has 512; use fewer inputs or intermediate values"}},
    {"CoresGroupOnVectorFunc", [] { Vec v; v.rowwise().out.cores({v.r}, 4); v.compile(); },
     {"out.cores(r, 4): the vector path hands rows to the cores in turn; groups are for the cube path"}},
    {"TileRowsAboveBurstLimit", [] { Vec v; v.rowwise().out.tile_rows(5000); v.compile(); },
     {"out.tile_rows(5000): at most 4095 rows per tile"}},
    {"MultiBufferOutsideUB", [] { Vec v; v.rowwise().out.multi_buffer(Level::L1, 3); v.compile(); },
     {"out.multi_buffer(L1, 3): out runs on the vector unit, whose tiles are in UB: multi_buffer(UB, 3)"}},
    {"MultiBufferTooManyCopies", [] { Vec v; v.rowwise().out.multi_buffer(Level::UB, 5); v.compile(); },
     {"out.multi_buffer(UB, 5): the copies must be 1..4 (ascend910 has 4 event ids per pipe pair, one per copy)"}},
    {"MultiBufferEventIdsWithColumnInputs",
     [] { Vec v; v.out(v.r, v.c) = f32(v.X(v.r, v.c)) * v.G(v.c); v.out.multi_buffer(Level::UB, 4); v.compile(); },
     {"out: 4 copies of its input tiles and one for its per-column inputs need 5 event ids from MTE2 to V but ascend910 has 4; "
      "use multi_buffer(UB, 3) or fewer"}},
    {"MultiBufferAndDoubleBuffer", [] { Vec v; v.rowwise().out.double_buffer().multi_buffer(Level::UB, 3); v.compile(); },
     {"out.multi_buffer(UB, 3): double_buffer() is multi_buffer(UB, 2); give one of them"}},
};
INSTANTIATE_TEST_SUITE_P(VectorSchedule, VectorApiError, testing::ValuesIn(kVectorSchedule), api_case_name);

// A row too long for UB even in one copy of each buffer: the message does not offer fewer copies
// (a ready kernel's user cannot drop its default schedule's double_buffer(), and it would not help).
TEST(VectorSchedule, RowTooLongEvenInOneCopyOffersNoFewerCopies) {
  expect_user_error([] { compile_centered(4, 1 << 16, [](Func& out) { out.double_buffer(); }); },
                    {"out: tiles of 1 row of 65536 columns need", "a whole row must fit"});
  try {
    compile_centered(4, 1 << 16, [](Func& out) { out.double_buffer(); });
  } catch (const UserError& e) {
    EXPECT_THAT(std::string(e.what()), testing::Not(testing::HasSubstr("double_buffer")));
  }
}

// ---- fused epilogues (schedules/epilogue.cpp, codegen/fit.cpp) -------------------------

kernels::MatmulOptions shape(int64_t m, int64_t n, int64_t k) {
  kernels::MatmulOptions o;
  o.m = m, o.n = n, o.k = k;
  return o;
}

// An epilogue D(m, n) fused onto C = A x B (128 x 128 x 256, f16 in, f32 out, the default schedule); each
// case defines D.
struct Epi {
  kernels::Matmul mm;
  Input bias{"bias", DType::f32, {128}};
  Var m{"m"}, n{"n"};
  Func D{"D"};
  explicit Epi(const kernels::MatmulOptions& o = shape(128, 128, 256)) : mm(kernels::matmul(o, chip910())) {}
  Expr C() const { return mm.c(m, n); }
  void compile(const ChipConfig& chip = chip910()) {
    D.epilogue_of(mm.c);
    codegen::compile(D, chip);
  }
};

TEST(VectorBaseline, GoodEpiloguesCompile) {
  EXPECT_NO_THROW({ Epi e; e.D(e.m, e.n) = max(e.C() + e.bias(e.n), 0.0f); e.compile(); });
  auto o = shape(128, 128, 256);
  o.epilogue = {"bias", "gelu"};
  EXPECT_NO_THROW(codegen::compile(kernels::matmul(o, chip910()).out, chip910()));
}

const ApiCase kEpilogues[] = {
    {"EpilogueWrongVariables",
     [] {
       Epi e;
       Var x("x");
       e.D(e.m, e.n, x) = e.C();
       e.D.bound(x, 0, 4);
       e.compile();
     },
     {"D.epilogue_of(C): D has 3 variables but C has 2; the epilogue is elementwise over C"}},
    {"EpilogueOfS8Contraction",
     [] {
       auto o = shape(128, 128, 256);
       o.in = DType::s8, o.out = DType::s32, o.transpose_b = true;
       Epi e(o);
       e.D(e.m, e.n) = f32(e.C());
       e.compile();
     },
     {"D.epilogue_of(C): epilogues run on f32 accumulators (f16 inputs); C accumulates in s32"}},
    {"EpilogueResultNotFloat", [] { Epi e; e.D(e.m, e.n) = cast(DType::s32, e.C()); e.compile(); },
     {"D: the epilogue's result must be f32 or f16, not s32"}},
    {"EpilogueOfItself",
     [] {
       Epi e;
       e.D(e.m, e.n) = e.C() * 2.0f;
       e.D.epilogue_of(e.D);
       codegen::compile(e.D, chip910());
     },
     {"D.epilogue_of(D): a Func is not its own epilogue; epilogue_of() names the contraction (a matmul or a convolution) "
      "whose tiles D reads"}},
    {"EpiloguesChained",
     [] {
       Epi e;
       e.D(e.m, e.n) = e.C() + e.bias(e.n);
       e.D.epilogue_of(e.mm.c);
       Func E("E");
       E(e.m, e.n) = max(e.D(e.m, e.n), 0.0f);
       E.epilogue_of(e.D);
       codegen::compile(E, chip910());
     },
     {"E.epilogue_of(D): D is itself an epilogue (of C); epilogues do not chain: write E's expression into D's "
      "definition, one epilogue of C"}},
    {"EpilogueNotReadingProducer", [] { Epi e; e.D(e.m, e.n) = e.bias(e.n) * 2.0f; e.compile(); },
     {"D.epilogue_of(C): D's definition does not read C"}},
    {"EpilogueReadsProducerElsewhere", [] { Epi e; e.D(e.m, e.n) = Expr(e.mm.c(e.n, e.m)); e.compile(); },
     {"D.epilogue_of(C): `C(n, m)` is not C at D's own variables (m, n, in that order); an epilogue reads the "
      "contraction's result elementwise, where it is"}},
    {"EpilogueReadsAnotherFuncOfTheSameName",
     [] {
       Epi e;
       Func other("C");
       other(e.m, e.n) = e.bias(e.n) * 2.0f;
       e.D(e.m, e.n) = e.C() + other(e.m, e.n);
       e.compile();
     },
     {"D.epilogue_of(C): `C(m, n)` reads C (a Func of the name epilogue_of() names, but not that one); an epilogue "
      "reads its contraction's result and inputs, no other Func"}},
    {"EpilogueLoopVariableAsValue", [] { Epi e; e.D(e.m, e.n) = e.C() + f32(e.n); e.compile(); },
     {"D.epilogue_of(C): `n` uses the loop variable n as a value; the epilogue computes on the result and inputs"}},
    {"EpilogueReduces",
     [] {
       Epi e;
       RDom j(0, 128, "j");
       e.D(e.m, e.n) = e.C() + sum(e.bias(j));
       e.compile();
     },
     {"D.epilogue_of(C): `sum(bias(j))` reduces; an epilogue is elementwise (reduce in a vector kernel after the "
      "matmul)"}},
    {"EpilogueComparisonOutsideSelect", [] { Epi e; e.D(e.m, e.n) = e.C() * f32(e.C() > 0); e.compile(); },
     {"D.epilogue_of(C): the comparison `(C(m, n) > 0)` is only computed as the condition of a select()"}},
    {"EpilogueFullTileInput",
     [] {
       Epi e;
       Input Z("Z", DType::f32, {128, 128});
       e.D(e.m, e.n) = e.C() + Z(e.m, e.n);
       e.compile();
     },
     {"D.epilogue_of(C): `Z(m, n)`: a matmul's epilogue reads inputs per column (Z(n)) and constants; a full-tile "
      "input (or a per-row one) needs a vector kernel of its own"}},
    {"EpiloguePerRowInput",
     [] {
       Epi e;
       Input rs("row_scale", DType::f32, {128});
       e.D(e.m, e.n) = e.C() * rs(e.m);
       e.compile();
     },
     {"D.epilogue_of(C): `row_scale(m)` reads row_scale per row; epilogues take per-column inputs (row_scale(n)) "
      "and constants"}},
    {"EpilogueBiasWrongShape",
     [] {
       Epi e;
       Input b64("b64", DType::f32, {64});
       e.D(e.m, e.n) = e.C() + b64(e.n);
       e.compile();
     },
     {"D.epilogue_of(C): `b64(n)` reads b64 per column but its shape is [64]; it needs [128]"}},
    {"EpilogueStripOverflowUB",
     [] {
       auto o = shape(128, 128, 256);
       o.epilogue = {"bias", "gelu"}, o.tm = 64;
       codegen::compile(kernels::matmul(o, chip910()).out,
                        chip_with("small_ub", [](ChipConfig& c) { c.set_buffer_size(Space::UB, 16384); }));
     },
     {"D: the epilogue's strips of 16 columns of the 64-row tile need 28800 bytes of UB (UB 4096 x 2, ACC 4096 x 1",
      "but small_ub has 16384; use a smaller m tile or fewer epilogue operations"}},
    {"EpilogueComparisonNotTheCondition",
     [] {
       Epi e;
       e.D(e.m, e.n) = select((e.C() > 0.0f) == (e.bias(e.n) > 0.0f), e.C(), 0.0f);
       e.compile();
     },
     {"D.epilogue_of(C): the comparison `(C(m, n) > 0)` is only computed as the condition of a select()"}},
    {"EpilogueOfTwoProducers",
     [] {
       Epi e, other;
       e.D(e.m, e.n) = e.C();
       e.D.epilogue_of(other.mm.c);
       e.compile();
     },
     {"D.epilogue_of(C): D is already the epilogue of C; a Func has one producer"}},
    {"EpilogueFuncScheduled",
     [] {
       Epi e;
       e.D(e.m, e.n) = e.C();
       e.D.double_buffer();
       e.compile();
     },
     {"D.double_buffer(): D is computed in C's epilogue, strip by strip; schedule C instead"}},
};
INSTANTIATE_TEST_SUITE_P(Epilogues, VectorApiError, testing::ValuesIn(kEpilogues), api_case_name);

// ---- the kernels' options (kernels/vector.cpp, kernels/matmul.cpp) ----------------------------------

kernels::VectorOptions vshape(std::vector<int64_t> s) {
  kernels::VectorOptions o;
  o.shape = std::move(s);
  return o;
}

const ApiCase kKernelOptions[] = {
    {"VectorKernelUnknown", [] { kernels::vector_kernel("softplus", vshape({4, 256})); },
     {"no vector kernel 'softplus'; the kernels are add, cast, div, exp, gelu, layernorm, max, maximum, mean, min, "
      "minimum, mul, relu, rmsnorm, sigmoid, silu, softmax, sub, sum, tanh"}},
    {"VectorKernelWithoutShape", [] { kernels::vector_kernel("softmax", vshape({})); },
     {"softmax: give a shape (at least one dimension)"}},
    {"VectorKernelDimensionBelowOne", [] { kernels::vector_kernel("softmax", vshape({4, 0})); },
     {"softmax: every dimension must be at least 1, got [4, 0]"}},
    {"VectorKernelDtype",
     [] { auto o = vshape({4, 256}); o.dtype = DType::s8; kernels::vector_kernel("layernorm", o); },
     {"layernorm: the vector kernels take f16 or f32, not s8"}},
    {"VectorKernelTileRowsNegative",
     [] { auto o = vshape({4, 256}); o.tile_rows = -2; kernels::vector_kernel("rmsnorm", o); },
     {"rmsnorm: tile_rows must be at least 1 (or 0 to choose), got -2"}},
    {"VectorKernelCopiesNegative",
     [] { auto o = vshape({4, 256}); o.copies = -1; kernels::vector_kernel("softmax", o); },
     {"softmax: copies must be at least 1 (or 0 to choose), got -1"}},
    {"VectorKernelCopiesAndDoubleBuffer",
     [] { auto o = vshape({4, 256}); o.copies = 3, o.double_buffer = true; kernels::vector_kernel("softmax", o); },
     {"softmax: give the copies of its tile buffers or double buffering (on or off), not both (2 copies is double "
      "buffering, 1 is none)"}},
    // Copies 3 with double buffering off was taken as copies 3.
    // A rank-40 shape's Halide reference compiled for minutes.
    {"VectorKernelTooManyDimensions",
     [] { auto o = vshape(std::vector<int64_t>(17, 1)); kernels::vector_kernel("add", o); },
     {"add: X has 17 dimensions; the vector kernels take at most 16: reshape it (merge dimensions, or drop those of "
      "extent 1)"}},
    {"VectorKernelCopiesAndNoDoubleBuffer",
     [] { auto o = vshape({4, 256}); o.copies = 3, o.double_buffer = false; kernels::vector_kernel("softmax", o); },
     {"softmax: give the copies of its tile buffers or double buffering (on or off), not both"}},
    // A NaN eps once made every output NaN and the check PASS (the reference's NaN too).
    {"NormEpsNotFinite",
     [] { auto o = vshape({4, 256}); o.eps = std::nan(""); kernels::vector_kernel("layernorm", o); },
     {"layernorm: eps nan must be a finite number from 0 to 3.4e38 (it is added to the variance in f32)"}},
    {"NormEpsNegative",
     [] { auto o = vshape({4, 256}); o.eps = -1; kernels::vector_kernel("rmsnorm", o); },
     {"rmsnorm: eps -1 must be a finite number from 0 to 3.4e38 (it is added to the variance in f32)"}},
    {"MatmulEpilogueUnknown",
     [] { auto o = shape(64, 64, 64); o.epilogue = {"bias", "tanh"}; kernels::matmul(o, chip910()); },
     {"matmul: unknown epilogue 'tanh'; use bias, scale, relu or gelu"}},
    {"MatmulEpilogueReluAndGelu",
     [] { auto o = shape(64, 64, 64); o.epilogue = {"relu", "gelu"}; kernels::matmul(o, chip910()); },
     {"matmul: the epilogue takes relu or gelu, not both"}},
    // Eight gelus compiled for 79 s (each reads its input five times).
    {"MatmulEpilogueGeluTwice",
     [] { auto o = shape(64, 64, 64); o.epilogue = {"gelu", "bias", "gelu"}; kernels::matmul(o, chip910()); },
     {"matmul: the epilogue takes gelu once (each gelu reads its input five times: repeated, it multiplies the code); "
      "it was given 2 times"}},
    // A NaN scale made every output NaN, and the golden check agreed (exit 0).
    {"MatmulEpilogueScaleNotFinite",
     [] { auto o = shape(64, 64, 64); o.epilogue = {"scale"}, o.scale = INFINITY; kernels::matmul(o, chip910()); },
     {"matmul: the epilogue's scale is inf; it must be a finite number (--scale)"}},
    {"MatmulEpilogueScalePastF32",
     [] { auto o = shape(64, 64, 64); o.epilogue = {"scale"}, o.scale = -1e39; kernels::matmul(o, chip910()); },
     {"matmul: the epilogue's scale -1e+39 is past f32's range (the accumulators are f32); give at most 3.4028234663852886e+38"}},
    {"MatmulEpilogueS8",
     [] {
       auto o = shape(64, 64, 64);
       o.in = DType::s8, o.out = DType::s32, o.transpose_b = true, o.epilogue = {"relu"};
       kernels::matmul(o, chip910());
     },
     {"matmul: epilogues run on f32 accumulators, so they take f16 or bf16 inputs (not s8)"}},
    {"RowKernelOnOneDimension",
     [] {
       kernels::VectorOptions o;
       o.shape = {256};
       kernels::vector_kernel("softmax", o);
     },
     {"softmax: give at least 2 dimensions (rows.., columns); it works along the last one, got [256]"}},
};
INSTANTIATE_TEST_SUITE_P(KernelOptions, VectorApiError, testing::ValuesIn(kKernelOptions), api_case_name);

// ---- `cubekit kernel NAME` (tools/cmd_kernel.cpp) ----------------------------------------------------


class VectorCliError : public testing::TestWithParam<ErrorCase> {};

TEST_P(VectorCliError, ExitsTwoWithTheMessage) {
  const ErrorCase& c = GetParam();
  auto [code, err] = cubekit_stderr(c.input);
  EXPECT_EQ(code, 2) << "cubekit " << c.input << "\n" << err;
  for (const std::string& s : c.expected) EXPECT_THAT(err, testing::HasSubstr(s));
}

const ErrorCase kCli[] = {
    {"SoftmaxWithoutCols", "kernel softmax --rows 4",
     {"cubekit: error: softmax: give --rows and --cols (at least 1 each), or --shape"}},
    {"SoftmaxShapeAndRows", "kernel softmax --shape 4,256 --rows 4",
     {"cubekit: error: softmax: give --shape or --rows/--cols, not both"}},
    {"SoftmaxDtypeUnknown", "kernel softmax --rows 4 --cols 256 --dtype bf16",
     {"cubekit: error: --dtype must be f16 or f32 for softmax, got 'bf16'"}},
    {"SoftmaxDtypeNotFloat", "kernel softmax --rows 4 --cols 256 --dtype s8",
     {"cubekit: error: --dtype must be f16 or f32 for softmax, got 's8'"}},
    {"SoftmaxTileRowsNegative", "kernel softmax --rows 4 --cols 256 --tile-rows -1",
     {"cubekit: error: softmax: tile_rows must be at least 1 (or 0 to choose), got -1"}},
    {"SoftmaxTileRowsOverflowUB", "kernel softmax --rows 4096 --cols 4096 --dtype f32 --tile-rows 64",
     {"cubekit: error: softmax: tiles of 64 rows of 4096 columns need",
      "but ascend910 has 262144; use tile_rows(2) or fewer"}},
    {"SoftmaxTileRowsAboveBurstLimit", "kernel softmax --rows 8192 --cols 16 --tile-rows 4096",
     {"cubekit: error: softmax.tile_rows(4096): at most 4095 rows per tile (a tile's rows are the bursts of one copy)"}},
    {"AddTileRows", "kernel add --rows 4 --cols 256 --tile-rows 2",
     {"cubekit: error: add: tile_rows applies to the row kernels (softmax, layernorm, rmsnorm, sum, max, min, mean); "
      "add is elementwise, in tiles of elements"}},
    {"SoftmaxDimensionBelowOne", "kernel softmax --shape 4,0",
     {"cubekit: error: softmax: every dimension must be at least 1, got [4, 0]"}},
    {"AddDimensionPastS32", "kernel add --rows 4000000000 --cols 4000000000",
     {"cubekit: error: add: dim 0 of X [4000000000, 4000000000] is 4000000000, past 2^31 - 1: the DSL's indices are s32; "
      "use a smaller shape"}},
    {"CompileSoftmaxWithoutCols", "compile softmax --rows 4 -o /nonexistent/cubekit/s.s",
     {"cubekit: error: softmax: give --rows and --cols (at least 1 each), or --shape"}},
    {"CastToUnknown", "kernel cast --rows 4 --cols 256 --to f64",
     {"cubekit: error: --to must be a dtype (f16, f32, s8, u8, s16, u16, s32, bf16), got 'f64'"}},
    {"TmNotAFractalMultiple", "kernel matmul --m 64 --n 64 --k 64 --tm 8",  // was cube()'s "mi has 8 iterations"
     {"cubekit: error: matmul: tm 8 is not a multiple of 16, the cube's fractal edge for f16 (--tm; Python tm=)"}},
    {"ConvTnNotAFractalMultiple", "kernel conv2d --c 4 --h 6 --w 6 --k 100 --tn 17",  // was cube()'s loop names
     {"cubekit: error: conv2d: tn 17 is not a multiple of 16, the cube's fractal edge (--tn; Python tn=)"}},
    {"TkL1BelowTkL0", "kernel matmul --m 64 --n 64 --k 512 --tk-l0 128 --tk-l1 64",  // it ran as tk_l1 128
     {"cubekit: error: matmul: tk_l1 64 is less than the L0 k step 128 (tk_l0): an L1 fill holds at least one L0 step; give tk_l1 at least 128"}},
    {"MatmulEpilogueReluAndGelu", "kernel matmul --m 16 --n 16 --k 16 --epilogue relu,gelu",
     {"cubekit: error: matmul: the epilogue takes relu or gelu, not both"}},
    {"MatmulEpilogueS8", "kernel matmul --m 16 --n 16 --k 32 --dtype s8 --epilogue bias",
     {"cubekit: error: matmul: epilogues run on f32 accumulators, so they take f16 or bf16 inputs (not s8)"}},
    {"MatmulEpilogueUnknown", "kernel matmul --m 16 --n 16 --k 16 --epilogue foo",
     {"cubekit: error: matmul: unknown epilogue 'foo'; use bias, scale, relu or gelu"}},
};
INSTANTIATE_TEST_SUITE_P(Kernel, VectorCliError, testing::ValuesIn(kCli), case_name);

}  // namespace
}  // namespace cubekit::test
