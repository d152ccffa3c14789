#include "kernels/check.h"

#include "codegen/lower.h"
#include "codegen/transdata.h"
#include "dsl/host.h"
#include "schedules/attention.h"
#include "emulator/isa_helpers.h"

#include <cmath>
#include <future>
#include <map>
#include <memory>
#include <set>

namespace cubekit::kernels {

namespace {

// 0 when both are NaN or both the same infinity (as numpy.testing compares), infinite when only one
// is NaN or infinite or they are opposite infinities.
double element_error(double got, double want) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want) ? 0 : INFINITY;
  if (std::isinf(got) || std::isinf(want)) return got == want ? 0 : INFINITY;
  return std::fabs(got - want);
}

// Seeded inputs in the Func's shapes (what the reference reads), stored in GM converted to the
// program's layouts where it has its own. Returns the Func-shaped copies of the converted ones.
std::map<std::string, std::vector<uint8_t>> seeded_inputs(GlobalMemory& gm, const std::vector<codegen::TensorLayout>& layouts,
                                                          uint64_t seed) {
  std::map<std::string, std::vector<uint8_t>> logical;
  if (layouts.empty()) {
    gm.fill_inputs(seed);
    return logical;
  }
  GlobalMemory shaped;  // the same tensors (so the same seeds) in the Func's shapes
  shaped.decls = gm.decls;
  for (size_t t = 0; t < gm.decls.size(); ++t) {
    const codegen::TensorLayout* l = codegen::find_layout(layouts, gm.decls[t].name);
    if (l) shaped.decls[t].shape = l->shape();
    shaped.data.emplace_back(size_t(shaped.decls[t].elements() * dtype_size(shaped.decls[t].dtype)), 0);
  }
  shaped.fill_inputs(seed);
  for (size_t t = 0; t < gm.decls.size(); ++t) {
    if (!given_by_host(gm.decls[t].role)) continue;
    const codegen::TensorLayout* l = codegen::find_layout(layouts, gm.decls[t].name);
    if (!l) {
      gm.data[t] = std::move(shaped.data[t]);
      continue;
    }
    gm.data[t] = l->to_device(shaped.data[t]);
    logical[gm.decls[t].name] = std::move(shaped.data[t]);
  }
  return logical;
}

}  // namespace

Conversion convert(const codegen::TensorLayout& l, bool to_device, const std::vector<uint8_t>& from,
                   const std::vector<uint8_t>& host, const ChipConfig& chip, const SimOptions& options) {
  Conversion c{l, to_device};
  if (!codegen::transdata_on_device(l)) return c;
  c.emulated = true;
  Program p = codegen::compile_transdata(l, to_device, chip);
  const bool data = !options.timing_only && !from.empty();
  GlobalMemory gm = data ? GlobalMemory::for_program(p) : GlobalMemory::shape_only(p);
  if (data) gm.bytes(codegen::transdata_source(l, to_device)) = from;
  SimOptions o = options;
  o.trace = false;
  o.timing_only = !data;
  SimResult r = simulate(chip, p, gm, o);
  c.cycles = r.report.cycles;
  c.clean = r.report.clean();
  if (data) c.matches_host = gm.bytes(codegen::transdata_result(l, to_device)) == host;
  return c;
}


std::vector<uint8_t> KernelRun::result(const std::string& name) const {
  const std::vector<uint8_t>& bytes = gm.bytes(name);  // a user error without data (timing-only)
  const codegen::TensorLayout* l = codegen::find_layout(layouts, name);
  return l ? l->to_host(bytes) : bytes;
}

