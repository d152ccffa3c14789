// The cube path: load2d, load3d (img2col) and mmad against naive loops written from the documented
// layouts (L0A zZ, L0B zN, L0C NZ), and the matmul example end to end.
#include "harness.h"

#include <bit>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace cubekit::test {
namespace {

std::vector<uint8_t> random_bytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(rng());
  return v;
}

void expect_bytes(const uint8_t* got, const std::vector<uint8_t>& want, const std::string& what) {
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      ADD_FAILURE() << what << ": byte " << i << " is " << int(got[i]) << ", want " << int(want[i]);
      return;
    }
}



// A random f16 with magnitude in [2^-5, 4) (or zero), built from its fields.
uint16_t small_f16(std::mt19937_64& rng) {
  if (rng() % 16 == 0) return 0;
  return uint16_t(((rng() & 1) << 15) | ((10 + rng() % 7) << 10) | (rng() & 0x3ff));
}

// ---- load2d -------------------------------------------------------------------------------------
struct Load2dCase {
  bool s8, l0b;
  int64_t repeat, src_stride, dst_gap;
  bool transpose;
  int64_t src_off, dst_off;
};
class CubeLoad2d : public testing::TestWithParam<Load2dCase> {};

TEST_P(CubeLoad2d, MatchesNaiveFractalCopy) {
  const Load2dCase& c = GetParam();
  Space dst = c.l0b ? Space::L0B : Space::L0A;
  Harness h(std::string("load2d.") + (c.s8 ? "s8 " : "f16 ") + (c.l0b ? "l0b[" : "l0a[") + s(c.dst_off) + "], l1[" +
            s(c.src_off) + "], repeat=" + s(c.repeat) + ", src_stride=" + s(c.src_stride) + ", dst_gap=" + s(c.dst_gap) +
            (c.transpose ? ", transpose" : ""));
  std::vector<uint8_t> l1 = random_bytes(size_t(c.src_off + (c.repeat * std::max<int64_t>(c.src_stride, 1) + 1) * 512), 1);
  std::vector<uint8_t> l0 = random_bytes(size_t(c.dst_off + (c.repeat * (1 + c.dst_gap) + 2) * 512), 2);
  h.put(Space::L1, 0, l1);
  h.put(dst, 0, l0);
  std::vector<uint8_t> want = l0;
  for (int64_t i = 0; i < c.repeat; ++i) {
    int64_t d = c.dst_off + i * (1 + c.dst_gap) * 512, src = c.src_off + i * c.src_stride * 512;
    for (int r = 0; r < 16; ++r)
      for (int e = 0; e < 16; ++e)
        for (int byte = 0; byte < 2; ++byte) {
          // Element (r, e) of a 16 x 16 fractal of 2-byte elements lands at (e, r) when transposing.
          int64_t to = c.transpose ? (e * 16 + r) * 2 : (r * 16 + e) * 2;
          want[size_t(d + to + byte)] = l1[size_t(src + (r * 16 + e) * 2 + byte)];
        }
  }
  h.run_clean();
  expect_bytes(h.at(dst, 0), want, c.l0b ? "l0b" : "l0a");
}

const Load2dCase kLoad2d[] = {
    {false, false, 1, 1, 0, false, 0, 0},  {false, false, 4, 2, 1, false, 96, 512}, {false, true, 3, 3, 0, true, 32, 0},
    {false, false, 5, 0, 2, true, 0, 1024}, {false, true, 8, 1, 0, false, 64, 0},   {true, false, 3, 2, 1, false, 32, 512},
    {true, true, 6, 1, 0, false, 0, 0},    {false, false, 2, 5, 3, true, 128, 0},
};
std::string load2d_name(const testing::TestParamInfo<Load2dCase>& i) {
  const Load2dCase& c = i.param;
  return std::string(c.s8 ? "s8" : "f16") + (c.l0b ? "_l0b" : "_l0a") + "_r" + s(c.repeat) + "_ss" + s(c.src_stride) +
         "_dg" + s(c.dst_gap) + (c.transpose ? "_t" : "") + "_so" + s(c.src_off) + "_do" + s(c.dst_off);
}
INSTANTIATE_TEST_SUITE_P(Cube, CubeLoad2d, testing::ValuesIn(kLoad2d), load2d_name);

