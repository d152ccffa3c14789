#include "emulator/cross_core.h"

#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace cubekit {

std::string_view cross_role_name(CrossRole r) { return r == CrossRole::Aic ? "aic" : "aiv"; }

// ---- the engine ---------------------------------------------------------------------------------

CrossCore::CrossCore(CrossTopology topology, uint64_t latency)
    : topology_(std::move(topology)), latency_(latency), counters_(topology_.cores.size() * kCrossFlagIds) {}

std::vector<int> CrossCore::cores_where(CrossRole role, int group) const {
  std::vector<int> out;
  for (size_t c = 0; c < topology_.cores.size(); ++c)
    if (topology_.cores[c].role == role && (group < 0 || topology_.cores[c].group == group)) out.push_back(int(c));
  return out;
}

CrossCore::Rounds& CrossCore::rounds(int mode, int key, int id, CrossRole role) {
  auto [it, fresh] = rounds_.try_emplace({mode, key, id});
  Rounds& r = it->second;
  if (fresh) {
    r.participants = cores_where(role, mode == 0 ? -1 : key);
    r.made.assign(r.participants.size(), 0);
    // Mode 0 is the launch's cores of a kind; modes 1 and 2 the group's AIVs, run or not.
    r.required = mode == 0 ? int(r.participants.size()) : topology_.aivs_per_group;
  }
  return r;
}

std::string CrossCore::missing_partners(int core, int mode, int id) const {
  const CrossTopology::Core& me = topology_.cores[size_t(core)];
  std::vector<bool> runs(size_t(std::max(topology_.aivs_per_group, 0)), false);
  for (int c : cores_where(CrossRole::Aiv, me.group))
    if (size_t(topology_.cores[size_t(c)].sub) < runs.size()) runs[size_t(topology_.cores[size_t(c)].sub)] = true;
  std::string missing;
  for (size_t sub = 0; sub < runs.size(); ++sub)
    if (!runs[sub])
      missing += fmt::format("{}AIV {} (subblock {} of group {})", missing.empty() ? "" : " and ",
                             me.group * topology_.aivs_per_group + int(sub), sub, me.group);
  if (missing.empty()) return "";
  return fmt::format("mode {} completes once both AIVs of group {} have set id {}, but {} runs no block of this launch "
                     "(a launch runs the AIVs its blocks go to): the round never completes and no wait_cross for it "
                     "returns; launch blocks for both AIVs of the group, or synchronise with mode 0",
                     mode, me.group, id, missing);
}

bool CrossCore::join(Rounds& r, int core, uint64_t fire, const Knowledge& knowledge, int32_t index, Round& done) {
  size_t who = size_t(std::find(r.participants.begin(), r.participants.end(), core) - r.participants.begin());
  CUBEKIT_ASSERT(who < r.participants.size(), "core {} is no participant of its own round", core);
  int number = r.made[who]++;  // this core's k-th set belongs to round k
  while (r.first + int(r.open.size()) <= number) r.open.emplace_back();
  Round& round = r.open[size_t(number - r.first)];
  ++round.sets;
  round.knowledge = merge_knowledge(round.knowledge, knowledge);
  if (fire >= round.fire) round.fire = fire, round.index = index, round.core = core;
  // A core's round k+1 follows its round k, so rounds complete in order.
  if (number != r.first || round.sets < r.required) return false;
  done = std::move(round);
  r.open.pop_front();
  ++r.first;
  return true;
}

void CrossCore::deliver(const std::vector<int>& to, const Round& r, int id, std::vector<int>& woken,
                        std::vector<std::string>& errors) {
  for (int c : to) {
    auto& counter = counters_[size_t(c) * kCrossFlagIds + size_t(id)];
    if (int(counter.size()) >= kCrossMaxOutstanding) {
      const CrossTopology::Core& k = topology_.cores[size_t(c)];
      errors.push_back(fmt::format(
          "cross-core flag id {} of core {} ({}, group {}) would hold more than {} increments no wait_cross has "
          "consumed: the counter overflows; wait for the flag before setting it again",
          id, c, cross_role_name(k.role), k.group, kCrossMaxOutstanding));
      continue;
    }
    counter.push_back({r.fire + latency_, r.knowledge, r.index, r.core, window});
    woken.push_back(c);
  }
}

