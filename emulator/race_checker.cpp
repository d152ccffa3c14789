#include "emulator/race_checker.h"

#include "emulator/cross_core.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <limits>

namespace cubekit {

namespace {

std::string describe(const Program& p, const Access& a) {
  std::string text = a.index >= 0 && a.index < int(p.code.size()) ? print_instr(p, p.code[a.index]) : "?";
  uint32_t line = a.index >= 0 && a.index < int(p.code.size()) ? p.code[a.index].line : 0;
  return line ? fmt::format("`{}` (instruction {}, line {}, pipe {})", text, a.index, line, pipe_name(Pipe(a.pipe)))
              : fmt::format("`{}` (instruction {}, pipe {})", text, a.index, pipe_name(Pipe(a.pipe)));
}

bool happened_before(const Access& a, const Clock& known) { return known[a.pipe] >= a.epoch; }

// Coalesces consecutive intervals with the same conflict into one byte range before reporting.
class Pending {
 public:
  template <class Flush>
  void add(const Access& other, int kind, int64_t lo, int64_t hi, Flush flush) {
    if (active_ && other.index == other_.index && other.pipe == other_.pipe && other.block == other_.block &&
        kind == kind_ && lo <= hi_) {
      hi_ = std::max(hi_, hi);
      return;
    }
    done(flush);
    active_ = true, other_ = other, kind_ = kind, lo_ = lo, hi_ = hi;
  }
  template <class Flush>
  void done(Flush flush) {
    if (active_) flush(other_, kind_, lo_, hi_);
    active_ = false;
  }

