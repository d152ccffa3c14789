// Vector-unit instruction selection for values in UB: the building blocks of the vector path and
// of fused matmul epilogues. A value of a tile is Full (`rows` rows of `pitch` elements, the first
// `cols` of each valid), Row (one element per row), Col (one per column, shared by all rows) or a
// compile-time Scalar. Every operation appends V instructions (and loops over rows where one
// instruction cannot cover them) to a node list:
//
//   Full op Full, Row op Row          one pass over the contiguous elements (repeats of 256 B,
//                                     at most 255 per instruction, the last one masked)
//   Full op Row                       the row values spread to one 32 B block each (vbrcb), read
//                                     with block and repeat stride 0 along the row
//   Full op Col                       the column vector read again for every row
//   Full op Scalar                    vadds / vmuls / vmaxs / vmins with an immediate
//   reduce Full -> Row                vcadd / vcmax / vcmin per 256 B, masked to the valid
//                                     columns, then again over the partial results
#pragma once

#include "codegen/ir.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace cubekit::codegen {

enum class VShape : uint8_t { Full, Row, Col, Scalar };

// The widest a V instruction's repeat and block stride fields go (32 B blocks); operands further
// apart than this take an instruction each.
constexpr int64_t kMaxRepeatStride = 255;

struct VValue {
  VShape shape = VShape::Scalar;
  DType dtype = DType::f32;
  Ref at;               // the first element (not Scalar)
  double constant = 0;  // Scalar
  static VValue scalar(DType t, double v) { return {VShape::Scalar, t, {}, v}; }
};

// The tile the instructions work on (rows is a compile-time count: a partial tile gets its own code).
// With nz, a Full value is a strip of L0C as mov_l0c_ub leaves it in UB: fractal columns of `rows`
// rows x 16, `pitch` columns in all (a multiple of 16), the first `cols` valid; its elementwise
// operations are the same, its broadcasts go fractal column by fractal column.
struct VTile {
  int64_t rows = 1, cols = 1, pitch = 16;
  bool nz = false;
};

// Bytes a value of this shape and type takes in UB for the tile (a Row is padded to whole 32 B
// blocks, and to 8 elements for vbrcb).
int64_t vbytes(VShape shape, DType t, const VTile& tile);

enum class VBinary : uint8_t { Add, Sub, Mul, Div, Min, Max };
enum class VReduce : uint8_t { Sum, Max, Min };
enum class VCompare : uint8_t { Lt, Le, Gt, Ge, Eq, Ne };

// UB scratch for one tile's computation: buffers are reused once released (their static offsets are
// planned with the others; the sync pass orders the reuse with barriers).
class ScratchPool {
 public:
  explicit ScratchPool(Kernel& k) : k_(k) {}
  // A buffer of at least `bytes`: the smallest free one that fits, or a new one. A buffer `held`
  // for long (a cached spread) takes a free one only up to twice its size: it would otherwise keep
  // a big buffer (a reduction's accumulator) from its next use, and UB would need another.
  int take(int64_t bytes, bool held = false);
  void give(int buffer);
  const std::vector<int>& all() const { return all_; }
  // Buffers only ever spread blocks, which vbrcb writes whole before they are read: they need no
  // zeroing at the start.
  bool written_whole(int buffer) const { return spread_only_.count(buffer) > 0; }

 private:
  Kernel& k_;
  std::vector<int> all_, free_;
  std::set<int> spread_only_;
};

class VectorOps {
 public:
  VectorOps(Kernel& k, ScratchPool& pool, std::vector<Node>& out, VTile tile) : k_(k), pool_(pool), out_(&out), t_(tile) {}

  ~VectorOps();  // gives back the spread blocks it made
  int64_t bytes(VShape shape, DType t) const { return vbytes(shape, t, t_); }
  // A scratch value (release it with done()).
  VValue temp(VShape shape, DType t);
  void done(const VValue& v);

  void unary(const char* mnemonic, const VValue& dst, const VValue& a);  // vexp, vln, vsqrt, vabs, vrec, vrsqrt, vrelu
  void binary(VBinary op, const VValue& dst, const VValue& a, const VValue& b);
  void cast(const VValue& dst, const VValue& a);
  void fill(const VValue& dst, double value);
  void select(VCompare cmp, const VValue& dst, const VValue& x, const VValue& y, const VValue& if_true,
              const VValue& if_false);
  // dst_row = the reduction of each row of full (or, with `times`, of full * times elementwise).
  void reduce(VReduce op, const VValue& dst_row, const VValue& full, const VValue* times = nullptr);
  // A Full value equal to the Row or Col value broadcast over the tile.
  void broadcast(const VValue& dst, const VValue& a);

 private:
  int64_t size(DType t) const { return dtype_size(t); }
  int64_t per_repeat(DType t) const { return 256 / size(t); }
  int64_t count(VShape s) const;  // elements a value of this shape spans
  // One V instruction: memory operands in order, then the other arguments.
  void emit(const std::string& mnemonic, std::vector<Ref> mems, std::vector<Arg> args);
  // `n` contiguous elements in repeats of 256 B (at most 255 per instruction, the last masked);
  // `make(offset_bytes, repeats, mask)` adds the instruction for one piece.
  void pieces(int64_t n, DType t, const std::function<void(int64_t, int64_t, int64_t)>& make);
  // Runs `f(row)` for every row of the tile: an IR loop (row an Affine of its variable).
  void each_row(const std::function<void(const Affine&)>& f);
  // The tile a column of repeats at a time: `make(offset, row0, rows, mask)` adds one instruction
  // for the 256 B at `offset` of `rows` rows from row0, its repeat stride a row (`stride` bytes).
  // False, with nothing added, when that stride does not fit a repeat stride or when an instruction
  // per row would be fewer (rows no more than the repeats of a row).
  bool by_columns(DType t, int64_t stride, const std::function<void(int64_t, int64_t, int64_t, int64_t)>& make);
  void binary_same(const std::string& m, const VValue& dst, const VValue& a, const VValue& b, int64_t n);
  void binary_scalar(VBinary op, const VValue& dst, const VValue& a, double c, bool scalar_first);
  void binary_broadcast(const std::string& m, const VValue& dst, const VValue& a, const VValue& b);
  // Full op Col / Row on an NZ strip: per fractal column, a repeat per fractal row masked to its
  // valid columns. `src` names the operand roles as the instruction does (src0/src1, or src alone).
  void nz_broadcast(const std::string& m, const VValue& dst, const VValue* full, const VValue& x, bool x_first,
                    std::vector<Arg> extra);
  int spread(const VValue& row);  // a 32 B block per row holding its value (vbrcb), cached
  void fold(VReduce op, const VValue& dst, const VValue& full, const VValue* times);  // rows of 2+ whole repeats
  bool block_rows(VReduce op, const VValue& dst, const VValue& full);  // rows of 1, 2, 4 or 8 blocks, 8 rows a repeat

  Kernel& k_;
  ScratchPool& pool_;
  std::vector<Node>* out_;
  VTile t_;
  std::vector<std::pair<int, int>> spread_;  // (Row buffer, its spread blocks)
};

std::string vtyped(std::string_view mnemonic, DType t);

}  // namespace cubekit::codegen
