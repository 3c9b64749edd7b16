#pragma once
// The report's charts as inline SVG (no script, nothing fetched): per panel a latency view (time
// against size, log-log) and a bandwidth view (busbw against size, the copy ceiling drawn), each
// median with its interval as an error bar, every line told apart by colour, dash and marker.

#include <cstddef>
#include <string>
#include <vector>

#include "report/view.hpp"

namespace colltune {

// How line `index` of a chart looks: colour x dash x marker, distinct for the first 160 lines
// (10 colours, 4 dashes, 4 markers), so no two lines of a chart look alike.
struct LineStyle {
  const char* color;
  const char* dash;  // stroke-dasharray; "" for solid
  int marker;        // 0 circle, 1 square, 2 triangle, 3 diamond
};
LineStyle line_style(std::size_t index);
inline constexpr std::size_t kDistinctLineStyles = 160;

enum class ChartView { kTime, kBusbw };

// More lines than a chart can show readably: such a panel is drawn as small multiples.
inline constexpr std::size_t kMaxLinesPerChart = 12;

// `panel` as small multiples when it has more than kMaxLinesPerChart lines: split by the label
// word ("key=value") whose key has the fewest values that still bring every part within the
// limit; the baseline is drawn in every part. Each part's title names its value, and its labels
// leave that word out. One part (the panel itself, title unchanged) when it fits, or when no key
// splits it.
std::vector<PanelView> small_multiples(const PanelView& panel);

// One chart of `panel`, or "" when it has no points. `chart_index` makes element ids unique.
std::string render_svg_chart(const PanelView& panel, ChartView view, int chart_index);

// Series indices in legend order: by time at the largest size, fastest first. A line's legend
// number (1-based position here) labels its end on both charts.
std::vector<std::size_t> legend_order(const PanelView& panel);

// The legend as an HTML list: each configuration with its line's look, in the order of the
// lines' ends on the time chart (fastest at the largest size first).
std::string render_legend(const PanelView& panel);

}  // namespace colltune
