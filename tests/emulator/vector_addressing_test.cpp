// Vector addressing that the elementwise sweep (vector_elementwise_test.cpp) does not reach: mask
// bits beyond an f32 repeat, and the repeats counter mode derives, counted directly.
#include "harness.h"

#include "emulator/error.h"

#include <cstring>
#include <memory>
#include <vector>

namespace cubekit::test {
namespace {

constexpr int64_t kUB = 256 << 10;

// Bits of a 0xHI:0xLO mask at or above epr select no element: an f32 repeat has 64 elements, so the
// high word names elements that do not exist. Rejecting such a mask (UserError) or reporting it is
// fine; touching anything outside the 64-element repeat is not.
TEST(VectorElementwiseMask, F32HighWordSelectsNothingBeyondTheRepeat) {
  std::vector<uint8_t> before(kUB);
  for (size_t i = 0; i < before.size(); ++i) before[i] = uint8_t(i * 37 + 11);  // any defined bytes
  for (const char* text : {"vadd.f32 ub[0], ub[4096], ub[8192], dst_rep=16, mask=0x1:0x1\n",
                           "vmuls.f32 ub[0], ub[4096], 2.0, dst_rep=16, mask=0x1:0x1\n"}) {
    SCOPED_TRACE(text);
    std::unique_ptr<Harness> h;
    try {
      h = std::make_unique<Harness>(text);
    } catch (const UserError&) {
      continue;  // rejected when parsed
    }
    std::memcpy(h->at(Space::UB, 0), before.data(), kUB);
    auto d = h->run();
    const uint8_t* ub = h->at(Space::UB, 0);
    // elements 64.. of repeat 0 would lie at bytes 256..511 of dst
    EXPECT_EQ(std::memcmp(ub + 256, before.data() + 256, 256), 0) << "wrote past its 64-element repeat";
    EXPECT_EQ(std::memcmp(ub + 4, before.data() + 4, 252), 0) << "wrote an inactive element";
  }
}

// Counter mode's derived repeats and 255 default-stride repeats, counted directly (no reference).
TEST(VectorElementwiseRepeat, CounterModeCoversExactlyNElements) {
  Harness h("vdup.s16 ub[0], 7, mask=counter:300\n");
  std::memset(h.at(Space::UB, 0), 0, 2048);
  h.run_clean();
  auto v = h.get<int16_t>(Space::UB, 0, 1024);
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(v[i], i < 300 ? 7 : 0) << i;
}

TEST(VectorElementwiseRepeat, Repeat255WithDefaultStridesIsContiguous) {
  Harness h("vdup.f32 ub[0], 2.5, repeat=255\n");
  std::memset(h.at(Space::UB, 0), 0, kUB);
  h.run_clean();
  auto v = h.get<float>(Space::UB, 0, 255 * 64 + 64);
  for (int i = 0; i < 255 * 64 + 64; ++i) ASSERT_EQ(v[i], i < 255 * 64 ? 2.5f : 0.0f) << i;
}

}  // namespace
}  // namespace cubekit::test
