// The compiled-in chips. Every figure cites ../shared/HARDWARE.md and the public source it takes
// from there, or says "assumed" (no public figure; chosen to be plausible, editable as data).
//   "ini 910"   = CANN platform ini Ascend910ProA.ini / Ascend910PremiumA.ini
//   "ini 910B2" = Ascend910B2.ini, [AICoreMemoryRates] in bytes/cycle/core (HARDWARE.md infers the unit)
//   "ini 950PR" = cann-dev Ascend950PR_9599.ini
//   "msopdev"   = the MindStudio simulator config example (msopdev_16_0151)
#include "emulator/chip_config.h"
#include "emulator/isa.h"

namespace cubekit {

namespace {

uint32_t pipes_of(std::initializer_list<Pipe> pipes) {
  uint32_t bits = 0;
  for (Pipe p : pipes) bits |= 1u << int(p);
  return bits;
}

void buffer(CoreConfig& k, Space s, int64_t bytes, int64_t align) {
  k.size[int(s)] = bytes;
  k.align[int(s)] = align;
}

// HARDWARE.md "Alignment" (the same on every chip): UB and L1 32 B, L0A/L0B 512 B, L0C 64 B.
constexpr int64_t kAlignL1 = 32, kAlignL0 = 512, kAlignL0c = 64, kAlignUb = 32;

// Figures no public source gives for any chip; the same assumption on every preset.
void assumed_timing(TimingConfig& t) {
  t.queue_depth = 32;           // assumed
  t.scalar_cycles = 1;          // DESIGN.md: scalar 1 cycle
  t.mte1_latency = 20;          // assumed
  t.cube_latency = 20;          // assumed
  t.vector_latency = 10;        // assumed
  t.l2_hit_latency = 241;       // msopdev: L2 read latency 241 cycles
  t.l2_miss_latency = 441;      // assumed: an L2 hit plus ~200 cycles of HBM access
  t.gm_write_latency = 96;      // msopdev: L2 write latency 96 cycles
  t.l2_line_bytes = 512;        // msopdev: L2 line 512 B
  t.vector_simple_cycles = 1;   // HARDWARE.md: a conflict-free repeat ~ 1 cycle
  t.vector_reduce_cycles = 2;   // assumed: a tree over the repeat
  t.vector_complex_cycles = 4;  // assumed: exp ln sqrt rsqrt rec div
  t.ub_bank_groups = 16;        // HARDWARE.md: blk_stride 16 -> 8 cycles per repeat
  t.window_cycles = 1000;       // simulation parameter, not hardware
}

// HARDWARE.md "Cube and vector" (Hot Chips 2019, ini [DtypeMKN]): fp16 16,16,16; int8 16,32,16.
std::vector<CubeFractal> cube_f16_s8() {
  return {{DType::f16, DType::f32, 16, 16, 16}, {DType::s8, DType::s32, 16, 32, 16}};
}

ChipConfig ascend910() {
  ChipConfig c;
  c.name = "ascend910";
  c.description = "Ascend 910 (dav-c100): 32 coupled AI cores, cube 16x16x16 fp16 per cycle";
  c.cores = 32;  // ini 910: ai_core_cnt 32
  c.clock_mhz = 1000;  // ProA 1100 / PremiumA 1220 MHz; 1 GHz matches the 256 TFLOPS fp16 peak
  CoreConfig k;
  k.kind = CoreKind::Coupled;  // HARDWARE.md "Core organisation": cube and vector share one scalar unit
  k.pipes = pipes_of({Pipe::S, Pipe::MTE1, Pipe::MTE2, Pipe::MTE3, Pipe::M, Pipe::V});  // HARDWARE.md: no FixPipe
  buffer(k, Space::L1, 1 << 20, kAlignL1);      // ini 910: l1_size 1 MiB
  buffer(k, Space::L0A, 64 << 10, kAlignL0);    // ini 910: l0_a_size 64 KiB
  buffer(k, Space::L0B, 64 << 10, kAlignL0);    // ini 910: l0_b_size 64 KiB
  buffer(k, Space::L0C, 256 << 10, kAlignL0c);  // ini 910: l0_c_size 256 KiB
  buffer(k, Space::UB, 256 << 10, kAlignUb);    // ini 910: ub_size 256 KiB
  // The 910's own ini has no rates: the 910B2 ini's are the closest public figures.
  k.paths = {{Space::GM, Space::L1, 110},    // ini 910B2: l2 110
             {Space::GM, Space::UB, 110},    // ini 910B2: l2 110
             {Space::UB, Space::GM, 64},     // ini 910B2: ub->ddr 64, ub->l2 64
             {Space::L1, Space::L0A, 512},   // ini 910B2: l1->l0a 512
             {Space::L1, Space::L0B, 256},   // ini 910B2: l1->l0b 256
             {Space::L1, Space::UB, 128},    // ini 910B2: l1->ub 128
             {Space::L0C, Space::UB, 256}};  // ini 910B2: l0c->ub 256 (the coupled core's V pipe moves it)
  c.kinds = {k};
  c.event_ids = 4;              // event ids 0-3 per pipe pair on the 910
  c.cube = cube_f16_s8();
  TimingConfig& t = c.timing;
  assumed_timing(t);
  t.gm_read_hbm_rate = 32;  // ini 910B2: ddr 32
  t.l2_bytes = 32 << 20;    // ini 910: 32 MiB L2
  t.hbm_rate = 1000;        // ~1 TB/s HBM2 at 1 GHz (seed article: "HBM2 bandwidth up to 1 TB/s")
  // Effects measured on hardware (docs/chips.md, "Effects"; the calibration suite checks them).
  // "BP" = Huawei's Ascend C best practices (hiascend.com atlas_ascendc_best_practices_10_0013/0014).
  t.gm_transfer_overhead_cycles = 57;  // fitted: BP 10_0013, GM bandwidth saturates above ~16 KB per
                                       // transfer: a 16 KB read from HBM (512 cycles at 32 B/cycle) at 90%
  t.gm_aligned_bytes = 512;            // public: BP 10_0014, GM addresses 512 B aligned reach full bandwidth
  t.gm_misaligned_efficiency = 1.0;    // public: BP 10_0014 (32 B aligned reach 70% of 512 B aligned) holds for
                                       // Atlas A2 (910B) only, it says: the 910 has no such penalty
  t.hbm_efficiency = 0.875;            // fitted: streaming kernels reach ~80% of HBM peak (limulidae README,
                                       // 910B): calibration row stream_add_910 (4096x4096 f16 add)
  t.hbm_turnaround_cycles = 8;         // assumed: about HBM2's write-to-read turnaround (~8 ns)
  t.hbm_page_bytes = 1024;             // assumed: an HBM2 pseudo-channel's 1 KB page
  t.hbm_scattered_efficiency = 1.0;    // assumed: no measurement of strided misses on the 910 (no effect)
  t.launch_cycles = 1000;              // assumed: ~1 us from the launch to the cores' first instruction
  t.block_dispatch_cycles = 100;       // assumed: the block scheduler hands a core its next block
  t.core_start_cycles = 0;             // assumed none: no many-core run is published for the 910, and its
                                       // ceiling and stream rows were fitted with every core starting at once
  t.l2_rate = 3870;                    // assumed: the 3.87 TB/s of MTE2 reads a 910B sustained at 93.8% L2 hit
                                       // (hiascend.com CANN 7.0 guide atlaslmimog_0048), per cycle at 1 GHz
  t.l2_replacement_candidates = 2;     // assumed: a gentler capacity cliff than LRU (docs/chips.md)
  t.cube_efficiency = 0.832;           // fitted: AIBench (CCF THPC 2024) 216 TFLOPS fp16 cube ceiling:
                                       // calibration/cube_peak.s
  t.vector_efficiency = 0.843;         // fitted: AIBench 3.39 TFLOPS vector ceiling: calibration/vector_peak.s
  return c;
}

// The 910B2 and 950PR: split into cube cores and vector cores, 2 AIVs per AIC (HARDWARE.md "Core
// organisation", from hiascend.com atlas_ascendc_10_0008). Paths the chip lacks are absent.
ChipConfig split_chip(int groups) {
  ChipConfig c;
  c.cores = groups;
  c.vector_cores_per_cube = 2;  // HARDWARE.md: 24 AIC + 48 AIV, 32 AIC + 64 AIV
  CoreConfig aic, aiv;
  aic.kind = CoreKind::Aic;
  aic.pipes = pipes_of({Pipe::S, Pipe::MTE1, Pipe::MTE2, Pipe::M, Pipe::FIX});  // HARDWARE.md: cube core
  aiv.kind = CoreKind::Aiv;
  aiv.pipes = pipes_of({Pipe::S, Pipe::MTE2, Pipe::MTE3, Pipe::V});  // HARDWARE.md: vector core
  c.kinds = {aic, aiv};
  c.event_ids = 8;  // HARDWARE.md: event ids 0-7 per pipe pair (910B2 and 950PR)
  c.cube = cube_f16_s8();
  c.cube.push_back({DType::bf16, DType::f32, 16, 16, 16});  // HARDWARE.md: bf16 yes (910B2, 950PR); fractal as fp16
  assumed_timing(c.timing);
  // Assumed: no public figure. A flag travels between cores through the chip's shared fabric, as
  // an L2 access does; about an L2 hit (msopdev: 241 cycles), rounded.
  c.timing.cross_core_latency = 200;
  return c;
}

ChipConfig ascend910b2() {
  ChipConfig c = split_chip(24);  // ini 910B2: 24 AIC + 48 AIV
  c.name = "ascend910b2";
  c.description = "Ascend 910B2 (dav-c220): 24 cube cores + 48 vector cores, 1.8 GHz";
  c.clock_mhz = 1800;  // ini 910B2: cube clock 1800 MHz
  CoreConfig& aic = *c.kind(CoreKind::Aic);
  buffer(aic, Space::L1, 512 << 10, kAlignL1);     // ini 910B2: L1 512 KiB
  buffer(aic, Space::L0A, 64 << 10, kAlignL0);     // ini 910B2: L0A 64 KiB
  buffer(aic, Space::L0B, 64 << 10, kAlignL0);     // ini 910B2: L0B 64 KiB
  buffer(aic, Space::L0C, 128 << 10, kAlignL0c);   // ini 910B2: L0C 128 KiB
  aic.paths = {{Space::GM, Space::L1, 110},    // ini 910B2: l2 110
               {Space::L1, Space::L0A, 512},   // ini 910B2: l1->l0a 512
               {Space::L1, Space::L0B, 256},   // ini 910B2: l1->l0b 256
               {Space::L0C, Space::GM, 86}};   // ini 910B2: l2 write 86 (assumed to be the FixPipe's port)
  CoreConfig& aiv = *c.kind(CoreKind::Aiv);
  buffer(aiv, Space::UB, 192 << 10, kAlignUb);  // ini 910B2: UB 192 KiB per AIV
  // The ini also lists l1->ub, l0c->ub and ub->l1, platform-wide figures: on the 910B the cube and
  // vector cores share no buffer (HARDWARE.md: only the 950 adds UB->L1 and L0C->UB), so they are
  // no paths here.
  aiv.paths = {{Space::GM, Space::UB, 110},  // ini 910B2: l2 110
               {Space::UB, Space::GM, 64}};  // ini 910B2: ub->ddr 64, ub->l2 64
  TimingConfig& t = c.timing;
  t.gm_read_hbm_rate = 64;  // fitted (ini 910B2 says ddr 32): rows gemm_mte2_n12288/n16384_910b2, see docs/chips.md
  t.l2_bytes = int64_t(192) << 20;  // ini 910B2: L2 192 MiB
  t.hbm_rate = 1600.0e9 / 1800e6;   // HARDWARE.md: HBM 1.6 TB/s at 1.8 GHz = 888.9 bytes per cycle
  // Effects (docs/chips.md, "The split chips' values"; the calibration rows check the fitted ones).
  t.gm_transfer_overhead_cycles = 28;  // fitted as on the 910: a 16 KB read from HBM at 90% of the core's HBM rate
  t.gm_aligned_bytes = 512;            // public: BP 10_0014
  t.gm_misaligned_efficiency = 0.7;    // public: BP 10_0014 (Atlas A2: 32 B aligned reads reach ~70% of 512 B aligned)
  t.hbm_efficiency = 0.97;             // fitted: row stream_add_910b2 (limulidae: streaming at ~80% of HBM peak)
  t.hbm_turnaround_cycles = 14;        // assumed: ~8 ns at 1800 MHz
  t.hbm_page_bytes = 1024;             // assumed: an HBM2e pseudo-channel's 1 KB page
  t.hbm_scattered_efficiency = 0.7;    // fitted: row gemm_mte2_n16384_910b2 (1.62 TB/s of MTE2 at 32% L2 hit)
  t.launch_cycles = 1800;              // assumed: ~1 us at 1800 MHz
  t.block_dispatch_cycles = 180;       // assumed: ~0.1 us at 1800 MHz
  t.core_start_cycles = 360;           // fitted: rows flash_attention_s1024/s2048_910b2 against the board's one-core
                                       // runs (flash_attention_1core_*): 0.204 and 0.197 us a further core started
  t.l2_rate = 2000;                    // fitted: rows gemm_6144_910b2 and gemm_mte2_n4096..n10240_910b2
  t.l2_replacement_candidates = 16;    // fitted: the L2 hit rates of rows gemm_mte2_n12288/n16384_910b2
  t.cube_efficiency = 1.0;             // fitted: the 910B GEMM 6144^3 delivers 87% of peak at 86% cube utilisation
  t.vector_efficiency = 0.843;         // assumed: the 910's AIBench figure (no 910B vector ceiling is published)
  return c;
}

ChipConfig ascend950pr() {
  ChipConfig c = split_chip(32);  // ini 950PR: 32 AIC + 64 AIV (server SKU)
  c.name = "ascend950pr";
  c.description = "Ascend 950PR (dav-c310): 32 cube cores + 64 vector cores, 1.65 GHz";
  c.clock_mhz = 1650;  // ini 950PR: cube clock 1650 MHz
  CoreConfig& aic = *c.kind(CoreKind::Aic);
  buffer(aic, Space::L1, 512 << 10, kAlignL1);     // ini 950PR: L1 512 KiB
  buffer(aic, Space::L0A, 64 << 10, kAlignL0);     // ini 950PR: L0A 64 KiB
  buffer(aic, Space::L0B, 64 << 10, kAlignL0);     // ini 950PR: L0B 64 KiB
  buffer(aic, Space::L0C, 256 << 10, kAlignL0c);   // ini 950PR: L0C 256 KiB
  aic.paths = {{Space::GM, Space::L1, 128},    // assumed: ini 950PR's ub<->ddr 128, its only GM figure
               {Space::L1, Space::L0A, 256},   // ini 950PR: l1->l0a 256
               {Space::L1, Space::L0B, 256},   // ini 950PR: l1->l0b 256
               {Space::L0C, Space::GM, 128},   // assumed: as ub<->ddr 128
               {Space::L0C, Space::UB, 256}};  // HARDWARE.md: the 950 adds L0C->UB (FixPipe into the
                                               // group's AIV); rate assumed: ini 910B2 l0c->ub 256
  CoreConfig& aiv = *c.kind(CoreKind::Aiv);
  buffer(aiv, Space::UB, 248 << 10, kAlignUb);  // ini 950PR: UB 248 KiB per AIV
  aiv.paths = {{Space::GM, Space::UB, 128},   // ini 950PR: ub<->ddr 128
               {Space::UB, Space::GM, 128},   // ini 950PR: ub<->ddr 128
               {Space::UB, Space::L1, 128}};  // HARDWARE.md: the 950 adds UB->L1 (into the group's AIC);
                                              // rate assumed: ini 910B2 ub->l1 128
  TimingConfig& t = c.timing;
  t.gm_read_hbm_rate = 128;         // ini 950PR: ub<->ddr 128
  t.l2_bytes = int64_t(128) << 20;  // ini 950PR: L2 128 MiB
  t.hbm_rate = 1600.0e9 / 1650e6;   // HARDWARE.md: HBM 1.6 TB/s at 1.65 GHz = 969.7 bytes per cycle
  // Effects (docs/chips.md, "The split chips' values"; the calibration rows check the fitted ones).
  t.gm_transfer_overhead_cycles = 14;  // fitted as on the 910: a 16 KB read from HBM at 90% of the core's HBM rate
  t.gm_aligned_bytes = 512;            // public: BP 10_0014
  t.gm_misaligned_efficiency = 0.7;    // public: BP 10_0014 (Atlas A2: 32 B aligned reads reach ~70% of 512 B aligned) ; 950 assumed the same
  t.hbm_efficiency = 0.97;             // assumed: the 910B2's fit (row stream_add_910b2)
  t.hbm_turnaround_cycles = 13;        // assumed: ~8 ns at 1650 MHz
  t.hbm_page_bytes = 1024;             // assumed: an HBM page of 1 KB, as on the 910B2
  t.hbm_scattered_efficiency = 0.7;    // assumed: the 910B2's fit (row gemm_mte2_n16384_910b2)
  t.launch_cycles = 1650;              // assumed: ~1 us at 1650 MHz
  t.block_dispatch_cycles = 165;       // assumed: ~0.1 us at 1650 MHz
  t.core_start_cycles = 330;           // assumed: the 910B2's fit, 0.2 us a further core started
  t.l2_rate = 2180;                    // assumed: the 910B2's fitted 3.6 TB/s at 1650 MHz
  t.l2_replacement_candidates = 16;    // assumed: the 910B2's fit
  t.cube_efficiency = 1.0;             // fitted: the 910B GEMM 6144^3 delivers 87% of peak at 86% cube utilisation; 950 assumed
  t.vector_efficiency = 0.843;         // assumed: the 910's AIBench figure (no 910B vector ceiling is published)
  return c;
}

}  // namespace

const std::vector<ChipConfig>& chip_presets() {
  static const std::vector<ChipConfig> presets = {ascend910(), ascend910b2(), ascend950pr()};
  return presets;
}

}  // namespace cubekit
