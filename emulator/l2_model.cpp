#include "emulator/l2_model.h"

#include "emulator/arith.h"
#include "emulator/error.h"
#include "emulator/memory.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace cubekit {

struct L2Model::Layout {
  std::vector<uint64_t> first_line;  // per tensor
  size_t lines = 0, held = 0;        // line ids; slots (L2 never holds more lines than the tensors have)
  size_t lines_at = 0, ages_at = 0, bytes = 0;  // slot_ from 0
};

L2Model::Layout L2Model::layout(const ChipConfig& chip, const std::vector<TensorDecl>& tensors) {
  const TimingConfig& t = chip.timing;
  const size_t capacity = size_t(t.l2_bytes / t.l2_line_bytes);
  CUBEKIT_ASSERT(capacity > 0, "an L2 of no lines (check_chip refuses l2_bytes below l2_line_bytes)");
  Layout l;
  for (const TensorDecl& d : tensors) {
    l.first_line.push_back(l.lines);
    l.lines += size_t(cdiv(d.bytes(), int64_t(t.l2_line_bytes)));
  }
  // A small run's L2 state is small, not L2-sized.
  l.held = std::min(capacity, l.lines);
  l.lines_at = size_t(round_up(int64_t(l.lines * sizeof(int32_t)), 64));
  l.ages_at = l.lines_at + l.held * sizeof(Line);
  l.bytes = l.ages_at + l.held * sizeof(Age);
  return l;
}

size_t L2Model::state_bytes(const ChipConfig& chip, const std::vector<TensorDecl>& tensors) {
  return layout(chip, tensors).bytes;
}

namespace {
ZeroedBytes own_state(size_t bytes) { return ZeroedBytes(bytes, bytes >= kHugePage / 8); }
}  // namespace

L2Model::L2Model(const ChipConfig& chip, const std::vector<TensorDecl>& tensors)
    : L2Model(chip, tensors, own_state(state_bytes(chip, tensors))) {}

L2Model::L2Model(const ChipConfig& chip, const std::vector<TensorDecl>& tensors, ZeroedBytes state)
    : t_(chip.timing), state_(std::move(state)), capacity_(size_t(chip.timing.l2_bytes / chip.timing.l2_line_bytes)) {
  Layout l = layout(chip, tensors);
  CUBEKIT_ASSERT(state_.size() >= l.bytes, "the L2 model's state needs {} bytes, given {}", l.bytes, state_.size());
  first_line_ = std::move(l.first_line);
  slot_ = ZeroedArray<int32_t>::in(state_, 0, l.lines);
  lines_ = ZeroedArray<Line>::in(state_, l.lines_at, l.held);
  ages_ = ZeroedArray<Age>::in(state_, l.ages_at, l.held);
  if (std::has_single_bit(capacity_)) capacity_mask_ = capacity_ - 1;
  two_candidates_ = t_.l2_replacement_candidates == 2;
}

// find, victim and insert run for every line a request visits: inlined, they took 8% less of a
// timing-only add of 4096^2's simulation than as calls (sim_bench BM_TimingOnly_Add4096).
[[gnu::always_inline]] inline int32_t L2Model::find(uint64_t key, const Request& r) {
  const int32_t s = r.slot[key];  // slot + 1; 0 never in L2; kDeferred (negative) resolved before any find
  return s > 0 && r.lines[s - 1].key == key ? s - 1 : -1;
}

// The ring filled up with the sequence's next slots, each line prefetched: drawn in a loop of
// their own, apart from the evictions that take them. With victim()'s choice between two
// candidates made without a branch, the simulation of a timing-only add of 4096^2 took 3.0 ms for
// 3.4 (sim_bench BM_TimingOnly_Add4096, best of 8 alternating runs); either change alone gained
// nothing, and matmul's requests (mostly hits) kept their time.
L2Model::Drawn L2Model::draw_ahead(Drawn d, uint64_t next, size_t mask, const Age* ages, const Line* lines) {
  for (const uint64_t stop = next + kRing; d.end < stop; ++d.end) {
    const uint64_t x = splitmix64(d.random);
    const size_t slot = size_t(mask ? x & mask : x % capacity_);  // the same slot, without a division
    __builtin_prefetch(&ages[slot]);
    __builtin_prefetch(&lines[slot], 1);
    drawn_[d.end % kRing] = slot;
  }
  return d;
}

