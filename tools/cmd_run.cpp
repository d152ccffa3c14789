// `cubekit run PROGRAM.s`: assemble a program and run it on seeded random inputs (or .npy files).
#include "emulator/chip_config.h"
#include "emulator/emulator.h"
#include "emulator/error.h"
#include "emulator/memory.h"
#include "emulator/program.h"
#include "tools/commands.h"
#include "tools/npy.h"

#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>

namespace cubekit::cli {

namespace {

struct RunArgs {
  std::string program;
  std::string chip = "ascend910";
  int cores = 0;
  uint64_t seed = 0;
  int64_t max_steps = RunOptions{}.max_steps;
  std::vector<std::string> inputs, outputs;
  bool json = false;
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
  NpyArray a = read_npy(path);
  if (a.dtype != decl.dtype)
    user_error("--input {}: '{}' holds {} but tensor {} is {}", name, path, dtype_name(a.dtype), name, dtype_name(decl.dtype));
  if (a.shape != decl.shape)
    user_error("--input {}: '{}' has shape {} but tensor {} is {}", name, path, shape_text(a.shape), name, shape_text(decl.shape));
  gm.data[t] = std::move(a.data);
}

int run(const RunArgs& args) {
  ChipConfig chip = load_chip(args.chip);
  Program program = load_program(args.program);
  if (args.cores < 0) user_error("--cores must be positive, got {}", args.cores);
  if (args.max_steps < 1) user_error("--max-steps must be positive, got {}", args.max_steps);
  GlobalMemory gm = GlobalMemory::for_program(program);
  gm.fill_inputs(args.seed);
  for (const std::string& in : args.inputs) load_input(gm, in);
  std::vector<std::pair<int, std::string>> outputs;
  for (const std::string& out : args.outputs) {
    auto [name, path] = split_binding(out, "--output");
    outputs.push_back({gm.index(name), path});
    if (!std::ofstream(path, std::ios::app)) user_error("--output {}: cannot write '{}'", name, path);
  }
  RunResult r = run_in_order(chip, program, gm, {.cores = args.cores, .max_steps = args.max_steps});
  for (const auto& [t, path] : outputs) write_npy(path, gm.decls[t].dtype, gm.decls[t].shape, gm.data[t]);

  if (args.json) {
    nlohmann::json j;
    j["kernel"] = program.name;
    j["chip"] = chip.name;
    j["cores"] = r.cores;
    j["instructions"] = r.instructions;
    for (int p = 0; p < kNumPipes; ++p) j["instructions_per_pipe"][std::string(pipe_name(Pipe(p)))] = r.per_pipe[p];
    j["diagnostics"] = nlohmann::json::array();
    for (const Diagnostic& d : r.diagnostics)
      j["diagnostics"].push_back({{"kind", diagnostic_kind_name(d.kind)}, {"core", d.core}, {"instruction", d.index},
                                  {"line", d.line}, {"message", d.message}, {"repeats", d.repeats},
                                  {"text", format_diagnostic(program, d, args.program)}});
    for (const auto& [t, path] : outputs) j["outputs"][gm.decls[t].name] = path;
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("kernel {} on {}: {} core{}, {} instructions executed\n", program.name, chip.name, r.cores,
               r.cores == 1 ? "" : "s", r.instructions);
    std::string pipes;
    for (int p = 0; p < kNumPipes; ++p) pipes += fmt::format("  {} {}", pipe_name(Pipe(p)), r.per_pipe[p]);
    fmt::print("per pipe:{}\n", pipes);
    for (const auto& [t, path] : outputs) fmt::print("wrote {} to {}\n", gm.decls[t].name, path);
    if (r.clean()) fmt::print("checks: clean\n");
    else fmt::print("checks: {} problem{}\n", r.diagnostics.size(), r.diagnostics.size() == 1 ? "" : "s");
    for (const Diagnostic& d : r.diagnostics) fmt::print("  {}\n", format_diagnostic(program, d, args.program));
  }
  return r.clean() ? 0 : 1;
}

}  // namespace

void add_run(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "assemble and run a program on the emulator");
  cmd->add_option("program", args->program, "the program (.s)")->required();
  cmd->add_option("--chip", args->chip, "chip preset or JSON config")->capture_default_str();
  cmd->add_option("--cores", args->cores, "cores to launch (default: the program's .block_dim)");
  cmd->add_option("--seed", args->seed, "seed of the random inputs")->capture_default_str();
  cmd->add_option("--input", args->inputs, "NAME=FILE.npy: a tensor's contents (repeatable)");
  cmd->add_option("--output", args->outputs, "NAME=FILE.npy: save a tensor after the run (repeatable)");
  cmd->add_option("--max-steps", args->max_steps, "instructions per core before a run counts as a hang")->capture_default_str();
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args, &exit_code] { exit_code = run(*args); });
}

}  // namespace cubekit::cli
