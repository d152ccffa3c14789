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
#include "tools/kernel_run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>

namespace cubekit::cli {

namespace {

// ---- matmul ----

struct MatmulArgs : RunArgs {
  int64_t m = 0, n = 0, k = 0, batch = 0;
  std::string dtype = "f16", out;
  bool transpose_a = false, transpose_b = false;
  int64_t tm = 0, tn = 0, tk_l0 = 0, tk_l1 = 0, group = 0;
  int l1_copies = 0;
  std::string double_buffer, cores, stagger;  // "on", "off" or "" (the schedule's choice)
  std::vector<std::string> epilogue;
  double scale = 1.0;
};

kernels::MatmulOptions options_of(const MatmulArgs& a) {
  kernels::MatmulOptions o;
  o.m = a.m, o.n = a.n, o.k = a.k, o.batch = a.batch;
  if (a.dtype == "f16") o.in = DType::f16;
  else if (a.dtype == "s8") o.in = DType::s8;
  else user_error("--dtype must be f16 or s8, got '{}'", a.dtype);
  o.out = dtype_option(a.out.empty() ? (o.in == DType::s8 ? "s32" : "f32") : a.out, "--out");
  o.transpose_a = a.transpose_a;
  o.transpose_b = a.transpose_b || o.in == DType::s8;  // s8 needs B stored (n, k)
  o.schedule = naive_schedule(a) ? kernels::MatmulOptions::Schedule::Naive : kernels::MatmulOptions::Schedule::Default;
  o.tm = a.tm, o.tn = a.tn, o.tk_l0 = a.tk_l0, o.tk_l1 = a.tk_l1, o.core_group = a.group;
  o.l1_copies = a.l1_copies;
  o.double_buffer = on_off(a.double_buffer, "--double-buffer");
  o.use_cores = on_off(a.cores, "--cores");
  o.stagger = on_off(a.stagger, "--stagger");
  o.epilogue = a.epilogue;
  o.scale = a.scale;
  return o;
}

void add_matmul_options(CLI::App* cmd, MatmulArgs& a) {
  cmd->add_option("--m", a.m, "rows of A and C")->required();
  cmd->add_option("--n", a.n, "columns of B and C")->required();
  cmd->add_option("--k", a.k, "columns of A, rows of B")->required();
  cmd->add_option("--batch", a.batch, "batch count (0: no batch dimension)");
  cmd->add_option("--dtype", a.dtype, "input type: f16 or s8 (s8 takes B stored as [n, k])")->capture_default_str();
  cmd->add_option("--out", a.out, "result type: f32 or f16 for f16 inputs, s32 for s8 (default f32 / s32)");
  cmd->add_flag("--transpose-a", a.transpose_a, "A is stored [k, m]");
  cmd->add_flag("--transpose-b", a.transpose_b, "B is stored [n, k]");
  cmd->add_option("--epilogue", a.epilogue, "fused on the way out of L0C: bias, scale, relu, gelu (comma-separated, applied in that order: relu,bias is relu(AB)+bias)")
      ->delimiter(',');
  cmd->add_option("--scale", a.scale, "the epilogue's scale")->capture_default_str();
  cmd->add_option("--tm", a.tm, "override: rows of the output tile (L0C)");
  cmd->add_option("--tn", a.tn, "override: columns of the output tile (L0C)");
  cmd->add_option("--tk-l0", a.tk_l0, "override: k per L0A/L0B fill");
  cmd->add_option("--tk-l1", a.tk_l1, "override: k per L1 fill");
  cmd->add_option("--group", a.group, "override: hand out m tiles to the cores this many at a time");
  cmd->add_option("--l1-copies", a.l1_copies, "override: copies of the L1 buffers (fills run copies - 1 ahead)");
  cmd->add_option("--double-buffer", a.double_buffer, "override: on or off");
  cmd->add_option("--cores", a.cores, "override: spread tiles over all cores, on or off");
  cmd->add_option("--stagger", a.stagger, "override: rotate each tile's k chunks, on or off");
  add_run_options(cmd, a);
}

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
  nlohmann::json extra = {{"shape", {{"m", o.m}, {"n", o.n}, {"k", o.k}, {"batch", o.batch}}}};
  double flops = 2.0 * double(std::max<int64_t>(o.batch, 1)) * double(o.m) * double(o.n) * double(o.k);
  return run_kernel({mm.out}, a, matmul_headline(o), atol, extra, flops);
}

// ---- conv2d ----

struct ConvArgs : RunArgs {
  int64_t n = 1, c = 0, h = 0, w = 0, k = 0, kh = 3, kw = 3, stride = 1, pad = 0, dilation = 1, groups = 1;
  std::string dtype = "f16", out;
  int64_t rows = 0, tn = 0, channels = 0, images = 0;
  int l1_copies = 0;
  std::string double_buffer, cores;
  std::vector<std::string> epilogue;
  int64_t subsampled = 0;
};

kernels::Conv2dOptions options_of(const ConvArgs& a) {
  kernels::Conv2dOptions o;
  o.n = a.n, o.c = a.c, o.h = a.h, o.w = a.w, o.k = a.k, o.kh = a.kh, o.kw = a.kw;
  o.stride = a.stride, o.pad = a.pad, o.dilation = a.dilation, o.groups = a.groups;
  o.in = dtype_option(a.dtype, "--dtype");
  if (o.in != DType::f16 && o.in != DType::s8 && o.in != DType::bf16)
    user_error("--dtype must be f16, bf16 or s8 for conv2d, got '{}'", a.dtype);
  o.out = dtype_option(a.out.empty() ? (o.in == DType::s8 ? "s32" : "f32") : a.out, "--out");
  o.schedule = naive_schedule(a) ? kernels::Conv2dOptions::Schedule::Naive : kernels::Conv2dOptions::Schedule::Default;
  o.rows = a.rows, o.tn = a.tn, o.channels = a.channels, o.l1_copies = a.l1_copies, o.images = a.images;
  o.double_buffer = on_off(a.double_buffer, "--double-buffer");
  o.use_cores = on_off(a.cores, "--cores");
  o.epilogue = a.epilogue;
  o.subsampled = a.subsampled;
  return o;
}

void add_conv_options(CLI::App* cmd, ConvArgs& a) {
  cmd->add_option("--n", a.n, "images")->capture_default_str();
  cmd->add_option("--c", a.c, "input channels")->required();
  cmd->add_option("--h", a.h, "input height")->required();
  cmd->add_option("--w", a.w, "input width")->required();
  cmd->add_option("--k", a.k, "output channels (filters)")->required();
  cmd->add_option("--kh", a.kh, "kernel height")->capture_default_str();
  cmd->add_option("--kw", a.kw, "kernel width")->capture_default_str();
  cmd->add_option("--stride", a.stride, "stride (both axes)")->capture_default_str();
  cmd->add_option("--pad", a.pad, "zero padding (both axes, both sides)")->capture_default_str();
  cmd->add_option("--dilation", a.dilation, "dilation (both axes)")->capture_default_str();
  cmd->add_option("--groups", a.groups, "groups (must divide c and k)")->capture_default_str();
  cmd->add_option("--dtype", a.dtype, "input type: f16, bf16 or s8 (the INT8 inference mode)")->capture_default_str();
  cmd->add_option("--out", a.out, "result type: f32 or f16 for f16/bf16 inputs, s32 for s8 (default f32 / s32)");
  cmd->add_option("--epilogue", a.epilogue, "fused on the way out of L0C: bn, residual, relu (comma-separated, in order: "
                                            "bn,residual,relu ends a ResNet block)")->delimiter(',');
  cmd->add_option("--subsampled", a.subsampled, "also write the result at every S-th row and column as a second output Ys "
                                                "(the input of a strided 1x1 conv that follows: ResNet's downsample)");
  cmd->add_option("--rows", a.rows, "override: output rows per tile");
  cmd->add_option("--tn", a.tn, "override: output channels per tile (a multiple of 16)");
  cmd->add_option("--channels", a.channels, "override: input channels per L1 fill (a multiple of C0)");
  cmd->add_option("--l1-copies", a.l1_copies, "override: copies of the L1 buffers (fills run copies - 1 ahead)");
  cmd->add_option("--images", a.images, "override: whole images stacked per tile (1x1 convolutions; 1: one per tile)");
  cmd->add_option("--double-buffer", a.double_buffer, "override: on or off");
  cmd->add_option("--cores", a.cores, "override: spread tiles over all cores, on or off");
  add_run_options(cmd, a);
}

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
  nlohmann::json extra = {{"shape", {{"n", o.n}, {"c", o.c}, {"h", o.h}, {"w", o.w}, {"k", o.k}, {"kh", o.kh}, {"kw", o.kw},
                                     {"oh", oh}, {"ow", ow}, {"stride", o.stride}, {"pad", o.pad},
                                     {"dilation", o.dilation}, {"groups", o.groups}}}};
  double flops = 2.0 * double(o.n) * double(o.k) * double(oh) * double(ow) * double(reduce);
  return run_kernel(cv.outputs(), a, conv_headline(o), atol, extra, flops);
}

