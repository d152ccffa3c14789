// The ready kernels as Funcs (kernels::matmul, conv2d, attention, pool2d, vector_kernel); cubekit/kernels.py turns
// them into one-call functions on numpy arrays.
#include "emulator/error.h"
#include "kernels/attention.h"
#include "kernels/conv.h"
#include "kernels/matmul.h"
#include "kernels/pool.h"
#include "kernels/vector.h"
#include "python/src/common.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

namespace cubekit::py_bind {

namespace {

// A tuned schedule as Python sees it in a report.
py::object tuned_dict(const std::optional<tune::Tuned>& t) {
  if (!t) return py::none();
  py::dict d;
  d["database"] = t->database;
  d["params"] = py::cast(t->best.params);
  d["cycles_when_tuned"] = t->best.cycles;
  d["default_cycles"] = t->best.default_cycles;
  d["strategy"] = t->best.strategy;
  d["evaluated"] = t->best.evaluated;
  return d;
}

// MatmulOptions and VectorOptions name their schedules alike.
template <class Options>
std::string schedule_name(const Options& o) {
  return o.schedule == Options::Schedule::Naive ? "naive" : "default";
}

template <class Options>
void set_schedule(Options& o, const std::string& s) {
  if (s != "default" && s != "naive") user_error("schedule must be 'default' or 'naive', got '{}'", s);
  o.schedule = s == "naive" ? Options::Schedule::Naive : Options::Schedule::Default;
}

}  // namespace

void bind_kernels(py::module_& m) {
  using kernels::MatmulOptions;
  using kernels::VectorOptions;
  py::class_<MatmulOptions> mo(m, "MatmulOptions", "What kernels.matmul_func builds: shape, types, layout, schedule, epilogue.");
  mo.def(py::init<>())
      .def_readwrite("use_tuned", &MatmulOptions::use_tuned, "take the tuning database's schedule for this problem when it has one (and no override is set)")
      .def_readwrite("m", &MatmulOptions::m)
      .def_readwrite("n", &MatmulOptions::n)
      .def_readwrite("k", &MatmulOptions::k)
      .def_readwrite("batch", &MatmulOptions::batch, "0: no batch dimension")
      .def_property("dtype", [](const MatmulOptions& o) { return std::string(dtype_name(o.in)); },
                    [](MatmulOptions& o, const py::object& t) { o.in = to_dtype(t); }, "input type: f16 or s8")
      .def_property("out", [](const MatmulOptions& o) { return std::string(dtype_name(o.out)); },
                    [](MatmulOptions& o, const py::object& t) { o.out = to_dtype(t); }, "result type")
      .def_readwrite("transpose_a", &MatmulOptions::transpose_a)
      .def_readwrite("transpose_b", &MatmulOptions::transpose_b)
      .def_property("schedule", &schedule_name<MatmulOptions>, &set_schedule<MatmulOptions>, "'default' or 'naive'")
      .def_readwrite("tm", &MatmulOptions::tm)
      .def_readwrite("tn", &MatmulOptions::tn)
      .def_readwrite("tk_l0", &MatmulOptions::tk_l0)
      .def_readwrite("tk_l1", &MatmulOptions::tk_l1)
      .def_readwrite("core_group", &MatmulOptions::core_group)
      .def_readwrite("l1_copies", &MatmulOptions::l1_copies)
      .def_readwrite("double_buffer", &MatmulOptions::double_buffer)
      .def_readwrite("use_cores", &MatmulOptions::use_cores)
      .def_readwrite("stagger", &MatmulOptions::stagger)
      .def_readwrite("epilogue", &MatmulOptions::epilogue, "fused: 'bias', 'scale', 'relu', 'gelu', applied in the order listed")
      .def_readwrite("scale", &MatmulOptions::scale);
  m.def("matmul_func", [](const MatmulOptions& o, const ChipConfig& chip) {
    kernels::Matmul mm = kernels::matmul(o, chip);
    py::list inputs;
    inputs.append(py::cast(mm.a)), inputs.append(py::cast(mm.b));
    if (mm.bias) inputs.append(py::cast(*mm.bias));
    return py::make_tuple(mm.out, inputs, tuned_dict(mm.tuned));
  }, py::arg("options"), py::arg("chip"),
  "The matmul Func to compile, its Inputs (A, B[, bias]) and the tuned schedule it took (a dict) or None.");

  m.def("default_schedule", [](const dsl::Func& f, const py::object& chip, const MatmulOptions& o) {
    return kernels::default_schedule(f, to_chip(chip), o);
  }, py::arg("func"), py::arg("chip"), py::arg("options"), "kernels::default_schedule: use cubekit.default_schedule.");

  using kernels::Conv2dOptions;
  py::class_<Conv2dOptions>(m, "Conv2dOptions", "What kernels.conv2d builds: shapes, geometry, types, schedule, epilogue.")
      .def(py::init<>())
      .def_readwrite("use_tuned", &Conv2dOptions::use_tuned, "take the tuning database's schedule for this problem when it has one (and no override is set)")
      .def_readwrite("n", &Conv2dOptions::n)
      .def_readwrite("c", &Conv2dOptions::c)
      .def_readwrite("h", &Conv2dOptions::h)
      .def_readwrite("w", &Conv2dOptions::w)
      .def_readwrite("k", &Conv2dOptions::k)
      .def_readwrite("kh", &Conv2dOptions::kh)
      .def_readwrite("kw", &Conv2dOptions::kw)
      .def_readwrite("stride", &Conv2dOptions::stride)
      .def_readwrite("pad", &Conv2dOptions::pad)
      .def_readwrite("dilation", &Conv2dOptions::dilation)
      .def_readwrite("stride_w", &Conv2dOptions::stride_w, "0: as stride")
      .def_readwrite("pad_w", &Conv2dOptions::pad_w, "-1: as pad")
      .def_readwrite("dilation_w", &Conv2dOptions::dilation_w, "0: as dilation")
      .def_readwrite("groups", &Conv2dOptions::groups)
      .def_property("dtype", [](const Conv2dOptions& o) { return std::string(dtype_name(o.in)); },
                    [](Conv2dOptions& o, const py::object& t) { o.in = to_dtype(t); }, "input type: f16, bf16 or s8")
      .def_property("out", [](const Conv2dOptions& o) { return std::string(dtype_name(o.out)); },
                    [](Conv2dOptions& o, const py::object& t) { o.out = to_dtype(t); }, "result type")
      .def_property("schedule", &schedule_name<Conv2dOptions>, &set_schedule<Conv2dOptions>, "'default' or 'naive'")
      .def_readwrite("rows", &Conv2dOptions::rows, "output rows per tile (0: choose)")
      .def_readwrite("tn", &Conv2dOptions::tn, "output channels per tile (0: choose)")
      .def_readwrite("channels", &Conv2dOptions::channels, "input channels per L1 fill (0: choose)")
      .def_readwrite("l1_copies", &Conv2dOptions::l1_copies)
      .def_readwrite("images", &Conv2dOptions::images, "whole images stacked per tile (0: choose, 1: one per tile)")
      .def_readwrite("double_buffer", &Conv2dOptions::double_buffer)
      .def_readwrite("use_cores", &Conv2dOptions::use_cores)
      .def_readwrite("epilogue", &Conv2dOptions::epilogue, "fused: 'bn', 'residual', 'relu', applied in the order listed")
      .def_readwrite("subsampled", &Conv2dOptions::subsampled,
                     "> 1: also write the result at every subsampled-th row and column (a second output, Ys)");
  m.def("conv2d_func", [](const Conv2dOptions& o, const ChipConfig& chip) {
    kernels::Conv2d cv = kernels::conv2d(o, chip);
    py::list inputs;
    inputs.append(py::cast(cv.x)), inputs.append(py::cast(cv.w));
    for (const auto& i : {cv.scale, cv.shift, cv.residual})
      if (i) inputs.append(py::cast(*i));
    return py::make_tuple(cv.out, inputs, cv.sub ? py::cast(*cv.sub) : py::none(), tuned_dict(cv.tuned));
  }, py::arg("options"), py::arg("chip"),
  "The conv2d Func to compile, its Inputs (X, W[, scale, shift][, R]), its second output (options.subsampled) or None, "
  "and the tuned schedule it took or None.");

  using kernels::Pool2dOptions;
  py::class_<Pool2dOptions>(m, "Pool2dOptions", "What kernels.max_pool2d / avg_pool2d / adaptive_avg_pool2d build.")
      .def(py::init<>())
      .def_property("kind", [](const Pool2dOptions& o) { return o.kind == Pool2dOptions::Kind::Max ? "max" : "avg"; },
                    [](Pool2dOptions& o, const std::string& k) {
                      if (k != "max" && k != "avg") user_error("Pool2dOptions.kind must be 'max' or 'avg', got '{}'", k);
                      o.kind = k == "max" ? Pool2dOptions::Kind::Max : Pool2dOptions::Kind::Avg;
                    }, "'max' or 'avg'")
      .def_readwrite("global_", &Pool2dOptions::global, "the average over the whole map (a 1 x 1 output)")
      .def_readwrite("n", &Pool2dOptions::n)
      .def_readwrite("c", &Pool2dOptions::c)
      .def_readwrite("h", &Pool2dOptions::h)
      .def_readwrite("w", &Pool2dOptions::w)
      .def_readwrite("kh", &Pool2dOptions::kh)
      .def_readwrite("kw", &Pool2dOptions::kw, "0: as kh")
      .def_readwrite("stride", &Pool2dOptions::stride, "0: the window")
      .def_readwrite("stride_w", &Pool2dOptions::stride_w, "0: as stride")
      .def_readwrite("pad", &Pool2dOptions::pad)
      .def_readwrite("pad_w", &Pool2dOptions::pad_w, "-1: as pad")
      .def_readwrite("dilation", &Pool2dOptions::dilation)
      .def_readwrite("dilation_w", &Pool2dOptions::dilation_w, "0: as dilation")
      .def_property("dtype", [](const Pool2dOptions& o) { return std::string(dtype_name(o.dtype)); },
                    [](Pool2dOptions& o, const py::object& t) { o.dtype = to_dtype(t); }, "f16 or f32")
      .def_property("schedule", &schedule_name<Pool2dOptions>, &set_schedule<Pool2dOptions>, "'default' or 'naive'")
      .def_readwrite("rows", &Pool2dOptions::rows, "output rows per tile (0: choose)")
      .def_readwrite("double_buffer", &Pool2dOptions::double_buffer)
      .def_readwrite("use_cores", &Pool2dOptions::use_cores);
  m.def("pool2d_func", [](const Pool2dOptions& o, const ChipConfig& chip) {
    kernels::Pool2d p = kernels::pool2d(o, chip);
    py::list inputs;
    inputs.append(py::cast(p.x));
    return py::make_tuple(p.out, inputs);
  }, py::arg("options"), py::arg("chip"), "The pooling Func to compile and its Input (X).");

  py::class_<VectorOptions>(m, "VectorOptions", "What kernels.vector_func builds: shape, types, schedule.")
      .def(py::init<>())
      .def_readwrite("use_tuned", &VectorOptions::use_tuned, "take the tuning database's schedule for this problem when it has one (and no override is set)")
      .def_readwrite("shape", &VectorOptions::shape)
      .def_property("dtype", [](const VectorOptions& o) { return std::string(dtype_name(o.dtype)); },
                    [](VectorOptions& o, const py::object& t) { o.dtype = to_dtype(t); })
      .def_property("to", [](const VectorOptions& o) { return std::string(dtype_name(o.to)); },
                    [](VectorOptions& o, const py::object& t) { o.to = to_dtype(t); }, "cast: the result type")
      .def_readwrite("eps", &VectorOptions::eps)
      .def_property("schedule", &schedule_name<VectorOptions>, &set_schedule<VectorOptions>, "'default' or 'naive'")
      .def_readwrite("tile_rows", &VectorOptions::tile_rows)
      .def_readwrite("copies", &VectorOptions::copies)
      .def_readwrite("double_buffer", &VectorOptions::double_buffer)
      .def_readwrite("use_cores", &VectorOptions::use_cores)
      .def_readwrite("y_shape", &VectorOptions::y_shape, "binary kernels: Y's shape, broadcast with X's (empty: X's)")
      .def_property("y_dtype", [](const VectorOptions& o) -> py::object {
        return o.y_dtype ? py::object(py::str(std::string(dtype_name(*o.y_dtype)))) : py::object(py::none());
      }, [](VectorOptions& o, const py::object& t) {
        o.y_dtype = t.is_none() ? std::nullopt : std::optional<DType>(to_dtype(t));
      }, "binary kernels: Y's type (None: dtype)")
      .def_readwrite("scalar", &VectorOptions::scalar, "binary kernels: a constant in place of Y (None: Y is a tensor)")
      .def_readwrite("scalar_first", &VectorOptions::scalar_first, "the constant is the left operand (2 - x)");
  m.def("vector_func", [](const std::string& name, const VectorOptions& o, const py::object& chip) {
    kernels::VectorKernel k = chip.is_none() ? kernels::vector_kernel(name, o) : kernels::vector_kernel(name, o, to_chip(chip));
    return py::make_tuple(k.out, k.inputs, tuned_dict(k.tuned));
  }, py::arg("name"), py::arg("options"), py::arg("chip") = py::none(),
  "The vector kernel's Func, its Inputs and the tuned schedule it took on `chip` (None: no lookup) or None.");
  m.def("vector_kernel_names", &kernels::vector_kernel_names, "The vector kernels kernels.vector_func knows.");
  m.def("broadcast_view", [](const std::vector<int64_t>& x, const std::vector<int64_t>& y) -> py::object {
    kernels::BroadcastView v = kernels::broadcast_view(x, y);
    if (!v.ok) return py::none();
    auto read = [](kernels::BroadcastView::Read r) {
      return r == kernels::BroadcastView::Read::Full ? "full" : r == kernels::BroadcastView::Read::Row ? "row" : "col";
    };
    return py::make_tuple(v.rows, v.cols, read(v.x), read(v.y));
  }, py::arg("x_shape"), py::arg("y_shape"),
  "kernels::broadcast_view: (rows, cols, how X is read, how Y is read), or None when the vector path cannot read "
  "the broadcast directly.");

  using kernels::AttentionOptions;
  py::class_<AttentionOptions>(m, "AttentionOptions", "What kernels.attention builds: shapes, mask, type, scale, flash() tiles.")
      .def(py::init<>())
      .def_readwrite("use_tuned", &AttentionOptions::use_tuned, "take the tuning database's schedule for this problem when it has one (and no override is set)")
      .def_readwrite("batch", &AttentionOptions::batch)
      .def_readwrite("heads", &AttentionOptions::heads)
      .def_readwrite("kv_heads", &AttentionOptions::kv_heads, "0: as many as heads")
      .def_readwrite("seq_q", &AttentionOptions::seq_q)
      .def_readwrite("seq_kv", &AttentionOptions::seq_kv, "0: seq_q")
      .def_readwrite("dim", &AttentionOptions::dim)
      .def_readwrite("causal", &AttentionOptions::causal)
      .def_readwrite("scale", &AttentionOptions::scale, "0: 1 / sqrt(dim)")
      .def_readwrite("tile_q", &AttentionOptions::tile_q, "0: the default")
      .def_readwrite("tile_kv", &AttentionOptions::tile_kv, "0: the default")
      .def_readwrite("preload", &AttentionOptions::preload, "key tiles S runs ahead of the softmax; 0: the chip's own")
      .def_readwrite("softcap", &AttentionOptions::softcap, "scaled scores s -> softcap tanh(s / softcap); 0: none")
      .def_readwrite("window", &AttentionOptions::window, "a sliding window with causal: query i sees keys i - window + 1 .. i; 0: none")
      .def_readwrite("alibi", &AttentionOptions::alibi, "ALiBi: scores plus slope_h key (the paper's slope_h (key - query) less its row's constant), slopes 2^(-8 (h + 1) / heads)")
      .def_property(
          "score_mod", [](const AttentionOptions& o) { return bool(o.score_mod); },
          [](AttentionOptions& o, std::function<dsl::Expr(dsl::Expr, dsl::Expr, dsl::Expr, dsl::Expr, dsl::Expr)> f) {
            o.score_mod = nullptr;
            if (f) o.score_mod = [f](const dsl::Expr& s, const sched::ScoreIndex& at) { return f(s, at.b, at.h, at.q, at.kv); };
          },
          "a function (score, b, h, q_idx, kv_idx) of Exprs, elementwise in the scaled score (FlexAttention's score_mod); "
          "None: none. Reads as whether there is one")
      .def_readwrite("lse", &AttentionOptions::lse, "also the logsumexp of the scaled scores (f32, a second output)")
      .def_readwrite("mask", &AttentionOptions::mask, "the shape of an additive f32 mask input named 'mask' (empty: none)")
      .def_property("dtype", [](const AttentionOptions& o) { return std::string(dtype_name(o.dtype)); },
                    [](AttentionOptions& o, const py::object& t) { o.dtype = to_dtype(t); }, "Q, K, V and O: f16 or bf16");
  m.def("attention_score_reach", &kernels::attention_score_reach, py::arg("options"), py::arg("chip"), py::arg("bound"),
        "How large the scores can get after the options' score_mod and ALiBi where the scaled scores are within "
        "[-bound, bound] (interval arithmetic; a select's masking constant left out).");
  m.def("attention_func", [](const AttentionOptions& o, const ChipConfig& chip) {
    kernels::Attention a = kernels::attention(o, chip);
    py::list inputs;
    inputs.append(py::cast(a.q)), inputs.append(py::cast(a.k)), inputs.append(py::cast(a.v));
    if (a.mask) inputs.append(py::cast(*a.mask));
    return py::make_tuple(a.funcs.o, inputs, a.lse ? py::cast(a.funcs.lse) : py::none(), tuned_dict(a.tuned));
  }, py::arg("options"), py::arg("chip"),
  "The attention Func (flash() scheduled) to compile, its Inputs (Q, K, V[, mask]), its second output (options.lse) or "
  "None, and the tuned schedule it took or None.");
}

}  // namespace cubekit::py_bind
