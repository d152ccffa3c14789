// The tuner (tune/): its database, its spaces, its search against an exhaustive enumeration kept as
// data, resuming, determinism, and the kernels taking what it found (checked against Halide).
#include "codegen/lower.h"
#include "emulator/error.h"
#include "kernels/check.h"
#include "kernels/tuned.h"
#include "tune/database.h"
#include "tune/search.h"
#include "tune/suites.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace cubekit::tune {
namespace {

// A database file of its own for one test, removed after; the process's setting restored.
class TempDb {
 public:
  explicit TempDb(const std::string& name)
      : path_((std::filesystem::temp_directory_path() / ("cubekit_tune_" + name + "_" + std::to_string(getpid()) + ".db")).string()) {
    std::filesystem::remove(path_);
  }
  ~TempDb() {
    set_database_path("");
    std::filesystem::remove(path_);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Problem matmul_problem(int64_t m, int64_t n, int64_t k) {
  Problem p;
  p.kernel = "matmul";
  p.matmul.m = m, p.matmul.n = n, p.matmul.k = k;
  return p;
}

std::vector<Outcome> run(const std::vector<Problem>& problems, const ChipConfig& chip, const Settings& s, Database* db) {
  Cluster one;
  return tune(problems, chip, s, db, one);
}

TEST(TuneDatabase, KeepsCandidatesAndTheBest) {
  TempDb t("db");
  auto db = Database::open(t.path(), Database::Mode::Create);
  db->record("c1", "chipA", "matmul", "{\"m\":1}", {{{{"tm", 64}}, 100, ""}, {{{"tm", 32}}, std::nullopt, "too big"}});
  db->record("c1", "chipA", "matmul", "{\"m\":1}", {{{{"tm", 16}}, 90, ""}});
  std::vector<Candidate> c = db->candidates("c1", "matmul", "{\"m\":1}");
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].params.at("tm"), 64);
  EXPECT_EQ(*c[0].cycles, 100u);
  EXPECT_FALSE(c[1].cycles.has_value());
  EXPECT_EQ(c[1].error, "too big");
  EXPECT_EQ(c[2].params.at("tm"), 16);
  EXPECT_TRUE(db->candidates("c2", "matmul", "{\"m\":1}").empty());  // another chip's
  EXPECT_FALSE(db->best("c1", "matmul", "{\"m\":1}").has_value());
  Best b{{{"tm", 16}}, 90, 120, 3, 10, "local", 7};
  db->set_best("c1", "chipA", "matmul", "{\"m\":1}", b);
  std::optional<Best> got = Database::open(t.path(), Database::Mode::Read)->best("c1", "matmul", "{\"m\":1}");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->params, b.params);
  EXPECT_EQ(got->cycles, 90u);
  EXPECT_EQ(got->default_cycles, 120u);
  EXPECT_EQ(got->strategy, "local");
  EXPECT_EQ(got->seed, 7u);
}

TEST(TuneDatabase, ChipKeyFollowsTheWholeConfig) {
  ChipConfig a = load_chip("ascend910b2"), b = a;
  EXPECT_EQ(chip_key(a), chip_key(b));
  b.clock_mhz += 1;
  EXPECT_NE(chip_key(a), chip_key(b));
  EXPECT_NE(chip_key(a), chip_key(load_chip("ascend910")));
}

TEST(TuneSpace, OrdinalsRoundTrip) {
  Space s;
  s.params = {{"a", {1, 2, 3}}, {"b", {0, 1}}, {"c", {5, 6, 7, 8}}};
  ASSERT_EQ(s.grid(), 24u);
  for (uint64_t i = 0; i < s.grid(); ++i) EXPECT_EQ(s.ordinal(s.point(i)), i);
  EXPECT_EQ(s.at({2, 1, 0}), (Params{{"a", 3}, {"b", 1}, {"c", 5}}));
}

