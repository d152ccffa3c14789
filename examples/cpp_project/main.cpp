// A kernel of one's own, outside cubekit's tree, on the installed package: a matmul with a fused
// bias + ReLU epilogue, declared with the DSL, scheduled by hand, compiled, run on the emulator and
// checked against the same Func run on the CPU through Halide.
//
//   fused_matmul [M N K] [--break-output]      (default 200 300 500; any sizes: a split past its
//                                               loop's extent is one tile of all of it)
//
// Exits 0 when the result matches and the checker found nothing, 1 otherwise, 2 on bad input.
// --break-output changes one element of the emulator's result before the comparison, to show
// that a mismatch fails.
#include "codegen/lower.h"
#include "dsl/func.h"
#include "dsl/host.h"
#include "emulator/chip_config.h"
#include "emulator/memory.h"
#include "emulator/simulator.h"
#include "kernels/check.h"

#include <fmt/format.h>

#include <charconv>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

using namespace cubekit;
using namespace cubekit::dsl;

// Compiles, runs and checks D for M x K times K x N; returns the exit code.
static int run(int64_t M, int64_t N, int64_t K, bool break_output) {
  // What: D = relu(A x B + bias), f16 in, f32 accumulation, f16 out.
  Input A("A", DType::f16, {M, K}), B("B", DType::f16, {K, N}), bias("bias", DType::f32, {N});
  Var m("m"), n("n");
  RDom k(0, K, "k");
  Func C("C"), D("D");
  C(m, n) = sum(cast(DType::f32, A(m, k)) * cast(DType::f32, B(k, n)));
  D(m, n) = cast(DType::f16, max(C(m, n) + bias(n), 0.0f));

  // How: 128 x 128 output tiles over the cores; k through L1 in chunks of 256 and through L0A/L0B
  // in steps of 64, double-buffered; D computed in UB as each tile leaves L0C.
  Var mo("mo"), mi("mi"), no("no"), ni("ni");
  RVar ko("ko"), ki("ki"), kio("kio"), kii("kii");
  C.split(m, mo, mi, 128).split(n, no, ni, 128).split(k, ko, ki, 256).split(ki, kio, kii, 64);
  C.reorder({kii, ni, mi, kio, ko, no, mo}).cores({mo, no});
  C.stage(A, Level::L1, ko).stage(B, Level::L1, ko).stage(A, Level::L0A, kio).stage(B, Level::L0B, kio);
  C.cube(mi, ni, kii).double_buffer();
  D.epilogue_of(C);

  const ChipConfig chip = load_chip("ascend910");
  codegen::Compiled compiled = codegen::compile(D, chip);

  // Seeded inputs in the kernel's global memory, then the emulator (functional, timed, checked).
  GlobalMemory gm = GlobalMemory::for_program(compiled.program);
  gm.fill_inputs(/*seed=*/1);
  SimResult sim = simulate(chip, compiled.program, gm);
  if (break_output) gm.bytes("D")[1] ^= 0x40;  // the high byte of element 0: a different f16

  // The same Func on the CPU through Halide, on the same inputs.
  std::map<std::string, const std::vector<uint8_t>*> inputs;
  for (const char* name : {"A", "B", "bias"}) inputs[name] = &gm.bytes(name);
  HostTensor want = run_on_host(D, inputs);
  kernels::Comparison check = kernels::compare(gm.bytes("D"), want.data, want.dtype);

  const Report& r = sim.report;
  fmt::print("D = relu(A x B + bias), {}x{}x{} f16: {} instructions, compiled in {:.1f} ms\n", M, N, K,
             compiled.program.code.size(), compiled.milliseconds);
  fmt::print("{} cycles on {} cores, checks {}\n", r.cycles, r.cores, r.clean() ? "clean" : "NOT clean");
  fmt::print("against Halide: max abs error {:.3g}, {} of {} elements off: {}\n", check.max_abs, check.mismatches,
             M * N, check.pass ? "PASS" : "FAIL");
  return check.pass && r.clean() ? 0 : 1;
}

// A command-line extent: a whole positive number.
static int64_t extent(const std::string& text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1)
    throw std::invalid_argument(fmt::format("'{}' is not an extent (a positive whole number)", text));
  return value;
}

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  bool break_output = !args.empty() && args.back() == "--break-output";
  if (break_output) args.pop_back();
  if (!args.empty() && args.size() != 3) {
    fmt::print(stderr, "usage: fused_matmul [M N K] [--break-output]\n");
    return 2;
  }
  try {
    if (args.empty()) return run(200, 300, 500, break_output);
    return run(extent(args[0]), extent(args[1]), extent(args[2]), break_output);
  } catch (const std::exception& e) {  // cubekit's errors say what was wrong and what to do
    fmt::print(stderr, "fused_matmul: {}\n", e.what());
    return 2;
  }
}
