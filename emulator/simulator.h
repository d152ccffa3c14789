// The timing model: runs a program over the chip's pipes, in simulated time, with the checks.
//
// Per core, the scalar unit S walks the program in order: a scalar instruction takes
// `scalar_cycles`; any other instruction is dispatched (also `scalar_cycles`) into its pipe's
// queue (depth `queue_depth`; S stalls while it is full). Each pipe starts its queue's
// instructions in order:
//   start      = max(dispatched + 1 cycle slot, previous start + its occupancy, barrier floor, flags)
//   completion = start + latency + occupancy
// so an instruction's startup latency overlaps the next one's work, and only `barrier P` makes
// later P instructions wait for earlier ones to complete. Latency and occupancy per instruction:
//   GM reads (MTE2)   L2 hit or miss latency; (bytes in L2 / the GM read path's rate + missed lines x
//                     line bytes / gm_read_hbm_rate) / burst efficiency, at least until L2's shared
//                     port (l2_rate) and HBM (hbm_rate x hbm_efficiency, turnarounds) have served
//                     them; plus gm_transfer_overhead_cycles
//   GM writes (MTE3, FIX)  gm_write_latency; bytes / the GM write path's rate / burst efficiency +
//                     gm_transfer_overhead_cycles (the write-back occupies HBM)
//                     (burst efficiency: bursts starting off gm_aligned_bytes move at
//                     gm_misaligned_efficiency)
//   L1 -> L0A/L0B/UB  mte1_latency; bytes / the path's rate (CoreConfig::paths)
//   L0C -> UB (V)     vector_latency; bytes / the path's rate
//   mmad (M)          cube_latency; ceil(m/16) * ceil(n/16) * ceil(k/k0) cycles / cube_efficiency
//   vector (V)        vector_latency; repeats x cycles of the op class x UB bank conflict (the most
//                     32 B blocks of one repeat that fall in one of ub_bank_groups groups) /
//                     vector_efficiency
// The cores start core_start_cycles apart, the first after launch_cycles (a mixed launch group by
// group), and each block after block_dispatch_cycles more.
// set_flag fires when every earlier instruction of its pipe has completed; wait_flag holds its
// pipe until the flag fired, then clears it; barrier ALL stops S until every pipe has drained.
// Functional execution happens at each instruction's start, in simulated order.
#pragma once

#include "emulator/emulator.h"
#include "emulator/report.h"

#include <string>

namespace cubekit {

struct SimOptions {
  int blocks = 0;           // 0: the program's block_dim
  bool timing_only = false; // skip data and the race/init checks (memory bounds are still checked)
  bool checks = true;       // race, initialisation and sync checks
  bool trace = false;       // keep what write_trace needs
  int threads = 0;          // host threads; 0: hardware concurrency. Never changes results.
  int64_t max_steps = kDefaultMaxSteps;  // S instructions per block before the run counts as a hang
  int64_t max_work = kDefaultMaxWork;  // work units over the whole run (emulator.h); a user error past it
  int64_t max_trace_events = kDefaultMaxTraceEvents;  // with trace: a user error past it
};

struct TraceSlice {
  uint8_t pipe;
  int32_t index;  // instruction
  int32_t block;
  uint64_t start, end;
};
struct TraceFlow {
  uint8_t src, dst;
  int32_t set_index, wait_index;
  uint64_t fired, released;
  int32_t src_core = -1;  // a set_cross's core (-1: a set_flag of the waiting core's own)
  int32_t block = 0;      // the waiting core's block
};
struct CoreTrace {
  std::vector<TraceSlice> slices;
  std::vector<TraceFlow> flows;
};

struct SimResult {
  Report report;
  std::vector<CoreTrace> traces;  // per core, with SimOptions::trace
};

SimResult simulate(const ChipConfig& chip, const Program& program, GlobalMemory& gm, const SimOptions& options = {});

// Chrome trace JSON (Perfetto, chrome://tracing): one process per core, one track per pipe, a
// slice per instruction (times in microseconds at the chip's clock, each slice's cycles in its
// args), flow arrows from each set_flag's firing to the wait_flag it releases and, across cores, from
// the set_cross that completed a round to each wait_cross it releases; a barrier is an instant on
// its pipe.
void write_trace(const std::string& path, const SimResult& result, const Program& program, const ChipConfig& chip);

}  // namespace cubekit
