#include "codegen/emit.h"

#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace cubekit::codegen {

namespace {

// x1.. hold variables; the last four registers are scratch for one instruction's addresses.
constexpr int kFirstTemp = 28, kScratch = 31;

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
    b_.label("cube");
    entry(k_.body);
    b_.label("vec");
    entry(k_.vector_body, k_.subblock);
    return std::move(b_).finish();
  }

 private:
  // One core's program: its indices, then the body (`subblock` >= 0: it reads subblock_idx).
  void entry(const std::vector<Node>& body, int subblock = -1) {
    bind(kBlockIdx);
    b_.emit("block_idx", {x(reg(kBlockIdx))});
    bind(kBlockNum);
    b_.emit("block_num", {x(reg(kBlockNum))});
    if (subblock >= 0) b_.emit("subblock_idx", {x(bind(subblock))});
    std::set<int> used;
    for (const Node& n : body) mentions(n, used);
    std::vector<int> counters;
    for (int v : used)  // use counters live throughout
      if (is_counter(v)) counters.push_back(v), bind(v);
    block(body);
    b_.emit("end", {});
    for (int v : counters) unbind(v);
    for (int v : {kBlockIdx, kBlockNum, subblock})
      if (v >= 0) unbind(v);
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
    b_.emit("li", {x(scratch), imm(value)});
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
        b_.emit("mul", {x(into), x(src), operand(c, kScratch)});
        src = into;
      }
      if (sum >= 0) b_.emit("add", {x(target), x(sum), x(src)});
      sum = sum < 0 ? src : target;
    }
    if (sum < 0) return void(b_.emit("li", {x(target), imm(a.c)}));
    if (a.c) b_.emit("add", {x(target), x(sum), operand(a.c, kScratch)}), sum = target;
    if (sum != target) b_.emit("mov", {x(target), x(sum)});
  }

  // The register holding `a` less its constant: a variable's own when that is all it is, else
  // `temp` computed. The constant goes into an address's or a comparison's immediate.
  int terms_in(const Affine& a, int temp) {
    if (a.terms.size() == 1 && a.terms[0].second == 1) return reg(a.terms[0].first);
    Affine terms = a;
    terms.c = 0;
    compute(temp, terms);
    return temp;
  }

  // A memory operand: constant addresses inline, others through a scratch register.
  Arg memory(const Ref& r, int& temp) {
    std::string base = r.tensor >= 0 ? k_.tensors[size_t(r.tensor)].name : std::string(space_name(k_.buffers[size_t(r.buffer)].space));
    Affine addr = r.offset;
    int copies = 1;
    if (r.buffer >= 0) {
      const Buffer& buf = k_.buffers[size_t(r.buffer)];
      addr = addr + Affine(buf.base);
      copies = buf.copies;
    }
    if (addr.constant() && copies == 1) return mem(base, addr.c);
    if (copies == 1 && addr.terms.size() == 1 && addr.terms[0].second == 1)  // a variable's register + offset
      return mem(base, x(reg(addr.terms[0].first)), addr.c);
    int t = temp++;
    CUBEKIT_ASSERT(t < kScratch, "an instruction with more than three run-time addresses");
    Affine terms = addr;
    terms.c = 0;
    if (copies > 1) {
      const Buffer& buf = k_.buffers[size_t(r.buffer)];
      int counter = reg(r.counter >= 0 ? r.counter : buf.counter);
      if (terms.constant()) {  // the copy's offset alone
        b_.emit("rem", {x(t), x(counter), imm(copies)});
        b_.emit("mul", {x(t), x(t), imm(buf.stride)});
        return mem(base, x(t), addr.c);
      }
      compute(t, terms);
      b_.emit("rem", {x(kScratch), x(counter), imm(copies)});
      b_.emit("mul", {x(kScratch), x(kScratch), imm(buf.stride)});
      b_.emit("add", {x(t), x(t), x(kScratch)});
      return mem(base, x(t), addr.c);
    }
    compute(t, terms);
    return mem(base, x(t), addr.c);
  }

  void instruction(const Node& n) {
    int temp = kFirstTemp;
    std::vector<Arg> args;
    for (const Arg& a : n.args) {
      if (a.kind != Arg::Kind::Mem) {
        args.push_back(a);
        continue;
      }
      args.push_back(memory(n.refs[size_t(ref_index(a))], temp));
    }
    b_.emit(n.mnemonic, args);
  }

  void sync(const Node& n) {
    switch (n.sync) {
      case SyncKind::Barrier: b_.emit("barrier", {name(pipe_name(n.from))}); return;
      case SyncKind::SetCross:
        b_.emit("set_cross", {name(pipe_name(n.from)), kw("mode", imm(n.b)), kw("id", imm(n.events[0]))});
        return;
      case SyncKind::WaitCross: b_.emit("wait_cross", {name(pipe_name(n.from)), kw("id", imm(n.events[0]))}); return;
      case SyncKind::Set:
      case SyncKind::Wait: break;
    }
    const char* op = n.sync == SyncKind::Set ? "set_flag" : "wait_flag";
    auto one = [&](int event) { b_.emit(op, {name(pipe_name(n.from)), name(pipe_name(n.to)), imm(event)}); };
    if (n.counter < 0 || n.events.size() == 1) return one(n.events[0]);
    // The event of copy `counter % copies`: an immediate operand, so one branch per copy.
    std::string done = label();
    b_.emit("rem", {x(kScratch), x(reg(n.counter)), imm(int64_t(n.events.size()))});
    for (size_t c = 0; c + 1 < n.events.size(); ++c) {
      std::string next = label();
      b_.emit("bne", {x(kScratch), imm(int64_t(c)), name(next)});
      one(n.events[c]);
      b_.emit("jmp", {name(done)});
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
            if (n.end.constant()) return void(b_.emit(branch, {x(r), operand(n.end.c, kScratch), name(to)}));
            int terms = terms_in(n.end, kFirstTemp);
            if (n.end.c == 0) return void(b_.emit(branch, {x(r), x(terms), name(to)}));
            b_.emit("sub", {x(kScratch), x(r), operand(n.end.c, kScratch)});
            b_.emit(branch, {x(kScratch), x(terms), name(to)});
          };
          const Affine trips = n.end - n.begin;
          if (!(trips.constant() && trips.c > 0)) test("bge", exit);
          b_.label(top);
          block(n.body);
          if (n.step.constant()) b_.emit("add", {x(r), x(r), imm(n.step.c)});
          else compute(kFirstTemp, n.step), b_.emit("add", {x(r), x(r), x(kFirstTemp)});
          test("blt", top);
          b_.label(exit);
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
          if (n.a.c == 0) b_.emit(op, {x(r), x(terms_in(n.a, kFirstTemp)), imm(n.b)});
          else compute(kFirstTemp, n.a), b_.emit(op, {x(r), x(kFirstTemp), imm(n.b)});
          break;
        }
        case Node::Kind::If: {
          // a == b (a < b) is terms == b - c (terms < b - c): the constant goes to the immediate;
          // without an else, the branch past the body is all (no jump over an empty else)
          std::string other = label();
          int terms = terms_in(n.a, kFirstTemp);
          b_.emit(n.compare == Compare::Lt ? "bge" : "bne", {x(terms), operand(n.b - n.a.c, kScratch), name(other)});
          block(n.body);
          if (n.orelse.empty()) {
            b_.label(other);
            break;
          }
          std::string done = label();
          b_.emit("jmp", {name(done)});
          b_.label(other);
          block(n.orelse);
          b_.label(done);
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
  int labels_ = 0;
};

}  // namespace

Program emit_program(const Kernel& kernel, const ChipConfig& chip) { return Emitter(kernel, chip).run(); }

}  // namespace cubekit::codegen
