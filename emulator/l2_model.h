// The memory system the cores share in the timing model: a line-granular L2 with LRU
// replacement in front of HBM, modelled in simulated-time order (one thread, so deterministic).
//
// A read of a line that is in L2 is a hit; a read of a line being filled (another core missed it
// a moment ago) merges with that fill: it waits for the data but costs HBM nothing; any other read
// misses, fetches the line from HBM and makes it present once the fill completes. HBM is one
// server shared by all cores: each missed line occupies it for line_bytes / hbm_rate cycles, so
// cores that all stream compete, while cores that read the same panels share them.
// Writes allocate their lines in L2 and occupy HBM for their write-back.
#pragma once

#include "emulator/chip_config.h"
#include "emulator/isa.h"

#include <cstdint>
#include <set>
#include <unordered_map>
#include <vector>

namespace cubekit {

struct L2Counts {
  int64_t hit_lines = 0, miss_lines = 0, hbm_read_bytes = 0, hbm_write_bytes = 0;
};

class L2Model {
 public:
  explicit L2Model(const ChipConfig& chip);

  struct Cost {
    int64_t latency = 0, occupancy = 0;
  };
  // The cost of the GM reads (or writes) of one instruction that starts at `time`.
  Cost read(const Footprint& fp, uint64_t time, int64_t requested_bytes, L2Counts& counts);
  Cost write(const Footprint& fp, uint64_t time, int64_t bytes, L2Counts& counts);

 private:
  struct Line {
    uint64_t ready;     // when its data is in L2
    uint64_t last_use;  // for LRU
  };
  void lines_of(const Footprint& fp, bool writes, std::vector<uint64_t>& out) const;
  void use(uint64_t line, Line& l, uint64_t time);
  void evict_if_full();
  uint64_t reserve_hbm(uint64_t time, int64_t bytes);  // when a transfer of `bytes` starting at `time` ends

  const TimingConfig& t_;
  std::unordered_map<uint64_t, Line> lines_;
  std::set<std::pair<uint64_t, uint64_t>> lru_;  // (last use, line)
  size_t capacity_;
  double hbm_free_ = 0;  // when HBM can start the next transfer
};

}  // namespace cubekit
