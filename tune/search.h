// The search: each problem's space explored on timing-only emulated cycles, candidates evaluated
// in parallel on the host's threads (and over MPI ranks), results kept in the tuning database as
// they come.
//
// Strategy. A space no larger than the budget (with the time alone, kDefaultBudget) is enumerated
// (exhaustive). A larger one is searched
// from the default schedule's point by steepest descent: every untried neighbour of the current
// point (one parameter one step up or down) in one batch, then the best of them if it is better;
// at a local optimum, a batch of kicks (two or three parameters of the best point set at random)
// and descent again from the best kick -- an iterated local search. Why this one: the cycles of a
// schedule change smoothly with each tile size and copy count, so neighbours say where to go, and
// a neighbourhood is a natural parallel batch; kicks leave the optima that two coupled parameters
// (tk_l0 and tk_l1, rows and channels) make. Points the schedule's validator rejects cost no
// evaluation. Deterministic given the seed: batches never depend on how many threads or ranks
// evaluate them, and cycles are exact.
#pragma once

#include "emulator/chip_config.h"
#include "tune/cluster.h"
#include "tune/database.h"
#include "tune/space.h"

#include <atomic>
#include <functional>
#include <optional>
#include <vector>

namespace cubekit::tune {

inline constexpr int64_t kDefaultBudget = 64;

struct Settings {
  int64_t budget = kDefaultBudget;  // evaluations per problem, the default's included; 0: no limit but `seconds`
  double seconds = 0;               // 0: no limit; else no candidate starts after this long (best so far kept)
  uint64_t seed = 0;
  bool exhaustive = false;          // every point of the space, whatever the budget
  int threads = 0;                  // host threads evaluating at once per rank; 0: all the host's
  // A request to stop (the CLI's Ctrl-C), read between candidates: as at the time limit, no
  // candidate starts after it and the best so far is kept (Best::stopped_by_time). Null: none.
  const std::atomic<bool>* stop = nullptr;
};

struct Outcome {
  Problem problem;
  // The best schedule (params empty: the default) and what the search did; cycles 0 when the time
  // limit came before even the default schedule ran (nothing measured).
  Best best;
  int64_t cached = 0;         // evaluations answered by the database (a resumed search)
  // The best is an earlier search's, from the database, better than any this search ran (a
  // smaller second search never replaces it); then this search's own best cycles.
  std::optional<uint64_t> own_best;
  int64_t pruned = 0;         // points the validators rejected before any compile
  int64_t failed = 0;         // candidates that failed to compile or run (`errors` says why)
  std::vector<std::string> errors;
  double seconds = 0;
  double speedup() const { return best.cycles ? double(best.default_cycles) / double(best.cycles) : 0; }
};

struct Progress {
  int64_t done = 0, total = 0;  // evaluations over every problem
  double seconds = 0;           // since the start
  double limit = 0;             // Settings::seconds
  int64_t fresh = 0;            // candidates compiled and run (not answered by the database, not pruned)
  double rate = 0;              // fresh per second
  int problems_done = 0, problems = 0;
  const Outcome* best = nullptr;  // the problem whose search moved last
};

// Evaluates one candidate: compile and a timing-only run on one host thread. The cycles, or a
// user error (the candidate's compile or run failed).
uint64_t evaluate(const Problem& problem, const Params& params, const ChipConfig& chip);

// Tunes every problem; with `db`, takes candidates it already holds (resuming) and records new
// ones and each best schedule (rank 0 writes). `progress` is called after each batch.
// Refuses a budget below 2 (the default schedule and one candidate) where one was given: the
// library's and the command line's one message (Settings reads 0 as "no budget", the CLI's
// --budget 0 is a budget typed).
void check_budget(int64_t budget);

std::vector<Outcome> tune(const std::vector<Problem>& problems, const ChipConfig& chip, const Settings& settings,
                          Database* db, Cluster& cluster, const std::function<void(const Progress&)>& progress = {});

}  // namespace cubekit::tune