// Sampled LRU: the oldest of a few pseudo-random lines, never one the current request fetched
// (it is still in flight) while another can go.
[[gnu::always_inline]] inline size_t L2Model::victim(Request& r) {
  if (r.end - r.next < kAhead) {
    const Drawn d = draw_ahead({r.random, r.end}, r.next, r.mask, r.ages, r.lines);
    r.random = d.random, r.end = d.end;
  }
  const size_t n = r.used;
  const Age request = r.id;
  const Age* ages = r.ages;
  size_t best = n;
  if (r.two_candidates) {  // the 910's: without the loop's set-up a line
    const size_t a = r.drawn[r.next % kRing], b = r.drawn[(r.next + 1) % kRing];
    r.next += 2;
    const Age age_a = ages[a], age_b = ages[b];
    // Without a branch on which is older: a coin toss the host's branch predictor lost half the
    // time, about 15 cycles each (the request's own lines are rare among the candidates).
    const bool a_free = age_a != request, take_b = age_b != request && (!a_free || age_b < age_a);
    best = a ^ ((a ^ b) & -size_t(take_b));
    if (!a_free && !take_b) best = n;
  } else {
    for (int k = 0, candidates = t_.l2_replacement_candidates; k < candidates; ++k) {
      const size_t i = r.drawn[r.next++ % kRing];
      if (ages[i] != request && (best == n || ages[i] < ages[best])) best = i;
    }
  }
  if (best == n) [[unlikely]] {  // every candidate was this request's: walk on from another
    const size_t start = r.drawn[r.next++ % kRing];
    best = start;  // unless one request is larger than L2: it evicts its own lines
    for (size_t k = 0; k < n; ++k)
      if (ages[(start + k) % n] != request) {
        best = (start + k) % n;
        break;
      }
  }
  return best;
}

[[gnu::always_inline]] inline int32_t L2Model::insert(uint64_t key, uint64_t ready, Request& r) {
  // Full from the first eviction on; the evicted line's slot_ entry stays (find() sees that the
  // slot holds another line).
  const size_t i = r.used < r.capacity ? r.used++ : victim(r);
  r.lines[i] = {key, ready, 0};
  r.ages[i] = r.id;
  r.slot[key] = int32_t(i) + 1;
  return int32_t(i);
}

template <class F>
void L2Model::for_each_line(const Footprint& fp, bool writes, F f) const {
  const int shift = std::countr_zero(uint64_t(t_.l2_line_bytes));  // a power of two (chip_config checks)
  for (int k = 0; k < fp.count; ++k) {
    const Region& r = fp.regions[k];
    if (r.space != Space::GM || r.write != writes) continue;
    const uint64_t first = first_line_[r.tensor];
    for (int64_t j = 0; j < r.n2; ++j)
      for (int64_t i = 0; i < r.n1; ++i) {
        int64_t start = r.base + i * r.s1 + j * r.s2;
        for (int64_t l = start >> shift, last = (start + r.bytes - 1) >> shift; l <= last; ++l) f(first + uint64_t(l), r.bytes);
      }
  }
}

template <class F>
void L2Model::for_each_written_sector(const Footprint& fp, F f) const {
  // Lines and sectors are powers of two (chip_config checks the line): shifts, not divisions.
  const int64_t line = t_.l2_line_bytes, sector = std::max<int64_t>(1, line / 64);
  const int line_shift = std::countr_zero(uint64_t(line)), sector_shift = std::countr_zero(uint64_t(sector));
  const int64_t whole = line >> sector_shift;  // the sectors of a line
  const uint64_t all = whole >= 64 ? ~0ull : (1ull << whole) - 1;
  for (int k = 0; k < fp.count; ++k) {
    const Region& r = fp.regions[k];
    if (r.space != Space::GM || !r.write || r.bytes <= 0) continue;
    const uint64_t first = first_line_[r.tensor];
    for (int64_t j = 0; j < r.n2; ++j)
      for (int64_t i = 0; i < r.n1; ++i) {
        const int64_t start = r.base + i * r.s1 + j * r.s2, end = start + r.bytes;
        for (int64_t l = start >> line_shift; (l << line_shift) < end; ++l) {
          const int64_t at = l << line_shift;
          uint64_t mask = all;  // a whole line, the run's middle
          int64_t n = whole;
          if (at < start || at + line > end) {
            const int64_t lo = std::max(start, at) - at, hi = std::min(end, at + line) - at;
            const int64_t s0 = lo >> sector_shift, s1 = (hi + sector - 1) >> sector_shift;  // sectors [s0, s1)
            n = s1 - s0;
            mask = (n >= 64 ? ~0ull : ((1ull << n) - 1)) << s0;
          }
          f(first + uint64_t(l), mask, n);
        }
      }
  }
}

