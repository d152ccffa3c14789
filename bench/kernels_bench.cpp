// The harness's benchmarks: for each kernel and shape of a suite, each implementation as its own
// benchmark. Emulated implementations (the default schedule, the naive one, and variants) time
// one timing-only emulation per iteration (host seconds) and report the emulated cycles and what
// follows from them; the host implementations (the same Func through Halide on the CPU, and a
// plain C++ loop) time one run on this machine. bench/run.py runs a suite and makes the results
// JSON, the Markdown table and the plots.
//
// The check suite times what `cubekit kernel` runs after compiling, one iteration each: the full
// emulation and the golden check (the Halide reference and the comparison), side by side.
//
//   kernels_bench --suite=matmul|vector|check|smoke [--chip=NAME] [Google Benchmark flags]
#include "codegen/lower.h"
#include "dsl/host.h"
#include "emulator/simulator.h"
#include "kernels/check.h"
#include "kernels/matmul.h"
#include "kernels/vector.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <random>

namespace cubekit {
namespace {

ChipConfig g_chip;

// What one benchmark measures: the Func to emulate (or run on the host), and its nominal work.
struct Job {
  dsl::Func func;
  double flops = 0;
  int64_t bytes = 0;  // every tensor read or written once
  double atol = -1;   // the check's absolute tolerance, as `cubekit kernel` sets it (< 0: the dtype's)
};

void common_counters(benchmark::State& state, const Job& job, const std::string& kind) {
  state.counters["flops"] = job.flops;
  state.counters["bytes"] = double(job.bytes);
  state.SetLabel(kind);
}

// Emulated: compile (median of three, in ms), then one timing-only emulation per iteration.
void emulated(benchmark::State& state, const std::function<Job()>& make) {
  Job job = make();
  std::vector<double> ms;
  Program program;
  for (int i = 0; i < 3; ++i) {
    codegen::Compiled c = codegen::compile(job.func, g_chip);
    ms.push_back(c.milliseconds);
    program = std::move(c.program);
  }
  std::sort(ms.begin(), ms.end());
  GlobalMemory gm = GlobalMemory::for_program(program);
  Report r;
  for (auto _ : state) r = simulate(g_chip, program, gm, {.timing_only = true}).report;
  if (!r.clean()) state.SkipWithError("the kernel reported a problem");
  double seconds = double(r.cycles) / (g_chip.clock_mhz * 1e6);
  state.counters["cycles"] = double(r.cycles);
  state.counters["tflops"] = job.flops / seconds / 1e12;
  state.counters["mac_ratio"] = r.ratio[size_t(Pipe::M)];
  state.counters["vec_ratio"] = r.ratio[size_t(Pipe::V)];
  state.counters["efficiency"] = r.roofline.efficiency;
  state.counters["gm_bytes"] = double(r.gm_bytes());
  state.counters["compile_ms"] = ms[1];
  state.counters["cores_used"] = r.cores;
  for (int p = 0; p < kNumPipes; ++p) state.counters[fmt::format("pipe_{}", pipe_name(Pipe(p)))] = r.ratio[size_t(p)];
  common_counters(state, job, "emulator");
}

// Seeded inputs for a Func's Input tensors, as the emulator would get them.
std::map<std::string, std::vector<uint8_t>> host_inputs(const dsl::Func& f) {
  std::map<std::string, std::vector<uint8_t>> in;
  Program decl;
  for (const auto& i : f.inputs()) decl.tensors.push_back({i->name, i->dtype, i->shape, TensorRole::In});
  GlobalMemory gm = GlobalMemory::for_program(decl);
  gm.fill_inputs(1);
  for (size_t t = 0; t < decl.tensors.size(); ++t) in[decl.tensors[t].name] = gm.data[t];
  return in;
}

// The same Func through Halide on this CPU (parallel outer loop, vectorised inner loop).
void halide_cpu(benchmark::State& state, const std::function<Job()>& make) {
  Job job = make();
  dsl::HostPipeline pipeline(job.func, dsl::HostSchedule::Fast);
  auto in = host_inputs(job.func);
  std::map<std::string, const std::vector<uint8_t>*> ptrs;
  for (const auto& [name, bytes] : in) ptrs[name] = &bytes;
  for (auto _ : state) benchmark::DoNotOptimize(pipeline.run(ptrs).data.data());
  common_counters(state, job, "host");
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// What `cubekit kernel` runs after compiling: the full emulation (data and checks) of the default
// program, then the golden check (the Halide reference, its JIT compile included, and the
// comparison), each timed on its own in every iteration; the counters are their medians and ratio.
void emulation_and_check(benchmark::State& state, const std::function<Job()>& make) {
  using clock = std::chrono::steady_clock;
  Job job = make();
  Program program = codegen::compile(job.func, g_chip).program;
  GlobalMemory gm = GlobalMemory::for_program(program);
  gm.fill_inputs(1);
  std::map<std::string, const std::vector<uint8_t>*> inputs;
  for (size_t t = 0; t < gm.decls.size(); ++t)
    if (given_by_host(gm.decls[t].role)) inputs[gm.decls[t].name] = &gm.data[t];
  std::vector<double> emulation, check;
  bool clean = true, pass = true;
  // A warm-up, untimed: the first check also loads the Halide module (a one-time 0.3 s or so that
  // made the first row's check / emulation 17 where the others are about 4).
  simulate(g_chip, program, gm, {});
  dsl::run_on_host(job.func, inputs);
  for (auto _ : state) {
    auto start = clock::now();
    SimResult sim = simulate(g_chip, program, gm, {});
    auto emulated = clock::now();
    dsl::HostTensor want = dsl::run_on_host(job.func, inputs);
    kernels::Comparison c = kernels::compare(gm.bytes(job.func.name()), want.data, want.dtype, job.atol);
    auto checked = clock::now();
    clean = clean && sim.report.clean(), pass = pass && c.pass;
    emulation.push_back(std::chrono::duration<double>(emulated - start).count());
    check.push_back(std::chrono::duration<double>(checked - emulated).count());
  }
  if (!clean) state.SkipWithError("the kernel reported a problem");
  if (!pass) state.SkipWithError("the emulation and the reference disagree");
  state.counters["emulation_s"] = median(emulation);
  state.counters["check_s"] = median(check);
  state.counters["check_over_emulation"] = median(check) / median(emulation);
  common_counters(state, job, "check");
}

// ---- plain C++ loops, the first thing anyone writes ----

std::vector<float> random_floats(size_t n) {
  std::mt19937 rng(1);
  std::vector<float> v(n);
  for (float& x : v) x = std::uniform_real_distribution<float>(-1, 1)(rng);
  return v;
}

void loop_matmul(benchmark::State& state, int64_t m, int64_t n, int64_t k) {
  std::vector<float> a = random_floats(size_t(m * k)), b = random_floats(size_t(k * n)), c(size_t(m * n));
  for (auto _ : state) {
    std::fill(c.begin(), c.end(), 0.0f);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p) {
        float x = a[size_t(i * k + p)];
        for (int64_t j = 0; j < n; ++j) c[size_t(i * n + j)] += x * b[size_t(p * n + j)];
      }
    benchmark::DoNotOptimize(c.data());
  }
  common_counters(state, {dsl::Func("loop"), 2.0 * double(m) * double(n) * double(k), (m * k + k * n + m * n) * 4}, "host");
}

void loop_rows(benchmark::State& state, const std::string& kernel, int64_t rows, int64_t cols, double flops_per_element) {
  std::vector<float> x = random_floats(size_t(rows * cols)), y = random_floats(size_t(rows * cols)), out(x.size());
  for (auto _ : state) {
    for (int64_t r = 0; r < rows; ++r) {
      const float* xr = &x[size_t(r * cols)];
      float* o = &out[size_t(r * cols)];
      if (kernel == "add") {
        for (int64_t c = 0; c < cols; ++c) o[c] = xr[c] + y[size_t(r * cols + c)];
      } else if (kernel == "softmax") {
        float mx = xr[0], s = 0;
        for (int64_t c = 0; c < cols; ++c) mx = std::max(mx, xr[c]);
        for (int64_t c = 0; c < cols; ++c) s += (o[c] = std::exp(xr[c] - mx));
        for (int64_t c = 0; c < cols; ++c) o[c] /= s;
      } else if (kernel == "gelu") {
        for (int64_t c = 0; c < cols; ++c)
          o[c] = 0.5f * xr[c] * (1 + std::tanh(0.7978845608f * (xr[c] + 0.044715f * xr[c] * xr[c] * xr[c])));
      } else if (kernel == "rmsnorm") {  // y holds gamma
        float squares = 0;
        for (int64_t c = 0; c < cols; ++c) squares += xr[c] * xr[c];
        float rrms = 1 / std::sqrt(squares / float(cols) + 1e-5f);
        for (int64_t c = 0; c < cols; ++c) o[c] = xr[c] * rrms * y[size_t(c)];
      } else {  // layernorm; y holds gamma and beta
        float mean = 0, var = 0;
        for (int64_t c = 0; c < cols; ++c) mean += xr[c];
        mean /= float(cols);
        for (int64_t c = 0; c < cols; ++c) var += (xr[c] - mean) * (xr[c] - mean);
        float rstd = 1 / std::sqrt(var / float(cols) + 1e-5f);
        for (int64_t c = 0; c < cols; ++c) o[c] = (xr[c] - mean) * rstd * y[size_t(c)] + y[size_t(cols + c)];
      }
    }
    benchmark::DoNotOptimize(out.data());
  }
  int64_t arrays = kernel == "add" ? 3 : 2;  // in f32, as the loop reads and writes them
  common_counters(state, {dsl::Func("loop"), flops_per_element * double(rows * cols), arrays * rows * cols * 4}, "host");
}

// ---- the suites ----

struct MatmulShape {
  int64_t m, n, k;
};

// Every tensor of the Func read or written once.
int64_t tensor_bytes(const dsl::Func& f) {
  int64_t out = dtype_size(f.type().dtype);
  for (int64_t e : f.shape()) out *= e;
  for (const auto& in : f.inputs()) {
    int64_t b = dtype_size(in->dtype);
    for (int64_t e : in->shape) b *= e;
    out += b;
  }
  return out;
}

Job matmul_job(const kernels::MatmulOptions& o) {
  kernels::Matmul mm = kernels::matmul(o, g_chip);
  double batch = double(std::max<int64_t>(o.batch, 1));
  // the tolerance `cubekit kernel matmul` checks with
  double atol = o.in == DType::s8 ? 0 : (o.out == DType::f16 ? 1e-2 : std::max(1e-4, double(o.k) * 0x1p-23));
  return {mm.out, 2.0 * batch * double(o.m) * double(o.n) * double(o.k), tensor_bytes(mm.out), atol};
}

void register_matmul(const std::vector<MatmulShape>& shapes) {
  struct Variant {
    const char* name;
    std::function<void(kernels::MatmulOptions&)> set;
  };
  const std::vector<Variant> variants = {
      {"default", [](kernels::MatmulOptions&) {}},
      {"naive", [](kernels::MatmulOptions& o) { o.schedule = kernels::MatmulOptions::Schedule::Naive; }},
      {"no_double_buffer", [](kernels::MatmulOptions& o) { o.double_buffer = false; }},
      {"one_core", [](kernels::MatmulOptions& o) { o.use_cores = false; }},
      {"tile_128", [](kernels::MatmulOptions& o) { o.tm = std::min<int64_t>(o.m, 128), o.tn = std::min<int64_t>(o.n, 128); }},
  };
  for (const MatmulShape& s : shapes) {
    std::string shape = fmt::format("{}x{}x{}", s.m, s.n, s.k);
    auto options = [s] {
      kernels::MatmulOptions o;
      o.m = s.m, o.n = s.n, o.k = s.k;
      return o;
    };
    for (const Variant& v : variants)
      benchmark::RegisterBenchmark(fmt::format("matmul/{}/{}", shape, v.name).c_str(), [options, v](benchmark::State& st) {
        emulated(st, [&] {
          kernels::MatmulOptions o = options();
          v.set(o);
          return matmul_job(o);
        });
      })->Unit(benchmark::kMillisecond)->UseRealTime()->MinWarmUpTime(0.2);
    benchmark::RegisterBenchmark(fmt::format("matmul/{}/halide_cpu", shape).c_str(), [options](benchmark::State& st) {
      halide_cpu(st, [&] { return matmul_job(options()); });
    })->Unit(benchmark::kMillisecond)->UseRealTime()->MinWarmUpTime(0.2);
    if (double(s.m) * double(s.n) * double(s.k) <= double(int64_t(1) << 31))  // a plain loop beyond that takes minutes
      benchmark::RegisterBenchmark(fmt::format("matmul/{}/cpp_loop", shape).c_str(), [s](benchmark::State& st) {
        loop_matmul(st, s.m, s.n, s.k);
      })->Unit(benchmark::kMillisecond)->UseRealTime()->MinWarmUpTime(0.2);
  }
}

void register_vector(int64_t rows, int64_t cols) {
  // Nominal FLOPs per element, for the roofline's arithmetic intensity.
  const std::vector<std::pair<std::string, double>> kernels_ = {{"add", 1}, {"gelu", 10}, {"softmax", 5}, {"layernorm", 8}, {"rmsnorm", 5}};
  std::string shape = fmt::format("{}x{}", rows, cols);
  for (const auto& [name, per_element] : kernels_) {
    auto job = [name = name, per_element = per_element, rows, cols](const std::function<void(kernels::VectorOptions&)>& set) {
      kernels::VectorOptions o;
      o.shape = {rows, cols};
      set(o);
      kernels::VectorKernel k = kernels::vector_kernel(name, o);
      return Job{k.out, per_element * double(rows * cols), tensor_bytes(k.out)};
    };
    struct Variant {
      const char* name;
      std::function<void(kernels::VectorOptions&)> set;
    };
    std::vector<Variant> variants = {
        {"default", [](kernels::VectorOptions&) {}},
        {"naive", [](kernels::VectorOptions& o) { o.schedule = kernels::VectorOptions::Schedule::Naive; }},
        {"no_double_buffer", [](kernels::VectorOptions& o) { o.double_buffer = false; }},
        // three copies of each tile, filled two ahead (multi_buffer(UB, 3)): 3 + 1 event ids with
        // the norms' per-column inputs, which every preset has
        {"copies_3", [](kernels::VectorOptions& o) { o.copies = 3; }},
        {"one_core", [](kernels::VectorOptions& o) { o.use_cores = false; }},
    };
    if (name != "add" && name != "gelu") variants.push_back({"tile_rows_1", [](kernels::VectorOptions& o) { o.tile_rows = 1; }});
    for (const Variant& v : variants)
      benchmark::RegisterBenchmark(fmt::format("{}/{}/{}", name, shape, v.name).c_str(), [job, v](benchmark::State& st) {
        emulated(st, [&] { return job(v.set); });
      })->Unit(benchmark::kMillisecond)->UseRealTime()->MinWarmUpTime(0.2);
    benchmark::RegisterBenchmark(fmt::format("{}/{}/halide_cpu", name, shape).c_str(), [job](benchmark::State& st) {
      halide_cpu(st, [&] { return job([](kernels::VectorOptions&) {}); });
    })->Unit(benchmark::kMillisecond)->UseRealTime()->MinWarmUpTime(0.2);
    benchmark::RegisterBenchmark(fmt::format("{}/{}/cpp_loop", name, shape).c_str(),
                                   [name = name, rows, cols, per_element = per_element](benchmark::State& st) {
                                     loop_rows(st, name, rows, cols, per_element);
                                   })
          ->Unit(benchmark::kMillisecond)->UseRealTime()->MinWarmUpTime(0.2);
  }
}

// The golden check beside the emulation it checks, for the README's kernels and shapes and their
// f32, s8 and epilogue variants.
void register_checks(const std::vector<MatmulShape>& shapes, int64_t rows, int64_t cols, bool variants) {
  auto add = [](const std::string& name, std::function<Job()> make) {
    benchmark::RegisterBenchmark(name.c_str(), [make](benchmark::State& st) { emulation_and_check(st, make); })
        ->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
  };
  for (const MatmulShape& s : shapes) {
    std::string shape = fmt::format("{}x{}x{}", s.m, s.n, s.k);
    kernels::MatmulOptions o;
    o.m = s.m, o.n = s.n, o.k = s.k;
    add(fmt::format("matmul/{}/check_f16", shape), [o] { return matmul_job(o); });
    if (!variants) continue;
    kernels::MatmulOptions s8 = o, epilogue = o;
    s8.in = DType::s8, s8.out = DType::s32, s8.transpose_b = true;
    epilogue.epilogue = {"bias", "gelu"}, epilogue.out = DType::f16;
    add(fmt::format("matmul/{}/check_s8", shape), [s8] { return matmul_job(s8); });
    add(fmt::format("matmul/{}/check_bias_gelu_f16", shape), [epilogue] { return matmul_job(epilogue); });
  }
  for (const char* name : {"add", "gelu", "softmax", "layernorm", "rmsnorm"})
    for (DType dt : {DType::f16, DType::f32}) {
      if (dt == DType::f32 && !variants) continue;
      add(fmt::format("{}/{}x{}/check_{}", name, rows, cols, dtype_name(dt)), [name = std::string(name), dt, rows, cols] {
        kernels::VectorOptions o;
        o.shape = {rows, cols}, o.dtype = dt;
        kernels::VectorKernel k = kernels::vector_kernel(name, o);
        return Job{k.out, 0, tensor_bytes(k.out)};
      });
    }
}

// Takes --name=value off the command line (Google Benchmark rejects flags it does not know).
std::string take_flag(int& argc, char** argv, const std::string& name, const std::string& fallback) {
  std::string prefix = "--" + name + "=", value = fallback;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) value = argv[i] + prefix.size();
    else argv[out++] = argv[i];
  }
  argc = out;
  return value;
}

}  // namespace
}  // namespace cubekit

int main(int argc, char** argv) {
  using namespace cubekit;
  std::string suite = take_flag(argc, argv, "suite", "matmul");
  try {
    g_chip = load_chip(take_flag(argc, argv, "chip", "ascend910"));
  } catch (const std::exception& e) {
    fmt::print(stderr, "kernels_bench: {}\n", e.what());
    return 2;
  }
  if (suite == "matmul")
    register_matmul({{512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096},
                     {512, 1024, 1024}, {512, 4096, 1024}, {512, 1024, 4096}});
  else if (suite == "vector") register_vector(4096, 4096);
  else if (suite == "check")
    register_checks({{512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096},
                     {512, 1024, 1024}, {512, 4096, 1024}, {512, 1024, 4096}}, 4096, 4096, true);
  else if (suite == "smoke") register_matmul({{128, 128, 128}}), register_vector(64, 256), register_checks({{128, 128, 128}}, 64, 256, false);
  else {
    fmt::print(stderr, "kernels_bench: unknown suite '{}'; the suites are matmul, vector, check and smoke\n", suite);
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
