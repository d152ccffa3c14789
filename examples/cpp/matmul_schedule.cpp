// A kernel author's matmul: the computation once, then a schedule written by hand with the DSL
// (what kernels/matmul.cpp chooses automatically), compiled, run on the emulator, checked against
// the Halide reference on the CPU, and reported.
//
//   build/bin/example_matmul_schedule [M N K]      (default 512 512 1024)
//
// Exits 0 when the result matches and the checker found nothing, 1 otherwise, 2 on bad input.
#include "kernels/check.h"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>
#include <string>

using namespace cubekit;
using namespace cubekit::dsl;

// Compiles, runs and checks C = A x B for M x K times K x N; returns the exit code.
static int run(int64_t M, int64_t N, int64_t K) {

  // What to compute: C = A x B, f16 inputs summed in f32.
  Input A("A", DType::f16, {M, K}), B("B", DType::f16, {K, N});
  Var m("m"), n("n");
  RDom k(0, K, "k");
  Func C("C");
  C(m, n) = sum(cast(DType::f32, A(m, k)) * cast(DType::f32, B(k, n)));

  // How: 128 x 128 output tiles accumulated in L0C, one per core at a time; k through L1 in chunks
  // of 256 and through L0A/L0B in steps of 64, one mmad each; double-buffered.
  Var mo("mo"), mi("mi"), no("no"), ni("ni");
  RVar ko("ko"), ki("ki"), kio("kio"), kii("kii");
  C.split(m, mo, mi, 128).split(n, no, ni, 128).split(k, ko, ki, 256).split(ki, kio, kii, 64);
  C.reorder({kii, ni, mi, kio, ko, no, mo});  // innermost first
  C.cores({mo, no});
  C.stage(A, Level::L1, ko).stage(B, Level::L1, ko);
  C.stage(A, Level::L0A, kio).stage(B, Level::L0B, kio);
  C.cube(mi, ni, kii);
  C.double_buffer();

  const ChipConfig chip = load_chip("ascend910");
  kernels::KernelRun run = kernels::compile_and_run(C, chip, {.seed = 1, .atol = 1e-3});
  const Report& r = run.sim.report;
  fmt::print("C = A x B, {}x{}x{}: compiled in {:.1f} ms to {} instructions\n", M, N, K, run.compile_ms,
             run.program.code.size());
  fmt::print("check against Halide: max abs error {:.3g}: {}\n", run.check.max_abs, run.check.pass ? "PASS" : "FAIL");
  fmt::print("{} cycles on {} cores, mac_ratio {:.3f}, roofline efficiency {:.3f}, checks {}\n", r.cycles, r.cores,
             r.ratio[size_t(Pipe::M)], r.roofline.efficiency, r.clean() ? "clean" : "NOT clean");
  return run.check.pass && r.clean() ? 0 : 1;
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
  if (argc != 1 && argc != 4) {
    fmt::print(stderr, "usage: example_matmul_schedule [M N K]\n");
    return 2;
  }
  try {
    if (argc == 1) return run(512, 512, 1024);
    return run(extent(argv[1]), extent(argv[2]), extent(argv[3]));
  } catch (const std::exception& e) {  // cubekit's errors say what was wrong and what to do
    fmt::print(stderr, "example_matmul_schedule: {}\n", e.what());
    return 2;
  }
}
