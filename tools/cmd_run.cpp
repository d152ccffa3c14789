// `cubekit run PROGRAM.s`: assemble a program and run it on seeded random inputs (or .npy files).
#include "emulator/chip_config.h"
#include "emulator/emulator.h"
#include "emulator/error.h"
#include "emulator/memory.h"
#include "emulator/program.h"
#include "emulator/simulator.h"
#include "tools/commands.h"
#include "tools/npy.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>

namespace cubekit::cli {

namespace {

struct RunArgs {
  std::string program;
  std::string chip = "ascend910";
  int cores = 0;
  uint64_t seed = 0;
  int64_t max_steps = RunOptions{}.max_steps;
  int64_t max_work = kDefaultMaxWork, max_trace_events = kDefaultMaxTraceEvents;
  std::vector<std::string> inputs, outputs;
  bool json = false;
  bool timing_only = false, no_checks = false, in_order = false;
  bool cores_given = false;  // --cores/--blocks on the command line (0 is no launch, not the default)
  int threads = 0;
  std::string trace;
};

std::pair<std::string, std::string> split_binding(const std::string& s, const char* option) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    user_error("{} takes NAME=FILE.npy, got '{}'", option, s);
  return {s.substr(0, eq), s.substr(eq + 1)};
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s;
  for (int64_t d : shape) s += (s.empty() ? "" : ", ") + std::to_string(d);
  return "[" + s + "]";
}

void load_input(GlobalMemory& gm, const std::string& binding) {
  auto [name, path] = split_binding(binding, "--input");
  int t = gm.index(name);
  const TensorDecl& decl = gm.decls[t];
  if (decl.role == TensorRole::Workspace)
    user_error("--input {}: tensor {} is the kernel's workspace (GM scratch it writes before reading); give inputs "
               "for its in and inout tensors", name, name);
  // An out tensor starts as zeros the host does not give (what an unwritten byte of it returns).
  if (decl.role == TensorRole::Out)
    user_error("--input {}: tensor {} is an output (declared out); give inputs for its in and inout tensors, or declare {} "
               "inout to start it from the host's data", name, name, name);
  NpyArray a = read_npy(path);
  if (a.dtype == DType::u16 && decl.dtype == DType::bf16) a.dtype = DType::bf16;  // bf16 travels as its bits
  if (a.dtype != decl.dtype)
    user_error("--input {}: '{}' holds {} but tensor {} is {}", name, path, dtype_name(a.dtype), name, dtype_name(decl.dtype));
  if (a.shape != decl.shape)
    user_error("--input {}: '{}' has shape {} but tensor {} is {}", name, path, shape_text(a.shape), name, shape_text(decl.shape));
  gm.data[t] = std::move(a.data);
}

// --in-order: the functional model alone, every instruction at once in program order.
int run_functional(const ChipConfig& chip, const Program& program, GlobalMemory& gm, const RunArgs& args,
                   const std::vector<std::pair<int, std::string>>& outputs) {
  RunResult r = run_in_order(chip, program, gm, {.cores = args.cores, .max_steps = args.max_steps, .max_work = args.max_work});
  for (const auto& [t, path] : outputs) write_npy(path, gm.decls[t].dtype, gm.decls[t].shape, gm.data[t]);
  if (args.json) {
    nlohmann::json j;
    j["kernel"] = program.name;
    j["chip"] = chip.name;
    j["cores"] = r.cores;
    j["instructions"] = r.instructions;
    j["diagnostics"] = nlohmann::json::parse(diagnostics_json(r.diagnostics, program, program.source));
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("kernel {} on {} in program order: {} block{}, {} instructions executed\n", program.name, chip.name,
               r.cores, r.cores == 1 ? "" : "s", r.instructions);
    if (r.clean())
      fmt::print("checks: clean (in program order: bounds, alignment, dtypes and faults only; run without --in-order "
                 "for the race, initialisation and sync checks)\n");
    else fmt::print("{}", problems_text(r.diagnostics, program, program.source));
  }
  return r.clean() ? 0 : 1;
}

// The program of `path`; `-`, standard input's (`cubekit compile KERNEL ... -o - | cubekit run -`).
Program read_program(const std::string& path) {
  if (path != "-") return load_program(path);
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  if (std::cin.bad()) user_error("run -: reading the program from standard input failed");
  if (text.empty())
    user_error("run -: standard input is empty; pipe a program into it (cubekit compile KERNEL ... -o - | cubekit run -)");
  Program p = parse_program(text, "<stdin>");
  p.source = "<stdin>";
  return p;
}

int run(const RunArgs& args) {
  if (args.cores_given && args.cores < 1)
    user_error("--blocks must be at least 1 (leave it out for the program's .block_dim), got {}", args.cores);
  ChipConfig chip = load_chip(args.chip);
  Program program = read_program(args.program);
  if (args.max_steps < 1) user_error("--max-steps must be positive, got {}", args.max_steps);
  if (args.max_work < 1) user_error("--max-work must be positive, got {}", args.max_work);
  if (args.max_trace_events < 1) user_error("--max-trace-events must be positive, got {}", args.max_trace_events);
  if (args.in_order && args.timing_only)
    user_error("--in-order runs the functional model alone and --timing-only the timing model alone: give one of them");
  if (args.in_order && !args.trace.empty())
    user_error("--trace {}: an --in-order run has no timeline to trace (it runs every instruction at once, in program "
               "order); drop --in-order to get the trace", args.trace);
  if (!args.trace.empty()) check_writable(args.trace, "--trace");
  // Timing never depends on data: a timing-only run of a program given no inputs has no bytes.
  const bool data = !args.timing_only || !args.inputs.empty();
  GlobalMemory gm = data ? GlobalMemory::for_program(program) : GlobalMemory::shape_only(program);
  if (!args.timing_only) gm.fill_inputs(args.seed);
  std::set<std::string> given;
  for (const std::string& in : args.inputs) {
    const std::string name = split_binding(in, "--input").first;
    if (!given.insert(name).second)
      user_error("--input {}: tensor {} is given twice; give each input once", in, name);
  }
  for (const std::string& in : args.inputs) load_input(gm, in);
  std::vector<std::pair<int, std::string>> outputs;
  for (const std::string& out : args.outputs) {
    auto [name, path] = split_binding(out, "--output");
    if (args.timing_only)
      user_error("--output {}: a --timing-only run computes no data, so there is no {} to save; drop --timing-only to "
                 "get it, or drop --output", out, name);
    outputs.push_back({gm.index(name), path});
    check_writable(path, "--output " + name);
  }
  // Two results into one file: the last written replaced the other without a word.
  std::vector<std::pair<std::string, std::string>> files;  // path, what writes it
  for (size_t i = 0; i < outputs.size(); ++i) files.push_back({outputs[i].second, "--output " + args.outputs[i]});
  if (!args.trace.empty()) files.push_back({args.trace, "--trace " + args.trace});
  for (size_t i = 0; i < files.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      std::error_code same;
      if (files[i].first == files[j].first || std::filesystem::equivalent(files[i].first, files[j].first, same))
        user_error("{} and {} write the same file; give each its own", files[j].second, files[i].second);
    }
  if (args.in_order) return run_functional(chip, program, gm, args, outputs);
  SimOptions options{.blocks = args.cores, .timing_only = args.timing_only, .checks = !args.no_checks,
                     .trace = !args.trace.empty(), .threads = args.threads, .max_steps = args.max_steps,
                     .max_work = args.max_work, .max_trace_events = args.max_trace_events};
  SimResult result = simulate(chip, program, gm, options);
  if (!args.timing_only)
    for (const auto& [t, path] : outputs) write_npy(path, gm.decls[t].dtype, gm.decls[t].shape, gm.data[t]);
  if (!args.trace.empty()) write_trace(args.trace, result, program, chip);
  if (args.json) {
    fmt::print("{}\n", report_json(result.report, program, program.source));
  } else {
    fmt::print("{}", report_text(result.report, program, program.source));
    for (const auto& [t, path] : outputs) fmt::print("wrote {} to {}\n", gm.decls[t].name, path);
    if (!args.trace.empty()) fmt::print("wrote the trace to {} (open it in https://ui.perfetto.dev)\n", args.trace);
  }
  return result.report.clean() ? 0 : 1;
}

}  // namespace

