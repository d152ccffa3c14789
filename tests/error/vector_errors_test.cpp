// User errors of the vector path and of fused epilogues: writing a Func the Vector unit cannot
// compute as scheduled (schedules/vector.cpp), tiles that do not fit UB (codegen/vector_nest.cpp),
// epilogues a contraction cannot fuse (schedules/epilogue.cpp, codegen/contraction_nest.cpp), the
// options of the vector kernels and of the matmul epilogue (kernels/), and `cubekit kernel NAME`
// (tools/cmd_kernel.cpp). Each case starts from a Func that compiles (VectorBaseline) and breaks one
// thing; its message must name the Func or input, give the numbers, and say how to fix it where
// the message does.
#include "codegen/lower.h"
#include "dsl/func.h"
#include "emulator/chip_config.h"
#include "error_test_util.h"
#include "kernels/matmul.h"
#include "kernels/vector.h"

#include <sys/wait.h>

#include <cstdio>

namespace cubekit::test {
namespace {

using namespace cubekit::dsl;  // NOLINT: the DSL reads as in the kernels
using dsl::Level;

const ChipConfig& chip910() { return chip_presets().at(0); }

// The ascend910 preset with one change, named after it.
ChipConfig chip_with(const char* name, void (*change)(ChipConfig&)) {
  ChipConfig c = chip910();
  c.name = name;
  change(c);
  return c;
}

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

// One bad use of the API: what it does and the parts its message must have.
struct ApiCase {
  const char* name;
  std::function<void()> action;
  std::vector<std::string> expected;
};
void PrintTo(const ApiCase& c, std::ostream* os) { *os << c.name; }
std::string api_case_name(const testing::TestParamInfo<ApiCase>& info) { return info.param.name; }

class VectorApiError : public testing::TestWithParam<ApiCase> {};

TEST_P(VectorApiError, SaysWhatWhereAndHowToFix) { expect_user_error(GetParam().action, GetParam().expected, GetParam().name); }

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
       Input X3("X3", DType::f32, {4, 8, 256});
       Var a("a"), c("c");
       RDom j(0, 8, "j");
       Func out("out");
       out(a, c) = sum(X3(a, j, c));
       codegen::compile(out, chip910());
     },
     {"XXX"}},
    {"ReductionOverPartOfRow",
     [] {
       Vec v;
       RDom half(0, 128, "half");
       v.row_max(v.r) = maximum(f32(v.X(v.r, half)));
       v.out(v.r, v.c) = f32(v.X(v.r, v.c)) - v.row_max(v.r);
       v.compile();
     },
     {"XXX"}},
    {"ReductionOverTwoRDoms",
     [] {
       Vec v;
       RDom k2(0, 256, "k2");
       v.row_max(v.r) = sum(f32(v.X(v.r, v.k)) * f32(v.Y(v.r, k2)));
       v.out(v.r, v.c) = f32(v.X(v.r, v.c)) - v.row_max(v.r);
       v.compile();
     },
     {"XXX"}},
    {"NestedReduction",
     [] {
       Vec v;
       v.row_max(v.r) = sum(f32(v.X(v.r, v.k)) * maximum(f32(v.X(v.r, v.k))));
       v.out(v.r, v.c) = f32(v.X(v.r, v.c)) - v.row_max(v.r);
       v.compile();
     },
     {"XXX"}},
    {"ReductionOfPerColumnValue",
     [] {
       Vec v;
       v.row_max(v.r) = sum(v.G(v.k));
       v.out(v.r, v.c) = f32(v.X(v.r, v.c)) - v.row_max(v.r);
       v.compile();
     },
     {"XXX"}},
    {"InputIndexedUnreadably",
     [] {
       Vec v;
       Input T("T", DType::f16, {256, 64});
       v.out(v.r, v.c) = v.X(v.r, v.c) + T(v.c, v.r);
       v.compile();
     },
     {"XXX"}},
    {"RowAndColumnCombined", [] { Vec v; v.out(v.r, v.c) = v.R(v.r) + v.G(v.c); v.compile(); }, {"XXX"}},
    {"InputReadPerRowAndPerColumn",
     [] {
       Input X("X", DType::f32, {64, 64}), V("V", DType::f32, {64});
       Var r("r"), c("c");
       Func out("out");
       out(r, c) = X(r, c) * V(r) + V(c);
       codegen::compile(out, chip910());
     },
     {"XXX"}},
    {"InputSizeDiffersFromBound",
     [] { Vec v; v.elementwise().out.bound(v.c, 0, 128); v.compile(); }, {"XXX"}},
    {"ComparisonOutsideSelect",
     [] { Vec v; v.out(v.r, v.c) = f32(v.X(v.r, v.c)) * f32(v.X(v.r, v.c) > 0); v.compile(); }, {"XXX"}},
    {"LoopVariableAsValue", [] { Vec v; v.out(v.r, v.c) = v.X(v.r, v.c) + cast(DType::f16, v.c); v.compile(); }, {"XXX"}},
    {"FuncOverLastDimensionOnly",
     [] {
       Vec v;
       Func scale("scale");
       scale(v.c) = v.G(v.c) * 2.0f;
       v.out(v.r, v.c) = f32(v.X(v.r, v.c)) * scale(v.c);
       v.compile();
     },
     {"XXX"}},
    {"FuncWithoutDefinition", [] { codegen::compile(Func("empty"), chip910()); }, {"XXX"}},
};
INSTANTIATE_TEST_SUITE_P(VectorFuncs, VectorApiError, testing::ValuesIn(kVectorFuncs), api_case_name);

