// Shared by the compiler's tests: the chip they run on, the checker's diagnostics as text, and
// matmul options built in one expression.
#pragma once

#include "emulator/emulator.h"
#include "kernels/check.h"
#include "kernels/matmul.h"

#include <string>

namespace cubekit::test {

inline const ChipConfig& chip() {
  static const ChipConfig c = load_chip("ascend910");
  return c;
}

inline std::string describe(const kernels::KernelRun& run) {
  std::string d;
  for (const Diagnostic& x : run.sim.report.diagnostics) d += format_diagnostic(run.program, x) + "\n";
  return d;
}

// Matmul options of a shape, and options changed by `f` (for tables of cases).
inline kernels::MatmulOptions mm(int64_t m, int64_t n, int64_t k) {
  kernels::MatmulOptions o;
  o.m = m, o.n = n, o.k = k;
  return o;
}
template <class F>
kernels::MatmulOptions with(kernels::MatmulOptions o, F f) {
  f(o);
  return o;
}

}  // namespace cubekit::test
