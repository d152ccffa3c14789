#include "emulator/error.h"

namespace cubekit {

void internal_error(const char* file, int line, const char* condition, const std::string& message) {
  throw InternalError(fmt::format("internal error at {}:{}: '{}' does not hold{}{} (this is a cubekit bug)", file,
                                  line, condition, message.empty() ? "" : ": ", message));
}

}  // namespace cubekit
