#include "codegen/storage.h"

#include "emulator/error.h"

#include <fmt/format.h>

namespace cubekit::codegen {

int64_t space_bytes(const Kernel& k, Space space, const ChipConfig& chip) {
  int64_t sum = 0, align = chip.alignment(space);
  for (const Buffer& b : k.buffers)
    if (b.space == space) sum += (b.bytes + align - 1) / align * align * b.copies;
  return sum;
}

void plan_storage(Kernel& k, const ChipConfig& chip) {
  int64_t next[kNumSpaces] = {};
  for (Buffer& b : k.buffers) {
    int64_t align = chip.alignment(b.space);
    b.stride = (b.bytes + align - 1) / align * align;
    b.base = next[int(b.space)];
    next[int(b.space)] += b.stride * b.copies;
  }
  for (int s = 1; s < kNumSpaces; ++s) {
    if (next[s] <= chip.buffer_size(Space(s))) continue;
    std::string list;
    for (const Buffer& b : k.buffers)
      if (int(b.space) == s) list += fmt::format("{}{} {} x {}", list.empty() ? "" : ", ", b.name, b.stride, b.copies);
    user_error("{}: the buffers in {} need {} bytes ({}, each copy rounded up to the {}-byte alignment) but {} has {}; "
               "use smaller tiles or fewer copies", k.name, space_name(Space(s)), next[s], list, chip.alignment(Space(s)),
               chip.name, chip.buffer_size(Space(s)));
  }
}

}  // namespace cubekit::codegen
