// The compiler: a Func and its schedule in, a Program out, through the passes listed in
// lower.cpp. CUBEKIT_DEBUG=lower prints the IR after every pass (to stderr).
#pragma once

#include "dsl/func.h"
#include "emulator/chip_config.h"
#include "emulator/program.h"

namespace cubekit::codegen {

struct Compiled {
  Program program;
  double milliseconds = 0;  // compile time
};

Compiled compile(const dsl::Func& f, const ChipConfig& chip);

}  // namespace cubekit::codegen