namespace {
// Calls f(start, end) for each contiguous run of a region's bytes, in order, while f returns true.
template <class F>
bool each_run(const Region& r, F f) {
  for (int64_t j = 0; j < r.n2; ++j)
    for (int64_t i = 0; i < r.n1; ++i) {
      const int64_t start = r.base + i * r.s1 + j * r.s2;
      if (!f(start, start + r.bytes)) return false;
    }
  return true;
}
}  // namespace

bool L2Model::defer(const Footprint& fp, bool writes, NewLines& n) {
  if (!defer_) return false;
  if (paused_) {
    --paused_;
    return false;
  }
  if (deferred_regions_.size() >= kMaxDeferredRegions) resolve();
  const int shift = std::countr_zero(uint64_t(t_.l2_line_bytes));
  const int sector_shift = std::countr_zero(uint64_t(std::max<int64_t>(1, t_.l2_line_bytes / 64)));
  int32_t* slot = &slot_[0];
  const size_t begin = deferred_regions_.size();
  for (int k = 0; k < fp.count; ++k) {
    const Region& r = fp.regions[k];  // bytes > 0 (Footprint::add drops empty regions)
    if (r.space != Space::GM || r.write != writes) continue;
    const uint64_t first = first_line_[r.tensor];
    const int64_t lines_before = n.lines;
    int64_t runs = 0;
    // Each run checked and then marked: a line the request touches twice is then not new to its
    // second run.
    const bool all_new = each_run(r, [&](int64_t start, int64_t end) {
      int32_t* lo = slot + first + uint64_t(start >> shift);
      int32_t* hi = slot + first + uint64_t((end - 1) >> shift) + 1;
      int32_t seen = 0;  // an OR of the run's slots, not a search: a loop the compiler vectorises
      for (const int32_t* p = lo; p < hi; ++p) seen |= *p;
      if (seen) return false;
      std::fill(lo, hi, kDeferred);
      ++runs;
      n.lines += hi - lo;
      // The sectors of [start, end) in every line, for_each_written_sector's counts summed: a sector
      // never straddles two lines (both powers of two, the line the larger).
      n.sectors += ((end - 1) >> sector_shift) - (start >> sector_shift) + 1;
      return true;
    });
    if (!all_new) return unmark(begin, r, runs);
    if (r.bytes < t_.hbm_page_bytes) n.scattered += n.lines - lines_before;
    deferred_regions_.push_back(r);
  }
  return true;
}

bool L2Model::unmark(size_t begin, const Region& partial, int64_t runs) {
  const int shift = std::countr_zero(uint64_t(t_.l2_line_bytes));
  int32_t* slot = &slot_[0];
  auto undo = [&](const Region& s, int64_t limit) {
    const uint64_t first = first_line_[s.tensor];
    each_run(s, [&](int64_t start, int64_t end) {
      if (limit-- == 0) return false;
      std::fill(slot + first + uint64_t(start >> shift), slot + first + uint64_t((end - 1) >> shift) + 1, 0);
      return true;
    });
  };
  for (size_t k = begin; k < deferred_regions_.size(); ++k) undo(deferred_regions_[k], INT64_MAX);
  undo(partial, runs);
  deferred_regions_.resize(begin);
  return false;
}

// A request touched lines L2 has seen, so the deferred ones are replayed: deferring them cost the
// marks and the log and saved nothing. A kernel that comes back to its lines (a GEMM rereads its
// panels) will again: the next requests are not deferred, twice as many each come-back. A streaming
// kernel never comes back and defers every request. Deferring whenever it could, a timing-only
// matmul of 1024^3 ran 3% more host instructions than deferring nothing; paused, 1% more.
void L2Model::come_back() {
  if (deferred_.empty()) return;
  pause_ = never_pause_ ? 0 : std::min<uint32_t>(pause_ ? 2 * pause_ : kFirstPause, kMaxPause);
  paused_ = pause_;
  resolve();
}

