// The networks `cubekit tune --suite` tunes layer by layer: each distinct layer once, with how
// many times the network runs it.
//
//   resnet50    ResNet-50 v1.5's convolutions (the 7x7 stem, the bottlenecks' 1x1 - 3x3 - 1x1 with
//               the stride on the 3x3, the 1x1 downsamples) with their batch norm, residual and
//               ReLU fused, and the FC layer (a matmul with its bias), f16 -> f16
//   bert-large  one encoder layer of BERT-Large at sequence 512 (hidden 1024, 16 heads, FFN 4096):
//               the QKV and output projections and the FFN's two GEMMs (bias, GELU fused),
//               self-attention, the residual add and the layernorm, f16
#pragma once

#include "tune/space.h"

#include <string>
#include <vector>

namespace cubekit::tune {

struct Layer {
  Problem problem;  // problem.label: the first layer of the network with this problem
  // Layers of the network with this problem; 0 for the other form of a pair the network runs
  // one of (ResNet's strided-write fusion: the producer writing a copy, the downsample reading
  // it), tuned but left out of the network's total.
  int count = 1;
};

const std::vector<std::string>& suite_names();
// The suite's distinct layers at this batch; an unknown name is a user error listing the suites.
std::vector<Layer> suite(const std::string& name, int64_t batch);

}  // namespace cubekit::tune
