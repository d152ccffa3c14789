#include "tools/twin.h"

#include "emulator/error.h"
#include "emulator/plugin.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

namespace cubekit::cli {

namespace {
std::vector<char*> arguments;  // argv and its closing null
}  // namespace

void remember_arguments(int argc, char** argv) { arguments.assign(argv, argv + argc), arguments.push_back(nullptr); }

void run_where_modules_load(std::string_view needs) {
  if (can_load_modules()) return;
  CUBEKIT_ASSERT(arguments.size() > 1, "run_where_modules_load before remember_arguments");
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path twin = self.parent_path() / "cubekit-dynamic";
  // Nothing is written yet (the callers' contract); flushed, a stray byte would not be lost either.
  std::fflush(stdout);
  std::fflush(stderr);
  execv(twin.c_str(), arguments.data());
  user_error("this command loads {}, which {} cannot (it is linked statically): it goes on in {}, and starting "
             "that failed ({}); build it (cmake --build build) or install both",
             needs, ec ? std::string("cubekit") : self.string(), twin.string(), std::strerror(errno));
}

}  // namespace cubekit::cli
