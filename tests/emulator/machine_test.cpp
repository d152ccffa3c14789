// The heterogeneous machine: presets as data (JSON round trip), which kinds of core run which
// instructions, where a launch puts its blocks (coupled, one kind of a split chip, mixed kernels
// with .entry), block_idx / subblock_idx, and the per-kind report.
#include "emulator/launch.h"
#include "emulator/report.h"
#include "emulator/simulator.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace cubekit {
namespace {

TEST(Machine, EveryPresetSurvivesAJsonRoundTrip) {
  for (const ChipConfig& c : chip_presets()) {
    SCOPED_TRACE(c.name);
    std::string json = chip_to_json(c);
    ChipConfig back = chip_from_json(json, c.name + ".json");
    EXPECT_EQ(chip_to_json(back), json);
    ASSERT_EQ(back.kinds.size(), c.kinds.size());
    for (size_t k = 0; k < c.kinds.size(); ++k) {
      EXPECT_EQ(back.kinds[k].kind, c.kinds[k].kind);
      EXPECT_EQ(back.count(back.kinds[k].kind), c.count(c.kinds[k].kind));
      EXPECT_EQ(back.kinds[k].pipes, c.kinds[k].pipes);
      EXPECT_EQ(back.kinds[k].paths, c.kinds[k].paths);
      for (int s = 0; s < kNumSpaces; ++s) {
        EXPECT_EQ(back.kinds[k].size[s], c.kinds[k].size[s]);
        EXPECT_EQ(back.kinds[k].align[s], c.kinds[k].align[s]);
      }
    }
    EXPECT_EQ(back.cores, c.cores);
    EXPECT_EQ(back.vector_cores_per_cube, c.vector_cores_per_cube);
  }
}

// A preset's JSON loaded from a file is that preset; edited under its own name it is named as
// edited (reports and messages called a chip of 1 core "ascend910").
TEST(Machine, AnEditedPresetLoadedFromAFileIsNamedSo) {
  const auto dir = std::filesystem::temp_directory_path();
  const ChipConfig preset = load_chip("ascend910");
  auto load_saved = [&](const ChipConfig& c, const char* file) {
    const std::string path = (dir / file).string();
    std::ofstream(path) << chip_to_json(c);
    ChipConfig loaded = load_chip(path);
    std::filesystem::remove(path);
    return loaded;
  };
  EXPECT_EQ(load_saved(preset, "cubekit_same.json").name, "ascend910");
  ChipConfig edited = preset;
  edited.cores = 1;
  EXPECT_EQ(load_saved(edited, "cubekit_edited.json").name, "ascend910 (edited: cubekit_edited.json)");
  edited.name = "mine";
  EXPECT_EQ(load_saved(edited, "cubekit_mine.json").name, "mine");
}

// Every buffer a split chip has belongs to one kind, and buffer_size / alignment find it there
// (what codegen plans against).
TEST(Machine, BufferSizesComeFromTheKindThatHasTheBuffer) {
  ChipConfig c = load_chip("ascend910b2");
  for (int s = 1; s < kNumSpaces; ++s) {
    const CoreConfig* k = c.kind_with(Space(s));
    ASSERT_NE(k, nullptr) << space_name(Space(s));
    EXPECT_EQ(c.buffer_size(Space(s)), k->size[s]);
    EXPECT_EQ(c.alignment(Space(s)), k->align[s]);
  }
  EXPECT_EQ(c.kind_with(Space::UB)->kind, CoreKind::Aiv);
  EXPECT_EQ(c.count(CoreKind::Aic), 24);  // HARDWARE.md: 24 AIC + 48 AIV
  EXPECT_EQ(c.count(CoreKind::Aiv), 48);
  EXPECT_EQ(c.count(CoreKind::Coupled), 0);
  EXPECT_EQ(c.kind_with(Space::L0C)->kind, CoreKind::Aic);
  c.set_buffer_size(Space::UB, 4096);
  EXPECT_EQ(c.kind(CoreKind::Aiv)->size[int(Space::UB)], 4096);
  EXPECT_EQ(c.kind(CoreKind::Aic)->size[int(Space::UB)], 0);  // the AIC still has none
}

const char* kMovL0cUb = R"(.kernel mov
.tensor Y f32 [256] out
    mov_l0c_ub.f32.f32 ub[0], l0c[0], len=1
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0
    copy_ub_gm Y[0], ub[0], len=32
    end
)";

