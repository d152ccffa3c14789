#include "schedules/loops.h"

#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace cubekit::sched {

using dsl::Directive;

int LoopNest::find(const std::shared_ptr<dsl::VarImpl>& v) const {
  for (size_t i = 0; i < loops.size(); ++i)
    if (loops[i].var == v) return int(i);
  return -1;
}

std::string LoopNest::str() const {
  std::string s;
  for (size_t i = 0; i < loops.size(); ++i)
    s += fmt::format("{}{}{}[{}]", i ? " > " : "", int(i) < cores ? "cores:" : "", loops[i].name(), loops[i].extent);
  return s;
}

namespace {

// "v is not a loop of f (its loops: ...)"; where one of them has v's name, it is another Var: the
// schedule was written with another Func's Vars (default_schedule(C) given to C2's run).
std::string not_a_loop(const dsl::VarImpl& v, const std::string& fname, const LoopNest& nest) {
  std::string s = fmt::format("{} is not a loop of {} (its loops: {})", v.name, fname, nest.str());
  for (const Loop& l : nest.loops)
    if (l.name() == v.name)
      return s + fmt::format(": its {} is another Var of the same name; a schedule names the Func's own Vars (one made "
                             "for another Func does not apply)", v.name);
  return s;
}

// The loops cores() could take now: the outermost ones up to the first reduction loop, less those
// cube() names.
std::string core_candidates(const dsl::Func& f, const LoopNest& nest) {
  std::vector<std::shared_ptr<dsl::VarImpl>> cube;
  for (const Directive& d : f.impl->schedule)
    if (d.kind == Directive::Kind::Cube) cube = d.vars;
  std::string names;
  for (size_t i = 0; i < nest.loops.size() && !nest.loops[i].reduction; ++i)
    if (std::find(cube.begin(), cube.end(), nest.loops[i].var) == cube.end())
      names += (names.empty() ? "" : ", ") + nest.loops[i].name();
  return names.empty() ? "none yet: split m or n" : names;
}

}  // namespace

LoopNest build_loop_nest(const dsl::Func& f) {
  const std::string& fname = f.name();
  LoopNest nest;
  std::vector<int64_t> shape = f.shape();
  for (size_t i = 0; i < f.impl->args.size(); ++i)
    nest.loops.push_back({f.impl->args[i], f.impl->args[i], shape[i], 1, 0, false});
  for (const auto& r : dsl::rvars_of(f.impl->value)) nest.loops.push_back({r, r, r->extent, 1, 0, true});

  for (const Directive& d : f.impl->schedule) {
    auto where = [&](const char* what) { return fmt::format("{}.{}: {}", fname, d.text, what); };
    switch (d.kind) {
      case Directive::Kind::Split: {
        int at = nest.find(d.vars[0]);
        if (at < 0) user_error("{}", where(not_a_loop(*d.vars[0], fname, nest).c_str()));
        for (int i : {1, 2})
          if (nest.find(d.vars[size_t(i)]) >= 0)
            user_error("{}", where(fmt::format("{} is already a loop of {} (its loops: {}); name the new loops with fresh "
                                               "variables", d.vars[size_t(i)]->name, fname, nest.str()).c_str()));
        if (d.vars[1] == d.vars[2]) user_error("{}", where("the outer and inner loops need two different variables"));
        auto kind = [](const dsl::VarImpl& v) { return v.reduction ? "an RVar" : "a Var"; };
        for (int i : {1, 2})
          if (d.vars[size_t(i)]->reduction != d.vars[0]->reduction)
            user_error("{}", where(fmt::format("{} is {} but {} is {}; split a Var into Vars and an RVar (RDom) into RVars",
                                               d.vars[0]->name, kind(*d.vars[0]), d.vars[size_t(i)]->name,
                                               kind(*d.vars[size_t(i)])).c_str()));
        Loop old = nest.loops[size_t(at)];
        if (d.factor < 1) user_error("{}", where(fmt::format("the factor must be at least 1, got {}", d.factor).c_str()));
        // A factor beyond the extent (a schedule written for a bigger shape) is one partial
        // iteration, as in Halide: the inner loop covers the whole extent.
        int64_t factor = std::min(d.factor, old.extent);
        Loop outer{d.vars[1], old.origin, (old.extent + factor - 1) / factor, old.stride * factor, factor, old.reduction};
        Loop inner{d.vars[2], old.origin, factor, old.stride, 0, old.reduction};
        nest.loops[size_t(at)] = outer;
        nest.loops.insert(nest.loops.begin() + at + 1, inner);
        break;
      }
      case Directive::Kind::Reorder: {
        std::vector<int> pos;
        for (const auto& v : d.vars) {
          int at = nest.find(v);
          if (at < 0) user_error("{}", where(not_a_loop(*v, fname, nest).c_str()));
          if (std::find(pos.begin(), pos.end(), at) != pos.end()) user_error("{}", where(fmt::format("{} is listed twice", v->name).c_str()));
          pos.push_back(at);
        }
        std::vector<int> slots = pos;
        std::sort(slots.begin(), slots.end(), std::greater<int>());  // innermost slot first
        std::vector<Loop> moved;
        for (int p : pos) moved.push_back(nest.loops[size_t(p)]);
        for (size_t i = 0; i < slots.size(); ++i) nest.loops[size_t(slots[i])] = moved[i];
        break;
      }
      case Directive::Kind::Cores: {
        for (const auto& v : d.vars) {
          int at = nest.find(v);
          if (at < 0)
            user_error("{}", where(fmt::format("{}; cores take its outermost pure loops outside the cube ({})",
                                               not_a_loop(*v, fname, nest), core_candidates(f, nest)).c_str()));
          if (v->reduction) user_error("{}", where(fmt::format("{} is a reduction loop; cores take independent iterations (pure loops)", v->name).c_str()));
        }
        break;  // checked below, once the order is final
      }
      default: break;
    }
  }
  // cores(...) must name the outermost loops, in any order.
  for (const Directive& d : f.impl->schedule) {
    if (d.kind != Directive::Kind::Cores) continue;
    std::vector<int> pos;
    for (const auto& v : d.vars) pos.push_back(nest.find(v));
    std::sort(pos.begin(), pos.end());
    for (size_t i = 1; i < pos.size(); ++i)
      if (pos[i] == pos[i - 1])
        user_error("{}.{}: {} is listed twice", fname, d.text, nest.loops[size_t(pos[i])].name());
    for (size_t i = 0; i < pos.size(); ++i)
      if (pos[i] != int(i))
        user_error("{}.{}: the loops given to cores must be the outermost ones; the loops are {}", fname, d.text, nest.str());
    nest.cores = int(pos.size());
    nest.core_group = d.factor;
    if (d.factor == 1) continue;
    if (d.factor < 1) user_error("{}.{}: the group must be at least 1, got {}", fname, d.text, d.factor);
    if (nest.cores < 2)
      user_error("{}.{}: a group needs two loops on cores (it hands out tiles of the first of the last two in groups)",
                 fname, d.text);
    // A group that does not divide the iterations of the first of the two loops (a schedule
    // written for a bigger shape) hands out a last, smaller group; one beyond them is one group.
    nest.core_group = std::min(d.factor, nest.loops[size_t(nest.cores - 2)].extent);
  }
  return nest;
}

}  // namespace cubekit::sched
