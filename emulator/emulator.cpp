#include "emulator/emulator.h"

#include "emulator/error.h"
#include "emulator/executor.h"
#include "emulator/launch.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

namespace cubekit {

std::string_view diagnostic_kind_name(Diagnostic::Kind k) {
  switch (k) {
    case Diagnostic::Kind::OutOfBounds: return "out-of-bounds";
    case Diagnostic::Kind::Misaligned: return "misaligned";
    case Diagnostic::Kind::DtypeMismatch: return "dtype-mismatch";
    case Diagnostic::Kind::Fault: return "fault";
    case Diagnostic::Kind::NoEnd: return "no-end";
    case Diagnostic::Kind::StepLimit: return "step-limit";
    case Diagnostic::Kind::Race: return "race";
    case Diagnostic::Kind::Uninitialized: return "uninitialized";
    case Diagnostic::Kind::Sync: return "sync";
    case Diagnostic::Kind::Deadlock: return "deadlock";
    case Diagnostic::Kind::Unwritten: return "unwritten";
  }
  return "?";
}

std::string format_diagnostic(const Program& p, const Diagnostic& d, std::string_view source) {
  std::string where = !source.empty() ? std::string(source) : !p.source.empty() ? p.source : p.name;
  if (d.line) where += fmt::format(":{}", d.line);
  std::string what = d.core < 0 ? std::string("the run") : fmt::format("core {}", d.core);
  if (d.index >= 0 && d.index < int(p.code.size()))
    what += fmt::format(", instruction {} `{}`", d.index, print_instr(p, p.code[d.index]));
  std::string repeats = d.repeats > 1 ? fmt::format(" (and {} more time{})", d.repeats - 1, d.repeats > 2 ? "s" : "") : "";
  return fmt::format("{}: error: {}: {}: {}{}", where, diagnostic_kind_name(d.kind), what, d.message, repeats);
}

std::string no_end_message(int64_t pc) {
  return fmt::format("execution ran past the last instruction without reaching 'end' (pc {})", pc);
}

std::string step_limit_message(int64_t max_steps) {
  return fmt::format("stopped after {} instructions without reaching 'end': an endless loop? (raise the limit with "
                     "--max-steps; max_steps= in Python)", max_steps);
}

int64_t work_units(const Work& w) {
  switch (w.kind) {
    case Work::Kind::Vector: return 256 * w.amount;
    case Work::Kind::Cube: return 128 * w.amount;
    case Work::Kind::Transfer: return w.amount / 64;
    case Work::Kind::None: break;
  }
  return 0;
}

int64_t timing_work_units(const Work& w) {
  return kTimedPipeInstruction + (w.kind == Work::Kind::Transfer ? w.amount / 512 : 0);
}

void work_limit_exceeded(int64_t max_work, int64_t instructions) {
  user_error("the run stopped at its work bound of {} units, after {} instructions over all blocks: more work than "
             "the bound allows (a problem larger than it was set for), or an endless loop (a unit is about one "
             "scalar instruction of host time; a vector repeat counts 256, an mmad fractal step 128, and each pipe "
             "instruction 24 more for the timing model, all a timing-only run counts besides L2 lines); raise it with "
             "--max-work (max_work= in Python, SimOptions::max_work in C++)",
             max_work, instructions);
}

void trace_limit_exceeded(int64_t max_trace_events) {
  user_error("the trace reached its bound of {} events (about 200 bytes of JSON each) before the run ended; trace a "
             "smaller problem, or raise the bound with --max-trace-events (max_trace_events= of cubekit.run in Python, "
             "SimOptions::max_trace_events in C++)",
             max_trace_events);
}

Diagnostic* RunResult::find(Diagnostic::Kind kind, int index, int other) {
  for (; indexed_ < diagnostics.size(); ++indexed_) {  // diagnostics added directly since
    const Diagnostic& d = diagnostics[indexed_];
    seen_.try_emplace({d.kind, d.index, d.other}, indexed_);
  }
  auto it = seen_.find({kind, index, other});
  return it == seen_.end() ? nullptr : &diagnostics[it->second];
}

bool RunResult::repeat(Diagnostic::Kind kind, int index, int other) {
  Diagnostic* seen = find(kind, index, other);
  if (seen) ++seen->repeats;
  return seen != nullptr;
}

void RunResult::report(Diagnostic d) {
  if (repeat(d.kind, d.index, d.other)) return;
  diagnostics.push_back(std::move(d));
}

namespace {

Diagnostic::Kind kind_of(AccessError::Kind k) {
  switch (k) {
    case AccessError::OutOfBounds: return Diagnostic::Kind::OutOfBounds;
    case AccessError::Misaligned: return Diagnostic::Kind::Misaligned;
    case AccessError::Fault: return Diagnostic::Kind::Fault;
    default: return Diagnostic::Kind::DtypeMismatch;
  }
}

}  // namespace

namespace {

// Copies what an instruction wrote into the staging copy of a partner core's buffer (the 950's
// L0C -> UB, UB -> L1) on to that core's memory; `partner` says nullptr for the core's own buffers.
void pass_to_partner(const Issued& I, const Footprint& fp, const CoreMemory& memory, const PartnerMemory& partner) {
  if (!partner) return;
  int slot = spec_of(*I.instr).operand_index("sub");
  int subblock = slot >= 0 ? int(I[slot]) : 0;
  for (int k = 0; k < fp.count; ++k) {
    const Region& r = fp.regions[k];
    if (!r.write || r.space == Space::GM) continue;
    CoreMemory* to = partner(r.space, subblock);
    if (!to) continue;
    for (int64_t j = 0; j < r.n2; ++j)
      for (int64_t i = 0; i < r.n1; ++i) {
        int64_t at = r.base + i * r.s1 + j * r.s2;
        std::memcpy(to->data(r.space) + at, memory.buffer[int(r.space)].data() + at, size_t(r.bytes));
      }
  }
}

}  // namespace

namespace {

// A set_cross reaches cores of its own kind (modes 0 and 1) or of the other (mode 2); a wait_cross
// that no set_cross has reached yet waits, in program order, for cores that have not run: a mixed
// block's AIC runs to its end before its AIVs (and vector cores before any later block's), so what
// the wait guards is not there and the results are not the kernel's. Said, not left clean.
template <class Report>
void in_order_cross(const Instr& in, int pc, CoreKind kind, RunResult& result, Report report) {
  if (is_set_cross(in)) {
    const bool other = in.ops[1].imm == 2;
    const CoreKind to = !other ? kind : kind == CoreKind::Aic ? CoreKind::Aiv : CoreKind::Aic;
    ++result.cross_sets[{to, in.ops[2].imm}];
    return;
  }
  if (result.cross_sets[{kind, in.ops[1].imm}] > 0) return;
  report(Diagnostic::Kind::Sync, pc,
         fmt::format("in program order this wait_cross (id {}) comes before every set_cross that reaches an {} core: "
                     "--in-order runs each core to its end (a mixed block's AIC before its AIVs) and ignores "
                     "synchronisation, so the data it waits for is not there and the results are not the kernel's; run "
                     "it without --in-order",
                     in.ops[1].imm, core_kind_name(kind)));
}

}  // namespace

void run_core_in_order(const ChipConfig& chip, const Program& program, GlobalMemory& gm, CoreMemory& memory,
                       ScalarState& s, const RunOptions& options, RunResult& result, int entry,
                       const PartnerMemory& partner, CoreKind kind) {
  std::vector<GmView> views;
  for (auto& t : gm.data) views.push_back({t.data(), 0});
  ExecContext ctx{chip, memory, views.data()};
  Footprint fp;
  int core = int(s.block_idx);
  auto report = [&](Diagnostic::Kind kind, int index, std::string message) {
    uint32_t line = index >= 0 && index < int(program.code.size()) ? program.code[index].line : 0;
    result.report({kind, core, index, line, std::move(message)});
  };
  int64_t pc = entry, steps = 0;
  int64_t last = -1;  // the instruction that moved pc last: where a run past the end is reported
  for (;;) {
    if (pc < 0 || pc >= int64_t(program.code.size())) {
      report(Diagnostic::Kind::NoEnd, int(last), no_end_message(pc));
      return;
    }
    if (++steps > options.max_steps) {
      report(Diagnostic::Kind::StepLimit, int(pc), step_limit_message(options.max_steps));
      return;
    }
    const Instr& in = program.code[pc];
    const InstrSpec& spec = spec_of(in);
    ++result.instructions;
    if (++result.work > options.max_work) work_limit_exceeded(options.max_work, result.instructions);
    if (spec.pipe == Pipe::S) {
      ++result.per_pipe[int(Pipe::S)];
      Flow flow;
      try {
        flow = spec.scalar(in, s);
      } catch (const Fault& f) {
        report(Diagnostic::Kind::Fault, int(pc), f.message);
        return;
      }
      if (flow.kind == Flow::End) return;
      last = pc;
      pc = flow.kind == Flow::Jump ? flow.target : pc + 1;
      continue;
    }
    const Pipe pipe = issue_pipe(in);  // `barrier ALL` names no pipe of its own: S issues it
    ++result.per_pipe[int(pipe == Pipe::All ? Pipe::S : pipe)];
    if ((is_set_flag(in) || is_wait_flag(in)) && in.ops[2].imm >= chip.event_ids)
      report(Diagnostic::Kind::Sync, int(pc),
             fmt::format("event id {} is out of range: {} has event ids 0-{} per pipe pair", in.ops[2].imm, chip.name,
                         chip.event_ids - 1));
    if (is_set_cross(in) || is_wait_cross(in)) in_order_cross(in, int(pc), kind, result, report);
    Issued I = issue(in, int(pc), s);
    AccessError e = check(I, chip, gm, fp);
    if (e.kind != AccessError::None) {
      report(kind_of(e.kind), int(pc), e.message);
    } else {
      try {
        spec.exec(I, ctx);
      } catch (const Fault& f) {
        report(Diagnostic::Kind::Fault, int(pc), f.message);
      }
      pass_to_partner(I, fp, memory, partner);
    }
    if (e.kind == AccessError::None && spec.work) result.work += work_units(spec.work(I, chip));
    last = pc++;
  }
}

namespace {

// How far a block's instructions run before its walk below gives up (each instruction is issued
// and checked, not executed: about 0.2 s per million).
constexpr int64_t kCoverageWalkSteps = 4'000'000;

// The first GM access of block `block` (of `blocks`) outside its tensor, found by walking the
// scalar unit alone and checking each instruction's footprint; nothing when there is none (or the
// walk ends at a fault, a step bound or the end of the code: the run reports those).
std::optional<std::string> gm_overrun_from(const ChipConfig& chip, const Program& program, const GlobalMemory& gm,
                                           int block, int blocks, int entry, int subblock) {
  ScalarState s;
  s.block_idx = block;
  s.block_num = blocks;
  s.subblock_idx = subblock;
  Footprint fp;
  for (int64_t pc = entry, steps = 0; pc >= 0 && pc < int64_t(program.code.size()) && steps < kCoverageWalkSteps; ++steps) {
    const Instr& in = program.code[size_t(pc)];
    const InstrSpec& spec = spec_of(in);
    if (spec.pipe != Pipe::S) {
      AccessError e = check(issue(in, int(pc), s), chip, gm, fp);
      if (e.kind == AccessError::OutOfBounds && fp.regions[e.region].space == Space::GM)
        return fmt::format("{} `{}`: {}", instruction_at(program, int(pc)), print_instr(program, in), e.message);
      ++pc;
      continue;
    }
    Flow flow;
    try {
      flow = spec.scalar(in, s);
    } catch (const Fault&) {
      return std::nullopt;
    }
    if (flow.kind == Flow::End) return std::nullopt;
    pc = flow.kind == Flow::Jump ? flow.target : pc + 1;
  }
  return std::nullopt;
}

// The same over every entry the launch runs (and, for the vector cores of a mixed launch, every subblock).
std::optional<std::string> gm_overrun(const ChipConfig& chip, const Program& program, const GlobalMemory& gm,
                                      int block, int blocks, const std::vector<KindEntry>& kinds) {
  for (const KindEntry& k : kinds) {
    int subblocks = kinds.size() > 1 && k.kind == CoreKind::Aiv ? chip.vector_cores_per_cube : 1;
    for (int sub = 0; sub < subblocks; ++sub)
      if (auto e = gm_overrun_from(chip, program, gm, block, blocks, k.entry, sub)) return e;
  }
  return std::nullopt;
}

}  // namespace

void check_run_inputs(const Program& program, const GlobalMemory& gm, bool functional, int64_t max_steps, int64_t max_work) {
  if (gm.decls.size() != program.tensors.size())
    user_error("kernel '{}' declares {} tensor{} but the GlobalMemory given holds {}: make it with "
               "GlobalMemory::for_program(program) (or GlobalMemory::shape_only(program) for a timing-only run)",
               program.name, program.tensors.size(), program.tensors.size() == 1 ? "" : "s", gm.decls.size());
  // Tensors are matched by index: another program's memory (or one whose entries were reordered)
  // ran on the wrong bytes and wrote the output over an input, and the report said clean.
  for (size_t t = 0; t < gm.decls.size(); ++t)
    if (!(gm.decls[t] == program.tensors[t]))
      user_error("kernel '{}': tensor {} of the GlobalMemory given is {} {} [{}], but the program's tensor {} is {} {} [{}]: "
                 "make the memory with GlobalMemory::for_program(program)", program.name, t, gm.decls[t].name,
                 dtype_name(gm.decls[t].dtype), fmt::join(gm.decls[t].shape, ", "), t, program.tensors[t].name,
                 dtype_name(program.tensors[t].dtype), fmt::join(program.tensors[t].shape, ", "));
  if (functional && !gm.has_data())
    user_error("a functional run of kernel '{}' needs its tensors' bytes, but the GlobalMemory given holds their shapes "
               "only (GlobalMemory::shape_only): make it with GlobalMemory::for_program(program), or run timing-only "
               "(SimOptions::timing_only)", program.name);
  if (functional)
    for (size_t t = 0; t < gm.decls.size(); ++t)
      if (int64_t(gm.data[t].size()) != gm.decls[t].bytes())
        user_error("kernel '{}': tensor {} holds {} bytes in the GlobalMemory given, but it is {} bytes ({} [{}]): fill "
                   "bytes(name) to that many bytes", program.name,
                   gm.decls[t].name, gm.data[t].size(), gm.decls[t].bytes(), dtype_name(gm.decls[t].dtype),
                   fmt::join(gm.decls[t].shape, ", "));
  if (max_steps <= 0)
    user_error("max_steps is {}; give a positive number of instructions a block may run before the run counts as a hang "
               "(--max-steps, max_steps= in Python, SimOptions::max_steps in C++)", max_steps);
  if (max_work <= 0)
    user_error("max_work is {}; give a positive number of work units the run may take (--max-work, max_work= in Python, "
               "SimOptions::max_work in C++)", max_work);
}

int launch_blocks(const ChipConfig& chip, const Program& program, const GlobalMemory& gm, int64_t requested) {
  if (requested < 0) user_error("a launch needs at least one block, got {} blocks", requested);
  int64_t blocks = requested ? requested : program.block_dim;
  if (blocks > kMaxBlockDim)
    user_error("a launch of {} blocks is more than a launch can have: 1..{} (the range of .block_dim)", blocks,
               kMaxBlockDim);
  const std::vector<KindEntry> kinds = program_kinds(chip, program);  // also checks what the kinds run
  if (blocks <= program.block_dim) return int(blocks);
  // Blocks past .block_dim: fine while the program's tensors cover them (it splits its work by
  // block_num, or every block does the same). When even block .block_dim - 1 overruns, that is the
  // program's own bug, for the run to report. Otherwise each block past it is walked in order
  // (overruns need not grow with the block: a block may skip its loop), the first and last
  // kWalkedBlocks / 2 of a larger launch, whose other blocks the run's checker still watches.
  const int n = int(blocks);
  if (gm_overrun(chip, program, gm, program.block_dim - 1, n, kinds)) return n;
  constexpr int kWalkedBlocks = 256;
  const bool all = n - program.block_dim <= kWalkedBlocks;
  for (int b = program.block_dim; b < n; ++b) {
    if (!all && b == program.block_dim + kWalkedBlocks / 2) b = n - kWalkedBlocks / 2;
    if (auto e = gm_overrun(chip, program, gm, b, n, kinds))
      user_error("a launch of {} blocks goes beyond what {}'s tensors hold: block {} would access {}; its tensors cover "
                 "blocks 0..{} (.block_dim {}); launch at most {} blocks, or make the tensors bigger",
                 n, program.name, b, *e, b - 1, program.block_dim, b);
  }
  return n;
}

RunResult run_in_order(const ChipConfig& chip, const Program& program, GlobalMemory& gm, const RunOptions& options) {
  check_chip(chip);
  check_run_inputs(program, gm, true, options.max_steps, options.max_work);
  RunResult result;
  result.cores = launch_blocks(chip, program, gm, options.cores);
  // Block by block; within a block of a mixed launch, the cube core first, then its vector cores.
  LaunchPlan plan = plan_launch(chip, program, result.cores);
  std::vector<std::pair<int, const LaunchCore*>> order;
  for (const LaunchCore& c : plan.cores)
    for (int b : c.blocks) order.push_back({b, &c});
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // A mixed block's cores share their memories for the writes into a partner's buffer (the 950):
  // the cube core runs first, so what it puts into a vector core's UB is there when that one runs.
  std::map<int, std::vector<CoreMemory>> groups;  // block -> the AIC's memory, then the AIVs'
  const int v = chip.vector_cores_per_cube;
  for (const auto& [block, core] : order) {
    ScalarState s;
    s.block_idx = block;
    s.block_num = result.cores;
    s.subblock_idx = core->subblock;
    if (!plan.mixed) {
      CoreMemory memory(chip, *chip.kind(core->kind));
      run_core_in_order(chip, program, gm, memory, s, options, result, core->entry, {}, core->kind);
      continue;
    }
    std::vector<CoreMemory>& group = groups[block];
    if (group.empty()) {
      group.emplace_back(chip, *chip.kind(CoreKind::Aic));
      for (int k = 0; k < v; ++k) group.emplace_back(chip, *chip.kind(CoreKind::Aiv));
    }
    const bool cube = core->kind == CoreKind::Aic;
    CoreMemory& memory = group[size_t(cube ? 0 : 1 + core->subblock)];
    PartnerMemory partner = [&](Space space, int subblock) -> CoreMemory* {
      if (chip.kind(core->kind)->has_buffer(space)) return nullptr;
      return space == Space::UB ? &group[size_t(1 + subblock)] : &group[0];
    };
    run_core_in_order(chip, program, gm, memory, s, options, result, core->entry, partner, core->kind);
    if (!cube && core->subblock == v - 1) groups.erase(block);  // the block's last core ran
  }
  return result;
}

}  // namespace cubekit
