// Integer arithmetic on values a user controls (addresses, strides, counts, option values): the
// one place that knows how to add and multiply them without undefined behaviour.
#pragma once

#include <cstdint>
#include <optional>

namespace cubekit {

// a + b and a * b, or nullopt when the result does not fit in 64 bits.
inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// The machine's 64-bit registers wrap: an address computed from a wild register is a wrong number
// that a bounds check rejects, never undefined behaviour.
inline int64_t wrapping_add(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }

}  // namespace cubekit
