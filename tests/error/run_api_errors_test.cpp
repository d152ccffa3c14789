// User errors of the emulator's C++ run API: a GlobalMemory that is not the program's, limits that
// are not positive, and write_trace given what was not simulated with a trace. Each crashed (a
// default GlobalMemory, another program's trace), raised an internal error (shape_only memory in a
// functional run), ran with a nonsense limit, or wrote an empty trace without a word.
#include "emulator/chip_config.h"
#include "emulator/emulator.h"
#include "emulator/program.h"
#include "emulator/simulator.h"
#include "error_test_util.h"

#include <filesystem>

namespace cubekit::test {
namespace {

const char* kCopy = R"(.kernel copy
.tensor X f16 [1024] in
.tensor Y f16 [1024] out
    copy_gm_ub ub[0], X[0], len=64
    set_flag MTE2, MTE3, 0
    wait_flag MTE2, MTE3, 0
    copy_ub_gm Y[0], ub[0], len=64
    end
)";

TEST(RunApiErrors, SimulateWithAMemoryOfNoTensors) {
  Program p = parse_program(kCopy, "copy.s");
  for (bool timing_only : {false, true}) {
    GlobalMemory gm;  // GlobalMemory::for_program(p) forgotten
    expect_user_error([&] { simulate(chip910(), p, gm, {.timing_only = timing_only}); },
                      {"kernel 'copy' declares 2 tensors but the GlobalMemory given holds 0: make it with "
                       "GlobalMemory::for_program(program)"});
  }
}

TEST(RunApiErrors, RunInOrderWithAMemoryOfNoTensors) {
  Program p = parse_program(kCopy, "copy.s");
  GlobalMemory gm;
  expect_user_error([&] { run_in_order(chip910(), p, gm); },
                    {"kernel 'copy' declares 2 tensors but the GlobalMemory given holds 0"});
}

TEST(RunApiErrors, FunctionalRunOfAShapeOnlyMemory) {
  Program p = parse_program(kCopy, "copy.s");
  GlobalMemory gm = GlobalMemory::shape_only(p);
  expect_user_error([&] { simulate(chip910(), p, gm); },
                    {"a functional run of kernel 'copy' needs its tensors' bytes, but the GlobalMemory given holds their "
                     "shapes only (GlobalMemory::shape_only)", "or run timing-only (SimOptions::timing_only)"});
  EXPECT_GT(simulate(chip910(), p, gm, {.timing_only = true}).report.cycles, 0u);  // what shape_only is for
}

TEST(RunApiErrors, AMemoryWhoseTensorsAreNotTheProgramsOrNotTheirSize) {
  // Matched by index, swapped entries ran on the wrong bytes, wrote Y over X, and reported clean.
  Program p = parse_program(kCopy, "copy.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  std::swap(gm.decls[0], gm.decls[1]);
  std::swap(gm.data[0], gm.data[1]);
  expect_user_error([&] { simulate(chip910(), p, gm); },
                    {"kernel 'copy': tensor 0 of the GlobalMemory given is Y f16 [1024], but the program's tensor 0 is "
                     "X f16 [1024]: make the memory with GlobalMemory::for_program(program)"});
  GlobalMemory short_x = GlobalMemory::for_program(p);
  short_x.data[0].resize(100);
  expect_user_error([&] { simulate(chip910(), p, short_x); },
                    {"kernel 'copy': tensor X holds 100 bytes in the GlobalMemory given, but it is 2048 bytes"});
}

TEST(RunApiErrors, ThreadsAndTraceBoundOutOfRange) {
  Program p = parse_program(kCopy, "copy.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  expect_user_error([&] { simulate(chip910(), p, gm, {.threads = -3}); },
                    {"threads is -3; give 0 (one per host core) or a number of host threads"});
  expect_user_error([&] { simulate(chip910(), p, gm, {.trace = true, .max_trace_events = -5}); },
                    {"max_trace_events is -5; give a positive bound on a trace's events"});
}

TEST(RunApiErrors, LimitsThatAreNotPositive) {
  Program p = parse_program(kCopy, "copy.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  expect_user_error([&] { simulate(chip910(), p, gm, {.max_steps = -5}); },
                    {"max_steps is -5; give a positive number of instructions", "SimOptions::max_steps in C++"});
  expect_user_error([&] { run_in_order(chip910(), p, gm, {.max_work = 0}); },
                    {"max_work is 0; give a positive number of work units", "SimOptions::max_work in C++"});
}

TEST(RunApiErrors, TraceOfAnUntracedRun) {
  Program p = parse_program(kCopy, "copy.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  SimResult r = simulate(chip910(), p, gm);
  const std::string path = (std::filesystem::temp_directory_path() / "cubekit_untraced.json").string();
  expect_user_error([&] { write_trace(path, r, p, chip910()); },
                    {"write_trace: the result of 'copy' holds no trace; run it with SimOptions::trace = true"});
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(RunApiErrors, TraceWrittenWithAnotherProgram) {
  Program p = parse_program(kCopy, "copy.s");
  Program other = parse_program(".kernel q\n.tensor X f16 [16] in\n    end\n", "q.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  SimResult r = simulate(chip910(), p, gm, {.trace = true});
  const std::string path = (std::filesystem::temp_directory_path() / "cubekit_other.json").string();
  expect_user_error([&] { write_trace(path, r, other, chip910()); },
                    {"write_trace: the result is of kernel 'copy' on ascend910, but the program given is 'q'"});
  // Another program under the same name: its instructions are checked too.
  other.name = "copy";
  expect_user_error([&] { write_trace(path, r, other, chip910()); },
                    {"write_trace: the result's trace names instruction", "but program 'copy' has 1"});
}

}  // namespace
}  // namespace cubekit::test
