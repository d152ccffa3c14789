// Where a program runs on a chip: which kind of core runs which entry, which instructions each
// kind can run (derived from the chip's data: pipes, buffers, paths), and how the blocks of a
// launch go onto the cores. Both drivers (run_in_order, simulate) launch through plan_launch.
//
//   coupled chip            block b on core b % cores, from instruction 0
//   split, one kind         the kind with everything the program uses (or the one entry given):
//                           cube-only: block b on AIC b % aic; vector-only: block b on AIV b % aiv
//   split, mixed            `.entry aic` and `.entry aiv`: block b on group g = b % cores, i.e. AIC g
//                           and its AIVs g*v .. g*v+v-1 (v = vector_cores_per_cube); block_idx is b on
//                           all of them, subblock_idx 0..v-1 on the AIVs
#pragma once

#include "emulator/chip_config.h"
#include "emulator/program.h"

#include <string>
#include <vector>

namespace cubekit {

// Why `kind` of `chip` cannot run `in`: the pipe, buffer or path it lacks; empty when it can.
std::string unavailable_reason(const ChipConfig& chip, const CoreConfig& kind, const Instr& in);
// Whether `kind` can run some form of `spec` (its pipe, a buffer for each memory operand, and for
// a transfer a path between them), and the presets where some kind can: what docs/isa.md lists.
bool kind_has_instruction(const CoreConfig& kind, const InstrSpec& spec);
std::string presets_having(const InstrSpec& spec);  // "ascend910 (coupled), ascend910b2 (aiv)"
// The presets on which some kind runs `in` ("ascend910 (coupled), ascend950pr (aic)"), or "none".
std::string presets_having(const Instr& in);

// The instructions reachable from `entry` (following branches; `end` and `jmp` do not fall through).
std::vector<int> reachable_from(const Program& program, int entry);

// One kind the program runs on, from which instruction. Checked: every instruction reachable from
// the entry runs on the kind, else a user error naming the instruction, what it lacks, and where
// it exists.
struct KindEntry {
  CoreKind kind;
  int entry;
};
std::vector<KindEntry> program_kinds(const ChipConfig& chip, const Program& program);

// One core of a launch.
struct LaunchCore {
  CoreKind kind;
  int index;     // among the chip's cores of its kind
  int entry;     // first instruction
  int subblock;  // subblock_idx
  int start_order;  // when the launch starts it: 0 first (ChipConfig's core_start_cycles)
  std::vector<int> blocks;  // block_idx of each block it runs, in order
};

struct LaunchPlan {
  int blocks = 0;
  bool mixed = false;             // cube and vector entries
  std::vector<LaunchCore> cores;  // coupled; or the AICs (group order), then the AIVs
};

// `blocks` already checked by launch_blocks.
LaunchPlan plan_launch(const ChipConfig& chip, const Program& program, int blocks);

}  // namespace cubekit
