// The cycles of one work instruction on its pipe (TimingCore::cost_of): transfers at their path's
// rate through the L2 and GM model, cube and vector work at their sustained share of the peak.
#include "emulator/timing_core.h"

#include "emulator/checked_math.h"
#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace cubekit {

namespace {

// The bytes an instruction writes to GM (a fixpipe's are in its destination type, fewer than the
// f32 accumulators leaving L0C when it converts).
int64_t gm_bytes_written(const Footprint& fp) {
  int64_t written = 0;
  for (int k = 0; k < fp.count; ++k)
    if (fp.regions[k].write && fp.regions[k].space == Space::GM) written += fp.regions[k].bytes * fp.regions[k].n1 * fp.regions[k].n2;
  return written;
}

DataPath path_of(Space src, Space dst) {
  if (src == Space::L0C) return dst == Space::GM ? DataPath::L0cToGm : dst == Space::L1 ? DataPath::L0cToL1 : DataPath::L0cToUb;
  if (src == Space::GM) return dst == Space::L1 ? DataPath::GmToL1 : DataPath::GmToUb;
  if (dst == Space::GM) return DataPath::UbToGm;
  if (src == Space::UB && dst == Space::L1) return DataPath::UbToL1;
  if (dst == Space::L0A) return DataPath::L1ToL0a;
  if (dst == Space::L0B) return DataPath::L1ToL0b;
  return DataPath::L1ToUb;
}

// Cycles `peak_cycles` of work take at a sustained share of the peak.
int64_t sustained(int64_t peak_cycles, double efficiency) {
  return int64_t(std::ceil(double(peak_cycles) / efficiency - 1e-9));
}

// The share of a transfer's own rate its GM bursts reach: a burst (a run of contiguous chunks)
// that starts off a multiple of gm_aligned_bytes moves at gm_misaligned_efficiency.
double burst_efficiency(const Footprint& fp, const TimingConfig& tc, bool writes) {
  if (tc.gm_misaligned_efficiency >= 1) return 1.0;  // no penalty: skip the walk over the bursts
  double aligned = 0, misaligned = 0;
  for (int k = 0; k < fp.count; ++k) {
    const Region& r = fp.regions[k];
    if (r.space != Space::GM || r.write != writes) continue;
    for (int64_t j = 0; j < r.n2; ++j) {
      int64_t burst_start = -1, end = -1;
      for (int64_t i = 0; i < r.n1; ++i) {
        int64_t start = r.base + i * r.s1 + j * r.s2;
        if (start != end) burst_start = start;  // a new burst
        end = start + r.bytes;
        (burst_start % tc.gm_aligned_bytes ? misaligned : aligned) += double(r.bytes);
      }
    }
  }
  double total = aligned + misaligned;
  return total > 0 ? total / (aligned + misaligned / tc.gm_misaligned_efficiency) : 1.0;
}

}  // namespace

TimingCore::Cost TimingCore::cost_of(const Issued& I, const Footprint& fp, uint64_t t) {
  const TimingConfig& tc = ctx_.chip.timing;
  const InstrSpec& spec = spec_of(*I.instr);
  Work w = spec.work(I, ctx_.chip);
  count_work(ctx_.options.timing_only ? timing_work_units(w) : kTimedPipeInstruction + work_units(w));
  switch (w.kind) {
    case Work::Kind::Transfer: {
      Space src = I.instr->ops[1].space, dst = I.instr->ops[0].space;
      DataPath path = path_of(src, dst);
      stats_.bytes[int(path)] += w.amount;
      const double rate = rates_[size_t(I.index)];
      if (rate <= 0)
        throw InternalError(fmt::format("{} core has no rate for the path {} of instruction {}: launch checks paths",
                                        core_kind_name(kind_.kind), path_text(src, dst), I.index));
      L2Counts l2;
      L2Model::Cost g;
      const int64_t latency = spec.pipe == Pipe::V ? tc.vector_latency : tc.mte1_latency;
      const bool reads_gm = src == Space::GM, writes_gm = dst == Space::GM;
      if (reads_gm) g = ctx_.l2.read(fp, t, w.amount, rate, burst_efficiency(fp, tc, false), l2, kind_.kind);
      else if (writes_gm) g = ctx_.l2.write(fp, t, gm_bytes_written(fp), rate, burst_efficiency(fp, tc, true), l2);
      stats_.l2_hit_lines += l2.hit_lines, stats_.l2_miss_lines += l2.miss_lines;
      stats_.l2_merged_lines += l2.merged_lines;
      stats_.hbm_read_bytes += l2.hbm_read_bytes, stats_.hbm_write_bytes += l2.hbm_write_bytes;
      // A GM transfer also keeps its MTE busy setting it up (what makes short transfers slow).
      if (reads_gm || writes_gm) return {g.latency, std::max<int64_t>(1, g.occupancy) + tc.gm_transfer_overhead_cycles};
      return {latency, std::max<int64_t>(1, int64_t(std::ceil(double(w.amount) / rate)))};
    }
    case Work::Kind::Cube:
      stats_.cube_steps += w.amount;
      return {tc.cube_latency, std::max<int64_t>(1, sustained(w.amount, tc.cube_efficiency))};
    case Work::Kind::Vector: {
      int64_t per_repeat = w.vclass == VecClass::Simple   ? tc.vector_simple_cycles
                           : w.vclass == VecClass::Reduce ? tc.vector_reduce_cycles
                                                          : tc.vector_complex_cycles;
      // UB bank groups: the distinct blocks of one repeat that share a group are read one per
      // cycle; a block read again in the same repeat (block stride 0: a broadcast) costs nothing more.
      int64_t conflict = 1;
      for (int k = 0; k < fp.count; ++k) {
        const Region& r = fp.regions[k];
        if (r.space != Space::UB || r.n1 < 2 || r.s1 == 0) continue;
        std::array<int, 64> count{};
        int groups = std::min(tc.ub_bank_groups, 64);
        int64_t last_block = -1;
        for (int64_t i = 0; i < std::min<int64_t>(r.n1, 8); ++i) {
          // (check() refuses wild bases before any cost; wrapping keeps the group in range regardless.)
          int64_t block = wrapping_add(r.base, i * r.s1) / 32;
          if (block == last_block) continue;  // the same block again
          last_block = block;
          conflict = std::max<int64_t>(conflict, ++count[size_t((block % groups + groups) % groups)]);
        }
      }
      stats_.vector_cycles_ideal += w.amount * per_repeat;
      return {tc.vector_latency, std::max<int64_t>(1, sustained(w.amount * per_repeat * conflict, tc.vector_efficiency))};
    }
    case Work::Kind::None: break;
  }
  return {0, 1};
}

}  // namespace cubekit
