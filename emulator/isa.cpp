#include "emulator/isa.h"

#include "emulator/launch.h"

#include "emulator/checked_math.h"
#include "emulator/error.h"
#include "emulator/isa_helpers.h"
#include "emulator/memory.h"
#include "emulator/rounding.h"

#include <fmt/format.h>

#include <cmath>
#include <unordered_map>

namespace cubekit {

std::string_view pipe_name(Pipe p) {
  static constexpr std::string_view names[] = {"S", "MTE1", "MTE2", "MTE3", "M", "V", "FIX", "ALL"};
  return names[int(p)];
}

int64_t Region::lo() const { return base; }
int64_t Region::hi() const { return end().value_or(INT64_MAX); }

std::optional<int64_t> Region::end() const {
  if (n1 <= 0 || n2 <= 0 || bytes <= 0) return base;
  std::optional<int64_t> a = checked_mul(n1 - 1, s1), b = checked_mul(n2 - 1, s2);
  if (!a || !b) return std::nullopt;
  std::optional<int64_t> extent = checked_add(*a, *b);
  if (extent) extent = checked_add(*extent, bytes);
  return extent ? checked_add(base, *extent) : std::nullopt;
}

void Footprint::overflow() { CUBEKIT_ASSERT(false, "an instruction's footprint has more than 16 regions"); }

uint8_t* ExecContext::ptr(const Issued& I, int operand) const {
  const Operand& o = I.instr->ops[operand];
  if (o.space == Space::GM) return gm[o.tensor].data + (I.v[operand] - gm[o.tensor].offset);
  return core.data(o.space) + I.v[operand];
}

int InstrSpec::operand_index(std::string_view name) const {
  for (size_t i = 0; i < operands.size(); ++i)
    if (operands[i].name == name) return int(i);
  return -1;
}

int InstrSpec::positional_count() const {
  int n = 0;
  for (const OperandSpec& o : operands) n += !o.keyword;
  return n;
}

const std::vector<InstrSpec>& isa_table() {
  static const std::vector<InstrSpec> table = [] {
    std::vector<InstrSpec> t;
    add_scalar_instructions(t);
    add_sync_instructions(t);
    add_mte_instructions(t);
    add_cube_instructions(t);
    add_fixpipe_instructions(t);
    add_vector_instructions(t);
    for (InstrSpec& s : t) {
      s.atomic = s.operand_index("atomic");
      CUBEKIT_ASSERT(s.operands.size() <= size_t(kMaxOperands), "{} has too many operands", s.mnemonic);
      CUBEKIT_ASSERT((s.pipe == Pipe::S) == (s.scalar != nullptr), "{}: scalar behaviour iff pipe S", s.mnemonic);
      CUBEKIT_ASSERT(s.pipe == Pipe::S || s.exec, "{} has no behaviour", s.mnemonic);
      CUBEKIT_ASSERT((s.pipe == Pipe::S || s.pipe == Pipe::All) == (s.work == nullptr), "{}: work iff a pipe instruction",
                     s.mnemonic);
    }
    return t;
  }();
  return table;
}


int find_mnemonic(std::string_view mnemonic) {
  static const std::unordered_map<std::string_view, int> index = [] {
    std::unordered_map<std::string_view, int> m;
    const auto& t = isa_table();
    for (size_t i = 0; i < t.size(); ++i) {
      bool inserted = m.emplace(t[i].mnemonic, int(i)).second;
      CUBEKIT_ASSERT(inserted, "mnemonic {} defined twice", t[i].mnemonic);
    }
    return m;
  }();
  auto it = index.find(mnemonic);
  return it == index.end() ? -1 : it->second;
}

namespace {
int sync_op(std::string_view name) {
  int i = find_mnemonic(name);
  CUBEKIT_ASSERT(i >= 0, "no {} in the table", name);
  return i;
}
}  // namespace

bool is_set_flag(const Instr& in) {
  static const int op = sync_op("set_flag");
  return in.op == op;
}
bool is_wait_flag(const Instr& in) {
  static const int op = sync_op("wait_flag");
  return in.op == op;
}
bool is_barrier(const Instr& in) {
  static const int op = sync_op("barrier");
  return in.op == op;
}

bool is_set_cross(const Instr& in) {
  static const int op = sync_op("set_cross");
  return in.op == op;
}
bool is_wait_cross(const Instr& in) {
  static const int op = sync_op("wait_cross");
  return in.op == op;
}

Pipe issue_pipe(const Instr& in) {
  if (is_set_cross(in) || is_wait_cross(in)) return Pipe(in.ops[0].imm);
  if (is_set_flag(in)) return Pipe(in.ops[0].imm);   // set_flag src, dst, id: waits for src's work
  if (is_wait_flag(in)) return Pipe(in.ops[1].imm);  // wait_flag src, dst, id: blocks dst
  if (is_barrier(in)) return Pipe(in.ops[0].imm);
  return spec_of(in).pipe;
}

namespace isa {

double load_as_double(const uint8_t* p, DType t) {
  switch (t) {
    case DType::f16: return f16_to_f32(load<uint16_t>(p));
    case DType::f32: return load<float>(p);
    case DType::s8: return load<int8_t>(p);
    case DType::u8: return load<uint8_t>(p);
    case DType::s16: return load<int16_t>(p);
    case DType::u16: return load<uint16_t>(p);
    case DType::s32: return load<int32_t>(p);
    case DType::bf16: return bf16_to_f32(load<uint16_t>(p));
  }
  return 0;
}

void store_from_double(uint8_t* p, DType t, double v) {
  switch (t) {
    case DType::f16: store<uint16_t>(p, double_to_f16(v, RoundMode::rint)); return;
    case DType::f32: store<float>(p, double_to_f32(v, RoundMode::rint)); return;
    case DType::s8: store<int8_t>(p, int8_t(int64_t(v))); return;
    case DType::u8: store<uint8_t>(p, uint8_t(int64_t(v))); return;
    case DType::s16: store<int16_t>(p, int16_t(int64_t(v))); return;
    case DType::u16: store<uint16_t>(p, uint16_t(int64_t(v))); return;
    case DType::s32: store<int32_t>(p, int32_t(int64_t(v))); return;
    case DType::bf16: store<uint16_t>(p, double_to_bf16(v, RoundMode::rint)); return;
  }
}

}  // namespace isa

namespace {

std::string kind_text(const OperandSpec& o) {
  switch (o.kind) {
    case OperandKind::Reg: return "register";
    case OperandKind::RegOrImm: return "register or integer";
    case OperandKind::Imm:
      if (o.lo == isa::kI64Min) return "integer";
      return fmt::format("integer {}..{}", o.lo, o.hi);
    case OperandKind::Scalar: return "register or number";
    case OperandKind::Mem: {
      std::string s;
      for (int sp = 0; sp < kNumSpaces; ++sp)
        if (o.spaces & (1u << sp)) s += (s.empty() ? "" : "|") + std::string(sp == 0 ? "tensor" : space_name(Space(sp)));
      return "memory: " + s;
    }
    case OperandKind::Label: return "label";
    case OperandKind::PipeName: return o.allow_all ? "pipe or ALL" : "pipe";
    case OperandKind::Enum: {
      std::string s;
      for (auto sym : o.symbols) s += (s.empty() ? "" : "|") + std::string(sym);
      return s;
    }
    case OperandKind::Mask: return "mask";
    case OperandKind::Flag: return "flag";
  }
  return "?";
}

std::string syntax_of(const InstrSpec& s) {
  std::string out(s.mnemonic);
  if (!s.type_syntax.empty()) out += s.type_syntax;
  else
    for (int i = 0; i < s.ntypes; ++i) out += i == 0 ? ".T" : ".S";
  bool first = true;
  for (const OperandSpec& o : s.operands) {
    out += first ? " " : ", ";
    first = false;
    if (!o.keyword) out += o.name;
    else if (o.kind == OperandKind::Flag) out += fmt::format("[{}]", o.name);
    else if (o.def == kRequiredKeyword) out += fmt::format("{}=…", o.name);
    else out += fmt::format("[{}=…]", o.name);
  }
  return out;
}

std::string default_text(const OperandSpec& o) {
  if (!o.keyword) return "";
  if (o.def == kRequiredKeyword) return "required";
  switch (o.kind) {
    case OperandKind::Enum: return std::string(o.symbols[o.def]);
    case OperandKind::Flag: return "off";
    case OperandKind::Mask: return "all";
    case OperandKind::Scalar:
    case OperandKind::Mem: return "absent";
    default: return std::to_string(o.def);
  }
}

}  // namespace

std::string isa_reference_markdown() {
  std::string md =
      "# cubekit instruction set\n\n"
      "Generated from the instruction table (`emulator/isa_*.cpp`) by `cubekit isa --markdown`; a test\n"
      "keeps this file equal to that output. See `emulator/README.md` for the text syntax and\n"
      "the conventions every instruction shares (byte addresses, 32 B blocks, fractal layouts).\n\n"
      "The chips column lists the presets (and their kinds of core) that have an instruction: the pipe\n"
      "it runs on, the buffers it names and, for a transfer, the data path (see `emulator/launch.h`).\n\n"
      "| mnemonic | pipe | types | chips | summary |\n|---|---|---|---|---|\n";
  auto types_text = [](const InstrSpec& s) {
    std::string t;
    for (const auto& sig : s.types) {
      t += t.empty() ? "" : " ";
      for (int i = 0; i < s.ntypes; ++i) t += (i ? "." : "") + std::string(dtype_name(sig[i]));
    }
    return t;
  };
  for (const InstrSpec& s : isa_table())
    md += fmt::format("| [`{}`](#{}) | {} | {} | {} | {} |\n", s.mnemonic, s.mnemonic,
                      s.pipe == Pipe::All ? "by operand" : pipe_name(s.pipe),
                      types_text(s), presets_having(s), s.summary);
  for (const InstrSpec& s : isa_table()) {
    md += fmt::format("\n## {}\n\n{}\n\n`{}`\n\n", s.mnemonic, s.summary, syntax_of(s));
    md += fmt::format("- pipe: {}\n", s.pipe == Pipe::All ? "the one its pipe operand names" : pipe_name(s.pipe));
    if (s.ntypes) md += fmt::format("- types: {}\n", types_text(s));
    md += fmt::format("- chips: {}\n", presets_having(s));
    if (!s.operands.empty()) {
      md += "\n| operand | kind | default | meaning |\n|---|---|---|---|\n";
      for (const OperandSpec& o : s.operands)
        md += fmt::format("| `{}` | {} | {} | {} |\n", o.name, kind_text(o), default_text(o), o.doc);
    }
    md += fmt::format("\n{}\n", s.semantics);
  }
  return md;
}

}  // namespace cubekit
