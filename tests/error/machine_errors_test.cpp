// User errors of the heterogeneous machine: chip configs whose kinds of core, pipes, buffers or
// data paths are wrong (emulator/chip_config.cpp), .entry directives (assembly.cpp, program.cpp),
// and launches of a program on a chip whose cores cannot run it (emulator/launch.cpp).
#include "codegen/lower.h"
#include "emulator/chip_config.h"
#include "emulator/emulator.h"
#include "emulator/simulator.h"
#include "error_test_util.h"
#include "kernels/matmul.h"

namespace cubekit::test {
namespace {

// A preset as compact JSON with `from` replaced by `to` (the first occurrence after `after`).
std::string chip_with(std::string_view preset, std::string_view from, std::string_view to, std::string_view after = "") {
  std::string json = chip_to_json(load_chip(preset), -1);
  size_t start = after.empty() ? 0 : json.find(after);
  size_t at = start == std::string::npos ? start : json.find(from, start);
  if (at == std::string::npos) return "<test bug: '" + std::string(from) + "' is not in the preset's JSON>";
  return json.replace(at, from.size(), to);
}

class MachineChipError : public testing::TestWithParam<ErrorCase> {};

TEST_P(MachineChipError, NamesTheKindThePathAndTheValue) {
  const ErrorCase& c = GetParam();
  expect_user_error([&] { chip_from_json(c.input, "my_chip.json"); }, c.expected, c.input);
}

const ErrorCase kChips[] = {
    {"PathWithoutARate", chip_with("ascend910b2", R"({"dst":"l0a","rate":512.0,"src":"l1"})", R"({"dst":"l0a","src":"l1"})"),
     {"my_chip.json: kind aic, path l1->l0a has no 'rate': every data path needs its rate in bytes per cycle (cubekit "
      "has no default rate)"}},
    {"PathRateOutOfRange", chip_with("ascend910b2", R"("rate":64.0)", R"("rate":0.001)"),
     {"my_chip.json: kind aiv, path ub->gm: rate must be in 0.01..1000000 bytes per cycle, got 0.001"}},
    {"PathFromGmIntoTheOtherKind", chip_with("ascend910b2", R"({"dst":"gm","rate":64.0,"src":"ub"})",
                                             R"({"dst":"gm","rate":64.0,"src":"ub"},{"dst":"l1","rate":64.0,"src":"gm"})"),
     {"my_chip.json: kind aiv, path gm->l1: kind aiv has no buffer l1; a path from GM ends at a buffer of its own kind"}},
    {"PathFromABufferTheKindLacks", chip_with("ascend910b2", R"({"dst":"gm","rate":64.0,"src":"ub"})",
                                              R"({"dst":"gm","rate":64.0,"src":"ub"},{"dst":"ub","rate":64.0,"src":"l1"})"),
     {"my_chip.json: kind aiv, path l1->ub: kind aiv has no buffer l1; a path starts at GM or at a buffer of its own kind"}},
    {"PathListedTwice", chip_with("ascend910b2", R"({"dst":"gm","rate":64.0,"src":"ub"})",
                                  R"({"dst":"gm","rate":64.0,"src":"ub"},{"dst":"gm","rate":32.0,"src":"ub"})"),
     {"my_chip.json: kind aiv, path ub->gm: the path is listed twice"}},
    {"PathIntoItself", chip_with("ascend910b2", R"({"dst":"gm","rate":64.0,"src":"ub"})",
                                 R"({"dst":"gm","rate":64.0,"src":"ub"},{"dst":"ub","rate":32.0,"src":"ub"})"),
     {"my_chip.json: kind aiv, path ub->ub: a path goes from one buffer to another"}},
    {"PathEndNotASpace", chip_with("ascend910b2", R"("src":"ub")", R"("src":"l2")"),
     {"my_chip.json (kind aiv, paths): 'src' of a path is 'l2', not one of gm l1 l0a l0b l0c ub"}},
    {"KindsMixed", chip_with("ascend910b2", R"("kind":"aiv")", R"("kind":"coupled")"),
     {"my_chip.json: the chip's core kinds are [aic, coupled]; a chip has either one kind 'coupled'"}},
    {"KindTwice", chip_with("ascend910b2", R"("kind":"aic")", R"("kind":"aiv")"),
     {"my_chip.json: the chip's core kinds are [aiv, aiv]; a chip has either one kind 'coupled'"}},
    {"VectorCoresOnACoupledChip", chip_with("ascend910", R"("vector_cores_per_cube":0)", R"("vector_cores_per_cube":2)"),
     {"my_chip.json: 'vector_cores_per_cube' is 2, but a coupled chip has no separate vector cores: it must be 0"}},
    {"NoVectorCoresOnASplitChip", chip_with("ascend910b2", R"("vector_cores_per_cube":2)", R"("vector_cores_per_cube":0)"),
     {"my_chip.json: 'vector_cores_per_cube' is 0; a split chip has 1..8 vector cores per cube core"}},
    {"KindWithoutScalarUnit", chip_with("ascend910b2", R"("pipes":["S","MTE2","MTE3","V"])", R"("pipes":["MTE2","MTE3","V"])"),
     {"my_chip.json: kind aiv has no pipe S: every core has a scalar unit"}},
    {"KindUnknownPipe", chip_with("ascend910b2", R"("pipes":["S","MTE2","MTE3","V"])", R"("pipes":["S","MTE2","VEC"])"),
     {"my_chip.json (kind aiv): \"VEC\" is not a pipe (S MTE1 MTE2 MTE3 M V FIX)"}},
    {"BufferWithoutAlignment", chip_with("ascend910b2", R"("align_bytes":{"ub":32},)", R"("align_bytes":{},)"),
     {"my_chip.json (kind aiv): buffer ub has a size but no alignment: give both or neither"}},
};
INSTANTIATE_TEST_SUITE_P(Chips, MachineChipError, testing::ValuesIn(kChips), case_name);

// A config built in C++ is checked the same way when a run starts.
TEST(MachineChip, CppConfigWithAPathWithoutRate) {
  ChipConfig c = load_chip("ascend910b2");
  c.kind(CoreKind::Aic)->paths.push_back({Space::L1, Space::L0C, 0});
  expect_user_error([&] { check_chip(c); },
                    {"chip 'ascend910b2': kind aic, path l1->l0c: rate must be in 0.01..1000000 bytes per cycle, got 0"});
}

// No cores: the JSON reader refused it, a C++ config went on to messages about block_dim.
TEST(MachineChip, CppConfigWithoutCores) {
  for (int cores : {0, -1}) {
    ChipConfig c = load_chip("ascend910b2");
    c.cores = cores;
    expect_user_error([&] { check_chip(c); },
                      {fmt::format("chip 'ascend910b2': chip config field 'cores' must be in 1..4096, got {}", cores)});
  }
}

TEST(MachineChip, PathToABufferNoKindHas) {
  ChipConfig c = load_chip("ascend910b2");
  CoreConfig& aic = *c.kind(CoreKind::Aic);
  aic.size[int(Space::L0B)] = aic.align[int(Space::L0B)] = 0;
  std::erase_if(aic.paths, [](const DataPathRate& p) { return p.dst == Space::L0B; });
  c.kind(CoreKind::Aiv)->paths.push_back({Space::UB, Space::L0B, 64});
  expect_user_error([&] { check_chip(c); },
                    {"chip 'ascend910b2': kind aiv, path ub->l0b: kind aiv has no buffer l0b, and neither has aic"});
}

// The chip's buffer sizes and alignments are one per buffer: an aic UB of its own size once bounded
// the aiv's accesses (a false out-of-bounds) and its alignment hid their misalignment.
TEST(MachineChip, ABufferOfTwoSizesAcrossKinds) {
  ChipConfig c = load_chip("ascend910b2");
  c.kind(CoreKind::Aic)->size[int(Space::UB)] = 512;
  c.kind(CoreKind::Aic)->align[int(Space::UB)] = 32;
  expect_user_error([&] { check_chip(c); },
                    {"chip 'ascend910b2': kinds aic and aiv both have buffer ub, of 512 bytes aligned to 32 and of 196608 bytes "
                     "aligned to 32; a buffer has one size and alignment across a chip's kinds: give it the same in both, or to "
                     "one kind only"});
}

TEST(MachineChip, PipeWithoutItsBuffers) {
  ChipConfig c = load_chip("ascend910b2");
  c.kind(CoreKind::Aiv)->pipes |= 1u << int(Pipe::M);
  expect_user_error([&] { check_chip(c); }, {"chip 'ascend910b2': kind aiv has pipe M but no buffer l0a (the cube reads L0A and "
                                             "L0B into L0C); give the buffer or drop the pipe"});
}

class MachineProgramError : public testing::TestWithParam<ErrorCase> {};

TEST_P(MachineProgramError, NamesWhatAndWhere) {
  const ErrorCase& c = GetParam();
  expect_user_error([&] { parse_program(c.input, "test.s"); }, c.expected, c.input);
}

const ErrorCase kEntries[] = {
    {"EntryForAnUnknownKind", lines({".kernel k", ".entry gpu start", "start:", "    end"}),
     {"test.s:2:8: error: 'gpu' is not a kind of core with an entry: write .entry aic LABEL (the cube cores) or .entry "
      "aiv LABEL (the vector cores)"}},
    {"EntryTwice", lines({".kernel k", ".entry aiv a", ".entry aiv b", "a:", "b:", "    end"}),
     {"test.s:3:8: error: the aiv entry is given twice (one .entry per kind of core)"}},
    {"EntryLabelNeverDefined", lines({".kernel k", ".entry aic cube", "    end"}),
     {"test.s:2:12: error: the aic entry names label 'cube', which is never defined"}},
    {"EntryWithoutLabel", lines({".kernel k", ".entry aic", "    end"}), {"test.s:2:", "expected the entry's label"}},
};
INSTANTIATE_TEST_SUITE_P(Entries, MachineProgramError, testing::ValuesIn(kEntries), case_name);

TEST(MachineProgram, BuilderEntryForTheCoupledKind) {
  ProgramBuilder b("k");
  expect_user_error([&] { b.entry(CoreKind::Coupled, "start"); },
                    {"kernel 'k': a coupled core needs no entry: a program starts at its first instruction; entries "
                     "are for split chips (aic, aiv)"});
}

TEST(MachineProgram, BuilderEntryLabelNeverDefined) {
  ProgramBuilder b("k");
  b.entry(CoreKind::Aiv, "vec");
  b.emit("end", {});
  expect_user_error([&] { b.finish(); }, {"kernel 'k': the aiv entry names label 'vec', which is never defined"});
}

// Launches: both drivers refuse them before running anything.
void expect_launch_error(const std::string& text, const char* chip, const std::vector<std::string>& expected) {
  Program p = parse_program(text, "test.s");
  ChipConfig c = load_chip(chip);
  GlobalMemory gm = GlobalMemory::for_program(p);
  expect_user_error([&] { run_in_order(c, p, gm); }, expected, text);
  expect_user_error([&] { simulate(c, p, gm); }, expected, text);
}

const std::string kMov = lines({".kernel mov", ".tensor Y f32 [256] out", "    mov_l0c_ub.f32.f32 ub[0], l0c[0], len=1",
                                "    set_flag V, MTE3, 0", "    wait_flag V, MTE3, 0", "    copy_ub_gm Y[0], ub[0], len=32",
                                "    end"});

TEST(MachineLaunch, InstructionNoCoreOfTheChipRuns) {
  expect_launch_error(kMov, "ascend910b2",
                      {"kernel 'mov' cannot run on ascend910b2: no core of the chip runs instruction 0 (line 3) "
                       "`mov_l0c_ub.f32.f32 ub[0], l0c[0]` (aic lacks pipe V; aiv lacks buffer l0c (operand "
                       "'src')); the chips that have it: ascend910 (coupled)"});
}

TEST(MachineLaunch, InstructionTheEntrysKindLacks) {
  std::string text = lines({".kernel k", ".entry aic cube", ".tensor X f16 [16] in", "cube:",
                            "    copy_gm_ub ub[0], X[0], len=1", "    end"});
  expect_launch_error(text, "ascend910b2",
                      {"kernel 'k' cannot run on ascend910b2: instruction 0 (line 5) `copy_gm_ub ub[0], X[0]` "
                       "needs buffer ub (operand 'dst'), which ascend910b2's aic cores lack; the chips that have it: "
                       "ascend910 (coupled), ascend910b2 (aiv), ascend950pr (aiv)"});
}

TEST(MachineLaunch, PathTheChipLacks) {
  std::string text = lines({".kernel k", ".tensor X f16 [16] in", "    copy_l1_ub ub[0], l1[0], len=1", "    end"});
  ChipConfig c = load_chip("ascend910");
  std::erase_if(c.kinds[0].paths, [](const DataPathRate& p) { return p.src == Space::L1 && p.dst == Space::UB; });
  c.name = "no_l1_ub";
  Program p = parse_program(text, "test.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  expect_user_error([&] { simulate(c, p, gm); },
                    {"kernel 'k' cannot run on no_l1_ub: instruction 0 (line 3) `copy_l1_ub ub[0], l1[0]` needs "
                     "data path l1->ub, which no_l1_ub's coupled cores lack; the chips that have it: ascend910 (coupled)"});
}

// Refused at launch, so a timing-only run (which never multiplies) refuses it too; it once ran clean.
TEST(MachineLaunch, MmadInputTypeTheCubeDoesNotTake) {
  std::string text = lines({".kernel t", "    mmad.s8 l0c[0], l0a[0], l0b[0], m=16, n=16, k=32, init", "    end"});
  ChipConfig c = load_chip("ascend910");
  c.name = "f16only";
  c.cube = {{DType::f16, DType::f32, 16, 16, 16}};
  Program p = parse_program(text, "test.s");
  for (bool timing_only : {false, true}) {
    GlobalMemory gm = timing_only ? GlobalMemory::shape_only(p) : GlobalMemory::for_program(p);
    SimOptions o;
    o.timing_only = timing_only;
    expect_user_error([&] { simulate(c, p, gm, o); },
                      {"kernel 't' cannot run on f16only: instruction 0 (line 2) `mmad.s8 l0c[0], l0a[0], l0b[0], m=16, n=16, "
                       "k=32, init` needs a cube that takes s8 inputs (its cube takes f16), which f16only's coupled cores lack; "
                       "the chips that have it: ascend910 (coupled)"});
  }
}

TEST(MachineLaunch, BothKindsWithoutEntries) {
  std::string text = lines({".kernel k", ".tensor X f16 [16] in", "    copy_gm_l1 l1[0], X[0], len=1",
                            "    copy_gm_ub ub[0], X[0], len=1", "    end"});
  expect_launch_error(text, "ascend910b2",
                      {"kernel 'k' uses both the cube cores and the vector cores of ascend910b2 (instruction 0 (line 3) "
                       "`copy_gm_l1 l1[0], X[0]` runs only on aic, instruction 1 (line 4) `copy_gm_ub ub[0], "
                       "X[0]` only on aiv), but has no entries: on a split chip, start the cube part with "
                       "'.entry aic LABEL' and the vector part with '.entry aiv LABEL'"});
}

TEST(MachineLaunch, EntriesOnACoupledChip) {
  std::string text = lines({".kernel k", ".entry aiv v", "v:", "    end"});
  expect_launch_error(text, "ascend910",
                      {"kernel 'k' has .entry directives, which say where the cube cores and the vector cores of a "
                       "split chip start; ascend910's cores are coupled"});
}

// The 950's paths into a partner core's buffer (tests/emulator/partner_paths_test.cpp).
TEST(MachineLaunch, PartnerWriteWithoutThePartnerCores) {
  std::string text = lines({".kernel k", "    fixpipe.f32.f32 ub[0], l0c[0], m=16, n=16, src_stride=16, dst_stride=16",
                            "    end"});
  expect_launch_error(text, "ascend950pr",
                      {"kernel 'k' writes a buffer of the other cores of its group (instruction 0 (line 2) "
                       "`fixpipe.f32.f32 ub[0], l0c[0], m=16, n=16, src_stride=16, dst_stride=16` writes ub of the aiv "
                       "cores), but runs on the aic cores alone: give the program a '.entry aiv LABEL' as well"});
}

TEST(MachineLaunch, PartnerWriteToAVectorCoreTheGroupLacks) {
  std::string text = lines({".kernel k", ".entry aic c", ".entry aiv v", "c:",
                            "    fixpipe.f32.f32 ub[0], l0c[0], m=16, n=16, src_stride=16, dst_stride=16, sub=2", "    end",
                            "v:", "    end"});
  expect_launch_error(text, "ascend950pr",
                      {"kernel 'k': instruction 0 (line 5) `fixpipe.f32.f32 ub[0], l0c[0], m=16, n=16, src_stride=16, "
                       "dst_stride=16, sub=2` writes the UB of vector core sub=2, but a group of ascend950pr has 2 "
                       "vector cores (sub=0..1)"});
}

TEST(MachineLaunch, PartnerPathTheChipLacks) {
  std::string text = lines({".kernel k", ".entry aic c", ".entry aiv v", "c:", "    end", "v:",
                            "    copy_ub_l1 l1[0], ub[0], len=1", "    end"});
  expect_launch_error(text, "ascend910b2",
                      {"kernel 'k' cannot run on ascend910b2: instruction 1 (line 7) `copy_ub_l1 l1[0], ub[0]` needs "
                       "data path ub->l1 (into the l1 of the group's other cores, which only some chips have), which "
                       "ascend910b2's aiv cores lack; the chips that have it: ascend950pr (aiv)"});
}

TEST(MachineProgram, FixpipeSubblockWithoutAUbDestination) {
  expect_user_error([] {
    parse_program(lines({".kernel k", ".tensor C f32 [16, 16] out",
                         "    fixpipe.f32.f32 C[0], l0c[0], m=16, n=16, src_stride=16, dst_stride=16, sub=1", "    end"}),
                  "test.s");
  }, {"test.s:3:", "sub=1 picks the vector core whose UB receives the tile: it needs a UB destination"});
}

}  // namespace
}  // namespace cubekit::test

namespace cubekit::test {
namespace {

// A kernel on both kinds of core hands each tile to a group's two vector cores: a chip config with
// other groups was accepted and the kernels came out wrong (an output half unwritten with 1,
// races with 4; a 950 probe). Compiling one for such a chip is refused; vector-only kernels run.
TEST(MachineCompile, MixedKernelOnGroupsOfOtherThanTwoVectorCores) {
  for (int per : {1, 4}) {
    ChipConfig chip = chip_from_json(chip_with("ascend910b2", R"("vector_cores_per_cube":2)",
                                               fmt::format(R"("vector_cores_per_cube":{})", per)), "my_chip.json");
    kernels::MatmulOptions o;
    o.m = o.n = o.k = 64, o.epilogue = {"bias"}, o.out = DType::f16;
    const kernels::Matmul mm = kernels::matmul(o, chip);
    expect_user_error([&] { codegen::compile(mm.out, chip); },
                      {"the kernel runs on the cube cores and their vector cores, and hands each tile to a group's two "
                       "vector cores", fmt::format("has {} vector core", per), "vector_cores_per_cube 2"});
  }
}

}  // namespace
}  // namespace cubekit::test
