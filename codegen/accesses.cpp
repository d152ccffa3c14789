#include "codegen/accesses.h"

#include "emulator/executor.h"

#include <algorithm>
#include <map>

namespace cubekit::codegen {

namespace {

Chunks chunks_of(const Region& r) {
  auto c = std::make_shared<std::vector<std::pair<int64_t, int64_t>>>();
  for (int64_t i2 = 0; i2 < r.n2; ++i2)
    for (int64_t i1 = 0; i1 < r.n1; ++i1) {
      int64_t lo = r.base + i1 * r.s1 + i2 * r.s2;
      c->push_back({lo, lo + r.bytes});
    }
  std::sort(c->begin(), c->end());
  std::vector<std::pair<int64_t, int64_t>> merged;
  for (auto [lo, hi] : *c) {
    if (!merged.empty() && lo <= merged.back().second) merged.back().second = std::max(merged.back().second, hi);
    else merged.push_back({lo, hi});
  }
  *c = std::move(merged);
  return c;
}

}  // namespace

bool chunks_meet(const Chunks& a, int64_t shift, const Chunks& b) {
  size_t i = 0, j = 0;
  while (i < a->size() && j < b->size()) {
    int64_t alo = (*a)[i].first + shift, ahi = (*a)[i].second + shift;
    auto [blo, bhi] = (*b)[j];
    if (alo < bhi && blo < ahi) return true;
    if (ahi <= blo) ++i;
    else ++j;
  }
  return false;
}

std::vector<Access> accesses_of(const Kernel& k, const Node& n, const ChipConfig& chip) {
  Instr in = to_instr(k, n);
  std::vector<Access> out;
  if (!spec_of(in).footprint) return out;  // the scalar unit's (set_fmatrix): no memory
  // What load3d reads depends on the FMATRIX register, which this pass does not follow: as far as
  // ordering goes, it reads the whole buffer copy.
  bool whole_read = spec_of(in).mnemonic == "load3d";
  ScalarState state;
  if (whole_read) state.fmatrix.h = state.fmatrix.w = 1;
  Issued I = issue(in, 0, state);
  Footprint fp;
  spec_of(in).footprint(I, chip, fp);
  std::map<int, int> ref_of_slot;  // positional operand -> ref
  int slot = 0;
  for (const Arg& a : n.args) {
    if (!a.key.empty()) continue;
    if (a.kind == Arg::Kind::Mem) ref_of_slot[slot] = ref_index(a);
    ++slot;
  }
  for (int i = 0; i < fp.count; ++i) {
    Region r = fp.regions[size_t(i)];
    int ref = ref_of_slot.at(r.operand);
    if (whole_read && !r.write) r.bytes = k.buffers[size_t(n.refs[size_t(ref)].buffer)].bytes, r.n1 = r.n2 = 1;
    out.push_back({ref, r.write, chunks_of(r)});
  }
  return out;
}

}  // namespace cubekit::codegen
