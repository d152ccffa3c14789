#include "emulator/program.h"

#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>

namespace cubekit {

std::string_view role_name(TensorRole r) {
  switch (r) {
    case TensorRole::In: return "in";
    case TensorRole::Out: return "out";
    case TensorRole::InOut: return "inout";
    case TensorRole::Workspace: return "workspace";
  }
  return "?";
}

int64_t TensorDecl::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int Program::tensor_index(std::string_view n) const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == n) return int(i);
  return -1;
}

const TensorDecl& Program::tensor(std::string_view n) const {
  int i = tensor_index(n);
  if (i < 0) user_error("kernel '{}' has no tensor '{}'", name, n);
  return tensors[i];
}

const Entry* Program::entry(CoreKind kind) const {
  for (const Entry& e : entries)
    if (e.kind == kind) return &e;
  return nullptr;
}

int Program::label_index(std::string_view label) const {
  for (const Label& l : labels)
    if (l.name == label) return l.index;
  return -1;
}

std::string check_entry(const Program& program, std::string_view kind_word, CoreKind& kind) {
  if (kind_word == "aic") kind = CoreKind::Aic;
  else if (kind_word == "aiv") kind = CoreKind::Aiv;
  else
    return fmt::format("'{}' is not a kind of core with an entry: write .entry aic LABEL (the cube cores) or .entry aiv "
                       "LABEL (the vector cores)", kind_word);
  if (program.entry(kind)) return fmt::format("the {} entry is given twice (one .entry per kind of core)", kind_word);
  return {};
}

std::string check_entry_labels(const Program& program) {
  for (const Entry& e : program.entries)
    if (program.label_index(e.label) < 0)
      return fmt::format("the {} entry names label '{}', which is never defined", core_kind_name(e.kind), e.label);
  return {};
}

std::string check_tensor_decl(const Program& program, std::string_view name, DType dtype,
                              const std::vector<int64_t>& shape) {
  if (program.tensor_index(name) >= 0) return fmt::format("tensor '{}' is declared twice", name);
  if (std::string problem = check_not_a_buffer(name); !problem.empty()) return problem;
  if (shape.empty()) return fmt::format("tensor '{}' needs at least one dimension", name);
  for (int64_t d : shape)
    if (d <= 0) return fmt::format("tensor '{}' has a dimension {} (dimensions must be positive)", name, d);
  return check_tensor_bytes(name, dtype, shape);
}

std::string check_tensor_bytes(std::string_view name, DType dtype, const std::vector<int64_t>& shape) {
  int64_t bytes = dtype_size(dtype);
  for (int64_t d : shape)
    if (d > 0 && (__builtin_mul_overflow(bytes, d, &bytes) || bytes > kMaxTensorBytes))
      return fmt::format("tensor '{}' would need more than {} bytes, cubekit's limit for one GM tensor in every mode "
                         "(a functional run keeps its bytes in host memory); use a smaller shape", name, kMaxTensorBytes);
  return {};
}

std::string check_not_a_buffer(std::string_view name) {
  std::string lowered(name);
  for (char& c : lowered) c = char(std::tolower(static_cast<unsigned char>(c)));
  for (int s = 0; s < kNumSpaces; ++s)
    if (lowered == space_name(Space(s))) return fmt::format("'{}' names a buffer; give the tensor another name", name);
  return {};
}

std::string check_name(std::string_view name, std::string_view what) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  bool fine = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) fine = fine && (word(c) || c == '.');
  if (fine) return {};
  return fmt::format("the {} name '{}' cannot be written in assembly text: use a letter or '_' first, then letters, "
                     "digits, '_' or '.'", what, name);
}

std::string check_block_dim(int64_t n) {
  if (n < 1 || n > kMaxBlockDim) return fmt::format("block_dim must be 1..{}, got {}", kMaxBlockDim, n);
  return {};
}

// ---- Arg helpers --------------------------------------------------------------------------------

