#include "core/race.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace colltune {
namespace {

// Runs a race turn by turn over fixed per-turn times, as measure_interleaved feeds it: a setting
// stops getting samples once it is decided.
std::vector<RaceEntry> race(const std::vector<std::vector<double>>& times, const RaceConfig& c,
                            int* last_turn = nullptr) {
  std::vector<std::vector<double>> taken(times.size());
  std::vector<RaceEntry> entries(times.size());
  for (int turn = 1; turn <= c.max_turns; ++turn) {
    for (std::size_t s = 0; s < times.size(); ++s) {
      if (entries[s].outcome == RaceOutcome::kRacing) {
        taken[s].push_back(times[s][static_cast<std::size_t>(turn - 1)]);
      }
    }
    if (race_step(taken, entries, turn, c)) {
      if (last_turn) *last_turn = turn;
      break;
    }
  }
  return entries;
}

std::vector<double> around(double center, double spread, int n, double phase) {
  std::vector<double> v;
  for (int t = 0; t < n; ++t) v.push_back(center * (1 + spread * std::sin(1.7 * t + phase)));
  return v;
}

TEST(MedianInterval, OrderStatisticsOfTheSignTest) {
  std::vector<double> twenty;
  for (int i = 20; i >= 1; --i) twenty.push_back(i);
  // Binomial(20, 1/2): P(X <= 5) = 0.0207 <= 0.025 < P(X <= 6) = 0.0577, so the 95% interval
  // is the 6th to the 15th order statistic (the textbook table for n = 20).
  const auto i95 = median_interval(twenty, 0.95);
  ASSERT_TRUE(i95);
  EXPECT_EQ(i95->first, 6);
  EXPECT_EQ(i95->second, 15);
  // Eight values: 2 / 2^8 = 0.0078 <= 0.01, so 99% is [min, max]; seven: 2 / 2^7 = 0.0156 is not.
  const std::vector<double> eight{3, 1, 4, 1, 5, 9, 2, 6};
  const auto i99 = median_interval(eight, 0.99);
  ASSERT_TRUE(i99);
  EXPECT_EQ(i99->first, 1);
  EXPECT_EQ(i99->second, 9);
  EXPECT_FALSE(median_interval({3, 1, 4, 1, 5, 9, 2}, 0.99));
}

TEST(MeanInterval, StudentsT) {
  // mean 0.2, sd 0.1, n 3: t(0.995, 2) = 9.9248 (scipy.stats.t.ppf), half width 0.5730.
  const auto i = mean_interval({0.1, 0.2, 0.3}, 0.99);
  ASSERT_TRUE(i);
  EXPECT_NEAR(i->first, 0.2 - 0.57301, 1e-4);
  EXPECT_NEAR(i->second, 0.2 + 0.57301, 1e-4);
  EXPECT_FALSE(mean_interval({0.1}, 0.99));
}

TEST(Race, AClearLoserStopsBeforeTheSignTestCouldLook) {
  RaceConfig c;
  int last = 0;
  // 60% slower, 2% noise: Student's t on the log ratios (about 0.47, sd about 0.03) clears
  // log(1.05) within a few turns even at the Bonferroni level of 18 looks.
  const auto e = race({around(1.0, 0.02, 20, 0), around(1.6, 0.02, 20, 1)}, c, &last);
  EXPECT_EQ(e[1].outcome, RaceOutcome::kEliminated);
  EXPECT_GE(e[1].turn, c.early_turns);
  EXPECT_LT(e[1].turn, c.min_turns);
  EXPECT_EQ(e[0].outcome, RaceOutcome::kWon);
  EXPECT_EQ(last, e[1].turn);
  // Without the t rule (early_turns at min_turns) the sign test decides at its first look.
  c.early_turns = c.min_turns;
  const auto late = race({around(1.0, 0.02, 20, 0), around(1.6, 0.02, 20, 1)}, c, &last);
  EXPECT_EQ(late[1].turn, c.min_turns);
}

TEST(Race, NothingIsDecidedBeforeTheEarliestTurn) {
  RaceConfig c;
  std::vector<std::vector<double>> samples{{1, 1}, {9, 9}};
  std::vector<RaceEntry> e(2);
  EXPECT_FALSE(race_step(samples, e, c.early_turns - 1, c));
  EXPECT_EQ(e[1].outcome, RaceOutcome::kRacing);
}

TEST(Race, EqualSettingsEndTiedQuickly) {
  RaceConfig c;
  int last = 0;
  // Within 1% of each other turn by turn: inside the 5% tolerance, seen before turn 8.
  const auto e = race(
      {around(1.0, 0.01, 20, 0), around(1.0, 0.01, 20, 2), around(1.0, 0.01, 20, 4)}, c, &last);
  for (const auto& entry : e) EXPECT_EQ(entry.outcome, RaceOutcome::kTied);
  EXPECT_LT(last, c.min_turns);
}

TEST(Race, ANoisyPairIsUndecided) {
  RaceConfig c;
  // Turn by turn the second is 25% slower or 20% faster: log ratios +-0.223, mean 0, sd 0.23.
  // At the budget t's half width would still be about 0.2, far more than the 0.049 between the
  // mean and log(1.05): futile from the sign test's first look on.
  std::vector<double> a(20, 1.0), b;
  for (int t = 0; t < 20; ++t) b.push_back(t % 2 ? 1.25 : 0.8);
  int last = 0;
  auto e = race({a, b}, c, &last);
  EXPECT_EQ(e[0].outcome, RaceOutcome::kUndecided);
  EXPECT_EQ(e[1].outcome, RaceOutcome::kUndecided);
  EXPECT_EQ(last, c.min_turns);
  // --race-futility off: the whole budget.
  c.stop_futile = false;
  e = race({a, b}, c, &last);
  EXPECT_EQ(e[1].outcome, RaceOutcome::kUndecided);
  EXPECT_EQ(e[0].turn, c.max_turns);
  EXPECT_EQ(last, c.max_turns);
}

TEST(Race, AWildTurnDoesNotMakeATieFutile) {
  RaceConfig c;
  c.tie_tolerance = 0.5;
  // Equal within 1%, but turn 3 is 3x slower for the second (a rank descheduled in that turn):
  // log ratios sd about 0.39, so t's half width at the budget (about 0.36) would straddle
  // log(1.5) = 0.405 from a mean of 0.14, and t alone calls it futile at turn 8. The sign test
  // drops the extremes from turn 12 (99% over 12 turns: [x_(2), x_(11)], binomial tables), where
  // every other ratio lies within 1%: tied there, not undecided at turn 8.
  const std::vector<double> a = around(1.0, 0.005, 20, 0);
  std::vector<double> b = around(1.0, 0.005, 20, 1);
  b[2] *= 3;
  int last = 0;
  const auto e = race({a, b}, c, &last);
  EXPECT_EQ(e[0].outcome, RaceOutcome::kTied);
  EXPECT_EQ(e[1].outcome, RaceOutcome::kTied);
  EXPECT_EQ(last, 12);
}

TEST(Race, AGapTheBudgetCanStillDecideIsNotCutShort) {
  RaceConfig c;
  c.early_turns = c.min_turns;  // the sign test alone: t would eliminate it early
  // 12% slower in 7 turns of 8, 1% faster in one: the sign test's 99% interval over 8 turns is
  // [min, max], so the faster turn keeps it open; t at the budget (mean 0.10, sd 0.04, half
  // width about 0.04) would clear log(1.05) by 0.05: not futile, so it races on and the sign
  // test eliminates it once enough turns fall above (at 10 turns it drops the extremes).
  std::vector<double> a(20, 1.0), b(20, 1.12);
  b[2] = 0.99;
  int last = 0;
  const auto e = race({a, b}, c, &last);
  EXPECT_EQ(e[1].outcome, RaceOutcome::kEliminated);
  EXPECT_GT(e[1].turn, c.min_turns);
}

TEST(Race, ALoserDropsAndTheRestTie) {
  RaceConfig c;
  const auto e =
      race({around(1.0, 0.01, 20, 0), around(2.0, 0.01, 20, 1), around(1.01, 0.01, 20, 3)}, c);
  EXPECT_EQ(e[1].outcome, RaceOutcome::kEliminated);
  EXPECT_EQ(e[0].outcome, RaceOutcome::kTied);
  EXPECT_EQ(e[2].outcome, RaceOutcome::kTied);
}

TEST(Race, ASlowdownInsideTheToleranceIsNotAnElimination) {
  RaceConfig c;
  c.tie_tolerance = 0.10;
  // 6% slower every turn: outside a 5% tolerance, inside 10%.
  const auto e = race({around(1.0, 0.005, 20, 0), around(1.06, 0.005, 20, 0)}, c);
  EXPECT_EQ(e[1].outcome, RaceOutcome::kTied);
  c.tie_tolerance = 0.05;
  const auto strict = race({around(1.0, 0.005, 20, 0), around(1.06, 0.005, 20, 0)}, c);
  EXPECT_EQ(strict[1].outcome, RaceOutcome::kEliminated);
}

TEST(Race, IdenticalInputsGiveIdenticalDecisions) {
  RaceConfig c;
  const std::vector<std::vector<double>> times{around(1.0, 0.2, 20, 0), around(1.1, 0.2, 20, 1),
                                               around(1.3, 0.3, 20, 2)};
  int last_a = 0, last_b = 0;
  const auto a = race(times, c, &last_a);
  const auto b = race(times, c, &last_b);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(last_a, last_b);
  for (std::size_t s = 0; s < a.size(); ++s) {
    EXPECT_EQ(a[s].outcome, b[s].outcome);
    EXPECT_EQ(a[s].turn, b[s].turn);
  }
}

// Counts over one period of turns (n turns for n even, 2n for n odd): each setting in each place,
// each ordered (predecessor, setting) pair. A Williams design makes each count equal; a fixed
// order or a plain rotation (A B C, B C A, ...) leaves the pairs unequal.
void expect_balanced(std::size_t n) {
  const int period = static_cast<int>(n % 2 == 0 ? n : 2 * n);
  std::vector<std::vector<int>> in_place(n, std::vector<int>(n, 0));
  std::vector<std::vector<int>> after(n, std::vector<int>(n, 0));
  for (int turn = 1; turn <= period; ++turn) {
    const auto order = turn_order(n, turn);
    ASSERT_EQ(order.size(), n);
    for (std::size_t place = 0; place < n; ++place) {
      ASSERT_LT(order[place], n);
      ++in_place[order[place]][place];
      if (place > 0) ++after[order[place - 1]][order[place]];
    }
    EXPECT_EQ(turn_order(n, turn + period), order) << "the design repeats every period";
  }
  const int per_place = period / static_cast<int>(n);
  const int per_pair = per_place;  // period (n - 1) adjacent pairs over n (n - 1) ordered ones
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      EXPECT_EQ(in_place[a][b], per_place) << "setting " << a << " place " << b << " of " << n;
      if (a != b) {
        EXPECT_EQ(after[a][b], per_pair) << b << " after " << a << " of " << n;
      }
    }
  }
}

TEST(TurnOrder, EachSettingTakesEachPlaceAndFollowsEachOtherAlike) {
  for (std::size_t n = 1; n <= 7; ++n) expect_balanced(n);
  EXPECT_EQ(turn_order(4, 1), (std::vector<std::size_t>{0, 1, 3, 2}));
  EXPECT_TRUE(turn_order(0, 1).empty());
}

TEST(Race, OneSettingAloneHasWon) {
  std::vector<RaceEntry> e(1);
  EXPECT_TRUE(race_step({{1.0}}, e, 1, RaceConfig{}));
  EXPECT_EQ(e[0].outcome, RaceOutcome::kWon);
  EXPECT_EQ(parse_race_outcome(name(RaceOutcome::kUndecided)), RaceOutcome::kUndecided);
  EXPECT_FALSE(parse_race_outcome("winner"));
}

}  // namespace
}  // namespace colltune
