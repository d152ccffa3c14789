// Reading and writing NumPy .npy files (format versions 1-3, little-endian, C order), so tensors
// move between cubekit and numpy without conversion scripts.
#pragma once

#include "emulator/dtype.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cubekit {

struct NpyArray {
  DType dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

NpyArray read_npy(const std::string& path);
void write_npy(const std::string& path, DType dtype, const std::vector<int64_t>& shape, const std::vector<uint8_t>& data);

}  // namespace cubekit
