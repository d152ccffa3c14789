// The cube path: recognising a contraction and planning how a schedule maps it.
//
// The loop nest a ContractionPlan describes, per core (double buffering optional at each level):
//
//   for tile in my share of (batch, m-tiles, n-tiles):      tile loops; the first ones on cores
//     for ko in K / tk_l1:                                  L1: A[tm x tk_l1], B[tk_l1 x tn]  (or once per tile)
//       for kio in tk_l1 / tk_l0:                           L0A: A[tm x tk_l0], L0B: B[tk_l0 x tn]
//         for kii in tk_l0 / tk_mmad:
//           mmad L0C[tm x tn] += L0A[.., kii] x L0B[kii, ..]
//     for strip in tn / strip:                              UB: `strip` columns of the tile at a time
//       L0C -> UB (cast to the output type) -> GM
#pragma once

#include "dsl/func.h"
#include "emulator/arith.h"
#include "emulator/chip_config.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cubekit::sched {

// A convolution's geometry (schedules/conv.h), when the contraction is its implicit GEMM.
struct ConvGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0;       // the input, NCHW (c: channels per group)
  int64_t k = 0, kh = 0, kw = 0;            // output channels per group, kernel height and width
  int64_t groups = 1;                       // each a GEMM of its own (a batch dimension after n)
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;   // strides, dilations
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  int64_t oh = 0, ow = 0;                   // the output's height and width
  int64_t c0 = 16;                          // channels per block of the input (32 B)
  // Images per M tile (split(n, no, ni, images)): their maps stacked into one of images * h rows,
  // which load3d reads as one when no window crosses from one image into the next (no padding
  // along the height, oh * sh == h: a 1x1 convolution, say). 1: a tile is rows of one image.
  int64_t images = 1;
  bool stackable() const { return pad_top == 0 && pad_bottom == 0 && oh * sh == h; }
  // A one-row kernel whose stride steps over input rows (a strided 1x1 convolution) reads only
  // every sh-th row: L1 holds those rows alone, their GM rows sh apart, and load3d reads them as a
  // map of unit stride along the height. (Otherwise L1 holds every input row of a tile's windows.)
  // Set by plan_conv where it saves bytes without more copies (pooling reads its bands whole).
  bool row_skipping = false;
  bool skips_rows() const { return row_skipping; }
  int64_t l1_sh() const { return skips_rows() ? 1 : sh; }
  int64_t c1() const { return (c + c0 - 1) / c0; }
  int64_t k16() const { return (k + 15) / 16 * 16; }
  int64_t window() const { return kh * kw * c0; }  // im2col columns per channel block
};

// What the cube computes: C(b.., m, n) = sum_k A(b.., m, k) * B(b.., k, n), with A or B possibly
// transposed ((k, m) / (n, k) in their last two dimensions) and the result possibly cast.
struct Contraction {
  std::shared_ptr<dsl::InputImpl> a, b;
  bool a_transposed = false, b_transposed = false;
  DType in = DType::f16, acc = DType::f32, out = DType::f32;
  std::vector<int64_t> batch;  // extents of the leading batch dimensions
  int64_t m = 0, n = 0, k = 0;
  std::vector<std::shared_ptr<dsl::VarImpl>> batch_vars;
  std::shared_ptr<dsl::VarImpl> mv, nv, kv;
  bool conv = false;  // the implicit GEMM of a convolution (geometry below): m = oh*ow, n = k16, k = c1*kh*kw*c0
  ConvGeometry g;
  int64_t batches() const;
};

// A user error when m's or n's dimension (named `m`, `n`) has more than one of the plan's tile
// loops: the lowering takes one tile index for each (a second split of m put tiles on rows the
// first loop's tiles also covered).
struct ContractionPlan;
void check_one_tile_loop_each(const ContractionPlan& p, const std::string& fname, const std::string& m, const std::string& n);

// Recognises the Func as a contraction the chip's cube can do, or says why not (user error).
Contraction recognise_contraction(const dsl::Func& f, const ChipConfig& chip);

// Whether the chip writes f32 results as bf16: the chips whose cube takes bf16 (their FixPipe's
// F322BF16, their vector unit's vconv).
inline bool writes_bf16(const ChipConfig& chip) { return chip.fractal(DType::bf16) != nullptr; }

// A user error unless the cube's `acc` results can be written out as `out`: as they are, f32 as
// f16, or f32 as bf16 where writes_bf16.
void check_cube_output(const std::string& fname, DType acc, DType out, const ChipConfig& chip);

