#include "codegen/layouts.h"

#include "emulator/error.h"
#include "emulator/layout.h"

#include <fmt/format.h>

namespace cubekit::codegen {

namespace {

layout::FeatureMap map_of(const TensorLayout& l) { return {l.dims[0], l.dims[1], l.dims[2], l.dims[3], l.c0}; }
layout::ConvWeights weights_of(const TensorLayout& l) { return {l.dims[0], l.dims[1], l.dims[2], l.dims[3], l.c0}; }

}  // namespace

int64_t TensorLayout::logical_bytes() const { return dims[0] * dims[1] * dims[2] * dims[3] * dtype_size(dtype); }

std::vector<uint8_t> TensorLayout::to_device(const std::vector<uint8_t>& logical) const {
  if (int64_t(logical.size()) != logical_bytes())
    user_error("{}: {} bytes given, its shape [{}] of {} takes {}", tensor, logical.size(), fmt::join(dims, ", "),
               dtype_name(dtype), logical_bytes());
  int size = dtype_size(dtype);
  if (kind == Kind::NC1HWC0) return layout::nchw_to_nc1hwc0(logical.data(), map_of(*this), size);
  return layout::kchw_to_fractal_z(logical.data(), weights_of(*this), size);
}

std::vector<uint8_t> TensorLayout::to_host(const std::vector<uint8_t>& device) const {
  CUBEKIT_ASSERT(kind == Kind::NC1HWC0, "{}: only feature maps come back to the host", tensor);
  layout::FeatureMap f = map_of(*this);
  CUBEKIT_ASSERT(int64_t(device.size()) == f.size() * dtype_size(dtype), "{}: {} device bytes for {} elements", tensor,
                 device.size(), f.size());
  return layout::nc1hwc0_to_nchw(device.data(), f, dtype_size(dtype));
}

std::string TensorLayout::str() const {
  return fmt::format("{}: {} [{}] as {} (C0 {})", tensor, kind == Kind::NC1HWC0 ? "NCHW" : "KCHW", fmt::join(dims, ", "),
                     kind == Kind::NC1HWC0 ? "NC1HWC0" : "FRACTAL_Z", c0);
}

const TensorLayout* find_layout(const std::vector<TensorLayout>& layouts, const std::string& tensor) {
  for (const TensorLayout& l : layouts)
    if (l.tensor == tensor) return &l;
  return nullptr;
}

}  // namespace cubekit::codegen
