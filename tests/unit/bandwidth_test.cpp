#include "core/bandwidth.hpp"

#include <gtest/gtest.h>

namespace colltune {
namespace {

Collective make(CollKind kind, std::size_t count, DType dtype = DType::kFloat) {
  Collective c;
  c.kind = kind;
  c.count = count;
  c.dtype = dtype;
  return c;
}

TEST(BusFactor, MatchesNcclTestsPerCollective) {
  for (int n : {2, 4, 8, 64}) {
    const double nd = n;
    EXPECT_DOUBLE_EQ(bus_factor(CollKind::kAllreduce, n), 2 * (nd - 1) / nd) << n;
    EXPECT_DOUBLE_EQ(bus_factor(CollKind::kAllgather, n), (nd - 1) / nd) << n;
    EXPECT_DOUBLE_EQ(bus_factor(CollKind::kReduceScatter, n), (nd - 1) / nd) << n;
    EXPECT_DOUBLE_EQ(bus_factor(CollKind::kAlltoall, n), (nd - 1) / nd) << n;
    EXPECT_DOUBLE_EQ(bus_factor(CollKind::kBroadcast, n), 1.0) << n;
    EXPECT_DOUBLE_EQ(bus_factor(CollKind::kReduce, n), 1.0) << n;
    EXPECT_DOUBLE_EQ(bus_factor(CollKind::kSendrecv, n), 1.0) << n;
    EXPECT_DOUBLE_EQ(bus_factor(CollKind::kPingpong, n), 1.0) << n;
  }
}

TEST(Bandwidth, AllreduceOneGigabyteInOneSecondOnFourRanks) {
  const auto bw = bandwidth(make(CollKind::kAllreduce, 250'000'000), 4, 1.0);
  EXPECT_DOUBLE_EQ(bw.algbw_gbps, 1.0);
  EXPECT_DOUBLE_EQ(bw.busbw_gbps, 1.5);
}

TEST(Bandwidth, PerPeerCollectivesCountEveryRanksBlock) {
  // 1e6 floats per peer on 8 ranks: 32e6 bytes in 1 ms = 32 GB/s algbw.
  for (CollKind kind : {CollKind::kAllgather, CollKind::kReduceScatter, CollKind::kAlltoall}) {
    const auto bw = bandwidth(make(kind, 1'000'000), 8, 1e-3);
    EXPECT_DOUBLE_EQ(bw.algbw_gbps, 32.0) << name(kind);
    EXPECT_DOUBLE_EQ(bw.busbw_gbps, 28.0) << name(kind);
  }
}

TEST(Bandwidth, PointToPointFollowsOsu) {
  Collective bw = make(CollKind::kUniBw, 1'000'000, DType::kUint8);
  bw.window = 64;
  EXPECT_DOUBLE_EQ(bandwidth(bw, 2, 1.0).algbw_gbps, 0.064);  // bytes * window / t
  bw.kind = CollKind::kBiBw;
  EXPECT_DOUBLE_EQ(bandwidth(bw, 2, 1.0).algbw_gbps, 0.128);  // both directions
  bw.kind = CollKind::kPingpong;
  EXPECT_DOUBLE_EQ(bandwidth(bw, 2, 1.0).algbw_gbps, 0.001);
}

// osu_mbw_mr: pairs x window messages per op (bibw: a window each way).
TEST(MessageRate, CountsEveryPairsWindow) {
  Collective bw = make(CollKind::kUniBw, 8, DType::kUint8);
  bw.window = 64;
  EXPECT_DOUBLE_EQ(messages_per_second(bw, 8, 1e-3), 4 * 64 / 1e-3);  // 4 pairs
  bw.kind = CollKind::kBiBw;
  EXPECT_DOUBLE_EQ(messages_per_second(bw, 2, 1e-3), 2 * 64 / 1e-3);
  bw.kind = CollKind::kPingpong;
  EXPECT_EQ(messages_per_second(bw, 2, 1e-3), 0);
  bw.kind = CollKind::kUniBw;
  EXPECT_EQ(messages_per_second(bw, 2, 0), 0);
}

TEST(Bandwidth, ZeroTimeGivesZeroNotInfinity) {
  EXPECT_EQ(bandwidth(make(CollKind::kAllreduce, 10), 2, 0.0).algbw_gbps, 0.0);
}

}  // namespace
}  // namespace colltune