// ---- the vector schedule (schedules/vector.cpp) and UB (codegen/vector_nest.cpp) --------------------

const ApiCase kVectorSchedule[] = {
    {"SplitOnVectorFunc",
     [] { Vec v; Var ro("ro"), ri("ri"); v.rowwise().out.split(v.r, ro, ri, 8); v.compile(); }, {"XXX"}},
    {"StageOnVectorFunc", [] { Vec v; v.rowwise().out.stage(v.X, Level::UB, v.r); v.compile(); }, {"XXX"}},
    {"StoreInOnVectorFunc", [] { Vec v; v.rowwise().out.store_in(Level::UB); v.compile(); }, {"XXX"}},
    {"TileRowsBelowOne", [] { Vec v; v.rowwise().out.tile_rows(0); v.compile(); }, {"XXX"}},
    {"TileRowsOnElementwiseFunc", [] { Vec v; v.elementwise().out.tile_rows(4); v.compile(); }, {"XXX"}},
    {"TileRowsOverflowUB",
     [] {
       Input X("X", DType::f32, {4096, 1024});
       Var r("r"), c("c");
       Func out("out");
       out(r, c) = X(r, c) * X(r, c) + f32(X(r, c) > 0);
       codegen::compile(out, chip910());
     },
     {"XXX"}},
    {"RowTooLongForUB",
     [] {
       Input X("X", DType::f32, {4, 1 << 16});
       Var r("r"), c("c");
       RDom k(0, 1 << 16, "k");
       Func m("m"), out("out");
       m(r) = maximum(X(r, k));
       out(r, c) = X(r, c) - m(r);
       codegen::compile(out, chip910());
     },
     {"XXX"}},
    {"ElementwiseTileOverflowUB",
     [] { Vec().elementwise().compile(chip_with("tiny_ub", [](ChipConfig& c) { c.size[int(Space::UB)] = 512; })); },
     {"XXX"}},
};
INSTANTIATE_TEST_SUITE_P(VectorSchedule, VectorApiError, testing::ValuesIn(kVectorSchedule), api_case_name);

// ---- fused epilogues (schedules/epilogue.cpp, codegen/contraction_nest.cpp) -------------------------

kernels::MatmulOptions shape(int64_t m, int64_t n, int64_t k) {
  kernels::MatmulOptions o;
  o.m = m, o.n = n, o.k = k;
  return o;
}

// D(m, n) = `define(C)` fused onto C = A x B (128 x 128 x 256, f16 in, f32 out, the default schedule).
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
     {"XXX"}},
    {"EpilogueOfS8Contraction",
     [] {
       auto o = shape(128, 128, 256);
       o.in = DType::s8, o.out = DType::s32, o.transpose_b = true;
       Epi e(o);
       e.D(e.m, e.n) = f32(e.C());
       e.compile();
     },
     {"XXX"}},
    {"EpilogueResultNotFloat", [] { Epi e; e.D(e.m, e.n) = cast(DType::s32, e.C()); e.compile(); }, {"XXX"}},
    {"EpilogueNotReadingProducer", [] { Epi e; e.D(e.m, e.n) = e.bias(e.n) * 2.0f; e.compile(); }, {"XXX"}},
    {"EpilogueReadsProducerElsewhere", [] { Epi e; e.D(e.m, e.n) = e.mm.c(e.n, e.m); e.compile(); }, {"XXX"}},
    {"EpilogueLoopVariableAsValue", [] { Epi e; e.D(e.m, e.n) = e.C() + f32(e.n); e.compile(); }, {"XXX"}},
    {"EpilogueReduces",
     [] {
       Epi e;
       RDom j(0, 128, "j");
       e.D(e.m, e.n) = e.C() + sum(e.bias(j));
       e.compile();
     },
     {"XXX"}},
    {"EpilogueComparisonOutsideSelect", [] { Epi e; e.D(e.m, e.n) = e.C() * f32(e.C() > 0); e.compile(); }, {"XXX"}},
    {"EpilogueFullTileInput",
     [] {
       Epi e;
       Input Z("Z", DType::f32, {128, 128});
       e.D(e.m, e.n) = e.C() + Z(e.m, e.n);
       e.compile();
     },
     {"XXX"}},
    {"EpiloguePerRowInput",
     [] {
       Epi e;
       Input rs("row_scale", DType::f32, {128});
       e.D(e.m, e.n) = e.C() * rs(e.m);
       e.compile();
     },
     {"XXX"}},
    {"EpilogueBiasWrongShape",
     [] {
       Epi e;
       Input b64("b64", DType::f32, {64});
       e.D(e.m, e.n) = e.C() + b64(e.n);
       e.compile();
     },
     {"XXX"}},
    {"EpilogueStripOverflowUB",
     [] {
       auto o = shape(128, 128, 256);
       o.epilogue = {"bias", "gelu"};
       codegen::compile(kernels::matmul(o, chip910()).out,
                        chip_with("small_ub", [](ChipConfig& c) { c.size[int(Space::UB)] = 16384; }));
     },
     {"XXX"}},
};
INSTANTIATE_TEST_SUITE_P(Epilogues, VectorApiError, testing::ValuesIn(kEpilogues), api_case_name);

