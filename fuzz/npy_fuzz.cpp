// Fuzz target: the .npy reader and writer (tools/npy.*), through files as `cubekit run --input`
// and `--output` use them.
//
// An input that starts with the .npy magic (\x93NUMPY) is a file to read: read_npy either rejects
// it with a user error or returns an array, which write_npy must write to a file that read_npy
// reads back to the same dtype, shape and bytes.
//
// Any other input describes an array to write (the writer gets arrays from programs, not files):
//   byte 0        the dtype (index into kAllDTypes, modulo their count)
//   bytes 1-2     the rank (little-endian), then one byte per dimension (missing bytes: 1)
//   the rest      the data, repeated to the size the shape needs (zeros when there is none)
// Arrays of more than kMaxElements elements are skipped. write_npy must write it (or refuse with a
// user error), and read_npy must read back exactly what was written.
#include "fuzz/fuzz_target.h"
#include "tools/npy.h"

#include <cstring>

namespace {

using namespace cubekit;

constexpr int64_t kMaxElements = int64_t(1) << 20;

std::string describe(DType dtype, const std::vector<int64_t>& shape, size_t bytes) {
  std::string dims;
  for (int64_t d : shape) dims += (dims.empty() ? "" : ",") + std::to_string(d);
  if (dims.size() > 200) dims = dims.substr(0, 200) + "... (" + std::to_string(shape.size()) + " dimensions)";
  return std::string(dtype_name(dtype)) + " [" + dims + "], " + std::to_string(bytes) + " bytes";
}

void write_and_read_back(DType dtype, const std::vector<int64_t>& shape, const std::vector<uint8_t>& data) {
  static const std::string path = fuzz::scratch_path("written.npy");
  if (!fuzz::accepted([&] { write_npy(path, dtype, shape, data); })) return;
  NpyArray back;
  if (!fuzz::accepted([&] { back = read_npy(path); }))
    fuzz::finding("read_npy rejects what write_npy wrote", describe(dtype, shape, data.size()));
  const DType stored = dtype == DType::bf16 ? DType::u16 : dtype;  // numpy has no bf16: its bits, as uint16
  if (back.dtype != stored || back.shape != shape || back.data != data)
    fuzz::finding("read_npy(write_npy(array)) differs from the array",
                  describe(dtype, shape, data.size()) + " became " + describe(back.dtype, back.shape, back.data.size()));
}

// The header length a .npy file declares (version 1: 2 bytes, later: 4), 0 when it has none.
void read_file(const uint8_t* data, size_t size) {
  static const std::string path = fuzz::scratch_path("input.npy");
  fuzz::write_file(path, fuzz::as_text(data, size));
  NpyArray a;
  if (!fuzz::accepted([&] { a = read_npy(path); })) return;
  int64_t elements = 1;
  for (int64_t d : a.shape) elements *= d;  // read_npy checked the product against the file size
  if (int64_t(a.data.size()) != elements * dtype_size(a.dtype))
    fuzz::finding("read_npy's data does not match its shape", describe(a.dtype, a.shape, a.data.size()));
  write_and_read_back(a.dtype, a.shape, a.data);
}

void write_described(const uint8_t* data, size_t size) {
  size_t at = 0;
  auto next = [&](uint8_t missing) { return at < size ? data[at++] : missing; };
  DType dtype = kAllDTypes[next(0) % std::size(kAllDTypes)];
  size_t rank = next(1) | (size_t(next(0)) << 8);
  std::vector<int64_t> shape;
  int64_t elements = 1;
  for (size_t i = 0; i < rank; ++i) {
    shape.push_back(next(1));
    elements *= shape.back();
    if (elements > kMaxElements) return;
  }
  std::vector<uint8_t> bytes(size_t(elements * dtype_size(dtype)), 0);
  if (at < size)
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = data[at + i % (size - at)];
  write_and_read_back(dtype, shape, bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 6 && std::memcmp(data, "\x93NUMPY", 6) == 0) read_file(data, size);
  else write_described(data, size);
  return 0;
}
