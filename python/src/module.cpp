// The `_cubekit` extension: errors, conversions, and the binding groups. The pure-Python
// package `cubekit` (python/cubekit) wraps it; import that.
#include "emulator/chip_config.h"
#include "emulator/error.h"
#include "python/src/common.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <bit>
#include <cstring>
#include <memory>
#include <utility>

namespace cubekit::py_bind {

std::string type_of(const py::handle& h) { return py::str(py::type::of(h).attr("__name__")); }

ChipConfig to_chip(const py::handle& chip) {
  if (chip.is_none()) return load_chip("ascend910");
  if (py::isinstance<ChipConfig>(chip)) return chip.cast<ChipConfig>();
  if (py::isinstance<py::str>(chip)) return load_chip(chip.cast<std::string>());
  if (py::isinstance<py::dict>(chip)) return chip_from_json(json_dumps(chip), "<dict>");
  user_error("chip: give a preset name, a JSON path, a dict or a ChipConfig, not {}", type_of(chip));
}

DType to_dtype(const py::handle& h) {
  std::string s;
  if (py::isinstance<py::str>(h)) {
    s = h.cast<std::string>();
  } else {
    try {  // numpy types and dtypes; numpy's own error for anything else is not the user's message
      s = py::str(py::module_::import("numpy").attr("dtype")(h).attr("name"));
    } catch (const py::error_already_set&) {
      user_error("unknown dtype {} (a {}): use f16, f32, s8, u8, s16, u16, s32 or bf16 (or the numpy types)",
                 std::string(py::repr(h)), type_of(h));
    }
  }
  static const std::pair<const char*, const char*> numpy_names[] = {
      {"float16", "f16"}, {"float32", "f32"}, {"int8", "s8"}, {"uint8", "u8"}, {"int16", "s16"},
      {"uint16", "u16"},  {"int32", "s32"}};
  for (auto [np, ours] : numpy_names)
    if (s == np) s = ours;
  auto t = parse_dtype(s);
  if (!t) {
    // numpy's wider types have no counterpart on the AI Core: say which one to convert to.
    static const std::pair<const char*, const char*> wider[] = {
        {"float64", "float32"}, {"longdouble", "float32"}, {"int64", "int32"}, {"uint32", "int32"}, {"uint64", "int32"}};
    for (auto [np, to] : wider)
      if (s == np)
        user_error("{} has no AI Core type: cubekit's are f16, f32, s8, u8, s16, u16, s32 and bf16 (numpy's float16, "
                   "float32, int8, uint8, int16, uint16, int32); convert the array with .astype(numpy.{})", s, to);
    user_error("unknown dtype '{}': use f16, f32, s8, u8, s16, u16, s32 or bf16 (numpy's float16, float32, int8, uint8, "
               "int16, uint16, int32)", s);
  }
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
    case DType::bf16: return py::dtype("uint16");  // numpy has no bfloat16: its bit patterns
  }
  user_error("no numpy type for {}", dtype_name(t));
}

namespace {
// A '>f2' array on a little-endian host holds float16 too, in the other byte order.
bool other_byte_order(const py::array& a, DType dtype) {
  return a.dtype().attr("byteorder").cast<std::string>() == (std::endian::native == std::endian::little ? ">" : "<") &&
         a.dtype().attr("newbyteorder")("=").equal(numpy_dtype(dtype));
}
}  // namespace

void check_array(const py::handle& object, DType dtype, const std::vector<int64_t>& shape, const std::string& what) {
  if (!py::isinstance<py::array>(object))
    user_error("{}: expected a numpy array, got {}", what, type_of(object));
  py::array a = py::reinterpret_borrow<py::array>(object);
  if (!other_byte_order(a, dtype) && !a.dtype().equal(numpy_dtype(dtype))) {
    if (dtype == DType::bf16)
      user_error("{}: the array is {} but the tensor is bf16, which numpy lacks: pass its bit patterns as numpy.uint16, "
                 "e.g. cubekit.bf16_from_float32(array)",
                 what, std::string(py::str(a.dtype().attr("name"))));
    user_error("{}: the array is {} but the tensor is {}; convert it with .astype(numpy.{})", what,
               std::string(py::str(a.dtype().attr("name"))), dtype_name(dtype),
               std::string(py::str(numpy_dtype(dtype).attr("name"))));
  }
  std::vector<int64_t> got(a.shape(), a.shape() + a.ndim());
  if (got != shape)
    user_error("{}: the array has shape ({}) but the tensor has shape ({})", what, fmt::join(got, ", "), fmt::join(shape, ", "));
}

