#include "emulator/memory.h"

#include "emulator/arith.h"
#include "emulator/error.h"
#include "emulator/rounding.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <cmath>

namespace cubekit {

ZeroedBytes::ZeroedBytes(size_t n) : p_(static_cast<uint8_t*>(std::calloc(std::max<size_t>(n, 1), 1))), n_(n) {
  if (!p_) throw std::bad_alloc();
}

void ZeroedBytes::Free::operator()(uint8_t* p) const { std::free(p); }

CoreMemory::CoreMemory(const ChipConfig& chip) {
  for (int s = 1; s < kNumSpaces; ++s) buffer[s] = ZeroedBytes(size_t(chip.buffer_size(Space(s))));
}

CoreMemory::CoreMemory(const CoreConfig& kind) {
  for (int s = 1; s < kNumSpaces; ++s) buffer[s] = ZeroedBytes(size_t(kind.size[s]));
}

CoreMemory::CoreMemory(const ChipConfig& chip, const CoreConfig& kind) : CoreMemory(kind) {
  for (const DataPathRate& p : kind.paths)
    if (p.dst != Space::GM && !kind.has_buffer(p.dst)) buffer[int(p.dst)] = ZeroedBytes(size_t(chip.buffer_size(p.dst)));
}

std::vector<uint8_t> big_zeroed(size_t n) {
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  std::vector<uint8_t> v;
  v.reserve(n);  // mapped, not touched: the advice applies before the first fault
  const uintptr_t at = reinterpret_cast<uintptr_t>(v.data());
  const uintptr_t lo = (at + kHuge - 1) / kHuge * kHuge, hi = (at + n) / kHuge * kHuge;
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);  // a hint: refused, it changes nothing
  v.resize(n);
  return v;
}

GlobalMemory GlobalMemory::for_program(const Program& program) {
  GlobalMemory gm;
  gm.decls = program.tensors;
  for (const TensorDecl& t : program.tensors) gm.data.push_back(big_zeroed(size_t(t.bytes())));
  return gm;
}

GlobalMemory GlobalMemory::shape_only(const Program& program) {
  GlobalMemory gm;
  gm.decls = program.tensors;
  return gm;
}

int GlobalMemory::index(std::string_view name) const {
  for (size_t i = 0; i < decls.size(); ++i)
    if (decls[i].name == name) return int(i);
  std::string names;
  for (const TensorDecl& t : decls) names += (names.empty() ? "" : ", ") + t.name;
  user_error("no tensor '{}' (the program declares: {})", name, names.empty() ? "none" : names);
}

namespace {
// A draw's top bits scaled onto [0, n): multiply-shift, no division and no modulo bias worth
// counting for n far below 2^32.
int64_t below(uint64_t draw, int64_t n) { return int64_t(((draw >> 32) * uint64_t(n)) >> 32); }

// Floats are k / 2^b for k uniform in [-2^b, 2^b): exact in the dtype (b = 11 for f16's 11
// significand bits, 8 for bf16, 23 for f32), so filling needs no rounding; f16 and bf16 read their
// bit patterns from a table built once.
template <typename Bits>
std::vector<Bits> grid_table(int b, Bits (*convert)(double)) {
  std::vector<Bits> table(size_t(2) << b);
  for (size_t i = 0; i < table.size(); ++i) table[i] = convert(std::ldexp(double(int64_t(i) - (int64_t(1) << b)), -b));
  return table;
}
uint16_t to_f16(double v) { return f64_to_f16(v); }
uint16_t to_bf16(double v) { return double_to_bf16(v, RoundMode::rint); }

template <typename T>
void fill(uint8_t* p, int64_t n, uint64_t& state, T (*value)(uint64_t)) {
  for (int64_t e = 0; e < n; ++e, p += sizeof(T)) {
    T v = value(splitmix64(state));
    std::memcpy(p, &v, sizeof(T));
  }
}
}  // namespace

void GlobalMemory::fill_inputs(uint64_t seed) {
  static const std::vector<uint16_t> f16_grid = grid_table<uint16_t>(11, to_f16);
  static const std::vector<uint16_t> bf16_grid = grid_table<uint16_t>(8, to_bf16);
  for (size_t t = 0; t < decls.size(); ++t) {
    if (!given_by_host(decls[t].role)) continue;
    uint64_t state = seed * 1000003 + t;
    uint8_t* p = data[t].data();
    int64_t n = decls[t].elements();
    switch (decls[t].dtype) {
      case DType::f16: fill<uint16_t>(p, n, state, [](uint64_t d) { return f16_grid[size_t(d >> 52)]; }); break;
      case DType::bf16: fill<uint16_t>(p, n, state, [](uint64_t d) { return bf16_grid[size_t(d >> 55)]; }); break;
      case DType::f32:
        fill<float>(p, n, state, [](uint64_t d) { return std::ldexp(float(int64_t(d >> 40) - (int64_t(1) << 23)), -23); });
        break;
      case DType::s8: fill<int8_t>(p, n, state, [](uint64_t d) { return int8_t(d >> 56); }); break;
      case DType::u8: fill<uint8_t>(p, n, state, [](uint64_t d) { return uint8_t(d >> 56); }); break;
      case DType::s16: fill<int16_t>(p, n, state, [](uint64_t d) { return int16_t((below(d, 17) - 8) * 100); }); break;
      case DType::u16: fill<uint16_t>(p, n, state, [](uint64_t d) { return uint16_t(d >> 48); }); break;
      case DType::s32: fill<int32_t>(p, n, state, [](uint64_t d) { return int32_t((below(d, 17) - 8) * 1000); }); break;
    }
  }
}

void atomic_add(uint8_t* dst, const uint8_t* src, int64_t bytes, DType t) {
  int size = dtype_size(t);
  for (int64_t e = 0; e + size <= bytes; e += size) {
    if (t == DType::f32) {
      float a, b;
      std::memcpy(&a, dst + e, 4), std::memcpy(&b, src + e, 4);
      a += b;
      std::memcpy(dst + e, &a, 4);
    } else if (t == DType::f16) {
      uint16_t a, b;
      std::memcpy(&a, dst + e, 2), std::memcpy(&b, src + e, 2);
      a = f32_to_f16(f16_to_f32(a) + f16_to_f32(b));  // f32 then f16: one correct rounding (24 >= 2*11+2)
      std::memcpy(dst + e, &a, 2);
    } else {
      uint32_t a, b;
      std::memcpy(&a, dst + e, 4), std::memcpy(&b, src + e, 4);
      a += b;
      std::memcpy(dst + e, &a, 4);
    }
  }
}

}  // namespace cubekit
