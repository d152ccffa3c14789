// The L2 model on its own (emulator/l2_model.h): write-back once per residency, a read port per
// core kind, ages that wrap, and replacement deferred for requests of new lines without changing
// any cost against a model that replays every request at once.
#include "emulator/l2_model.h"

#include "emulator/chip_config.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace cubekit {
namespace {

Footprint gm_region(int64_t base, int64_t bytes, bool write) {
  Footprint fp;
  Region r;
  r.tensor = 0, r.write = write, r.base = base, r.bytes = bytes;
  fp.add(r);
  return fp;
}

TEST(ModelEffects, ARewriteOfLinesStillInL2CostsHbmNothingMore) {
  // A workspace slot written again and again while it stays in L2 pays one write-back; writes to
  // new lines (a streaming kernel's) pay every byte, as before write-back was modelled.
  const ChipConfig c = load_chip("ascend910b2");
  const std::vector<TensorDecl> ws = {{"W", DType::f32, {1 << 20}, TensorRole::Out}};
  const int64_t slot = 64 * 1024, rate = 64;
  L2Model again(c, ws);
  L2Counts counts;
  for (int i = 0; i < 8; ++i) again.write(gm_region(0, slot, true), uint64_t(i) * 10000, slot, rate, 1.0, counts);
  EXPECT_EQ(counts.hbm_write_bytes, slot);
  L2Model fresh(c, ws);
  L2Counts stream;
  for (int i = 0; i < 8; ++i) fresh.write(gm_region(i * slot, slot, true), uint64_t(i) * 10000, slot, rate, 1.0, stream);
  EXPECT_EQ(stream.hbm_write_bytes, 8 * slot);
  // Half a line written, then the other half: the second half is new bytes and pays for them.
  L2Model halves(c, ws);
  L2Counts h;
  const int64_t half = c.timing.l2_line_bytes / 2;
  halves.write(gm_region(0, half, true), 0, half, rate, 1.0, h);
  halves.write(gm_region(half, half, true), 1000, half, rate, 1.0, h);
  halves.write(gm_region(0, 2 * half, true), 2000, 2 * half, rate, 1.0, h);
  EXPECT_EQ(h.hbm_write_bytes, 2 * half);
}

TEST(ModelEffects, CubeAndVectorCoresReachL2ThroughPortsOfTheirOwn) {
  // Lines already in L2, read by two cores at once: a second cube core queues behind the first at
  // L2's port, a vector core does not.
  ChipConfig c = load_chip("ascend910b2");
  c.timing.l2_rate = 32;  // a port slower than one core's path, so the port bounds each read
  const std::vector<TensorDecl> x = {{"X", DType::f16, {1 << 20}, TensorRole::In}};
  const int64_t bytes = 32 * 1024;
  auto second_read = [&](CoreKind first, CoreKind second) {
    L2Model l2(c, x);
    L2Counts counts;
    l2.write(gm_region(0, bytes, true), 0, bytes, 110, 1.0, counts);  // the lines in L2
    l2.read(gm_region(0, bytes, false), 100000, bytes, 110, 1.0, counts, first);
    return l2.read(gm_region(0, bytes, false), 100000, bytes, 110, 1.0, counts, second).occupancy;
  };
  const int64_t alone = int64_t(std::ceil(double(bytes) / c.timing.l2_rate));
  EXPECT_NEAR(double(second_read(CoreKind::Aic, CoreKind::Aiv)), double(alone), 2);
  EXPECT_NEAR(double(second_read(CoreKind::Aic, CoreKind::Aic)), double(2 * alone), 2);
}

TEST(ModelEffects, TheL2AgesWrapWithoutChangingTheReplacement) {
  // Ages are 32-bit request ids, ranked anew when they run out: a model whose counter starts just
  // below the wrap evicts the same lines, so every read costs the same, as one that starts at 0.
  ChipConfig c = load_chip("ascend910");
  c.timing.l2_bytes = 16 * c.timing.l2_line_bytes;  // a full L2 after a few requests
  const std::vector<TensorDecl> x = {{"X", DType::f16, {1 << 16}, TensorRole::InOut}};
  const int64_t line = c.timing.l2_line_bytes;
  L2Model fresh(c, x), wrapping(c, x);
  wrapping.start_requests_at(std::numeric_limits<uint32_t>::max() - 40);
  L2Counts a, b;
  uint64_t seed = 7;
  for (int i = 0; i < 200; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t base = int64_t(seed >> 33) % 40 * line, bytes = (1 + int64_t(seed >> 20) % 4) * line;
    const uint64_t time = uint64_t(i) * 500;
    if (seed >> 63) {
      EXPECT_EQ(fresh.write(gm_region(base, bytes, true), time, bytes, 64, 1.0, a).occupancy,
                wrapping.write(gm_region(base, bytes, true), time, bytes, 64, 1.0, b).occupancy);
      continue;
    }
    L2Model::Cost x1 = fresh.read(gm_region(base, bytes, false), time, bytes, 64, 1.0, a, CoreKind::Aic);
    L2Model::Cost x2 = wrapping.read(gm_region(base, bytes, false), time, bytes, 64, 1.0, b, CoreKind::Aic);
    EXPECT_EQ(x1.latency, x2.latency) << "request " << i;
    EXPECT_EQ(x1.occupancy, x2.occupancy) << "request " << i;
  }
  EXPECT_EQ(a.hit_lines, b.hit_lines);
  EXPECT_EQ(a.miss_lines, b.miss_lines);
  EXPECT_EQ(a.hbm_write_bytes, b.hbm_write_bytes);
  EXPECT_GT(a.hit_lines, 0);
  EXPECT_GT(a.miss_lines, 16);  // it evicted
}

// Requests drawn at random over a small L2 (so that it evicts), from every kind of footprint the
// model sees: one run, rows of runs (n1, s1) and a second dimension (n2, s2), runs that share a
// line, partial lines, two tensors; stretches of new lines (a streaming kernel's, deferred) mixed
// with lines read or written again. Every cost and count must equal a model that defers nothing.
struct Draw {
  uint64_t seed;
  int64_t next(int64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return int64_t((seed >> 33) % uint64_t(n));
  }
};

void expect_deferral_changes_nothing(ChipConfig c, uint64_t seed, bool always) {
  const int64_t line = c.timing.l2_line_bytes;
  const std::vector<TensorDecl> x = {{"X", DType::f16, {1 << 19}, TensorRole::InOut},
                                     {"Y", DType::f16, {1 << 18}, TensorRole::InOut}};
  const int64_t tensor_bytes[] = {int64_t(1) << 20, int64_t(1) << 19};
  L2Model deferring(c, x), eager(c, x);
  eager.defer_nothing();
  if (always) deferring.defer_always();  // else its first come-back pauses deferring for the rest
  L2Counts a, b;
  Draw d{seed};
  int64_t streamed = 0;  // the next new line of a streaming stretch, in tensor X
  uint64_t time = 0;     // in order, as the timing model asks
  for (int i = 0; i < 3000; ++i) {
    Region r;
    r.tensor = uint16_t(d.next(2));
    const bool stream = d.next(3) == 0 && r.tensor == 0;
    r.bytes = 1 + d.next(3 * line);
    if (d.next(2)) r.n1 = 1 + d.next(4), r.s1 = r.bytes + d.next(2 * line) - line / 2;  // rows, maybe overlapping
    if (d.next(4) == 0) r.n2 = 2, r.s2 = 4 * line + d.next(line);
    const int64_t span = (r.n1 - 1) * std::max<int64_t>(r.s1, 0) + (r.n2 - 1) * r.s2 + r.bytes;
    if (r.s1 < 0) r.s1 = 0;
    r.base = stream ? streamed : d.next(std::min<int64_t>(48 * line, tensor_bytes[r.tensor] - span));
    if (stream) streamed = (streamed + span + d.next(2) * line) % (tensor_bytes[0] - 8 * span);
    r.write = d.next(2) == 0;
    Footprint fp;
    fp.add(r);
    if (d.next(8) == 0) {  // a second region of the same direction, in the other tensor
      Region q = r;
      q.tensor = uint16_t(1 - r.tensor), q.base = d.next(16 * line), q.n1 = 1, q.n2 = 1;
      fp.add(q);
    }
    time += uint64_t(d.next(60));  // often within the last fills: later reads merge with them
    const int64_t bytes = r.n1 * r.n2 * r.bytes;
    if (r.write) {
      const L2Model::Cost x1 = deferring.write(fp, time, bytes, 64, 1.0, a), x2 = eager.write(fp, time, bytes, 64, 1.0, b);
      ASSERT_EQ(x1.occupancy, x2.occupancy) << "write " << i << " seed " << seed;
      ASSERT_EQ(x1.latency, x2.latency) << "write " << i << " seed " << seed;
    } else {
      const CoreKind port = d.next(2) ? CoreKind::Aic : CoreKind::Aiv;
      const L2Model::Cost x1 = deferring.read(fp, time, bytes, 64, 0.9, a, port), x2 = eager.read(fp, time, bytes, 64, 0.9, b, port);
      ASSERT_EQ(x1.occupancy, x2.occupancy) << "read " << i << " seed " << seed;
      ASSERT_EQ(x1.latency, x2.latency) << "read " << i << " seed " << seed;
    }
    ASSERT_EQ(a.hit_lines, b.hit_lines) << "request " << i << " seed " << seed;
    ASSERT_EQ(a.merged_lines, b.merged_lines) << "request " << i << " seed " << seed;
    ASSERT_EQ(a.miss_lines, b.miss_lines) << "request " << i << " seed " << seed;
    ASSERT_EQ(a.hbm_read_bytes, b.hbm_read_bytes) << "request " << i << " seed " << seed;
    ASSERT_EQ(a.hbm_write_bytes, b.hbm_write_bytes) << "request " << i << " seed " << seed;
  }
  // Not a vacuous comparison: lines came back after an eviction (hits and misses both), fills
  // were shared in flight, and lines were written again.
  EXPECT_GT(a.hit_lines, 100) << seed;
  EXPECT_GT(a.merged_lines, 0) << seed;
  EXPECT_GT(a.miss_lines, 2000) << seed;
}

TEST(L2Model, DeferredReplacementChangesNoCost) {
  for (int candidates : {1, 2, 4, 16}) {
    ChipConfig c = load_chip("ascend910");
    c.timing.l2_bytes = 64 * c.timing.l2_line_bytes;  // a full L2 after a few requests
    c.timing.l2_replacement_candidates = candidates;
    SCOPED_TRACE(candidates);
    for (uint64_t seed : {1, 2, 3}) expect_deferral_changes_nothing(c, seed, true);
    expect_deferral_changes_nothing(c, 5, false);
  }
  ChipConfig odd = load_chip("ascend910b2");  // an L2 not a power of two in lines, 128-byte lines
  odd.timing.l2_bytes = 100 * odd.timing.l2_line_bytes;
  expect_deferral_changes_nothing(odd, 4, true);
}

TEST(L2Model, DeferredReplacementSurvivesTheAgesWrap) {
  ChipConfig c = load_chip("ascend910");
  c.timing.l2_bytes = 16 * c.timing.l2_line_bytes;
  const std::vector<TensorDecl> x = {{"X", DType::f16, {1 << 16}, TensorRole::InOut}};
  const int64_t line = c.timing.l2_line_bytes;
  L2Model deferring(c, x), eager(c, x);
  eager.defer_nothing();
  deferring.defer_always();
  deferring.start_requests_at(std::numeric_limits<uint32_t>::max() - 5);
  eager.start_requests_at(std::numeric_limits<uint32_t>::max() - 5);
  L2Counts a, b;
  for (int i = 0; i < 24; ++i) {  // new lines (12 of L2's 16) past the wrap, then the same lines again
    const int64_t base = i % 6 * 2 * line;
    const L2Model::Cost x1 = deferring.read(gm_region(base, 2 * line, false), uint64_t(i) * 300, 2 * line, 64, 1.0, a, CoreKind::Aiv);
    const L2Model::Cost x2 = eager.read(gm_region(base, 2 * line, false), uint64_t(i) * 300, 2 * line, 64, 1.0, b, CoreKind::Aiv);
    ASSERT_EQ(x1.occupancy, x2.occupancy) << i;
  }
  EXPECT_EQ(a.hit_lines, b.hit_lines);
  EXPECT_GT(a.hit_lines, 0);
}

}  // namespace
}  // namespace cubekit
