#include "codegen/emit.h"

#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

namespace cubekit::codegen {

namespace {

// x1.. hold variables; the last four registers are scratch for one instruction's addresses.
constexpr int kFirstTemp = 28, kScratch = 31;

// What a scratch register holds, in the registers it was computed from: sum(terms) + (x[counter] %
// copies) * stride. The emitter reuses such a value instead of computing it again (an address that
// the next instruction shares, the parity a double-buffered sync branches on) while neither the
// register nor any it was computed from has been written and no label has been passed: a copy's
// two loads and a vadd's two reads of one buffer each computed `rem; mul` before, a fifth of an
// elementwise kernel's scalar instructions.
struct Value {
  std::vector<std::pair<int, int64_t>> terms;  // (register, coefficient)
  int counter = -1;                            // -1: no copy offset
  int64_t copies = 0, stride = 0;
  bool operator==(const Value&) const = default;
  bool reads(int reg) const {
    return counter == reg || std::any_of(terms.begin(), terms.end(), [&](const auto& t) { return t.first == reg; });
  }
};

class Emitter {
 public:
  Emitter(const Kernel& k, const ChipConfig& chip) : k_(k), chip_(chip), b_(k.name) {}

  Program run() {
    for (const TensorDecl& t : k_.tensors) b_.tensor(t.name, t.dtype, t.shape, t.role);
    b_.block_dim(k_.block_dim);
    if (!k_.mixed()) {
      entry(k_.body);
      return std::move(b_).finish();
    }
    // A mixed kernel: the cube cores' program, then the vector cores' (registers are per core).
    b_.entry(CoreKind::Aic, "cube");
    b_.entry(CoreKind::Aiv, "vec");
    place("cube");
    entry(k_.body);
    place("vec");
    entry(k_.vector_body, k_.subblock);
    return std::move(b_).finish();
  }

 private:
  // One core's program: its indices, then the body (`subblock` >= 0: it reads subblock_idx).
  void entry(const std::vector<Node>& body, int subblock = -1) {
    bind(kBlockIdx);
    emit("block_idx", {x(reg(kBlockIdx))});
    bind(kBlockNum);
    emit("block_num", {x(reg(kBlockNum))});
    if (subblock >= 0) emit("subblock_idx", {x(bind(subblock))});
    std::set<int> used;
    for (const Node& n : body) mentions(n, used);
    std::vector<int> counters;
    for (int v : used)  // use counters live throughout
      if (is_counter(v)) counters.push_back(v), bind(v);
    block(body);
    emit("end", {});
    for (int v : counters) unbind(v);
    for (int v : {kBlockIdx, kBlockNum, subblock})
      if (v >= 0) unbind(v);
  }

  // Every instruction goes out here: a scalar operation's destination, and every value computed
  // from it, is no longer known.
  void emit(std::string_view mnemonic, const std::vector<Arg>& args) {
    static const std::set<std::string_view> writers = {"li",  "mov", "add",       "sub",       "mul",
                                                       "div", "rem", "block_idx", "block_num", "subblock_idx"};
    if (writers.count(mnemonic)) forget(args.at(0).reg);
    b_.emit(mnemonic, args);
  }
  void forget(int reg) {
    for (size_t r = 0; r < held_.size(); ++r)
      if (held_[r] && (int(r) == reg || held_[r]->reads(reg))) held_[r].reset();
  }
  // A label: control joins from elsewhere, where the scratch registers may hold anything.
  void place(const std::string& label) {
    held_ = {};
    b_.label(label);
  }
  // The scratch register (kFirstTemp..kScratch) holding `v`, or -1.
  int holding(const Value& v) const {
    for (int r = kFirstTemp; r <= kScratch; ++r)
      if (held_[size_t(r)] == v) return r;
    return -1;
  }

  int reg(int var) const {
    auto it = reg_.find(var);
    CUBEKIT_ASSERT(it != reg_.end(), "variable {} used outside its scope", k_.vars[size_t(var)].name);
    return it->second;
  }
  int bind(int var) {
    int r = 1;
    while (r < kFirstTemp && in_use_[size_t(r)]) ++r;
    if (r == kFirstTemp) {
      std::string live;
      for (auto [v, reg] : reg_) live += (live.empty() ? "" : ", ") + k_.vars[size_t(v)].name;
      user_error("{}: the kernel needs more than {} scalar registers for its loop variables ({} and {} live at once); "
                 "use fewer loops, e.g. fewer batch dimensions or splits", k_.name, kFirstTemp - 1,
                 k_.vars[size_t(var)].name, live);
    }
    in_use_[size_t(r)] = true;
    reg_[var] = r;
    return r;
  }
  void unbind(int var) {
    in_use_[size_t(reg_.at(var))] = false;
    reg_.erase(var);
  }
  std::string label() { return fmt::format("L{}", labels_++); }

