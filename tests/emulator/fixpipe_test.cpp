// fixpipe (L0C -> GM / L1 on the FIX pipe) against references written here: the NZ source
// layout, the ND / NZ destinations, every conversion, the scale modes and ReLU, element by
// element; then whole matmuls ending in a fixpipe, in program order and in the timing model.
#include "harness.h"

#include "emulator/simulator.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <optional>

namespace cubekit::test {
namespace {

// The chip these tests run on: one constant, switched when per-chip availability lands.
constexpr const char* kChip = "ascend910b2";  // the FixPipe is on the split chips' cube cores


// ---- the reference --------------------------------------------------------------------------------

// The scale the chip uses: 10 mantissa bits kept (the Fixpipe reference's constraint).
double chip_scale(float f) {
  uint32_t bits = std::bit_cast<uint32_t>(f);
  return double(std::bit_cast<float>(bits & ~uint32_t(0x1fff)));
}

uint16_t f16_bits(double v) {  // the compiler's IEEE conversion, round to nearest even
  _Float16 h = _Float16(v);
  return std::bit_cast<uint16_t>(h);
}

// What one accumulator becomes (the bytes of the destination element).
std::vector<uint8_t> expected(DType from, DType to, const uint8_t* src, double scale, bool relu) {
  std::vector<uint8_t> out(size_t(dtype_size(to)));
  if (from == DType::s32 && to == DType::s32) {
    int32_t v;
    std::memcpy(&v, src, 4);
    if (relu) v = std::max(v, 0);
    std::memcpy(out.data(), &v, 4);
    return out;
  }
  double x;
  if (from == DType::f32) {
    float f;
    std::memcpy(&f, src, 4);
    x = f;
  } else {
    int32_t i;
    std::memcpy(&i, src, 4);
    x = i;
  }
  if (to == DType::f32) {
    float f = float(x);
    if (relu && !(f > 0) && !std::isnan(f)) f = 0.0f;
    std::memcpy(out.data(), &f, 4);
  } else if (to == DType::f16) {
    double v = x * scale;
    if (from == DType::s32) v = std::min(65504.0, std::max(-65504.0, v));
    uint16_t h = f16_bits(v);
    bool nan = (h & 0x7fff) > 0x7c00;
    if (relu && !nan && (h & 0x8000)) h = 0;
    std::memcpy(out.data(), &h, 2);
  } else {  // s8
    double v = x * scale;
    double q = std::isnan(v) ? 0 : std::nearbyint(v);
    q = std::min(127.0, std::max(-128.0, q));
    if (relu) q = std::max(q, 0.0);
    out[0] = uint8_t(int8_t(q));
  }
  return out;
}

// Accumulators with the values that matter: ordinary ones, halfway cases for f16, beyond f16 and
// s8, zeros of both signs, infinities and NaN.
std::vector<uint8_t> random_accumulators(DType from, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> bytes(n * 4);
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    if (from == DType::s32) {
      int32_t v;
      switch (rng() % 5) {
        case 0: v = int32_t(rng()); break;
        case 1: v = int32_t(rng() % 2001) - 1000; break;
        case 2: v = int32_t(rng() % 400001) - 200000; break;
        default: v = int32_t(rng() % 301) - 150; break;
      }
      bits = uint32_t(v);
    } else {
      float f;
      switch (rng() % 10) {
        case 0: f = std::bit_cast<float>(uint32_t(rng())); break;  // any pattern: NaN, inf, subnormal
        case 1: f = (rng() & 1) ? -0.0f : 0.0f; break;
        case 2: f = (rng() & 1) ? INFINITY : -INFINITY; break;
        case 3: f = float(1 + 2 * int(rng() % 1024)) / 2048.0f + 1.0f; break;  // f16 ties and neighbours
        case 4: f = float(int(rng() % 200001) - 100000); break;                 // beyond f16's range
        default: f = float(std::uniform_real_distribution<double>(-300, 300)(rng)); break;
      }
      bits = std::bit_cast<uint32_t>(f);
    }
    std::memcpy(&bytes[i * 4], &bits, 4);
  }
  return bytes;
}

// ---- one fixpipe, L0C filled directly --------------------------------------------------------------

enum class Scale { None, Scalar, Channel };

struct Case {
  DType from, to;
  int64_t m, n, src_stride, dst_stride;
  bool relu = false;
  Scale scale = Scale::None;
  float scalar = 1.0f;
  bool to_l1 = false;
  int64_t src_off = 0, dst_off = 0;
};

std::string name_of(const Case& c) {
  return fmt::format("{}_{}_{}x{}_ss{}_ds{}{}{}{}", dtype_name(c.from), dtype_name(c.to), c.m, c.n, c.src_stride,
                     c.dst_stride, c.relu ? "_relu" : "",
                     c.scale == Scale::Scalar ? "_scalar" : c.scale == Scale::Channel ? "_channel" : "",
                     c.to_l1 ? "_l1" : "_gm");
}

void PrintTo(const Case& c, std::ostream* os) { *os << name_of(c); }

class Fixpipe : public testing::TestWithParam<Case> {};

TEST_P(Fixpipe, MatchesTheReferenceElementByElement) {
  const Case& c = GetParam();
  const int size = dtype_size(c.to);
  const int64_t c0 = 32 / size;
  const int64_t scale_at = 8192;  // L1 bytes holding the per-channel scales
  const int64_t gm_elems = c.m * c.dst_stride + c.dst_off / size;
  std::string text = fmt::format(".tensor C {} [{}] out\n", dtype_name(c.to), gm_elems);
  text += fmt::format("fixpipe.{}.{} {}[{}], l0c[{}], m={}, n={}, src_stride={}, dst_stride={}", dtype_name(c.from),
                      dtype_name(c.to), c.to_l1 ? "l1" : "C", c.dst_off, c.src_off, c.m, c.n, c.src_stride,
                      c.dst_stride);
  if (c.relu) text += ", relu";
  if (c.scale == Scale::Scalar) text += fmt::format(", scale={}", double(c.scalar));
  if (c.scale == Scale::Channel) text += fmt::format(", scale_l1=l1[{}]", scale_at);
  Harness h(text, kChip);

  const int64_t nf = (c.n + 15) / 16;
  std::vector<uint8_t> acc = random_accumulators(c.from, size_t(nf * c.src_stride * 16), 11 + c.m * 7 + c.n);
  h.put(Space::L0C, c.src_off, acc);
  std::vector<float> scales(size_t(c.n));
  std::mt19937_64 rng(5);
  for (float& f : scales) f = float(std::uniform_real_distribution<double>(-3, 3)(rng));
  h.put(Space::L1, scale_at, scales);
  // The destination starts as a pattern, so bytes the fixpipe must not write are checked too.
  uint8_t* dst = c.to_l1 ? h.at(Space::L1, 0) : h.tensor("C");
  const int64_t dst_bytes = c.to_l1 ? scale_at : gm_elems * size;
  for (int64_t i = 0; i < dst_bytes; ++i) dst[i] = uint8_t(i * 37 + 11);
  std::vector<uint8_t> want(dst, dst + dst_bytes);

  for (int64_t r = 0; r < c.m; ++r)
    for (int64_t col = 0; col < c.n; ++col) {
      // NZ: 16 x 16 fractals in column-major order, src_stride/16 of them per fractal column.
      int64_t fractal = (col / 16) * (c.src_stride / 16) + r / 16;
      const uint8_t* x = &acc[size_t((fractal * 256 + (r % 16) * 16 + col % 16) * 4)];
      double scale = c.scale == Scale::Scalar    ? chip_scale(c.scalar)
                     : c.scale == Scale::Channel ? chip_scale(scales[size_t(col)])
                                                 : 1.0;
      std::vector<uint8_t> y = expected(c.from, c.to, x, scale, c.relu);
      int64_t at = c.to_l1 ? c.dst_off + ((col / c0) * c.dst_stride + r) * 32 + (col % c0) * size
                           : c.dst_off + (r * c.dst_stride + col) * size;
      std::memcpy(&want[size_t(at)], y.data(), y.size());
    }
  h.run_clean();
  for (int64_t i = 0; i < dst_bytes; ++i)
    if (dst[i] != want[size_t(i)]) {
      FAIL() << "byte " << i << " is " << int(dst[i]) << ", want " << int(want[size_t(i)]);
    }
}

const Case kCases[] = {
    // f32 -> f32 / f16 (the first milestone), odd shapes, strides, ReLU.
    {DType::f32, DType::f32, 16, 16, 16, 16},
    {DType::f32, DType::f32, 21, 37, 32, 45, false, Scale::None, 1, false, 1024, 12},
    {DType::f32, DType::f32, 5, 3, 16, 3, true},
    {DType::f32, DType::f16, 16, 16, 16, 16, true},
    {DType::f32, DType::f16, 33, 19, 48, 25},
    {DType::f32, DType::f16, 33, 19, 64, 20, true, Scale::None, 1, false, 2048, 6},
    // s32 -> s32 / f16 (dequantisation) / s8 (requantisation); f32 -> s8 (quantisation).
    {DType::s32, DType::s32, 17, 40, 32, 41, true},
    {DType::s32, DType::f16, 30, 20, 32, 20},
    {DType::s32, DType::f16, 30, 20, 32, 20, true, Scale::Scalar, 0.00390625f},
    {DType::s32, DType::f16, 9, 35, 16, 35, false, Scale::Scalar, 1.2345678f},
    {DType::s32, DType::f16, 9, 35, 16, 40, true, Scale::Channel},
    {DType::s32, DType::s8, 18, 23, 32, 30, false, Scale::Scalar, 0.013f},
    {DType::s32, DType::s8, 18, 23, 32, 23, true, Scale::Channel},
    {DType::f32, DType::s8, 7, 50, 16, 50},
    {DType::f32, DType::s8, 7, 50, 16, 64, true, Scale::Scalar, -0.7f},
    {DType::f32, DType::s8, 24, 17, 32, 17, false, Scale::Channel},
    // To L1 (NZ): C0 = 16 for f16, 32 for s8 (a half-filled last block), 8 for f32.
    {DType::f32, DType::f16, 20, 32, 32, 32, true, Scale::None, 1, true, 0, 512},
    {DType::f32, DType::f32, 16, 16, 16, 16, false, Scale::None, 1, true},
    {DType::s32, DType::s8, 13, 48, 16, 16, false, Scale::Channel, 1, true, 0, 64},
    {DType::s32, DType::s32, 31, 16, 32, 48, true, Scale::None, 1, true},
};
INSTANTIATE_TEST_SUITE_P(All, Fixpipe, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<Case>& i) { return name_of(i.param); });

