// Fuzz target: the command lines of `cubekit kernel ...` and `cubekit compile ...`, parsed and
// validated in-process by the CLI's own code (tools/cmd_kernel.cpp with KernelAction::Validate:
// the same CLI11 options, the same checks, the kernel's definition and schedule, its compilation;
// nothing is run and no file is written).
//
// Input: the first line is the command line after `cubekit`, split at spaces and tabs, e.g.
//   kernel matmul --m 64 --n 64 --k 64 --tm 9223372036854775807
// The lines after it, when there are any, are a chip config (JSON): it is written to a scratch file
// and the argument `@chip` stands for its path (so `--chip @chip` loads it as the CLI would).
//
// A finding is what the CLI would turn into exit 3 or a crash: any exception but a UserError or a
// CLI11 parse error (exit 2, or 0 for --help), a signal, a hang.
#include "fuzz/fuzz_target.h"
#include "tools/commands.h"

#include <string>
#include <vector>

namespace {

std::vector<std::string> split_args(std::string_view line, const std::string& chip_path) {
  std::vector<std::string> args = {"cubekit"};
  size_t at = 0;
  while (at < line.size()) {
    size_t end = line.find_first_of(" \t", at);
    if (end == std::string_view::npos) end = line.size();
    if (end > at) args.emplace_back(line.substr(at, end - at));
    at = end + 1;
  }
  for (std::string& a : args)
    if (a == "@chip") a = chip_path;
  return args;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cubekit;
  static const std::string chip_path = fuzz::scratch_path("chip.json");
  std::string_view text = fuzz::as_text(data, size);
  size_t newline = text.find('\n');
  std::string_view line = text.substr(0, newline);
  std::string_view chip_json = newline == std::string_view::npos ? "" : text.substr(newline + 1);
  fuzz::write_file(chip_path, chip_json);

  std::vector<std::string> args = split_args(line, chip_path);
  if (args.size() > 256) return 0;  // a shell's command line; CLI11's cost grows with it
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());

  CLI::App app{"cubekit"};
  app.require_subcommand(1);
  int exit_code = 0;
  cli::add_kernel(app, exit_code, cli::KernelAction::Validate);
  fuzz::accepted([&] {
    try {
      app.parse(int(argv.size()), argv.data());
    } catch (const CLI::ParseError& e) {
      return;  // the CLI's exit 2 with CLI11's message (or 0 for --help)
    }
  });
  return 0;
}
