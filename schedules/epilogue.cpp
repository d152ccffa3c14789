// The fused epilogue of a contraction: which consumers can be computed strip by strip in UB.
#include "emulator/error.h"
#include "schedules/contraction.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>

namespace cubekit::sched {

namespace {

using dsl::Expr;
using dsl::ExprNode;
using dsl::Op;

class EpilogueCheck {
 public:
  EpilogueCheck(ContractionPlan& p, const dsl::Func& consumer, const dsl::FuncImpl& producer)
      : p_(p), f_(*consumer.impl), producer_(producer) {}

  void run() {
    const auto& args = f_.args;
    if (p_.c.conv && args.size() != 4)
      user_error("{}.epilogue_of({}): {} has {} variables but the convolution {} has 4 (n, k, y, x); the epilogue is "
                 "elementwise over {}", f_.name, producer_.name, f_.name, args.size(), producer_.name, producer_.name);
    if (!p_.c.conv && args.size() != p_.c.batch.size() + 2)
      user_error("{}.epilogue_of({}): {} has {} variables but {} has {}; the epilogue is elementwise over {}", f_.name,
                 producer_.name, f_.name, args.size(), producer_.name, p_.c.batch.size() + 2, producer_.name);
    if (p_.c.acc != DType::f32)
      user_error("{}.epilogue_of({}): epilogues run on f32 accumulators (f16 inputs); {} accumulates in {}", f_.name,
                 producer_.name, producer_.name, dtype_name(p_.c.acc));
    DType out = f_.value.type().dtype;
    if (out != DType::f32 && out != DType::f16 && !(out == DType::bf16 && p_.bf16))
      user_error("{}: the epilogue's result must be f32{}, not {}", f_.name, p_.bf16 ? ", f16 or bf16" : " or f16",
                 dtype_name(out));
    walk(f_.value);
    if (!calls_producer_)
      user_error("{}.epilogue_of({}): {}'s definition does not read {}", f_.name, producer_.name, f_.name, producer_.name);
  }

 private:
  bool is(const Expr& e, size_t arg) const {
    return e.node().op == Op::Var && e.node().var == f_.args[arg];
  }
  std::string where() const { return f_.name + ".epilogue_of(" + producer_.name + ")"; }

  void walk(const Expr& e) {
    const ExprNode& n = e.node();
    switch (n.op) {
      case Op::Var:
        user_error("{}: `{}` uses the loop variable {} as a value; the epilogue computes on the result and inputs",
                   where(), e.str(), n.var->name);
      case Op::Func: {
        // Any other Func, one of the producer's own name included (names need not be unique).
        if (n.func.get() != &producer_)
          user_error("{}: `{}` reads {}{}; an epilogue reads its contraction's result and inputs, no other Func: compute "
                     "{} as a kernel of its own, or write its expression into {}'s", where(), e.str(), n.func->name,
                     n.func->name == producer_.name ? " (a Func of the name epilogue_of() names, but not that one)" : "",
                     n.func->name, f_.name);
        bool same = n.args.size() == f_.args.size();
        for (size_t i = 0; same && i < n.args.size(); ++i) same = is(n.args[i], i);
        if (!same) {
          std::vector<std::string> own;
          for (const auto& v : f_.args) own.push_back(v->name);
          user_error("{}: `{}` is not {} at {}'s own variables ({}, in that order); an epilogue reads the contraction's "
                     "result elementwise, where it is (transposing it is a vector kernel of its own after the "
                     "contraction)", where(), e.str(), producer_.name, f_.name, fmt::join(own, ", "));
        }
        calls_producer_ = true;
        return;
      }
      case Op::Input: return input(e);
      case Op::Sum: case Op::Maximum: case Op::Minimum:
        user_error("{}: `{}` reduces; an epilogue is elementwise (reduce in a vector kernel after the matmul)", where(),
                   e.str());
      case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
        user_error("{}: the comparison `{}` is only computed as the condition of a select()", where(), e.str());
      case Op::Select: {  // the condition's operands, then the two values
        const ExprNode& cond = n.args[0].node();
        for (const Expr& a : cond.args) walk(a);
        walk(n.args[1]), walk(n.args[2]);
        return;
      }
      default: break;
    }
    for (const Expr& a : n.args) walk(a);
  }

