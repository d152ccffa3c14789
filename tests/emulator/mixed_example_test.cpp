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

template <class T>
std::vector<T> values(GlobalMemory& gm, const char* name) { return test::gm_values<T>(gm, name); }

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
  std::vector<uint16_t> a = values<uint16_t>(gm, "A"), b = values<uint16_t>(gm, "B"), c = values<uint16_t>(gm, "C");
  std::vector<float> bias = values<float>(gm, "bias");
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) {
      float acc = 0;
      for (int k = 0; k < 64; ++k) acc += f16_to_f32(a[size_t(i * 64 + k)]) * f16_to_f32(b[size_t(k * 32 + j)]);
      float want = std::max(acc + bias[size_t(j)], 0.0f);
      ASSERT_EQ(c[size_t(i * 32 + j)], f32_to_f16(want)) << "C(" << i << ", " << j << ")";
    }
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
