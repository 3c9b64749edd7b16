// Verdicts per size from raced and interleaved cells: what a race decided stands, and settings
// interleaved in several launches are held against each other launch by launch.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/stats.hpp"
#include "report/analysis.hpp"
#include "report/tune.hpp"
#include "report/view.hpp"

namespace colltune {
namespace {

// Settings raced in one launch at 1 KiB: a (the baseline), b, c... (algorithms 2, 3...), each
// with its outcome and median; eliminated ones out at `eliminated_turn`, the rest at turn 20.
Dataset raced(const std::vector<RaceOutcome>& outcomes, const std::vector<double>& medians,
              const std::vector<int>& eliminated_turn = {}) {
  Dataset d;
  d.kind = "sweep";
  std::vector<std::string> ids;
  for (std::size_t k = 0; k < outcomes.size(); ++k) ids.emplace_back(1, static_cast<char>('a' + k));
  for (std::size_t k = 0; k < outcomes.size(); ++k) {
    std::map<std::string, std::string> settings{{"backend", "mpi"}};
    if (k > 0) settings["OMPI_MCA_coll_tuned_allreduce_algorithm"] = std::to_string(k + 1);
    d.points.push_back({ids[k], ids[k], settings, k == 0});
    std::vector<std::string> others;
    for (const auto& id : ids) {
      if (id != ids[k]) others.push_back(id);
    }
    d.launches.push_back({ids[k], 1, "done", 0, std::nullopt, {}, others});
    Record r;
    r.point_id = ids[k];
    r.collective = "allreduce";
    r.dtype = "float";
    r.op = "sum";
    r.nranks = 2;
    r.bytes = 1024;
    r.race = outcomes[k];
    r.race_turn = outcomes[k] != RaceOutcome::kEliminated ? 20
                  : k < eliminated_turn.size()            ? eliminated_turn[k]
                                                          : 8;
    for (int t = 0; t < r.race_turn; ++t) r.samples_seconds.push_back(medians[k] * (1 + 0.001 * t));
    d.records.push_back(r);
  }
  return d;
}

// The report view's significance line for the first panel's first winner (throws if none).
std::string first_significance(const Dataset& d) {
  return make_report_view(d).panels.at(0).winners.at(0).significance;
}

// A cell interleaved in launches with these medians: 9 samples each, median x (1 + 0.001 k),
// k = -4..4, so each launch's median is exactly the value given.
Cell interleaved_cell(const std::vector<double>& medians) {
  Cell c;
  std::vector<double> all;
  for (std::size_t i = 0; i < medians.size(); ++i) {
    std::vector<double> samples;
    for (int k = -4; k <= 4; ++k) samples.push_back(medians[i] * (1 + 0.001 * k));
    c.launches.push_back(samples);
    c.launch_ids.push_back("launch " + std::to_string(i + 1));
    all.insert(all.end(), samples.begin(), samples.end());
  }
  c.summary = summarize(all);
  return c;
}

std::vector<double> pooled_of(const Cell& c) {
  std::vector<double> all;
  for (const auto& samples : c.launches) all.insert(all.end(), samples.begin(), samples.end());
  return all;
}

TEST(InterleavedVerdicts, LaunchesNotSamplesDecide) {
  // Launch 1 puts b 1.5x of a, launch 2 the two alike: pooled, a's 18 samples beat b's by
  // Mann-Whitney (p < 0.001); paired on the two launches' log ratios, scipy ttest_rel gives
  // p 0.248: no winner.
  const PairTest two = test_faster(interleaved_cell({1.0, 1.0}), interleaved_cell({1.5, 1.002}));
  EXPECT_NE(two.method.find("2 launches, paired"), std::string::npos) << two.method;
  EXPECT_NEAR(two.p_faster, 0.2484314831539266, 1e-9);
  EXPECT_LT(mann_whitney_p(pooled_of(interleaved_cell({1.0, 1.0})),
                           pooled_of(interleaved_cell({1.5, 1.002}))),
            0.001);  // scipy mannwhitneyu: 0.00047
  // Three launches that agree decide (scipy: 0.00745).
  const PairTest three =
      test_faster(interleaved_cell({1.0, 1.0, 1.0}), interleaved_cell({1.5, 1.3, 1.4}));
  EXPECT_NEAR(three.p_faster, 0.0074470525062306035, 1e-9);
  // One launch: its samples, and the method says the launch noise is unseen.
  const PairTest one = test_faster(interleaved_cell({1.0}), interleaved_cell({1.5}));
  EXPECT_NE(one.method.find("launch-to-launch noise unseen"), std::string::npos);
  EXPECT_LT(one.p_faster, 0.001);
}

// A --race-after launch after `raced`: round 2 measures only b and c (a, the baseline, was
// eliminated in round 1), b winning it and c eliminated, at these medians.
void second_launch(Dataset& d, double b_median, double c_median) {
  for (const auto& [id, outcome, median] :
       {std::tuple{"b", RaceOutcome::kWon, b_median}, {"c", RaceOutcome::kEliminated, c_median}}) {
    d.launches.push_back({id, 2, "done", 0, std::nullopt, {}, {id[0] == 'b' ? "c" : "b"}});
    Record r = d.records[1];
    r.point_id = id;
    r.round = 2;
    r.race = outcome;
    r.race_turn = 8;
    r.samples_seconds.clear();
    for (int t = 0; t < 8; ++t) r.samples_seconds.push_back(median * (1 + 0.001 * t));
    d.records.push_back(r);
  }
}

TEST(RacedVerdicts, LaunchesWhoseRacesEndedApartStillBeatABaselineOutEverywhere) {
  // Round 1: a eliminated, b and c undecided (c a little faster); round 2: b won. Their races
  // disagree, so no race outcome stands for b or c; a, out in the one launch that raced it, is
  // beaten by the fastest left, b (geometric mean of its launch medians about 1.01e-6 against c's
  // 1.11e-6; pooled over samples, c's 20 round-1 samples would make it the faster).
  Dataset d = raced({RaceOutcome::kEliminated, RaceOutcome::kUndecided, RaceOutcome::kUndecided},
                    {3e-6, 1.02e-6, 1e-6});
  second_launch(d, 0.98e-6, 1.21e-6);
  const auto verdicts = winners(build_panels(d)[0], d);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].fastest, "b");
  EXPECT_EQ(verdicts[0].race, RaceOutcome::kNotRaced);
  EXPECT_TRUE(verdicts[0].significant);
  EXPECT_TRUE(verdicts[0].baseline_eliminated);
  // a is out of the race, never "tied" for want of a second launch of it.
  EXPECT_EQ(std::count(verdicts[0].tied.begin(), verdicts[0].tied.end(), "a"), 0);
  EXPECT_EQ(first_significance(d),
            "yes: the baseline was eliminated in every launch that raced it; the fastest left "
            "beat it");
}

