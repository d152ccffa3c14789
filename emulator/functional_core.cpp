#include "emulator/functional_core.h"

namespace cubekit {

namespace {

std::optional<DType> atomic_type(const Issued& I) {
  static constexpr DType types[] = {DType::f32, DType::f32, DType::f16, DType::s32};
  int a = spec_of(*I.instr).operand_index("atomic");
  if (a < 0 || I[a] == 0) return std::nullopt;
  return types[I[a]];
}

}  // namespace

FunctionalCore::FunctionalCore(const ChipConfig& chip, CoreKind kind, const Program& program, const GlobalMemory& gm,
                               int core, bool checks)
    : chip_(chip), program_(program), gm_(gm), core_(core), memory_(*chip.kind(kind)), window_(gm, core) {
  if (checks) shadow_ = std::make_unique<LocalShadow>(chip);
  for (const auto& t : gm.data) views_.push_back({const_cast<uint8_t*>(t.data()), 0});
}

void FunctionalCore::replay(const std::vector<Started>& stream) {
  Footprint fp;
  for (const Started& s : stream) {
    if (s.block != block_) {  // a new block: its buffers hold leftovers nobody wrote in it
      block_ = s.block;
      if (shadow_) shadow_->reset();
    }
    fp.count = 0;
    spec_of(*s.I.instr).footprint(s.I, chip_, fp);
    if (shadow_) {
      Access who{s.epoch, s.I.index, s.pipe, s.block, atomic_type(s.I).has_value(), s.order, s.unit, core_};
      RaceReporter out{program_, diagnostics_, core_};
      shadow_->check(fp, who, s.known, out, s.start);
      for (int k = 0; k < fp.count; ++k) {
        const Region& r = fp.regions[k];
        if (r.space == Space::GM && !(who.atomic && !r.write))
          gm_accesses_.push_back({s.start, core_, gm_seq_++, r, who, s.known, s.remote});
      }
    }
    execute(s, fp);
  }
}

// GM reads get a staged copy of what this core sees; writes land in a zeroed buffer (atomic adds
// then hold their increments) and go to the window's log.
void FunctionalCore::execute(const Started& s, const Footprint& fp) {
  thread_local std::vector<std::vector<uint8_t>> staged;
  staged.resize(size_t(fp.count));
  std::optional<DType> atomic = atomic_type(s.I);
  bool touches_gm = false;
  for (int k = 0; k < fp.count; ++k) {
    const Region& r = fp.regions[k];
    if (r.space != Space::GM || (atomic && !r.write)) continue;
    touches_gm = true;
    if (r.write) staged[k].assign(size_t(r.hi() - r.lo()), 0);
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
  if (!touches_gm) return;
  for (int k = 0; k < fp.count; ++k) {
    const Region& r = fp.regions[k];
    if (r.space != Space::GM || (atomic && !r.write)) continue;
    if (r.write) window_.log_write(r, staged[k].data(), r.lo(), s.start, atomic);
    views_[r.tensor] = {const_cast<uint8_t*>(gm_.data[r.tensor].data()), 0};
  }
}

}  // namespace cubekit
