#include "codegen/accesses.h"

#include "emulator/error.h"
#include "emulator/executor.h"

#include <algorithm>

namespace cubekit::codegen {

namespace {

Chunks chunks_of(const Region& r) {
  auto c = std::make_shared<std::vector<std::pair<int64_t, int64_t>>>();
  auto add = [&](int64_t lo) {  // in ascending order of lo: merged as they come
    if (!c->empty() && lo <= c->back().second) c->back().second = std::max(c->back().second, lo + r.bytes);
    else c->push_back({lo, lo + r.bytes});
  };
  // Ascending already when the rows step forward and each row starts at or after the previous
  // row's last chunk (a vector instruction's repeats, a copy's bursts): no sort.
  if (r.s1 >= 0 && (r.n2 == 1 || r.s2 >= r.s1 * (r.n1 - 1))) {
    for (int64_t i2 = 0; i2 < r.n2; ++i2)
      for (int64_t i1 = 0; i1 < r.n1; ++i1) add(r.base + i1 * r.s1 + i2 * r.s2);
    return c;
  }
  std::vector<int64_t> starts;
  for (int64_t i2 = 0; i2 < r.n2; ++i2)
    for (int64_t i1 = 0; i1 < r.n1; ++i1) starts.push_back(r.base + i1 * r.s1 + i2 * r.s2);
  std::sort(starts.begin(), starts.end());
  for (int64_t lo : starts) add(lo);
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
  std::vector<int> ref_of_slot;  // positional operand -> ref (-1: not memory)
  for (const Arg& a : n.args)
    if (a.key.empty()) ref_of_slot.push_back(a.kind == Arg::Kind::Mem ? ref_index(a) : -1);
  for (int i = 0; i < fp.count; ++i) {
    Region r = fp.regions[size_t(i)];
    CUBEKIT_ASSERT(r.operand >= 0 && size_t(r.operand) < ref_of_slot.size() && ref_of_slot[size_t(r.operand)] >= 0,
                   "a footprint region of operand {} that is not a memory operand", r.operand);
    int ref = ref_of_slot[size_t(r.operand)];
    if (whole_read && !r.write) r.bytes = k.buffers[size_t(n.refs[size_t(ref)].buffer)].bytes, r.n1 = r.n2 = 1;
    out.push_back({ref, r.write, chunks_of(r)});
  }
  return out;
}

}  // namespace cubekit::codegen
