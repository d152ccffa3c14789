// The `_cubekit` extension: errors, conversions, and the three binding groups. The pure-Python
// package `cubekit` (python/cubekit) wraps it; import that.
#include "emulator/error.h"
#include "python/src/common.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cubekit::py_bind {

DType to_dtype(const py::handle& h) {
  std::string s;
  if (py::isinstance<py::str>(h)) s = h.cast<std::string>();
  else if (py::hasattr(h, "dtype") && !py::isinstance<py::array>(h)) s = py::str(py::module_::import("numpy").attr("dtype")(h).attr("name"));
  else s = py::str(py::module_::import("numpy").attr("dtype")(h).attr("name"));
  static const std::pair<const char*, const char*> numpy_names[] = {
      {"float16", "f16"}, {"float32", "f32"}, {"int8", "s8"}, {"uint8", "u8"}, {"int16", "s16"},
      {"uint16", "u16"},  {"int32", "s32"}};
  for (auto [np, ours] : numpy_names)
    if (s == np) s = ours;
  auto t = parse_dtype(s);
  if (!t) user_error("unknown dtype '{}': use f16, f32, s8, u8, s16, u16 or s32 (or the numpy types)", s);
  return *t;
}

py::dtype numpy_dtype(DType t) {
  switch (t) {
    case DType::f16: return py::dtype("float16");
    case DType::f32: return py::dtype("float32");
    case DType::s8: return py::dtype("int8");
    case DType::u8: return py::dtype("uint8");
    case DType::s16: return py::dtype("int16");
    case DType::u16: return py::dtype("uint16");
    case DType::s32: return py::dtype("int32");
  }
  user_error("no numpy type for {}", dtype_name(t));
}

std::vector<uint8_t> tensor_bytes(const py::handle& object, DType dtype, const std::vector<int64_t>& shape,
                                  const std::string& what) {
  if (!py::isinstance<py::array>(object))
    user_error("{}: expected a numpy array, got {}", what, std::string(py::str(py::type::of(object).attr("__name__"))));
  py::array a = py::reinterpret_borrow<py::array>(object);
  if (!a.dtype().is(numpy_dtype(dtype)))
    user_error("{}: the array is {} but the tensor is {}; convert it with .astype(numpy.{})", what,
               std::string(py::str(a.dtype().attr("name"))), dtype_name(dtype),
               std::string(py::str(numpy_dtype(dtype).attr("name"))));
  std::vector<int64_t> got(a.shape(), a.shape() + a.ndim());
  if (got != shape)
    user_error("{}: the array has shape ({}) but the tensor has shape ({})", what, fmt::join(got, ", "), fmt::join(shape, ", "));
  py::array c = py::array::ensure(a, py::array::c_style);  // a copy when strided
  const auto* p = static_cast<const uint8_t*>(c.data());
  return std::vector<uint8_t>(p, p + c.nbytes());
}

py::array to_numpy(const std::vector<uint8_t>& bytes, DType dtype, const std::vector<int64_t>& shape) {
  std::vector<py::ssize_t> dims(shape.begin(), shape.end());
  py::array a(numpy_dtype(dtype), dims);
  std::memcpy(a.mutable_data(), bytes.data(), std::min<size_t>(bytes.size(), size_t(a.nbytes())));
  return a;
}

py::object json_loads(const std::string& text) { return py::module_::import("json").attr("loads")(text); }
std::string json_dumps(const py::handle& object) { return py::module_::import("json").attr("dumps")(object).cast<std::string>(); }

}  // namespace cubekit::py_bind

PYBIND11_MODULE(_cubekit, m) {
  namespace py = pybind11;
  using namespace cubekit::py_bind;
  m.doc() = "cubekit's C++ core; use the `cubekit` package, which wraps it.";
  static py::exception<cubekit::UserError> error(m, "Error");
  error.doc() = "A cubekit error: the message says what was wrong, where, and what to do.";
  static py::exception<cubekit::InternalError> internal(m, "InternalError", error.ptr());
  internal.doc() = "A broken invariant inside cubekit (a bug): please report it with the message.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const cubekit::UserError& e) {
      error(e.what());
    } catch (const cubekit::InternalError& e) {
      internal(e.what());
    }
  });
  bind_emulator(m);
  bind_dsl(m);
  bind_kernels(m);
}
