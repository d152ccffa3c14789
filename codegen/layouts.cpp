#include "codegen/layouts.h"

#include "emulator/error.h"
#include "emulator/layout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace cubekit::codegen {

namespace {

// With groups, NCHW is (N * G, C / G, H, W) as it lies in memory: each group a feature map of its own.
layout::FeatureMap map_of(const TensorLayout& l) {
  return {l.dims[0] * l.groups, l.dims[1] / l.groups, l.dims[2], l.dims[3], l.c0};
}
// One group's weights: (K / G, C / G, KH, KW).
layout::ConvWeights weights_of(const TensorLayout& l) { return {l.dims[0] / l.groups, l.dims[1], l.dims[2], l.dims[3], l.c0}; }

}  // namespace

std::vector<int64_t> TensorLayout::shape() const {
  if (kind == Kind::Padded) return {dims[0]};
  return {dims.begin(), dims.end()};
}

int64_t TensorLayout::logical_bytes() const { return dims[0] * dims[1] * dims[2] * dims[3] * dtype_size(dtype); }

int64_t TensorLayout::device_bytes() const {
  const int64_t per = dims[0] / groups, padded = (per + c0 - 1) / c0 * c0;
  const int64_t elements = kind == Kind::Padded ? groups * padded
                           : kind == Kind::NC1HWC0 ? map_of(*this).size()
                                                   : groups * weights_of(*this).size();
  return elements * dtype_size(dtype);
}

std::vector<uint8_t> TensorLayout::to_device(const std::vector<uint8_t>& logical) const {
  if (int64_t(logical.size()) != logical_bytes())
    user_error("{}: {} bytes given, its shape [{}] of {} takes {}", tensor, logical.size(), fmt::join(dims, ", "),
               dtype_name(dtype), logical_bytes());
  int size = dtype_size(dtype);
  const int64_t per = dims[0] / groups, padded = (per + c0 - 1) / c0 * c0;
  if (kind == Kind::Padded) {  // each group's channels padded to a multiple of c0
    std::vector<uint8_t> out(size_t(groups * padded * size), 0);
    for (int64_t g = 0; g < groups; ++g)
      std::copy_n(logical.begin() + g * per * size, per * size, out.begin() + g * padded * size);
    return out;
  }
  if (kind == Kind::NC1HWC0) return layout::nchw_to_nc1hwc0(logical.data(), map_of(*this), size);
  layout::ConvWeights wt = weights_of(*this);
  std::vector<uint8_t> out;
  for (int64_t g = 0; g < groups; ++g) {
    std::vector<uint8_t> one = layout::kchw_to_fractal_z(logical.data() + g * (logical_bytes() / groups), wt, size);
    out.insert(out.end(), one.begin(), one.end());
  }
  return out;
}

std::vector<uint8_t> TensorLayout::to_host(const std::vector<uint8_t>& device) const {
  const int size = dtype_size(dtype);
  if (int64_t(device.size()) != device_bytes())
    user_error("{}: {} bytes given, but {} takes {}", tensor, device.size(), str(), device_bytes());
  if (kind == Kind::NC1HWC0) return layout::nc1hwc0_to_nchw(device.data(), map_of(*this), size);
  const int64_t per = dims[0] / groups;
  std::vector<uint8_t> out;
  if (kind == Kind::Padded) {  // each group's channels, without their padding
    const int64_t padded = (per + c0 - 1) / c0 * c0;
    for (int64_t g = 0; g < groups; ++g)
      out.insert(out.end(), device.begin() + g * padded * size, device.begin() + (g * padded + per) * size);
    return out;
  }
  const layout::ConvWeights wt = weights_of(*this);
  const int64_t group_bytes = wt.size() * size;  // each group's FRACTAL_Z, one after another (to_device)
  for (int64_t g = 0; g < groups; ++g) {
    std::vector<uint8_t> one = layout::fractal_z_to_kchw(device.data() + g * group_bytes, wt, size);
    out.insert(out.end(), one.begin(), one.end());
  }
  return out;
}

std::string TensorLayout::str() const {
  std::string in_groups = groups > 1 ? fmt::format(" in {} groups", groups) : "";
  if (kind == Kind::Padded) return fmt::format("{}: [{}] padded to a multiple of {}{}", tensor, dims[0], c0, in_groups);
  return fmt::format("{}: {} [{}] as {} (C0 {}){}", tensor, kind == Kind::NC1HWC0 ? "NCHW" : "KCHW", fmt::join(dims, ", "),
                     kind == Kind::NC1HWC0 ? "NC1HWC0" : "FRACTAL_Z", c0, in_groups);
}

const TensorLayout* find_layout(const std::vector<TensorLayout>& layouts, const std::string& tensor) {
  for (const TensorLayout& l : layouts)
    if (l.tensor == tensor) return &l;
  return nullptr;
}

}  // namespace cubekit::codegen
