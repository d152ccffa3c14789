#include "schedules/attention.h"
#include "schedules/attention_match.h"

#include "emulator/arith.h"
#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <cmath>
#include <limits>
#include <set>

namespace cubekit::sched {

using dsl::Expr;
using dsl::ExprNode;
using dsl::Op;

AttentionFuncs attention_form(const AttentionForm& form, const std::string& name) {
  const std::vector<int64_t>& qs = form.q.shape();
  const std::vector<int64_t>& ks = form.k.shape();
  const int64_t group = ks[1] > 0 ? qs[1] / ks[1] : 1;
  dsl::Var b("b"), h("h"), i("i"), j("j"), d("d");
  dsl::RDom r(0, qs[3], "r"), t(0, ks[2], "t");
  AttentionFuncs f{dsl::Func(name + "_scores"), dsl::Func(name + "_max"), dsl::Func(name + "_exp"), dsl::Func(name + "_sum"),
                   dsl::Func(name), dsl::Func(name + "_lse")};
  Expr kv_head = group == 1 ? Expr(h) : Expr(h) / int(group);
  Expr dot = dsl::sum(dsl::cast(DType::f32, form.q(b, h, i, r)) * dsl::cast(DType::f32, form.k(b, kv_head, j, r)));
  Expr scores = dot * form.scale;
  if (form.score_mod) {
    const Expr scaled = scores;
    scores = form.score_mod(scaled, {Expr(b), Expr(h), Expr(i), Expr(j)});
    if (!scores.defined() || dsl::occurrences(scores, scaled.get()) == 0)
      user_error("{}: the score modifier's result does not read the score; a softmax over scores that do not depend on the "
                 "keys is uniform, and flash() computes the keys' scores on the cube. Return an expression of the score",
                 name);
  }
  if (form.mask) {
    const std::vector<int64_t>& ms = form.mask->shape();
    auto at = [](int64_t extent, const dsl::Var& v) { return extent == 1 ? Expr(0) : Expr(v); };
    scores = scores + dsl::cast(DType::f32, (*form.mask)(at(ms[0], b), at(ms[1], h), at(ms[2], i), Expr(j)));
  }
  if (form.window < 0 || (form.window > 0 && !form.causal))
    user_error("{}: a sliding window of {} keys: the window is of the keys up to the query, i - window < j <= i; give it with "
               "the causal mask and a positive size", name, form.window);
  if (!is_hidden_score(form.hidden))
    user_error("{}: a hidden key's score is {}; the flash kernels write kHiddenScore ({}) or kMaskedScore ({})", name,
               form.hidden, kHiddenScore, kMaskedScore);
  // The DSL's integers are 32-bit: a window past them is cut to the largest, which hides no more
  // (i - j < seq_q, itself 32-bit); 2^32 + 3 once became 3.
  if (form.window > 0)
    scores = dsl::select(Expr(i) - Expr(j) < int(std::min<int64_t>(form.window, std::numeric_limits<int32_t>::max())), scores,
                         Expr(form.hidden));
  f.s(b, h, i, j) = form.causal ? dsl::select(Expr(j) <= Expr(i), scores, Expr(form.hidden)) : scores;
  f.m(b, h, i) = dsl::maximum(f.s(b, h, i, t));
  f.e(b, h, i, j) = dsl::exp(f.s(b, h, i, j) - f.m(b, h, i));
  f.l(b, h, i) = dsl::sum(f.e(b, h, i, t));
  Expr e = f.e(b, h, i, t);
  if (form.rounded_p) e = dsl::cast(DType::f32, dsl::cast(form.q.dtype(), e));
  Expr pv = dsl::sum(e * dsl::cast(DType::f32, form.v(b, kv_head, t, d)));
  f.o(b, h, i, d) = dsl::cast(form.out, pv / f.l(b, h, i));
  f.lse(b, h, i) = f.m(b, h, i) + dsl::log(f.l(b, h, i));
  return f;
}

namespace {

// The scaled score: the first `sum(..) * c` (or another spelling of it: canonical) in the Funcs
// the output calls, the Func whose definition holds it (S), and c.
struct Scaled {
  const ExprNode* node = nullptr;  // as written
  const dsl::FuncImpl* in = nullptr;
  double scale = 1;
};
Scaled find_scaled(const Expr& e, const dsl::FuncImpl* in, std::set<const dsl::FuncImpl*>& seen) {
  const ExprNode& n = e.node();
  const Expr c = canonical(e);
  const ExprNode& m = c.node();
  // The sum itself, or a Func of the user's holding it (the product, scaled in another Func).
  auto sum = [](const ExprNode& x) { return x.op == Op::Sum || (x.op == Op::Func && x.func->value.node().op == Op::Sum); };
  if (m.op == Op::Mul && m.args.size() == 2 && sum(m.args[0].node()) && m.args[1].node().op == Op::Const)
    return {&n, in, m.args[1].node().value};
  // Unscaled (scale 1: Q scaled on the host): the sum of a product of two inputs' reads, Q K^T
  // (the form's other sums, of E and of E V, read a Func).
  auto input_read = [](const Expr& x) {
    const ExprNode* r = &x.node();
    while (r->op == Op::Cast) r = &r->args[0].node();
    return r->op == Op::Input || r->op == Op::Exterior;
  };
  if (m.op == Op::Sum && m.args.size() == 1 && m.args[0].node().op == Op::Mul && m.args[0].node().args.size() == 2 &&
      input_read(m.args[0].node().args[0]) && input_read(m.args[0].node().args[1]))
    return {&n, in, 1.0};
  if (n.op == Op::Func && seen.insert(n.func.get()).second)
    if (Scaled s = find_scaled(n.func->value, n.func.get(), seen); s.node) return s;
  for (const Expr& a : n.args)
    if (Scaled s = find_scaled(a, in, seen); s.node) return s;
  return {};
}

// The inputs `n` reads, in first-use order, through the Funcs it calls.
void inputs_read(const ExprNode* n, std::vector<std::shared_ptr<dsl::InputImpl>>& out, std::set<const dsl::FuncImpl*>& seen) {
  if ((n->op == Op::Input || n->op == Op::Exterior) && std::find(out.begin(), out.end(), n->input) == out.end())
    out.push_back(n->input);
  if (n->op == Op::Func && seen.insert(n->func.get()).second) inputs_read(n->func->value.get(), out, seen);  // each Func once
  for (const Expr& a : n->args) inputs_read(a.get(), out, seen);
}

bool reads_input(const Expr& e, const dsl::InputImpl* input) {
  const ExprNode& n = e.node();
  if ((n.op == Op::Input || n.op == Op::Exterior) && n.input.get() == input) return true;
  for (const Expr& a : n.args)
    if (reads_input(a, input)) return true;
  return false;
}

bool masks(const ExprNode& n) {
  if (n.op != Op::Select || n.args.size() != 3 || n.args[2].node().op != Op::Const) return false;
  return is_hidden_score(n.args[2].node().value);
}

// The W of a sliding window select(i - j < W, .., -big), i and j S's own, or 0.
int64_t window_of(const ExprNode& n, const dsl::FuncImpl& s) {
  if (!masks(n) || s.args.size() != 4) return 0;
  const ExprNode& c = n.args[0].node();
  if (c.op != Op::Lt || c.args[1].node().op != Op::Const) return 0;
  const ExprNode& d = c.args[0].node();
  if (d.op != Op::Sub || d.args[0].node().op != Op::Var || d.args[1].node().op != Op::Var) return 0;
  if (d.args[0].node().var != s.args[2] || d.args[1].node().var != s.args[3]) return 0;
  const double w = c.args[1].node().value;
  return w >= 1 && w == std::floor(w) ? int64_t(w) : 0;
}

// Whether n is the causal select(j <= i, .., -big) (or i >= j) of S's own query i and key j: a
// select of -big on another condition (a score_mod's select(i != j, s, -big)) is part of g.
bool causal_select(const ExprNode& n, const dsl::FuncImpl& s) {
  if (!masks(n) || s.args.size() != 4) return false;
  const ExprNode& c = n.args[0].node();
  if (c.args.size() != 2 || c.args[0].node().op != Op::Var || c.args[1].node().op != Op::Var) return false;
  const auto &a = c.args[0].node().var, &b = c.args[1].node().var, &i = s.args[2], &j = s.args[3];
  return (c.op == Op::Le && a == j && b == i) || (c.op == Op::Ge && a == i && b == j);
}

// What of S's definition is g(scaled): S without its causal select (and the sliding window inside
// it, which sets p.window) and its mask. A window is the form's only where it hides keys as the
// causal select does: one writing another score (a score_mod's select(i - j < W, s, -inf) under
// causal=True) is part of g, evaluated on every tile.
Expr modified_score(const dsl::FuncImpl& s, AttentionPlan& p) {
  Expr v = s.value;
  const ExprNode& n = v.node();
  if (causal_select(n, s)) {
    v = n.args[1];
    const int64_t w = window_of(v.node(), s);
    if (w && v.node().args[2].node().value == n.args[2].node().value) p.window = w, v = v.node().args[1];
  }
  const ExprNode& m = v.node();
  if (p.mask && m.op == Op::Add && m.args.size() == 2 && reads_input(m.args[1], p.mask.get())) v = m.args[0];
  return v;
}

bool is_index(const ExprNode& n, const dsl::FuncImpl& s) {
  if (n.op != Op::Var) return false;
  for (const auto& v : s.args)
    if (v == n.var) return true;
  return false;
}

// A score modifier is elementwise in the score and its indices (S's own variables): what it may
// not read or do, a user error.
void check_modifier(const Expr& e, const ExprNode* scaled, const dsl::FuncImpl& s, const std::string& where) {
  if (e.get() == scaled || is_index(e.node(), s)) return;
  const ExprNode& n = e.node();
  const std::string what = n.op == Op::Var         ? fmt::format("reads the variable {}, which is not one of {}'s", n.var->name, s.name)
                           : n.op == Op::Input || n.op == Op::Exterior ? fmt::format("reads the input {}", n.input->name)
                           : n.op == Op::Func                          ? fmt::format("calls the Func {}", n.func->name)
                           : n.op == Op::Sum || n.op == Op::Maximum || n.op == Op::Minimum
                               ? fmt::format("reduces ({})", op_name(n.op))
                               : "";
  if (!what.empty())
    user_error("{}: the scores' modifier {}; flash() evaluates it on each tile of scaled scores, so it may use the score, "
               "its indices, constants and elementwise operations only (an additive mask is the mask input; causal is its own "
               "form)", where, what);
  for (const Expr& a : n.args) check_modifier(a, scaled, s, where);
}

// The values an integer expression of the indices takes: [lo, hi].
struct Range {
  double lo = 0, hi = 0;
};

// g with its integer arithmetic of the indices in f32, where the vector unit computes it: exact,
// since no value it takes exceeds 2^24 (else a user error), and +, -, *, min, max, abs, select and
// comparisons of integers below 2^24 are exact in f32. Integer division is refused: f32 would not
// truncate.
class IndexArithmetic {
 public:
  // `vars` the indices, `extents` their extents.
  IndexArithmetic(std::vector<const dsl::VarImpl*> vars, std::vector<int64_t> extents, std::string where)
      : vars_(std::move(vars)), extents_(std::move(extents)), where_(std::move(where)) {}

