// cubekit: the command line over the library. Exit codes: 0 clean, 1 the checker or the result
// check found a problem, 2 bad input (the message says what and where), 3 an internal error.
#include "emulator/error.h"
#include "tools/commands.h"

#include <fmt/format.h>

#include <cstdio>

int main(int argc, char** argv) {
  CLI::App app{"cubekit: develop, run and measure kernels for Ascend-style AI Cores on any machine"};
  app.require_subcommand(1);
  int exit_code = 0;
  cubekit::cli::add_run(app, exit_code);
  cubekit::cli::add_info(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const cubekit::UserError& e) {
    fmt::print(stderr, "cubekit: error: {}\n", e.what());
    return 2;
  } catch (const cubekit::InternalError& e) {
    fmt::print(stderr, "cubekit: {}\n", e.what());
    return 3;
  }
  return exit_code;
}
