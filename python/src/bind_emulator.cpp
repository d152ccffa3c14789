// Chips, programs (text, builder, printing) and running them on the emulator with numpy arrays.
#include "emulator/error.h"
#include "emulator/report.h"
#include "emulator/rounding.h"
#include "emulator/simulator.h"
#include "python/src/common.h"

#include <pybind11/stl.h>

#include <fstream>

namespace cubekit::py_bind {

namespace {

TensorRole role_of(const std::string& r) {
  if (r == "in") return TensorRole::In;
  if (r == "out") return TensorRole::Out;
  if (r == "inout") return TensorRole::InOut;
  if (r == "workspace") return TensorRole::Workspace;
  user_error("tensor role must be 'in', 'out', 'inout' or 'workspace', got '{}'", r);
}

py::list tensors_of(const Program& p) {
  py::list out;
  for (const TensorDecl& t : p.tensors) {
    py::dict d;
    d["name"] = t.name, d["dtype"] = std::string(dtype_name(t.dtype)), d["shape"] = t.shape;
    d["role"] = std::string(role_name(t.role));
    out.append(d);
  }
  return out;
}

}  // namespace

// Runs a program: the `in`/`inout` tensors from `inputs` (numpy arrays by name), the outputs
// back as numpy arrays, the report as a dict.
// With the run's bounds (max_work, max_trace_events, max_steps: see SimOptions).
py::tuple run_bounded(const Program& p, const py::dict& inputs, const py::object& chip_obj, int blocks, bool timing_only,
                      bool checks, int threads, const py::object& trace, int64_t max_work, int64_t max_trace_events,
                      int64_t max_steps) {
  if (blocks < 0) user_error("run: blocks must be 0 (the program's block_dim, {}) or more, got {}", p.block_dim, blocks);
  if (threads < 0) user_error("run: threads must be 0 (one per host core) or more, got {}", threads);
  if (max_work < 1) user_error("run: max_work must be positive, got {}", max_work);
  if (max_trace_events < 1) user_error("run: max_trace_events must be positive, got {}", max_trace_events);
  if (max_steps < 1) user_error("run: max_steps must be positive, got {}", max_steps);
  ChipConfig chip = to_chip(chip_obj);
  // Timing-only: no bytes at all (timing never reads data); inputs are still checked, not copied.
  GlobalMemory gm = timing_only ? GlobalMemory::shape_only(p) : GlobalMemory::for_program(p);
  for (const auto& [key, value] : inputs) {
    std::string name = py::str(key);
    int t = p.tensor_index(name);
    if (t < 0) {
      std::string names;
      for (const TensorDecl& d : p.tensors) names += (names.empty() ? "" : ", ") + d.name;
      user_error("input '{}' is not a tensor of {} (its tensors: {})", name, p.name, names);
    }
    const TensorDecl& d = p.tensors[size_t(t)];
    if (!given_by_host(d.role))
      user_error("input '{}': {} is {} of {}; give only in and inout tensors", name, name,
                 d.role == TensorRole::Out ? "an output" : "a workspace", p.name);
    if (timing_only) check_array(value, d.dtype, d.shape, "input '" + name + "'");
    else copy_tensor_into(gm.data[size_t(t)], value, d.dtype, d.shape, "input '" + name + "'");
  }
  if (!timing_only)
    for (const TensorDecl& d : p.tensors)
      if (given_by_host(d.role) && !inputs.contains(d.name))
        user_error("{} reads tensor '{}' ({}, shape [{}]): give it in inputs", p.name, d.name, dtype_name(d.dtype),
                   fmt::join(d.shape, ", "));
  std::string trace_path = trace.is_none() ? "" : py::str(trace).cast<std::string>();
  SimResult result;
  {
    py::gil_scoped_release released;
    result = simulate(chip, p, gm, {.blocks = blocks, .timing_only = timing_only, .checks = checks, .trace = !trace_path.empty(),
                                    .threads = threads, .max_steps = max_steps, .max_work = max_work,
                                    .max_trace_events = max_trace_events});
    if (!trace_path.empty()) write_trace(trace_path, result, p, chip);
  }
  py::dict outputs;
  for (size_t t = 0; t < p.tensors.size(); ++t)
    if (p.tensors[t].role == TensorRole::Out || p.tensors[t].role == TensorRole::InOut)
      outputs[py::str(p.tensors[t].name)] = timing_only ? zeros_numpy(p.tensors[t].dtype, p.tensors[t].shape)
                                                         : to_numpy(std::move(gm.data[t]), p.tensors[t].dtype, p.tensors[t].shape);
  return py::make_tuple(outputs, json_loads(report_json(result.report, p)));
}

py::tuple run_program(const Program& p, const py::dict& inputs, const py::object& chip, int blocks, bool timing_only,
                      bool checks, int threads, const py::object& trace) {
  return run_bounded(p, inputs, chip, blocks, timing_only, checks, threads, trace, kDefaultMaxWork,
                     kDefaultMaxTraceEvents, kDefaultMaxSteps);
}

void bind_emulator(py::module_& m) {
  py::class_<ChipConfig>(m, "ChipConfig", R"(A chip's parameters: cores, buffer sizes, alignments, event ids, cube
fractals and the timing model's rates and latencies. Make one with `chip(name)`, change it through
its dict, and pass it wherever a chip is taken.)")
      .def_readonly("name", &ChipConfig::name, "the preset's name")
      .def_readonly("cores", &ChipConfig::cores, "AI cores")
      .def_readonly("clock_mhz", &ChipConfig::clock_mhz, "the clock the report's times assume")
      .def("to_json", [](const ChipConfig& c) { return chip_to_json(c); }, "The chip as JSON text (what `cubekit chips --json` prints).")
      .def("to_dict", [](const ChipConfig& c) { return json_loads(chip_to_json(c)); }, "The chip as a dict of its JSON.")
      .def_static("from_json", [](const std::string& text) { return chip_from_json(text, "<python>"); }, py::arg("text"),
                  "A chip from JSON text; every field is checked, with its name in the error.")
      .def_static("from_dict", [](const py::dict& d) { return chip_from_json(json_dumps(d), "<dict>"); }, py::arg("d"),
                  "A chip from a dict (as to_dict gives).")
      .def("__repr__", [](const ChipConfig& c) { return fmt::format("<ChipConfig {}: {} cores at {} MHz>", c.name, c.cores, c.clock_mhz); });
  m.def("chips", [] {
    std::vector<std::string> names;
    for (const ChipConfig& c : chip_presets()) names.push_back(c.name);
    return names;
  }, "The names of the chip presets.");
  m.def("chip", [](const py::object& chip) { return to_chip(chip); }, py::arg("name") = "ascend910",
        "A chip preset by name, a chip JSON file by path, or a chip from a dict (as ChipConfig.to_dict gives).");

  py::class_<Program>(m, "Program", py::dynamic_attr(), R"(A kernel for the AI Core: its tensors (GM), block_dim
and instructions. Make one with `assemble(text)`, a `Builder`, or `compile(func)`; print it with
str() or `.text()`; run it with `run(program, inputs)`.)")
      .def_readonly("name", &Program::name, "the kernel's name")
      .def_readonly("block_dim", &Program::block_dim, "how many cores (blocks) it launches on")
      .def_property_readonly("tensors", &tensors_of, "its GM tensors: dicts of name, dtype, shape, role")
      .def("text", [](const Program& p) { return print_program(p); }, "The program in cubekit's assembly text.")
      .def("save", [](const Program& p, const std::string& path) {
        std::ofstream out(path);
        if (!out) user_error("cannot write '{}'", path);
        out << print_program(p);
      }, py::arg("path"), "Writes the assembly text to a file (what `cubekit run` reads).")
      .def("__len__", [](const Program& p) { return p.code.size(); }, "The number of instructions.")
      .def("__str__", [](const Program& p) { return print_program(p); })
      .def("__repr__", [](const Program& p) { return fmt::format("<Program {}: {} instructions, block_dim {}>", p.name, p.code.size(), p.block_dim); });
  m.def(
      "assemble",
      [](const std::string& text, const std::string& source) {
        Program p = parse_program(text, source);
        if (source != "<python>") p.source = source;  // where its run's diagnostics point, as load()'s
        return p;
      },
      py::arg("text"), py::arg("source") = "<python>",
      "A program from assembly text; errors, and its run's diagnostics, name `source`'s line (and column).");
  m.def("load", [](const std::string& path) { return load_program(path); }, py::arg("path"), "A program from a .s file.");
  m.def("run", &run_bounded, py::arg("program"), py::arg("inputs") = py::dict(), py::arg("chip") = py::none(),
        py::arg("blocks") = 0, py::arg("timing_only") = false, py::arg("checks") = true, py::arg("threads") = 0,
        py::arg("trace") = py::none(), py::arg("max_work") = kDefaultMaxWork,
        py::arg("max_trace_events") = kDefaultMaxTraceEvents, py::arg("max_steps") = kDefaultMaxSteps,
        R"(Runs a program on the emulator.

inputs: numpy arrays by tensor name for every `in` and `inout` tensor (dtype and shape must match).
chip: a preset name, a JSON path, a dict or a ChipConfig (default ascend910).
blocks: how many blocks to launch (0: the program's block_dim). timing_only: cycles only, no data
(the outputs returned are then zeros of their shapes, not results).
checks: the race, initialisation and synchronisation checks. trace: a path for a Chrome trace.
max_work: work units over the whole run before it stops with an error (a unit is about one scalar
instruction of host time; report["work"] says what a run used). max_trace_events: the trace's bound.
max_steps: scalar instructions a block may run before the run stops as a hang (a diagnostic).
Returns (outputs, report): the `out`/`inout` tensors as numpy arrays by name, and the report
(cycles, per-pipe ratios, bytes, roofline, hot spots, diagnostics) as a dict.)");

  py::class_<Arg>(m, "Operand", "One operand for Builder.emit: make it with x, imm, num, mem, name, mask_*, kw or flag.")
      .def("__repr__", [](const Arg& a) { return fmt::format("<Operand {}>", a.key.empty() ? a.name : a.key); });
  // numpy has no bfloat16: bf16 tensors take and give uint16 arrays of bit patterns; these convert,
  // with the emulator's own rounding (to nearest even), so Python and C++ agree bit for bit.
  m.def("bf16_from_float32", [](py::array_t<float, py::array::c_style | py::array::forcecast> a) {
    py::array_t<uint16_t> out(a.request().shape);
    const float* in = a.data();
    uint16_t* o = out.mutable_data();
    for (py::ssize_t i = 0; i < a.size(); ++i) o[i] = f32_to_bf16(in[i]);
    return out;
  }, py::arg("values"), "bf16 bit patterns (numpy.uint16) of float32 values, rounded to nearest even.");
  m.def("bf16_to_float32", [](const py::array& given) {
    // forcecast would read float values as bit patterns (1.0 as 0x0001, a denormal): bits are integers.
    const char kind = given.dtype().kind();
    const std::string dtype = py::str(given.dtype().attr("name"));
    if (kind != 'u' && kind != 'i')
      user_error("bf16_to_float32: bits must be bf16 bit patterns, an array of integers (numpy.uint16, as "
                 "bf16_from_float32 gives), got a {} array; for float values to bf16, use bf16_from_float32",
                 dtype);
    py::array_t<int64_t, py::array::c_style | py::array::forcecast> wide(given);
    for (py::ssize_t i = 0; i < wide.size(); ++i)
      if (wide.data()[i] < 0 || wide.data()[i] > 0xffff)
        user_error("bf16_to_float32: bits must be 16-bit patterns, 0..65535; element {} of the {} array is {}", i, dtype,
                   wide.data()[i]);
    py::array_t<uint16_t, py::array::c_style | py::array::forcecast> a(given);
    py::array_t<float> out(a.request().shape);
    const uint16_t* in = a.data();
    float* o = out.mutable_data();
    for (py::ssize_t i = 0; i < a.size(); ++i) o[i] = bf16_to_f32(in[i]);
    return out;
  }, py::arg("bits"), "float32 values of bf16 bit patterns (numpy.uint16); exact.");
  m.def("x", &x, py::arg("reg"), "Scalar register x<reg>.");
  m.def("imm", &imm, py::arg("value"), "An integer.");
  m.def("num", &num, py::arg("value"), "A number (a vector instruction's scalar).");
  m.def("mem", py::overload_cast<std::string_view, int64_t>(&mem), py::arg("space_or_tensor"), py::arg("offset"),
        "A memory operand at a constant byte offset: mem('ub', 256), mem('A', 0).");
  m.def("mem", py::overload_cast<std::string_view, const Arg&, int64_t>(&mem), py::arg("space_or_tensor"), py::arg("base"),
        py::arg("offset") = 0, "A memory operand at a register plus an offset: mem('ub', x(3), 32).");
  m.def("name", &name, py::arg("symbol"), "A label, pipe, or enumerated value (e.g. 'MTE2', 'loop').");
  m.def("mask_count", &mask_count, py::arg("n"), "Vector mask: the first n elements of each repeat.");
  m.def("mask_bits", &mask_bits, py::arg("hi"), py::arg("lo"), "Vector mask: bit i = element i.");
  m.def("mask_counter", &mask_counter, py::arg("n"), "Vector mask: n elements in all, the repeats derived.");
  m.def("kw", &kw, py::arg("key"), py::arg("value"), "A keyword operand: kw('repeat', imm(4)).");
  m.def("flag", &flag, py::arg("key"), "A flag operand: flag('init').");

  py::class_<ProgramBuilder>(m, "Builder", R"(Builds a program instruction by instruction, checked against the ISA
table as in the assembler:

    b = Builder("add")
    b.tensor("X", "f16", [128], "in"); b.tensor("Y", "f16", [128], "out")
    b.emit("copy_gm_ub", mem("ub", 0), mem("X", 0), kw("len", imm(8)))
    ...
    program = b.finish())")
      .def(py::init<std::string>(), py::arg("kernel_name"))
      .def("tensor", [](ProgramBuilder& b, std::string n, const py::object& dtype, std::vector<int64_t> shape, const std::string& role) {
        return b.tensor(std::move(n), to_dtype(dtype), std::move(shape), role_of(role));
      }, py::arg("name"), py::arg("dtype"), py::arg("shape"), py::arg("role") = "in", "Declares a GM tensor: 'in' (given), 'out' (returned), 'inout' (both) or 'workspace' (the kernel's own GM scratch: neither given nor returned).")
      .def("block_dim", &ProgramBuilder::block_dim, py::arg("n"), "How many blocks the kernel launches.")
      .def("label", &ProgramBuilder::label, py::arg("name"), "Names the next instruction emitted (a branch target).")
      .def("emit", [](ProgramBuilder& b, const std::string& mnemonic, const py::args& args) {
        std::vector<Arg> ops;
        for (const py::handle& a : args) {
          if (!py::isinstance<Arg>(a))
            user_error("{}: operand {} is a {} ({}); make operands with x(), imm(), num(), mem(), name(), mask_*(), kw() "
                       "or flag()", mnemonic, ops.size() + 1, type_of(a), std::string(py::repr(a)));
          ops.push_back(a.cast<Arg>());
        }
        return b.emit(mnemonic, ops);
      }, py::arg("mnemonic"), "Appends one instruction (mnemonic with its .type suffixes, then operands); returns its index.")
      .def("__len__", &ProgramBuilder::size)
      .def("finish", [](ProgramBuilder& b) { return b.finish(); }, "The program, with its labels resolved.");
}

}  // namespace cubekit::py_bind
