#include "emulator/error.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace cubekit {

void internal_error(const char* file, int line, const char* condition, const std::string& message) {
  throw InternalError(fmt::format("internal error at {}:{}: '{}' does not hold{}{} (this is a cubekit bug)", file,
                                  line, condition, message.empty() ? "" : ": ", message));
}

std::string unreadable_reason(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(st)) return "no such file";
  if (std::filesystem::is_directory(st)) return "a directory, not a file";
  errno = 0;
  std::ifstream probe(path);
  if (probe) return "it opens now: read it again";
  return errno ? std::strerror(errno) : "it cannot be opened";
}

}  // namespace cubekit
