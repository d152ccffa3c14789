// The text form of programs: a line-oriented parser with line:column errors, and the printer.
//
//   .kernel NAME                          # directives
//   .block_dim 4
//   .tensor A f16 [128, 128] in           # GM tensor: name dtype shape in|out|inout
//   .entry aic cube                       # split chips: where the cube (aic) / vector (aiv) cores start
//   loop:                                 # a label
//       vadd.f16 ub[x1 + 256], ub[x1], ub[0], repeat=2, mask=64
#include "emulator/error.h"
#include "emulator/program.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace cubekit {
namespace {

// A byte no message should print as it is (a NUL cuts the message short); a tab is shown.
bool control(char c) { return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7F; }

struct Token {
  enum Kind { Ident, Int, Float, Punct, End } kind = End;
  std::string text;
  int64_t i = 0;
  uint64_t u = 0;  // an integer's bits (hex masks use all 64)
  double f = 0;
  int column = 0;  // 1-based
};

class Parser {
 public:
  Parser(std::string_view source, std::string_view name) : source_(source), name_(name) {}

  Program run() {
    size_t pos = 0;
    while (pos <= source_.size()) {
      size_t eol = source_.find('\n', pos);
      if (eol == std::string_view::npos) eol = source_.size();
      ++line_no_;
      line_ = source_.substr(pos, eol - pos);
      if (!line_.empty() && line_.back() == '\r') line_.remove_suffix(1);
      parse_line();
      pos = eol + 1;
    }
    resolve_labels();
    if (program_.code.empty())
      user_error("{}: the program has no instructions; a kernel is its instructions, the last of them `end` "
                 "(examples/asm/ has some to start from)", name_);
    return std::move(program_);
  }

  // The line is shown kAround bytes either side of the column, and the message cut at kMessage:
  // a 10 MB literal once made a 20 MB message.
  [[noreturn]] void error(int column, const std::string& message) {
    constexpr size_t kAround = 80, kMessage = 400;
    auto continuation = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; };
    const size_t at = std::min(size_t(std::max(column, 1) - 1), line_.size());
    size_t from = at > kAround ? at - kAround : 0, to = std::min(line_.size(), at + kAround);
    while (from > 0 && continuation(line_[from])) --from;
    while (to < line_.size() && continuation(line_[to])) ++to;
    std::string shown = from ? "..." : "";
    for (char c : line_.substr(from, to - from)) shown += control(c) ? std::string("\uFFFD") : std::string(1, c);  // a NUL ends a message
    shown += to < line_.size() ? "..." : "";
    std::string caret(from ? 3 : 0, ' ');  // keeps the line's tabs so the caret lands under the column
    for (size_t i = from; i < at; ++i)
      if (!continuation(line_[i])) caret += line_[i] == '\t' ? '\t' : ' ';  // one per character
    size_t cut = std::min(message.size(), kMessage);
    while (cut < message.size() && cut > 0 && continuation(message[cut])) --cut;
    const std::string said = cut < message.size() ? message.substr(0, cut) + "..." : message;
    user_error("{}:{}:{}: error: {}\n  {}\n  {}^", name_, line_no_, column, said, shown, caret);
  }

 private:
  // ---- lexing one line -------------------------------------------------------------------------
  // The whole UTF-8 sequence starting at byte i, so that messages stay valid text.
  std::string_view character_at(size_t i) const {
    size_t j = i + 1;
    if (static_cast<unsigned char>(line_[i]) >= 0xC0)
      while (j < line_.size() && (static_cast<unsigned char>(line_[j]) & 0xC0) == 0x80) ++j;
    return line_.substr(i, j - i);
  }

