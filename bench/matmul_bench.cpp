// The compiler's matmul on ascend910, default schedule against naive: the timed loop is the
// compile (host milliseconds; target < 100 ms); the emulated run is deterministic, so it runs once
// (timing only) and gives the counters: cycles, mac_ratio (msprof's: M busy over the cores used),
// the report's roofline efficiency (over the cores used), and chip_efficiency: the cube-bound
// cycles of the whole chip over the cycles.
#include "codegen/lower.h"
#include "emulator/simulator.h"
#include "kernels/matmul.h"

#include <benchmark/benchmark.h>

namespace cubekit {
namespace {

void BM_Matmul(benchmark::State& state, kernels::MatmulOptions::Schedule schedule) {
  const ChipConfig chip = load_chip("ascend910");
  kernels::MatmulOptions o;
  o.m = o.n = o.k = state.range(0);
  o.schedule = schedule;
  kernels::Matmul mm = kernels::matmul(o, chip);
  Program program;
  for (auto _ : state) program = codegen::compile(mm.c, chip).program;

  GlobalMemory gm = GlobalMemory::for_program(program);
  Report r = simulate(chip, program, gm, {.timing_only = true}).report;
  if (!r.clean()) state.SkipWithError("the kernel reported a problem");
  const CubeFractal* f = chip.fractal(DType::f16);
  double cube_cycles = double(o.m) / f->m0 * double(o.n) / f->n0 * double(o.k) / f->k0 / chip.cores;
  state.counters["cycles"] = double(r.cycles);
  state.counters["mac_ratio"] = r.ratio[size_t(Pipe::M)];
  state.counters["efficiency"] = r.roofline.efficiency;
  state.counters["chip_efficiency"] = cube_cycles / double(r.cycles);
  state.counters["cores"] = r.cores;
  state.counters["instructions"] = double(program.code.size());
}

void Default(benchmark::State& s) { BM_Matmul(s, kernels::MatmulOptions::Schedule::Default); }
void Naive(benchmark::State& s) { BM_Matmul(s, kernels::MatmulOptions::Schedule::Naive); }

BENCHMARK(Default)->Name("matmul_f16/default")->Arg(512)->Arg(1024)->Arg(2048)->Arg(4096)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(Naive)->Name("matmul_f16/naive")->Arg(512)->Arg(1024)->Arg(2048)->Arg(4096)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace cubekit

BENCHMARK_MAIN();