// The search starts at the default's point: every kernel's gives the default schedule's cycles.
TEST(TuneSpace, StartIsTheDefaultSchedule) {
  const ChipConfig chip = load_chip("ascend910b2");
  std::vector<Problem> problems = {matmul_problem(512, 384, 640)};
  Problem conv;
  conv.kernel = "conv2d";
  conv.conv.n = 2, conv.conv.c = 64, conv.conv.h = 28, conv.conv.w = 28, conv.conv.k = 64, conv.conv.pad = 1;
  conv.conv.epilogue = {"bn", "relu"};
  problems.push_back(conv);
  Problem att;
  att.kernel = "attention";
  att.attention.batch = 1, att.attention.heads = 4, att.attention.seq_q = 512, att.attention.dim = 64;
  problems.push_back(att);
  Problem sm;
  sm.kernel = "softmax";
  sm.vector.shape = {256, 1000};
  problems.push_back(sm);
  for (const Problem& p : problems) {
    Space s = space_of(p, chip);
    ASSERT_FALSE(s.params.empty()) << p.shape();
    for (size_t i = 0; i < s.params.size(); ++i) EXPECT_TRUE(std::is_sorted(s.params[i].values.begin(), s.params[i].values.end()));
    EXPECT_EQ(evaluate(p, s.at(s.start), chip), evaluate(p, {}, chip)) << p.shape() << ": " << params_text(s.at(s.start));
  }
}

// Attention's space has the cube's preload where the chip's nest can run ahead (a split chip's),
// and a point of it compiles with that preload.
TEST(TuneSpace, AttentionPreloadOnSplitChipsOnly) {
  Problem att;
  att.kernel = "attention";
  att.attention.seq_q = 256, att.attention.dim = 64;
  for (const char* name : {"ascend910", "ascend910b2", "ascend950pr"}) {
    const ChipConfig chip = load_chip(name);
    Space s = space_of(att, chip);
    auto it = std::find_if(s.params.begin(), s.params.end(), [](const auto& p) { return p.name == "preload"; });
    EXPECT_EQ(it != s.params.end(), chip.split()) << name;
    if (it == s.params.end()) continue;
    EXPECT_EQ(it->values, (std::vector<int64_t>{1, 2, 3, 4, 6, 8})) << name;
    kernels::AttentionOptions o = att.attention;
    kernels::apply_params(o, {{"preload", 2}});
    EXPECT_EQ(kernels::attention(o, chip).preload, 2) << name;
  }
}

TEST(TuneSearch, SameSeedSameSearchOnAnyThreadCount) {
  const ChipConfig chip = load_chip("ascend910b2");
  TempDb a("seed_a"), b("seed_b");
  Settings s;
  s.budget = 24, s.seed = 3, s.threads = 1;
  auto da = Database::open(a.path(), Database::Mode::Create), dbb = Database::open(b.path(), Database::Mode::Create);
  Outcome one = run({matmul_problem(512, 512, 512)}, chip, s, da.get())[0];
  s.threads = 2;
  Outcome two = run({matmul_problem(512, 512, 512)}, chip, s, dbb.get())[0];
  EXPECT_EQ(one.best.params, two.best.params);
  EXPECT_EQ(one.best.cycles, two.best.cycles);
  EXPECT_EQ(one.best.evaluated, 24);
  EXPECT_LE(one.best.cycles, one.best.default_cycles);
  const std::string key = matmul_problem(512, 512, 512).key();
  std::vector<Candidate> ca = da->candidates(chip_key(chip), "matmul", key), cb = dbb->candidates(chip_key(chip), "matmul", key);
  ASSERT_EQ(ca.size(), cb.size());
  for (size_t i = 0; i < ca.size(); ++i) {
    EXPECT_EQ(ca[i].params, cb[i].params) << i;
    EXPECT_EQ(ca[i].cycles, cb[i].cycles) << i;
  }
  s.seed = 4;  // another seed: another path (its kicks), the same default
  Outcome other = run({matmul_problem(512, 512, 512)}, chip, s, nullptr)[0];
  EXPECT_EQ(other.best.default_cycles, one.best.default_cycles);
}

