// 2-D pooling as DSL Funcs, with torch.nn.functional's meaning (NCHW in and out), on the vector
// unit over NC1HWC0 (schedules/pool.h):
//   max_pool2d:  O(n, c, y, x) = maximum(P(n, c, y*stride + r.y*dilation - pad, x*stride + r.x*dilation - pad))
//                P: I padded with -inf
//   avg_pool2d:  O(n, c, y, x) = cast(T, sum(cast(f32, P(n, c, y*stride + r.y - pad, x*stride + r.x - pad))) / (KH*KW))
//                P: I padded with 0 (torch's count_include_pad=True)
//   global:      the average over the whole map (adaptive_avg_pool2d(x, 1)): a 1 x 1 output
#pragma once

#include "dsl/func.h"
#include "emulator/chip_config.h"

#include <optional>

namespace cubekit::kernels {

struct Pool2dOptions {
  enum class Kind : uint8_t { Max, Avg } kind = Kind::Max;
  int64_t n = 1, c = 0, h = 0, w = 0;  // the input, NCHW
  bool global = false;                 // Avg over the whole map (the window options are then unused)
  int64_t kh = 3, kw = 0;              // the window (kw 0: as kh)
  int64_t stride = 0, stride_w = 0;    // 0: the window's extent (torch's default); stride_w 0: as stride
  int64_t pad = 0, pad_w = -1;         // pad_w -1: as pad
  int64_t dilation = 1, dilation_w = 0;  // max pooling only; dilation_w 0: as dilation
  DType dtype = DType::f16;            // the input's and the output's (f16 or f32)
  enum class Schedule : uint8_t { Default, Naive } schedule = Schedule::Default;
  int64_t rows = 0;                    // output rows per tile (0: as many as UB holds)
  std::optional<bool> double_buffer, use_cores;

  int64_t win_w() const { return kw ? kw : kh; }
  int64_t sh() const { return stride ? stride : kh; }
  int64_t sw() const { return stride_w ? stride_w : stride ? stride : win_w(); }
  int64_t pw() const { return pad_w >= 0 ? pad_w : pad; }
  int64_t dw() const { return dilation_w ? dilation_w : dilation; }
};

struct Pool2d {
  dsl::Input x;
  dsl::Func out;
  int64_t oh = 0, ow = 0;
};

// Defines the pooling and applies the schedule the options ask for.
Pool2d pool2d(const Pool2dOptions& options, const ChipConfig& chip);

// The default (or naive) schedule of a pooling Func f (sched::is_pool): cores() over its first
// loop and double_buffer(), unless the options say otherwise.
[[nodiscard]] dsl::Schedule pool_schedule(const dsl::Func& f, const Pool2dOptions& options);

}  // namespace cubekit::kernels
