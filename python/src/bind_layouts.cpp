// The cube's convolution layouts for numpy arrays (emulator/layout.h): NCHW feature maps to and
// from NC1HWC0, (Cout, Cin, KH, KW) weights to FRACTAL_Z, as CANN's TransData makes them.
#include "emulator/error.h"
#include "emulator/layout.h"
#include "emulator/memory.h"
#include "emulator/program.h"
#include "python/src/common.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace cubekit::py_bind {

namespace {

struct Array {
  DType dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

// The channels of an NC1HWC0 block: 32 bytes of 8- or 16-bit data (what load3d reads), and 16 of
// 32-bit data (a convolution's f32 or s32 output and residual, as L0C's fractals hold them).
int64_t c0_of(DType t) { return dtype_size(t) == 1 ? 32 : 16; }

// `a` as a C-order array of `rank` dimensions; of 16- or 8-bit data only unless `wide` (a feature
// map; weights are the cube's inputs).
Array array_of(const py::handle& a, size_t rank, const char* fn, const char* dims, bool wide = false) {
  if (!py::isinstance<py::array>(a)) user_error("{}: give a numpy array ({}), not {}", fn, dims, type_of(a));
  py::array arr = py::reinterpret_borrow<py::array>(a);
  DType t = to_dtype(arr.dtype());
  if (dtype_size(t) > 2 && !wide)
    user_error("{}: the array is {}; the cube's weights are 16-bit data (C0 = 16 channels) or 8-bit (C0 = 32): "
               "convert it first, e.g. x.astype(numpy.float16)", fn, dtype_name(t));
  if (size_t(arr.ndim()) != rank)
    user_error("{}: give a {}-dimensional array ({}); this one has {} dimensions", fn, rank, dims, arr.ndim());
  std::vector<int64_t> shape(arr.shape(), arr.shape() + arr.ndim());
  for (int64_t d : shape)
    if (d < 1) user_error("{}: every dimension must be at least 1, the shape is {}", fn, std::string(py::str(arr.attr("shape"))));
  // Before its bytes are copied: a broadcast view of 32 GiB took no memory, and its copy crashed.
  if (std::string problem = check_tensor_bytes("array", t, shape); !problem.empty()) user_error("{}: {}", fn, problem);
  int64_t bytes = dtype_size(t);
  for (int64_t d : shape) bytes *= d;
  if (const int64_t available = available_host_memory(); available >= 0 && 3 * bytes > available)
    user_error("{}: the array's copy and the result need about {:.1f} GiB of host memory and this machine has {:.1f} GiB "
               "available; convert a smaller array, or it in parts", fn, 3 * double(bytes) / double(1 << 30),
               double(available) / double(1 << 30));
  return {t, shape, tensor_bytes(a, t, shape, std::string(fn) + "'s array")};
}

}  // namespace

void bind_layouts(py::module_& m) {
  m.def("nchw_to_nc1hwc0", [](const py::object& x) {
    Array a = array_of(x, 4, "nchw_to_nc1hwc0", "N, C, H, W", true);
    layout::FeatureMap f{a.shape[0], a.shape[1], a.shape[2], a.shape[3], c0_of(a.dtype)};
    return to_numpy(layout::nchw_to_nc1hwc0(a.bytes.data(), f, dtype_size(a.dtype)), a.dtype, {f.n, f.c1(), f.h, f.w, f.c0});
  }, py::arg("x"), R"(An NCHW feature map in NC1HWC0, the layout load3d reads: shape (N, C1, H, W, C0) with C0 = 16
(16- and 32-bit data: a convolution's f32 or s32 output and residual hold 16 channels a block too) or 32
(8-bit), C1 = ceil(C / C0), the channels past C zero.)");
  m.def("nc1hwc0_to_nchw", [](const py::object& y, int64_t channels) {
    Array a = array_of(y, 5, "nc1hwc0_to_nchw", "N, C1, H, W, C0", true);
    const int64_t c0 = c0_of(a.dtype);
    if (a.shape[4] != c0)
      user_error("nc1hwc0_to_nchw: the last dimension is C0, {} for {} data; this array's is {}", c0,
                 dtype_name(a.dtype), a.shape[4]);
    if (channels < 1 || channels > a.shape[1] * c0 || channels <= (a.shape[1] - 1) * c0)
      user_error("nc1hwc0_to_nchw: {} channels do not fill C1 = {} blocks of {}; give {} to {}", channels, a.shape[1],
                 c0, (a.shape[1] - 1) * c0 + 1, a.shape[1] * c0);
    layout::FeatureMap f{a.shape[0], channels, a.shape[2], a.shape[3], c0};
    return to_numpy(layout::nc1hwc0_to_nchw(a.bytes.data(), f, dtype_size(a.dtype)), a.dtype, {f.n, f.c, f.h, f.w});
  }, py::arg("y"), py::arg("channels"), "The NC1HWC0 array back in NCHW, with its first `channels` channels.");
  m.def("kchw_to_fractal_z", [](const py::object& w) {
    Array a = array_of(w, 4, "kchw_to_fractal_z", "Cout, Cin, KH, KW");
    layout::ConvWeights wt{a.shape[0], a.shape[1], a.shape[2], a.shape[3], 32 / dtype_size(a.dtype)};
    return to_numpy(layout::kchw_to_fractal_z(a.bytes.data(), wt, dtype_size(a.dtype)), a.dtype,
                    {wt.c1() * wt.kh * wt.kw, (wt.k + 15) / 16, 16, wt.c0});
  }, py::arg("w"), R"(Convolution weights (Cout, Cin, KH, KW) in FRACTAL_Z, the B operand of load3d's implicit GEMM:
shape (C1*KH*KW, N1, 16, C0), rows in load3d's column order (c1, kh, kw, c0), Cout padded to 16*N1.)");
}

}  // namespace cubekit::py_bind
