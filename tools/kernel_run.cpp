#include "tools/kernel_run.h"

#include "codegen/lower.h"
#include "emulator/error.h"
#include "kernels/check.h"
#include "kernels/tuned.h"
#include "tools/commands.h"
#include "tools/twin.h"

#include <algorithm>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace cubekit::cli {

std::optional<bool> on_off(const std::string& v, const char* option) {
  if (v.empty()) return std::nullopt;
  if (v == "on") return true;
  if (v == "off") return false;
  user_error("{} must be on or off, got '{}'", option, v);
}

DType dtype_option(const std::string& v, const char* option) {
  auto t = parse_dtype(v);
  if (!t) {  // every dtype, as parse_dtype knows them (u8 and s16 were taken but not listed)
    std::vector<std::string_view> names;
    for (DType d : kAllDTypes) names.push_back(dtype_name(d));
    user_error("{} must be a dtype ({}), got '{}'", option, fmt::join(names, ", "), v);
  }
  return *t;
}

Chosen::Chosen(int argc, char** argv) {
  if (argc > 1 && argv[1][0] != '-') command = argv[1];
  if (argc > 2 && argv[2][0] != '-') kernel = argv[2];
}

bool Chosen::wants(std::string_view group, std::string_view name, const std::vector<std::string>& names) const {
  if (command.empty()) return true;   // `cubekit --help`: everything
  if (command != group) return false;  // another command's: not needed
  if (kernel.empty() || std::find(names.begin(), names.end(), kernel) == names.end()) return true;
  return name == kernel;
}

void options_when_chosen(CLI::App* sub, std::function<void(CLI::App*)> add) {
  sub->preparse_callback([sub, add = std::move(add)](std::size_t) {
    add(sub);
    // CLI11 saturates a whole number past 64 bits (--window 99999999999999999999 ran as 2^63 - 1):
    // every integer option refuses one (unnamed in --help; the options that show FITS have it already).
    for (CLI::Option* o : sub->get_options())
      if (o->get_type_name().starts_with("INT")) o->check(fits<int64_t>().description(""));
      else if (o->get_type_name().starts_with("UINT")) o->check(fits<uint64_t>().description(""));
  });
}

void add_run_options(CLI::App* cmd, RunArgs& a) {
  cmd->add_option("--chip", a.chip, "chip preset or JSON config")->capture_default_str();
  cmd->add_option("--schedule", a.schedule, "default or naive")->capture_default_str();
  cmd->add_option("--seed", a.seed, "seed of the random inputs")->capture_default_str()->check(kNotNegative)->check(fits<uint64_t>());
  cmd->add_flag("--json", a.json, "print the report as one JSON object");
  cmd->add_option("--trace", a.trace, "write a Chrome trace to this file");
  cmd->add_flag("--timing-only", a.timing_only, "cycles only: no data, no reference, no race or initialisation checks");
  cmd->add_flag("--no-check", a.no_check, "skip the Halide reference");
  cmd->add_option("--threads", a.threads, "host threads (0, the default: all)")->check(kNotNegative);
  add_db_option(cmd, true);
  cmd->add_flag("--no-tuned", a.no_tuned, "use the default schedule even where the tuning database has a tuned one");
  cmd->add_option("--max-work", a.max_work, "work units over the whole run before it is stopped (see `cubekit run`)")
      ->capture_default_str()
      ->check(fits<int64_t>());
  cmd->add_option("--max-trace-events", a.max_trace_events, "events (~200 bytes each) --trace may write")
      ->capture_default_str()->check(fits<int64_t>());
  // The kernel's own options say "override: .." (kernel_args.cpp); the report names those given.
  // A number override of 0 is the schedule's choice (as a negative one's error says): no override.
  cmd->parse_complete_callback([cmd, &a] {
    refuse_unused_run_options(*cmd, a.timing_only, a.trace);
    for (const CLI::Option* o : cmd->get_options())
      if (o->count() && o->get_description().rfind("override", 0) == 0 && o->results() != std::vector<std::string>{"0"})
        a.overrides.push_back(fmt::format("{} {}", o->get_name(), fmt::join(o->results(), ",")));
  });
}

void refuse_unused_run_options(const CLI::App& cmd, bool timing_only, const std::string& trace) {
  auto given = [&](const char* name) {
    const CLI::Option* o = cmd.get_option_no_throw(name);
    return o && o->count() > 0;
  };
  if (timing_only && given("--seed"))
    user_error("--seed: a --timing-only run makes no inputs to seed (its cycles do not depend on data); drop --seed, or "
               "--timing-only to run on seeded inputs");
  if (timing_only && given("--input"))
    user_error("--input: a --timing-only run reads no data (its cycles do not depend on it); drop --input, or "
               "--timing-only to run on it");
  if (trace.empty() && given("--max-trace-events"))
    user_error("--max-trace-events bounds the trace --trace FILE writes, and there is none; give --trace FILE, or drop "
               "--max-trace-events");
}

