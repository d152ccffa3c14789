#include "tune/search.h"

#include "emulator/error.h"
#include "kernels/check.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace cubekit::tune {

namespace {

constexpr int kKicks = 8;          // points per kick batch
constexpr int64_t kExhaustiveBatch = 64;

uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Skipped: the time limit came before any thread started the candidate.
enum class Kind : uint8_t { Evaluated, Pruned, Failed, Skipped };

struct Result {
  Kind kind = Kind::Pruned;
  uint64_t cycles = 0;
  std::string error;
  bool cached = false;
};

// One candidate of a batch: the default schedule (no parameters) or a point of the space.
struct Item {
  size_t problem = 0;
  bool is_default = false;
  std::vector<int> point;
  Params params;
};

// One problem's search: proposes batches, observes their results.
class ProblemSearch {
 public:
  ProblemSearch(Problem p, Space s, const Settings& settings)
      : problem_(std::move(p)), space_(std::move(s)), settings_(settings) {
    rng_ = settings.seed ^ stable_hash(problem_.key());
    // A space no larger than the budget is enumerated; with the time alone (budget 0), one no larger
    // than the default budget (a local search of 37 points stopped at 31, reading as unfinished).
    const int64_t enumerated = settings.budget > 0 ? settings.budget : kDefaultBudget;
    exhaustive_ = settings.exhaustive || space_.grid() + 1 <= uint64_t(enumerated);
    current_ = space_.start;
  }
  const Problem& problem() const { return problem_; }
  const Space& space() const { return space_; }
  bool exhaustive() const { return exhaustive_; }
  int64_t evaluated() const { return evaluated_; }
  // How far along, against budget(): points visited (exhaustive) or evaluations (local).
  // A budget of 0: no limit but the time (Settings::seconds).
  int64_t progress() const {
    return exhaustive_ ? int64_t(next_) + (started_ ? 1 : 0) : settings_.budget ? std::min(evaluated_, settings_.budget) : evaluated_;
  }
  int64_t budget() const { return exhaustive_ ? int64_t(space_.grid()) + 1 : settings_.budget; }
  bool done() const {
    if (exhaustive_) return done_ || (started_ && next_ >= space_.grid() && !stopped_by_time_);
    return done_ || (settings_.budget && evaluated_ >= settings_.budget);
  }
  // The time limit ended the tuning: a search not done by then says so in its outcome.
  void stop_for_time() { stopped_by_time_ = stopped_by_time_ || !done(); }

  std::vector<Item> propose() {
    std::vector<Item> out;
    if (done()) return out;
    if (!started_) {
      started_ = true;
      out.push_back({0, true, {}, {}});
      if (!exhaustive_) out.push_back(item(space_.start));
      else fill_exhaustive(out);
      return out;
    }
    if (exhaustive_) {
      fill_exhaustive(out);
      if (out.empty()) done_ = true;
      return out;
    }
    if (settings_.budget && ++rounds_ > 64 * settings_.budget) {  // only invalid points left to find
      done_ = true;
      return out;
    }
    const int64_t remaining = settings_.budget ? settings_.budget - evaluated_ : INT64_MAX;
    if (phase_ == Phase::Descend) {
      std::vector<std::vector<int>> near = neighbours(current_);
      if (!near.empty()) {
        shuffle(near);
        for (auto& p : near)
          if (int64_t(out.size()) < remaining) out.push_back(item(p));
        return out;
      }
      phase_ = Phase::Kick;
    }
    for (int i = 0; i < kKicks && int64_t(out.size()) < remaining; ++i)
      if (std::optional<std::vector<int>> p = kick(out)) out.push_back(item(*p));
    if (out.empty()) done_ = true;  // nothing left untried
    return out;
  }

