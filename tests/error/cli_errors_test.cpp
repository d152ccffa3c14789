// User errors through the `cubekit` command line (tools/cubekit.cpp, tools/cmd_run.cpp): the exit
// code says what happened -- 0 a clean run, 1 the run reported a diagnostic (on stdout), 2 bad input
// (the message on stderr) -- and bad input never crashes or hangs the tool.
#include "error_test_util.h"

#include <sys/wait.h>

#include <cstdio>

namespace cubekit::test {
namespace {

using testing::HasSubstr;

struct CliResult {
  int exit_code = -1;  // 128 + N when killed by signal N (the shell's convention)
  std::string out, err;
  std::string describe() const {
    std::string how = exit_code > 128 ? " (killed by signal " + std::to_string(exit_code - 128) + ")" : "";
    return "exit " + std::to_string(exit_code) + how + "\n--- stdout:\n" + out + "--- stderr:\n" + err;
  }
};

// Runs `cubekit ARGS` with stderr through a pipe and stdout into a file. The run is bounded in time
// and address space so that a hang or a runaway allocation fails the test instead of the machine.
CliResult cubekit(const TempDir& dir, const std::string& args) {
  std::string out_file = (dir.path() / "stdout.txt").string();
  std::string command = cli_memory_bound() + "timeout 120 '" CUBEKIT_CLI "' " + args + " 2>&1 1>'" + out_file + "'";
  CliResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) {
    ADD_FAILURE() << "popen failed for: " << command;
    return r;
  }
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) r.err.append(buffer, n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  std::ifstream in(out_file, std::ios::binary);
  r.out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return r;
}

std::string shell_quoted(const std::string& path) { return "'" + path + "'"; }

const std::string kMatmul = CUBEKIT_SOURCE_DIR "/examples/asm/matmul_f16.s";

// A minimal .npy (version 1) of `dtype_descr` ('<f2', '<f4', ...) with `shape` and `bytes` of data.
std::string npy(const std::string& descr, const std::string& shape, size_t bytes) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  header += std::string((64 - (10 + header.size() + 1) % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  return out + header + std::string(bytes, '\0');
}

// ---- exit codes ----------------------------------------------------------------------------------

TEST(CliExit, CleanRunIsZero) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul));
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_THAT(r.out, HasSubstr("checks: clean"));
  EXPECT_EQ(r.err, "");
}

TEST(CliExit, DiagnosticIsOneOnStdout) {
  TempDir dir("cli");
  std::string s = dir.write("oob.s", lines({".kernel t", ".tensor A f16 [16] in", "    copy_gm_ub ub[0], A[0], len=2", "    end"}));
  CliResult r = cubekit(dir, "run " + shell_quoted(s));
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_THAT(r.out, HasSubstr("checks: 1 problem"));
  EXPECT_THAT(r.out, HasSubstr(s + ":3: error: out-of-bounds: core 0, instruction 0 `copy_gm_ub ub[0], A[0], len=2`: "
                                   "operand 'src' reads tensor A bytes [0, 64), outside its tensor A bytes [0, 32)"));
  EXPECT_EQ(r.err, "");
}

// An endless loop ends at --max-steps with a step-limit diagnostic (exit 1), not a hang.
TEST(CliExit, EndlessLoopStopsAtMaxSteps) {
  TempDir dir("cli");
  std::string s = dir.write("loop.s", lines({".kernel t", "top:", "    add x1, x1, 1", "    jmp top", "    end"}));
  CliResult r = cubekit(dir, "run " + shell_quoted(s) + " --max-steps 100000");
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_THAT(r.out, HasSubstr(s + ":3: error: step-limit: core 0, instruction 0 `add x1, x1, 1`: stopped after 100000 "
                                   "instructions without reaching 'end': an endless loop? (raise the limit with --max-steps; max_steps= in Python)"));
}

// ---- bad program or chip: exit 2, the message on stderr ------------------------------------------

