// User errors in .npy files given to `cubekit run --input` (tools/npy.cpp read_npy): files that
// are not .npy, unsupported versions, dtypes and orders, and headers or data that are cut short.
// Each message names the file.
#include "error_test_util.h"
#include "tools/npy.h"

namespace cubekit::test {
namespace {

// A .npy file: magic, version, header length, the header padded with spaces and '\n' to a multiple
// of 64 bytes, then `data`.
std::string npy(std::string header, const std::string& data = {}, int major = 1) {
  size_t prefix = major == 1 ? 10 : 12;
  header += std::string((64 - (prefix + header.size() + 1) % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += char(major);
  out += char(0);
  uint32_t n = uint32_t(header.size());
  out += char(n & 0xff);
  out += char((n >> 8) & 0xff);
  if (major != 1) out += std::string{char((n >> 16) & 0xff), char(n >> 24)};
  return out + header + data;
}

std::string f16_header(const std::string& shape) {
  return "{'descr': '<f2', 'fortran_order': False, 'shape': " + shape + ", }";
}

class NpyError : public testing::TestWithParam<ErrorCase> {};

TEST_P(NpyError, NamesTheFileAndTheProblem) {
  const ErrorCase& c = GetParam();
  TempDir dir("npy");
  std::string path = dir.write("a.npy", c.input);
  expect_user_error([&] { read_npy(path); }, c.expected);
}

const ErrorCase kFiles[] = {
    {"NotAnNpyFile", "x,y\n1,2\n", {"a.npy' is not a .npy file (no \\x93NUMPY magic)"}},
    {"UnsupportedVersion", npy(f16_header("(4,)"), std::string(8, '\0'), 4),
     {"a.npy': .npy format version 4 is not supported (1, 2 or 3)"}},
    {"TruncatedHeader", npy(f16_header("(4,)")).substr(0, 30), {"a.npy': truncated .npy header"}},
    {"HeaderWithoutDescr", npy("{'fortran_order': False, 'shape': (4,), }", std::string(8, '\0')),
     {"a.npy': .npy header has no 'descr'"}},
    {"UnsupportedDtype", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", std::string(32, '\0')),
     {"a.npy': dtype '<f8' is not supported (float16 float32 int8 uint8 int16 uint16 int32, little-endian)"}},
    {"BigEndianData", npy("{'descr': '>f2', 'fortran_order': False, 'shape': (4,), }", std::string(8, '\0')),
     {"a.npy': dtype '>f2' is not supported", "little-endian"}},
    {"FortranOrder", npy("{'descr': '<f2', 'fortran_order': True, 'shape': (2, 2), }", std::string(8, '\0')),
     {"a.npy' is stored in Fortran order; save it with numpy.ascontiguousarray(...)"}},
    {"HeaderWithoutShape", npy("{'descr': '<f2', 'fortran_order': False, }", std::string(8, '\0')),
     {"a.npy': .npy header has no 'shape'"}},
    {"DataShorterThanTheShape", npy(f16_header("(2, 3)"), std::string(6, '\0')),
     {"a.npy': the file ends before its 6 elements"}},
    // Currently fails: the shape is read with the regex \d+, which drops the '-': (-4,) loads as 4.
    {"NegativeDimension", npy(f16_header("(-4,)"), std::string(8, '\0')), {"a.npy", "-4"}},
};
INSTANTIATE_TEST_SUITE_P(Files, NpyError, testing::ValuesIn(kFiles), case_name);

TEST(NpyFile, Missing) {
  expect_user_error([] { read_npy("/nonexistent/cubekit/a.npy"); }, {"cannot read '/nonexistent/cubekit/a.npy'"});
}

TEST(NpyFile, UnwritableOutput) {
  expect_user_error([] { write_npy("/nonexistent/cubekit/c.npy", DType::f32, {4}, std::vector<uint8_t>(16)); },
                    {"cannot write '/nonexistent/cubekit/c.npy'"});
}

}  // namespace
}  // namespace cubekit::test
