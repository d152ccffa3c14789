// cubekit: the command line over the library. Exit codes: 0 clean, 1 the checker or the result
// check found a problem, 2 bad input (the message says what and where), 3 an internal error.
#include "emulator/error.h"
#include "emulator/memory.h"
#include "tools/commands.h"
#include "tools/twin.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <system_error>
#include <string_view>

namespace {

std::unique_ptr<CLI::App> commands(int& exit_code, const cubekit::cli::Chosen& chosen) {
  auto app = std::make_unique<CLI::App>("cubekit: develop, run and measure kernels for Ascend-style AI Cores on any machine");
  app->require_subcommand(1);
  // CLI11's own parse errors in the form of cubekit's ("--m is required" had no prefix), with the
  // help of the command they were in.
  app->failure_message([](const CLI::App* where, const CLI::Error& e) {
    std::string path;  // the subcommands the command line chose, as far as parsing got
    for (std::vector<const CLI::App*> chosen = where->get_subcommands({}); ;) {
      auto it = std::find_if(chosen.begin(), chosen.end(), [](const CLI::App* sub) { return sub->parsed(); });
      if (it == chosen.end()) break;
      path += " " + (*it)->get_name();
      chosen = (*it)->get_subcommands({});
    }
    return fmt::format("cubekit: error: {}\nRun `cubekit{} --help` for more information.\n", e.what(), path);
  });
  app->set_version_flag("--version", "cubekit " CUBEKIT_VERSION);
  cubekit::cli::add_run(*app, exit_code);
  cubekit::cli::add_info(*app, exit_code);
  cubekit::cli::add_kernel(*app, exit_code, cubekit::cli::KernelAction::Run, chosen);
  cubekit::cli::add_tune(*app, exit_code, chosen);
  return app;
}

}  // namespace

int main(int argc, char** argv) {
  cubekit::put_heap_in_huge_pages();
  cubekit::cli::remember_arguments(argc, argv);
  int exit_code = 0;
  std::unique_ptr<CLI::App> commands_named = commands(exit_code, cubekit::cli::Chosen(argc, argv));
  CLI::App& app = *commands_named;
  // An empty argument ("", or --x= with nothing after it): CLI11 takes it as no value at all, so that
  // --double-buffer "" silently meant the default schedule and `cubekit chips ""` every chip.
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool bare = arg.empty(), after_equals = arg.size() > 2 && arg.substr(0, 2) == "--" && arg.back() == '=';
    if (!bare && !after_equals) continue;
    if (arg == "--db=" || (bare && i > 1 && std::string_view(argv[i - 1]) == "--db")) continue;  // says what it takes
    const std::string what = after_equals                    ? fmt::format("{} has an empty value", arg.substr(0, arg.size() - 1))
                             : i > 1 && argv[i - 1][0] == '-' ? fmt::format("{} has an empty value", argv[i - 1])
                                                              : fmt::format("argument {} is empty", i);
    fmt::print(stderr, "cubekit: error: {}: give a value, or leave {} out\n", what, bare && !(i > 1 && argv[i - 1][0] == '-') ? "it" : "the option");
    return 2;
  }
  // Two flags a letter apart that mean different things: CLI11 would say only "not expected".
  for (int i = 2; argc > 1 && i < argc; ++i) {
    const std::string_view command = argv[1], arg = argv[i];
    if (command == "kernel" && arg == "--no-checks") {
      fmt::print(stderr, "cubekit: error: kernel has no --no-checks: --no-check skips the Halide reference (the "
                         "emulator's checks stay on); `cubekit run --no-checks` is the one that skips the race and "
                         "initialisation checks\n");
      return 2;
    }
    if (command == "run" && arg == "--no-check") {
      fmt::print(stderr, "cubekit: error: run has no --no-check: --no-checks skips the race and initialisation checks "
                         "(`cubekit kernel --no-check` skips a kernel's Halide reference)\n");
      return 2;
    }
  }
  if (argc > 1 && argv[1][0] != '-') {  // `cubekit kernel foo` and `cubekit foo`: named in the message
    std::string names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) {
      names += (names.empty() ? "" : ", ") + sub->get_name();
      known |= sub->get_name() == argv[1];
    }
    if (!known) {
      fmt::print(stderr, "cubekit: error: unknown command '{}'; the commands are {} (cubekit --help)\n", argv[1], names);
      return 2;
    }
    // `cubekit kernel foo`: CLI11 would say "A subcommand is required", as if none were given (tune,
    // which takes --suite instead of a kernel, says it itself).
    const CLI::App* command = app.get_subcommand(argv[1]);
    const std::vector<const CLI::App*> kernels = command->get_subcommands({});
    std::string list;
    for (const CLI::App* k : kernels) list += (list.empty() ? "" : ", ") + k->get_name();
    if (argc > 2 && argv[2][0] != '-' && command->get_require_subcommand_min() > 0 &&
        std::none_of(kernels.begin(), kernels.end(), [&](const CLI::App* k) { return k->get_name() == argv[2]; })) {
      fmt::print(stderr, "cubekit: error: {}: unknown kernel '{}'; the kernels are {} (cubekit {} --help)\n", argv[1],
                 argv[2], list, argv[1]);
      return 2;
    }
    if (argc == 2 && command->get_require_subcommand_min() > 0) {  // CLI11 said "A subcommand is required"
      fmt::print(stderr, "cubekit: error: {}: name a kernel; the kernels are {} (cubekit {} --help)\n", argv[1], list,
                 argv[1]);
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const cubekit::UserError& e) {
    std::string_view m = e.what();  // parse errors already read "file:line:col: error: ..."
    fmt::print(stderr, "cubekit: {}{}\n", m.find(": error: ") == std::string_view::npos ? "error: " : "", m);
    return 2;
  } catch (const cubekit::InternalError& e) {
    fmt::print(stderr, "cubekit: {}\n", e.what());
    return 3;
  } catch (const std::system_error& e) {  // fmt's, when writing the output fails (a full disk)
    fmt::print(stderr, "cubekit: error: writing the output failed ({})\n", e.code().message());
    return 2;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "cubekit: error: out of host memory (the emulated tensors or buffers are too large)\n");
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "cubekit: internal error: {} (this is a cubekit bug)\n", e.what());
    return 3;
  }
  // Output still buffered fails only here (`cubekit chips --json > /dev/full` said nothing).
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    fmt::print(stderr, "cubekit: error: writing the output failed ({})\n", std::strerror(errno));
    return 2;
  }
  return exit_code;
}
