// multi_buffer(UB, n) on the vector unit's kernels (the vector path and pooling): each tile buffer
// has n copies and tile w + n - 1 is filled while tile w is used (codegen/tile_loop.h). On one
// core, so that every copy is filled ahead inside the loop many times over: every copy count
// computes what Halide does and is checker-clean (no race between a fill and the use of the copy
// it reuses), on every preset; the stage graph says how many copies; a deeper fill never costs
// cycles over double buffering on a kernel whose tiles all fit.
#include "codegen_test_util.h"
#include "codegen/lower.h"
#include "kernels/pool.h"
#include "kernels/vector.h"

#include <gtest/gtest.h>

namespace cubekit {
namespace multi_buffer_test {

struct Case {
  const char* kernel;
  std::vector<int64_t> shape;
  DType dtype;
};

// On one core, in tiles of 4 rows (the row kernels) or the most UB holds (the flat ones: a few).
kernels::VectorKernel with_copies(const Case& c, int copies) {
  kernels::VectorOptions o;
  o.shape = c.shape, o.dtype = c.dtype, o.copies = copies, o.use_cores = false;
  if (c.shape.size() > 1 && std::string(c.kernel) != "add") o.tile_rows = 4;
  return kernels::vector_kernel(c.kernel, o);
}

void expect_correct(const dsl::Func& f, const ChipConfig& chip, const std::string& what) {
  kernels::KernelRun run = kernels::compile_and_run(f, chip, {.seed = 11});
  EXPECT_TRUE(run.sim.report.clean()) << what << ": " << test::describe(run);
  ASSERT_TRUE(run.checked) << what;
  EXPECT_TRUE(run.check.pass) << what << ": " << run.check.mismatches << " mismatches, max abs error " << run.check.max_abs;
}

TEST(MultiBuffer, VectorKernelsMatchHalideWithEveryCopyCountOnEveryPreset) {
  const Case cases[] = {{"softmax", {37, 300}, DType::f16}, {"add", {100, 3000}, DType::f32}, {"sum", {77, 130}, DType::f16},
                        {"gelu", {200000}, DType::f16}};
  for (const char* preset : {"ascend910", "ascend910b2", "ascend950pr"}) {
    const ChipConfig chip = load_chip(preset);
    for (const Case& c : cases)
      for (int copies : {1, 3, 4}) {
        kernels::VectorKernel k = with_copies(c, copies);
        std::string what = fmt::format("{} {} copies on {}", c.kernel, copies, preset);
        expect_correct(k.out, chip, what);
        Program program = codegen::compile(k.out, chip).program;
        EXPECT_EQ(program.block_dim, 1) << what;
        std::string graph = codegen::compile(k.out, chip).stages;
        if (copies > 1) {
          EXPECT_NE(graph.find(fmt::format("{} copies", copies)), std::string::npos) << what << "\n" << graph;
        }
      }
  }
}

TEST(MultiBuffer, PoolingMatchesHalideWithThreeCopies) {
  for (const char* preset : {"ascend910", "ascend910b2"}) {
    const ChipConfig chip = load_chip(preset);
    kernels::Pool2dOptions o;
    o.n = 2, o.c = 32, o.h = 17, o.w = 17, o.kh = 3, o.stride = 2, o.pad = 1, o.rows = 2, o.double_buffer = false,
    o.use_cores = false;  // 20 tiles on one core
    kernels::Pool2d p = kernels::pool2d(o, chip);
    p.out.multi_buffer(dsl::Level::UB, 3);
    expect_correct(p.out, chip, fmt::format("max_pool2d, 3 copies on {}", preset));
  }
}

// With three copies every synchronisation instruction is still needed: deleting any executed one
// is reported (a race, a flag left set, a deadlock).
TEST(MultiBuffer, DeletingAnyExecutedSynchronisationOfThreeCopiesIsReported) {
  for (const char* preset : {"ascend910", "ascend910b2"}) {
    const ChipConfig chip = load_chip(preset);
    kernels::VectorKernel k = with_copies({"softmax", {24, 128}, DType::f16}, 3);
    Program p = parse_program(print_program(codegen::compile(k.out, chip).program));
    test::expect_every_sync_needed(p, chip, "softmax, 3 copies", 10);
  }
}

// Many small tiles on one core, where the fills are the limit: a third copy lets MTE2 run two
// fills ahead; it must never make the kernel slower than two copies.
TEST(MultiBuffer, ADeeperFillIsNeverSlowerThanDoubleBuffering) {
  const ChipConfig& chip = test::chip();
  Case c{"softmax", {256, 1024}, DType::f16};
  kernels::VectorOptions o;
  o.shape = c.shape, o.dtype = c.dtype, o.tile_rows = 2;
  kernels::VectorKernel two = kernels::vector_kernel(c.kernel, o);
  o.double_buffer = false;
  kernels::VectorKernel three = kernels::vector_kernel(c.kernel, o);
  three.out.multi_buffer(dsl::Level::UB, 3);
  kernels::RunSettings timing{.reference = false};
  timing.sim.timing_only = true;
  uint64_t c2 = kernels::compile_and_run(two.out, chip, timing).sim.report.cycles;
  uint64_t c3 = kernels::compile_and_run(three.out, chip, timing).sim.report.cycles;
  std::printf("softmax 256x1024 f16, 2-row tiles: %llu cycles with 2 copies, %llu with 3\n", (unsigned long long)c2,
              (unsigned long long)c3);
  EXPECT_LE(c3, c2);
}

}  // namespace multi_buffer_test
}  // namespace cubekit
