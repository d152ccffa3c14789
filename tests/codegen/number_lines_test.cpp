// number_lines gives a built program the lines of its text form, which kernels::compile_and_run
// runs instead of printing the program and parsing it back: the two must agree on every
// instruction, every line and every label, for generated kernels of every kind on every preset.
#include "codegen/lower.h"
#include "emulator/chip_config.h"
#include "emulator/program.h"
#include "kernels/attention.h"
#include "kernels/conv.h"
#include "kernels/matmul.h"
#include "kernels/pool.h"
#include "kernels/vector.h"

#include <gtest/gtest.h>

namespace cubekit {
namespace {

void expect_as_parsed(const std::vector<dsl::Func>& outputs, const ChipConfig& chip, const std::string& what) {
  Program built = codegen::compile(outputs, chip).program;
  const Program parsed = parse_program(print_program(built), what);
  number_lines(built);
  ASSERT_EQ(built.code.size(), parsed.code.size()) << what;
  for (size_t i = 0; i < built.code.size(); ++i) {
    EXPECT_TRUE(built.code[i] == parsed.code[i]) << what << ": instruction " << i << " reads back otherwise: "
                                                 << print_instr(parsed, parsed.code[i]);
    EXPECT_EQ(built.code[i].line, parsed.code[i].line) << what << ": instruction " << i;
  }
  EXPECT_EQ(built.labels, parsed.labels) << what;
  EXPECT_EQ(built.block_dim, parsed.block_dim) << what;
  EXPECT_EQ(built.tensors.size(), parsed.tensors.size()) << what;
}

class NumberLines : public testing::TestWithParam<const char*> {};

TEST_P(NumberLines, AgreeWithTheTextForm) {
  const ChipConfig chip = load_chip(GetParam());
  kernels::MatmulOptions mm;
  mm.m = 200, mm.n = 300, mm.k = 100;
  mm.epilogue = {"bias", "relu"};
  expect_as_parsed({kernels::matmul(mm, chip).out}, chip, "matmul");
  kernels::Conv2dOptions cv;
  cv.n = 1, cv.c = 16, cv.h = 14, cv.w = 14, cv.k = 32, cv.pad = 1;
  expect_as_parsed(kernels::conv2d(cv, chip).outputs(), chip, "conv2d");
  kernels::AttentionOptions at;
  at.heads = 2, at.kv_heads = 1, at.seq_q = 100, at.seq_kv = 150, at.dim = 64, at.causal = true, at.lse = true;
  expect_as_parsed(kernels::attention(at, chip).outputs(), chip, "attention");
  kernels::VectorOptions v;
  v.shape = {64, 1000};
  expect_as_parsed({kernels::vector_kernel("softmax", v, chip).out}, chip, "softmax");
  expect_as_parsed({kernels::vector_kernel("gelu", v, chip).out}, chip, "gelu");
  kernels::Pool2dOptions pl;
  pl.c = 16, pl.h = 15, pl.w = 15, pl.kh = 3, pl.stride = 2, pl.pad = 1;
  expect_as_parsed({kernels::pool2d(pl, chip).out}, chip, "max_pool2d");
}

INSTANTIATE_TEST_SUITE_P(Presets, NumberLines, testing::Values("ascend910", "ascend910b2", "ascend950pr"));

}  // namespace
}  // namespace cubekit
