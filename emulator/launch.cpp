#include "emulator/launch.h"

#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace cubekit {

namespace {

// A transfer moves operand `src` to operand `dst` between two different memories: it needs the
// path src -> dst (a vector instruction's UB -> UB operands are no path).
bool transfer_operands(const InstrSpec& spec, int& dst, int& src) {
  dst = spec.operand_index("dst"), src = spec.operand_index("src");
  return dst >= 0 && src >= 0 && spec.operands[dst].kind == OperandKind::Mem && spec.operands[src].kind == OperandKind::Mem;
}

// The pipes an instruction needs: its own, or for the sync instructions the pipes they name.
template <class F>
void for_each_pipe(const InstrSpec& spec, const Instr& in, F f) {
  if (spec.pipe != Pipe::All) return f(spec.pipe);
  for (size_t k = 0; k < spec.operands.size(); ++k)
    if (spec.operands[k].kind == OperandKind::PipeName && Pipe(in.ops[k].imm) != Pipe::All) f(Pipe(in.ops[k].imm));
}

std::string instr_text(const Program& program, int index) {
  const Instr& in = program.code[size_t(index)];
  return fmt::format("{} `{}`", instruction_at(program, index), print_instr(program, in));
}

// The kinds whose cores can run every instruction of `code` (indices), in the chip's order.
std::vector<const CoreConfig*> kinds_running(const ChipConfig& chip, const Program& program, const std::vector<int>& code) {
  std::vector<const CoreConfig*> out;
  for (const CoreConfig& k : chip.kinds) {
    bool all = std::all_of(code.begin(), code.end(),
                           [&](int i) { return unavailable_reason(chip, k, program.code[size_t(i)]).empty(); });
    if (all) out.push_back(&k);
  }
  return out;
}

// The user error for an instruction that `kind` cannot run.
[[noreturn]] void refuse(const ChipConfig& chip, const CoreConfig& kind, const Program& program, int index,
                         std::string_view why) {
  const Instr& in = program.code[size_t(index)];
  user_error("kernel '{}' cannot run on {}: {} needs {}, which {}'s {} cores lack; the chips that have it: {}",
             program.name, chip.name, instr_text(program, index), why, chip.name, core_kind_name(kind.kind),
             presets_having(in));
}

// The first instruction of `code` that `kind` cannot run, refused.
void check_kind(const ChipConfig& chip, const CoreConfig& kind, const Program& program, const std::vector<int>& code) {
  for (int i : code) {
    std::string why = unavailable_reason(chip, kind, program.code[size_t(i)]);
    if (!why.empty()) refuse(chip, kind, program, i, why);
  }
}

// The first instruction of `code` that writes a buffer of the partner core in its group (the
// 950's fixpipe into a vector core's UB, copy_ub_l1 into the cube core's L1), or -1.
int partner_write(const CoreConfig& kind, const Program& program, const std::vector<int>& code) {
  for (int i : code) {
    const Instr& in = program.code[size_t(i)];
    int dst, src;
    if (transfer_operands(spec_of(in), dst, src) && in.ops[dst].kind == Operand::Kind::Mem &&
        !kind.has_buffer(in.ops[dst].space))
      return i;
  }
  return -1;
}

}  // namespace

std::string unavailable_reason(const ChipConfig& chip, const CoreConfig& kind, const Instr& in) {
  const InstrSpec& spec = spec_of(in);
  std::string why;
  for_each_pipe(spec, in, [&](Pipe p) {
    if (why.empty() && !kind.has_pipe(p)) why = fmt::format("pipe {}", pipe_name(p));
  });
  if (!why.empty()) return why;
  if (kind.kind == CoreKind::Coupled && (is_set_cross(in) || is_wait_cross(in)))
    return "cross-core flags (cross_core.h: the split chips' AIC and AIV cores have them)";
  // The cube multiplies the types of the chip's fractals only (a timing-only run, which never
  // multiplies, once ran such a program clean).
  if (spec.pipe == Pipe::M && in.ntypes && !chip.fractal(in.type[0])) {
    std::string types;
    for (const CubeFractal& f : chip.cube) types += (types.empty() ? "" : ", ") + std::string(dtype_name(f.input));
    return fmt::format("a cube that takes {} inputs (its cube takes {})", dtype_name(in.type[0]), types);
  }
  int dst = -1, src = -1;
  const bool transfer = transfer_operands(spec, dst, src);
  for (size_t k = 0; k < spec.operands.size(); ++k) {
    if (spec.operands[k].kind != OperandKind::Mem || kind.has_buffer(in.ops[k].space)) continue;
    // A transfer's destination may be the buffer of the partner core in the group (the 950's
    // L0C -> UB and UB -> L1): then the path is the kind's own.
    if (transfer && int(k) == dst && kind.path(in.ops[src].space, in.ops[dst].space)) continue;
    if (transfer && int(k) == dst && in.ops[src].space != Space::GM && kind.has_buffer(in.ops[src].space))
      return fmt::format("data path {} (into the {} of the group's other cores, which only some chips have)",
                         path_text(in.ops[src].space, in.ops[dst].space), space_name(in.ops[dst].space));
    return fmt::format("buffer {} (operand '{}')", space_name(in.ops[k].space), spec.operands[k].name);
  }
  if (transfer) {
    Space s = in.ops[src].space, d = in.ops[dst].space;
    if (s != d && !kind.path(s, d)) return fmt::format("data path {}", path_text(s, d));
  }
  return {};
}