  // Emits `target = a`.
  // An immediate operand for `value`, or -- past the 32 bits an ALU or branch immediate holds (a
  // large tensor's strides) -- `scratch` loaded with it (li takes 64 bits).
  Arg operand(int64_t value, int scratch) {
    if (value >= INT32_MIN && value <= INT32_MAX) return imm(value);
    emit("li", {x(scratch), imm(value)});
    return x(scratch);
  }

  // `target` may be the register of a variable of `a` only as its first term (it is read before
  // it is written).
  void compute(int target, const Affine& a) {
    int sum = -1;  // the register holding the terms so far
    for (auto [v, c] : a.terms) {
      int src = reg(v);
      if (c != 1) {
        int into = sum < 0 ? target : kScratch;
        emit("mul", {x(into), x(src), operand(c, kScratch)});
        src = into;
      }
      if (sum >= 0) emit("add", {x(target), x(sum), x(src)});
      sum = sum < 0 ? src : target;
    }
    if (sum < 0) return void(emit("li", {x(target), imm(a.c)}));
    if (a.c) emit("add", {x(target), x(sum), operand(a.c, kScratch)}), sum = target;
    if (sum != target) emit("mov", {x(target), x(sum)});
  }

  // `a`'s terms (not its constant) over the variables' registers.
  Value terms_value(const Affine& a) const {
    Value v;
    for (auto [var, c] : a.terms) v.terms.push_back({reg(var), c});
    return v;
  }

  // The register holding `a` less its constant: a variable's own when that is all it is, else a
  // scratch register already holding it, else `temp` computed. The constant goes into an address's
  // or a comparison's immediate.
  int terms_in(const Affine& a, int temp) {
    if (a.terms.size() == 1 && a.terms[0].second == 1) return reg(a.terms[0].first);
    Value v = terms_value(a);
    if (int held = temp_holding(v); held >= 0) return held;  // not kScratch: the loop test's `sub` writes it
    Affine terms = a;
    terms.c = 0;
    compute(temp, terms);
    held_[size_t(temp)] = std::move(v);
    return temp;
  }

  // Where a memory operand points: `base` + `offset` + the value of a register, `value` (none for a
  // constant address, or one variable's own register in `var_reg`).
  struct Location {
    std::string base;
    int64_t offset = 0;
    int var_reg = -1;
    std::optional<Value> value;
    Affine terms;  // the value's terms, over the variables
  };
  Location locate(const Ref& r) const {
    Location l{r.tensor >= 0 ? k_.tensors[size_t(r.tensor)].name : std::string(space_name(k_.buffers[size_t(r.buffer)].space))};
    Affine addr = r.offset;
    int copies = 1;
    if (r.buffer >= 0) {
      const Buffer& buf = k_.buffers[size_t(r.buffer)];
      addr = addr + Affine(buf.base);
      copies = buf.copies;
    }
    l.offset = addr.c;
    if (addr.constant() && copies == 1) return l;
    if (copies == 1 && addr.terms.size() == 1 && addr.terms[0].second == 1) {
      l.var_reg = reg(addr.terms[0].first);
      return l;
    }
    l.value = terms_value(addr);
    l.terms = addr;
    l.terms.c = 0;
    if (copies > 1) {
      const Buffer& buf = k_.buffers[size_t(r.buffer)];
      l.value->counter = reg(r.counter >= 0 ? r.counter : buf.counter), l.value->copies = copies, l.value->stride = buf.stride;
    }
    return l;
  }

  // A scratch register other than kScratch (the operands computed after this one compute through it)
  // holding `v`, or -1.
  int temp_holding(const Value& v) const {
    int held = holding(v);
    return held < kScratch ? held : -1;
  }

  // A memory operand: constant addresses inline, others through a register: one that holds the
  // address already, else the first of kFirstTemp.. that no other operand of the instruction
  // uses (bits of `used`), computed.
  Arg memory(const Location& l, unsigned& used) {
    if (l.offset < INT32_MIN || l.offset > INT32_MAX) return far_memory(l, used);
    if (!l.value) return l.var_reg >= 0 ? mem(l.base, x(l.var_reg), l.offset) : mem(l.base, l.offset);
    const Value& v = *l.value;
    if (int held = temp_holding(v); held >= 0) return mem(l.base, x(held), l.offset);
    int t = kFirstTemp;
    while (t < kScratch && (used >> t & 1)) ++t;
    CUBEKIT_ASSERT(t < kScratch, "an instruction with more than three run-time addresses");
    used |= 1u << t;
    if (v.counter < 0) {
      compute(t, l.terms);
    } else if (l.terms.constant()) {  // the copy's offset alone
      emit("rem", {x(t), x(v.counter), imm(v.copies)});
      emit("mul", {x(t), x(t), imm(v.stride)});
    } else {
      compute(t, l.terms);
      emit("rem", {x(kScratch), x(v.counter), imm(v.copies)});
      emit("mul", {x(kScratch), x(kScratch), imm(v.stride)});
      emit("add", {x(t), x(t), x(kScratch)});
    }
    held_[size_t(t)] = v;
    return mem(l.base, x(t), l.offset);
  }

