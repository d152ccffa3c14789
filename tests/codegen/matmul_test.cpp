// The compiler end to end on matmul: the shapes the issue names against the Halide reference,
// random schedules against naive loops written here, and the lowering log.
#include "codegen/lower.h"
#include "emulator/emulator.h"
#include "emulator/error.h"
#include "codegen_test_util.h"
#include "kernels/check.h"
#include "kernels/matmul.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace cubekit {
namespace {

using kernels::MatmulOptions;

using test::chip;

// The tolerance `cubekit kernel matmul` uses: exact for integers; for f32 results one rounding per
// k step of a different summation order; for f16 results one f16 rounding.
double atol_for(const MatmulOptions& o) {
  if (o.in == DType::s8) return 0;
  return o.out == DType::f16 ? 1e-2 : std::max(1e-4, double(o.k) * 0x1p-23);
}

using test::describe;
using test::mm;
using test::with;

// bf16 where the chip's cube has it (the split presets): bf16 inputs with f32, f16 and bf16
// results (bf16 by the FixPipe's F322BF16), with an epilogue (its result converted on the vector
// unit), transposed, batched; f16 inputs written as bf16.
TEST(MatmulBf16, MatchesHalideOnTheSplitPresets) {
  for (const char* preset : {"ascend910b2", "ascend950pr"}) {
    const ChipConfig c = load_chip(preset);
    for (DType out : {DType::f32, DType::f16, DType::bf16})
      for (bool epilogue : {false, true}) {
        MatmulOptions o = with(mm(77, 131, 45), [&](auto& x) { x.in = DType::bf16, x.out = out; });
        if (epilogue) o.epilogue = {"bias", "gelu"}, o.batch = 2, o.transpose_a = true;
        kernels::Matmul m = kernels::matmul(o, c);
        kernels::KernelRun run = kernels::compile_and_run(m.out, c, {.seed = 3, .atol = atol_for(o)});
        const std::string what = fmt::format("{} out {}{}", preset, dtype_name(out), epilogue ? " bias,gelu" : "");
        EXPECT_TRUE(run.sim.report.clean()) << what << "\n" << describe(run);
        ASSERT_TRUE(run.checked) << what;
        EXPECT_TRUE(run.check.pass) << what << ": max abs error " << run.check.max_abs;
      }
    MatmulOptions o = with(mm(64, 48, 80), [](auto& x) { x.out = DType::bf16; });
    kernels::KernelRun run = kernels::compile_and_run(kernels::matmul(o, c).out, c, {.seed = 4, .atol = atol_for(o)});
    EXPECT_TRUE(run.checked && run.check.pass && run.sim.report.clean()) << preset << " f16 -> bf16\n" << describe(run);
  }
}

// ---- the shapes of the issue, against Halide ----

struct Shape {
  const char* name;
  MatmulOptions o;
};
void PrintTo(const Shape& s, std::ostream* os) { *os << s.name; }

class HalideShapes : public testing::TestWithParam<Shape> {};

TEST_P(HalideShapes, MatchTheHostReferenceAndRunClean) {
  const MatmulOptions& o = GetParam().o;
  kernels::Matmul m = kernels::matmul(o, chip());
  kernels::KernelRun run = kernels::compile_and_run(m.c, chip(), {.seed = 7, .atol = atol_for(o)});
  EXPECT_TRUE(run.sim.report.clean()) << describe(run);
  ASSERT_TRUE(run.checked);
  EXPECT_TRUE(run.check.pass) << "max abs error " << run.check.max_abs << ", " << run.check.mismatches << " mismatches";
}

INSTANTIATE_TEST_SUITE_P(
    Matmul, HalideShapes,
    testing::Values(Shape{"One", mm(1, 1, 1)}, Shape{"Sixteen", mm(16, 16, 16)}, Shape{"Odd", mm(77, 131, 45)},
                    Shape{"Thousand", mm(1000, 1000, 1000)}, Shape{"RowTimesMatrix", mm(1, 4096, 4096)},
                    Shape{"MatrixTimesColumn", mm(4096, 1, 4096)}, Shape{"OuterProduct", mm(4096, 4096, 1)},
                    Shape{"Batch3", with(mm(100, 200, 300), [](auto& o) { o.batch = 3; })},
                    Shape{"TransposedA", with(mm(130, 70, 300), [](auto& o) { o.transpose_a = true; })},
                    Shape{"TransposedB", with(mm(130, 70, 300), [](auto& o) { o.transpose_b = true; })},
                    Shape{"BothTransposed", with(mm(50, 90, 530), [](auto& o) { o.transpose_a = o.transpose_b = true; })},
                    Shape{"Int8", with(mm(100, 70, 1000), [](auto& o) { o.in = DType::s8, o.out = DType::s32, o.transpose_b = true; })},
                    Shape{"HalfOut", with(mm(300, 500, 700), [](auto& o) { o.out = DType::f16; })},
                    Shape{"NaiveSchedule", with(mm(200, 100, 300), [](auto& o) { o.schedule = MatmulOptions::Schedule::Naive; })}),
    [](const testing::TestParamInfo<Shape>& i) { return std::string(i.param.name); });

// ---- random shapes and schedules, against naive loops ----

// C = A x B by the definition: f32 (or s32) sums in k order, then the cast.
std::vector<uint8_t> naive_matmul(const MatmulOptions& o, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  int64_t batches = std::max<int64_t>(o.batch, 1), M = o.m, N = o.n, K = o.k;
  std::vector<uint8_t> c(size_t(batches * M * N * dtype_size(o.out)));
  auto at = [&](const std::vector<uint8_t>& t, int64_t i) -> double {
    if (o.in == DType::s8) return double(int8_t(t[size_t(i)]));
    _Float16 h;
    std::memcpy(&h, t.data() + i * 2, 2);
    return double(h);
  };
  for (int64_t bt = 0; bt < batches; ++bt)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        float fsum = 0;
        int32_t isum = 0;
        for (int64_t k = 0; k < K; ++k) {
          double x = at(a, bt * M * K + (o.transpose_a ? k * M + i : i * K + k));
          double y = at(b, bt * K * N + (o.transpose_b ? j * K + k : k * N + j));
          if (o.in == DType::s8) isum += int32_t(x) * int32_t(y);
          else fsum += float(x) * float(y);
        }
        uint8_t* out = c.data() + (bt * M * N + i * N + j) * dtype_size(o.out);
        if (o.out == DType::s32) std::memcpy(out, &isum, 4);
        else if (o.out == DType::f32) std::memcpy(out, &fsum, 4);
        else {
          _Float16 h = _Float16(fsum);
          std::memcpy(out, &h, 2);
        }
      }
  return c;
}

