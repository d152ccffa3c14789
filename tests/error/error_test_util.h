// Shared by the user-error tests: one case is one bad input and the parts its message must have
// (what was wrong, where, and the fix when the message gives one).
#pragma once

#include "emulator/error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <ostream>
#include <string>
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

}  // namespace cubekit::test