  Expr operator()(const Expr& e) {
    const ExprNode& n = e.node();
    if (n.op == Op::Func) return e;  // the score
    if (n.op == Op::Cast && !is_float(n.args[0].type().dtype)) {
      Expr x = in_f32(n.args[0], nullptr);
      return n.type.dtype == DType::f32 ? x : dsl::cast(n.type.dtype, x);
    }
    if (!is_float(n.type.dtype) && !n.type.boolean) return in_f32(e, nullptr);
    if (n.type.boolean && !n.args.empty() && !is_float(n.args[0].type().dtype)) return in_f32(e, nullptr);
    std::vector<Expr> args;
    for (const Expr& a : n.args) args.push_back((*this)(a));
    return rebuilt(n, n.type, std::move(args));
  }

 private:
  static Expr rebuilt(const ExprNode& n, dsl::Type t, std::vector<Expr> args) {
    auto m = std::make_shared<ExprNode>(n);
    m->type = t;
    m->args = std::move(args);
    return Expr(std::move(m));
  }

  // An integer expression (or a comparison of integers) computed in f32; `range` gets its values.
  Expr in_f32(const Expr& e, Range* range) {
    const ExprNode& n = e.node();
    Range r, a, b;
    Expr out;
    if (n.op == Op::Var) {
      for (size_t d = 0; d < vars_.size(); ++d)
        if (vars_[d] == n.var.get()) r = {0, double(extents_[d] - 1)};
      out = dsl::cast(DType::f32, e);  // the evaluator's f32 value of the index
    } else if (n.op == Op::Const) {
      r = {n.value, n.value};
      out = rebuilt(n, {DType::f32, false}, {});
    } else {
      std::vector<Expr> args;
      std::vector<Range> ranges(n.args.size());
      for (size_t k = 0; k < n.args.size(); ++k)
        args.push_back(n.op == Op::Select && k == 0 ? (*this)(n.args[k]) : in_f32(n.args[k], &ranges[k]));
      if (n.op == Op::Select) ranges.erase(ranges.begin());
      if (!ranges.empty()) a = ranges[0];
      if (ranges.size() > 1) b = ranges[1];
      switch (n.op) {
        case Op::Add: r = {a.lo + b.lo, a.hi + b.hi}; break;
        case Op::Sub: r = {a.lo - b.hi, a.hi - b.lo}; break;
        case Op::Mul: {
          const double p[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
          r = {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
          break;
        }
        case Op::Min: r = {std::min(a.lo, b.lo), std::min(a.hi, b.hi)}; break;
        case Op::Max: r = {std::max(a.lo, b.lo), std::max(a.hi, b.hi)}; break;
        case Op::Neg: r = {-a.hi, -a.lo}; break;
        case Op::Abs: r = {a.lo <= 0 && a.hi >= 0 ? 0 : std::min(std::fabs(a.lo), std::fabs(a.hi)), std::max(std::fabs(a.lo), std::fabs(a.hi))}; break;
        case Op::Select: r = {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; break;
        case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: break;
        default:
          user_error("{}: the scores' modifier computes `{}` on integers; flash() computes the indices' arithmetic in f32, "
                     "where {} would not be an integer's: cast the indices to f32 first (cast(f32, i))", where_, e.str(),
                     op_name(n.op));
      }
      out = rebuilt(n, {DType::f32, n.type.boolean}, std::move(args));
    }
    constexpr double kExact = 16777216;  // 2^24: f32 holds every integer up to it
    if (std::max(std::fabs(r.lo), std::fabs(r.hi)) > kExact)
      user_error("{}: the scores' modifier computes `{}`, whose values reach {}; flash() computes the indices' arithmetic in "
                 "f32, exact up to 2^24 = 16777216: cast to f32 before scaling the indices up", where_, e.str(),
                 std::max(std::fabs(r.lo), std::fabs(r.hi)));
    if (range) *range = r;
    return out;
  }

  std::vector<const dsl::VarImpl*> vars_;
  std::vector<int64_t> extents_;
  std::string where_;
};

const dsl::Directive* flash_directive(const dsl::Func& f) {
  for (const dsl::Directive& d : f.schedule())
    if (d.kind == dsl::Directive::Kind::Flash) return &d;
  return nullptr;
}

// The form a plan's inputs and parameters make, with the plan's score modifier (applied to the
// form's own scaled score in place of `score`).
AttentionForm form_of(const AttentionPlan& p, bool causal) {
  AttentionForm form{dsl::Input(p.q), dsl::Input(p.k), dsl::Input(p.v), p.scale, causal, p.out};
  if (causal) form.window = p.window, form.hidden = p.hidden;
  form.rounded_p = p.rounded_p;
  if (p.mask) form.mask = dsl::Input(p.mask);
  if (p.written_mod.defined()) {
    const Expr g = p.written_mod, score = p.score;
    const ScoreIndex index = p.index;
    form.score_mod = [g, score, index](const Expr& s, const ScoreIndex& at) {
      Expr e = dsl::substitute(g, score.get(), s);
      for (auto [from, to] : {std::pair{&index.b, &at.b}, {&index.h, &at.h}, {&index.q, &at.q}, {&index.kv, &at.kv}})
        e = dsl::substitute(e, from->node().var.get(), *to);
      return e;
    };
  }
  return form;
}

// The additive mask: f32, (B or 1, H or 1, L or 1, S) against Q's and K's shapes.
void check_mask(AttentionPlan& p, const std::string& name) {
  const auto& m = p.mask->shape;
  const std::vector<int64_t> want = {p.batch, p.heads, p.seq_q, p.seq_kv};
  if (m.size() != 4)
    user_error("{}: the mask {} is {}-dimensional; it broadcasts to (batch, heads, queries, keys) = ({}) as four dims, each 1 or "
               "that extent", name, p.mask->name, m.size(), fmt::join(want, ", "));
  for (size_t d = 0; d < 4; ++d)
    if (m[d] != 1 && m[d] != want[d])
      user_error("{}: the mask (input {}) of shape [{}] does not broadcast to (batch, heads, queries, keys) = ({}): dim {} is {}; give it "
                 "extent {}", name, p.mask->name, fmt::join(m, ", "), fmt::join(want, ", "), d, m[d],
                 want[d] == 1 ? std::string("1") : fmt::format("{} or 1", want[d]));
  if (m[3] != p.seq_kv)
    user_error("{}: the mask (input {}) of shape [{}] has one key; the kernel takes a mask over every key (extent {} in the last dim): "
               "expand it to every key (numpy.broadcast_to, or torch's expand)", name, p.mask->name, fmt::join(m, ", "), p.seq_kv);
  if (p.mask->dtype != DType::f32)
    user_error("{}: the mask {} is {}; flash attention adds an f32 mask to the f32 scores (a boolean mask: 0 where a key takes "
               "part, -inf or -1e30 where not)", name, p.mask->name, dtype_name(p.mask->dtype));
  p.mask_b = m[0] != 1, p.mask_h = m[1] != 1, p.mask_i = m[2] != 1;
}

std::string form_text() {
  return "S(b, h, i, j) = g(sum_r f32(Q(b, h, i, r)) * f32(K(b, h / g, j, r)) * scale) (g: an optional elementwise modifier of "
         "the scaled score) (+ f32(mask(b, h, i, j)), its dims of "
         "extent 1 read at 0) (causal: select(j <= i, .., -1e30)), "
         "M = maximum_t S, E = exp(S - M), L = sum_t E, O(b, h, i, d) = cast(out, sum_t E * f32(V(b, h / g, t, d)) / L) "
         "(the scale may also be written c * x, x / c, x / sqrt(c), inside the sum or not at all (1), the sum in a Func of "
         "its own; each of M, L and O may reduce over an RDom of its own over the keys; O softmax first: P = E / L, O = "
         "cast(out, sum_t P * f32(V))): sched::attention_form or kernels::attention builds it";
}

}  // namespace

bool is_attention(const dsl::Func& f) { return flash_directive(f) != nullptr; }

bool attention_direct(const ChipConfig& chip) {
  const CoreConfig *aic = chip.kind(CoreKind::Aic), *aiv = chip.kind(CoreKind::Aiv);
  return aic && aiv && aic->path(Space::L0C, Space::UB) && aiv->path(Space::UB, Space::L1);
}

std::string AttentionPlan::str() const {
  return fmt::format("attention {}: batch {}, heads {} ({} K/V heads), seq {} x {}, dim {}{}{}, flash tiles {} x {}, preload {}",
                     func_name, batch, heads, kv_heads, seq_q, seq_kv, dim, causal ? ", causal" : "",
                     window ? fmt::format(", window {}", window) : "", tile_q, tile_kv, preload);
}

// The first read of `input` in n, or null.
const ExprNode* read_of(const ExprNode& n, const dsl::InputImpl* input) {
  if ((n.op == Op::Input || n.op == Op::Exterior) && n.input.get() == input) return &n;
  for (const Expr& a : n.args)
    if (const ExprNode* r = read_of(a.node(), input)) return r;
  return nullptr;
}

// Q and K read along their sequence at dimension 2, (batch, heads, sequence, head dim): a
// (batch, sequence, heads, dim) layout got the shape checks' messages, which named the sequence
// lengths as head counts.
void check_sequence_axis(const ExprNode& scaled, const dsl::FuncImpl& s, const AttentionPlan& p, const std::string& name) {
  for (auto [input, seq] : {std::pair{p.q.get(), s.args[2].get()}, std::pair{p.k.get(), s.args[3].get()}}) {
    const ExprNode* r = read_of(scaled, input);
    if (!r || r->args.size() != 4) continue;  // the shape checks say what is wrong
    auto is_seq = [&](const Expr& e) { return e.node().op == Op::Var && e.node().var.get() == seq; };
    if (is_seq(r->args[2])) continue;
    std::string index;
    for (const Expr& a : r->args) index += (index.empty() ? "" : ", ") + a.str();
    const bool elsewhere = std::any_of(r->args.begin(), r->args.end(), is_seq);
    user_error("{}: {} is read as {}({}); flash attention reads Q, K and V as (batch, heads, sequence, head dim), the "
               "sequence ({}) third{}", name, input->name, input->name, index, seq->name,
               elsewhere ? fmt::format(": give {} in that layout (numpy: x.transpose(0, 2, 1, 3) from (batch, sequence, "
                                       "heads, dim))", input->name)
                         : "");
  }
}

// K and V read at the query head's group, h / g (torch's enable_gqa: query heads c g .. c g + g - 1
// share K/V head c). Another mapping (an interleaved h - (h / kv) kv) met only the form's message.
void check_head_axis(const ExprNode& scaled, const dsl::FuncImpl& o, const AttentionPlan& p, const std::string& name) {
  const ExprNode* q = read_of(scaled, p.q.get());
  if (!q || q->args.size() != 4 || o.args.size() != 4) return;  // the form's message says what is wrong
  if (q->args[1].node().op != Op::Var) return;
  const int64_t g = p.group();
  using Read = std::pair<const ExprNode*, const dsl::VarImpl*>;  // K or V, and the query head it is for
  for (auto [read, h] : {Read{read_of(scaled, p.k.get()), q->args[1].node().var.get()},
                         Read{read_of(o.value.node(), p.v.get()), o.args[1].get()}}) {
    if (!read || read->args.size() != 4) continue;
    const ExprNode& at = read->args[1].node();
    auto is_h = [&](const ExprNode& e) { return e.op == Op::Var && e.var.get() == h; };
    if (g == 1 ? is_h(at) : at.op == Op::Div && is_h(at.args[0].node()) && at.args[1].node().op == Op::Const &&
                                at.args[1].node().value == double(g))
      continue;
    user_error("{}: {} is read at head {} for query head {}; flash() reads K and V at head {}{} ({} query heads, {} K/V heads: "
               "query heads c*{} .. c*{} + {} share K/V head c, as torch's enable_gqa). For another mapping (an interleaved "
               "h % kv_heads), order Q's heads on the host so that each K/V head's query heads are together, and O's back",
               name, read->input->name, read->args[1].str(), h->name, h->name,
               g == 1 ? "" : fmt::format(" / {}", g), p.heads, p.kv_heads, g, g, g - 1);
  }
}

AttentionPlan plan_attention(const dsl::Func& f, const ChipConfig& chip) {
  const dsl::Directive* flash = flash_directive(f);
  CUBEKIT_ASSERT(flash, "plan_attention on {}, which has no flash()", f.name());
  std::vector<std::shared_ptr<dsl::InputImpl>> in = f.inputs();
  if (in.size() != 3 && in.size() != 4)
    user_error("{}.{}: flash attention reads three inputs, Q, K and V, and optionally an additive mask; {} reads {}. The form "
               "is {}", f.name(), flash->text, f.name(), in.size(), form_text());
  // After the form's first check: flash() on a Func of another form is told about the form, not
  // about its other directives.
  for (const dsl::Directive& d : f.schedule())
    if (d.kind != dsl::Directive::Kind::Flash)
      user_error("{}.{}: a flash() schedule is all an attention Func takes; its tiles are flash(tile_q, tile_kv)", f.name(), d.text);
  // The Funcs o calls (S, M, E, L) are flash()'s to compute: a schedule of their own would do nothing.
  std::set<const dsl::FuncImpl*> called;
  std::function<void(const ExprNode&)> walk = [&](const ExprNode& n) {
    if (n.op == Op::Func && called.insert(n.func.get()).second) {
      if (!n.func->schedule.empty())
        user_error("{}.{}: {} is computed by {}'s {}; a schedule of its own is not used: clear it ({}.schedule = "
                   "cubekit.Schedule() in Python, {}.schedule() = {{}} in C++)", n.func->name,
                   n.func->schedule.front().text, n.func->name, f.name(), flash->text, n.func->name, n.func->name);
      walk(n.func->value.node());
    }
    for (const Expr& a : n.args) walk(a.node());
  };
  walk(f.impl->value.node());
  AttentionPlan p;
  p.func_name = f.name();
  p.split = chip.split(), p.direct = attention_direct(chip);
  // Q and K: what the scaled score's sum reads, in that order; the mask: another input the scores
  // read; V: the one left (in first-use order, O's sum_t V * E read V first).
  std::set<const dsl::FuncImpl*> seen;
  const Scaled scaled = find_scaled(f.impl->value, f.impl.get(), seen);
  std::vector<std::shared_ptr<dsl::InputImpl>> qk, scores;
  std::set<const dsl::FuncImpl*> read_qk, read_scores;
  if (scaled.node) inputs_read(scaled.node, qk, read_qk), inputs_read(scaled.in->value.get(), scores, read_scores);
  auto is_one_of = [](const std::vector<std::shared_ptr<dsl::InputImpl>>& v, const std::shared_ptr<dsl::InputImpl>& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  if (qk.size() == 2) {
    p.q = qk[0], p.k = qk[1];
    for (const auto& t : in)
      if (t != p.q && t != p.k) (in.size() == 4 && is_one_of(scores, t) ? p.mask : p.v) = t;
  }
  if (!p.v || (in.size() == 4 && !p.mask)) {  // not the form: its check below says so
    p.q = in[0], p.k = in[1], p.v = in.back();
    if (in.size() == 4) p.mask = in[2];
  }
  in = {p.q, p.k, p.v};
  if (scaled.node && scaled.in->args.size() == 4) check_sequence_axis(*scaled.node, *scaled.in, p, f.name());
  for (const auto& t : in)
    if (t->shape.size() != 4)
      user_error("{}: {} is {}-dimensional; flash attention's Q, K and V are (batch, heads, sequence, head dim)", f.name(),
                 t->name, t->shape.size());
  const auto &qs = p.q->shape, &ks = p.k->shape, &vs = p.v->shape;
  if (ks != vs)
    user_error("{}: K ({}) is [{}] and V ({}) is [{}]; they must have the same shape (batch, K/V heads, keys, head dim)",
               f.name(), p.k->name, fmt::join(ks, ", "), p.v->name, fmt::join(vs, ", "));
  if (qs[0] != ks[0]) user_error("{}: Q has batch {} and K {}; they must be the same", f.name(), qs[0], ks[0]);
  if (qs[3] != ks[3]) user_error("{}: Q's head dim is {} and K's {}; they must be the same", f.name(), qs[3], ks[3]);
  if (qs[1] % ks[1] != 0)
    user_error("{}: {} query heads do not divide into groups of the {} K/V heads; grouped-query attention needs the K/V heads "
               "to divide the query heads", f.name(), qs[1], ks[1]);
  p.batch = qs[0], p.heads = qs[1], p.kv_heads = ks[1], p.seq_q = qs[2], p.seq_kv = ks[2], p.dim = qs[3];
  if (scaled.node) check_head_axis(*scaled.node, *f.impl, p, f.name());
  p.in = p.q->dtype, p.out = f.type().dtype;
  for (const auto& t : in)
    if (t->dtype != DType::f16 && t->dtype != DType::bf16)
      user_error("{}: {} is {}; flash attention's inputs are f16 or bf16 (its statistics are f32)", f.name(), t->name,
                 dtype_name(t->dtype));
  // O leaves the vector unit as its f32 statistics are, or converted to a 16-bit float; the
  // vector unit has no conversion from f32 to an integer type.
  if (p.out != DType::f16 && p.out != DType::bf16 && p.out != DType::f32)
    user_error("{}: O is {}; flash attention writes f32, f16 or bf16. Write {} in one of those and convert it in a Func "
               "that reads it", f.name(), dtype_name(p.out), f.name());
  if (p.k->dtype != p.in || p.v->dtype != p.in)
    user_error("{}: Q, K and V are {}, {} and {}; they must have one type", f.name(), dtype_name(p.in), dtype_name(p.k->dtype),
               dtype_name(p.v->dtype));
  if (p.dim % 16 != 0 || p.dim > 128)
    user_error("{}: head dim {}: the cube tiles a head in 16-element fractals and L0 holds at most 128 elements of a row; use a head "
               "dim that is a multiple of 16 up to 128 (64 and 128 are the usual)", f.name(), p.dim);
  if (p.mask) check_mask(p, f.name());
  if (!scaled.node)
    user_error("{}.{}: no scaled score (sum(..) * scale) in {}; the form is {}", f.name(), flash->text, f.name(), form_text());
  p.scale = scaled.scale;
  if (Expr g = modified_score(*scaled.in, p); g.get() != scaled.node) {
    const std::string where = fmt::format("{}.{}: {}", f.name(), flash->text, scaled.in->name);
    check_modifier(g, scaled.node, *scaled.in, where);
    if (scaled.in->args.size() != 4)
      user_error("{}: {} has {} arguments; the scores are S(b, h, i, j). The form is {}", where, scaled.in->name,
                 scaled.in->args.size(), form_text());
    dsl::Var b("b"), h("h"), i("i"), j("j");
    dsl::Func score(f.name() + "_scaled_score");
    score(b, h, i, j) = Expr(0.0);
    p.score = score(b, h, i, j);
    p.index = {Expr(b), Expr(h), Expr(i), Expr(j)};
    const Expr* mine[] = {&p.index.b, &p.index.h, &p.index.q, &p.index.kv};
    Expr written = dsl::substitute(g, scaled.node, p.score);
    std::vector<const dsl::VarImpl*> vars;
    for (size_t d = 0; d < 4; ++d) {
      const Expr before = written;
      written = dsl::substitute(written, scaled.in->args[d].get(), *mine[d]);
      p.reads[d] = written.get() != before.get();
      vars.push_back(mine[d]->node().var.get());
    }
    p.written_mod = written;
    p.score_mod = IndexArithmetic(vars, {p.batch, p.heads, p.seq_q, p.seq_kv}, where)(written);
  }
  bool matched = false;
  const std::shared_ptr<dsl::FuncImpl> rewritten = softmax_first(*f.impl);
  const dsl::FuncImpl& written = rewritten ? *rewritten : *f.impl;
  for (bool rounded : {false, true})
    for (bool causal : {false, true})
      for (double hidden : {kHiddenScore, kMaskedScore, double(float(kHiddenScore)), double(float(kMaskedScore))}) {
        if (matched || (!causal && hidden != kHiddenScore)) continue;
        p.hidden = hidden, p.rounded_p = rounded;
        AttentionFuncs want = attention_form(form_of(p, causal));
        if (same_form(written, *want.o.impl)) p.causal = causal, matched = true;
      }
  if (!p.causal) p.hidden = kHiddenScore;
  if (!matched) user_error("{}.{}: {} is not attention in the form flash() computes: {}", f.name(), flash->text, f.name(), form_text());
  // Query i sees keys i - window + 1 .. i: past seq_kv + window - 1 none, and a softmax over no
  // scores has no value (the reference's -1e30 would average every key, torch's -inf give NaN).
  if (p.causal && p.window && p.seq_q >= p.seq_kv + p.window)
    user_error("{}: a sliding window of {} key{} over {} keys leaves queries {}..{} with no key to attend to (query i sees "
               "keys i - {} .. i); give at most {} queries, a window of at least {} keys, or more keys", f.name(), p.window,
               p.window == 1 ? "" : "s", p.seq_kv,
               p.seq_kv + p.window - 1, p.seq_q - 1, p.window - 1, p.seq_kv + p.window - 1, p.seq_q - p.seq_kv + 1);

  if (!chip.fractal(p.in)) {
    std::string types;
    for (const CubeFractal& cf : chip.cube) types += (types.empty() ? "" : " or ") + std::string(dtype_name(cf.input));
    user_error("{}: the cube of {} multiplies {}, but Q, K and V are {}", f.name(), chip.name, types, dtype_name(p.in));
  }
  p.tile_q = flash->factor, p.tile_kv = flash->min;
  p.schedule = flash->text;
  auto tile = [&](const char* what, int64_t v) {
    if (v <= 0 || v % 16 != 0 || v > 256)
      user_error("{}.{}: {} {} must be a multiple of 16 from 16 to 256 (the cube's fractals)", f.name(), flash->text, what, v);
  };
  tile("tile_q", p.tile_q);
  tile("tile_kv", p.tile_kv);
  if (p.causal && p.tile_q != p.tile_kv)
    user_error("{}.{}: a causal mask needs tile_q == tile_kv, so that one key tile per query tile holds the diagonal; got {} and {}",
               f.name(), flash->text, p.tile_q, p.tile_kv);
  // A tile past its sequence holds no more than one of the whole sequence (rounded up to the
  // fractals) does, as split() takes a factor beyond its loop's extent; its buffers would not.
  const int64_t q_all = round_up(p.seq_q, 16), kv_all = round_up(p.seq_kv, 16);
  if (p.causal) p.tile_q = p.tile_kv = std::min(p.tile_q, std::max(q_all, kv_all));
  else p.tile_q = std::min(p.tile_q, q_all), p.tile_kv = std::min(p.tile_kv, kv_all);
  p.preload = flash->ahead ? flash->ahead : p.split ? kAttentionPreload : 1;
  if (p.preload < 0)
    user_error("{}.{}: preload {} is negative; it counts the key tiles the cube computes the scores ahead of the softmax (0: the "
               "chip's own)", f.name(), flash->text, p.preload);
  if (!p.split && p.preload != 1)
    user_error("{}.{}: preload {}: {}'s coupled core computes the scores one key tile ahead of its softmax; running further ahead "
               "needs a split chip's cube and vector cores (ascend910b2, ascend950pr). Use preload 1, or leave it out",
               f.name(), flash->text, p.preload, chip.name);
  if (p.preload > kAttentionMaxPreload)
    user_error("{}.{}: preload {}: the cube core hands the scores over through preload + 1 slots, which a cross-core flag counts, "
               "and its counter holds at most {}; use a preload from 1 to {}", f.name(), flash->text, p.preload,
               kCrossMaxOutstanding, kAttentionMaxPreload);
  return p;
}

void attach_lse(AttentionPlan& p, const dsl::Func& lse) {
  AttentionFuncs want = attention_form(form_of(p, p.causal));
  if (!same_form(*lse.impl, *want.lse.impl))
    user_error("{}.store_with({}): the second output flash attention writes is its logsumexp, LSE(b, h, i) = M(b, h, i) + "
               "log(L(b, h, i)) in f32 over the same scores ({}_lse of sched::attention_form; kernels::attention with lse = "
               "true); {} is not it", lse.name(), p.func_name, p.func_name, lse.name());
  p.lse = lse.name();
}

}  // namespace cubekit::sched