MatmulOptions random_options(std::mt19937_64& rng) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  auto coin = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  MatmulOptions o;
  auto extent = [&] { return coin(0.7) ? pick(1, 160) : pick(161, 400); };
  o.m = extent(), o.n = extent(), o.k = coin(0.7) ? pick(1, 300) : pick(301, 1000);
  o.batch = coin(0.2) ? pick(1, 3) : 0;
  o.in = coin(0.25) ? DType::s8 : DType::f16;
  o.out = o.in == DType::s8 ? DType::s32 : (coin(0.3) ? DType::f16 : DType::f32);
  o.transpose_a = o.in == DType::f16 && coin(0.3);  // s8 takes A as (m, k) only
  o.transpose_b = o.in == DType::s8 || coin(0.3);
  if (coin(0.15)) o.schedule = MatmulOptions::Schedule::Naive;
  int64_t c0 = 32 / dtype_size(o.in);
  // Tiles: whole fractals (16) unless the tile is the whole extent.
  if (coin(0.6)) o.tm = std::min<int64_t>(o.m, 16 * pick(1, 16));
  if (coin(0.6)) o.tn = std::min<int64_t>(o.n, 16 * pick(1, 16));
  if (coin(0.5)) o.tk_l0 = c0 * pick(1, 8);
  if (coin(0.5)) o.tk_l1 = (o.tk_l0 ? o.tk_l0 : c0 * 4) * pick(1, 6);
  if (coin(0.5)) o.double_buffer = coin(0.5);
  if (coin(0.4)) o.use_cores = coin(0.5);
  if (coin(0.4)) o.stagger = coin(0.5);
  if (coin(0.3)) o.l1_copies = int(pick(1, 4));
  if (coin(0.3)) o.core_group = pick(1, 4);  // a last, smaller group when it does not divide the m tiles
  return o;
}

std::string str(const MatmulOptions& o) {
  return fmt::format("{}x{}x{} batch {} {}->{}{}{} schedule {} tm {} tn {} tk0 {} tk1 {} db {} cores {} stagger {} l1 copies {} group {}",
                     o.m, o.n, o.k, o.batch, dtype_name(o.in), dtype_name(o.out), o.transpose_a ? " At" : "",
                     o.transpose_b ? " Bt" : "", o.schedule == MatmulOptions::Schedule::Naive ? "naive" : "default",
                     o.tm, o.tn, o.tk_l0, o.tk_l1, o.double_buffer ? int(*o.double_buffer) : -1,
                     o.use_cores ? int(*o.use_cores) : -1, o.stagger ? int(*o.stagger) : -1, o.l1_copies, o.core_group);
}

