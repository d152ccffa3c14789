// The IR every lowering pass reads and rewrites: a tree of loops, scalar definitions, branches,
// scopes and operations over symbolic memory, printable after each pass (CUBEKIT_DEBUG=lower).
//
//   for t = block_idx; t < 16; t += block_num         Loop (its counter lives in a register)
//     mo = t / 4                                      Let
//     scope [L1A L1B]                                 Scope: these buffers are filled and used once
//       move A[mo*128.., ko*256..] ND -> L1A NZ       Move / Mmad before instruction selection,
//       copy_gm_l1_nd2nz.f16 L1A, A[...] ...          instructions after it
#pragma once

#include "codegen/layouts.h"
#include "emulator/chip_config.h"
#include "emulator/program.h"

#include <memory>
#include <string>
#include <vector>

namespace cubekit::codegen {

// c + sum(coefficient x variable): addresses and bounds known only at run time.
struct Affine {
  int64_t c = 0;
  std::vector<std::pair<int, int64_t>> terms;  // (variable, coefficient), each variable once

  Affine() = default;
  Affine(int64_t constant) : c(constant) {}  // NOLINT
  static Affine var(int v, int64_t coefficient = 1);
  bool constant() const { return terms.empty(); }
  int64_t coefficient(int v) const;
  Affine operator+(const Affine& o) const;
  Affine operator-(const Affine& o) const;
  Affine operator*(int64_t k) const;
};

struct Variable {
  std::string name;
  bool counter = false;  // a use or fill counter of the sync pass: live throughout its core's program
};
inline constexpr int kBlockIdx = 0, kBlockNum = 1;  // variables every kernel has

struct Buffer {
  std::string name;
  Space space;
  int64_t bytes = 0;  // one copy
  int copies = 1;     // > 1: the copy is chosen by `counter` (uses so far) modulo copies
  int counter = -1;   // the variable counting its uses (set by the sync pass)
  int64_t base = -1;  // storage planning: the first copy's offset
  int64_t stride = 0; //                   and the distance between copies
};

// A memory operand: a GM tensor, or a buffer's current copy; and a byte offset into it.
struct Ref {
  int tensor = -1;
  int buffer = -1;
  Affine offset;
  int counter = -1;  // the variable selecting the buffer's copy, when not the buffer's own (fills)
};

// A matrix tile and how it is stored (before instruction selection).
enum class Layout : uint8_t {
  ND,    // row-major, `ld` elements from one row to the next (GM, UB)
  NZ,    // L1: column blocks of C0 elements, `ld` rows each
  ZZ,    // L0A: 16 x C0 fractals, row-major
  ZN,    // L0B: C0 x 16 fractals, row-major, each column-major
  NZ16,  // L0C: 16 x 16 fractals, column-major
};
struct View {
  Ref at;
  Layout layout = Layout::ND;
  DType dtype = DType::f16;
  int64_t rows = 0, cols = 0;  // the logical tile
  int64_t ld = 0;
  Affine row0, col0;           // the tile's position within a stored NZ / NZ16 matrix (elements)
  bool transposed = false;     // stored as the transpose of the logical tile
  // NZ16 in GM (a conv's NC1HWC0 output) for a tile of stacked images: its rows are `images` runs
  // of rows / images, each run `image_ld` elements after the previous one.
  int64_t images = 1, image_ld = 0;
};

enum class LetOp : uint8_t { Div, Rem, Add };      // var = a / b, a % b, a + b
enum class Compare : uint8_t { Eq, Lt };            // if (a == b), if (a < b)
enum class SyncKind : uint8_t { Set, Wait, Barrier, SetCross, WaitCross };
std::string_view let_op_text(LetOp op);             // "/", "%", "+"

struct Node {
  enum class Kind : uint8_t { Loop, Let, If, Scope, Move, Mmad, Instr, Sync };
  Kind kind;

  // Loop: for (var = begin; var < end; var += step)
  // Let:  var = a `let_op` b
  // If:   if (a `compare` b) body else orelse
  int var = -1;
  Affine begin, end, step, a;
  int64_t b = 0;
  LetOp let_op = LetOp::Add;
  Compare compare = Compare::Eq;

