#include "runner/plan.hpp"

#include <gtest/gtest.h>

namespace colltune {
namespace {

TEST(Plan, OutOfPlaceThenInPlacePerSize) {
  const auto plan = plan_run(parse_run_options({"-b", "8", "-e", "32", "-f", "2"}), 2).ops;
  ASSERT_EQ(plan.size(), 6u);  // 8, 16, 32 bytes x {out, in}
  EXPECT_FALSE(plan[0].in_place);
  EXPECT_TRUE(plan[1].in_place);
  EXPECT_EQ(plan[0].count, 2u);
  EXPECT_EQ(plan[4].count, 8u);
}

TEST(Plan, OpsOnlyForReductionsAndTooSmallSizesDropped) {
  const auto plan = plan_run(parse_run_options({"--coll", "allreduce,alltoall", "-o", "all", "-b",
                                                "4", "-e", "16", "-f", "2"}),
                             4)
                        .ops;
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

// 4 and 8 B hold no float per rank of an alltoall on 4 ranks (16 B do): left out, and said so;
// allreduce needs one float (4 B) and loses nothing.
TEST(Plan, TooSmallSizesAreNamedWithTheSmallestThatFits) {
  const RunPlan plan = plan_run(
      parse_run_options({"--coll", "allreduce,alltoall", "-b", "4", "-e", "16", "-f", "2"}), 4);
  EXPECT_EQ(plan.left_out, (std::vector<std::string>{"alltoall float on 4 ranks: 2 sizes below "
                                                     "16 B left out (16 B holds one element per "
                                                     "block)"}));
  EXPECT_EQ(plan.smallest_useful_bytes, 16u);
  const RunPlan doubles =
      plan_run(parse_run_options({"--coll", "gather", "-d", "double", "-b", "8", "-e", "8"}), 3);
  EXPECT_TRUE(doubles.ops.empty());
  EXPECT_EQ(doubles.smallest_useful_bytes, 24u);  // 3 ranks x 8 B
  EXPECT_EQ(doubles.left_out, (std::vector<std::string>{"gather double on 3 ranks: 8 B left out "
                                                        "(24 B holds one element per block)"}));
}

TEST(Plan, SizesRoundingToTheSameCountAppearOnce) {
  const auto plan =
      plan_run(parse_run_options({"-d", "double", "-b", "8", "-e", "15", "-i", "1"}), 2).ops;
  EXPECT_EQ(plan.size(), 2u);
}

TEST(Plan, EveryRootWithMinusOne) {
  const auto plan =
      plan_run(
          parse_run_options({"--coll", "broadcast,allreduce", "-r", "-1", "-b", "64", "-e", "64"}),
          3)
          .ops;
  std::vector<int> broadcast_roots, allreduce_roots;
  for (const auto& c : plan) {
    if (c.in_place) continue;
    (c.kind == CollKind::kBroadcast ? broadcast_roots : allreduce_roots).push_back(c.root);
  }
  EXPECT_EQ(broadcast_roots, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(allreduce_roots, (std::vector<int>{-1}));
  EXPECT_EQ(plan_run(parse_run_options({"--coll", "reduce", "-r", "2"}), 4).ops.front().root, 2);
}

}  // namespace
}  // namespace colltune
