// What every kernel's default schedule chooses alike.
#pragma once

#include "emulator/chip_config.h"

#include <optional>

namespace cubekit::kernels {

// Double buffering, unless the options say, the schedule is the naive one, or the chip's event ids
// cannot keep two copies apart (an edited chip's event_ids of 1: the default was refused there as
// a schedule needing 2, with advice to drop a double_buffer() the user never wrote).
inline bool double_buffer_or_default(std::optional<bool> given, bool naive, const ChipConfig& chip) {
  return given.value_or(!naive && chip.event_ids >= 2);
}

}  // namespace cubekit::kernels
