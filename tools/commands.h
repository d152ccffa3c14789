// The cubekit CLI's subcommands. Each add_* registers one on the app; the command runs from the
// callback CLI11 calls after parsing and stores its exit code in `exit_code`.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace cubekit::cli {

void add_run(CLI::App& app, int& exit_code);
void add_info(CLI::App& app, int& exit_code);  // isa, chips
void add_tune(CLI::App& app, int& exit_code);  // tune: tools/cmd_tune.cpp
// What `kernel` and `compile` do once their options are parsed: Run compiles, runs, checks and
// writes as the CLI does; Validate (the fuzz target fuzz/kernel_options_fuzz.cpp) stops after the
// same option checks, kernel definition and compilation, so it runs nothing and writes no file.
enum class KernelAction { Run, Validate };
void add_kernel(CLI::App& app, int& exit_code, KernelAction action = KernelAction::Run);  // kernel, compile

// An option's check: refuses a negative value ("-1") with that said, where CLI11's own
// NonNegativeNumber names the range up to the largest double.
inline const CLI::Validator kNotNegative(
    [](std::string& v) { return !v.empty() && v[0] == '-' ? std::string("must not be negative, got " + v) : std::string(); },
    "NOT NEGATIVE");

// Refuses a value below 1 ("0": an option whose leaving out means "choose" takes no 0).
inline const CLI::Validator kAtLeastOne(
    [](std::string& v) {
      try {
        return std::stoll(v) < 1 ? std::string("must be at least 1 (leave it out to choose), got " + v) : std::string();
      } catch (const std::exception&) {
        return std::string("must be a whole number, got " + v);
      }
    },
    "AT LEAST 1");

// Refuses 0 for an option the library reads 0 of as "left out" (`left_out` says what that gives):
// given, a 0 would silently mean something else. Not a number: CLI11's conversion says so.
inline CLI::Validator not_zero(const std::string& left_out) {
  return CLI::Validator(
      [left_out](std::string& v) {
        try {
          return std::stod(v) == 0 ? "must not be 0 (leave it out for " + left_out + "), got " + v : std::string();
        } catch (const std::exception&) {
          return std::string();
        }
      },
      "NOT 0");
}

// A user error (`option`: cannot write `path`) unless the file can be written; checked before a run
// and written after it, so a run refused on the way leaves no empty file behind (tools/cmd_run.cpp).
void check_writable(const std::string& path, const std::string& option);

}  // namespace cubekit::cli
