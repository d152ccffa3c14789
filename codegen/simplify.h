// Lowering pass 5: simplification, before the scalar code. The nest builders write every loop and
// index the same way whatever the extents; for a given shape much of it is known at compile time:
//
//   for w = 0; w < 1; w += 1            w = 0, the body once          (a loop of one trip)
//     mo = (rest) % 1                   mo = 0                        (constant folding)
//     rest = (rest) / 1                 (nothing)                     (an operation that does nothing)
//     no = (tile) + 0                   uses of no read tile          (a copy of a variable: no register)
//     if 0 == 3 ... else B              B                             (a branch decided at compile time)
//
// A variable is replaced only where its value is one definition of a constant or of another
// variable that is itself never redefined, so that the replacement means the same at every use.
// The scalar unit then runs fewer instructions; what the other pipes do is unchanged.
#pragma once

#include "codegen/ir.h"

namespace cubekit::codegen {

void simplify(Kernel& kernel);

}  // namespace cubekit::codegen