Arg x(int reg) { return {.kind = Arg::Kind::Reg, .reg = reg}; }
Arg imm(int64_t value) { return {.kind = Arg::Kind::Int, .value = value}; }
Arg num(double value) { return {.kind = Arg::Kind::Float, .f = value}; }
Arg mem(std::string_view buffer_or_tensor, int64_t offset) {
  return {.kind = Arg::Kind::Mem, .value = offset, .name = std::string(buffer_or_tensor)};
}
Arg mem(std::string_view buffer_or_tensor, const Arg& base_reg, int64_t offset) {
  return {.kind = Arg::Kind::Mem, .reg = base_reg.reg, .value = offset, .name = std::string(buffer_or_tensor)};
}
Arg name(std::string_view symbol) { return {.kind = Arg::Kind::Name, .name = std::string(symbol)}; }
Arg mask_count(int64_t n) { return {.kind = Arg::Kind::Mask, .value = n, .mask = MaskMode::Count}; }
Arg mask_bits(uint64_t hi, uint64_t lo) {
  return {.kind = Arg::Kind::Mask, .value = int64_t(lo), .hi = hi, .mask = MaskMode::Bits};
}
Arg mask_counter(int64_t n) { return {.kind = Arg::Kind::Mask, .value = n, .mask = MaskMode::Counter}; }
Arg kw(std::string_view key, Arg value) {
  value.key = std::string(key);
  return value;
}
Arg flag(std::string_view key) { return kw(key, imm(1)); }

// ---- make_instr: the one place an instruction is checked against the table --------------------

