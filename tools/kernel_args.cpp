#include "tools/kernel_args.h"

#include "emulator/error.h"
#include "schedules/attention.h"
#include "tools/commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace cubekit::cli {
kernels::MatmulOptions options_of(const MatmulArgs& a) {
  kernels::MatmulOptions o;
  o.use_tuned = !a.no_tuned;
  o.m = a.m, o.n = a.n, o.k = a.k, o.batch = a.batch;
  if (a.dtype == "f16") o.in = DType::f16;
  else if (a.dtype == "bf16") o.in = DType::bf16;
  else if (a.dtype == "s8") o.in = DType::s8;
  else user_error("--dtype must be f16, bf16 or s8, got '{}'", a.dtype);
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
  if (a.scale_given && std::find(a.epilogue.begin(), a.epilogue.end(), "scale") == a.epilogue.end())
    user_error("--scale {} was given but --epilogue has no 'scale'; add scale to --epilogue (e.g. --epilogue scale,relu) or "
               "leave --scale out", a.scale);
  return o;
}

void add_matmul_options(CLI::App* cmd, MatmulArgs& a, bool tuning) {
  cmd->add_option("--m", a.m, "rows of A and C")->required();
  cmd->add_option("--n", a.n, "columns of B and C")->required();
  cmd->add_option("--k", a.k, "columns of A, rows of B")->required();
  cmd->add_option("--batch", a.batch, "batch count (0: no batch dimension)");
  cmd->add_option("--dtype", a.dtype, "input type: f16, bf16 (chips whose cube takes it) or s8 (s8 takes B stored as [n, k])")->capture_default_str();
  cmd->add_option("--out", a.out, "result type: f32, f16 or (chips with bf16) bf16 for f16/bf16 inputs, s32 for s8 (default f32 / s32)");
  cmd->add_flag("--transpose-a", a.transpose_a, "A is stored [k, m]");
  cmd->add_flag("--transpose-b", a.transpose_b, "B is stored [n, k]");
  add_list_option(cmd, "--epilogue", a.epilogue, "fused on the way out of L0C: bias, scale, relu, gelu (comma-separated, applied in that order: relu,bias is relu(AB)+bias)",
                  "bias,relu");
  cmd->add_option("--scale", a.scale, "the epilogue's scale (with scale in --epilogue)")
      ->capture_default_str()
      ->each([&a](const std::string&) { a.scale_given = true; });
  if (!tuning) cmd->add_option("--tm", a.tm, "override: rows of the output tile (L0C)");
  if (!tuning) cmd->add_option("--tn", a.tn, "override: columns of the output tile (L0C)");
  if (!tuning) cmd->add_option("--tk-l0", a.tk_l0, "override: k per L0A/L0B fill");
  if (!tuning) cmd->add_option("--tk-l1", a.tk_l1, "override: k per L1 fill");
  if (!tuning) cmd->add_option("--group", a.group, "override: hand out m tiles to the cores this many at a time");
  if (!tuning) cmd->add_option("--l1-copies", a.l1_copies, "override: copies of the L1 buffers (fills run copies - 1 ahead)");
  if (!tuning) cmd->add_option("--double-buffer", a.double_buffer, "override: on or off");
  if (!tuning) cmd->add_option("--cores", a.cores, "override: spread tiles over all cores, on or off");
  if (!tuning) cmd->add_option("--stagger", a.stagger, "override: rotate each tile's k chunks, on or off");
  if (!tuning) add_run_options(cmd, a);
}


