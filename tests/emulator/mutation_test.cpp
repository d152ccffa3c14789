// The double-buffered example has no redundant synchronisation: deleting any one set_flag /
// wait_flag pair, or any one barrier, leaves two accesses unordered, and the checker must say so.
#include "emulator/simulator.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

namespace cubekit {
namespace {

Report check(const Program& p) {
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(5);
  return simulate(load_chip("ascend910"), p, gm).report;
}

TEST(Mutation, EverySyncInTheDoubleBufferedMatmulIsNeeded) {
  Program p = load_program((std::filesystem::path(CUBEKIT_SOURCE_DIR) / "examples/asm/matmul_f16_db.s").string());
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(5);
  SimResult original = simulate(load_chip("ascend910"), p, gm, {.trace = true});
  ASSERT_TRUE(original.report.clean()) << format_diagnostic(p, original.report.diagnostics[0]);

  // The pairs: each set_flag with the wait_flag that consumed it (from the run's flow arrows).
  std::set<std::pair<int, int>> pairs;
  for (const CoreTrace& t : original.traces)
    for (const TraceFlow& f : t.flows) pairs.insert({f.set_index, f.wait_index});
  std::vector<std::vector<int>> mutants;
  for (auto [set, wait] : pairs) mutants.push_back({set, wait});
  for (size_t i = 0; i < p.code.size(); ++i)
    if (is_barrier(p.code[i])) mutants.push_back({int(i)});
  int sets = 0;
  for (const Instr& in : p.code) sets += is_set_flag(in);
  EXPECT_EQ(int(pairs.size()), sets) << "every set_flag should pair with exactly one wait_flag";

  int killed = 0;
  for (const std::vector<int>& deleted : mutants) {
    std::string what;
    for (int i : deleted) what += fmt::format(" `{}` (line {})", print_instr(p, p.code[i]), p.code[i].line);
    Report r = check(without_instructions(p, deleted));
    bool race = false;
    for (const Diagnostic& d : r.diagnostics) race |= d.kind == Diagnostic::Kind::Race;
    if (race) ++killed;
    else ADD_FAILURE() << "deleting" << what << " was not reported as a race";
  }
  std::printf("mutation kill rate: %d of %zu (%.0f%%): %zu set/wait pairs, %zu barriers\n", killed, mutants.size(),
              100.0 * killed / double(mutants.size()), pairs.size(), mutants.size() - pairs.size());
  EXPECT_EQ(killed, int(mutants.size()));
  EXPECT_GE(mutants.size(), 12u);
}

}  // namespace
}  // namespace cubekit
