// Shared by the binding sources: numpy <-> tensor bytes and dtype names, and where Python's
// `json` module turns the C++ JSON text into dicts.
#pragma once

#include "emulator/chip_config.h"
#include "emulator/dtype.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace cubekit::py_bind {

namespace py = pybind11;

// A dtype from "f16" / "float16" / numpy.float16 / numpy.dtype(...); a user error otherwise.
DType to_dtype(const py::handle& h);
py::dtype numpy_dtype(DType t);

// Checks that `array` is a numpy array of `dtype` (either byte order) and `shape`, or says what is wrong
// (`what` names it); reads and copies nothing: a timing-only run's inputs (zero-stride views stay views).
void check_array(const py::handle& array, DType dtype, const std::vector<int64_t>& shape, const std::string& what);
// check_array, then the array in the host's byte order, C-contiguous (a copy when it is not).
py::array checked_array(const py::handle& array, DType dtype, const std::vector<int64_t>& shape, const std::string& what);
// numpy.zeros: its pages are mapped when first touched (a timing-only run's results are zeros).
py::array zeros_numpy(DType dtype, const std::vector<int64_t>& shape);
// The bytes of `array` as a tensor of `dtype` and `shape` (copied, C order); a user error naming
// `what` when the dtype or the shape differs.
std::vector<uint8_t> tensor_bytes(const py::handle& array, DType dtype, const std::vector<int64_t>& shape,
                                  const std::string& what);
// The same into `bytes`, already the tensor's size (GM's buffers, in huge pages: a fresh vector of
// 32 MB took 8,192 page faults to fill).
void copy_tensor_into(std::vector<uint8_t>& bytes, const py::handle& array, DType dtype, const std::vector<int64_t>& shape,
                      const std::string& what);
// A numpy array of `bytes`: copied from a vector the caller keeps, taken over (no copy: the array
// owns it) from one it gives up, when it holds exactly the array's bytes.
py::array to_numpy(const std::vector<uint8_t>& bytes, DType dtype, const std::vector<int64_t>& shape);
py::array to_numpy(std::vector<uint8_t>&& bytes, DType dtype, const std::vector<int64_t>& shape);

// A chip from None (ascend910), a preset name or JSON path, a dict (as ChipConfig.to_dict gives)
// or a ChipConfig; a user error naming `chip=` otherwise.
ChipConfig to_chip(const py::handle& chip);

// The name of h's type, for messages.
std::string type_of(const py::handle& h);

py::object json_loads(const std::string& text);
py::str as_text(const char* message);  // UTF-8, undecodable bytes replaced
std::string json_dumps(const py::handle& object);

void bind_emulator(py::module_& m);
void bind_dsl(py::module_& m);
void bind_kernels(py::module_& m);
void bind_layouts(py::module_& m);
void bind_tune(py::module_& m);

}  // namespace cubekit::py_bind
