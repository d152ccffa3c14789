// Shared by the fuzz targets: what counts as a finding, and scratch files.
//
// Bad input must end in a UserError (the CLI's exit 2). Anything else that escapes -- an
// InternalError, a std::exception such as bad_alloc or out_of_range, any other throw -- is a
// finding: the target prints it and aborts, which libFuzzer and fuzz/driver.cpp both report as a
// crash with the input saved. Crashes, sanitizer reports and hangs are findings by themselves.
#pragma once

#include "emulator/error.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace cubekit::fuzz {

[[noreturn]] inline void finding(std::string_view what, std::string_view detail) {
  fprintf(stderr, "==fuzz finding: %.*s: %.*s\n", int(what.size()), what.data(), int(detail.size()), detail.data());
  fflush(stderr);
  abort();
}

// Runs `body`; returns false when it ended in a UserError (bad input, rejected as it should be).
template <class F>
bool accepted(F&& body) {
  try {
    body();
    return true;
  } catch (const UserError&) {
    return false;
  } catch (const InternalError& e) {
    finding("internal error (exit 3) on user input", e.what());
  } catch (const std::exception& e) {
    finding("a std::exception escaped instead of a user error", e.what());
  } catch (...) {
    finding("a non-std exception escaped", "(unknown type)");
  }
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A file path unique to this process and `name`, in the temporary directory; the targets that go
// through files (the .npy reader and writer, --chip FILE.json) rewrite it for every input.
// Removed at exit (not after a crash: then the saved input is what reproduces it).
inline std::string scratch_path(const std::string& name) {
  static const std::filesystem::path dir = std::filesystem::temp_directory_path();
  static std::vector<std::string> paths;
  if (paths.empty())
    std::atexit([] {
      std::error_code ignored;
      for (const std::string& p : paths) std::filesystem::remove(p, ignored);
    });
  paths.push_back((dir / ("cubekit_fuzz_" + std::to_string(::getpid()) + "_" + name)).string());
  return paths.back();
}

inline void write_file(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out) finding("the fuzz target cannot write its scratch file", path);
}

}  // namespace cubekit::fuzz
