#include "runner/plan.hpp"

#include <gtest/gtest.h>

namespace colltune {
namespace {

TEST(Plan, OutOfPlaceThenInPlacePerSize) {
  const auto plan = plan_run(parse_run_options({"-b", "8", "-e", "32", "-f", "2"}), 2);
  ASSERT_EQ(plan.size(), 6u);  // 8, 16, 32 bytes x {out, in}
  EXPECT_FALSE(plan[0].in_place);
  EXPECT_TRUE(plan[1].in_place);
  EXPECT_EQ(plan[0].count, 2u);
  EXPECT_EQ(plan[4].count, 8u);
}

TEST(Plan, OpsOnlyForReductionsAndTooSmallSizesDropped) {
  const auto plan = plan_run(parse_run_options({"--coll", "allreduce,alltoall", "-o", "all", "-b",
                                                "4", "-e", "16", "-f", "2"}),
                             4);
  std::size_t allreduce = 0, alltoall = 0;
  for (const auto& c : plan) {
    if (c.kind == CollKind::kAllreduce) ++allreduce;
    if (c.kind == CollKind::kAlltoall) {
      ++alltoall;
      EXPECT_EQ(c.op, ReduceOp::kNone);
    }
  }
  EXPECT_EQ(allreduce, 5u * 3 * 2);  // 5 ops x 3 sizes x 2 placements
  EXPECT_EQ(alltoall, 2u);           // only 16 B holds one float per rank on 4 ranks
}

TEST(Plan, SizesRoundingToTheSameCountAppearOnce) {
  const auto plan =
      plan_run(parse_run_options({"-d", "double", "-b", "8", "-e", "15", "-i", "1"}), 2);
  EXPECT_EQ(plan.size(), 2u);
}

TEST(Plan, EveryRootWithMinusOne) {
  const auto plan = plan_run(
      parse_run_options({"--coll", "broadcast,allreduce", "-r", "-1", "-b", "64", "-e", "64"}), 3);
  std::vector<int> broadcast_roots, allreduce_roots;
  for (const auto& c : plan) {
    if (c.in_place) continue;
    (c.kind == CollKind::kBroadcast ? broadcast_roots : allreduce_roots).push_back(c.root);
  }
  EXPECT_EQ(broadcast_roots, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(allreduce_roots, (std::vector<int>{-1}));
  EXPECT_EQ(plan_run(parse_run_options({"--coll", "reduce", "-r", "2"}), 4).front().root, 2);
}

}  // namespace
}  // namespace colltune