  // Scope: `stages` are filled and consumed once in `body` (Whole); or only filled (Fill), or
  // only consumed (Use), where a Fill is issued ahead of the Use of the previous fill (preloading:
  // with two copies, the next fill then overlaps the current use). Fills and Uses of one buffer
  // come in the same order.
  enum class Phase : uint8_t { Whole, Fill, Use };
  std::vector<int> stages;
  Phase phase = Phase::Whole;

  // Move (src -> dst, possibly casting) and Mmad (c += a x b over m x n x k; init: c = a x b)
  View src, dst;
  bool relu = false;
  int64_t m = 0, n = 0, k = 0;
  bool init = false;
  Ref c, lhs, rhs;
  DType in_type = DType::f16;

  // Instr: an ISA instruction whose memory operands are Refs: an argument of kind Arg::Kind::Mem
  // stands for one of them (mem_arg(i) for refs[i], ref_index says which)
  std::string mnemonic;
  std::vector<Arg> args;
  std::vector<Ref> refs;
  Pipe pipe = Pipe::S;

  // Sync: set_flag / wait_flag from, to, events[copy of `counter`] ; barrier from ;
  //       set_cross from, mode=b, id=events[0] ; wait_cross from, id=events[0] (split chips: between
  //       the cores of a group, placed by the nest builder; the sync pass leaves them alone)
  SyncKind sync = SyncKind::Set;
  Pipe from = Pipe::S, to = Pipe::S;
  std::vector<int> events;  // one per copy
  int counter = -1;         // selects the copy (-1: events[0])

  bool barrier_before = false;  // set by the sync pass's same-pipe analysis
  uint8_t loop_barriers = 0;    // Loop: pipes (bit per Pipe) that need a barrier before the loop

  std::vector<Node> body, orelse;
};

struct Kernel {
  std::string name;
  int block_dim = 1;
  std::vector<TensorDecl> tensors;
  std::vector<Variable> vars;
  std::vector<Buffer> buffers;
  std::vector<Node> body;
  // A mixed kernel of a split chip: `body` runs on the cube cores (AIC), `vector_body` on both
  // vector cores (AIV) of each group, `subblock` holding their subblock_idx (0 or 1). Empty: `body`
  // runs on the one kind that has everything it uses.
  std::vector<Node> vector_body;
  int subblock = -1;
  std::vector<TensorLayout> layouts;  // tensors not stored as the Func shapes them (conv)

  bool mixed() const { return !vector_body.empty(); }

  int new_var(std::string name, bool counter = false);
  int new_buffer(std::string name, Space space, int64_t bytes, int copies);
  std::string str() const;
};

// The ISA instruction an Instr node stands for, with its memory operands at offset 0 of their
// buffer or tensor: for footprints, and the emission check.
Instr to_instr(const Kernel& kernel, const Node& n);

// Helpers for building nodes.
Node loop(int var, Affine begin, Affine end, Affine step, std::vector<Node> body);
Node let(int var, Affine a, LetOp op, int64_t b);
Node when(Affine a, int64_t equals, std::vector<Node> then, std::vector<Node> otherwise);
Node when_less(Affine a, int64_t bound, std::vector<Node> then, std::vector<Node> otherwise);
Node scope(std::vector<int> stages, std::vector<Node> body, Node::Phase phase = Node::Phase::Whole);
Node instr(std::string mnemonic, Pipe pipe, std::vector<Ref> refs, std::vector<Arg> args);
// The argument standing for an Instr's refs[i]; and which ref a memory argument stands for.
Arg mem_arg(int i);
int ref_index(const Arg& a);
// A barrier of one pipe.
Node barrier(Pipe pipe);
// Cross-core flags between the cores of a group (split chips): `mode` as set_cross takes it.
Node set_cross(Pipe pipe, int mode, int id);
Node wait_cross(Pipe pipe, int id);

std::string affine_str(const Kernel& k, const Affine& a);

// Appends b to a.
inline std::vector<Node>& operator+=(std::vector<Node>& a, std::vector<Node> b) {
  for (Node& n : b) a.push_back(std::move(n));
  return a;
}

}  // namespace cubekit::codegen