// ---- load3d -------------------------------------------------------------------------------------
struct Load3dCase {
  int64_t c1, h, w, pt, pb, pl, pr, kh, kw, sh, sw, dh, dw, m_start, m_len, k_start, k_len;
  bool l0b;
  DType type = DType::f16;
};
class CubeLoad3d : public testing::TestWithParam<Load3dCase> {};

TEST_P(CubeLoad3d, MatchesNaiveIm2col) {
  const Load3dCase& c = GetParam();
  const int64_t src_off = 64, dst_off = 512, es = dtype_size(c.type), c0n = 32 / es;  // C0: 32 bytes of channels
  Space dst = c.l0b ? Space::L0B : Space::L0A;
  Harness h("set_fmatrix h=" + s(c.h) + ", w=" + s(c.w) + ", pad_top=" + s(c.pt) + ", pad_bottom=" + s(c.pb) +
            ", pad_left=" + s(c.pl) + ", pad_right=" + s(c.pr) + "\nload3d." + std::string(dtype_name(c.type)) + " " +
            (c.l0b ? "l0b[" : "l0a[") + s(dst_off) + "], l1[" + s(src_off) + "], c1=" + s(c.c1) + ", kh=" + s(c.kh) +
            ", kw=" + s(c.kw) + ", sh=" + s(c.sh) + ", sw=" + s(c.sw) + ", dh=" + s(c.dh) + ", dw=" + s(c.dw) +
            ", m_start=" + s(c.m_start) + ", m_len=" + s(c.m_len) + ", k_start=" + s(c.k_start) + ", k_len=" +
            s(c.k_len));
  // Feature map C1 x H x W x 32 bytes; every 16-bit element distinct and nonzero (8-bit: bytes of them).
  std::vector<uint16_t> fmap(size_t(c.c1 * c.h * c.w * 16));
  for (size_t i = 0; i < fmap.size(); ++i) fmap[i] = uint16_t(i % 65535 + 1);
  h.put(Space::L1, src_off, fmap);
  const uint8_t* fbytes = reinterpret_cast<const uint8_t*>(fmap.data());
  std::vector<uint8_t> l0 = random_bytes(size_t(dst_off + c.m_len * c.k_len * es + 1024), 3);
  h.put(dst, 0, l0);

  int64_t oh_n = (c.h + c.pt + c.pb - c.dh * (c.kh - 1) - 1) / c.sh + 1;
  int64_t ow_n = (c.w + c.pl + c.pr - c.dw * (c.kw - 1) - 1) / c.sw + 1;
  // The byte address in the feature map of im2col element (p, k), or -1 for a zero.
  auto im2col = [&](int64_t p, int64_t k) -> int64_t {
    if (p >= oh_n * ow_n) return -1;
    int64_t oh = p / ow_n, ow = p % ow_n, c0 = k % c0n, t = k / c0n;
    int64_t j = t % c.kw, i = (t / c.kw) % c.kh, ch = t / (c.kw * c.kh);
    int64_t y = oh * c.sh - c.pt + i * c.dh, x = ow * c.sw - c.pl + j * c.dw;
    if (y < 0 || y >= c.h || x < 0 || x >= c.w) return -1;
    return ((ch * c.h + y) * c.w + x) * 32 + c0 * es;
  };
  std::vector<uint8_t> want = l0;
  int64_t mf = c.m_len / 16, kf = c.k_len / c0n;
  for (int64_t m = 0; m < c.m_len; ++m)
    for (int64_t kc = 0; kc < c.k_len; ++kc) {
      // L0A (zZ): the m x k window in 16 x C0 fractals; L0B (zN): the k x m matrix, element (k, m) of a
      // fractal at m*C0 + k.
      int64_t off = c.l0b ? ((kc / c0n) * mf + m / 16) * 16 * c0n + (m % 16) * c0n + kc % c0n
                          : ((m / 16) * kf + kc / c0n) * 16 * c0n + (m % 16) * c0n + kc % c0n;
      int64_t from = im2col(c.m_start + m, c.k_start + kc);
      for (int64_t b = 0; b < es; ++b) want[size_t(dst_off + off * es + b)] = from < 0 ? 0 : fbytes[from + b];
    }
  h.run_clean();
  expect_bytes(h.at(dst, 0), want, c.l0b ? "l0b" : "l0a");
}

