// What a simulated run reports: cycles, per-pipe utilisation with msprof's names, bytes per data
// path, L2 behaviour, the roofline bound, hot source lines, and the checker's diagnostics.
#pragma once

#include "emulator/emulator.h"
#include "emulator/isa.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cubekit {

enum class DataPath : uint8_t { GmToL1, GmToUb, L1ToL0a, L1ToL0b, L1ToUb, L0cToUb, UbToGm, L0cToGm, L0cToL1, UbToL1 };
inline constexpr int kNumPaths = 10;
std::string_view path_name(DataPath p);  // "GM->L1", ...

// msprof's PipeUtilization names: scalar_ratio, mte1_ratio, mte2_ratio, mte3_ratio, mac_ratio, vec_ratio.
std::string_view ratio_name(Pipe p);

struct PipeStats {
  uint64_t busy = 0;          // cycles the pipe's throughput was in use (startup latencies overlap)
  uint64_t instructions = 0;  // S: every instruction it issued; other pipes: the work they did (no sync)
  uint64_t flag_stall = 0;    // cycles wait_flag held the pipe beyond when it was otherwise ready
};

struct CoreStats {
  int core = 0;
  CoreKind kind = CoreKind::Coupled;
  uint64_t cycles = 0;  // when its last block finished
  std::array<PipeStats, kNumPipes> pipes{};
  std::array<int64_t, kNumPaths> bytes{};
  int64_t l2_hit_lines = 0, l2_miss_lines = 0, hbm_read_bytes = 0, hbm_write_bytes = 0;
  int64_t l2_merged_lines = 0;     // lines read while another request's fill of them was in flight
  int64_t cube_steps = 0;          // fractal steps issued to the cube
  int64_t scalar_instructions = 0; // executed on the scalar unit itself (address arithmetic, branches, ...)
  int64_t vector_cycles_ideal = 0; // vector repeats x class cycles, before bank conflicts
  std::vector<uint64_t> line_cycles;  // per instruction index: busy cycles attributed to it
  std::vector<uint64_t> line_issues;  // per instruction index: times the scalar unit ran or issued it
};

struct Roofline {
  uint64_t cube_cycles = 0;    // all cube steps spread over the cores used
  uint64_t vector_cycles = 0;  // all vector work spread over the cores used
  uint64_t hbm_cycles = 0;     // all HBM traffic at the chip's HBM rate
  uint64_t bound = 0;          // the largest of the three
  std::string limiter;         // "cube", "vector" or "hbm"
  double efficiency = 0;       // bound / cycles
};

struct HotSpot {
  uint32_t line = 0;
  int index = 0;
  uint64_t cycles = 0;
  double share = 0;  // of all busy cycles
};

// The utilisation of one kind of core of a split chip (msprof reports the AIC and AIV apart).
struct KindStats {
  CoreKind kind = CoreKind::Coupled;
  int cores = 0;                         // of this kind in the run
  uint32_t pipes = 0;                    // the kind's pipes (CoreConfig::pipes)
  std::array<double, kNumPipes> ratio{};  // busy / (cycles x cores of this kind)
};

struct Report {
  std::string kernel, chip;
  double clock_mhz = 0;
  int blocks = 0, cores = 0;
  bool timing_only = false;
  // The race and initialisation checks ran (a functional run with checks on); the sync, deadlock,
  // bounds and alignment checks run in every mode.
  bool race_checks = true;
  uint64_t cycles = 0;
  int64_t instructions = 0;  // executed, over all cores
  int64_t scalar_instructions = 0;  // of them, those the scalar unit itself executes (not dispatched to a pipe)
  int64_t work = 0;          // work units over all cores (the measure SimOptions::max_work bounds)
  std::array<PipeStats, kNumPipes> pipes{};  // summed over cores
  std::array<double, kNumPipes> ratio{};      // busy / (cycles x cores)
  std::array<int64_t, kNumPaths> bytes{};
  int64_t l2_hit_lines = 0, l2_miss_lines = 0, hbm_bytes = 0;
  int64_t l2_merged_lines = 0;  // reads that waited on a fill in flight: neither a hit nor a miss
  double l2_hit_rate = 0;       // hit lines over all lines read (hit, merged, missed)
  double l2_merge_rate = 0;     // merged lines over all lines read
  Roofline roofline;
  std::vector<KindStats> kinds;  // split chips: per kind of core the run used (coupled: empty)
  std::vector<CoreStats> per_core;
  std::vector<HotSpot> hot_spots;  // the busiest instructions, most cycles first
  std::vector<Diagnostic> diagnostics;

  bool clean() const { return diagnostics.empty(); }
  double microseconds() const { return double(cycles) / clock_mhz; }
  // Every byte moved to or from GM, on any path (a split chip's results leave L0C for GM directly).
  int64_t gm_bytes() const;
};

// Fills the derived fields (sums, ratios, per-kind ratios, roofline, hot spots) from per_core.
void finish_report(Report& r, const Program& program, const ChipConfig& chip);
std::string report_json(const Report& r, const Program& program, std::string_view source = {});
// The diagnostics as report_json writes them (a JSON array) and as report_text lists them after a
// "checks: N problems" line: for a run that makes no Report (run_in_order) to say them alike.
std::string diagnostics_json(const std::vector<Diagnostic>& diagnostics, const Program& program, std::string_view source);
std::string problems_text(const std::vector<Diagnostic>& diagnostics, const Program& program, std::string_view source);
std::string report_text(const Report& r, const Program& program, std::string_view source = {});

}  // namespace cubekit