// ---- the kernels' options (kernels/vector.cpp, kernels/matmul.cpp) ----------------------------------

kernels::VectorOptions vshape(std::vector<int64_t> s) {
  kernels::VectorOptions o;
  o.shape = std::move(s);
  return o;
}

const ApiCase kKernelOptions[] = {
    {"VectorKernelUnknown", [] { kernels::vector_kernel("tanh", vshape({4, 256})); }, {"XXX"}},
    {"VectorKernelWithoutShape", [] { kernels::vector_kernel("softmax", vshape({})); }, {"XXX"}},
    {"VectorKernelDimensionBelowOne", [] { kernels::vector_kernel("softmax", vshape({4, 0})); }, {"XXX"}},
    {"VectorKernelDtype",
     [] { auto o = vshape({4, 256}); o.dtype = DType::s8; kernels::vector_kernel("layernorm", o); }, {"XXX"}},
    {"VectorKernelTileRowsNegative",
     [] { auto o = vshape({4, 256}); o.tile_rows = -2; kernels::vector_kernel("rmsnorm", o); }, {"XXX"}},
    {"MatmulEpilogueUnknown",
     [] { auto o = shape(64, 64, 64); o.epilogue = {"bias", "tanh"}; kernels::matmul(o, chip910()); }, {"XXX"}},
    {"MatmulEpilogueReluAndGelu",
     [] { auto o = shape(64, 64, 64); o.epilogue = {"relu", "gelu"}; kernels::matmul(o, chip910()); }, {"XXX"}},
    {"MatmulEpilogueS8",
     [] {
       auto o = shape(64, 64, 64);
       o.in = DType::s8, o.out = DType::s32, o.transpose_b = true, o.epilogue = {"relu"};
       kernels::matmul(o, chip910());
     },
     {"XXX"}},
};
INSTANTIATE_TEST_SUITE_P(KernelOptions, VectorApiError, testing::ValuesIn(kKernelOptions), api_case_name);

// ---- `cubekit kernel NAME` (tools/cmd_kernel.cpp) ----------------------------------------------------

// Runs `cubekit ARGS`; returns the exit code (128 + N when killed by signal N) and stderr.
std::pair<int, std::string> cubekit(const std::string& args) {
  std::string command = "ulimit -v 8000000; timeout 120 '" CUBEKIT_CLI "' " + args + " 2>&1 1>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {-1, "popen failed: " + command};
  std::string err;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) err.append(buffer, n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0), err};
}

class VectorCliError : public testing::TestWithParam<ErrorCase> {};

TEST_P(VectorCliError, ExitsTwoWithTheMessage) {
  const ErrorCase& c = GetParam();
  auto [code, err] = cubekit(c.input);
  EXPECT_EQ(code, 2) << "cubekit " << c.input << "\n" << err;
  for (const std::string& s : c.expected) EXPECT_THAT(err, testing::HasSubstr(s));
}

const ErrorCase kCli[] = {
    {"SoftmaxWithoutCols", "kernel softmax --rows 4", {"XXX"}},
    {"SoftmaxShapeAndRows", "kernel softmax --shape 4,256 --rows 4", {"XXX"}},
    {"SoftmaxDtypeUnknown", "kernel softmax --rows 4 --cols 256 --dtype bf16", {"XXX"}},
    {"SoftmaxDtypeNotFloat", "kernel softmax --rows 4 --cols 256 --dtype s8", {"XXX"}},
    {"SoftmaxTileRowsNegative", "kernel softmax --rows 4 --cols 256 --tile-rows -1", {"XXX"}},
    {"SoftmaxTileRowsOverflowUB", "kernel softmax --rows 4096 --cols 4096 --dtype f32 --tile-rows 4096", {"XXX"}},
    {"AddTileRows", "kernel add --rows 4 --cols 256 --tile-rows 2", {"XXX"}},
    {"MatmulEpilogueUnknown", "kernel matmul --m 16 --n 16 --k 16 --epilogue foo", {"XXX"}},
};
INSTANTIATE_TEST_SUITE_P(Kernel, VectorCliError, testing::ValuesIn(kCli), case_name);

}  // namespace
}  // namespace cubekit::test
