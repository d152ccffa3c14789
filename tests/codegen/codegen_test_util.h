// Shared by the compiler's tests: the chip they run on and the checker's diagnostics as text.
#pragma once

#include "emulator/emulator.h"
#include "kernels/check.h"

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

}  // namespace cubekit::test
