#include "emulator/functional_core.h"

#include "emulator/error.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace cubekit {

namespace {

std::optional<DType> atomic_type(const Issued& I) {
  static constexpr DType types[] = {DType::f32, DType::f32, DType::f16, DType::s32};
  const int a = spec_of(*I.instr).atomic;
  if (a < 0 || I[a] == 0) return std::nullopt;
  return types[I[a]];
}

}  // namespace

FunctionalCore::FunctionalCore(const ChipConfig& chip, CoreKind kind, const Program& program, const GlobalMemory& gm,
                               int core, bool checks, CoreMemory memory)
    : chip_(chip), program_(program), gm_(gm), core_(core), memory_(std::move(memory)), window_(gm, core), kind_(kind) {
  if (checks) shadow_ = std::make_unique<LocalShadow>(chip), gm_checked_ = gm_tensors_to_check(program);
  for (const auto& t : gm.data) views_.push_back({const_cast<uint8_t*>(t.data()), 0});
  const CoreConfig& k = *chip.kind(kind);
  for (int s = 1; s < kNumSpaces; ++s)
    if (k.has_buffer(Space(s))) own_spaces_ |= 1u << s;
}

namespace {

// The buffers of `kind` that another kind of `chip` writes through a path into its partner's
// buffer (one it lacks itself: the 950's AIC l0c->ub, AIV ub->l1).
uint32_t spaces_partners_write(const ChipConfig& chip, CoreKind kind) {
  const CoreConfig& mine = *chip.kind(kind);
  uint32_t out = 0;
  for (const CoreConfig& other : chip.kinds) {
    if (other.kind == kind) continue;
    for (const DataPathRate& p : other.paths)
      if (p.dst != Space::GM && !other.has_buffer(p.dst) && mine.has_buffer(p.dst)) out |= 1u << int(p.dst);
  }
  return out;
}

}  // namespace

void FunctionalCore::set_group(int aic, std::vector<int> aivs, const CrossTopology* topology) {
  aic_ = aic;
  aivs_ = std::move(aivs);
  topology_ = topology;
  partner_written_spaces_ = spaces_partners_write(chip_, kind_);
}

// A core's blocks run one after another, in increasing block_idx.
void FunctionalCore::begin_block(int block) {
  if (block_ >= 0 && block <= block_) return;
  block_ = block;  // a new block: its buffers hold leftovers nobody wrote in it
  if (shadow_) shadow_->start_block(own_spaces_ & ~partner_written_spaces_, block);
}

void FunctionalCore::replay(const std::vector<Started>& stream) {
  Footprint fp;
  for (const Started& s : stream) {
    begin_block(s.block);
    fp.count = 0;
    spec_of(*s.I.instr).footprint(s.I, chip_, fp);
    if (shadow_) {
      Access who{s.epoch, s.I.index, s.pipe, s.block, atomic_type(s.I).has_value(), s.order, s.unit, int16_t(core_)};
      RaceReporter out{program_, diagnostics_, core_, topology_};
      shadow_->check(fp, who, s.known, s.remote, own_spaces_ & ~partner_written_spaces_, out, s.start);
      if (partner_written_spaces_) defer(s, fp, who);
      for (int k = 0; k < fp.count; ++k) {
        const Region& r = fp.regions[k];
        if (r.space != Space::GM || (who.atomic && !r.write)) continue;
        CUBEKIT_ASSERT(gm_checked_[r.tensor] || !r.write, "{} writes GM through an operand gm_tensors_to_check misses",
                       spec_of(*s.I.instr).mnemonic);
        if (gm_checked_[r.tensor]) gm_accesses_.push_back({s.start, core_, gm_seq_++, r, who, s.known, s.remote});
      }
    }
    execute(s, fp);
  }
}

// GM reads get a staged copy of what this core sees (GM itself when none of its pending writes
// is in the range: GM changes only between windows); writes land in a buffer (zeroed for atomic
// adds, which then hold their increments) and their regions' bytes go to the window's log.
void FunctionalCore::execute(const Started& s, const Footprint& fp) {
  thread_local std::vector<std::vector<uint8_t>> staged;
  staged.resize(size_t(fp.count));
  std::optional<DType> atomic = atomic_type(s.I);
  bool touches_gm = false;
  for (int k = 0; k < fp.count; ++k) {
    const Region& r = fp.regions[k];
    if (r.space != Space::GM || (atomic && !r.write)) continue;
    touches_gm = true;
    if (!r.write && !window_.pending(r.tensor, r.lo(), r.hi())) continue;  // views_ point at GM
    if (r.write && atomic) staged[k].assign(size_t(r.hi() - r.lo()), 0);  // the increments start from 0
    else if (r.write) staged[k].resize(size_t(r.hi() - r.lo()));        // every logged byte is written
    else window_.stage(r.tensor, r.lo(), r.hi(), staged[k]);
    views_[r.tensor] = {staged[k].data(), r.lo()};
  }
  ExecContext ctx{chip_, memory_, views_.data()};
  try {
    spec_of(*s.I.instr).exec(s.I, ctx);
  } catch (const Fault& f) {
    uint32_t line = program_.code[s.I.index].line;
    diagnostics_.report({Diagnostic::Kind::Fault, core_, s.I.index, line, f.message});
  }
  for (int k = 0; k < fp.count; ++k) {
    const Region& r = fp.regions[k];
    if (r.write && r.space != Space::GM && !(own_spaces_ >> int(r.space) & 1)) log_remote(s, r);
  }
  if (!touches_gm) return;
  for (int k = 0; k < fp.count; ++k) {
    const Region& r = fp.regions[k];
    if (r.space != Space::GM || (atomic && !r.write)) continue;
    if (r.write) window_.log_write(r, staged[k].data(), r.lo(), s.start, atomic);
    views_[r.tensor] = {const_cast<uint8_t*>(gm_.data[r.tensor].data()), 0};
  }
}

