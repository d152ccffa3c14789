// Where cubekit's modules loaded on first use are found (the Halide host reference,
// dsl/host.cpp; MPI, tune/cluster.cpp): each is a shared object apart from the program, so that a
// run which does not need it neither links nor starts it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cubekit {

// Whether this process can load a module: not when its executable is linked statically (the
// command line's `cubekit`, tools/README.md). glibc's dlopen from a static program brings a second
// C runtime, in which LLVM's start crashed; such a program hands a command that needs a module to
// its dynamically linked twin (tools/twin.h).
bool can_load_modules();

// Where module `name` may be, in order: beside the binary that holds `anchor` (bin/ -> lib/ in the
// build tree and under an install prefix; the Python extension's cubekit/ in build/python, and in
// PREFIX/lib/python3/dist-packages), then `installed` and `built` (the install prefix's and the
// build tree's paths of it).
std::vector<std::filesystem::path> module_candidates(const std::string& name, const void* anchor,
                                                     const std::string& installed, const std::string& built);

// The first candidate that exists and `open(path, why)` accepts (a pointer; null with `why` set
// when it refuses), or null with `tried` listing every refusal ("; why" each).
template <class Open>
auto first_module(const std::vector<std::filesystem::path>& candidates, Open open, std::string& tried)
    -> decltype(open(std::string(), tried)) {
  for (const std::filesystem::path& p : candidates) {
    std::error_code ec;
    if (!std::filesystem::exists(p, ec)) continue;
    std::string why;
    if (auto module = open(p.lexically_normal().string(), why)) return module;
    tried += "; " + why;
  }
  return nullptr;
}

}  // namespace cubekit