kernels::Conv2dOptions options_of(const ConvArgs& a) {
  kernels::Conv2dOptions o;
  o.use_tuned = !a.no_tuned;
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

void add_conv_options(CLI::App* cmd, ConvArgs& a, bool tuning) {
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
  cmd->add_option("--out", a.out, "result type: f32, f16 or (chips with bf16) bf16 for f16/bf16 inputs, s32 for s8 (default f32 / s32)");
  add_list_option(cmd, "--epilogue", a.epilogue, "fused on the way out of L0C: bn, residual, relu (comma-separated, in order: "
                                                  "bn,residual,relu ends a ResNet block)",
                  "bn,relu");
  cmd->add_option("--subsampled", a.subsampled, "also write the result at every S-th row and column as a second output Ys "
                                                "(the input of a strided 1x1 conv that follows: ResNet's downsample)");
  if (!tuning) cmd->add_option("--rows", a.rows, "override: output rows per tile");
  if (!tuning) cmd->add_option("--tn", a.tn, "override: output channels per tile (a multiple of 16)");
  if (!tuning) cmd->add_option("--channels", a.channels, "override: input channels per L1 fill (a multiple of C0)");
  if (!tuning) cmd->add_option("--l1-copies", a.l1_copies, "override: copies of the L1 buffers (fills run copies - 1 ahead)");
  if (!tuning) cmd->add_option("--images", a.images, "override: whole images stacked per tile (1x1 convolutions; 1: one per tile)");
  if (!tuning) cmd->add_option("--double-buffer", a.double_buffer, "override: on or off");
  if (!tuning) cmd->add_option("--cores", a.cores, "override: spread tiles over all cores, on or off");
  if (!tuning) add_run_options(cmd, a);
}


kernels::AttentionOptions options_of(const AttentionArgs& a) {
  kernels::AttentionOptions o;
  o.use_tuned = !a.no_tuned;
  o.batch = a.batch, o.heads = a.heads, o.kv_heads = a.kv_heads, o.seq_q = a.seq_q, o.seq_kv = a.seq_kv, o.dim = a.dim;
  o.causal = a.causal, o.scale = a.scale, o.tile_q = a.tile_q, o.tile_kv = a.tile_kv, o.preload = a.preload, o.lse = a.lse;
  o.softcap = a.softcap, o.alibi = a.alibi, o.window = a.window;
  o.mask = a.mask;
  std::optional<DType> t = parse_dtype(a.dtype);
  if (!t || (*t != DType::f16 && *t != DType::bf16)) user_error("--dtype must be f16 or bf16 for attention, got '{}'", a.dtype);
  o.dtype = *t;
  if (naive_schedule(a)) user_error("--schedule naive: attention has its flash() schedule only; drop --schedule");
  // The random inputs lie in [-1, 1): a score is at most dim in size, scaled |scale| dim. A
  // softcap bounds the scores it caps (|c tanh(s / c)| < c <= 1e4) whatever the scale.
  const bool hides = (o.causal || !o.mask.empty() || o.window > 0) && o.softcap == 0;
  if (hides && std::abs(o.scale) * double(o.dim) >= sched::kLargestScore)
    user_error("--scale {}: the scores of the random inputs (each in [-1, 1)) reach |scale| x dim = {:g}, past {:g}, where a "
               "masked key (its score - 1e30) or a key the causal mask or a window hides (-2e38) can outscore the keys a "
               "query sees; give |scale| below {:g}", o.scale, std::abs(o.scale) * double(o.dim), sched::kLargestScore,
               sched::kLargestScore / double(o.dim));
  return o;
}

void add_attention_options(CLI::App* cmd, AttentionArgs& a, bool tuning) {
  cmd->add_option("--batch", a.batch, "batch")->capture_default_str();
  cmd->add_option("--heads", a.heads, "query heads")->capture_default_str();
  cmd->add_option("--kv-heads", a.kv_heads, "K/V heads, dividing --heads (grouped-query attention; default: --heads)")
      ->check(at_least_one("for as many as --heads"));
  cmd->add_option("--seq-q", a.seq_q, "queries per head")->required();
  cmd->add_option("--seq-kv", a.seq_kv, "keys per head (default: --seq-q)")->check(at_least_one("for as many as --seq-q"));
  cmd->add_option("--dim", a.dim, "head dim (a multiple of 16 up to 128)")->required();
  cmd->add_flag("--causal", a.causal, "causal mask: query i sees keys 0..i");
  cmd->add_flag("--lse", a.lse, "also write the logsumexp of the scaled scores (f32, batch x heads x seq-q)");
  add_list_option(cmd, "--mask", a.mask,
                  "an additive f32 mask input of this shape, e.g. 1,1,512,512 or 512,512 (key padding: batch,1,1,seq-kv): the "
                  "trailing dims of (batch, heads, seq-q, seq-kv), each 1 or that extent",
                  "1,1,512,512");
  cmd->add_option("--scale", a.scale, "score scale, any finite number but 0 (default 1/sqrt(dim)); with a mask, below 1e29 / dim")
      ->check(not_zero("1/sqrt(dim); a scale of 0 would weigh every key alike, the mean of V"));
  cmd->add_option("--softcap", a.softcap, "cap the scaled scores: s -> softcap tanh(s / softcap) (Gemma 2's logit softcapping)")
      ->check(not_zero("no cap"));
  cmd->add_option("--window", a.window,
                  "a sliding window with --causal: query i sees keys i - window + 1 .. i (Mistral's); only the key tiles it "
                  "reaches are read");
  cmd->add_flag("--alibi", a.alibi,
                "ALiBi: each scaled score plus slope_h key (the paper's slope_h (key - query) less its row's constant), slopes 2^(-8 (h + 1) / heads), computed on the chip");
  cmd->add_option("--dtype", a.dtype, "Q, K, V and the output: f16 or bf16")->capture_default_str();
  if (!tuning) cmd->add_option("--tile-q", a.tile_q, "override: flash() query rows per tile");
  if (!tuning) cmd->add_option("--tile-kv", a.tile_kv, "override: flash() keys per tile");
  if (!tuning)
    cmd->add_option("--preload", a.preload,
                    "override: key tiles the cube computes the scores ahead of the softmax (split chips; default 4, the "
                    "published 910B kernels')");
  if (tuning) return;
  add_run_options(cmd, a);
  cmd->get_option("--schedule")->description("default only: attention has its flash() schedule");
}


kernels::VectorOptions options_of(const VectorArgs& a) {
  kernels::VectorOptions o;
  o.use_tuned = !a.no_tuned;
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

void add_vector_options(CLI::App* cmd, VectorArgs& a, bool tuning) {
  cmd->add_option("--rows", a.rows, "rows (all but the last dimension)");
  // The row kernels work along the last dimension; the elementwise ones take tiles of elements.
  const bool along_rows = kernels::is_row_kernel(a.name);
  cmd->add_option("--cols", a.cols, along_rows ? "columns (the last dimension, the one the kernel works along)"
                                                : "columns (the last dimension)");
  add_list_option(cmd, "--shape", a.shape, "the whole shape instead, e.g. 3,5,7,300", "3,5,7,300");
  cmd->add_option("--dtype", a.dtype, a.name == "cast" ? "the input's type: f16 or f32" : "input and result type: f16 or f32")
      ->capture_default_str();
  if (a.name == "cast") cmd->add_option("--to", a.to, "the result type")->capture_default_str();
  if (a.name == "layernorm" || a.name == "rmsnorm") cmd->add_option("--eps", a.eps, "added to the variance")->capture_default_str();
  if (kernels::is_binary_kernel(a.name)) {
    add_list_option(cmd, "--y-shape", a.y_shape, "Y's shape, broadcast with X's as numpy does (default: X's)", "3,1");
    cmd->add_option("--y-dtype", a.y_dtype, "Y's type: f16 or f32 (default: --dtype; the result is the wider)");
    cmd->add_option_function<double>("--scalar", [&a](double v) { a.scalar = v; }, "Y is this constant instead of a tensor");
  }
  if (!tuning)  // accepted by every kernel, so that an elementwise one says why it takes none; listed by the row kernels
    cmd->add_option("--tile-rows", a.tile_rows, "override: rows per UB tile")->group(along_rows ? "Options" : "");
  if (!tuning) cmd->add_option("--double-buffer", a.double_buffer, "override: on or off");
  if (!tuning)
    cmd->add_option("--copies", a.copies, "override: copies of each tile buffer, filled copies - 1 tiles ahead (2: double buffering)")
        ->check(kAtLeastOne);
  if (!tuning) cmd->add_option("--cores", a.cores, "override: spread tiles over all cores, on or off");
  if (!tuning) add_run_options(cmd, a);
}

}  // namespace cubekit::cli