const Load3dCase kLoad3d[] = {
    // c1 h  w pt pb pl pr kh kw sh sw dh dw m_start m_len k_start k_len l0b
    {1, 4, 4, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 16, 0, 16, false},
    {1, 5, 6, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 0, 32, 0, 144, false},  // 30 positions: 2 rows of zeros
    {2, 7, 5, 0, 1, 2, 0, 3, 2, 2, 1, 1, 1, 16, 16, 32, 64, true},  // 18 positions, window past the end
    {3, 9, 8, 2, 2, 2, 2, 3, 3, 2, 2, 2, 2, 0, 48, 64, 112, false},  // dilation, stride, padding
    {2, 6, 6, 1, 1, 1, 1, 2, 3, 1, 2, 2, 1, 5, 32, 0, 192, true},   // m_start not a multiple of 16
    {4, 10, 10, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 0, 112, 320, 256, false},
    {1, 8, 8, 0, 0, 0, 0, 1, 1, 2, 2, 1, 1, 0, 16, 0, 16, true},
    {1, 2, 3, 2, 2, 1, 1, 5, 3, 1, 1, 1, 1, 0, 16, 0, 240, false},  // kernel larger than the map
    {3, 5, 7, 0, 2, 1, 0, 2, 2, 3, 2, 1, 3, 3, 48, 16, 160, true},
    // s8 (C0 = 32 channels, L0A only) and bf16
    {1, 5, 6, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 0, 32, 0, 288, false, DType::s8},
    {2, 7, 5, 0, 1, 2, 0, 3, 2, 2, 1, 1, 1, 16, 16, 64, 128, false, DType::s8},
    {3, 9, 8, 2, 2, 2, 2, 3, 3, 2, 2, 2, 2, 5, 48, 96, 192, false, DType::s8},
    {2, 6, 6, 1, 1, 1, 1, 2, 3, 1, 2, 2, 1, 5, 32, 0, 192, true, DType::bf16},
    {3, 9, 8, 2, 2, 2, 2, 3, 3, 2, 2, 2, 2, 0, 48, 64, 112, false, DType::bf16},
};
std::string load3d_name(const testing::TestParamInfo<Load3dCase>& i) {
  const Load3dCase& c = i.param;
  return "c" + s(c.c1) + "_" + s(c.h) + "x" + s(c.w) + "_k" + s(c.kh) + "x" + s(c.kw) + "_s" + s(c.sh) + "x" + s(c.sw) +
         "_d" + s(c.dh) + "x" + s(c.dw) + "_m" + s(c.m_start) + "_" + s(c.m_len) + "_k" + s(c.k_start) + "_" + s(c.k_len) +
         (c.l0b ? "_l0b" : "_l0a") + (c.type == DType::f16 ? "" : "_" + std::string(dtype_name(c.type)));
}
INSTANTIATE_TEST_SUITE_P(Cube, CubeLoad3d, testing::ValuesIn(kLoad3d), load3d_name);

// ---- mmad ---------------------------------------------------------------------------------------
struct MmadCase {
  bool s8;
  int64_t m, n, k;
  bool init;
  int64_t a_off, b_off, c_off;
  bool wide = false;  // f16 values over the whole finite range instead of [-4, 4]
};
std::string mmad_name(const testing::TestParamInfo<MmadCase>& i) {
  const MmadCase& c = i.param;
  return std::string(c.s8 ? "s8_" : "f16_") + s(c.m) + "x" + s(c.n) + "x" + s(c.k) + (c.init ? "_init" : "_acc") +
         (c.a_off || c.b_off || c.c_off ? "_off" : "") + (c.wide ? "_wide" : "");
}
class CubeMmad : public testing::TestWithParam<MmadCase> {};