bool kind_has_instruction(const CoreConfig& k, const InstrSpec& spec) {
  auto spaces = [](const OperandSpec& o) {
    std::vector<Space> out;
    for (int s = 0; s < kNumSpaces; ++s)
      if (o.spaces >> s & 1) out.push_back(Space(s));
    return out;
  };
  int dst = -1, src = -1;
  const bool transfer = transfer_operands(spec, dst, src);
  if (spec.pipe != Pipe::All && !k.has_pipe(spec.pipe)) return false;
  if (k.kind == CoreKind::Coupled && (spec.mnemonic == "set_cross" || spec.mnemonic == "wait_cross")) return false;
  for (size_t i = 0; i < spec.operands.size(); ++i) {
    if (spec.operands[i].kind != OperandKind::Mem || (transfer && (int(i) == dst || int(i) == src))) continue;
    auto s = spaces(spec.operands[i]);
    if (std::none_of(s.begin(), s.end(), [&](Space x) { return k.has_buffer(x); })) return false;
  }
  if (!transfer) return true;
  for (Space d : spaces(spec.operands[size_t(dst)]))
    for (Space s : spaces(spec.operands[size_t(src)]))
      if (k.has_buffer(s) && (k.has_buffer(d) ? s == d || k.path(s, d) : k.path(s, d) != nullptr)) return true;
  return false;
}

std::string presets_having(const InstrSpec& spec) {
  std::string out;
  for (const ChipConfig& c : chip_presets()) {
    std::string kinds;
    for (const CoreConfig& k : c.kinds)
      if (kind_has_instruction(k, spec)) kinds += (kinds.empty() ? "" : ", ") + std::string(core_kind_name(k.kind));
    if (!kinds.empty()) out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", c.name, kinds);
  }
  return out.empty() ? "none" : out;
}

std::string presets_having(const Instr& in) {
  std::string out;
  for (const ChipConfig& c : chip_presets())
    for (const CoreConfig& k : c.kinds)
      if (unavailable_reason(c, k, in).empty())
        out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", c.name, core_kind_name(k.kind));
  if (!out.empty() || spec_of(in).pipe != Pipe::All) return out.empty() ? "none" : out;
  // A flag between two pipes no one core has (set_flag FIX, V: the FixPipe is the cube core's, V the vector core's).
  return "none: no preset's core has every pipe it names; between cores, use set_cross and wait_cross (split chips)";
}