namespace {

// The most terms one sum of e's Func graph adds (its reduction variables' extents multiplied).
int64_t longest_sum(const dsl::Expr& e, std::set<const dsl::FuncImpl*>& seen) {
  const dsl::ExprNode& n = e.node();
  int64_t most = 1;
  if (n.op == dsl::Op::Sum) {
    for (const auto& r : dsl::rvars_of(n.args[0])) most *= std::max<int64_t>(1, r->extent);
  }
  if (n.op == dsl::Op::Func && seen.insert(n.func.get()).second) most = std::max(most, longest_sum(n.func->value, seen));
  for (const dsl::Expr& a : n.args) most = std::max(most, longest_sum(a, seen));
  return most;
}

// The type of the first input e reads (f32 when none).
DType first_input_type(const dsl::Expr& e, std::set<const dsl::FuncImpl*>& seen) {
  const dsl::ExprNode& n = e.node();
  if (n.input) return n.input->dtype;
  if (n.op == dsl::Op::Func) return seen.insert(n.func.get()).second ? first_input_type(n.func->value, seen) : DType::f32;
  for (const dsl::Expr& a : n.args)
    if (DType t = first_input_type(a, seen); t != DType::f32) return t;
  return DType::f32;
}
DType first_input_type(const dsl::Expr& e) {
  std::set<const dsl::FuncImpl*> seen;  // each Func read once (a chain calling each Func twice was 2^N reads)
  return first_input_type(e, seen);
}

struct Tolerance {
  double atol = -1, rtol = -1;  // < 0: the dtype's (compare)
};

// An f32 result summed from n terms differs from the reference's sum in order by up to about n
// of f32's ulps of the terms (the chip sums in another order: the cube in fractals, the vector unit
// in lanes), so its absolute tolerance grows with n, as the CLI's does (tools/cmd_kernel.cpp).
// Flash attention's f32 O is compared at its inputs' precision: the cube multiplies the
// probabilities by V in that type, where the Func's reference keeps them in f32.
Tolerance default_tolerance(const dsl::Func& f) {
  if (f.type().dtype != DType::f32) return {};
  if (sched::is_attention(f)) {
    const DType in = first_input_type(f.impl->value);
    return {-1, in == DType::bf16 ? 0x1p-6 : 1e-2};  // compare's rtol for bf16 and f16
  }
  std::set<const dsl::FuncImpl*> seen;
  return {std::max(1e-4, double(longest_sum(f.impl->value, seen)) * 0x1p-23), -1};
}

}  // namespace

Comparison compare(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, DType dtype, double atol,
                   double rtol) {
  const int size = dtype_size(dtype);
  if (got.size() != want.size() || got.size() % size_t(size))
    user_error("compare: the results are {} and {} bytes; give two {} tensors of the same size (a whole number of {}-byte "
               "elements each)", got.size(), want.size(), dtype_name(dtype), size);
  Comparison c;
  c.bit_exact = got == want;
  // f16: about ten of its ulps (2^-10); bf16: two of its ulps (2^-7 each, relative at worst).
  c.rtol = rtol >= 0 ? rtol : !is_float(dtype) ? 0 : dtype == DType::f16 ? 1e-2 : dtype == DType::bf16 ? 0x1p-6 : 1e-4;
  c.atol = atol >= 0 ? atol : c.rtol;
  const size_t n = got.size() / size_t(size);
  for (size_t i = 0; i < n; ++i) {
    double g = isa::load_as_double(got.data() + i * size_t(size), dtype);
    double w = isa::load_as_double(want.data() + i * size_t(size), dtype);
    double err = element_error(g, w);
    c.max_abs = std::max(c.max_abs, err);
    if (w != 0 && std::isfinite(w)) c.max_rel = std::max(c.max_rel, err / std::fabs(w));
    if (err != 0 && !(std::isfinite(err) && err <= c.atol + c.rtol * std::fabs(w))) ++c.mismatches;
  }
  c.pass = c.mismatches == 0;
  return c;
}

KernelRun compile_and_run(const dsl::Func& f, const ChipConfig& chip, const RunSettings& s) {
  return compile_and_run(std::vector<dsl::Func>{f}, chip, s);
}

