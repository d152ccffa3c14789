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
  int64_t at = 0;              // where in its window's log the region's chunks are, packed in order
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
  const std::vector<GmWrite>& writes() const { return writes_; }
  const uint8_t* bytes(const GmWrite& w) const { return log_.data() + w.at; }
  void clear() { writes_.clear(), log_.clear(); }  // the log's memory kept for the next window

 private:
  const GlobalMemory& gm_;
  int core_;
  uint64_t seq_ = 0;
  std::vector<GmWrite> writes_;
  std::vector<uint8_t> log_;  // the writes' bytes: one buffer reused window after window, not one allocation a write
};

// Applies every window's writes to GM in (time, core, order) order and empties the logs.
void commit_gm(GlobalMemory& gm, std::vector<GmWindow*>& windows);

}  // namespace cubekit