// Availability follows from the chip's data: mov_l0c_ub needs V, UB, L0C and the path l0c->ub
// in one kind of core. The coupled 910 has them; no kind of the 910B2 or the 950 does (the 950's
// l0c->ub path is its FixPipe's, on the AIC, which has no V and no UB).
TEST(Machine, MovL0cUbRunsWhereOneKindHasPipeBuffersAndPath) {
  Program p = parse_program(kMovL0cUb, "mov.s");
  const Instr& mov = p.code[0];
  ChipConfig c910 = load_chip("ascend910");
  EXPECT_EQ(unavailable_reason(c910, c910.kinds[0], mov), "");
  ChipConfig b2 = load_chip("ascend910b2");
  EXPECT_EQ(unavailable_reason(b2, *b2.kind(CoreKind::Aic), mov), "pipe V");
  EXPECT_EQ(unavailable_reason(b2, *b2.kind(CoreKind::Aiv), mov), "buffer l0c (operand 'src')");
  ChipConfig c950 = load_chip("ascend950pr");
  EXPECT_EQ(unavailable_reason(c950, *c950.kind(CoreKind::Aic), mov), "pipe V");
  EXPECT_EQ(presets_having(mov), "ascend910 (coupled)");
  // A variant of the 910B2 whose vector core had an L0C and the path would run it.
  ChipConfig variant = b2;
  CoreConfig& aiv = *variant.kind(CoreKind::Aiv);
  aiv.size[int(Space::L0C)] = 1024, aiv.align[int(Space::L0C)] = 64;
  EXPECT_EQ(unavailable_reason(variant, aiv, mov), "data path l0c->ub");
  aiv.paths.push_back({Space::L0C, Space::UB, 256});
  EXPECT_EQ(unavailable_reason(variant, aiv, mov), "");

  GlobalMemory gm = GlobalMemory::for_program(p);
  RunResult r = run_in_order(c910, p, gm);
  EXPECT_TRUE(r.clean());
}

TEST(Machine, LoadToL0bNeedsItsOwnPath) {
  Program p = parse_program(".kernel k\n    load2d.f16 l0b[0], l1[0]\n    end\n", "k.s");
  ChipConfig c = load_chip("ascend910b2");
  CoreConfig aic = *c.kind(CoreKind::Aic);
  EXPECT_EQ(unavailable_reason(c, aic, p.code[0]), "");
  std::erase_if(aic.paths, [](const DataPathRate& d) { return d.dst == Space::L0B; });
  EXPECT_EQ(unavailable_reason(c, aic, p.code[0]), "data path l1->l0b");
}

// A vector program of several blocks: y[i] = x[i] * x[i] + 3 x[i], 64 f32 elements a block.
const char* kVectorOnly = R"(.kernel square_plus
.block_dim 6
.tensor X f32 [6, 64] in
.tensor Y f32 [6, 64] out
    block_idx x1
    mul x1, x1, 256
    copy_gm_ub ub[0], X[x1], len=8
    set_flag MTE2, V, 0
    wait_flag MTE2, V, 0
    vmul.f32 ub[256], ub[0], ub[0]
    vmuls.f32 ub[512], ub[0], 3.0
    barrier V
    vadd.f32 ub[768], ub[256], ub[512]
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0
    copy_ub_gm Y[x1], ub[768], len=8
    end
)";

std::vector<float> floats(const std::vector<uint8_t>& bytes) {
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

TEST(Machine, AVectorProgramGivesTheSameResultsOnTheCoupledAndTheSplitChip) {
  Program p = parse_program(kVectorOnly, "square_plus.s");
  std::vector<float> expected;
  GlobalMemory inputs = GlobalMemory::for_program(p);
  inputs.fill_inputs(11);
  for (float x : floats(inputs.bytes("X"))) expected.push_back(float(double(float(x * x)) + double(float(x * 3.0f))));
  std::vector<std::vector<float>> results;
  for (const char* chip : {"ascend910", "ascend910b2", "ascend950pr"}) {
    SCOPED_TRACE(chip);
    ChipConfig c = load_chip(chip);
    GlobalMemory gm = inputs;
    SimResult r = simulate(c, p, gm, {.threads = 1});
    for (const Diagnostic& d : r.report.diagnostics) ADD_FAILURE() << format_diagnostic(p, d);
    std::vector<float> y = floats(gm.bytes("Y"));
    ASSERT_EQ(y.size(), expected.size());
    for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], expected[i]) << i;
    GlobalMemory in_order = inputs;
    EXPECT_TRUE(run_in_order(c, p, in_order).clean());
    EXPECT_EQ(in_order.bytes("Y"), gm.bytes("Y"));
    // The split chips run it on their vector cores, one block each.
    ASSERT_EQ(r.report.per_core.size(), 6u);
    for (const CoreStats& s : r.report.per_core)
      EXPECT_EQ(s.kind, c.split() ? CoreKind::Aiv : CoreKind::Coupled);
  }
}

