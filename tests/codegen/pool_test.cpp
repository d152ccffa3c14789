// The pooling path (schedules/pool.h, codegen/lower_pool.h): max, average and global average
// pooling of every shape and schedule kind (row bands with padding at the map's edges, whole
// planes per tile, f16 and f32, strides, dilation, single taps), each against the Halide reference
// (and naive loops written here) and checker-clean, on every chip preset.
#include "codegen/lower.h"
#include "codegen_test_util.h"
#include "emulator/dtype.h"
#include "emulator/rounding.h"
#include "emulator/error.h"
#include "kernels/check.h"
#include "kernels/pool.h"
#include "schedules/pool.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace cubekit {
namespace {

using kernels::Pool2dOptions;
using test::describe;

double decode(DType t, const uint8_t* p) {
  if (t == DType::f16) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return f16_to_f32(h);
  }
  float f;
  std::memcpy(&f, p, 4);
  return f;
}

Pool2dOptions pool(Pool2dOptions::Kind kind, int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t stride,
                   int64_t pad) {
  Pool2dOptions o;
  o.kind = kind, o.n = n, o.c = c, o.h = h, o.w = w, o.kh = k, o.stride = stride, o.pad = pad;
  return o;
}
Pool2dOptions max_pool(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t s, int64_t p) {
  return pool(Pool2dOptions::Kind::Max, n, c, h, w, k, s, p);
}
Pool2dOptions avg_pool(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t s, int64_t p) {
  return pool(Pool2dOptions::Kind::Avg, n, c, h, w, k, s, p);
}
Pool2dOptions global(int64_t n, int64_t c, int64_t h, int64_t w, DType t = DType::f16) {
  Pool2dOptions o;
  o.global = true, o.kind = Pool2dOptions::Kind::Avg, o.n = n, o.c = c, o.h = h, o.w = w, o.dtype = t;
  return o;
}

std::string name(const Pool2dOptions& o) {
  return fmt::format("{} n{} c{} {}x{} k{}x{} s{}x{} p{}x{} d{}x{} rows{} {}", o.global ? "global" : o.kind == Pool2dOptions::Kind::Max ? "max" : "avg",
                     o.n, o.c, o.h, o.w, o.kh, o.win_w(), o.sh(), o.sw(), o.pad, o.pw(), o.dilation, o.dw(), o.rows,
                     dtype_name(o.dtype));
}

// Naive loops over NCHW, in f64 (max is exact; the average within the dtype's tolerance).
std::vector<double> naive(const Pool2dOptions& o, const std::vector<double>& x, int64_t oh, int64_t ow) {
  const bool max = !o.global && o.kind == Pool2dOptions::Kind::Max;
  const int64_t kh = o.global ? o.h : o.kh, kw = o.global ? o.w : o.win_w();
  const int64_t sh = o.global ? 1 : o.sh(), sw = o.global ? 1 : o.sw(), ph = o.global ? 0 : o.pad, pw = o.global ? 0 : o.pw();
  const int64_t dh = o.global ? 1 : o.dilation, dw = o.global ? 1 : o.dw();
  std::vector<double> y(size_t(o.n * o.c * oh * ow));
  for (int64_t p = 0; p < o.n * o.c; ++p)
    for (int64_t r = 0; r < oh; ++r)
      for (int64_t q = 0; q < ow; ++q) {
        double acc = max ? -INFINITY : 0;
        for (int64_t i = 0; i < kh; ++i)
          for (int64_t j = 0; j < kw; ++j) {
            int64_t yy = r * sh + i * dh - ph, xx = q * sw + j * dw - pw;
            double v = yy < 0 || yy >= o.h || xx < 0 || xx >= o.w ? (max ? -INFINITY : 0) : x[size_t((p * o.h + yy) * o.w + xx)];
            acc = max ? std::max(acc, v) : acc + v;
          }
        y[size_t((p * oh + r) * ow + q)] = max ? acc : acc / double(kh * kw);
      }
  return y;
}

void expect_correct(const Pool2dOptions& o, const ChipConfig& chip) {
  SCOPED_TRACE(name(o) + " on " + chip.name);
  kernels::Pool2d p = kernels::pool2d(o, chip);
  kernels::KernelRun run = kernels::compile_and_run(p.out, chip, {.seed = 5});
  ASSERT_TRUE(run.checked);
  EXPECT_TRUE(run.check.pass) << "max abs " << run.check.max_abs << ", " << run.check.mismatches << " mismatches";
  if (!o.global && o.kind == Pool2dOptions::Kind::Max) {
    EXPECT_TRUE(run.check.bit_exact);
  }
  EXPECT_TRUE(run.sim.report.diagnostics.empty()) << describe(run);
  // And against loops written here, on the input the run was given (read back from GM).
  std::vector<uint8_t> xb = run.result("X"), yb = run.result("Y");
  const int64_t s = dtype_size(o.dtype);
  std::vector<double> x(xb.size() / size_t(s)), y(yb.size() / size_t(s));
  for (size_t i = 0; i < x.size(); ++i) x[i] = decode(o.dtype, xb.data() + i * size_t(s));
  for (size_t i = 0; i < y.size(); ++i) y[i] = decode(o.dtype, yb.data() + i * size_t(s));
  std::vector<double> want = naive(o, x, p.oh, p.ow);
  ASSERT_EQ(want.size(), y.size());
  const double tol = o.dtype == DType::f16 ? 2e-3 : 1e-5;
  int64_t bad = 0;
  for (size_t i = 0; i < y.size(); ++i) bad += std::abs(y[i] - want[i]) > tol * (1 + std::abs(want[i]));
  EXPECT_EQ(bad, 0) << "elements off the naive loops";
}