// A scale written as a register holds f32 bits; it acts like the same number written inline.
TEST(FixpipeScale, RegisterAndImmediateAgree) {
  auto run = [](const std::string& scale) {
    Harness h(".tensor C f16 [256] out\nli x3, " + s(std::bit_cast<uint32_t>(0.3f)) +
                  "\nfixpipe.s32.f16 C[0], l0c[0], m=16, n=16, src_stride=16, dst_stride=16, scale=" + scale,
              kChip);
    h.put(Space::L0C, 0, random_accumulators(DType::s32, 256, 3));
    h.run_clean();
    return std::vector<uint8_t>(h.tensor("C"), h.tensor("C") + 512);
  };
  std::vector<uint8_t> reg = run("x3"), immediate = run("0.3");
  EXPECT_EQ(reg, immediate);
  // ... and the low 13 mantissa bits of the scale are dropped: 0.3 and 0.3 + 2^-24 act alike.
  EXPECT_EQ(run(fmt::format("{}", double(std::bit_cast<float>(std::bit_cast<uint32_t>(0.3f) + 1)))), immediate);
}

// ---- whole matmuls ----------------------------------------------------------------------------------

// C = A x B (m x k by k x n f16) through nd2nz, load2d, mmad and a fixpipe to a GM row-major C.
std::string matmul_program(int64_t m, int64_t n, int64_t k, int64_t ldc, const char* to, bool relu) {
  int64_t mr = (m + 15) / 16 * 16, kr = (k + 15) / 16 * 16, mf = mr / 16, kf = kr / 16, nf = (n + 15) / 16;
  int64_t b_at = kf * mr * 32;  // B's L1 offset, after A's column blocks
  // Rows wider than n (ldc > n) leave columns the fixpipe never writes: C is then the host's
  // (inout), as an `out` tensor must be written whole (the checker's Unwritten).
  std::string p = fmt::format(".tensor A f16 [{}, {}] in\n.tensor B f16 [{}, {}] in\n.tensor C {} [{}, {}] {}\n", m, k,
                              k, n, to, m, ldc, ldc > n ? "inout" : "out");
  p += fmt::format("copy_gm_l1_nd2nz.f16 l1[0], A[0], rows={}, cols={}, src_stride={}, dst_rows={}\n", m, k, k, mr);
  p += fmt::format("copy_gm_l1_nd2nz.f16 l1[{}], B[0], rows={}, cols={}, src_stride={}, dst_rows={}\n", b_at, k, n, n,
                   kr);
  p += "set_flag MTE2, MTE1, 0\nwait_flag MTE2, MTE1, 0\n";
  // L0A wants A's fractal (mb, kb) at (mb*kf + kb)*512; L1 holds it at (kb*mf + mb)*512.
  for (int64_t mb = 0; mb < mf; ++mb)
    p += fmt::format("load2d.f16 l0a[{}], l1[{}], repeat={}, src_stride={}\n", mb * kf * 512, mb * 512, kf, mf);
  // L0B wants B's fractal (kb, nb) at (kb*nf + nb)*512, transposed; L1 holds it at (nb*kf + kb)*512.
  for (int64_t kb = 0; kb < kf; ++kb)
    p += fmt::format("load2d.f16 l0b[{}], l1[{}], repeat={}, src_stride={}, transpose\n", kb * nf * 512,
                     b_at + kb * 512, nf, kf);
  p += "set_flag MTE1, M, 0\nwait_flag MTE1, M, 0\n";
  p += fmt::format("mmad.f16 l0c[0], l0a[0], l0b[0], m={}, n={}, k={}, init\n", m, n, k);
  p += "set_flag M, FIX, 0\nwait_flag M, FIX, 0\n";
  p += fmt::format("fixpipe.f32.{} C[0], l0c[0], m={}, n={}, src_stride={}, dst_stride={}{}\n", to, m, n, mr, ldc,
                   relu ? ", relu" : "");
  return p + "end\n";
}

