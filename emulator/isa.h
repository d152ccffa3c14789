// The AI Core instruction set as one table.
//
// Every instruction is one InstrSpec: its mnemonic, its pipe, the type suffixes it takes, its
// operands (kind, range, default, which buffers a memory operand may name) and its behaviour as
// code: `scalar` for the scalar unit's instructions, `exec` + `footprint` for everything dispatched
// to another pipe. The assembler, the printer, the executor, the checker and docs/isa.md all read
// this table; nothing else knows what an instruction means.
#pragma once

#include "emulator/chip_config.h"
#include "emulator/dtype.h"

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cubekit {

enum class Pipe : uint8_t { S, MTE1, MTE2, MTE3, M, V, FIX, All };
inline constexpr int kNumPipes = 7;  // All is not a pipe; barrier uses it to mean every pipe
std::string_view pipe_name(Pipe p);

inline constexpr int kNumRegs = 32;
inline constexpr uint8_t kNoReg = 0xff;
inline constexpr int kMaxOperands = 14;
inline constexpr int kMaxTypes = 2;
inline constexpr int64_t kRequiredKeyword = INT64_MIN;  // OperandSpec::def of a keyword that must be written

// How an operand is written and what it may hold (the spec side).
enum class OperandKind : uint8_t {
  Reg,       // xN
  RegOrImm,  // xN, or an integer in [lo, hi]
  Imm,       // an integer in [lo, hi]
  Scalar,    // xN (its low bits read as the instruction's dtype) or a number
  Mem,       // space[xN + imm] / tensor[xN + imm], byte addresses; `spaces` says which
  Label,     // a branch target
  PipeName,  // S MTE1 MTE2 MTE3 M V (and ALL where allow_all)
  Enum,      // one of `symbols`
  Mask,      // vector mask: N (first N elements) | 0xHI:0xLO (bits) | counter:N (N elements over repeats)
  Flag,      // a keyword present (1) or absent (0)
};

enum class MaskMode : uint8_t { Full, Count, Bits, Counter };

// An operand's value inside an instruction (the program side).
struct Operand {
  enum class Kind : uint8_t { None, Reg, Imm, Float, Mem, Label, Sym, Mask, Flag };
  Kind kind = Kind::None;
  uint8_t reg = kNoReg;       // Reg; the base register of Mem
  Space space = Space::GM;    // Mem
  MaskMode mask = MaskMode::Full;
  uint16_t tensor = 0;        // Mem in GM: index of the tensor
  int64_t imm = 0;            // Imm; Mem offset; Label target; Sym index; Flag; Mask count or low bits
  union {                     // never both: kept small, the program is walked constantly
    uint64_t hi = 0;          // Mask high bits
    double f;                 // Float
  };

  bool operator==(const Operand& o) const {  // numbers by their bits, so a NaN equals itself
    return kind == o.kind && reg == o.reg && space == o.space && mask == o.mask && tensor == o.tensor &&
           imm == o.imm && hi == o.hi;
  }
};

struct Instr {
  uint16_t op = 0;  // index into isa_table()
  uint8_t ntypes = 0;
  std::array<DType, kMaxTypes> type{};
  uint32_t line = 0;  // source line, 0 when built in C++
  std::array<Operand, kMaxOperands> ops{};

  bool operator==(const Instr& o) const {  // the line is where it came from, not what it is
    return op == o.op && ntypes == o.ntypes && type == o.type && ops == o.ops;
  }
};

// ---- What the executor hands to an instruction's behaviour -------------------------------------

struct Fmatrix {  // the feature-map geometry register that load3d reads (set by set_fmatrix)
  int64_t h = 0, w = 0, pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  bool operator==(const Fmatrix&) const = default;
};

// An instruction with its operands resolved when the scalar unit issues it: memory operands become
// byte addresses, registers their values. Pipes execute Issued instructions, possibly much later.
struct Issued {
  const Instr* instr = nullptr;
  int32_t index = 0;  // position in the program
  std::array<int64_t, kMaxOperands> v{};
  Fmatrix fmatrix;  // snapshot for load3d

  int64_t operator[](int i) const { return v[i]; }
  DType type(int i = 0) const { return instr->type[i]; }
};

// A set of bytes an instruction touches in one operand: n2 repeats (stride s2) of n1 chunks
// (stride s1) of `bytes` bytes, starting at `base`.
struct Region {
  uint8_t operand = 0;
  Space space = Space::GM;
  uint16_t tensor = 0;
  bool write = false;
  // A vector instruction's: its n2 repeats are repeats first_repeat.., run in order (the race
  // checker's initcheck reads a repeat's reads after the earlier repeats' writes).
  bool by_repeat = false;
  uint16_t first_repeat = 0;
  int64_t base = 0;
  int64_t bytes = 0;
  int64_t n1 = 1, s1 = 0;
  int64_t n2 = 1, s2 = 0;
  int64_t align = 1;  // required alignment of every chunk's start
  // A vector operand under a bit-pattern mask: the bytes of each chunk (a 32 B block) its active
  // elements cover, bit b for byte b; 0 for every byte. Only the race checker reads it: the
  // bounds, alignment, cost and data of the access are its whole blocks'.
  uint32_t byte_mask = 0;

  int64_t lo() const;  // first byte touched
  int64_t hi() const;  // one past the last byte touched (of a region the bounds check accepted)
  // One past the last byte touched, or nullopt when that is beyond 64 bits (wild operands).
  std::optional<int64_t> end() const;
};

struct Footprint {
  std::array<Region, 16> regions;
  int count = 0;
  void add(const Region& r) {  // empty regions are dropped
    if (r.n1 <= 0 || r.n2 <= 0 || r.bytes <= 0) return;
    if (count == int(regions.size())) overflow();
    regions[count++] = r;
  }
  [[noreturn]] static void overflow();
};

struct CoreMemory;

// Where an instruction finds a GM tensor's bytes: byte `o` of the tensor is at data + (o - offset).
// Usually GM itself (offset 0); the timing model hands instructions staged copies instead.
struct GmView {
  uint8_t* data;
  int64_t offset;
};

struct ExecContext {
  const ChipConfig& chip;
  CoreMemory& core;
  const GmView* gm;  // one per tensor
  uint8_t* ptr(const Issued& I, int operand) const;  // address of a memory operand's first byte
};

struct ScalarState {
  std::array<int64_t, kNumRegs> x{};
  int64_t block_idx = 0, block_num = 1;
  int64_t subblock_idx = 0;  // which vector core of its group (split chips' AIVs); 0 elsewhere
  Fmatrix fmatrix;
};

// What a scalar instruction does to control flow.
struct Flow {
  enum Kind : uint8_t { Next, Jump, End } kind = Next;
  int64_t target = 0;
};

// A run-time fault of the program (division by zero, ...): reported as a diagnostic.
struct Fault {
  std::string message;
};

// What an instruction costs the timing model, apart from its pipe's startup latency.
enum class VecClass : uint8_t { Simple, Reduce, Complex };
struct Work {
  enum class Kind : uint8_t { None, Transfer, Cube, Vector };
  Kind kind = Kind::None;
  int64_t amount = 0;  // Transfer: bytes moved from operand 1 (src) to operand 0 (dst); Cube: fractal
                       // steps ceil(m/16)*ceil(n/16)*ceil(k/k0); Vector: repeats
  VecClass vclass = VecClass::Simple;
};

using ScalarFn = Flow (*)(const Instr&, ScalarState&);
using WorkFn = Work (*)(const Issued&, const ChipConfig&);
using ExecFn = void (*)(const Issued&, const ExecContext&);
using FootprintFn = void (*)(const Issued&, const ChipConfig&, Footprint&);
// Checks relations between operands that ranges cannot say; returns an error message (empty when
// fine) and sets `operand` to the operand it is about (-1 for the instruction).
using ValidateFn = std::string (*)(const Instr&, int& operand);
// A fault of the issued instruction that its data do not decide (load3d's feature map, the cube's
// input types): checked before it runs, in timing-only runs too; an empty string when fine.
using FaultFn = std::string (*)(const Issued&, const ChipConfig&);

struct OperandSpec {
  std::string_view name;
  OperandKind kind;
  bool keyword = false;  // written name=value (Flag: bare name); positional otherwise
  int64_t lo = 0, hi = 0;
  int64_t def = 0;        // default of a keyword operand (Imm, Enum index, Flag)
  uint8_t spaces = 0;     // Mem: bit (1 << Space) for each space allowed
  bool allow_all = false; // PipeName: ALL allowed
  std::vector<std::string_view> symbols;  // Enum
  std::string_view doc;
  // Scalar: the dtype its value is read as (default: the instruction's first type suffix).
  std::optional<DType> scalar_type;
  // A keyword Scalar or Mem operand may be left out: it is then Operand::Kind::None (no default
  // value; the instruction's behaviour checks whether it was given).
};

struct InstrSpec {
  std::string_view mnemonic;
  Pipe pipe;            // for set_flag / wait_flag / barrier: decided by an operand, see issue_pipe()
  uint8_t ntypes = 0;   // number of .type suffixes
  std::vector<std::array<DType, kMaxTypes>> types;  // allowed suffix combinations
  std::vector<OperandSpec> operands;
  std::string_view summary;
  std::string_view semantics;  // what it computes, for the reference
  std::string_view type_syntax;  // how its suffixes read in the reference; default ".T" / ".T.S" (target, source)
  ScalarFn scalar = nullptr;
  ExecFn exec = nullptr;
  FootprintFn footprint = nullptr;
  ValidateFn validate = nullptr;
  WorkFn work = nullptr;  // pipe instructions; none for S and sync
  FaultFn fault = nullptr;
  // operand_index("atomic"), set with the table: the checks of every GM access ask for it, and a
  // search by name each time was a sixth of a timing-only run's bounds checks.
  int atomic = -1;

  int operand_index(std::string_view name) const;  // -1 when absent
  int positional_count() const;
};

// The table, in the order of docs/isa.md.
const std::vector<InstrSpec>& isa_table();
inline const InstrSpec& spec_of(const Instr& in) {
  static const InstrSpec* const table = isa_table().data();  // hot: no lookup beyond the first
  return table[in.op];
}
int find_mnemonic(std::string_view mnemonic);  // -1 when unknown

// The pipe whose queue an instruction goes to (sync instructions: the pipe their operands name).
Pipe issue_pipe(const Instr& in);

// Sync instructions, which the timing model treats specially.
bool is_set_flag(const Instr& in);
bool is_wait_flag(const Instr& in);
bool is_barrier(const Instr& in);
bool is_set_cross(const Instr& in);   // set_cross P, mode=M, id=N (split chips; emulator/cross_core.h)
bool is_wait_cross(const Instr& in);  // wait_cross P, id=N

// The instruction reference in Markdown, generated from the table (docs/isa.md is this text).
std::string isa_reference_markdown();

// Families of the table, each in its own source file.
void add_scalar_instructions(std::vector<InstrSpec>& table);
void add_sync_instructions(std::vector<InstrSpec>& table);
void add_mte_instructions(std::vector<InstrSpec>& table);
void add_cube_instructions(std::vector<InstrSpec>& table);
void add_fixpipe_instructions(std::vector<InstrSpec>& table);
void add_vector_instructions(std::vector<InstrSpec>& table);

}  // namespace cubekit