  // A memory operand whose constant is past the 32 bits an address's immediate holds (a tile of a
  // GM tensor past 2 GiB): its whole address in a scratch register, the constant added through
  // kScratch, and the register known to hold nothing reusable.
  Arg far_memory(Location l, unsigned& used) {
    const int64_t offset = l.offset;
    l.offset = 0;
    const bool variable = l.value || l.var_reg >= 0;
    const unsigned before = used;
    Arg a = variable ? memory(l, used) : Arg{};
    int t = a.reg;
    if (used == before) {  // a fresh temp: not a variable's own register, nor one another operand may share
      t = kFirstTemp;
      while (t < kScratch && (used >> t & 1)) ++t;
      CUBEKIT_ASSERT(t < kScratch, "an instruction with more than three run-time addresses");
      used |= 1u << t;
    }
    emit("li", {x(kScratch), imm(offset)});
    if (variable) emit("add", {x(t), x(a.reg), x(kScratch)});
    else emit("mov", {x(t), x(kScratch)});
    held_[size_t(t)].reset();
    return mem(l.base, x(t), 0);
  }

  // The operands whose addresses a scratch register holds keep it; the others are computed into
  // the rest.
  void instruction(const Node& n) {
    std::vector<Location> where(n.refs.size());
    unsigned used = 0;
    for (size_t i = 0; i < n.refs.size(); ++i) {
      where[i] = locate(n.refs[i]);
      if (where[i].value)
        if (int held = temp_holding(*where[i].value); held >= 0) used |= 1u << held;
    }
    std::vector<Arg> args;
    for (const Arg& a : n.args) args.push_back(a.kind == Arg::Kind::Mem ? memory(where[size_t(ref_index(a))], used) : a);
    emit(n.mnemonic, args);
  }

  void sync(const Node& n) {
    switch (n.sync) {
      case SyncKind::Barrier: emit("barrier", {name(pipe_name(n.from))}); return;
      case SyncKind::SetCross:
        emit("set_cross", {name(pipe_name(n.from)), kw("mode", imm(n.b)), kw("id", imm(n.events[0]))});
        return;
      case SyncKind::WaitCross: emit("wait_cross", {name(pipe_name(n.from)), kw("id", imm(n.events[0]))}); return;
      case SyncKind::Set:
      case SyncKind::Wait: break;
    }
    const char* op = n.sync == SyncKind::Set ? "set_flag" : "wait_flag";
    auto one = [&](int event) { emit(op, {name(pipe_name(n.from)), name(pipe_name(n.to)), imm(event)}); };
    if (n.counter < 0 || n.events.size() == 1) return one(n.events[0]);
    // The event of copy `counter % copies`: an immediate operand, so one branch per copy. The
    // branches only set or wait: what the scratch registers hold stays known past their labels.
    std::string done = label();
    Value parity{{}, reg(n.counter), int64_t(n.events.size()), 1};
    if (held_[kScratch] != parity) emit("rem", {x(kScratch), x(parity.counter), imm(parity.copies)}), held_[kScratch] = parity;
    for (size_t c = 0; c + 1 < n.events.size(); ++c) {
      std::string next = label();
      emit("bne", {x(kScratch), imm(int64_t(c)), name(next)});
      one(n.events[c]);
      emit("jmp", {name(done)});
      b_.label(next);
    }
    one(n.events.back());
    b_.label(done);
  }

  bool is_counter(int var) const { return k_.vars[size_t(var)].counter; }

  // Every variable a node (and what it contains) reads or writes.
  static void mentions(const Node& n, std::set<int>& vars) {
    auto add = [&](const Affine& a) {
      for (auto [v, c] : a.terms) vars.insert(v);
    };
    if (n.var >= 0) vars.insert(n.var);
    if (n.counter >= 0) vars.insert(n.counter);
    add(n.a), add(n.begin), add(n.end), add(n.step);
    for (const Ref& r : n.refs) {
      add(r.offset);
      if (r.counter >= 0) vars.insert(r.counter);
    }
    for (const Node& c : n.body) mentions(c, vars);
    for (const Node& c : n.orelse) mentions(c, vars);
  }

