// Shared by the user-error tests: one case is one bad input and the parts its message must have
// (what was wrong, where, and the fix when the message gives one).
#pragma once

#include "emulator/chip_config.h"
#include "emulator/error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace cubekit::test {

// A program text from its lines, joined with '\n'; line 1 is the first string.
inline std::string lines(std::initializer_list<std::string_view> ls) {
  std::string out;
  for (std::string_view l : ls) out += std::string(l) + "\n";
  return out;
}

// One bad input: `input` (a program, a JSON text, ...) and the substrings its message must contain.
struct ErrorCase {
  const char* name;  // the test's name: the user error, in CamelCase
  std::string input;
  std::vector<std::string> expected;
};

inline void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

inline std::string case_name(const testing::TestParamInfo<ErrorCase>& info) { return info.param.name; }

// Runs `action`, which must throw a UserError whose message contains every one of `expected`.
// Anything else (no error, another exception) is a test failure that shows what happened.
inline void expect_user_error(const std::function<void()>& action, const std::vector<std::string>& expected,
                              const std::string& input_for_failure = {}) {
  try {
    action();
    ADD_FAILURE() << "no error was reported for this bad input:\n" << input_for_failure;
  } catch (const UserError& e) {
    for (const std::string& s : expected) EXPECT_THAT(std::string(e.what()), testing::HasSubstr(s));
  } catch (const InternalError& e) {
    ADD_FAILURE() << "bad input raised an internal error instead of a user error: " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "bad input raised " << typeid(e).name() << " (" << e.what() << ") instead of a user error";
  }
}

// A fresh directory for one test's files, unique to this process (other builds may run these
// tests at the same time); removed when the object goes out of scope.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("cubekit_error_tests_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Writes `bytes` to the file `name` in this directory; returns its path.
  std::string write(const std::string& name, const std::string& bytes) const {
    std::string p = (path_ / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }

 private:
  std::filesystem::path path_;
};


// The shell prefix that bounds a CLI run's memory to 8 GB, so that a runaway allocation fails the
// test instead of the machine. A normal build uses `ulimit -v`. Under AddressSanitizer (scripts/
// sanitize.sh) the shadow memory alone reserves terabytes of address space, so the CLI could not
// even start under it: ASan's allocator enforces the bound instead (an allocation above it fails,
// and the process at 8 GB resident is stopped).
#if defined(__SANITIZE_ADDRESS__)
#define CUBEKIT_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUBEKIT_TEST_ASAN 1
#endif
#endif
inline std::string cli_memory_bound() {
#ifdef CUBEKIT_TEST_ASAN
  return "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1:max_allocation_size_mb=8000:"
         "hard_rss_limit_mb=8000\" ";
#else
  return "ulimit -v 8000000; ";
#endif
}

// Runs `cubekit ARGS` (bounded in time and memory); returns the exit code (128 + N when killed by
// signal N) and what it wrote to stderr.
inline std::pair<int, std::string> cubekit_stderr(const std::string& args) {
  std::string command = cli_memory_bound() + "timeout 120 '" CUBEKIT_CLI "' " + args + " 2>&1 1>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {-1, "popen failed: " + command};
  std::string err;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) err.append(buffer, n);
  int status = pclose(pipe);
#ifdef CUBEKIT_TEST_ASAN
  // The sanitizer runtime's own notes ("==PID==WARNING: ASan doesn't fully support makecontext/
  // swapcontext ...", from a library the CLI links) are not the CLI's output: drop those lines.
  std::string kept;
  for (size_t at = 0; at < err.size();) {
    size_t end = std::min(err.find('\n', at), err.size());
    std::string_view line(err.data() + at, end - at);
    if (!(line.starts_with("==") && line.find("==WARNING: ASan") != std::string_view::npos))
      kept.append(line).append(end < err.size() ? "\n" : "");
    at = end + 1;
  }
  err = kept;
#endif
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0), err};
}


// One bad use of the C++ API: what it does and the parts its message must have.
struct ApiCase {
  const char* name;
  std::function<void()> action;
  std::vector<std::string> expected;
};
inline void PrintTo(const ApiCase& c, std::ostream* os) { *os << c.name; }
inline std::string api_case_name(const testing::TestParamInfo<ApiCase>& info) { return info.param.name; }

// The ascend910 preset, and a copy of it with one change, named after it.
inline const ChipConfig& chip910() { return chip_presets().at(0); }
// A preset by name, loaded once.
inline const ChipConfig& preset(const std::string& name) {
  for (const ChipConfig& c : chip_presets())
    if (c.name == name) return c;
  throw std::invalid_argument("no preset " + name);
}
inline ChipConfig chip_with(const char* name, void (*change)(ChipConfig&)) {
  ChipConfig c = chip910();
  c.name = name;
  change(c);
  return c;
}

}  // namespace cubekit::test
