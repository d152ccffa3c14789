#include "schedules/affine_index.h"

#include "emulator/error.h"

#include <fmt/format.h>

namespace cubekit::sched {

using dsl::ExprNode;
using dsl::Op;

namespace {

Linear scaled(Linear a, int64_t k) {
  for (auto& [v, c] : a.terms) c *= k;
  a.c *= k;
  return a;
}

}  // namespace

Linear linear(const dsl::Expr& e) {
  const ExprNode& n = e.node();
  Linear out;
  switch (n.op) {
    case Op::Const:
      out.c = int64_t(n.value);
      out.ok = double(out.c) == n.value;
      return out;
    case Op::Var: out.terms[n.var.get()] = 1; return out;
    case Op::Cast: return is_float(n.type.dtype) ? Linear{{}, 0, false} : linear(n.args[0]);
    case Op::Neg: return scaled(linear(n.args[0]), -1);
    case Op::Add:
    case Op::Sub: {
      Linear a = linear(n.args[0]), b = scaled(linear(n.args[1]), n.op == Op::Sub ? -1 : 1);
      for (auto& [v, c] : b.terms) a.terms[v] += c;
      a.c += b.c, a.ok = a.ok && b.ok;
      return a;
    }
    case Op::Mul: {
      Linear a = linear(n.args[0]), b = linear(n.args[1]);
      if (!a.ok || !b.ok || (!a.terms.empty() && !b.terms.empty())) return {{}, 0, false};
      return a.terms.empty() ? scaled(b, a.c) : scaled(a, b.c);
    }
    default: return {{}, 0, false};
  }
}

const ExprNode* strip_cast(const ExprNode* n) { return n->op == Op::Cast ? n->args[0].get() : n; }

bool affine_read(const ExprNode* n) {
  if (n->op == Op::Exterior) return true;
  if (n->op != Op::Input) return false;
  for (const dsl::Expr& i : n->args)
    if (i.node().op != Op::Var) return true;
  return false;
}

Axis window_axis(const std::string& fname, const dsl::Expr& index, const dsl::VarImpl* out, const dsl::VarImpl* r,
                 const char* axis, const char* form) {
  Linear l = linear(index);
  auto bad = [&](const std::string& why) { user_error("{}: the input's {} index `{}` {}; {}", fname, axis, index.str(), why, form); };
  if (!l.ok) bad("is not affine in the variables");
  for (const auto& [v, c] : l.terms)
    if (v != out && v != r && c != 0) bad(fmt::format("uses {}, which is neither {} nor {}", v->name, out->name, r->name));
  Axis a{l.of(out), l.of(r), -l.c};
  if (a.stride < 1) bad(fmt::format("needs a positive stride on {}", out->name));
  if (a.dilation < 1) bad(fmt::format("needs a positive dilation on {}", r->name));
  if (a.pad < 0) bad("starts past the input's first row or column (an offset, not padding)");
  return a;
}

}  // namespace cubekit::sched
