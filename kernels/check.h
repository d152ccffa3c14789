// Compile a Func, run it on the emulator with seeded inputs, and compare with the Halide host
// reference: what `cubekit kernel`, the tests, the benchmarks and the Python module all do.
#pragma once

#include "codegen/layouts.h"
#include "dsl/func.h"
#include "emulator/simulator.h"

#include <functional>

namespace cubekit::kernels {

struct Comparison {
  double max_abs = 0, max_rel = 0;
  int64_t mismatches = 0;  // elements outside the tolerance
  bool bit_exact = false;
  bool pass = false;
  double atol = 0, rtol = 0;
};

// got vs want (same dtype and size: a user error otherwise), with a tolerance for the dtype: exact for integers, 1e-4
// (f32) or 1e-2 (f16) relative plus the same absolute, for a different summation order. NaN matches
// NaN and an infinity the same infinity, nothing else.
// `atol`, `rtol` < 0: the defaults for the dtype.
Comparison compare(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, DType dtype, double atol = -1,
                   double rtol = -1);

// A tensor's conversion between the Func's shape and the program's layout. A 16-bit feature map's
// (NCHW <-> NC1HWC0) runs on the emulator as CANN's TransData kernel does (codegen/transdata.h):
// its cycles, and that it made what the host's conversion makes. Weights (FRACTAL_Z), per-channel
// vectors and other maps convert on the host, as a framework converts weights once at load.
struct Conversion {
  codegen::TensorLayout layout;
  bool to_device = true;
  bool emulated = false;
  uint64_t cycles = 0;       // emulated: the TransData kernel's
  bool matches_host = true;  // emulated, with data: bit for bit
  bool clean = true;         // emulated: no diagnostics
};

// A layout's conversion, emulated where the vector unit does it (a Conversion saying not emulated
// otherwise): `from` is the data to convert (empty, or options.timing_only: cycles only) and
// `host` what the host's conversion made of it.
Conversion convert(const codegen::TensorLayout& l, bool to_device, const std::vector<uint8_t>& from,
                   const std::vector<uint8_t>& host, const ChipConfig& chip, const SimOptions& options = {});

struct KernelRun {
  Program program;
  double compile_ms = 0;
  SimResult sim;
  GlobalMemory gm;
  Comparison check;  // when the reference ran
  bool checked = false;
  // Tensors GM holds in the cube's layouts (a conv's NC1HWC0 and FRACTAL_Z): the seeded inputs
  // were made in the Func's shapes and converted, the output is compared converted back.
  std::vector<codegen::TensorLayout> layouts;
  std::vector<Conversion> conversions;  // one per layout, inputs first
  // The result in the Func's shape (row-major), whatever layout GM holds it in.
  std::vector<uint8_t> result(const std::string& name) const;
};

struct RunSettings {
  uint64_t seed = 0;
  SimOptions sim;
  bool reference = true;  // run the Halide reference and compare
  double atol = -1;       // absolute tolerance (< 0: the dtype's default; an f32 result's grows with its longest sum)
  // Called after the seeded fill, to set inputs of one's own (e.g. extreme values), in GM's layouts
  // (KernelRun::layouts): what is set there is read back through each layout for the reference.
  std::function<void(GlobalMemory&)> inputs;
};

KernelRun compile_and_run(const dsl::Func& f, const ChipConfig& chip, const RunSettings& settings = {});
// A kernel with a second output (Func::store_with, codegen::compile(outputs, chip)): every output
// is compared with its reference, `check` the worst of them.
KernelRun compile_and_run(const std::vector<dsl::Func>& outputs, const ChipConfig& chip, const RunSettings& settings = {});

}  // namespace cubekit::kernels