TEST(RacedVerdicts, AnEliminatedSettingIsNeverTheFastestAndAWinIsSignificant) {
  // c's eight samples have the lowest median, but the race eliminated it (a pathological pair of
  // outcomes): b, which won, is the answer.
  const Dataset d = raced({RaceOutcome::kEliminated, RaceOutcome::kWon, RaceOutcome::kEliminated},
                          {2e-6, 1e-6, 0.5e-6});
  const auto panels = build_panels(d);
  ASSERT_EQ(panels.size(), 1u);
  const auto verdicts = winners(panels[0], d);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].fastest, "b");
  EXPECT_TRUE(verdicts[0].significant);
  EXPECT_EQ(verdicts[0].eliminated, (std::vector<std::string>{"a", "c"}));
}

TEST(RacedVerdicts, ATieThatHoldsTheBaselineKeepsItAndNamesNoWinner) {
  const Dataset d = raced({RaceOutcome::kTied, RaceOutcome::kTied, RaceOutcome::kEliminated},
                          {1.02e-6, 1e-6, 3e-6});
  const auto verdicts = winners(build_panels(d)[0], d);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].fastest, "a");
  EXPECT_TRUE(verdicts[0].baseline_fastest);
  EXPECT_FALSE(verdicts[0].significant);
  EXPECT_EQ(verdicts[0].tied, (std::vector<std::string>{"b"}));
  EXPECT_EQ(first_significance(d),
            "race tied at turn 20, the baseline among them: keep it; eliminated: c (turn 8)");
}

TEST(RacedVerdicts, AnUndecidedRaceNamesNoWinner) {
  const Dataset d =
      raced({RaceOutcome::kUndecided, RaceOutcome::kUndecided, RaceOutcome::kEliminated},
            {1.1e-6, 1e-6, 3e-6});
  const auto verdicts = winners(build_panels(d)[0], d);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].fastest, "b");
  EXPECT_FALSE(verdicts[0].significant);
  EXPECT_EQ(verdicts[0].tied, (std::vector<std::string>{"a"}));
}

// The baseline (a) eliminated, b and c tied: both beat it, so the fastest is named (and written
// by tune) instead of keeping the one setting the race showed to be slower.
TEST(RacedVerdicts, ATieTheBaselineWasEliminatedFromNamesTheFastestLeft) {
  const Dataset d = raced({RaceOutcome::kEliminated, RaceOutcome::kTied, RaceOutcome::kTied},
                          {3e-6, 1.02e-6, 1e-6});
  const auto verdicts = winners(build_panels(d)[0], d);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].fastest, "c");
  EXPECT_TRUE(verdicts[0].significant);
  EXPECT_TRUE(verdicts[0].baseline_eliminated);
  EXPECT_FALSE(verdicts[0].baseline_fastest);
  EXPECT_EQ(verdicts[0].tied, (std::vector<std::string>{"b"}));
  EXPECT_EQ(first_significance(d),
            "race tied at turn 20, the baseline eliminated: the fastest left beat it; eliminated: "
            "a (turn 8)");
  // c sets algorithm 3 (point k sets k + 1): the rule names it, not Open MPI's choice (0).
  const std::string rules = emit_ompi_rules(d);
  EXPECT_NE(rules.find("\n0 3 0 0\n"), std::string::npos) << rules;
}

// Undecided among b and c, the baseline eliminated: the same.
TEST(RacedVerdicts, AnUndecidedRaceWithoutTheBaselineNamesTheFastestLeft) {
  const Dataset d =
      raced({RaceOutcome::kEliminated, RaceOutcome::kUndecided, RaceOutcome::kUndecided},
            {3e-6, 1e-6, 1.1e-6});
  const auto verdicts = winners(build_panels(d)[0], d);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].fastest, "b");
  EXPECT_TRUE(verdicts[0].significant);
}

// Many eliminated: counted with the turns they went out at, not listed (the tied column says who
// is left), so a row stays short.
TEST(RacedVerdicts, ManyEliminatedAreCountedWithTheirTurns) {
  const Dataset d =
      raced({RaceOutcome::kTied, RaceOutcome::kTied, RaceOutcome::kEliminated,
             RaceOutcome::kEliminated, RaceOutcome::kEliminated, RaceOutcome::kEliminated},
            {1.02e-6, 1e-6, 3e-6, 3e-6, 4e-6, 5e-6}, {0, 0, 8, 8, 10, 12});
  EXPECT_EQ(first_significance(d),
            "race tied at turn 20, the baseline among them: keep it; 4 eliminated at turns 8-12");
}

}  // namespace
}  // namespace colltune
