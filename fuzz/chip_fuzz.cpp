// Fuzz target: a chip config as JSON (what `cubekit chips --json` prints and `--chip FILE.json`
// reads) -> chip_from_json, then everything that depends on the figures it holds.
//
// Checks: an accepted config prints (chip_to_json) to JSON that loads back to the same config; a
// fixed hand-written program (two blocks: GM -> L1 -> L0A/L0B -> mmad -> L0C -> UB -> GM, plus
// vector work) runs on it in program order and with the timing model; the ready matmul and
// softmax kernels compile for it and their programs run on it. On a chip whose buffers cannot
// hold them that ends in user errors or diagnostics, never in a crash, a hang or an internal error.
//
// Budget: the emulation is skipped when one core's buffers add up to more than kMaxCoreBytes
// (a legal config may declare 1 GiB per buffer); S instructions per block are bounded.
#include "codegen/lower.h"
#include "emulator/chip_config.h"
#include "emulator/emulator.h"
#include "emulator/memory.h"
#include "emulator/program.h"
#include "emulator/simulator.h"
#include "fuzz/fuzz_target.h"
#include "kernels/matmul.h"
#include "kernels/vector.h"

namespace {

using namespace cubekit;

constexpr int64_t kMaxCoreBytes = int64_t(64) << 20;
constexpr int64_t kStepsPerBlock = 20'000;
constexpr int kMaxBlocks = 2;

// 32x32x32 f16 matmul, then a vector add of the result to itself, on two blocks (each writes its
// own C): clean on ascend910.
constexpr const char* kProgram = R"(.kernel chip_probe
.block_dim 2
.tensor A f16 [32, 32] in
.tensor B f16 [32, 32] in
.tensor C f32 [2, 32, 32] out
    copy_gm_l1_nd2nz.f16 l1[0], A[0], rows=32, cols=32, src_stride=32, dst_rows=32
    copy_gm_l1_nd2nz.f16 l1[2048], B[0], rows=32, cols=32, src_stride=32, dst_rows=32
    set_flag MTE2, MTE1, 0
    wait_flag MTE2, MTE1, 0
    load2d.f16 l0a[0], l1[0], repeat=2, src_stride=2
    load2d.f16 l0a[1024], l1[512], repeat=2, src_stride=2
    load2d.f16 l0b[0], l1[2048], repeat=2, src_stride=2, transpose
    load2d.f16 l0b[1024], l1[2560], repeat=2, src_stride=2, transpose
    set_flag MTE1, M, 0
    wait_flag MTE1, M, 0
    mmad.f16 l0c[0], l0a[0], l0b[0], m=32, n=32, k=32, init
    set_flag M, V, 0
    wait_flag M, V, 0
    mov_l0c_ub.f32.f32 ub[0], l0c[0], len=4
    barrier V
    vadd.f32 ub[4096], ub[0], ub[0], repeat=16
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0
    block_idx x1
    mul x1, x1, 4096
    copy_ub_gm C[x1], ub[4096], len=128
    end
)";

const Program& probe_program() {
  static const Program p = parse_program(kProgram, "chip_probe.s");
  return p;
}

// In program order, then with the timing model with and without data and checks, on at most
// kMaxBlocks blocks (the compiled kernels launch one per core; a few show every per-chip path).
void run_on(const ChipConfig& chip, const Program& p) {
  const int blocks = std::min(p.block_dim, kMaxBlocks);
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(1);
  run_in_order(chip, p, gm, {.cores = blocks, .max_steps = kStepsPerBlock});
  for (bool timing_only : {false, true}) {
    GlobalMemory g = GlobalMemory::for_program(p);
    g.fill_inputs(1);
    SimResult r = simulate(chip, p, g, {.blocks = blocks, .timing_only = timing_only, .checks = !timing_only,
                                        .threads = 1, .max_steps = kStepsPerBlock});
    report_text(r.report, p, "chip_probe.s");
  }
}

void check_round_trip(const ChipConfig& chip) {
  std::string json = chip_to_json(chip);
  std::string again;
  bool ok = fuzz::accepted([&] { again = chip_to_json(chip_from_json(json, "printed.json")); });
  if (!ok) fuzz::finding("the JSON of an accepted chip config does not load", json);
  if (again != json) fuzz::finding("chip_to_json -> chip_from_json -> chip_to_json changed the config",
                                   json + "\n---- became\n" + again);
}

void exercise(const ChipConfig& chip) {
  int64_t core_bytes = 0;
  for (const CoreConfig& k : chip.kinds)
    for (int s = 1; s < kNumSpaces; ++s) core_bytes += k.size[s];
  if (core_bytes > kMaxCoreBytes) return;
  fuzz::accepted([&] { run_on(chip, probe_program()); });
  fuzz::accepted([&] {
    kernels::MatmulOptions o{.m = 48, .n = 80, .k = 64};
    run_on(chip, codegen::compile(kernels::matmul(o, chip).out, chip).program);
  });
  fuzz::accepted([&] {
    kernels::VectorOptions o{.shape = {8, 200}};
    run_on(chip, codegen::compile(kernels::vector_kernel("softmax", o).out, chip).program);
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ChipConfig chip;
  if (!fuzz::accepted([&] { chip = chip_from_json(fuzz::as_text(data, size), "fuzz.json"); })) return 0;
  check_round_trip(chip);
  exercise(chip);
  return 0;
}
