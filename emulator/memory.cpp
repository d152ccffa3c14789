#include "emulator/memory.h"

#include "emulator/error.h"
#include "emulator/rounding.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>

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

GlobalMemory GlobalMemory::for_program(const Program& program) {
  GlobalMemory gm;
  gm.decls = program.tensors;
  for (const TensorDecl& t : program.tensors) gm.data.emplace_back(size_t(t.bytes()), 0);
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

void GlobalMemory::fill_inputs(uint64_t seed) {
  for (size_t t = 0; t < decls.size(); ++t) {
    if (!given_by_host(decls[t].role)) continue;
    std::mt19937_64 rng(seed * 1000003 + t);
    std::uniform_real_distribution<double> real(-1.0, 1.0);
    std::uniform_int_distribution<int> small(-8, 8);
    uint8_t* p = data[t].data();
    int size = dtype_size(decls[t].dtype);
    for (int64_t e = 0; e < decls[t].elements(); ++e, p += size) {
      switch (decls[t].dtype) {
        case DType::f16: {
          uint16_t h = f64_to_f16(real(rng));
          std::memcpy(p, &h, 2);
          break;
        }
        case DType::f32: {
          float f = float(real(rng));
          std::memcpy(p, &f, 4);
          break;
        }
        case DType::bf16: {
          uint16_t b = double_to_bf16(real(rng), RoundMode::rint);
          std::memcpy(p, &b, 2);
          break;
        }
        case DType::s8: *reinterpret_cast<int8_t*>(p) = int8_t(std::uniform_int_distribution<int>(-128, 127)(rng)); break;
        case DType::u8: *p = uint8_t(std::uniform_int_distribution<int>(0, 255)(rng)); break;
        case DType::s16: {
          int16_t v = int16_t(small(rng) * 100);
          std::memcpy(p, &v, 2);
          break;
        }
        case DType::u16: {
          uint16_t v = uint16_t(std::uniform_int_distribution<int>(0, 65535)(rng));
          std::memcpy(p, &v, 2);
          break;
        }
        case DType::s32: {
          int32_t v = small(rng) * 1000;
          std::memcpy(p, &v, 4);
          break;
        }
      }
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
