// TransData on the vector unit: a feature map of a 16-bit type between NCHW and NC1HWC0 (C0 = 16),
// as CANN's TransData kernel converts a network's input and output, so that the conversion's
// cycles are emulated and reported beside the kernel's. Each 16 channels x 16 positions of a
// plane is one vtranspose:
//
//   for tile in my share of (planes n * c1, groups of P positions):
//     NCHW -> NC1HWC0:  MTE2  each channel's P positions -> UB, 16 (32 B) to each 16 x 16 matrix
//                       V     vtranspose each matrix (positions x channels); channels past C <- 0
//                       MTE3  P positions x 16 channels -> GM (contiguous)
//     NC1HWC0 -> NCHW:  the same backwards (only the channels below C are stored)
//
// f32 and s8 maps have no such transpose (vtranspose is 16-bit): the host converts them.
#pragma once

#include "codegen/layouts.h"
#include "emulator/chip_config.h"
#include "emulator/program.h"

#include <string>

namespace cubekit::codegen {

// Whether the vector unit converts this layout (an NC1HWC0 feature map of f16 or bf16, C0 16).
bool transdata_on_device(const TensorLayout& l);

// The TransData program for `l`: NCHW -> NC1HWC0 (`to_device`) or back. Its tensors are
// transdata_source(l, to_device) (In) and transdata_result(l, to_device) (Out).
Program compile_transdata(const TensorLayout& l, bool to_device, const ChipConfig& chip);
std::string transdata_source(const TensorLayout& l, bool to_device);
std::string transdata_result(const TensorLayout& l, bool to_device);

}  // namespace cubekit::codegen
