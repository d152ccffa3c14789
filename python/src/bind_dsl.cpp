// The DSL: variables, expressions with Python operators, Inputs and Funcs with every schedule
// primitive; compiling a Func, running it, and its Halide reference.
#include "codegen/lower.h"
#include "codegen/transdata.h"
#include "dsl/func.h"
#include "dsl/host.h"
#include "emulator/error.h"
#include "emulator/simulator.h"
#include "kernels/check.h"
#include "python/src/common.h"

#include <pybind11/stl.h>

namespace cubekit::py_bind {

py::tuple run_program(const Program& p, const py::dict& inputs, const py::object& chip, int blocks, bool timing_only,
                      bool checks, int threads, const py::object& trace);

namespace {

using dsl::Expr;

Expr int_expr(const py::handle& h) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
  if (overflow || v < INT32_MIN || v > INT32_MAX)
    user_error("the integer {} does not fit in 32 bits (the DSL's integers are s32); for a floating-point constant "
               "write it as a float, e.g. {}.0", std::string(py::str(h)), std::string(py::str(h)));
  return Expr(int(v));
}

// Anything an expression can be made of: an Expr, a Var/RVar, a Python or numpy int or float.
Expr to_expr(const py::handle& h) {
  if (py::isinstance<Expr>(h)) return h.cast<Expr>();
  if (py::isinstance<dsl::Var>(h)) return Expr(h.cast<dsl::Var>());
  if (py::isinstance<dsl::RVar>(h)) return Expr(h.cast<dsl::RVar>());
  py::module_ np = py::module_::import("numpy");
  if (py::isinstance<py::bool_>(h) || py::isinstance(h, np.attr("bool_")))
    user_error("a bool is not an expression; use a comparison");
  if (py::isinstance<py::int_>(h)) return int_expr(h);
  if (py::isinstance(h, np.attr("integer"))) return int_expr(py::int_(py::reinterpret_borrow<py::object>(h)));
  if (py::isinstance<py::float_>(h) || py::isinstance(h, np.attr("floating"))) return Expr(h.cast<double>());
  user_error("{} is not an expression (an Expr, a Var, an RVar, an int or a float)", type_of(h));
}

std::vector<Expr> to_exprs(const py::handle& index) {
  std::vector<Expr> out;
  if (py::isinstance<py::tuple>(index))
    for (const py::handle& h : index) out.push_back(to_expr(h));
  else out.push_back(to_expr(index));
  return out;
}

dsl::LoopVar to_loop(const py::handle& h) {
  if (py::isinstance<dsl::Var>(h)) return h.cast<dsl::Var>();
  if (py::isinstance<dsl::RVar>(h)) return h.cast<dsl::RVar>();
  user_error("{} is not a loop variable (a Var or an RVar)", std::string(py::str(py::type::of(h).attr("__name__"))));
}

std::vector<dsl::LoopVar> to_loops(const py::iterable& loops) {
  std::vector<dsl::LoopVar> out;
  for (const py::handle& h : loops) out.push_back(to_loop(h));
  return out;
}

// Python's operators on an Expr, a Var or an RVar (which take part as Exprs): both sides of the
// arithmetic ones, comparisons (conditions for select), -e, +e and abs(e).
template <class Class>
void expression_operators(py::class_<Class>& c) {
  auto both = [&c](const char* name, const char* rname, Expr (*f)(const Expr&, const Expr&)) {
    c.def(name, [f](const py::object& a, const py::object& b) { return f(to_expr(a), to_expr(b)); }, py::is_operator());
    if (rname) c.def(rname, [f](const py::object& a, const py::object& b) { return f(to_expr(b), to_expr(a)); }, py::is_operator());
  };
  both("__add__", "__radd__", [](const Expr& a, const Expr& b) { return a + b; });
  both("__sub__", "__rsub__", [](const Expr& a, const Expr& b) { return a - b; });
  both("__mul__", "__rmul__", [](const Expr& a, const Expr& b) { return a * b; });
  both("__truediv__", "__rtruediv__", [](const Expr& a, const Expr& b) { return a / b; });
  // Integer division as Halide's / on integers: Euclidean (Python's // for a positive divisor; for a
  // negative one Halide rounds up).
  both("__floordiv__", "__rfloordiv__", [](const Expr& a, const Expr& b) {
    Expr q = a / b;
    if (q.type().boolean || is_float(q.type().dtype))
      user_error("`{}` // `{}`: // divides integers (indices); on {} use /", a.str(), b.str(), dsl::type_name(q.type()));
    return q;
  });
  both("__lt__", nullptr, [](const Expr& a, const Expr& b) { return a < b; });
  both("__le__", nullptr, [](const Expr& a, const Expr& b) { return a <= b; });
  both("__gt__", nullptr, [](const Expr& a, const Expr& b) { return a > b; });
  both("__ge__", nullptr, [](const Expr& a, const Expr& b) { return a >= b; });
  both("__eq__", nullptr, [](const Expr& a, const Expr& b) { return a == b; });
  both("__ne__", nullptr, [](const Expr& a, const Expr& b) { return a != b; });
  // What the DSL has no operator for is said so, with its spelling (Python raised a bare TypeError).
  auto none = [&c](const char* name, const char* rname, const char* what) {
    auto refuse = [what](const py::object& a, const py::object&) -> Expr {
      user_error("`{}`: {}", py::str(a).cast<std::string>(), what);
    };
    c.def(name, refuse, py::is_operator());
    if (rname) c.def(rname, refuse, py::is_operator());
  };
  const char* logic = "the DSL has no logical and, or or not of conditions: nest selects (select(a, select(b, x, y), y) is "
                      "x where a and b hold), or compare once (select(x > lo, select(x < hi, .., ..), ..))";
  none("__and__", "__rand__", logic);
  none("__or__", "__ror__", logic);
  none("__xor__", "__rxor__", logic);
  none("__mod__", "__rmod__", "the DSL has no %: write i - (i // n) * n for indices, or keep the arithmetic out of the kernel");
  none("__pow__", "__rpow__", "the DSL has no **: multiply (x * x), or exp(y * log(x)) for x > 0");
  c.def("__invert__", [logic](const py::object& a) -> Expr { user_error("`~{}`: {}", py::str(a).cast<std::string>(), logic); })
      .def("__neg__", [](const py::object& a) { return -to_expr(a); })
      .def("__pos__", [](const py::object& a) { return to_expr(a); })
      .def("__abs__", [](const py::object& a) { return dsl::abs(to_expr(a)); })
      .def("__str__", [](const py::object& a) { return to_expr(a).str(); });
}

// The schedule calls, on a Func (its own schedule) and on a Schedule value alike.
template <class T>
void schedule_methods(py::class_<T>& c) {
  c.def("split", [](T& f, const py::object& old, const py::object& outer, const py::object& inner, int64_t factor) -> T& {
        return f.split(to_loop(old), to_loop(outer), to_loop(inner), factor);
      }, py::arg("old"), py::arg("outer"), py::arg("inner"), py::arg("factor"), py::return_value_policy::reference_internal,
           "Splits loop `old` into `outer` x `inner` (inner has `factor` iterations); a partial last one is handled.")
      .def("tile", &T::tile, py::arg("x"), py::arg("y"), py::arg("xo"), py::arg("yo"), py::arg("xi"), py::arg("yi"),
           py::arg("fx"), py::arg("fy"), py::return_value_policy::reference_internal,
           R"(Splits x by fx into xo, xi and y by fy into yo, yi, and orders the four loops xi, yi, xo, yo
(innermost first, as Halide): the nest walks fx x fy tiles. A partial last tile is handled.

    C.tile(n, m, no, mo, ni, mi, 128, 128).cores([no, mo])   # 128 x 128 output tiles over the cores

Returns self, so schedules chain.)")
      .def("reorder", [](T& f, const py::args& loops) -> T& {
        return f.reorder(to_loops(loops.size() == 1 && !py::isinstance<dsl::Var>(loops[0]) && !py::isinstance<dsl::RVar>(loops[0])
                                      ? py::iterable(loops[0]) : py::iterable(loops)));
      }, py::return_value_policy::reference_internal, "Orders the named loops, innermost first (as Halide).")
      .def("cores", [](T& f, const py::iterable& loops, int64_t group) -> T& { return f.cores(to_loops(loops), group); },
           py::arg("loops"), py::arg("group") = 1, py::return_value_policy::reference_internal,
           "The iterations of these outermost loops go to the AI cores in turn; with group G, G iterations of the "
           "first of the last two at a time, serpentine (cube path).")
      .def("stage", [](T& f, const dsl::Input& in, dsl::Level level, const py::object& at) -> T& {
        return f.stage(in, level, to_loop(at));
      }, py::arg("input"), py::arg("level"), py::arg("at"), py::return_value_policy::reference_internal,
           "Copies what the loops inside `at` read of `input` into `level` (L1, L0A, L0B), once per iteration of `at`.")
      .def("cube", [](T& f, const dsl::Var& mi, const dsl::Var& ni, const py::object& ki) -> T& {
        return f.cube(mi, ni, to_loop(ki));
      }, py::arg("mi"), py::arg("ni"), py::arg("ki"), py::return_value_policy::reference_internal,
           "Maps the three innermost loops onto one mmad (the cube); the Func must be a contraction.")
      .def("store_in", &T::store_in, py::arg("level"), py::return_value_policy::reference_internal,
           "Where the result accumulates (L0C on the cube path).")
      .def("double_buffer", &T::double_buffer, py::return_value_policy::reference_internal,
           "Two copies of every staged buffer: the next fill overlaps the current use.")
      .def("multi_buffer", &T::multi_buffer, py::arg("level"), py::arg("copies"), py::return_value_policy::reference_internal,
           "`copies` copies of the buffers staged at `level`, each filled copies - 1 fills ahead of its use: the cube "
           "path's level is L1, the vector path's and a pooling's UB (their tile buffers).")
      .def("stagger", &T::stagger, py::return_value_policy::reference_internal,
           "Each output tile starts its reduction at a different L1 chunk (cores sharing a panel then share L2).")
      .def("tile_rows", &T::tile_rows, py::arg("rows"), py::return_value_policy::reference_internal,
           "Vector path: rows per UB tile (default: as many as UB holds).")
      .def("epilogue_of", &T::epilogue_of, py::arg("producer"), py::return_value_policy::reference_internal,
           "Computes this elementwise Func in the contraction `producer`'s epilogue, in UB on its way out of L0C.")
      .def("store_with", &T::store_with, py::arg("producer"), py::return_value_policy::reference_internal,
           "This Func, a convolution `producer` at every s-th row and column (F(n, k, y, x) = producer(n, k, y * s, x * s)), "
           "is written by producer's kernel as a second output: run producer with also=[this].")
      .def("flash", &T::flash, py::arg("tile_q"), py::arg("tile_kv"), py::arg("preload") = 0,
           py::return_value_policy::reference_internal,
           "This Func, softmax(S) V over a key axis in the form kernels.attention builds (S may be modified elementwise), is "
           "computed as flash attention: tile_q query rows stay on the chip while keys and values stream in tiles of tile_kv, "
           "the softmax made online. preload: key tiles the cube computes S ahead on a split chip (0: the chip's own).")
;
}

codegen::Compiled compiled(const dsl::Func& f, const py::object& chip, const py::object& schedule) {
  if (!schedule.is_none() && !py::isinstance<dsl::Schedule>(schedule))
    user_error("compile({}): schedule= takes a cubekit.Schedule (e.g. default_schedule({})), not {}", f.name(),
               f.name(), type_of(schedule));
  return schedule.is_none() ? codegen::compile(f, to_chip(chip))
                            : codegen::compile(f, schedule.cast<const dsl::Schedule&>(), to_chip(chip));
}

py::object compile_func(const dsl::Func& f, const py::object& chip, const py::object& schedule) {
  codegen::Compiled c = compiled(f, chip, schedule);
  py::list layouts;
  for (const codegen::TensorLayout& l : c.layouts) layouts.append(l.str());
  py::object p = py::cast(std::move(c.program));
  p.attr("compile_ms") = c.milliseconds;
  p.attr("layouts") = layouts;  // tensors stored otherwise than the Func shapes them (a conv's NC1HWC0, FRACTAL_Z)
  p.attr("stages") = c.stages;  // the stage graph it was lowered from, printed
  return p;
}

// The inputs keyed by name, whether given by name or by the Input itself ({X: x} as {"X": x}).
py::dict by_name(const py::dict& inputs) {
  py::dict out;
  for (const auto& [key, value] : inputs) {
    py::object name = py::isinstance<dsl::Input>(key) ? py::str(key.cast<dsl::Input>().name())
                                                       : py::reinterpret_borrow<py::object>(key);
    if (out.contains(name))
      user_error("input '{}' is given twice (by its name and as the Input); give it once", std::string(py::str(name)));
    out[name] = value;
  }
  return out;
}

// The Func's arrays by name into the program's layouts (a conv's NC1HWC0 and FRACTAL_Z: CANN's
// TransData, on the host).
// The inputs as the program's tensors hold them. Timing-only: none (the run needs no data), each
// checked against its shape in the Func (a tensor of the program without a layout is checked by the run).
py::dict to_device(const codegen::Compiled& c, const py::dict& inputs, bool timing_only) {
  py::dict out;
  for (const auto& [key, value] : inputs) {
    std::string name = py::str(key);
    const codegen::TensorLayout* l = codegen::find_layout(c.layouts, name);
    int t = c.program.tensor_index(name);
    if (timing_only && l && t >= 0) {
      check_array(value, l->dtype, l->shape(), "input '" + name + "'");
      continue;
    }
    if (!l || t < 0) {  // the run checks it (a name not in the program included)
      out[key] = value;
      continue;
    }
    std::vector<uint8_t> bytes = tensor_bytes(value, l->dtype, l->shape(), "input '" + name + "'");
    out[key] = to_numpy(l->to_device(bytes), l->dtype, c.program.tensors[size_t(t)].shape);
  }
  return out;
}

py::object to_host(const codegen::Compiled& c, const std::string& name, const py::object& array, bool timing_only) {
  const codegen::TensorLayout* l = codegen::find_layout(c.layouts, name);
  if (!l) return array;
  if (timing_only) return zeros_numpy(l->dtype, l->shape());
  const TensorDecl& d = c.program.tensors[size_t(c.program.tensor_index(name))];
  std::vector<uint8_t> bytes = l->to_host(tensor_bytes(array, d.dtype, d.shape, "output '" + name + "'"));
  return to_numpy(std::move(bytes), l->dtype, l->shape());
}

}  // namespace

