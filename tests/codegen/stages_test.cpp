// Golden tests of the stage graph (schedules/stages.h): the graph each plan describes, printed,
// against the text it must be, for the matmul, a fused epilogue on a split chip (the workspace and
// cross-core edges), a convolution (load3d, the residual's full-tile stage), vector kernels and
// a pooling (a band of output rows and the input rows its windows reach). The loop nests the
// staged lowering makes of them are passes_test.cpp's goldens.
#include "codegen/lower.h"
#include "codegen/lower_stages.h"
#include "emulator/error.h"
#include "codegen_test_util.h"
#include "kernels/attention.h"
#include "kernels/conv.h"
#include "kernels/matmul.h"
#include "kernels/pool.h"
#include "kernels/vector.h"
#include "schedules/attention.h"
#include "schedules/conv.h"
#include "schedules/pool.h"
#include "schedules/stages.h"

#include <gtest/gtest.h>

namespace cubekit {
namespace {

using test::mm;

// Flash attention's graph: every buffer of the nest a stage, the key tile a loop of its own, the
// buffers the cube fills alternately one stage with two producers; on the coupled 910 with a mask
// over queries and keys and the logsumexp, and on the 950, whose hand-offs stay on chip (the
// vector cores' stages hold half of a query tile's rows each).
std::string flash_graph(const char* chip_name, kernels::AttentionOptions o) {
  const ChipConfig chip = load_chip(chip_name);
  kernels::Attention a = kernels::attention(o, chip);
  sched::AttentionPlan plan = sched::plan_attention(a.funcs.o, chip);
  if (o.lse) sched::attach_lse(plan, a.funcs.lse);
  return sched::stage_graph(plan).str();
}

TEST(StageGraph, FlashAttentionOnTheCoupledCore) {
  kernels::AttentionOptions o;
  o.seq_q = 100, o.seq_kv = 200, o.dim = 64, o.tile_q = 32, o.tile_kv = 64, o.mask = {100, 200}, o.lse = true;
  EXPECT_EQ(flash_graph("ascend910", o),
            "stages of attention:\n"
            "  q             GM (given)\n"
            "  k             GM (given)\n"
            "  v             GM (given)\n"
            "  mask          GM (given)\n"
            "  Q.l1          L1 on MTE2 [32 x 64] per tile <- q (nd2nz)\n"
            "  K.l1          L1 on MTE2 [64 x 64] per key tile, 2 copies <- k (nd2nz)\n"
            "  V.l1          L1 on MTE2 [64 x 64] per key tile <- v (nd2nz)\n"
            "  P.l1          L1 on MTE2 [32 x 64] per key tile <- P.ws (copy)\n"
            "  QP.l0a        L0A on MTE1 [32 x 64] per key tile, 2 copies <- Q.l1 (load2d), P.l1 (load2d)\n"
            "  KV.l0b        L0B on MTE1 [64 x 64] per key tile, 2 copies <- K.l1 (load2d), V.l1 (load2d)\n"
            "  S             L0C on Cube [32 x 64] per key tile <- QP.l0a (mmad), KV.l0b (mmad)\n"
            "  PV            L0C on Cube [32 x 64] per key tile, 2 copies <- QP.l0a (mmad), KV.l0b (mmad)\n"
            "  S.ub          UB on Vector [32 x 64] per key tile <- S (mov_l0c_ub)\n"
            "  mask.ub       UB on MTE2 [32 x 64] per key tile <- mask (copy)\n"
            "  PV.ub         UB on Vector [32 x 64] per key tile <- PV (mov_l0c_ub)\n"
            "  M             UB on Vector [32] per tile <- S.ub (vector)\n"
            "  MT            UB on Vector [32] per tile <- S.ub (vector)\n"
            "  A             UB on Vector [32] per key tile, 2 copies <- M (vector), MT (vector)\n"
            "  P             UB on Vector [32 x 64] per key tile, 2 copies <- S.ub (vector), M (vector)\n"
            "  LT            UB on Vector [32] per tile <- P (vector)\n"
            "  L             UB on Vector [32] per tile <- A (vector), LT (vector)\n"
            "  P.ws          GM workspace on MTE3 per key tile <- P (copy)\n"
            "  SP            UB on Vector [32 x 16] per key tile <- A (vector)\n"
            "  O.acc         UB on Vector [32 x 64] per tile <- PV.ub (vector), A (vector)\n"
            "  O.ub          UB on Vector [32 x 64] per tile <- O.acc (vector), L (vector)\n"
            "  attention     GM on MTE3 <- O.ub (copy)\n"
            "  LSE           UB on Vector [32] per tile <- M (vector), L (vector)\n"
            "  attention_lse GM on MTE3 <- LSE (copy)\n");
}

TEST(StageGraph, FlashAttentionOnThe950) {
  kernels::AttentionOptions o;
  o.seq_q = 100, o.seq_kv = 200, o.dim = 128, o.tile_q = 64, o.tile_kv = 128;
  EXPECT_EQ(flash_graph("ascend950pr", o),
            "stages of attention:\n"
            "  q         GM (given)\n"
            "  k         GM (given)\n"
            "  v         GM (given)\n"
            "  Q.l1      L1 on MTE2 [64 x 128] per tile <- q (nd2nz)\n"
            "  K.l1      L1 on MTE2 [128 x 128] per key tile, 2 copies <- k (nd2nz)\n"
            "  V.l1      L1 on MTE2 [128 x 128] per key tile, 2 copies <- v (nd2nz)\n"
            "  P.l1      L1 on MTE3 [64 x 128] per key tile, 5 copies <- P (copy)\n"
            "  QP.l0a    L0A on MTE1 [64 x 128] per key tile, 2 copies <- Q.l1 (load2d), P.l1 (load2d)\n"
            "  KV.l0b    L0B on MTE1 [128 x 128] per key tile, 2 copies <- K.l1 (load2d), V.l1 (load2d)\n"
            "  SPV.l0c   L0C on Cube [64 x 128] per key tile, 2 copies <- QP.l0a (mmad), KV.l0b (mmad)\n"
            "  S.ub      UB on FixPipe [32 x 128] per key tile, 2 copies <- SPV.l0c (fixpipe)\n"
            "  PV.ub     UB on FixPipe [32 x 128] per key tile, 2 copies <- SPV.l0c (fixpipe)\n"
            "  M         UB on Vector [32] per tile <- S.ub (vector)\n"
            "  MT        UB on Vector [32] per tile <- S.ub (vector)\n"
            "  A         UB on Vector [32] per key tile, 5 copies <- M (vector), MT (vector)\n"
            "  P         UB on Vector [32 x 128] per key tile <- S.ub (vector), M (vector)\n"
            "  LT        UB on Vector [32] per tile <- P (vector)\n"
            "  L         UB on Vector [32] per tile <- A (vector), LT (vector)\n"
            "  SP        UB on Vector [32 x 8] per key tile <- A (vector)\n"
            "  O.acc     UB on Vector [32 x 128] per tile <- PV.ub (vector), A (vector)\n"
            "  O.ub      UB on Vector [32 x 128] per tile <- O.acc (vector), L (vector)\n"
            "  attention GM on MTE3 <- O.ub (copy)\n");
}

// The 910B2's: S, P and P V handed over through GM workspace slots, as many as the graph's copies
// (the split nest takes its slot counts from them): preload + 1 of S and P, 2 of P V.
TEST(StageGraph, FlashAttentionOnThe910B2AtPreload2) {
  kernels::AttentionOptions o;
  o.seq_q = 100, o.seq_kv = 200, o.dim = 64, o.tile_q = 32, o.tile_kv = 64, o.preload = 2;
  EXPECT_EQ(flash_graph("ascend910b2", o),
            "stages of attention:\n"
            "  q         GM (given)\n"
            "  k         GM (given)\n"
            "  v         GM (given)\n"
            "  Q.l1      L1 on MTE2 [32 x 64] per tile <- q (nd2nz)\n"
            "  K.l1      L1 on MTE2 [64 x 64] per key tile, 2 copies <- k (nd2nz)\n"
            "  V.l1      L1 on MTE2 [64 x 64] per key tile, 2 copies <- v (nd2nz)\n"
            "  P.l1      L1 on MTE2 [32 x 64] per key tile, 2 copies <- P.ws (copy)\n"
            "  QP.l0a    L0A on MTE1 [32 x 64] per key tile, 2 copies <- Q.l1 (load2d), P.l1 (load2d)\n"
            "  KV.l0b    L0B on MTE1 [64 x 64] per key tile, 2 copies <- K.l1 (load2d), V.l1 (load2d)\n"
            "  SPV.l0c   L0C on Cube [32 x 64] per key tile, 2 copies <- QP.l0a (mmad), KV.l0b (mmad)\n"
            "  S.ws      GM workspace on FixPipe per key tile, 3 copies <- SPV.l0c (fixpipe)\n"
            "  S.in      UB on MTE2 [16 x 64] per key tile <- S.ws (cross-core)\n"
            "  S.ub      UB on Vector [16 x 64] per key tile <- S.in (vector)\n"
            "  PV.ws     GM workspace on FixPipe per key tile, 2 copies <- SPV.l0c (fixpipe)\n"
            "  PV.ub     UB on MTE2 [16 x 64] per key tile <- PV.ws (cross-core)\n"
            "  M         UB on Vector [16] per tile <- S.ub (vector)\n"
            "  MT        UB on Vector [16] per tile <- S.ub (vector)\n"
            "  A         UB on Vector [16] per key tile, 3 copies <- M (vector), MT (vector)\n"
            "  P         UB on Vector [16 x 64] per key tile <- S.ub (vector), M (vector)\n"
            "  LT        UB on Vector [16] per tile <- P (vector)\n"
            "  L         UB on Vector [16] per tile <- A (vector), LT (vector)\n"
            "  P.ws      GM workspace on MTE3 per key tile, 3 copies <- P (copy)\n"
            "  SP        UB on Vector [16 x 8] per key tile <- A (vector)\n"
            "  O.acc     UB on Vector [16 x 64] per tile <- PV.ub (vector), A (vector)\n"
            "  O.ub      UB on Vector [16 x 64] per tile <- O.acc (vector), L (vector)\n"
            "  attention GM on MTE3 <- O.ub (copy)\n");
}

TEST(StageGraph, Matmul) {
  auto o = mm(300, 200, 1000);
  kernels::Matmul m = kernels::matmul(o, test::chip());
  EXPECT_EQ(sched::stage_graph(sched::plan_contraction(m.out, test::chip())).str(),
            "stages of C:\n"
            "  A     GM (given)\n"
            "  B     GM (given)\n"
            "  A.l1  L1 on MTE2 [32 x 64] per L1 chunk of k, 4 copies <- A (nd2nz)\n"
            "  B.l1  L1 on MTE2 [64 x 80] per L1 chunk of k, 4 copies <- B (nd2nz)\n"
            "  A.l0a L0A on MTE1 [32 x 64] per L0 step of k, 2 copies <- A.l1 (load2d)\n"
            "  B.l0b L0B on MTE1 [64 x 80] per L0 step of k, 2 copies <- B.l1 (load2d)\n"
            "  C     L0C on Cube [32 x 80] per tile <- A.l0a (mmad), B.l0b (mmad)\n"
            "  C.ub  UB on Vector [32 x 80] per strip, 2 copies <- C (mov_l0c_ub)\n"
            "  C.gm  GM on MTE3 <- C.ub (copy)\n");
}

TEST(StageGraph, MixedEpilogueOnASplitChip) {
  const ChipConfig chip = load_chip("ascend910b2");
  auto o = mm(77, 131, 45);
  o.epilogue = {"bias", "gelu"}, o.out = DType::f16;
  kernels::Matmul m = kernels::matmul(o, chip);
  sched::ContractionPlan plan = sched::plan_contraction(m.c, chip);
  sched::attach_epilogue(plan, m.out);
  EXPECT_EQ(sched::stage_graph(plan).str(),
            "stages of D:\n"
            "  A           GM (given)\n"
            "  B           GM (given)\n"
            "  A.l1        L1 on MTE2 [16 x 45] per tile, 4 copies <- A (nd2nz)\n"
            "  B.l1        L1 on MTE2 [45 x 16] per tile, 4 copies <- B (nd2nz)\n"
            "  A.l0a       L0A on MTE1 [16 x 45] per tile, 2 copies <- A.l1 (load2d)\n"
            "  B.l0b       L0B on MTE1 [45 x 16] per tile, 2 copies <- B.l1 (load2d)\n"
            "  C           L0C on Cube [16 x 16] per tile <- A.l0a (mmad), B.l0b (mmad)\n"
            "  C.workspace GM workspace on FixPipe [16 x 16] per tile, 2 copies <- C (fixpipe)\n"
            "  C.ub        UB on MTE2 [rows x 16] per strip of rows, 2 copies <- C.workspace (cross-core)\n"
            "  D           UB on Vector [rows x 16] per strip of rows, 2 copies <- C.ub (vector), bias.ub (vector)\n"
            "  bias        GM (given)\n"
            "  bias.ub     UB on MTE2 [16] per tile <- bias (copy)\n"
            "  D.gm        GM on MTE3 <- D (copy)\n");
}

TEST(StageGraph, ConvWithResidual) {
  kernels::Conv2dOptions o;
  o.c = 20, o.h = 9, o.w = 9, o.k = 24, o.pad = 1, o.epilogue = {"bn", "residual", "relu"};
  kernels::Conv2d cv = kernels::conv2d(o, test::chip());
  sched::ContractionPlan plan = sched::plan_conv(cv.conv, test::chip());
  sched::attach_epilogue(plan, cv.out);
  EXPECT_EQ(sched::stage_graph(plan).str(),
            "stages of Y:\n"
            "  X        GM (given)\n"
            "  W        GM (given)\n"
            "  X.l1     L1 on MTE2 [2 x 3 x 9 x 16] per tile, 4 copies <- X (copy)\n"
            "  W.l1     L1 on MTE2 [288 x 16] per tile, 4 copies <- W (copy)\n"
            "  X.l0a    L0A on MTE1 [9 x 288] per tile, 2 copies <- X.l1 (load3d)\n"
            "  W.l0b    L0B on MTE1 [288 x 16] per tile, 2 copies <- W.l1 (load2d)\n"
            "  conv     L0C on Cube [9 x 16] per tile <- X.l0a (mmad), W.l0b (mmad)\n"
            "  conv.ub  UB on Vector [9 x 16] per strip <- conv (mov_l0c_ub)\n"
            "  Y        UB on Vector [9 x 16] per strip, 2 copies <- conv.ub (vector), scale.ub (vector), shift.ub "
            "(vector), R.ub (vector)\n"
            "  scale    GM (given)\n"
            "  scale.ub UB on MTE2 [16] per tile, 2 copies <- scale (copy)\n"
            "  shift    GM (given)\n"
            "  shift.ub UB on MTE2 [16] per tile, 2 copies <- shift (copy)\n"
            "  R        GM (given)\n"
            "  R.ub     UB on MTE2 [9 x 16] per strip <- R (copy)\n"
            "  Y.gm     GM on MTE3 <- Y (copy)\n");
}

TEST(StageGraph, VectorKernels) {
  kernels::VectorOptions o;
  o.shape = {64, 300};
  kernels::VectorKernel ln = kernels::vector_kernel("layernorm", o);
  EXPECT_EQ(sched::stage_graph(sched::plan_vector(ln.out, test::chip())).str(),
            "stages of layernorm:\n"
            "  X            GM (given)\n"
            "  X.ub         UB on MTE2 [rows x 300] per tile, 2 copies <- X (copy)\n"
            "  gamma        GM (given)\n"
            "  gamma.ub     UB on MTE2 [300] per core <- gamma (copy)\n"
            "  beta         GM (given)\n"
            "  beta.ub      UB on MTE2 [300] per core <- beta (copy)\n"
            "  x_f32        UB on Vector [rows x 300] per tile <- X.ub (vector)\n"
            "  mean         UB on Vector [rows] per tile <- x_f32 (vector)\n"
            "  deviation    UB on Vector [rows x 300] per tile <- x_f32 (vector), mean (vector)\n"
            "  variance     UB on Vector [rows] per tile <- deviation (vector)\n"
            "  inv_std      UB on Vector [rows] per tile <- variance (vector)\n"
            "  layernorm    UB on Vector [rows x 300] per tile, 2 copies <- gamma.ub (vector), beta.ub (vector), "
            "deviation (vector), inv_std (vector)\n"
            "  layernorm.gm GM on MTE3 <- layernorm (copy)\n");
  o.shape = {4096, 64};
  kernels::VectorKernel add = kernels::vector_kernel("add", o);
  EXPECT_EQ(sched::stage_graph(sched::plan_vector(add.out, test::chip())).str(),
            "stages of add:\n"
            "  X      GM (given)\n"
            "  X.ub   UB on MTE2 [elements] per tile, 2 copies <- X (copy)\n"
            "  Y      GM (given)\n"
            "  Y.ub   UB on MTE2 [elements] per tile, 2 copies <- Y (copy)\n"
            "  add    UB on Vector [elements] per tile, 2 copies <- X.ub (vector), Y.ub (vector)\n"
            "  add.gm GM on MTE3 <- add (copy)\n");
}

// The graph a compiled kernel reports is the one it was lowered from: its tile rows (elements
// when flat) and its strips as the fit chose them, never "to be chosen".
TEST(StageGraph, TheCompiledGraphHasItsTilesChosen) {
  kernels::VectorOptions o;
  o.shape = {64, 300};
  std::string ln = codegen::compile(kernels::vector_kernel("layernorm", o).out, test::chip()).stages;
  EXPECT_EQ(ln.find("[rows"), std::string::npos) << ln;
  EXPECT_NE(ln.find(" x 300] per tile, 2 copies <- X (copy)"), std::string::npos) << ln;
  o.shape = {4096, 64};
  std::string add = codegen::compile(kernels::vector_kernel("add", o).out, test::chip()).stages;
  EXPECT_EQ(add.find("elements"), std::string::npos) << add;
  const ChipConfig split = load_chip("ascend910b2");
  auto mm = test::mm(77, 131, 45);
  mm.epilogue = {"bias", "gelu"}, mm.out = DType::f16;
  std::string epi = codegen::compile(kernels::matmul(mm, split).out, split).stages;
  EXPECT_EQ(epi.find("[rows"), std::string::npos) << epi;  // the vector cores' strips of rows, sized
}

TEST(StageGraph, MaxPool) {
  kernels::Pool2dOptions o;
  o.n = 2, o.c = 40, o.h = 17, o.w = 17, o.kh = 3, o.stride = 2, o.pad = 1, o.rows = 3;
  kernels::Pool2d p = kernels::pool2d(o, test::chip());
  EXPECT_EQ(sched::stage_graph(sched::plan_pool(p.out, test::chip())).str(),
            "stages of Y:\n"
            "  X    GM (given)\n"
            "  X.ub UB on MTE2 [1 x 7 x 17 x 16] per tile, 2 copies <- X (copy)\n"
            "  Y    UB on Vector [1 x 3 x 9 x 16] per tile, 2 copies <- X.ub (vector)\n"
            "  Y.gm GM on MTE3 <- Y (copy)\n");
}

// Each stage into the cube sizes its own buffer from its form: fractals of 16 rows by 32 bytes
// (NZ), of 32 bytes of k by 16 columns (ZN), FRACTAL_Z weights, NC1HWC0 rows of every stacked
// image, and L0C's 16 x 16 fractals of f32. The sizes written here from the layouts' definitions.
TEST(StageGraph, SizesTheCubesBuffersByTheirForm) {
  auto bytes = [](const sched::StageGraph& g, const std::string& name) {
    for (const sched::GraphStage& s : g.stages)
      if (s.name == name) return sched::stage_bytes(s);
    ADD_FAILURE() << "no stage " << name;
    return int64_t(0);
  };
  auto up = [](int64_t x, int64_t to) { return (x + to - 1) / to * to; };
  for (DType in : {DType::f16, DType::s8}) {
    auto o = test::mm(40, 72, 100);
    o.in = in;
    if (in == DType::s8) o.out = DType::s32, o.transpose_b = true;  // B as (n, k): 8-bit fractals hold 32 of k
    kernels::Matmul m = kernels::matmul(o, test::chip());
    sched::ContractionPlan p = sched::plan_contraction(m.out, test::chip());
    sched::StageGraph g = sched::stage_graph(p);
    const int64_t size = dtype_size(in), c0 = 32 / size;
    SCOPED_TRACE(dtype_name(in));
    EXPECT_EQ(bytes(g, "A.l1"), up(p.tm, 16) * up(p.tk_l1, c0) * size);
    EXPECT_EQ(bytes(g, "B.l1"), in == DType::s8 ? up(p.tn, 16) * up(p.tk_l1, c0) * size : up(p.tk_l1, 16) * up(p.tn, c0) * size);
    EXPECT_EQ(bytes(g, "A.l0a"), up(p.tm, 16) * up(p.tk_l0, c0) * size);
    EXPECT_EQ(bytes(g, "B.l0b"), up(p.tk_l0, c0) * up(p.tn, 16) * size);
    EXPECT_EQ(bytes(g, "C"), up(p.tm, 16) * up(p.tn, 16) * 4);
  }
  kernels::Conv2dOptions o;  // 1x1 over 7x7 maps, 4 images stacked per tile
  o.n = 8, o.c = 64, o.h = 7, o.w = 7, o.k = 40, o.kh = 1, o.kw = 1, o.images = 4;
  kernels::Conv2d cv = kernels::conv2d(o, test::chip());
  sched::ContractionPlan p = sched::plan_conv(cv.conv, test::chip());
  ASSERT_EQ(p.c.g.images, 4);
  sched::StageGraph g = sched::stage_graph(p);
  EXPECT_EQ(bytes(g, "X.l1"), p.tk_l1 / 16 * (4 * 7) * 7 * 32);  // channel blocks x 4 images' rows x W x 32 B
  EXPECT_EQ(bytes(g, "W.l1"), p.tk_l1 * 48 * 2);                 // k x n rounded to 16, f16
  // A split chip's vector cores: strips of 5 rows of the tile's columns rounded to 16, whole
  // 32 B blocks; a per-column input (f32) of a tile width.
  const ChipConfig split = load_chip("ascend910b2");
  auto o2 = test::mm(77, 131, 45);
  o2.epilogue = {"bias", "gelu"}, o2.out = DType::f16;
  kernels::Matmul mm = kernels::matmul(o2, split);
  sched::ContractionPlan mixed = sched::plan_contraction(mm.c, split);
  sched::attach_epilogue(mixed, mm.out);
  ASSERT_TRUE(mixed.vector_epilogue);
  sched::StageGraph v = sched::stage_graph(mixed, 5);
  EXPECT_EQ(bytes(v, "C.ub"), 5 * up(mixed.tn, 16) * 4);
  EXPECT_EQ(bytes(v, "D"), up(5 * up(mixed.tn, 16) * 2, 32));
  EXPECT_EQ(bytes(v, "bias.ub"), up(up(mixed.tn, 16) * 4, 32));  // bias is f32
}

// The graph's tiles are chosen before the lowering (codegen/fit.h): lowering a graph whose tile
// rows are still to be fitted is an internal error, not a guess.
TEST(LowerStages, NeedsTheGraphsTilesChosen) {
  kernels::VectorOptions o;
  o.shape = {64, 300};
  kernels::VectorKernel add = kernels::vector_kernel("add", o);
  sched::StageGraph g = sched::stage_graph(sched::plan_vector(add.out, test::chip()));
  ASSERT_EQ(g.row_tiles.tile_rows, 0);
  EXPECT_THROW(codegen::lower_stages(g, test::chip()), InternalError);
}

}  // namespace
}  // namespace cubekit
