#include "tools/npy.h"

#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>

namespace cubekit {
namespace {

struct Descr {
  const char* text;
  DType dtype;
};
// numpy has no bfloat16: a bf16 tensor is written as its uint16 bit patterns, and a uint16 file
// is read as u16 (the first match), which a bf16 tensor accepts as its bits (tools/cmd_run.cpp).
constexpr Descr kDescrs[] = {{"<f2", DType::f16}, {"<f4", DType::f32}, {"|i1", DType::s8}, {"|u1", DType::u8},
                             {"<i2", DType::s16}, {"<u2", DType::u16}, {"<i4", DType::s32}, {"<u2", DType::bf16}};

// The header is a Python dict literal, e.g. {'descr': '<f2', 'fortran_order': False, 'shape': (3, 4), }.
// Read in one pass, without recursion or backtracking: a header may be up to 4 GiB (v2/v3).
class HeaderReader {
 public:
  HeaderReader(std::string_view text, const std::string& path) : s_(text), path_(path) {}

  // Calls f(key, value text) for each entry; a value is a quoted string, a word (True, False) or
  // a parenthesised tuple, returned without its quotes or parentheses.
  template <class F>
  void entries(F f) {
    skip_space();
    expect('{');
    for (;;) {
      skip_space();
      if (peek() == '}') return;
      std::string_view key = quoted();
      skip_space();
      expect(':');
      skip_space();
      std::string_view value;
      if (peek() == '\'' || peek() == '"') value = quoted();
      else if (peek() == '(') value = until(')', 1);
      else value = word();
      f(key, value);
      skip_space();
      if (peek() == ',') ++i_;
      else if (peek() != '}') bad("',' or '}'");
    }
  }

