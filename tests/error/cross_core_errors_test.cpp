// User errors of cross-core flags (set_cross / wait_cross): a flag id beyond the counters a core
// has, a mode that does not exist, the scalar pipe named, a missing keyword, and a cross-core
// instruction on a chip whose cores are coupled (ascend910), in both drivers.
#include "emulator/emulator.h"
#include "emulator/simulator.h"
#include "error_test_util.h"

namespace cubekit::test {
namespace {

std::string at_line3(std::string_view instruction) {
  return lines({".kernel t", ".tensor A f16 [64] in", instruction, "    end"});
}

class CrossCoreInstructionError : public testing::TestWithParam<ErrorCase> {};

TEST_P(CrossCoreInstructionError, NamesWhatAndWhere) {
  const ErrorCase& c = GetParam();
  expect_user_error([&] { parse_program(c.input, "test.s"); }, c.expected, c.input);
}

const ErrorCase kInstructions[] = {
    {"SetCrossIdOutOfRange", at_line3("    set_cross MTE3, mode=2, id=11"),
     {"test.s:3:", "id", "0..10", "11"}},
    {"WaitCrossIdOutOfRange", at_line3("    wait_cross MTE2, id=16"), {"test.s:3:", "id", "0..10", "16"}},
    {"SetCrossModeOutOfRange", at_line3("    set_cross MTE3, mode=3, id=0"), {"test.s:3:", "mode", "0..2", "3"}},
    {"SetCrossWithoutMode", at_line3("    set_cross MTE3, id=0"), {"test.s:3:", "set_cross needs 'mode=…'"}},
    {"WaitCrossOnTheScalarPipe", at_line3("    wait_cross S, id=0"),
     {"test.s:3:", "the scalar pipe S cannot hold a cross-core flag", "the one that reads it for wait_cross"}},
};
INSTANTIATE_TEST_SUITE_P(CrossCore, CrossCoreInstructionError, testing::ValuesIn(kInstructions), case_name);

const std::string kCoupled = lines({".kernel t", ".tensor A f16 [64] in", "    set_flag MTE2, V, 0",
                                    "    wait_flag MTE2, V, 0", "    set_cross MTE3, mode=2, id=1", "    end"});

TEST(CrossCoreOnCoupledChip, SimulateRefusesIt) {
  Program p = parse_program(kCoupled, "test.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  expect_user_error([&] { simulate(load_chip("ascend910"), p, gm); },
                    {"kernel 't' cannot run on ascend910: instruction 2 (line 5) `set_cross MTE3, mode=2, id=1` needs "
                     "cross-core flags", "which ascend910's coupled cores lack; the chips that have it: ascend910b2"});
}

TEST(CrossCoreOnCoupledChip, RunInOrderRefusesIt) {
  Program p = parse_program(kCoupled, "test.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  expect_user_error([&] { run_in_order(load_chip("ascend910"), p, gm); },
                    {"kernel 't' cannot run on ascend910: instruction 2 (line 5) `set_cross MTE3, mode=2, id=1` needs "
                     "cross-core flags"});
}

}  // namespace
}  // namespace cubekit::test
