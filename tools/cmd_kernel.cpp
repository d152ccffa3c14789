// `cubekit kernel NAME ...`: compile a ready kernel, run it on seeded random inputs, check it
// against the Halide reference and report; `cubekit compile NAME ... -o FILE.s` writes the program.
// NAME is matmul, conv2d or attention (the cube), max_pool2d / avg_pool2d / global_avg_pool2d or one of the
// vector kernels (add, softmax, layernorm, ...).
#include "codegen/lower.h"
#include "emulator/error.h"
#include "kernels/attention.h"
#include "kernels/check.h"
#include "kernels/conv.h"
#include "kernels/matmul.h"
#include "kernels/pool.h"
#include "kernels/vector.h"
#include "tools/commands.h"
#include "tools/kernel_args.h"
#include "tools/kernel_run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>

namespace cubekit::cli {

namespace {

// ---- matmul ----


std::string matmul_headline(const kernels::MatmulOptions& o) {
  return fmt::format("matmul {}{}x{}x{} {} -> {}{}{}{}", o.batch ? fmt::format("{} x ", o.batch) : "", o.m, o.n, o.k,
                     dtype_name(o.in), dtype_name(o.out), o.transpose_a ? ", A transposed" : "",
                     o.transpose_b ? ", B transposed" : "",
                     o.epilogue.empty() ? "" : fmt::format(", epilogue {}", fmt::join(o.epilogue, ",")));
}

int run_matmul(const MatmulArgs& a) {
  kernels::MatmulOptions o = options_of(a);
  kernels::Matmul mm = kernels::matmul(o, load_chip(a.chip));
  double atol = o.in == DType::s8 ? 0 : (o.out == DType::f16 ? 1e-2 : std::max(1e-4, double(o.k) * 0x1p-23));
  nlohmann::json extra = {{"kernel", "matmul"}, {"shape", {{"m", o.m}, {"n", o.n}, {"k", o.k}, {"batch", o.batch}}},
                          {"dtype", dtype_name(o.in)}, {"out", dtype_name(o.out)}, {"epilogue", o.epilogue},
                          {"transpose_a", o.transpose_a}, {"transpose_b", o.transpose_b}};
  double flops = 2.0 * double(std::max<int64_t>(o.batch, 1)) * double(o.m) * double(o.n) * double(o.k);
  return run_kernel({mm.out}, a, matmul_headline(o), atol, extra, flops, mm.tuned);
}

// ---- conv2d ----


std::string conv_headline(const kernels::Conv2dOptions& o) {
  return fmt::format("conv2d {}x{}x{}x{} * {}x{}x{}x{} stride {} pad {} dilation {} {} -> {}{}", o.n, o.c, o.h, o.w, o.k,
                     o.c / o.groups, o.kh, o.kw, o.stride, o.pad, o.dilation, dtype_name(o.in), dtype_name(o.out),
                     o.epilogue.empty() ? "" : fmt::format(", epilogue {}", fmt::join(o.epilogue, ",")));
}

int run_conv(const ConvArgs& a) {
  kernels::Conv2dOptions o = options_of(a);
  kernels::Conv2d cv = kernels::conv2d(o, load_chip(a.chip));
  int64_t oh = kernels::conv_output_extent(o.h, o.kh, o.stride, o.pad, o.dilation);
  int64_t ow = kernels::conv_output_extent(o.w, o.kw, o.sw(), o.pw(), o.dw());
  int64_t reduce = o.c / o.groups * o.kh * o.kw;
  double atol = o.in == DType::s8 ? 0 : (o.out == DType::f16 ? 1e-2 : std::max(1e-4, double(reduce) * 0x1p-23));
  nlohmann::json extra = {{"kernel", "conv2d"}, {"shape", {{"n", o.n}, {"c", o.c}, {"h", o.h}, {"w", o.w}, {"k", o.k}, {"kh", o.kh}, {"kw", o.kw},
                                     {"oh", oh}, {"ow", ow}, {"stride", o.stride}, {"pad", o.pad},
                                     {"dilation", o.dilation}, {"groups", o.groups}}},
                          {"dtype", dtype_name(o.in)}, {"out", dtype_name(o.out)}, {"epilogue", o.epilogue}};
  double flops = 2.0 * double(o.n) * double(o.k) * double(oh) * double(ow) * double(reduce);
  return run_kernel(cv.outputs(), a, conv_headline(o), atol, extra, flops, cv.tuned);
}

// ---- attention ----


// Every option that changes what is computed: the shapes, and the scores' modifications.
std::string attention_headline(const kernels::AttentionOptions& o) {
  return fmt::format("attention batch {} heads {}/{} seq {} x {} dim {}{} {}", o.batch, o.heads, o.kv_heads ? o.kv_heads : o.heads,
                     o.seq_q, o.seq_kv ? o.seq_kv : o.seq_q, o.dim, o.causal ? " causal" : "", dtype_name(o.dtype)) +
         (o.mask.empty() ? "" : fmt::format(" mask [{}]", fmt::join(o.mask, ", "))) +
         (o.window ? fmt::format(" window {}", o.window) : "") + (o.scale ? fmt::format(" scale {}", o.scale) : "") +
         (o.softcap ? fmt::format(" softcap {}", o.softcap) : "") + (o.alibi ? " alibi" : "") + (o.lse ? " lse" : "");
}

int run_attention(const AttentionArgs& a) {
  kernels::AttentionOptions o = options_of(a);
  const ChipConfig chip = load_chip(a.chip);
  kernels::Attention at = kernels::attention(o, chip);
  const int64_t seq_kv = o.seq_kv ? o.seq_kv : o.seq_q;
  const int64_t tile_q = at.tile_q, tile_kv = at.tile_kv;  // the tiles attention() gave flash()
  nlohmann::json extra = {{"kernel", "attention"}, {"shape", {{"batch", o.batch}, {"heads", o.heads}, {"kv_heads", o.kv_heads ? o.kv_heads : o.heads},
                                     {"seq_q", o.seq_q}, {"seq_kv", seq_kv}, {"dim", o.dim}, {"causal", o.causal},
                                     {"dtype", dtype_name(o.dtype)}, {"mask", o.mask}, {"window", o.window},
                                     {"scale", o.scale ? o.scale : 1.0 / std::sqrt(double(o.dim))}, {"softcap", o.softcap},
                                     {"alibi", o.alibi}, {"lse", o.lse}}},
                          {"tiles", {{"q", tile_q}, {"kv", tile_kv}}}, {"preload", at.preload}};
  return run_kernel(at.outputs(), a, fmt::format("{}, flash {} x {}, preload {}", attention_headline(o), tile_q, tile_kv, at.preload), -1, extra, kernels::attention_flops(o),
                    at.tuned);
}

// ---- pooling: max_pool2d, avg_pool2d, global_avg_pool2d ----

struct PoolArgs : RunArgs {
  std::string name;
  int64_t n = 1, c = 0, h = 0, w = 0, kernel = 3, stride = 0, pad = 0, dilation = 1, rows = 0;
  std::string dtype = "f16", double_buffer, cores;
};

kernels::Pool2dOptions options_of(const PoolArgs& a) {
  kernels::Pool2dOptions o;
  o.kind = a.name == "max_pool2d" ? kernels::Pool2dOptions::Kind::Max : kernels::Pool2dOptions::Kind::Avg;
  o.global = a.name == "global_avg_pool2d";
  o.n = a.n, o.c = a.c, o.h = a.h, o.w = a.w, o.kh = a.kernel, o.stride = a.stride, o.pad = a.pad, o.dilation = a.dilation;
  o.dtype = dtype_option(a.dtype, "--dtype");
  if (o.dtype != DType::f16 && o.dtype != DType::f32) user_error("--dtype must be f16 or f32 for {}, got '{}'", a.name, a.dtype);
  o.schedule = naive_schedule(a) ? kernels::Pool2dOptions::Schedule::Naive : kernels::Pool2dOptions::Schedule::Default;
  o.rows = a.rows;
  o.double_buffer = on_off(a.double_buffer, "--double-buffer");
  o.use_cores = on_off(a.cores, "--cores");
  return o;
}

void add_pool_options(CLI::App* cmd, PoolArgs& a) {
  cmd->add_option("--n", a.n, "images")->capture_default_str();
  cmd->add_option("--c", a.c, "channels")->required();
  cmd->add_option("--h", a.h, "input height")->required();
  cmd->add_option("--w", a.w, "input width")->required();
  if (a.name != "global_avg_pool2d") {
    cmd->add_option("--kernel", a.kernel, "window size (both axes)")->capture_default_str();
    cmd->add_option("--stride", a.stride, "stride (both axes; 0, the default: the window)");
    cmd->add_option("--pad", a.pad, a.name == "avg_pool2d" ? "padding (both axes, both sides; at most half the window; its "
                                                             "zeros count in the average, as torch's count_include_pad)"
                                                           : "padding (both axes, both sides; at most half the window)")
        ->capture_default_str();
    if (a.name == "max_pool2d") cmd->add_option("--dilation", a.dilation, "dilation (both axes)")->capture_default_str();
  }
  cmd->add_option("--dtype", a.dtype, "input and result type: f16 or f32")->capture_default_str();
  cmd->add_option("--rows", a.rows, "override: output rows per tile");
  cmd->add_option("--double-buffer", a.double_buffer, "override: on or off");
  cmd->add_option("--cores", a.cores, "override: spread tiles over all cores, on or off");
  add_run_options(cmd, a);
}

std::string pool_headline(const PoolArgs& a, const kernels::Pool2dOptions& o) {
  if (o.global) return fmt::format("{} {}x{}x{}x{} {}", a.name, o.n, o.c, o.h, o.w, dtype_name(o.dtype));
  return fmt::format("{} {}x{}x{}x{} window {} stride {} pad {}{} {}", a.name, o.n, o.c, o.h, o.w, o.kh, o.sh(), o.pad,
                     o.dilation > 1 ? fmt::format(" dilation {}", o.dilation) : "", dtype_name(o.dtype));
}

int run_pool(const PoolArgs& a) {
  kernels::Pool2dOptions o = options_of(a);
  kernels::Pool2d p = kernels::pool2d(o, load_chip(a.chip));
  nlohmann::json extra = {{"kernel", a.name}, {"dtype", dtype_name(o.dtype)},
                          {"shape", {{"n", o.n}, {"c", o.c}, {"h", o.h}, {"w", o.w}, {"oh", p.oh}, {"ow", p.ow}}}};
  if (!o.global) extra["shape"].update({{"kernel", o.kh}, {"stride", o.sh()}, {"pad", o.pad}, {"dilation", o.dilation}});
  return run_kernel({p.out}, a, pool_headline(a, o), -1, extra, 0);
}

// ---- the vector kernels ----


// A cast to an integer type runs on floats spread over half as much again as the type's range
// (f16's largest where that is less): on [-1, 1) every result was 0 or -0, and the check against
// Halide compared zeros, never the rounding or the saturation.
double cast_input_scale(const kernels::VectorOptions& o) {
  const double range = o.to == DType::s8 ? 128 : o.to == DType::u8 ? 255 : o.to == DType::s16 ? 32768
                     : o.to == DType::u16 ? 65535 : 2147483648.0;
  return std::min(1.5 * range, largest_finite(o.dtype));
}

std::string vector_headline(const VectorArgs& a, const kernels::VectorOptions& o) {
  std::string y = o.scalar ? fmt::format(" with {}", *o.scalar)
                : o.y_shape.empty() ? "" : fmt::format(" with [{}]", fmt::join(o.y_shape, ", "));
  // Y of another type: both types and the result's (the wider), which the line once hid.
  if (o.y_dtype && *o.y_dtype != o.dtype && !o.scalar) {
    const DType wider = dtype_size(*o.y_dtype) > dtype_size(o.dtype) ? *o.y_dtype : o.dtype;
    return fmt::format("{} [{}] {}{} {} -> {}", a.name, fmt::join(o.shape, ", "), dtype_name(o.dtype),
                       y.empty() ? " with Y" : y, dtype_name(*o.y_dtype), dtype_name(wider));
  }
  if (a.name == "cast")
    return fmt::format("cast [{}] {} -> {}{}", fmt::join(o.shape, ", "), dtype_name(o.dtype), dtype_name(o.to),
                       is_float(o.to) ? "" : fmt::format(", inputs in [-{0}, {0})", cast_input_scale(o)));
  return fmt::format("{} [{}]{} {}", a.name, fmt::join(o.shape, ", "), y, dtype_name(o.dtype));
}

int run_vector(const VectorArgs& a) {
  kernels::VectorOptions o = options_of(a);
  kernels::VectorKernel k = kernels::vector_kernel(a.name, o, load_chip(a.chip));
  RunArgs run = a;
  if (a.name == "cast" && !is_float(o.to)) run.input_scale = cast_input_scale(o);
  nlohmann::json extra = {{"kernel", a.name}, {"shape", o.shape}, {"dtype", dtype_name(o.dtype)}};
  if (a.name == "cast") extra["to"] = dtype_name(o.to);
  if (kernels::is_binary_kernel(a.name)) {
    if (o.scalar) extra["scalar"] = *o.scalar;
    else extra["y_shape"] = o.y_shape.empty() ? o.shape : o.y_shape;
    if (o.y_dtype && !o.scalar) extra["y_dtype"] = dtype_name(*o.y_dtype);
  }
  return run_kernel({k.out}, run, vector_headline(a, o), -1, extra, 0, k.tuned);
}

// KernelAction::Validate: everything the CLI checks and builds before it runs `f` or writes a file.
}  // namespace

void add_kernel(CLI::App& app, int& exit_code, KernelAction action, const Chosen& chosen) {
  const bool run = action == KernelAction::Run;
  auto* kernel = app.add_subcommand("kernel", "compile a ready kernel, run it, check it against Halide, report");
  kernel->require_subcommand(1);
  auto* compile = app.add_subcommand("compile", "compile a ready kernel to a program (.s)");
  compile->require_subcommand(1);
  std::vector<std::string> names = {"matmul", "conv2d", "attention", "max_pool2d", "avg_pool2d", "global_avg_pool2d"};
  for (const std::string& name : kernels::vector_kernel_names()) names.push_back(name);
  auto in_kernel = [&](std::string_view name) { return chosen.wants("kernel", name, names); };
  auto in_compile = [&](std::string_view name) { return chosen.wants("compile", name, names); };

  if (in_kernel("matmul")) {
    auto ma = std::make_shared<MatmulArgs>();
    auto* mm = kernel->add_subcommand("matmul", "C = A x B on the cube, optionally with a fused epilogue");
    options_when_chosen(mm, [ma](CLI::App* c) { add_matmul_options(c, *ma); });
    mm->callback([ma, run, &exit_code] {
      if (run) exit_code = run_matmul(*ma);
      else exit_code = validate_kernel({kernels::matmul(options_of(*ma), load_chip(ma->chip)).out}, *ma);
    });
  }
  if (in_compile("matmul")) {
    auto ca = std::make_shared<MatmulArgs>();
    auto* cm = compile->add_subcommand("matmul", "C = A x B on the cube");
    options_when_chosen(cm, [ca](CLI::App* c) {
      add_matmul_options(c, *ca);
      drop_run_only_options(c);
      c->add_option("-o,--output", ca->output, "the program file to write (- for standard output)")->required();
    });
    cm->callback([ca, run, &exit_code] {
      kernels::MatmulOptions o = options_of(*ca);
      kernels::Matmul mm = kernels::matmul(o, load_chip(ca->chip));
      exit_code = run ? compile_kernel({mm.out}, *ca, matmul_headline(o), mm.tuned) : validate_kernel({mm.out}, *ca);
    });
  }

  if (in_kernel("conv2d")) {
    auto cva = std::make_shared<ConvArgs>();
    auto* cvk = kernel->add_subcommand("conv2d", "2-D convolution on the cube (NCHW in and out, an implicit GEMM by load3d)");
    options_when_chosen(cvk, [cva](CLI::App* c) { add_conv_options(c, *cva); });
    cvk->callback([cva, run, &exit_code] {
      if (run) exit_code = run_conv(*cva);
      else exit_code = validate_kernel(kernels::conv2d(options_of(*cva), load_chip(cva->chip)).outputs(), *cva);
    });
  }
  if (in_compile("conv2d")) {
    auto cvc = std::make_shared<ConvArgs>();
    auto* cvcc = compile->add_subcommand("conv2d", "2-D convolution on the cube");
    options_when_chosen(cvcc, [cvc](CLI::App* c) {
      add_conv_options(c, *cvc);
      drop_run_only_options(c);
      c->add_option("-o,--output", cvc->output, "the program file to write (- for standard output)")->required();
    });
    cvcc->callback([cvc, run, &exit_code] {
      kernels::Conv2dOptions o = options_of(*cvc);
      kernels::Conv2d cv = kernels::conv2d(o, load_chip(cvc->chip));
      exit_code = run ? compile_kernel(cv.outputs(), *cvc, conv_headline(o), cv.tuned) : validate_kernel(cv.outputs(), *cvc);
    });
  }

  if (in_kernel("attention")) {
    auto aa = std::make_shared<AttentionArgs>();
    auto* ak = kernel->add_subcommand("attention", "softmax(scale Q Kᵀ) V as flash attention (torch's scaled_dot_product_attention)");
    options_when_chosen(ak, [aa](CLI::App* c) { add_attention_options(c, *aa); });
    ak->callback([aa, run, &exit_code] {
      if (run) exit_code = run_attention(*aa);
      else exit_code = validate_kernel(kernels::attention(options_of(*aa), load_chip(aa->chip)).outputs(), *aa);
    });
  }
  if (in_compile("attention")) {
    auto ac = std::make_shared<AttentionArgs>();
    auto* acc = compile->add_subcommand("attention", "flash attention");
    options_when_chosen(acc, [ac](CLI::App* c) {
      add_attention_options(c, *ac);
      drop_run_only_options(c);
      c->add_option("-o,--output", ac->output, "the program file to write (- for standard output)")->required();
    });
    acc->callback([ac, run, &exit_code] {
      kernels::AttentionOptions o = options_of(*ac);
      kernels::Attention at = kernels::attention(o, load_chip(ac->chip));
      exit_code = run ? compile_kernel(at.outputs(), *ac, attention_headline(o), at.tuned) : validate_kernel(at.outputs(), *ac);
    });
  }

  for (const char* name : {"max_pool2d", "avg_pool2d", "global_avg_pool2d"}) {
    const char* what = name[0] == 'm' ? "2-D max pooling on the vector unit (NCHW in and out, NC1HWC0 inside)"
                     : name[0] == 'a' ? "2-D average pooling on the vector unit (NCHW in and out, NC1HWC0 inside)"
                                      : "the average over each channel's map (adaptive_avg_pool2d(x, 1)) on the vector unit";
    if (in_kernel(name)) {
      auto pa = std::make_shared<PoolArgs>();
      pa->name = name;
      auto* pk = kernel->add_subcommand(name, what);
      options_when_chosen(pk, [pa](CLI::App* c) { add_pool_options(c, *pa); });
      pk->callback([pa, run, &exit_code] {
        if (run) exit_code = run_pool(*pa);
        else exit_code = validate_kernel({kernels::pool2d(options_of(*pa), load_chip(pa->chip)).out}, *pa);
      });
    }
    if (in_compile(name)) {
      auto pc = std::make_shared<PoolArgs>();
      pc->name = name;
      auto* pcc = compile->add_subcommand(name, what);
      options_when_chosen(pcc, [pc](CLI::App* c) {
        add_pool_options(c, *pc);
        drop_run_only_options(c);
        c->add_option("-o,--output", pc->output, "the program file to write (- for standard output)")->required();
      });
      pcc->callback([pc, run, &exit_code] {
        kernels::Pool2dOptions o = options_of(*pc);
        kernels::Pool2d p = kernels::pool2d(o, load_chip(pc->chip));
        exit_code = run ? compile_kernel({p.out}, *pc, pool_headline(*pc, o)) : validate_kernel({p.out}, *pc);
      });
    }
  }

  for (const std::string& name : kernels::vector_kernel_names()) {
    if (in_kernel(name)) {
      auto va = std::make_shared<VectorArgs>();
      va->name = name;
      auto* vk = kernel->add_subcommand(name, fmt::format("{} on the vector unit", name));
      options_when_chosen(vk, [va](CLI::App* c) { add_vector_options(c, *va); });
      vk->callback([va, run, &exit_code] {
        if (run) exit_code = run_vector(*va);
        else exit_code = validate_kernel({kernels::vector_kernel(va->name, options_of(*va), load_chip(va->chip)).out}, *va);
      });
    }
    if (in_compile(name)) {
      auto vc = std::make_shared<VectorArgs>();
      vc->name = name;
      auto* vcc = compile->add_subcommand(name, fmt::format("{} on the vector unit", name));
      options_when_chosen(vcc, [vc](CLI::App* c) {
        add_vector_options(c, *vc);
        drop_run_only_options(c);
        c->add_option("-o,--output", vc->output, "the program file to write (- for standard output)")->required();
      });
      vcc->callback([vc, run, &exit_code] {
        kernels::VectorOptions o = options_of(*vc);
        kernels::VectorKernel k = kernels::vector_kernel(vc->name, o, load_chip(vc->chip));
        exit_code = run ? compile_kernel({k.out}, *vc, vector_headline(*vc, o), k.tuned) : validate_kernel({k.out}, *vc);
      });
    }
  }
}

}  // namespace cubekit::cli
