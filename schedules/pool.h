// The pooling path: max, average and sum pooling of a feature map on the Vector unit, over the
// NC1HWC0 layout the conv path keeps (a position is one 32 B block of C0 channels, so a window's
// stride along a row is a block stride of the vector instructions).
//
//   O(n, c, y, x) = maximum(P(n, c, y*sh + r.y*dh - ph, x*sw + r.x*dw - pw))
//   O(n, c, y, x) = cast(T, sum(cast(f32, P(n, c, y*sh + r.y*dh - ph, x*sw + r.x*dw - pw))) * (1.0f / (KH*KW)))
//   P = BoundaryConditions::constant_exterior(I, v) (v: -inf for max pooling, 0 for average), or I
//   itself when no window reaches past it. A global average pool is the window of the whole map.
//
// The loop nest, per core:
//   for tile in my share of (plane tiles, row bands):     a plane: one image's C0 channels
//     MTE2: the input rows the band's windows read -> UB (one burst a plane)
//     V:    (converted to the accumulator's type when the sum is f32 over f16)
//           for each window tap (r.y outer, r.x inner): dst = max(dst, tap) or dst + tap, over
//           the tile's rows (repeats) and 8 output positions each (input block stride sw); a
//           tap skips the output positions whose window reads padding there, the output then
//           starting as the padding's value
//           then the scale and the conversion to the output's type
//     MTE3: the tile's output rows -> GM (NC1HWC0)
//
// The schedule: cores(), double_buffer() or multi_buffer(UB, n), and tile_rows(n) (output rows
// per tile); by default a tile is as many rows, or whole planes, as UB holds, and no fewer tiles
// than there are cores.
#pragma once

#include "dsl/func.h"
#include "emulator/chip_config.h"
#include "schedules/contraction.h"

#include <memory>
#include <string>

namespace cubekit::sched {

struct PoolPlan {
  enum class Kind : uint8_t { Max, Min, Sum };  // Sum: an average when scale is 1 / window
  Kind kind = Kind::Max;
  std::string name;
  std::shared_ptr<dsl::InputImpl> input;
  DType in = DType::f16, acc = DType::f16, out = DType::f16;  // the taps combine in acc
  double scale = 1;      // Sum: the factor after the sum
  double pad_value = 0;  // what the padding positions hold (the boundary condition's constant)
  // n, c (all channels), h, w, kh, kw, sh, sw, dh, dw, the pads (bottom and right: as far as the
  // last window reaches), oh, ow, c0 (channels per block of the input)
  ConvGeometry g;
  int64_t planes = 0;       // n * c1
  int64_t rows = 0;         // output rows per tile
  int64_t tile_planes = 1;  // planes per tile (> 1 only when a tile is whole planes: rows == oh)
  bool cores = false;
  int core_limit = 0;       // with cores: at most this many (0: the chip's vector cores; codegen/launch_width)
  int copies = 1;           // of the input and output tiles (schedules/vector.h, vector_copies)

  int64_t c1() const { return g.c1(); }
  // Input rows (padding rows included) the windows of `r` output rows reach.
  int64_t in_rows(int64_t r) const { return (r - 1) * g.sh + (g.kh - 1) * g.dh + 1; }
  // 32 B blocks per position of a value of type t (C0 channels).
  int64_t blocks(DType t) const { return g.c0 * dtype_size(t) / 32; }
  int64_t bands() const { return (g.oh + rows - 1) / rows; }
  int64_t tiles() const { return (planes + tile_planes - 1) / tile_planes * bands(); }
  std::string str() const;
  // "maximum", "minimum" or "sum": the reduction, as the DSL names it; "max", "min" or "sum" short.
  const char* reduction() const { return kind == Kind::Max ? "maximum" : kind == Kind::Min ? "minimum" : "sum"; }
  const char* short_name() const { return kind == Kind::Max ? "max" : kind == Kind::Min ? "min" : "sum"; }
};

// Whether f has a pooling's form (a maximum, a minimum or a sum over a read at affine spatial indices, with
// no weights); recognise_pool then says what is wrong, if anything.
bool is_pool(const dsl::Func& f);

// Recognises f as a pooling, checks its schedule and sizes its tiles against the chip's UB, or says
// why not (user error).
PoolPlan plan_pool(const dsl::Func& f, const ChipConfig& chip);
// Whether UB holds a tile of one output row with the Func's schedule's copies (plan_pool refuses it
// otherwise): the kernels' default schedule double-buffers where that fits.
bool pool_row_fits(const dsl::Func& f, const ChipConfig& chip);

// UB bytes of a pool's buffers for tiles of `rows` output rows of `planes` planes.
int64_t pool_ub_bytes(const PoolPlan& p, int64_t rows, int64_t planes);

}  // namespace cubekit::sched
