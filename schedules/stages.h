// The stage graph of a kernel (docs/lowering.md): the schedule's value the staged lowering
// (codegen/lower_stages.h) turns into the loop nest. Each stage computes a Func, or holds a tile
// of an input, on an engine, in a buffer level, one instance per iteration of a loop of its
// consumer, with copies for multi-buffering; each edge says how the data moves from its producer
// to its consumer. Every compiled program prints the one it was lowered from
// (`cubekit compile matmul --m 512 --n 512 --k 512`):
//
//   stages of C:
//     A     GM (given)
//     B     GM (given)
//     A.l1  L1 on MTE2 [64 x 64] per L1 chunk of k, 4 copies <- A (nd2nz)
//     B.l1  L1 on MTE2 [64 x 128] per L1 chunk of k, 4 copies <- B (nd2nz)
//     A.l0a L0A on MTE1 [64 x 64] per L0 step of k, 2 copies <- A.l1 (load2d)
//     B.l0b L0B on MTE1 [64 x 128] per L0 step of k, 2 copies <- B.l1 (load2d)
//     C     L0C on Cube [64 x 128] per tile <- A.l0a (mmad), B.l0b (mmad)
//     C.ub  UB on Vector [64 x 128] per strip, 2 copies <- C (mov_l0c_ub)
//     C.gm  GM on MTE3 <- C.ub (copy)
#pragma once

#include "schedules/attention.h"
#include "schedules/contraction.h"
#include "schedules/pool.h"
#include "schedules/vector.h"

#include <string>
#include <vector>