py::array checked_array(const py::handle& object, DType dtype, const std::vector<int64_t>& shape, const std::string& what) {
  check_array(object, dtype, shape, what);
  py::array a = py::reinterpret_borrow<py::array>(object);
  if (other_byte_order(a, dtype)) a = a.attr("astype")(numpy_dtype(dtype));  // converted, as strided arrays are copied
  return py::array::ensure(a, py::array::c_style);  // a copy when strided
}

std::vector<uint8_t> tensor_bytes(const py::handle& object, DType dtype, const std::vector<int64_t>& shape,
                                  const std::string& what) {
  py::array c = checked_array(object, dtype, shape, what);
  const auto* p = static_cast<const uint8_t*>(c.data());
  return std::vector<uint8_t>(p, p + c.nbytes());
}

void copy_tensor_into(std::vector<uint8_t>& bytes, const py::handle& object, DType dtype, const std::vector<int64_t>& shape,
                      const std::string& what) {
  py::array c = checked_array(object, dtype, shape, what);
  CUBEKIT_ASSERT(bytes.size() == size_t(c.nbytes()), "{}: a buffer of {} bytes for an array of {}", what, bytes.size(), c.nbytes());
  std::memcpy(bytes.data(), c.data(), bytes.size());
}

py::array zeros_numpy(DType dtype, const std::vector<int64_t>& shape) {
  py::tuple dims(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) dims[i] = py::int_(shape[i]);
  return py::module_::import("numpy").attr("zeros")(dims, numpy_dtype(dtype));
}

py::array to_numpy(const std::vector<uint8_t>& bytes, DType dtype, const std::vector<int64_t>& shape) {
  std::vector<py::ssize_t> dims(shape.begin(), shape.end());
  py::array a(numpy_dtype(dtype), dims);
  std::memcpy(a.mutable_data(), bytes.data(), std::min<size_t>(bytes.size(), size_t(a.nbytes())));
  return a;
}

py::array to_numpy(std::vector<uint8_t>&& bytes, DType dtype, const std::vector<int64_t>& shape) {
  int64_t elements = 1;
  for (int64_t e : shape) elements *= e;
  if (bytes.empty() || bytes.size() != size_t(elements * dtype_size(dtype))) return to_numpy(std::as_const(bytes), dtype, shape);
  auto owned = std::make_unique<std::vector<uint8_t>>(std::move(bytes));
  py::capsule free_when_done(owned.get(), [](void* v) { delete static_cast<std::vector<uint8_t>*>(v); });
  uint8_t* data = owned.release()->data();  // the capsule's now
  std::vector<py::ssize_t> dims(shape.begin(), shape.end());
  return py::array(numpy_dtype(dtype), dims, data, free_when_done);
}

py::str as_text(const char* message) {
  // A message quoting the user's bytes may not be valid UTF-8; keep it readable rather than empty.
  return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(message, Py_ssize_t(std::strlen(message)), "replace"));
}

py::object json_loads(const std::string& text) { return py::module_::import("json").attr("loads")(text); }
std::string json_dumps(const py::handle& object) {
  try {
    return py::module_::import("json").attr("dumps")(object, py::arg("allow_nan") = false).cast<std::string>();
  } catch (py::error_already_set& e) {
    // Python writes NaN and Infinity, which are no JSON: say which, not "not valid JSON".
    if (!e.matches(PyExc_ValueError)) throw;
    user_error("<dict>: a value is NaN or infinite ({}); a chip's figures are finite numbers", e.value().attr("args")[py::int_(0)].cast<std::string>());
  }
}

}  // namespace cubekit::py_bind

PYBIND11_MODULE(_cubekit, m) {
  namespace py = pybind11;
  using namespace cubekit::py_bind;
  m.doc() = "cubekit's C++ core; use the `cubekit` package, which wraps it.";
  m.attr("__version__") = CUBEKIT_VERSION;  // the project's (CMakeLists.txt), as `cubekit --version` says
  static py::exception<cubekit::UserError> error(m, "Error");
  error.doc() = "A cubekit error: the message says what was wrong, where, and what to do.";
  static py::exception<cubekit::InternalError> internal(m, "InternalError", error.ptr());
  internal.doc() = "A broken invariant inside cubekit (a bug): please report it with the message.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const cubekit::UserError& e) {
      PyErr_SetObject(error.ptr(), as_text(e.what()).ptr());
    } catch (const cubekit::InternalError& e) {
      PyErr_SetObject(internal.ptr(), as_text(e.what()).ptr());
    }
  });
  bind_emulator(m);
  bind_dsl(m);
  bind_kernels(m);
  bind_layouts(m);
  bind_tune(m);
}
