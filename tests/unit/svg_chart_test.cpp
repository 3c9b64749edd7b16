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
