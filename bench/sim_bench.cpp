// How fast the emulator runs on the host: timing-only simulation in instructions per second
// (target: 20 million), on the double-buffered example and on the calibration's 6144^3 GEMM on
// ascend910b2, and full emulation (data and checks) of the matmul examples.
#include "codegen/lower.h"
#include "emulator/simulator.h"
#include "kernels/matmul.h"
#include "kernels/vector.h"

#include <benchmark/benchmark.h>

#include <filesystem>

namespace cubekit {
namespace {

std::string example(const char* name) {
  return (std::filesystem::path(CUBEKIT_SOURCE_DIR) / "examples/asm" / name).string();
}

void run_program(benchmark::State& state, const ChipConfig& chip, const Program& p, SimOptions options) {
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(1);
  int64_t instructions = 0;
  uint64_t cycles = 0;
  for (auto _ : state) {
    Report r = simulate(chip, p, gm, options).report;
    instructions = r.instructions;
    cycles = r.cycles;
    if (!options.timing_only && !r.clean()) state.SkipWithError("the example reported a problem");
  }
  state.counters["instructions"] = double(instructions);
  state.counters["emulated_cycles"] = double(cycles);
  state.counters["instr/s"] = benchmark::Counter(double(instructions), benchmark::Counter::kIsIterationInvariantRate);
}

void run(benchmark::State& state, const char* name, SimOptions options) {
  run_program(state, load_chip("ascend910"), load_program(example(name)), options);
}

// The calibration row gemm_6144_910b2 (calibration/rows.json): the published tiling, 24 cube
// cores, about 20 million instructions.
void BM_TimingOnly_Gemm6144_910b2(benchmark::State& state) {
  ChipConfig chip = load_chip("ascend910b2");
  kernels::MatmulOptions o;
  o.m = o.n = o.k = 6144;
  o.tm = 128, o.tn = 256, o.tk_l0 = 64, o.tk_l1 = 256, o.l1_copies = 2, o.double_buffer = true;
  Program p = codegen::compile(kernels::matmul(o, chip).out, chip).program;
  run_program(state, chip, p, {.timing_only = true});
}
BENCHMARK(BM_TimingOnly_Gemm6144_910b2)->Unit(benchmark::kMillisecond)->MinTime(1.0);

// 256 blocks of the double-buffered matmul on 32 cores: 8 waves, about 330 thousand instructions.
void BM_TimingOnly(benchmark::State& state) { run(state, "matmul_f16_db.s", {.blocks = 256, .timing_only = true}); }
BENCHMARK(BM_TimingOnly)->Unit(benchmark::kMillisecond)->MinTime(1.0);

// The emulator bench's timing-only add of 4096^2 f16 (bench/emulator.py) without its process: three
// 32 MB tensors streamed once through the 32 MB L2, so mostly the L2 model's misses and evictions.
void BM_TimingOnly_Add4096(benchmark::State& state) {
  ChipConfig chip = load_chip("ascend910");
  kernels::VectorOptions o;
  o.shape = {4096, 4096};
  o.use_tuned = false;
  Program p = codegen::compile(kernels::vector_kernel("add", o, chip).out, chip).program;
  GlobalMemory gm = GlobalMemory::shape_only(p);
  int64_t instructions = 0;
  for (auto _ : state) instructions = simulate(chip, p, gm, {.timing_only = true}).report.instructions;
  state.counters["instr/s"] = benchmark::Counter(double(instructions), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_TimingOnly_Add4096)->Unit(benchmark::kMillisecond)->MinTime(1.0);

// What the same process spends compiling that add (its default schedule's UB fits and sync).
void BM_Compile_Add4096(benchmark::State& state) {
  ChipConfig chip = load_chip("ascend910");
  kernels::VectorOptions o;
  o.shape = {4096, 4096};
  o.use_tuned = false;
  size_t size = 0;
  for (auto _ : state) size = codegen::compile(kernels::vector_kernel("add", o, chip).out, chip).program.code.size();
  state.counters["instructions"] = double(size);
}
BENCHMARK(BM_Compile_Add4096)->Unit(benchmark::kMillisecond)->MinTime(1.0);

void BM_FullEmulation_matmul_f16(benchmark::State& state) { run(state, "matmul_f16.s", {.threads = 1}); }
BENCHMARK(BM_FullEmulation_matmul_f16)->Unit(benchmark::kMillisecond)->MinTime(1.0);

void BM_FullEmulation_matmul_f16_db(benchmark::State& state) { run(state, "matmul_f16_db.s", {.threads = 1}); }
BENCHMARK(BM_FullEmulation_matmul_f16_db)->Unit(benchmark::kMillisecond)->MinTime(1.0);

}  // namespace
}  // namespace cubekit

BENCHMARK_MAIN();
