#include "emulator/vector_simd.h"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace cubekit {

namespace {

bool g_enabled = true;

bool host_has_simd() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
#else
  return false;
#endif
}

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

__attribute__((target("avx2,f16c"))) __m256 apply(SimdBinary op, __m256 a, __m256 b) {
  switch (op) {
    case SimdBinary::Add: return _mm256_add_ps(a, b);
    case SimdBinary::Sub: return _mm256_sub_ps(a, b);
    case SimdBinary::Mul: return _mm256_mul_ps(a, b);
    case SimdBinary::Div: return _mm256_div_ps(a, b);
    case SimdBinary::Max: return nan_or(_mm256_max_ps(a, b), a, b);
    case SimdBinary::Min: return nan_or(_mm256_min_ps(a, b), a, b);
    case SimdBinary::None: break;
  }
  return a;
}

// Where elements [i, i + 8) start: 8 elements of 2 or 4 bytes never cross a 32-byte block.
int64_t group_at(int i, int size, int64_t blk) { return int64_t(i) * size / 32 * blk + int64_t(i) * size % 32; }

__attribute__((target("avx2,f16c"))) void binary_avx2(SimdBinary op, DType t, SimdOperand a, SimdOperand b, uint8_t* d,
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

#endif

bool usable(int n) {
  static const bool host = host_has_simd();
  return host && g_enabled && n > 0 && n <= 128;
}

bool float_type(DType t) { return t == DType::f16 || t == DType::f32; }

}  // namespace

bool simd_available() { return host_has_simd(); }
void set_simd_enabled(bool on) { g_enabled = on; }

bool simd_binary(SimdBinary op, DType t, SimdOperand a, SimdOperand b, uint8_t* d, int64_t d_blk, int n) {
  if (op == SimdBinary::None || !float_type(t) || !usable(n)) return false;
#if defined(__x86_64__)
  binary_avx2(op, t, a, b, d, d_blk, n);
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
