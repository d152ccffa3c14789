// User errors of fixpipe (emulator/isa_fixpipe.cpp): conversions the FixPipe does not have, scales
// where its mode takes none, two scales at once, strides that break the NZ source or the
// destination, a destination it cannot write, and an L0C -> L1 move on a chip without that path.
// Also the diagnostics of a per-channel scale that is not there (never written, outside L1).
#include "emulator/emulator.h"
#include "emulator/memory.h"
#include "emulator/program.h"
#include "emulator/simulator.h"
#include "error_test_util.h"

namespace cubekit::test {
namespace {

constexpr const char* kChip = "ascend910b2";  // the FixPipe is on the split chips' cube cores

// The instruction is line 4, after two tensor declarations.
std::string at_line4(std::string_view instruction) {
  return lines({".kernel t", ".tensor C f16 [64, 64] out", ".tensor Q s8 [64, 64] out", instruction, "    end"});
}

class FixpipeError : public testing::TestWithParam<ErrorCase> {};

TEST_P(FixpipeError, NamesWhatAndWhere) {
  const ErrorCase& c = GetParam();
  expect_user_error([&] { parse_program(c.input, "test.s"); }, c.expected, c.input);
}

const ErrorCase kCases[] = {
    {"FixpipeUnsupportedTypePair",
     at_line4("    fixpipe.f32.s32 C[0], l0c[0], m=16, n=16, src_stride=16, dst_stride=16"),
     {"test.s:4:5: error: 'fixpipe.f32.s32' is not a form of fixpipe; it has fixpipe.f32.f32, fixpipe.f32.f16"}},
    {"FixpipeScaleWithoutQuantisation",
     at_line4("    fixpipe.f32.f16 C[0], l0c[0], m=16, n=16, src_stride=16, dst_stride=16, scale=0.5"),
     {"test.s:4:77: error: fixpipe.f32.f16 does not scale (the FixPipe's F322F16/F322BF16 mode has no scale); a scale "
      "applies to s32.f16 (dequantisation), f32.s8 and s32.s8 (quantisation)"}},
    {"FixpipePerChannelScaleWithoutQuantisation",
     at_line4("    fixpipe.s32.s32 l1[0], l0c[0], m=16, n=16, src_stride=16, dst_stride=16, scale_l1=l1[8192]"),
     {"test.s:4:78: error: fixpipe.s32.s32 does not scale (the FixPipe's NoQuant mode has no scale)"}},
    {"FixpipeTwoScales",
     at_line4("    fixpipe.s32.s8 Q[0], l0c[0], m=16, n=16, src_stride=16, dst_stride=16, scale=0.5, scale_l1=l1[0]"),
     {"test.s:4:87: error: fixpipe takes one scale: either scale=<number or register> (one for all) or "
      "scale_l1=l1[...] (one f32 per output column), not both"}},
    {"FixpipeSrcStrideNotAFractalColumn",
     at_line4("    fixpipe.f32.f16 C[0], l0c[0], m=20, n=16, src_stride=24, dst_stride=16"),
     {"test.s:4:47: error: src_stride=24 must be a multiple of 16 and at least m=20: it is the number of rows of one "
      "16-column fractal column in L0C"}},
    {"FixpipeSrcStrideBelowRows",
     at_line4("    fixpipe.f32.f16 C[0], l0c[0], m=20, n=16, src_stride=16, dst_stride=16"),
     {"test.s:4:47: error: src_stride=16 must be a multiple of 16 and at least m=20"}},
    {"FixpipeGmRowsOverlap",
     at_line4("    fixpipe.f32.f16 C[0], l0c[0], m=16, n=24, src_stride=16, dst_stride=20"),
     {"test.s:4:62: error: dst_stride=20 is smaller than n=24: rows of the GM matrix would overlap"}},
    {"FixpipeL1StrideNotAFractalColumn",
     at_line4("    fixpipe.f32.f16 l1[0], l0c[0], m=16, n=16, src_stride=16, dst_stride=24"),
     {"test.s:4:63: error: dst_stride=24 must be a multiple of 16 and at least m=16: to L1 it is the number of rows of "
      "each NZ column block"}},
    {"FixpipeL1PartialFractalColumns",
     at_line4("    fixpipe.f32.f16 l1[0], l0c[0], m=16, n=20, src_stride=16, dst_stride=16"),
     {"test.s:4:42: error: n=20 must be a multiple of 16 to L1: the FixPipe writes NZ fractals whole (to GM any n "
      "works)"}},
    {"FixpipeDestinationNotGmL1OrUb",
     at_line4("    fixpipe.f32.f16 l0a[0], l0c[0], m=16, n=16, src_stride=16, dst_stride=16"),
     {"test.s:4:21: error: fixpipe: operand 'dst' must be in a GM tensor or l1 or ub, not l0a"}},
    {"FixpipeSourceNotL0c",
     at_line4("    fixpipe.f32.f16 C[0], ub[0], m=16, n=16, src_stride=16, dst_stride=16"),
     {"test.s:4:27: error: fixpipe: operand 'src' must be in l0c, not ub"}},
    {"FixpipePerChannelScaleNotInL1",
     at_line4("    fixpipe.s32.s8 Q[0], l0c[0], m=16, n=16, src_stride=16, dst_stride=16, scale_l1=ub[0]"),
     {"test.s:4:76: error: fixpipe: operand 'scale_l1' must be in l1, not ub"}},
    {"FixpipeScaleNotANumber",
     at_line4("    fixpipe.s32.s8 Q[0], l0c[0], m=16, n=16, src_stride=16, dst_stride=16, scale=l1"),
     {"test.s:4:76: error: fixpipe: operand 'scale' expects a register or a number, got name 'l1'"}},
};
INSTANTIATE_TEST_SUITE_P(Fixpipe, FixpipeError, testing::ValuesIn(kCases), case_name);

// Neither preset's FixPipe writes L1 (no public rate): the launch names the path and the chip.
TEST(FixpipeChip, L0cToL1OnAChipWithoutThePath) {
  Program p = parse_program(
      lines({".kernel t", "    fixpipe.f32.f16 l1[0], l0c[0], m=16, n=16, src_stride=16, dst_stride=16", "    end"}),
      "test.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  expect_user_error([&] { simulate(load_chip(kChip), p, gm, {.timing_only = true}); },
                    {"fixpipe.f32.f16 l1[0], l0c[0]", "l0c->l1", "ascend910b2"});
}

// A per-channel scale that was never written is read uninitialised: the checker names the operand.
TEST(FixpipeDiagnostic, PerChannelScaleNeverWritten) {
  Program p = parse_program(
      lines({".kernel t", ".tensor Q s8 [16, 16] out", ".tensor A s8 [16, 32] in", ".tensor B s8 [32, 16] in",
             "    copy_gm_l1_nd2nz.s8 l1[0], A[0], rows=16, cols=32, src_stride=32, dst_rows=16",
             "    copy_gm_l1_nd2nz.s8 l1[512], B[0], rows=32, cols=16, src_stride=16, dst_rows=32",
             "    set_flag MTE2, MTE1, 0", "    wait_flag MTE2, MTE1, 0", "    load2d.s8 l0a[0], l1[0]",
             "    load2d.s8 l0b[0], l1[512]", "    set_flag MTE1, M, 0", "    wait_flag MTE1, M, 0",
             "    mmad.s8 l0c[0], l0a[0], l0b[0], m=16, n=16, k=32, init", "    set_flag M, FIX, 0",
             "    wait_flag M, FIX, 0",
             "    fixpipe.s32.s8 Q[0], l0c[0], m=16, n=16, src_stride=16, dst_stride=16, scale_l1=l1[4096]", "    end"}),
      "test.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(1);
  SimResult r = simulate(load_chip(kChip), p, gm);
  ASSERT_FALSE(r.report.diagnostics.empty());
  std::string text = format_diagnostic(p, r.report.diagnostics[0], "test.s");
  EXPECT_THAT(text, testing::HasSubstr("scale_l1")) << text;
  EXPECT_THAT(text, testing::HasSubstr("l1")) << text;
  EXPECT_THAT(text, testing::HasSubstr("test.s:16")) << text;
}

}  // namespace
}  // namespace cubekit::test
