// What cores share: GM, the L2 in front of it, and HBM bandwidth.
//
// Cores are simulated in windows of `window_cycles`, possibly on several host threads. During a
// window a core sees the shared state as it was when the window began, plus its own effects:
//   - GM: its writes and atomic adds go to a private log, which its own later reads overlay;
//   - L2: a line is a hit if it was in L2 at the window's start or this core touched it since;
//   - HBM: its share of bandwidth is the chip's rate over the cores that used HBM last window.
// At the window's end the logs are applied in (time, core, order) order and the L2 is updated
// with every line touched, least recently used lines evicted. Nothing a core computes depends on
// how cores are spread over threads, so results and cycles are identical for any thread count.
#pragma once

#include "emulator/chip_config.h"
#include "emulator/isa.h"
#include "emulator/memory.h"

#include <cstdint>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace cubekit {

// One GM effect waiting for the end of the window.
struct GmWrite {
  uint64_t time = 0;
  int core = 0;
  uint64_t seq = 0;
  Region region;                 // where (space GM, tensor)
  std::vector<uint8_t> data;     // the chunks' bytes, packed in region order
  std::optional<DType> atomic;   // add instead of store
};

struct L2Stats {
  int64_t hit_lines = 0, miss_lines = 0;
  int64_t hbm_read_bytes = 0, hbm_write_bytes = 0;
};

class SharedMemory {
 public:
  SharedMemory(const ChipConfig& chip, GlobalMemory& gm);

  const ChipConfig& chip() const { return chip_; }
  GlobalMemory& gm() { return gm_; }
  bool in_l2(uint64_t line) const { return l2_.count(line) != 0; }
  double hbm_share() const;  // bytes per cycle one core may pull from HBM this window

  // End of a window: applies every core's GM log and L2 touches, deterministically.
  struct CoreWindow {
    std::vector<GmWrite> writes;
    std::vector<std::pair<uint64_t, uint64_t>> touches;  // (time, line)
    bool used_hbm = false;
  };
  void commit(std::vector<CoreWindow*>& windows);

 private:
  void touch(uint64_t line, uint64_t time);

  const ChipConfig& chip_;
  GlobalMemory& gm_;
  std::unordered_map<uint64_t, uint64_t> l2_;   // line -> last use
  std::set<std::pair<uint64_t, uint64_t>> lru_;  // (last use, line)
  size_t capacity_lines_;
  int hbm_users_ = 1;
};

// A core's view of the shared memory during one window.
class CoreMemoryView {
 public:
  CoreMemoryView(SharedMemory& shared, int core) : shared_(shared), core_(core) {}

  // Cost of moving an instruction's GM regions, and the L2 bookkeeping for them.
  struct GmCost {
    int64_t latency = 0, occupancy = 0;
  };
  GmCost read_cost(const Footprint& fp, uint64_t time, int64_t requested_bytes, L2Stats& stats);
  GmCost write_cost(const Footprint& fp, uint64_t time, int64_t bytes, L2Stats& stats);

  // Functional GM access: reads see committed GM plus this core's pending writes; writes and
  // atomic adds are logged. `stage` copies the bytes [lo, hi) of a tensor as this core sees them.
  void stage(int tensor, int64_t lo, int64_t hi, std::vector<uint8_t>& out) const;
  // Logs the bytes of region r from `staged`, which holds the tensor's bytes from offset `lo`;
  // with `atomic` they are increments to add at commit.
  void log_write(const Region& r, const uint8_t* staged, int64_t lo, uint64_t time, std::optional<DType> atomic);

  SharedMemory::CoreWindow& window() { return window_; }
  void clear_window() { window_ = {}; local_lines_.clear(); }

 private:
  uint64_t line_of(int tensor, int64_t offset) const;
  void lines_of(const Region& r, std::vector<uint64_t>& out) const;

  SharedMemory& shared_;
  int core_;
  uint64_t seq_ = 0;
  SharedMemory::CoreWindow window_;
  std::unordered_set<uint64_t> local_lines_;
};

// Applies one logged write to bytes laid out from tensor offset `base_offset` (GM itself, or a
// staged copy); only the part inside [lo, hi) is touched.
void apply_write(const GmWrite& w, uint8_t* dst, int64_t base_offset, int64_t lo, int64_t hi);

}  // namespace cubekit
