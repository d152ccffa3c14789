// `cubekit tune KERNEL [shape options]` and `cubekit tune --suite resnet50|bert-large`: search the
// schedule space on timing-only emulated cycles, keep what is found in the tuning database, print
// a progress bar (best so far, ETA) and a table of default against tuned cycles. Under mpirun the
// ranks share the candidates and rank 0 writes the database (tune/cluster.h).
#include "emulator/error.h"
#include "tools/commands.h"
#include "tools/kernel_args.h"
#include "tools/twin.h"
#include "tune/search.h"
#include "tune/suites.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cmath>
#include <csignal>
#include <functional>
#include <map>
#include <set>
#include <thread>
#include <unistd.h>

namespace cubekit::cli {

namespace {

struct TuneArgs {
  std::string chip = "ascend910", suite;  // as every command's default
  int64_t batch = 8, budget = tune::kDefaultBudget;
  double seconds = 0;
  uint64_t seed = 0;
  int threads = 0;
  bool exhaustive = false, json = false, quiet = false, list = false, budget_given = false, chip_given = false,
       batch_given = false;
  std::function<tune::Problem()> problem;  // set by the kernel's subcommand
};

// One line, rewritten in place on a terminal; a line every tenth of the way otherwise.
class ProgressBar {
 public:
  explicit ProgressBar(bool quiet) : quiet_(quiet), tty_(isatty(2)) {}
  void operator()(const tune::Progress& p) {
    if (quiet_) return;
    // The candidates done, or with no budget (--time only) the time gone.
    const double f = std::min(1.0, p.total ? double(p.done) / double(p.total) : p.limit > 0 ? p.seconds / p.limit : 0.0);
    if (!tty_ && int(f * 10) == last_tenth_ && p.problems_done < p.problems) return;
    last_tenth_ = int(f * 10);
    constexpr int kWidth = 24;
    const int filled = int(f * kWidth);
    const double eta = p.total ? (p.rate > 0 ? double(p.total - p.done) / p.rate : 0) : std::max(0.0, p.limit - p.seconds);
    std::string best;
    if (p.best && p.best->best.cycles)
      best = fmt::format("  {}: {:.2f}x", p.best->problem.label.empty() ? p.best->problem.shape() : p.best->problem.label,
                         p.best->speedup());
    fmt::print(stderr, "{}[{}{}] {}/{} candidates, {}/{} problems, {:.1f}/s, ETA {:.0f} s{}{}", tty_ ? "\r\x1b[K" : "",
               std::string(size_t(filled), '#'), std::string(size_t(kWidth - filled), '.'), p.done,
               p.total ? std::to_string(p.total) : std::string("-"),
               p.problems_done, p.problems, p.rate, eta, best, tty_ ? "" : "\n");
    std::fflush(stderr);
  }
  void finish() {
    if (!quiet_ && tty_) fmt::print(stderr, "\n");
  }

