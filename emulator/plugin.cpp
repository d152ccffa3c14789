#include "emulator/plugin.h"

#include <dlfcn.h>

// The linker defines _DYNAMIC in every program and shared object that has a dynamic section; in
// a statically linked program it is undefined, and so null as a weak reference.
extern "C" const char _DYNAMIC[] __attribute__((weak));

namespace cubekit {

bool can_load_modules() { return _DYNAMIC != nullptr; }

std::vector<std::filesystem::path> module_candidates(const std::string& module, const void* anchor,
                                                     const std::string& installed, const std::string& built) {
  namespace fs = std::filesystem;
  const fs::path name = module;
  std::vector<fs::path> out;
  Dl_info info{};
  if (dladdr(anchor, &info) && info.dli_fname) {
    std::error_code ec;
    fs::path self = fs::canonical(fs::path(info.dli_fname), ec);
    if (ec) self = fs::canonical("/proc/self/exe", ec);
    if (!ec) {
      fs::path dir = self.parent_path();
      out.push_back(dir / ".." / "lib" / name);
      out.push_back(dir / ".." / ".." / "lib" / name);
      out.push_back(dir / ".." / ".." / ".." / name);
    }
  }
  out.push_back(fs::path(installed));
  out.push_back(fs::path(built));
  return out;
}

}  // namespace cubekit
