// examples/asm/mixed_matmul_bias_relu_910b2.s: the hand-written mixed kernel of a split chip (the
// cube core's matmul into a GM workspace, the vector cores' epilogue reading it under a cross-core
// flag) computes relu(A x B + bias) exactly, cleanly, and needs every one of its synchronisation
// instructions: deleting any one (cross-core ones included) is reported.
#include "emulator/rounding.h"
#include "emulator/simulator.h"
#include "harness.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

namespace cubekit {
namespace {

constexpr const char* kChip = "ascend910b2";

Program example() {
  return load_program(
      (std::filesystem::path(CUBEKIT_SOURCE_DIR) / "examples/asm/mixed_matmul_bias_relu_910b2.s").string());
}

bool is_sync(const Instr& in) {
  std::string_view m = spec_of(in).mnemonic;
  return m == "set_flag" || m == "wait_flag" || m == "barrier" || m == "set_cross" || m == "wait_cross";
}

TEST(MixedExample, ComputesReluOfMatmulPlusBias) {
  Program p = example();
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(11);
  SimResult r = simulate(load_chip(kChip), p, gm);
  ASSERT_TRUE(r.report.clean()) << format_diagnostic(p, r.report.diagnostics[0]);
  EXPECT_EQ(r.report.cores, 3);  // one group: its AIC and both AIVs

  // The reference: mmad's contract (f32, one rounding per step, k increasing), then the vector
  // unit's f32 add, ReLU and round-to-nearest-even f16.
  std::vector<uint16_t> a = test::gm_values<uint16_t>(gm, "A"), b = test::gm_values<uint16_t>(gm, "B"), c = test::gm_values<uint16_t>(gm, "C");
  std::vector<float> bias = test::gm_values<float>(gm, "bias");
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) {
      float acc = 0;
      for (int k = 0; k < 64; ++k) acc += f16_to_f32(a[size_t(i * 64 + k)]) * f16_to_f32(b[size_t(k * 32 + j)]);
      float want = std::max(acc + bias[size_t(j)], 0.0f);
      ASSERT_EQ(c[size_t(i * 32 + j)], f32_to_f16(want)) << "C(" << i << ", " << j << ")";
    }
}

// Without its wait_cross a vector core reads the workspace before the cube core's fixpipe writes
// it. Whichever side ran first, every race's advice is the hand-off the program means: the read
// waits for the write (set_cross FIX after the write, wait_cross MTE2 before the read), mode 2.
TEST(MixedExample, AMissingWaitCrossIsAdvisedAsTheHandOff) {
  Program p = example();
  int wait = -1;
  for (size_t i = 0; i < p.code.size(); ++i)
    if (spec_of(p.code[i]).mnemonic == "wait_cross") wait = int(i);
  ASSERT_GE(wait, 0);
  Program cut = without_instructions(p, {wait});
  GlobalMemory gm = GlobalMemory::for_program(cut);
  gm.fill_inputs(11);
  SimResult r = simulate(load_chip(kChip), cut, gm);
  int races = 0;
  for (const Diagnostic& d : r.report.diagnostics) {
    if (d.kind != Diagnostic::Kind::Race) continue;
    ++races;
    EXPECT_NE(d.message.find("`set_cross FIX, mode=2, id=N` after"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("`wait_cross MTE2, id=N` before"), std::string::npos) << d.message;
  }
  EXPECT_GE(races, 1) << "no race reported";
}

TEST(MixedExample, DeletingAnySynchronisationIsReported) {
  Program p = example();
  int mutants = 0, reported = 0, cross = 0;
  for (size_t i = 0; i < p.code.size(); ++i) {
    if (!is_sync(p.code[i])) continue;
    ++mutants;
    std::string_view m = spec_of(p.code[i]).mnemonic;
    cross += m == "set_cross" || m == "wait_cross";
    Program mutant = without_instructions(p, {int(i)});
    GlobalMemory gm = GlobalMemory::for_program(mutant);
    gm.fill_inputs(11);
    Report r = simulate(load_chip(kChip), mutant, gm).report;
    bool flagged = false;
    for (const Diagnostic& d : r.diagnostics)
      flagged |= d.kind == Diagnostic::Kind::Race || d.kind == Diagnostic::Kind::Sync ||
                 d.kind == Diagnostic::Kind::Deadlock;
    if (flagged) ++reported;
    else ADD_FAILURE() << fmt::format("deleting `{}` (line {}) was not reported", print_instr(p, p.code[i]), p.code[i].line);
  }
  std::printf("mixed example: %d of %d deletions reported (%d cross-core)\n", reported, mutants, cross);
  EXPECT_EQ(reported, mutants);
  EXPECT_EQ(cross, 2);
  EXPECT_GE(mutants, 14);
}

}  // namespace
}  // namespace cubekit
