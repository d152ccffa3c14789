// GM as one core sees it during a window of the functional replay (simulate.cpp): the committed
// contents plus its own pending writes. Writes and atomic adds go to the core's log and are
// applied, for every core, in (time, core, order) order when the window ends -- so results do
// not depend on how cores are spread over host threads, racy programs included.
#pragma once

#include "emulator/isa.h"
#include "emulator/memory.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace cubekit {

struct GmWrite {
  uint64_t time = 0;
  int core = 0;
  uint64_t seq = 0;
  Region region;               // space GM: which tensor and which bytes
  std::vector<uint8_t> data;   // the region's chunks, packed in order
  std::optional<DType> atomic; // add instead of store
};

class GmWindow {
 public:
  GmWindow(const GlobalMemory& gm, int core) : gm_(gm), core_(core) {}
  // Whether this core has written bytes of [lo, hi) of the tensor in this window.
  bool pending(int tensor, int64_t lo, int64_t hi) const;
  // The bytes [lo, hi) of a tensor as this core sees them now.
  void stage(int tensor, int64_t lo, int64_t hi, std::vector<uint8_t>& out) const;
  // Logs region r's bytes, taken from `staged` (the tensor's bytes from offset lo); with `atomic`
  // they are increments.
  void log_write(const Region& r, const uint8_t* staged, int64_t lo, uint64_t time, std::optional<DType> atomic);
  std::vector<GmWrite>& writes() { return writes_; }

 private:
  const GlobalMemory& gm_;
  int core_;
  uint64_t seq_ = 0;
  std::vector<GmWrite> writes_;
};

// Applies every window's writes to GM in (time, core, order) order and empties the logs.
void commit_gm(GlobalMemory& gm, std::vector<GmWindow*>& windows);

}  // namespace cubekit