  void tokenize() {
    tokens_.clear();
    size_t i = 0;
    while (i < line_.size()) {
      char c = line_[i];
      if (c == '#') break;
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      Token t;
      t.column = int(i) + 1;
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.') {
        size_t j = i;
        while (j < line_.size() && (std::isalnum(static_cast<unsigned char>(line_[j])) || line_[j] == '_' || line_[j] == '.')) ++j;
        t.kind = Token::Ident, t.text = std::string(line_.substr(i, j - i));
        i = j;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        i = number(i, t);
      } else if (std::string_view(",[]+-:=").find(c) != std::string_view::npos) {
        t.kind = Token::Punct, t.text = std::string(1, c);
        ++i;
      } else {
        error(int(i) + 1, control(c) ? fmt::format("unexpected control byte {:#04x}", static_cast<unsigned char>(c))
                                     : fmt::format("unexpected character '{}'", character_at(i)));
      }
      tokens_.push_back(std::move(t));
    }
    Token end;
    end.column = int(line_.size()) + 1;
    tokens_.push_back(end);
    at_ = 0;
  }

  size_t number(size_t i, Token& t) {
    size_t j = i;
    bool hex = line_.substr(i).starts_with("0x") || line_.substr(i).starts_with("0X");
    if (hex) {
      j += 2;
      while (j < line_.size() && std::isxdigit(static_cast<unsigned char>(line_[j]))) ++j;
      auto [p, ec] = std::from_chars(line_.data() + i + 2, line_.data() + j, t.u, 16);
      if (ec == std::errc::result_out_of_range)
        error(int(i) + 1, fmt::format("hexadecimal number '{}' does not fit in 64 bits", line_.substr(i, j - i)));
      if (ec != std::errc() || j == i + 2) error(int(i) + 1, "malformed hexadecimal number");
      t.kind = Token::Int, t.i = int64_t(t.u);
    } else {
      while (j < line_.size() && (std::isalnum(static_cast<unsigned char>(line_[j])) || line_[j] == '.' ||
                                  ((line_[j] == '-' || line_[j] == '+') && (line_[j - 1] == 'e' || line_[j - 1] == 'E'))))
        ++j;
      std::string_view text = line_.substr(i, j - i);
      bool is_float = text.find_first_of(".eE") != std::string_view::npos;
      if (is_float) {
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), t.f);
        if (ec == std::errc::result_out_of_range && p == text.data() + text.size())
          error(int(i) + 1, fmt::format("number '{}' is outside a double's range (magnitudes from about 4.9e-324 to 1.8e308; "
                                        "write 0 for a smaller one)", text));
        if (ec != std::errc() || p != text.data() + text.size()) error(int(i) + 1, fmt::format("malformed number '{}'", text));
        t.kind = Token::Float;
      } else {
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), t.u);
        if (ec == std::errc::result_out_of_range) error(int(i) + 1, fmt::format("number '{}' does not fit in 64 bits", text));
        if (ec != std::errc() || p != text.data() + text.size()) error(int(i) + 1, fmt::format("malformed number '{}'", text));
        t.kind = Token::Int, t.i = int64_t(t.u);
      }
    }
    t.text = std::string(line_.substr(i, j - i));
    return j;
  }

  // A decimal literal must fit a signed 64-bit integer; hexadecimal ones are bit patterns.
  int64_t signed_value(const Token& t, bool negative) {
    bool hex = t.text.size() > 1 && (t.text[1] == 'x' || t.text[1] == 'X');
    uint64_t limit = negative ? uint64_t(1) << 63 : (hex ? UINT64_MAX : uint64_t(INT64_MAX));
    if (t.u > limit)
      error(t.column, fmt::format("number '{}{}' does not fit in 64 bits (signed)", negative ? "-" : "", t.text));
    return negative ? int64_t(0 - t.u) : int64_t(t.u);
  }

  const Token& peek(int ahead = 0) const { return tokens_[std::min(at_ + ahead, tokens_.size() - 1)]; }
  Token take() { return tokens_[std::min(at_++, tokens_.size() - 1)]; }
  bool is_punct(const Token& t, char c) const { return t.kind == Token::Punct && t.text[0] == c; }
  std::string describe(const Token& t) const {
    return t.kind == Token::End ? "the end of the line" : fmt::format("'{}'", t.text);
  }
  void expect_punct(char c, std::string_view what) {
    Token t = take();
    if (!is_punct(t, c)) error(t.column, fmt::format("expected '{}' {}, found {}", c, what, describe(t)));
  }
  void expect_end() {
    if (peek().kind != Token::End) error(peek().column, fmt::format("expected the end of the line, found {}", describe(peek())));
  }

  // ---- lines -------------------------------------------------------------------------------------
  void parse_line() {
    tokenize();
    if (peek().kind == Token::Ident && is_punct(peek(1), ':') && peek().text[0] != '.') {
      Token l = take();
      take();
      define_label(l);
    }
    if (peek().kind == Token::End) return;
    if (peek().kind != Token::Ident) error(peek().column, fmt::format("expected an instruction or a directive, found {}", describe(peek())));
    if (peek().text[0] == '.') directive();
    else instruction();
  }

  void define_label(const Token& l) {
    if (register_number(l.text) >= 0)
      error(l.column, fmt::format("label '{}' is named like a register; branches would read it as one, so rename it", l.text));
    if (!label_at_.emplace(l.text, int(program_.code.size())).second)
      error(l.column, fmt::format("label '{}' is defined twice", l.text));
    program_.labels.push_back({l.text, int(program_.code.size())});
  }

  int64_t integer(std::string_view what) {
    bool negative = is_punct(peek(), '-');
    if (negative) take();
    Token t = take();
    if (t.kind != Token::Int) error(t.column, fmt::format("expected {} (an integer), found {}", what, describe(t)));
    return signed_value(t, negative);
  }

  void directive() {
    Token d = take();
    if (d.text == ".kernel") {
      if (seen_kernel_) error(d.column, "the kernel's name is given twice (one .kernel per program)");
      seen_kernel_ = true;
      Token n = take();
      if (n.kind != Token::Ident) error(n.column, fmt::format("expected the kernel's name, found {}", describe(n)));
      program_.name = n.text;
    } else if (d.text == ".block_dim") {
      if (seen_block_dim_) error(d.column, "block_dim is given twice (one .block_dim per program)");
      seen_block_dim_ = true;
      int column = peek().column;
      int64_t n = integer("the number of cores");
      std::string problem = check_block_dim(n);
      if (!problem.empty()) error(column, problem);
      program_.block_dim = int(n);
    } else if (d.text == ".tensor") {
      tensor();
    } else if (d.text == ".entry") {
      entry();
    } else {
      error(d.column, fmt::format("unknown directive '{}' (.kernel, .block_dim, .tensor, .entry)", d.text));
    }
    expect_end();
  }

  // .entry aic LABEL | .entry aiv LABEL; the label is checked once the whole text is read.
  void entry() {
    Token k = take();
    CoreKind kind = CoreKind::Aic;
    std::string problem = k.kind == Token::Ident ? check_entry(program_, k.text, kind)
                                                 : fmt::format("expected aic or aiv, found {}", describe(k));
    if (!problem.empty()) error(k.column, problem);
    Token l = take();
    if (l.kind != Token::Ident || l.text[0] == '.') error(l.column, fmt::format("expected the entry's label, found {}", describe(l)));
    program_.entries.push_back({kind, l.text});
    entry_lines_.push_back({line_no_, std::string(line_), l.column});
  }

  void tensor() {
    Token n = take();
    if (n.kind != Token::Ident || n.text[0] == '.') error(n.column, fmt::format("expected the tensor's name, found {}", describe(n)));
    std::string problem = check_tensor_decl(program_, n.text, DType::u8, {1});
    if (!problem.empty()) error(n.column, problem);
    Token t = take();
    auto dtype = t.kind == Token::Ident ? parse_dtype(t.text) : std::nullopt;
    if (!dtype) error(t.column, fmt::format("expected a dtype ({}), found {}", dtype_list(), describe(t)));
    expect_punct('[', "to open the shape");
    std::vector<int64_t> shape;
    for (;;) {
      int column = peek().column;
      int64_t dim = integer("a dimension");
      if (dim <= 0) error(column, fmt::format("dimension {} must be positive", dim));
      shape.push_back(dim);
      Token sep = take();
      if (is_punct(sep, ']')) break;
      if (!is_punct(sep, ',')) error(sep.column, fmt::format("expected ',' or ']' in the shape, found {}", describe(sep)));
    }
    Token r = take();
    TensorRole role;
    if (r.text == "in") role = TensorRole::In;
    else if (r.text == "out") role = TensorRole::Out;
    else if (r.text == "inout") role = TensorRole::InOut;
    else if (r.text == "workspace") role = TensorRole::Workspace;
    else error(r.column, fmt::format("expected the tensor's role (in, out, inout or workspace), found {}", describe(r)));
    problem = check_tensor_decl(program_, n.text, *dtype, shape);
    if (!problem.empty()) error(n.column, problem);
    program_.tensors.push_back({n.text, *dtype, shape, role});
  }

  void instruction() {
    Token m = take();
    std::vector<Arg> args;
    if (peek().kind != Token::End) {
      for (;;) {
        args.push_back(operand());
        if (peek().kind == Token::End) break;
        expect_punct(',', "between operands");
      }
    }
    std::vector<LabelRef> refs;
    Instr in = make_instr(program_, m.text, m.column, args, refs, &Parser::fail, this);
    in.line = uint32_t(line_no_);
    for (LabelRef& r : refs) pending_.push_back({int(program_.code.size()), line_no_, std::string(line_), std::move(r)});
    program_.code.push_back(in);
  }

  static void fail(void* self, int column, const std::string& message) { static_cast<Parser*>(self)->error(column, message); }

  Arg operand() {
    const Token& t = peek();
    if (t.kind == Token::Ident && is_punct(peek(1), '=')) {
      Token key = take();
      take();
      Arg value = lower_case(key.text) == "mask"                                ? mask_value()
                  : peek().kind == Token::Ident && is_punct(peek(1), '[') ? memory()
                                                                            : simple_value();
      value.key = key.text;
      value.column = key.column;
      return value;
    }
    if (t.kind == Token::Ident && is_punct(peek(1), '[')) return memory();
    return simple_value();
  }

  // A register, a number, or a name.
  Arg simple_value() {
    int column = peek().column;
    bool negative = is_punct(peek(), '-');
    if (negative) take();
    Token t = take();
    Arg a;
    a.column = column;
    if (t.kind == Token::Int) {
      a.kind = Arg::Kind::Int, a.value = signed_value(t, negative);
    } else if (t.kind == Token::Float) {
      a.kind = Arg::Kind::Float, a.f = negative ? -t.f : t.f;
    } else if (t.kind == Token::Ident && register_number(t.text) >= 0 && !negative) {
      a.kind = Arg::Kind::Reg, a.reg = register_number(t.text);
    } else if (t.kind == Token::Ident) {
      const std::string lowered = lower_case(t.text);
      if (negative && lowered != "inf") error(t.column, fmt::format("'-' cannot precede '{}'", t.text));
      if (negative) a.kind = Arg::Kind::Float, a.f = -INFINITY;
      else a.kind = Arg::Kind::Name, a.name = t.text;
    } else {
      error(t.column, fmt::format("expected an operand, found {}", describe(t)));
    }
    return a;
  }

  static int register_number(std::string_view s) {
    if (s.size() < 2 || s.size() > 3 || (s[0] != 'x' && s[0] != 'X')) return -1;
    int n = 0;
    for (char c : s.substr(1)) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
      n = n * 10 + (c - '0');
    }
    return n;
  }

  Arg mask_value() {
    Token t = peek();
    Arg a;
    a.column = t.column;
    if (t.kind == Token::Ident && lower_case(t.text) == "counter") {
      take();
      expect_punct(':', "after 'counter'");
      int64_t n = integer("the element count");
      return mask_counter(n);
    }
    if (t.kind == Token::Int && is_punct(peek(1), ':')) {
      take();
      take();
      Token lo = take();
      if (lo.kind != Token::Int) error(lo.column, fmt::format("expected the low 64 mask bits, found {}", describe(lo)));
      return mask_bits(t.u, lo.u);
    }
    if (t.kind == Token::Int) {
      take();
      return mask_count(t.i);
    }
    error(t.column, fmt::format("expected a mask: N, 0xHI:0xLO or counter:N; found {}", describe(t)));
  }

  Arg memory() {
    Token n = take();
    expect_punct('[', "to open the address");
    Arg a;
    a.kind = Arg::Kind::Mem, a.name = n.text, a.column = n.column;
    Token t = peek();
    if (t.kind == Token::Ident && register_number(t.text) >= 0) {
      take();
      a.reg = register_number(t.text);
      if (is_punct(peek(), '+') || is_punct(peek(), '-')) {
        bool minus = take().text == "-";
        Token off = take();
        if (off.kind != Token::Int) error(off.column, fmt::format("expected a byte offset, found {}", describe(off)));
        a.value = signed_value(off, minus);
      }
    } else {
      a.value = integer("a register or a byte offset");
    }
    expect_punct(']', "to close the address");
    return a;
  }

  void resolve_labels() {
    for (const Pending& p : pending_) {
      auto it = label_at_.find(p.ref.name);
      if (it == label_at_.end()) {
        line_no_ = p.line;
        line_ = p.text;
        error(p.ref.column, fmt::format("label '{}' is never defined", p.ref.name));
      }
      program_.code[p.instr].ops[p.ref.operand].imm = it->second;
    }
    for (size_t e = 0; e < program_.entries.size(); ++e)
      if (program_.label_index(program_.entries[e].label) < 0) {
        line_no_ = entry_lines_[e].line;
        line_ = entry_lines_[e].text;
        error(entry_lines_[e].column, check_entry_labels(program_));
      }
  }

  struct Pending {
    int instr;
    int line;
    std::string text;
    LabelRef ref;
  };

  std::string_view source_;
  std::string name_;
  std::string_view line_;
  int line_no_ = 0;
  std::vector<Token> tokens_;
  size_t at_ = 0;
  Program program_;
  std::vector<Pending> pending_;
  std::unordered_map<std::string, int> label_at_;  // each label's instruction (a scan per label was quadratic)
  bool seen_kernel_ = false, seen_block_dim_ = false;
  struct EntryLine {
    int line;
    std::string text;
    int column;
  };
  std::vector<EntryLine> entry_lines_;  // where each .entry was written, for its error
};

