#include "emulator/vector_simd.h"

#include "emulator/host_cpu.h"

#include <cmath>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace cubekit {

namespace {

bool g_enabled = true;

bool host_has_simd() { return host_cpu::avx2_fma_f16c(); }

#if defined(__x86_64__)

// 8 elements of t as floats; `n` < 8 reads only n (the rest zero).
__attribute__((target("avx2,f16c"))) __m256 load8(DType t, const uint8_t* p, int n) {
  if (n < 8) {
    alignas(32) uint8_t tmp[32] = {};
    std::memcpy(tmp, p, size_t(n) * (t == DType::f16 ? 2 : 4));
    return load8(t, tmp, 8);
  }
  if (t == DType::f16) return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return _mm256_loadu_ps(reinterpret_cast<const float*>(p));
}

// Stores 8 floats as t (f16: rounded to nearest even), n of them.
__attribute__((target("avx2,f16c"))) void store8(DType t, uint8_t* p, __m256 v, int n) {
  if (n == 8 && t == DType::f16) return _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
  if (n == 8) return _mm256_storeu_ps(reinterpret_cast<float*>(p), v);
  alignas(32) uint8_t tmp[32];
  if (t == DType::f16) _mm_storeu_si128(reinterpret_cast<__m128i*>(tmp), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
  else _mm256_storeu_ps(reinterpret_cast<float*>(tmp), v);
  std::memcpy(p, tmp, size_t(n) * (t == DType::f16 ? 2 : 4));
}

// max_of / min_of: a canonical quiet NaN when either is NaN, else a > b ? a : b (a < b ? a : b),
// which is what maxps (minps) computes: the second operand on ties, +0 and -0 included.
__attribute__((target("avx2,f16c"))) __m256 nan_or(__m256 r, __m256 a, __m256 b) {
  const __m256 unordered = _mm256_cmp_ps(a, b, _CMP_UNORD_Q);
  return _mm256_blendv_ps(r, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)), unordered);
}

__attribute__((target("avx2,f16c"))) __m256 apply(SimdOp op, __m256 a, __m256 b) {
  switch (op) {
    case SimdOp::Add: return _mm256_add_ps(a, b);
    case SimdOp::Sub: return _mm256_sub_ps(a, b);
    case SimdOp::Mul: return _mm256_mul_ps(a, b);
    case SimdOp::Div: return _mm256_div_ps(a, b);
    case SimdOp::Max: return nan_or(_mm256_max_ps(a, b), a, b);
    case SimdOp::Min: return nan_or(_mm256_min_ps(a, b), a, b);
    case SimdOp::None:
    case SimdOp::Exp: break;
  }
  return a;
}

// Where elements [i, i + 8) start: 8 elements of 2 or 4 bytes never cross a 32-byte block.
int64_t group_at(int i, int size, int64_t blk) { return int64_t(i) * size / 32 * blk + int64_t(i) * size % 32; }

__attribute__((target("avx2,f16c"))) void binary_avx2(SimdOp op, DType t, SimdOperand a, SimdOperand b, uint8_t* d,
                                                       int64_t d_blk, int n) {
  const int size = t == DType::f16 ? 2 : 4;
  __m256 out[16];  // the whole repeat first: d may overlap a or b
  for (int i = 0; i < n; i += 8) {
    const int k = n - i < 8 ? n - i : 8;
    out[i / 8] = apply(op, load8(t, a.at + group_at(i, size, a.blk), k), load8(t, b.at + group_at(i, size, b.blk), k));
  }
  for (int i = 0; i < n; i += 8) store8(t, d + group_at(i, size, d_blk), out[i / 8], n - i < 8 ? n - i : 8);
}

__attribute__((target("avx2,f16c"))) void convert_avx2(DType from, DType to, const uint8_t* s, uint8_t* d, int n) {
  const int size = from == DType::f16 ? 2 : 4;
  __m256 out[16];
  for (int i = 0; i < n; i += 8) out[i / 8] = load8(from, s + i * size, n - i < 8 ? n - i : 8);
  const int out_size = to == DType::f16 ? 2 : 4;
  for (int i = 0; i < n; i += 8) store8(to, d + i * out_size, out[i / 8], n - i < 8 ? n - i : 8);
}

