// Printing then parsing gives back the same program, for every instruction of the table with
// random operands; and docs/isa.md is exactly what the table generates.
#include "emulator/error.h"
#include "emulator/program.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace cubekit {
namespace {

class RandomArgs {
 public:
  explicit RandomArgs(uint64_t seed) : rng_(seed) {}

  // A value in [lo, hi], which may span all of int64: offsets are taken in uint64 (hi - lo would
  // overflow int64, and so would a double times the span converted back).
  int64_t in_range(int64_t lo, int64_t hi) {
    const uint64_t span = uint64_t(hi) - uint64_t(lo);
    auto at = [&](uint64_t offset) { return int64_t(uint64_t(lo) + offset); };
    switch (pick(4)) {
      case 0: return lo;
      case 1: return hi;
      case 2: return at(std::min<uint64_t>(pick(17), span));
      default: return at(std::uniform_int_distribution<uint64_t>(0, span)(rng_));
    }
  }

  Arg value(const OperandSpec& o) {
    switch (o.kind) {
      case OperandKind::Reg: return x(pick(kNumRegs));
      case OperandKind::RegOrImm: return pick(2) ? x(pick(kNumRegs)) : imm(in_range(o.lo, o.hi));
      case OperandKind::Imm: return imm(in_range(o.lo, o.hi));
      case OperandKind::Scalar: {
        static const double numbers[] = {0.0, -0.0, 1.5, -3.25, 65504, 1e-7, 1.0 / 3.0, INFINITY, -INFINITY, NAN};
        return pick(3) == 0 ? x(pick(kNumRegs)) : num(numbers[pick(std::size(numbers))]);
      }
      case OperandKind::Mem: {
        std::vector<std::string> spaces;
        for (int s = 0; s < kNumSpaces; ++s)
          if (o.spaces & (1u << s)) spaces.push_back(s == 0 ? "T" : std::string(space_name(Space(s))));
        std::string where = spaces[pick(spaces.size())];
        int64_t offset = in_range(INT32_MIN, INT32_MAX);
        return pick(2) ? mem(where, x(pick(kNumRegs)), offset) : mem(where, offset);
      }
      case OperandKind::Label: return name(pick(2) ? "top" : "bottom");
      case OperandKind::PipeName: {
        static const char* pipes[] = {"S", "MTE1", "MTE2", "MTE3", "M", "V", "ALL"};
        return name(pipes[pick(o.allow_all ? 7 : 6)]);
      }
      case OperandKind::Enum: return name(o.symbols[pick(o.symbols.size())]);
      case OperandKind::Mask:
        switch (pick(3)) {
          case 0: return mask_count(1 + pick(128));
          case 1: return mask_bits(rng_(), rng_() | 1);
          default: return mask_counter(1 + pick(100000));
        }
      case OperandKind::Flag: return imm(pick(2));
    }
    return imm(0);
  }

  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