std::string number_text(double f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
  std::string text = fmt::format("{}", f);  // the shortest text that reads back as f
  if (text.find_first_of(".e") == std::string::npos) text += ".0";  // a number, not an integer: 1.0, -0.0
  return text;
}

std::string operand_text(const Program& p, const OperandSpec& spec, const Operand& o) {
  switch (o.kind) {
    case Operand::Kind::Reg: return fmt::format("x{}", o.reg);
    case Operand::Kind::Imm: return std::to_string(o.imm);
    case Operand::Kind::Float: return number_text(o.f);
    case Operand::Kind::Mem: {
      std::string base = o.space == Space::GM ? p.tensors.at(o.tensor).name : std::string(space_name(o.space));
      if (o.reg == kNoReg) return fmt::format("{}[{}]", base, o.imm);
      if (o.imm == 0) return fmt::format("{}[x{}]", base, o.reg);
      return fmt::format("{}[x{} {} {}]", base, o.reg, o.imm < 0 ? '-' : '+', o.imm < 0 ? -o.imm : o.imm);
    }
    case Operand::Kind::Label: {
      for (const Label& l : p.labels)
        if (l.index == o.imm) return l.name;
      return fmt::format("L{}", o.imm);
    }
    case Operand::Kind::Sym:
      return spec.kind == OperandKind::PipeName ? std::string(pipe_name(Pipe(o.imm))) : std::string(spec.symbols[o.imm]);
    case Operand::Kind::Mask:
      switch (o.mask) {
        case MaskMode::Count: return std::to_string(o.imm);
        case MaskMode::Bits: return fmt::format("{:#x}:{:#x}", o.hi, uint64_t(o.imm));
        case MaskMode::Counter: return fmt::format("counter:{}", o.imm);
        case MaskMode::Full: return "";
      }
      return "";
    case Operand::Kind::Flag: return std::to_string(o.imm);
    case Operand::Kind::None: return "?";
  }
  return "?";
}

