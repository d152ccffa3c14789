// 2-D convolution as a DSL Func, with torch.nn.functional.conv2d's meaning (NCHW input, KCHW
// weights, NCHW output), lowered by the cube as an implicit GEMM (schedules/conv.h):
//   O(n, k, y, x) = sum_{c, i, j} cast(acc, P(n, c, y*stride + i*dilation - pad, x*stride + j*dilation - pad))
//                                 * cast(acc, W(k, c, i, j))          P: I padded with zeros
// One difference from torch: padding so wide that an output row or column reads nothing but
// padding (a 1x1 kernel with padding 1, a 3x3 with padding 3) is refused, where torch gives those
// rows zeros; load3d's windows each need an input row to stand on.
#pragma once

#include "dsl/func.h"
#include "emulator/chip_config.h"
#include "tune/database.h"

#include <optional>
#include <string>
#include <vector>

namespace cubekit::kernels {

struct Conv2dOptions {
  int64_t n = 1, c = 0, h = 0, w = 0;  // the input, NCHW
  int64_t k = 0, kh = 3, kw = 3;       // output channels, kernel size
  int64_t stride = 1, pad = 0, dilation = 1, groups = 1;  // along the height (and the width, unless given)
  int64_t stride_w = 0, dilation_w = 0;  // along the width; 0: as along the height
  int64_t pad_w = -1;                     // along the width; -1: as along the height (0 is no padding)
  int64_t sw() const { return stride_w ? stride_w : stride; }
  int64_t pw() const { return pad_w >= 0 ? pad_w : pad; }
  int64_t dw() const { return dilation_w ? dilation_w : dilation; }
  DType in = DType::f16;
  DType out = DType::f32;              // f32 or f16 for f16 and bf16 inputs, s32 for s8
  enum class Schedule { Default, Naive } schedule = Schedule::Default;
  // Overrides of the default schedule (0: choose): output rows and channels per tile, input
  // channels per L1 fill; copies of L1 (Func::multi_buffer).
  int64_t rows = 0, tn = 0, channels = 0;
  int l1_copies = 0;
  // Images per tile, stacked (split(n, no, ni, images)): only where no window crosses from one
  // image into the next (no padding along the height and oh * stride = h: 1x1 convolutions).
  // 0: choose, 1: never.
  int64_t images = 0;
  std::optional<bool> double_buffer, use_cores;
  // A fused epilogue, its steps applied in the order listed, then cast to `out`: "bn" (inference
  // batch norm: * scale(k) + shift(k), two f32 inputs per output channel), "residual" (+ R(n, k,
  // y, x), an input shaped as the output, of the output's type), "relu". ResNet's blocks end
  // {"bn", "residual", "relu"}.
  std::vector<std::string> epilogue;
  // > 1: the kernel also writes its result at every `subsampled`-th row and column, the input of a
  // strided 1x1 convolution that follows (ResNet's downsample), as a second output Func `Ys`
  // (Func::store_with). 16-bit results (out f16 or bf16).
  int64_t subsampled = 0;
  // Use the tuning database's schedule for this problem when it has one and no override is set
  // (kernels/tuned.h); off: the default schedule's heuristics.
  bool use_tuned = true;
};

// What a conv's schedule chose, in the options' terms (the tuner starts its search there).
struct ConvTiling {
  int64_t rows = 0, tn = 0, channels = 0, images = 1;
  int l1_copies = 1;
};

struct Conv2d {
  dsl::Input x, w;
  std::optional<dsl::Input> scale, shift, residual;
  dsl::Func conv;  // the convolution (f32 when there is an epilogue)
  dsl::Func out;   // what to compile: conv, or the epilogue computed on conv's way out
  std::optional<dsl::Func> sub;  // Conv2dOptions::subsampled: out at every s-th row and column
  std::optional<tune::Tuned> tuned;  // the tuned schedule the options took, if any
  ConvTiling tiling;                 // what its schedule chose
  // What to compile and run: out, then sub.
  std::vector<dsl::Func> outputs() const { return sub ? std::vector<dsl::Func>{out, *sub} : std::vector<dsl::Func>{out}; }
};

// A user error naming `what` where in + 2 pad or the window's extent dilation (kernel - 1) + 1
// overflows 64 bits; conv_output_extent takes only sizes that pass.
void check_window_fits(const char* what, int64_t in, int64_t kernel, int64_t pad, int64_t dilation);
// The output's height (or width) for an input extent: floor((in + 2 pad - dilation (kernel - 1) - 1) / stride) + 1.
int64_t conv_output_extent(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation);

// Defines the convolution and applies the schedule the options ask for.
Conv2d conv2d(const Conv2dOptions& options, const ChipConfig& chip);

// The default (or naive) schedule for a convolution Func (sched::is_conv), on its own shapes.
// `chosen` (when given) gets its tiling.
[[nodiscard]] dsl::Schedule conv_schedule(const dsl::Func& f, const ChipConfig& chip, const Conv2dOptions& options = {},
                                          ConvTiling* chosen = nullptr);

}  // namespace cubekit::kernels
