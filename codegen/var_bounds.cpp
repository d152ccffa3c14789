#include "codegen/var_bounds.h"

namespace cubekit::codegen {

VarBounds::VarBounds(const Kernel& k, const std::vector<Node>& body) {
  for (int v = 0; v < int(k.vars.size()); ++v) non_negative_.insert(v);
  for (bool dropped = true; dropped;) {
    dropped = false;
    auto visit = [&](auto&& self, const std::vector<Node>& nodes) -> void {
      for (const Node& n : nodes) {
        bool ok = true;
        if (n.kind == Node::Kind::Loop) ok = non_negative(n.begin) && n.step.constant() && n.step.c > 0;
        if (n.kind == Node::Kind::Let) ok = non_negative(n.a) && (n.let_op == LetOp::Add ? n.b >= 0 : n.b > 0);
        const int var = n.kind == Node::Kind::Loop || n.kind == Node::Kind::Let ? n.var : -1;
        if (var >= 0 && !ok && non_negative_.erase(var)) dropped = true;
        self(self, n.body);
        self(self, n.orelse);
      }
    };
    visit(visit, body);
  }
}

bool VarBounds::positive(const Affine& a) const {
  if (a.c <= 0) return false;
  for (auto [v, c] : a.terms)
    if (c < 0 || !non_negative_.count(v)) return false;
  return true;
}

bool VarBounds::non_negative(const Affine& a) const { return a.c >= 0 && (a.terms.empty() || positive(a + Affine(1))); }

int VarBounds::decided(const Node& n, int var, const Affine& value) const {
  const int64_t c = n.a.coefficient(var);
  const Affine a = n.a - Affine::var(var, c) + value * c;  // the condition's left side at that value
  // Bounds of `a` over its variables, never negative: its terms of one sign only.
  bool up = true, down = true;  // a <= a.c, a >= a.c
  for (auto [v, k] : a.terms) {
    if (k == 0) continue;
    if (!non_negative_.count(v)) return -1;
    (k > 0 ? up : down) = false;
  }
  if (n.compare == Compare::Lt) {
    if (up && a.c < n.b) return 1;
    if (down && a.c >= n.b) return 0;
    return -1;
  }
  if (a.terms.empty()) return a.c == n.b ? 1 : 0;
  if ((down && a.c > n.b) || (up && a.c < n.b)) return 0;
  return -1;
}

}  // namespace cubekit::codegen
