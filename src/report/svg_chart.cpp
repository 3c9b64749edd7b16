#include "report/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <vector>

#include "core/sizes.hpp"
#include "report/escape.hpp"

namespace colltune {
namespace {

// Colour-blind-safe first (Okabe-Ito), then darker tones that stay apart from them.
constexpr std::array<const char*, 10> kPalette{"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                               "#e69f00", "#56b4e9", "#000000", "#8c564b",
                                               "#7f7f7f", "#9467bd"};
constexpr std::array<const char*, 4> kDashes{"", "8 4", "2 3", "10 3 2 3"};
constexpr int kWidth = 760, kHeight = 380, kLeft = 72, kRight = 44, kTop = 16, kBottom = 56;

// 1, 2 or 5 times a power of ten, at or above `value`.
double nice_ceiling(double value) {
  if (value <= 0) return 1;
  const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
  for (double step : {1.0, 2.0, 5.0, 10.0}) {
    if (step * magnitude >= value) return step * magnitude;
  }
  return 10 * magnitude;
}

std::string time_text(double seconds) {
  if (seconds >= 1) return fmt::format("{:g} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:g} ms", seconds * 1e3);
  if (seconds >= 1e-6) return fmt::format("{:g} us", seconds * 1e6);
  return fmt::format("{:g} ns", seconds * 1e9);
}

std::string marker_svg(int marker, double x, double y, const char* color, bool hollow) {
  const std::string paint =
      hollow ? fmt::format("fill=\"#fff\" stroke=\"{}\" stroke-width=\"1.5\"", color)
             : fmt::format("fill=\"{}\"", color);
  switch (marker) {
    case 1:
      return fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"6\" height=\"6\" {}/>", x - 3,
                         y - 3, paint);
    case 2:
      return fmt::format("<path d=\"M{:.1f} {:.1f}l3.5 6h-7z\" {}/>", x, y - 3.5, paint);
    case 3:
      return fmt::format("<path d=\"M{:.1f} {:.1f}l3.5 3.5l-3.5 3.5l-3.5 -3.5z\" {}/>", x, y - 3.5,
                         paint);
    default:
      return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" {}/>", x, y, paint);
  }
}

std::string dash_attribute(const char* dash) {
  return *dash == '\0' ? "" : fmt::format(" stroke-dasharray=\"{}\"", dash);
}

// Each line's legend number (1 = first in the legend) beside its last point, right of the frame:
// labels pushed apart to a readable gap, a short leader to the point where one moved. Too many
// lines to keep apart in the plot's height: none, the legend alone names them.
std::string end_labels(const std::vector<std::pair<double, std::size_t>>& ends,
                       const std::vector<std::size_t>& number, const PanelView& panel,
                       double frame_right, double top, double bottom) {
  constexpr double kGap = 12;
  if (ends.empty() || static_cast<double>(ends.size()) * kGap > bottom - top) return "";
  std::vector<std::pair<double, std::size_t>> sorted = ends;
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> y(sorted.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    y[i] = std::max(sorted[i].first, i == 0 ? top + kGap / 2 : y[i - 1] + kGap);
  }
  // Pushed past the bottom: shift the run back up, keeping the gaps.
  for (std::size_t i = sorted.size(); i-- > 0;) {
    const double limit = i + 1 == sorted.size() ? bottom - 2 : y[i + 1] - kGap;
    y[i] = std::min(y[i], limit);
  }
  std::string svg;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const std::size_t series = sorted[i].second;
    const char* color = line_style(series).color;
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\"/>"
        "<text class=\"end-label\" x=\"{:.1f}\" y=\"{:.1f}\" style=\"fill:{}\">{}<title>{}</title>"
        "</text>\n",
        frame_right, sorted[i].first, frame_right + 5, y[i], color, frame_right + 7, y[i] + 4,
        color, number[series], html_escape(panel.series[series].label));
  }
  return svg;
}

}  // namespace

