#include "codegen/verify.h"

#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace cubekit::codegen {

namespace {

class Verifier {
 public:
  Verifier(const Kernel& k, Stage after, const char* pass) : k_(k), after_(after), pass_(pass), defined_(k.vars.size()) {}

  void run() {
    for (size_t b = 0; b < k_.buffers.size(); ++b) {
      const Buffer& buf = k_.buffers[b];
      if (buf.copies < 1 || buf.bytes < 0) fail(fmt::format("buffer {} has {} copies of {} bytes", buf.name, buf.copies, buf.bytes));
      if (after_ >= Stage::Stored && buf.base < 0) fail(fmt::format("buffer {} has no offset after storage planning", buf.name));
      if (after_ >= Stage::Synchronised && buf.copies > 1 && buf.counter < 0 && used_in_scope(int(b)))
        fail(fmt::format("buffer {} has {} copies but no counter selecting them", buf.name, buf.copies));
    }
    entry(k_.body, false);
    if (k_.mixed()) entry(k_.vector_body, true);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InternalError(fmt::format("the IR of kernel '{}' after {}: {}", k_.name, pass_, what));
  }

  bool used_in_scope(int buffer) const { return in_scope(k_.body, buffer) || in_scope(k_.vector_body, buffer); }
  static bool in_scope(const std::vector<Node>& body, int buffer) {
    for (const Node& n : body) {
      if (n.kind == Node::Kind::Scope && std::count(n.stages.begin(), n.stages.end(), buffer)) return true;
      if (in_scope(n.body, buffer) || in_scope(n.orelse, buffer)) return true;
    }
    return false;
  }

  void entry(const std::vector<Node>& body, bool vector_cores) {
    std::fill(defined_.begin(), defined_.end(), 0);
    defined_[kBlockIdx] = defined_[kBlockNum] = 1;
    if (vector_cores && k_.subblock >= 0) defined_[size_t(k_.subblock)] = 1;
    for (size_t v = 0; v < k_.vars.size(); ++v)  // counters are live throughout their core's program
      if (k_.vars[v].counter) defined_[v] = 1;
    block(body);
  }

  void read(int var, const char* where) const {
    if (var < 0 || var >= int(k_.vars.size())) fail(fmt::format("{} reads variable {}, which does not exist", where, var));
    if (!defined_[size_t(var)]) fail(fmt::format("{} reads {} where nothing has set it", where, k_.vars[size_t(var)].name));
  }
  void read(const Affine& a, const char* where) const {
    for (auto [v, c] : a.terms) read(v, where);
  }
  void ref(const Ref& r, const char* where) const {
    bool tensor = r.tensor >= 0 && r.tensor < int(k_.tensors.size());
    bool buffer = r.buffer >= 0 && r.buffer < int(k_.buffers.size());
    if (tensor == buffer || (r.tensor >= 0) != tensor || (r.buffer >= 0) != buffer)
      fail(fmt::format("{} has a memory operand naming tensor {} and buffer {}: it needs exactly one that exists", where,
                       r.tensor, r.buffer));
    read(r.offset, where);
    if (r.counter >= 0) read(r.counter, where);  // the variable selecting the buffer's copy
  }

  // A block: what its Lets define is seen by the nodes after them, not outside it.
  void block(const std::vector<Node>& body) {
    std::vector<int> here;
    for (const Node& n : body) node(n, here);
    for (int v : here) defined_[size_t(v)] = 0;
  }

  void define(int var, std::vector<int>& here) {
    if (var < 0 || var >= int(k_.vars.size())) fail(fmt::format("a definition of variable {}, which does not exist", var));
    if (!defined_[size_t(var)]) here.push_back(var);
    defined_[size_t(var)] = 1;
  }

  void node(const Node& n, std::vector<int>& here) {
    switch (n.kind) {
      case Node::Kind::Let:
        read(n.a, "a Let");
        if (n.let_op != LetOp::Add && n.b <= 0)
          fail(fmt::format("{} = ... {} {}: division by a number that is not positive", k_.vars[size_t(n.var)].name,
                           let_op_text(n.let_op), n.b));
        define(n.var, here);
        break;
      case Node::Kind::Loop: {
        read(n.begin, "a Loop's start"), read(n.end, "a Loop's end"), read(n.step, "a Loop's step");
        if (!n.step.constant() || n.step.c <= 0) fail("a Loop whose step is not a positive constant");
        std::vector<int> inner;
        define(n.var, inner);
        block(n.body);
        for (int v : inner) defined_[size_t(v)] = 0;
        break;
      }
      case Node::Kind::If:
        read(n.a, "an If");
        block(n.body);
        block(n.orelse);
        break;
      case Node::Kind::Scope:
        for (int b : n.stages)
          if (b < 0 || b >= int(k_.buffers.size())) fail(fmt::format("a scope stages buffer {}, which does not exist", b));
        block(n.body);
        break;
      case Node::Kind::Move:
      case Node::Kind::Mmad:
        if (after_ >= Stage::Selected) fail("a Move or Mmad is left after instruction selection");
        if (n.kind == Node::Kind::Move) ref(n.src.at, "a Move"), ref(n.dst.at, "a Move");
        else ref(n.c, "an Mmad"), ref(n.lhs, "an Mmad"), ref(n.rhs, "an Mmad");
        break;
      case Node::Kind::Instr:
        for (const Ref& r : n.refs) ref(r, n.mnemonic.c_str());
        for (const Arg& a : n.args)
          if (a.kind == Arg::Kind::Mem && (ref_index(a) < 0 || ref_index(a) >= int(n.refs.size())))
            fail(fmt::format("{} has a memory operand standing for ref {} of {}", n.mnemonic, ref_index(a), n.refs.size()));
        if (after_ >= Stage::Selected) to_instr(k_, n);  // the ISA's own check of every operand
        break;
      case Node::Kind::Sync:
        if (n.counter >= 0) read(n.counter, "a flag");
        if (n.sync != SyncKind::Barrier && n.events.empty()) fail("a flag without an event id");
        break;
    }
  }

  const Kernel& k_;
  Stage after_;
  const char* pass_;
  std::vector<char> defined_;
};

}  // namespace

DebugFlags debug_flags() {
  DebugFlags f;
  const char* d = std::getenv("CUBEKIT_DEBUG");
  if (!d) return f;
  const std::string_view all = d;
  for (size_t at = 0; at < all.size();) {
    const size_t end = std::min(all.find_first_of(", ", at), all.size());
    const std::string_view word = all.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    if (word == "lower") f.lower = true;
    else if (word == "verify") f.verify = true;
    else user_error("CUBEKIT_DEBUG={}: '{}' is no debug output; it takes lower (the IR after every pass) and verify "
                    "(the IR's invariants), separated by commas", all, word);
  }
  return f;
}

bool verification_on() {
#ifndef NDEBUG
  return true;
#else
  const char* v = std::getenv("CUBEKIT_VERIFY");
  return (v && std::strcmp(v, "1") == 0) || debug_flags().verify;
#endif
}

void verify(const Kernel& kernel, Stage after, const char* pass) { Verifier(kernel, after, pass).run(); }

}  // namespace cubekit::codegen