// A search stopped and started again takes what the database holds and ends where one run would.
TEST(TuneSearch, ResumesFromTheDatabase) {
  const ChipConfig chip = load_chip("ascend910b2");
  TempDb t("resume");
  auto db = Database::open(t.path(), Database::Mode::Create);
  Settings s;
  s.budget = 10, s.seed = 1;
  Outcome first = run({matmul_problem(384, 768, 512)}, chip, s, db.get())[0];
  EXPECT_EQ(first.cached, 0);
  s.budget = 20;
  Outcome resumed = run({matmul_problem(384, 768, 512)}, chip, s, db.get())[0];
  EXPECT_EQ(resumed.cached, first.best.evaluated);
  Outcome fresh = run({matmul_problem(384, 768, 512)}, chip, s, nullptr)[0];
  EXPECT_EQ(resumed.best.params, fresh.best.params);
  EXPECT_EQ(resumed.best.cycles, fresh.best.cycles);
  EXPECT_EQ(resumed.best.evaluated, fresh.best.evaluated);
}

TEST(TuneSearch, EnumeratesASpaceNoLargerThanTheBudget) {
  const ChipConfig chip = load_chip("ascend910b2");
  Problem sm;
  sm.kernel = "softmax";
  sm.vector.shape = {128, 512};
  Space space = space_of(sm, chip);
  Settings s;
  s.budget = int64_t(space.grid()) + 1;
  Outcome o = run({sm}, chip, s, nullptr)[0];
  EXPECT_EQ(o.best.strategy, "exhaustive");
  EXPECT_EQ(o.best.space + o.pruned, int64_t(space.grid()));
  // The best is the least of every point, checked point by point here.
  uint64_t least = evaluate(sm, {}, chip);
  for (uint64_t i = 0; i < space.grid(); ++i) {
    try {
      least = std::min(least, evaluate(sm, space.at(space.point(i)), chip));
    } catch (const UserError&) {
    }
  }
  EXPECT_EQ(o.best.cycles, least);
}

// The best row is what the search that found the schedule did: a later, smaller search that keeps
// it (8,197 against its own 9,880 cycles here) must not write its own budget and seed into the row.
TEST(TuneSearch, ASmallerLaterSearchKeepsTheFindersProvenance) {
  const ChipConfig chip = load_chip("ascend910b2");
  TempDb t("provenance");
  auto db = Database::open(t.path(), Database::Mode::Create);
  const Problem p = matmul_problem(256, 512, 256);
  Settings s;
  s.budget = 24;
  Outcome first = run({p}, chip, s, db.get())[0];
  s.budget = 4, s.seed = 7;
  Outcome second = run({p}, chip, s, db.get())[0];
  ASSERT_TRUE(second.own_best.has_value()) << "the smaller search found the best itself; pick another shape or seed";
  EXPECT_EQ(second.best.evaluated, 4);  // this search's own count, in its outcome
  std::optional<Best> stored = db->best(chip_key(chip), "matmul", p.key());
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->cycles, first.best.cycles);
  EXPECT_EQ(stored->params, first.best.params);
  EXPECT_EQ(stored->evaluated, 24);
  EXPECT_EQ(stored->seed, 0u);
}

// The measure of the search: within 3% of the best of the whole space (enumerated once by
// the command in the data file) while evaluating at most 5% of it.
TEST(TuneSearch, NearTheExhaustiveBestInFivePercentOfTheSpace) {
  std::ifstream in(CUBEKIT_SOURCE_DIR "/tests/tune/data/matmul_1024_ascend910b2_exhaustive.json");
  ASSERT_TRUE(in) << "missing tests/tune/data/matmul_1024_ascend910b2_exhaustive.json";
  nlohmann::json data = nlohmann::json::parse(in);
  const ChipConfig chip = load_chip(data["chip"].get<std::string>());
  Problem p = matmul_problem(1024, 1024, 1024);
  ASSERT_EQ(nlohmann::json::parse(p.key()), data["problem"]);
  const uint64_t best = data["cycles"].get<uint64_t>();
  const Params best_params = data["params"].get<Params>();
  ASSERT_EQ(evaluate(p, best_params, chip), best)
      << "the model or the kernel changed since the enumeration: run again " << data["command"].get<std::string>();
  ASSERT_EQ(int64_t(space_of(p, chip).grid()), data["grid"].get<int64_t>()) << "the space changed: " << data["command"].get<std::string>();
  const int64_t budget = data["space"].get<int64_t>() * 5 / 100;
  for (uint64_t seed : {0, 1}) {
    Settings s;
    s.budget = budget, s.seed = seed;
    Outcome o = run({p}, chip, s, nullptr)[0];
    EXPECT_LE(o.best.evaluated, budget);
    EXPECT_LE(double(o.best.cycles), 1.03 * double(best))
        << "seed " << seed << ": " << o.best.cycles << " cycles (" << params_text(o.best.params) << ") against the best "
        << best << " in " << o.best.evaluated << " evaluations";
  }
}

