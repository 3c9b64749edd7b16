#include "core/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace colltune {
namespace {

TEST(Summarize, EmptyInput) { EXPECT_EQ(summarize({}).n, 0u); }

TEST(Summarize, OrderStatisticsAndMoments) {
  const Summary s = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.p95, 4.8);  // linear between order statistics
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(2.5));
}

TEST(Summarize, EvenCountMedianInterpolates) {
  EXPECT_DOUBLE_EQ(summarize({1, 2, 3, 10}).median, 2.5);
}

TEST(Summarize, LeBoudecIntervalRanks) {
  // n = 100: ranks floor((100 - 19.6) / 2) = 40 and ceil(1 + 119.6 / 2) = 61 (1-based).
  std::vector<double> v(100);
  std::iota(v.begin(), v.end(), 1.0);
  const Summary s = summarize(v);
  EXPECT_TRUE(s.ci_exact);
  EXPECT_DOUBLE_EQ(s.ci_low, 40);
  EXPECT_DOUBLE_EQ(s.ci_high, 61);
  EXPECT_DOUBLE_EQ(s.ci_level, 0.95);
}

TEST(Summarize, TenSamples) {
  // n = 10: floor((10 - 6.2) / 2) = 1, ceil(1 + 16.2 / 2) = 10.
  const Summary s = summarize({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  EXPECT_TRUE(s.ci_exact);
  EXPECT_DOUBLE_EQ(s.ci_low, 1);
  EXPECT_DOUBLE_EQ(s.ci_high, 10);
}

TEST(Summarize, TooFewSamplesForAnIntervalSaysSo) {
  const Summary s = summarize({3, 1, 2});
  EXPECT_FALSE(s.ci_exact);
  EXPECT_DOUBLE_EQ(s.ci_low, 1);
  EXPECT_DOUBLE_EQ(s.ci_high, 3);
}

TEST(Summarize, RelativeWidth) {
  std::vector<double> v(100, 2.0);
  v[0] = 1.0;
  EXPECT_DOUBLE_EQ(relative_ci_width(summarize(v)), 0.0);
}

TEST(Summarize, HundredThousandSamples) {
  std::vector<double> v(100'000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7919) % v.size());
  const Summary s = summarize(v);
  EXPECT_DOUBLE_EQ(s.median, 49'999.5);
  EXPECT_LT(s.ci_high - s.ci_low, 700);
}

}  // namespace
}  // namespace colltune

namespace colltune {
namespace {

TEST(MannWhitney, SeparatedSamplesAreSignificant) {
  std::vector<double> a, b;
  for (int i = 0; i < 12; ++i) {
    a.push_back(1.0 + i * 0.01);
    b.push_back(2.0 + i * 0.01);
  }
  // Complete separation at 12 a side: U = 0, z = (72 - 0.5) / sqrt(300) = 4.128.
  EXPECT_NEAR(mann_whitney_p(a, b), std::erfc(71.5 / std::sqrt(300.0) / std::sqrt(2.0)), 1e-12);
  EXPECT_LT(mann_whitney_p(a, b), 1e-4);
  EXPECT_DOUBLE_EQ(mann_whitney_p(a, b), mann_whitney_p(b, a));
}

TEST(MannWhitney, IdenticalAndEmptySamplesAreNot) {
  const std::vector<double> same(10, 3.0);
  EXPECT_DOUBLE_EQ(mann_whitney_p(same, same), 1.0);  // all tied: no variance
  EXPECT_DOUBLE_EQ(mann_whitney_p({}, same), 1.0);
  const std::vector<double> a{1, 3, 5, 7, 9, 11, 13, 15}, b{2, 4, 6, 8, 10, 12, 14, 16};
  EXPECT_GT(mann_whitney_p(a, b), 0.5);
}

// Reference p-values: scipy 1.17.1, stats.mannwhitneyu(a, b, alternative='two-sided',
// use_continuity=True, method='asymptotic'), which applies the tie correction; computed outside
// colltune. Without the tie correction the first case gives 0.0179, not 0.0163.
TEST(MannWhitney, MatchesScipyWithTiesOverlapAndUnequalSizes) {
  EXPECT_NEAR(mann_whitney_p({1, 2, 2, 3, 3, 3, 4, 5}, {3, 3, 4, 4, 5, 5, 6, 7, 7}),
              0.01630200829707017, 1e-12);
  EXPECT_NEAR(mann_whitney_p({10.1, 10.4, 10.9, 11.2, 11.8, 12.0, 12.5, 13.1, 13.3, 14.0},
                             {11.5, 12.2, 12.9, 13.4, 13.8, 14.4, 14.9, 15.3}),
              0.02948936338440756, 1e-12);
  EXPECT_NEAR(mann_whitney_p({5.0, 5.1, 5.2},
                             {4.0, 4.1, 4.2, 4.3, 4.4, 4.5, 4.6, 4.7, 4.8, 4.9, 5.05, 5.15}),
              0.03635855317279068, 1e-12);
}

TEST(Summarize, LeBoudecThirtySamples) {
  // n = 30 by hand: floor((30 - 1.96 sqrt 30) / 2) = floor(9.63) = 9 and
  // ceil(1 + (30 + 1.96 sqrt 30) / 2) = ceil(21.37) = 22, 1-based; samples 10, 20, ..., 300.
  std::vector<double> v;
  for (int i = 30; i >= 1; --i) v.push_back(10.0 * i);
  const Summary s = summarize(v);
  EXPECT_DOUBLE_EQ(s.ci_low, 90);
  EXPECT_DOUBLE_EQ(s.ci_high, 220);
  EXPECT_DOUBLE_EQ(s.median, 155);
}

}  // namespace
}  // namespace colltune