void CrossCore::set(int core, int mode, int id, uint64_t fire, const Knowledge& knowledge, int32_t index,
                    std::vector<int>& woken, std::vector<std::string>& errors) {
  CUBEKIT_ASSERT(core >= 0 && size_t(core) < topology_.cores.size() && id >= 0 && id < kCrossFlagIds &&
                     mode >= 0 && mode <= 2,
                 "set_cross core {} mode {} id {}", core, mode, id);
  const CrossTopology::Core& me = topology_.cores[size_t(core)];
  Round done;
  if (mode == 2 && me.role == CrossRole::Aic) {
    std::vector<int> aivs = cores_where(CrossRole::Aiv, me.group);
    if (aivs.empty())
      return errors.push_back(fmt::format("mode 2 signals the AIVs of group {}, but no AIV of that group runs in this "
                                          "launch: nothing receives it",
                                          me.group));
    return deliver(aivs, {1, fire, knowledge, index, core}, id, woken, errors);
  }
  if (mode == 1 && me.role == CrossRole::Aic)
    return errors.push_back("mode 1 synchronises the two AIVs of a group, but an AIC set it: use mode 2 to signal "
                            "the AIVs of its group, or mode 0 to synchronise every AIC");
  if (mode == 0) {
    Rounds& r = rounds(0, int(me.role), id, me.role);
    if (join(r, core, fire, knowledge, index, done)) deliver(r.participants, done, id, woken, errors);
    return;
  }
  std::vector<int> aic = cores_where(CrossRole::Aic, me.group);
  if (mode == 2 && aic.empty())
    return errors.push_back(fmt::format("mode 2 signals the AIC of group {} once its AIVs have set, but no AIC runs "
                                        "in this launch: nothing receives it",
                                        me.group));
  if (std::string why = missing_partners(core, mode, id); !why.empty()) errors.push_back(std::move(why));
  Rounds& r = rounds(mode, me.group, id, CrossRole::Aiv);
  if (!join(r, core, fire, knowledge, index, done)) return;
  deliver(mode == 1 ? r.participants : aic, done, id, woken, errors);
}

const CrossDelivery* CrossCore::front(int core, int id) const {
  const auto& counter = counters_[size_t(core) * kCrossFlagIds + size_t(id)];
  return counter.empty() ? nullptr : &counter.front();
}

CrossDelivery CrossCore::consume(int core, int id) {
  auto& counter = counters_[size_t(core) * kCrossFlagIds + size_t(id)];
  CUBEKIT_ASSERT(!counter.empty(), "wait_cross consumed an empty counter");
  CrossDelivery d = std::move(counter.front());
  counter.pop_front();
  return d;
}

std::vector<CrossCore::Leftover> CrossCore::leftovers() const {
  std::vector<Leftover> out;
  for (size_t k = 0; k < counters_.size(); ++k)
    if (!counters_[k].empty())
      out.push_back({int(k / kCrossFlagIds), int(k % kCrossFlagIds), int(counters_[k].size()),
                     counters_[k].back().set_index, counters_[k].back().setter_core});
  return out;
}

namespace {

// "cores 3, 5-9": consecutive numbers as ranges.
std::string core_list(const std::vector<int>& cores) {
  std::string out;
  for (size_t i = 0; i < cores.size();) {
    size_t j = i;
    while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1) ++j;
    out += fmt::format("{}{}", out.empty() ? "" : ", ", j == i ? fmt::format("{}", cores[i]) : fmt::format("{}-{}", cores[i], cores[j]));
    i = j + 1;
  }
  return fmt::format("{} {}", cores.size() > 1 ? "cores" : "core", out);
}

}  // namespace