// After tuning, the kernel and default_schedule take the tuned schedule, and it computes what
// Halide computes.
TEST(TuneKernels, TakeTheTunedScheduleAndMatchHalide) {
  const ChipConfig chip = load_chip("ascend910b2");
  TempDb t("kernels");
  set_database_path(t.path());
  Problem p = matmul_problem(192, 320, 256);
  {
    auto db = Database::open(t.path(), Database::Mode::Create);
    Settings s;
    s.budget = 16;
    Outcome o = run({p}, chip, s, db.get())[0];
    ASSERT_FALSE(o.best.params.empty()) << "the search found nothing better than the default here; pick another shape";
  }
  kernels::Matmul mm = kernels::matmul(p.matmul, chip);
  ASSERT_TRUE(mm.tuned.has_value());
  EXPECT_EQ(mm.tuned->database, t.path());
  kernels::KernelRun run = kernels::compile_and_run(mm.out, chip);
  EXPECT_TRUE(run.checked && run.check.pass);
  EXPECT_TRUE(run.sim.report.clean());
  EXPECT_EQ(run.sim.report.cycles, mm.tuned->best.cycles);
  kernels::MatmulOptions plain = p.matmul;
  plain.use_tuned = false;
  EXPECT_FALSE(kernels::matmul(plain, chip).tuned.has_value());
  kernels::MatmulOptions overridden = p.matmul;
  overridden.tm = 64;  // an override: the user's schedule, not the database's
  EXPECT_FALSE(kernels::matmul(overridden, chip).tuned.has_value());
  std::optional<Tuned> through_default;
  dsl::Schedule s = kernels::default_schedule(kernels::matmul(plain, chip).c, chip, {}, &through_default);
  ASSERT_TRUE(through_default.has_value());
  EXPECT_EQ(through_default->best.params, mm.tuned->best.params);
  EXPECT_EQ(kernels::compile_and_run(mm.out, chip, {.sim = {.timing_only = true}, .reference = false}).sim.report.cycles,
            mm.tuned->best.cycles);
  static_cast<void>(s);
  set_database_path("off");
  EXPECT_FALSE(kernels::matmul(p.matmul, chip).tuned.has_value());
}

TEST(TuneSuites, ResNet50AndBertLarge) {
  std::vector<Layer> resnet = suite("resnet50", 1);
  int convs = 0;
  for (const Layer& l : resnet) convs += l.problem.kernel == "conv2d" ? l.count : 0;
  EXPECT_EQ(convs, 53);  // torchvision's resnet50: the stem, 16 bottlenecks of three, 4 downsamples
  EXPECT_EQ(resnet.back().problem.kernel, "matmul");
  std::vector<Layer> bert = suite("bert-large", 8);
  ASSERT_EQ(bert.size(), 7u);
  EXPECT_EQ(bert[1].problem.kernel, "attention");
  EXPECT_EQ(bert[0].problem.matmul.m, 8 * 512);
  const ChipConfig chip = load_chip("ascend910b2");
  for (const Layer& l : bert) EXPECT_NO_THROW(space_of(l.problem, chip)) << l.problem.shape();
}

}  // namespace
}  // namespace cubekit::tune
