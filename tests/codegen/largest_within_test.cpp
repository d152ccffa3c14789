// codegen::largest_within, the search of the fits (fit.h), against trying every n: byte counts
// that grow in proportion, in steps of an alignment, not at all, faster or slower than in
// proportion, and with a jump, at every capacity around their values.
#include "codegen/fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace cubekit::codegen {
namespace {

int64_t by_trying(int64_t hi, int64_t cap, const std::function<int64_t(int64_t)>& bytes) {
  int64_t best = 0;
  for (int64_t n = 1; n <= hi; ++n)
    if (bytes(n) <= cap) best = n;
  return best;
}

TEST(LargestWithin, AgreesWithTryingEveryN) {
  const std::vector<std::pair<const char*, std::function<int64_t(int64_t)>>> growths = {
      {"proportional", [](int64_t n) { return 1000 + 256 * n; }},
      {"aligned steps", [](int64_t n) { return 3 * ((100 * n + 511) / 512 * 512) + 64; }},
      {"constant", [](int64_t) { return int64_t(4096); }},
      {"quadratic", [](int64_t n) { return 50 + 7 * n * n; }},
      {"a jump at 40", [](int64_t n) { return 128 * n + (n >= 40 ? 20000 : 0); }},
      {"slower after 2", [](int64_t n) { return 1000 + 100 * n + 200 * std::min<int64_t>(n, 2); }},
  };
  for (const auto& [name, bytes] : growths)
    for (int64_t hi : {1, 2, 3, 4, 7, 64, 300})
      for (int64_t cap = 0; cap <= bytes(hi) + 600; cap += 37) {
        const int64_t got = largest_within(hi, cap, [&](int64_t n) {
          EXPECT_GE(n, 1) << name;
          EXPECT_LE(n, hi) << name;
          return bytes(n);
        });
        ASSERT_EQ(got, by_trying(hi, cap, bytes)) << name << ", hi " << hi << ", cap " << cap;
      }
}

TEST(LargestWithin, ProportionalBytesTakeFourTries) {
  int calls = 0;
  const int64_t got = largest_within(4096, 192 * 1024, [&](int64_t n) {
    ++calls;
    return 6 * 256 * n + 512;  // three buffers of two copies, 256 bytes a unit
  });
  EXPECT_EQ(got, (192 * 1024 - 512) / (6 * 256));
  EXPECT_EQ(calls, 4);  // bytes at 1 and 2, the guess and the one past it
}

}  // namespace
}  // namespace cubekit::codegen