// e^x for 4 doubles: x = k ln2 + r with |r| <= ln2 / 2 (Cody and Waite's two-part ln2, exact with
// FMA), e^r by its Taylor series to r^13 (truncation below 2^-60), times 2^k built in the exponent
// bits. Valid for |x| < 700; the caller takes the lanes it cannot trust from std::exp.
__attribute__((target("avx2,fma"))) __m256d exp4(__m256d x) {
  const __m256d k = _mm256_round_pd(_mm256_mul_pd(x, _mm256_set1_pd(1.4426950408889634)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(6.93147180369123816490e-01), x);  // ln2's high part
  r = _mm256_fnmadd_pd(k, _mm256_set1_pd(1.90821492927058770002e-10), r);         // and its low part
  static constexpr double kInverseFactorial[] = {1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800,
                                                 1.0 / 362880,     1.0 / 40320,     1.0 / 5040,     1.0 / 720,
                                                 1.0 / 120,        1.0 / 24,        1.0 / 6,        0.5};
  __m256d p = _mm256_set1_pd(kInverseFactorial[0]);
  for (int i = 1; i < 12; ++i) p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(kInverseFactorial[i]));
  p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0));
  p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0));
  const __m256i k64 = _mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(k));
  const __m256i scale = _mm256_slli_epi64(_mm256_add_epi64(k64, _mm256_set1_epi64x(1023)), 52);
  return _mm256_mul_pd(p, _mm256_castsi256_pd(scale));
}

// The lanes of y = exp4(x) std::exp must redo: x outside the range whose e^x is a normal float (or
// NaN), or y within 64 ulps of a point halfway between two floats (the low 29 of its 52 fraction
// bits near 2^28), where 1-2 ulps could round it to the other float.
__attribute__((target("avx2,fma"))) int untrusted_lanes(__m256d x, __m256d y) {
  const __m256d in_range = _mm256_and_pd(_mm256_cmp_pd(x, _mm256_set1_pd(-87.3), _CMP_GE_OQ),
                                         _mm256_cmp_pd(x, _mm256_set1_pd(88.7), _CMP_LE_OQ));
  const __m256i low = _mm256_and_si256(_mm256_castpd_si256(y), _mm256_set1_epi64x((int64_t(1) << 29) - 1));
  const __m256i from = _mm256_sub_epi64(low, _mm256_set1_epi64x((int64_t(1) << 28) - 64));  // near: 0 <= from <= 128
  const __m256i near = _mm256_andnot_si256(_mm256_cmpgt_epi64(_mm256_setzero_si256(), from),
                                           _mm256_cmpgt_epi64(_mm256_set1_epi64x(129), from));
  return _mm256_movemask_pd(_mm256_or_pd(_mm256_andnot_pd(in_range, _mm256_castsi256_pd(_mm256_set1_epi64x(-1))),
                                         _mm256_castsi256_pd(near)));
}

__attribute__((target("avx2,fma"))) void exp_avx2(const double* x, double* y, int n) {
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256d v = _mm256_loadu_pd(x + i), e = exp4(v);
    _mm256_storeu_pd(y + i, e);
    for (int redo = untrusted_lanes(v, e); redo; redo &= redo - 1) {
      const int lane = i + __builtin_ctz(unsigned(redo));
      y[lane] = std::exp(x[lane]);
    }
  }
  for (; i < n; ++i) y[i] = std::exp(x[i]);
}

#endif

bool usable(int n) {
  static const bool host = host_has_simd();
  return host && g_enabled && n > 0 && n <= 128;
}

bool float_type(DType t) { return t == DType::f16 || t == DType::f32; }

}  // namespace

bool simd_available() { return host_has_simd(); }
void set_simd_enabled(bool on) { g_enabled = on; }

bool simd_binary(SimdOp op, DType t, SimdOperand a, SimdOperand b, uint8_t* d, int64_t d_blk, int n) {
  if (op == SimdOp::None || op == SimdOp::Exp || !float_type(t) || !usable(n)) return false;
#if defined(__x86_64__)
  binary_avx2(op, t, a, b, d, d_blk, n);
  return true;
#else
  return false;
#endif
}

bool simd_exp_to_f32(const double* x, double* y, int n) {
  if (!usable(n)) return false;
#if defined(__x86_64__)
  exp_avx2(x, y, n);
  return true;
#else
  return false;
#endif
}

bool simd_convert(DType from, DType to, const uint8_t* s, uint8_t* d, int n) {
  if (!float_type(from) || !float_type(to) || from == to || !usable(n)) return false;
#if defined(__x86_64__)
  convert_avx2(from, to, s, d, n);
  return true;
#else
  return false;
#endif
}

}  // namespace cubekit
