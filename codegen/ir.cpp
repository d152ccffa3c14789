#include "codegen/ir.h"

#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace cubekit::codegen {

Affine Affine::var(int v, int64_t coefficient) {
  Affine a;
  if (coefficient) a.terms.push_back({v, coefficient});
  return a;
}

int64_t Affine::coefficient(int v) const {
  for (auto [var, k] : terms)
    if (var == v) return k;
  return 0;
}

Affine Affine::operator+(const Affine& o) const {
  Affine r = *this;
  r.c += o.c;
  for (auto [v, k] : o.terms) {
    auto it = std::find_if(r.terms.begin(), r.terms.end(), [&](auto& t) { return t.first == v; });
    if (it == r.terms.end()) r.terms.push_back({v, k});
    else it->second += k;
  }
  std::erase_if(r.terms, [](auto& t) { return t.second == 0; });
  return r;
}

Affine Affine::operator-(const Affine& o) const { return *this + o * -1; }

Affine Affine::operator*(int64_t k) const {
  Affine r;
  r.c = c * k;
  if (k)
    for (auto [v, x] : terms) r.terms.push_back({v, x * k});
  return r;
}

int Kernel::new_var(std::string name, bool counter) {
  vars.push_back({std::move(name), counter});
  return int(vars.size()) - 1;
}

int Kernel::new_buffer(std::string name, Space space, int64_t bytes, int copies) {
  buffers.push_back({std::move(name), space, bytes, copies});
  return int(buffers.size()) - 1;
}

Node loop(int var, Affine begin, Affine end, Affine step, std::vector<Node> body) {
  Node n{Node::Kind::Loop};
  n.var = var, n.begin = std::move(begin), n.end = std::move(end), n.step = std::move(step), n.body = std::move(body);
  return n;
}

std::string_view let_op_text(LetOp op) {
  switch (op) {
    case LetOp::Div: return "/";
    case LetOp::Rem: return "%";
    case LetOp::Add: return "+";
  }
  return "?";
}

Node let(int var, Affine a, LetOp op, int64_t b) {
  Node n{Node::Kind::Let};
  n.var = var, n.a = std::move(a), n.let_op = op, n.b = b;
  return n;
}

Node when(Affine a, int64_t equals, std::vector<Node> then, std::vector<Node> otherwise) {
  Node n{Node::Kind::If};
  n.a = std::move(a), n.b = equals, n.body = std::move(then), n.orelse = std::move(otherwise);
  return n;
}

Node when_less(Affine a, int64_t bound, std::vector<Node> then, std::vector<Node> otherwise) {
  Node n = when(std::move(a), bound, std::move(then), std::move(otherwise));
  n.compare = Compare::Lt;
  return n;
}

Node scope(std::vector<int> stages, std::vector<Node> body, Node::Phase phase) {
  Node n{Node::Kind::Scope};
  n.stages = std::move(stages), n.body = std::move(body), n.phase = phase;
  return n;
}

Node instr(std::string mnemonic, Pipe pipe, std::vector<Ref> refs, std::vector<Arg> args) {
  Node n{Node::Kind::Instr};
  n.mnemonic = std::move(mnemonic), n.pipe = pipe, n.refs = std::move(refs), n.args = std::move(args);
  return n;
}

Node set_cross(Pipe pipe, int mode, int id) {
  Node n{Node::Kind::Sync};
  n.sync = SyncKind::SetCross, n.from = pipe, n.b = mode, n.events = {id};
  return n;
}

Node wait_cross(Pipe pipe, int id) {
  Node n{Node::Kind::Sync};
  n.sync = SyncKind::WaitCross, n.from = pipe, n.events = {id};
  return n;
}

Node barrier(Pipe pipe) {
  Node n{Node::Kind::Sync};
  n.sync = SyncKind::Barrier, n.from = pipe;
  return n;
}

Arg mem_arg(int i) { return {.kind = Arg::Kind::Mem, .value = i}; }
int ref_index(const Arg& a) { return int(a.value); }

Instr to_instr(const Kernel& k, const Node& n) {
  static thread_local Program dummy;
  dummy.tensors = k.tensors;
  std::vector<Arg> args = n.args;
  for (Arg& a : args) {
    if (a.kind != Arg::Kind::Mem) continue;
    const Ref& r = n.refs[size_t(ref_index(a))];
    a.name = r.tensor >= 0 ? k.tensors[size_t(r.tensor)].name : std::string(space_name(k.buffers[size_t(r.buffer)].space));
    a.value = 0;
    a.reg = -1;
  }
  std::vector<LabelRef> labels;
  auto fail = [](void* context, int, const std::string& message) {
    throw InternalError(fmt::format("codegen made an invalid instruction `{}`: {}", *static_cast<const std::string*>(context), message));
  };
  return make_instr(dummy, n.mnemonic, 0, args, labels, fail, const_cast<std::string*>(&n.mnemonic));
}

std::string affine_str(const Kernel& k, const Affine& a) {
  std::string s;
  for (auto [v, x] : a.terms) {
    std::string name = v >= 0 && v < int(k.vars.size()) ? k.vars[size_t(v)].name : fmt::format("v{}", v);
    s += fmt::format("{}{}{}", s.empty() ? (x < 0 ? "-" : "") : (x < 0 ? " - " : " + "),
                     std::abs(x) == 1 ? "" : fmt::format("{}*", std::abs(x)), name);
  }
  if (a.c || s.empty()) s += s.empty() ? fmt::format("{}", a.c) : fmt::format(" {} {}", a.c < 0 ? '-' : '+', std::abs(a.c));
  return s;
}

