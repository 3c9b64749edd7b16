// The report's charts: line looks and small multiples.
#include "report/svg_chart.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>

namespace colltune {
namespace {

// Every line of a chart looks different: 30 lines (and up to 160) never share colour, dash and
// marker all three, and the first ten differ by colour alone.
TEST(LineStyle, DistinctForThirtyLinesAndMore) {
  std::set<std::tuple<std::string, std::string, int>> looks;
  for (std::size_t i = 0; i < kDistinctLineStyles; ++i) {
    const LineStyle s = line_style(i);
    EXPECT_TRUE(looks.insert({s.color, s.dash, s.marker}).second) << "line " << i;
    if (i == 29) {
      EXPECT_EQ(looks.size(), 30u);
    }
  }
  std::set<std::string> first_colors;
  for (std::size_t i = 0; i < 10; ++i) first_colors.insert(line_style(i).color);
  EXPECT_EQ(first_colors.size(), 10u);
}

}  // namespace
}  // namespace colltune

namespace colltune {
namespace {

// 1 baseline + 5 algorithms x 3 segment sizes: split by the segment size (3 values, the fewest
// that fits), the baseline in every part; 12 lines or fewer stay one chart.
TEST(SmallMultiples, SplitByTheSettingWithFewestValuesBaselineInEach) {
  PanelView panel;
  panel.title = "allreduce";
  panel.series.push_back({"(no knob set)", true, {}});
  for (const char* alg : {"1", "2", "3", "4", "5"}) {
    for (const char* seg : {"0", "8192", "65536"}) {
      panel.series.push_back({std::string("alg=") + alg + " seg=" + seg, false, {}});
    }
  }
  const auto parts = small_multiples(panel);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].title, "allreduce: seg=0");
  EXPECT_EQ(parts[1].title, "allreduce: seg=8192");  // numbers in numeric order
  for (const auto& part : parts) {
    ASSERT_EQ(part.series.size(), 6u);
    EXPECT_TRUE(part.series[0].baseline);
    EXPECT_EQ(part.series[0].label, "(no knob set)");
    EXPECT_EQ(part.series[1].label, "alg=1");  // the part's title says which seg
  }
  panel.series.resize(12);
  EXPECT_EQ(small_multiples(panel).size(), 1u);
}

}  // namespace
}  // namespace colltune

namespace colltune {
namespace {

std::size_t count_of(const std::string& text, const std::string& word) {
  std::size_t n = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

// A chart is bounded for any finite input a store may hold: from the sample floor (1 ps) to
// the ceiling (1e6 s) is 18 decades, drawn in at most about 12 labelled ticks, and even a
// denormal that got past the reader (5e-324: 324 decades, once an endless loop) ends at once.
TEST(ChartAxes, BoundedForExtremeTimes) {
  for (const auto& [low, high] : {std::pair{1e-12, 1e6}, std::pair{5e-324, 5e-324}}) {
    PanelView panel;
    panel.title = "allreduce";
    SeriesView s{"(no knob set)", true, {}};
    s.points.push_back({8, low, low, low, 1e300, 1e300, 1e300});
    s.points.push_back({1024, high, high, high, 1e-300, 1e-300, 1e-300});
    panel.series.push_back(s);
    const std::string time = render_svg_chart(panel, ChartView::kTime, 0);
    const std::size_t ticks = count_of(time, "text-anchor=\"end\"");
    EXPECT_GE(ticks, 2u) << low;
    EXPECT_LE(ticks, 14u) << low;
    EXPECT_EQ(time.find("inf"), std::string::npos);
    EXPECT_EQ(time.find("nan"), std::string::npos) << time.substr(0, 400);
    const std::string busbw = render_svg_chart(panel, ChartView::kBusbw, 0);
    EXPECT_LE(count_of(busbw, "text-anchor=\"end\""), 14u);
    EXPECT_EQ(busbw.find("inf"), std::string::npos);
  }
}

}  // namespace
}  // namespace colltune
