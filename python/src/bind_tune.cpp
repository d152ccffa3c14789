// The tuner (tune/): cubekit.tune(...) searches a kernel's schedules or a suite's layers and keeps
// the best in the tuning database; set_tuning_db / tuning_db pick the database the kernels consult.
#include "emulator/error.h"
#include "python/src/common.h"
#include "tune/search.h"
#include "tune/suites.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <atomic>
#include <optional>

namespace cubekit::py_bind {

namespace {

py::dict outcome_dict(const tune::Outcome& o, int count) {
  py::dict d;
  d["label"] = o.problem.label;
  d["kernel"] = o.problem.kernel;
  d["shape"] = o.problem.shape();
  d["problem"] = json_loads(o.problem.key());
  d["count"] = count;
  d["params"] = py::cast(o.best.params);
  d["cycles"] = o.best.cycles;
  d["default_cycles"] = o.best.default_cycles;
  d["speedup"] = o.speedup();
  d["evaluated"] = o.best.evaluated;
  d["cached"] = o.cached;
  d["pruned"] = o.pruned;
  d["failed"] = o.failed;
  d["space"] = o.best.space;
  d["strategy"] = o.best.strategy;
  d["stopped_by_time"] = o.best.stopped_by_time;
  d["errors"] = py::cast(o.errors);
  d["own_best_cycles"] = o.own_best ? py::cast(*o.own_best) : py::none();
  return d;
}

py::list run(const std::vector<tune::Problem>& problems, const std::vector<int>& counts, const ChipConfig& chip,
             const tune::Settings& s, const std::string& db_path) {
  if (db_path.empty()) tune::check_database_has_a_home("db=FILE, cubekit.set_tuning_db(FILE)");
  std::string path = db_path.empty() ? tune::database_path() : db_path;
  std::unique_ptr<tune::Database> db;
  if (path != "off") db = tune::Database::open(path, tune::Database::Mode::Create);
  tune::Cluster one;
  std::vector<tune::Outcome> outcomes;
  // Ctrl-C: Python's handler runs between batches (PyErr_CheckSignals); the search then stops as
  // at its time limit and stores its best, and the KeyboardInterrupt is raised after.
  std::atomic<bool> stop{false};
  std::optional<py::error_already_set> interrupt;
  tune::Settings settings = s;
  settings.stop = &stop;
  {
    py::gil_scoped_release release;  // the search runs on its own threads
    outcomes = tune::tune(problems, chip, settings, db.get(), one, [&](const tune::Progress&) {
      py::gil_scoped_acquire held;
      if (!interrupt && PyErr_CheckSignals() != 0) interrupt.emplace(), stop = true;  // takes the error, clearing it
    });
  }
  if (interrupt) throw *interrupt;
  py::list out;
  for (size_t i = 0; i < outcomes.size(); ++i) out.append(outcome_dict(outcomes[i], counts[i]));
  return out;
}

tune::Settings settings(int64_t budget, double seconds, uint64_t seed, bool exhaustive, int threads) {
  tune::Settings s;
  s.budget = budget, s.seconds = seconds, s.seed = seed, s.exhaustive = exhaustive, s.threads = threads;
  return s;
}

}  // namespace

void bind_tune(py::module_& m) {
  m.def("set_tuning_db", [](const py::object& path) {  // a str or an os.PathLike, as tune(db=) takes
        tune::set_database_path(py::str(py::module_::import("os").attr("fspath")(path)).cast<std::string>());
      }, py::arg("path"),
        "The tuning database the kernels consult and tune() writes, for this process ('off': none; '': back to "
        "$CUBEKIT_TUNING_DB or ~/.cache/cubekit/tuning.db).");
  m.def("tuning_db", &tune::database_path, "The tuning database in use ('off': none).");
  m.def("_tune_problem", [](const std::string& kernel, const py::object& options, const py::object& chip, int64_t budget,
                            double seconds, uint64_t seed, bool exhaustive, int threads, const std::string& db) {
    tune::check_tunable(kernel);
    tune::Problem p;
    p.kernel = kernel;
    if (kernel == "matmul") p.matmul = options.cast<kernels::MatmulOptions>();
    else if (kernel == "conv2d") p.conv = options.cast<kernels::Conv2dOptions>();
    else if (kernel == "attention") p.attention = options.cast<kernels::AttentionOptions>();
    else p.vector = options.cast<kernels::VectorOptions>();
    py::list one = run({p}, {1}, to_chip(chip), settings(budget, seconds, seed, exhaustive, threads), db);
    return py::object(one[0]);
  });
  m.def("_tune_suite", [](const std::string& name, int64_t batch, const py::object& chip, int64_t budget, double seconds,
                          uint64_t seed, bool exhaustive, int threads, const std::string& db) {
    std::vector<tune::Problem> problems;
    std::vector<int> counts;
    for (tune::Layer& l : tune::suite(name, batch)) problems.push_back(std::move(l.problem)), counts.push_back(l.count);
    return run(problems, counts, to_chip(chip), settings(budget, seconds, seed, exhaustive, threads), db);
  });
  m.def("tune_kernels", [] {
    std::vector<std::string> names = {"matmul", "conv2d", "attention"};
    for (const std::string& n : kernels::vector_kernel_names()) names.push_back(n);
    return names;
  }, "The kernels tune() takes.");
  m.def("tune_suites", &tune::suite_names, "The suites tune(suite=...) takes.");
}

}  // namespace cubekit::py_bind
