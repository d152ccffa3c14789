// What the IR's variables can hold, for a pass that reasons about a loop's trip count or the branch
// an iteration takes (the sync pass, at a loop's first and last iterations).
//
// A variable is never negative when no definition can make it so: the kernel's own (block_idx and
// the like, which nothing defines), loop variables counting up from a non-negative start, Lets of
// non-negative values (Div and Rem by a positive constant, Add of a non-negative one). Starting
// from every variable and dropping those with a definition not shown non-negative, until none
// drops, proves a counter (0, then itself + 1) by induction.
#pragma once

#include "codegen/ir.h"

#include <set>
#include <vector>

namespace cubekit::codegen {

class VarBounds {
 public:
  VarBounds() = default;
  VarBounds(const Kernel& k, const std::vector<Node>& body);  // the variables of one core's program

  // Whether `a` is positive whatever its variables hold: a positive constant plus non-negative
  // multiples of variables never negative (a key loop's trip count of `qi + 1 + D`).
  bool positive(const Affine& a) const;
  bool non_negative(const Affine& a) const;
  // The branch If `n` takes with `var` = `value`: 1 its body, 0 its orelse, -1 not known (its
  // condition still depends on a variable that may take a value deciding it either way).
  int decided(const Node& n, int var, const Affine& value) const;

 private:
  std::set<int> non_negative_;
};

}  // namespace cubekit::codegen