std::string CrossCore::open_round(int core, int id) const {
  const CrossTopology::Core& me = topology_.cores[size_t(core)];
  for (const auto& [key, r] : rounds_) {
    const auto [mode, group, flag] = key;
    if (flag != id || r.open.empty()) continue;
    // Whom a completed round reaches: mode 0 and 1 their participants, mode 2 (an AIV round) its group's AIC.
    const bool reaches = mode == 2 ? me.role == CrossRole::Aic && me.group == group
                                   : std::find(r.participants.begin(), r.participants.end(), core) != r.participants.end();
    if (!reaches) continue;
    std::map<int, std::vector<int>> by_count;  // sets made -> the cores that made that many
    for (size_t i = 0; i < r.participants.size(); ++i) by_count[r.made[i]].push_back(r.participants[i]);
    std::string made;
    for (auto it = by_count.rbegin(); it != by_count.rend(); ++it)
      made += fmt::format("{}{} set it {} time{}", made.empty() ? "" : ", ", core_list(it->second), it->first,
                          it->first == 1 ? "" : "s");
    const int missing = r.required - int(r.participants.size());
    return fmt::format("its mode {} round {} (id {}) has {} of the {} sets it needs: {}{}. A core's k-th set_cross of "
                       "a mode and id joins round k, so every core of the round must set it as often (a launch of more "
                       "blocks than cores runs more blocks, and sets, on some cores)",
                       mode, r.first, id, r.open.front().sets, r.required, made,
                       missing > 0 ? fmt::format(", and {} of the group's cores run no block", missing) : "");
  }
  return "";
}

// ---- a run's engine ------------------------------------------------------------------------------

namespace {

bool is_cross(const Instr& in) { return is_set_cross(in) || is_wait_cross(in); }

}  // namespace

CrossTopology cross_topology(const ChipConfig& chip, const LaunchPlan& plan) {
  CrossTopology topology;
  const int per_group = std::max(1, chip.vector_cores_per_cube);
  topology.aivs_per_group = per_group;
  topology.blocks_shared = plan.mixed;
  for (const LaunchCore& c : plan.cores) {
    if (c.kind == CoreKind::Aic) topology.cores.push_back({CrossRole::Aic, c.index, 0});
    else topology.cores.push_back({CrossRole::Aiv, c.index / per_group, c.index % per_group});
  }
  return topology;
}

std::unique_ptr<CrossCore> make_cross_core(const ChipConfig& chip, const Program& program, const LaunchPlan& plan) {
  // plan_launch refused a chip without cross-core flags (launch.cpp) for every reachable one.
  if (!chip.split() || std::none_of(program.code.begin(), program.code.end(), is_cross)) return nullptr;
  return std::make_unique<CrossCore>(cross_topology(chip, plan), uint64_t(chip.timing.cross_core_latency));
}

void report_cross_leftovers(const CrossCore& cross, const Program& program, std::vector<Diagnostic>& out) {
  for (const CrossCore::Leftover& l : cross.leftovers()) {
    const CrossTopology::Core& k = cross.topology().cores[size_t(l.core)];
    const Instr& set = program.code[size_t(l.set_index)];
    out.push_back({Diagnostic::Kind::Sync, l.setter_core, l.set_index, set.line,
                   fmt::format("cross-core flag id {} of core {} ({} of group {}) still holds {} increment{} when the "
                               "run ends, the last from this set_cross on core {}: no wait_cross consumed {}; remove "
                               "the set_cross or add the matching `wait_cross PIPE, id={}` on core {}",
                               l.id, l.core, cross_role_name(k.role), k.group, l.count, l.count > 1 ? "s" : "",
                               l.setter_core, l.count > 1 ? "them" : "it", l.id, l.core)});
  }
}

}  // namespace cubekit