  void observe(const std::vector<std::pair<Item, Result>>& batch) {
    std::optional<std::pair<uint64_t, std::vector<int>>> best_of_batch;
    for (const auto& [it, r] : batch) {
      if (r.kind == Kind::Skipped) {  // never run: neither seen nor counted, and the search ends here
        stopped_by_time_ = true;
        continue;
      }
      if (r.kind != Kind::Pruned) ++evaluated_;
      if (r.cached) ++cached_;
      if (r.kind == Kind::Pruned) ++pruned_;
      if (r.kind == Kind::Failed) ++failed_, errors_.push_back(fmt::format("{}: {}", params_text(it.params), r.error));
      if (it.is_default) {
        if (r.kind != Kind::Evaluated)
          user_error("tune {}: the default schedule itself fails: {}", problem_.shape(), r.error);
        default_cycles_ = r.cycles;
        if (!best_ || r.cycles < best_->first) best_ = {r.cycles, {}}, best_params_ = Params{};
        continue;
      }
      seen_[space_.ordinal(it.point)] = r.kind;
      if (r.kind != Kind::Evaluated) continue;
      if (!best_ || r.cycles < best_->first) best_ = {r.cycles, it.point}, best_params_ = it.params;
      if (!best_of_batch || r.cycles < best_of_batch->first) best_of_batch = {r.cycles, it.point};
    }
    if (exhaustive_) return;
    if (phase_ == Phase::Descend) {
      if (!current_cycles_) {  // the start point's batch
        current_cycles_ = best_of_batch ? best_of_batch->first : default_cycles_;
        return;
      }
      if (best_of_batch && best_of_batch->first < *current_cycles_) current_ = best_of_batch->second, current_cycles_ = best_of_batch->first;
      else phase_ = Phase::Kick;
      return;
    }
    if (best_of_batch) current_ = best_of_batch->second, current_cycles_ = best_of_batch->first, phase_ = Phase::Descend;
  }

  Outcome outcome(double seconds) const {
    Outcome o;
    o.problem = problem_;
    o.best.params = best_params_;
    o.best.cycles = best_ ? best_->first : 0;
    o.best.default_cycles = default_cycles_;
    o.best.evaluated = evaluated_;
    o.best.space = candidates_there_are();
    o.best.strategy = exhaustive_ ? "exhaustive" : "local";
    o.best.seed = settings_.seed;
    o.best.stopped_by_time = stopped_by_time_;
    o.cached = cached_, o.pruned = pruned_, o.failed = failed_, o.errors = errors_, o.seconds = seconds;
    return o;
  }

 private:
  enum class Phase : uint8_t { Descend, Kick };

  Item item(const std::vector<int>& p) const { return {0, false, p, space_.at(p)}; }

  // What `evaluated` is counted against, the default schedule included in both: an exhaustive
  // search that saw every point knows which the validators pass; any other knows only the grid.
  int64_t candidates_there_are() const {
    const bool saw_every_point = exhaustive_ && done();
    if (!saw_every_point) return int64_t(space_.grid()) + 1;
    return 1 + int64_t(std::count_if(seen_.begin(), seen_.end(), [](const auto& e) { return e.second != Kind::Pruned; }));
  }

  bool seen(const std::vector<int>& p) const { return seen_.count(space_.ordinal(p)) != 0; }

  void fill_exhaustive(std::vector<Item>& out) {
    while (next_ < space_.grid() && int64_t(out.size()) < kExhaustiveBatch) out.push_back(item(space_.point(next_++)));
  }

  std::vector<std::vector<int>> neighbours(const std::vector<int>& at) const {
    std::vector<std::vector<int>> out;
    for (size_t i = 0; i < at.size(); ++i)
      for (int d : {-1, 1}) {
        std::vector<int> p = at;
        p[i] += d;
        if (p[i] < 0 || p[i] >= int(space_.params[i].values.size()) || seen(p)) continue;
        out.push_back(std::move(p));
      }
    return out;
  }

  void shuffle(std::vector<std::vector<int>>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[splitmix(rng_) % i]);
  }

  // Two or three parameters of the best point set at random; an untried point not in `batch`.
  std::optional<std::vector<int>> kick(const std::vector<Item>& batch) {
    const std::vector<int>& from = best_ && !best_->second.empty() ? best_->second : space_.start;
    auto fresh = [&](const std::vector<int>& p) {
      if (seen(p)) return false;
      for (const Item& it : batch)
        if (it.point == p) return false;
      return true;
    };
    for (int attempt = 0; attempt < 200; ++attempt) {
      std::vector<int> p = from;
      int changes = 2 + int(splitmix(rng_) % 2);
      for (int c = 0; c < changes; ++c) {
        size_t i = splitmix(rng_) % p.size();
        p[i] = int(splitmix(rng_) % space_.params[i].values.size());
      }
      if (fresh(p)) return p;
    }
    for (int attempt = 0; attempt < 1000; ++attempt) {  // anywhere
      std::vector<int> p = space_.point(splitmix(rng_) % space_.grid());
      if (fresh(p)) return p;
    }
    return std::nullopt;
  }

