// Launch-level decisions against values computed outside colltune, and the CI gate's error rates
// in a simulation with a launch-level random effect.
#include "core/decision.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "report/compare.hpp"

namespace colltune {
namespace {

// One sample per launch, so each launch's median is the value itself.
LaunchSamples launches(std::initializer_list<double> medians) {
  LaunchSamples out;
  for (double m : medians) out.push_back({m});
  return out;
}

// Reference values: scipy 1.17.1, stats.ttest_ind(log(b), log(a), equal_var=False,
// alternative='greater'), and .confidence_interval(0.95) of the two-sided test, exponentiated.
// Hand calculation: one run a side, medians 1.0 and 1.1, spread between runs 0.05: z =
// ln 1.1 / (0.05 sqrt 2) = 1.3479, one-sided normal tail 0.08885; on 4 degrees of freedom the
// t(4) tail at 1.3479 is 0.12449 (numeric integral of its density). The launches inside a run
// do not narrow it: three launches at 1.1 give the same p as one.
TEST(TestRuns, ZAndTOnTheSpreadBetweenRuns) {
  const LaunchTest z = test_runs(launches({1.0}), launches({1.1}), 0.05, 0);
  EXPECT_EQ(z.method, "between runs");
  EXPECT_NEAR(z.ratio, 1.1, 1e-12);
  EXPECT_NEAR(z.p_slower, 0.088847, 1e-5);
  EXPECT_NEAR(z.p_faster, 1 - 0.088847, 1e-5);
  EXPECT_NEAR(std::log(z.ratio_high / z.ratio), 1.959964 * 0.05 * std::sqrt(2.0), 1e-6);
  const LaunchTest t = test_runs(launches({1.0}), launches({1.1}), 0.05, 4);
  EXPECT_NEAR(t.p_slower, 0.124485, 1e-5);
  const LaunchTest many = test_runs(launches({1.0}), launches({1.1, 1.1, 1.1}), 0.05, 0);
  EXPECT_NEAR(many.p_slower, z.p_slower, 1e-12);
}

TEST(TestLaunches, WelchOnLogLaunchMediansMatchesScipy) {
  const LaunchTest t = test_launches(launches({1.0, 1.1, 0.95}), launches({1.3, 1.2, 1.4}));
  EXPECT_EQ(t.method, "welch");
  EXPECT_EQ(t.base_launches, 3u);
  EXPECT_NEAR(t.p_slower, 0.008273146483055452, 1e-9);
  EXPECT_NEAR(t.p_faster, 0.9917268535169446, 1e-9);
  EXPECT_NEAR(t.ratio_low, 1.0766889469823981, 1e-9);
  EXPECT_NEAR(t.ratio_high, 1.5182174344500297, 1e-9);
  EXPECT_NEAR(t.ratio, std::exp((std::log(1.3 * 1.2 * 1.4) - std::log(1.0 * 1.1 * 0.95)) / 3),
              1e-12);
}

// Hand calculation: log launch medians 0, 0.02, -0.02 against 0.10, 0.12, 0.08: difference 0.1,
// se sqrt(2 * 0.0004 / 3) = 0.016330, Welch df exactly 4; against "at most 5% slower" the
// statistic is (0.1 - ln 1.05) / se = 3.13595 and the t(4) upper tail there is 0.0174920
// (numeric integral of its density, and the closed form 1/2 - t(t^2+6) / (2(t^2+4)^1.5)).
TEST(TestLaunches, SlowerBeyondATolerance) {
  const LaunchTest t = test_launches(launches({1.0, std::exp(0.02), std::exp(-0.02)}),
                                     launches({std::exp(0.10), std::exp(0.12), std::exp(0.08)}));
  EXPECT_NEAR(t.df, 4.0, 1e-9);
  EXPECT_NEAR(p_slower_beyond(t, 1.05), 0.0174920, 1e-6);
  EXPECT_NEAR(p_slower_beyond(t, t.ratio), 0.5, 1e-12);
  EXPECT_LT(t.p_slower, p_slower_beyond(t, 1.05));  // against equality it is far smaller
  EXPECT_EQ(p_slower_beyond(test_launches(launches({1.0}), launches({1.2})), 1.05), 1.0);
}

TEST(TestLaunches, UnequalLaunchCountsUseWelchSatterthwaite) {
  // scipy: df 1.642, p 0.2402432814419767.
  const LaunchTest t = test_launches(launches({2.0, 2.2, 1.9, 2.1}), launches({2.05, 2.3}));
  EXPECT_NEAR(t.p_slower, 0.2402432814419767, 1e-9);
}

TEST(TestLaunches, TheLaunchMedianIsTheUnitNotTheSamples) {
  // A thousand samples in one launch a side still cannot show launch-to-launch noise.
  std::vector<double> many(1000, 1.0), slower(1000, 2.0);
  const LaunchTest t = test_launches({many}, {slower});
  EXPECT_TRUE(t.method.empty());
  EXPECT_NE(t.why_not.find("one launch"), std::string::npos);
  // The median of each launch is what counts: an outlier sample does not move it.
  const LaunchTest m = test_launches({{1, 1, 1, 50}, {1, 1, 1}}, {{1, 1, 1}, {1, 1, 1, 1}});
  EXPECT_DOUBLE_EQ(m.ratio, 1.0);
}

TEST(TestLaunches, NoiseFloorDecidesOneLaunchAgainstOne) {
  // z = log(1.2) / (0.1 sqrt 2); scipy stats.norm.sf(z) = 0.0986628763480768.
  const LaunchTest t = test_launches(launches({1.0}), launches({1.2}), 0.1);
  EXPECT_EQ(t.method, "noise floor");
  EXPECT_NEAR(t.p_slower, 0.0986628763480768, 1e-9);
  // The floor is a minimum: a wider spread seen in the data is used instead.
  const LaunchTest wide = test_launches(launches({1.0, 1.5}), launches({1.2, 1.8}), 0.01);
  EXPECT_GT(wide.p_slower, 0.05);
}

// scipy 1.17.1 stats.ttest_rel(log(b), log(a), alternative='greater') and the two-sided test's
// .confidence_interval(0.95), exponentiated.
TEST(TestPairedLaunches, PerLaunchLogRatiosMatchScipy) {
  const LaunchTest t = test_paired_launches(launches({1.0, 1.1, 0.95}), launches({1.3, 1.2, 1.4}));
  EXPECT_EQ(t.method, "paired launches");
  EXPECT_EQ(t.cand_launches, 3u);
  EXPECT_NEAR(t.df, 2.0, 1e-12);
  EXPECT_NEAR(t.p_slower, 0.05314247979707528, 1e-9);
  EXPECT_NEAR(t.ratio_low, 0.8784843768534734, 1e-9);
  EXPECT_NEAR(t.ratio_high, 1.8607592506576487, 1e-9);
  // Launch i of one side goes with launch i of the other: reordered, the pairs and p change
  // (scipy: 0.0454581850).
  EXPECT_NEAR(test_paired_launches(launches({1.0, 1.1, 0.95}), launches({1.4, 1.2, 1.3})).p_slower,
              0.045458176, 1e-6);
}

TEST(TestPairedLaunches, WhatALaunchDoesToBothCancels) {
  // Launches 1x, 2x, 4x slow for both settings, the candidate 7-15% slower in each: paired, p
  // 0.0176 (scipy ttest_rel); unpaired Welch sees only the launches' spread (p 0.432).
  const auto base = launches({1.0, 2.0, 4.0}), cand = launches({1.1, 2.3, 4.3});
  EXPECT_NEAR(test_paired_launches(base, cand).p_slower, 0.017676518568867768, 1e-9);
  EXPECT_NEAR(test_launches(base, cand).p_slower, 0.43205110720234996, 1e-9);
  // One launch shows no launch noise, however many samples it has.
  std::vector<double> many(1000, 1.0), slower(1000, 2.0);
  const LaunchTest one = test_paired_launches({many}, {slower});
  EXPECT_TRUE(one.method.empty());
  EXPECT_NE(one.why_not.find("fewer than two launches"), std::string::npos);
}

TEST(BenjaminiHochberg, MatchesScipyFalseDiscoveryControl) {
  // scipy 1.17.1 stats.false_discovery_control([0.01, 0.04, 0.03, 0.2, 0.5]).
  const auto adjusted = benjamini_hochberg({0.01, 0.04, 0.03, 0.2, 0.5});
  const std::vector<double> expected{0.05, 0.2 / 3, 0.2 / 3, 0.25, 0.5};
  ASSERT_EQ(adjusted.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(adjusted[i], expected[i], 1e-12);
  EXPECT_TRUE(benjamini_hochberg({}).empty());
}

TEST(PooledLaunchSd, PoolsSquaresOverCells) {
  // Logs {0, .1} and {0, .2, .4}: squared deviations .005 and .08 by hand, df 1 + 2; a cell
  // with one launch adds nothing.
  std::size_t df = 0;
  const double sd = pooled_launch_sd(
      {launches({1, std::exp(0.1)}), launches({1, std::exp(0.2), std::exp(0.4)}), launches({7})},
      &df);
  EXPECT_EQ(df, 3u);
  EXPECT_NEAR(sd, std::sqrt((0.005 + 0.08) / 3), 1e-12);
}

// The gate in simulation: every launch scales its times by a factor drawn uniformly from
// [0.9, 1.1] (a launch-level random effect of 10%: placement, caches, neighbours), and each of
// its 10 samples carries lognormal noise of 5%. Three launches a side, the defaults (alpha 0.05,
// --max-slowdown 5%).
struct Simulation {
  std::mt19937_64 rng{20261201};
  Dataset side(double scale) {
    Dataset d;
    d.source = "sim";
    d.points.push_back({"p", "p", {}, true});
    std::uniform_real_distribution<double> launch(0.9, 1.1);
    std::normal_distribution<double> noise(0, 0.05);
    for (int round = 1; round <= 3; ++round) {
      Record r;
      r.point_id = "p";
      r.round = round;
      r.collective = "allreduce";
      r.nranks = 2;
      r.bytes = 1024;
      const double factor = launch(rng);
      for (int i = 0; i < 10; ++i)
        r.samples_seconds.push_back(1e-5 * scale * factor * std::exp(noise(rng)));
      d.records.push_back(r);
    }
    return d;
  }
  double slower_rate(double scale, int trials) {
    int slower = 0;
    for (int i = 0; i < trials; ++i) {
      const Dataset base = side(1.0), cand = side(scale);
      slower += gate_exit_code(compare(base, cand, CompareOptions{}), CompareOptions{}) == 1;
    }
    return static_cast<double>(slower) / trials;
  }
};

TEST(GateSimulation, FalseAlarmsAtMostFivePercentAndAQuarterSlowdownCaughtNineTimesInTen) {
  Simulation sim;
  const double false_alarms = sim.slower_rate(1.0, 2000);
  const double detected = sim.slower_rate(1.25, 2000);
  std::printf("gate simulation: false alarms %.4f, 25%% slowdown detected %.4f\n", false_alarms,
              detected);
  EXPECT_LE(false_alarms, 0.05);
  EXPECT_GE(detected, 0.90);
}

}  // namespace
}  // namespace colltune