void drop_run_only_options(CLI::App* cmd) {
  const std::string sub = cmd->get_name();
  for (const char* name : {"--seed", "--json", "--trace", "--timing-only", "--no-check", "--threads", "--max-work",
                           "--max-trace-events"}) {
    CLI::Option* o = cmd->get_option_no_throw(name);
    if (!o) continue;
    const bool flag = o->get_expected_min() == 0;
    cmd->remove_option(o);
    auto refuse = [name, sub] {
      user_error("{} is for running a kernel (`cubekit kernel {} ...`); `cubekit compile {}` writes its program only", name,
                 sub, sub);
    };
    if (flag) cmd->add_flag_callback(name, refuse)->group("");
    else cmd->add_option_function<std::string>(name, [refuse](const std::string&) { refuse(); })->group("");
  }
}

namespace {
void set_database(const std::string& path, bool read) {
  // "" would fall back to the default database: a script's unset variable would write into the user's own.
  if (path.empty()) user_error("--db '': give the tuning database's file, or off for none");
  // A run reads it: a file named on the command line that is not there is a mistyped path (the run
  // went on with the default schedule, its headline the only sign), not a database still to make.
  std::error_code ec;
  if (read && path != "off" && !std::filesystem::exists(path, ec))
    user_error("--db {}: no such file; a kernel run reads the schedules `cubekit tune ... --db {}` wrote there: tune "
               "into it first, or leave --db out (the default database), or give --db off", path, path);
  tune::set_database_path(path);
}
}  // namespace

void add_db_option(CLI::App* cmd, bool read) {
  cmd->add_option_function<std::string>("--db", [read](const std::string& path) { set_database(path, read); },
                                        "the tuning database (default: $CUBEKIT_TUNING_DB, else ~/.cache/cubekit/tuning.db; "
                                        "off: none)");
}

std::string schedule_name(const RunArgs& a, const std::optional<tune::Tuned>& tuned) {
  return tuned ? "tuned" : a.schedule;
}

bool naive_schedule(const RunArgs& a) {
  if (a.schedule == "default") return false;
  if (a.schedule == "naive") return true;
  user_error("--schedule must be default or naive, got '{}'", a.schedule);
}

// Compiles, runs, checks and prints (text or JSON); 0 when clean and correct, 1 otherwise.
int run_kernel(const std::vector<dsl::Func>& outputs, const RunArgs& a, const std::string& headline, double atol, nlohmann::json extra,
               double flops, const std::optional<tune::Tuned>& tuned) {
  if (!a.no_check && !a.timing_only) run_where_modules_load("the Halide host reference");  // before any output
  ChipConfig chip = load_chip(a.chip);
  kernels::RunSettings s;
  s.seed = a.seed;
  if (a.max_work < 1) user_error("--max-work must be positive, got {}", a.max_work);
  if (a.max_trace_events < 1) user_error("--max-trace-events must be positive, got {}", a.max_trace_events);
  s.sim = {.timing_only = a.timing_only, .trace = !a.trace.empty(), .threads = a.threads, .max_work = a.max_work,
           .max_trace_events = a.max_trace_events};
  s.reference = !a.no_check;
  s.atol = atol;
  if (a.input_scale != 1) s.inputs = [scale = a.input_scale](GlobalMemory& gm) { gm.scale_float_inputs(scale); };
  if (!a.trace.empty()) check_writable(a.trace, "--trace");
  const dsl::Func& f = outputs.at(0);
  kernels::KernelRun run = kernels::with_tuned(tuned, [&] { return kernels::compile_and_run(outputs, chip, s); });
  const Report& r = run.sim.report;
  if (!a.trace.empty()) write_trace(a.trace, run.sim, run.program, chip);
  bool ok = r.clean() && (!run.checked || run.check.pass);
  for (const kernels::Conversion& c : run.conversions) ok = ok && c.clean && c.matches_host;
  if (a.json) {
    nlohmann::json j = nlohmann::json::parse(report_json(r, run.program, f.name()));
    j["compile_ms"] = run.compile_ms;
    j["schedule"] = schedule_name(a, tuned);
    if (!a.overrides.empty()) j["overrides"] = a.overrides;
    if (tuned)
      j["tuned"] = {{"database", tuned->database}, {"params", tuned->best.params}, {"cycles_when_tuned", tuned->best.cycles},
                    {"default_cycles", tuned->best.default_cycles}, {"strategy", tuned->best.strategy},
                    {"evaluated", tuned->best.evaluated}};
    j["program"] = j["kernel"];  // the program's own name (its output's), beside the ready kernel's
    j["program_instructions"] = run.program.code.size();  // its length; "instructions" counts those run
    j["headline"] = headline;
    for (auto& [key, value] : extra.items()) j[key] = value;
    uint64_t transdata = 0;
    for (const kernels::Conversion& c : run.conversions) {
      j["conversions"].push_back({{"layout", c.layout.str()}, {"tensor", c.layout.tensor}, {"direction", c.to_device ? "in" : "out"},
                                  {"emulated", c.emulated}, {"cycles", c.cycles}, {"matches_host", c.matches_host},
                                  {"clean", c.clean}});
      if (!c.emulated) j["host_conversions"].push_back(c.layout.str());
      transdata += c.cycles;
    }
    if (!run.conversions.empty()) j["transdata_cycles"] = transdata;
    if (run.checked)
      j["check"] = {{"max_abs_error", run.check.max_abs}, {"max_rel_error", run.check.max_rel},
                    {"bit_exact", run.check.bit_exact}, {"pass", run.check.pass}, {"atol", run.check.atol},
                    {"rtol", run.check.rtol}};
    fmt::print("{}\n", j.dump(2));
    return ok ? 0 : 1;
  }
  fmt::print("{}, {} schedule{}: compiled in {:.1f} ms ({} instructions)\n", headline, schedule_name(a, tuned),
             a.overrides.empty() ? "" : fmt::format(" with {}", fmt::join(a.overrides, " ")), run.compile_ms,
             run.program.code.size());
  if (tuned) fmt::print("{}\n", tuned->str());
  if (run.checked)
    fmt::print("check against the Halide reference: max abs error {:.3g}, max rel error {:.3g}{}: {}\n",
               run.check.max_abs, run.check.max_rel, run.check.bit_exact ? " (bit-exact)" : "",
               run.check.pass ? run.check.bit_exact ? std::string("PASS")
                                                    : fmt::format("PASS (every element within atol {:.3g} + rtol {:.3g} x "
                                                                  "|reference|)", run.check.atol, run.check.rtol)
                              : fmt::format("FAIL ({} elements outside atol {:.3g} + rtol {:.3g})",
                                                     run.check.mismatches, run.check.atol, run.check.rtol));
  if (flops > 0) fmt::print("{:.1f} TFLOPS emulated at {} MHz\n", flops / (r.microseconds() * 1e6), chip.clock_mhz);
  // The layouts the kernel reads and writes: a feature map converted by the TransData kernel on the
  // vector unit (emulated), weights and other tensors on the host.
  for (const kernels::Conversion& c : run.conversions) {
    if (!c.emulated) {
      fmt::print("host conversion (not emulated: {}): {}\n",
                 c.layout.kind == codegen::TensorLayout::Kind::NC1HWC0 ? "no 16-bit transpose for this type" : "converted once, as weights are",
                 c.layout.str());
      continue;
    }
    fmt::print("TransData {} ({}) on the vector unit: {} cycles{}\n", c.layout.str(), c.to_device ? "in" : "out", c.cycles,
               !c.clean ? ", NOT CLEAN" : !c.matches_host ? ", DIFFERS from the host's conversion" : "");
  }
  fmt::print("{}", report_text(r, run.program, f.name()));
  if (!a.trace.empty()) fmt::print("wrote the trace to {}\n", a.trace);
  return ok ? 0 : 1;
}

