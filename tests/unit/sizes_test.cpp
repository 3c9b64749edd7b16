#include "core/sizes.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace colltune {
namespace {

TEST(ParseBytes, SuffixesAreBinary) {
  EXPECT_EQ(parse_bytes("8"), 8u);
  EXPECT_EQ(parse_bytes("64K"), 64u << 10);
  EXPECT_EQ(parse_bytes("16m"), 16u << 20);
  EXPECT_EQ(parse_bytes("8G"), 8ULL << 30);
  EXPECT_EQ(parse_bytes("0"), 0u);
}

// nccl-tests' parsesize reads "%lf %1s": a double, then one unit letter, ignoring what follows.
TEST(ParseBytes, TakesNcclTestsSpellings) {
  EXPECT_EQ(parse_bytes("1MB"), 1u << 20);
  EXPECT_EQ(parse_bytes("8KB"), 8u << 10);
  EXPECT_EQ(parse_bytes("2GiB"), 2ULL << 30);
  EXPECT_EQ(parse_bytes("1.5M"), 1572864u);  // 1.5 x 1048576
  EXPECT_EQ(parse_bytes("0.5k"), 512u);
  EXPECT_EQ(parse_bytes("1e6"), 1000000u);
}

TEST(ParseBytes, RejectsMalformed) {
  for (const char* bad : {"", "K", "-8", "12Q", " 8", "99999999999G", "1.3", "0.1K", "8KBx", "B",
                          "8iB", "MB", "-0.5K", "nan", "inf"}) {
    EXPECT_FALSE(parse_bytes(bad).has_value()) << bad;
  }
}

TEST(FormatBytes, ShortestExactSpelling) {
  EXPECT_EQ(format_bytes(3), "3");
  EXPECT_EQ(format_bytes(1024), "1K");
  EXPECT_EQ(format_bytes(1536), "1536");
  EXPECT_EQ(format_bytes(64ULL << 20), "64M");
  EXPECT_EQ(format_bytes(2ULL << 30), "2G");
}

TEST(SweepSizes, FactorMultipliesUpToMax) {
  EXPECT_EQ(sweep_sizes(8, 64, 2, 0), (std::vector<std::uint64_t>{8, 16, 32, 64}));
  EXPECT_EQ(sweep_sizes(8, 100, 4, 0), (std::vector<std::uint64_t>{8, 32}));
}

TEST(SweepSizes, FactorOneAddsStepBytes) {
  EXPECT_EQ(sweep_sizes(1024, 4096, 1, 1024), (std::vector<std::uint64_t>{1024, 2048, 3072, 4096}));
  EXPECT_EQ(sweep_sizes(10, 25, 1, 10), (std::vector<std::uint64_t>{10, 20}));
}

TEST(SweepSizes, SingleSize) {
  EXPECT_EQ(sweep_sizes(32 << 20, 32 << 20, 1, 1 << 20), (std::vector<std::uint64_t>{32 << 20}));
  EXPECT_EQ(sweep_sizes(5, 5, 1, 0), (std::vector<std::uint64_t>{5}));
}

TEST(SweepSizes, MinAboveMaxIsAnError) {
  try {
    sweep_sizes(64 << 20, 8 << 20, 2, 0);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "-b/--minbytes: 64M is larger than -e/--maxbytes 8M; the smallest size must not "
                 "exceed the largest");
  }
}

TEST(SweepSizes, EndlessSweepsAreErrors) {
  EXPECT_THROW(sweep_sizes(8, 64, 1, 0), ConfigError);
  EXPECT_THROW(sweep_sizes(0, 64, 2, 0), ConfigError);
  EXPECT_THROW(sweep_sizes(8, 64, 0, 8), ConfigError);
}

TEST(SweepSizes, StopsBeforeOverflow) {
  const auto sizes = sweep_sizes(1ULL << 62, ~0ULL, 2, 0);
  EXPECT_EQ(sizes.size(), 2u);  // 2^62, 2^63; 2^64 would wrap
}

TEST(CountForBytes, RoundsDownToWholeElements) {
  EXPECT_EQ(count_for_bytes(CollKind::kAllreduce, DType::kFloat, 4, 10), 2u);
  EXPECT_EQ(count_for_bytes(CollKind::kAllreduce, DType::kDouble, 4, 7), 0u);
  EXPECT_EQ(count_for_bytes(CollKind::kAllreduce, DType::kInt8, 3, 7), 7u);
}

TEST(CountForBytes, PerPeerCollectivesRoundToWholeRanks) {
  // 100 bytes of floats over 3 ranks: 25 elements, 8 per rank.
  EXPECT_EQ(count_for_bytes(CollKind::kAlltoall, DType::kFloat, 3, 100), 8u);
  EXPECT_EQ(count_for_bytes(CollKind::kAllgather, DType::kFloat, 3, 100), 8u);
  EXPECT_EQ(count_for_bytes(CollKind::kReduceScatter, DType::kInt8, 64, 63), 0u);
  Collective c;
  c.kind = CollKind::kAlltoall;
  c.dtype = DType::kFloat;
  c.count = 8;
  EXPECT_EQ(op_bytes(c, 3), 96u);  // the size reported is what really moves
}

}  // namespace
}  // namespace colltune