std::string lower_case(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

namespace {

std::string lower(std::string_view s) { return lower_case(s); }

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string suggestion(std::string_view word) {
  std::string_view best;
  size_t best_d = 3;
  for (const InstrSpec& s : isa_table()) {
    size_t d = edit_distance(word, s.mnemonic);
    if (d < best_d) best_d = d, best = s.mnemonic;
  }
  return best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best);
}

std::string sig_text(const InstrSpec& s, const std::array<DType, kMaxTypes>& sig) {
  std::string t(s.mnemonic);
  for (int i = 0; i < s.ntypes; ++i) t += "." + std::string(dtype_name(sig[i]));
  return t;
}

std::string allowed_sigs(const InstrSpec& s) {
  std::string out;
  for (const auto& sig : s.types) out += (out.empty() ? "" : ", ") + sig_text(s, sig);
  return out;
}

std::string kind_of(const Arg& a) {
  switch (a.kind) {
    case Arg::Kind::Reg: return fmt::format("register x{}", a.reg);
    case Arg::Kind::Int: return fmt::format("integer {}", a.value);
    case Arg::Kind::Float: return fmt::format("number {}", a.f);
    case Arg::Kind::Mem: return fmt::format("memory operand {}[...]", a.name);
    case Arg::Kind::Name: return fmt::format("name '{}'", a.name);
    case Arg::Kind::Mask: return "mask";
  }
  return "?";
}

std::optional<Space> buffer_space(std::string_view n) {
  for (int s = 1; s < kNumSpaces; ++s)
    if (space_name(Space(s)) == lower(n)) return Space(s);
  return std::nullopt;
}

struct Maker {
  const Program& program;
  const InstrSpec& spec;
  const Instr& in;  // its types are known when operands are converted
  FailFn fail;
  void* context;
  std::vector<LabelRef>& label_refs;

  [[noreturn]] void error(int column, const std::string& message) {
    fail(context, column, message);
    throw InternalError("make_instr: the fail callback returned");
  }

  std::string where(const OperandSpec& o) { return fmt::format("{}: operand '{}'", spec.mnemonic, o.name); }

  void check_range(const OperandSpec& o, int64_t v, int column) {
    if (v < o.lo || v > o.hi)
      error(column, fmt::format("{} is {}, outside its range {}..{}", where(o), v, o.lo, o.hi));
  }

  Operand convert(int index, const OperandSpec& o, const Arg& a) {
    Operand out;
    auto bad = [&](std::string_view expected) {
      error(a.column, fmt::format("{} expects {}, got {}", where(o), expected, kind_of(a)));
    };
    auto reg = [&] {
      if (a.reg < 0 || a.reg >= kNumRegs) error(a.column, fmt::format("{}: there is no register x{} (x0..x31)", where(o), a.reg));
      out.kind = Operand::Kind::Reg, out.reg = uint8_t(a.reg);
    };
    switch (o.kind) {
      case OperandKind::Reg:
        if (a.kind != Arg::Kind::Reg) bad("a register (x0..x31)");
        reg();
        break;
      case OperandKind::RegOrImm:
        if (a.kind == Arg::Kind::Reg) reg();
        else if (a.kind == Arg::Kind::Int) check_range(o, a.value, a.column), out.kind = Operand::Kind::Imm, out.imm = a.value;
        else bad("a register or an integer");
        break;
      case OperandKind::Imm:
        if (a.kind != Arg::Kind::Int) bad("an integer");
        check_range(o, a.value, a.column);
        out.kind = Operand::Kind::Imm, out.imm = a.value;
        break;
      case OperandKind::Flag:
        if (a.kind != Arg::Kind::Int || (a.value != 0 && a.value != 1)) bad("a bare flag (or =0 / =1)");
        out.kind = Operand::Kind::Flag, out.imm = a.value;
        break;
      case OperandKind::Scalar:
        if (a.kind == Arg::Kind::Reg) reg();
        else if (a.kind == Arg::Kind::Int) out.kind = Operand::Kind::Float, out.f = double(a.value);
        else if (a.kind == Arg::Kind::Float) out.kind = Operand::Kind::Float, out.f = a.f;
        else if (a.kind == Arg::Kind::Name && (lower(a.name) == "inf" || lower(a.name) == "nan"))
          out.kind = Operand::Kind::Float, out.f = lower(a.name) == "inf" ? INFINITY : NAN;
        else bad("a register or a number");
        if (out.kind == Operand::Kind::Float && !is_float(o.scalar_type.value_or(in.type[0])))
          check_integer_scalar(o, out.f, a.column);
        break;
      case OperandKind::Mem: convert_mem(o, a, out); break;
      case OperandKind::Label:
        if (a.kind != Arg::Kind::Name) bad("a label");
        out.kind = Operand::Kind::Label;
        label_refs.push_back({index, a.name, a.column});
        break;
      case OperandKind::PipeName: {
        if (a.kind != Arg::Kind::Name) bad("a pipe name");
        std::string up = a.name;
        for (char& c : up) c = char(std::toupper(static_cast<unsigned char>(c)));
        int p = 0;
        while (p <= int(Pipe::All) && pipe_name(Pipe(p)) != up) ++p;
        if (p > int(Pipe::All) || (Pipe(p) == Pipe::All && !o.allow_all))
          error(a.column, fmt::format("{}: '{}' is not a pipe (S MTE1 MTE2 MTE3 M V FIX{})", where(o), a.name,
                                      o.allow_all ? " ALL" : ""));
        out.kind = Operand::Kind::Sym, out.imm = p;
        break;
      }
      case OperandKind::Enum: {
        auto it = a.kind == Arg::Kind::Name ? std::find(o.symbols.begin(), o.symbols.end(), lower(a.name)) : o.symbols.end();
        if (it == o.symbols.end()) {
          std::string all;
          for (auto s : o.symbols) all += (all.empty() ? "" : " ") + std::string(s);
          error(a.column, fmt::format("{} expects one of: {}; got {}", where(o), all, kind_of(a)));
        }
        out.kind = Operand::Kind::Sym, out.imm = it - o.symbols.begin();
        break;
      }
      case OperandKind::Mask:
        out.kind = Operand::Kind::Mask;
        if (a.kind == Arg::Kind::Int) out.mask = MaskMode::Count, out.imm = a.value;
        else if (a.kind == Arg::Kind::Mask) out.mask = a.mask, out.imm = a.value, out.hi = a.hi;
        else bad("N, 0xHI:0xLO or counter:N");
        if (out.mask == MaskMode::Counter && (out.imm < 1 || out.imm > (int64_t(1) << 32)))
          error(a.column, fmt::format("{}: counter:{} must count 1..2^32 elements", where(o), out.imm));
        if (out.mask == MaskMode::Bits && out.imm == 0 && out.hi == 0)
          error(a.column, fmt::format("{}: a mask with no bit set does nothing", where(o)));
        break;
    }
    return out;
  }

  // An immediate scalar of an integer instruction must be a value of its type, not wrap or truncate.
  void check_integer_scalar(const OperandSpec& o, double v, int column) {
    DType t = o.scalar_type.value_or(in.type[0]);
    int bits = dtype_size(t) * 8;
    bool is_signed = t == DType::s8 || t == DType::s16 || t == DType::s32;
    double lo = is_signed ? -std::ldexp(1.0, bits - 1) : 0, hi = is_signed ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
    if (v != std::trunc(v) || !(v >= lo && v <= hi))
      error(column, fmt::format("{} is {}, which is not an {} value (a whole number in {}..{})", where(o), v,
                                dtype_name(t), int64_t(lo), int64_t(hi)));
  }

  void convert_mem(const OperandSpec& o, const Arg& a, Operand& out) {
    if (a.kind != Arg::Kind::Mem) error(a.column, fmt::format("{} expects a memory operand like ub[x1 + 32], got {}", where(o), kind_of(a)));
    out.kind = Operand::Kind::Mem;
    out.imm = a.value;
    if (a.reg >= kNumRegs) error(a.column, fmt::format("{}: there is no register x{} (x0..x31)", where(o), a.reg));
    out.reg = a.reg < 0 ? kNoReg : uint8_t(a.reg);
    if (a.value < INT32_MIN || a.value > INT32_MAX)
      error(a.column, fmt::format("{}: offset {} does not fit in 32 bits", where(o), a.value));
    if (auto s = buffer_space(a.name)) {
      out.space = *s;
    } else {
      int t = program.tensor_index(a.name);
      if (t < 0)
        error(a.column, fmt::format("{}: '{}' is neither a buffer (l1 l0a l0b l0c ub) nor a declared tensor "
                                    "(declare GM tensors with .tensor before their first use)",
                                    where(o), a.name));
      out.space = Space::GM, out.tensor = uint16_t(t);
    }
    if (!(o.spaces & (1u << int(out.space)))) {
      std::string allowed;
      for (int s = 0; s < kNumSpaces; ++s)
        if (o.spaces & (1u << s)) allowed += (allowed.empty() ? "" : " or ") + std::string(s ? space_name(Space(s)) : "a GM tensor");
      error(a.column, fmt::format("{} must be in {}, not {}", where(o), allowed,
                                  out.space == Space::GM ? "GM tensor '" + a.name + "'" : std::string(space_name(out.space))));
    }
  }
};

}  // namespace