 private:
  bool quiet_, tty_;
  int last_tenth_ = -1;
};

std::string with_commas(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return s;
}

// Whether the search measured anything: the time limit can come before a problem's default ran.
bool measured(const tune::Outcome& o) { return o.best.cycles > 0; }

// Ctrl-C during a search: the first stops it as its time limit would (the candidates running
// finish, and the best so far is printed and kept in the database); the handler then resets
// (SA_RESETHAND), so that a second Ctrl-C quits at once.
std::atomic<bool> interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

std::atomic<int> stopped_by{0};  // the signal that stopped the search

// Ctrl-C, and SIGTERM (timeout, a job scheduler): killed at once, a search kept its candidates but
// no best, and the kernels did not take what it found.
void on_interrupt(int signal) {
  interrupted.store(true);
  stopped_by.store(signal);
  static const char kSaid[] =
      "\ncubekit tune: stopping after the candidates running now; the best so far is kept (the signal again quits at "
      "once)\n";
  [[maybe_unused]] ssize_t n = write(STDERR_FILENO, kSaid, sizeof kSaid - 1);
}

// What stopped the searches that did not finish, for the table's notes.
const char* stopper() { return !interrupted.load() ? "the time limit" : stopped_by.load() == SIGTERM ? "SIGTERM" : "Ctrl-C"; }

void print_row(const tune::Outcome& o, int count) {
  const std::string schedule = !measured(o)           ? fmt::format("(not reached: {} came first)", stopper())
                               : o.best.params.empty() ? "(the default)"
                                                       : tune::params_text(o.best.params);
  fmt::print("{:<22} {:<10} {:<44} {:>3} {:>13} {:>13} {:>7} {:>5}/{:<5}  {}\n", o.problem.label.empty() ? "-" : o.problem.label,
             o.problem.kernel, o.problem.shape(), count, measured(o) ? with_commas(o.best.default_cycles) : "-",
             measured(o) ? with_commas(o.best.cycles) : "-", measured(o) ? fmt::format("{:.3f}x", o.speedup()) : "-",
             o.best.evaluated, o.best.space, schedule);
}

// The geometric-mean speedup and the layers' totals, over the problems the search measured.
void print_totals(const std::vector<tune::Outcome>& outcomes, const std::vector<int>& counts, const ChipConfig& chip) {
  double log_sum = 0, total_default = 0, total_tuned = 0;
  size_t n = 0;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    const tune::Outcome& o = outcomes[i];
    if (!measured(o)) continue;
    ++n;
    log_sum += std::log(o.speedup());
    total_default += double(o.best.default_cycles) * counts[i];
    total_tuned += double(o.best.cycles) * counts[i];
  }
  if (n == 0) {
    fmt::print("no problem measured: {} came before any default schedule ran{}\n", stopper(),
               interrupted.load() ? "" : "; give a longer --time");
    return;
  }
  fmt::print("geometric-mean speedup {:.3f}x over {} problems{}; ", std::exp(log_sum / double(n)), n,
             n < outcomes.size() ? fmt::format(" (of {}: the others were not reached)", outcomes.size()) : "");
  fmt::print("all layers {}as run: {} -> {} cycles ({:.3f}x) on {}\n", n < outcomes.size() ? "measured " : "",
             with_commas(uint64_t(total_default)), with_commas(uint64_t(total_tuned)), total_default / total_tuned, chip.name);
}

void print_table(const std::vector<tune::Outcome>& outcomes, const std::vector<int>& counts, const ChipConfig& chip,
                 double seconds, int64_t fresh, int ranks, int threads, const std::string& db) {
  fmt::print("{:<22} {:<10} {:<44} {:>3} {:>13} {:>13} {:>7} {:>11}  {}\n", "problem", "kernel", "shape", "n",
             "default", "tuned", "speedup", "evaluated", "schedule");
  for (size_t i = 0; i < outcomes.size(); ++i) print_row(outcomes[i], counts[i]);
  fmt::print("(evaluated: the candidates run over the candidates there are, both counting the default schedule; the "
             "candidates there are: the default and the points of the space's whole grid, or after an exhaustive search "
             "that saw them all, the points its validators pass; a parameter of 0 in a schedule is the default's choice)\n");
  print_totals(outcomes, counts, chip);
  fmt::print("{} candidates evaluated in {:.1f} s ({:.2f}/s) on {} rank{} x {} thread{}; ", fresh, seconds,
             seconds > 0 ? double(fresh) / seconds : 0.0, ranks, ranks > 1 ? "s" : "", threads, threads > 1 ? "s" : "");
  fmt::print("{}\n", db.empty() ? "no database (--db off): nothing kept" : "kept in " + db);
  constexpr size_t kShown = 3;  // failures per problem shown; the database keeps every one
  for (const tune::Outcome& o : outcomes) {
    if (o.best.stopped_by_time)
      fmt::print("note: {} {}: {} stopped this {} search after {} of the {} candidates{}; run it again{} to go on from "
                 "what the database holds\n",
                 o.problem.kernel, o.problem.shape(), stopper(), o.best.strategy, with_commas(uint64_t(o.best.evaluated)),
                 with_commas(uint64_t(o.best.space)),
                 o.pruned ? fmt::format(" ({} more points pruned)", with_commas(uint64_t(o.pruned))) : "",
                 interrupted.load() ? "" : " (a longer --time)");
    if (o.own_best)
      fmt::print("note: {} {}: an earlier search's schedule in the database ({} cycles) beats this search's best ({}); "
                 "it stays the best\n",
                 o.problem.kernel, o.problem.shape(), with_commas(o.best.cycles), with_commas(*o.own_best));
    for (size_t i = 0; i < std::min(kShown, o.errors.size()); ++i)
      fmt::print("warning: {} {}: a candidate failed: {}\n", o.problem.kernel, o.problem.shape(), o.errors[i]);
    if (o.errors.size() > kShown)
      fmt::print("warning: {} {}: {} more candidates failed (cubekit tune --list, or the database's candidates table)\n",
                 o.problem.kernel, o.problem.shape(), o.errors.size() - kShown);
  }
}

nlohmann::json outcome_json(const tune::Outcome& o, int count) {
  return {{"label", o.problem.label}, {"kernel", o.problem.kernel}, {"shape", o.problem.shape()},
          {"problem", nlohmann::json::parse(o.problem.key())}, {"count", count}, {"params", o.best.params},
          {"cycles", o.best.cycles}, {"default_cycles", o.best.default_cycles}, {"speedup", o.speedup()},
          {"evaluated", o.best.evaluated}, {"cached", o.cached}, {"pruned", o.pruned}, {"failed", o.failed},
          {"space", o.best.space}, {"strategy", o.best.strategy}, {"seed", o.best.seed},
          {"stopped_by_time", o.best.stopped_by_time}, {"errors", o.errors},
          {"own_best_cycles", o.own_best ? nlohmann::json(*o.own_best) : nlohmann::json(nullptr)}};
}

// `chip`: only its rows (--chip given), or every chip's (empty).
int list_database(bool json, const std::string& chip) {
  std::string path = tune::database_path();
  if (path == "off") user_error("tune --list: no database (the setting is off); give --db FILE");
  std::vector<tune::Database::Row> rows = tune::Database::holds_nothing(path)
                                              ? std::vector<tune::Database::Row>{}
                                              : tune::Database::open(path, tune::Database::Mode::Read)->all_best();
  if (!chip.empty()) {
    const std::string key = tune::chip_key(load_chip(chip));
    std::erase_if(rows, [&](const tune::Database::Row& r) { return r.chip != key; });
  }
  if (json) {
    nlohmann::json j = {{"database", path}, {"best", nlohmann::json::array()}};
    for (const tune::Database::Row& r : rows)
      j["best"].push_back({{"chip", r.chip_name}, {"chip_key", r.chip}, {"kernel", r.kernel},
                           {"problem", nlohmann::json::parse(r.problem)}, {"params", r.best.params},
                           {"cycles", r.best.cycles}, {"default_cycles", r.best.default_cycles},
                           {"evaluated", r.best.evaluated}, {"space", r.best.space}, {"strategy", r.best.strategy},
                           {"seed", r.best.seed}, {"stopped_by_time", r.best.stopped_by_time}});
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  // Two configs of one name (a preset and an edited copy) are told apart by their key.
  std::map<std::string, std::set<std::string>> keys;
  for (const tune::Database::Row& r : rows) keys[r.chip_name].insert(r.chip);
  fmt::print("{}:\n", path);
  for (const tune::Database::Row& r : rows) {
    std::string chip = keys[r.chip_name].size() > 1 ? r.chip_name + " #" + r.chip.substr(0, 8) : r.chip_name;
    fmt::print("  {:<12} {:<10} {}  {} cycles (default {}), {}{}\n", chip, r.kernel, r.problem, r.best.cycles,
               r.best.default_cycles, tune::params_text(r.best.params),
               r.best.stopped_by_time ? " (found by a search stopped before its end: time limit, Ctrl-C or SIGTERM)" : "");
  }
  return 0;
}

int run_tune(const TuneArgs& a) {
  if (a.list) return list_database(a.json, a.chip_given ? a.chip : "");
  if (a.suite.empty() && !a.problem)
    user_error("tune: name a kernel (cubekit tune matmul --m 1024 --n 1024 --k 1024) or a suite (--suite {})",
               fmt::join(tune::suite_names(), " or "));
  if (!a.suite.empty() && a.problem) user_error("tune: give a kernel or --suite, not both");
  // Before the kernel's name --batch is the suite's: the kernel's batch stayed 1 without a word.
  if (a.problem && a.batch_given)
    user_error("tune: --batch before the kernel's name is a suite's batch (--suite); give the kernel's after its name "
               "(cubekit tune attention --batch 4 ...)");
  tune::check_database_has_a_home("--db FILE");
  const ChipConfig chip = load_chip(a.chip);
  std::vector<tune::Problem> problems;
  std::vector<int> counts;
  if (a.problem) {
    problems.push_back(a.problem());
    counts.push_back(1);
  } else {
    for (tune::Layer& l : tune::suite(a.suite, a.batch)) problems.push_back(std::move(l.problem)), counts.push_back(l.count);
  }
  if (tune::under_mpi()) run_where_modules_load("Open MPI (tune runs under mpirun)");  // before any output
  std::unique_ptr<tune::Cluster> cluster = tune::under_mpi() ? tune::mpi_cluster() : std::make_unique<tune::Cluster>();
  tune::Settings s;
  // --time alone: the time is the limit; --budget with it: both are.
  s.budget = a.seconds > 0 && !a.budget_given ? 0 : a.budget;
  s.seconds = a.seconds, s.seed = a.seed, s.exhaustive = a.exhaustive;
  s.threads = a.threads ? a.threads : (cluster->size() > 1 ? 1 : 0);
  // Rank 0 creates the database before the others open it to read what it already holds.
  const std::string path = tune::database_path();
  std::unique_ptr<tune::Database> db;
  if (path != "off" && cluster->rank() == 0) db = tune::Database::open(path, tune::Database::Mode::Create);
  cluster->allgather("");
  if (path != "off" && cluster->rank() != 0) db = tune::Database::open(path, tune::Database::Mode::Read);
  ProgressBar bar(a.quiet || a.json || cluster->rank() != 0);
  auto start = std::chrono::steady_clock::now();
  int64_t fresh = 0;
  struct sigaction on_ctrl_c {}, before {}, before_term {};
  on_ctrl_c.sa_handler = on_interrupt;
  on_ctrl_c.sa_flags = SA_RESETHAND;
  sigemptyset(&on_ctrl_c.sa_mask);
  sigaction(SIGINT, &on_ctrl_c, &before);
  sigaction(SIGTERM, &on_ctrl_c, &before_term);
  s.stop = &interrupted;
  std::vector<tune::Outcome> outcomes = tune::tune(problems, chip, s, db.get(), *cluster, [&](const tune::Progress& p) {
    fresh = p.fresh;
    bar(p);
  });
  sigaction(SIGINT, &before, nullptr);
  sigaction(SIGTERM, &before_term, nullptr);
  bar.finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (cluster->rank() != 0) return 0;
  const int threads = s.threads ? s.threads : int(std::max(1u, std::thread::hardware_concurrency()));
  if (a.json) {
    nlohmann::json j = {{"chip", chip.name}, {"suite", a.suite}, {"seconds", seconds}, {"evaluated_fresh", fresh},
                        {"candidates_per_second", seconds > 0 ? double(fresh) / seconds : 0.0}, {"ranks", cluster->size()},
                        {"threads", threads}, {"database", path == "off" ? "" : path}, {"interrupted", interrupted.load()},
                        {"problems", nlohmann::json::array()}};
    double log_sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < outcomes.size(); ++i) {
      j["problems"].push_back(outcome_json(outcomes[i], counts[i]));
      if (measured(outcomes[i])) log_sum += std::log(outcomes[i].speedup()), ++n;
    }
    // Over the problems measured; null when the time limit came before any default ran.
    j["geomean_speedup"] = n ? nlohmann::json(std::exp(log_sum / double(n))) : nlohmann::json(nullptr);
    fmt::print("{}\n", j.dump(2));
  } else {
    print_table(outcomes, counts, chip, seconds, fresh, cluster->size(), threads, path == "off" ? "" : path);
  }
  if (interrupted.load()) return 128 + stopped_by.load();  // the shell's code for the signal, after what it kept is printed
  for (const tune::Outcome& o : outcomes)
    if (o.failed) return 1;
  return 0;
}

// `wanted`: false when the command line names another kernel (Chosen).
template <class Args>
void add_kernel_subcommand(bool wanted, CLI::App* tune, const std::string& name, const std::string& what, TuneArgs& ta,
                           const std::function<void(CLI::App*, Args&)>& add,
                           const std::function<tune::Problem(const Args&)>& make) {
  if (!wanted) return;
  auto args = std::make_shared<Args>();
  CLI::App* sub = tune->add_subcommand(name, what);
  options_when_chosen(sub, [add, args](CLI::App* c) { add(c, *args); });
  sub->fallthrough();  // the tuning options (--budget, --db, ...) belong to `tune`
  sub->callback([args, make, &ta] { ta.problem = [args, make] { return make(*args); }; });
}

}  // namespace

