// Inside the Halide host backend (host.cpp, host_lowering.cpp, host_schedule.cpp only: this header
// includes Halide.h). A Func becomes Halide Funcs with IEEE semantics; what the fast schedule needs
// to know about each (its variables, their extents, which reductions it owns) is kept beside them.
#pragma once

#include "dsl/func.h"

#include <Halide.h>

#include <map>
#include <vector>

namespace cubekit::dsl::host {

Halide::Type halide_type(DType t);

// A Halide Func the lowering made. Variables and extents innermost first (Halide's order: the
// reverse of cubekit's).
struct LoweredFunc {
  Halide::Func func;
  std::vector<Halide::Var> vars;
  std::vector<int64_t> extents;
};

// One sum/maximum/minimum: a Func over the variables its argument uses, defined as an initial value
// and an update over an RDom of the reduction's own RVars, in order (each result sums its terms in
// the RDom's order, whatever the schedule).
struct LoweredReduction : LoweredFunc {
  Halide::RDom rdom;
  // The DSL Func it is computed for, when it is called there with all of that Func's variables in
  // order (`C(m, n) = sum(...)`): the fast schedule computes it at that Func's tiles.
  const FuncImpl* owner = nullptr;
  bool nested = false;  // inside another reduction (its variables may include that one's RVars)
};

// An input read inside a reduction through a root copy (fast schedule only): cast to the type the
// reduction reads it in, and stored with `inner` (a Halide dimension) innermost.
struct InputCopy : LoweredFunc {
  const InputImpl* input = nullptr;
  int inner = 0;
};

struct Lowered {
  Halide::Func output;
  std::map<const FuncImpl*, LoweredFunc> funcs;  // every DSL Func, the output included
  std::vector<LoweredReduction> reductions;
  std::vector<InputCopy> copies;
  std::map<const InputImpl*, Halide::ImageParam> params;
};

// Lowers `output` and every Func it calls. Each DSL Func is computed at root; reductions are left
// where Halide puts them (in their consumer's innermost loop). `copy_inputs`: inputs that a
// reduction reads many times over (an operand of a contraction) go through an InputCopy.
Lowered lower(const Func& output, bool copy_inputs);

// The fast schedule: root Funcs parallel over their outer dimensions and vectorised along the
// innermost, reductions computed in register tiles (vector lanes along the innermost variable,
// several rows, the RDom inside), input copies converted once. It only reorders independent
// iterations: every value, and the order of every reduction, is the plain pipeline's.
void schedule_fast(Lowered& lowered, const Halide::Target& target);

}  // namespace cubekit::dsl::host
