// Integer helpers of every layer (the emulator is the bottom of the dependency order).
#pragma once

#include <cstdint>

namespace cubekit {

inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t round_up(int64_t x, int64_t to) { return cdiv(x, to) * to; }

}  // namespace cubekit