  Problem problem_;
  Space space_;
  Settings settings_;
  uint64_t rng_ = 0;
  bool exhaustive_ = false, started_ = false, done_ = false, stopped_by_time_ = false;
  uint64_t next_ = 0;  // exhaustive: the next ordinal
  int64_t rounds_ = 0;
  Phase phase_ = Phase::Descend;
  std::vector<int> current_;
  std::optional<uint64_t> current_cycles_;
  std::map<uint64_t, Kind> seen_;
  std::optional<std::pair<uint64_t, std::vector<int>>> best_;
  Params best_params_;
  uint64_t default_cycles_ = 0;
  int64_t evaluated_ = 0, cached_ = 0, pruned_ = 0, failed_ = 0;
  std::vector<std::string> errors_;
};

// Validates, then compiles and runs the candidate: pruned, evaluated, or failed.
Result evaluate_item(const Problem& problem, const Item& it, const ChipConfig& chip) {
  try {
    if (!it.is_default) problem.validate(it.params, chip);
  } catch (const UserError& e) {
    return {Kind::Pruned, 0, e.what(), false};
  }
  try {
    return {Kind::Evaluated, evaluate(problem, it.params, chip), "", false};
  } catch (const UserError& e) {
    return {Kind::Failed, 0, e.what(), false};
  } catch (const InternalError& e) {
    return {Kind::Failed, 0, fmt::format("internal error (a cubekit bug): {}", e.what()), false};
  }
}

// What this rank evaluated of a batch, and how many numbers its threads drew past the batch's end.
struct Claimed {
  std::vector<size_t> mine;  // indices into the items, ascending
  int64_t past = 0;
};