 private:
  std::mt19937_64 rng_;
};

// Emits `count` random valid forms of every instruction; invalid random combinations (rejected by
// the same checks as the parser) are drawn again.
Program random_program(uint64_t seed, int count) {
  RandomArgs r(seed);
  ProgramBuilder b("roundtrip");
  b.tensor("T", DType::f16, {64, 64}, TensorRole::InOut);
  b.block_dim(3);
  b.label("top");
  for (const InstrSpec& spec : isa_table()) {
    int made = 0;
    for (int attempt = 0; made < count && attempt < 200 * count; ++attempt) {
      std::string mnemonic(spec.mnemonic);
      if (spec.ntypes) {
        const auto& sig = spec.types[r.pick(spec.types.size())];
        for (int i = 0; i < spec.ntypes; ++i) mnemonic += "." + std::string(dtype_name(sig[i]));
      }
      std::vector<Arg> args;
      for (const OperandSpec& o : spec.operands) {
        bool required = !o.keyword || o.def == kRequiredKeyword;
        if (!required && r.pick(2)) continue;
        args.push_back(o.keyword ? kw(o.name, r.value(o)) : r.value(o));
      }
      try {
        b.emit(mnemonic, args);
        ++made;
      } catch (const UserError&) {
      }
    }
    EXPECT_EQ(made, count) << "could not make valid random forms of " << spec.mnemonic;
  }
  b.label("bottom");
  return b.finish();
}

TEST(RoundTrip, EveryInstructionPrintsAndParsesBack) {
  for (uint64_t seed : {1, 2, 3}) {
    Program p = random_program(seed, 25);
    std::string text = print_program(p);
    Program q = parse_program(text, "roundtrip.s");
    EXPECT_EQ(q.name, p.name);
    EXPECT_EQ(q.block_dim, p.block_dim);
    EXPECT_EQ(q.tensors, p.tensors);
    EXPECT_EQ(q.labels, p.labels);
    ASSERT_EQ(q.code.size(), p.code.size());
    for (size_t i = 0; i < p.code.size(); ++i)
      EXPECT_EQ(q.code[i], p.code[i]) << "instruction " << i << ": " << print_instr(p, p.code[i]) << "\nparsed back as "
                                      << print_instr(q, q.code[i]);
    EXPECT_EQ(print_program(q), text);
  }
}

TEST(RoundTrip, ParsedLinesAreRecorded) {
  Program p = parse_program(".kernel k\n\n  li x1, 5   # five\nloop: add x1, x1, -1\n  bne x1, 0, loop\n  end\n");
  ASSERT_EQ(p.code.size(), 4u);
  EXPECT_EQ(p.code[0].line, 3u);
  EXPECT_EQ(p.code[1].line, 4u);
  EXPECT_EQ(p.labels, (std::vector<Label>{{"loop", 1}}));
  EXPECT_EQ(p.code[2].ops[2].imm, 1);
}

TEST(RoundTrip, OperandNamesAndMaskFormsInAnyCase) {
  // MASK=64 and REPEAT=2 parsed, MASK=counter:128 and MASK=0x0:0xff did not ("expected ','").
  const char* lower = ".kernel k\n  vadd.f16 ub[256], ub[0], ub[0], mask=counter:128\n"
                      "  vadd.f16 ub[256], ub[0], ub[0], repeat=2, mask=64\n"
                      "  vadd.f16 ub[256], ub[0], ub[0], mask=0x0:0xff\n  end\n";
  const char* upper = ".kernel k\n  VADD.F16 UB[256], UB[0], UB[0], MASK=COUNTER:128\n"
                      "  vadd.f16 ub[256], ub[0], ub[0], REPEAT=2, MASK=64\n"
                      "  vadd.f16 ub[256], ub[0], ub[0], MASK=0x0:0xff\n  end\n";
  Program a = parse_program(lower), b = parse_program(upper);
  ASSERT_EQ(a.code.size(), b.code.size());
  for (size_t i = 0; i < a.code.size(); ++i) EXPECT_EQ(a.code[i], b.code[i]) << i;
}

TEST(IsaDocs, DocsFileIsTheGeneratedReference) {
  auto path = std::filesystem::path(CUBEKIT_SOURCE_DIR) / "docs/isa.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot read " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), isa_reference_markdown())
      << "docs/isa.md is stale: regenerate it with build/bin/cubekit isa --markdown > docs/isa.md";
}

TEST(IsaDocs, EveryMnemonicIsDocumented) {
  std::string md = isa_reference_markdown();
  for (const InstrSpec& s : isa_table()) {
    EXPECT_NE(md.find("\n## " + std::string(s.mnemonic) + "\n"), std::string::npos) << s.mnemonic;
    EXPECT_FALSE(s.summary.empty()) << s.mnemonic;
    EXPECT_FALSE(s.semantics.empty()) << s.mnemonic;
    for (const OperandSpec& o : s.operands) EXPECT_FALSE(o.doc.empty()) << s.mnemonic << " " << o.name;
  }
}

}  // namespace
}  // namespace cubekit