 private:
  bool active_ = false;
  Access other_;
  int kind_ = 0;
  int64_t lo_ = 0, hi_ = 0;
};

// kWarEarly: a read of bytes nothing had written yet, then another unit's write of them: the read
// was meant to come after the write (a hand-off whose wait is missing), not before it.
enum ConflictKind { kWaw, kWar, kRaw, kUninit, kWarEarly };

}  // namespace

// ---- knowledge of other units ----------------------------------------------------------------------------------

Knowledge merge_knowledge(const Knowledge& a, const Knowledge& b) {
  if (!b || b->empty() || a == b) return a;
  if (!a || a->empty()) return b;
  auto out = std::make_shared<std::vector<UnitClock>>();
  out->reserve(a->size() + b->size());
  auto i = a->begin(), j = b->begin();
  bool grew = false;  // b adds something a lacks: otherwise a itself is the answer
  while (i != a->end() || j != b->end()) {
    if (j == b->end() || (i != a->end() && i->unit < j->unit)) {
      out->push_back(*i++);
    } else if (i == a->end() || j->unit < i->unit) {
      out->push_back(*j++), grew = true;
    } else {
      UnitClock m = *i;
      for (int p = 0; p < kNumPipes; ++p) {
        grew |= j->clock[p] > m.clock[p];
        m.clock[p] = std::max(m.clock[p], j->clock[p]);
      }
      out->push_back(m), ++i, ++j;
    }
  }
  if (!grew) return a;
  return out;
}

Knowledge with_unit_clock(const Knowledge& a, int32_t unit, const Clock& clock) {
  auto one = std::make_shared<std::vector<UnitClock>>(1, UnitClock{unit, clock});
  return merge_knowledge(a, one);
}

const Clock* find_unit_clock(const Knowledge& k, int32_t unit) {
  if (!k) return nullptr;
  auto it = std::lower_bound(k->begin(), k->end(), unit, [](const UnitClock& c, int32_t u) { return c.unit < u; });
  return it != k->end() && it->unit == unit ? &it->clock : nullptr;
}

namespace {

// How two cores of one block are ordered: the cross-core flag mode that joins their kinds and
// groups (cross_core.h), or, for the two AIVs of a group, each its own part of the buffer.
std::string cross_core_fix(const CrossTopology* topology, const Access& earlier, const Access& later,
                           std::string_view buffer, std::string_view first = "the first",
                           std::string_view second = "the second") {
  const std::string set = fmt::format("`set_cross {}, mode={{}}, id=N` after {} on core {}", pipe_name(Pipe(earlier.pipe)),
                                      first, earlier.core);
  const std::string wait = fmt::format("`wait_cross {}, id=N` before {} on core {}", pipe_name(Pipe(later.pipe)), second,
                                       later.core);
  const std::string order = fmt::format("cores {} and {} run in no fixed order: ", earlier.core, later.core);
  const bool known = topology && earlier.core >= 0 && later.core >= 0 && size_t(std::max(earlier.core, later.core)) < topology->cores.size();
  if (!known)
    return order + fmt::format(fmt::runtime(set), "M") + " and " + wait + " (mode 2 between an AIC and its AIVs, 1 between "
           "the two AIVs of a group, 0 among all cores of one kind)";
  const CrossTopology::Core &a = topology->cores[size_t(earlier.core)], &b = topology->cores[size_t(later.core)];
  if (a.role == CrossRole::Aiv && b.role == CrossRole::Aiv && a.group == b.group)
    return order + fmt::format("they are the two AIVs of group {}: give each its own part of {}, "
                               "or order them by a mode-1 round: ", a.group, buffer) +
           fmt::format(fmt::runtime(set), 1) + " and on its partner, then " + wait;
  if (a.group == b.group)  // an AIC and an AIV of its group
    return order + fmt::format(fmt::runtime(set), 2) + " and " + wait + fmt::format(" (mode 2: the AIC and the AIVs of group {})", a.group);
  if (a.role == b.role)
    return order + fmt::format("give each its own part of {}, or order them by a mode-0 round of every {}: ", buffer,
                               cross_role_name(a.role)) +
           fmt::format(fmt::runtime(set), 0) + " and on every other " + std::string(cross_role_name(a.role)) + ", then " + wait;
  return order + fmt::format("an {} of group {} and an {} of group {} share no cross-core flag: order them through their "
                             "groups (mode 2) and a mode-0 round of one kind, or give each its own part of {}",
                             cross_role_name(a.role), a.group, cross_role_name(b.role), b.group, buffer);
}

}  // namespace

namespace {

// Whether two accesses ran on different cores of one group (an AIC and its AIVs, or the two AIVs)
// of a mixed launch, which run the same blocks in the same sequence (in a launch of one kind each
// core runs blocks of its own, and block order says nothing of which access was meant first).
bool partners_in_one_group(const CrossTopology* topology, const Access& a, const Access& b) {
  if (!topology || !topology->blocks_shared || a.core == b.core || a.core < 0 || b.core < 0) return false;
  if (size_t(std::max(a.core, b.core)) >= topology->cores.size()) return false;
  return topology->cores[size_t(a.core)].group == topology->cores[size_t(b.core)].group;
}

// `first` ran first in simulated time; a race's report speaks of the order the program means,
// where the fix goes: program order within a unit, and between the cores of a group, which take
// their blocks in the same sequence, block order (a cube core's write for block 32 that lands while
// its vector core still reads block 0's data overwrote it too early, whatever the times say).
// Whether that order puts `second` first.
bool told_in_reverse(const CrossTopology* topology, const Access& first, const Access& second) {
  return first.unit == second.unit ? second.order < first.order
                                   : partners_in_one_group(topology, first, second) && second.block < first.block;
}

// What a shadow entry keeps of an earlier write `w` that `who`'s write replaces: `w` itself when
// nothing orders the two and the report's fix puts `who` first, so that the fix leaves `w`
// unordered with what later follows `who` alone; otherwise nothing (the fix orders `w` first).
bool keep_racing(const CrossTopology* topology, const Access& w, const Access& who, bool unordered) {
  return w.epoch && unordered && told_in_reverse(topology, w, who);
}

// The racing write (an id of `kept`) an entry keeps once `who` writes over its last write `last`,
// `racing` the one it kept so far; `unordered(w)`: nothing orders w before `who`.
template <class Unordered>
int32_t racing_after(RacingWrites& kept, const CrossTopology* topology, const Access& last, int32_t racing,
                     const Access& who, const Unordered& unordered) {
  if (keep_racing(topology, last, who, unordered(last))) return kept.keep(last);
  const Access* w = kept.get(racing);
  return w && keep_racing(topology, *w, who, unordered(*w)) ? racing : 0;
}

}  // namespace

void RaceReporter::race(const Access& first, const Access& second, bool first_writes, bool second_writes,
                        std::string_view buffer, int64_t lo, int64_t hi, uint64_t time, bool read_too_early) {
  const bool swap = told_in_reverse(topology, first, second);
  const Access& earlier = swap ? second : first;
  const Access& later = swap ? first : second;
  if (sink.repeat(Diagnostic::Kind::Race, later.index, earlier.index)) return;
  bool earlier_writes = swap ? second_writes : first_writes, later_writes = swap ? first_writes : second_writes;
  std::string fix;
  const bool cores = earlier.unit != later.unit && earlier.core != later.core;
  if (topology && cores && read_too_early && !earlier_writes && later_writes)  // the read meant to wait for the write
    fix = fmt::format("core {} read those bytes before anything wrote them, so it should wait for this write: ", earlier.core) +
          cross_core_fix(topology, later, earlier, buffer, "the write", "the read");
  else if (topology && cores)  // a split chip's cores, of one block or two: its cross-core flags can order them
    fix = cross_core_fix(topology, earlier, later, buffer);
  else if (earlier.block != later.block && earlier_writes && later_writes)
    fix = fmt::format("blocks {} and {} run in no fixed order: give each its own part of {}, or make both atomic adds",
                      earlier.block, later.block, buffer);
  else if (earlier.block != later.block)  // an atomic add orders writes with writes, not a read with them
    fix = fmt::format("blocks {} and {} run in no fixed order: a block may read only what no other block of the launch "
                      "writes; give each its own part of {}, or split the work into two launches",
                      earlier.block, later.block, buffer);
  else if (earlier.unit != later.unit && earlier.core != later.core)  // never advise flags from a core to itself
    fix = cross_core_fix(topology, earlier, later, buffer);
  else if (earlier.pipe == later.pipe)
    fix = fmt::format("instructions of one pipe may overlap: put `barrier {}` between them", pipe_name(Pipe(later.pipe)));
  else
    fix = fmt::format("add `set_flag {0}, {1}, ID` after the first and `wait_flag {0}, {1}, ID` before the second",
                      pipe_name(Pipe(earlier.pipe)), pipe_name(Pipe(later.pipe)));
  std::string blocks = earlier.block != later.block ? fmt::format(" in block {}", earlier.block) : "";
  if (cores) blocks += fmt::format(" on core {}", earlier.core);
  std::string here = earlier.block != later.block ? fmt::format(", block {}", later.block) : "";
  if (cores) here += fmt::format(", core {}", later.core);
  // Told in block order against the times: say when the earlier block's access came.
  std::string when = swap && first.unit != second.unit
                         ? fmt::format("at cycle {} block {}'s access came after block {}'s", time, earlier.block, later.block)
                         : fmt::format("cycle {}", time);
  std::string message = fmt::format("(pipe {}{}) {} {} bytes [{}, {}) that {}{} {}, and nothing orders them ({}); {}",
                                    pipe_name(Pipe(later.pipe)), here,
                                    later_writes ? "writes" : "reads", buffer, lo, hi, describe(program, earlier), blocks,
                                    earlier_writes ? "wrote" : "read", when, fix);
  uint32_t line = later.index >= 0 ? program.code[later.index].line : 0;
  // The core that ran the instruction the diagnostic names: on a partner's buffer (the 950's
  // FixPipe into a vector core's UB) that is not the core whose memory was checked.
  Diagnostic d{Diagnostic::Kind::Race, later.core, later.index, line, std::move(message)};
  d.other = earlier.index;
  sink.report(std::move(d));
}

void RaceReporter::uninitialised(const Access& reader, std::string_view buffer, int64_t lo, int64_t hi) {
  if (sink.repeat(Diagnostic::Kind::Uninitialized, reader.index, -1)) return;
  uint32_t line = reader.index >= 0 ? program.code[reader.index].line : 0;
  std::string what = reader.atomic
                         ? fmt::format("(pipe {}) adds atomically into {} bytes [{}, {}) that nothing has written (in block "
                                       "{}): the add reads what they hold; write them first (zeros, for a sum)",
                                       pipe_name(Pipe(reader.pipe)), buffer, lo, hi, reader.block)
                         : fmt::format("(pipe {}) reads {} bytes [{}, {}) that nothing has written (in block {})",
                                       pipe_name(Pipe(reader.pipe)), buffer, lo, hi, reader.block);
  sink.report({Diagnostic::Kind::Uninitialized, core, reader.index, line, std::move(what)});
}

LocalShadow::LocalShadow(const ChipConfig& chip) {
  for (int s = 1; s < kNumSpaces; ++s) shadow_[s].resize(chip.buffer_size(Space(s)));
}

void LocalShadow::start_block(uint32_t spaces, int32_t block) {
  for (int s = 1; s < kNumSpaces; ++s) {
    if (!(spaces >> s & 1) || shadow_[s].empty()) continue;
    shadow_[s].visit(0, std::numeric_limits<int64_t>::max(), [&](Entry& x, int64_t, int64_t) {
      const bool early_partner_write = x.written && x.write.block >= block;  // this core's own are older
      Entry fresh;
      if (early_partner_write) fresh.write = x.write, fresh.written = true;
      const Access* racing = racing_.get(x.racing);
      if (early_partner_write && racing && racing->block >= block) fresh.racing = x.racing;
      x = fresh;
    });
  }
}

namespace {

// Whether a read of some repeat of a vector instruction (Region::by_repeat) overlaps a write of an
// earlier repeat in the same buffer. An in-place operand (the same bytes read and written a repeat
// at a time) does not; a destination a repeat or more past its source (dst = src + rep) does.
bool reads_an_earlier_repeat(const Footprint& fp) {
  for (int i = 0; i < fp.count; ++i) {
    const Region& w = fp.regions[i];
    if (!w.write || !w.by_repeat || w.space == Space::GM) continue;
    for (int j = 0; j < fp.count; ++j) {
      const Region& r = fp.regions[j];
      if (r.write || !r.by_repeat || r.space != w.space || r.hi() <= w.lo() || w.hi() <= r.lo()) continue;
      const bool in_place = r.base == w.base && r.s2 == w.s2 && r.s1 == w.s1 && r.n1 == w.n1 && r.bytes == w.bytes &&
                            r.byte_mask == w.byte_mask &&
                            r.first_repeat == w.first_repeat;
      if (in_place) continue;
      for (int64_t a = 0; a < r.n2; ++a)  // read repeat r.first_repeat + a against each earlier write repeat
        for (int64_t b = 0; b < w.n2 && w.first_repeat + b < r.first_repeat + a; ++b) {
          const int64_t rlo = r.base + a * r.s2, rhi = rlo + (r.n1 - 1) * r.s1 + r.bytes;
          const int64_t wlo = w.base + b * w.s2, whi = wlo + (w.n1 - 1) * w.s1 + w.bytes;
          if (rlo < whi && wlo < rhi) return true;
        }
    }
  }
  return false;
}

}  // namespace

void LocalShadow::check(const Footprint& fp, const Access& who, const Clock& known, const Knowledge& remote,
                        uint32_t spaces, RaceReporter& out, uint64_t time) {
  // Whether `who` is known to follow an access of pipe `pipe`, epoch `epoch` of unit `unit` on
  // core `core`. A core runs its blocks one after another, each once the one before has drained:
  // in a core's buffers, an earlier block's access of the same core is over (on GM it is not: the
  // hardware may give the blocks to different cores).
  auto ordered = [&](int32_t unit, int core, int pipe, uint32_t epoch) {
    if (unit == who.unit) return known[size_t(pipe)] >= epoch;
    if (core == who.core && unit < who.unit) return true;  // units of a core are numbered in its order
    const Clock* c = find_unit_clock(remote, unit);
    return c && (*c)[size_t(pipe)] >= epoch;
  };
  // An instruction's regions are checked, then recorded: reads (each notes whether its bytes were
  // written), then writes. Where a region of it reads bytes another writes (vmla, an in-place
  // vadds), they are checked before either is recorded: recording the read first made it the
  // pipe's last read, which the write then skipped as its own, missing an earlier unordered read
  // of the same pipe. An in-place pair (a read and a write of the same bytes, the common case:
  // a softmax's vexp, an mmad's L0C) is done in one visit; other overlaps check every region
  // before recording any.
  enum Step { kCheck = 1, kRecord = 2, kBoth = 3 };
  // `r`, and with `in_place` the read of the same bytes r (a write) makes too.
  auto one = [&](const Region& r, int step, bool in_place) {
    if (r.space == Space::GM || !(spaces >> int(r.space) & 1)) return;
    std::string_view buffer = space_name(r.space);
    IntervalShadow<Entry>& shadow = shadow_[int(r.space)];
    Pending pending[2], uninit;  // by whether `who` writes
    auto flush_read = [&](const Access& other, int kind, int64_t lo, int64_t hi) {
      out.race(other, who, kind == kWaw || kind == kRaw, false, buffer, lo, hi, time, kind == kWarEarly);
    };
    auto flush_write = [&](const Access& other, int kind, int64_t lo, int64_t hi) {
      out.race(other, who, kind == kWaw || kind == kRaw, true, buffer, lo, hi, time, kind == kWarEarly);
    };
    auto flush_uninit = [&](const Access&, int, int64_t lo, int64_t hi) { out.uninitialised(who, buffer, lo, hi); };
    auto add = [&](bool writes, const Access& a, int kind, int64_t lo, int64_t hi) {
      if (writes) pending[1].add(a, kind, lo, hi, flush_write);
      else pending[0].add(a, kind, lo, hi, flush_read);
    };
    // A write `who` is not ordered after (not its own: an instruction's regions may overlap).
    auto unordered = [&](const Access& w) {
      const bool self = w.unit == who.unit && w.pipe == who.pipe && w.epoch == who.epoch;
      return w.epoch && !self && !ordered(w.unit, w.core, w.pipe, w.epoch);
    };
    auto check_entry = [&](const Entry& x, bool writes, int64_t lo, int64_t hi) {
      if (unordered(x.write)) add(writes, x.write, writes ? kWaw : kRaw, lo, hi);
      if (const Access* w = racing_.get(x.racing); w && unordered(*w)) add(writes, *w, writes ? kWaw : kRaw, lo, hi);
      if (!writes) {
        if (!x.written) uninit.add({}, kUninit, lo, hi, flush_uninit);
        return;
      }
      for (int p = 0; p < kNumPipes; ++p) {
        uint32_t e = x.read_epoch[p];
        int32_t unit = x.read_unit[p];
        if (!e || (unit == who.unit && p == who.pipe && e == who.epoch) || ordered(unit, out.core, p, e)) continue;
        // the reader is this shadow's core (`out`'s), also when `who` writes from the partner core
        add(true, {e, x.read_index[p], uint8_t(p), x.read_block[p], false, x.read_order[p], unit, int16_t(out.core)},
            x.read_unwritten[p] ? kWarEarly : kWar, lo, hi);
      }
    };
    auto record = [&](Entry& x, bool writes) {
      if (writes) {
        x.racing = racing_after(racing_, out.topology, x.write, x.racing, who, unordered);
        x.write = who;
        x.read_epoch.fill(0);
        x.written = true;
        return;
      }
      x.read_epoch[who.pipe] = who.epoch;
      x.read_index[who.pipe] = who.index;
      x.read_order[who.pipe] = who.order;
      x.read_unit[who.pipe] = who.unit;
      x.read_block[who.pipe] = who.block;
      x.read_unwritten[who.pipe] = !x.written;
    };
    for_each_run(r, [&](int64_t run_lo, int64_t run_hi) {
      shadow.visit(run_lo, run_hi, [&](Entry& x, int64_t lo, int64_t hi) {
        if (step & kCheck) {
          if (in_place) check_entry(x, false, lo, hi);
          check_entry(x, r.write, lo, hi);
        }
        if (step & kRecord) {
          if (in_place) record(x, false);
          record(x, r.write);
        }
      });
    });
    pending[0].done(flush_read);
    pending[1].done(flush_write);
    uninit.done(flush_uninit);
  };
  auto regions = [&](const Region* first, int count) {
    // paired[k]: the read region k is the in-place twin of a write (done with it); `mixed`: some
    // read overlaps some write otherwise.
    constexpr size_t kMaxRegions = std::tuple_size_v<decltype(Footprint::regions)>;
    bool paired[kMaxRegions] = {}, twin[kMaxRegions] = {}, mixed = false;
    auto same = [](const Region& a, const Region& b) {
      return a.space == b.space && a.base == b.base && a.n1 == b.n1 && a.s1 == b.s1 && a.n2 == b.n2 && a.s2 == b.s2 &&
             a.bytes == b.bytes && a.byte_mask == b.byte_mask;
    };
    for (int w = 0; w < count; ++w)
      for (int k = 0; k < count && first[w].write; ++k) {
        const Region &a = first[k], &b = first[w];
        if (a.write || a.space != b.space || a.lo() >= b.hi() || b.lo() >= a.hi()) continue;
        if (same(a, b) && !paired[k] && !twin[w]) paired[k] = twin[w] = true;
        else mixed = true;
      }
    if (!mixed) {
      for (int k = 0; k < count; ++k)
        if (!paired[k]) one(first[k], kBoth, twin[k]);
      return;
    }
    for (int k = 0; k < count; ++k) one(first[k], kCheck, false);
    for (bool writes : {false, true})
      for (int k = 0; k < count; ++k)
        if (first[k].write == writes) one(first[k], kRecord, false);
  };
  if (!reads_an_earlier_repeat(fp)) {
    regions(fp.regions.data(), fp.count);
    return;
  }
  // A vector instruction whose later repeat reads what an earlier one wrote: its repeats in order,
  // each one's reads before its writes (all the reads first took those bytes for unwritten).
  int64_t repeats = 0;
  for (int k = 0; k < fp.count; ++k) repeats = std::max(repeats, fp.regions[k].first_repeat + fp.regions[k].n2);
  std::vector<Region> in_repeat;
  for (int64_t rep = 0; rep < repeats; ++rep) {
    in_repeat.clear();
    for (int k = 0; k < fp.count; ++k) {
      const Region& r = fp.regions[k];
      if (rep < r.first_repeat || rep >= r.first_repeat + r.n2) continue;
      Region one_repeat = r;
      one_repeat.base = r.base + (rep - r.first_repeat) * r.s2, one_repeat.n2 = 1, one_repeat.first_repeat = uint16_t(rep);
      in_repeat.push_back(one_repeat);
    }
    regions(in_repeat.data(), int(in_repeat.size()));
  }
}

// Before `who` becomes the entry's last read: the reads another unit made that `who` is not
// known to follow stay (a later write must be ordered after each); a read that `who` follows, or
// one of its own unit, needs no keeping: a write ordered after `who` is after it too (within a
// unit, as before cross-core flags, the last read stands for the unit's reads).
namespace {

template <class Entry, class Ordered>
void keep_concurrent_reads(Entry& x, const Access& who, Ordered ordered) {
  auto stays = [&](const Access& r) { return r.unit != who.unit && !ordered(r); };
  bool prune = x.other_reads && std::any_of(x.other_reads->begin(), x.other_reads->end(),
                                            [&](const Access& r) { return !stays(r); });
  bool add = x.read.epoch && stays(x.read);
  if (!prune && !add) return;
  auto reads = std::make_shared<std::vector<Access>>();  // a new copy: others may share the old
  if (x.other_reads) std::copy_if(x.other_reads->begin(), x.other_reads->end(), std::back_inserter(*reads), stays);
  if (add) reads->push_back(x.read);
  x.other_reads = reads->empty() ? nullptr : std::move(reads);
}

}  // namespace

std::vector<bool> gm_tensors_to_check(const Program& program) {
  std::vector<bool> out(program.tensors.size());
  for (size_t t = 0; t < out.size(); ++t) out[t] = !given_by_host(program.tensors[t].role);
  for (const Instr& in : program.code) {
    const InstrSpec& spec = spec_of(in);
    for (size_t k = 0; k < spec.operands.size(); ++k) {
      const Operand& o = in.ops[k];
      if (o.kind == Operand::Kind::Mem && o.space == Space::GM && spec.operands[k].name == "dst") out[o.tensor] = true;
    }
  }
  return out;
}

GmShadow::GmShadow(const GlobalMemory& gm, bool cross_core, const CrossTopology* topology)
    : gm_(gm), topology_(topology), cross_core_(cross_core) {
  for (size_t t = 0; t < gm.decls.size(); ++t) tensors_.emplace_back(true);
}

void GmShadow::check(std::vector<const GmAccess*>& accesses, const Program& program, std::vector<RunResult*>& sinks) {
  std::sort(accesses.begin(), accesses.end(), [](const GmAccess* a, const GmAccess* b) {
    return std::tie(a->time, a->core, a->seq) < std::tie(b->time, b->core, b->seq);
  });
  for (const GmAccess* a : accesses) {
    const Region& r = a->region;
    const Access& who = a->who;
    IntervalShadow<Entry>& shadow = tensors_[r.tensor];
    if (shadow.empty()) {
      Entry initial;
      initial.written = given_by_host(gm_.decls[r.tensor].role);
      shadow.resize(int64_t(gm_.data[r.tensor].size()), initial);
    }
    RaceReporter out{program, *sinks[a->core], a->core, topology_};
    std::string buffer = "tensor " + gm_.decls[r.tensor].name;
    Pending pending, uninit;
    auto flush = [&](const Access& other, int kind, int64_t lo, int64_t hi) {
      out.race(other, who, kind != kWar && kind != kWarEarly, r.write, buffer, lo, hi, a->time, kind == kWarEarly);
    };
    auto flush_uninit = [&](const Access&, int, int64_t lo, int64_t hi) { out.uninitialised(who, buffer, lo, hi); };
    // Within a unit by its pipes' clocks; across units (cores) by what cross-core flags told it.
    auto ordered = [&](const Access& earlier) {
      if (earlier.unit == who.unit) return happened_before(earlier, a->known);
      const Clock* theirs = find_unit_clock(a->remote, earlier.unit);
      return theirs && happened_before(earlier, *theirs);
    };
    for_each_run(r, [&](int64_t run_lo, int64_t run_hi) {
      shadow.visit(run_lo, run_hi, [&](Entry& x, int64_t lo, int64_t hi) {
          // An earlier write `who` is not ordered after; a race unless both are atomic adds (which
          // the hardware orders), though a later read must still follow each of them.
          auto unordered = [&](const Access& w) { return w.epoch && !ordered(w); };
          auto races = [&](const Access& w) { return unordered(w) && !(w.atomic && who.atomic); };
          if (races(x.write)) pending.add(x.write, r.write ? kWaw : kRaw, lo, hi, flush);
          if (const Access* w = racing_.get(x.racing); w && races(*w)) pending.add(*w, r.write ? kWaw : kRaw, lo, hi, flush);
          if (r.write) {
            if (who.atomic && !x.written) uninit.add({}, kUninit, lo, hi, flush_uninit);  // an add reads the bytes
            const int war = x.written ? kWar : kWarEarly;
            if (x.read.epoch && (x.reads_from_many_units || !ordered(x.read))) pending.add(x.read, war, lo, hi, flush);
            if (x.other_reads)
              for (const Access& o : *x.other_reads)
                if (!ordered(o)) pending.add(o, war, lo, hi, flush);
            x.racing = racing_after(racing_, topology_, x.write, x.racing, who, unordered);
            x.write = who;
            x.read = {};
            x.other_reads = nullptr;
            x.reads_from_many_units = false;
            x.written = true;
          } else {
            if (!x.written) uninit.add({}, kUninit, lo, hi, flush_uninit);
            if (cross_core_) keep_concurrent_reads(x, who, ordered);
            else if (x.read.epoch && x.read.unit != who.unit) x.reads_from_many_units = true;
            x.read = who;
          }
        });
    });
    pending.done(flush);
    uninit.done(flush_uninit);
  }
}

std::vector<std::pair<int64_t, int64_t>> GmShadow::unwritten(size_t tensor) const {
  std::vector<std::pair<int64_t, int64_t>> gaps;
  if (given_by_host(gm_.decls[tensor].role)) return gaps;
  const IntervalShadow<Entry>& shadow = tensors_[tensor];
  if (shadow.empty()) {  // no access met it
    if (int64_t bytes = gm_.tensor_bytes(tensor); bytes > 0) gaps.push_back({0, bytes});
    return gaps;
  }
  shadow.for_each([&](const Entry& e, int64_t lo, int64_t hi) {
    if (e.written) return;
    if (!gaps.empty() && gaps.back().second == lo) gaps.back().second = hi;
    else gaps.push_back({lo, hi});
  });
  return gaps;
}

namespace {

// "[3, 17]": the coordinates of element `index` of a row-major tensor of `shape`.
std::string element_at(const std::vector<int64_t>& shape, int64_t index) {
  std::vector<int64_t> at(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    const int64_t extent = std::max<int64_t>(1, shape[d]);
    at[d] = index % extent;
    index /= extent;
  }
  return fmt::format("[{}]", fmt::join(at, ", "));
}

}  // namespace

void report_unwritten_outputs(const GmShadow& shadow, const Program& program, int blocks,
                              std::vector<Diagnostic>& out) {
  for (size_t t = 0; t < program.tensors.size(); ++t) {
    const TensorDecl& d = program.tensors[t];
    if (d.role != TensorRole::Out) continue;
    const std::vector<std::pair<int64_t, int64_t>> gaps = shadow.unwritten(t);
    if (gaps.empty()) continue;
    int64_t missing = 0;
    for (auto [lo, hi] : gaps) missing += hi - lo;
    const int64_t size = dtype_size(d.dtype);
    const auto [lo, hi] = gaps.front();
    std::string first = fmt::format("elements {} to {} (bytes {} to {})", element_at(d.shape, lo / size),
                                    element_at(d.shape, (hi - 1) / size), lo, hi - 1);
    std::string launch = blocks < program.block_dim
                             ? fmt::format("; this launch ran {} of the program's {} blocks (.block_dim)", blocks, program.block_dim)
                             : "";
    out.push_back({Diagnostic::Kind::Unwritten, -1, -1, 0,
                   fmt::format("output tensor {} ({} [{}]): the kernel never wrote {} of its {} bytes, in {} range{}, the "
                               "first {}{}; the host gets those bytes back as zeros. Write every element of an `out` "
                               "tensor (a tile loop one short, a tail never stored?), or declare it `inout` if the "
                               "host's values should stay",
                               d.name, dtype_name(d.dtype), fmt::join(d.shape, ", "), missing, d.bytes(), gaps.size(),
                               gaps.size() > 1 ? "s" : "", first, launch)});
  }
}

}  // namespace cubekit
