#include "backends/nccl/gpu_choice.hpp"

#include <gtest/gtest.h>

namespace colltune {
namespace {

std::vector<int> ordinals(int visible, int gpus, int device, int local_rank) {
  const GpuChoice c = choose_gpus(visible, gpus, device, local_rank, "h", "unset");
  EXPECT_TRUE(c.problem.empty()) << c.problem;
  return c.ordinals;
}

std::string problem(int visible, int gpus, int device, int local_rank) {
  const GpuChoice c = choose_gpus(visible, gpus, device, local_rank, "node7", "0,1");
  EXPECT_TRUE(c.ordinals.empty());
  return c.problem;
}

TEST(GpuChoice, OneGpuPerRankByLocalRankOrDevice) {
  EXPECT_EQ(ordinals(8, 1, -1, 3), std::vector<int>{3});
  EXPECT_EQ(ordinals(8, 1, 5, 0), std::vector<int>{5});
}

TEST(GpuChoice, SeveralGpusPerProcess) {
  EXPECT_EQ(ordinals(8, 8, -1, 0), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(ordinals(8, 4, -1, 1), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(ordinals(8, 2, 6, 0), (std::vector<int>{6, 7}));
}

TEST(GpuChoice, TooFewGpusIsOneLine) {
  EXPECT_EQ(problem(2, 8, -1, 0),
            "-g/--gpus: 8 is more GPUs than node7 shows (2, CUDA_VISIBLE_DEVICES=0,1); allowed: 1 "
            "to 2");
  EXPECT_EQ(problem(8, 4, 6, 0),
            "--device: 6 with -g 4 runs past the 8 GPUs node7 shows; allowed: 0 to 4");
  EXPECT_EQ(problem(8, 4, -1, 2),
            "-g/--gpus: local rank 2 on node7 would drive GPUs 8 to 11, but it shows 8; allowed: "
            "ranks per host x -g at most 8");
  // Four local ranks on a host with two GPUs: local rank 3 would share a GPU, which NCCL's init
  // refuses ("Duplicate GPU detected"); said before any init, with the counts.
  EXPECT_EQ(problem(2, 1, -1, 3),
            "-g/--gpus: local rank 3 on node7 needs GPU 3 of its own, but it shows 2 "
            "(CUDA_VISIBLE_DEVICES=0,1); allowed: at most 2 ranks per host with -g 1 (NCCL "
            "refuses two ranks on one GPU before 2.30, and from 2.30 without "
            "NCCL_MULTI_RANK_GPU_ENABLE=1)");
  EXPECT_EQ(ordinals(2, 1, -1, 1), std::vector<int>{1});
}

// NCCL 2.30 reads NCCL_MULTI_RANK_GPU_ENABLE (init.cc, not in v2.29.7-1); then ranks wrap onto
// the GPUs there are: the one-GPU host runs two ranks, in two processes or in one (-g 2).
TEST(GpuChoice, RanksShareAGpuOnlyWhereNcclAllowsIt) {
  EXPECT_TRUE(nccl_ranks_may_share_gpu(23000, "1"));
  EXPECT_TRUE(nccl_ranks_may_share_gpu(23206, "1"));
  EXPECT_FALSE(nccl_ranks_may_share_gpu(22907, "1"));  // 2.29.7: NCCL ignores it
  EXPECT_FALSE(nccl_ranks_may_share_gpu(23000, "0"));
  EXPECT_FALSE(nccl_ranks_may_share_gpu(23000, "yes"));  // strtoll, as NCCL reads it: 0
  EXPECT_FALSE(nccl_ranks_may_share_gpu(23000, ""));
  EXPECT_FALSE(nccl_ranks_may_share_gpu(23000, nullptr));
  const auto shared = [](int visible, int gpus, int device, int local_rank) {
    return choose_gpus(visible, gpus, device, local_rank, "h", "unset", true).ordinals;
  };
  EXPECT_EQ(shared(1, 1, -1, 1), std::vector<int>{0});
  EXPECT_EQ(shared(1, 2, -1, 0), (std::vector<int>{0, 0}));
  EXPECT_EQ(shared(2, 2, -1, 1), (std::vector<int>{0, 1}));
  EXPECT_EQ(shared(2, 1, 1, 0), std::vector<int>{1});
  // An explicit --device past the GPUs there are is still an error, shared or not.
  EXPECT_FALSE(choose_gpus(2, 1, 7, 0, "h", "unset", true).problem.empty());
}

}  // namespace
}  // namespace colltune
