// The choices of a plan that only a lowering can measure: the UB a tile needs depends on the
// scratch values instruction selection makes for its expressions, which the planner does not
// model. A fit lowers the stage graph (lower_stages.h) at candidate sizes, keeps the largest that
// fits the chip, and reports a user's error when none does, in the schedule's words. The
// lowering itself never searches.
#pragma once

#include "codegen/ir.h"
#include "schedules/stages.h"

#include <functional>

namespace cubekit::codegen {

// The vector path: the graph's tile rows (elements when flat), the schedule's tile_rows() or the
// most of this core's share that UB holds; returns the kernel lowered with them (`graph` becomes
// the graph with its tiles chosen).
Kernel fit_row_tiles(sched::StageGraph& graph, const sched::VectorPlan& plan, const ChipConfig& chip);

// The cube path's strips on the way out of L0C: with an epilogue, the widest strip (whole fractal
// columns, at most the plan's) whose accumulator, inputs and scratch fit UB; on a split chip's
// vector cores, the most rows of an AIV's half tile that fit. Returns the kernel lowered with it,
// and the graph it was lowered from in `graph`.
Kernel fit_strips(const sched::ContractionPlan& plan, const ChipConfig& chip, sched::StageGraph& graph);

// Flash attention: the nest lowered from the plan's stage graph (`graph` becomes it) at its flash()
// tiles, or the user's error naming the first buffer level they overflow. The kernels' default
// tiles are chosen by the same measure (attention_overflow), so a tiling is refused exactly when
// storage planning could not place its buffers.
Kernel fit_attention(const sched::AttentionPlan& plan, const ChipConfig& chip, sched::StageGraph& graph);
// The first level (UB, L1, L0A, L0B, L0C) whose buffers the plan's tiles overflow, or Space::GM
// when they fit.
Space attention_overflow(const sched::AttentionPlan& plan, const ChipConfig& chip);

// The fits' search: the largest n in [1, hi] with bytes(n) <= cap, 0 when there is none; `bytes`
// must grow with n (each call lowers a kernel). Kernels' bytes grow nearly in proportion to their
// tiles, so the n that bytes(1) and bytes(2) point to is tried first, with n + 1, and a bisection
// searches what is left only when that was not the answer: a flat add's 4096 candidate tiles took
// a bisection 12 lowerings, a tenth of its timing-only run, and take this 4.
int64_t largest_within(int64_t hi, int64_t cap, const std::function<int64_t(int64_t)>& bytes);

}  // namespace cubekit::codegen