 private:
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  [[noreturn]] void bad(const char* wanted) const {
    user_error("'{}': the .npy header is not a dict literal: expected {} at byte {} of the header", path_, wanted, i_);
  }
  void expect(char c) {
    if (peek() != c) bad(c == '{' ? "'{'" : c == ':' ? "':'" : "a delimiter");
    ++i_;
  }
  // The text between an opening character at i_ and `close`, skipping `open_width` characters.
  std::string_view until(char close, size_t open_width) {
    size_t from = i_ + open_width, to = s_.find(close, from);
    if (to == std::string_view::npos) bad("a closing delimiter");
    i_ = to + 1;
    return s_.substr(from, to - from);
  }
  std::string_view quoted() {
    char q = peek();
    if (q != '\'' && q != '"') bad("a quoted key");
    return until(q, 1);
  }
  std::string_view word() {
    size_t from = i_;
    while (i_ < s_.size() && std::isalnum(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (i_ == from) bad("a value");
    return s_.substr(from, i_ - from);
  }

  std::string_view s_;
  const std::string& path_;
  size_t i_ = 0;
};

// "3, 4" or "4," or "": the dimensions of a shape tuple.
std::vector<int64_t> parse_shape(std::string_view dims, const std::string& path) {
  std::vector<int64_t> shape;
  size_t i = 0;
  auto space = [&] {
    while (i < dims.size() && std::isspace(static_cast<unsigned char>(dims[i]))) ++i;
  };
  for (space(); i < dims.size(); space()) {
    size_t from = i;
    while (i < dims.size() && dims[i] != ',' && !std::isspace(static_cast<unsigned char>(dims[i]))) ++i;
    std::string_view text = dims.substr(from, i - from);
    bool digits = !text.empty() && text.size() <= 15 &&
                  std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) user_error("'{}': shape dimension {} is not valid", path, text);
    shape.push_back(std::stoll(std::string(text)));
    space();
    if (i < dims.size() && dims[i] == ',') ++i;
  }
  return shape;
}

int64_t file_bytes_left(std::ifstream& in) {
  auto here = in.tellg();
  in.seekg(0, std::ios::end);
  int64_t left = int64_t(in.tellg() - here);
  in.seekg(here);
  return left;
}

}  // namespace

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || !std::filesystem::is_regular_file(path)) user_error("cannot read '{}': {}", path, unreadable_reason(path));
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    user_error("'{}' is not a .npy file (no \\x93NUMPY magic)", path);
  int major = magic[6];
  uint32_t header_len = 0;
  if (major == 1) {
    uint8_t b[2] = {};
    in.read(reinterpret_cast<char*>(b), 2);
    header_len = b[0] | (b[1] << 8);
  } else if (major == 2 || major == 3) {
    uint8_t b[4] = {};
    in.read(reinterpret_cast<char*>(b), 4);
    header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (uint32_t(b[3]) << 24);
  } else {
    user_error("'{}': .npy format version {} is not supported (1, 2 or 3)", path, major);
  }
  // The claimed length against the file before allocating it.
  if (!in || int64_t(header_len) > file_bytes_left(in))
    user_error("'{}': truncated .npy header ({} bytes declared, the file is shorter)", path, header_len);
  std::string header(header_len, '\0');
  if (!in.read(header.data(), header_len)) user_error("'{}': truncated .npy header", path);
  std::optional<std::string_view> descr, fortran, dims;
  HeaderReader(header, path).entries([&](std::string_view key, std::string_view value) {
    if (key == "descr") descr = value;
    else if (key == "fortran_order") fortran = value;
    else if (key == "shape") dims = value;
  });
  if (!descr) user_error("'{}': .npy header has no 'descr'", path);
  NpyArray a{};
  bool known = false;
  for (const Descr& d : kDescrs)
    if (!known && (*descr == d.text || (descr->size() == 3 && (*descr)[0] == '=' &&
                                        descr->substr(1) == std::string_view(d.text).substr(1))))
      a.dtype = d.dtype, known = true;
  if (!known)
    user_error("'{}': dtype '{}' is not supported (float16 float32 int8 uint8 int16 uint16 int32, little-endian)", path,
               *descr);
  if (fortran == "True")
    user_error("'{}' is stored in Fortran order; save it with numpy.ascontiguousarray(...)", path);
  if (!dims) user_error("'{}': .npy header has no 'shape'", path);
  a.shape = parse_shape(*dims, path);
  // Check the claimed size against the file before allocating it.
  int64_t n = 1;
  for (int64_t d : a.shape)
    if (__builtin_mul_overflow(n, d, &n)) user_error("'{}': the shape's element count overflows", path);
  int64_t available = file_bytes_left(in);
  int64_t bytes = 0;
  // (The bytes needed are told as text: they may not fit in 64 bits.)
  if (__builtin_mul_overflow(n, int64_t(dtype_size(a.dtype)), &bytes))
    user_error("'{}': the file ends before its {} elements ({} bytes of data, {} x {} needed)", path, n, available, n,
               dtype_size(a.dtype));
  if (bytes > available)
    user_error("'{}': the file ends before its {} elements ({} bytes of data, {} needed)", path, n, available, bytes);
  a.data.resize(size_t(bytes));
  if (!in.read(reinterpret_cast<char*>(a.data.data()), std::streamsize(a.data.size())))
    user_error("'{}': the file ends before its {} elements", path, n);
  return a;
}

void write_npy(const std::string& path, DType dtype, const std::vector<int64_t>& shape, const std::vector<uint8_t>& data) {
  const char* descr = nullptr;
  for (const Descr& d : kDescrs)
    if (d.dtype == dtype && !descr) descr = d.text;
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.resize(dims.size() - 1);
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, dims);
  // Version 1 stores the header length in 2 bytes; a longer header (a shape of thousands of
  // dimensions) needs version 2 and its 4 bytes. Magic, version, length and header are padded to
  // a multiple of 64 bytes with spaces before the final '\n'.
  const bool v1 = (10 + header.size() + 1 + 63) / 64 * 64 - 10 <= 65535;
  size_t prefix = v1 ? 10 : 12, total = prefix + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  if (header.size() > UINT32_MAX) user_error("cannot write '{}': its .npy header would exceed 4 GiB", path);
  std::ofstream out(path, std::ios::binary);
  if (!out) user_error("cannot write '{}'", path);
  uint32_t len = uint32_t(header.size());
  out.write(v1 ? "\x93NUMPY\x01\x00" : "\x93NUMPY\x02\x00", 8);
  char lb[4] = {char(len & 0xff), char((len >> 8) & 0xff), char((len >> 16) & 0xff), char(len >> 24)};
  out.write(lb, v1 ? 2 : 4);
  out.write(header.data(), std::streamsize(header.size()));
  out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
  if (!out) user_error("writing '{}' failed", path);
}

}  // namespace cubekit
