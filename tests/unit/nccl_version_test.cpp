// NCCL's version code read as people write it, and the floor said once (fake codes: no NCCL here).
#include "core/nccl_version.hpp"

#include <gtest/gtest.h>

namespace colltune {
namespace {

TEST(NcclVersion, CodesReadAsReleasesAreNamed) {
  // NCCL_VERSION(X, Y, Z) in nccl.h: X * 10000 + Y * 100 + Z from 2.9, X * 1000 + Y * 100 + Z
  // before.
  EXPECT_EQ(nccl_version_text(23206), "2.32.6");
  EXPECT_EQ(nccl_version_text(22809), "2.28.9");
  EXPECT_EQ(nccl_version_text(2804), "2.8.4");
}

TEST(NcclVersion, BelowTheFloorIsRefusedNamingBoth) {
  // 2.21.5 has neither ncclGroupSimulateEnd nor tuner v3; 2.22.3 has both.
  const auto old = nccl_below_floor(22105);
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->rfind("NCCL 2.21.5 (the libnccl.so this process loaded) is older than 2.22.3,", 0),
            0u);
  EXPECT_EQ(nccl_below_floor(22203), std::nullopt);
  EXPECT_EQ(nccl_below_floor(23206), std::nullopt);
  EXPECT_TRUE(nccl_below_floor(2804).has_value());
}

}  // namespace
}  // namespace colltune