namespace cubekit::sched {

enum class Engine : uint8_t { None, MTE2, MTE1, Cube, FixPipe, Vector, MTE3 };
enum class Place : uint8_t { GM, L1, L0A, L0B, L0C, UB, Workspace };
// How an edge moves its producer's data (the instructions the lowering selects for it).
enum class Path : uint8_t {
  Nd2Nz,       // GM row-major -> L1 NZ fractals (copy_gm_l1_nd2nz)
  Copy,        // a plain copy: GM -> L1 / UB, UB -> GM (bursts)
  Load2d,      // L1 fractals -> L0A / L0B (load2d)
  Load3d,      // L1 feature-map rows -> L0A, img2col (set_fmatrix + load3d)
  Mmad,        // L0A x L0B -> L0C
  Drain,       // L0C -> UB (mov_l0c_ub, the coupled core)
  FixPipe,     // L0C -> GM / workspace (the split chips' FixPipe)
  CrossCore,   // GM workspace -> a vector core's UB under cross-core flags
  Compute,     // vector instructions over UB values
  Gather,      // every s-th row and column of a UB strip, on the vector unit (a conv's second output)
};
// The loop of its consumer one instance of a stage is made in.
enum class At : uint8_t {
  Given,     // a tensor in GM, there before the kernel
  Core,      // once per core (a per-column input)
  Tile,      // once per output tile
  Chunk,     // once per L1 chunk of k
  Step,      // once per L0 step of k
  Strip,     // once per strip of a tile's columns on the way out of L0C
  RowStrip,  // once per strip of a tile's rows (the split chips' vector cores)
  KeyTile,   // once per key tile of a query tile (flash attention)
};
std::string_view at_name(At a);
std::string_view engine_name(Engine e);
std::string_view place_name(Place p);
std::string_view path_name(Path p);

// How a stage in L1 or L0 holds its tile, which sizes its buffer (stage_bytes).
enum class Form : uint8_t {
  None,       // sized by the lowering (UB strips, vector values) or not a buffer (GM)
  NZ,         // fractals of 16 rows x C0: rows rounded to 16, columns to C0 (A.l1, B.l1, A.l0a)
  ZN,         // fractals of C0 x 16: rows (k) rounded to C0, columns to 16 (B.l0b)
  FractalZ,   // a conv's weights: k rows x n rounded to 16
  FeatureMap, // a conv's input rows, NC1HWC0: blocks x rows x W x C0
  Acc,        // L0C: rows and columns rounded to 16, of the accumulator type
  Strip,      // a strip of L0C's columns in UB, as L0C holds them: rows rounded to 16 x columns
  Vector,     // values in UB, contiguous: whole 32 B blocks
  Rows,       // rows of a tile's columns rounded to 16 (a split chip's vector cores): whole 32 B blocks
};

struct GraphStage {
  std::string name;            // "A.l1", "C", "softmax.max"
  Engine engine = Engine::None;
  Place place = Place::GM;
  std::vector<int64_t> tile;   // one instance's extents (empty: the whole tensor)
  At at = At::Given;           // the loop one instance is made in
  int copies = 1;
  // What the lowering makes of it: the input a given tensor or a tile of one holds, the Func a
  // stage computes (or whose result a GM stage receives), and on the vector unit the value's
  // shape within a tile.
  std::shared_ptr<dsl::InputImpl> input;
  std::shared_ptr<dsl::FuncImpl> func;
  VecShape shape = VecShape::Full;
  Form form = Form::None;
  DType dtype = DType::f16;  // its elements (with form)
};

// The bytes of one copy of a stage's buffer from its form, tile and type; C0 elements are 32 B.
int64_t stage_bytes(const GraphStage& s);

struct Edge {
  int producer = -1, consumer = -1;
  Path path = Path::Copy;
};

// The tiles a vector-unit graph's loop walks: `rows` rows of `cols` columns (the output's leading
// dimensions flattened, and its last), in tiles of `tile_rows` rows, or of `tile_rows` elements
// when `flat`. 0: not chosen yet (the fit chooses it, codegen/fit.h).
struct RowTiles {
  int64_t rows = 1, cols = 1, tile_rows = 0;
  bool flat = false, row_output = false, cores = false;
  int core_limit = 0;  // with cores: at most this many (0: all the chip's vector cores)
};

struct StageGraph {
  std::string kernel;
  RowTiles row_tiles;  // a vector-unit graph's
  // A contraction's graph: its plan (the shapes, the tile loops its Tile loop walks over the
  // cores, the stagger and core grouping), and the loops inside a tile its other stages are made
  // in: each walks `extent` in steps of `step`, the last one shorter when it does not divide:
  //   Chunk: k in L1 chunks;  Step: a chunk in L0 steps;  Strip: a tile's columns out of L0C
  //   (RowStrip: its rows, on a split chip's vector cores).
  std::shared_ptr<const ContractionPlan> contraction;
  // Its tile loops, outermost first: the first `on_cores` fused and spread over the cores (the
  // last two of those rasterised in groups of `group`), each tile's k chunks started at a
  // staggered offset when `stagger`.
  struct Tiles {
    std::vector<ContractionPlan::TileLoop> loops;
    int on_cores = 0;
    int64_t group = 1;
    bool stagger = false;
    int core_limit = 0;  // at most this many cores (0: the chip's)
  } tiles;
  struct Loop {
    At at = At::Tile;
    int64_t extent = 0, step = 0;
  };
  std::vector<Loop> loops;
  // The step of the loop at `at`; 0 when the graph has none (the FixPipe writes a whole tile).
  int64_t step(At at) const;
  // A pooling's graph: its plan (the window, the bands of output rows and the planes per tile).
  std::shared_ptr<const PoolPlan> pool;
  // Flash attention's graph: its plan (the shapes, the tiles, the chip's paths).
  std::shared_ptr<const AttentionPlan> attention;
  std::vector<GraphStage> stages;  // producers first
  std::vector<Edge> edges;
  int add(GraphStage s);
  void connect(int producer, int consumer, Path path);
  std::string str() const;  // one line per stage, its inputs and their paths
};

// A contraction's graph with its UB strips `strip` wide (the fit's choice, codegen/fit.h), or
// with the plan's widest (-1; the vector cores' rows are then 0: to be chosen).
StageGraph stage_graph(const ContractionPlan& plan, int64_t strip = -1);
// A vector Func's graph with tiles of `tile_rows` rows (elements when flat: the fit's choice), or
// the plan's (-1; 0: to be chosen, printed "rows" or "elements").
StageGraph stage_graph(const VectorPlan& plan, int64_t tile_rows = -1);
StageGraph stage_graph(const PoolPlan& plan);
// Flash attention's graph (schedules/attention_stages.cpp): every buffer of its nest a stage.
StageGraph stage_graph(const AttentionPlan& plan);

}  // namespace cubekit::sched