// ---- attention ----

struct AttentionArgs : RunArgs {
  int64_t batch = 1, heads = 1, kv_heads = 0, seq_q = 0, seq_kv = 0, dim = 0, tile_q = 0, tile_kv = 0;
  bool causal = false, lse = false;
  double scale = 0;
  std::string dtype = "f16";
  std::vector<int64_t> mask;
};

kernels::AttentionOptions options_of(const AttentionArgs& a) {
  kernels::AttentionOptions o;
  o.batch = a.batch, o.heads = a.heads, o.kv_heads = a.kv_heads, o.seq_q = a.seq_q, o.seq_kv = a.seq_kv, o.dim = a.dim;
  o.causal = a.causal, o.scale = a.scale, o.tile_q = a.tile_q, o.tile_kv = a.tile_kv, o.lse = a.lse;
  o.mask = a.mask;
  o.dtype = dtype_option(a.dtype, "--dtype");
  if (o.dtype != DType::f16 && o.dtype != DType::bf16) user_error("--dtype must be f16 or bf16 for attention, got '{}'", a.dtype);
  if (naive_schedule(a)) user_error("--schedule naive: attention has its flash() schedule only; drop --schedule");
  return o;
}

void add_attention_options(CLI::App* cmd, AttentionArgs& a) {
  cmd->add_option("--batch", a.batch, "batch")->capture_default_str();
  cmd->add_option("--heads", a.heads, "query heads")->capture_default_str();
  cmd->add_option("--kv-heads", a.kv_heads, "K/V heads, dividing --heads (grouped-query attention; default: --heads)");
  cmd->add_option("--seq-q", a.seq_q, "queries per head")->required();
  cmd->add_option("--seq-kv", a.seq_kv, "keys per head (default: --seq-q)");
  cmd->add_option("--dim", a.dim, "head dim (a multiple of 16 up to 128)")->required();
  cmd->add_flag("--causal", a.causal, "causal mask: query i sees keys 0..i");
  cmd->add_flag("--lse", a.lse, "also write the logsumexp of the scaled scores (f32, batch x heads x seq-q)");
  cmd->add_option("--mask", a.mask,
                  "an additive f32 mask input of this shape, e.g. 1,1,512,512 or 512,512 (key padding: batch,1,1,seq-kv): the "
                  "trailing dims of (batch, heads, seq-q, seq-kv), each 1 or that extent")
      ->delimiter(',');
  cmd->add_option("--scale", a.scale, "score scale (default 1/sqrt(dim))");
  cmd->add_option("--dtype", a.dtype, "Q, K, V and the output: f16 or bf16")->capture_default_str();
  cmd->add_option("--tile-q", a.tile_q, "override: flash() query rows per tile");
  cmd->add_option("--tile-kv", a.tile_kv, "override: flash() keys per tile");
  add_run_options(cmd, a);
}

