// User errors of the command line's options and files that a probe as a new user found ran or
// misnamed: a list option given twice (the lists were joined), an epilogue scale past f32, the
// flag an overflowing --blocks is named by, a program file that does not exist. Each exits 2.
#include "error_test_util.h"

namespace cubekit::test {
namespace {

using testing::HasSubstr;

const std::string kMatmulAsm = CUBEKIT_SOURCE_DIR "/examples/asm/matmul_f16.s";

void expect_cli_refused(const std::string& args, const std::string& message) {
  auto [code, err] = cubekit_stderr(args);
  EXPECT_EQ(code, 2) << args << "\n" << err;
  EXPECT_THAT(err, HasSubstr(message)) << args;
}

TEST(CliOptionErrors, AListOptionGivenTwice) {
  // softmax over [4, 4, 8, 8] ran and passed; --mask named a shape nobody typed.
  expect_cli_refused("kernel softmax --shape 4,4 --shape 8,8", "--shape: At Most 1 required but received 2");
  expect_cli_refused("kernel sub --rows 4 --cols 8 --y-shape 4 --y-shape 1", "--y-shape: At Most 1 required but received 2");
  expect_cli_refused("kernel attention --seq-q 64 --dim 64 --mask 64,64 --mask 1,64", "--mask: At Most 1 required but received 2");
}

TEST(CliOptionErrors, MatmulScalePastF32) {
  // Every output was inf, and the check (the same inf) said PASS.
  expect_cli_refused("kernel matmul --m 40 --n 50 --k 70 --epilogue scale --scale 1e39",
                 "matmul: the epilogue's scale 1e+39 is past f32's range (the accumulators are f32); give at most "
                 "3.4028234663852886e+38 (--scale)");
}

TEST(CliOptionErrors, BlocksThatOverflowAreNamedAsTyped) {
  expect_cli_refused("run '" + kMatmulAsm + "' --blocks 99999999999999999999", "--blocks: must be in");
}

TEST(CliOptionErrors, ProgramFileThatDoesNotExist) {
  expect_cli_refused("run /nonexistent/k.s", "cannot read program file '/nonexistent/k.s': no such file (check the path");
  expect_cli_refused("run '" CUBEKIT_SOURCE_DIR "/examples'", "a directory, not a file; give the path of a .s file");
}

TEST(CliOptionErrors, TraceToStandardOutput) {
  // A file named "-" appeared, where compile -o - writes to standard output.
  expect_cli_refused("kernel add --rows 3 --cols 17 --trace -", "--trace -: a file's path, not standard output (the report "
                                                                 "goes there); give a file name");
}

TEST(CliOptionErrors, TraceIntoADirectoryThatIsNotThere) {
  expect_cli_refused("kernel add --rows 3 --cols 17 --trace /nonexistent/t.json",
                     "--trace: cannot write '/nonexistent/t.json' (No such file or directory)");
}

// Options a run would not use: each was accepted and did nothing.
TEST(CliOptionErrors, SeedOfATimingOnlyRun) {
  expect_cli_refused("kernel add --rows 4 --cols 4 --timing-only --seed 1", "--seed: a --timing-only run makes no inputs to "
                                                                              "seed (its cycles do not depend on data)");
  expect_cli_refused("run '" + kMatmulAsm + "' --timing-only --seed 3", "drop --seed, or --timing-only to run on seeded inputs");
}

TEST(CliOptionErrors, InputOfATimingOnlyRun) {
  expect_cli_refused("run '" + kMatmulAsm + "' --timing-only --input A=a.npy",
                     "--input: a --timing-only run reads no data (its cycles do not depend on it); drop --input, or "
                     "--timing-only to run on it");
}

TEST(CliOptionErrors, TraceBoundWithoutATrace) {
  expect_cli_refused("kernel add --rows 4 --cols 4 --max-trace-events 5",
                     "--max-trace-events bounds the trace --trace FILE writes, and there is none");
  expect_cli_refused("run '" + kMatmulAsm + "' --max-trace-events 5", "give --trace FILE, or drop --max-trace-events");
}

TEST(CliOptionErrors, TheArgumentParsersErrorsReadAsCubekits) {
  // They had no "cubekit: error:" and pointed at the top-level help.
  expect_cli_refused("kernel matmul --n 3 --k 3", "cubekit: error: --m is required\nRun `cubekit kernel matmul --help` for "
                                                  "more information.");
  expect_cli_refused("kernel matmul --m abc --n 3 --k 3", "cubekit: error: Could not convert: --m = abc");
}

TEST(CliOptionErrors, ACommandWithoutItsKernel) {
  // CLI11 said "A subcommand is required", where a misspelt kernel got the list.
  expect_cli_refused("kernel", "cubekit: error: kernel: name a kernel; the kernels are matmul, conv2d, attention,");
  expect_cli_refused("compile", "cubekit: error: compile: name a kernel; the kernels are matmul,");
}

TEST(CliOptionErrors, ProgramFromAnEmptyStandardInput) {
  expect_cli_refused("run - < /dev/null", "run -: standard input is empty; pipe a program into it (cubekit compile KERNEL "
                                          "... -o - | cubekit run -)");
}

TEST(CliOptionErrors, ProgramFromStandardInputIsNamedStdinInItsErrors) {
  TempDir dir("stdin_program");
  expect_cli_refused("run - < '" + dir.write("typo.s", "vaddd x1\n") + "'", "<stdin>:1:1: error: unknown instruction 'vaddd'");
}

}  // namespace
}  // namespace cubekit::test
