// The change-point method of colltune history on synthetic series of run values (logs of times).

#include "history/change_points.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace colltune {
namespace {

std::vector<double> noise(std::size_t n, double sd, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> z(0, sd);
  std::vector<double> x(n);
  for (auto& v : x) v = std::log(10e-6) + z(rng);
  return x;
}

// Hand calculation: split after run 3, means 2 and 12, pooled sd 1 on 4 df, t = 10 / sqrt(2/3) =
// 12.247; its two-sided t(4) tail 2.552e-4 (numeric integral of the t(4) density) times 9
// candidates (3 splits with 2 runs a side, 6 intervals of 2+ runs with a run on each side) is
// 2.297e-3. Interval half-width t(4, 0.975) 2.7764 * sqrt(2/3) = 2.2670.
TEST(ChangePoints, HandCalculatedSplit) {
  const Segmentation s = segment_series({1, 2, 3, 11, 12, 13}, {});
  ASSERT_EQ(s.changes.size(), 1u);
  EXPECT_EQ(s.changes[0].first_run, 3u);
  EXPECT_DOUBLE_EQ(s.changes[0].step_log, 10);
  EXPECT_NEAR(s.changes[0].p_value, 2.29695e-3, 5e-7);
  EXPECT_TRUE(s.spells.empty());
  EXPECT_NEAR(s.changes[0].step_high_log - 10, 2.2670, 1e-3);
  EXPECT_NEAR(s.changes[0].step_low_log, 10 - 2.2670, 1e-3);
  EXPECT_EQ(s.changes[0].before_runs, 3u);
  EXPECT_EQ(s.changes[0].after_runs, 3u);
  EXPECT_TRUE(s.changes[0].notable);
  EXPECT_NEAR(s.between_run_sd_log, 1, 1e-12);  // (2 + 2) / 4 squared deviations
  EXPECT_EQ(s.between_run_df, 4u);
  EXPECT_TRUE(s.outliers.empty());
}

// Hand calculation: runs 4 and 5 at 10 and 11 among 0, 1, 0, 1 and 0, 1. Inside mean 10.5
// (squares 0.5), around 0.5 (squares 1.5): pooled sd sqrt(2 / 6), t = 10 / (sd sqrt(1/2 + 1/6))
// = 21.213; the t(6) tail 3.5771e-7 (numeric integral), two-sided, times 20 candidates (5 splits,
// 15 intervals) is 1.4308e-5. Half-width t(6, 0.975) 2.44691 * sd * sqrt(2/3) = 1.15349.
TEST(ChangePoints, HandCalculatedSpell) {
  const Segmentation s = segment_series({0, 1, 0, 1, 10, 11, 0, 1}, {});
  EXPECT_TRUE(s.changes.empty());
  EXPECT_TRUE(s.outliers.empty());
  ASSERT_EQ(s.spells.size(), 1u);
  EXPECT_EQ(s.spells[0].first_run, 4u);
  EXPECT_EQ(s.spells[0].end_run, 6u);
  EXPECT_DOUBLE_EQ(s.spells[0].step_log, 10);
  EXPECT_NEAR(s.spells[0].p_value, 1.43085e-5, 2e-9);
  EXPECT_NEAR(s.spells[0].step_high_log - 10, 1.15349, 1e-4);
  EXPECT_NEAR(10 - s.spells[0].step_low_log, 1.15349, 1e-4);
  EXPECT_EQ(s.spells[0].inside_runs, 2u);
  EXPECT_EQ(s.spells[0].around_runs, 6u);
  EXPECT_TRUE(s.spells[0].notable);
  // The spread counts the spell as drift: one segment, mean 3, squares 9+4+9+4+49+64+9+4 = 152
  // on 7 df.
  EXPECT_NEAR(s.between_run_sd_log, std::sqrt(152.0 / 7), 1e-12);
  EXPECT_EQ(s.between_run_df, 7u);
}

// Four slow runs and then one back at the earlier level: a spell ending at the newest run, never
// a change; the same four runs with the series staying there are a change.
TEST(ChangePoints, ALevelThatComesBackIsASpell) {
  for (unsigned seed = 1; seed <= 50; ++seed) {
    auto x = noise(12, 0.02, seed);
    for (std::size_t i = 7; i < 11; ++i) x[i] += 0.3;
    // Cuts too small to be findings may still fall inside the spell; only notable ones count.
    const auto notable_spells = [](const Segmentation& s) {
      std::vector<Spell> out;
      for (const auto& sp : s.spells)
        if (sp.notable) out.push_back(sp);
      return out;
    };
    const auto notable_changes = [](const Segmentation& s) {
      std::vector<ChangePoint> out;
      for (const auto& c : s.changes)
        if (c.notable) out.push_back(c);
      return out;
    };
    Segmentation s = segment_series(x, {});
    EXPECT_TRUE(notable_changes(s).empty()) << seed;
    const auto spells = notable_spells(s);
    ASSERT_EQ(spells.size(), 1u) << seed;
    EXPECT_EQ(spells[0].first_run, 7u);
    EXPECT_EQ(spells[0].end_run, 11u);
    EXPECT_GT(spells[0].step_low_log, 0.2);
    x[11] += 0.3;
    s = segment_series(x, {});
    EXPECT_TRUE(notable_spells(s).empty()) << seed;
    const auto changes = notable_changes(s);
    ASSERT_EQ(changes.size(), 1u) << seed;
    EXPECT_EQ(changes[0].first_run, 7u);
  }
}

// Up 30% and then down to 15% above the start: not back at the earlier level, so two changes.
TEST(ChangePoints, ALevelThatMovesOnIsTwoChanges) {
  auto x = noise(18, 0.01, 4);
  for (std::size_t i = 6; i < 12; ++i) x[i] += std::log(1.3);
  for (std::size_t i = 12; i < 18; ++i) x[i] += std::log(1.15);
  const Segmentation s = segment_series(x, {});
  EXPECT_TRUE(s.spells.empty());
  ASSERT_EQ(s.changes.size(), 2u);
  EXPECT_EQ(s.changes[0].first_run, 6u);
  EXPECT_EQ(s.changes[1].first_run, 12u);
  EXPECT_GT(s.changes[0].step_log, 0);
  EXPECT_LT(s.changes[1].step_log, 0);
}

// Identical runs with noise: the series holds no change and no spell at the stated level in at
// least 95% of cases (Bonferroni over the candidates makes it conservative).
TEST(ChangePoints, NoiseAloneRarelyMakesAChange) {
  int with_change = 0, with_outlier = 0;
  for (unsigned seed = 1; seed <= 400; ++seed) {
    const Segmentation s = segment_series(noise(16, 0.03, seed), {});
    with_change += !s.changes.empty() || !s.spells.empty();
    with_outlier += !s.outliers.empty();
  }
  EXPECT_LE(with_change, 20);  // 5% of 400
  EXPECT_LE(with_outlier, 4);  // a 5-sd run is rare in normal noise
}

// An 18% step after 8 runs in 2% noise: found at run 9 every time, nothing else notable in
// at least 95% of series (the halves are searched again at half the level each), and the step's
// 95% interval holds the true step in about 95 of 100 series where it stands alone.
TEST(ChangePoints, OneStepIsFoundWhereItIs) {
  int alone = 0, covered = 0;
  for (unsigned seed = 1; seed <= 200; ++seed) {
    auto x = noise(16, 0.02, seed);
    for (std::size_t i = 8; i < 16; ++i) x[i] += std::log(1.18);
    const Segmentation s = segment_series(x, {});
    const auto at_step = std::find_if(s.changes.begin(), s.changes.end(),
                                      [](const ChangePoint& c) { return c.first_run == 8; });
    ASSERT_NE(at_step, s.changes.end()) << seed;
    EXPECT_TRUE(at_step->notable);
    if (std::count_if(s.changes.begin(), s.changes.end(),
                      [](const ChangePoint& c) { return c.notable; }) > 1 ||
        s.changes.size() != 1) {
      continue;
    }
    ++alone;
    covered +=
        s.changes[0].step_low_log < std::log(1.18) && s.changes[0].step_high_log > std::log(1.18);
    EXPECT_LT(s.changes[0].p_value, 1e-5);  // ~1e-8 before 104 candidates' Bonferroni
    // The spread between runs is the noise's, not inflated by the step.
    EXPECT_NEAR(s.between_run_sd_log, 0.02, 0.012);
  }
  EXPECT_GE(alone, 190);
  EXPECT_GE(covered, alone * 9 / 10);
  EXPECT_LT(covered, alone);
}

TEST(ChangePoints, AStepSmallerThanMinChangeCutsButIsNoFinding) {
  auto x = noise(16, 0.002, 3);
  for (std::size_t i = 8; i < 16; ++i) x[i] += std::log(1.02);
  const Segmentation s = segment_series(x, {});
  ASSERT_EQ(s.changes.size(), 1u);
  EXPECT_FALSE(s.changes[0].notable);
}

// A drift of 30% over 16 runs: cut where the two sides differ most, every cut slower, and no
// run of it mistaken for an outlier.
TEST(ChangePoints, ADriftIsCutTheSameWayEveryTime) {
  for (unsigned seed = 1; seed <= 50; ++seed) {
    auto x = noise(16, 0.01, seed);
    for (std::size_t i = 0; i < 16; ++i) x[i] += std::log(1.3) * static_cast<double>(i) / 15;
    const Segmentation s = segment_series(x, {});
    ASSERT_GE(s.changes.size(), 1u) << seed;
    for (const auto& c : s.changes) EXPECT_GT(c.step_log, 0) << seed << " " << c.first_run;
    EXPECT_TRUE(s.outliers.empty()) << seed;
  }
}

TEST(ChangePoints, ALoneOutlierIsAnOutlierNotAChange) {
  auto x = noise(16, 0.02, 5);
  x[7] += 0.3;
  const Segmentation s = segment_series(x, {});
  EXPECT_TRUE(s.changes.empty());
  ASSERT_EQ(s.outliers.size(), 1u);
  EXPECT_EQ(s.outliers[0].run, 7u);
  EXPECT_GT(s.outliers[0].z, 5);
}

// A run at a step that overshoots the new level is its first run: nights of Open MPI's TCP
// fallback as history_cli measured them (us), the first 31% slower than the two after it, 5
// robust sds off them. A lone outlier right before a step the other way stays one.
TEST(ChangePoints, AStepsFirstRunOvershootingTheNewLevelDatesTheStep) {
  std::vector<double> x;
  for (const double us : {0.40, 0.38, 0.38, 0.40, 0.40, 6.74, 5.14, 5.02})
    x.push_back(std::log(us));
  Segmentation s = segment_series(x, {});
  EXPECT_TRUE(s.outliers.empty());
  ASSERT_EQ(s.changes.size(), 1u);
  EXPECT_EQ(s.changes[0].first_run, 5u);
  EXPECT_EQ(s.between_run_df, 6u);  // cut at the step: 4 + 2
  x[5] = std::log(0.10);            // faster than both sides, the step going up: an outlier
  s = segment_series(x, {});
  ASSERT_EQ(s.outliers.size(), 1u);
  EXPECT_EQ(s.outliers[0].run, 5u);
}

// One slow run at the end cannot tell a change from an outlier; two can.
TEST(ChangePoints, AStepAtTheLastRun) {
  auto x = noise(12, 0.02, 9);
  x[11] += 0.2;
  Segmentation s = segment_series(x, {});
  EXPECT_TRUE(s.changes.empty());
  ASSERT_EQ(s.outliers.size(), 1u);
  EXPECT_EQ(s.outliers[0].run, 11u);
  x[10] += 0.2;
  s = segment_series(x, {});
  EXPECT_TRUE(s.outliers.empty());
  ASSERT_EQ(s.changes.size(), 1u);
  EXPECT_EQ(s.changes[0].first_run, 10u);
  EXPECT_EQ(s.changes[0].after_runs, 2u);
  EXPECT_GT(s.changes[0].step_log, 0.15);
}

TEST(ChangePoints, TooShortASeriesHasNoChange) {
  const Segmentation s = segment_series({1, 5, 9}, {});
  EXPECT_TRUE(s.changes.empty());
  EXPECT_EQ(min_runs_for_change({}), 4u);
}

TEST(ChangePoints, TheSameInputGivesTheSameAnswer) {
  auto x = noise(40, 0.03, 21);
  for (std::size_t i = 20; i < 40; ++i) x[i] += 0.1;
  const Segmentation a = segment_series(x, {}), b = segment_series(x, {});
  ASSERT_EQ(a.changes.size(), b.changes.size());
  for (std::size_t i = 0; i < a.changes.size(); ++i) {
    EXPECT_EQ(a.changes[i].first_run, b.changes[i].first_run);
    EXPECT_EQ(a.changes[i].p_value, b.changes[i].p_value);
  }
}

}  // namespace
}  // namespace colltune
