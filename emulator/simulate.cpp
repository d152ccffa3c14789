// The window driver: blocks are spread over the chip's cores (block b on core b % cores, one
// after another), every core runs one window of simulated time, possibly on several host threads,
// and then the shared state is brought up to date in a fixed order (memory_system.h).
#include "emulator/core_sim.h"
#include "emulator/error.h"

#include <algorithm>
#include <thread>

namespace cubekit {

namespace {

void run_window(std::vector<std::unique_ptr<CoreSim>>& cores, uint64_t until, int threads) {
  if (threads <= 1) {
    for (auto& c : cores) c->run_until(until);
    return;
  }
  std::vector<std::jthread> workers;
  for (int w = 0; w < threads; ++w)
    workers.emplace_back([&, w] {
      for (size_t c = size_t(w); c < cores.size(); c += size_t(threads)) cores[c]->run_until(until);
    });
}

}  // namespace

SimResult simulate(const ChipConfig& chip, const Program& program, GlobalMemory& gm, const SimOptions& options) {
  int blocks = options.blocks > 0 ? options.blocks : program.block_dim;
  if (blocks < 1) user_error("a launch needs at least one block, got {}", blocks);
  int ncores = std::min(blocks, chip.cores);
  SharedMemory shared(chip, gm);
  SimContext ctx{chip, program, shared, options, blocks};
  std::vector<std::unique_ptr<CoreSim>> cores;
  for (int c = 0; c < ncores; ++c) {
    std::vector<int> mine;
    for (int b = c; b < blocks; b += ncores) mine.push_back(b);
    cores.push_back(std::make_unique<CoreSim>(ctx, c, std::move(mine)));
  }
  int threads = options.threads > 0 ? options.threads : int(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min(threads, ncores);
  std::unique_ptr<GmShadow> gm_shadow;
  if (options.checks && !options.timing_only) gm_shadow = std::make_unique<GmShadow>(gm);

  const uint64_t window = uint64_t(chip.timing.window_cycles);
  for (uint64_t until = window;;) {
    run_window(cores, until, threads);
    std::vector<SharedMemory::CoreWindow*> windows;
    for (auto& c : cores) windows.push_back(&c->memory().window());
    shared.commit(windows);
    if (gm_shadow) {
      std::vector<const GmAccess*> accesses;
      std::vector<RunResult*> sinks;
      for (auto& c : cores) {
        for (const GmAccess& a : c->gm_accesses()) accesses.push_back(&a);
        sinks.push_back(&c->diagnostics());
      }
      gm_shadow->check(accesses, program, sinks);
    }
    uint64_t next = UINT64_MAX;
    for (auto& c : cores) {
      c->memory().clear_window();
      c->gm_accesses().clear();
      next = std::min(next, c->next_event());
    }
    if (next == UINT64_MAX) break;
    // Skip windows in which nothing happens.
    until = std::max(until + window, (next / window + 1) * window);
  }

  SimResult result;
  Report& r = result.report;
  r.kernel = program.name;
  r.chip = chip.name;
  r.clock_mhz = chip.clock_mhz;
  r.blocks = blocks;
  r.cores = ncores;
  r.timing_only = options.timing_only;
  for (auto& c : cores) {
    r.per_core.push_back(std::move(c->stats()));
    for (Diagnostic& d : c->diagnostics().diagnostics) {
      RunResult merged;
      merged.diagnostics = std::move(r.diagnostics);
      int64_t repeats = d.repeats;
      merged.report(d);
      if (merged.diagnostics.size() == r.diagnostics.size())
        for (Diagnostic& m : merged.diagnostics)
          if (m.kind == d.kind && m.index == d.index && m.other == d.other) m.repeats += repeats - 1;
      r.diagnostics = std::move(merged.diagnostics);
    }
    if (options.trace) result.traces.push_back(std::move(c->trace()));
  }
  finish_report(r, program, chip);
  return result;
}

}  // namespace cubekit