std::string attention_headline(const kernels::AttentionOptions& o) {
  return fmt::format("attention batch {} heads {}/{} seq {} x {} dim {}{} {}", o.batch, o.heads, o.kv_heads ? o.kv_heads : o.heads,
                     o.seq_q, o.seq_kv ? o.seq_kv : o.seq_q, o.dim, o.causal ? " causal" : "", dtype_name(o.dtype)) +
         (o.mask.empty() ? "" : fmt::format(" mask [{}]", fmt::join(o.mask, ", ")));
}

int run_attention(const AttentionArgs& a) {
  kernels::AttentionOptions o = options_of(a);
  const ChipConfig chip = load_chip(a.chip);
  kernels::Attention at = kernels::attention(o, chip);
  const int64_t seq_kv = o.seq_kv ? o.seq_kv : o.seq_q;
  const auto [tile_q, tile_kv] = kernels::default_attention_tiles(o, chip);  // the tiles attention() gave flash()
  nlohmann::json extra = {{"shape", {{"batch", o.batch}, {"heads", o.heads}, {"kv_heads", o.kv_heads ? o.kv_heads : o.heads},
                                     {"seq_q", o.seq_q}, {"seq_kv", seq_kv}, {"dim", o.dim}, {"causal", o.causal}}},
                          {"tiles", {{"q", tile_q}, {"kv", tile_kv}}}};
  // Two products of 2 * seq_q * seq_kv * dim each (the published kernels' count, 4 S0 S1 D); a
  // causal mask does about half.
  double flops = 4.0 * double(o.batch * o.heads) * double(o.seq_q) * double(seq_kv) * double(o.dim) * (o.causal ? 0.5 : 1.0);
  return run_kernel(at.outputs(), a, fmt::format("{}, flash {} x {}", attention_headline(o), tile_q, tile_kv), -1, extra, flops);
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
    cmd->add_option("--stride", a.stride, "stride (both axes; default: the window)");
    cmd->add_option("--pad", a.pad, "padding (both axes, both sides; at most half the window)")->capture_default_str();
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
  nlohmann::json extra = {{"shape", {{"n", o.n}, {"c", o.c}, {"h", o.h}, {"w", o.w}, {"oh", p.oh}, {"ow", p.ow}}}};
  return run_kernel({p.out}, a, pool_headline(a, o), -1, extra, 0);
}