bool is_default(const OperandSpec& spec, const Operand& o) {
  if (spec.def == kRequiredKeyword) return false;
  switch (spec.kind) {
    case OperandKind::Mask: return o.mask == MaskMode::Full;
    case OperandKind::Scalar:
    case OperandKind::Mem: return o.kind == Operand::Kind::None;  // an optional operand left out
    default: return o.imm == spec.def;
  }
}

}  // namespace

Program parse_program(std::string_view text, std::string_view source_name) {
  Program p = Parser(text, source_name).run();
  // Where its run's diagnostics point, as load_program's; a placeholder ("<input>", "<python>") is no file.
  if (!(source_name.starts_with('<') && source_name.ends_with('>'))) p.source = source_name;
  return p;
}

Program load_program(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    user_error("cannot read program file '{}': no such file (check the path; `cubekit compile KERNEL -o FILE.s` writes one)",
               path);
  // A pipe (/dev/stdin, bash's <(...)) reads as a file does; a directory does not.
  if (std::filesystem::is_directory(path, ec))
    user_error("cannot read program file '{}': a directory, not a file; give the path of a .s file", path);
  std::ifstream in(path);
  if (!in) user_error("cannot read program file '{}': {}", path, unreadable_reason(path));
  std::stringstream ss;
  ss << in.rdbuf();
  Program p = parse_program(ss.str(), path);
  p.source = path;
  return p;
}

