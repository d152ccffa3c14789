// Scalar unit instructions: registers, arithmetic, branches, the core's identity, end.
// They execute on S in program order and steer the walk through the program.
#include "emulator/isa_helpers.h"

namespace cubekit {
namespace {

using namespace isa;

int64_t value(const Operand& o, const ScalarState& s) { return o.kind == Operand::Kind::Reg ? s.x[o.reg] : o.imm; }

// Wrapping two's-complement arithmetic, as the 64-bit scalar ALU does.
int64_t op_add(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
int64_t op_sub(int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); }
int64_t op_mul(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }
int64_t op_div(int64_t a, int64_t b) {
  if (b == 0) throw Fault{"division by zero"};
  if (a == kI64Min && b == -1) return a;
  return a / b;
}
int64_t op_rem(int64_t a, int64_t b) {
  if (b == 0) throw Fault{"remainder by zero"};
  if (a == kI64Min && b == -1) return 0;
  return a % b;
}
int64_t op_min(int64_t a, int64_t b) { return std::min(a, b); }
int64_t op_max(int64_t a, int64_t b) { return std::max(a, b); }
int64_t op_shl(int64_t a, int64_t b) { return int64_t(uint64_t(a) << (b & 63)); }
int64_t op_shr(int64_t a, int64_t b) { return a >> (b & 63); }
int64_t op_and(int64_t a, int64_t b) { return a & b; }
int64_t op_or(int64_t a, int64_t b) { return a | b; }
int64_t op_xor(int64_t a, int64_t b) { return a ^ b; }

template <int64_t (*F)(int64_t, int64_t)>
Flow alu(const Instr& in, ScalarState& s) {
  s.x[in.ops[0].reg] = F(s.x[in.ops[1].reg], value(in.ops[2], s));
  return {};
}

bool cmp_eq(int64_t a, int64_t b) { return a == b; }
bool cmp_ne(int64_t a, int64_t b) { return a != b; }
bool cmp_lt(int64_t a, int64_t b) { return a < b; }
bool cmp_le(int64_t a, int64_t b) { return a <= b; }
bool cmp_gt(int64_t a, int64_t b) { return a > b; }
bool cmp_ge(int64_t a, int64_t b) { return a >= b; }

template <bool (*C)(int64_t, int64_t)>
Flow branch(const Instr& in, ScalarState& s) {
  if (C(s.x[in.ops[0].reg], value(in.ops[1], s))) return {Flow::Jump, in.ops[2].imm};
  return {};
}

Flow li(const Instr& in, ScalarState& s) {
  s.x[in.ops[0].reg] = in.ops[1].imm;
  return {};
}
Flow mov(const Instr& in, ScalarState& s) {
  s.x[in.ops[0].reg] = s.x[in.ops[1].reg];
  return {};
}
Flow jmp(const Instr& in, ScalarState&) { return {Flow::Jump, in.ops[0].imm}; }
Flow block_idx(const Instr& in, ScalarState& s) {
  s.x[in.ops[0].reg] = s.block_idx;
  return {};
}
Flow subblock_idx(const Instr& in, ScalarState& s) {
  s.x[in.ops[0].reg] = s.subblock_idx;
  return {};
}

Flow block_num(const Instr& in, ScalarState& s) {
  s.x[in.ops[0].reg] = s.block_num;
  return {};
}
Flow end(const Instr&, ScalarState&) { return {Flow::End, 0}; }

InstrSpec scalar_spec(std::string_view mnemonic, std::vector<OperandSpec> operands, std::string_view summary,
                      std::string_view semantics, ScalarFn fn) {
  return {.mnemonic = mnemonic, .pipe = Pipe::S, .operands = std::move(operands), .summary = summary,
          .semantics = semantics, .scalar = fn};
}

InstrSpec alu_spec(std::string_view mnemonic, std::string_view semantics, ScalarFn fn) {
  return scalar_spec(mnemonic,
                     {reg("xd", "destination"), reg("xa", "first source"),
                      reg_or_imm("b", "second source (an immediate: signed 32-bit; li loads 64-bit ones)")},
                     "64-bit scalar arithmetic, register or immediate second operand", semantics, fn);
}

InstrSpec branch_spec(std::string_view mnemonic, std::string_view semantics, ScalarFn fn) {
  return scalar_spec(mnemonic, {reg("xa", "first value"), reg_or_imm("b", "second value"), label("target", "where to go")},
                     "compare two signed 64-bit values and branch", semantics, fn);
}

}  // namespace

void add_scalar_instructions(std::vector<InstrSpec>& t) {
  t.push_back(scalar_spec("li", {reg("xd", "destination"), imm("value", kI64Min, kI64Max, "64-bit value")},
                          "load an immediate", "`xd = value`", li));
  t.push_back(scalar_spec("mov", {reg("xd", "destination"), reg("xs", "source")}, "copy a register", "`xd = xs`", mov));
  t.push_back(alu_spec("add", "`xd = xa + b` (wrapping)", alu<op_add>));
  t.push_back(alu_spec("sub", "`xd = xa - b` (wrapping)", alu<op_sub>));
  t.push_back(alu_spec("mul", "`xd = xa * b` (wrapping)", alu<op_mul>));
  t.push_back(alu_spec("div", "`xd = xa / b`, rounding toward zero (INT64_MIN / -1 wraps to INT64_MIN); b = 0 is a fault", alu<op_div>));
  t.push_back(alu_spec("rem", "`xd = xa % b`, with the sign of xa (INT64_MIN % -1 is 0); b = 0 is a fault", alu<op_rem>));
  t.push_back(alu_spec("min", "`xd = min(xa, b)` (signed)", alu<op_min>));
  t.push_back(alu_spec("max", "`xd = max(xa, b)` (signed)", alu<op_max>));
  t.push_back(alu_spec("shl", "`xd = xa << (b & 63)`", alu<op_shl>));
  t.push_back(alu_spec("shr", "`xd = xa >> (b & 63)` (arithmetic)", alu<op_shr>));
  t.push_back(alu_spec("and", "`xd = xa & b`", alu<op_and>));
  t.push_back(alu_spec("or", "`xd = xa | b`", alu<op_or>));
  t.push_back(alu_spec("xor", "`xd = xa ^ b`", alu<op_xor>));
  t.push_back(branch_spec("beq", "go to target if `xa == b`", branch<cmp_eq>));
  t.push_back(branch_spec("bne", "go to target if `xa != b`", branch<cmp_ne>));
  t.push_back(branch_spec("blt", "go to target if `xa < b`", branch<cmp_lt>));
  t.push_back(branch_spec("ble", "go to target if `xa <= b`", branch<cmp_le>));
  t.push_back(branch_spec("bgt", "go to target if `xa > b`", branch<cmp_gt>));
  t.push_back(branch_spec("bge", "go to target if `xa >= b`", branch<cmp_ge>));
  t.push_back(scalar_spec("jmp", {label("target", "where to go")}, "jump", "go to target", jmp));
  t.push_back(scalar_spec("block_idx", {reg("xd", "destination")}, "this core's index in the launch",
                          "`xd = block index` (0 .. block_num-1); in a mixed launch, the group's: the same on the cube "
                          "core and its vector cores", block_idx));
  t.push_back(scalar_spec("subblock_idx", {reg("xd", "destination")},
                          "which vector core of its group this is (split chips)",
                          "`xd = subblock index`: 0 .. vector_cores_per_cube-1 on the vector cores of a mixed launch; "
                          "0 on cube cores, coupled cores and in a vector-only launch", subblock_idx));
  t.push_back(scalar_spec("block_num", {reg("xd", "destination")}, "number of cores in the launch",
                          "`xd = block_num`", block_num));
  t.push_back(scalar_spec("end", {}, "end of the kernel on this core",
                          "stops issuing; the core finishes when every pipe has drained", end));
}

}  // namespace cubekit