  // A Let's register is free again after the last node of its block that mentions the variable.
  void block(const std::vector<Node>& body) {
    std::vector<int> lets;
    std::map<int, size_t> last;
    for (size_t i = 0; i < body.size(); ++i) {
      std::set<int> vars;
      mentions(body[i], vars);
      for (int v : vars) last[v] = i;
    }
    for (size_t i = 0; i < body.size(); ++i) {
      const Node& n = body[i];
      node(n, lets);
      std::erase_if(lets, [&](int v) {
        if (last[v] > i) return false;
        unbind(v);
        return true;
      });
    }
    for (int v : lets) unbind(v);
  }

  void node(const Node& n, std::vector<int>& lets) {
    {
      switch (n.kind) {
        case Node::Kind::Loop: {
          // The test at the bottom (one branch an iteration), and at the top only when the loop
          // may run no iteration at all.
          int r = bind(n.var);
          compute(r, n.begin);
          std::string top = label(), exit = label();
          // `branch` to `to` when r >= end (bge) or r < end (blt); with end = terms + c, that is
          // r - c against terms.
          auto test = [&](const char* branch, const std::string& to) {
            if (n.end.constant()) return void(emit(branch, {x(r), operand(n.end.c, kScratch), name(to)}));
            int terms = terms_in(n.end, kFirstTemp);
            if (n.end.c == 0) return void(emit(branch, {x(r), x(terms), name(to)}));
            emit("sub", {x(kScratch), x(r), operand(n.end.c, kScratch)});
            emit(branch, {x(kScratch), x(terms), name(to)});
          };
          const Affine trips = n.end - n.begin;
          if (!(trips.constant() && trips.c > 0)) test("bge", exit);
          place(top);
          block(n.body);
          if (n.step.constant()) emit("add", {x(r), x(r), imm(n.step.c)});
          else compute(kFirstTemp, n.step), emit("add", {x(r), x(r), x(kFirstTemp)});
          test("blt", top);
          place(exit);
          unbind(n.var);
          break;
        }
        case Node::Kind::Let: {
          bool fresh = !reg_.count(n.var);
          int r = fresh ? bind(n.var) : reg(n.var);
          if (fresh && !is_counter(n.var)) lets.push_back(n.var);
          const char* op = n.let_op == LetOp::Div ? "div" : n.let_op == LetOp::Rem ? "rem" : "add";
          if (n.let_op == LetOp::Add) {  // straight into its register, its own term (if any) read first
            Affine a = n.a + Affine(n.b);
            std::stable_partition(a.terms.begin(), a.terms.end(), [&](const auto& t) { return t.first == n.var; });
            compute(r, a);
            break;
          }
          if (n.a.c == 0) emit(op, {x(r), x(terms_in(n.a, kFirstTemp)), imm(n.b)});
          else compute(kFirstTemp, n.a), emit(op, {x(r), x(kFirstTemp), imm(n.b)});
          break;
        }
        case Node::Kind::If: {
          // a == b (a < b) is terms == b - c (terms < b - c): the constant goes to the immediate;
          // without an else, the branch past the body is all (no jump over an empty else)
          std::string other = label();
          const char* branch = n.compare == Compare::Lt ? "bge" : "bne";
          // u - v (+ c) against b - c = 0 (a tile index against a count): the two registers compared,
          // not their difference computed first.
          if (n.a.terms.size() == 2 && n.b == n.a.c && n.a.terms[0].second == -n.a.terms[1].second &&
              std::abs(n.a.terms[0].second) == 1) {
            const bool first_positive = n.a.terms[0].second == 1;
            const int u = reg(n.a.terms[first_positive ? 0 : 1].first), v = reg(n.a.terms[first_positive ? 1 : 0].first);
            emit(branch, {x(u), x(v), name(other)});
          } else {
            int terms = terms_in(n.a, kFirstTemp);
            emit(branch, {x(terms), operand(n.b - n.a.c, kScratch), name(other)});
          }
          block(n.body);
          if (n.orelse.empty()) {
            place(other);
            break;
          }
          std::string done = label();
          emit("jmp", {name(done)});
          place(other);
          block(n.orelse);
          place(done);
          break;
        }
        case Node::Kind::Scope: block(n.body); break;
        case Node::Kind::Instr: instruction(n); break;
        case Node::Kind::Sync: sync(n); break;
        case Node::Kind::Move:
        case Node::Kind::Mmad: CUBEKIT_ASSERT(false, "emission before instruction selection");
      }
    }
  }

  const Kernel& k_;
  const ChipConfig& chip_;
  ProgramBuilder b_;
  std::map<int, int> reg_;
  std::array<bool, kNumRegs> in_use_{};
  std::array<std::optional<Value>, kNumRegs> held_{};  // what each scratch register is known to hold
  int labels_ = 0;
};

}  // namespace

Program emit_program(const Kernel& kernel, const ChipConfig& chip) { return Emitter(kernel, chip).run(); }

}  // namespace cubekit::codegen
