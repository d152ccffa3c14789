// `cubekit kernel NAME ...`: compile a ready kernel, run it on seeded random inputs, check it
// against the Halide reference and report; `cubekit compile NAME ... -o FILE.s` writes the program.
#include "emulator/error.h"
#include "kernels/check.h"
#include "kernels/matmul.h"
#include "codegen/lower.h"
#include "tools/commands.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <optional>

namespace cubekit::cli {

namespace {

struct MatmulArgs {
  int64_t m = 0, n = 0, k = 0, batch = 0;
  std::string dtype = "f16", out, schedule = "default", chip = "ascend910", trace, output;
  bool transpose_a = false, transpose_b = false, json = false, timing_only = false, no_check = false;
  uint64_t seed = 0;
  int threads = 0;
  int64_t tm = 0, tn = 0, tk_l0 = 0, tk_l1 = 0, group = 0;
  int l1_copies = 0;
  std::string double_buffer, cores, stagger;  // "on", "off" or "" (the schedule's choice)
};

std::optional<bool> on_off(const std::string& v, const char* option) {
  if (v.empty()) return std::nullopt;
  if (v == "on") return true;
  if (v == "off") return false;
  user_error("{} must be on or off, got '{}'", option, v);
}

kernels::MatmulOptions options_of(const MatmulArgs& a) {
  kernels::MatmulOptions o;
  o.m = a.m, o.n = a.n, o.k = a.k, o.batch = a.batch;
  if (a.dtype == "f16") o.in = DType::f16;
  else if (a.dtype == "s8") o.in = DType::s8;
  else user_error("--dtype must be f16 or s8, got '{}'", a.dtype);
  std::string out = a.out.empty() ? (o.in == DType::s8 ? "s32" : "f32") : a.out;
  auto t = parse_dtype(out);
  if (!t) user_error("--out must be a dtype (f32, f16, s32), got '{}'", out);
  o.out = *t;
  o.transpose_a = a.transpose_a;
  o.transpose_b = a.transpose_b || o.in == DType::s8;  // s8 needs B stored (n, k)
  if (a.schedule == "default") o.schedule = kernels::MatmulOptions::Schedule::Default;
  else if (a.schedule == "naive") o.schedule = kernels::MatmulOptions::Schedule::Naive;
  else user_error("--schedule must be default or naive, got '{}'", a.schedule);
  o.tm = a.tm, o.tn = a.tn, o.tk_l0 = a.tk_l0, o.tk_l1 = a.tk_l1, o.core_group = a.group;
  o.l1_copies = a.l1_copies;
  o.double_buffer = on_off(a.double_buffer, "--double-buffer");
  o.use_cores = on_off(a.cores, "--cores");
  o.stagger = on_off(a.stagger, "--stagger");
  return o;
}

void add_shape_options(CLI::App* cmd, MatmulArgs& a) {
  cmd->add_option("--m", a.m, "rows of A and C")->required();
  cmd->add_option("--n", a.n, "columns of B and C")->required();
  cmd->add_option("--k", a.k, "columns of A, rows of B")->required();
  cmd->add_option("--batch", a.batch, "batch count (0: no batch dimension)");
  cmd->add_option("--dtype", a.dtype, "input type: f16 or s8 (s8 takes B stored as [n, k])")->capture_default_str();
  cmd->add_option("--out", a.out, "result type: f32 or f16 for f16 inputs, s32 for s8 (default f32 / s32)");
  cmd->add_flag("--transpose-a", a.transpose_a, "A is stored [k, m]");
  cmd->add_flag("--transpose-b", a.transpose_b, "B is stored [n, k]");
  cmd->add_option("--schedule", a.schedule, "default or naive")->capture_default_str();
  cmd->add_option("--chip", a.chip, "chip preset or JSON config")->capture_default_str();
  cmd->add_option("--tm", a.tm, "override: rows of the output tile (L0C)");
  cmd->add_option("--tn", a.tn, "override: columns of the output tile (L0C)");
  cmd->add_option("--tk-l0", a.tk_l0, "override: k per L0A/L0B fill");
  cmd->add_option("--tk-l1", a.tk_l1, "override: k per L1 fill");
  cmd->add_option("--group", a.group, "override: hand out m tiles to the cores this many at a time");
  cmd->add_option("--l1-copies", a.l1_copies, "override: copies of the L1 buffers (fills run copies - 1 ahead)");
  cmd->add_option("--double-buffer", a.double_buffer, "override: on or off");
  cmd->add_option("--cores", a.cores, "override: spread tiles over all cores, on or off");
  cmd->add_option("--stagger", a.stagger, "override: rotate each tile's k chunks, on or off");
}

int run_matmul(const MatmulArgs& a) {
  ChipConfig chip = load_chip(a.chip);
  kernels::MatmulOptions o = options_of(a);
  kernels::Matmul mm = kernels::matmul(o, chip);
  kernels::RunSettings s;
  s.seed = a.seed;
  s.sim = {.timing_only = a.timing_only, .trace = !a.trace.empty(), .threads = a.threads};
  s.reference = !a.no_check;
  s.atol = o.in == DType::s8 ? 0 : (o.out == DType::f16 ? 1e-2 : std::max(1e-4, double(o.k) * 0x1p-23));
  if (!a.trace.empty() && !std::ofstream(a.trace, std::ios::app)) user_error("--trace: cannot write '{}'", a.trace);
  kernels::KernelRun run = kernels::compile_and_run(mm.c, chip, s);
  const Report& r = run.sim.report;
  if (!a.trace.empty()) write_trace(a.trace, run.sim, run.program, chip);
  bool ok = r.clean() && (!run.checked || run.check.pass);
  if (a.json) {
    nlohmann::json j = nlohmann::json::parse(report_json(r, run.program, "matmul"));
    j["compile_ms"] = run.compile_ms;
    j["shape"] = {{"m", o.m}, {"n", o.n}, {"k", o.k}, {"batch", o.batch}};
    j["schedule"] = a.schedule;
    if (run.checked)
      j["check"] = {{"max_abs_error", run.check.max_abs}, {"max_rel_error", run.check.max_rel},
                    {"bit_exact", run.check.bit_exact}, {"pass", run.check.pass}, {"atol", run.check.atol},
                    {"rtol", run.check.rtol}};
    fmt::print("{}\n", j.dump(2));
    return ok ? 0 : 1;
  }
  fmt::print("matmul {}{}x{}x{} {} -> {}{}{}, {} schedule: compiled in {:.1f} ms ({} instructions)\n",
             o.batch ? fmt::format("{} x ", o.batch) : "", o.m, o.n, o.k, dtype_name(o.in), dtype_name(o.out),
             o.transpose_a ? ", A transposed" : "", o.transpose_b ? ", B transposed" : "", a.schedule, run.compile_ms,
             run.program.code.size());
  if (run.checked)
    fmt::print("check against the Halide reference: max abs error {:.3g}, max rel error {:.3g}{}: {}\n",
               run.check.max_abs, run.check.max_rel, run.check.bit_exact ? " (bit-exact)" : "",
               run.check.pass ? "PASS" : fmt::format("FAIL ({} elements outside atol {:.3g} + rtol {:.3g})",
                                                     run.check.mismatches, run.check.atol, run.check.rtol));
  double tflops = 2.0 * double(std::max<int64_t>(o.batch, 1)) * double(o.m) * double(o.n) * double(o.k) /
                  (r.microseconds() * 1e6);
  fmt::print("{:.1f} TFLOPS emulated at {} MHz\n", tflops, chip.clock_mhz);
  fmt::print("{}", report_text(r, run.program, "matmul"));
  if (!a.trace.empty()) fmt::print("wrote the trace to {}\n", a.trace);
  return ok ? 0 : 1;
}

int compile_matmul(const MatmulArgs& a) {
  ChipConfig chip = load_chip(a.chip);
  kernels::Matmul mm = kernels::matmul(options_of(a), chip);
  codegen::Compiled c = codegen::compile(mm.c, chip);
  std::ofstream out(a.output);
  if (!out) user_error("-o: cannot write '{}'", a.output);
  // The comment goes last, so that line numbers match the reports of `cubekit kernel`.
  out << print_program(c.program);
  out << "# " << fmt::format("matmul {}x{}x{}, {} schedule, compiled in {:.1f} ms", a.m, a.n, a.k, a.schedule, c.milliseconds) << "\n";
  fmt::print("wrote {} ({} instructions, block_dim {}) in {:.1f} ms\n", a.output, c.program.code.size(),
             c.program.block_dim, c.milliseconds);
  return 0;
}

}  // namespace

void add_kernel(CLI::App& app, int& exit_code) {
  auto* kernel = app.add_subcommand("kernel", "compile a ready kernel, run it, check it against Halide, report");
  kernel->require_subcommand(1);
  auto ma = std::make_shared<MatmulArgs>();
  auto* mm = kernel->add_subcommand("matmul", "C = A x B on the cube");
  add_shape_options(mm, *ma);
  mm->add_option("--seed", ma->seed, "seed of the random inputs")->capture_default_str();
  mm->add_flag("--json", ma->json, "print the report as one JSON object");
  mm->add_option("--trace", ma->trace, "write a Chrome trace to this file");
  mm->add_flag("--timing-only", ma->timing_only, "cycles only: no data, no check");
  mm->add_flag("--no-check", ma->no_check, "skip the Halide reference");
  mm->add_option("--threads", ma->threads, "host threads (default: all)");
  mm->callback([ma, &exit_code] { exit_code = run_matmul(*ma); });

  auto* compile = app.add_subcommand("compile", "compile a ready kernel to a program (.s)");
  compile->require_subcommand(1);
  auto ca = std::make_shared<MatmulArgs>();
  auto* cm = compile->add_subcommand("matmul", "C = A x B on the cube");
  add_shape_options(cm, *ca);
  cm->add_option("-o,--output", ca->output, "the program file to write")->required();
  cm->callback([ca, &exit_code] { exit_code = compile_matmul(*ca); });
}

}  // namespace cubekit::cli
