// User errors two probes as new users met (Python and the command line), each once a crash, an
// internal error, a silently ignored input or a message that pointed the wrong way: default_schedule
// given negative tiles (a division by zero killed Python), bf16 arithmetic in a DSL Func (an
// internal error), a schedule made of another Func's Vars, contradictory ranges of one chip field,
// files that cannot be read (no reason given), a list of chips given as one, an unknown
// CUBEKIT_DEBUG word (ignored), a bf16 cast on a chip without bf16; and from a probe of the C++ API, a
// chip of no cores (SIGFPE), a null host input (SIGSEGV) and a positional operand after keyword ones
// (accepted). One test per error.
#include "codegen/lower.h"
#include "dsl/func.h"
#include "dsl/host.h"
#include "emulator/program.h"
#include "error_test_util.h"
#include "kernels/matmul.h"

#include <cstdlib>

namespace cubekit::test {
namespace {

using namespace cubekit::dsl;  // NOLINT: the DSL reads as in the kernels
using testing::HasSubstr;

struct Contraction {
  Input A{"A", DType::f16, {96, 64}}, B{"B", DType::f16, {64, 80}};
  Var m{"m"}, n{"n"};
  RDom k{0, 64, "k"};
  Func C;
  explicit Contraction(const char* name) : C(name) { C(m, n) = sum(cast(DType::f32, A(m, k)) * cast(DType::f32, B(k, n))); }
};

TEST(ProbeRoundErrors, DefaultScheduleWithNegativeTiles) {
  for (auto [field, message] : {std::pair<int64_t kernels::MatmulOptions::*, const char*>{
                                    &kernels::MatmulOptions::tm, "default_schedule(C): tm must be at least 1 (or 0"},
                                {&kernels::MatmulOptions::tn, "default_schedule(C): tn must be at least 1"},
                                {&kernels::MatmulOptions::tk_l0, "default_schedule(C): tk_l0 must be at least 1"}}) {
    Contraction c("C");
    kernels::MatmulOptions o;
    o.*field = -16;
    expect_user_error([&] { (void)kernels::default_schedule(c.C, chip910(), o); }, {message});
  }
  Contraction c("C");
  kernels::MatmulOptions o;
  o.tm = 17;  // within m = 96: not a fractal multiple
  expect_user_error([&] { (void)kernels::default_schedule(c.C, chip910(), o); },
                    {"default_schedule(C): tm 17 is not a multiple of 16, the cube's fractal edge for f16 (--tm; Python tm=)"});
}

TEST(ProbeRoundErrors, ArithmeticInBf16) {
  Input X("X", DType::bf16, {8, 32});
  Var r("r"), c("c");
  Func G("G");
  G(r, c) = X(r, c) + X(r, c);
  G.cores({r});
  expect_user_error([&] { (void)codegen::compile(G, preset("ascend910b2")); },
                    {"computes in bf16; the vector unit computes in f16 and f32: cast to one of them first (bf16 converts "
                     "to and from f32 on chips with bf16)"});
}

TEST(ProbeRoundErrors, ScheduleOfAnotherFuncsVars) {
  Contraction c("C"), c2("C2");
  c2.C.schedule() = kernels::default_schedule(c.C, chip910());
  expect_user_error([&] { (void)codegen::compile(c2.C, chip910()); },
                    {"m is not a loop of C2 (its loops: m[96] > n[80] > k[64]): its m is another Var of the same name; a "
                     "schedule names the Func's own Vars (one made for another Func does not apply)"});
}

TEST(ProbeRoundErrors, Bf16CastOnAChipWithoutBf16) {
  Input X("X", DType::f32, {8, 32});
  Var r("r"), c("c");
  Func G("G");
  G(r, c) = cast(DType::bf16, X(r, c));
  G.cores({r});
  expect_user_error([&] { (void)codegen::compile(G, chip910()); },
                    {"converts f32 to bf16, but ascend910 has no bf16 (the chips with bf16: ascend910b2, ascend950pr)"});
}

TEST(ProbeRoundErrors, ChipFieldOutOfItsOneRange) {
  // The JSON reader said 1..2147483647 of queue_depth 0 and check_chip 1..1024 of 5000.
  TempDir dir("chip_range");
  for (const char* value : {"0", "5000"}) {
    std::string json = chip_to_json(chip910());
    const std::string key = "\"queue_depth\":";
    size_t at = json.find(key) + key.size();
    json.replace(at, json.find_first_of(",}", at) - at, value);
    const std::string path = dir.write("q.json", json);
    expect_user_error([&] { (void)load_chip(path); }, {"'queue_depth' must be in 1..1024 (entries; the ascend910 has 32)"});
  }
}

TEST(ProbeRoundErrors, FilesThatCannotBeRead) {
  TempDir dir("unreadable");  // a directory read as JSON said "unexpected end of input"
  expect_user_error([&] { (void)load_chip(dir.path().string() + "/"); }, {"a directory, not a file"});
  auto [c2, e2] = cubekit_stderr("run '" CUBEKIT_SOURCE_DIR "/examples/asm/matmul_f16.s' --input A=/nonexistent/a.npy");
  EXPECT_EQ(c2, 2);
  EXPECT_THAT(e2, HasSubstr("cannot read '/nonexistent/a.npy': no such file"));
}

TEST(ProbeRoundErrors, AListOfChipsGivenAsOne) {
  TempDir dir("chip_list");
  const std::string path = dir.write("all.json", "[" + chip_to_json(chip910()) + "]");
  expect_user_error([&] { (void)load_chip(path); },
                    {"a chip config must be a JSON object, not a list", "save one with `cubekit chips NAME --json > FILE`"});
}

TEST(ProbeRoundErrors, UnknownDebugWord) {
  setenv("CUBEKIT_DEBUG", "lower,foo", 1);
  Contraction c("C");
  c.C.schedule() = kernels::default_schedule(c.C, chip910());
  expect_user_error([&] { (void)codegen::compile(c.C, chip910()); },
                    {"CUBEKIT_DEBUG=lower,foo: 'foo' is no debug output; it takes lower (the IR after every pass) and verify"});
  unsetenv("CUBEKIT_DEBUG");
}

TEST(ProbeRoundErrors, CompilingForAChipOfNoCores) {
  // A ChipConfig changed in C++ divided by zero in compile and the kernels (SIGFPE).
  ChipConfig chip = chip910();
  chip.cores = 0;
  Input X("X", DType::f32, {64, 256});
  Var r("r"), c("c");
  Func F("F");
  F(r, c) = X(r, c) * 2.0f;
  F.cores({r});
  expect_user_error([&] { (void)codegen::compile(F, chip); }, {"chip config field 'cores' must be in 1..4096, got 0"});
  kernels::MatmulOptions o;
  o.m = o.n = o.k = 64;
  expect_user_error([&] { (void)kernels::matmul(o, chip); }, {"chip config field 'cores' must be in 1..4096, got 0"});
}

TEST(ProbeRoundErrors, DefaultScheduleOfAnEpilogue) {
  Contraction c("D");
  Var a("a"), b("b");
  Func E("E");
  E(a, b) = cast(DType::f16, max(c.C(a, b), 0.0f));
  E.epilogue_of(c.C);
  expect_user_error([&] { (void)kernels::default_schedule(E, chip910()); },
                    {"default_schedule(E): E is computed in D's epilogue (E.epilogue_of(D)); the default schedule is "
                     "D's: schedule D (default_schedule(D)) and keep E's as it is"});
}

TEST(ProbeRoundErrors, HostReferenceGivenANullInput) {
  Input X("X", DType::f32, {16});
  Var i("i");
  Func F("F");
  F(i) = X(i) * 2.0f;
  expect_user_error([&] { (void)run_on_host(F, {{"X", nullptr}}); },
                    {"the host reference's input X is a null pointer; give the address of its bytes"});
}

TEST(ProbeRoundErrors, PositionalOperandAfterKeywords) {
  expect_user_error([] { (void)parse_program(".kernel k\n    vadd.f16 ub[0], repeat=2, ub[0], ub[0]\n    end\n"); },
                    {"vadd: a positional operand after name=value ones; write the positional operands (dst, src0, src1) "
                     "first, then name=value"});
}

TEST(ProbeRoundErrors, FlagsALetterApart) {
  auto [code, err] = cubekit_stderr("kernel add --rows 4 --cols 4 --no-checks");
  EXPECT_EQ(code, 2);
  EXPECT_THAT(err, HasSubstr("kernel has no --no-checks: --no-check skips the Halide reference"));
  auto [c2, e2] = cubekit_stderr("run '" CUBEKIT_SOURCE_DIR "/examples/asm/matmul_f16.s' --no-check");
  EXPECT_EQ(c2, 2);
  EXPECT_THAT(e2, HasSubstr("run has no --no-check: --no-checks skips the race and initialisation checks"));
}

}  // namespace
}  // namespace cubekit::test
