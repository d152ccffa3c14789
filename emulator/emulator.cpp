#include "emulator/emulator.h"

#include "emulator/error.h"
#include "emulator/executor.h"

#include <fmt/format.h>


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
  }
  return "?";
}

std::string format_diagnostic(const Program& p, const Diagnostic& d, std::string_view source) {
  std::string where = source.empty() ? p.name : std::string(source);
  if (d.line) where += fmt::format(":{}", d.line);
  std::string what = fmt::format("core {}", d.core);
  if (d.index >= 0 && d.index < int(p.code.size()))
    what += fmt::format(", instruction {} `{}`", d.index, print_instr(p, p.code[d.index]));
  std::string repeats = d.repeats > 1 ? fmt::format(" (and {} more times)", d.repeats - 1) : "";
  return fmt::format("{}: error: {}: {}: {}{}", where, diagnostic_kind_name(d.kind), what, d.message, repeats);
}

std::string no_end_message(int64_t pc) {
  return fmt::format("execution ran past the last instruction without reaching 'end' (pc {})", pc);
}

std::string step_limit_message(int64_t max_steps) {
  return fmt::format("stopped after {} instructions without reaching 'end': an endless loop? (raise the limit with "
                     "--max-steps)", max_steps);
}

void RunResult::report(Diagnostic d) {
  for (Diagnostic& seen : diagnostics)
    if (seen.kind == d.kind && seen.index == d.index && seen.other == d.other) {
      ++seen.repeats;
      return;
    }
  diagnostics.push_back(std::move(d));
}

namespace {

Diagnostic::Kind kind_of(AccessError::Kind k) {
  switch (k) {
    case AccessError::OutOfBounds: return Diagnostic::Kind::OutOfBounds;
    case AccessError::Misaligned: return Diagnostic::Kind::Misaligned;
    default: return Diagnostic::Kind::DtypeMismatch;
  }
}

}  // namespace

void run_core_in_order(const ChipConfig& chip, const Program& program, GlobalMemory& gm, CoreMemory& memory,
                       ScalarState& s, const RunOptions& options, RunResult& result) {
  std::vector<GmView> views;
  for (auto& t : gm.data) views.push_back({t.data(), 0});
  ExecContext ctx{chip, memory, views.data()};
  Footprint fp;
  int core = int(s.block_idx);
  auto report = [&](Diagnostic::Kind kind, int index, std::string message) {
    uint32_t line = index >= 0 && index < int(program.code.size()) ? program.code[index].line : 0;
    result.report({kind, core, index, line, std::move(message)});
  };
  int64_t pc = 0, steps = 0;
  for (;;) {
    if (pc < 0 || pc >= int64_t(program.code.size())) {
      report(Diagnostic::Kind::NoEnd, -1, no_end_message(pc));
      return;
    }
    if (++steps > options.max_steps) {
      report(Diagnostic::Kind::StepLimit, int(pc), step_limit_message(options.max_steps));
      return;
    }
    const Instr& in = program.code[pc];
    const InstrSpec& spec = spec_of(in);
    ++result.instructions;
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
      pc = flow.kind == Flow::Jump ? flow.target : pc + 1;
      continue;
    }
    ++result.per_pipe[int(issue_pipe(in))];
    if ((is_set_flag(in) || is_wait_flag(in)) && in.ops[2].imm >= chip.event_ids)
      report(Diagnostic::Kind::Sync, int(pc),
             fmt::format("event id {} is out of range: {} has event ids 0-{} per pipe pair", in.ops[2].imm, chip.name,
                         chip.event_ids - 1));
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
    }
    ++pc;
  }
}

RunResult run_in_order(const ChipConfig& chip, const Program& program, GlobalMemory& gm, const RunOptions& options) {
  RunResult result;
  result.cores = options.cores > 0 ? options.cores : program.block_dim;
  for (int core = 0; core < result.cores; ++core) {
    ScalarState s;
    s.block_idx = core;
    s.block_num = result.cores;
    CoreMemory memory(chip);
    run_core_in_order(chip, program, gm, memory, s, options, result);
  }
  return result;
}

}  // namespace cubekit
