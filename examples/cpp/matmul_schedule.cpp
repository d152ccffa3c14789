// A kernel author's matmul: the computation once, then a schedule written by hand with the DSL
// (what kernels/matmul.cpp chooses automatically), compiled, run on the emulator, checked against
// the Halide reference on the CPU, and reported.
//
//   build/bin/example_matmul_schedule [M N K]
#include "kernels/check.h"

#include <fmt/format.h>

#include <cstdlib>

using namespace cubekit;
using namespace cubekit::dsl;

int main(int argc, char** argv) {
  int64_t M = 512, N = 512, K = 1024;
  if (argc == 4) M = std::atoll(argv[1]), N = std::atoll(argv[2]), K = std::atoll(argv[3]);

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
