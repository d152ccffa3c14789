// The scalar unit: every ALU op with register and immediate operands against a reference written
// from the documented semantics, every branch, loops, the core's identity across cores, and the
// run-time diagnostics (fault, running past the end, step limit).
#include "harness.h"

#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

namespace cubekit::test {
namespace {

const ChipConfig& chip() {
  static const ChipConfig c = load_chip("ascend910");
  return c;
}

struct Ran {
  Program program;
  ScalarState s;
  RunResult r;
};

// Runs `text` on one core and keeps its registers.
Ran run_text(const std::string& text, int64_t max_steps = 1'000'000) {
  Ran out;
  out.program = parse_program(text, "scalar.s");
  GlobalMemory gm = GlobalMemory::for_program(out.program);
  CoreMemory memory(chip());
  RunOptions options;
  options.max_steps = max_steps;
  run_core_in_order(chip(), out.program, gm, memory, out.s, options, out.r);
  return out;
}

std::string hex(int64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%" PRIx64, uint64_t(v));
  return b;
}

bool fits_i32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

// ---- ALU ----------------------------------------------------------------------------------------
// The reference, on two's-complement bit patterns (uint64_t), from the ISA's text.
uint64_t mag(int64_t v) { return v < 0 ? ~uint64_t(v) + 1 : uint64_t(v); }
int64_t neg_wrap(uint64_t m, bool negative) { return int64_t(negative ? ~m + 1 : m); }

int64_t reference(const std::string& op, int64_t a, int64_t b) {
  uint64_t ua = uint64_t(a), ub = uint64_t(b);
  if (op == "add") return int64_t(ua + ub);
  if (op == "sub") return int64_t(ua - ub);
  if (op == "mul") return int64_t(ua * ub);
  if (op == "div") return neg_wrap(mag(a) / mag(b), (a < 0) != (b < 0));  // toward zero, wrapping
  if (op == "rem") return neg_wrap(mag(a) % mag(b), a < 0);               // the sign of a
  if (op == "min") return a < b ? a : b;
  if (op == "max") return a > b ? a : b;
  unsigned sh = unsigned(ub & 63);
  if (op == "shl") return int64_t(ua << sh);
  if (op == "shr") return a < 0 ? int64_t(~(~ua >> sh)) : int64_t(ua >> sh);  // arithmetic
  if (op == "and") return int64_t(ua & ub);
  if (op == "or") return int64_t(ua | ub);
  if (op == "xor") return int64_t(ua ^ ub);
  ADD_FAILURE() << "no reference for " << op;
  return 0;
}

const std::vector<int64_t> kValues = {0, 1, -1, 2, -2, 3, 7, -7, 63, 64, 65, -64, 100, -100, INT32_MAX, INT32_MIN,
                                      int64_t(INT32_MAX) + 1, INT64_MAX, INT64_MIN, INT64_MIN + 1,
                                      0x5555555555555555, int64_t(0xf0f0f0f00f0f0f0full), 0x100000000, -0x100000000};

class ScalarAlu : public testing::TestWithParam<std::string> {};

TEST_P(ScalarAlu, RegisterAndImmediateFormsMatchReference) {
  const std::string op = GetParam();
  for (int64_t a : kValues)
    for (int64_t b : kValues) {
      if ((op == "div" || op == "rem") && b == 0) continue;  // a fault, tested below
      std::string text = ".kernel t\n li x1, " + hex(a) + "\n li x2, " + hex(b) + "\n " + op + " x3, x1, x2\n";
      if (fits_i32(b)) text += " " + op + " x4, x1, " + std::to_string(b) + "\n";
      text += " " + op + " x1, x1, x2\n end\n";  // destination = first source
      Ran run = run_text(text);
      ASSERT_TRUE(run.r.clean()) << text;
      int64_t want = reference(op, a, b);
      EXPECT_EQ(run.s.x[3], want) << op << " " << a << ", " << b << " (registers)";
      if (fits_i32(b)) {
        EXPECT_EQ(run.s.x[4], want) << op << " " << a << ", " << b << " (immediate)";
      }
      EXPECT_EQ(run.s.x[1], want) << op << " " << a << ", " << b << " (in place)";
    }
}

INSTANTIATE_TEST_SUITE_P(Scalar, ScalarAlu,
                         testing::Values("add", "sub", "mul", "div", "rem", "min", "max", "shl", "shr", "and", "or",
                                         "xor"));

// Hand-computed values, a check of the reference and of the documented corner cases.
TEST(ScalarAluSpot, CornerCases) {
  Ran run = run_text(
      ".kernel t\n"
      " li x1, 0x7fffffffffffffff\n add x2, x1, 1\n"            // INT64_MAX + 1 wraps to INT64_MIN
      " li x3, 0x8000000000000000\n div x4, x3, -1\n"           // INT64_MIN / -1 = INT64_MIN
      " rem x5, x3, -1\n"                                       // INT64_MIN % -1 = 0
      " li x6, -7\n div x7, x6, 2\n rem x8, x6, 2\n"            // -3, -1 (toward zero)
      " li x9, 7\n div x10, x9, -2\n rem x11, x9, -2\n"         // -3, 1
      " li x12, 1\n shl x13, x12, 64\n shl x14, x12, 63\n"      // masked: 1; INT64_MIN
      " shl x15, x12, -1\n"                                     // -1 & 63 = 63
      " li x16, -8\n shr x17, x16, 1\n shr x18, x3, 63\n"       // -4; -1
      " shr x19, x16, 65\n"                                     // 65 & 63 = 1: -4
      " li x20, 0x100000000\n mul x21, x20, x20\n"              // 2^64 wraps to 0
      " min x22, x6, x9\n max x23, x6, x9\n"                    // signed: -7, 7
      " mov x24, x3\n"
      " end\n");
  ASSERT_TRUE(run.r.clean());
  const int64_t want[][2] = {{2, INT64_MIN}, {4, INT64_MIN}, {5, 0},   {7, -3},          {8, -1},  {10, -3},
                             {11, 1},        {13, 1},        {14, INT64_MIN}, {15, INT64_MIN}, {17, -4}, {18, -1},
                             {19, -4},       {21, 0},        {22, -7},  {23, 7},         {24, INT64_MIN}};
  for (auto [reg, value] : want) EXPECT_EQ(run.s.x[size_t(reg)], value) << "x" << reg;
}

// ---- branches -----------------------------------------------------------------------------------
struct Branch {
  const char* op;
  bool (*taken)(int64_t, int64_t);
};
const Branch kBranches[] = {{"beq", [](int64_t a, int64_t b) { return a == b; }},
                            {"bne", [](int64_t a, int64_t b) { return a != b; }},
                            {"blt", [](int64_t a, int64_t b) { return a < b; }},
                            {"ble", [](int64_t a, int64_t b) { return a <= b; }},
                            {"bgt", [](int64_t a, int64_t b) { return a > b; }},
                            {"bge", [](int64_t a, int64_t b) { return a >= b; }}};

TEST(ScalarBranch, EveryBranchSignedRegisterAndImmediate) {
  const int64_t values[] = {0, 1, -1, 5, -5, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
  for (const Branch& br : kBranches)
    for (int64_t a : values)
      for (int64_t b : values) {
        std::string op = br.op;
        std::string text = ".kernel t\n li x1, " + hex(a) + "\n li x2, " + hex(b) + "\n " + op + " x1, x2, t1\n" +
                           " li x3, 1\n jmp n1\nt1:\n li x3, 2\nn1:\n";
        if (fits_i32(b))
          text += " " + op + " x1, " + std::to_string(b) + ", t2\n li x4, 1\n jmp n2\nt2:\n li x4, 2\nn2:\n";
        text += " end\n";
        Ran run = run_text(text);
        ASSERT_TRUE(run.r.clean()) << text;
        int64_t want = br.taken(a, b) ? 2 : 1;
        EXPECT_EQ(run.s.x[3], want) << op << " " << a << ", " << b;
        if (fits_i32(b)) {
          EXPECT_EQ(run.s.x[4], want) << op << " " << a << ", " << b << " (immediate)";
        }
      }
}

TEST(ScalarBranch, LoopsAndJumps) {
  Ran run = run_text(
      ".kernel t\n"
      " li x1, 1\n li x2, 0\n"
      "sum:\n add x2, x2, x1\n add x1, x1, 1\n ble x1, 100, sum\n"  // x2 = 5050
      " li x3, 0\n li x4, 0\n"
      "outer:\n li x5, 0\n"
      "inner:\n add x6, x6, 1\n add x5, x5, 1\n blt x5, 7, inner\n"  // 10 x 7 = 70
      " add x4, x4, 1\n bne x4, 10, outer\n"
      " li x7, 20\n li x8, 0\n"
      "down:\n sub x7, x7, 3\n add x8, x8, 1\n bgt x7, 0, down\n"  // 20,17,..,2,-1: 7 steps
      " li x9, 5\n"
      "down2:\n sub x9, x9, 1\n bge x9, 1, down2\n"  // stops at 0
      " jmp over\n li x10, 99\nover:\n"              // skipped
      " li x11, 3\n beq x11, 3, eq\n li x12, 99\neq:\n"
      " end\n");
  ASSERT_TRUE(run.r.clean());
  EXPECT_EQ(run.s.x[2], 5050);
  EXPECT_EQ(run.s.x[6], 70);
  EXPECT_EQ(run.s.x[7], -1);
  EXPECT_EQ(run.s.x[8], 7);
  EXPECT_EQ(run.s.x[9], 0);
  EXPECT_EQ(run.s.x[10], 0);
  EXPECT_EQ(run.s.x[12], 0);
}

// ---- the core's identity ------------------------------------------------------------------------
// Each core writes [block_idx x8, block_num x8] (s32) into its 64-byte slice of O via UB.
const char* kIdentity =
    ".kernel ident\n.block_dim 5\n.tensor O s32 [80] out\n"
    " block_idx x1\n block_num x2\n"
    " vdup.s32 ub[0], x1, mask=8\n vdup.s32 ub[32], x2, mask=8\n"
    " mul x3, x1, 64\n copy_ub_gm O[x3], ub[0], len=2\n end\n";

void check_identity(int cores, int slices) {
  Program p = parse_program(kIdentity, "ident.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  RunOptions options;
  options.cores = cores;
  RunResult r = run_in_order(chip(), p, gm, options);
  for (const Diagnostic& d : r.diagnostics) ADD_FAILURE() << format_diagnostic(p, d);
  int n = cores ? cores : 5;
  EXPECT_EQ(r.cores, n);
  std::vector<int32_t> out(80);
  std::memcpy(out.data(), gm.bytes("O").data(), 320);
  for (int core = 0; core < slices; ++core)
    for (int i = 0; i < 16; ++i) {
      int32_t want = core >= n ? 0 : i < 8 ? core : n;
      EXPECT_EQ(out[size_t(core * 16 + i)], want) << "core " << core << " element " << i;
    }
}

TEST(ScalarIdentity, BlockIdxAndBlockNumFromBlockDim) { check_identity(0, 5); }

// The registers read the core's own state (a permutation of indices would pass the test above).
TEST(ScalarIdentity, RegistersReadTheCoreState) {
  Program p = parse_program(".kernel t\n block_idx x1\n block_num x2\n block_idx x31\n end\n", "id.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  CoreMemory memory(chip());
  ScalarState s;
  s.block_idx = 2, s.block_num = 7;
  RunResult r;
  run_core_in_order(chip(), p, gm, memory, s, {}, r);
  EXPECT_TRUE(r.clean());
  EXPECT_EQ(s.x[1], 2);
  EXPECT_EQ(s.x[2], 7);
  EXPECT_EQ(s.x[31], 2);
}

// Only core 1 faults, and the diagnostic names it.
TEST(ScalarIdentity, OnlyTheChosenCoreFaults) {
  Program p = parse_program(".kernel t\n.block_dim 4\n block_idx x1\n bne x1, 1, done\n div x2, x1, 0\ndone:\n end\n", "one.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  RunResult r = run_in_order(chip(), p, gm);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].kind, Diagnostic::Kind::Fault);
  EXPECT_EQ(r.diagnostics[0].core, 1);
  EXPECT_EQ(r.diagnostics[0].repeats, 1);
}
TEST(ScalarIdentity, BlockIdxAndBlockNumWithCoresOverride) { check_identity(3, 5); }

// ---- run-time diagnostics -----------------------------------------------------------------------
struct FaultCase {
  const char* text;
  int index;
  uint32_t line;
};

TEST(ScalarDiagnostics, DivisionByZeroIsAFaultAtItsInstruction) {
  const FaultCase cases[] = {
      {".kernel t\n li x1, 5\n li x2, 0\n div x3, x1, x2\n li x5, 9\n end\n", 2, 4},
      {".kernel t\n li x1, 5\n\n # a comment\n rem x3, x1, x2\n end\n", 1, 5},
      {".kernel t\n li x1, -5\n div x3, x1, 0\n end\n", 1, 3},
      {".kernel t\n li x1, 3\nloop:\n sub x1, x1, 1\n rem x4, x1, x1\n bgt x1, -5, loop\n end\n", 2, 5},
  };
  for (const FaultCase& c : cases) {
    Ran run = run_text(c.text);
    ASSERT_EQ(run.r.diagnostics.size(), 1u) << c.text;
    const Diagnostic& d = run.r.diagnostics[0];
    EXPECT_EQ(d.kind, Diagnostic::Kind::Fault) << c.text;
    EXPECT_EQ(d.index, c.index) << c.text;
    EXPECT_EQ(d.line, c.line) << c.text;
    std::string text = format_diagnostic(run.program, d, "scalar.s");
    EXPECT_NE(text.find("scalar.s:" + std::to_string(c.line) + ": error: fault"), std::string::npos) << text;
    EXPECT_NE(text.find("instruction " + std::to_string(c.index)), std::string::npos) << text;
  }
}

TEST(ScalarDiagnostics, RunningPastTheEndIsNoEnd) {
  for (const char* text : {".kernel t\n li x1, 1\n add x1, x1, 1\n", ".kernel t\n jmp out\n end\nout:\n",
                           ".kernel t\n li x1, 0\n beq x1, 0, out\n end\n li x2, 1\nout:\n"}) {
    Ran run = run_text(text);
    ASSERT_EQ(run.r.diagnostics.size(), 1u) << text;
    EXPECT_EQ(run.r.diagnostics[0].kind, Diagnostic::Kind::NoEnd) << text;
  }
  Ran ok = run_text(".kernel t\n jmp out\n li x1, 7\nout:\n end\n");
  EXPECT_TRUE(ok.r.clean());
  EXPECT_EQ(ok.s.x[1], 0);
}

TEST(ScalarDiagnostics, EndlessLoopHitsTheStepLimit) {
  Ran run = run_text(".kernel t\n li x1, 0\nloop:\n add x1, x1, 1\n jmp loop\n end\n", 1000);
  ASSERT_EQ(run.r.diagnostics.size(), 1u);
  EXPECT_EQ(run.r.diagnostics[0].kind, Diagnostic::Kind::StepLimit);
  EXPECT_EQ(run.r.instructions, 1000);
  EXPECT_EQ(run.s.x[1], 500);  // li, then 999 more steps of add/jmp

  // Over several cores: one diagnostic, counted once per core.
  Program p = parse_program(".kernel t\n.block_dim 3\nloop:\n jmp loop\n end\n", "loop.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  RunOptions options;
  options.max_steps = 100;
  RunResult r = run_in_order(chip(), p, gm, options);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].kind, Diagnostic::Kind::StepLimit);
  EXPECT_EQ(r.diagnostics[0].repeats, 3);
  EXPECT_EQ(r.instructions, 300);
}

}  // namespace
}  // namespace cubekit::test
