// How a tensor of a Func is stored in its program's GM when not as the Func shapes it: the conv
// and pooling paths keep feature maps as NC1HWC0 and weights as FRACTAL_Z (emulator/layout.h), and the host
// converts on the way in and out, as CANN's TransData does.
#pragma once

#include "emulator/dtype.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cubekit::codegen {

struct TensorLayout {
  enum class Kind : uint8_t { NC1HWC0, FractalZ, Padded };  // Padded: a vector [dims[0]] padded to a multiple of c0
  std::string tensor;
  Kind kind;
  DType dtype;
  std::array<int64_t, 4> dims;  // the Func's shape: NCHW (a feature map) or KCHW (weights)
  int64_t c0;                   // channels per block
  int64_t groups = 1;           // a grouped conv: each group's channels laid out (and padded) on their own

  // The Func's row-major bytes into the program's layout (padding zero), and back.
  std::vector<uint8_t> to_device(const std::vector<uint8_t>& logical) const;
  std::vector<uint8_t> to_host(const std::vector<uint8_t>& device) const;
  int64_t logical_bytes() const;
  int64_t device_bytes() const;  // in the program's layout (what to_device makes)
  std::vector<int64_t> shape() const;  // the Func's shape ([k] for Padded)
  std::string str() const;  // "I: NCHW [1, 3, 8, 8] as NC1HWC0 (C0 16)"
};

// The layout of `tensor` in the list, or nullptr when it is stored as the Func shapes it.
const TensorLayout* find_layout(const std::vector<TensorLayout>& layouts, const std::string& tensor);

}  // namespace cubekit::codegen