std::vector<PanelView> small_multiples(const PanelView& panel) {
  if (panel.series.size() <= kMaxLinesPerChart) return {panel};
  // Each label word's key and value, per series.
  std::vector<std::map<std::string, std::string>> settings;
  std::map<std::string, std::set<std::string>> values;
  for (const auto& s : panel.series) {
    auto& mine = settings.emplace_back();
    std::istringstream in(s.label);
    for (std::string word; in >> word;) {
      const auto eq = word.find('=');
      if (eq == std::string::npos) continue;
      mine[word.substr(0, eq)] = word.substr(eq + 1);
      values[word.substr(0, eq)].insert(word.substr(eq + 1));
    }
  }
  std::string best;
  for (const auto& [key, distinct] : values) {
    if (distinct.size() < 2) continue;
    std::map<std::string, std::size_t> per_value;
    std::size_t without = 0;  // drawn in every part (the baseline, or lines lacking the key)
    for (const auto& mine : settings) {
      const auto it = mine.find(key);
      it == mine.end() ? ++without : ++per_value[it->second];
    }
    const bool fits = std::all_of(per_value.begin(), per_value.end(), [&](const auto& entry) {
      return entry.second + without <= kMaxLinesPerChart;
    });
    if (fits && (best.empty() || distinct.size() < values[best].size())) best = key;
  }
  if (best.empty()) return {panel};
  // Parts in numeric order where the values are numbers (8192 before 65536).
  std::vector<std::string> order(values[best].begin(), values[best].end());
  const auto number = [](const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    return end != nullptr && *end == '\0' && !text.empty() ? v : std::nan("");
  };
  std::stable_sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) {
    const double x = number(a), y = number(b);
    return !std::isnan(x) && !std::isnan(y) ? x < y : a < b;
  });
  std::vector<PanelView> parts;
  for (const auto& value : order) {
    PanelView part = panel;
    part.title = fmt::format("{}: {}={}", panel.title, best, value);
    part.series.clear();
    // The part's title states the split word, so its labels leave it out.
    const std::string word = best + "=" + value;
    for (std::size_t i = 0; i < panel.series.size(); ++i) {
      const auto it = settings[i].find(best);
      if (it != settings[i].end() && it->second != value) continue;
      SeriesView series = panel.series[i];
      std::istringstream in(series.label);
      std::string label;
      for (std::string w; in >> w;) {
        if (w != word) label += (label.empty() ? "" : " ") + w;
      }
      if (!label.empty()) series.label = label;
      part.series.push_back(std::move(series));
    }
    parts.push_back(std::move(part));
  }
  return parts;
}

std::vector<std::size_t> legend_order(const PanelView& panel) {
  std::vector<std::size_t> order(panel.series.size());
  std::iota(order.begin(), order.end(), 0);
  const auto last_time = [&](std::size_t i) {
    const auto& points = panel.series[i].points;
    return points.empty() ? 0.0 : points.back().time_seconds;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return last_time(a) < last_time(b); });
  return order;
}

LineStyle line_style(std::size_t index) {
  return {kPalette[index % kPalette.size()], kDashes[(index / kPalette.size()) % kDashes.size()],
          static_cast<int>((index / (kPalette.size() * kDashes.size())) % 4)};
}

