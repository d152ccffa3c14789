// The command line is two executables built from the same code: `cubekit`, linked statically
// where the toolchain allows (its start is a millisecond shorter, a tenth of a timing-only run),
// and `cubekit-dynamic` beside it, which can load modules (dsl/host.cpp's Halide reference,
// tune/cluster.cpp's Open MPI). A command that will load one calls run_where_modules_load()
// before it writes anything; in the static executable that replaces the process with the twin,
// given the same arguments, which runs the command from its start.
#pragma once

#include <string_view>

namespace cubekit::cli {

// main() keeps its arguments for the twin (the strings stay argv's).
void remember_arguments(int argc, char** argv);

// Returns at once where modules load (the twin, the sanitizer builds' dynamic `cubekit`, a
// program embedding the commands); in the static `cubekit` it does not return. `needs` names
// the module for the error when the twin cannot be started.
void run_where_modules_load(std::string_view needs);

}  // namespace cubekit::cli
