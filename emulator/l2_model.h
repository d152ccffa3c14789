// The memory system the cores share in the timing model: a line-granular L2 with LRU
// replacement in front of HBM, modelled in simulated-time order (one thread, so deterministic).
//
// Replacement is CLOCK (second chance), the pseudo-LRU of real caches: a hit sets the line's
// referenced bit; a miss in a full L2 evicts the first line the clock hand finds unreferenced.
// A read of a line that is in L2 is a hit; a read of a line being filled (another core missed it
// a moment ago) merges with that fill: it waits for the data but costs HBM nothing; any other read
// misses, fetches the line from HBM and makes it present once the fill completes. HBM is one
// server shared by all cores: each missed line occupies it for line_bytes / hbm_rate cycles, so
// cores that all stream compete, while cores that read the same panels share them.
// Writes allocate their lines in L2 and occupy HBM for their write-back.
#pragma once

#include "emulator/chip_config.h"
#include "emulator/isa.h"
#include "emulator/program.h"

#include <cstdint>
#include <vector>

namespace cubekit {

struct L2Counts {
  int64_t hit_lines = 0, miss_lines = 0, hbm_read_bytes = 0, hbm_write_bytes = 0;
};

class L2Model {
 public:
  L2Model(const ChipConfig& chip, const std::vector<TensorDecl>& tensors);

  struct Cost {
    int64_t latency = 0, occupancy = 0;
  };
  // The cost of the GM reads (or writes) of one instruction that starts at `time`, over a core's
  // path of `rate` (its port to L2: hits and writes at that rate, CoreConfig::paths).
  Cost read(const Footprint& fp, uint64_t time, int64_t requested_bytes, double l2_rate, L2Counts& counts);
  Cost write(const Footprint& fp, uint64_t time, int64_t bytes, double rate, L2Counts& counts);

 private:
  struct Line {
    uint64_t key;
    uint64_t ready;      // when its data is in L2
    uint64_t request;    // the last request that visited it (so a request counts it once)
    bool referenced;
  };
  // Calls f(line id) for every line the GM regions of one direction touch (a line may repeat).
  template <class F>
  void for_each_line(const Footprint& fp, bool writes, F f) const;
  int32_t insert(uint64_t key, uint64_t ready);  // its slot; evicts a line when L2 is full
  uint64_t reserve_hbm(uint64_t time, int64_t bytes);  // when a transfer of `bytes` starting at `time` ends

  const TimingConfig& t_;
  std::vector<uint64_t> first_line_;  // per tensor: the id of its first line (lines are numbered densely)
  std::vector<int32_t> index_;        // per line id: its slot in lines_, -1 when not in L2
  std::vector<Line> lines_;
  size_t hand_ = 0;                   // the clock hand
  size_t capacity_;
  double hbm_free_ = 0;  // when HBM can start the next transfer
  std::vector<int32_t> missed_;  // slots of the lines the current request fetches
  uint64_t request_ = 0;
};

}  // namespace cubekit