// ---- the vector kernels ----

struct VectorArgs : RunArgs {
  std::string name;
  int64_t rows = 0, cols = 0, tile_rows = 0;
  int copies = 0;
  std::vector<int64_t> shape;
  std::string dtype = "f16", to = "f32", double_buffer, cores;
  double eps = 1e-5;
  std::vector<int64_t> y_shape;  // binary kernels: Y's shape (broadcast), or a scalar Y
  std::string y_dtype;
  std::optional<double> scalar;
};

kernels::VectorOptions options_of(const VectorArgs& a) {
  kernels::VectorOptions o;
  if (!a.shape.empty() && (a.rows || a.cols)) user_error("{}: give --shape or --rows/--cols, not both", a.name);
  if (a.shape.empty() && (a.rows < 1 || a.cols < 1))
    user_error("{}: give --rows and --cols (at least 1 each), or --shape", a.name);
  o.shape = a.shape.empty() ? std::vector<int64_t>{a.rows, a.cols} : a.shape;
  if (a.dtype != "f16" && a.dtype != "f32") user_error("--dtype must be f16 or f32 for {}, got '{}'", a.name, a.dtype);
  o.dtype = dtype_option(a.dtype, "--dtype");
  o.to = dtype_option(a.to, "--to");
  o.eps = a.eps;
  o.schedule = naive_schedule(a) ? kernels::VectorOptions::Schedule::Naive : kernels::VectorOptions::Schedule::Default;
  o.tile_rows = a.tile_rows;
  o.double_buffer = on_off(a.double_buffer, "--double-buffer");
  o.copies = a.copies;
  o.use_cores = on_off(a.cores, "--cores");
  o.y_shape = a.y_shape;
  if (!a.y_dtype.empty()) o.y_dtype = dtype_option(a.y_dtype, "--y-dtype");
  o.scalar = a.scalar;
  return o;
}

