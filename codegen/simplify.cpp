#include "codegen/simplify.h"

#include "emulator/error.h"

#include <optional>

namespace cubekit::codegen {

namespace {

// The value of `a op b` for constants, as the scalar unit computes it (div and rem round toward
// zero; the builders only divide by positive numbers).
int64_t fold(int64_t a, LetOp op, int64_t b) {
  switch (op) {
    case LetOp::Div: return a / b;
    case LetOp::Rem: return a % b;
    case LetOp::Add: return a + b;
  }
  return 0;
}

class Simplifier {
 public:
  explicit Simplifier(Kernel& k) : k_(k), defs_(k.vars.size(), 0), uses_(k.vars.size(), 0), value_(k.vars.size()) {}

  // Twice: a definition the first round removed (`rest = rest / 1`) can leave a variable with one
  // definition, which the second round may replace.
  void run() {
    for (int round = 0; round < 2; ++round) {
      std::fill(defs_.begin(), defs_.end(), 0);
      count_defs(k_.body);
      count_defs(k_.vector_body);
      k_.body = block(std::move(k_.body));
      k_.vector_body = block(std::move(k_.vector_body));
    }
    count_uses(k_.body);
    count_uses(k_.vector_body);
    drop_unused(k_.body);
    drop_unused(k_.vector_body);
  }

 private:
  // Definitions per variable; a variable that selects a buffer's copy (a Ref's counter, read by
  // the emitter as a register) counts as redefined, so that it keeps its Let.
  void count_defs(const std::vector<Node>& body) {
    for (const Node& n : body) {
      if (n.kind == Node::Kind::Let || n.kind == Node::Kind::Loop) ++defs_[size_t(n.var)];
      for (const Ref& r : n.refs)
        if (r.counter >= 0) defs_[size_t(r.counter)] += 2;
      count_defs(n.body);
      count_defs(n.orelse);
    }
  }

  // A variable whose value cannot change between where it is set and where it is read: the
  // indices the emitter sets, or one definition (a loop's variable is fixed within an iteration,
  // and read only inside the loop).
  bool stable(int v) const {
    if (v == kBlockIdx || v == kBlockNum || v == k_.subblock) return true;
    return defs_[size_t(v)] == 1 && !k_.vars[size_t(v)].counter;
  }

  Affine subst(const Affine& a) const {
    Affine out(a.c);
    for (auto [v, c] : a.terms) out = out + (value_[size_t(v)] ? *value_[size_t(v)] * c : Affine::var(v, c));
    return out;
  }

  // Whether `a` may stand for a variable at each of its uses: a constant, or a stable variable.
  bool replaceable(const Affine& a) const {
    if (a.constant()) return true;
    return a.c == 0 && a.terms.size() == 1 && a.terms[0].second == 1 && stable(a.terms[0].first);
  }

  std::vector<Node> block(std::vector<Node> body) {
    std::vector<Node> out;
    for (Node& n : body) {
      switch (n.kind) {
        case Node::Kind::Let: {
          n.a = subst(n.a);
          if (n.let_op != LetOp::Add && n.b == 1)  // x / 1 is x, x % 1 is 0
            n.a = n.let_op == LetOp::Div ? n.a : Affine(0), n.let_op = LetOp::Add, n.b = 0;
          if (n.a.constant()) n.a = Affine(fold(n.a.c, n.let_op, n.b)), n.let_op = LetOp::Add, n.b = 0;
          if (n.let_op == LetOp::Add && n.b) n.a = n.a + Affine(n.b), n.b = 0;
          if (n.let_op == LetOp::Add && n.a.c == 0 && n.a.terms.size() == 1 && n.a.terms[0] == std::pair<int, int64_t>{n.var, 1})
            continue;  // v = v: nothing to do
          if (n.let_op == LetOp::Add && stable(n.var) && replaceable(n.a)) {
            value_[size_t(n.var)] = n.a;
            continue;
          }
          out.push_back(std::move(n));
          break;
        }
        case Node::Kind::Loop: {
          n.begin = subst(n.begin), n.end = subst(n.end), n.step = subst(n.step);
          if (n.begin.constant() && n.end.constant() && n.step.constant() && n.step.c > 0) {
            int64_t trips = n.end.c <= n.begin.c ? 0 : (n.end.c - n.begin.c + n.step.c - 1) / n.step.c;
            if (trips == 0) break;
            if (trips == 1 && stable(n.var)) {  // the body once, the variable its first value
              value_[size_t(n.var)] = n.begin;
              out += block(std::move(n.body));
              break;
            }
          }
          n.body = block(std::move(n.body));
          out.push_back(std::move(n));
          break;
        }
        case Node::Kind::If: {
          n.a = subst(n.a);
          if (n.a.constant()) {
            bool taken = n.compare == Compare::Lt ? n.a.c < n.b : n.a.c == n.b;
            out += block(std::move(taken ? n.body : n.orelse));
            break;
          }
          n.body = block(std::move(n.body));
          n.orelse = block(std::move(n.orelse));
          out.push_back(std::move(n));
          break;
        }
        case Node::Kind::Scope:
          n.body = block(std::move(n.body));
          out.push_back(std::move(n));
          break;
        case Node::Kind::Instr:
          for (Ref& r : n.refs) r.offset = subst(r.offset);
          out.push_back(std::move(n));
          break;
        case Node::Kind::Sync: out.push_back(std::move(n)); break;
        case Node::Kind::Move:
        case Node::Kind::Mmad: CUBEKIT_ASSERT(false, "simplification before instruction selection");
      }
    }
    return out;
  }

  void count_uses(const std::vector<Node>& body) {
    auto add = [&](const Affine& a) {
      for (auto [v, c] : a.terms) ++uses_[size_t(v)];
    };
    for (const Node& n : body) {
      add(n.a), add(n.begin), add(n.end), add(n.step);
      for (const Ref& r : n.refs) {
        add(r.offset);
        if (r.counter >= 0) ++uses_[size_t(r.counter)];
      }
      if (n.counter >= 0) ++uses_[size_t(n.counter)];
      count_uses(n.body);
      count_uses(n.orelse);
    }
  }

  // A Let of a variable nothing reads (what folding left behind) goes; counters are read through
  // their buffers.
  void drop_unused(std::vector<Node>& body) {
    std::erase_if(body, [&](const Node& n) {
      return n.kind == Node::Kind::Let && !uses_[size_t(n.var)] && !k_.vars[size_t(n.var)].counter;
    });
    for (Node& n : body) {
      drop_unused(n.body);
      drop_unused(n.orelse);
    }
  }

  Kernel& k_;
  std::vector<int> defs_, uses_;
  std::vector<std::optional<Affine>> value_;  // per variable: what stands for it
};

}  // namespace

void simplify(Kernel& kernel) { Simplifier(kernel).run(); }

}  // namespace cubekit::codegen