TEST(CliBadInput, UnparsableProgram) {
  TempDir dir("cli");
  std::string s = dir.write("typo.s", lines({".kernel t", "", "    vaddd.f16 ub[0], ub[256], ub[512]", "    end"}));
  CliResult r = cubekit(dir, "run " + shell_quoted(s));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: " + s + ":3:5: error: unknown instruction 'vaddd' (did you mean 'vadd'?)"));
  EXPECT_THAT(r.err, HasSubstr("\n      vaddd.f16 ub[0], ub[256], ub[512]\n      ^"));
  EXPECT_EQ(r.out, "");
}

TEST(CliBadInput, MissingProgramFile) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run /nonexistent/cubekit/kernel.s");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: cannot read program file '/nonexistent/cubekit/kernel.s'"));
}

// Currently fails: a directory reads as an empty program; the run exits 1 with "no-end: ... ran past
// the last instruction" instead of exit 2 and "cannot read program file".
TEST(CliBadInput, ProgramIsADirectory) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(dir.path().string()));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cannot read program file"));
}

TEST(CliBadInput, UnknownChip) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --chip ascend999");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: unknown chip 'ascend999': the presets are ascend910, ascend910b2, "
                               "ascend950pr (see 'cubekit chips'), or give a path to a JSON chip config"));
}

TEST(CliBadInput, InvalidChipJson) {
  TempDir dir("cli");
  std::string chip = dir.write("chip.json", "{ \"name\": ");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --chip " + shell_quoted(chip));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: " + chip + ": not valid JSON"));
}

// Currently fails (SIGFPE, exit 136): a cube fractal with k0 = 0 is accepted and mmad divides by it.
TEST(CliBadInput, ChipWithZeroK0IsNotACrash) {
  TempDir dir("cli");
  CliResult chips = cubekit(dir, "chips --json");
  std::string json = chips.out.substr(chips.out.find('{'), chips.out.rfind('}') - chips.out.find('{') + 1);
  json.replace(json.find("\"k0\": 16"), 8, "\"k0\": 0");
  std::string chip = dir.write("k0.json", json);
  std::string s = dir.write("mm.s", lines({".kernel t", "    mmad.f16 l0c[0], l0a[0], l0b[0], m=16, n=16, k=16, init", "    end"}));
  CliResult r = cubekit(dir, "run " + shell_quoted(s) + " --chip " + shell_quoted(chip));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("k0"));
}

// Currently fails (std::bad_alloc -> abort, exit 134): 10^22 elements overflow the byte count and
// GM allocation throws an exception nothing catches.
TEST(CliBadInput, TensorTooLargeIsNotACrash) {
  TempDir dir("cli");
  std::string s = dir.write("huge.s", lines({".kernel t", ".tensor A f16 [100000000000, 100000000000] in", "    end"}));
  CliResult r = cubekit(dir, "run " + shell_quoted(s));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("tensor 'A'"));
}

// GM's big tensors are allocated on several threads: one the host cannot hold (here, under a
// 400 MB address-space bound, a 512 MB operand) is still the CLI's error, not std::terminate in a
// helper thread. (ASan needs more address space than such a bound allows: its build skips this.)
TEST(CliBadInput, TensorsLargerThanTheHostCanHoldAreAnError) {
#ifdef CUBEKIT_TEST_ASAN
  GTEST_SKIP() << "ASan's shadow memory does not run under ulimit -v";
#endif
  const std::string command = "ulimit -v 400000; timeout 120 '" CUBEKIT_CLI "' kernel add --rows 16384 --cols 16384 --no-check 2>&1 1>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string err;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) err.append(buffer, n);
  const int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by a signal: " << err;
  EXPECT_EQ(WEXITSTATUS(status), 2) << err;
  EXPECT_THAT(err, HasSubstr("cubekit: error: out of host memory"));
}

TEST(CliBadInput, NegativeCores) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --cores -2");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: --blocks must be at least 1 (leave it out for the program's .block_dim), got -2"));
}