void bind_dsl(py::module_& m) {
  py::enum_<dsl::Level>(m, "Level", "Buffer levels of the AI Core, for stage(), multi_buffer() and store_in().")
      .value("GM", dsl::Level::GM)
      .value("L1", dsl::Level::L1)
      .value("L0A", dsl::Level::L0A)
      .value("L0B", dsl::Level::L0B)
      .value("L0C", dsl::Level::L0C)
      .value("UB", dsl::Level::UB);

  py::class_<Expr> expr(m, "Expr", R"(An expression of the DSL. Build them with Python's operators (+ - * / and the
comparisons <, <=, >, >=, ==, != which make a condition for select()), and with cast, min, max, exp,
log, sqrt, abs, select, sum, maximum and minimum. A plain number takes the type of its partner.)");
  expr.def(py::init([](const py::object& v) { return to_expr(v); }), py::arg("value"), "An Expr from a number, Var or RVar.")
      .def_property_readonly("dtype", [](const Expr& e) { return dsl::type_name(e.type()); }, "its type ('bool' for a comparison)")
      .def("__repr__", [](const Expr& e) { return "<Expr " + e.str() + ">"; })
      .def("__bool__", [](const Expr&) -> bool {
        user_error("an Expr has no truth value: it is computed by the kernel; use select(condition, a, b)");
      });
  expression_operators(expr);
  expr.attr("__hash__") = py::none();

  // Vars and RVars take part in expressions as Exprs; they stay hashable (by identity) as names.
  py::class_<dsl::Var> var(m, "Var", "A pure loop variable, one per dimension of a Func: Var('m').");
  var.def(py::init<std::string>(), py::arg("name") = "").def_property_readonly("name", &dsl::Var::name, "the name used in messages and printed expressions");
  expression_operators(var);
  var.def("__hash__", [](const dsl::Var& v) { return std::hash<const void*>()(v.impl.get()); });
  py::class_<dsl::RVar> rvar(m, "RVar", "A reduction loop variable, made by splitting an RDom: RVar('ko').");
  rvar.def(py::init<std::string>(), py::arg("name") = "").def_property_readonly("name", &dsl::RVar::name, "the name used in messages and printed expressions");
  expression_operators(rvar);
  rvar.def("__hash__", [](const dsl::RVar& v) { return std::hash<const void*>()(v.impl.get()); });
  py::class_<dsl::RDom, dsl::RVar>(m, "RDom", R"(A reduction domain, as Halide's. RDom(0, K, 'k') is one RVar over
[min, min + extent); RDom([(0, C), (0, KH), (0, KW)], 'r') has three, r.x (innermost), r.y and r.z
(also r[0], r[1], r[2]), looped r.x innermost. sum() and the like reduce over the RVars they use.)")
      .def(py::init<int64_t, int64_t, std::string>(), py::arg("min"), py::arg("extent"), py::arg("name") = "")
      .def(py::init<std::vector<std::pair<int64_t, int64_t>>, std::string>(), py::arg("region"), py::arg("name") = "")
      .def("__getitem__", [](const dsl::RDom& r, int i) {
        if (i < 0 || i >= r.dimensions()) throw py::index_error(fmt::format("RDom {} has {} dimensions", r.name(), r.dimensions()));
        return r[i];
      }, py::arg("dimension"))
      .def("__len__", &dsl::RDom::dimensions)
      .def_property_readonly("dimensions", &dsl::RDom::dimensions, "how many RVars it has")
      .def_readonly("x", &dsl::RDom::x, "dimension 0 (the innermost)")
      .def_readonly("y", &dsl::RDom::y, "dimension 1")
      .def_readonly("z", &dsl::RDom::z, "dimension 2")
      .def_readonly("w", &dsl::RDom::w, "dimension 3");
  py::implicitly_convertible<dsl::Var, Expr>();
  py::implicitly_convertible<dsl::RVar, Expr>();

  py::class_<dsl::Input>(m, "Input", R"(A GM tensor the kernel reads, with a dtype and a static shape; index it with
[]: A[m, k]. Run-time data comes as numpy arrays of the same dtype and shape.)")
      .def(py::init([](std::string name, const py::object& dtype, std::vector<int64_t> shape) {
        return dsl::Input(std::move(name), to_dtype(dtype), std::move(shape));
      }), py::arg("name"), py::arg("dtype"), py::arg("shape"))
      .def("__getitem__", [](const dsl::Input& in, const py::object& index) { return in.call(to_exprs(index)); })
      .def_property_readonly("name", &dsl::Input::name, "the tensor's name")
      .def_property_readonly("dtype", [](const dsl::Input& in) { return std::string(dtype_name(in.dtype())); }, "its element type")
      .def_property_readonly("shape", &dsl::Input::shape, "its extents, outermost first");

  py::class_<dsl::BoundaryConditions::Exterior>(m, "Exterior", R"(An input read with a value outside its shape, made by
constant_exterior(input, value); index it as the input: E[n, c, h - 1, w - 1].)")
      .def("__getitem__", [](const dsl::BoundaryConditions::Exterior& e, const py::object& index) { return e.call(to_exprs(index)); })
      .def_property_readonly("name", &dsl::BoundaryConditions::Exterior::name, "the input's name");
  m.def("constant_exterior", [](const dsl::Input& in, double value) { return dsl::BoundaryConditions::constant_exterior(in, value); },
        py::arg("input"), py::arg("value"),
        "Halide's BoundaryConditions.constant_exterior: reads of the input outside its shape give `value` (padding).");

  py::class_<dsl::Func> func(m, "Func", R"(What to compute, defined once with [] = ...:

    C = Func("C")
    C[m, n] = sum(cast("f32", A[m, k]) * cast("f32", B[k, n]))

then scheduled with the methods below (each returns the Func, so they chain). Compile it with
compile(), run it with Func.run() or run(compile(f), inputs), check it with reference().)");
  func.def(py::init<std::string>(), py::arg("name"))
      .def("__getitem__", [](const dsl::Func& f, const py::object& index) { return Expr(dsl::FuncRef(f.impl, to_exprs(index))); },
           "A call of the Func (an Expr).")
      .def("__setitem__", [](dsl::Func& f, const py::object& index, const py::object& value) {
        dsl::FuncRef(f.impl, to_exprs(index)) = to_expr(value);
      }, "The definition: f[m, n] = expression.")
      .def_property_readonly("name", &dsl::Func::name, "the Func's name (its output tensor's)")
      .def_property_readonly("defined", &dsl::Func::defined, "whether f[...] = ... has been given")
      .def_property_readonly("dtype", [](const dsl::Func& f) { return std::string(dtype_name(f.type().dtype)); }, "the type of its definition")
      .def("shape", &dsl::Func::shape, "The extent of each variable (inferred from the inputs it indexes).")
      .def("bound", [](dsl::Func& f, const dsl::Var& v, int64_t min, int64_t extent) -> dsl::Func& { return f.bound(v, min, extent); },
           py::arg("var"), py::arg("min"), py::arg("extent"), py::return_value_policy::reference_internal,
           "Gives the extent of a variable no input implies.")
      .def_property("schedule", [](dsl::Func& f) -> dsl::Schedule& { return f.schedule(); },
                    [](dsl::Func& f, const dsl::Schedule& s) { f.schedule() = s; }, py::return_value_policy::reference_internal,
                    "The schedule written on the Func (calls on it add to it); assigning a Schedule replaces it.")
      .def("__repr__", [](const dsl::Func& f) { return "<Func " + f.name() + ">"; });
  schedule_methods(func);

  py::class_<dsl::Schedule> schedule(m, "Schedule", R"(How to compute a Func, apart from the Func: the same calls as
on a Func (split, tile, reorder, cores, stage, cube, ...), naming the Func's own Vars, checked when it
is compiled. One Func compiles with many:

    s = Schedule().tile(n, m, no, mo, ni, mi, 128, 128).cores([no, mo])
    out, report = C.run(inputs, schedule=s)      # C's own schedule is left as it is)");
  schedule.def(py::init<>())
      .def("__str__", &dsl::Schedule::str)
      .def("__repr__", [](const dsl::Schedule& s) { return "<Schedule " + (s.empty() ? std::string("(empty)") : s.str()) + ">"; })
      .def("__len__", [](const dsl::Schedule& s) { return s.directives().size(); })
      .def_property_readonly("calls", [](const dsl::Schedule& s) {
        std::vector<std::string> out;
        for (const dsl::Directive& d : s) out.push_back(d.text);
        return out;
      }, "the calls, as written");
  schedule_methods(schedule);

  m.def("cast", [](const py::object& t, const py::object& e) { return dsl::cast(to_dtype(t), to_expr(e)); }, py::arg("dtype"),
        py::arg("e"), "e converted to dtype ('f16', 'f32', 's8', 's32', or a numpy type).");
  m.def("min", [](const py::object& a, const py::object& b) { return dsl::min(to_expr(a), to_expr(b)); }, "The smaller of a and b.");
  m.def("max", [](const py::object& a, const py::object& b) { return dsl::max(to_expr(a), to_expr(b)); }, "The larger of a and b.");
  m.def("exp", [](const py::object& e) { return dsl::exp(to_expr(e)); }, "e to the power of e.");
  m.def("log", [](const py::object& e) { return dsl::log(to_expr(e)); }, "The natural logarithm.");
  m.def("sqrt", [](const py::object& e) { return dsl::sqrt(to_expr(e)); }, "The square root.");
  m.def("abs", [](const py::object& e) { return dsl::abs(to_expr(e)); }, "The absolute value.");
  m.def("select", [](const py::object& c, const py::object& t, const py::object& f) {
    return dsl::select(to_expr(c), to_expr(t), to_expr(f));
  }, py::arg("condition"), py::arg("if_true"), py::arg("if_false"), "if_true where the condition holds, if_false elsewhere.");
  m.def("sum", [](const py::object& e) { return dsl::sum(to_expr(e)); }, "The sum over the RDom the expression uses.");
  m.def("maximum", [](const py::object& e) { return dsl::maximum(to_expr(e)); }, "The maximum over the RDom the expression uses.");
  m.def("minimum", [](const py::object& e) { return dsl::minimum(to_expr(e)); }, "The minimum over the RDom the expression uses.");

  m.def("compile", &compile_func, py::arg("func"), py::arg("chip") = py::none(), py::arg("schedule") = py::none(),
        "Compiles a Func to a Program with its own schedule, or with `schedule` (its compile time in milliseconds "
        "in .compile_ms).");
  m.def("reference", [](const dsl::Func& f, const py::dict& given) {
    const py::dict inputs = by_name(given);
    std::map<std::string, std::vector<uint8_t>> bytes;
    for (const auto& in : f.inputs()) {
      if (!inputs.contains(in->name)) user_error("reference of {}: give input '{}'", f.name(), in->name);
      bytes[in->name] = tensor_bytes(inputs[py::str(in->name)], in->dtype, in->shape, "input '" + in->name + "'");
    }
    std::map<std::string, const std::vector<uint8_t>*> ptrs;
    for (const auto& [name, b] : bytes) ptrs[name] = &b;
    dsl::HostTensor t;
    {
      py::gil_scoped_release released;
      t = dsl::run_on_host(f, ptrs);
    }
    return to_numpy(std::move(t.data), t.dtype, t.shape);
  }, py::arg("func"), py::arg("inputs"), "The Func computed on the CPU by Halide, with numpy inputs by name: the golden reference.");
  func.def("run", [](const dsl::Func& f, const py::dict& inputs, const py::object& chip, bool timing_only, const py::object& trace,
                     const py::object& schedule, const std::vector<dsl::Func>& also) {
    if (!also.empty() && !schedule.is_none())
      user_error("{}.run: also= (a second output, Func.store_with) takes the Funcs' own schedules; leave schedule= out", f.name());
    std::vector<dsl::Func> outputs = {f};
    outputs.insert(outputs.end(), also.begin(), also.end());
    codegen::Compiled c = also.empty() ? compiled(f, chip, schedule) : codegen::compile(outputs, to_chip(chip));
    py::tuple r = run_program(c.program, to_device(c, by_name(inputs), timing_only), chip, 0, timing_only, true, 0, trace);
    auto is_output = [&](const std::string& name) {
      for (const dsl::Func& o : outputs)
        if (o.name() == name) return true;
      return false;
    };
    if (!c.layouts.empty()) {
      // The conversions: a 16-bit feature map's runs on the emulator as TransData (kernels::convert),
      // with the data when the run has it, and must make what the host's conversion made.
      py::list host, transdata;
      const ChipConfig on = to_chip(chip);
      for (const codegen::TensorLayout& l : c.layouts) {
        if (!codegen::transdata_on_device(l)) {
          host.append(l.str());
          continue;
        }
        const bool in = !is_output(l.tensor);
        std::vector<uint8_t> from, made;
        if (!timing_only && in && inputs.contains(l.tensor)) {
          from = tensor_bytes(inputs[py::str(l.tensor)], l.dtype, l.shape(), "input '" + l.tensor + "'");
          made = l.to_device(from);
        } else if (!timing_only && !in) {
          const TensorDecl& d = c.program.tensors[size_t(c.program.tensor_index(l.tensor))];
          from = tensor_bytes(r[0][py::str(l.tensor)], d.dtype, d.shape, "output '" + l.tensor + "'");
          made = l.to_host(from);
        }
        kernels::Conversion conversion = kernels::convert(l, in, from, made, on, {.timing_only = timing_only});
        if (!conversion.clean || !conversion.matches_host)
          throw InternalError(fmt::format("{}.run: the emulated TransData of {} {}", f.name(), l.str(),
                                          !conversion.clean ? "has diagnostics" : "differs from the host's conversion"));
        py::dict d;
        d["layout"] = l.str(), d["direction"] = in ? "in" : "out", d["cycles"] = conversion.cycles;
        d["checked"] = !from.empty();  // ran with the data, bit for bit the host's conversion
        transdata.append(d);
      }
      r[1]["host_conversions"] = host;
      r[1]["transdata"] = transdata;
    }
    py::dict more;  // also=: each second output, as the Func shapes it
    for (const dsl::Func& o : also) more[py::str(o.name())] = to_host(c, o.name(), r[0][py::str(o.name())], timing_only);
    if (!also.empty()) r[1]["also"] = more;
    return py::make_tuple(to_host(c, f.name(), r[0][py::str(f.name())], timing_only), r[1]);
  }, py::arg("inputs"), py::arg("chip") = py::none(), py::arg("timing_only") = false, py::arg("trace") = py::none(),
  py::arg("schedule") = py::none(), py::arg("also") = std::vector<dsl::Func>{},
  "Compiles (with its own schedule, or `schedule`) and runs the Func on the emulator: (result as a numpy array, report "
  "dict). also=[Ys, ..]: Funcs its kernel writes as well (Func.store_with), in report['also'] by name. timing_only=True: "
  "cycles only; the result is then zeros of its shape, not data (inputs are checked, not read).");
}

}  // namespace cubekit::py_bind