int compile_kernel(const std::vector<dsl::Func>& outputs, const RunArgs& a, const std::string& headline,
                   const std::optional<tune::Tuned>& tuned) {
  ChipConfig chip = load_chip(a.chip);
  codegen::Compiled c = kernels::with_tuned(tuned, [&] { return codegen::compile(outputs, chip); });
  const bool to_stdout = a.output == "-";  // `-o -`: the program on standard output, the summary on stderr
  std::ofstream file;
  if (!to_stdout) {
    file.open(a.output);
    if (!file) user_error("-o: cannot write '{}'", a.output);
  }
  std::ostream& out = to_stdout ? std::cout : file;
  // The comments go last, so that line numbers match the reports of `cubekit kernel`.
  out << print_program(c.program);
  out << "# " << fmt::format("{}, {} schedule, compiled in {:.1f} ms", headline, schedule_name(a, tuned), c.milliseconds) << "\n";
  out << "# " << fmt::format("for chip {} (run it with --chip {})", chip.name, a.chip) << "\n";
  if (tuned) out << "# " << tuned->str() << "\n";
  // Tensors stored in the cube's layouts: give them converted (ck.nchw_to_nc1hwc0, kchw_to_fractal_z).
  for (const codegen::TensorLayout& l : c.layouts) out << "# layout " << l.str() << "\n";
  // The stages the program was lowered from (schedules/stages.h), as comments.
  std::string_view stages = c.stages;
  for (size_t at = 0; at < stages.size();) {
    size_t end = stages.find('\n', at);
    if (end == std::string_view::npos) end = stages.size();
    out << "# " << stages.substr(at, end - at) << "\n";
    at = end + 1;
  }
  if (!out.flush()) user_error("-o: writing '{}' failed ({})", a.output, std::strerror(errno));
  // The schedule too, when the tuning database's: the program differs from the default's.
  fmt::print(to_stdout ? stderr : stdout, "wrote {} ({} instructions, block_dim {}) in {:.1f} ms{}\n",
             to_stdout ? "the program to standard output" : a.output, c.program.code.size(), c.program.block_dim,
             c.milliseconds, tuned ? fmt::format("; {}", tuned->str()) : "");
  return 0;
}


int validate_kernel(const std::vector<dsl::Func>& outputs, const RunArgs& a) {
  codegen::compile(outputs, load_chip(a.chip));
  return 0;
}


}  // namespace cubekit::cli