// Currently fails: --max-steps -1 runs and reports "step-limit: ... stopped after -1 instructions"
// (exit 1) instead of rejecting the option.
TEST(CliBadInput, MaxStepsNotPositive) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --max-steps -1");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--max-steps"));
}

// Currently fails: a misspelt subcommand gets "A subcommand is required", which does not say that
// 'rnu' is not one, nor which there are (run, isa, chips).
TEST(CliBadInput, UnknownSubcommand) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "rnu " + shell_quoted(kMatmul));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("rnu"));
}

TEST(CliBadInput, MissingProgramArgument) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("program is required"));
}

// ---- --input / --output ----------------------------------------------------------------------------

TEST(CliInput, WithoutEquals) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --input A");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: --input takes NAME=FILE.npy, got 'A'"));
}

TEST(CliInput, WithoutName) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --input =a.npy");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: --input takes NAME=FILE.npy, got '=a.npy'"));
}

TEST(CliInput, OutputWithoutFile) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --output C=");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: --output takes NAME=FILE.npy, got 'C='"));
}

TEST(CliInput, UnknownTensor) {
  TempDir dir("cli");
  std::string a = dir.write("a.npy", npy("<f2", "(128, 128)", 128 * 128 * 2));
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --input D=" + shell_quoted(a));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: no tensor 'D' (the program declares: A, B, C)"));
}

TEST(CliInput, OutputOfUnknownTensor) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --output D=" + shell_quoted((dir.path() / "d.npy").string()));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: no tensor 'D' (the program declares: A, B, C)"));
}

TEST(CliInput, InputForAWorkspace) {
  TempDir dir("cli");
  std::string prog = dir.write("ws.s", lines({".kernel t", ".tensor W f32 [8] workspace", "    end"}));
  std::string w = dir.write("w.npy", npy("<f4", "(8,)", 32));
  CliResult r = cubekit(dir, "run " + shell_quoted(prog) + " --input W=" + shell_quoted(w));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: --input W: tensor W is the kernel's workspace (GM scratch it writes "
                               "before reading); give inputs for its in and inout tensors"));
}

TEST(CliInput, InputForAnOutput) {
  TempDir dir("cli");
  std::string prog = dir.write("out.s", lines({".kernel t", ".tensor Y f32 [8] out", "    end"}));
  std::string y = dir.write("y.npy", npy("<f4", "(8,)", 32));
  CliResult r = cubekit(dir, "run " + shell_quoted(prog) + " --input Y=" + shell_quoted(y));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: --input Y: tensor Y is an output (declared out); give inputs for its in and "
                               "inout tensors, or declare Y inout to start it from the host's data"));
}

TEST(CliInput, DtypeMismatch) {
  TempDir dir("cli");
  std::string a = dir.write("a32.npy", npy("<f4", "(128, 128)", 128 * 128 * 4));
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --input A=" + shell_quoted(a));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: --input A: '" + a + "' holds f32 but tensor A is f16"));
}

TEST(CliInput, ShapeMismatch) {
  TempDir dir("cli");
  std::string a = dir.write("a4.npy", npy("<f2", "(4,)", 8));
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --input A=" + shell_quoted(a));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: --input A: '" + a + "' has shape [4] but tensor A is [128, 128]"));
}

TEST(CliInput, MissingFile) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --input A=/nonexistent/cubekit/a.npy");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: cannot read '/nonexistent/cubekit/a.npy'"));
}

TEST(CliInput, NotAnNpyFile) {
  TempDir dir("cli");
  std::string a = dir.write("a.csv", "1,2,3\n");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --input A=" + shell_quoted(a));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: '" + a + "' is not a .npy file (no \\x93NUMPY magic)"));
}

// Currently fails (std::bad_alloc -> abort, exit 134): the 2 TB the header promises are allocated
// before the file's size is looked at; it should say the file ends before its elements.
TEST(CliInput, ShapeFarBeyondTheFileIsNotACrash) {
  TempDir dir("cli");
  std::string a = dir.write("big.npy", npy("<f2", "(1000000000000,)", 8));
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --input A=" + shell_quoted(a));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("the file ends before its 1000000000000 elements"));
}