std::string instruction_at(const Program& p, int index) {
  const uint32_t line = index >= 0 && size_t(index) < p.code.size() ? p.code[size_t(index)].line : 0;
  return line ? fmt::format("instruction {} (line {})", index, line) : fmt::format("instruction {}", index);
}

std::string print_instr(const Program& p, const Instr& in) {
  const InstrSpec& spec = spec_of(in);
  std::string out(spec.mnemonic);
  for (int i = 0; i < in.ntypes; ++i) out += "." + std::string(dtype_name(in.type[i]));
  bool first = true;
  for (size_t i = 0; i < spec.operands.size(); ++i) {
    const OperandSpec& o = spec.operands[i];
    if (o.keyword && is_default(o, in.ops[i])) continue;
    out += first ? " " : ", ";
    first = false;
    if (o.kind == OperandKind::Flag) out += o.name;
    else if (o.keyword) out += fmt::format("{}={}", o.name, operand_text(p, o, in.ops[i]));
    else out += operand_text(p, o, in.ops[i]);
  }
  return out;
}

// The lines print_program writes before the code: .kernel, .block_dim unless 1, the tensors, the
// entries (number_lines counts them the same way).
static int header_lines(const Program& p) { return 1 + (p.block_dim != 1) + int(p.tensors.size()) + int(p.entries.size()); }

