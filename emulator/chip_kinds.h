// The check of a chip config's core kinds (chip_config.cpp's validation, apart for its size).
#pragma once

#include "emulator/chip_config.h"

#include <string>

namespace cubekit {

// The kinds of core: {coupled} or {aic, aiv}; vector cores per cube core; each kind's pipes and
// paths against its buffers. A user error naming `origin` (the config's file) otherwise.
void validate_kinds(const ChipConfig& c, const std::string& origin);

}  // namespace cubekit
