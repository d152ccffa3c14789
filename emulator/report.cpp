#include "emulator/report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace cubekit {

std::string_view path_name(DataPath p) {
  static constexpr std::string_view names[] = {"GM->L1", "GM->UB", "L1->L0A", "L1->L0B", "L1->UB", "L0C->UB", "UB->GM",
                                                 "L0C->GM", "L0C->L1", "UB->L1"};
  return names[int(p)];
}

std::string_view ratio_name(Pipe p) {
  switch (p) {
    case Pipe::S: return "scalar_ratio";
    case Pipe::MTE1: return "mte1_ratio";
    case Pipe::MTE2: return "mte2_ratio";
    case Pipe::MTE3: return "mte3_ratio";
    case Pipe::M: return "mac_ratio";
    case Pipe::V: return "vec_ratio";
    case Pipe::FIX: return "fixpipe_ratio";
    default: return "?";
  }
}

namespace {
// The pipes in the order data flows through a core.
constexpr Pipe kReportOrder[] = {Pipe::S, Pipe::MTE2, Pipe::MTE1, Pipe::M, Pipe::V, Pipe::MTE3};
constexpr Pipe kKindOrder[] = {Pipe::S, Pipe::MTE2, Pipe::MTE1, Pipe::M, Pipe::FIX, Pipe::V, Pipe::MTE3};

uint64_t cdiv(uint64_t a, uint64_t b) { return b ? (a + b - 1) / b : 0; }

std::string instr_text(const Program& p, int index) {
  return index >= 0 && index < int(p.code.size()) ? print_instr(p, p.code[index]) : "?";
}
// On a split chip the cube cores and the vector cores are apart: each kind's pipes over its own cores.
void kind_ratios(Report& r, const ChipConfig& chip) {
  for (const CoreConfig& k : chip.kinds) {
    KindStats ks{k.kind, 0, k.pipes, {}};
    std::array<uint64_t, kNumPipes> busy{};
    for (const CoreStats& c : r.per_core) {
      if (c.kind != k.kind) continue;
      ++ks.cores;
      for (int p = 0; p < kNumPipes; ++p) busy[p] += c.pipes[p].busy;
    }
    if (!ks.cores) continue;
    double capacity = double(std::max<uint64_t>(1, r.cycles)) * ks.cores;
    for (int p = 0; p < kNumPipes; ++p) ks.ratio[p] = double(busy[p]) / capacity;
    r.kinds.push_back(ks);
  }
}

// "mte2_ratio 0.500  mac_ratio 0.250 ..." over the pipes a kind has, in data-flow order.
std::string kind_ratio_text(const KindStats& k) {
  std::string out;
  for (Pipe p : kKindOrder)
    if (k.pipes >> int(p) & 1) out += fmt::format("  {} {:.3f}", ratio_name(p), k.ratio[int(p)]);
  return out;
}
}  // namespace

void finish_report(Report& r, const Program& program, const ChipConfig& chip) {
  std::vector<uint64_t> per_instr(program.code.size(), 0);
  int64_t cube_steps = 0, vector_cycles = 0;
  for (const CoreStats& c : r.per_core) {
    r.cycles = std::max(r.cycles, c.cycles);
    for (int p = 0; p < kNumPipes; ++p) {
      r.pipes[p].busy += c.pipes[p].busy;
      r.pipes[p].instructions += c.pipes[p].instructions;
      r.pipes[p].flag_stall += c.pipes[p].flag_stall;
    }
    for (int k = 0; k < kNumPaths; ++k) r.bytes[k] += c.bytes[k];
    r.scalar_instructions += c.scalar_instructions;
    r.l2_hit_lines += c.l2_hit_lines;
    r.l2_miss_lines += c.l2_miss_lines;
    r.l2_merged_lines += c.l2_merged_lines;
    r.hbm_bytes += c.hbm_read_bytes + c.hbm_write_bytes;
    cube_steps += c.cube_steps;
    vector_cycles += c.vector_cycles_ideal;
    for (size_t i = 0; i < c.line_cycles.size(); ++i) per_instr[i] += c.line_cycles[i];
  }
  r.instructions = int64_t(r.pipes[int(Pipe::S)].instructions);  // S issues every instruction once
  // A pipe's ratio and bound are over the run's cores that have it: on a split chip the cube's over
  // the cube cores, the vector unit's over the vector cores (not over all, which would put a
  // mixed kernel's busy cube at a third of its time on the 910B2).
  std::array<int, kNumPipes> having{};
  for (const CoreStats& c : r.per_core) {
    const CoreConfig* k = chip.kind(c.kind);
    for (int p = 0; p < kNumPipes; ++p) having[p] += k && k->has_pipe(Pipe(p));
  }
  const double cycles = double(std::max<uint64_t>(1, r.cycles));
  for (int p = 0; p < kNumPipes; ++p) r.ratio[p] = double(r.pipes[p].busy) / (cycles * std::max(1, having[p]));
  if (chip.split()) kind_ratios(r, chip);
  int64_t lines = r.l2_hit_lines + r.l2_merged_lines + r.l2_miss_lines;
  r.l2_hit_rate = lines ? double(r.l2_hit_lines) / double(lines) : 0;
  r.l2_merge_rate = lines ? double(r.l2_merged_lines) / double(lines) : 0;

  Roofline& f = r.roofline;
  f.cube_cycles = cdiv(uint64_t(cube_steps), uint64_t(std::max(1, having[int(Pipe::M)])));
  f.vector_cycles = cdiv(uint64_t(vector_cycles), uint64_t(std::max(1, having[int(Pipe::V)])));
  f.hbm_cycles = uint64_t(std::ceil(double(r.hbm_bytes) / chip.timing.hbm_rate));
  f.bound = std::max({f.cube_cycles, f.vector_cycles, f.hbm_cycles});
  f.limiter = f.bound == f.cube_cycles ? "cube" : f.bound == f.vector_cycles ? "vector" : "hbm";
  f.efficiency = r.cycles ? double(f.bound) / double(r.cycles) : 0;

  uint64_t total = 0;
  for (uint64_t c : per_instr) total += c;
  std::vector<int> order;
  for (size_t i = 0; i < per_instr.size(); ++i)
    if (per_instr[i]) order.push_back(int(i));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return per_instr[a] > per_instr[b]; });
  for (size_t k = 0; k < order.size() && k < 10; ++k)
    r.hot_spots.push_back({program.code[order[k]].line, order[k], per_instr[order[k]],
                           total ? double(per_instr[order[k]]) / double(total) : 0});
}

