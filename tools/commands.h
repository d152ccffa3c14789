// The cubekit CLI's subcommands. Each add_* registers one on the app; the command runs from the
// callback CLI11 calls after parsing and stores its exit code in `exit_code`.
#pragma once

#include <CLI/CLI.hpp>

namespace cubekit::cli {

void add_run(CLI::App& app, int& exit_code);
void add_info(CLI::App& app, int& exit_code);  // isa, chips
void add_kernel(CLI::App& app, int& exit_code);  // kernel, compile

}  // namespace cubekit::cli
