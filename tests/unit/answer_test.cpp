// "What to set" from winners rows built by hand: the advice each verdict gives, and how sizes
// with the same advice merge into ranges.
#include "report/answer.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace colltune {
namespace {

WinnerRow named(const char* size, const char* winner, double gain) {
  WinnerRow row;
  row.size = size;
  row.winner = winner;
  row.vs_baseline = fmt::format("{:+.1f}%", gain * 100);
  row.gain_over_baseline = gain;
  row.significance = "yes (adjusted p=0.001, 3+3 launches, Welch)";
  return row;
}

WinnerRow unnamed(const char* size, std::vector<std::string> contenders,
                  std::vector<std::string> baselines, const char* significance) {
  WinnerRow row;
  row.size = size;
  row.winner = "no significant difference";
  row.vs_baseline = "+1.0%";
  row.significance = significance;
  row.contenders = std::move(contenders);
  row.baselines_in_contention = std::move(baselines);
  return row;
}

PanelView panel_of(std::vector<WinnerRow> rows, std::size_t baselines) {
  PanelView panel;
  panel.title = "allreduce float sum, 4 ranks, out-of-place";
  panel.baselines = baselines;
  panel.winners = std::move(rows);
  return panel;
}

TEST(Answer, AGainRangeRunsFromTheLeastToTheGreatest) {
  // 30.2, 37.8, 35.5: the first and last sizes hold neither the least nor the greatest.
  const auto answer = answer_of(panel_of(
      {named("64K", "alg=3", 0.302), named("1M", "alg=3", 0.378), named("16M", "alg=3", 0.355)},
      1));
  ASSERT_EQ(answer.lines.size(), 1u);
  EXPECT_EQ(answer.lines[0], "64K-16M: alg=3, +30.2% to +37.8% over the baseline (significant)");
}

TEST(Answer, ADifferentWinnerStartsANewRange) {
  const auto answer =
      answer_of(panel_of({named("1K", "alg=2", 0.4), named("64K", "alg=4", 0.6)}, 1));
  ASSERT_EQ(answer.lines.size(), 2u);
  EXPECT_EQ(answer.lines[0], "1K: alg=2, +40.0% over the baseline (significant)");
  EXPECT_EQ(answer.lines[1], "64K: alg=4, +60.0% over the baseline (significant)");
}

TEST(Answer, EveryBaselineOutMeansChangeSomethingButNotWhat) {
  const auto answer = answer_of(panel_of(
      {unnamed("32K", {"alg=1", "alg=3", "alg=5", "alg=6"}, {}, "race undecided: budget spent")},
      1));
  ASSERT_EQ(answer.lines.size(), 1u);
  EXPECT_EQ(answer.lines[0],
            "32K: not the baseline (slower), but undecided among 4 configurations: alg=1, alg=3, "
            "alg=5 and 1 more (race undecided)");
}

TEST(Answer, ARaceTiedWithoutTheBaselineOffersAnyOfTheTied) {
  const auto answer = answer_of(
      panel_of({unnamed("8", {"alg=1", "alg=6"}, {}, "race tied at turn 18 (within 5%)")}, 1));
  ASSERT_EQ(answer.lines.size(), 1u);
  EXPECT_EQ(answer.lines[0],
            "8: not the baseline (slower); any of 2 configurations tied: alg=1, alg=6 (race tied "
            "at turn 18)");
}

TEST(Answer, ATieHoldingTheBaselineKeepsItAndCountsTheOthersOverTheRange) {
  const auto answer =
      answer_of(panel_of({unnamed("8", {"alg=1", "(no knob set)", "alg=2"}, {"(no knob set)"},
                                  "no significant difference (adjusted p=0.4)"),
                          unnamed("128", {"(no knob set)", "alg=2", "alg=3", "alg=4", "alg=5"},
                                  {"(no knob set)"}, "no significant difference (adjusted p=0.3)")},
                         1));
  ASSERT_EQ(answer.lines.size(), 1u);
  EXPECT_EQ(answer.lines[0],
            "8-128: keep the baseline, tied with 2 to 4 others (no significant difference)");
}

TEST(Answer, TheSameAdviceOnDifferentEvidenceIsTwoRanges) {
  // "keep the baseline" at both sizes, but at 8 B the test ran and found nothing, at 64 B there
  // were too few samples to test: two ranges, each with its own reason.
  const auto answer =
      answer_of(panel_of({unnamed("8", {"(no knob set)"}, {"(no knob set)"},
                                  "no significant difference (adjusted p=0.4)"),
                          unnamed("64", {"(no knob set)"}, {"(no knob set)"}, "too few samples")},
                         1));
  ASSERT_EQ(answer.lines.size(), 2u);
  EXPECT_EQ(answer.lines[0], "8: keep the baseline (no significant difference)");
  EXPECT_EQ(answer.lines[1], "64: keep the baseline (too few samples)");
}

TEST(Answer, WithSeveralPlacementsTheBaselineStillInContentionIsNamed) {
  // Two baselines (one per placement); at 32K only the core-bound one is left.
  const auto answer =
      answer_of(panel_of({unnamed("2K", {"none base", "core base"}, {"none base", "core base"},
                                  "no significant difference (adjusted p=0.5)"),
                          unnamed("32K", {"core alg=1", "core base"}, {"core base"},
                                  "no significant difference (adjusted p=0.2)")},
                         2));
  ASSERT_EQ(answer.lines.size(), 2u);
  EXPECT_EQ(answer.lines[0],
            "2K: keep the baseline, tied with 1 other (no significant difference)");
  EXPECT_EQ(answer.lines[1], "32K: keep core base, tied with 1 other (no significant difference)");
}

TEST(Answer, OneConfigurationLeavesNothingToChoose) {
  WinnerRow only = named("1K", "(no knob set)", 0);
  only.vs_baseline = "is the baseline";
  only.significance = "only one configuration";
  const auto answer = answer_of(panel_of({only}, 1));
  ASSERT_EQ(answer.lines.size(), 1u);
  EXPECT_EQ(answer.lines[0], "1K: only (no knob set) measured, nothing to choose");
}

}  // namespace
}  // namespace colltune