int64_t Report::gm_bytes() const {
  int64_t sum = 0;
  for (DataPath p : {DataPath::GmToL1, DataPath::GmToUb, DataPath::UbToGm, DataPath::L0cToGm}) sum += bytes[size_t(p)];
  return sum;
}

std::string report_json(const Report& r, const Program& program, std::string_view source) {
  using nlohmann::json;
  json j;
  j["kernel"] = r.kernel;
  j["chip"] = r.chip;
  j["clock_mhz"] = r.clock_mhz;
  j["blocks"] = r.blocks;
  j["cores"] = r.cores;
  j["timing_only"] = r.timing_only;
  j["race_checks"] = r.race_checks;
  j["cycles"] = r.cycles;
  j["microseconds"] = r.microseconds();
  j["instructions"] = r.instructions;
  j["scalar_instructions"] = r.scalar_instructions;
  j["work"] = r.work;
  for (Pipe p : kKindOrder) {  // every pipe, FIX too (0 where no core has one), as the kinds' ratios name them
    const PipeStats& s = r.pipes[int(p)];
    j["pipes"][std::string(pipe_name(p))] = {{"busy_cycles", s.busy}, {"instructions", s.instructions},
                                              {"flag_stall_cycles", s.flag_stall}, {"ratio", r.ratio[int(p)]}};
    j["ratios"][std::string(ratio_name(p))] = r.ratio[int(p)];
  }
  for (const KindStats& k : r.kinds) {
    json& kj = j["kinds"][std::string(core_kind_name(k.kind))];
    kj["cores"] = k.cores;
    for (Pipe p : kKindOrder)
      if (k.pipes >> int(p) & 1) kj["ratios"][std::string(ratio_name(p))] = k.ratio[int(p)];
  }
  for (int k = 0; k < kNumPaths; ++k) j["bytes"][std::string(path_name(DataPath(k)))] = r.bytes[k];
  j["gm_bytes"] = r.gm_bytes();
  j["l2"] = {{"hit_lines", r.l2_hit_lines}, {"merged_lines", r.l2_merged_lines}, {"miss_lines", r.l2_miss_lines},
             {"hit_rate", r.l2_hit_rate}, {"merge_rate", r.l2_merge_rate}, {"hbm_bytes", r.hbm_bytes}};
  j["roofline"] = {{"cube_cycles", r.roofline.cube_cycles}, {"vector_cycles", r.roofline.vector_cycles},
                   {"hbm_cycles", r.roofline.hbm_cycles}, {"bound_cycles", r.roofline.bound},
                   {"limiter", r.roofline.limiter}, {"efficiency", r.roofline.efficiency}};
  j["per_core"] = json::array();
  for (const CoreStats& c : r.per_core) {
    json core = {{"core", c.core}, {"kind", core_kind_name(c.kind)}, {"cycles", c.cycles}};
    for (Pipe p : kKindOrder) core["busy_cycles"][std::string(pipe_name(p))] = c.pipes[int(p)].busy;
    j["per_core"].push_back(core);
  }
  j["hot_spots"] = json::array();
  for (const HotSpot& h : r.hot_spots)
    j["hot_spots"].push_back({{"line", h.line}, {"instruction", h.index}, {"text", instr_text(program, h.index)},
                              {"cycles", h.cycles}, {"share", h.share}});
  j["diagnostics"] = json::parse(diagnostics_json(r.diagnostics, program, source));
  return j.dump(2);
}

