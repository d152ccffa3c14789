// Integer helpers of every layer (the emulator is the bottom of the dependency order).
#pragma once

#include <cstdint>

namespace cubekit {

inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t round_up(int64_t x, int64_t to) { return cdiv(x, to) * to; }

// A small, fast pseudo-random sequence (Steele, Lea and Flood's SplitMix64): the L2's sampled
// replacement and the host's test inputs, where std::mt19937_64 cost more than the run it fed.
inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace cubekit