// A mixed kernel: each block's AIC reads block_idx + 1 bursts of GM (seen in its per-core bytes);
// each AIV writes 1000 + 10 * block_idx + subblock_idx into its own row of V.
const char* kMixed = R"(.kernel indices
.block_dim 5
.entry aic cube
.entry aiv vector
.tensor A f16 [16, 16] in
.tensor V s32 [5, 2, 8] out
cube:
    block_idx x1
    li x2, -1
again:
    copy_gm_l1 l1[0], A[0], len=1
    barrier MTE2
    add x2, x2, 1
    blt x2, x1, again
    end
vector:
    block_idx x1
    subblock_idx x2
    mul x3, x1, 10
    add x3, x3, x2
    add x3, x3, 1000
    vdup.s32 ub[0], x3, mask=8
    mul x4, x1, 64
    mul x5, x2, 32
    add x4, x4, x5
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0
    copy_ub_gm V[x4], ub[0], len=1
    end
)";

TEST(Machine, AMixedLaunchRunsEachBlockOnOneGroup) {
  Program p = parse_program(kMixed, "indices.s");
  for (bool in_order : {false, true}) {
    SCOPED_TRACE(in_order ? "run_in_order" : "simulate");
    ChipConfig c = load_chip("ascend910b2");
    GlobalMemory gm = GlobalMemory::for_program(p);
    gm.fill_inputs(1);
    if (in_order) {
      RunResult r = run_in_order(c, p, gm);
      for (const Diagnostic& d : r.diagnostics) ADD_FAILURE() << format_diagnostic(p, d);
    } else {
      SimResult r = simulate(c, p, gm, {.threads = 2});
      for (const Diagnostic& d : r.report.diagnostics) ADD_FAILURE() << format_diagnostic(p, d);
      // 5 groups: AICs 0..4, then their AIVs (2 each), in group order.
      ASSERT_EQ(r.report.per_core.size(), 15u);
      for (int g = 0; g < 5; ++g) {
        const CoreStats& aic = r.report.per_core[size_t(g)];
        EXPECT_EQ(aic.kind, CoreKind::Aic);
        EXPECT_EQ(aic.bytes[int(DataPath::GmToL1)], 32 * (g + 1)) << "group " << g;
        for (int s = 0; s < 2; ++s) {
          const CoreStats& aiv = r.report.per_core[size_t(5 + 2 * g + s)];
          EXPECT_EQ(aiv.kind, CoreKind::Aiv);
          EXPECT_EQ(aiv.bytes[int(DataPath::UbToGm)], 32);
        }
      }
    }
    std::vector<int32_t> v(5 * 2 * 8);
    std::memcpy(v.data(), gm.bytes("V").data(), v.size() * 4);
    for (int b = 0; b < 5; ++b)
      for (int s = 0; s < 2; ++s)
        for (int e = 0; e < 8; ++e) EXPECT_EQ(v[size_t((b * 2 + s) * 8 + e)], 1000 + 10 * b + s) << b << " " << s;
  }
}

// More blocks than groups: each group runs its blocks one after another, the AIVs with their AIC.
TEST(Machine, MixedBlocksBeyondTheGroupsGoRoundRobin) {
  Program p = parse_program(kMixed, "indices.s");
  LaunchPlan plan = plan_launch(load_chip("ascend910b2"), p, 50);
  ASSERT_EQ(plan.cores.size(), 24u * 3);
  EXPECT_TRUE(plan.mixed);
  EXPECT_EQ(plan.cores[1].blocks, (std::vector<int>{1, 25, 49}));
  EXPECT_EQ(plan.cores[24 + 3].kind, CoreKind::Aiv);
  EXPECT_EQ(plan.cores[24 + 3].subblock, 1);
  EXPECT_EQ(plan.cores[24 + 3].blocks, (std::vector<int>{1, 25, 49}));
  EXPECT_EQ(plan.cores[24 + 3].entry, p.label_index("vector"));
  // A vector-only launch uses every AIV: block b on AIV b.
  Program v = parse_program(kVectorOnly, "square_plus.s");
  LaunchPlan vp = plan_launch(load_chip("ascend910b2"), v, 100);
  ASSERT_EQ(vp.cores.size(), 48u);
  EXPECT_EQ(vp.cores[47].blocks, (std::vector<int>{47, 95}));
  EXPECT_EQ(vp.cores[47].subblock, 0);
  EXPECT_FALSE(vp.mixed);
}

