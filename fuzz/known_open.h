// The known open bugs of issue 10 (items 8-16), which the mutations find within seconds: while
// CUBEKIT_FUZZ_SKIP_KNOWN_OPEN is defined (the CMake option of the same name, ON until the fixes
// are merged), the targets skip the inputs that reach them, so that a fuzz run reports what is
// new; the environment variable CUBEKIT_FUZZ_NO_SKIP=1 turns the skipping off at run time (the
// regressions' runs set it). Each bug's reproducer is in fuzz/regressions/. Once the fixes land:
// turn the option off, move the reproducers into fuzz/corpus/, delete this file and its uses.
#pragma once

#include "emulator/chip_config.h"

#include <cstdlib>
#include <string_view>

namespace cubekit::fuzz {

inline bool skip_known_open() {
#ifdef CUBEKIT_FUZZ_SKIP_KNOWN_OPEN
  static const bool skip = std::getenv("CUBEKIT_FUZZ_NO_SKIP") == nullptr;
  return skip;
#else
  return false;
#endif
}

// chip JSON: numbers beyond double ("cores": 1e999 -> nlohmann's out_of_range escapes).
inline bool known_open_json_overflow(std::string_view text) {
  return skip_known_open() && (text.find("e999") != std::string_view::npos || text.find("E999") != std::string_view::npos ||
                            text.find("e+999") != std::string_view::npos || text.find("e308") != std::string_view::npos);
}

// Chips the emulator and the schedules divide by or overflow with: L2 smaller than a line
// (segfault), L0C under 1024 bytes (SIGFPE in matmul's schedule), tiny rates (cycle counts past
// 2^64: float-cast overflow).
inline bool known_open_chip(const ChipConfig& c) {
  if (!skip_known_open()) return false;
  const TimingConfig& t = c.timing;
  bool tiny_rate = false;
  for (double r : {t.gm_read_l2_rate, t.gm_read_hbm_rate, t.gm_write_rate, t.l1_to_l0a_rate, t.l1_to_l0b_rate,
                   t.l1_to_ub_rate, t.l0c_to_ub_rate, t.hbm_rate, c.clock_mhz})
    tiny_rate |= r < 1e-3;
  return t.l2_bytes < 64 * int64_t(t.l2_line_bytes) || c.buffer_size(Space::L0C) < 4096 || tiny_rate;
}

// .npy headers long enough for std::regex to overflow the stack (a 30,000-char descr; a shape of
// thousands of dimensions), or longer than the file (a 4 GiB header is allocated first); and
// arrays whose header write_npy would write past version 1's 65,535 bytes.
inline constexpr size_t kKnownOpenNpyHeader = 2048;
inline constexpr size_t kKnownOpenNpyRank = 256;

}  // namespace cubekit::fuzz