void add_run(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "assemble and run a program on the emulator");
  // Registered when `run` is the command (not for `cubekit kernel ...`).
  options_when_chosen(cmd, [args](CLI::App* cmd) {
    cmd->add_option("program", args->program, "the program (.s; - reads it from standard input)")->required();
    cmd->add_option("--chip", args->chip, "chip preset or JSON config")->capture_default_str();
    cmd->add_option("--blocks,--cores", args->cores, "blocks to launch (default: the program's .block_dim); they run on "
                                                      "min(blocks, the chip's cores) cores");
    cmd->add_option("--seed", args->seed, "seed of the random inputs")->capture_default_str()->check(kNotNegative)->check(fits<uint64_t>());
    cmd->add_option("--input", args->inputs, "NAME=FILE.npy: a tensor's contents (repeatable)");
    cmd->add_option("--output", args->outputs, "NAME=FILE.npy: save a tensor after the run (repeatable)");
    cmd->add_option("--max-steps", args->max_steps, "instructions of one block before a run counts as a hang")->capture_default_str();
    cmd->add_option("--max-work", args->max_work, "work units over the whole run (all blocks) before it is stopped; a "
                    "unit is about one instruction of host time (the report's 'work' says what a run used)")
        ->capture_default_str()
        ->check(fits<int64_t>());
    cmd->add_option("--max-trace-events", args->max_trace_events, "events (~200 bytes each) --trace may write")
        ->capture_default_str()->check(fits<int64_t>());
    cmd->add_flag("--json", args->json, "print the report as one JSON object");
    cmd->add_option("--trace", args->trace, "write a Chrome trace (Perfetto, chrome://tracing) to this file");
    cmd->add_flag("--timing-only", args->timing_only, "cycles only: skip the data and the race checks (fast, for tuning)");
    cmd->add_flag("--no-checks", args->no_checks,
                  "skip the race and initialisation checks (the timing model still reports flag misuse: a flag set "
                  "twice or left set, a wait nothing sets)");
    cmd->add_option("--threads", args->threads, "host threads (0, the default: all); results never depend on it")
        ->check(kNotNegative);
    cmd->add_flag("--in-order", args->in_order, "the functional model only: every instruction in program order, no timing");
  });
  cmd->callback([args, cmd, &exit_code] {
    args->cores_given = cmd->count("--cores") > 0;
    refuse_unused_run_options(*cmd, args->timing_only, args->trace);
    exit_code = run(*args);
  });
}

void check_writable(const std::string& path, const std::string& option) {
  // `-` is standard output elsewhere (compile -o -), where the report goes here: a file named "-" surprised.
  if (path == "-") user_error("{} -: a file's path, not standard output (the report goes there); give a file name", option);
  const bool existed = std::filesystem::exists(path);
  errno = 0;
  if (!std::ofstream(path, std::ios::app))
    user_error("{}: cannot write '{}' ({})", option, path, errno ? std::strerror(errno) : "it cannot be opened");
  if (!existed) std::filesystem::remove(path);
}

}  // namespace cubekit::cli