std::vector<int> reachable_from(const Program& program, int entry) {
  const int n = int(program.code.size());
  std::vector<char> seen(size_t(n), 0);
  std::vector<int> worklist{entry}, out;
  const int end_op = find_mnemonic("end"), jmp_op = find_mnemonic("jmp");
  while (!worklist.empty()) {
    int i = worklist.back();
    worklist.pop_back();
    if (i < 0 || i >= n || seen[size_t(i)]) continue;
    seen[size_t(i)] = 1;
    out.push_back(i);
    const Instr& in = program.code[size_t(i)];
    const InstrSpec& spec = spec_of(in);
    for (size_t k = 0; k < spec.operands.size(); ++k)
      if (spec.operands[k].kind == OperandKind::Label) worklist.push_back(int(in.ops[k].imm));
    if (in.op != end_op && in.op != jmp_op) worklist.push_back(i + 1);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<KindEntry> program_kinds(const ChipConfig& chip, const Program& program) {
  std::vector<KindEntry> out;
  if (!program.entries.empty()) {
    if (!chip.split())
      user_error("kernel '{}' has .entry directives, which say where the cube cores and the vector cores of a split "
                 "chip start; {}'s cores are coupled (cube and vector behind one scalar unit): remove the .entry lines "
                 "and start the program at its first instruction, or run it on a split chip (ascend910b2, ascend950pr)",
                 program.name, chip.name);
    for (CoreKind k : {CoreKind::Aic, CoreKind::Aiv}) {
      const Entry* e = program.entry(k);
      if (!e) continue;
      int at = program.label_index(e->label);
      check_kind(chip, *chip.kind(k), program, reachable_from(program, at));
      out.push_back({k, at});
    }
    return out;
  }
  std::vector<int> code = reachable_from(program, 0);
  std::vector<const CoreConfig*> kinds = kinds_running(chip, program, code);
  if (!kinds.empty()) return {{kinds.front()->kind, 0}};
  if (!chip.split()) check_kind(chip, chip.kinds.front(), program, code);
  // No kind runs it all: either one instruction no kind has, or it needs both kinds.
  for (int i : code) {
    const Instr& in = program.code[size_t(i)];
    bool somewhere = std::any_of(chip.kinds.begin(), chip.kinds.end(),
                                 [&](const CoreConfig& k) { return unavailable_reason(chip, k, in).empty(); });
    if (!somewhere) {
      std::string why;
      for (const CoreConfig& k : chip.kinds)
        why += fmt::format("{}{} lacks {}", why.empty() ? "" : "; ", core_kind_name(k.kind), unavailable_reason(chip, k, in));
      user_error("kernel '{}' cannot run on {}: no core of the chip runs {} ({}); the chips that have it: {}", program.name,
                 chip.name, instr_text(program, i), why, presets_having(in));
    }
  }
  int cube = -1, vector = -1;  // an instruction only each kind runs
  for (int i : code) {
    const Instr& in = program.code[size_t(i)];
    if (cube < 0 && !unavailable_reason(chip, *chip.kind(CoreKind::Aiv), in).empty()) cube = i;
    if (vector < 0 && !unavailable_reason(chip, *chip.kind(CoreKind::Aic), in).empty()) vector = i;
  }
  user_error("kernel '{}' uses both the cube cores and the vector cores of {} ({} runs only on aic, {} only on aiv), "
             "but has no entries: on a split chip, start the cube part with '.entry aic LABEL' and the vector part "
             "with '.entry aiv LABEL'",
             program.name, chip.name, instr_text(program, cube), instr_text(program, vector));
}

LaunchPlan plan_launch(const ChipConfig& chip, const Program& program, int blocks) {
  LaunchPlan plan;
  plan.blocks = blocks;
  std::vector<KindEntry> kinds = program_kinds(chip, program);
  plan.mixed = kinds.size() == 2;
  if (plan.mixed)  // a write into a vector core's UB names one of the group's
    for (const KindEntry& k : kinds)
      for (int i : reachable_from(program, k.entry)) {
        const Instr& in = program.code[size_t(i)];
        int slot = spec_of(in).operand_index("sub");
        if (slot >= 0 && in.ops[size_t(slot)].imm >= chip.vector_cores_per_cube)
          user_error("kernel '{}': {} writes the UB of vector core sub={}, but a group of {} has {} vector cores "
                     "(sub=0..{})", program.name, instr_text(program, i), in.ops[size_t(slot)].imm, chip.name,
                     chip.vector_cores_per_cube, chip.vector_cores_per_cube - 1);
      }
  if (!plan.mixed && chip.split()) {
    const CoreConfig& kind = *chip.kind(kinds.front().kind);
    int i = partner_write(kind, program, reachable_from(program, kinds.front().entry));
    if (i >= 0) {
      CoreKind other = kind.kind == CoreKind::Aic ? CoreKind::Aiv : CoreKind::Aic;
      user_error("kernel '{}' writes a buffer of the other cores of its group ({} writes {} of the {} cores), but runs "
                 "on the {} cores alone: give the program a '.entry {} LABEL' as well, so that those cores run with it "
                 "(a mixed kernel)", program.name, instr_text(program, i),
                 space_name(program.code[size_t(i)].ops[size_t(spec_of(program.code[size_t(i)]).operand_index("dst"))].space),
                 core_kind_name(other), core_kind_name(kind.kind), core_kind_name(other));
    }
  }
  // The cores of one kind taking blocks round-robin; a mixed launch gives each group's vector
  // cores the blocks of their cube core.
  const int groups = std::min(blocks, chip.cores);
  for (const KindEntry& k : kinds) {
    const int per_group = k.kind == CoreKind::Aiv ? chip.vector_cores_per_cube : 1;
    const int count = plan.mixed ? groups * per_group : std::min(blocks, chip.count(k.kind));
    for (int c = 0; c < count; ++c) {
      // A mixed launch starts group by group: its cube core, then its vector cores.
      const int order = !plan.mixed                ? c
                        : k.kind == CoreKind::Aiv ? (c / per_group) * (1 + per_group) + 1 + c % per_group
                                                  : c * (1 + chip.vector_cores_per_cube);
      LaunchCore core{k.kind, c, k.entry, plan.mixed ? c % per_group : 0, order, {}};
      const int first = plan.mixed ? c / per_group : c, step = plan.mixed ? groups : count;
      for (int b = first; b < blocks; b += step) core.blocks.push_back(b);
      plan.cores.push_back(std::move(core));
    }
  }
  return plan;
}

}  // namespace cubekit
