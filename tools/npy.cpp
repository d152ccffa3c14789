#include "tools/npy.h"

#include "emulator/error.h"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <regex>

namespace cubekit {
namespace {

struct Descr {
  const char* text;
  DType dtype;
};
constexpr Descr kDescrs[] = {{"<f2", DType::f16}, {"<f4", DType::f32}, {"|i1", DType::s8}, {"|u1", DType::u8},
                             {"<i2", DType::s16}, {"<u2", DType::u16}, {"<i4", DType::s32}};

}  // namespace

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) user_error("cannot read '{}'", path);
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    user_error("'{}' is not a .npy file (no \\x93NUMPY magic)", path);
  int major = magic[6];
  uint32_t header_len = 0;
  if (major == 1) {
    uint8_t b[2];
    in.read(reinterpret_cast<char*>(b), 2);
    header_len = b[0] | (b[1] << 8);
  } else if (major == 2 || major == 3) {
    uint8_t b[4];
    in.read(reinterpret_cast<char*>(b), 4);
    header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (uint32_t(b[3]) << 24);
  } else {
    user_error("'{}': .npy format version {} is not supported (1, 2 or 3)", path, major);
  }
  std::string header(header_len, '\0');
  if (!in.read(header.data(), header_len)) user_error("'{}': truncated .npy header", path);
  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'descr'\\s*:\\s*'([^']*)'")))
    user_error("'{}': .npy header has no 'descr'", path);
  std::string descr = m[1];
  NpyArray a{};
  bool known = false;
  for (const Descr& d : kDescrs)
    if (descr == d.text || (descr.size() == 3 && descr[0] == '=' && descr.substr(1) == std::string(d.text).substr(1)))
      a.dtype = d.dtype, known = true;
  if (!known)
    user_error("'{}': dtype '{}' is not supported (float16 float32 int8 uint8 int16 uint16 int32, little-endian)", path, descr);
  if (std::regex_search(header, m, std::regex("'fortran_order'\\s*:\\s*True")))
    user_error("'{}' is stored in Fortran order; save it with numpy.ascontiguousarray(...)", path);
  if (!std::regex_search(header, m, std::regex("'shape'\\s*:\\s*\\(([^)]*)\\)"))) user_error("'{}': .npy header has no 'shape'", path);
  std::string dims = m[1];
  static const std::regex number("-?\\d+");
  for (std::sregex_iterator it(dims.begin(), dims.end(), number), end; it != end; ++it) {
    const std::string& text = it->str();
    if (text[0] == '-' || text.size() > 15) user_error("'{}': shape dimension {} is not valid", path, text);
    a.shape.push_back(std::stoll(text));
  }
  // Check the claimed size against the file before allocating it.
  int64_t n = 1;
  for (int64_t d : a.shape)
    if (__builtin_mul_overflow(n, d, &n)) user_error("'{}': the shape's element count overflows", path);
  auto here = in.tellg();
  in.seekg(0, std::ios::end);
  int64_t available = int64_t(in.tellg() - here);
  in.seekg(here);
  int64_t bytes = 0;
  if (__builtin_mul_overflow(n, int64_t(dtype_size(a.dtype)), &bytes) || bytes > available)
    user_error("'{}': the file ends before its {} elements ({} bytes of data, {} needed)", path, n, available,
               n * dtype_size(a.dtype));
  a.data.resize(size_t(bytes));
  if (!in.read(reinterpret_cast<char*>(a.data.data()), std::streamsize(a.data.size())))
    user_error("'{}': the file ends before its {} elements", path, n);
  return a;
}

void write_npy(const std::string& path, DType dtype, const std::vector<int64_t>& shape, const std::vector<uint8_t>& data) {
  const char* descr = nullptr;
  for (const Descr& d : kDescrs)
    if (d.dtype == dtype) descr = d.text;
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.resize(dims.size() - 1);
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, dims);
  size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::ofstream out(path, std::ios::binary);
  if (!out) user_error("cannot write '{}'", path);
  uint16_t len = uint16_t(header.size());
  out.write("\x93NUMPY\x01\x00", 8);
  char lb[2] = {char(len & 0xff), char(len >> 8)};
  out.write(lb, 2);
  out.write(header.data(), std::streamsize(header.size()));
  out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
  if (!out) user_error("writing '{}' failed", path);
}

}  // namespace cubekit