TEST(CliInput, UnwritableOutput) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --output C=/nonexistent/cubekit/c.npy");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: --output C: cannot write '/nonexistent/cubekit/c.npy'"));
}

// A run refused after its options were read (here: more blocks than a launch can have) writes no
// --output file: it left an empty one behind, which numpy cannot load.
TEST(CliInput, RefusedRunLeavesNoOutputFile) {
  TempDir dir("cli");
  const std::filesystem::path c = dir.path() / "c.npy";
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --blocks 1000000 --output C=" + shell_quoted(c.string()));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("is more than a launch can have"));
  EXPECT_FALSE(std::filesystem::exists(c));
}

// A trace cut off at its bound is a refused run: no empty trace file stays behind.
TEST(CliInput, TraceOverItsBoundLeavesNoFile) {
  TempDir dir("cli");
  const std::filesystem::path t = dir.path() / "t.json";
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --max-trace-events 10 --trace " + shell_quoted(t.string()));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("the trace reached its bound of 10 events"));
  EXPECT_FALSE(std::filesystem::exists(t));
}

// 0 blocks is no launch, not "the default": the default is leaving the option out.
TEST(CliBadInput, ZeroBlocks) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --blocks 0");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: --blocks must be at least 1 (leave it out for the program's .block_dim), got 0"));
}

TEST(CliInput, UnwritableTrace) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --trace /nonexistent/cubekit/t.json");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: --trace: cannot write '/nonexistent/cubekit/t.json'"));
}

TEST(CliBadInput, OutputOfATimingOnlyRun) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --timing-only --output C=c.npy");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--output C=c.npy: a --timing-only run computes no data, so there is no C to save"));
}

TEST(CliBadInput, InputGivenTwice) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --input A=a.npy --input A=b.npy");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--input A=b.npy: tensor A is given twice; give each input once"));
}

TEST(CliBadInput, TuneAKernelWithNoSpace) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "tune max_pool2d --c 16");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("tune: no kernel 'max_pool2d' to tune; the tunable kernels are matmul, conv2d, attention, add"));
}

TEST(CliBadInput, NegativeThreads) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --threads -2");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--threads: must not be negative, got -2"));
}

}  // namespace
}  // namespace cubekit::test

namespace cubekit::test {
namespace {

TEST(CliBadInput, Conv2dDtypeTheCubeDoesNotTake) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "kernel conv2d --c 4 --h 6 --w 6 --k 8 --dtype f32");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--dtype must be f16, bf16 or s8 for conv2d, got 'f32'"));
}

TEST(CliBadInput, AttentionDtypeNotSixteenBit) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "kernel attention --seq-q 16 --dim 16 --dtype f32");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--dtype must be f16 or bf16 for attention, got 'f32'"));
}

TEST(CliBadInput, NegativeSeed) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "kernel add --rows 16 --cols 16 --seed -1");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--seed: must not be negative, got -1"));
}

// Once accepted and ignored: no JSON printed, no trace written.
TEST(CliBadInput, RunOptionOnCompile) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "compile softmax --rows 4 --cols 8 -o " + shell_quoted((dir.path() / "x.s").string()) + " --json");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: --json is for running a kernel (`cubekit kernel softmax ...`); `cubekit "
                               "compile softmax` writes its program only"));
}

// Once taken as "choose" without a word.
TEST(CliBadInput, ZeroCopies) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "kernel add --rows 16 --cols 16 --copies 0");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--copies: must be at least 1 (leave it out to choose), got 0"));
}

// Once ignored: the product came out unscaled, exit 0.
TEST(CliBadInput, ScaleWithoutTheScaleEpilogue) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "kernel matmul --m 20 --n 20 --k 20 --scale 0.5");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: --scale 0.5 was given but --epilogue has no 'scale'; add scale to --epilogue "
                               "(e.g. --epilogue scale,relu) or leave --scale out"));
}