namespace {

std::string ref_str(const Kernel& k, const Ref& r) {
  std::string base = r.tensor >= 0 ? k.tensors[size_t(r.tensor)].name : k.buffers[size_t(r.buffer)].name;
  return fmt::format("{}[{}]", base, affine_str(k, r.offset));
}

std::string layout_str(Layout l) {
  static constexpr const char* names[] = {"ND", "NZ", "zZ", "zN", "NZ16"};
  return names[int(l)];
}

std::string view_str(const Kernel& k, const View& v) {
  return fmt::format("{} {} {}x{} {}{}", ref_str(k, v.at), layout_str(v.layout), v.rows, v.cols, dtype_name(v.dtype),
                     v.transposed ? " (transposed)" : "");
}

std::string arg_str(const Kernel& k, const Node& n, const Arg& a) {
  std::string key = a.key.empty() ? "" : a.key + "=";
  switch (a.kind) {
    case Arg::Kind::Mem: return ref_str(k, n.refs[size_t(ref_index(a))]);
    case Arg::Kind::Int: return key + std::to_string(a.value);
    case Arg::Kind::Float: return key + fmt::format("{}", a.f);
    case Arg::Kind::Name: return a.key.empty() ? a.name : key + a.name;
    case Arg::Kind::Reg: return key + fmt::format("x{}", a.reg);
    case Arg::Kind::Mask: return key + "mask";
  }
  return "?";
}

void print(const Kernel& k, const std::vector<Node>& body, int depth, std::string& out) {
  std::string pad(size_t(depth) * 2, ' ');
  auto name = [&](int v) { return k.vars[size_t(v)].name; };
  for (const Node& n : body) {
    switch (n.kind) {
      case Node::Kind::Loop:
        out += fmt::format("{}for {} = {}; {} < {}; {} += {}\n", pad, name(n.var), affine_str(k, n.begin), name(n.var),
                           affine_str(k, n.end), name(n.var), affine_str(k, n.step));
        print(k, n.body, depth + 1, out);
        break;
      case Node::Kind::Let:
        out += fmt::format("{}{} = ({}) {} {}\n", pad, name(n.var), affine_str(k, n.a), let_op_text(n.let_op), n.b);
        break;
      case Node::Kind::If:
        out += fmt::format("{}if {} {} {}\n", pad, affine_str(k, n.a), n.compare == Compare::Lt ? "<" : "==", n.b);
        print(k, n.body, depth + 1, out);
        if (!n.orelse.empty()) {
          out += pad + "else\n";
          print(k, n.orelse, depth + 1, out);
        }
        break;
      case Node::Kind::Scope: {
        std::string names;
        for (int b : n.stages) names += (names.empty() ? "" : " ") + k.buffers[size_t(b)].name;
        static constexpr const char* phases[] = {"", "fill ", "use "};
        out += fmt::format("{}scope {}[{}]\n", pad, phases[int(n.phase)], names);
        print(k, n.body, depth + 1, out);
        break;
      }
      case Node::Kind::Move:
        out += fmt::format("{}move {} -> {}{}\n", pad, view_str(k, n.src), view_str(k, n.dst), n.relu ? " relu" : "");
        break;
      case Node::Kind::Mmad:
        out += fmt::format("{}mmad {} += {} x {} ({}x{}x{}{})\n", pad, ref_str(k, n.c), ref_str(k, n.lhs),
                           ref_str(k, n.rhs), n.m, n.n, n.k, n.init ? ", init" : "");
        break;
      case Node::Kind::Instr: {
        std::string args;
        for (const Arg& a : n.args) args += (args.empty() ? " " : ", ") + arg_str(k, n, a);
        out += fmt::format("{}{}{}\n", pad, n.mnemonic, args);
        break;
      }
      case Node::Kind::Sync: {
        std::string events;
        for (int e : n.events) events += (events.empty() ? "" : "|") + std::to_string(e);
        std::string by = n.counter >= 0 ? fmt::format(" by {}", name(n.counter)) : "";
        if (n.sync == SyncKind::Barrier) out += fmt::format("{}barrier {}\n", pad, pipe_name(n.from));
        else if (n.sync == SyncKind::SetCross) out += fmt::format("{}set_cross {}, mode={}, id={}\n", pad, pipe_name(n.from), n.b, events);
        else if (n.sync == SyncKind::WaitCross) out += fmt::format("{}wait_cross {}, id={}\n", pad, pipe_name(n.from), events);
        else out += fmt::format("{}{}_flag {}, {}, {}{}\n", pad, n.sync == SyncKind::Set ? "set" : "wait", pipe_name(n.from),
                                pipe_name(n.to), events, by);
        break;
      }
    }
  }
}

}  // namespace

std::string Kernel::str() const {
  std::string out = fmt::format("kernel {} (block_dim {})\n", name, block_dim);
  for (const Buffer& b : buffers)
    out += fmt::format("  buffer {} in {}: {} bytes x {}{}\n", b.name, space_name(b.space), b.bytes, b.copies,
                       b.base >= 0 ? fmt::format(" at {} (stride {})", b.base, b.stride) : "");
  if (mixed()) out += "  cube cores:\n";
  print(*this, body, mixed() ? 2 : 1, out);
  if (!mixed()) return out;
  out += "  vector cores:\n";
  print(*this, vector_body, 2, out);
  return out;
}

}  // namespace cubekit::codegen