Instr make_instr(const Program& program, std::string_view mnemonic, int mcol, const std::vector<Arg>& args,
                 std::vector<LabelRef>& label_refs, FailFn fail, void* context) {
  auto die = [&](int column, const std::string& message) {
    fail(context, column, message);
    throw InternalError("make_instr: the fail callback returned");
  };
  std::string full = lower(mnemonic);
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t dot = full.find('.', start);
    parts.push_back(full.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  int op = find_mnemonic(parts[0]);
  if (op < 0) die(mcol, fmt::format("unknown instruction '{}'{}; 'cubekit isa' lists them all", parts[0], suggestion(parts[0])));
  const InstrSpec& spec = isa_table()[op];
  Instr in;
  in.op = uint16_t(op);
  in.ntypes = spec.ntypes;
  int ntypes = int(parts.size()) - 1;
  if (ntypes != spec.ntypes) {
    if (spec.ntypes == 0) die(mcol, fmt::format("'{}' takes no type suffix", spec.mnemonic));
    die(mcol, fmt::format("'{}' needs {} type suffix{}: one of {}", spec.mnemonic, spec.ntypes,
                          spec.ntypes > 1 ? "es" : "", allowed_sigs(spec)));
  }
  for (int i = 0; i < ntypes; ++i) {
    auto t = parse_dtype(parts[1 + i]);
    if (!t) die(mcol, fmt::format("'{}' is not a type ({})", parts[1 + i], dtype_list()));
    in.type[i] = *t;
  }
  if (spec.ntypes && std::find(spec.types.begin(), spec.types.end(), in.type) == spec.types.end())
    die(mcol, fmt::format("'{}' is not a form of {}; it has {}", sig_text(spec, in.type), spec.mnemonic, allowed_sigs(spec)));

  Maker maker{program, spec, in, fail, context, label_refs};
  std::vector<const Arg*> by_slot(spec.operands.size(), nullptr);
  size_t next_positional = 0;
  std::vector<int> positional_slots;
  for (size_t i = 0; i < spec.operands.size(); ++i)
    if (!spec.operands[i].keyword) positional_slots.push_back(int(i));
  auto operand_list = [&] {
    std::string s;
    for (int slot : positional_slots) s += (s.empty() ? "" : ", ") + std::string(spec.operands[slot].name);
    return s;
  };
  std::vector<Arg> flags;  // bare flag names, written without '='
  flags.reserve(args.size());
  bool seen_keyword = false;  // operands are positional first, then name=value
  for (const Arg& a0 : args) {
    const Arg* ap = &a0;
    if (a0.key.empty() && a0.kind == Arg::Kind::Name) {
      int slot = spec.operand_index(lower(a0.name));
      if (slot >= 0 && spec.operands[slot].kind == OperandKind::Flag) {
        flags.push_back(kw(a0.name, imm(1)));
        flags.back().column = a0.column;
        ap = &flags.back();
      }
    }
    const Arg& a = *ap;
    if (a.key.empty() && seen_keyword)
      die(a.column, fmt::format("{}: a positional operand after name=value ones; write the positional operands ({}) "
                                "first, then name=value", spec.mnemonic, operand_list()));
    seen_keyword |= !a.key.empty() && ap == &a0;
    if (a.key.empty()) {
      if (next_positional >= positional_slots.size())
        die(a.column, fmt::format("{} takes {} positional operand{} ({}); this one is extra", spec.mnemonic,
                                  positional_slots.size(), positional_slots.size() == 1 ? "" : "s", operand_list()));
      by_slot[positional_slots[next_positional++]] = &a;
      continue;
    }
    int slot = spec.operand_index(lower(a.key));
    if (slot < 0 || !spec.operands[slot].keyword) {
      std::string keys;
      for (const OperandSpec& o : spec.operands)
        if (o.keyword) keys += (keys.empty() ? "" : " ") + std::string(o.name);
      die(a.column, fmt::format("{} has no keyword operand '{}'{}{}", spec.mnemonic, a.key,
                                keys.empty() ? "" : "; it takes: ", keys));
    }
    if (by_slot[slot]) die(a.column, fmt::format("{}: '{}' is given twice", spec.mnemonic, a.key));
    by_slot[slot] = &a;
  }
  if (next_positional < positional_slots.size())
    die(mcol, fmt::format("{} needs {} positional operand{} ({}), got {}", spec.mnemonic, positional_slots.size(),
                          positional_slots.size() == 1 ? "" : "s", operand_list(), next_positional));
  for (size_t i = 0; i < spec.operands.size(); ++i) {
    const OperandSpec& o = spec.operands[i];
    if (by_slot[i]) {
      in.ops[i] = maker.convert(int(i), o, *by_slot[i]);
      continue;
    }
    if (o.def == kRequiredKeyword) die(mcol, fmt::format("{} needs '{}=…' ({})", spec.mnemonic, o.name, o.doc));
    Operand& d = in.ops[i];
    switch (o.kind) {
      case OperandKind::Mask: d.kind = Operand::Kind::Mask, d.mask = MaskMode::Full; break;
      case OperandKind::Enum: d.kind = Operand::Kind::Sym, d.imm = o.def; break;
      case OperandKind::Flag: d.kind = Operand::Kind::Flag, d.imm = o.def; break;
      case OperandKind::Scalar:
      case OperandKind::Mem: d.kind = Operand::Kind::None; break;  // optional, left out
      default: d.kind = Operand::Kind::Imm, d.imm = o.def; break;
    }
  }
  if (spec.validate) {
    int operand = -1;
    std::string message = spec.validate(in, operand);
    if (!message.empty()) die(operand >= 0 && by_slot[operand] ? by_slot[operand]->column : mcol, message);
  }
  return in;
}

Program without_instructions(const Program& program, std::vector<int> indices) {
  std::sort(indices.begin(), indices.end());
  std::vector<int> new_index(program.code.size() + 1);
  Program out = program;
  out.code.clear();
  size_t d = 0;
  for (size_t i = 0; i <= program.code.size(); ++i) {
    new_index[i] = int(out.code.size());
    bool removed = d < indices.size() && indices[d] == int(i);
    if (removed) ++d;
    else if (i < program.code.size()) out.code.push_back(program.code[i]);
  }
  for (Label& l : out.labels) l.index = new_index[l.index];
  for (Instr& in : out.code) {
    const InstrSpec& spec = spec_of(in);
    for (size_t k = 0; k < spec.operands.size(); ++k)
      if (spec.operands[k].kind == OperandKind::Label) in.ops[k].imm = new_index[in.ops[k].imm];
  }
  return out;
}

// ---- ProgramBuilder -------------------------------------------------------------------------------

ProgramBuilder::ProgramBuilder(std::string kernel_name) {
  std::string problem = check_name(kernel_name, "kernel");
  if (!problem.empty()) user_error("{}", problem);
  program_.name = std::move(kernel_name);
}

int ProgramBuilder::tensor(std::string n, DType dtype, std::vector<int64_t> shape, TensorRole role) {
  std::string problem = check_name(n, "tensor");
  if (problem.empty()) problem = check_tensor_decl(program_, n, dtype, shape);
  if (!problem.empty()) user_error("kernel '{}': {}", program_.name, problem);
  program_.tensors.push_back({std::move(n), dtype, std::move(shape), role});
  return int(program_.tensors.size()) - 1;
}

void ProgramBuilder::block_dim(int n) {
  std::string problem = check_block_dim(n);
  if (!problem.empty()) user_error("kernel '{}': {}", program_.name, problem);
  program_.block_dim = n;
}

void ProgramBuilder::entry(CoreKind kind, std::string label) {
  CoreKind checked = kind;
  std::string problem = kind == CoreKind::Coupled ? "a coupled core needs no entry: a program starts at its first "
                                                    "instruction; entries are for split chips (aic, aiv)"
                                                  : check_entry(program_, core_kind_name(kind), checked);
  if (problem.empty()) problem = check_name(label, "label");
  if (!problem.empty()) user_error("kernel '{}': {}", program_.name, problem);
  program_.entries.push_back({kind, std::move(label)});
}

void ProgramBuilder::label(std::string n) {
  std::string problem = check_name(n, "label");
  if (!problem.empty()) user_error("kernel '{}': {}", program_.name, problem);
  for (const Label& l : program_.labels)
    if (l.name == n) user_error("kernel '{}': label '{}' is defined twice", program_.name, n);
  program_.labels.push_back({std::move(n), int(program_.code.size())});
}

namespace {
struct BuildContext {
  const Program* program;
  std::string_view mnemonic;
};
void builder_fail(void* context, int, const std::string& message) {
  auto* c = static_cast<BuildContext*>(context);
  user_error("kernel '{}', instruction {} ({}): {}", c->program->name, c->program->code.size(), c->mnemonic, message);
}
}  // namespace

int ProgramBuilder::emit(std::string_view mnemonic, const std::vector<Arg>& args) {
  BuildContext context{&program_, mnemonic};
  std::vector<LabelRef> refs;
  Instr in = make_instr(program_, mnemonic, 0, args, refs, builder_fail, &context);
  int index = int(program_.code.size());
  for (LabelRef& r : refs) pending_.push_back({index, std::move(r)});
  program_.code.push_back(in);
  return index;
}

void ProgramBuilder::resolve_labels() {
  for (const auto& [index, ref] : pending_) {
    auto it = std::find_if(program_.labels.begin(), program_.labels.end(), [&](const Label& l) { return l.name == ref.name; });
    if (it == program_.labels.end())
      user_error("kernel '{}', instruction {}: label '{}' is never defined", program_.name, index, ref.name);
    program_.code[index].ops[ref.operand].imm = it->index;
  }
  pending_.clear();
  std::string problem = check_entry_labels(program_);
  if (!problem.empty()) user_error("kernel '{}': {}", program_.name, problem);
}

Program ProgramBuilder::finish() & {
  resolve_labels();
  return program_;
}

Program ProgramBuilder::finish() && {
  resolve_labels();
  return std::move(program_);
}

}  // namespace cubekit
