#include "kernels/check.h"

#include "codegen/lower.h"
#include "dsl/host.h"
#include "emulator/isa_helpers.h"

#include <cmath>

namespace cubekit::kernels {

namespace {

// 0 when both are NaN or both the same infinity (as numpy.testing compares), infinite when only one
// is NaN or infinite or they are opposite infinities.
double element_error(double got, double want) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want) ? 0 : INFINITY;
  if (std::isinf(got) || std::isinf(want)) return got == want ? 0 : INFINITY;
  return std::fabs(got - want);
}

}  // namespace

Comparison compare(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, DType dtype, double atol) {
  Comparison c;
  c.bit_exact = got == want;
  c.rtol = is_float(dtype) ? (dtype == DType::f16 ? 1e-2 : 1e-4) : 0;
  c.atol = atol >= 0 ? atol : c.rtol;
  int size = dtype_size(dtype);
  size_t n = std::min(got.size(), want.size()) / size_t(size);
  for (size_t i = 0; i < n; ++i) {
    double g = isa::load_as_double(got.data() + i * size_t(size), dtype);
    double w = isa::load_as_double(want.data() + i * size_t(size), dtype);
    double err = element_error(g, w);
    c.max_abs = std::max(c.max_abs, err);
    if (w != 0 && std::isfinite(w)) c.max_rel = std::max(c.max_rel, err / std::fabs(w));
    if (err != 0 && !(std::isfinite(err) && err <= c.atol + c.rtol * std::fabs(w))) ++c.mismatches;
  }
  c.pass = got.size() == want.size() && c.mismatches == 0;
  return c;
}

KernelRun compile_and_run(const dsl::Func& f, const ChipConfig& chip, const RunSettings& s) {
  KernelRun run;
  codegen::Compiled compiled = codegen::compile(f, chip);
  // Through the text form, so that reports and diagnostics name lines of the program `cubekit
  // compile` writes (a built program has no source lines).
  run.program = parse_program(print_program(compiled.program), f.name() + ".s");
  run.compile_ms = compiled.milliseconds;
  run.gm = GlobalMemory::for_program(run.program);
  run.gm.fill_inputs(s.seed);
  if (s.inputs) s.inputs(run.gm);
  run.sim = simulate(chip, run.program, run.gm, s.sim);
  if (!s.reference || s.sim.timing_only) return run;
  std::map<std::string, const std::vector<uint8_t>*> inputs;
  for (size_t t = 0; t < run.gm.decls.size(); ++t)
    if (run.gm.decls[t].role != TensorRole::Out) inputs[run.gm.decls[t].name] = &run.gm.data[t];
  dsl::HostTensor want = dsl::run_on_host(f, inputs);
  run.check = compare(run.gm.bytes(f.name()), want.data, want.dtype, s.atol);
  run.checked = true;
  return run;
}

}  // namespace cubekit::kernels
