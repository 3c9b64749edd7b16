#pragma once
// Racing: settings measured in turns stop being sampled once the answer is known (F-Race's
// blocking, successive elimination's stopping; method and references: docs/statistics.md).
// Pure functions: every rank gets the same decisions from the same (max over ranks) samples.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colltune {

enum class RaceOutcome {
  kNotRaced,    // measured to a fixed budget (racing off, or nothing to race)
  kRacing,      // still sampled
  kWon,         // the only setting left
  kEliminated,  // clearly slower than the best at race_turn
  kTied,        // left with others, all within the tie tolerance of each other
  kUndecided,   // left with others when the budget ran out, neither separated nor tied
};
std::string_view name(RaceOutcome outcome);
std::optional<RaceOutcome> parse_race_outcome(std::string_view text);

// The fewest turns a 99% interval of a median exists for (2 / 2^8 <= 1%), the fewest the
// t rule looks at, and the default budget of turns when racing.
inline constexpr int kRaceFewestTurns = 8;
inline constexpr int kRaceEarliestTurn = 3;
inline constexpr int kRaceDefaultTurns = 20;

struct RaceConfig {
  int min_turns = kRaceFewestTurns;     // the sign test decides from here
  int early_turns = kRaceEarliestTurn;  // the t rule from here (min_turns or more: off)
  int max_turns = kRaceDefaultTurns;    // the per-size budget
  double tie_tolerance = 0.05;          // relative: within 5% of the best is tied with it
  double confidence = 0.99;             // of each sign-test interval, at every look
  bool stop_futile = true;              // end undecided once the budget cannot decide
};

struct RaceEntry {
  RaceOutcome outcome = RaceOutcome::kRacing;
  int turn = 0;  // the turn sampling stopped after (1-based); 0 while racing
};

// The rank k of the sign test's interval [x_(k), x_(n-k+1)] for a median of n values at
// `confidence`; 0 when n values are too few for one.
std::size_t median_interval_rank(std::size_t n, double confidence);

// Interval for the median of `values` at `confidence` from order statistics (the sign test's
// binomial): exact and distribution-free. nullopt when there are too few values for it.
std::optional<std::pair<double, double>> median_interval(std::vector<double> values,
                                                         double confidence);

// Interval for the mean of `values` at `confidence` from Student's t (n - 1 degrees of freedom):
// for few blocks, such as a sweep's rounds, where the sign test has no interval yet. nullopt
// below two values.
std::optional<std::pair<double, double>> mean_interval(const std::vector<double>& values,
                                                       double confidence);

// The order `settings` settings take their samples in at turn `turn` (1-based): rows of a
// Williams design, so over every `settings` turns (twice that when odd) each setting takes each
// place in the turn equally often and follows each other setting equally often. A fixed order
// would give each setting the same place and predecessor all launch long, and whatever that
// costs (the caches another algorithm left behind, the first sample after a decision) would read
// as the setting's own time. Same on every rank: a function of its arguments only.
std::vector<std::size_t> turn_order(std::size_t settings, int turn);

// After turn `turn` (1-based): `samples[s]` holds setting s's per-op seconds, one per turn it
// took part in (turn k is element k-1; every setting still racing has `turn` of them). Updates
// `entries` (same size) and returns true when no setting is racing any more. Each setting's
// per-turn log ratios to the best (the lowest median) get two intervals: from min_turns the sign
// test's for their median (distribution-free, at `confidence`), and from early_turns Student's t
// for their mean at 1 - (1 - confidence) / looks, Bonferroni over every look the budget allows
// (a clear gap or a clear tie is seen in a few turns). A setting is eliminated when either
// interval lies above log(1 + tie_tolerance); the rest end tied when each of them has an
// interval below it (none is more than the tolerance slower than the best, so taking any costs
// at most that); at max_turns the rest end undecided. One setting alone has won.
bool race_step(const std::vector<std::vector<double>>& samples, std::vector<RaceEntry>& entries,
               int turn, const RaceConfig& config);

}  // namespace colltune
