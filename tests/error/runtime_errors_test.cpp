// User errors found while running (emulator/executor.cpp check(), emulator/emulator.cpp and the
// faults of emulator/isa_*.cpp): out-of-bounds and misaligned accesses, GM dtype mismatches,
// faults, running past the end and the step limit. They are Diagnostics, not exceptions: each
// names its kind, core, instruction index and source line, and a message with the bytes.
#include "emulator/emulator.h"
#include "emulator/memory.h"
#include "emulator/simulator.h"
#include "error_test_util.h"

#include <cstdlib>

namespace cubekit::test {
namespace {

using testing::HasSubstr;

struct Ran {
  Program program;
  RunResult result;
  std::string text(size_t i = 0) const {
    return i < result.diagnostics.size() ? format_diagnostic(program, result.diagnostics[i], "test.s") : "";
  }
};

Ran run(const std::string& text, RunOptions options = {}, const ChipConfig& chip = load_chip("ascend910")) {
  Ran r;
  r.program = parse_program(text, "test.s");
  GlobalMemory gm = GlobalMemory::for_program(r.program);
  r.result = run_in_order(chip, r.program, gm, options);
  return r;
}

// The run's one diagnostic, checked for its kind, instruction index and source line.
Diagnostic only(const Ran& r, Diagnostic::Kind kind, int index, uint32_t line) {
  std::string all;
  for (size_t i = 0; i < r.result.diagnostics.size(); ++i) all += "\n  " + r.text(i);
  EXPECT_EQ(r.result.diagnostics.size(), 1u) << "diagnostics:" << (all.empty() ? " none" : all);
  if (r.result.diagnostics.empty()) return {Diagnostic::Kind::Fault, -1, -2, 0, "<no diagnostic>"};
  const Diagnostic& d = r.result.diagnostics[0];
  EXPECT_EQ(diagnostic_kind_name(d.kind), diagnostic_kind_name(kind)) << r.text();
  EXPECT_EQ(d.index, index) << r.text();
  EXPECT_EQ(d.line, line) << r.text();
  return d;
}

using K = Diagnostic::Kind;

// ---- out of bounds: the operand, read or write, the buffer and both byte ranges -----------------

TEST(OutOfBounds, GmReadPastTheTensor) {
  Ran r = run(lines({".kernel t", ".tensor A f16 [16] in", "    copy_gm_ub ub[0], A[0], len=2", "    end"}));
  Diagnostic d = only(r, K::OutOfBounds, 0, 3);
  EXPECT_THAT(d.message, HasSubstr("operand 'src' reads tensor A bytes [0, 64), outside its tensor A bytes [0, 32)"));
  EXPECT_THAT(r.text(), HasSubstr("test.s:3: error: out-of-bounds: core 0, instruction 0 `copy_gm_ub ub[0], A[0], "
                                  "len=2`: operand 'src' reads tensor A bytes [0, 64)"));
}

TEST(OutOfBounds, UbWritePastTheEnd) {
  Ran r = run(lines({".kernel t", "    vadd.f16 ub[262112], ub[0], ub[256]", "    end"}));
  Diagnostic d = only(r, K::OutOfBounds, 0, 2);
  EXPECT_THAT(d.message, HasSubstr("operand 'dst' writes ub bytes [262112, 262368), outside its ub bytes [0, 262144)"));
}

TEST(OutOfBounds, NegativeAddressFromARegister) {
  Ran r = run(lines({".kernel t", "    li x1, -64", "    vadd.f16 ub[x1], ub[0], ub[256]", "    end"}));
  Diagnostic d = only(r, K::OutOfBounds, 1, 3);
  EXPECT_THAT(d.message, HasSubstr("operand 'dst' writes ub bytes [-64, 192), outside its ub bytes [0, 262144) (a "
                                   "negative address)"));
}

TEST(OutOfBounds, MmadReadsPastL0a) {
  Ran r = run(lines({".kernel t", "    mmad.f16 l0c[0], l0a[0], l0b[0], m=16, n=16, k=4095, init", "    end"}));
  Diagnostic d = only(r, K::OutOfBounds, 0, 2);
  EXPECT_THAT(d.message, HasSubstr("operand 'a' reads l0a bytes [0, 131072), outside its l0a bytes [0, 65536)"));
}

// A problem inside a loop is one diagnostic with a count, not one per iteration.
TEST(OutOfBounds, InALoopIsReportedOnceWithACount) {
  Ran r = run(lines({".kernel t", "    li x1, 0", "top:", "    vadd.f16 ub[262144], ub[0], ub[256]", "    add x1, x1, 1",
                     "    blt x1, 4, top", "    end"}));
  Diagnostic d = only(r, K::OutOfBounds, 1, 4);
  EXPECT_EQ(d.repeats, 4);
  EXPECT_THAT(r.text(), HasSubstr("(and 3 more times)"));
}

// The diagnostic names the core that went wrong.
TEST(OutOfBounds, OnlyOnTheSecondCore) {
  Ran r = run(lines({".kernel t", ".block_dim 2", "    block_idx x1", "    mul x1, x1, 262144",
                     "    vadd.f16 ub[x1], ub[0], ub[256]", "    end"}));
  Diagnostic d = only(r, K::OutOfBounds, 2, 5);
  EXPECT_EQ(d.core, 1);
  EXPECT_THAT(d.message, HasSubstr("operand 'dst' writes ub bytes [262144, 262400)"));
  EXPECT_THAT(r.text(), HasSubstr("test.s:5: error: out-of-bounds: core 1, instruction 2"));
}

// Currently fails (the child process dies of SIGSEGV): the region's end base + bytes overflows
// int64, check() sees hi() < size and the copy reads far outside L1. Run in a child process so the
// crash does not take the other tests with it.
TEST(OutOfBoundsDeathTest, AddressNearInt64MaxIsReportedNotACrash) {
  EXPECT_EXIT(
      {
        Ran r = run(lines({".kernel t", "    li x1, 9223372036854775776", "    copy_l1_ub ub[0], l1[x1]", "    end"}));
        bool reported = r.result.diagnostics.size() == 1 && r.result.diagnostics[0].kind == K::OutOfBounds &&
                        r.result.diagnostics[0].message.find("operand 'src' reads l1 bytes") != std::string::npos;
        std::exit(reported ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

// ---- misaligned: the operand, the buffer, the address, the alignment and the remainder -----------

TEST(Misaligned, UbAddress) {
  Ran r = run(lines({".kernel t", "    vadd.f16 ub[16], ub[0], ub[256]", "    end"}));
  Diagnostic d = only(r, K::Misaligned, 0, 2);
  EXPECT_THAT(d.message, HasSubstr("operand 'dst' ub address 16 is not 32-byte aligned (16 mod 32 = 16)"));
}

TEST(Misaligned, L0aAddress) {
  Ran r = run(lines({".kernel t", "    load2d.f16 l0a[256], l1[0]", "    end"}));
  Diagnostic d = only(r, K::Misaligned, 0, 2);
  EXPECT_THAT(d.message, HasSubstr("operand 'dst' l0a address 256 is not 512-byte aligned (256 mod 512 = 256)"));
}

TEST(Misaligned, GmElement) {
  Ran r = run(lines({".kernel t", ".tensor A f16 [256] in",
                     "    copy_gm_l1_nd2nz.f16 l1[0], A[1], rows=1, cols=16, src_stride=16, dst_rows=16", "    end"}));
  Diagnostic d = only(r, K::Misaligned, 0, 3);
  EXPECT_THAT(d.message, HasSubstr("operand 'src' tensor A address 1 is not 2-byte aligned (1 mod 2 = 1)"));
}

// Every burst must be aligned, not only the first: here the second one of an atomic f32 store
// starts at len + dst_gap = 10 bytes.
TEST(Misaligned, SecondBurstOfAnAtomicStore) {
  Ran r = run(lines({".kernel t", ".tensor C f32 [64] out",
                     "    copy_ub_gm_pad C[0], ub[0], nburst=2, len=8, dst_gap=2, atomic=f32", "    end"}));
  Diagnostic d = only(r, K::Misaligned, 0, 3);
  EXPECT_THAT(d.message, HasSubstr("operand 'dst' tensor C address 10 is not 4-byte aligned (10 mod 4 = 2)"));
}

// ---- GM dtype mismatches: the operand, the tensor, the dtype used and the one declared ----------

TEST(DtypeMismatch, Nd2nzOfAnS8TensorAsF16) {
  Ran r = run(lines({".kernel t", ".tensor Q s8 [256] in",
                     "    copy_gm_l1_nd2nz.f16 l1[0], Q[0], rows=1, cols=16, src_stride=16, dst_rows=16", "    end"}));
  Diagnostic d = only(r, K::DtypeMismatch, 0, 3);
  EXPECT_THAT(d.message, HasSubstr("operand 'src' accesses tensor Q as f16, but it is declared s8"));
}

TEST(DtypeMismatch, AtomicF32AddIntoAnF16Tensor) {
  Ran r = run(lines({".kernel t", ".tensor C f16 [256] out", "    copy_ub_gm C[0], ub[0], atomic=f32", "    end"}));
  Diagnostic d = only(r, K::DtypeMismatch, 0, 3);
  EXPECT_THAT(d.message, HasSubstr("operand 'dst' accesses tensor C as f32, but it is declared f16"));
}

// ---- faults: the core stops at the faulting instruction ----------------------------------------

TEST(Fault, DivisionByZero) {
  Ran r = run(lines({".kernel t", "    li x1, 7", "    li x2, 0", "    div x3, x1, x2", "    end"}));
  Diagnostic d = only(r, K::Fault, 2, 4);
  EXPECT_THAT(d.message, HasSubstr("division by zero"));
  EXPECT_THAT(r.text(), HasSubstr("test.s:4: error: fault: core 0, instruction 2 `div x3, x1, x2`: division by zero"));
}

TEST(Fault, RemainderByZero) {
  Ran r = run(lines({".kernel t", "    li x1, 7", "    rem x3, x1, 0", "    end"}));
  Diagnostic d = only(r, K::Fault, 1, 3);
  EXPECT_THAT(d.message, HasSubstr("remainder by zero"));
}

TEST(Fault, Load3dBeforeSetFmatrix) {
  Ran r = run(lines({".kernel t", "    load3d.f16 l0a[0], l1[0], c1=1, kh=1, kw=1, m_len=16, k_len=16", "    end"}));
  Diagnostic d = only(r, K::Fault, 0, 2);
  EXPECT_THAT(d.message, HasSubstr("load3d before set_fmatrix: the feature map has no height or width"));
}

TEST(Fault, Load3dKernelLargerThanTheFeatureMap) {
  Ran r = run(lines({".kernel t", "    set_fmatrix h=2, w=2", "    load3d.f16 l0a[0], l1[0], c1=1, kh=3, kw=3, m_len=16, k_len=16",
                     "    end"}));
  Diagnostic d = only(r, K::Fault, 1, 3);
  EXPECT_THAT(d.message, HasSubstr("load3d: the dilated 3x3 kernel is larger than the padded 2x2 feature map"));
}

// The same faults in the simulator's runs, timing-only ones too: no data decides them (a
// timing-only run reported "checks: clean" and exit 0, the functional and --no-checks runs the fault).
TEST(Fault, Load3dGeometryInEveryMode) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {lines({".kernel t", "    load3d.f16 l0a[0], l1[0], c1=1, kh=1, kw=1, m_len=16, k_len=16", "    end"}),
       "load3d before set_fmatrix: the feature map has no height or width"},
      {lines({".kernel t", "    set_fmatrix h=2, w=2", "    load3d.f16 l0a[0], l1[0], c1=1, kh=3, kw=3, m_len=16, k_len=16",
              "    end"}),
       "load3d: the dilated 3x3 kernel is larger than the padded 2x2 feature map"}};
  for (const auto& [text, message] : cases)
    for (bool timing_only : {false, true}) {
      const Program p = parse_program(text, "test.s");
      GlobalMemory gm = timing_only ? GlobalMemory::shape_only(p) : GlobalMemory::for_program(p);
      SimResult r = simulate(load_chip("ascend910"), p, gm, {.timing_only = timing_only});
      ASSERT_EQ(r.report.diagnostics.size(), 1u) << message << (timing_only ? " (timing only)" : "");
      EXPECT_EQ(r.report.diagnostics[0].kind, K::Fault);
      EXPECT_THAT(r.report.diagnostics[0].message, HasSubstr(message));
    }
}

// ---- termination ---------------------------------------------------------------------------------

// Tensors past the memory the machine has available are refused before they are allocated (an
// over-committed add of 2^31 x 2 was killed by the OOM killer, exit 137, no message).
TEST(HostMemory, TensorsPastWhatTheMachineHasAvailable) {
  expect_user_error([] { check_host_memory(int64_t(48) << 30, int64_t(16) << 30, "the GM tensors of kernel 'add'"); },
                    {"the GM tensors of kernel 'add' need 48.0 GiB of host memory and this machine has 16.0 GiB available; "
                     "use smaller shapes (a timing-only run keeps no data)"});
  check_host_memory(int64_t(48) << 30, -1, "unknown availability: no check");
}

// Reported at the instruction that ran past the end: the last one, or the jump to a label after it.
TEST(NoEnd, ProgramWithoutEnd) {
  Ran r = run(lines({".kernel t", "    li x1, 1"}));
  Diagnostic d = only(r, K::NoEnd, 0, 2);
  EXPECT_THAT(d.message, HasSubstr("execution ran past the last instruction without reaching 'end' (pc 1)"));
  EXPECT_THAT(r.text(), HasSubstr("test.s:2: error: no-end: core 0, instruction 0 `li x1, 1`: execution ran past the "
                                  "last instruction"));
}

TEST(NoEnd, JumpToALabelAfterTheLastInstruction) {
  Ran r = run(lines({".kernel t", "    jmp out", "    end", "out:"}));
  Diagnostic d = only(r, K::NoEnd, 0, 2);
  EXPECT_THAT(d.message, HasSubstr("without reaching 'end' (pc 2)"));
}

TEST(StepLimit, EndlessLoop) {
  Ran r = run(lines({".kernel t", "top:", "    add x1, x1, 1", "    jmp top", "    end"}), {.max_steps = 1000});
  Diagnostic d = only(r, K::StepLimit, 0, 3);
  EXPECT_THAT(d.message, HasSubstr("stopped after 1000 instructions without reaching 'end': an endless loop? (raise "
                                   "the limit with --max-steps; max_steps= in Python)"));
  EXPECT_EQ(r.result.instructions, 1000);
}

// ---- not reported ---------------------------------------------------------------------------------

// Currently fails: the ISA takes event ids 0..15 and its reference says "the chip's event_ids
// bounds it (ascend910: 0-3)", but nothing checks event 7 against ascend910's 4 ids; the run is clean.
TEST(NotReported, EventIdBeyondTheChip) {
  Ran r = run(lines({".kernel t", "    set_flag MTE2, V, 7", "    wait_flag MTE2, V, 7", "    end"}));
  ASSERT_FALSE(r.result.diagnostics.empty()) << "event 7 on a chip with event ids 0-3 was not reported";
  EXPECT_EQ(r.result.diagnostics[0].index, 0);
  EXPECT_EQ(r.result.diagnostics[0].line, 2u);
  EXPECT_THAT(r.result.diagnostics[0].message, HasSubstr("event"));
  EXPECT_THAT(r.result.diagnostics[0].message, HasSubstr("7"));
}

}  // namespace
}  // namespace cubekit::test