void add_vector_options(CLI::App* cmd, VectorArgs& a) {
  cmd->add_option("--rows", a.rows, "rows (all but the last dimension)");
  cmd->add_option("--cols", a.cols, "columns (the last dimension, the one reduced)");
  cmd->add_option("--shape", a.shape, "the whole shape instead, e.g. 3,5,7,300")->delimiter(',');
  cmd->add_option("--dtype", a.dtype, "input and result type: f16 or f32")->capture_default_str();
  if (a.name == "cast") cmd->add_option("--to", a.to, "the result type")->capture_default_str();
  if (a.name == "layernorm" || a.name == "rmsnorm") cmd->add_option("--eps", a.eps, "added to the variance")->capture_default_str();
  if (kernels::is_binary_kernel(a.name)) {
    cmd->add_option("--y-shape", a.y_shape, "Y's shape, broadcast with X's as numpy does (default: X's)")->delimiter(',');
    cmd->add_option("--y-dtype", a.y_dtype, "Y's type: f16 or f32 (default: --dtype; the result is the wider)");
    cmd->add_option_function<double>("--scalar", [&a](double v) { a.scalar = v; }, "Y is this constant instead of a tensor");
  }
  cmd->add_option("--tile-rows", a.tile_rows, "override: rows per UB tile");
  cmd->add_option("--double-buffer", a.double_buffer, "override: on or off");
  cmd->add_option("--copies", a.copies, "override: copies of each tile buffer, filled copies - 1 tiles ahead (2: double buffering)");
  cmd->add_option("--cores", a.cores, "override: spread tiles over all cores, on or off");
  add_run_options(cmd, a);
}

std::string vector_headline(const VectorArgs& a, const kernels::VectorOptions& o) {
  std::string y = o.scalar ? fmt::format(" with {}", *o.scalar)
                : o.y_shape.empty() ? "" : fmt::format(" with [{}]", fmt::join(o.y_shape, ", "));
  return fmt::format("{} [{}]{} {}", a.name, fmt::join(o.shape, ", "), y, dtype_name(o.dtype));
}

int run_vector(const VectorArgs& a) {
  kernels::VectorOptions o = options_of(a);
  kernels::VectorKernel k = kernels::vector_kernel(a.name, o);
  return run_kernel({k.out}, a, vector_headline(a, o), -1, {{"shape", o.shape}}, 0);
}

// KernelAction::Validate: everything the CLI checks and builds before it runs `f` or writes a file.
}  // namespace