// A write into the partner's buffer: UB is a vector core's (the instruction's `sub` names which),
// L1 the cube core's.
void FunctionalCore::log_remote(const Started& s, const Region& r) {
  const Instr& in = *s.I.instr;
  int sub = spec_of(in).operand_index("sub");
  int subblock = sub >= 0 ? int(s.I[sub]) : 0;
  int target = r.space == Space::L1 ? aic_ : subblock < int(aivs_.size()) ? aivs_[size_t(subblock)] : -1;
  CUBEKIT_ASSERT(target >= 0, "a write into {} of a partner core that is not in the launch (plan_launch checks)",
                 space_name(r.space));
  RemoteWrite w{s.start, core_, remote_seq_++, target, r, {}, {}, s.known, s.remote};
  w.who = {s.epoch, s.I.index, s.pipe, s.block, false, s.order, s.unit, int16_t(core_)};
  const uint8_t* from = memory_.data(r.space);
  for (int64_t j = 0; j < r.n2; ++j)
    for (int64_t i = 0; i < r.n1; ++i) {
      const uint8_t* chunk = from + r.base + i * r.s1 + j * r.s2;
      w.data.insert(w.data.end(), chunk, chunk + r.bytes);
    }
  remote_writes_.push_back(std::move(w));
}

// Keeps the regions of `fp` in the buffers a partner writes, to be checked at the window's end.
void FunctionalCore::defer(const Started& s, const Footprint& fp, const Access& who) {
  const size_t first = deferred_regions_.size();
  for (int k = 0; k < fp.count; ++k)
    if (fp.regions[k].space != Space::GM && (partner_written_spaces_ >> int(fp.regions[k].space) & 1))
      deferred_regions_.push_back(fp.regions[k]);
  if (deferred_regions_.size() == first) return;
  deferred_.push_back({s.start, deferred_seq_++, first, deferred_regions_.size() - first, who, s.known, s.remote});
}

void FunctionalCore::check_partner_buffers(const std::vector<const RemoteWrite*>& writes) {
  // Merged in (time, core, seq) order, as GM's accesses (a core starts its instructions in time order).
  CUBEKIT_ASSERT(std::is_sorted(deferred_.begin(), deferred_.end(),
                                [](const DeferredAccess& a, const DeferredAccess& b) { return a.time < b.time; }),
                 "core {} started instructions out of time order", core_);
  auto own_first = [&](const DeferredAccess& a, const RemoteWrite& w) {
    return std::tie(a.time, core_, a.seq) < std::tie(w.time, w.core, w.seq);
  };
  size_t i = 0, j = 0;
  while (i < deferred_.size() || j < writes.size()) {
    Footprint fp;
    if (j == writes.size() || (i < deferred_.size() && own_first(deferred_[i], *writes[j]))) {
      const DeferredAccess& a = deferred_[i++];
      if (a.who.block > deferred_block_) {
        deferred_block_ = a.who.block;
        shadow_->start_block(partner_written_spaces_, a.who.block);
      }
      for (size_t k = 0; k < a.regions; ++k) fp.add(deferred_regions_[a.first_region + k]);
      RaceReporter out{program_, diagnostics_, core_, topology_};
      shadow_->check(fp, a.who, a.known, a.remote, partner_written_spaces_, out, a.time);
    } else {
      const RemoteWrite& w = *writes[j++];
      fp.add(w.region);
      RaceReporter out{program_, diagnostics_, core_, topology_};
      shadow_->check(fp, w.who, w.known, w.remote, 1u << int(w.region.space), out, w.time);
    }
  }
  deferred_.clear();
  deferred_regions_.clear();
}

void FunctionalCore::commit_remote(std::vector<std::unique_ptr<FunctionalCore>>& cores) {
  std::vector<const RemoteWrite*> all;
  for (auto& c : cores)
    for (const RemoteWrite& w : c->remote_writes_) all.push_back(&w);
  std::sort(all.begin(), all.end(), [](const RemoteWrite* a, const RemoteWrite* b) {
    return std::tie(a->time, a->core, a->seq) < std::tie(b->time, b->core, b->seq);
  });
  std::vector<std::vector<const RemoteWrite*>> into(cores.size());  // per target core, in time order
  for (const RemoteWrite* w : all) {
    FunctionalCore& t = *cores[size_t(w->target)];
    const Region& r = w->region;
    uint8_t* to = t.memory_.data(r.space);
    const uint8_t* data = w->data.data();
    for (int64_t j = 0; j < r.n2; ++j)
      for (int64_t i = 0; i < r.n1; ++i, data += r.bytes) std::memcpy(to + r.base + i * r.s1 + j * r.s2, data, size_t(r.bytes));
    CUBEKIT_ASSERT(t.partner_written_spaces_ >> int(r.space) & 1, "core {} writes {} of core {}, which no path reaches",
                   w->core, space_name(r.space), w->target);
    into[size_t(w->target)].push_back(w);
  }
  for (size_t c = 0; c < cores.size(); ++c)
    if (cores[c]->shadow_ && cores[c]->partner_written_spaces_) cores[c]->check_partner_buffers(into[c]);
  for (auto& c : cores) c->remote_writes_.clear();
}

}  // namespace cubekit