// What read() and write() would have done to the replacement's state for each deferred request,
// now: the same slots in the same order, so the same victims and the same pseudo-random draws.
void L2Model::resolve() {
  if (deferred_.empty()) return;
  Request r = state(0);
  size_t k = 0;
  for (const Deferred& d : deferred_) {
    r.id = d.id;
    // read()'s arrivals: the i-th missed line ceil(fill (i + 1) / misses) after `arrive`.
    const uint64_t m = std::max<uint64_t>(d.misses, 1), step = d.fill / m, rest = d.fill % m;
    uint64_t quotient = 0, remainder = 0;
    for (; k < d.regions_end; ++k) {
      Footprint fp;
      fp.add(deferred_regions_[k]);
      if (d.write) {
        for_each_written_sector(fp, [&](uint64_t key, uint64_t mask, int64_t) {
          r.lines[insert(key, d.arrive, r)].dirty = mask;  // a new line: the sectors written are its dirty ones
        });
        continue;
      }
      for_each_line(fp, false, [&](uint64_t key, int64_t) {
        quotient += step, remainder += rest;
        if (remainder >= m) ++quotient, remainder -= m;
        insert(key, d.arrive + quotient + (remainder != 0), r);
      });
    }
  }
  end_request(r);
  deferred_.clear();
  deferred_regions_.clear();
}

void L2Model::renumber_ages() {
  std::vector<Age> order(&ages_[0], &ages_[0] + used_);
  std::sort(order.begin(), order.end());
  order.erase(std::unique(order.begin(), order.end()), order.end());
  for (size_t i = 0; i < used_; ++i) ages_[i] = Age(std::lower_bound(order.begin(), order.end(), ages_[i]) - order.begin() + 1);
  request_ = Age(order.size());
}

uint64_t L2Model::reserve_hbm(uint64_t time, int64_t bytes, bool write, int64_t scattered) {
  // Turning between reads and writes idles HBM; a turn during idle time costs nothing extra.
  double free = hbm_free_ + (write != hbm_writing_ ? double(t_.hbm_turnaround_cycles) : 0);
  double start = std::max(double(time), free);
  double busy = double(bytes - scattered) + double(scattered) / t_.hbm_scattered_efficiency;
  hbm_free_ = start + busy / (t_.hbm_rate * t_.hbm_efficiency);
  hbm_writing_ = write;
  return uint64_t(std::ceil(hbm_free_));
}

uint64_t L2Model::reserve_l2(CoreKind port, uint64_t time, double bytes) {
  double& free = l2_free_[int(port)];
  free = std::max(double(time), free) + bytes / t_.l2_rate;
  return uint64_t(std::ceil(free));
}