void number_lines(Program& p) {
  uint32_t line = uint32_t(header_lines(p));
  size_t next_label = 0;
  std::vector<int> label_at;
  for (const Label& l : p.labels) label_at.push_back(l.index);
  std::sort(label_at.begin(), label_at.end());
  for (size_t i = 0; i < p.code.size(); ++i) {
    while (next_label < label_at.size() && label_at[next_label] == int(i)) ++line, ++next_label;
    p.code[i].line = ++line;
  }
}

std::string print_program(const Program& p) {
  std::string out = fmt::format(".kernel {}\n", p.name);
  if (p.block_dim != 1) out += fmt::format(".block_dim {}\n", p.block_dim);
  for (const TensorDecl& t : p.tensors) {
    std::string shape;
    for (int64_t d : t.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    out += fmt::format(".tensor {} {} [{}] {}\n", t.name, dtype_name(t.dtype), shape, role_name(t.role));
  }
  for (const Entry& e : p.entries) out += fmt::format(".entry {} {}\n", core_kind_name(e.kind), e.label);
  for (size_t i = 0; i <= p.code.size(); ++i) {
    for (const Label& l : p.labels)
      if (l.index == int(i)) out += l.name + ":\n";
    if (i < p.code.size()) out += "    " + print_instr(p, p.code[i]) + "\n";
  }
  return out;
}

}  // namespace cubekit