// Every schedule the API accepts computes the product, and its program is free of diagnostics;
// the ones it rejects say why (a UserError), never an internal error.
TEST(RandomSchedules, EveryAcceptedScheduleIsCorrectAndClean) {
  std::mt19937_64 rng(20261129);
  int accepted = 0, rejected = 0;
  const int cases = 120;
  for (int i = 0; i < cases; ++i) {
    MatmulOptions o = random_options(rng);
    SCOPED_TRACE(fmt::format("case {}: {}", i, str(o)));
    kernels::KernelRun run;
    try {
      kernels::Matmul m = kernels::matmul(o, chip());
      run = kernels::compile_and_run(m.c, chip(), {.seed = uint64_t(i), .reference = false});
    } catch (const UserError& e) {
      ++rejected;
      if (getenv("CUBEKIT_TEST_VERBOSE")) std::printf("rejected %s: %s\n", str(o).c_str(), e.what());
      continue;
    }
    ++accepted;
    EXPECT_TRUE(run.sim.report.clean()) << describe(run);
    std::vector<uint8_t> want = naive_matmul(o, run.gm.bytes("A"), run.gm.bytes("B"));
    kernels::Comparison c = kernels::compare(run.gm.bytes("C"), want, o.out, atol_for(o));
    EXPECT_TRUE(c.pass) << "max abs error " << c.max_abs << ", " << c.mismatches << " mismatches";
  }
  std::printf("random schedules: %d accepted, %d rejected with a user error\n", accepted, rejected);
  EXPECT_GE(accepted, cases * 2 / 3) << "the generator should mostly make schedules the compiler accepts";
}

// ---- mutation: every synchronisation instruction of a generated kernel is needed ----
// Deleting a set_flag leaves its wait hanging (deadlock), deleting a wait_flag leaves its flag set
// twice or at the end (sync error), deleting a barrier leaves two accesses of one pipe unordered
// (race). Only instructions that ran count: a branch for one copy of a buffer may be untaken.

Report check(const Program& p) {
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(3);
  return simulate(chip(), p, gm).report;
}

TEST(Mutation, DeletingAnySyncOfTheGenerated256CubedKernelIsReported) {
  kernels::Matmul m = kernels::matmul(mm(256, 256, 256), chip());
  Program p = codegen::compile(m.c, chip()).program;
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(3);
  SimResult original = simulate(chip(), p, gm, {.trace = true});
  ASSERT_TRUE(original.report.clean()) << format_diagnostic(p, original.report.diagnostics[0]);

  // Only instructions that run: a branch for the copy of a ping-pong buffer may not be taken.
  std::set<int> ran;
  for (const CoreTrace& t : original.traces) {
    for (const TraceSlice& s : t.slices) ran.insert(s.index);
    for (const TraceFlow& f : t.flows) ran.insert(f.set_index), ran.insert(f.wait_index);
  }

  std::vector<int> syncs;
  for (int i = 0; i < int(p.code.size()); ++i)
    if (((is_set_flag(p.code[size_t(i)]) || is_wait_flag(p.code[size_t(i)])) && ran.count(i)) || is_barrier(p.code[size_t(i)]))
      syncs.push_back(i);
  ASSERT_GE(syncs.size(), 20u);

  int killed = 0;
  std::map<Diagnostic::Kind, int> by_kind;
  for (int i : syncs) {
    Report r = check(without_instructions(p, {i}));
    if (r.clean()) {
      ADD_FAILURE() << "deleting `" << print_instr(p, p.code[size_t(i)]) << "` (instruction " << i << ") was not reported";
      continue;
    }
    bool race = false;
    for (const Diagnostic& d : r.diagnostics) race |= d.kind == Diagnostic::Kind::Race;
    if (is_barrier(p.code[size_t(i)]) && !race) {  // a barrier only orders: without it, a race
      ADD_FAILURE() << "deleting barrier " << i << " was reported, but not as a race";
      continue;
    }
    ++killed;
    ++by_kind[r.diagnostics[0].kind];
  }
  std::printf("generated 256^3 kernel: mutation kill rate %d of %zu (%.0f%%);", killed, syncs.size(),
              100.0 * killed / double(syncs.size()));
  for (auto [kind, n] : by_kind) std::printf(" %s %d", std::string(diagnostic_kind_name(kind)).c_str(), n);
  std::printf("\n");
  EXPECT_EQ(killed, int(syncs.size()));
}

// ---- the lowering log ----

TEST(Lower, DebugPrintsTheIrAfterEveryPass) {
  // Other tests of this process's shard run after this one: the variable goes whatever happens.
  struct Unset {
    ~Unset() { unsetenv("CUBEKIT_DEBUG"); }
  } unset;
  setenv("CUBEKIT_DEBUG", "lower", 1);
  testing::internal::CaptureStderr();
  kernels::Matmul m = kernels::matmul(mm(40, 50, 60), chip());
  codegen::compile(m.c, chip());
  std::string log = testing::internal::GetCapturedStderr();
  for (const char* pass : {"after schedule", "after loop nest", "after instruction selection", "after storage planning",
                           "after synchronisation", "after scalar code"})
    EXPECT_NE(log.find(pass), std::string::npos) << "no '" << pass << "' in the log:\n" << log;
}

}  // namespace
}  // namespace cubekit