void add_kernel(CLI::App& app, int& exit_code, KernelAction action) {
  const bool run = action == KernelAction::Run;
  auto* kernel = app.add_subcommand("kernel", "compile a ready kernel, run it, check it against Halide, report");
  kernel->require_subcommand(1);
  auto* compile = app.add_subcommand("compile", "compile a ready kernel to a program (.s)");
  compile->require_subcommand(1);

  auto ma = std::make_shared<MatmulArgs>();
  auto* mm = kernel->add_subcommand("matmul", "C = A x B on the cube, optionally with a fused epilogue");
  add_matmul_options(mm, *ma);
  mm->callback([ma, run, &exit_code] {
    if (run) exit_code = run_matmul(*ma);
    else exit_code = validate_kernel({kernels::matmul(options_of(*ma), load_chip(ma->chip)).out}, *ma);
  });
  auto ca = std::make_shared<MatmulArgs>();
  auto* cm = compile->add_subcommand("matmul", "C = A x B on the cube");
  add_matmul_options(cm, *ca);
  cm->add_option("-o,--output", ca->output, "the program file to write")->required();
  cm->callback([ca, run, &exit_code] {
    kernels::MatmulOptions o = options_of(*ca);
    kernels::Matmul mm = kernels::matmul(o, load_chip(ca->chip));
    exit_code = run ? compile_kernel({mm.out}, *ca, matmul_headline(o)) : validate_kernel({mm.out}, *ca);
  });

  auto cva = std::make_shared<ConvArgs>();
  auto* cvk = kernel->add_subcommand("conv2d", "2-D convolution on the cube (NCHW in and out, an implicit GEMM by load3d)");
  add_conv_options(cvk, *cva);
  cvk->callback([cva, run, &exit_code] {
    if (run) exit_code = run_conv(*cva);
    else exit_code = validate_kernel(kernels::conv2d(options_of(*cva), load_chip(cva->chip)).outputs(), *cva);
  });
  auto cvc = std::make_shared<ConvArgs>();
  auto* cvcc = compile->add_subcommand("conv2d", "2-D convolution on the cube");
  add_conv_options(cvcc, *cvc);
  cvcc->add_option("-o,--output", cvc->output, "the program file to write")->required();
  cvcc->callback([cvc, run, &exit_code] {
    kernels::Conv2dOptions o = options_of(*cvc);
    kernels::Conv2d cv = kernels::conv2d(o, load_chip(cvc->chip));
    exit_code = run ? compile_kernel(cv.outputs(), *cvc, conv_headline(o)) : validate_kernel(cv.outputs(), *cvc);
  });

  auto aa = std::make_shared<AttentionArgs>();
  auto* ak = kernel->add_subcommand("attention", "softmax(scale Q Kᵀ) V as flash attention (torch's scaled_dot_product_attention)");
  add_attention_options(ak, *aa);
  ak->callback([aa, run, &exit_code] {
    if (run) exit_code = run_attention(*aa);
    else exit_code = validate_kernel(kernels::attention(options_of(*aa), load_chip(aa->chip)).outputs(), *aa);
  });
  auto ac = std::make_shared<AttentionArgs>();
  auto* acc = compile->add_subcommand("attention", "flash attention");
  add_attention_options(acc, *ac);
  acc->add_option("-o,--output", ac->output, "the program file to write")->required();
  acc->callback([ac, run, &exit_code] {
    kernels::AttentionOptions o = options_of(*ac);
    kernels::Attention at = kernels::attention(o, load_chip(ac->chip));
    exit_code = run ? compile_kernel(at.outputs(), *ac, attention_headline(o)) : validate_kernel(at.outputs(), *ac);
  });

  for (const char* name : {"max_pool2d", "avg_pool2d", "global_avg_pool2d"}) {
    const char* what = name[0] == 'm' ? "2-D max pooling on the vector unit (NCHW in and out, NC1HWC0 inside)"
                     : name[0] == 'a' ? "2-D average pooling on the vector unit (NCHW in and out, NC1HWC0 inside)"
                                      : "the average over each channel's map (adaptive_avg_pool2d(x, 1)) on the vector unit";
    auto pa = std::make_shared<PoolArgs>();
    pa->name = name;
    auto* pk = kernel->add_subcommand(name, what);
    add_pool_options(pk, *pa);
    pk->callback([pa, run, &exit_code] {
      if (run) exit_code = run_pool(*pa);
      else exit_code = validate_kernel({kernels::pool2d(options_of(*pa), load_chip(pa->chip)).out}, *pa);
    });
    auto pc = std::make_shared<PoolArgs>();
    pc->name = name;
    auto* pcc = compile->add_subcommand(name, what);
    add_pool_options(pcc, *pc);
    pcc->add_option("-o,--output", pc->output, "the program file to write")->required();
    pcc->callback([pc, run, &exit_code] {
      kernels::Pool2dOptions o = options_of(*pc);
      kernels::Pool2d p = kernels::pool2d(o, load_chip(pc->chip));
      exit_code = run ? compile_kernel({p.out}, *pc, pool_headline(*pc, o)) : validate_kernel({p.out}, *pc);
    });
  }

  for (const std::string& name : kernels::vector_kernel_names()) {
    auto va = std::make_shared<VectorArgs>();
    va->name = name;
    auto* vk = kernel->add_subcommand(name, fmt::format("{} on the vector unit", name));
    add_vector_options(vk, *va);
    vk->callback([va, run, &exit_code] {
      if (run) exit_code = run_vector(*va);
      else exit_code = validate_kernel({kernels::vector_kernel(va->name, options_of(*va)).out}, *va);
    });
    auto vc = std::make_shared<VectorArgs>();
    vc->name = name;
    auto* vcc = compile->add_subcommand(name, fmt::format("{} on the vector unit", name));
    add_vector_options(vcc, *vc);
    vcc->add_option("-o,--output", vc->output, "the program file to write")->required();
    vcc->callback([vc, run, &exit_code] {
      kernels::VectorOptions o = options_of(*vc);
      kernels::VectorKernel k = kernels::vector_kernel(vc->name, o);
      exit_code = run ? compile_kernel({k.out}, *vc, vector_headline(*vc, o)) : validate_kernel({k.out}, *vc);
    });
  }
}

}  // namespace cubekit::cli
