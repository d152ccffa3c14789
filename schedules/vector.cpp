#include "schedules/vector.h"

#include "emulator/error.h"
#include "schedules/contraction.h"  // writes_bf16

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace cubekit::sched {

namespace {

using dsl::Directive;
using dsl::Expr;
using dsl::ExprNode;
using dsl::FuncImpl;
using dsl::Op;
using dsl::VarImpl;

const ExprNode* strip_cast(const ExprNode* n) { return n->op == Op::Cast ? n->args[0].get() : n; }


const char* shape_name(VecShape s) {
  static constexpr const char* n[] = {"full", "per-row", "per-column"};
  return n[int(s)];
}

// Where an expression is evaluated: the leading variables, and the one walking the last dimension
// (a Var, the RDom of an enclosing reduction, or none in a per-row Func).
struct Context {
  std::vector<const VarImpl*> rows;
  const VarImpl* last = nullptr;
  std::string where;  // "softmax(r, c) = ..." for messages
};

// The first reduction in an output's own expression (not in the Funcs it calls) whose operand
// reads a tensor at (the output's variables.., its RDom), wherever in the operand (`sum(Q(k) *
// X(r, k))` as `sum(X(r, k) * Q(k))`): the output is then one value per row, reduced along the
// last dimension (`out(r) = sum(X(r, k))`). A reduction read at as many indices as the output has
// (`X(r, c) - sum(X(r, k))`) is broadcast over the columns instead.
bool reads_a_row(const ExprNode* n, const std::vector<std::shared_ptr<VarImpl>>& out_vars) {
  if (n->op == Op::Input || n->op == Op::Func) {
    if (n->args.size() != out_vars.size() + 1) return false;
    auto is_var = [](const Expr& i, const VarImpl* v) { return i.node().op == Op::Var && i.node().var.get() == v; };
    for (size_t i = 0; i < out_vars.size(); ++i)
      if (!is_var(n->args[i], out_vars[i].get())) return false;
    const Expr& last = n->args.back();  // (rows.., k) with k the reduction's RDom
    return last.node().op == Op::Var && last.node().var->reduction;
  }
  for (const Expr& a : n->args)
    if (reads_a_row(a.get(), out_vars)) return true;
  return false;
}

// Whether n uses any of `vars`.
bool uses_any(const ExprNode* n, const std::vector<std::shared_ptr<VarImpl>>& vars) {
  if (n->op == Op::Var) return std::any_of(vars.begin(), vars.end(), [&](const auto& v) { return v.get() == n->var.get(); });
  return std::any_of(n->args.begin(), n->args.end(), [&](const Expr& a) { return uses_any(a.get(), vars); });
}

// The length of the rows a row reduction reads: the last extent of the first input it reads at
// (the output's variables.., its RDom); 0 when it reads none so (only Funcs).
int64_t row_length(const ExprNode* n, const std::vector<std::shared_ptr<VarImpl>>& out_vars) {
  if (n->op == Op::Input && reads_a_row(n, out_vars)) return n->input->shape.back();
  for (const Expr& a : n->args)
    if (int64_t length = row_length(a.get(), out_vars)) return length;
  return 0;
}

// The last extent of the first tensor (Input or Func) an expression reads at one index more than
// `out_vars` (rows.., something): a reduction meant per row that reads it otherwise than at its RDom.
std::optional<int64_t> row_meant(const ExprNode* n, size_t out_vars) {
  if ((n->op == Op::Input || n->op == Op::Func) && n->args.size() == out_vars + 1)
    return n->op == Op::Input ? n->input->shape.back() : dsl::Func(n->func).shape().back();
  for (const Expr& a : n->args)
    if (auto length = row_meant(a.get(), out_vars)) return length;
  return std::nullopt;
}

const ExprNode* row_reduction(const Expr& e, const std::vector<std::shared_ptr<VarImpl>>& out_vars) {
  const ExprNode* n = e.get();
  if (n->op == Op::Input || n->op == Op::Func) return nullptr;
  if (n->op == Op::Sum || n->op == Op::Maximum || n->op == Op::Minimum)
    return reads_a_row(n->args[0].get(), out_vars) ? n : nullptr;
  for (const Expr& a : n->args)
    if (const ExprNode* r = row_reduction(a, out_vars)) return r;
  return nullptr;
}

// The row reduction behind a call, at exactly the output's variables, of a Func that is one value
// per row (`F(r) = sqrt(S(r))` with `S(r) = sum(X(r, k) * X(r, k))`, or a chain of such Funcs):
// the output is then per-row too. Null when the expression calls none.
// `seen`: the Funcs looked into already (a chain of Funcs each calling the last twice is
// exponential walked as a tree).
const ExprNode* per_row_call(const ExprNode* n, const std::vector<std::shared_ptr<VarImpl>>& out_vars,
                             std::vector<std::shared_ptr<VarImpl>>* reduction_vars, std::set<const FuncImpl*>& seen) {
  if (n->op == Op::Func && n->args.size() == out_vars.size() && !out_vars.empty() && !seen.count(n->func.get())) {
    bool at_out_vars = true;
    for (size_t i = 0; i < out_vars.size(); ++i)
      at_out_vars &= n->args[i].node().op == Op::Var && n->args[i].node().var == out_vars[i];
    if (at_out_vars) {
      const FuncImpl& g = *n->func;
      seen.insert(&g);
      if (const ExprNode* r = row_reduction(g.value, g.args)) return *reduction_vars = g.args, r;
      if (const ExprNode* r = per_row_call(g.value.get(), g.args, reduction_vars, seen)) return r;
    }
  }
  for (const Expr& a : n->args)
    if (const ExprNode* r = per_row_call(a.get(), out_vars, reduction_vars, seen)) return r;
  return nullptr;
}

class Planner {
 public:
  Planner(const dsl::Func& f, VectorPlan& p, const ChipConfig& chip) : f_(f), p_(p), chip_(chip) {}

  void run() {
    const auto& out = f_.impl;
    p_.name = out->name;
    p_.output = out;
    p_.shape = f_.shape();
    Context c;
    c.where = out->name;
    for (const auto& a : out->args) c.rows.push_back(a.get());
    std::vector<std::shared_ptr<VarImpl>> reduction_vars = out->args;
    const ExprNode* r = row_reduction(out->value, out->args);
    std::set<const FuncImpl*> seen;
    if (!r) r = per_row_call(out->value.get(), out->args, &reduction_vars, seen);
    if (r) {
      p_.row_output = true;  // one value per row: every output variable is a row, the reduction's RDom the last
      // The rows' length: an RDom over part of a row is refused naming the whole row.
      p_.cols = row_length(r->args[0].get(), reduction_vars);
      if (!p_.cols) p_.cols = dsl::rvars_of(r->args[0]).empty() ? 1 : dsl::rvars_of(r->args[0])[0]->extent;
      for (int64_t e : p_.shape) p_.rows *= e;
      bool scalar = false;
      analyse(out->value, c, &scalar);
    } else {
      p_.cols = p_.shape.back();
      for (size_t i = 0; i + 1 < p_.shape.size(); ++i) p_.rows *= p_.shape[i];
      c.last = c.rows.back();
      c.rows.pop_back();
      analyse(out->value, c);  // Full; a per-row value is broadcast over the columns
    }
    check_types(out->value, out->name);
    for (const auto& st : p_.stages) check_types(st.func->value, st.func->name);
    p_.flat = !uses_row_or_col_;
    read_schedule();
  }

 private:

  // The shape an access with these index expressions reads, in context c.
  VecShape access(const std::vector<Expr>& args, const Context& c, const std::string& what) {
    auto is = [&](const Expr& e, const VarImpl* v) { return v && e.node().op == Op::Var && e.node().var.get() == v; };
    std::string index;
    for (const Expr& a : args) index += (index.empty() ? "" : ", ") + a.str();
    auto bad = [&]() {
      std::string rows;
      for (const VarImpl* v : c.rows) rows += (rows.empty() ? "" : ", ") + v->name;
      std::string last = c.last ? c.last->name : "(none: a per-row Func)";
      // A sum whose operand reads an input at its own reduction variable is usually a product for
      // the cube that its schedule did not put there.
      const bool in_sum = c.where.ends_with(" (in sum)");
      user_error("{}: {}({}) is indexed in a way the vector path cannot read: it reads tensors at (rows.., last), "
                 "(rows..) or (last), where here rows are ({}) and last is {}{}", c.where, what, index, rows, last,
                 in_sum ? std::string(". A sum of products of inputs is the cube's: schedule it with cube() (a matmul or "
                                      "a convolution), or attention's output with flash(tile_q, tile_kv).") + kCubeForm
                        : "");
    };
    if (args.size() == c.rows.size() + 1 && c.last) {
      for (size_t i = 0; i < c.rows.size(); ++i)
        if (!is(args[i], c.rows[i])) bad();
      if (!is(args.back(), c.last)) bad();
      return VecShape::Full;
    }
    if (args.size() == 1 && is(args[0], c.last)) {
      uses_row_or_col_ = true;
      return VecShape::Col;
    }
    if (args.size() == c.rows.size() && !args.empty()) {
      for (size_t i = 0; i < c.rows.size(); ++i)
        if (!is(args[i], c.rows[i])) bad();
      uses_row_or_col_ = true;
      return VecShape::Row;
    }
    bad();
    return VecShape::Full;
  }

  static VecShape combine(VecShape a, VecShape b, const Expr& e, const Context& c) {
    if (a == b) return a;
    if (a == VecShape::Full || b == VecShape::Full) return VecShape::Full;
    user_error("{}: `{}` combines a per-row and a per-column value; the vector path broadcasts one of them over a full "
               "tile: write it as part of an expression that also reads a full input", c.where, e.str());
  }

  // Returns the shape of e; `scalar` is set when e is a constant.
  VecShape analyse(const Expr& e, const Context& c, bool* scalar = nullptr) {
    const ExprNode& n = e.node();
    if (scalar) *scalar = false;
    switch (n.op) {
      case Op::Const:
        if (scalar) *scalar = true;
        return c.last ? VecShape::Full : VecShape::Row;  // adopts its partner's shape
      case Op::Var:
        user_error("{}: `{}` uses the loop variable {} as a value; the vector path computes on tensor values", c.where,
                   e.str(), n.var->name);
      case Op::Input: {
        VecShape s = access(n.args, c, n.input->name);
        add_input(n.input, s, c);
        return s;
      }
      case Op::Func: {
        VecShape s = access(n.args, c, n.func->name);
        add_stage(n.func, s);
        return s;
      }
      case Op::Sum:
      case Op::Maximum:
      case Op::Minimum: return reduction(e, c);
      case Op::Select: {
        const ExprNode& cond = n.args[0].node();
        VecShape s = analyse(cond.args[0], c);
        s = combine(s, analyse(cond.args[1], c), e, c);
        s = combine(s, analyse(n.args[1], c), e, c);
        return combine(s, analyse(n.args[2], c), e, c);
      }
      case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
        user_error("{}: the comparison `{}` is only computed inside select() on the vector path", c.where, e.str());
      default: break;
    }
    bool all_scalar = true;
    VecShape s = VecShape::Full;
    bool first = true;
    for (const Expr& a : n.args) {
      bool k = false;
      VecShape sa = analyse(a, c, &k);
      if (k) continue;
      all_scalar = false;
      s = first ? sa : combine(s, sa, e, c);
      first = false;
    }
    if (scalar) *scalar = all_scalar;
    if (all_scalar) return c.last ? VecShape::Full : VecShape::Row;
    return s;
  }

  // What keeps a sum of a product of inputs off the cube, for a sum that reads two inputs or more.
  static constexpr const char* kCubeForm =
      " The cube takes a Func whose value is the sum of a product of two inputs alone, sum(cast(T, A(m, k)) * cast(T, "
      "B(k, n))): a scale or another term in the sum or around it keeps it off the cube (default_schedule too). Compute "
      "the sum as its own Func C and the rest in another, D(m, n) = C(m, n) * c, fused with D.epilogue_of(C)";
  static std::string cube_hint(const ExprNode& n) {
    const size_t inputs = n.op == Op::Sum ? dsl::inputs_of(n.args[0]).size() : 0;
    if (inputs >= 3)  // Q, K and V through the softmax's Funcs: attention's output
      return std::string(". Attention's output (a sum over the keys of the softmax's weights times V) is scheduled "
                         "with flash(tile_q, tile_kv), which computes its products on the cube.") + kCubeForm;
    return inputs >= 2 ? std::string(".") + kCubeForm : std::string();
  }

  // sum / maximum / minimum over an RDom along the last dimension: a per-row value.
  VecShape reduction(const Expr& e, const Context& c) {
    const ExprNode& n = e.node();
    if (in_reduction_) user_error("{}: `{}` nests a reduction in a reduction; compute the inner one as its own Func", c.where, e.str());
    auto rvars = dsl::rvars_of(n.args[0]);
    if (rvars.size() != 1)
      user_error("{}: `{}` reduces over {} variables; the vector path reduces along the last dimension only{}", c.where,
                 e.str(), rvars.size(), cube_hint(n));
    const VarImpl* k = rvars[0].get();
    // The rows it reads: the plan's, or those of a reduction meant per row that reads no row at its
    // RDom itself, which the plan then did not take for one (out(r) = sum(X(r, 2 * k))).
    const int64_t cols = p_.row_output ? p_.cols : row_meant(n.args[0].get(), f_.impl->args.size()).value_or(p_.cols);
    if ((k->min != 0 || k->extent != cols) && !p_.row_output && !uses_any(n.args[0].get(), f_.impl->args))
      user_error("{}: `{}` reads the same values for every element of {} (it indexes none of {}'s variables), and the "
                 "vector path reduces a row of an input per value of {}: read the input as rows ({}(r) = sum(X(r, k)), X "
                 "one dimension more than {}; a single row is X of shape [1, N]), or reduce it whole with the sum kernel "
                 "(cubekit.kernels.sum)",
                 c.where, e.str(), f_.name(), f_.name(), f_.name(), f_.name(), f_.name());
    if (k->min != 0 || k->extent != cols)
      user_error("{}: `{}` reduces {} over [{}, {}); the vector path reduces along the last dimension only, whole rows: "
                 "{} must index the last dimension and run over [0, {}){}",
                 c.where, e.str(), k->name, k->min, k->min + k->extent, k->name, cols, cube_hint(n));
    Context inner = c;
    inner.last = k;
    inner.where = c.where + " (in " + std::string(dsl::op_name(n.op)) + ")";
    in_reduction_ = true;
    bool scalar = false;
    VecShape s = analyse(n.args[0], inner, &scalar);
    in_reduction_ = false;
    if (s == VecShape::Col)
      user_error("{}: `{}` reduces a per-column value; a row reduction needs a full value, indexed (rows.., {})", c.where,
                 e.str(), k->name);
    if (scalar || s != VecShape::Full)
      user_error("{}: `{}` reduces a value that does not vary along {}; the vector path reduces full rows (index an "
                 "input or Func by {} in the last position)", c.where, e.str(), k->name, k->name);
    uses_row_or_col_ = true;
    return VecShape::Row;
  }

  void add_input(const std::shared_ptr<dsl::InputImpl>& in, VecShape s, const Context& c) {
    for (const auto& o : p_.inputs)
      if (o.input == in) {
        if (o.shape != s)
          user_error("{}: input {} is read both as a {} and as a {} value; read it one way (or pass it twice)", c.where,
                     in->name, shape_name(o.shape), shape_name(s));
        return;
      }
    int64_t expect = s == VecShape::Full ? p_.rows * p_.cols : s == VecShape::Row ? p_.rows : p_.cols;
    int64_t have = 1;
    for (int64_t d : in->shape) have *= d;
    if (have != expect)
      user_error("{}: input {} has shape [{}] ({} elements) but as a {} operand of {} (shape [{}]) it needs {}: the vector "
                 "path reads an input whole, element for element with its output, not a part of it; give {} {} elements "
                 "(a bound() of {} as large as the input, or the part it reads as an input of its own)", c.where,
                 in->name, fmt::join(in->shape, ", "), have, shape_name(s), p_.name, fmt::join(p_.shape, ", "), expect,
                 in->name, expect, p_.name);
    p_.inputs.push_back({in, s});
  }

  void add_stage(const std::shared_ptr<FuncImpl>& g, VecShape s) {
    if (g == p_.output) user_error("{} calls itself", g->name);
    for (const auto& st : p_.stages)
      if (st.func == g) return;
    if (visiting_.count(g.get())) user_error("{}: its definition calls itself through other Funcs", g->name);
    if (is_contraction(dsl::Func(g)))
      user_error("{} reads the contraction {}: compute {} in {}'s epilogue with {}.epilogue_of({}), or compile {} on "
                 "its own and pass its result as an Input", p_.name, g->name, p_.name, g->name, p_.name, g->name, g->name);
    if (s == VecShape::Col)
      user_error("{}: a Func over the last dimension only is not supported on the vector path; pass it as an Input or "
                 "write its expression where it is used", g->name);
    if (!g->value.defined()) user_error("{} is used before it is defined", g->name);
    // As Halide refuses a schedule on a Func it inlines: the stage is computed in the output's
    // tiles, by the output's schedule, and a directive of its own would do nothing without a word.
    if (!g->schedule.empty())
      user_error("{}.{}: {} is computed in {}'s tiles, which read it, by {}'s schedule; a schedule of its own is not used: "
                 "schedule {} instead, or clear {}'s ({}.schedule = cubekit.Schedule() in Python, {}.schedule() = {{}} in "
                 "C++)", g->name, g->schedule.front().text, g->name, p_.name, p_.name, p_.name, g->name, g->name, g->name);
    visiting_.insert({g.get(), true});
    // Another Func's definition is a stage of its own: a reduction in it is not nested in the
    // reduction that reads it (H(r) = maximum(X(r, k) + G(r)) with G(r) = sum(X(r, k))).
    const bool reading_in_reduction = std::exchange(in_reduction_, false);
    Context c;
    c.where = g->name;
    for (const auto& a : g->args) c.rows.push_back(a.get());
    if (s == VecShape::Full) c.last = c.rows.back(), c.rows.pop_back();
    bool scalar = false;
    VecShape got = analyse(g->value, c, &scalar);
    if (!scalar && s == VecShape::Row && got != VecShape::Row)
      user_error("{}: a per-row Func whose value `{}` varies along the columns", g->name, g->value.str());
    visiting_.erase(g.get());
    in_reduction_ = reading_in_reduction;
    p_.stages.push_back({g, s});
  }

  // The vector unit computes in f16 and f32: an integer input is converted (vconv) as it is read,
  // and a result may be converted to an integer type at the end.
  void check_types(const Expr& e, const std::string& where, bool int_input_ok = false) {
    const ExprNode& n = e.node();
    DType t = n.type.dtype;
    if (n.op == Op::Cast) {
      DType from = n.args[0].type().dtype;
      static const std::set<std::pair<DType, DType>> conv = {
          {DType::f16, DType::f32}, {DType::f32, DType::f16}, {DType::s32, DType::f32}, {DType::f32, DType::s32},
          {DType::s32, DType::f16}, {DType::f16, DType::s32}, {DType::s8, DType::f16}, {DType::f16, DType::s8},
          {DType::u8, DType::f16},  {DType::f16, DType::u8},  {DType::s16, DType::f16}, {DType::f16, DType::s16}};
      // bf16 <-> f32 where the chip has bf16 (vconv bf16.f32 and f32.bf16 on the 910B's and the 950's).
      const bool bf16 = writes_bf16(chip_) && ((t == DType::bf16 && from == DType::f32) || (t == DType::f32 && from == DType::bf16));
      if (from != t && !conv.count({t, from}) && !bf16 && (t == DType::bf16 || from == DType::bf16) && !writes_bf16(chip_)) {
        std::string with;  // the presets that have it
        for (const ChipConfig& p : chip_presets())
          if (writes_bf16(p)) with += (with.empty() ? "" : ", ") + p.name;
        user_error("{}: `{}` converts {} to {}, but {} has no bf16 (the chips with bf16: {})", where, e.str(),
                   dtype_name(from), dtype_name(t), chip_.name, with);
      }
      if (from != t && !conv.count({t, from}) && !bf16)
        user_error("{}: `{}` converts {} to {}; the vector unit of {} converts f16 <-> f32, s32 <-> f16/f32 and "
                   "s8/u8/s16 <-> f16{}: convert through one of those", where, e.str(), dtype_name(from), dtype_name(t),
                   chip_.name, writes_bf16(chip_) ? ", bf16 <-> f32" : "");
      return check_types(n.args[0], where, is_float(t));
    }
    // bf16 is a storage type: converted to f32 as it is read and back at the end, never computed in.
    if (!n.type.boolean && (!is_float(t) || t == DType::bf16) && !(n.op == Op::Input && int_input_ok) && n.op != Op::Const)
      user_error("{}: `{}` computes in {}; the vector unit computes in f16 and f32: cast to one of them first{}", where,
                 e.str(), dtype_name(t), t == DType::bf16 ? " (bf16 converts to and from f32 on chips with bf16)" : "");
    if (n.op == Op::Input || n.op == Op::Func) return;  // its arguments are indices
    for (const Expr& a : n.args) check_types(a, where, false);
  }

  void read_schedule() {
    for (const Directive& d : f_.impl->schedule) {
      switch (d.kind) {
        case Directive::Kind::Cores:
          if (d.factor > 1)
            user_error("{}.{}: the vector path hands rows to the cores in turn; groups are for the cube path", p_.name,
                       d.text);
          check_core_loops(d);
          p_.cores = true;
          break;
        case Directive::Kind::DoubleBuffer:
        case Directive::Kind::MultiBuffer: break;  // vector_copies
        case Directive::Kind::TileRows:
          if (d.factor < 1) user_error("{}.{}: give at least 1 row", p_.name, d.text);
          if (p_.flat) user_error("{}.{}: {} is elementwise (flat tiles of elements); tile_rows() applies to Funcs with "
                                  "per-row or per-column values", p_.name, d.text, p_.name);
          if (d.factor > 4095)
            user_error("{}.{}: at most 4095 rows per tile (a tile's rows are the bursts of one copy)", p_.name, d.text);
          p_.tile_rows = std::min(d.factor, p_.rows);
          break;
        default:
          user_error("{}.{}: {} runs on the vector unit, which takes cores(), double_buffer(), multi_buffer(UB, n) and "
                     "tile_rows(); this directive is for the cube path", p_.name, d.text, p_.name);
      }
    }
    p_.copies = vector_copies(f_.impl->schedule, p_.name, chip_);
    p_.fewer_copies = fewer_copies(f_.impl->schedule);
  }

  // The vector path hands tiles of whole rows to the cores (of elements when flat): cores() takes
  // the Func's leading loops (any of its loops when flat, or when the output is per-row: its loops
  // are all row loops), which all spread those tiles.
  void check_core_loops(const Directive& d) const {
    const auto& args = f_.impl->args;
    const bool any = p_.flat || p_.row_output;
    std::vector<std::string> leading, all;
    for (size_t i = 0; i < args.size(); ++i) {
      all.push_back(args[i]->name);
      if (i + 1 < args.size()) leading.push_back(args[i]->name);
    }
    // (A Func of one dimension is flat: it has no per-row or per-column values.)
    std::string can = fmt::format("give it {} (spread over the cores in tiles of {})",
                                  fmt::join(any ? all : leading, " or "), p_.flat ? "elements" : "whole rows");
    for (const auto& v : d.vars) {
      auto at = std::find(args.begin(), args.end(), v);
      if (at == args.end())
        user_error("{}.{}: {} is not a loop of {} (its loops: {}); {}", p_.name, d.text, v->name, p_.name,
                   fmt::join(all, ", "), can);
      if (!any && at + 1 == args.end())
        user_error("{}.{}: {} is {}'s innermost loop, along its rows; the vector path hands whole rows to the cores: {}",
                   p_.name, d.text, v->name, p_.name, can);
    }
  }

  const dsl::Func& f_;
  VectorPlan& p_;
  const ChipConfig& chip_;
  bool uses_row_or_col_ = false, in_reduction_ = false;
  std::map<const FuncImpl*, bool> visiting_;
};


}  // namespace

// A sum of products of two inputs where some output variable indexes only the first and another
// only the second (rows of A, columns of B): a matrix product, not a per-row dot product.
bool is_contraction(const dsl::Func& f) {
  if (!f.defined()) return false;
  const ExprNode* v = strip_cast(f.impl->value.get());
  if (v->op != Op::Sum) return false;
  const ExprNode* p = v->args[0].get();
  if (p->op != Op::Mul) return false;
  const ExprNode *a = strip_cast(p->args[0].get()), *b = strip_cast(p->args[1].get());
  if (a->op != Op::Input || b->op != Op::Input) return false;
  auto indexes = [](const ExprNode* in, const std::shared_ptr<VarImpl>& var) {
    for (const Expr& i : in->args)
      if (i.node().op == Op::Var && i.node().var == var) return true;
    return false;
  };
  bool only_a = false, only_b = false;
  for (const auto& var : f.impl->args) {
    only_a |= indexes(a, var) && !indexes(b, var);
    only_b |= indexes(b, var) && !indexes(a, var);
  }
  return only_a && only_b;
}

std::string VectorPlan::str() const {
  std::string st;
  for (const Stage& s : stages) st += fmt::format("{}{} ({})", st.empty() ? "" : ", ", s.func->name, shape_name(s.shape));
  std::string in;
  for (const Operand& o : inputs) in += fmt::format("{}{} ({})", in.empty() ? "" : ", ", o.input->name, shape_name(o.shape));
  return fmt::format("{}: vector, {} rows x {} columns{}; inputs {}; stages {}{}{}{}", name, rows, cols,
                     flat ? " (flat)" : row_output ? " (per-row output)" : "", in, st.empty() ? "none" : st, tile_rows ? fmt::format(", tile_rows {}", tile_rows) : "",
                     cores ? ", on all cores" : "", copies > 1 ? fmt::format(", {} copies", copies) : "");
}

int vector_copies(const dsl::Schedule& schedule, const std::string& name, const ChipConfig& chip) {
  const Directive *twice = nullptr, *multi = nullptr;
  for (const Directive& d : schedule) {
    if (d.kind == Directive::Kind::DoubleBuffer) twice = &d;
    if (d.kind == Directive::Kind::MultiBuffer) multi = &d;
  }
  if (!multi) return twice ? 2 : 1;
  if (twice) user_error("{}.{}: double_buffer() is multi_buffer(UB, 2); give one of them", name, multi->text);
  if (multi->level != dsl::Level::UB)
    user_error("{}.{}: {} runs on the vector unit, whose tiles are in UB: multi_buffer(UB, {})", name, multi->text, name,
               multi->factor);
  if (multi->factor < 1 || multi->factor > chip.event_ids)
    user_error("{}.{}: the copies must be 1..{} ({} has {} event ids per pipe pair, one per copy)", name, multi->text,
               chip.event_ids, chip.name, chip.event_ids);
  return int(multi->factor);
}

std::string fewer_copies(const dsl::Schedule& schedule) {
  for (const Directive& d : schedule) {
    if (d.kind == Directive::Kind::DoubleBuffer)  // a kernel's option too: said in the CLI's and Python's terms
      return "drop double_buffer() (--double-buffer off; in Python double_buffer=False, or schedule=\"naive\" for "
             "the vector kernels)";
    if (d.kind == Directive::Kind::MultiBuffer && d.factor > 1) return fmt::format("use multi_buffer(UB, {}) or fewer", d.factor - 1);
  }
  return "";
}

VectorPlan plan_vector(const dsl::Func& f, const ChipConfig& chip) {
  if (!f.defined()) user_error("{} has no definition", f.name());
  VectorPlan p;
  Planner(f, p, chip).run();
  // The sync pass gives each copy of the tile buffers an event id between MTE2 and V, and the
  // per-column inputs (filled once) one more.
  bool columns = false, tiles = false;
  for (const auto& in : p.inputs) (in.shape == VecShape::Col ? columns : tiles) = true;
  if (columns && tiles && p.copies + 1 > chip.event_ids)
    user_error("{}: {} copies of its input tiles and one for its per-column inputs need {} event ids from MTE2 to V but "
               "{} has {}; use multi_buffer(UB, {}) or fewer", p.name, p.copies, p.copies + 1, chip.name, chip.event_ids,
               chip.event_ids - 1);
  return p;
}

}  // namespace cubekit::sched
