// What every `cubekit kernel` and `cubekit compile` subcommand shares: the run options and the three
// things done with a kernel's outputs (run and check against Halide, write the program, validate
// only: the fuzz target's path). tools/cmd_kernel.cpp has each kernel's own options.
#pragma once

#include "dsl/func.h"
#include "emulator/emulator.h"
#include "tune/database.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <functional>
#include <string>
#include <vector>

namespace cubekit::cli {

std::optional<bool> on_off(const std::string& v, const char* option);  // "on", "off" or "" (unset)
DType dtype_option(const std::string& v, const char* option);

// How to run and report.
struct RunArgs {
  std::string chip = "ascend910", trace, output, schedule = "default";
  bool json = false, timing_only = false, no_check = false;
  bool no_tuned = false;  // --no-tuned: the default schedule even where the tuning database has one
  uint64_t seed = 0;
  int threads = 0;
  int64_t max_work = kDefaultMaxWork, max_trace_events = kDefaultMaxTraceEvents;
  std::vector<std::string> overrides;  // the schedule overrides given ("--tm 128"), for the report
  double input_scale = 1;  // float inputs drawn from [-input_scale, input_scale) (a cast to an integer type)
};
void add_run_options(CLI::App* cmd, RunArgs& a);
bool naive_schedule(const RunArgs& a);  // --schedule: default or naive
// Takes the options only a run uses (--json, --trace, --timing-only, --seed, ...) off `cubekit
// compile`'s subcommands: accepted there, they did nothing.
void drop_run_only_options(CLI::App* cmd);

// Compiles, runs, checks and prints (text or JSON); 0 when clean and correct, 1 otherwise.
// `extra`: fields the JSON report adds, among them "kernel", the ready kernel's name (the
// report's own, the program's, moves to "program").
// `tuned`: the tuning database's schedule the kernel took (the report says so), if any.
int run_kernel(const std::vector<dsl::Func>& outputs, const RunArgs& a, const std::string& headline, double atol, nlohmann::json extra,
               double flops, const std::optional<tune::Tuned>& tuned = std::nullopt);
// The schedule's name in reports: default, naive, or tuned.
std::string schedule_name(const RunArgs& a, const std::optional<tune::Tuned>& tuned);
// --db FILE: the tuning database this process consults (and `cubekit tune` writes).
void add_db_option(CLI::App* cmd, bool read = false);  // `read`: a run that reads it, whose file must exist
// Writes the program to a.output (with the headline, layouts and stages as comments).
int compile_kernel(const std::vector<dsl::Func>& outputs, const RunArgs& a, const std::string& headline,
                   const std::optional<tune::Tuned>& tuned = std::nullopt);
// Compiles only (nothing run, nothing written).
int validate_kernel(const std::vector<dsl::Func>& outputs, const RunArgs& a);

}  // namespace cubekit::cli
