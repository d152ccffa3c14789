// Errors, split as Halide splits them: a UserError is the user's to fix (bad program text, a
// schedule that cannot work, an unknown chip) and its message says what, where and how to fix
// it; an InternalError is a broken invariant inside cubekit, i.e. a bug to report.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace cubekit {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class UserError : public Error {
 public:
  using Error::Error;
};

class InternalError : public Error {
 public:
  using Error::Error;
};

template <class... Args>
[[noreturn]] void user_error(fmt::format_string<Args...> format, Args&&... args) {
  throw UserError(fmt::format(format, std::forward<Args>(args)...));
}

[[noreturn]] void internal_error(const char* file, int line, const char* condition, const std::string& message);

// Why the file at `path` cannot be opened for reading, for a message: "no such file", "a directory,
// not a file", or the system's reason ("Permission denied").
std::string unreadable_reason(const std::string& path);

}  // namespace cubekit

// Checks an invariant that no user input can break.
#define CUBEKIT_ASSERT(condition, ...)                                                        \
  do {                                                                                        \
    if (!(condition)) ::cubekit::internal_error(__FILE__, __LINE__, #condition, fmt::format("" __VA_ARGS__)); \
  } while (0)