std::string render_svg_chart(const PanelView& panel, ChartView view, int chart_index) {
  const bool time = view == ChartView::kTime;
  double y_min = std::numeric_limits<double>::max(), y_max = 0;
  std::uint64_t min_size = UINT64_MAX, max_size = 0;
  for (const auto& s : panel.series) {
    for (const auto& p : s.points) {
      const double low = time ? p.time_low : p.busbw_low;
      const double high = time ? p.time_high : p.busbw_high;
      if (time && p.time_seconds <= 0) continue;
      y_min = std::min({y_min, low > 0 ? low : (time ? p.time_seconds : 0.0)});
      y_max = std::max({y_max, high, time ? p.time_seconds : p.busbw_gbps});
      min_size = std::min(min_size, p.bytes);
      max_size = std::max(max_size, p.bytes);
    }
  }
  if (min_size == UINT64_MAX || y_max <= 0) return "";
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  double x_lo = std::log2(static_cast<double>(std::max<std::uint64_t>(min_size, 1)));
  double x_hi = std::log2(static_cast<double>(std::max<std::uint64_t>(max_size, 1)));
  if (x_hi - x_lo < 1) x_lo -= 1, x_hi += 1;
  const auto x_of = [&](std::uint64_t bytes) {
    return kLeft + (std::log2(static_cast<double>(std::max<std::uint64_t>(bytes, 1))) - x_lo) /
                       (x_hi - x_lo) * plot_w;
  };
  // Time: whole decades, log scale. busbw: from 0, linear, the ceiling inside the frame.
  const double ceiling = time ? 0 : panel.ceiling_gbps;
  // Bounded for any finite input (a store is not trusted): decades stay inside doubles' range.
  y_max = std::clamp(y_max, 1e-300, 1e300);
  y_min = std::clamp(y_min, 1e-300, y_max);
  const int top_decade = static_cast<int>(std::ceil(std::log10(y_max)));
  const int bottom_decade =
      std::min(top_decade - 1, static_cast<int>(std::floor(std::log10(y_min))));
  const double top = time ? std::pow(10.0, top_decade)
                          : nice_ceiling(std::min(std::max(y_max, ceiling) * 1.05, 1e300));
  const double bottom = time ? std::pow(10.0, bottom_decade) : 0;
  const auto y_of = [&](double v) {
    const double share = time ? (std::log10(std::max(v, bottom)) - std::log10(bottom)) /
                                    (std::log10(top) - std::log10(bottom))
                              : v / top;
    return kTop + plot_h - share * plot_h;
  };
  std::string svg = fmt::format(
      "<svg class=\"chart {}\" id=\"{}-{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
      "height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}: {}\">\n",
      time ? "time" : "busbw", time ? "time" : "busbw", chart_index, kWidth, kHeight, kWidth,
      kHeight, time ? "time against message size, log-log" : "busbw against message size",
      html_escape(panel.title));
  std::vector<double> ticks;
  if (time) {
    // At most about 12 labelled decades, however many the data spans.
    const int step = std::max(1, (top_decade - bottom_decade + 11) / 12);
    for (int e = bottom_decade; e <= top_decade; e += step) ticks.push_back(std::pow(10.0, e));
  } else {
    for (int i = 0; i <= 5; ++i) ticks.push_back(top * i / 5);
  }
  for (double v : ticks) {
    svg += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#e4e4e4\"/>"
        "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        kLeft, y_of(v), kWidth - kRight, y_of(v), kLeft - 6, y_of(v) + 4,
        time ? time_text(v) : fmt::format("{:g}", v));
  }
  // One tick per power of two that keeps labels apart (at most about 12).
  const int span = static_cast<int>(std::ceil(x_hi - x_lo));
  const int every = std::max(1, (span + 11) / 12);
  for (int e = static_cast<int>(std::ceil(x_lo)); e <= static_cast<int>(std::floor(x_hi)); ++e) {
    if (e % every != 0 || e < 0 || e > 62) continue;
    const double x = x_of(1ULL << e);
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#e4e4e4\"/>"
        "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
        x, kTop, x, kTop + plot_h, x, kTop + plot_h + 16, format_bytes(1ULL << e));
  }
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>\n"
      "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">message size (bytes, log scale)</text>\n"
      "<text transform=\"translate(16 {:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
      kLeft, kTop, plot_w, plot_h, kLeft + plot_w / 2, kHeight - 12, kTop + plot_h / 2,
      time ? "time per op (log scale)" : "busbw (GB/s)");
  if (ceiling > 0) {
    svg += fmt::format(
        "<line class=\"ceiling\" x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#555\" "
        "stroke-width=\"1.2\" stroke-dasharray=\"3 3\"/><text x=\"{}\" y=\"{:.1f}\" "
        "text-anchor=\"end\">copy ceiling {:.3g} GB/s</text>\n",
        kLeft, y_of(ceiling), kWidth - kRight, y_of(ceiling), kWidth - kRight - 4,
        y_of(ceiling) - 4, ceiling);
  }
  std::vector<std::size_t> number(panel.series.size());
  const std::vector<std::size_t> order = legend_order(panel);
  for (std::size_t n = 0; n < order.size(); ++n) number[order[n]] = n + 1;
  std::vector<std::pair<double, std::size_t>> ends;  // the last point's y, per series
  for (std::size_t i = 0; i < panel.series.size(); ++i) {
    const auto& s = panel.series[i];
    const LineStyle style = line_style(i);
    std::string points, marks;
    double end_y = -1;
    for (const auto& p : s.points) {
      const double v = time ? p.time_seconds : p.busbw_gbps;
      if (time && v <= 0) continue;
      const double x = x_of(p.bytes);
      end_y = y_of(v);
      points += fmt::format("{:.1f},{:.1f} ", x, end_y);
      const double low = time ? p.time_low : p.busbw_low, high = time ? p.time_high : p.busbw_high;
      if (high > low && low > 0) {
        marks += fmt::format(
            "<line class=\"interval\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
            "stroke=\"{}\"/>",
            x, y_of(low), x, y_of(high), style.color);
      }
      marks += fmt::format("<g>{}<title>{}: {} B, {}</title></g>\n",
                           marker_svg(style.marker, x, y_of(v), style.color, s.baseline),
                           html_escape(s.label), p.bytes,
                           time ? time_text(v) : fmt::format("{:.3f} GB/s", v));
    }
    svg += fmt::format(
        "<polyline class=\"series\" data-label=\"{}\" fill=\"none\" stroke=\"{}\" "
        "stroke-width=\"{}\"{} points=\"{}\"/>\n{}",
        html_escape(s.label), style.color, s.baseline ? 3.2 : 1.6, dash_attribute(style.dash),
        points, marks);
    if (end_y >= 0) ends.emplace_back(end_y, i);
  }
  svg += end_labels(ends, number, panel, kWidth - kRight, kTop, kTop + plot_h);
  return svg + "</svg>\n";
}

std::string render_legend(const PanelView& panel) {
  std::string html = "<ul class=\"legend\">\n";
  std::size_t number = 0;
  for (std::size_t i : legend_order(panel)) {
    const auto& s = panel.series[i];
    const LineStyle style = line_style(i);
    html += fmt::format(
        "<li><b>{}</b> <svg width=\"34\" height=\"12\"><line x1=\"0\" y1=\"6\" x2=\"34\" "
        "y2=\"6\" stroke=\"{}\" stroke-width=\"{}\"{}/>{}</svg>{}{}</li>\n",
        ++number, style.color, s.baseline ? 3.2 : 1.6, dash_attribute(style.dash),
        marker_svg(style.marker, 17, 6, style.color, s.baseline), html_escape(s.label),
        s.baseline ? " <b>(baseline)</b>" : "");
  }
  return html + "</ul>\n";
}

}  // namespace colltune
