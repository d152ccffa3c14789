// User errors in writing and scheduling a Func (dsl/), in mapping it onto the cube (schedules/:
// recognising the contraction, the loop nest, the stages, the buffer sizes), in compiling it
// (codegen/), in the matmul kernel's options (kernels/matmul.cpp) and in `cubekit kernel matmul`
// (tools/cmd_kernel.cpp). Each schedule case starts from a schedule that compiles (ScheduleBaseline)
// and breaks one thing; its message must name the Func and directive, give the numbers, and say
// how to fix it where the message does.
#include "codegen/lower.h"
#include "schedules/contraction.h"
#include "dsl/func.h"
#include "dsl/host.h"
#include "emulator/chip_config.h"
#include "error_test_util.h"
#include "kernels/check.h"
#include "kernels/matmul.h"

#include <sys/wait.h>

#include <cstdio>

namespace cubekit::test {
namespace {

using namespace cubekit::dsl;  // NOLINT: the DSL reads as in the kernels
using dsl::Level;


std::vector<int64_t> dims(int64_t batch, int64_t rows, int64_t cols) {
  return batch ? std::vector<int64_t>{batch, rows, cols} : std::vector<int64_t>{rows, cols};
}

// C(m, n) = sum_k A(m, k) * B(k, n) in f16, accumulated in f32 (C(b, m, n) when batched), and the
// parts of a good schedule, as kernels/matmul.cpp writes it.
struct Mm {
  int64_t batch;
  Input A, B;
  Func C{"C"};
  Var b{"b"}, m{"m"}, n{"n"}, mo{"mo"}, mi{"mi"}, no{"no"}, ni{"ni"};
  RDom k;
  RVar ko{"ko"}, ki{"ki"}, kio{"kio"}, kii{"kii"};