struct Case {
  const char* name;
  Pool2dOptions o;
};

const std::vector<Case> kCases = {
    {"ResNetStem3x3s2", max_pool(1, 64, 24, 24, 3, 2, 1)},
    {"MaxOddMap", max_pool(2, 20, 13, 11, 3, 2, 1)},
    {"Max2x2NoPad", max_pool(1, 16, 8, 8, 2, 2, 0)},
    {"MaxStride1", max_pool(1, 8, 9, 10, 3, 1, 1)},
    {"MaxSingleTap", max_pool(1, 16, 5, 5, 1, 1, 0)},
    {"MaxDilated", [] { auto o = max_pool(1, 16, 12, 12, 3, 1, 2); o.dilation = 2; return o; }()},
    {"MaxWide", [] { auto o = max_pool(1, 16, 9, 70, 3, 2, 1); o.kw = 2, o.stride_w = 3, o.pad_w = 1; return o; }()},
    {"MaxF32", [] { auto o = max_pool(1, 24, 10, 10, 3, 2, 1); o.dtype = DType::f32; return o; }()},
    {"MaxRowsSchedule", [] { auto o = max_pool(1, 32, 17, 17, 3, 2, 1); o.rows = 3; return o; }()},
    {"MaxNaive", [] { auto o = max_pool(2, 16, 9, 9, 3, 2, 1); o.schedule = Pool2dOptions::Schedule::Naive; return o; }()},
    {"Avg3x3", avg_pool(1, 16, 9, 9, 3, 2, 1)},
    {"Avg2x2", avg_pool(2, 40, 8, 6, 2, 2, 0)},
    {"AvgF32", [] { auto o = avg_pool(1, 8, 7, 7, 3, 1, 1); o.dtype = DType::f32; return o; }()},
    {"GlobalResNet", global(2, 64, 7, 7)},
    {"GlobalWide", global(1, 16, 14, 14)},
    {"GlobalF32", global(3, 24, 5, 6, DType::f32)},
    // One output row, whole planes a tile: the taps over the top padding read no plane.
    {"OneRowPadded", [] { auto o = max_pool(4, 40, 2, 9, 3, 2, 1); o.use_cores = false; return o; }()},
    {"OneRowPaddedAvg", [] { auto o = avg_pool(3, 24, 2, 2, 2, 2, 1); o.use_cores = false; return o; }()},
    // A window wider than the map: for output column 0 the last tap is past the input's end (its
    // column over the stride was rounded towards zero into column 0, and read unwritten UB).
    {"WindowWiderThanMap", max_pool(1, 16, 1, 1, 3, 3, 1)},
    {"WindowWiderThanMapAvg", avg_pool(2, 16, 3, 1, 3, 3, 1)},
    {"WindowWiderThanMapRows", [] { auto o = max_pool(1, 16, 1, 5, 3, 3, 1); o.kw = 1, o.stride_w = 1, o.pad_w = 0; return o; }()},
};

class PoolCases : public testing::TestWithParam<Case> {};

TEST_P(PoolCases, MatchesHalideAndNaiveLoopsOnEveryPreset) {
  for (const char* preset : {"ascend910", "ascend910b2", "ascend950pr"}) expect_correct(GetParam().o, load_chip(preset));
}
INSTANTIATE_TEST_SUITE_P(Shapes, PoolCases, testing::ValuesIn(kCases), [](const auto& i) { return std::string(i.param.name); });

// A max pool's padding is -inf: a map of negative values keeps them (zero padding would not).
TEST(Pool, MaxPaddingIsMinusInfinity) {
  ChipConfig chip = load_chip("ascend910");
  kernels::Pool2d p = kernels::pool2d(max_pool(1, 16, 6, 6, 3, 2, 1), chip);
  kernels::RunSettings s;
  s.inputs = [](GlobalMemory& gm) {
    std::vector<uint8_t>& x = gm.bytes("X");
    for (size_t i = 0; i < x.size(); i += 2) {
      uint16_t h = f32_to_f16(-1.0f - float(i % 7));
      std::memcpy(x.data() + i, &h, 2);
    }
  };
  kernels::KernelRun run = kernels::compile_and_run(p.out, chip, s);
  ASSERT_TRUE(run.checked);
  EXPECT_TRUE(run.check.bit_exact);
  std::vector<uint8_t> y = run.result("Y");
  for (size_t i = 0; i < y.size(); i += 2) EXPECT_LT(decode(DType::f16, y.data() + i), 0);
}