TEST(CliBadInput, AttentionNaiveSchedule) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "kernel attention --seq-q 16 --dim 16 --schedule naive");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--schedule naive: attention has its flash() schedule only; drop --schedule"));
}

TEST(CliBadInput, Conv2dEpilogueStepUnknown) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "kernel conv2d --c 4 --h 6 --w 6 --k 8 --epilogue bn,gelu");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("unknown epilogue step 'gelu'; the steps are bn, residual and relu"));
}

TEST(CliBadInput, PoolDtypeTheVectorUnitDoesNotPool) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "kernel max_pool2d --c 16 --h 8 --w 8 --stride 2 --pad 1 --dtype s8");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--dtype must be f16 or f32 for max_pool2d, got 's8'"));
}

// CLI11's delimiter dropped empty items: 3,,5 ran as the shape [3, 5], relu, as relu.
TEST(CliBadInput, ListWithAnEmptyItem) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "kernel add --shape 3,,5 --timing-only");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--shape: '3,,5' has an empty item: separate the values by single commas, e.g. --shape 3,5,7,300"));
  r = cubekit(dir, "kernel matmul --m 32 --n 32 --k 32 --epilogue relu, --timing-only");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--epilogue: 'relu,' has an empty item"));
  r = cubekit(dir, "kernel add --shape 3,x --timing-only");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--shape: 'x' in '3,x' is not a whole number"));
}

// CLI11's conversion saturated: the shape was reported as [3, 9223372036854775807].
TEST(CliBadInput, ListItemOutOfRange) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "kernel add --shape 3,99999999999999999999 --timing-only");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--shape: '99999999999999999999' in '3,99999999999999999999' is out of range: at most "
                               "9223372036854775807"));
}

// Every integer option: CLI11 saturated --window 99999999999999999999 to 2^63 - 1 and ran it.
TEST(CliBadInput, IntegerPast64Bits) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "kernel attention --seq-q 64 --dim 64 --causal --window 99999999999999999999 --timing-only");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--window: must be in -9223372036854775808..9223372036854775807, got 99999999999999999999"));
}

// CLI11 took "" as no value: --double-buffer "" ran the default schedule, `chips ""` listed every chip.
TEST(CliBadInput, EmptyValue) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "kernel matmul --m 64 --n 64 --k 64 --double-buffer '' --timing-only");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--double-buffer has an empty value: give a value, or leave the option out"));
  r = cubekit(dir, "kernel matmul --m 64 --n 64 --k 64 --tm= --timing-only");
  EXPECT_THAT(r.err, HasSubstr("--tm has an empty value"));
  r = cubekit(dir, "chips ''");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("argument 2 is empty: give a value, or leave it out"));
}

// A full disk: an internal error (trace, stdout) or a silent exit 0 (compile -o, buffered stdout).
TEST(CliBadInput, OutputThatCannotBeWritten) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "kernel matmul --m 32 --n 32 --k 32 --timing-only --trace /dev/full");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("writing the trace to '/dev/full' failed (No space left on device)"));
  r = cubekit(dir, "compile matmul --m 16 --n 16 --k 16 -o /dev/full");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("-o: writing '/dev/full' failed (No space left on device)"));
  const std::string err = (dir.path() / "err.txt").string();
  const int status = std::system(("'" CUBEKIT_CLI "' chips --json > /dev/full 2> '" + err + "'").c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
  std::ifstream in(err);
  EXPECT_THAT(std::string(std::istreambuf_iterator<char>(in), {}), HasSubstr("writing the output failed (No space left on device)"));
}

// CLI11 saturated a number past the option's type: --seed 2^64 ran as 2^64 - 1.
TEST(CliBadInput, NumberPastItsType) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "kernel add --rows 8 --cols 8 --seed 18446744073709551616");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--seed: must be in 0..18446744073709551615, got 18446744073709551616"));
}