  explicit Mm(int64_t M = 128, int64_t N = 128, int64_t K = 1024, int64_t batch = 0)
      : batch(batch), A("A", DType::f16, dims(batch, M, K)), B("B", DType::f16, dims(batch, K, N)), k(0, K, "k") {
    Expr a = batch ? A(b, m, k) : A(m, k), bb = batch ? B(b, k, n) : B(k, n);
    Expr value = sum(cast(DType::f32, a) * cast(DType::f32, bb));
    if (batch) C(b, m, n) = value;
    else C(m, n) = value;
  }
  // tm x tn output tiles; k in L1 chunks of tk1, each in L0 chunks of tk0, each one mmad.
  Mm& tiles(int64_t tm = 64, int64_t tn = 64, int64_t tk1 = 256, int64_t tk0 = 64) {
    C.split(m, mo, mi, tm).split(n, no, ni, tn).split(k, ko, ki, tk1).split(ki, kio, kii, tk0);
    std::vector<LoopVar> order = {kii, ni, mi, kio, ko, no, mo};
    if (batch) order.push_back(b);
    C.reorder(order);
    return *this;
  }
  Mm& cores() {
    C.cores(batch ? std::vector<LoopVar>{b, mo, no} : std::vector<LoopVar>{mo, no});
    return *this;
  }
  Mm& stages(const LoopVar& l1, const LoopVar& l0) {
    C.stage(A, Level::L1, l1).stage(B, Level::L1, l1).stage(A, Level::L0A, l0).stage(B, Level::L0B, l0);
    return *this;
  }
  // After tiles() and cores(): the stages, the cube and double buffering.
  Mm& finish() {
    stages(ko, kio);
    C.cube(mi, ni, kii).double_buffer();
    return *this;
  }
  Mm& good() { return tiles().cores().finish(); }
  void compile(const ChipConfig& chip = chip910()) const { codegen::compile(C, chip); }
};


class ApiError : public testing::TestWithParam<ApiCase> {};

TEST_P(ApiError, SaysWhatWhereAndHowToFix) { expect_user_error(GetParam().action, GetParam().expected, GetParam().name); }

// The schedules the cases break compile as they are.
TEST(ScheduleBaseline, GoodSchedulesCompile) {
  EXPECT_NO_THROW(Mm().good().compile());
  EXPECT_NO_THROW(Mm(192).good().compile());
  EXPECT_NO_THROW(Mm(128, 128, 1024, 4).good().compile());
  EXPECT_NO_THROW(Mm(512, 512, 1024).tiles(256, 256, 256, 32).cores().finish().compile());
  EXPECT_NO_THROW(Mm().tiles(16, 16, 16, 16).cores().finish().compile());
}

// ---- expressions (dsl/expr.cpp) -------------------------------------------------------------------

const ApiCase kExpressions[] = {
    {"UndefinedOperand", [] { Mm x; Expr() + x.A(x.m, x.k); }, {"+: the left operand is an undefined expression"}},
    {"OperandTypesDiffer", [] { Mm x; cast(DType::f32, x.A(x.m, x.k)) + x.A(x.m, x.k); },
     {"`cast(f32, A(m, k))` + `A(m, k)`: the operands are f32 and f16; cast one to the other's type, e.g. cast(f32, A(m, k))"}},
    {"ArithmeticOnComparison", [] { Mm x; Expr c = x.A(x.m, x.k) < 0; c + c; },
     {"`(A(m, k) < 0)` + `(A(m, k) < 0)`: arithmetic on a comparison; use select()"}},
    {"MathOnComparison", [] { Mm x; dsl::abs(x.A(x.m, x.k) < 0); }, {"abs((A(m, k) < 0)): the operand is a comparison"}},
    {"FloatMathOnInteger", [] { Mm x; Input S("S", DType::s32, {128}); dsl::exp(S(x.m)); },
     {"exp(S(m)): s32 is an integer type; exp takes f16 or f32 (cast first)"}},
    {"ReductionWithoutRDom", [] { Mm x; sum(x.A(x.m, x.n)); },
     {"sum(A(m, n)): the argument uses no reduction variable; reduce over an RDom, e.g. RDom k(0, K)"}},
    {"ReductionOfComparison", [] { Mm x; sum(x.A(x.m, x.k) < 0); }, {"sum((A(m, k) < 0)): cannot reduce a comparison"}},
    {"SelectConditionNotComparison", [] { Mm x; select(x.A(x.m, x.k), 1, 0); },
     {"select(A(m, k), ...): the condition must be a comparison, it is f16"}},
};
INSTANTIATE_TEST_SUITE_P(Expressions, ApiError, testing::ValuesIn(kExpressions), api_case_name);

// ---- inputs and Funcs (dsl/func.cpp) --------------------------------------------------------------

const ApiCase kFuncs[] = {
    {"IndexUndefined", [] { Mm x; x.A(Expr(), x.k); }, {"A: index 0 is an undefined expression"}},
    {"IndexNotInteger", [] { Mm x; x.A(cast(DType::f32, x.m), x.k); },
     {"A: index 0 `cast(f32, m)` is f32, but indices are integers (Vars, RDoms and integer arithmetic)"}},
    {"RDomExtentBelowOne", [] { RDom r(0, 0, "r"); }, {"RDom r: extent must be at least 1, got 0"}},
    {"InputWithoutShape", [] { Input("X", DType::f16, {}); }, {"input X: give it a shape (at least one dimension)"}},
    {"InputDimensionBelowOne", [] { Input("X", DType::f16, {16, 0}); }, {"input X: dimension 1 is 0; every dimension must be at least 1 (shape [16, 0])"}},
    {"InputIndexCount", [] { Mm x; x.A(x.m); }, {"A has 2 dimensions but is called with 1 indices"}},
    {"FuncDefinedTwice", [] { Mm x; x.C(x.m, x.n) = x.A(x.m, x.n); }, {"C is defined twice; a Func has one definition"}},
    {"DefinitionUndefined", [] { Mm x; Func D("D"); D(x.m, x.n) = Expr(); }, {"D: the definition is an undefined expression"}},
    {"DefinitionIsComparison", [] { Mm x; Func D("D"); D(x.m, x.n) = x.A(x.m, x.n) < 0; },
     {"D: the definition `(A(m, n) < 0)` is a comparison; use select()"}},
    {"DefinedOverNonVar", [] { Mm x; Func D("D"); D(x.m, x.k) = x.A(x.m, x.k); },
     {"D: define it over plain Vars, e.g. D(m, n) = ...; `k` is not one"}},
    {"VariableTwiceOnLeft", [] { Mm x; Func D("D"); D(x.m, x.m) = x.A(x.m, x.m); }, {"D: variable m appears twice on the left"}},
    {"FuncUsedBeforeDefined", [] { Mm x; Func D("D"); Expr e = D(x.m, x.n); }, {"D is used before it is defined"}},
    {"FuncCallArity", [] { Mm x; Expr e = x.C(x.m); }, {"C has 2 variables but is called with 1"}},
    {"TypeOfUndefinedFunc", [] { Func("D").type(); }, {"D has no definition yet"}},
    {"ShapeOfUndefinedFunc", [] { Func("D").shape(); }, {"D has no definition yet"}},
    {"ExtentNotInferred", [] { Mm x; Func D("D"); D(x.m, x.n) = x.A(x.m, x.n + 1); D.shape(); },
     {"D: the extent of n cannot be inferred (it indexes no input or Func directly); give it with D.bound(n, 0, EXTENT)"}},
    {"ExtentsDisagree",
     [] {
       Mm x;
       Input A("A", DType::f16, {2, 128, 64}), B("B", DType::f16, {3, 64, 128});
       RDom k(0, 64, "k");
       Func D("D");
       D(x.b, x.m, x.n) = sum(cast(DType::f32, A(x.b, x.m, k)) * cast(DType::f32, B(x.b, k, x.n)));
       codegen::compile(D, chip910());
     },
     {"D: b indexes A's dimension 0 (extent 2) and B's dimension 0 (extent 3); the inputs must agree on its extent"}},
    {"BoundMinNotZero", [] { Mm x; x.C.bound(x.m, 1, 128); }, {"C.bound(m, 1, 128): cubekit Funcs start at 0"}},
    {"BoundExtentBelowOne", [] { Mm x; x.C.bound(x.m, 0, 0); }, {"C.bound(m, 0, 0): the extent must be at least 1"}},
    {"BoundBeyondInput", [] { Mm x; x.C.bound(x.m, 0, 256); x.C.shape(); },
     {"C.bound(m, 0, 256): m indexes A's dimension 0 (extent 128); the bound must not exceed it"}},
    {"InputNameNotWritable", [] { Input("my input", DType::f16, {16}); },
     {"the input name 'my input' cannot be written in assembly text: use a letter or '_' first, then letters, "
      "digits, '_' or '.'"}},
    {"FuncNameNotWritable", [] { Func("2x"); }, {"the Func name '2x' cannot be written in assembly text"}},
    {"InputTooLarge", [] { Input("X", DType::f32, {int64_t(1) << 20, int64_t(1) << 20}); },
     {"input tensor 'X' would need more than 17179869184 bytes, cubekit's limit for one GM tensor in every "
      "mode (a functional run keeps its bytes in host memory); use a smaller shape"}},
    {"ExpressionTooDeep",
     [] {
       Mm x;
       Expr e = x.A(x.m, x.k);
       for (int i = 0; i < 2000; ++i) e = e + 1;
     },
     {"an expression is more than 1000 operations deep (at '+'), more than cubekit's passes can recurse through "
      "(Funcs it calls count, as they are inlined): reduce over an RDom with sum(), maximum() or minimum() instead "
      "of chaining terms in a loop"}},
};
INSTANTIATE_TEST_SUITE_P(Funcs, ApiError, testing::ValuesIn(kFuncs), api_case_name);

// ---- the loop nest: split, reorder, cores (schedules/loops.cpp) ------------------------------------

const ApiCase kLoops[] = {
    {"SplitUnknownLoop", [] { Mm x; x.C.split(x.mi, x.mo, x.ni, 16); x.compile(); },
     {"C.split(mi, mo, ni, 16): mi is not a loop of C (its loops: m[128] > n[128] > k[1024])"}},
    {"SplitIntoUsedName", [] { Mm x; x.C.split(x.m, x.mo, x.mi, 64).split(x.n, x.mo, x.ni, 64); x.compile(); },
     {"C.split(n, mo, ni, 64): mo is already a loop of C (its loops: mo[2] > mi[64] > n[128] > k[1024]); name the new loops with fresh variables"}},
    {"SplitVarIntoRVar", [] { Mm x; x.C.split(x.m, x.mo, x.ki, 64); x.compile(); },
     {"C.split(m, mo, ki, 64): m is a Var but ki is an RVar; split a Var into Vars and an RVar (RDom) into RVars"}},
    {"SplitFactorBelowOne", [] { Mm x; x.C.split(x.k, x.ko, x.ki, 0); x.compile(); },
     {"C.split(k, ko, ki, 0): the factor must be at least 1, got 0"}},
    {"ReorderStaleLoop", [] { Mm x; x.C.split(x.m, x.mo, x.mi, 64).reorder({x.mi, x.n, x.m}); x.compile(); },
     {"C.reorder(mi, n, m): m is not a loop of C (its loops: mo[2] > mi[64] > n[128] > k[1024])"}},
    {"CoresLoopListedTwice", [] { Mm x; x.tiles(); x.C.cores({x.mo, x.mo}); x.finish().compile(); },
     {"C.cores(mo, mo): mo is listed twice"}},
    {"ReorderLoopTwice", [] { Mm x; x.C.reorder({x.n, x.m, x.n}); x.compile(); }, {"C.reorder(n, m, n): n is listed twice"}},
    {"CoresUnknownLoop", [] { Mm x; x.tiles(); x.C.cores({x.m}); x.finish().compile(); },
     {"C.cores(m): m is not a loop of C (its loops: mo[2] > no[2] > ko[4] > kio[4] > mi[64] > ni[64] > kii[64])"}},
    {"CoresOnReductionLoop", [] { Mm x; x.tiles(); x.C.cores({x.mo, x.ko}); x.finish().compile(); },
     {"C.cores(mo, ko): ko is a reduction loop; cores take independent iterations (pure loops)"}},
    {"CoresNotOutermost", [] { Mm x; x.tiles(); x.C.cores({x.no}); x.finish().compile(); },
     {"C.cores(no): the loops given to cores must be the outermost ones; the loops are mo[2] > no[2] > ko[4]"}},
    {"CoresGroupBelowOne", [] { Mm x; x.tiles(); x.C.cores({x.mo, x.no}, 0); x.finish().compile(); },
     {"C.cores(mo, no, 0): the group must be at least 1, got 0"}},
    {"CoresGroupWithOneLoop", [] { Mm x; x.tiles(); x.C.cores({x.mo}, 2); x.finish().compile(); },
     {"C.cores(mo, 2): a group needs two loops on cores (it hands out tiles of the first of the last two in groups)"}},
};
INSTANTIATE_TEST_SUITE_P(Loops, ApiError, testing::ValuesIn(kLoops), api_case_name);

// ---- recognising the contraction (schedules/contraction.cpp) --------------------------------------

// D's definition instead of C's, compiled without a schedule: recognition comes first.
// A Func that is meant for the cube but is not a contraction it can do (compiled without a cube
// schedule it would be a vector Func): the recogniser says why.
void compile_d(const std::function<void(Mm&, Func&)>& define) {
  Mm x;
  Func D("D");
  define(x, D);
  sched::recognise_contraction(D, chip910());
}
Expr f32(const Expr& e) { return cast(DType::f32, e); }
const std::string kShape = "the cube computes C(b.., m, n) = sum(cast(T, A(b.., m, k)) * cast(T, B(b.., k, n)))";

const ApiCase kContraction[] = {
    {"NoDefinition", [] { codegen::compile(Func("D"), chip910()); }, {"D has no definition"}},
    // Once a segfault: a timing-only run creates no tensor.
    {"ResultOfATimingOnlyRun",
     [] {
       Mm x;
       x.C.schedule() = kernels::default_schedule(x.C, chip910());
       kernels::KernelRun run = kernels::compile_and_run(x.C, chip910(), {.sim = {.timing_only = true}});
       run.result("C");
     },
     {"tensor 'C' has no data: the run was timing-only (cycles only: no tensor is created, filled or computed); run it "
      "without timing_only for its values"}},
    // default_schedule gave it the vector path, which said to use cube() and not why it was off it.
    {"ScaleInsideTheSum",
     [] {
       Mm x;
       Func D("D");
       D(x.m, x.n) = sum(f32(x.A(x.m, x.k)) * f32(x.B(x.k, x.n)) * 2.0f);
       D.schedule() = kernels::default_schedule(D, chip910());
       codegen::compile(D, chip910());
     },
     {"the vector path reduces along the last dimension only", "a scale or another term in the sum or around it keeps "
      "it off the cube (default_schedule too)", "fused with D.epilogue_of(C)"}},
    // Once an internal error.
    {"NoOutput", [] { codegen::compile(std::vector<Func>{}, chip910()); },
     {"compile: no output Func was given; a kernel computes at least one (its Func)"}},
    // Once advice to write C.store_with(C).
    {"OutputGivenTwice", [] { Mm x; codegen::compile(std::vector<Func>{x.C, x.C}, chip910()); },
     {"C is given twice among the outputs; give each output once"}},
    {"ElementwiseNotASum", [] { compile_d([](Mm& x, Func& D) { D(x.m, x.n) = x.A(x.m, x.n) + x.A(x.m, x.n); }); },
     {"D: `(A(m, n) + A(m, n))` is not a sum over a reduction; " + kShape}},
    {"SummandNotAProduct",
     [] { compile_d([](Mm& x, Func& D) { D(x.m, x.n) = sum(f32(x.A(x.m, x.k)) + f32(x.B(x.k, x.n))); }); },
     {"D: the summand `(cast(f32, A(m, k)) + cast(f32, B(k, n)))` is not a product of two inputs; " + kShape}},
    {"OperandNotAnInput",
     [] { compile_d([](Mm& x, Func& D) { D(x.m, x.n) = sum(f32(x.A(x.m, x.k)) * f32(x.A(x.m, x.k)) * f32(x.B(x.k, x.n))); }); },
     {"D: `(cast(f32, A(m, k)) * cast(f32, A(m, k)))` is not an input (or a cast of one); " + kShape}},
    {"OneInputAsBothOperands",
     [] { compile_d([](Mm& x, Func& D) { D(x.m, x.n) = sum(f32(x.A(x.m, x.k)) * f32(x.A(x.k, x.n))); }); },
     {"D: A is both operands; the cube reads A and B through buffers of their own (L0A, L0B)",
      "give the second operand as an Input of its own (the same data twice)"}},
    {"OperandIndexNotAVariable",
     [] { compile_d([](Mm& x, Func& D) { D(x.m, x.n) = sum(f32(x.A(x.m + 1, x.k)) * f32(x.B(x.k, x.n))); }); },
     {"D: A is indexed by `(m + 1)`; the cube needs each index to be a plain variable"}},
    {"TwoReductionVariables",
     [] {
       compile_d([](Mm& x, Func& D) {
         RDom j(0, 1024, "j");
         D(x.m, x.n) = sum(f32(x.A(x.m, x.k)) * f32(x.B(j, x.n)));
       });
     },
     {"D: the cube reduces over one variable, `(cast(f32, A(m, k)) * cast(f32, B(j, n)))` uses 2"}},
    {"ReductionNotFromZero",
     [] {
       compile_d([](Mm& x, Func& D) {
         RDom k1(1, 1023, "k1");
         D(x.m, x.n) = sum(f32(x.A(x.m, k1)) * f32(x.B(k1, x.n)));
       });
     },
     {"D: the reduction k1 must start at 0 for the cube"}},
    {"OperandWithoutReductionVariable",
     [] {
       compile_d([](Mm& x, Func& D) {
         Input V("V", DType::f16, {128});
         D(x.m, x.n) = sum(f32(x.A(x.m, x.k)) * f32(V(x.n)));
       });
     },
     {"D: both operands must be indexed by the reduction variable k"}},
    {"OutputVariableInNeitherOperand",
     [] { compile_d([](Mm& x, Func& D) { D(x.m, x.n, x.b) = sum(f32(x.A(x.m, x.k)) * f32(x.B(x.k, x.n))); }); },
     {"D: the output variable b indexes neither operand; " + kShape}},
    {"OutputWithoutColumnVariable",
     [] { compile_d([](Mm& x, Func& D) { D(x.m) = sum(f32(x.A(x.m, x.k)) * f32(x.B(x.k, x.m))); }); },
     {"D: the output needs a row variable from A and a column variable from B; " + kShape}},
    {"VariableOnlyOnTheRight",
     [] { compile_d([](Mm& x, Func& D) { D(x.m) = sum(f32(x.A(x.m, x.k)) * f32(x.B(x.k, x.n))); }); },
     {"D: n is used on the right but is not one of D's variables (m); add it on the left or reduce over an RDom instead"}},
    {"SecondRowVariable",
     [] {
       compile_d([](Mm& x, Func& D) {
         Input A3("A3", DType::f16, {4, 128, 1024});
         D(x.b, x.m, x.n) = sum(f32(A3(x.b, x.m, x.k)) * f32(x.B(x.k, x.n)));
       });
     },
     {"D: b and m both index A3 alone, not B: the cube multiplies matrices, batched only over variables both operands "
      "have; give B the batch dimension as well (a copy of it per batch), or fold b into m (A3 as one matrix of their "
      "rows) and compute D as a matrix"}},
    {"OutputColumnsBeforeRows",
     [] { compile_d([](Mm& x, Func& D) { D(x.n, x.m) = sum(f32(x.A(x.m, x.k)) * f32(x.B(x.k, x.n))); }); },
     {"D: write the output as D(batch.., m, n): rows from A, then columns from B"}},
    {"OperandDimensionCount",
     [] {
       compile_d([](Mm& x, Func& D) {
         Input A3("A3", DType::f16, {128, 128, 1024});
         D(x.m, x.n) = sum(f32(A3(x.m, x.m, x.k)) * f32(x.B(x.k, x.n)));
       });
     },
     {"D: A3 has 3 dimensions; with 0 batch dimension(s) it needs 2"}},
    {"BatchDimensionNotLeading",
     [] {
       compile_d([](Mm& x, Func& D) {
         Input A3("A3", DType::f16, {128, 4, 1024}), B3("B3", DType::f16, {4, 1024, 128});
         D(x.b, x.m, x.n) = sum(f32(A3(x.m, x.b, x.k)) * f32(B3(x.b, x.k, x.n)));
       });
     },
     {"D: A3's dimension 0 should be the batch variable b (batch dimensions lead, in the output's order)"}},
    {"CubeOperandTypesDiffer",
     [] {
       compile_d([](Mm& x, Func& D) {
         Input B8("B8", DType::s8, {1024, 128});
         D(x.m, x.n) = sum(f32(x.A(x.m, x.k)) * f32(B8(x.k, x.n)));
       });
     },
     {"D: A is f16 and B8 is s8; the cube multiplies two inputs of one type"}},
    {"InputTypeNotOnTheCube",
     [] {
       compile_d([](Mm& x, Func& D) {
         Input A32("A32", DType::f32, {128, 1024}), B32("B32", DType::f32, {1024, 128});
         D(x.m, x.n) = sum(A32(x.m, x.k) * B32(x.k, x.n));
       });
     },
     {"D: the cube of ascend910 multiplies f16 or s8, but A32 is f32"}},
    {"ProductsNotCastToAccumulator",
     [] { compile_d([](Mm& x, Func& D) { D(x.m, x.n) = sum(x.A(x.m, x.k) * x.B(x.k, x.n)); }); },
     {"D: the cube accumulates f16 products in f32: write sum(cast(f32, A(..)) * cast(f32, B(..)))"}},
    {"OutputTypeNotFromAccumulator",
     [] { compile_d([](Mm& x, Func& D) { D(x.m, x.n) = cast(DType::s32, sum(f32(x.A(x.m, x.k)) * f32(x.B(x.k, x.n)))); }); },
     {"D: the cube's f32 results can be written as f32 or f16, not s32"}},
    {"S8WithBNotTransposed",
     [] {
       compile_d([](Mm& x, Func& D) {
         Input A8("A8", DType::s8, {128, 1024}), B8("B8", DType::s8, {1024, 128});
         D(x.m, x.n) = sum(cast(DType::s32, A8(x.m, x.k)) * cast(DType::s32, B8(x.k, x.n)));
       });
     },
     {"D: for s8 the cube needs A as (m, k) and B as (n, k), k contiguous in both",
      "load2d cannot transpose 8-bit data; store B8 as (n, k), transposed"}},
};
INSTANTIATE_TEST_SUITE_P(Contraction, ApiError, testing::ValuesIn(kContraction), api_case_name);

// ---- the cube path: directives, cube loops, stages (schedules/contraction.cpp) ---------------------

const std::string kNest = "(the loops are cores:mo[2] > cores:no[2] > ko[4] > kio[4] > mi[64] > ni[64] > kii[64])";

const ApiCase kCubePath[] = {
    {"StoreInWithoutCubePath", [] { Mm x; x.good().C.store_in(Level::UB); x.compile(); },
     {"C.store_in(UB): the cube accumulates in L0C; store_in(UB) has no cube path"}},
    // It was silently ignored (a C++ user probe).
    {"TileRowsOnAContraction", [] { Mm x; x.good().C.tile_rows(8); x.compile(); },
     {"C.tile_rows(8): tile_rows() sizes the vector path's row tiles; a contraction's tiles are cube(...)'s and split(...)'s"}},
    {"CoresGivenTwice", [] { Mm x; x.good().C.cores({x.mo}); x.compile(); },
     {"C.cores(mo): the schedule already has cores(mo, no); each of cores(), cube(), flash(), tile_rows() and "
      "multi_buffer() is given once (merge the two into one call)"}},
    // It kept the last of the two silently (a C++ user probe).
    {"StagedTwiceAtOneLevel", [] { Mm x; x.good().C.stage(x.A, Level::L1, x.kio); x.compile(); },
     {"C.stage(A, L1, kio): the schedule already has stage(A, L1, ko); an input is staged in a buffer level once (keep "
      "one of the two)"}},
    {"MultiBufferNotL1", [] { Mm x; x.good().C.multi_buffer(Level::L0A, 2); x.compile(); },
     {"C.multi_buffer(L0A, 2): only L1 fills run ahead of their use; double_buffer() gives L0A, L0B and UB two copies"}},
    {"MultiBufferTooManyCopies", [] { Mm x; x.good().C.multi_buffer(Level::L1, 5); x.compile(); },
     {"C.multi_buffer(L1, 5): the copies must be 1..4 (ascend910 has 4 event ids per pipe pair, one per copy)"}},
    {"CubeMissing", [] { Mm x; x.tiles().cores().stages(x.ko, x.kio).C.double_buffer(); x.compile(); },
     {"C: map its innermost loops onto the cube with C.cube(mi, ni, ki), or give it the ready matmul schedule: "
      "C.schedule() = kernels::default_schedule(C, chip) (C.schedule = cubekit.default_schedule(C) in Python)"}},
    {"CubeNamesWrongLoops", [] { Mm x; x.tiles().cores().stages(x.ko, x.kio).C.cube(x.ni, x.mi, x.kii); x.compile(); },
     {"C.cube(ni, mi, kii): name the innermost loops of m, n and k " + kNest}},
    {"CubeLoopsNotInnermost", [] { Mm x; x.tiles().cores().stages(x.ko, x.kio).C.cube(x.mi, x.ni, x.kio); x.compile(); },
     {"C.cube(mi, ni, kio): the cube's loops must be the three innermost " + kNest + "; reorder them inward"}},
    {"CubeTileNotFractalMultiple", [] { Mm x; x.tiles(24).cores().finish().compile(); },
     {"C.cube(mi, ni, kii): mi has 24 iterations, not a multiple of 16 (the cube's fractal edge): split by a multiple of 16"}},
    {"TileLoopInsideReductionLoop", [] { Mm x; x.tiles().C.reorder({x.no, x.ko}); x.finish().compile(); },
     {"C: the tile loop no is inside the reduction loop ko; every loop over k must be inside the tile loops (the loops "
      "are mo[2] > ko[4] > no[2] > kio[4]"}},
    {"BatchLoopSplit",
     [] {
       Mm x(128, 128, 1024, 4);
       Var bo("bo"), bi("bi");
       x.C.split(x.b, bo, bi, 2);
       x.C.split(x.m, x.mo, x.mi, 64).split(x.n, x.no, x.ni, 64).split(x.k, x.ko, x.ki, 256).split(x.ki, x.kio, x.kii, 64);
       x.C.reorder({x.kii, x.ni, x.mi, x.kio, x.ko, x.no, x.mo, bi, bo});
       x.finish().compile();
     },
     {"C: the batch loop bo cannot be split"}},
    {"ReductionSplitIntoThreeLoops",
     [] {
       Mm x;
       RVar ka("ka"), kb("kb");
       x.tiles().C.split(x.kii, ka, kb, 16).reorder({kb, x.ni, x.mi, ka});
       x.cores().stages(x.ko, ka).C.cube(x.mi, x.ni, kb);
       x.compile();
     },
     {"C: the reduction k is split into 3 loops outside the cube; the cube path takes at most two (L1 and L0 fills)"}},
    {"StageNotAnOperand",
     [] {
       Mm x;
       Input D("D", DType::f16, {128, 1024});
       x.good().C.stage(D, Level::L1, x.ko);
       x.compile();
     },
     {"C.stage(D, L1, ko): D is not an operand of C"}},
    {"StageWithoutDataPath", [] { Mm x; x.good().C.stage(x.A, Level::L0B, x.kio); x.compile(); },
     {"C.stage(A, L0B, kio): on the cube path A goes GM -> L1 -> L0A; there is no data path into L0B for it"}},
    {"StageL0Missing",
     [] {
       Mm x;
       x.tiles().cores().C.stage(x.A, Level::L1, x.ko).stage(x.B, Level::L1, x.ko).stage(x.B, Level::L0B, x.kio);
       x.C.cube(x.mi, x.ni, x.kii).double_buffer();
       x.compile();
     },
     {"C: stage A in L0A for the cube: C.stage(A, L0A, <loop>)"}},
    {"StageL1Missing",
     [] {
       Mm x;
       x.tiles().cores().C.stage(x.B, Level::L1, x.ko).stage(x.A, Level::L0A, x.kio).stage(x.B, Level::L0B, x.kio);
       x.C.cube(x.mi, x.ni, x.kii).double_buffer();
       x.compile();
     },
     {"C: A reaches L0A only through L1 (GM -> L1 -> L0A): add C.stage(A, L1, <loop>)"}},
    {"StageAtOuterTileLoop", [] { Mm x; x.tiles().cores().stages(x.mo, x.kio).C.cube(x.mi, x.ni, x.kii); x.compile(); },
     {"C.stage(A, L1, mo): stage at a reduction loop outside the cube or at the innermost tile loop (no) " + kNest}},
    {"StageWithEveryLoopOnTheCube",
     [] {
       Mm x(64, 64, 64);
       x.C.stage(x.A, Level::L1, x.m).stage(x.B, Level::L1, x.m).stage(x.A, Level::L0A, x.m).stage(x.B, Level::L0B, x.m);
       x.C.cube(x.m, x.n, x.k);
       x.compile();
     },
     {"every loop is on the cube (the loops are m[64] > n[64] > k[64]), so there is no loop to stage at; split m, n or "
      "the reduction to get one outside the cube"}},
    {"L0FillOutsideL1Fill", [] { Mm x; x.tiles().cores().stages(x.kio, x.ko).C.cube(x.mi, x.ni, x.kii); x.compile(); },
     {"C.stage(A, L0A, ko): the L0A fill must happen at or inside the L1 fill's loop (kio)"}},
    {"StageAAndBAtDifferentLoops",
     [] {
       Mm x;
       x.tiles().cores().C.stage(x.A, Level::L1, x.ko).stage(x.B, Level::L1, x.no);
       x.C.stage(x.A, Level::L0A, x.kio).stage(x.B, Level::L0B, x.kio).cube(x.mi, x.ni, x.kii);
       x.compile();
     },
     {"C: stage A and B at the same loops (L1 at ko and no, L0 at kio and kio)"}},
    {"L0NotAtInnermostReductionLoop", [] { Mm x; x.tiles().cores().stages(x.ko, x.ko).C.cube(x.mi, x.ni, x.kii); x.compile(); },
     {"C: stage the L0 operands at the innermost reduction loop outside the cube (kio)"}},
    {"L0AtTileLoopWithReductionLoops",
     [] { Mm x; x.tiles().cores().stages(x.no, x.no).C.cube(x.mi, x.ni, x.kii); x.compile(); },
     {"C: with reduction loops outside the cube, stage the L0 operands at the innermost of them (kio)"}},
};
INSTANTIATE_TEST_SUITE_P(CubePath, ApiError, testing::ValuesIn(kCubePath), api_case_name);

// ---- buffer sizes (schedules/contraction.cpp), registers, storage and events (codegen/) -------------

// C(b0, .., b{dims-1}, m, n): a 16x16x16 contraction under `dims` batch dimensions of extent 2, each
// one tile loop, staged at the innermost of them.
void compile_batched(int dims) {
  std::vector<Var> bs;
  std::vector<Expr> ia, ib, ic;
  for (int i = 0; i < dims; ++i) {
    bs.emplace_back("b" + std::to_string(i));
    ia.push_back(bs.back()), ib.push_back(bs.back()), ic.push_back(bs.back());
  }
  Var m("m"), n("n");
  RDom k(0, 16, "k");
  ia.insert(ia.end(), {m, k}), ib.insert(ib.end(), {k, n}), ic.insert(ic.end(), {m, n});
  std::vector<int64_t> shape(size_t(dims), 2);  // extent 2: a loop of one trip would be folded away
  shape.insert(shape.end(), {16, 16});
  Input A("A", DType::f16, shape), B("B", DType::f16, shape);
  Func C("C");
  FuncRef(C.impl, ic) = sum(cast(DType::f32, A.call(ia)) * cast(DType::f32, B.call(ib)));
  C.stage(A, Level::L1, bs.back()).stage(B, Level::L1, bs.back()).stage(A, Level::L0A, bs.back());
  C.stage(B, Level::L0B, bs.back()).cube(m, n, k);
  codegen::compile(C, chip910());
}

TEST(ScheduleBaseline, TwentyThreeBatchDimensionsCompile) { EXPECT_NO_THROW(compile_batched(23)); }

const ApiCase kBuffers[] = {
    {"L1Overflow", [] { Mm(128, 128, 2048).tiles(128, 128, 2048, 64).cores().finish().compile(); },
     {"C: staging A and B (k 2048 per fill) needs 2097152 bytes of l1 (2 copies) but ascend910 has 1048576; fill L1 "
      "more often (stage at an inner reduction loop), use smaller tiles, or fewer copies"}},
    {"L0AOverflowDoubleBuffered", [] { Mm().tiles(128, 64, 256, 256).cores().finish().compile(); },
     {"C: A in L0A (128x256 per fill) needs 131072 bytes of l0a (2 copies) but ascend910 has 65536; split the "
      "reduction finer for the L0 fill or use a smaller m tile, or drop double_buffer()"}},
    {"L0BOverflowDoubleBuffered", [] { Mm().tiles(64, 128, 256, 256).cores().finish().compile(); },
     {"C: B in L0B (256x128 per fill) needs 131072 bytes of l0b (2 copies) but ascend910 has 65536; split the "
      "reduction finer for the L0 fill or use a smaller n tile, or drop double_buffer()"}},
    {"L0COverflow", [] { Mm(512, 512, 1024).tiles(256, 512, 256, 32).cores().finish().compile(); },
     {"C: the 256x512 accumulator tile needs 524288 bytes of l0c but ascend910 has 262144; use a smaller m or n tile"}},
    // With the preset L0A fills up before UB; a chip with a small UB reaches this check.
    {"UBOverflow",
     [] { Mm().good().compile(chip_with("small_ub", [](ChipConfig& c) { c.set_buffer_size(Space::UB, 4096); })); },
     {"C: the output strips of 64x16 needs 8192 bytes of ub (2 copies) but small_ub has 4096; use a smaller m tile"}},
    // codegen/emit.cpp: one scalar register per live loop variable (and per use counter of a buffer
    // with copies); 22 batch dimensions of extent 2 still compile.
    {"TooManyLiveLoopVariables", [] { compile_batched(24); },
     {"C: the kernel needs more than 27 scalar registers for its loop variables", "use fewer loops, e.g. fewer batch dimensions or splits"}},
    // An L1 too small for two copies of the A and B tiles. (A 4 KiB L1 alignment, which once made
    // buffers that fit as sized overflow once aligned, is a chip check_chip refuses before compiling.)
    {"StagingOverflowsASmallL1",
     [] {
       ChipConfig chip = chip_with("l1_1536", [](ChipConfig& c) { c.set_buffer_size(Space::L1, 1536); });
       Mm().tiles(16, 16, 16, 16).cores().finish().compile(chip);
     },
     {"C: staging A and B (k 16 per fill) needs 2048 bytes of l1 (2 copies) but l1_1536 has 1536; fill L1 more often"}},
    // codegen/fit.cpp: on a split chip the epilogue runs on the vector cores in strips
    // of rows; with a small UB not even one row of the tile fits.
    {"SplitEpilogueStripsOverflowUb",
     [] {
       ChipConfig chip = load_chip("ascend910b2");
       chip.name = "small_ub_910b2";
       chip.set_buffer_size(Space::UB, 4096);
       kernels::MatmulOptions o;
       o.m = 64, o.n = 512, o.k = 64, o.tm = 16, o.tn = 512, o.epilogue = {"bias", "gelu"};
       codegen::compile(kernels::matmul(o, chip).out, chip);
     },
     {"D: the epilogue's strips of one row of the 512-column tile need ", "bytes of the vector cores' UB (ACC ",
      "but small_ub_910b2 has 4096; use a smaller n tile or fewer epilogue operations"}},
    // codegen/sync.cpp: double buffering takes two event ids per pipe pair.
    {"EventIdsExhausted", [] { Mm().good().compile(chip_with("one_event", [](ChipConfig& c) { c.event_ids = 1; })); },
     {"C: the schedule needs 2 event ids from ", " but one_event has 1; drop double_buffer() (or use fewer copies in "
                                                 "multi_buffer()) or stage fewer buffers between those pipes"}},
};
INSTANTIATE_TEST_SUITE_P(Buffers, ApiError, testing::ValuesIn(kBuffers), api_case_name);

// ---- the host reference (dsl/host.cpp) and the matmul kernel's options (kernels/matmul.cpp) --------

kernels::MatmulOptions shape(int64_t m, int64_t n, int64_t k, int64_t batch = 0) {
  kernels::MatmulOptions o;
  o.m = m, o.n = n, o.k = k, o.batch = batch;
  return o;
}

const ApiCase kHostAndMatmul[] = {
    {"DefaultScheduleUndefined", [] { Func D("D"); (void)kernels::default_schedule(D, chip910()); },
     {"default_schedule(D): define D first"}},
    {"DefaultScheduleTwoBatchDimensions",
     [] {
       Input A("A", DType::f16, {2, 3, 32, 64}), B("B", DType::f16, {2, 3, 64, 32});
       Var b1("b1"), b2("b2"), m("m"), n("n");
       RDom k(0, 64, "k");
       Func D("D");
       D(b1, b2, m, n) = sum(cast(DType::f32, A(b1, b2, m, k)) * cast(DType::f32, B(b1, b2, k, n)));
       (void)kernels::default_schedule(D, chip910());
     },
     {"default_schedule(D): the default schedule takes at most one batch dimension, D has 2; schedule it by hand "
      "(cores over the batch loops)"}},
    {"HostInputMissing", [] { Mm x(16, 16, 16); run_on_host(x.C, {}); },
     {"the host reference needs input A, which was not given"}},
    {"HostInputWrongSize",
     [] {
       Mm x(16, 16, 16);
       std::vector<uint8_t> a(100), b(16 * 16 * 2);
       run_on_host(x.C, {{"A", &a}, {"B", &b}});
     },
     {"input A holds 100 bytes, its shape needs 512"}},
    {"MatmulShapeBelowOne", [] { kernels::matmul(shape(0, 16, 16), chip910()); },
     {"matmul: m, n and k must be at least 1 (got 0, 16, 16)"}},
    {"MatmulOverrideNegative", [] { auto o = shape(64, 64, 64); o.tm = -16; kernels::matmul(o, chip910()); },
     {"matmul: tm must be at least 1 (or 0 to let the schedule choose), got -16"}},
    {"MatmulBatchNegative", [] { kernels::matmul(shape(16, 16, 16, -1), chip910()); },
     {"matmul: the batch must be at least 1 (or 0 for none), got -1"}},
};
INSTANTIATE_TEST_SUITE_P(HostAndMatmul, ApiError, testing::ValuesIn(kHostAndMatmul), api_case_name);

// ---- `cubekit kernel matmul` / `cubekit compile matmul` (tools/cmd_kernel.cpp) --------------------


class KernelCliError : public testing::TestWithParam<ErrorCase> {};

TEST_P(KernelCliError, ExitsTwoWithTheMessage) {
  const ErrorCase& c = GetParam();
  auto [code, err] = cubekit_stderr(c.input);
  EXPECT_EQ(code, 2) << "cubekit " << c.input << "\n" << err;
  for (const std::string& s : c.expected) EXPECT_THAT(err, testing::HasSubstr(s));
}

const std::string kSmall = "kernel matmul --m 16 --n 16 --k 16 ";
const ErrorCase kCli[] = {
    {"DtypeUnknown", kSmall + "--dtype f64", {"cubekit: error: --dtype must be f16, bf16 or s8, got 'f64'"}},
    {"Bf16OnTheCoupled910", kSmall + "--dtype bf16",
     {"cubekit: error: C: the cube of ascend910 multiplies f16 or s8, but A is bf16"}},
    {"Bf16ResultOnThe910", kSmall + "--out bf16",
     {"cubekit: error: C: the cube's f32 results can be written as f32 or f16, not bf16 (ascend910 has no bf16 conversion)"}},
    {"OutNotADtype", kSmall + "--out f64", {"cubekit: error: --out must be a dtype (f16, f32, s8, u8, s16, u16, s32, bf16), got 'f64'"}},
    {"ScheduleUnknown", kSmall + "--schedule fast", {"cubekit: error: --schedule must be default or naive, got 'fast'"}},
    {"DoubleBufferNotOnOff", kSmall + "--double-buffer yes", {"cubekit: error: --double-buffer must be on or off, got 'yes'"}},
    {"UnwritableTrace", kSmall + "--trace /nonexistent/cubekit/t.json",
     {"cubekit: error: --trace: cannot write '/nonexistent/cubekit/t.json'"}},
    {"CompileUnwritableOutput", "compile matmul --m 16 --n 16 --k 16 -o /nonexistent/cubekit/c.s",
     {"cubekit: error: -o: cannot write '/nonexistent/cubekit/c.s'"}},
};
INSTANTIATE_TEST_SUITE_P(Matmul, KernelCliError, testing::ValuesIn(kCli), case_name);

}  // namespace
}  // namespace cubekit::test