KernelRun compile_and_run(const std::vector<dsl::Func>& outputs, const ChipConfig& chip, const RunSettings& s) {
  KernelRun run;
  codegen::Compiled compiled = codegen::compile(outputs, chip);
  run.program = std::move(compiled.program);  // its lines numbered as `cubekit compile` prints it
  run.compile_ms = compiled.milliseconds;
  const bool data = !s.sim.timing_only || s.inputs;
  if (data && s.reference && !s.sim.timing_only) {  // the Halide reference's results besides GM
    int64_t bytes = 0;
    for (const TensorDecl& t : run.program.tensors) bytes += t.bytes() * (t.role == TensorRole::Out ? 2 : 1);
    check_host_memory(bytes, available_host_memory(),
                      fmt::format("the GM tensors of kernel '{}' and the reference's results", run.program.name));
  }
  run.gm = data ? GlobalMemory::for_program(run.program) : GlobalMemory::shape_only(run.program);
  run.layouts = compiled.layouts;
  // Timing never depends on data (no instruction loads GM into a scalar register): a timing-only
  // run needs no inputs, and filling big ones cost more than simulating.
  std::map<std::string, std::vector<uint8_t>> shaped;
  if (!s.sim.timing_only) shaped = seeded_inputs(run.gm, run.layouts, s.seed);
  if (s.inputs) {
    s.inputs(run.gm);
    // They were set in GM's layouts: the reference reads what they mean in the Func's shape (each
    // layout converts back: feature maps, weights, padded vectors).
    for (const codegen::TensorLayout& l : run.layouts)
      if (shaped.count(l.tensor)) shaped[l.tensor] = l.to_host(run.gm.bytes(l.tensor));
  }
  // The feature maps' conversions in (TransData), then the kernel, then the output's conversion back.
  const std::vector<uint8_t> none;
  auto bytes_of = [&](int t) -> const std::vector<uint8_t>& { return run.gm.has_data() ? run.gm.data[size_t(t)] : none; };
  for (const codegen::TensorLayout& l : run.layouts) {
    const int t = run.gm.index(l.tensor);
    if (run.gm.decls[size_t(t)].role != TensorRole::In) continue;
    auto it = shaped.find(l.tensor);
    run.conversions.push_back(convert(l, true, it == shaped.end() ? none : it->second, bytes_of(t), chip, s.sim));
  }
  auto convert_out = [&] {
    for (const codegen::TensorLayout& l : run.layouts) {
      const int t = run.gm.index(l.tensor);
      if (run.gm.decls[size_t(t)].role != TensorRole::Out) continue;
      const std::vector<uint8_t>& device = bytes_of(t);
      const bool data = !s.sim.timing_only && l.kind == codegen::TensorLayout::Kind::NC1HWC0;
      run.conversions.push_back(convert(l, false, data ? device : std::vector<uint8_t>{}, data ? l.to_host(device) : std::vector<uint8_t>{},
                                        chip, s.sim));
    }
  };
  if (!s.reference || s.sim.timing_only) {
    run.sim = simulate(chip, run.program, run.gm, s.sim);
    convert_out();
    return run;
  }
  // The reference needs only the inputs: it compiles and runs on its own thread while the emulator
  // runs (Halide's JIT compile is single-threaded, the emulation rarely keeps every core busy). It
  // reads the In tensors in place (the emulator never writes them) and copies of InOut ones.
  std::map<std::string, const std::vector<uint8_t>*> inputs;
  std::vector<std::unique_ptr<std::vector<uint8_t>>> copies;
  for (size_t t = 0; t < run.gm.decls.size(); ++t) {
    if (!given_by_host(run.gm.decls[t].role)) continue;
    const std::vector<uint8_t>* bytes = &run.gm.data[t];
    if (run.gm.decls[t].role == TensorRole::InOut) bytes = copies.emplace_back(std::make_unique<std::vector<uint8_t>>(*bytes)).get();
    if (auto it = shaped.find(run.gm.decls[t].name); it != shaped.end()) bytes = &it->second;
    inputs[run.gm.decls[t].name] = bytes;
  }
  std::future<std::vector<dsl::HostTensor>> reference = std::async(std::launch::async, [&] {
    std::vector<dsl::HostTensor> want;
    for (const dsl::Func& o : outputs) want.push_back(dsl::run_on_host(o, inputs));
    return want;
  });
  try {
    run.sim = simulate(chip, run.program, run.gm, s.sim);
  } catch (...) {
    reference.wait();  // it reads run.gm
    throw;
  }
  std::vector<dsl::HostTensor> want = reference.get();
  convert_out();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tolerance t = s.atol >= 0 ? Tolerance{s.atol, -1} : default_tolerance(outputs[i]);
    const std::vector<uint8_t> got = run.result(outputs[i].name());
    CUBEKIT_ASSERT(got.size() == want[i].data.size(), "{}: the kernel's result is {} bytes, the reference's {}",
                   outputs[i].name(), got.size(), want[i].data.size());
    Comparison c = compare(got, want[i].data, want[i].dtype, t.atol, t.rtol);
    if (i == 0) {
      run.check = c;
      continue;
    }
    run.check.max_abs = std::max(run.check.max_abs, c.max_abs), run.check.max_rel = std::max(run.check.max_rel, c.max_rel);
    run.check.mismatches += c.mismatches, run.check.bit_exact = run.check.bit_exact && c.bit_exact;
    run.check.pass = run.check.pass && c.pass;
  }
  run.checked = true;
  return run;
}

}  // namespace cubekit::kernels
