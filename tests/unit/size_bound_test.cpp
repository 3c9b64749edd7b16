// A report of a huge run stays readable: tables and charts show a bounded, stated selection of
// sizes, while the answer still reads every size.
#include "report/size_bound.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "report/view.hpp"
#include "store/results.hpp"

namespace colltune {
namespace {

TEST(SizeBound, FewSizesAreAllShown) {
  std::set<std::uint64_t> powers;
  for (int k = 0; k <= 40; ++k) powers.insert(std::uint64_t{1} << k);
  EXPECT_EQ(sizes_to_show(powers), powers);
}

TEST(SizeBound, ManySizesSpreadOverTheLogOfTheSize) {
  // 100000 sizes 4 B apart (4 B to 400000 B). By hand: targets 4 x 10^(5 t / 255), 51 a decade;
  // where they lie closer than 4 B (below 4 / (10^(5/255) - 1) = 88 B) they share sizes, so
  // 40-400 B keeps fewer than 51 but still some 40, where an even stride (every 390th size) keeps
  // none; from 4000 B up each of the 51 targets is a size of its own.
  std::set<std::uint64_t> sizes;
  for (std::uint64_t b = 4; b <= 400000; b += 4) sizes.insert(b);
  const auto shown = sizes_to_show(sizes);
  EXPECT_LE(shown.size(), kMaxShownSizes);
  EXPECT_GE(shown.size(), 200u);
  EXPECT_TRUE(shown.count(4));
  EXPECT_TRUE(shown.count(400000));
  const auto in = [&](std::uint64_t lo, std::uint64_t hi) {
    return std::count_if(shown.begin(), shown.end(),
                         [&](std::uint64_t b) { return b >= lo && b < hi; });
  };
  EXPECT_GE(in(40, 400), 40);
  EXPECT_LT(in(40, 400), 51);
  EXPECT_NEAR(in(4000, 40000), 51, 1);
  EXPECT_NEAR(in(40000, 400000), 51, 1);
}

// A panel of one configuration at `n` sizes 8 B apart, each row a change of winner where `flip`.
PanelView panel_of(std::size_t n, bool flip) {
  PanelView panel;
  panel.title = "allreduce";
  panel.series.push_back({"a", true, {}});
  for (std::size_t i = 1; i <= n; ++i) {
    panel.series[0].points.push_back({8 * i, 1e-5, 1e-5, 1e-5, 1, 1, 1});
    WinnerRow row;
    row.bytes = 8 * i;
    row.winner_changes = flip;
    panel.winners.push_back(row);
    if (flip) panel.changes.push_back("at " + std::to_string(8 * i));
  }
  return panel;
}

TEST(SizeBound, APanelKeepsItsChartsToTheShownSizesAndCountsTheChanges) {
  PanelView panel = panel_of(5000, true);
  std::set<std::uint64_t> all;
  for (const auto& p : panel.series[0].points) all.insert(p.bytes);
  const auto shown = sizes_to_show(all);
  bound_panel(panel, shown, all.size());
  EXPECT_EQ(panel.series[0].points.size(), shown.size());
  EXPECT_EQ(panel.sizes_total, 5000u);
  EXPECT_EQ(panel.sizes_shown, shown.size());
  ASSERT_EQ(panel.changes.size(), kMaxShownChanges + 1);
  EXPECT_EQ(panel.changes.back(), "and 4936 more times");  // 5000 - 64
  const std::string note = shown_sizes_note(panel);
  EXPECT_NE(note.find(fmt::format("Showing {} of 5000 sizes", shown.size())), std::string::npos);

  PanelView small = panel_of(10, false);
  bound_panel(small, sizes_to_show({8, 16, 24, 32, 40, 48, 56, 64, 72, 80}), 10);
  EXPECT_EQ(shown_sizes_note(small), "");
}

TEST(SizeBound, AnAnswerOfManyRangesSaysHowManyItLeftOut) {
  AnswerView answer{"allreduce", {}};
  for (int i = 0; i < 100; ++i) answer.lines.push_back(std::to_string(i));
  bound_answer(answer);
  ASSERT_EQ(answer.lines.size(), kMaxAnswerLines);
  EXPECT_EQ(answer.lines[kMaxAnswerLines - 2], std::to_string(kMaxAnswerLines - 2));
  EXPECT_EQ(answer.lines.back(),
            "... and 37 more size ranges (every size is in results.csv)");  // 100 - 63
}

TEST(SizeBound, AReportOfThousandsOfSizesShowsAFewHundredAndAnswersForAll) {
  // One configuration at 3000 sizes 8 B apart (8 B to 24000 B), one launch.
  Dataset d;
  d.kind = "run";
  d.points.push_back({"run", "run", {}, true});
  d.launches.push_back({"run", 1, "done", 0, std::nullopt, {}, {}});
  for (std::uint64_t i = 1; i <= 3000; ++i) {
    Record r;
    r.point_id = "run";
    r.collective = "allreduce";
    r.dtype = "float";
    r.op = "sum";
    r.nranks = 2;
    r.bytes = 8 * i;
    r.count = 2 * i;
    r.samples_seconds = {1e-5, 1.1e-5, 1.2e-5};
    d.records.push_back(r);
  }
  const ReportView view = make_report_view(d);
  ASSERT_EQ(view.panels.size(), 1u);
  const PanelView& panel = view.panels[0];
  EXPECT_EQ(panel.sizes_total, 3000u);
  EXPECT_LE(panel.winners.size(), kMaxShownSizes);
  EXPECT_EQ(panel.winners.size(), panel.sizes_shown);
  EXPECT_EQ(panel.series.at(0).points.size(), panel.sizes_shown);
  EXPECT_EQ(panel.winners.front().size, "8");
  EXPECT_EQ(panel.winners.back().bytes, 24000u);
  // The answer still reads every size: one range from the first to the last.
  ASSERT_EQ(view.answers.size(), 1u);
  ASSERT_EQ(view.answers[0].lines.size(), 1u);
  EXPECT_EQ(view.answers[0].lines[0], "8-24000: only run measured, nothing to choose");
}

}  // namespace
}  // namespace colltune