L2Model::Cost L2Model::read(const Footprint& fp, uint64_t time, int64_t requested_bytes, double rate, double efficiency,
                            L2Counts& counts, CoreKind port) {
  const Age id = next_request();
  missed_.clear();
  // Counted in locals: the loop's stores to lines_ might alias members.
  int64_t hits = 0, merged = 0, scattered = 0, misses = 0;
  const int64_t page = t_.hbm_page_bytes;
  uint64_t data_ready = time;  // when the last line this read shares with an earlier fill arrives
  NewLines fresh;
  const bool deferred = defer(fp, false, fresh);
  if (deferred) {  // every line a miss, its slot chosen later
    misses = fresh.lines;
    scattered = fresh.scattered;
  } else {
    come_back();
    Request request = state(id);
    for_each_line(fp, false, [&](uint64_t key, int64_t run) {
      int32_t i = find(key, request);
      if (i < 0) {  // a miss: fetched by this request, its arrival time set below
        missed_.push_back(insert(key, UINT64_MAX, request));
        scattered += run < page;
        return;
      }
      if (request.ages[i] == request.id) return;  // seen already in this request
      request.ages[i] = request.id;
      const uint64_t ready = request.lines[i].ready;
      const bool in_flight = ready > time;  // a fill in flight: wait for it (counted without a branch)
      merged += in_flight, hits += !in_flight;
      data_ready = std::max(data_ready, ready);
    });
    end_request(request);
    misses = int64_t(missed_.size());
  }
  const int64_t miss_bytes = misses * t_.l2_line_bytes;
  counts.hit_lines += hits;
  counts.merged_lines += merged;
  counts.miss_lines += misses;
  counts.hbm_read_bytes += miss_bytes;
  // This core moves the share in L2 at the L2 rate and the missed lines at its own HBM rate; the
  // L2 share also queues at L2's port, the missed lines at HBM, behind every other core's.
  const int64_t present = hits + merged;
  double total = double(std::max<int64_t>(1, present + misses));
  double l2_bytes = double(requested_bytes) * double(present) / total;
  double occupancy = (l2_bytes / rate + double(miss_bytes) / t_.gm_read_hbm_rate) / efficiency;
  if (present) occupancy = std::max(occupancy, double(reserve_l2(port, time, l2_bytes) - time));
  double fill = 0;  // how long HBM takes to deliver this read's missed lines into L2
  if (misses)
    fill = double(reserve_hbm(time, miss_bytes, false, scattered * t_.l2_line_bytes) - time),
    occupancy = std::max(occupancy, fill);
  int64_t latency = misses ? t_.l2_miss_latency : t_.l2_hit_latency;
  // Shared lines cannot arrive before the fill that brings them.
  occupancy = std::max(occupancy, double(data_ready) - double(time + uint64_t(latency)));
  // The lines this read fetches arrive in L2 one after another as HBM delivers them: a core that
  // merges with the fill waits for that, not for the requester's own (slower) share of HBM. Line
  // i arrives ceil(fill (i + 1) / misses) after the latency: fill is whole cycles, so that is
  // kept as a quotient and remainder, without a division a line.
  const uint64_t whole = uint64_t(fill), m = uint64_t(std::max<int64_t>(misses, 1)), step = whole / m, rest = whole % m;
  if (deferred) {
    deferred_.push_back({time + uint64_t(latency), whole, m, deferred_regions_.size(), id, false});
    return {latency, std::max<int64_t>(1, int64_t(std::ceil(occupancy)))};
  }
  uint64_t quotient = 0, remainder = 0;
  const int32_t* missed = missed_.data();  // in a local: the stores to lines might alias missed_'s pointer
  Line* lines = &lines_[0];
  for (int64_t i = 0; i < misses; ++i) {
    quotient += step, remainder += rest;
    if (remainder >= m) ++quotient, remainder -= m;
    lines[missed[i]].ready = time + uint64_t(latency) + quotient + (remainder != 0);
  }
  return {latency, std::max<int64_t>(1, int64_t(std::ceil(occupancy)))};
}

L2Model::Cost L2Model::write(const Footprint& fp, uint64_t time, int64_t bytes, double rate, double efficiency,
                             L2Counts& counts) {
  const Age id = next_request();
  // The write-back is this write's bytes in the share of its sectors that were clean: all of them
  // for a first write, none for a rewrite of lines still in L2.
  int64_t sectors = 0, fresh = 0;
  NewLines written;
  if (defer(fp, true, written)) {  // new lines: every sector clean
    sectors = fresh = written.sectors;
    deferred_.push_back({time, 0, 0, deferred_regions_.size(), id, true});
  } else {
    come_back();
    Request request = state(id);
    for_each_written_sector(fp, [&](uint64_t key, uint64_t mask, int64_t n) {
      int32_t i = find(key, request);
      if (i < 0) i = insert(key, time, request);
      const Line& l = request.lines[i];
      request.ages[i] = request.id;
      sectors += n;
      // Against the lines as they were before this write. Counted only where the sectors are partly
      // dirty: the host's baseline x86-64 has no popcount instruction (a library call a line).
      const uint64_t clean = mask & ~l.dirty;
      fresh += clean == mask ? n : clean ? std::popcount(clean) : 0;
      written_.push_back({i, mask});
    });
    end_request(request);
    for (auto [i, mask] : written_) request.lines[i].dirty |= mask;
    written_.clear();
  }
  const int64_t write_back = sectors ? int64_t(std::llround(double(bytes) * double(fresh) / double(sectors))) : 0;
  counts.hbm_write_bytes += write_back;
  if (write_back) reserve_hbm(time, write_back, true);  // the write-back competes with everyone's misses
  double occupancy = double(bytes) / rate / efficiency;
  return {t_.gm_write_latency, std::max<int64_t>(1, int64_t(std::ceil(occupancy)))};
}

}  // namespace cubekit