// Evaluates the pending candidates on `threads` host threads, each thread taking the next number of the
// counter every thread of every rank shares (Cluster::claim): numbers base .. base + pending.size() - 1
// are the batch's, so a rank that drew cheap candidates takes more of them. Results by index. A
// thread takes no candidate once `time_is_up` (the time limit is per candidate, not per batch: a
// batch can hold 64 candidates of every problem); those nobody took stay Skipped.
Claimed evaluate_claimed(const std::vector<const Problem*>& problems, const std::vector<Item>& items,
                         const std::vector<size_t>& pending, int64_t base, const ChipConfig& chip, int threads,
                         Cluster& cluster, const std::function<bool()>& time_is_up, std::vector<Result>& results) {
  Claimed c;
  std::mutex m;
  auto work = [&] {
    for (;;) {
      if (time_is_up()) return;  // draws no number: the batch's count of drawn numbers stays exact
      const int64_t n = cluster.claim() - base;
      if (n >= int64_t(pending.size())) {
        std::lock_guard lock(m);
        ++c.past;
        return;
      }
      const size_t i = pending[size_t(n)];
      results[i] = evaluate_item(*problems[items[i].problem], items[i], chip);
      std::lock_guard lock(m);
      c.mine.push_back(i);
    }
  };
  const int n = std::max(1, std::min<int>(threads, int(pending.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  std::sort(c.mine.begin(), c.mine.end());
  return c;
}

// `params`' cycles as this build compiles and runs them, or none when it no longer can: what an
// earlier search stored is taken only after that (a schedule a later cubekit refuses stayed the
// best however often the problem was tuned again, and every kernel run failed on it).
std::optional<uint64_t> cycles_now(const Problem& p, const Params& params, const ChipConfig& chip) {
  try {
    return evaluate(p, params, chip);
  } catch (const UserError&) {
    return std::nullopt;
  }
}

// What the database held before this search (`earlier`, by params) may hold a better schedule
// than any this search ran (a second search with a smaller budget, or a different seed): it stays
// the best, so that a search never makes the kernels slower.
void keep_earlier_best(const std::map<std::string, Candidate>& earlier, const ChipConfig& chip, Outcome& o) {
  if (!o.best.cycles) return;
  std::vector<const Candidate*> better;
  for (const auto& [key, c] : earlier)
    if (c.cycles && *c.cycles < o.best.cycles) better.push_back(&c);
  std::sort(better.begin(), better.end(), [](const Candidate* a, const Candidate* b) { return *a->cycles < *b->cycles; });
  // The best of them that still compiles, evaluated again: one run, not one a candidate (after a
  // change of the model, every stored figure may claim to beat this search's).
  for (const Candidate* c : better) {
    const std::optional<uint64_t> now = cycles_now(o.problem, c->params, chip);
    if (!now) continue;
    if (*now >= o.best.cycles) return;
    o.own_best = o.best.cycles;
    o.best.params = c->params;
    o.best.cycles = *now;
    return;
  }
}

// The database's best row says what the search that found its schedule did (evaluated, seed,
// strategy: what `kernel --json` reports as "tuned"). A search that finds nothing better -- a later,
// smaller one, or one that only finds the same again -- leaves it as it is; one the time limit
// stopped before the default ran has measured nothing to store.
void store_best(Database& db, const std::string& chip_hash, const ChipConfig& chip, const Problem& p, const Outcome& o) {
  if (!o.best.cycles) return;
  std::optional<Best> stored = db.best(chip_hash, p.kernel, p.key());
  if (stored && stored->cycles <= o.best.cycles) {
    const std::optional<uint64_t> now = cycles_now(p, stored->params, chip);
    if (now && *now <= o.best.cycles) return;
  }
  db.set_best(chip_hash, chip.name, p.kernel, p.key(), o.best);
}

// Every search's next proposals as one batch, the default schedules first: without its default's
// cycles a problem has nothing to report, so a short time limit is spent on them before any point.
std::vector<Item> propose_defaults_first(std::vector<ProblemSearch>& searches) {
  std::vector<Item> items;
  for (size_t i = 0; i < searches.size(); ++i)
    for (Item& it : searches[i].propose()) it.problem = i, items.push_back(std::move(it));
  std::stable_partition(items.begin(), items.end(), [](const Item& it) { return it.is_default; });
  return items;
}

}  // namespace

uint64_t evaluate(const Problem& problem, const Params& params, const ChipConfig& chip) {
  kernels::RunSettings s;
  s.reference = false;
  s.sim.timing_only = true;
  s.sim.threads = 1;
  kernels::KernelRun run = kernels::compile_and_run(problem.build(params, chip), chip, s);
  if (!run.sim.report.clean()) user_error("the emulator reported a problem with this schedule");
  return run.sim.report.cycles;
}

void check_budget(int64_t budget) {
  if (budget < 2)
    user_error("tune: a budget of {} is too small; give at least 2 (the default schedule and one candidate), or a "
               "time limit alone (--time S, time=S)", budget);
}

std::vector<Outcome> tune(const std::vector<Problem>& problems, const ChipConfig& chip, const Settings& settings,
                          Database* db, Cluster& cluster, const std::function<void(const Progress&)>& progress) {
  // The settings are the CLI's --budget, --time, --threads and Python's budget=, time=, threads=.
  if (settings.seconds < 0) user_error("tune: a time limit of {} seconds; it must be positive", settings.seconds);
  if (!settings.exhaustive && settings.budget != 0) check_budget(settings.budget);
  if (!settings.exhaustive && settings.budget == 0 && settings.seconds <= 0)
    user_error("tune: no budget and no time limit: give a budget (candidates per problem: --budget N, budget=N), a "
               "time (--time S, time=S) or exhaustive (--exhaustive, exhaustive=True)");
  if (settings.threads < 0) user_error("tune: {} threads; give a positive number (0: every core)", settings.threads);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const int threads = settings.threads > 0 ? settings.threads : int(std::max(1u, std::thread::hardware_concurrency()));
  const std::string chip_hash = chip_key(chip);

  std::vector<ProblemSearch> searches;
  std::vector<std::map<std::string, Candidate>> cache(problems.size());
  std::vector<const Problem*> by_index;
  for (size_t i = 0; i < problems.size(); ++i) {
    searches.emplace_back(problems[i], space_of(problems[i], chip), settings);
    if (db)
      for (Candidate& c : db->candidates(chip_hash, problems[i].kernel, problems[i].key()))
        cache[i][params_json(c.params)] = std::move(c);
  }
  for (const ProblemSearch& s : searches) by_index.push_back(&s.problem());
  std::vector<double> finished(problems.size(), -1);
  // The shared counter's first number for the next batch: past what any earlier search on this
  // cluster drew (each rank draws one here; the largest plus one is where the counter stands).
  int64_t base = cluster.claim() + 1;
  if (cluster.size() > 1)
    for (const std::string& b : cluster.allgather(std::to_string(base))) base = std::max<int64_t>(base, std::stoll(b));
  int64_t fresh = 0;
  auto time_is_up = [&] {
    return (settings.stop && settings.stop->load()) || (settings.seconds > 0 && elapsed() > settings.seconds);
  };
  bool stop = false;
  while (!stop) {
    std::vector<Item> items = propose_defaults_first(searches);
    if (items.empty()) break;
    std::vector<Result> results(items.size());
    std::vector<size_t> pending;
    for (size_t i = 0; i < items.size(); ++i) {
      auto hit = cache[items[i].problem].find(params_json(items[i].params));
      if (hit == cache[items[i].problem].end()) {
        results[i].kind = Kind::Skipped;  // until a thread runs it
        pending.push_back(i);
        continue;
      }
      const Candidate& c = hit->second;
      results[i] = {c.cycles ? Kind::Evaluated : Kind::Failed, c.cycles.value_or(0), c.error, true};
    }
    // Whoever is free takes the next candidate; all ranks then hold every result.
    Claimed claimed = evaluate_claimed(by_index, items, pending, base, chip, threads, cluster, time_is_up, results);
    int64_t past = claimed.past;
    if (cluster.size() > 1) {
      nlohmann::json payload = {{"stop", time_is_up()}, {"past", claimed.past},
                                {"results", nlohmann::json::array()}};
      for (size_t i : claimed.mine) payload["results"].push_back({i, int(results[i].kind), results[i].cycles, results[i].error});
      std::vector<std::string> all = cluster.allgather(payload.dump());
      past = 0;
      for (size_t r = 0; r < all.size(); ++r) {
        nlohmann::json j = nlohmann::json::parse(all[r]);
        if (r == 0) stop = j["stop"].get<bool>();
        past += j["past"].get<int64_t>();
        for (const auto& e : j["results"])
          results[e[0].get<size_t>()] = {Kind(e[1].get<int>()), e[2].get<uint64_t>(), e[3].get<std::string>(), false};
      }
    } else {
      stop = time_is_up();
    }
    int64_t taken = 0;  // the same on every rank: results are gathered, the skipped stay skipped everywhere
    for (size_t i : pending) taken += results[i].kind != Kind::Skipped;
    stop = stop || taken < int64_t(pending.size());
    base += taken + past;  // every number drawn in this batch, the same on every rank
    for (size_t i : pending) fresh += results[i].kind == Kind::Evaluated || results[i].kind == Kind::Failed;
    std::vector<std::vector<std::pair<Item, Result>>> per(searches.size());
    std::vector<std::vector<Candidate>> record(searches.size());
    for (size_t i = 0; i < items.size(); ++i) {
      const Result& r = results[i];
      if (!r.cached && (r.kind == Kind::Evaluated || r.kind == Kind::Failed))
        record[items[i].problem].push_back({items[i].params, r.kind == Kind::Evaluated ? std::optional<uint64_t>(r.cycles) : std::nullopt, r.error});
      per[items[i].problem].push_back({std::move(items[i]), r});
    }
    for (size_t i = 0; i < searches.size(); ++i) {
      if (per[i].empty()) continue;
      searches[i].observe(per[i]);
      if (db && cluster.rank() == 0) db->record(chip_hash, chip.name, problems[i].kernel, problems[i].key(), record[i]);
    }
    Progress p;
    p.seconds = elapsed();
    p.limit = settings.seconds;
    p.fresh = fresh;
    p.rate = p.seconds > 0 ? double(fresh) / p.seconds : 0;
    p.problems = int(searches.size());
    for (size_t i = 0; i < searches.size(); ++i) {
      p.done += searches[i].progress();
      p.total += searches[i].budget();
      if (searches[i].done()) {
        ++p.problems_done;
        if (finished[i] < 0) finished[i] = p.seconds;
      }
    }
    if (progress) {
      Outcome latest;
      for (size_t i = 0; i < searches.size(); ++i)
        if (!per[i].empty()) latest = searches[i].outcome(p.seconds);
      p.best = &latest;
      progress(p);
    }
  }
  std::vector<Outcome> out;
  for (size_t i = 0; i < searches.size(); ++i) {
    if (stop) searches[i].stop_for_time();
    out.push_back(searches[i].outcome(finished[i] < 0 ? elapsed() : finished[i]));
    keep_earlier_best(cache[i], chip, out.back());
    if (db && cluster.rank() == 0) store_best(*db, chip_hash, chip, problems[i], out.back());
  }
  return out;
}

}  // namespace cubekit::tune