TEST_P(CubeMmad, MatchesNaiveOrderedLoop) {
  const MmadCase& c = GetParam();
  const int64_t k0 = c.s8 ? 32 : 16, size = c.s8 ? 1 : 2;
  const int64_t mf = (c.m + 15) / 16, nf = (c.n + 15) / 16, kf = (c.k + k0 - 1) / k0;
  const int64_t M = mf * 16, N = nf * 16, K = kf * k0;  // padded to whole fractals
  Harness h(std::string("mmad.") + (c.s8 ? "s8" : "f16") + " l0c[" + s(c.c_off) + "], l0a[" + s(c.a_off) + "], l0b[" +
            s(c.b_off) + "], m=" + s(c.m) + ", n=" + s(c.n) + ", k=" + s(c.k) + (c.init ? ", init" : ""));
  std::mt19937_64 rng(uint64_t(c.m * 1000003 + c.n * 1009 + c.k));
  // Logical A (M x K) and B (K x N) as element bit patterns. Columns of A and rows of B at
  // kk >= k must be ignored: they hold NaN (f16) or nonzero garbage (s8).
  auto value = [&](int64_t kk) -> uint16_t {
    if (kk >= c.k) return c.s8 ? uint16_t(1 + rng() % 255) : uint16_t(0x7e00);
    if (c.s8) return uint16_t(uint8_t(rng()));
    if (!c.wide) return small_f16(rng);
    uint16_t hh;
    do hh = uint16_t(rng()); while ((hh & 0x7c00) == 0x7c00);
    return hh;
  };
  std::vector<uint16_t> A(size_t(M * K)), B(size_t(K * N));
  for (int64_t i = 0; i < M; ++i)
    for (int64_t kk = 0; kk < K; ++kk) A[size_t(i * K + kk)] = value(kk);
  for (int64_t kk = 0; kk < K; ++kk)
    for (int64_t j = 0; j < N; ++j) B[size_t(kk * N + j)] = value(kk);
  // Place them: L0A zZ ((i/16)*kf + kk/k0 fractal, row-major inside), L0B zN ((kk/k0)*nf + j/16
  // fractal, element (kk, j) at j*k0 + kk inside).
  std::vector<uint8_t> l0a = random_bytes(size_t(c.a_off + M * K * size + 512), 4);
  std::vector<uint8_t> l0b = random_bytes(size_t(c.b_off + K * N * size + 512), 5);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t kk = 0; kk < K; ++kk) {
      int64_t off = ((i / 16) * kf + kk / k0) * 16 * k0 + (i % 16) * k0 + kk % k0;
      std::memcpy(&l0a[size_t(c.a_off + off * size)], &A[size_t(i * K + kk)], size_t(size));
    }
  for (int64_t kk = 0; kk < K; ++kk)
    for (int64_t j = 0; j < N; ++j) {
      int64_t off = ((kk / k0) * nf + j / 16) * k0 * 16 + (j % 16) * k0 + kk % k0;
      std::memcpy(&l0b[size_t(c.b_off + off * size)], &B[size_t(kk * N + j)], size_t(size));
    }
  h.put(Space::L0A, 0, l0a);
  h.put(Space::L0B, 0, l0b);
  // C before: random (accumulated into unless init), NZ: fractal (j/16)*mf + i/16, row-major inside.
  std::vector<uint8_t> l0c = random_bytes(size_t(c.c_off + M * N * 4 + 1024), 6);
  auto c_at = [&](int64_t i, int64_t j) { return c.c_off + (((j / 16) * mf + i / 16) * 256 + (i % 16) * 16 + j % 16) * 4; };
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      uint32_t v = c.s8 ? uint32_t(INT32_MAX - int64_t(rng() % 100000)) : std::bit_cast<uint32_t>(float(int(rng() % 2001) - 1000) / 64);
      std::memcpy(&l0c[size_t(c_at(i, j))], &v, 4);
    }
  h.put(Space::L0C, 0, l0c);
  h.run_clean();

  std::vector<uint8_t> want = l0c;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      uint32_t before;
      std::memcpy(&before, &l0c[size_t(c_at(i, j))], 4);
      uint32_t out;
      if (c.s8) {
        uint32_t acc = c.init ? 0 : before;
        for (int64_t kk = 0; kk < c.k; ++kk)
          acc += uint32_t(int32_t(int8_t(A[size_t(i * K + kk)]))) * uint32_t(int32_t(int8_t(B[size_t(kk * N + j)])));
        out = acc;
      } else {
        float acc = c.init ? 0.0f : std::bit_cast<float>(before);
        for (int64_t kk = 0; kk < c.k; ++kk) {
          float prod = half(A[size_t(i * K + kk)]) * half(B[size_t(kk * N + j)]);  // exact
          acc = acc + prod;                                                                  // one rounding
        }
        out = std::bit_cast<uint32_t>(acc);
      }
      std::memcpy(&want[size_t(c_at(i, j))], &out, 4);
    }
  expect_bytes(h.at(Space::L0C, 0), want, "l0c");
}