// A min pooling written in the DSL (padded with +inf, as torch's -max_pool2d(-x) is): vmin over the
// taps, against loops written here and the reference, on every preset (it used to be refused as a
// row reduction over two variables).
TEST(Pool, MinPoolingWrittenInTheDsl) {
  for (const char* preset : {"ascend910", "ascend910b2", "ascend950pr"}) {
    SCOPED_TRACE(preset);
    const ChipConfig chip = load_chip(preset);
    constexpr int64_t C = 20, H = 9, W = 11, OH = 5, OW = 6;  // 3x3, stride 2, padding 1
    dsl::Input X("X", DType::f16, {2, C, H, W});
    dsl::Var n("n"), c("c"), y("y"), x("x");
    dsl::RDom r({{0, 3}, {0, 3}}, "r");
    auto P = dsl::BoundaryConditions::constant_exterior(X, std::numeric_limits<double>::infinity());
    dsl::Func Y("Y");
    Y(n, c, y, x) = dsl::minimum(P(n, c, y * 2 + r.y - 1, x * 2 + r.x - 1));
    Y.bound(y, 0, OH).bound(x, 0, OW);
    Y.cores({y}).double_buffer();
    kernels::KernelRun run = kernels::compile_and_run(Y, chip, {.seed = 3});
    ASSERT_TRUE(run.checked);
    EXPECT_TRUE(run.check.bit_exact) << run.check.mismatches << " mismatches";
    EXPECT_TRUE(run.sim.report.diagnostics.empty()) << describe(run);
    const std::vector<uint8_t> xb = run.result("X"), yb = run.result("Y");
    for (int64_t p = 0; p < 2 * C; ++p)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          double want = INFINITY;
          for (int64_t i = 0; i < 3; ++i)
            for (int64_t j = 0; j < 3; ++j) {
              const int64_t iy = oy * 2 + i - 1, ix = ox * 2 + j - 1;
              if (iy >= 0 && iy < H && ix >= 0 && ix < W) want = std::min(want, decode(DType::f16, &xb[size_t(((p * H + iy) * W + ix) * 2)]));
            }
          ASSERT_EQ(decode(DType::f16, &yb[size_t(((p * OH + oy) * OW + ox) * 2)]), want) << p << " " << oy << " " << ox;
        }
  }
}

// Random shapes, windows and tile sizes: every one correct and checker-clean.
TEST(PoolRandom, EveryAcceptedScheduleIsCorrect) {
  std::mt19937 rng(12);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const char* presets[] = {"ascend910", "ascend910b2", "ascend950pr"};
  for (int i = 0; i < 24; ++i) {
    Pool2dOptions o = pool(pick(0, 1) ? Pool2dOptions::Kind::Max : Pool2dOptions::Kind::Avg, pick(1, 2), pick(1, 40),
                           pick(3, 20), pick(3, 20), pick(1, 4), pick(1, 3), 0);
    o.kh = std::min({o.kh, o.h, o.w});
    o.pad = pick(0, o.kh / 2);
    o.kw = pick(1, std::min<int64_t>(4, o.w)), o.pad_w = pick(0, o.kw / 2), o.stride_w = pick(1, 3);
    if (o.kind == Pool2dOptions::Kind::Max && pick(0, 2) == 0) o.dilation = 2, o.pad = std::min(o.pad, o.kh), o.pad_w = std::min<int64_t>(o.pad_w, o.kw);
    if (pick(0, 1)) o.dtype = DType::f32;
    if (pick(0, 2) == 0) o.rows = pick(1, 4);
    if (pick(0, 3) == 0) o.double_buffer = false;
    if (pick(0, 3) == 0) o.use_cores = false;  // whole planes a tile, several of them
    if (pick(0, 3) == 0) o.global = true;
    try {
      expect_correct(o, load_chip(presets[i % 3]));
    } catch (const UserError& e) {  // a random shape the options refuse (a window past the map)
      SCOPED_TRACE(name(o));
      EXPECT_TRUE(std::string(e.what()).find("pool") != std::string::npos) << e.what();
    }
  }
}

// Deleting any executed synchronisation instruction of a pooling kernel is reported.
TEST(PoolMutation, DeletingAnyExecutedSynchronisationIsReported) {
  for (const char* preset : {"ascend910", "ascend910b2"}) {
    ChipConfig chip = load_chip(preset);
    Pool2dOptions o = max_pool(1, 32, 12, 12, 3, 2, 1);
    o.rows = 2, o.use_cores = false;
    kernels::Pool2d p = kernels::pool2d(o, chip);
    Program prog = parse_program(print_program(codegen::compile(p.out, chip).program));
    test::expect_every_sync_needed(prog, chip, "generated pool", 20);
  }
}

}  // namespace
}  // namespace cubekit
