#include "emulator/emulator.h"

#include <gtest/gtest.h>

namespace cubekit {
TEST(Smoke, TableBuilds) { EXPECT_GT(isa_table().size(), 50u); }
}  // namespace cubekit