struct ContractionPlan {
  enum class Dim : uint8_t { Batch, M, N };
  struct TileLoop {
    Dim dim;
    int batch = 0;       // which batch dimension
    int64_t extent = 0;  // iterations
    std::string name;
  };
  Contraction c;
  std::string func_name;
  int64_t tm = 0, tn = 0;            // the output tile accumulated in L0C
  int64_t tk_l1 = 0, tk_l0 = 0, tk_mmad = 0;
  std::vector<TileLoop> tile_loops;  // outermost first
  int core_loops = 0;                // how many of the outermost tile loops are spread over cores
  int64_t core_group = 1;            // rasterisation of the last two core loops (Func::cores)
  int core_limit = 0;                // at most this many cores (0: the chip's; codegen/launch_width)
  bool double_buffer = false;        // two copies of L0A, L0B and UB (and of L1 unless l1_copies says)
  int l1_copies = 1;                 // copies of L1A / L1B: each filled l1_copies - 1 chunks ahead
  bool stagger = false;              // each tile starts its k chunks at (tile indices summed) mod chunks
  int64_t strip = 16;                // columns of the tile per UB strip on the way out
  int64_t c0 = 16;                   // elements per 32 B along k (16 for f16, 32 for s8)
  bool bf16 = false;                 // the chip converts f32 to bf16 (its cube takes bf16)

  // A fused epilogue (Func::epilogue_of): the consumer Func, computed per UB strip from the
  // accumulator, with its inputs per column (indexed by n) or per row (indexed by m). The result
  // is then the consumer's: its name and type.
  std::shared_ptr<dsl::FuncImpl> epilogue;
  std::shared_ptr<dsl::FuncImpl> producer;  // the contraction the epilogue reads
  struct EpilogueInput {
    std::shared_ptr<dsl::InputImpl> input;
    bool per_row = false;
    bool tile = false;  // a conv's full-tile input (a residual), the output's shape and layout
  };
  std::vector<EpilogueInput> epilogue_inputs;

  // Split chips (AIC + AIV): the result leaves L0C through the cube core's FixPipe, which casts it
  // and, with `fixpipe_relu`, rectifies it on the way; an epilogue it cannot do (`vector_epilogue`)
  // runs on the vector cores, reading the FixPipe's f32 tiles from a GM workspace.
  bool split = false;
  bool fixpipe_relu = false;
  bool vector_epilogue = false;

  // A second output (Func::store_with): a convolution's result at every `stride`-th row and
  // column, `oh` x `ow` positions a map, gathered from each UB strip on its way out.
  struct Subsampled {
    std::shared_ptr<dsl::FuncImpl> func;
    int64_t stride = 0, oh = 0, ow = 0;
  };
  std::optional<Subsampled> subsampled;

  int64_t tiles() const;             // iterations of all tile loops together
  std::string str() const;
};

// Checks the Func's schedule for the cube path and sizes every buffer against the chip. A Func
// with epilogue_of(C) plans C with this Func as its epilogue.
ContractionPlan plan_contraction(const dsl::Func& f, const ChipConfig& chip);

// The L1 copies of a cube schedule (the matmul's and the conv's): multi_buffer(L1, n)'s n, else 2
// with double_buffer(), else 1; a multi_buffer of another level or beyond the event ids refused.
// A user error unless a kernel's l1_copies option (0: the schedule's choice) is within the
// chip's event ids, said in the option's terms: the directive it becomes (C.multi_buffer(L1, 9))
// is not what the user wrote.
void check_l1_copies_option(const std::string& kernel, int64_t copies, const ChipConfig& chip);
int cube_l1_copies(const std::string& fname, const dsl::Directive* multi, bool double_buffer, const ChipConfig& chip);

// Checks that `consumer` is elementwise over the plan's contraction and reads only per-column or
// per-row inputs, and makes it the plan's epilogue (on a split chip: the FixPipe's, when it is a
// cast and ReLU of the result, else the vector cores').
void attach_epilogue(ContractionPlan& plan, const dsl::Func& consumer);

// Checks that `sub` is the plan's result at every s-th row and column (Func::store_with) and that
// the plan's tiles and strips can make it, and makes it the plan's second output.
void attach_subsampled(ContractionPlan& plan, const dsl::Func& sub);
// The stride s of a second output some Func stores with `conv` or with its epilogue (Func::store_with:
// `Ys(n, k, y, x) = Y(n, k, y * s, x * s)`), the largest if several; 0 when none does (or not in
// that form: compile() says what is wrong). A schedule chosen for the conv gives tiles of a
// multiple of s rows (kernels::default_schedule).
int64_t second_output_stride(const dsl::Func& conv);

using cubekit::cdiv;
using cubekit::round_up;

}  // namespace cubekit::sched