std::vector<MmadCase> mmad_cases() {
  std::vector<MmadCase> out;
  const int64_t f16_shapes[][3] = {{1, 1, 1},  {16, 16, 16}, {1, 16, 17}, {17, 33, 17}, {5, 3, 40},
                                   {32, 48, 64}, {20, 1, 1},  {33, 17, 100}, {64, 64, 128}, {48, 80, 33}};
  for (auto& sh : f16_shapes)
    for (bool init : {true, false}) out.push_back({false, sh[0], sh[1], sh[2], init, 0, 0, 0});
  out.push_back({false, 17, 33, 47, false, 512, 1024, 2048});
  out.push_back({false, 40, 24, 90, false, 0, 0, 0, true});
  out.push_back({false, 16, 16, 300, true, 0, 0, 0, true});
  const int64_t s8_shapes[][3] = {{1, 1, 1}, {16, 16, 32}, {17, 33, 33}, {5, 3, 70}, {40, 20, 100}, {1, 50, 64}};
  for (auto& sh : s8_shapes)
    for (bool init : {true, false}) out.push_back({true, sh[0], sh[1], sh[2], init, 0, 0, 0});
  out.push_back({true, 20, 20, 65, false, 1024, 512, 64});
  return out;
}
INSTANTIATE_TEST_SUITE_P(Cube, CubeMmad, testing::ValuesIn(mmad_cases()), mmad_name);

// A case worked by hand: with a = b = (1, 2^-12, 2^-12), the products are 1, 2^-24, 2^-24; in
// order, each 2^-24 is a tie at 1 and is lost (result 1); summing the small ones first would
// give 1 + 2^-23. So this pins the accumulation order.
TEST(CubeMmadSpot, OrderedF32Accumulation) {
  Harness h("mmad.f16 l0c[0], l0a[0], l0b[0], m=1, n=1, k=3, init");
  std::vector<uint16_t> a(256, 0), b(256, 0);
  a[0] = 0x3c00, a[1] = 0x0c00, a[2] = 0x0c00;  // row 0 of A (zZ): elements (0, kk) at kk
  b[0] = 0x3c00, b[1] = 0x0c00, b[2] = 0x0c00;  // column 0 of B (zN): elements (kk, 0) at 0*16 + kk
  h.put(Space::L0A, 0, a);
  h.put(Space::L0B, 0, b);
  h.run_clean();
  EXPECT_EQ(std::bit_cast<uint32_t>(h.get<float>(Space::L0C, 0, 1)[0]), std::bit_cast<uint32_t>(1.0f));
}

// ---- the example, end to end ---------------------------------------------------------------------
TEST(CubeExample, MatmulF16MatchesOrderedReference) {
  std::filesystem::path path = std::filesystem::path(CUBEKIT_SOURCE_DIR) / "examples/asm/matmul_f16.s";
  Program program = load_program(path.string());
  ChipConfig chip = load_chip("ascend910");
  GlobalMemory gm = GlobalMemory::for_program(program);
  std::vector<uint16_t> A = random_f16(128 * 128, 21, 2.0), B = random_f16(128 * 128, 22, 2.0);
  std::memcpy(gm.bytes("A").data(), A.data(), A.size() * 2);
  std::memcpy(gm.bytes("B").data(), B.data(), B.size() * 2);
  RunResult r = run_in_order(chip, program, gm);
  for (const Diagnostic& d : r.diagnostics) ADD_FAILURE() << format_diagnostic(program, d);
  std::vector<float> C(128 * 128);
  std::memcpy(C.data(), gm.bytes("C").data(), C.size() * 4);
  int bad = 0;
  for (int i = 0; i < 128; ++i)
    for (int j = 0; j < 128; ++j) {
      float acc = 0;
      for (int k = 0; k < 128; ++k) acc = acc + half(A[i * 128 + k]) * half(B[k * 128 + j]);
      if (std::bit_cast<uint32_t>(C[i * 128 + j]) != std::bit_cast<uint32_t>(acc) && ++bad <= 5)
        ADD_FAILURE() << "C[" << i << "][" << j << "] = " << C[i * 128 + j] << ", want " << acc;
    }
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace cubekit::test