std::string diagnostics_json(const std::vector<Diagnostic>& diagnostics, const Program& program, std::string_view source) {
  nlohmann::json a = nlohmann::json::array();
  for (const Diagnostic& d : diagnostics)
    a.push_back({{"kind", diagnostic_kind_name(d.kind)}, {"core", d.core}, {"instruction", d.index},
                 {"other_instruction", d.other}, {"line", d.line}, {"message", d.message},
                 {"repeats", d.repeats}, {"text", format_diagnostic(program, d, source)}});
  return a.dump();
}

std::string problems_text(const std::vector<Diagnostic>& diagnostics, const Program& program, std::string_view source) {
  std::string out = fmt::format("checks: {} problem{}\n", diagnostics.size(), diagnostics.size() == 1 ? "" : "s");
  for (const Diagnostic& d : diagnostics) out += "  " + format_diagnostic(program, d, source) + "\n";
  return out;
}

std::string report_text(const Report& r, const Program& program, std::string_view source) {
  std::string out = fmt::format("kernel {} on {}: {} block{} on {} core{}, {} cycles ({:.2f} us at {} MHz){}\n", r.kernel,
                                r.chip, r.blocks, r.blocks == 1 ? "" : "s", r.cores, r.cores == 1 ? "" : "s", r.cycles,
                                r.microseconds(), r.clock_mhz, r.timing_only ? ", timing only" : "");
  out += fmt::format("  {:<5} {:<13} {:>6}  {:<32} {:>12} {:>12}\n", "pipe", "", "ratio", "", "instructions",
                     "flag stall");
  std::vector<Pipe> rows(std::begin(kReportOrder), std::end(kReportOrder));
  if (r.pipes[int(Pipe::FIX)].instructions) rows.push_back(Pipe::FIX);  // the split chips' cube cores
  for (Pipe p : rows) {
    double ratio = r.ratio[int(p)];
    int bar = int(std::lround(std::clamp(ratio, 0.0, 1.0) * 32));
    out += fmt::format("  {:<5} {:<13} {:>6.3f}  {:<32} {:>12} {:>12}\n", pipe_name(p), ratio_name(p), ratio,
                       std::string(size_t(bar), '#') + std::string(size_t(32 - bar), '.'), r.pipes[int(p)].instructions,
                       r.pipes[int(p)].flag_stall);
  }
  for (const KindStats& k : r.kinds)
    out += fmt::format("  {} ({} core{}):{}\n", core_kind_name(k.kind), k.cores, k.cores == 1 ? "" : "s", kind_ratio_text(k));
  std::string bytes;
  for (int k = 0; k < kNumPaths; ++k)
    if (r.bytes[k]) bytes += fmt::format("  {} {}", path_name(DataPath(k)), r.bytes[k]);
  out += fmt::format("  bytes:{}\n", bytes.empty() ? " none" : bytes);
  out += fmt::format("  L2: hit rate {:.3f} ({} of {} lines), merged with fills in flight {:.3f} ({} lines), HBM "
                     "traffic {} bytes\n", r.l2_hit_rate, r.l2_hit_lines,
                     r.l2_hit_lines + r.l2_merged_lines + r.l2_miss_lines, r.l2_merge_rate, r.l2_merged_lines,
                     r.hbm_bytes);
  if (r.roofline.bound == 0)  // nothing for the cube, the vector unit or HBM: no bound to name
    out += "  roofline: no cube, vector or HBM work\n";
  else
    out += fmt::format("  roofline: cube {} / vector {} / HBM {} cycles: {}-bound at {} cycles, efficiency {:.3f}\n",
                       r.roofline.cube_cycles, r.roofline.vector_cycles, r.roofline.hbm_cycles, r.roofline.limiter,
                       r.roofline.bound, r.roofline.efficiency);
  if (!r.hot_spots.empty()) out += "  hot spots (busy cycles over all cores):\n";
  for (size_t k = 0; k < r.hot_spots.size() && k < 5; ++k) {
    const HotSpot& h = r.hot_spots[k];
    std::string where = h.line ? fmt::format("line {}", h.line) : fmt::format("instr {}", h.index);
    out += fmt::format("    {:>5.1f}%  {:<11} {}\n", 100 * h.share, where, instr_text(program, h.index));
  }
  if (r.clean() && r.race_checks) out += "checks: clean\n";
  else if (r.clean())  // say what did not run: a clean report of a racy program is no proof
    out += fmt::format("checks: clean ({}: sync, deadlock, bounds and alignment only; the race and initialisation "
                       "checks need a functional run with checks on)\n", r.timing_only ? "timing only" : "checks off");
  else out += problems_text(r.diagnostics, program, source);
  return out;
}

}  // namespace cubekit
