// Var, RDom, Input and Func. A Func is defined once (`C(m, n) = expr`), has a static extent for
// each of its variables (inferred from the inputs its variables index, or given with bound()),
// and records its schedule as directives for schedules/ to interpret.
#pragma once

#include "dsl/expr.h"

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace cubekit::dsl {

class Var {
 public:
  explicit Var(std::string name = "");
  explicit Var(std::shared_ptr<VarImpl> v) : impl(std::move(v)) {}  // the same variable again
  operator Expr() const;  // NOLINT: a Var is an index expression
  const std::string& name() const { return impl->name; }
  std::shared_ptr<VarImpl> impl;
};

// A reduction variable; an RDom is one with a domain [min, min + extent).
class RVar {
 public:
  explicit RVar(std::string name = "");
  explicit RVar(std::shared_ptr<VarImpl> v) : impl(std::move(v)) {}
  operator Expr() const;  // NOLINT
  const std::string& name() const { return impl->name; }
  std::shared_ptr<VarImpl> impl;
};

// A reduction domain, as Halide's: RDom(0, K, "k") is one RVar over [0, K);
// RDom({{0, C}, {0, KH}, {0, KW}}, "r") has three, r.x (innermost), r.y and r.z (also r[0], r[1],
// r[2]). A reduction over several of them loops r.x innermost whatever order they are used in.
// Only a one-dimensional RDom is itself an RVar (an expression, a loop to split).
class RDom : public RVar {
 public:
  RDom(int64_t min, int64_t extent, std::string name = "");
  RDom(const std::vector<std::pair<int64_t, int64_t>>& region, std::string name = "");  // (min, extent) each
  int dimensions() const { return int(dims_.size()); }
  RVar operator[](int i) const;
  RVar x, y, z, w;  // the first four dimensions

 private:
  std::vector<RVar> dims_;
};

// Either kind of loop variable, for the schedule calls that take both.
struct LoopVar {
  LoopVar(const Var& v) : impl(v.impl) {}   // NOLINT
  LoopVar(const RVar& v);                   // NOLINT
  std::shared_ptr<VarImpl> impl;
};

// Buffer levels of the AI Core, GM included.
enum class Level : uint8_t { GM, L1, L0A, L0B, L0C, UB };
std::string_view level_name(Level l);

struct InputImpl {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
};

// A GM tensor the kernel reads: row-major, the last dimension contiguous.
class Input {
 public:
  Input(std::string name, DType dtype, std::vector<int64_t> shape);
  explicit Input(std::shared_ptr<InputImpl> in) : impl(std::move(in)) {}  // the same tensor again
  template <class... Args>
  Expr operator()(const Args&... index) const {
    return call({Expr(index)...});
  }
  Expr call(std::vector<Expr> index) const;
  const std::string& name() const { return impl->name; }
  DType dtype() const { return impl->dtype; }
  const std::vector<int64_t>& shape() const { return impl->shape; }
  std::shared_ptr<InputImpl> impl;
};

// Halide's BoundaryConditions for inputs: reads outside the input's shape get a value instead of
// going out of bounds (padding, as convolution needs). Every other read of an input or Func must stay
// inside its shape, which the compiler and the reference check before they run.
namespace BoundaryConditions {

class Exterior {
 public:
  Exterior(std::shared_ptr<InputImpl> input, double value) : input_(std::move(input)), value_(value) {}
  template <class... Args>
  Expr operator()(const Args&... index) const {
    return call({Expr(index)...});
  }
  Expr call(std::vector<Expr> index) const;
  const std::string& name() const { return input_->name; }

 private:
  std::shared_ptr<InputImpl> input_;
  double value_;
};

// `value` where an index falls outside `input`'s shape (any value of its dtype: 0 for a conv's
// padding, -inf for a max pool's).
Exterior constant_exterior(const Input& input, double value);

}  // namespace BoundaryConditions

// One schedule call, as written. schedules/ checks and interprets the list.
struct FuncImpl;
class Func;

struct Directive {
  enum class Kind : uint8_t { Split, Reorder, Cores, Stage, Cube, DoubleBuffer, StoreIn, Stagger, MultiBuffer, TileRows, EpilogueOf, StoreWith, Flash };
  Kind kind;
  std::vector<std::shared_ptr<VarImpl>> vars;
  int64_t factor = 0, min = 0;
  Level level = Level::GM;
  std::shared_ptr<InputImpl> input;
  std::string text;  // "split(k, ko, ki, 64)", for messages
  std::shared_ptr<FuncImpl> func;  // epilogue_of, store_with
  int64_t ahead = 0;               // flash: key tiles the scores run ahead (0: the chip's nest's own)
};

// The schedule calls, written on a Func (its own schedule) or on a Schedule (a value to compile a
// Func with, beside others: the same calls, checked when it is compiled). Loop lists are innermost
// first, as in Halide.
template <class Self>
class Scheduling {
 public:
  Self& split(const LoopVar& old, const LoopVar& outer, const LoopVar& inner, int64_t factor);
  Self& tile(const Var& x, const Var& y, const Var& xo, const Var& yo, const Var& xi, const Var& yi, int64_t fx, int64_t fy);
  Self& reorder(std::vector<LoopVar> innermost_first);
  // The iterations of these outermost loops go to AI cores, fused, in turn (core c takes c,
  // c + cores, ...). With group G > 1 the last two of them are handed out G iterations of the first
  // at a time, it varying fastest: the cores running together then cover a G x (cores / G) block of
  // tiles, which share input panels in L2 (rasterisation). When G does not divide that loop's
  // extent, the last group is smaller.
  Self& cores(std::vector<LoopVar> loops, int64_t group = 1);
  Self& stage(const Input& input, Level level, const LoopVar& at);  // at each iteration of `at`
  Self& cube(const Var& mi, const Var& ni, const LoopVar& ki);       // the innermost loops onto mmad
  Self& store_in(Level level);                                        // where results accumulate
  Self& double_buffer();                                              // every staged buffer
  // `copies` copies of the buffers staged at `level`, each filled `copies - 1` fills ahead of its
  // use: deeper than double buffering, to hide fills slower than one step of compute (L2 misses).
  // The cube path's level is L1; the vector path's and a pooling's is UB (their tile buffers).
  Self& multi_buffer(Level level, int copies);
  // Each output tile starts its reduction at a different L1 chunk ((tile indices summed) mod the
  // chunk count) and wraps around, so that cores sharing an input panel read different parts of
  // it at once: one core's L2 miss becomes the others' hit instead of all of them waiting on the
  // same miss. Reassociates the sum: float results change by rounding only.
  Self& stagger();
  // Vector path: each tile holds `rows` rows (of the last dimension) in UB; by default as many as
  // UB holds while every core gets a tile.
  Self& tile_rows(int64_t rows);
  // This Func, elementwise over the contraction `producer` (bias, scale, activation, cast), is
  // computed in UB on the producer's way out of L0C, strip by strip, instead of in a pass over GM.
  // Compile this Func; the producer keeps its cube schedule.
  Self& epilogue_of(const Func& producer);
  // This Func, `producer` at every s-th row and column (F(n, k, y, x) = producer(n, k, y * s, x * s),
  // a convolution's output), is written by producer's kernel as a second output from the strips it
  // makes anyway: the input of a strided 1x1 convolution that follows (ResNet's downsample) without
  // reading the whole map again (CANN's strided-write fusion). Compile both together
  // (codegen::compile({producer, this}, chip)).
  Self& store_with(const Func& producer);
  // This Func, softmax(S) x V over a key axis (kernels/attention.h has the form), is computed as
  // flash attention: `tile_q` query rows at a time stay on the chip while the keys and values
  // stream through in tiles of `tile_kv`, the softmax made online (a running row maximum and sum,
  // the partial output rescaled when the maximum grows) instead of S and P going through GM. A
  // reassociation of the key reduction, as stagger is of k: the result changes by rounding only.
  // `preload`: how many key tiles ahead of the softmax the cube computes the scores (the published
  // 910B kernels' qkPreloadNum), through as many hand-off slots plus one. Only a split chip's cube
  // and vector cores can run more than one ahead; 0 takes the chip's nest's own (4 there, 1 on a
  // coupled core).
  Self& flash(int64_t tile_q, int64_t tile_kv, int64_t preload = 0);


 private:
  std::string subject() const;  // "F." for a Func's own schedule, "" for a Schedule value, in messages
  Self& add(Directive d) {
    static_cast<Self*>(this)->directives().push_back(std::move(d));
    return *static_cast<Self*>(this);
  }
};

// How to compute a Func, apart from what: a value, so that one Func compiles with many schedules
// (codegen::compile(f, schedule, chip)). It names the Func's own Vars and RVars.
class Schedule : public Scheduling<Schedule> {
 public:
  std::vector<Directive>& directives() { return list_; }
  const std::vector<Directive>& directives() const { return list_; }
  bool empty() const { return list_.empty(); }
  auto begin() const { return list_.begin(); }
  auto end() const { return list_.end(); }
  const Directive& front() const { return list_.front(); }
  std::string str() const;  // ".split(m, mo, mi, 64).reorder(...)", as written

 private:
  std::vector<Directive> list_;
};

// A bound() call: the extent it gives a variable.
struct Bound {
  std::shared_ptr<VarImpl> var;
  int64_t extent;
  std::string text;  // "bound(y, 0, 56)", for messages
};

struct FuncImpl {
  std::string name;
  std::vector<std::shared_ptr<VarImpl>> args;
  Expr value;
  std::vector<Bound> bounds;
  Schedule schedule;
  // The Funcs whose own schedule names this one (epilogue_of, store_with: its epilogue, its second
  // output), so that a schedule chosen for it can take them into account (default_schedule).
  std::vector<std::weak_ptr<FuncImpl>> named_by;
};

// `C(m, n)`: defines C when assigned to, calls it otherwise.
class FuncRef {
 public:
  FuncRef(std::shared_ptr<FuncImpl> f, std::vector<Expr> args) : func_(std::move(f)), args_(std::move(args)) {}
  void operator=(const Expr& value);  // NOLINT: the definition
  // `D(m, n) = C(m, n)` defines D too (not a copy of the reference).
  void operator=(const FuncRef& value) { operator=(Expr(value)); }  // NOLINT
  FuncRef(const FuncRef&) = default;
  operator Expr() const;             // NOLINT: a call
 private:
  std::shared_ptr<FuncImpl> func_;
  std::vector<Expr> args_;
};

class Func : public Scheduling<Func> {
 public:
  explicit Func(std::string name);
  explicit Func(std::shared_ptr<FuncImpl> f) : impl(std::move(f)) {}  // the same Func again
  template <class... Args>
  FuncRef operator()(const Args&... args) const {
    return FuncRef(impl, {Expr(args)...});
  }

  const std::string& name() const { return impl->name; }
  bool defined() const { return impl->value.defined(); }
  Type type() const;
  // The extent of each of the Func's variables, in order (static shapes).
  std::vector<int64_t> shape() const;
  std::vector<std::shared_ptr<InputImpl>> inputs() const;  // in first-use order

  // The extent of v, where no input or Func it indexes says (or smaller than theirs). Part of the
  // algorithm, not of the schedule: it sets the Func's shape.
  Func& bound(const Var& v, int64_t min, int64_t extent);

  // The schedule written on the Func (with the methods of Scheduling), what compile() uses unless
  // it is given another: `C.schedule() = kernels::default_schedule(C, chip)` replaces it.
  Schedule& schedule() { return impl->schedule; }
  const Schedule& schedule() const { return impl->schedule; }
  std::vector<Directive>& directives() { return impl->schedule.directives(); }

  std::shared_ptr<FuncImpl> impl;
};

// The inputs e reads, through the Funcs it calls (each Func's definition read once), in first-use
// order.
std::vector<std::shared_ptr<InputImpl>> inputs_of(const Expr& e);

}  // namespace cubekit::dsl