// The naive product: each element summed in k order, one f32 rounding per step.
std::vector<float> naive_matmul(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b, int64_t m, int64_t n,
                                int64_t k) {
  std::vector<float> c(size_t(m * n), 0.0f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (int64_t kk = 0; kk < k; ++kk)  // the product is exact; fmaf rounds the step once
        acc = std::fmaf(float(std::bit_cast<_Float16>(a[size_t(i * k + kk)])),
                        float(std::bit_cast<_Float16>(b[size_t(kk * n + j)])), acc);
      c[size_t(i * n + j)] = acc;
    }
  return c;
}

struct MatmulCase {
  int64_t m, n, k, ldc;
  const char* to;
  bool relu;
};

void PrintTo(const MatmulCase& c, std::ostream* os) { *os << c.m << "x" << c.n << "x" << c.k << " " << c.to; }

class FixpipeMatmul : public testing::TestWithParam<MatmulCase> {};

TEST_P(FixpipeMatmul, InOrderAndTimedMatchTheNaiveProduct) {
  const MatmulCase& c = GetParam();
  Program p = parse_program(".kernel mm\n" + matmul_program(c.m, c.n, c.k, c.ldc, c.to, c.relu), "mm.s");
  ChipConfig chip = load_chip(kChip);
  std::vector<uint16_t> a = random_f16(size_t(c.m * c.k), 1), b = random_f16(size_t(c.k * c.n), 2);
  std::vector<float> ref = naive_matmul(a, b, c.m, c.n, c.k);
  bool f16 = std::string(c.to) == "f16";
  auto check = [&](GlobalMemory& gm, const char* how) {
    const uint8_t* out = gm.bytes("C").data();
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.ldc; ++j) {
        size_t at = size_t(i * c.ldc + j);
        if (j >= c.n) {  // beyond n: untouched (zero, as the out tensor started)
          for (int byte = 0; byte < (f16 ? 2 : 4); ++byte) ASSERT_EQ(out[at * (f16 ? 2 : 4) + byte], 0) << how;
          continue;
        }
        float v = ref[size_t(i * c.n + j)];
        if (c.relu && !(v > 0)) v = 0.0f;
        if (f16) {
          uint16_t got;
          std::memcpy(&got, out + at * 2, 2);
          ASSERT_EQ(got, f16_bits(v)) << how << " (" << i << ", " << j << ")";
        } else {
          float got;
          std::memcpy(&got, out + at * 4, 4);
          ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(v)) << how << " (" << i << ", " << j << ")";
        }
      }
  };
  auto fill = [&](GlobalMemory& gm) {
    std::memcpy(gm.bytes("A").data(), a.data(), a.size() * 2);
    std::memcpy(gm.bytes("B").data(), b.data(), b.size() * 2);
  };
  GlobalMemory in_order = GlobalMemory::for_program(p);
  fill(in_order);
  RunResult r = run_in_order(chip, p, in_order);
  for (const Diagnostic& d : r.diagnostics) ADD_FAILURE() << format_diagnostic(p, d);
  check(in_order, "in order");

  GlobalMemory timed = GlobalMemory::for_program(p);
  fill(timed);
  SimResult sim = simulate(chip, p, timed);
  for (const Diagnostic& d : sim.report.diagnostics) ADD_FAILURE() << format_diagnostic(p, d);
  check(timed, "timed");
  EXPECT_GT(sim.report.pipes[int(Pipe::FIX)].busy, 0u);
  EXPECT_EQ(sim.report.bytes[int(DataPath::L0cToGm)], c.m * c.n * 4);  // what left L0C
}