// The report of a split chip gives each kind's ratios over its own cores; a coupled one keeps the
// chip-wide ratios alone.
TEST(Machine, ReportRatiosPerKindOfCore) {
  Program p = parse_program(kMixed, "indices.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(1);
  SimResult r = simulate(load_chip("ascend910b2"), p, gm, {.threads = 1});
  const Report& rep = r.report;
  ASSERT_EQ(rep.kinds.size(), 2u);
  for (const KindStats& k : rep.kinds) {
    SCOPED_TRACE(core_kind_name(k.kind));
    std::array<uint64_t, kNumPipes> busy{};
    int cores = 0;
    for (const CoreStats& c : rep.per_core)
      if (c.kind == k.kind) {
        ++cores;
        for (int q = 0; q < kNumPipes; ++q) busy[size_t(q)] += c.pipes[size_t(q)].busy;
      }
    EXPECT_EQ(k.cores, cores);
    for (int q = 0; q < kNumPipes; ++q) EXPECT_DOUBLE_EQ(k.ratio[size_t(q)], double(busy[size_t(q)]) / (double(rep.cycles) * cores));
  }
  EXPECT_EQ(rep.kinds[0].kind, CoreKind::Aic);
  EXPECT_EQ(rep.kinds[0].cores, 5);
  EXPECT_GT(rep.kinds[0].ratio[int(Pipe::MTE2)], 0);
  EXPECT_GT(rep.kinds[1].ratio[int(Pipe::V)], 0);
  std::string text = report_text(rep, p);
  EXPECT_NE(text.find(fmt::format("  aic (5 cores):  scalar_ratio {:.3f}  mte2_ratio {:.3f}", rep.kinds[0].ratio[0],
                                  rep.kinds[0].ratio[int(Pipe::MTE2)])),
            std::string::npos) << text;
  EXPECT_NE(text.find("  aiv (10 cores):"), std::string::npos) << text;
  std::string json = report_json(rep, p);
  EXPECT_NE(json.find("\"kinds\""), std::string::npos);
  EXPECT_NE(json.find("\"fixpipe_ratio\""), std::string::npos);  // the AIC's FIX pipe
  // And among the run's pipes and each core's busy cycles, as the trace shows it (a Python probe).
  const nlohmann::json parsed = nlohmann::json::parse(json);
  EXPECT_EQ(parsed["pipes"]["FIX"]["busy_cycles"].get<uint64_t>(), rep.pipes[int(Pipe::FIX)].busy);
  EXPECT_TRUE(parsed["ratios"].contains("fixpipe_ratio"));
  EXPECT_TRUE(parsed["per_core"][0]["busy_cycles"].contains("FIX"));
  EXPECT_NE(json.find("\"kind\": \"aiv\""), std::string::npos);

  Program v = parse_program(kVectorOnly, "square_plus.s");
  GlobalMemory g = GlobalMemory::for_program(v);
  g.fill_inputs(1);
  EXPECT_TRUE(simulate(load_chip("ascend910"), v, g, {.threads = 1}).report.kinds.empty());
}

TEST(Machine, EntriesSurvivePrintAndParse) {
  Program p = parse_program(kMixed, "indices.s");
  ASSERT_EQ(p.entries.size(), 2u);
  std::string text = print_program(p);
  EXPECT_NE(text.find(".entry aic cube\n.entry aiv vector\n"), std::string::npos) << text;
  Program again = parse_program(text, "printed.s");
  EXPECT_EQ(again.entries, p.entries);
  EXPECT_EQ(print_program(again), text);
  ProgramBuilder b("built");
  b.entry(CoreKind::Aiv, "v");
  b.label("v");
  b.emit("subblock_idx", {x(1)});
  b.emit("end", {});
  Program built = b.finish();
  EXPECT_EQ(built.entry(CoreKind::Aiv)->label, "v");
  EXPECT_EQ(built.entry(CoreKind::Aic), nullptr);
}

TEST(Machine, ReachabilityFollowsBranchesAndStopsAtEnd) {
  Program p = parse_program(kMixed, "indices.s");
  std::vector<int> cube = reachable_from(p, p.label_index("cube"));
  EXPECT_EQ(cube, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  std::vector<int> vec = reachable_from(p, p.label_index("vector"));
  EXPECT_EQ(vec.front(), 7);
  EXPECT_EQ(vec.back(), int(p.code.size()) - 1);
}

}  // namespace
}  // namespace cubekit
