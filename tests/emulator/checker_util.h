// Shared by the checker's tests: a program body run on ascend910 with X (f16) and Y (f32), its
// diagnostics, and the lines they point at.
#pragma once

#include "emulator/simulator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace cubekit::checker_test {

struct Checked {
  Program program;
  Report report;
};

// Y is `inout` unless a test asks for `out`: an `out` tensor these snippets leave partly unwritten
// would add an Unwritten diagnostic to the one each test is about.
inline Checked check(const std::string& body, int blocks = 1, std::string_view y_role = "inout") {
  std::string text = ".kernel k\n.tensor X f16 [4096] inout\n.tensor Y f32 [4096] " + std::string(y_role) + "\n" + body + "    end\n";
  Checked c{parse_program(text, "k.s"), {}};
  GlobalMemory gm = GlobalMemory::for_program(c.program);
  gm.fill_inputs(1);
  c.report = simulate(load_chip("ascend910"), c.program, gm, {.blocks = blocks}).report;
  return c;
}

// The line of a program text line that contains `needle` (1-based, counting the 3 header lines).
inline uint32_t line_of(const Checked& c, std::string_view mnemonic_prefix, int nth = 0) {
  for (const Instr& in : c.program.code)
    if (print_instr(c.program, in).starts_with(mnemonic_prefix) && nth-- == 0) return in.line;
  return 0;
}

inline const Diagnostic* find(const Checked& c, Diagnostic::Kind kind) {
  for (const Diagnostic& d : c.report.diagnostics)
    if (d.kind == kind) return &d;
  return nullptr;
}

inline void expect_only(const Checked& c, Diagnostic::Kind kind) {
  for (const Diagnostic& d : c.report.diagnostics)
    EXPECT_EQ(d.kind, kind) << "unexpected: " << format_diagnostic(c.program, d);
  ASSERT_NE(find(c, kind), nullptr) << "no " << diagnostic_kind_name(kind) << " reported";
}

}  // namespace cubekit::checker_test