const MatmulCase kMatmuls[] = {
    {16, 16, 16, 16, "f32", false}, {20, 24, 32, 24, "f32", false}, {20, 24, 32, 40, "f16", true},
    {33, 17, 40, 17, "f16", false}, {48, 64, 16, 70, "f16", true},
};
INSTANTIATE_TEST_SUITE_P(All, FixpipeMatmul, testing::ValuesIn(kMatmuls),
                         [](const testing::TestParamInfo<MatmulCase>& i) {
                           const MatmulCase& c = i.param;
                           return fmt::format("{}x{}x{}_ldc{}_{}{}", c.m, c.n, c.k, c.ldc, c.to, c.relu ? "_relu" : "");
                         });

// ---- timing -----------------------------------------------------------------------------------------

// The FixPipe writes GM through the cube core's l0c->gm path: its bytes in the destination type
// (64 x 64 f16 here, not the f32 accumulators) at the path's rate, slowed by short or misaligned
// bursts (at most down to gm_misaligned_efficiency), plus the transfer overhead.
TEST(FixpipeTiming, ThePathRateTimesTheBytesWritten) {
  Program p = parse_program(".kernel mm\n" + matmul_program(64, 64, 16, 64, "f16", false), "mm.s");
  auto fix_busy = [&](double rate) {
    ChipConfig chip = load_chip(kChip);
    for (DataPathRate& path : chip.kind(CoreKind::Aic)->paths)
      if (path.src == Space::L0C && path.dst == Space::GM) path.rate = rate;
    GlobalMemory gm = GlobalMemory::for_program(p);
    gm.fill_inputs(1);
    return double(simulate(chip, p, gm, {.timing_only = true}).report.pipes[int(Pipe::FIX)].busy);
  };
  const TimingConfig t = load_chip(kChip).timing;
  const double written = 64 * 64 * 2, overhead = t.gm_transfer_overhead_cycles;
  EXPECT_GE(fix_busy(2), written / 2 + overhead);
  EXPECT_LE(fix_busy(2), std::ceil(written / 2 / t.gm_misaligned_efficiency) + overhead);
  EXPECT_LT(fix_busy(4), fix_busy(2));
}

}  // namespace
}  // namespace cubekit::test
