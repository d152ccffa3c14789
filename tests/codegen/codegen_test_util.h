// Shared by the compiler's tests: the chip they run on, the checker's diagnostics as text, and
// matmul options built in one expression.
#pragma once

#include "emulator/emulator.h"
#include "kernels/check.h"
#include "kernels/matmul.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

namespace cubekit::test {

inline const ChipConfig& chip() {
  static const ChipConfig c = load_chip("ascend910");
  return c;
}

inline std::string describe(const kernels::KernelRun& run) {
  std::string d;
  for (const Diagnostic& x : run.sim.report.diagnostics) d += format_diagnostic(run.program, x) + "\n";
  return d;
}

// Matmul options of a shape, and options changed by `f` (for tables of cases).
inline kernels::MatmulOptions mm(int64_t m, int64_t n, int64_t k) {
  kernels::MatmulOptions o;
  o.m = m, o.n = n, o.k = k;
  return o;
}
template <class F>
kernels::MatmulOptions with(kernels::MatmulOptions o, F f) {
  f(o);
  return o;
}

// ---- mutation: deleting any executed synchronisation of a generated kernel is reported ----

inline bool is_sync(const Instr& in) {
  std::string_view m = spec_of(in).mnemonic;
  return m == "set_flag" || m == "wait_flag" || m == "barrier" || m == "set_cross" || m == "wait_cross";
}

struct Mutations {
  int mutants = 0, reported = 0, cross = 0, unreached = 0;
  std::vector<std::string> survivors;  // the deletions no diagnostic reported
};

// Deletes each synchronisation instruction of `p` that its run (`run(program)` gives the report)
// executed, one at a time, and runs the result: a race, a sync error or a deadlock must be
// reported. Code for edge tiles and copies this run does not reach cannot be seen by any run of it.
template <class Run>
Mutations delete_each_sync(const Program& p, Run run) {
  Mutations m;
  std::set<int> ran;
  for (const CoreStats& c : run(p).per_core)
    for (size_t i = 0; i < c.line_issues.size(); ++i)
      if (c.line_issues[i]) ran.insert(int(i));
  for (size_t i = 0; i < p.code.size(); ++i) {
    if (!is_sync(p.code[i])) continue;
    if (!ran.count(int(i))) {
      ++m.unreached;
      continue;
    }
    ++m.mutants;
    m.cross += spec_of(p.code[i]).mnemonic.ends_with("_cross");
    bool flagged = false;
    for (const Diagnostic& d : run(without_instructions(p, {int(i)})).diagnostics)
      flagged |= d.kind == Diagnostic::Kind::Race || d.kind == Diagnostic::Kind::Sync || d.kind == Diagnostic::Kind::Deadlock;
    if (flagged) ++m.reported;
    else m.survivors.push_back(fmt::format("deleting `{}` (line {}) was not reported", print_instr(p, p.code[i]), p.code[i].line));
  }
  return m;
}

// Runs p on seeded inputs (clean), then deletes each executed synchronisation instruction in turn:
// every deletion must be reported, and there must be at least `least` of them.
inline void expect_every_sync_needed(const Program& p, const ChipConfig& chip, const std::string& what, int least) {
  auto run = [&](const Program& program) {
    GlobalMemory gm = GlobalMemory::for_program(program);
    gm.fill_inputs(9);
    return simulate(chip, program, gm).report;
  };
  Report original = run(p);
  ASSERT_TRUE(original.clean()) << format_diagnostic(p, original.diagnostics[0]);
  Mutations m = delete_each_sync(p, run);
  for (const std::string& s : m.survivors) ADD_FAILURE() << s;
  std::printf("%s on %s: %d of %d executed deletions reported (%d not reached)\n", what.c_str(), chip.name.c_str(),
              m.reported, m.mutants, m.unreached);
  EXPECT_EQ(m.reported, m.mutants);
  EXPECT_GE(m.mutants, least);
}

}  // namespace cubekit::test
