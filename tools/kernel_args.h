// The options of the ready kernels on the command line, shared by `cubekit kernel`, `cubekit compile`
// (tools/cmd_kernel.cpp) and `cubekit tune` (tools/cmd_tune.cpp): each kernel's arguments, how they
// become the kernel's options, and the CLI11 options that set them. `tuning`: the problem's options
// only (shape, types, fused epilogue), without the schedule's overrides and the run options.
#pragma once

#include "kernels/attention.h"
#include "kernels/conv.h"
#include "kernels/matmul.h"
#include "kernels/vector.h"
#include "tools/kernel_run.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace cubekit::cli {

struct MatmulArgs : RunArgs {
  int64_t m = 0, n = 0, k = 0, batch = 0;
  std::string dtype = "f16", out;
  bool transpose_a = false, transpose_b = false;
  int64_t tm = 0, tn = 0, tk_l0 = 0, tk_l1 = 0, group = 0;
  int l1_copies = 0;
  std::string double_buffer, cores, stagger;  // "on", "off" or "" (the schedule's choice)
  std::vector<std::string> epilogue;
  double scale = 1.0;
  bool scale_given = false;  // --scale on the command line (its default is 1)
};

struct ConvArgs : RunArgs {
  int64_t n = 1, c = 0, h = 0, w = 0, k = 0, kh = 3, kw = 3, stride = 1, pad = 0, dilation = 1, groups = 1;
  std::string dtype = "f16", out;
  int64_t rows = 0, tn = 0, channels = 0, images = 0;
  int l1_copies = 0;
  std::string double_buffer, cores;
  std::vector<std::string> epilogue;
  int64_t subsampled = 0;
};

struct AttentionArgs : RunArgs {
  int64_t batch = 1, heads = 1, kv_heads = 0, seq_q = 0, seq_kv = 0, dim = 0, tile_q = 0, tile_kv = 0, preload = 0, window = 0;
  double softcap = 0;
  bool causal = false, lse = false, alibi = false;
  double scale = 0;
  std::string dtype = "f16";
  std::vector<int64_t> mask;
};

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

kernels::MatmulOptions options_of(const MatmulArgs& a);
kernels::Conv2dOptions options_of(const ConvArgs& a);
kernels::AttentionOptions options_of(const AttentionArgs& a);
kernels::VectorOptions options_of(const VectorArgs& a);

void add_matmul_options(CLI::App* cmd, MatmulArgs& a, bool tuning = false);
void add_conv_options(CLI::App* cmd, ConvArgs& a, bool tuning = false);
void add_attention_options(CLI::App* cmd, AttentionArgs& a, bool tuning = false);
void add_vector_options(CLI::App* cmd, VectorArgs& a, bool tuning = false);

}  // namespace cubekit::cli
