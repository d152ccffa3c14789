#include "tune/suites.h"

#include "emulator/error.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cubekit::tune {

namespace {

void add(std::vector<Layer>& layers, Problem p) {
  for (Layer& l : layers)
    if (l.problem.kernel == p.kernel && l.problem.key() == p.key()) return void(++l.count);
  layers.push_back({std::move(p), 1});
}

Problem conv(const std::string& name, int64_t batch, int64_t c, int64_t h, int64_t k, int64_t kernel, int64_t stride,
             int64_t pad, std::vector<std::string> epilogue) {
  Problem p;
  p.kernel = "conv2d", p.label = name;
  kernels::Conv2dOptions& o = p.conv;
  o.n = batch, o.c = c, o.h = h, o.w = h, o.k = k, o.kh = kernel, o.kw = kernel, o.stride = stride, o.pad = pad;
  o.in = DType::f16, o.out = DType::f16, o.epilogue = std::move(epilogue);
  return p;
}

Problem gemm(const std::string& name, int64_t m, int64_t n, int64_t k, std::vector<std::string> epilogue) {
  Problem p;
  p.kernel = "matmul", p.label = name;
  kernels::MatmulOptions& o = p.matmul;
  o.m = m, o.n = n, o.k = k, o.in = DType::f16, o.out = DType::f16, o.epilogue = std::move(epilogue);
  return p;
}

std::vector<Layer> resnet50(int64_t batch) {
  std::vector<Layer> layers;
  add(layers, conv("stem", batch, 3, 224, 64, 7, 2, 3, {"bn", "relu"}));
  int64_t c = 64, h = 56;
  const int64_t stages[4][3] = {{64, 3, 1}, {128, 4, 2}, {256, 6, 2}, {512, 3, 2}};
  for (int s = 0; s < 4; ++s) {
    const int64_t width = stages[s][0], blocks = stages[s][1], stride = stages[s][2];
    for (int64_t b = 0; b < blocks; ++b) {
      const std::string name = fmt::format("layer{}.{}", s + 1, b);
      const int64_t st = b == 0 ? stride : 1, oh = (h + 2 - 3) / st + 1;
      if (b == 0) add(layers, conv(name + ".downsample", batch, c, h, width * 4, 1, st, 0, {"bn"}));
      if (b == 0 && st > 1) {  // the network's strided-write fusion (bench/resnet50.py), where it pays
        // The previous stage's last block also writes its map at every st-th row and column ...
        Problem writes = conv(fmt::format("layer{}.{}.conv3 +1/{} copy", s, stages[s - 1][1] - 1, st), batch, c / 4, h, c, 1,
                              1, 0, {"bn", "residual", "relu"});
        writes.conv.subsampled = st;
        layers.push_back({std::move(writes), 0});
        // ... and the downsample reads that copy as a 1x1 stride-1 convolution.
        layers.push_back({conv(name + ".downsample reading the copy", batch, c, (h + st - 1) / st, width * 4, 1, 1, 0, {"bn"}), 0});
      }
      add(layers, conv(name + ".conv1", batch, c, h, width, 1, 1, 0, {"bn", "relu"}));
      add(layers, conv(name + ".conv2", batch, width, h, width, 3, st, 1, {"bn", "relu"}));
      add(layers, conv(name + ".conv3", batch, width, oh, width * 4, 1, 1, 0, {"bn", "residual", "relu"}));
      c = width * 4, h = oh;
    }
  }
  add(layers, gemm("fc", batch, 1000, 2048, {"bias"}));
  return layers;
}

std::vector<Layer> bert_large(int64_t batch) {
  const int64_t seq = 512, hidden = 1024, heads = 16, ffn = 4096, tokens = batch * seq;
  std::vector<Layer> layers;
  add(layers, gemm("attention.qkv", tokens, 3 * hidden, hidden, {"bias"}));
  Problem a;
  a.kernel = "attention", a.label = "attention.self";
  a.attention.batch = batch, a.attention.heads = heads, a.attention.seq_q = seq, a.attention.dim = hidden / heads;
  add(layers, a);
  add(layers, gemm("attention.output", tokens, hidden, hidden, {"bias"}));
  Problem residual;
  residual.kernel = "add", residual.label = "residual add";
  residual.vector.shape = {tokens, hidden};
  add(layers, residual);
  Problem norm = residual;
  norm.kernel = "layernorm", norm.label = "layernorm";
  add(layers, norm);
  add(layers, gemm("ffn.up", tokens, ffn, hidden, {"bias", "gelu"}));
  add(layers, gemm("ffn.down", tokens, hidden, ffn, {"bias"}));
  for (Layer& l : layers)
    if (l.problem.kernel == "add" || l.problem.kernel == "layernorm") l.count = 2;  // after attention and after the FFN
  return layers;
}

}  // namespace

const std::vector<std::string>& suite_names() {
  static const std::vector<std::string> names = {"resnet50", "bert-large"};
  return names;
}

std::vector<Layer> suite(const std::string& name, int64_t batch) {
  if (batch < 1) user_error("tune --suite {}: --batch {} must be at least 1", name, batch);
  if (name == "resnet50") return resnet50(batch);
  if (name == "bert-large") return bert_large(batch);
  user_error("tune: no suite '{}'; the suites are {}", name, fmt::join(suite_names(), ", "));
}

}  // namespace cubekit::tune
