// cubekit: the command line over the library. Exit codes: 0 clean, 1 the checker or the result
// check found a problem, 2 bad input (the message says what and where), 3 an internal error.
#include "emulator/error.h"
#include "tools/commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

int main(int argc, char** argv) {
  CLI::App app{"cubekit: develop, run and measure kernels for Ascend-style AI Cores on any machine"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "cubekit " CUBEKIT_VERSION);
  int exit_code = 0;
  cubekit::cli::add_run(app, exit_code);
  cubekit::cli::add_info(app, exit_code);
  cubekit::cli::add_kernel(app, exit_code);
  cubekit::cli::add_tune(app, exit_code);
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
    if (argc > 2 && argv[2][0] != '-' && command->get_require_subcommand_min() > 0 &&
        std::none_of(kernels.begin(), kernels.end(), [&](const CLI::App* k) { return k->get_name() == argv[2]; })) {
      std::string list;
      for (const CLI::App* k : kernels) list += (list.empty() ? "" : ", ") + k->get_name();
      fmt::print(stderr, "cubekit: error: {}: unknown kernel '{}'; the kernels are {} (cubekit {} --help)\n", argv[1],
                 argv[2], list, argv[1]);
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
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "cubekit: error: out of host memory (the emulated tensors or buffers are too large)\n");
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "cubekit: internal error: {} (this is a cubekit bug)\n", e.what());
    return 3;
  }
  return exit_code;
}
