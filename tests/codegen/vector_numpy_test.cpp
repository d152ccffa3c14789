// The numpy-habit vector kernels against the Halide reference: binary kernels on every kind of
// broadcast the vector path reads (a column, a row, leading 1s, rank mismatch, a scalar on either
// side, f16 with f32), reductions as outputs (per-row Funcs, from the kernels and written by
// hand) under every schedule, and how broadcast_view reads each operand.
#include "codegen_test_util.h"
#include "emulator/error.h"
#include "kernels/check.h"
#include "kernels/vector.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

namespace cubekit {
namespace {

using test::chip;
using test::describe;
using Read = kernels::BroadcastView::Read;

void expect_matches_halide(const dsl::Func& f, uint64_t seed = 3) {
  kernels::KernelRun run = kernels::compile_and_run(f, chip(), {.seed = seed});
  EXPECT_TRUE(run.sim.report.clean()) << describe(run);
  ASSERT_TRUE(run.checked);
  EXPECT_TRUE(run.check.pass) << run.check.mismatches << " mismatches, max abs error " << run.check.max_abs;
}

// ---- binary kernels with broadcasting ----

struct BroadcastCase {
  const char* name;
  std::vector<int64_t> x, y;
  int64_t rows, cols;  // the view broadcast_view reads them in
  Read rx, ry;
};
void PrintTo(const BroadcastCase& c, std::ostream* os) { *os << c.name; }

const std::vector<BroadcastCase>& broadcast_cases() {
  static const std::vector<BroadcastCase> cases = {
      {"Column", {37, 45}, {37, 1}, 37, 45, Read::Full, Read::Row},
      {"Row", {37, 45}, {45}, 37, 45, Read::Full, Read::Col},
      {"RowWithLeadingOne", {37, 45}, {1, 45}, 37, 45, Read::Full, Read::Col},
      {"RowFirst", {45}, {37, 45}, 37, 45, Read::Col, Read::Full},
      {"RankMismatch", {3, 5, 77}, {5, 77}, 3, 385, Read::Full, Read::Col},
      {"LeadingOnes", {1, 1, 5, 77}, {3, 1, 5, 77}, 3, 385, Read::Col, Read::Full},
      {"ColumnOf3D", {3, 5, 77}, {3, 5, 1}, 15, 77, Read::Full, Read::Row},
      {"ColumnOfLeadingDim", {3, 5, 77}, {3, 1, 1}, 3, 385, Read::Full, Read::Row},
  };
  return cases;
}

class Broadcast : public testing::TestWithParam<BroadcastCase> {};

TEST_P(Broadcast, ReadsEachOperandOnceAndMatchesHalide) {
  const BroadcastCase& c = GetParam();
  kernels::BroadcastView v = kernels::broadcast_view(c.x, c.y);
  ASSERT_TRUE(v.ok);
  EXPECT_EQ(v.rows, c.rows);
  EXPECT_EQ(v.cols, c.cols);
  EXPECT_EQ(v.x, c.rx);
  EXPECT_EQ(v.y, c.ry);
  for (const char* name : {"add", "sub", "mul", "div", "maximum", "minimum"})
    for (DType t : {DType::f16, DType::f32}) {
      SCOPED_TRACE(fmt::format("{} {}", name, dtype_name(t)));
      kernels::VectorOptions o;
      o.shape = c.x, o.y_shape = c.y, o.dtype = t;
      kernels::VectorKernel k = kernels::vector_kernel(name, o);
      std::vector<int64_t> expect = {c.rows, c.cols};
      EXPECT_EQ(k.out.shape(), expect);
      expect_matches_halide(k.out);
    }
}

INSTANTIATE_TEST_SUITE_P(Vector, Broadcast, testing::ValuesIn(broadcast_cases()),
                         [](const testing::TestParamInfo<BroadcastCase>& i) { return std::string(i.param.name); });

TEST(BroadcastView, RefusesWhatNeedsAFullCopy) {
  EXPECT_FALSE(kernels::broadcast_view({7, 1}, {1, 9}).ok);         // outer: neither has the result's shape
  EXPECT_FALSE(kernels::broadcast_view({3, 1, 9}, {3, 4, 9}).ok);   // in the middle
  EXPECT_FALSE(kernels::broadcast_view({1}, {40}).ok);              // one element: a scalar
}

TEST(BroadcastShape, IsNumpys) {
  EXPECT_EQ(kernels::broadcast_shape({3, 1, 5}, {4, 1}, "t"), (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(kernels::broadcast_shape({1}, {2, 3}, "t"), (std::vector<int64_t>{2, 3}));
  EXPECT_THROW(kernels::broadcast_shape({3}, {4}, "t"), UserError);
}

TEST(Scalar, OnEitherSideInBothTypes) {
  for (const char* name : {"add", "sub", "mul", "div", "maximum", "minimum"})
    for (DType t : {DType::f16, DType::f32})
      for (bool first : {false, true}) {
        SCOPED_TRACE(fmt::format("{} {} first {}", name, dtype_name(t), first));
        kernels::VectorOptions o;
        o.shape = {9, 131}, o.dtype = t, o.scalar = 0.375, o.scalar_first = first;
        kernels::VectorKernel k = kernels::vector_kernel(name, o);
        EXPECT_EQ(k.inputs.size(), 1u);  // the constant is an immediate, not a tensor
        expect_matches_halide(k.out);
      }
}

TEST(MixedTypes, F16WithF32GivesF32) {
  for (std::vector<int64_t> y : {std::vector<int64_t>{21, 100}, std::vector<int64_t>{100}, std::vector<int64_t>{21, 1}}) {
    kernels::VectorOptions o;
    o.shape = {21, 100}, o.dtype = DType::f16, o.y_shape = y, o.y_dtype = DType::f32;
    kernels::VectorKernel k = kernels::vector_kernel("mul", o);
    EXPECT_EQ(k.out.type().dtype, DType::f32);
    expect_matches_halide(k.out);
  }
}

// ---- reductions as outputs ----

TEST(Reductions, EveryScheduleAndShape) {
  for (const char* name : {"sum", "max", "min", "mean"})
    for (DType t : {DType::f16, DType::f32})
      for (std::vector<int64_t> shape : {std::vector<int64_t>{1000}, std::vector<int64_t>{33, 1},
                                         std::vector<int64_t>{77, 130}, std::vector<int64_t>{3, 5, 300}})
        for (int variant = 0; variant < 3; ++variant) {
          SCOPED_TRACE(fmt::format("{} {} [{}] variant {}", name, dtype_name(t), fmt::join(shape, ", "), variant));
          kernels::VectorOptions o;
          o.shape = shape, o.dtype = t;
          if (variant == 1) o.schedule = kernels::VectorOptions::Schedule::Naive;
          if (variant == 2) o.tile_rows = 2;
          kernels::VectorKernel k = kernels::vector_kernel(name, o);
          std::vector<int64_t> rows(shape.begin(), shape.end() - 1);
          if (rows.empty()) rows = {1};
          EXPECT_EQ(k.out.shape(), rows);
          expect_matches_halide(k.out);
        }
}

TEST(Reductions, AHandWrittenPerRowFuncWithArithmetic) {
  // out(r) = sqrt(sum(x^2) / n) + max(x) - R(r): a per-row output mixing reductions and a per-row input
  dsl::Input X("X", DType::f32, {50, 70}), R("R", DType::f32, {50});
  dsl::Var r("r");
  dsl::RDom k(0, 70, "k");
  dsl::Func out("norm");
  out(r) = dsl::sqrt(dsl::sum(X(r, k) * X(r, k)) / 70.0f) + dsl::maximum(X(r, k)) - R(r);
  out.cores({r}).double_buffer();
  expect_matches_halide(out);
}

TEST(Reductions, ABroadcastReductionIsStillFull) {
  // out(r, c) = X(r, c) - sum(X(r, k)): the reduction is read per row, the output is full
  dsl::Input X("X", DType::f32, {20, 40});
  dsl::Var r("r"), c("c");
  dsl::RDom k(0, 40, "k");
  dsl::Func out("centered");
  out(r, c) = X(r, c) - dsl::sum(X(r, k));
  EXPECT_EQ(out.shape(), (std::vector<int64_t>{20, 40}));
  expect_matches_halide(out);
}

}  // namespace
}  // namespace cubekit
