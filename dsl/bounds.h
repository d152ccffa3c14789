// The ranges of index expressions, by interval arithmetic over the ranges of the variables in them,
// and the check built on it: every read of an input or a Func stays inside its shape, or is made
// through a boundary condition. The compiler and the host reference both run the check before they
// lower anything, so an affine read (`I(n, c, oh * 2 + kh - 1, ...)`) that could leave the tensor is
// the user's error, named where it is written, never a read out of bounds.
#pragma once

#include "dsl/func.h"

#include <functional>
#include <optional>

namespace cubekit::dsl {

// [min, max], both included; unbounded when interval arithmetic cannot say (an index read from
// data, a division by a range holding 0, an overflow of 64 bits).
struct Interval {
  int64_t min = 0, max = 0;
  bool bounded = true;
  static Interval point(int64_t v) { return {v, v, true}; }
  static Interval everything() { return {0, 0, false}; }
};

// The range a variable takes, or nullopt where it is not known (then so is the expression's).
using VarRanges = std::function<std::optional<Interval>(const VarImpl&)>;

// The range of an integer expression (Halide's semantics: integer division is Euclidean, rounding
// down for a positive divisor and up for a negative one); unbounded for a float or a comparison.
Interval bounds_of(const Expr& e, const VarRanges& ranges);

// Checks every read in `output` and in each Func it calls: each index of an input, or of a Func,
// within that dimension's extent, where a Func's variables range over its shape and RVars over
// their domains. Reads through BoundaryConditions may fall anywhere. A user error otherwise, naming
// the Func, the read, the dimension, the range it can reach and the two ways out.
void check_reads_in_bounds(const Func& output);

}  // namespace cubekit::dsl