  // A convolution's epilogue reads inputs per output channel (S(k): batch norm's scale and
  // shift) or, as the output is shaped, at its own variables (R(n, k, y, x): a residual).
  void conv_input(const Expr& e) {
    const ExprNode& n = e.node();
    bool per_channel = n.args.size() == 1 && is(n.args[0], 1), tile = n.args.size() == 4;
    for (size_t i = 0; tile && i < 4; ++i) tile = is(n.args[i], i);
    if (!per_channel && !tile)
      user_error("{}: `{}`: a convolution's epilogue reads inputs per output channel ({}({})) or at the output's own "
                 "variables ({}({}, {}, {}, {}))", where(), e.str(), n.input->name, f_.args[1]->name, n.input->name,
                 f_.args[0]->name, f_.args[1]->name, f_.args[2]->name, f_.args[3]->name);
    const sched::ConvGeometry& g = p_.c.g;
    int64_t k = g.k * g.groups;
    std::vector<int64_t> want = per_channel ? std::vector<int64_t>{k} : std::vector<int64_t>{g.n, k, g.oh, g.ow};
    if (n.input->shape != want)
      user_error("{}: `{}` reads {} {} but its shape is [{}]; it needs [{}]", where(), e.str(), n.input->name,
                 per_channel ? "per output channel" : "at every output element", fmt::join(n.input->shape, ", "),
                 fmt::join(want, ", "));
    const DType t = n.input->dtype;
    if (tile && t != DType::f32 && t != DType::f16 && !(t == DType::bf16 && p_.bf16))
      user_error("{}: the full-tile input {} must be f32{}, not {}", where(), n.input->name, p_.bf16 ? ", f16 or bf16" : " or f16",
                 dtype_name(t));
    for (const auto& x : p_.epilogue_inputs)
      if (x.input == n.input) return;
    p_.epilogue_inputs.push_back({n.input, false, tile});
  }

  void input(const Expr& e) {
    if (p_.c.conv) return conv_input(e);
    const ExprNode& n = e.node();
    size_t m = f_.args.size() - 2, last = f_.args.size() - 1;
    bool per_col = n.args.size() == 1 && is(n.args[0], last), per_row = n.args.size() == 1 && is(n.args[0], m);
    if (!per_col && !per_row)
      user_error("{}: `{}`: a matmul's epilogue reads inputs per column ({}({})) and constants; a full-tile input (or a "
                 "per-row one) needs a vector kernel of its own", where(), e.str(), n.input->name, f_.args[last]->name);
    if (per_row)
      user_error("{}: `{}` reads {} per row; epilogues take per-column inputs ({}({})) and constants", where(), e.str(),
                 n.input->name, n.input->name, f_.args[last]->name);
    int64_t want = p_.c.n;
    if (n.input->shape.size() != 1 || n.input->shape[0] != want)
      user_error("{}: `{}` reads {} per {} but its shape is [{}]; it needs [{}]", where(), e.str(), n.input->name,
                 per_col ? "column" : "row", fmt::join(n.input->shape, ", "), want);
    for (const auto& x : p_.epilogue_inputs)
      if (x.input == n.input) {
        if (x.per_row != per_row) user_error("{}: {} is read both per row and per column", where(), n.input->name);
        return;
      }
    p_.epilogue_inputs.push_back({n.input, per_row});
  }

