// How fast the emulator runs on the host: timing-only simulation in instructions per second
// (target: 20 million), and full emulation (data and checks) of the matmul examples.
#include "emulator/simulator.h"

#include <benchmark/benchmark.h>

#include <filesystem>

namespace cubekit {
namespace {

std::string example(const char* name) {
  return (std::filesystem::path(CUBEKIT_SOURCE_DIR) / "examples/asm" / name).string();
}

void run(benchmark::State& state, const char* name, SimOptions options) {
  ChipConfig chip = load_chip("ascend910");
  Program p = load_program(example(name));
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

// 256 blocks of the double-buffered matmul on 32 cores: 8 waves, about 330 thousand instructions.
void BM_TimingOnly(benchmark::State& state) { run(state, "matmul_f16_db.s", {.blocks = 256, .timing_only = true}); }
BENCHMARK(BM_TimingOnly)->Unit(benchmark::kMillisecond)->MinTime(1.0);

void BM_FullEmulation_matmul_f16(benchmark::State& state) { run(state, "matmul_f16.s", {.threads = 1}); }
BENCHMARK(BM_FullEmulation_matmul_f16)->Unit(benchmark::kMillisecond)->MinTime(1.0);

void BM_FullEmulation_matmul_f16_db(benchmark::State& state) { run(state, "matmul_f16_db.s", {.threads = 1}); }
BENCHMARK(BM_FullEmulation_matmul_f16_db)->Unit(benchmark::kMillisecond)->MinTime(1.0);

}  // namespace
}  // namespace cubekit

BENCHMARK_MAIN();
