// The vector path on ascend910, 4096 x 4096 f16: add, softmax, layernorm against the HBM roofline
// (the tensors read and written once, at the chip's HBM rate, over the emulated cycles; targets
// 0.85 for add and 0.7 for softmax and layernorm), and the matmul epilogue bias + ReLU fused
// against the matmul and a separate epilogue kernel one after the other. The timed loop is the
// compile; the emulated run is deterministic and runs once (timing only) for the counters.
#include "codegen/lower.h"
#include "emulator/simulator.h"
#include "kernels/matmul.h"
#include "kernels/vector.h"

#include <benchmark/benchmark.h>

namespace cubekit {
namespace {

const ChipConfig& chip() {
  static const ChipConfig c = load_chip("ascend910");
  return c;
}

// Compiles in the timed loop; returns the report of one timing-only run.
Report compile_and_time(benchmark::State& state, const dsl::Func& f, Program* keep = nullptr) {
  Program program;
  for (auto _ : state) program = codegen::compile(f, chip()).program;
  GlobalMemory gm = GlobalMemory::for_program(program);
  Report r = simulate(chip(), program, gm, {.timing_only = true}).report;
  if (!r.clean()) state.SkipWithError("the kernel reported a problem");
  if (keep) *keep = program;
  return r;
}

int64_t tensor_bytes(const Program& p) {
  int64_t b = 0;
  for (const TensorDecl& t : p.tensors) b += t.bytes();
  return b;
}

void BM_Vector(benchmark::State& state, const char* name) {
  kernels::VectorOptions o;
  o.shape = {4096, 4096};
  Program p;
  Report r = compile_and_time(state, kernels::vector_kernel(name, o).out, &p);
  double hbm = double(tensor_bytes(p)) / chip().timing.hbm_rate;
  state.counters["cycles"] = double(r.cycles);
  state.counters["hbm_roofline_cycles"] = hbm;
  state.counters["hbm_efficiency"] = hbm / double(r.cycles);
  state.counters["vec_ratio"] = r.ratio[size_t(Pipe::V)];
}
BENCHMARK_CAPTURE(BM_Vector, add, "add")->Name("vector_f16_4096x4096/add")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Vector, softmax, "softmax")->Name("vector_f16_4096x4096/softmax")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Vector, layernorm, "layernorm")->Name("vector_f16_4096x4096/layernorm")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Vector, rmsnorm, "rmsnorm")->Name("vector_f16_4096x4096/rmsnorm")->Unit(benchmark::kMillisecond);

// matmul + bias + ReLU, f16 out: fused, and as matmul (f32 C) then the epilogue as a vector kernel.
void BM_Epilogue(benchmark::State& state) {
  kernels::MatmulOptions o;
  o.m = o.n = o.k = state.range(0);
  o.out = DType::f16;
  o.epilogue = {"bias", "relu"};
  Report fused = compile_and_time(state, kernels::matmul(o, chip()).out);
  kernels::MatmulOptions c32 = o;
  c32.epilogue.clear();
  c32.out = DType::f32;
  auto once = [](const dsl::Func& f) {
    Program p = codegen::compile(f, chip()).program;
    GlobalMemory gm = GlobalMemory::for_program(p);
    return simulate(chip(), p, gm, {.timing_only = true}).report;
  };
  Report first = once(kernels::matmul(c32, chip()).out), second = once(kernels::unfused_epilogue(o, chip()).out);
  auto gm = [](const Report& r) {
    return double(r.bytes[size_t(DataPath::GmToL1)] + r.bytes[size_t(DataPath::GmToUb)] + r.bytes[size_t(DataPath::UbToGm)]);
  };
  state.counters["fused_cycles"] = double(fused.cycles);
  state.counters["unfused_cycles"] = double(first.cycles + second.cycles);
  state.counters["fused_over_unfused"] = double(fused.cycles) / double(first.cycles + second.cycles);
  state.counters["fused_gm_bytes"] = gm(fused);
  state.counters["unfused_gm_bytes"] = gm(first) + gm(second);
  state.counters["fused_mac_ratio"] = fused.ratio[size_t(Pipe::M)];
}
BENCHMARK(BM_Epilogue)->Name("matmul_bias_relu_f16")->Arg(1024)->Arg(4096)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace cubekit

BENCHMARK_MAIN();
