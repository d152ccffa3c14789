#include "codegen/emit.h"

#include "emulator/error.h"

#include <fmt/format.h>

#include <map>

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
    bind(kBlockIdx);
    b_.emit("block_idx", {x(reg(kBlockIdx))});
    bind(kBlockNum);
    b_.emit("block_num", {x(reg(kBlockNum))});
    for (int v = 0; v < int(k_.vars.size()); ++v)  // use counters live throughout
      if (k_.vars[size_t(v)].name.rfind("uses_", 0) == 0) bind(v);
    block(k_.body);
    b_.emit("end", {});
    return b_.finish();
  }

 private:
  int reg(int var) const {
    auto it = reg_.find(var);
    CUBEKIT_ASSERT(it != reg_.end(), "variable {} used outside its scope", k_.vars[size_t(var)].name);
    return it->second;
  }
  int bind(int var) {
    int r = 1;
    while (r < kFirstTemp && in_use_[size_t(r)]) ++r;
    if (r == kFirstTemp) user_error("{}: the kernel needs more than {} live loop variables; simplify the schedule", k_.name, kFirstTemp - 1);
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
  void compute(int target, const Affine& a) {
    bool started = false;
    for (auto [v, c] : a.terms) {
      int src = reg(v);
      if (c != 1) {
        b_.emit("mul", {x(kScratch), x(src), imm(c)});
        src = kScratch;
      }
      if (!started) b_.emit("mov", {x(target), x(src)});
      else b_.emit("add", {x(target), x(target), x(src)});
      started = true;
    }
    if (!started) b_.emit("li", {x(target), imm(a.c)});
    else if (a.c) b_.emit("add", {x(target), x(target), imm(a.c)});
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
    int t = temp++;
    CUBEKIT_ASSERT(t < kScratch, "an instruction with more than three run-time addresses");
    compute(t, addr);
    if (copies > 1) {
      const Buffer& buf = k_.buffers[size_t(r.buffer)];
      b_.emit("and", {x(kScratch), x(reg(buf.counter)), imm(1)});
      b_.emit("mul", {x(kScratch), x(kScratch), imm(buf.stride)});
      b_.emit("add", {x(t), x(t), x(kScratch)});
    }
    return mem(base, x(t), 0);
  }

  void instruction(const Node& n) {
    int temp = kFirstTemp;
    std::vector<Arg> args;
    for (const Arg& a : n.args) {
      if (a.kind != Arg::Kind::Mem) {
        args.push_back(a);
        continue;
      }
      args.push_back(memory(n.refs[size_t(std::stoi(a.name.substr(1)))], temp));
    }
    b_.emit(n.mnemonic, args);
  }

  void sync(const Node& n) {
    if (n.sync == "barrier") {
      b_.emit("barrier", {name(pipe_name(n.from))});
      return;
    }
    std::string op = n.sync + "_flag";
    auto one = [&](int event) { b_.emit(op, {name(pipe_name(n.from)), name(pipe_name(n.to)), imm(event)}); };
    if (n.counter < 0 || n.events.size() == 1) return one(n.events[0]);
    std::string odd = label(), done = label();
    b_.emit("and", {x(kScratch), x(reg(n.counter)), imm(1)});
    b_.emit("bne", {x(kScratch), imm(0), name(odd)});
    one(n.events[0]);
    b_.emit("jmp", {name(done)});
    b_.label(odd);
    one(n.events[1]);
    b_.label(done);
  }

  void block(const std::vector<Node>& body) {
    std::vector<int> lets;
    for (const Node& n : body) {
      switch (n.kind) {
        case Node::Kind::Loop: {
          int r = bind(n.var);
          compute(r, n.begin);
          std::string top = label(), exit = label();
          b_.label(top);
          Arg end = n.end.constant() ? imm(n.end.c) : (compute(kFirstTemp, n.end), x(kFirstTemp));
          b_.emit("bge", {x(r), end, name(exit)});
          block(n.body);
          if (n.step.constant()) b_.emit("add", {x(r), x(r), imm(n.step.c)});
          else compute(kFirstTemp, n.step), b_.emit("add", {x(r), x(r), x(kFirstTemp)});
          b_.emit("jmp", {name(top)});
          b_.label(exit);
          unbind(n.var);
          break;
        }
        case Node::Kind::Let: {
          bool fresh = !reg_.count(n.var);
          int r = fresh ? bind(n.var) : reg(n.var);
          if (fresh) lets.push_back(n.var);
          compute(kFirstTemp, n.a);
          const char* op = n.op == "/" ? "div" : n.op == "%" ? "rem" : "add";
          b_.emit(op, {x(r), x(kFirstTemp), imm(n.b)});
          break;
        }
        case Node::Kind::If: {
          std::string other = label(), done = label();
          compute(kFirstTemp, n.a);
          b_.emit("bne", {x(kFirstTemp), imm(n.b), name(other)});
          block(n.body);
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
    for (int v : lets)
      if (k_.vars[size_t(v)].name.rfind("uses_", 0) != 0) unbind(v);
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