void add_tune(CLI::App& app, int& exit_code, const Chosen& chosen) {
  auto ta = std::make_shared<TuneArgs>();
  CLI::App* t = app.add_subcommand("tune", "search a kernel's schedules on emulated cycles and keep the best in the tuning database");
  t->require_subcommand(0, 1);
  options_when_chosen(t, [ta](CLI::App* t) {  // when `tune` is the command
    t->add_option("--suite", ta->suite, "tune every distinct layer of a network: resnet50 or bert-large");
    t->add_option("--batch", ta->batch, "the suite's batch (a kernel's own --batch goes after its name)")
        ->capture_default_str()
        ->each([ta](const std::string&) { ta->batch_given = true; });
    t->add_option("--chip", ta->chip, "chip preset or JSON config")->capture_default_str();
    t->add_option("--budget", ta->budget, "candidates evaluated per problem, the default schedule's included (a space "
                                          "no larger is enumerated)")->capture_default_str();
    t->add_option("--time", ta->seconds, "stop starting new candidates after this many seconds (the best so far is kept); "
                                        "alone, the time is the only limit (and a space of 64 or fewer is enumerated)");
    t->add_option("--seed", ta->seed, "the search's seed (the same seed, the same search)")->capture_default_str()->check(kNotNegative)->check(fits<uint64_t>());
    t->add_option("--threads", ta->threads, "candidates evaluated at once (default: every core; 1 per rank under mpirun)")
        ->check(kNotNegative);
    t->add_flag("--exhaustive", ta->exhaustive, "evaluate every point of the space");
    t->add_flag("--json", ta->json, "print the results as one JSON object");
    t->add_flag("--quiet", ta->quiet, "no progress bar");
    t->add_flag("--list", ta->list, "print what the database holds");
    add_db_option(t);
  });

  using tune::Problem;
  std::vector<std::string> names = {"matmul", "conv2d", "attention"};
  for (const std::string& name : kernels::vector_kernel_names()) names.push_back(name);
  auto wanted = [&](std::string_view name) { return chosen.wants("tune", name, names); };
  add_kernel_subcommand<MatmulArgs>(wanted("matmul"), t, "matmul", "tune matmul's tiles, k steps, L1 copies, core grouping and stagger", *ta,
      [](CLI::App* c, MatmulArgs& a) { add_matmul_options(c, a, true); },
      [](const MatmulArgs& a) { Problem p; p.kernel = "matmul"; p.matmul = options_of(a); return p; });
  add_kernel_subcommand<ConvArgs>(wanted("conv2d"), t, "conv2d", "tune conv2d's output rows and channels per tile, channels per L1 fill, copies, images", *ta,
      [](CLI::App* c, ConvArgs& a) { add_conv_options(c, a, true); },
      [](const ConvArgs& a) { Problem p; p.kernel = "conv2d"; p.conv = options_of(a); return p; });
  add_kernel_subcommand<AttentionArgs>(wanted("attention"), t, "attention", "tune flash attention's query and key tiles", *ta,
      [](CLI::App* c, AttentionArgs& a) { add_attention_options(c, a, true); },
      [](const AttentionArgs& a) { Problem p; p.kernel = "attention"; p.attention = options_of(a); return p; });
  for (const std::string& name : kernels::vector_kernel_names())
    add_kernel_subcommand<VectorArgs>(wanted(name), t, name, fmt::format("tune {}'s {}", name, kernels::is_row_kernel(name) ? "tile rows and buffer copies" : "buffer copies"), *ta,
        [name](CLI::App* c, VectorArgs& a) { a.name = name; add_vector_options(c, a, true); },
        [name](const VectorArgs& a) { Problem p; p.kernel = name; p.vector = options_of(a); return p; });
  // A word left over is a kernel `tune` has no subcommand for, said as such (CLI11 said
  // "arguments were not expected", the words reversed); an option or word a kernel's subcommand
  // does not know falls through to here, and is named with that subcommand.
  t->allow_extras();
  t->final_callback([ta, t, &exit_code] {
    if (const std::vector<std::string> extra = t->remaining(); !extra.empty()) {
      std::vector<std::string> names;
      std::string kernel;  // the kernel's subcommand given, if any (its unknown options fall through to tune)
      for (const CLI::App* s : t->get_subcommands({})) {
        names.push_back(s->get_name());
        if (s->parsed()) kernel = s->get_name();
      }
      const std::string help = kernel.empty() ? "cubekit tune --help" : "cubekit tune " + kernel + " --help";
      if (!kernel.empty() || extra.front().starts_with("-"))
        user_error("tune{}: unexpected {}; see {}", kernel.empty() ? "" : " " + kernel, extra.front(), help);
      user_error("tune: no kernel '{}' to tune; the tunable kernels are {} (pooling has no schedule space)", extra.front(),
                 fmt::join(names, ", "));
    }
    ta->budget_given = t->count("--budget") > 0;
    ta->chip_given = t->count("--chip") > 0;
    // Options that would change nothing were taken without a word (--list --suite listed every row).
    if (ta->list) {
      std::vector<std::string> ignored;
      for (const char* o : {"--suite", "--batch", "--budget", "--time", "--seed", "--threads", "--exhaustive", "--quiet"})
        if (t->count(o)) ignored.push_back(o);
      for (const CLI::App* s : t->get_subcommands({}))
        if (s->parsed()) ignored.push_back(s->get_name());
      if (!ignored.empty())
        user_error("tune --list prints what the database holds (with --chip, that chip's rows) and takes --db, --chip and "
                   "--json only; drop {}", fmt::join(ignored, ", "));
    }
    if (ta->exhaustive && ta->budget_given)
      user_error("tune: --exhaustive evaluates every point of the space, so --budget {} would not limit it; drop one (--time "
                 "bounds an exhaustive search)", ta->budget);
    // tune::Settings reads a budget of 0 as "none" (a time limit alone): typed, it said "no budget".
    if (ta->budget_given && !ta->exhaustive) tune::check_budget(ta->budget);
    if (t->count("--time") > 0 && !(ta->seconds > 0))
      user_error("tune: --time must be a positive number of seconds, got {}", ta->seconds);
    exit_code = run_tune(*ta);
  });
}

}  // namespace cubekit::cli
