// A program for the AI Core: GM tensor declarations, instructions, labels. Built by the assembler
// (text) or by ProgramBuilder (C++); printed back to text by print_program. All three share one
// path that checks each instruction against the ISA table (make_instr).
#pragma once

#include "emulator/isa.h"

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace cubekit {

// In: the host gives it; Out: the kernel writes it for the host; InOut: both. Workspace: GM scratch
// the kernel writes and reads itself (Ascend C's user workspace, e.g. a cube core's results handed
// to the vector cores): neither given nor returned, and uninitialised until the kernel writes it.
enum class TensorRole : uint8_t { In, Out, InOut, Workspace };
std::string_view role_name(TensorRole r);
inline bool given_by_host(TensorRole r) { return r == TensorRole::In || r == TensorRole::InOut; }

struct TensorDecl {
  std::string name;
  DType dtype = DType::f16;
  std::vector<int64_t> shape;
  TensorRole role = TensorRole::In;

  int64_t elements() const;
  int64_t bytes() const { return elements() * dtype_size(dtype); }
  bool operator==(const TensorDecl&) const = default;
};

struct Label {
  std::string name;
  int index;  // the instruction it names (== code.size() for a label at the end)
  bool operator==(const Label&) const = default;
};

// Where the cores of one kind start on a split chip (`.entry aic LABEL`): a mixed kernel has an
// entry for the cube cores and one for the vector cores. Without entries a program starts at its
// first instruction, on the one kind that has everything it uses.
struct Entry {
  CoreKind kind = CoreKind::Aic;  // Aic or Aiv
  std::string label;
  bool operator==(const Entry&) const = default;
};

struct Program {
  std::string name = "kernel";
  std::string source;  // the file it was read from (load_program), where diagnostics point; empty otherwise
  int block_dim = 1;
  std::vector<TensorDecl> tensors;
  std::vector<Entry> entries;  // at most one per kind
  std::vector<Instr> code;
  std::vector<Label> labels;

  int tensor_index(std::string_view name) const;  // -1 when absent
  const TensorDecl& tensor(std::string_view name) const;
  const Entry* entry(CoreKind kind) const;  // nullptr when the program has no entry for the kind
  int label_index(std::string_view label) const;  // the instruction a label names; -1 when undefined
};

// Checks shared by the parser and ProgramBuilder; each returns an error message, empty when fine.
std::string check_tensor_decl(const Program& program, std::string_view name, DType dtype,
                              const std::vector<int64_t>& shape);
std::string check_block_dim(int64_t n);
// `.entry KIND LABEL`: KIND is aic or aiv, once per program. Sets `kind`.
std::string check_entry(const Program& program, std::string_view kind_word, CoreKind& kind);
// After the labels are known: every entry names a defined label.
std::string check_entry_labels(const Program& program);
// Names the assembly text can read back: a letter or '_', then letters, digits, '_' or '.'.
// `what` says whose name it is ("kernel", "tensor", "label").
std::string check_name(std::string_view name, std::string_view what);
// A tensor named as a buffer (gm, ub, l1, ..., in any case) would read as that buffer in assembly.
std::string check_not_a_buffer(std::string_view name);
// A GM tensor's size against kMaxTensorBytes, without overflow.
std::string check_tensor_bytes(std::string_view name, DType dtype, const std::vector<int64_t>& shape);
inline constexpr int64_t kMaxTensorBytes = int64_t(16) << 30;  // GM lives in host memory
inline constexpr int64_t kMaxBlockDim = 65535;

// An operand as written, before it is checked against the table: what the parser reads and what
// the builder's helper functions make.
struct Arg {
  enum class Kind : uint8_t { Reg, Int, Float, Mem, Name, Mask };
  Kind kind = Kind::Int;
  int reg = -1;          // Reg; Mem base register (-1: none)
  int64_t value = 0;     // Int; Mem offset; Mask count / low bits
  uint64_t hi = 0;       // Mask high bits
  MaskMode mask = MaskMode::Count;
  double f = 0;          // Float
  std::string name;      // Name (label, pipe, enum symbol, flag); Mem buffer or tensor name
  std::string key;       // keyword operands: the key; empty for positional ones
  int column = 0;        // 1-based column in the source line (0 when built in C++)
};

// Helpers for building programs in C++: b.emit("vadd.f16", {ub(0), ub(256), ub(512)}, {kw("repeat", 2)}).
Arg x(int reg);
Arg imm(int64_t value);
Arg num(double value);
Arg mem(std::string_view buffer_or_tensor, int64_t offset);
Arg mem(std::string_view buffer_or_tensor, const Arg& base_reg, int64_t offset = 0);
Arg name(std::string_view symbol);  // a label, pipe, enum value or flag
Arg mask_count(int64_t n);
Arg mask_bits(uint64_t hi, uint64_t lo);
Arg mask_counter(int64_t n);
Arg kw(std::string_view key, Arg value);
Arg flag(std::string_view key);

// Checks `args` against the spec of `mnemonic` (with its .type suffixes) and builds the
// instruction. Label operands are returned unresolved in `label_refs` (operand index, name).
// Errors go to `fail(column, message)`, which must throw.
struct LabelRef {
  int operand;
  std::string name;
  int column;
};
using FailFn = void (*)(void* context, int column, const std::string& message);
Instr make_instr(const Program& program, std::string_view mnemonic, int mnemonic_column, const std::vector<Arg>& args,
                 std::vector<LabelRef>& label_refs, FailFn fail, void* context);

class ProgramBuilder {
 public:
  explicit ProgramBuilder(std::string kernel_name);

  int tensor(std::string name, DType dtype, std::vector<int64_t> shape, TensorRole role);
  void block_dim(int n);
  void entry(CoreKind kind, std::string label);  // `.entry aic LABEL`; the label may come later
  void label(std::string name);  // names the next instruction emitted
  int emit(std::string_view mnemonic, const std::vector<Arg>& args);  // returns its index
  int size() const { return int(program_.code.size()); }
  // The program, its labels resolved; a builder finished as an rvalue gives its program up
  // (std::move(b).finish(): the compiler's, where the copy was a tenth of compiling a small kernel).
  Program finish() &;
  Program finish() &&;

 private:
  void resolve_labels();
  Program program_;
  std::vector<std::pair<int, LabelRef>> pending_;  // (instruction, reference)
};

// The program without the instructions at `indices`: labels and branch targets move to the next
// instruction kept. (Mutation tests delete synchronisation this way.)
Program without_instructions(const Program& program, std::vector<int> indices);

// Text form. parse_program reports errors as "<source>:line:column: error: ..." with the line, and
// a source name given is the program's `source` (its run's diagnostics name it).
Program parse_program(std::string_view text, std::string_view source_name = "<input>");
Program load_program(const std::string& path);
std::string print_program(const Program& program);
// Sets each instruction's line to the one print_program gives it: a built program then names the
// lines of the text `cubekit compile` writes, without printing and parsing it back.
void number_lines(Program& program);
std::string print_instr(const Program& program, const Instr& in);
// "instruction 7 (line 12)" in diagnostics: a built program's instructions have no line (0), and
// are named by index alone.
std::string instruction_at(const Program& program, int index);
// `s` in lower case (ASCII): mnemonics, types, pipes, registers and operand names are case-insensitive.
std::string lower_case(std::string_view s);

}  // namespace cubekit
