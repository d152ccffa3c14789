// The loop nest a Func's schedule describes, before any hardware mapping.
//
//   C(m, n) = sum(...)               loops: m, n, k          (outermost first)
//   .split(m, mo, mi, 128)           loops: mo, mi, n, k     m = mo*128 + mi
//   .reorder({mi, n, mo})            loops: n?...            (innermost first, as Halide)
//
// Every loop knows which original variable it iterates and with what stride, so any original
// index is a sum over the loops that split it.
#pragma once

#include "dsl/func.h"

#include <memory>
#include <string>
#include <vector>

namespace cubekit::sched {

struct Loop {
  std::shared_ptr<dsl::VarImpl> var;     // this loop's variable
  std::shared_ptr<dsl::VarImpl> origin;  // the Func variable (or RDom) it splits
  int64_t extent = 0;                    // iterations (the last may be partial: see tail)
  int64_t stride = 1;                    // origin = ... + var * stride + ...
  int64_t factor = 0;                    // for an outer loop: the inner loop's extent (0 if not split)
  bool reduction = false;
  std::string name() const { return var->name; }
};

struct LoopNest {
  std::vector<Loop> loops;  // outermost first
  int cores = 0;            // how many outermost loops go to AI cores (fused)
  int64_t core_group = 1;   // cores(..., group): rasterisation of the last two core loops (the
                            // last group smaller when it does not divide the first one's extent)
  int find(const std::shared_ptr<dsl::VarImpl>& v) const;  // -1 when absent
  std::string str() const;
};

// Applies the Split/Reorder/Cores directives; other directives are left to the caller.
// Errors name the directive as written.
LoopNest build_loop_nest(const dsl::Func& f);

}  // namespace cubekit::sched