TEST(CliBadInput, InOrderWithTimingOnly) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --in-order --timing-only");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--in-order runs the functional model alone and --timing-only the timing model alone: "
                               "give one of them"));
}

TEST(CliBadInput, InOrderWithTrace) {
  TempDir dir("cli");
  std::string trace = (dir.path() / "t.json").string();
  CliResult r = cubekit(dir, "run " + shell_quoted(kMatmul) + " --in-order --trace " + shell_quoted(trace));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("an --in-order run has no timeline to trace"));
  EXPECT_FALSE(std::filesystem::exists(trace));
}

// A racy program is clean to a run without the race checks: the report says which checks ran.
TEST(CliExit, CleanWithoutTheRaceChecksSaysSo) {
  TempDir dir("cli");
  std::string s = dir.write("race.s", lines({".kernel t", ".tensor A f16 [128] in", ".tensor B f16 [128] out",
                                             "    copy_gm_ub ub[0], A[0], len=8", "    copy_ub_gm B[0], ub[0], len=8",
                                             "    end"}));
  CliResult functional = cubekit(dir, "run " + shell_quoted(s));
  EXPECT_EQ(functional.exit_code, 1) << functional.describe();
  EXPECT_THAT(functional.out, HasSubstr("race"));
  for (const char* mode : {"--timing-only", "--no-checks"}) {
    CliResult r = cubekit(dir, "run " + shell_quoted(s) + " " + mode);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_THAT(r.out, HasSubstr(std::string("checks: clean (") + (mode[2] == 't' ? "timing only" : "checks off") +
                                 ": sync, deadlock, bounds and alignment only; the race and initialisation checks need "
                                 "a functional run with checks on)"));
  }
}

// The library reads 0 as "left out" for these; given on the command line, a 0 is refused.
TEST(CliBadInput, AttentionZeroForAnOptionLeftOutByZero) {
  TempDir dir("cli");
  for (auto [option, message] :
       {std::pair<const char*, const char*>{"--seq-kv 0", "--seq-kv: must be at least 1 (leave it out for as many as --seq-q), got 0"},
        {"--kv-heads 0", "--kv-heads: must be at least 1 (leave it out for as many as --heads), got 0"},
        // A negative one too: the library's message offered 0, which the command line refuses.
        {"--seq-kv -3", "--seq-kv: must be at least 1 (leave it out for as many as --seq-q), got -3"},
        {"--scale 0", "--scale: must not be 0 (leave it out for 1/sqrt(dim); a scale of 0 would weigh every key alike"},
        {"--softcap 0.0", "--softcap: must not be 0 (leave it out for no cap), got 0.0"}}) {
    CliResult r = cubekit(dir, std::string("kernel attention --seq-q 16 --dim 16 ") + option);
    EXPECT_EQ(r.exit_code, 2) << option << "\n" << r.describe();
    EXPECT_THAT(r.err, HasSubstr(message)) << option;
  }
}

// Scores past 1e29 outweigh the masks: a causal query attended to the keys after it (exit 0).
TEST(CliBadInput, AttentionScaleWhoseScoresOutgrowTheMasks) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "kernel attention --seq-q 64 --dim 64 --causal --scale -1e37");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("--scale -1e+37: the scores of the random inputs (each in [-1, 1)) reach |scale| x dim = "
                               "6.4e+38, past 1e+29, where a masked key (its score - 1e30) or a key the causal mask or a "
                               "window hides (-2e38) can outscore the keys a query sees; give |scale| below 1.5625e+27"));
}

// CLI11 said "A subcommand is required", as if none were given.
TEST(CliBadInput, UnknownKernel) {
  TempDir dir("cli");
  CliResult r = cubekit(dir, "kernel foo --m 16");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_THAT(r.err, HasSubstr("cubekit: error: kernel: unknown kernel 'foo'; the kernels are matmul, conv2d, attention"));
}

}  // namespace
}  // namespace cubekit::test