  ContractionPlan& p_;
  const dsl::FuncImpl& f_;
  const dsl::FuncImpl& producer_;
  bool calls_producer_ = false;
};

// Whether `e` is what the FixPipe computes from the accumulator: the producer's value, ReLU'd
// (max with 0, either side) any number of times, then at most one cast (it converts first and
// rectifies after, which gives the same values: rounding keeps the sign).
bool fixpipe_form(const Expr& e, const dsl::FuncImpl& producer, bool& relu) {
  const ExprNode* n = e.get();
  if (n->op == Op::Cast) n = n->args[0].get();
  auto zero = [](const Expr& x) { return x.node().op == Op::Const && x.node().value == 0; };
  while (n->op == Op::Max && (zero(n->args[0]) || zero(n->args[1]))) {
    relu = true;
    n = (zero(n->args[1]) ? n->args[0] : n->args[1]).get();
  }
  return n->op == Op::Func && n->func.get() == &producer;
}

}  // namespace

void attach_epilogue(ContractionPlan& p, const dsl::Func& consumer) {
  const dsl::Directive* d = nullptr;
  for (const auto& x : consumer.impl->schedule) {
    if (x.kind != dsl::Directive::Kind::EpilogueOf)
      user_error("{}.{}: {} is computed in {}'s epilogue, strip by strip; schedule {} instead", consumer.name(), x.text,
                 consumer.name(), p.c.a ? p.func_name : "the contraction", p.func_name);
    if (d) user_error("{}.{}: {} is already the epilogue of {}; a Func has one producer", consumer.name(), x.text,
                      consumer.name(), d->func->name);
    d = &x;
  }
  CUBEKIT_ASSERT(d && d->func, "attach_epilogue without epilogue_of");
  EpilogueCheck(p, consumer, *d->func).run();
  // The epilogue runs on the contraction's tiles: every element of it, no more and no fewer (a
  // bound() on the epilogue alone was ignored: the kernel wrote the contraction's shape).
  if (const std::vector<int64_t> mine = consumer.shape(), theirs = dsl::Func(d->func).shape(); mine != theirs) {
    std::string bounds;
    for (const dsl::Bound& x : consumer.impl->bounds) bounds += (bounds.empty() ? "" : ", ") + x.text;
    user_error("{}.epilogue_of({}): {} is [{}] but {} is [{}]; an epilogue computes every element of its contraction: "
               "{}bound {} instead, or compute the part you want as a kernel of its own",
               consumer.name(), d->func->name, consumer.name(), fmt::join(mine, ", "), d->func->name, fmt::join(theirs, ", "),
               bounds.empty() ? "" : fmt::format("remove {}.{} and ", consumer.name(), bounds), d->func->name);
  }
  p.epilogue = consumer.impl;
  p.producer = d->func;
  p.func_name = consumer.name();
  p.c.out = consumer.impl->value.type().dtype;
  if (p.split) p.vector_epilogue = !fixpipe_form(consumer.impl->value, *d->func, p.fixpipe_relu);
}

namespace {

// The stride s where `index` is `var * s` (or `s * var`), 0 otherwise.
int64_t stride_of(const Expr& index, const dsl::VarImpl* var) {
  const ExprNode& n = index.node();
  if (n.op != Op::Mul) return 0;
  for (int i = 0; i < 2; ++i) {
    const ExprNode& v = n.args[size_t(i)].node();
    const ExprNode& c = n.args[size_t(1 - i)].node();
    if (v.op == Op::Var && v.var.get() == var && c.op == Op::Const && c.value == double(int64_t(c.value)))
      return int64_t(c.value);
  }
  return 0;
}

// The directive of f's schedule of this kind naming `named`, or null.
const dsl::Directive* naming(const dsl::FuncImpl& f, dsl::Directive::Kind kind, const dsl::FuncImpl* named) {
  for (const dsl::Directive& d : f.schedule)
    if (d.kind == kind && d.func.get() == named) return &d;
  return nullptr;
}

}  // namespace

int64_t second_output_stride(const dsl::Func& conv) {
  int64_t s = 0;
  std::function<void(const dsl::FuncImpl&)> of = [&](const dsl::FuncImpl& producer) {
    for (const std::weak_ptr<dsl::FuncImpl>& w : producer.named_by) {
      const std::shared_ptr<dsl::FuncImpl> g = w.lock();
      if (!g || !g->value.defined()) continue;
      if (naming(*g, dsl::Directive::Kind::EpilogueOf, &producer)) of(*g);
      const ExprNode& call = g->value.node();
      if (naming(*g, dsl::Directive::Kind::StoreWith, &producer) && call.op == Op::Func && call.func.get() == &producer &&
          call.args.size() == 4 && g->args.size() == 4)
        s = std::max(s, stride_of(call.args[2], g->args[2].get()));
    }
  };
  of(*conv.impl);
  return s;
}

void attach_subsampled(ContractionPlan& p, const dsl::Func& sub) {
  const dsl::FuncImpl& f = *sub.impl;
  const std::string where = fmt::format("{}.store_with({})", f.name, p.func_name);
  if (!p.c.conv)
    user_error("{}: a second output at every s-th row and column is a convolution's; {} is not one", where, p.func_name);
  const dsl::FuncImpl* producer = nullptr;  // what store_with names (compile() checks it is the kernel's Func)
  for (const dsl::Directive& d : f.schedule) {
    if (d.kind != dsl::Directive::Kind::StoreWith)
      user_error("{}.{}: {} is written by {}'s kernel, from its strips; it takes no schedule of its own", f.name, d.text,
                 f.name, p.func_name);
    producer = d.func.get();
  }
  CUBEKIT_ASSERT(producer, "attach_subsampled without store_with");
  const ExprNode& call = f.value.node();
  const bool reads = call.op == Op::Func && call.args.size() == 4 && f.args.size() == 4 && call.func.get() == producer;
  int64_t s = reads ? stride_of(call.args[2], f.args[2].get()) : 0;
  const bool same = reads && s >= 2 && stride_of(call.args[3], f.args[3].get()) == s &&
                    call.args[0].node().op == Op::Var && call.args[0].node().var == f.args[0] &&
                    call.args[1].node().op == Op::Var && call.args[1].node().var == f.args[1];
  if (!same)
    user_error("{}: {} must be {} at every s-th row and column: {}(n, k, y, x) = {}(n, k, y * s, x * s) with its own "
               "variables in order and one stride s >= 2; it is {}", where, f.name, p.func_name, f.name, p.func_name,
               f.value.str());
  const ConvGeometry& g = p.c.g;
  if (dtype_size(p.c.out) != 2)
    user_error("{}: {} is {}; the second output is gathered 32 B (16 channels) a position, for 16-bit results (f16, bf16)",
               where, p.func_name, dtype_name(p.c.out));
  const int64_t oh = cdiv(g.oh, s), ow = cdiv(g.ow, s);
  const std::vector<int64_t> want = {g.n, g.groups * g.k, oh, ow}, shape = sub.shape();
  if (shape != want)
    user_error("{}: {} at stride {} is {}x{}x{}x{}; bound {} to that shape (it is {})", where, p.func_name,
               s, want[0], want[1], want[2], want[3], f.name, fmt::join(shape, "x"));
  if (s * g.ow > 255)
    user_error("{}: rows of {} positions at stride {} are more than the 255 blocks one vector repeat strides over; "
               "the second output needs ow * s <= 255", where, g.ow, s);
  const int64_t rows = p.tm / (g.images * g.ow);
  if (rows < g.oh && rows % s)
    user_error("{}: {}'s tiles of {} output rows start at rows the second output skips; give tiles a multiple of {} rows "
               "(or whole images)", where, p.func_name, rows, s);
  if (p.split && !p.vector_epilogue)
    user_error("{}: on this chip {} leaves L0C through the FixPipe straight to GM, and the second output is gathered in "
               "UB: fuse an epilogue the vector cores compute (bn, a residual) or store {} in a kernel of its own", where,
               p.func_name, f.name);
  p.subsampled = ContractionPlan::Subsampled{sub.impl, s, oh, ow};
}

}  // namespace cubekit::sched
