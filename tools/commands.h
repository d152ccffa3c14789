// The cubekit CLI's subcommands. Each add_* registers one on the app; the command runs from the
// callback CLI11 calls after parsing and stores its exit code in `exit_code`.
#pragma once

#include <CLI/CLI.hpp>

#include <charconv>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace cubekit::cli {

// The command and kernel a command line names (`cubekit kernel add ...`). Registering every
// subcommand, about 110 of them, took a fifth of `cubekit --version` (0.3 ms of 1.5); a command
// line that names a kernel registers that one only. Default: every subcommand.
struct Chosen {
  std::string command, kernel;  // argv[1] and argv[2] unless they are options
  Chosen() = default;
  Chosen(int argc, char** argv);
  // Whether `group` ("kernel", "compile", "tune") registers its subcommand `name`, one of its
  // `names`: none when the command line names another command; all when it names none, or this
  // group without one of its names (a misspelt kernel gets them all, for the messages to list).
  bool wants(std::string_view group, std::string_view name, const std::vector<std::string>& names) const;
};

// Adds a subcommand's options when the command line chooses it (CLI11's pre-parse callback runs
// then, before its arguments are read; `--help` after it sees them): building every kernel's
// options on every run was a sixth of a 128^3 matmul's whole `cubekit kernel` process.
void options_when_chosen(CLI::App* sub, std::function<void(CLI::App*)> add);

// The options of a run that `cmd`'s command line gave and the run would not use: --seed or
// --input with --timing-only, --max-trace-events without --trace (a user error each).
void refuse_unused_run_options(const CLI::App& cmd, bool timing_only, const std::string& trace);

void add_run(CLI::App& app, int& exit_code);
void add_info(CLI::App& app, int& exit_code);  // isa, chips
void add_tune(CLI::App& app, int& exit_code, const Chosen& chosen = {});  // tune: tools/cmd_tune.cpp
// What `kernel` and `compile` do once their options are parsed: Run compiles, runs, checks and
// writes as the CLI does; Validate (the fuzz target fuzz/kernel_options_fuzz.cpp) stops after the
// same option checks, kernel definition and compilation, so it runs nothing and writes no file.
enum class KernelAction { Run, Validate };
void add_kernel(CLI::App& app, int& exit_code, KernelAction action = KernelAction::Run,
                const Chosen& chosen = {});  // kernel, compile

// An option's check: refuses a negative value ("-1") with that said, where CLI11's own
// NonNegativeNumber names the range up to the largest double.
inline const CLI::Validator kNotNegative(
    [](std::string& v) { return !v.empty() && v[0] == '-' ? std::string("must not be negative, got " + v) : std::string(); },
    "NOT NEGATIVE");

// Refuses a whole number the option's type cannot hold, which CLI11 would saturate: --seed 2^64
// ran as 2^64 - 1. Anything else that is not a number is left to CLI11's conversion to say.
template <class T>
CLI::Validator fits() {
  return CLI::Validator(
      [](std::string& v) {
        T x;
        if (std::from_chars(v.data(), v.data() + v.size(), x).ec != std::errc::result_out_of_range) return std::string();
        return "must be in " + std::to_string(std::numeric_limits<T>::min()) + ".." +
               std::to_string(std::numeric_limits<T>::max()) + ", got " + v;
      },
      "FITS");
}

// Refuses a value below 1 for an option whose leaving out means `left_out` (it takes no 0 for it,
// nor a negative value).
inline CLI::Validator at_least_one(const std::string& left_out) {
  return CLI::Validator(
      [left_out](std::string& v) {
        try {
          return std::stoll(v) < 1 ? "must be at least 1 (leave it out " + left_out + "), got " + v : std::string();
        } catch (const std::exception&) {
          return std::string("must be a whole number, got " + v);
        }
      },
      "AT LEAST 1");
}
inline const CLI::Validator kAtLeastOne = at_least_one("to choose");

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

// A comma-separated list (`--shape 3,5,7`; the option may also repeat, or take its values apart).
// One item of a list option: a name as it is, a number in decimal and within T's range (CLI11's
// lexical_cast saturates, so that 99999999999999999999 would be reported as 2^63 - 1).
template <class T>
T list_item(const std::string& name, const std::string& item, const std::string& list, const std::string& example) {
  if constexpr (std::is_same_v<T, std::string>) {
    return item;
  } else {
    T value{};
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (error == std::errc::result_out_of_range)
      throw CLI::ValidationError(name, "'" + item + "' in '" + list + "' is out of range: at most " +
                                           std::to_string(std::numeric_limits<T>::max()));
    if (error != std::errc() || end != item.data() + item.size())
      throw CLI::ValidationError(name, "'" + item + "' in '" + list + "' is not a whole number, e.g. " + name + " " + example);
    return value;
  }
}

// CLI11's own delimiter drops empty items, so that a slip such as `3,,5` or `relu,` silently meant
// another shape or epilogue: an empty item is refused here. `example`: a list the option takes.
template <class T>
CLI::Option* add_list_option(CLI::App* cmd, const std::string& name, std::vector<T>& into, const std::string& help,
                             const std::string& example) {
  static_assert(std::is_integral_v<T> || std::is_same_v<T, std::string>, "lists of whole numbers or of names");
  auto parse = [name, example, &into](const std::vector<std::string>& given) {
    into.clear();
    for (const std::string& list : given)
      for (size_t at = 0;;) {
        const size_t comma = list.find(',', at);
        // Blanks around an item are dropped: `--shape "3, 5"` is 3,5.
        const std::string item = CLI::detail::trim_copy(list.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
        if (item.empty())
          throw CLI::ValidationError(name, "'" + list + "' has an empty item: separate the values by single commas, e.g. " +
                                               name + " " + example);
        into.push_back(list_item<T>(name, item, list, example));
        if (comma == std::string::npos) break;
        at = comma + 1;
      }
  };
  // One list, given once: a second --shape was joined to the first (4,4 then 8,8 ran [4, 4, 8, 8]).
  return cmd->add_option_function<std::vector<std::string>>(name, parse, help)
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::Throw)
      ->type_name(std::is_integral_v<T> ? "INT,..." : "NAME,...");
}

// A user error (`option`: cannot write `path`) unless the file can be written; checked before a run
// and written after it, so a run refused on the way leaves no empty file behind (tools/cmd_run.cpp).
void check_writable(const std::string& path, const std::string& option);

}  // namespace cubekit::cli
